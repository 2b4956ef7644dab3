package read_test

import (
	"context"
	"errors"
	"math"
	"reflect"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata/read"
)

// TestAggregateFiles cuts one table into three files and checks that
// aggregating the three as one table gives exactly what the one file
// gives: counts, integer sums past 2^63, float sums and means (correctly
// rounded, so equal to the bit), decimals, struct fields, minima and
// maxima of text and dates, with and without filters.
func TestAggregateFiles(t *testing.T) {
	const n = 3000
	rec := aggRecord(n, 5)
	defer rec.Release()
	whole := aggFile(t, rec)
	parts := cutFiles(t, rec, 700, 2400)
	exprs := "count(*), count(big), sum(big), sum(u64), sum(f), sum(dec), sum(s.x), avg(big), avg(f), avg(dec), avg(s.x), " +
		"min(name), max(name), min(day), max(day), min(f), max(f), min(dec), max(u64)"
	ctx := context.Background()
	for _, where := range []string{"", "id < 1234", "id >= 100 AND id < 2900", "id = 2500", "id < 0", "name > 'm'", "f > 0"} {
		want, _, err := whole.AggregateContext(ctx, exprs, read.AggregateOptions{Where: where})
		if err != nil {
			t.Fatalf("%q: %v", where, err)
		}
		got, _, err := read.AggregateFiles(ctx, parts, exprs, read.AggregateOptions{Where: where})
		if err != nil {
			t.Fatalf("%q over the parts: %v", where, err)
		}
		for k := range want {
			if !reflect.DeepEqual(got[k], want[k]) && !(math.IsNaN(got[k].F) && math.IsNaN(want[k].F)) {
				t.Errorf("%q: %s = %+v over the parts, %+v over one file", where, want[k].Name, got[k], want[k])
			}
		}
		if where == "" && (!want[2].Wide || want[0].I != n) {
			t.Fatalf("the sums do not pass 2^63 (%+v) or the count is off (%v)", want[2], want[0])
		}
	}

	// A file whose column has another type, a split over several files and
	// no file at all are refused.
	if _, _, err := read.AggregateFiles(ctx, []*read.File{parts[0], int32File(t)}, "sum(big)", read.AggregateOptions{}); !errors.Is(err, read.ErrInvalidArgument) {
		t.Errorf("columns of different types: %v", err)
	}
	if _, _, err := read.AggregateFiles(ctx, []*read.File{parts[0], parts[1]}, "count(*)", read.AggregateOptions{Split: &parts[0].Splits(0)[0]}); !errors.Is(err, read.ErrInvalidArgument) {
		t.Errorf("a split over two files: %v", err)
	}
	if _, _, err := read.AggregateFiles(ctx, nil, "count(*)", read.AggregateOptions{}); !errors.Is(err, read.ErrInvalidArgument) {
		t.Errorf("no file: %v", err)
	}
}

// cutFiles writes rec as several files, cut before each of the rows at.
func cutFiles(t *testing.T, rec arrow.Record, at ...int64) []*read.File {
	t.Helper()
	var parts []*read.File
	lo := int64(0)
	for _, hi := range append(at, rec.NumRows()) {
		part := rec.NewSlice(lo, hi)
		parts = append(parts, aggFile(t, part))
		part.Release()
		lo = hi
	}
	return parts
}

// int32File is a file of three rows whose column big is int32 (aggRecord's
// is int64).
func int32File(t *testing.T) *read.File {
	t.Helper()
	b := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema([]arrow.Field{{Name: "big", Type: arrow.PrimitiveTypes.Int32}}, nil))
	defer b.Release()
	b.Field(0).(*array.Int32Builder).AppendValues([]int32{1, 2, 3}, nil)
	rec := b.NewRecord()
	defer rec.Release()
	return aggFile(t, rec)
}
