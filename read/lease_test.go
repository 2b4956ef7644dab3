package read_test

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"golang.org/x/sync/errgroup"

	"strata/encoding"
	"strata/iox"
	"strata/read"
	"strata/write"
)

func TestLeaseClasses(t *testing.T) {
	prev := 0
	for n := 1; n <= 40<<20; n += 1 + n/7 {
		c, size := read.LeaseClass(n)
		if c < 0 {
			if n <= 32<<20 {
				t.Fatalf("%d bytes are not pooled", n)
			}
			continue
		}
		if size < n || (n > 4096 && float64(size) > 1.25*float64(n)+1) {
			t.Fatalf("%d bytes: class %d of %d bytes", n, c, size)
		}
		if c < prev {
			t.Fatalf("%d bytes: class %d after %d", n, c, prev)
		}
		if c2, size2 := read.LeaseClass(size); c2 != c || size2 != size {
			t.Fatalf("%d bytes: class %d (%d bytes), but %d bytes are class %d (%d)", n, c, size, size, c2, size2)
		}
		prev = c
	}
}

// TestTakeRecyclesChunkMemory: lookups read chunks, and inflate their
// bodies, into memory that returns to a pool once their decoders leave the
// decoder cache. With released memory overwritten at once, lookups and
// the scans run between them — whose records, held to the end, must not
// alias memory a later lookup reuses — return the values of the written
// rows, on one goroutine and several, over a cache small enough to evict;
// dropping the caches gives every buffer back. With an object store's
// read shape (megabyte holes read through, reads in parallel) one read
// holds the chunks of every column, nested ones included, which are
// copied out of recycled memory.
func TestTakeRecyclesChunkMemory(t *testing.T) {
	defer read.ScribbleReleased()()
	const rows = 20000
	// Text as Trivial: scans and nested columns share its bytes instead of
	// copying them — its inflated bodies, or with NoZstd the chunks' own.
	force := map[string]*encoding.Tree{"tag": {Kind: encoding.KindTrivial}, "s.b": {Kind: encoding.KindTrivial}}
	files := map[bool]string{}
	var all arrow.Record
	for _, noZstd := range []bool{false, true} {
		data, recs := writeFile(t, 91, rows, write.Options{StripeBytes: 256 << 10, ChunkValues: 1500, NoZstd: noZstd, Force: force})
		if all == nil {
			all = concat(t, recs)
			defer all.Release()
		}
		files[noZstd] = filepath.Join(t.TempDir(), "t.strata")
		if err := os.WriteFile(files[noZstd], data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	live := read.LiveLeases()
	for _, run := range []struct {
		par            int
		object, noZstd bool
	}{{1, false, false}, {4, false, false}, {2, true, false}, {1, false, true}, {2, true, true}} {
		src, err := iox.OpenFile(files[run.noZstd])
		if err != nil {
			t.Fatal(err)
		}
		defer src.Close()
		par := run.par
		var s iox.Source = src
		if run.object {
			s = objectShaped{src}
		}
		f, err := read.Open(context.Background(), s, read.Options{DecoderCacheBytes: 2 << 20, Parallelism: par})
		if err != nil {
			t.Fatal(err)
		}
		var held []heldRecord
		var g errgroup.Group
		for w := range par {
			g.Go(func() error {
				r := rand.New(rand.NewPCG(uint64(w), uint64(par)))
				for round := range 8 {
					req := make([]int64, 1+r.IntN(40))
					for i := range req {
						req[i] = r.Int64N(rows)
					}
					if err := takeSame(f, all, req); err != nil {
						return err
					}
					if w == 0 {
						lo := r.IntN(rows - 2000)
						h, err := scanHeld(f, fmt.Sprintf("id >= %d AND id < %d", 3*lo, 3*(lo+1500)), int64(lo))
						if err != nil {
							return err
						}
						held = append(held, h...)
					}
					if round%3 == 2 {
						f.DropCaches()
					}
				}
				return nil
			})
		}
		if err := g.Wait(); err != nil {
			t.Fatal(err)
		}
		for _, h := range held {
			for i := range h.rec.NumRows() {
				if err := sameRow(all, h.first+i, h.rec, i); err != nil {
					t.Fatalf("a scan's record held while lookups reused memory: %v", err)
				}
			}
			h.rec.Release()
		}
		f.DropCaches()
		if n := read.LiveLeases(); n != live {
			t.Fatalf("%+v: %d buffers of chunk memory held after dropping the caches, want %d", run, n, live)
		}
		// The file's own cache of 2 MiB keeps half of it.
		if n := read.RecycledBytes(f); n == 0 || n > 1<<20 {
			t.Fatalf("%+v: %d bytes of chunk memory kept for reuse, want some and at most 1 MiB", run, n)
		}
	}
	// A file on the process-wide cache recycles through its free list,
	// whose budget SetRecycledBytes sets.
	src, err := iox.OpenFile(files[false])
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	f, err := read.Open(context.Background(), src, read.Options{Parallelism: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer read.SetRecycledBytes(read.DefaultRecycledBytes)
	for _, budget := range []int64{read.DefaultRecycledBytes, 1 << 10} {
		read.SetRecycledBytes(budget)
		rec, err := f.Take([]int64{7, 7777, 17777}, nil)
		if err != nil {
			t.Fatal(err)
		}
		rec.Release()
		f.DropCaches()
		if n := read.RecycledBytes(f); n > budget || (n == 0 && budget > 1<<20) {
			t.Fatalf("%d bytes of chunk memory kept for reuse under a budget of %d", n, budget)
		}
	}
	if n := read.LiveLeases(); n != live {
		t.Fatalf("%d buffers of chunk memory held after dropping the caches, want %d", n, live)
	}
}

type heldRecord struct {
	rec   arrow.Record
	first int64
}

// scanHeld scans where (consecutive rows from first) and keeps
// every record as the scan returned it.
func scanHeld(f *read.File, where string, first int64) ([]heldRecord, error) {
	sc, err := f.Scan(read.ScanOptions{Where: where})
	if err != nil {
		return nil, err
	}
	defer sc.Close()
	var out []heldRecord
	for {
		rec, err := sc.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		out = append(out, heldRecord{rec, first})
		first += rec.NumRows()
	}
}

// takeSame looks rows up in f and compares each with its row of all.
func takeSame(f *read.File, all arrow.Record, rows []int64) error {
	rec, _, err := f.TakeContext(context.Background(), rows, read.TakeOptions{})
	if err != nil {
		return err
	}
	defer rec.Release()
	for i, row := range rows {
		if err := sameRow(all, row, rec, int64(i)); err != nil {
			return fmt.Errorf("take %v: %w", rows, err)
		}
	}
	return nil
}

// sameRow compares row i of rec with row of all, column by column.
func sameRow(all arrow.Record, row int64, rec arrow.Record, i int64) error {
	for c := range int(all.NumCols()) {
		want := array.NewSlice(all.Column(c), row, row+1)
		defer want.Release()
		got := array.NewSlice(rec.Column(c), i, i+1)
		defer got.Release()
		ok := array.ApproxEqual(want, got, array.WithNaNsEqual(true))
		if !ok {
			return fmt.Errorf("row %d column %s: got %v, want %v", row, all.ColumnName(c), got, want)
		}
	}
	return nil
}

// TestTakeLazyOpenOutlivesQuery checks memory a cached decoder allocates
// after its chunk was opened: Delta's gathers open their differences again
// (a second cursor) the first time they run, inflating a zstd body. That
// body must not be recycled memory held by the query that ran the gather,
// which goes back to the pool when the query ends while the decoder stays
// cached; a later lookup in the same chunk would read whatever the pool's
// next user wrote there (released memory is scribbled over here).
func TestTakeLazyOpenOutlivesQuery(t *testing.T) {
	defer read.ScribbleReleased()()
	const rows = 6000
	force := map[string]*encoding.Tree{"id": {Kind: encoding.KindDelta,
		Children: []*encoding.Tree{{Kind: encoding.KindVarint, Zstd: true}}}}
	data, recs := writeFile(t, 92, rows, write.Options{ChunkValues: 1500, Force: force})
	all := concat(t, recs)
	defer all.Release()
	path := filepath.Join(t.TempDir(), "t.strata")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	src, err := iox.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	f, err := read.Open(context.Background(), src, read.Options{DecoderCacheBytes: 2 << 20, Parallelism: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer f.DropCaches()
	// late rows of each chunk, then earlier ones (the gather cursor starts
	// again), with lookups of other columns between that reuse memory
	for _, req := range [][]int64{{1400, 2900, 4400}, {3, 7, 11}, {100, 1600, 3100}, {5, 9, 13}, {50, 1550}} {
		cols := []string{"id"}
		if req[0] < 20 {
			cols = []string{"tag", "price", "s"}
		}
		rec, _, err := f.TakeContext(context.Background(), req, read.TakeOptions{Columns: cols})
		if err != nil {
			t.Fatalf("take %v: %v", req, err)
		}
		if cols[0] == "id" {
			ids := rec.Column(0).(*array.Int32)
			for i, row := range req {
				if want := all.Column(0).(*array.Int32).Value(int(row)); ids.Value(i) != want {
					t.Fatalf("take %v: id of row %d = %d, want %d", req, row, ids.Value(i), want)
				}
			}
		}
		rec.Release()
	}
}
