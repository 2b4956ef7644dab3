package interop_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata/internal/randtable"
	"strata/interop"
)

// exportCSV writes recs to a new CSV file with threads formatting
// goroutines and returns its bytes.
func exportCSV(t *testing.T, sch *arrow.Schema, recs []arrow.Record, threads int) ([]byte, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "out.csv")
	if err := exportWith(path, sch, recs, interop.WriteOptions{Threads: threads}); err != nil {
		return nil, err
	}
	return os.ReadFile(path)
}

// TestCSVExportParallelSameBytes checks that CSV text formatted on several
// goroutines is the serial writer's, byte for byte: random schemas with
// nested columns (JSON text), times of day and durations, nulls, a single
// column (nulls written NULL), batches of one row to thousands, and none.
func TestCSVExportParallelSameBytes(t *testing.T) {
	leaves := []arrow.DataType{arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Float64,
		arrow.BinaryTypes.String, arrow.FixedWidthTypes.Boolean, arrow.FixedWidthTypes.Date32,
		arrow.FixedWidthTypes.Timestamp_us, arrow.FixedWidthTypes.Time32ms, arrow.FixedWidthTypes.Duration_ms}
	for seed := range uint64(12) {
		g := randtable.New(seed, randtable.Options{MaxDepth: int(seed % 3), Leaves: leaves})
		r := g.Rand()
		sch := g.Schema(1 + int(seed%4))
		var recs []arrow.Record
		for range r.IntN(30) {
			n := []int{1, 7, 100, 3000}[r.IntN(4)]
			recs = append(recs, g.Record(memory.DefaultAllocator, sch, n))
		}
		want, wantErr := exportCSV(t, sch, recs, 1)
		for _, threads := range []int{2, 3, 0} {
			got, err := exportCSV(t, sch, recs, threads)
			if (err != nil) != (wantErr != nil) {
				t.Fatalf("seed %d, %d threads: error %v, serial %v", seed, threads, err, wantErr)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("seed %d, %d threads: %d bytes differ from the serial %d\nschema %s", seed, threads, len(got), len(want), sch)
			}
		}
		if wantErr != nil {
			t.Logf("seed %d: both fail: %v", seed, wantErr)
		}
		for _, rec := range recs {
			rec.Release()
		}
	}
}

// TestCSVExportParallelError writes to a device that is always full: the
// error comes back from Write or Close, on every path, and nothing hangs.
func TestCSVExportParallelError(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	g := randtable.New(1, randtable.Options{Leaves: []arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.BinaryTypes.String}})
	sch := g.Schema(3)
	var recs []arrow.Record
	for range 20 {
		recs = append(recs, g.Record(memory.DefaultAllocator, sch, 5000))
	}
	defer func() {
		for _, rec := range recs {
			rec.Release()
		}
	}()
	for _, threads := range []int{1, 2, 3} {
		path := filepath.Join(t.TempDir(), "full.csv")
		if err := os.Symlink("/dev/full", path); err != nil {
			t.Skip(err)
		}
		done := make(chan error, 1)
		go func() { done <- exportWith(path, sch, recs, interop.WriteOptions{Threads: threads}) }()
		select {
		case err := <-done:
			if err == nil {
				t.Fatalf("%d threads: writing 100,000 rows to a full device succeeded", threads)
			}
		case <-time.After(time.Minute):
			t.Fatalf("%d threads: export to a full device hangs", threads)
		}
	}
}

// TestCSVExportClosed: a Write or a Close after Close is an error, not a
// panic, on the parallel path as on the serial one.
func TestCSVExportClosed(t *testing.T) {
	g := randtable.New(2, randtable.Options{Leaves: []arrow.DataType{arrow.PrimitiveTypes.Int64}})
	sch := g.Schema(2)
	rec := g.Record(memory.DefaultAllocator, sch, 10)
	defer rec.Release()
	for _, threads := range []int{1, 3} {
		sink, err := interop.Create(filepath.Join(t.TempDir(), "c.csv"), sch, interop.WriteOptions{Threads: threads})
		if err != nil {
			t.Fatal(err)
		}
		if err := sink.Write(rec); err != nil {
			t.Fatal(err)
		}
		if err := sink.Close(); err != nil {
			t.Fatal(err)
		}
		if err := sink.Write(rec); err == nil {
			t.Errorf("%d threads: Write after Close succeeded", threads)
		}
		if err := sink.Close(); err == nil {
			t.Errorf("%d threads: a second Close succeeded", threads)
		}
	}
}
