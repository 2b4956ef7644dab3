package main

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestAggWideDecimalInt128Ends: a wide decimal's 16 bytes may hold any
// 128-bit integer, beyond the 38 digits of its type; strata agg prints
// the least, -2^127, and the greatest, 2^127-1, as min and max in every
// format rather than failing on them.
func TestAggWideDecimalInt128Ends(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ends.strata")
	sch := arrow.NewSchema([]arrow.Field{{Name: "d", Type: &arrow.Decimal128Type{Precision: 38, Scale: 0}, Nullable: true}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	defer b.Release()
	b.Field(0).(*array.Decimal128Builder).AppendValues([]decimal128.Num{
		decimal128.New(math.MinInt64, 0),              // -2^127
		decimal128.New(math.MaxInt64, math.MaxUint64), // 2^127-1
		decimal128.FromI64(7),
	}, nil)
	rec := b.NewRecord()
	defer rec.Release()
	writeStrata(t, path, rec)

	const lo, hi = "-170141183460469231731687303715884105728", "170141183460469231731687303715884105727"
	for format, want := range map[string]string{
		"":     "min(d) = " + lo + "\nmax(d) = " + hi + "\n",
		"csv":  "min(d),max(d)\n" + lo + "," + hi + "\n",
		"json": `{"min(d)":` + lo + `,"max(d)":` + hi + "}\n",
	} {
		args := []string{path, "min(d), max(d)"}
		if format != "" {
			args = append(args, "--format", format)
		}
		got, stderr, err := capture(t, "agg", args...)
		if err != nil {
			t.Fatalf("agg --format %s: %v\n%s", format, err, stderr)
		}
		if got != want {
			t.Errorf("agg --format %s printed %q, want %q", format, got, want)
		}
	}
}
