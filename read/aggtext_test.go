package read_test

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata/format"
	"strata/write"
)

// TestAggEmptyStringMin: the min of text whose least value is the empty
// string printed as "0" (AggValue.String took an empty Text for a number),
// for a string column and for the value of a FlatMap key alike.
func TestAggEmptyStringMin(t *testing.T) {
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "m", Type: arrow.MapOf(arrow.BinaryTypes.String, arrow.BinaryTypes.String), Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	defer b.Release()
	for i, v := range []string{"blue", "", "red"} {
		b.Field(0).(*array.StringBuilder).Append(v)
		mb := b.Field(1).(*array.MapBuilder)
		mb.Append(true)
		mb.KeyBuilder().(*array.StringBuilder).Append("k")
		mb.ItemBuilder().(*array.StringBuilder).Append([]string{"x", "", "y"}[i])
	}
	rec := b.NewRecord()
	defer rec.Release()
	f := writeOpen(t, rec, format.WriterOptions{}, write.Options{FlatMap: []string{"m"}})
	for _, where := range []string{"", "s IS NOT NULL"} {
		vals, _, err := f.Aggregate("min(s), max(s), min(m.k), max(m.k)", where)
		if err != nil {
			t.Fatal(err)
		}
		for i, want := range []string{"", "red", "", "y"} {
			if got := vals[i].String(); got != want || vals[i].Null {
				t.Errorf("where %q: %s = %q (null %v), want %q", where, vals[i].Name, got, vals[i].Null, want)
			}
		}
	}
}
