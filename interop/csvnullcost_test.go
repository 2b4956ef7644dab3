package interop

import (
	"bytes"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestCSVNullWordsCost: null words that no number, date or timestamp is
// written as (NA, \N, -: no digit) cost nothing in such columns. The
// check of numbers against the caller's words formatted every value a
// second time, whatever the words, which doubled the time of an export
// with --null NA; a column of 10,000 integers took 10,000 allocations
// more than without words.
func TestCSVNullWordsCost(t *testing.T) {
	mem := memory.DefaultAllocator
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "i", Type: arrow.PrimitiveTypes.Int64},
		{Name: "f", Type: arrow.PrimitiveTypes.Float64},
		{Name: "d", Type: arrow.FixedWidthTypes.Date32},
	}, nil)
	b := array.NewRecordBuilder(mem, sch)
	defer b.Release()
	const n = 10000
	for i := range n {
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		b.Field(1).(*array.Float64Builder).Append(float64(i) / 4)
		b.Field(2).(*array.Date32Builder).Append(arrow.Date32(i))
	}
	rec := b.NewRecord()
	defer rec.Release()
	allocs := func(words []string) float64 {
		return testing.AllocsPerRun(3, func() {
			w, err := NewCSVWriterNulls(&bytes.Buffer{}, sch, ',', words)
			if err != nil {
				t.Fatal(err)
			}
			if err := w.Write(rec); err != nil {
				t.Fatal(err)
			}
		})
	}
	none, some := allocs(nil), allocs([]string{"NA", `\N`, "-", "N/A"})
	if some > none+n/10 {
		t.Errorf("null words NA, \\N, -, N/A: %.0f allocations writing %d rows, %.0f without words", some, n, none)
	}
}
