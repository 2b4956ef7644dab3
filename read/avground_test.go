package read_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata/format"
	"strata/iox"
	"strata/read"
	"strata/write"
)

// TestAvgDecimalRoundedOnce: avg of a decimal is its exact sum over its
// count rounded once to a float64, the nearest float64 to the mean. It
// was the sum scaled down, then divided by the count, then rounded to a
// float64, each step rounding: six values of a decimal(20,16) summing to
// 0.0000000000991020 averaged 1.6516999999999998e-11, not 1.6517e-11.
// Narrow decimals (stored as integers) and wide ones (16-byte values)
// alike.
func TestAvgDecimalRoundedOnce(t *testing.T) {
	for _, c := range []struct {
		prec, scale int32
		vals        []int64 // unscaled
		want        float64
	}{
		{20, 16, []int64{991020, 0, 0, 0, 0, 0}, 1.6517e-11},
		{18, 16, []int64{991000, 10, 10, 0, 0, 0}, 1.6517e-11},
		{38, 14, []int64{79982679096157, 0, 0, 0}, 0.1999566977403925},
		{18, 14, []int64{79982679096150, 7, 0, 0}, 0.1999566977403925},
	} {
		sch := arrow.NewSchema([]arrow.Field{{Name: "d", Type: &arrow.Decimal128Type{Precision: c.prec, Scale: c.scale}}}, nil)
		b := array.NewDecimal128Builder(memory.DefaultAllocator, sch.Field(0).Type.(*arrow.Decimal128Type))
		for _, v := range c.vals {
			b.Append(decimal128.FromI64(v))
		}
		col := b.NewArray()
		b.Release()
		rec := array.NewRecordBatch(sch, []arrow.Array{col}, int64(col.Len()))
		col.Release()
		var buf bytes.Buffer
		w, err := write.New(format.NewWriter(&buf, format.WriterOptions{}), sch, write.Options{})
		if err != nil {
			t.Fatal(err)
		}
		err = w.Write(rec)
		rec.Release()
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		f, err := read.Open(context.Background(), iox.Bytes(buf.Bytes()), read.Options{})
		if err != nil {
			t.Fatal(err)
		}
		got, _, err := f.AggregateContext(context.Background(), "avg(d)", read.AggregateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !got[0].Float || got[0].F != c.want {
			t.Errorf("decimal(%d,%d) %v: avg %v, want %v", c.prec, c.scale, c.vals, got[0].F, c.want)
		}
	}
}
