package strata_test

import (
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata"
)

// TestColumnStatsDecimalScale: File.ColumnStats gives a decimal's bounds
// in its own units. Arrow's decimal(10,-2) holds unscaled × 10^2, so the
// stored 5, 7 and -3 are 500, 700 and -300 (as strata cat prints them and
// the aggregates give them): Min -300 and Max 700, not -3 and 7. Positive
// and zero scales keep their form (fraction digits to the scale).
func TestColumnStatsDecimalScale(t *testing.T) {
	types := []*arrow.Decimal128Type{{Precision: 10, Scale: -2}, {Precision: 10, Scale: 2}, {Precision: 10, Scale: 0}, {Precision: 18, Scale: -5}}
	var fields []arrow.Field
	for i, dt := range types {
		fields = append(fields, arrow.Field{Name: string(rune('a' + i)), Type: dt, Nullable: true})
	}
	sch := arrow.NewSchema(fields, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	defer b.Release()
	for i := range types {
		for _, v := range []int64{5, 7, -3} {
			b.Field(i).(*array.Decimal128Builder).Append(decimal128.FromI64(v))
		}
	}
	rec := b.NewRecord()
	defer rec.Release()
	path := filepath.Join(t.TempDir(), "negscale.strata")
	w, err := strata.Create(path, sch, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := strata.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for col, want := range map[string][2]strata.Decimal{
		"a": {"-300", "700"},
		"b": {"-0.03", "0.07"},
		"c": {"-3", "7"},
		"d": {"-300000", "700000"},
	} {
		cs, ok := f.ColumnStats(col)
		if !ok || !cs.HasMinMax {
			t.Fatalf("%s: no bounds (%v, %+v)", col, ok, cs)
		}
		if cs.Min != want[0] || cs.Max != want[1] {
			t.Errorf("%s (%s): Min %#v Max %#v, want %q and %q", col, sch.Field(int(col[0]-'a')).Type, cs.Min, cs.Max, want[0], want[1])
		}
	}
}
