package strata_test

import (
	"bytes"
	"fmt"
	"math"
	"runtime"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"strata"
	"strata/internal/randtable"
	"strata/iox"
)

// extremeTable returns rows rows of an int64, a string, a nullable int32
// and a list of int32 column, in batches of 4,096 rows.
func extremeTable(rows int) (*arrow.Schema, []arrow.RecordBatch) {
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "i", Type: arrow.PrimitiveTypes.Int64},
		{Name: "s", Type: arrow.BinaryTypes.String},
		{Name: "n", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "l", Type: arrow.ListOf(arrow.PrimitiveTypes.Int32)},
	}, nil)
	b := array.NewRecordBuilder(mem, sch)
	defer b.Release()
	var recs []arrow.RecordBatch
	for lo := 0; lo < rows; lo += 4096 {
		for r := lo; r < min(rows, lo+4096); r++ {
			b.Field(0).(*array.Int64Builder).Append(int64(r) * 7919 % 100003)
			b.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("v%d", r%997))
			if r%3 == 0 {
				b.Field(2).AppendNull()
			} else {
				b.Field(2).(*array.Int32Builder).Append(int32(r))
			}
			lb := b.Field(3).(*array.ListBuilder)
			lb.Append(true)
			for k := range r % 3 {
				lb.ValueBuilder().(*array.Int32Builder).Append(int32(r + k))
			}
		}
		recs = append(recs, b.NewRecordBatch())
	}
	return sch, recs
}

// heapAlloc returns the live heap after a collection.
func heapAlloc() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestExtremeWriteOptions writes a table with the smallest legal sizes of
// the writer's options, and with the largest, and reads each file back
// value by value, by a scan and a Take. What the writer keeps after the
// last Write (the live heap before Close, less the file written so far)
// must stay under keptBytes: StripeBytes 1 writes a stripe a row, and
// the writer kept each stripe's statistics as maps until Close, and a
// trial cache of an entry a tiny chunk (over 25 MB for these rows).
func TestExtremeWriteOptions(t *testing.T) {
	const (
		rows      = 12000
		keptBytes = 12 << 20
	)
	sch, recs := extremeTable(rows)
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	all, err := randtable.Concat(mem, sch, recs)
	if err != nil {
		t.Fatal(err)
	}
	defer all.Release()
	for _, c := range []struct {
		name string
		o    strata.WriteOptions
	}{
		{"ChunkValues1", strata.WriteOptions{ChunkValues: 1}},
		{"StripeBytes1", strata.WriteOptions{StripeBytes: 1}},
		{"both", strata.WriteOptions{ChunkValues: 1, StripeBytes: 1}},
		{"ChunkValues1Fixed", strata.WriteOptions{ChunkValues: 1, ChunkTarget: -1}},
		{"ChunkTarget1", strata.WriteOptions{ChunkTarget: 1}},
		{"ChunkBytes1", strata.WriteOptions{ChunkBytes: 1}},
		{"allSmallest", strata.WriteOptions{ChunkValues: 1, ChunkBytes: 1, ChunkTarget: 1, StripeGroup: 1, Parallel: 1}},
		{"hugeGroupAndHint", strata.WriteOptions{StripeBytes: 1, StripeGroup: 1 << 30, RowsHint: math.MaxInt64}},
		{"allLargest", strata.WriteOptions{StripeBytes: math.MaxInt, ChunkValues: math.MaxInt, ChunkBytes: math.MaxInt,
			ChunkTarget: math.MaxInt, Parallel: 1 << 20}},
	} {
		o := c.o
		t.Run(c.name, func(t *testing.T) {
			var buf bytes.Buffer
			base := heapAlloc()
			w, err := strata.NewWriter(&buf, sch, &o)
			if err != nil {
				t.Fatal(err)
			}
			for _, rec := range recs {
				if err := w.Write(rec); err != nil {
					t.Fatalf("write: %v", err)
				}
			}
			if kept := int64(heapAlloc()) - int64(base) - int64(buf.Cap()); kept > keptBytes {
				t.Errorf("kept %d bytes after the writes, want at most %d", kept, keptBytes)
			}
			if err := w.Close(); err != nil {
				t.Fatalf("close: %v", err)
			}
			f, err := strata.OpenSource(iox.Bytes(buf.Bytes()))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			got, err := scan(f, strata.ScanOptions{})
			if err != nil {
				t.Fatalf("scan: %v", err)
			}
			defer got.Release()
			if err := cmpFlat.Records(all, got); err != nil {
				t.Fatalf("scan: %v", err)
			}
			take := []int64{0, 1, 2, rows / 2, rows - 2, rows - 1}
			tk, err := f.Take(take, nil)
			if err != nil {
				t.Fatalf("take: %v", err)
			}
			defer tk.Release()
			for i, r := range take {
				want := all.NewSlice(r, r+1)
				err := cmpFlat.Records(want, tk.NewSlice(int64(i), int64(i+1)))
				want.Release()
				if err != nil {
					t.Fatalf("take of row %d: %v", r, err)
				}
			}
		})
	}
}
