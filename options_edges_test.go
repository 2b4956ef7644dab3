package strata_test

import (
	"io"
	"path/filepath"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata"
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
