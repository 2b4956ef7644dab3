package main

import (
	"fmt"
	"math"
	"math/big"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestAggWideDurationAndBool aggregates a duration column whose sum
// passes the int64 range, and a bool column: the sum keeps its unit (it
// printed as a bare count, which reads as a plain number), and the min
// and max of the bools print as false and true in every format.
func TestAggWideDurationAndBool(t *testing.T) {
	path := filepath.Join(t.TempDir(), "wide.strata")
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "dur", Type: arrow.FixedWidthTypes.Duration_ms, Nullable: true},
		{Name: "ok", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	defer b.Release()
	const big3 = math.MaxInt64/2 + 1 // three of them pass math.MaxInt64
	b.Field(0).(*array.DurationBuilder).AppendValues([]arrow.Duration{big3, big3, big3}, nil)
	b.Field(1).(*array.BooleanBuilder).AppendValues([]bool{true, false, true}, nil)
	rec := b.NewRecord()
	defer rec.Release()
	writeStrata(t, path, rec)

	sum := new(big.Int).Mul(big.NewInt(big3), big.NewInt(3)).String() + "ms"
	for format, want := range map[string]string{
		"":      "sum(dur) = " + sum + "\nmin(ok) = false\nmax(ok) = true\n",
		"csv":   "sum(dur),min(ok),max(ok)\n" + sum + ",false,true\n",
		"json":  `{"sum(dur)":"` + sum + `","min(ok)":false,"max(ok)":true}` + "\n",
		"table": fmt.Sprintf("%-*s  min(ok)  max(ok)\n%s  -------  -------\n%s  false    true\n", len(sum), "sum(dur)", strings.Repeat("-", len(sum)), sum),
	} {
		args := []string{path, "sum(dur), min(ok), max(ok)"}
		if format != "" {
			args = append(args, "--format", format)
		}
		got, stderr, err := capture(t, "agg", args...)
		if err != nil {
			t.Fatalf("agg --format %q: %v\n%s", format, err, stderr)
		}
		if got != want {
			t.Errorf("agg --format %q printed\n%q\nwant\n%q", format, got, want)
		}
	}
}
