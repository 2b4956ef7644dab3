package specreader

import (
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata"
)

// TestOracleDeepNesting writes lists of structs holding maps, lists of
// lists and a FlatMap (marked by field metadata) below a list, then
// compares every value: slots below lists and FlatMap keys are counted from
// lengths and inmap streams (Schema §2).
func TestOracleDeepNesting(t *testing.T) {
	const n = 4000
	fmMeta := arrow.NewMetadata([]string{"strata.flatmap"}, []string{"true"})
	inner := arrow.StructOf(
		arrow.Field{Name: "k", Type: arrow.BinaryTypes.String, Nullable: true},
		arrow.Field{Name: "m", Type: arrow.MapOf(arrow.BinaryTypes.String, arrow.ListOf(arrow.PrimitiveTypes.Int16)), Nullable: true},
		arrow.Field{Name: "fm", Type: arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64), Nullable: true, Metadata: fmMeta},
	)
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "deep", Type: arrow.ListOf(inner), Nullable: true},
		{Name: "ll", Type: arrow.ListOf(arrow.ListOf(arrow.BinaryTypes.String)), Nullable: true},
	}, nil)
	mem := memory.NewGoAllocator()
	rb := array.NewRecordBuilder(mem, sch)
	idb := rb.Field(0).(*array.Int64Builder)
	deep := rb.Field(1).(*array.ListBuilder)
	ll := rb.Field(2).(*array.ListBuilder)
	for i := 0; i < n; i++ {
		idb.Append(int64(i))
		if i%13 == 0 {
			deep.AppendNull()
		} else {
			deep.Append(true)
			sb := deep.ValueBuilder().(*array.StructBuilder)
			for j := 0; j < i%3; j++ {
				if (i+j)%17 == 0 {
					sb.AppendNull()
					continue
				}
				sb.Append(true)
				sb.FieldBuilder(0).(*array.StringBuilder).Append(fmt.Sprintf("k%d", (i+j)%50))
				mb := sb.FieldBuilder(1).(*array.MapBuilder)
				if i%5 == 0 {
					mb.AppendNull()
				} else {
					mb.Append(true)
					for e := 0; e < j+1; e++ {
						mb.KeyBuilder().(*array.StringBuilder).Append(fmt.Sprintf("e%d", e))
						lb := mb.ItemBuilder().(*array.ListBuilder)
						lb.Append(true)
						for x := 0; x < (i+e)%3; x++ {
							lb.ValueBuilder().(*array.Int16Builder).Append(int16(i - x))
						}
					}
				}
				fb := sb.FieldBuilder(2).(*array.MapBuilder)
				if i%7 == 0 {
					fb.AppendNull()
				} else {
					fb.Append(true)
					for e := 0; e < 4; e++ {
						if (i>>e)&1 == 1 {
							fb.KeyBuilder().(*array.StringBuilder).Append(fmt.Sprintf("f%d", e))
							fb.ItemBuilder().(*array.Int64Builder).Append(int64(i * e))
						}
					}
				}
			}
		}
		if i%11 == 0 {
			ll.AppendNull()
		} else {
			ll.Append(true)
			l2 := ll.ValueBuilder().(*array.ListBuilder)
			for j := 0; j < i%4; j++ {
				if j == 2 {
					l2.AppendNull()
					continue
				}
				l2.Append(true)
				for x := 0; x < (i+j)%3; x++ {
					l2.ValueBuilder().(*array.StringBuilder).Append(fmt.Sprint(i, j, x))
				}
			}
		}
	}
	rec := rb.NewRecord()
	for _, opts := range []*strata.WriteOptions{nil, {StripeBytes: 32 << 10, ChunkValues: 256}} {
		f, err := Open(writeStrata(t, sch, []arrow.Record{rec}, opts))
		if err != nil {
			t.Fatal(err)
		}
		got, err := f.ReadAll()
		addKinds(f.Kinds)
		if err != nil {
			t.Fatal(err)
		}
		compareTable(t, "deep", got, sch, []arrow.Record{rec})
		fm := f.Schema.Root.Fields[1].Elem.Fields[2]
		t.Logf("%d stripes; deep.element.fm is kind %d with %d keys", len(f.Stripes), fm.Kind, len(fm.Keys))
	}
}
