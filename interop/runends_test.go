package interop_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata/encoding"
	"strata/interop"
)

// reeOf builds a run-end encoded array of n rows from runs of the given
// lengths over values (arrow-go's JSON form, nulls allowed).
func reeOf(t *testing.T, ends arrow.DataType, vt arrow.DataType, values string, lens []int) arrow.Array {
	t.Helper()
	mem := memory.DefaultAllocator
	vals, _, err := array.FromJSON(mem, vt, strings.NewReader(values))
	must(t, err)
	defer vals.Release()
	eb := array.NewBuilder(mem, ends)
	defer eb.Release()
	total := 0
	for _, l := range lens {
		total += l
		switch b := eb.(type) {
		case *array.Int16Builder:
			b.Append(int16(total))
		case *array.Int32Builder:
			b.Append(int32(total))
		case *array.Int64Builder:
			b.Append(int64(total))
		}
	}
	ea := eb.NewArray()
	defer ea.Release()
	return array.NewRunEndEncodedArray(ea, vals, total, 0)
}

// TestRunEndEncoded: run-end encoded columns (of numbers, text, dates,
// booleans; runs of nulls; in a struct) import as their values and export
// run-end encoded again, with the same runs.
func TestRunEndEncoded(t *testing.T) {
	lens := []int{3, 1, 7, 2, 40, 1, 1, 5, 60, 30} // 150 rows
	cols := []arrow.Array{
		reeOf(t, arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Float64, `[1.5, 2, null, -0.25, 1e300, 3, 4, null, 7, 8]`, lens),
		reeOf(t, arrow.PrimitiveTypes.Int16, arrow.BinaryTypes.String, `["a", "", "bb", null, "ccc", "a", "b", "c", "long text value", "z"]`, lens),
		reeOf(t, arrow.PrimitiveTypes.Int64, arrow.FixedWidthTypes.Date32, `["2020-01-02", "1969-12-31", null, "2000-02-29", "2020-01-03", "2020-01-04", null, "2001-01-01", "2002-01-01", "2003-01-01"]`, lens),
		reeOf(t, arrow.PrimitiveTypes.Int32, arrow.FixedWidthTypes.Boolean, `[true, false, null, true, false, true, false, null, true, false]`, lens),
	}
	inner := reeOf(t, arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64, `[1, 2, 3, null, 5, 6, 7, 8, 9, 10]`, lens)
	defer inner.Release()
	stType := arrow.StructOf(arrow.Field{Name: "r", Type: inner.DataType(), Nullable: true})
	stData := array.NewData(stType, inner.Len(), []*memory.Buffer{nil}, []arrow.ArrayData{inner.Data()}, 0, 0)
	cols = append(cols, array.MakeFromData(stData))
	stData.Release()
	fields := make([]arrow.Field, len(cols))
	for i, c := range cols {
		fields[i] = arrow.Field{Name: string(rune('a' + i)), Type: c.DataType(), Nullable: true}
		defer c.Release()
	}
	sch := arrow.NewSchema(fields, nil)
	rec := array.NewRecord(sch, cols, 150)
	defer rec.Release()
	roundTripStandIn(t, rec, 9, nil, "out.arrow")
}

// Run ends that do not increase are corruption, reported, not read.
func TestRunEndsNotIncreasing(t *testing.T) {
	mem := memory.DefaultAllocator
	eb := array.NewInt32Builder(mem)
	defer eb.Release()
	eb.AppendValues([]int32{3, 2, 5}, nil)
	ea := eb.NewArray()
	defer ea.Release()
	vals, _, err := array.FromJSON(mem, arrow.PrimitiveTypes.Int64, strings.NewReader(`[1, 2, 3]`))
	must(t, err)
	defer vals.Release()
	ree := array.NewRunEndEncodedArray(ea, vals, 5, 0)
	defer ree.Release()
	sch := arrow.NewSchema([]arrow.Field{{Name: "r", Type: ree.DataType(), Nullable: true}}, nil)
	rec := array.NewRecord(sch, []arrow.Array{ree}, 5)
	defer rec.Release()
	ssch, _ := interop.StorableSchema(sch)
	out, err := interop.CoerceRecord(mem, rec, ssch)
	if err == nil {
		out.Release()
		t.Fatal("run ends 3, 2, 5 read as a column")
	}
	if !errors.Is(err, encoding.ErrCorrupt) || !strings.Contains(err.Error(), `"r"`) {
		t.Fatalf("%v, want a corruption error naming the column", err)
	}
}
