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

// writeDecimals writes one record of decimal128 columns of the given
// types, each holding the unscaled values vals, and opens the file.
func writeDecimals(t *testing.T, types []*arrow.Decimal128Type, vals []int64) *read.File {
	t.Helper()
	var fields []arrow.Field
	for i, dt := range types {
		fields = append(fields, arrow.Field{Name: string(rune('a' + i)), Type: dt, Nullable: true})
	}
	sch := arrow.NewSchema(fields, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	defer b.Release()
	for i := range types {
		for _, v := range vals {
			b.Field(i).(*array.Decimal128Builder).Append(decimal128.FromI64(v))
		}
	}
	rec := b.NewRecord()
	defer rec.Release()
	var buf bytes.Buffer
	w, err := write.New(format.NewWriter(&buf, format.WriterOptions{}), sch, write.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := read.Open(context.Background(), iox.Bytes(buf.Bytes()), read.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestAggNegativeScale: a decimal of negative scale (Arrow's decimal(p,-s):
// value = unscaled × 10^s) is aggregated in its own units. The unscaled 5,
// 7 and -3 of a decimal(38,-2) and of a decimal(10,-2) are 500, 700 and
// -300: their sum is 900, min -300, max 700 and avg 300, as strata cat
// prints the values (Arrow's ToString), not 9, -3, 7 and 3.
func TestAggNegativeScale(t *testing.T) {
	f := writeDecimals(t, []*arrow.Decimal128Type{{Precision: 38, Scale: -2}, {Precision: 10, Scale: -2}}, []int64{5, 7, -3, 0})
	for _, c := range []string{"a", "b"} {
		got, _, err := f.Aggregate("sum("+c+"), min("+c+"), max("+c+"), avg("+c+")", "")
		if err != nil {
			t.Fatal(err)
		}
		for i, want := range []string{"900", "-300", "700"} {
			if got[i].Text != want {
				t.Errorf("%s: text %q, want %q", got[i].Name, got[i].Text, want)
			}
		}
		if !got[3].Float || got[3].F != 225 {
			t.Errorf("%s = %v, want 225", got[3].Name, got[3])
		}
	}
	// A zero is 0, as Arrow writes it, not 000.
	z := writeDecimals(t, []*arrow.Decimal128Type{{Precision: 38, Scale: -2}, {Precision: 10, Scale: -2}}, []int64{0})
	for _, c := range []string{"a", "b"} {
		got, _, err := z.Aggregate("sum("+c+")", "")
		if err != nil {
			t.Fatal(err)
		}
		if got[0].Text != "0" {
			t.Errorf("%s: text %q, want 0", got[0].Name, got[0].Text)
		}
	}
}
