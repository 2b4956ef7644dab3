package strata_test

import (
	"errors"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata"
	"strata/encoding"
)

// edgeFile writes n rows of column "a" holding 0..n-1 to a file on disk
// (a source that reads through the context, as bytes in memory do not),
// Flush ending a stripe every per rows, and returns its path.
func edgeFile(t *testing.T, n, per int) string {
	t.Helper()
	sch := arrow.NewSchema([]arrow.Field{{Name: "a", Type: arrow.PrimitiveTypes.Int64}}, nil)
	path := filepath.Join(t.TempDir(), "edge.strata")
	w, err := strata.Create(path, sch, nil)
	if err != nil {
		t.Fatal(err)
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	defer b.Release()
	for i := 0; i < n; i += per {
		for j := i; j < min(i+per, n); j++ {
			b.Field(0).(*array.Int64Builder).Append(int64(j))
		}
		rec := b.NewRecord()
		err := w.Write(rec)
		rec.Release()
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// scanA returns the values of column "a" a scan returns.
func scanA(t *testing.T, f *strata.File, opts strata.ScanOptions) []int64 {
	t.Helper()
	sc, err := f.Scan(opts)
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	var got []int64
	for {
		r, err := sc.Next()
		if err == io.EOF {
			return got
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, r.Column(0).(*array.Int64).Int64Values()...)
		r.Release()
	}
}

// TestNilContext: OpenContext and Verify take a nil context as
// context.Background(), as ScanContext, TakeContext and AggregateContext
// already did, instead of dereferencing it on the first read of a file on
// disk; the file opened so reads back every value.
func TestNilContext(t *testing.T) {
	path := edgeFile(t, 3000, 1000)
	for _, opts := range [][]strata.OpenOption{nil, {strata.WithVerify()}} {
		f, err := strata.OpenContext(nil, path, opts...)
		if err != nil {
			t.Fatalf("OpenContext(nil) with %d options: %v", len(opts), err)
		}
		if err := f.Verify(nil); err != nil {
			t.Errorf("Verify(nil): %v", err)
		}
		want := make([]int64, 3000)
		for i := range want {
			want[i] = int64(i)
		}
		if got := scanA(t, f, strata.ScanOptions{}); !slices.Equal(got, want) {
			t.Errorf("scan after OpenContext(nil): %d values, want 0..2999", len(got))
		}
		f.Close()
	}
}

// TestBudgets: a negative MaxMemory or PrefetchBytes is an invalid
// argument naming the budget, given as an option or in OpenOptions, where
// it used to be taken as "the default" without a word (MaxMemory -1 read
// with the 1-2 GiB default limits). Budgets below what the file needs are
// honoured: a MaxMemory smaller than the footer refuses Open, one smaller
// than a stripe's rows lets Open through and fails the read with ErrLimit;
// a PrefetchBytes of 1 byte reads every value in order, a batch at a time.
// A MaxMemory past what a 32-bit int holds (5 GiB) reads as a large budget
// (it wrapped to a tiny or negative limit on 32-bit platforms).
func TestBudgets(t *testing.T) {
	path := edgeFile(t, 20000, 5000)
	want := make([]int64, 20000)
	for i := range want {
		want[i] = int64(i)
	}
	for name, opt := range map[string]strata.OpenOption{
		"MaxMemory":     strata.WithMaxMemory(-1),
		"PrefetchBytes": strata.WithPrefetch(-1),
	} {
		for _, o := range []strata.OpenOption{opt, strata.OpenOptions{MaxMemory: -1 << 40}, strata.OpenOptions{PrefetchBytes: math.MinInt64}} {
			f, err := strata.Open(path, o)
			if err == nil {
				f.Close()
			}
			if !errors.Is(err, encoding.ErrInvalidArgument) || !strings.Contains(err.Error(), "may not be negative") {
				t.Errorf("%s negative: %v, want an invalid argument", name, err)
			}
		}
	}
	if _, err := strata.Open(path, strata.WithMaxMemory(1)); !errors.Is(err, encoding.ErrLimit) {
		t.Errorf("MaxMemory 1: Open %v, want ErrLimit", err)
	}
	f, err := strata.Open(path, strata.WithMaxMemory(4<<10))
	if err != nil {
		t.Fatalf("MaxMemory 4 KiB: Open %v", err)
	}
	sc, err := f.Scan(strata.ScanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sc.Next(); !errors.Is(err, encoding.ErrLimit) {
		t.Errorf("MaxMemory 4 KiB, stripes of 5000 rows: scan %v, want ErrLimit", err)
	}
	sc.Close()
	f.Close()
	for _, o := range []strata.OpenOptions{
		{MaxMemory: 5 << 30},
		{MaxMemory: math.MaxInt64},
		{PrefetchBytes: 1, Parallelism: 4},
		{PrefetchBytes: math.MaxInt64, Parallelism: 4},
	} {
		f, err := strata.OpenWith(t.Context(), path, o)
		if err != nil {
			t.Fatalf("%+v: %v", o, err)
		}
		if got := scanA(t, f, strata.ScanOptions{}); !slices.Equal(got, want) {
			t.Errorf("%+v: scan read %d values, want 0..19999 in order", o, len(got))
		}
		f.Close()
	}
}

// TestNegativeParallelism: a negative Parallelism is an invalid argument
// wherever it is given (Open, a scan, a lookup, an aggregate, and their
// forms over several files), where it used to mean all cores, also in a
// query of a file opened with Parallelism 1, whose own 0 keeps the file's
// count. Counts of 0, 1 and far above the cores read every value.
func TestNegativeParallelism(t *testing.T) {
	path := edgeFile(t, 6000, 2000)
	want := make([]int64, 6000)
	for i := range want {
		want[i] = int64(i)
	}
	refused := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, encoding.ErrInvalidArgument) || !strings.Contains(err.Error(), "Parallelism -") {
			t.Errorf("%s: %v, want an invalid argument naming Parallelism", what, err)
		}
	}
	for _, p := range []int{-1, math.MinInt} {
		_, err := strata.Open(path, strata.WithParallelism(p))
		refused("Open", err)
		_, err = strata.OpenWith(t.Context(), path, strata.OpenOptions{Parallelism: p})
		refused("OpenWith", err)
	}
	f, err := strata.Open(path, strata.WithParallelism(1))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	files := []*strata.File{f, f}
	for _, p := range []int{-1, -1000, math.MinInt} {
		_, err := f.Scan(strata.ScanOptions{Parallelism: p})
		refused("Scan", err)
		_, err = strata.ScanFiles(t.Context(), files, strata.ScanOptions{Parallelism: p})
		refused("ScanFiles", err)
		_, _, err = f.TakeContext(t.Context(), []int64{1}, strata.TakeOptions{Parallelism: p})
		refused("TakeContext", err)
		_, _, err = strata.TakeFiles(t.Context(), files, nil, strata.TakeOptions{Parallelism: p})
		refused("TakeFiles", err)
		_, _, err = f.Aggregate(strata.AggregateOptions{Aggs: []strata.Agg{strata.CountAll()}, Parallelism: p})
		refused("Aggregate", err)
		_, _, err = strata.AggregateFiles(t.Context(), files, strata.AggregateOptions{Aggs: []strata.Agg{strata.CountAll()}, Parallelism: p})
		refused("AggregateFiles", err)
	}
	rows := []int64{5999, 0, 3000, 3000, 1999, 2000}
	for _, p := range []int{0, 1, 1000, math.MaxInt} {
		if got := scanA(t, f, strata.ScanOptions{Parallelism: p}); !slices.Equal(got, want) {
			t.Errorf("Parallelism %d: scan read %d values, want 0..5999 in order", p, len(got))
		}
		rec, _, err := f.TakeContext(t.Context(), rows, strata.TakeOptions{Parallelism: p})
		if err != nil {
			t.Fatal(err)
		}
		if got := rec.Column(0).(*array.Int64).Int64Values(); !slices.Equal(got, rows) {
			t.Errorf("Parallelism %d: Take %v read %v", p, rows, got)
		}
		rec.Release()
		vals, _, err := f.Aggregate(strata.AggregateOptions{Aggs: []strata.Agg{strata.Sum("a")}, Parallelism: p})
		if err != nil {
			t.Fatal(err)
		}
		var sum int64
		for _, v := range want {
			sum += v
		}
		if vals[0].I != sum {
			t.Errorf("Parallelism %d: sum %d, want %d", p, vals[0].I, sum)
		}
	}
}
