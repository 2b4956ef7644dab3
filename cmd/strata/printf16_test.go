package main

import (
	"math"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/float16"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestPrinterFloat16JSON prints a float16 column as JSON: NaN and the
// infinities are null, as for float32 and float64 (they were the strings
// "NaN" and "+Inf"), and -0 keeps its sign.
func TestPrinterFloat16JSON(t *testing.T) {
	sch := arrow.NewSchema([]arrow.Field{{Name: "h", Type: arrow.FixedWidthTypes.Float16, Nullable: true}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	defer b.Release()
	for _, f := range []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Copysign(0, -1)), 1.5} {
		b.Field(0).(*array.Float16Builder).Append(float16.New(f))
	}
	b.Field(0).AppendNull()
	rec := b.NewRecord()
	defer rec.Release()
	want := "{\"h\":null}\n{\"h\":null}\n{\"h\":-0}\n{\"h\":1.5}\n{\"h\":null}\n"
	if out := printAll(t, "json", rec); out != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
}
