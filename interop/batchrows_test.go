package interop

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestBatchRowsByBytes checks that batches read from a wide Parquet file
// hold about BatchBytes of Arrow data, not DefaultBatchRows rows (a
// thousand int64 columns made 64 Ki-row batches of over 1 GB), while a
// narrow file's batches keep DefaultBatchRows, and that an explicit
// BatchRows wins; every row is read either way.
func TestBatchRowsByBytes(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, cols, rows int) string {
		fields := make([]arrow.Field, cols)
		for i := range fields {
			fields[i] = arrow.Field{Name: fmt.Sprintf("c%d", i), Type: arrow.PrimitiveTypes.Int64}
		}
		sch := arrow.NewSchema(fields, nil)
		b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
		defer b.Release()
		for c := range cols {
			ib := b.Field(c).(*array.Int64Builder)
			for r := range rows {
				ib.Append(int64(r%7 + c))
			}
		}
		rec := b.NewRecord()
		defer rec.Release()
		path := filepath.Join(dir, name)
		writeFile(t, path, rec)
		return path
	}
	batches := func(path string, opts ReadOptions) (sizes []int64) {
		r, err := Open(path, opts)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		for {
			rec, err := r.Next()
			if errors.Is(err, io.EOF) {
				return sizes
			}
			if err != nil {
				t.Fatal(err)
			}
			sizes = append(sizes, rec.NumRows())
			rec.Release()
		}
	}
	sum := func(s []int64) (n int64) {
		for _, v := range s {
			n += v
		}
		return n
	}

	wide := write("wide.parquet", 600, 9000)
	got := batches(wide, ReadOptions{})
	limit := int64(BatchBytes / (600 * 8))
	if sum(got) != 9000 || len(got) < 2 {
		t.Fatalf("wide file read in batches %v", got)
	}
	for _, n := range got {
		if n > limit {
			t.Fatalf("wide file: a batch of %d rows, over the %d of %d MiB", n, limit, BatchBytes>>20)
		}
	}
	if got := batches(wide, ReadOptions{BatchRows: 8500}); len(got) != 2 || got[0] != 8500 {
		t.Fatalf("BatchRows 8500 gave batches %v", got)
	}
	narrow := write("narrow.parquet", 2, 70000)
	if got := batches(narrow, ReadOptions{}); len(got) != 2 || got[0] != DefaultBatchRows || sum(got) != 70000 {
		t.Fatalf("narrow file read in batches %v", got)
	}

	// CSV: sized from the column types
	fields := make([]arrow.Field, 800)
	for i := range fields {
		fields[i] = arrow.Field{Name: fmt.Sprintf("c%d", i), Type: arrow.PrimitiveTypes.Int64}
		if i%2 == 1 {
			fields[i].Type = arrow.BinaryTypes.String
		}
	}
	if n := typedBatchRows(arrow.NewSchema(fields, nil)); n != int(BatchBytes/(400*9+400*21)) {
		t.Errorf("800 CSV columns: batches of %d rows", n)
	}
	if n := typedBatchRows(arrow.NewSchema(fields[:4], nil)); n != DefaultBatchRows {
		t.Errorf("4 CSV columns: batches of %d rows", n)
	}
}
