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

// project returns the columns of rec named, in that order.
func project(rec arrow.Record, names ...string) arrow.Record {
	fields := make([]arrow.Field, len(names))
	cols := make([]arrow.Array, len(names))
	for i, n := range names {
		j := rec.Schema().FieldIndices(n)[0]
		fields[i], cols[i] = rec.Schema().Field(j), rec.Column(j)
	}
	return array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, rec.NumRows())
}

// cut is a piece of a record written as a file of some of its columns.
type cut struct {
	lo, hi int64
	cols   []string
}

// unionParts writes rows [lo, hi) of rec, with the columns of each cut,
// as a file each, and returns them with one reference file of all their
// rows under the union of their columns, null where a part lacked one.
func unionParts(t *testing.T, rec arrow.Record, cuts []cut) ([]*read.File, *read.File) {
	t.Helper()
	var parts []*read.File
	var recs []arrow.Record
	for _, c := range cuts {
		slice := rec.NewSlice(c.lo, c.hi)
		p := project(slice, c.cols...)
		slice.Release()
		defer p.Release()
		parts, recs = append(parts, aggFile(t, p)), append(recs, p)
	}
	return parts, unionFile(t, recs)
}

// unionFile writes the records of several files, conformed to the union
// of their columns (UnionByName, Conform), as one reference file.
func unionFile(t *testing.T, recs []arrow.Record) *read.File {
	t.Helper()
	schemas := make([]*arrow.Schema, len(recs))
	var rows int64
	for i, r := range recs {
		schemas[i] = r.Schema()
		rows += r.NumRows()
	}
	union, err := read.UnionByName(schemas...)
	if err != nil {
		t.Fatal(err)
	}
	cols := make([]arrow.Array, union.NumFields())
	for j := range cols {
		var pieces []arrow.Array
		for _, p := range recs {
			c, err := read.Conform(p, union)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Release()
			pieces = append(pieces, c.Column(j))
		}
		if cols[j], err = array.Concatenate(pieces, memory.DefaultAllocator); err != nil {
			t.Fatal(err)
		}
		defer cols[j].Release()
	}
	all := array.NewRecordBatch(union, cols, rows)
	defer all.Release()
	return aggFile(t, all)
}

// TestAggregateUnion aggregates three files whose columns differ (added,
// dropped, reordered) by column name and checks every value against one
// file of the same rows with nulls where a file lacked a column: the table
// UnionByName and Conform describe.
func TestAggregateUnion(t *testing.T) {
	const n = 3000
	rec := aggRecord(n, 9)
	defer rec.Release()
	parts, whole := unionParts(t, rec, []cut{
		{0, 700, []string{"id", "big", "f", "name"}},
		{700, 2400, []string{"name", "id", "dec", "s", "day"}},
		{2400, n, []string{"id", "big", "f", "dec", "s", "day", "u64"}},
	})
	exprs := "count(*), count(big), sum(big), sum(u64), count(u64), sum(f), avg(f), sum(dec), sum(s.x), avg(s.x), " +
		"min(name), max(name), min(day), max(day), min(f), max(f), min(dec), max(u64)"
	ctx := context.Background()
	for _, where := range []string{"", "id < 1234", "f > 0", "big IS NULL", "name > 'm' OR dec > 0", "NOT (f > 0)",
		"id < 1000 AND u64 IS NULL", "s.x > 5", "u64 IS NOT NULL AND id > 2500", "day IS NULL AND name IS NULL"} {
		want, _, err := whole.AggregateContext(ctx, exprs, read.AggregateOptions{Where: where})
		if err != nil {
			t.Fatalf("%q: %v", where, err)
		}
		got, _, err := read.AggregateFiles(ctx, parts, exprs, read.AggregateOptions{Where: where, UnionByName: true})
		if err != nil {
			t.Fatalf("%q over the parts: %v", where, err)
		}
		for k := range want {
			if !reflect.DeepEqual(got[k], want[k]) && !(math.IsNaN(got[k].F) && math.IsNaN(want[k].F)) {
				t.Errorf("%q: %s = %+v over the parts, %+v over one file", where, want[k].Name, got[k], want[k])
			}
		}
	}
	// without UnionByName a file lacking a column fails; with it, a column
	// or a filter column no file has still does
	if _, _, err := read.AggregateFiles(ctx, parts, "sum(u64)", read.AggregateOptions{}); err == nil {
		t.Error("sum(u64) over files lacking it, by position: no error")
	}
	for _, c := range []struct{ exprs, where string }{{"sum(nosuch)", ""}, {"count(*)", "nosuch = 1"}} {
		if _, _, err := read.AggregateFiles(ctx, parts, c.exprs, read.AggregateOptions{Where: c.where, UnionByName: true}); !errors.Is(err, read.ErrUnknownColumn) {
			t.Errorf("%s where %q: %v", c.exprs, c.where, err)
		}
	}
}
