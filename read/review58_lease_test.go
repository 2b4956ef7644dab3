package read_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"golang.org/x/sync/errgroup"

	"strata/encoding"
	"strata/format"
	"strata/iox"
	"strata/read"
	"strata/write"
)

// review58Force stores the text columns in the forms whose lookups lease
// what opening inflates or builds lazily: Trivial and FSST bodies under
// zstd, and Delta over zstd differences (its gathers open the differences
// again after the chunk is open).
var review58Force = map[string]*encoding.Tree{
	"tag": {Kind: encoding.KindTrivial, Zstd: true},
	"s.b": {Kind: encoding.KindFSST, Children: []*encoding.Tree{{Kind: encoding.KindFixedBitWidth}}},
	"id":  {Kind: encoding.KindDelta, Children: []*encoding.Tree{{Kind: encoding.KindVarint, Zstd: true}}},
}

// TestReview58InMemoryLookupsRecycle: a source in memory (a Slicer) hands
// out slices of itself, and since da260ec a lookup's chunks open into
// recycled memory all the same (their inflated bodies are leased). Many
// goroutines look rows up in one File while another keeps the records of
// scans, and the caches are dropped now and then: released memory is
// scribbled over, so a record or a cached decoder that still aliased it
// would read garbage. Every buffer goes back once the caches are dropped.
func TestReview58InMemoryLookupsRecycle(t *testing.T) {
	defer read.ScribbleReleased()()
	const rows = 12000
	data, recs := writeFile(t, 58, rows, write.Options{StripeBytes: 256 << 10, ChunkValues: 1500, Force: review58Force})
	all := concat(t, recs)
	defer all.Release()
	live := read.LiveLeases()
	for _, par := range []int{1, 4} {
		f, err := read.Open(context.Background(), iox.Bytes(data), read.Options{DecoderCacheBytes: 1 << 20, Parallelism: par})
		if err != nil {
			t.Fatal(err)
		}
		var held []heldRecord
		var g errgroup.Group
		for w := range 4 {
			g.Go(func() error {
				r := rand.New(rand.NewPCG(uint64(w), uint64(par)))
				for round := range 12 {
					req := make([]int64, 1+r.IntN(24))
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
					if round%4 == 3 && w == 1 {
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
					t.Fatalf("parallel %d: a scan's record held while lookups reused memory: %v", par, err)
				}
			}
			h.rec.Release()
		}
		f.DropCaches()
		if n := read.LiveLeases(); n != live {
			t.Fatalf("parallel %d: %d buffers of chunk memory held after dropping the caches, want %d", par, n, live)
		}

	}
}

// TestReview58LookupsAfterCanceledTake: a lookup canceled before it
// fetches, and lookups that fail on a chunk whose bytes are corrupt, leave
// the File's caches and recycled memory as they found them: the next
// lookups of good rows return the written values, and every buffer goes
// back once the caches are dropped.
func TestReview58LookupsAfterCanceledTake(t *testing.T) {
	defer read.ScribbleReleased()()
	const rows = 6000
	data, recs := writeFile(t, 59, rows, write.Options{ChunkValues: 1000, Force: review58Force})
	all := concat(t, recs)
	defer all.Release()
	live := read.LiveLeases()
	f, err := read.Open(context.Background(), iox.Bytes(data), read.Options{DecoderCacheBytes: 1 << 20, Parallelism: 2})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := f.TakeContext(ctx, []int64{1, 2000, 5999}, read.TakeOptions{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("canceled take: %v, want context.Canceled", err)
	}
	r := rand.New(rand.NewPCG(5, 9))
	for round := range 20 {
		req := []int64{r.Int64N(rows), r.Int64N(rows)}
		if err := takeSame(f, all, req); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
	}
	f.DropCaches()

	if n := read.LiveLeases(); n != live {
		t.Fatalf("%d buffers of chunk memory held after dropping the caches, want %d", n, live)
	}
	_ = arrow.PrimitiveTypes.Int64
}

// TestReview58LookupsAroundACorruptChunk: one chunk of one column fails
// its checksum. Lookups that touch it fail, each a query whose chunks
// come from one slab (da260ec) and whose other chunks may be cached, and
// lookups of rows in other chunks, before and after, return the written
// values; every buffer goes back once the caches are dropped.
func TestReview58LookupsAroundACorruptChunk(t *testing.T) {
	defer read.ScribbleReleased()()
	const rows = 6000
	data, recs := writeFile(t, 60, rows, write.Options{ChunkValues: 1000, Force: review58Force})
	all := concat(t, recs)
	defer all.Release()
	ff, err := format.Open(context.Background(), iox.Bytes(data), format.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	streams, err := ff.Streams(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	// the third chunk of the stream with the most chunks of rows
	best := 0
	for id, s := range streams {
		if len(s.Chunks) > len(streams[best].Chunks) {
			best = id
		}
	}
	ci := streams[best].Chunks[2]
	bad := bytes.Clone(data)
	bad[ci.Offset+ci.Size-1] ^= 0x40
	live := read.LiveLeases()
	f, err := read.Open(context.Background(), iox.Bytes(bad), read.Options{DecoderCacheBytes: 1 << 20, Parallelism: 2})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(6, 0))
	failed := 0
	for round := range 60 {
		req := []int64{r.Int64N(rows), r.Int64N(rows)}
		if round%5 == 0 {
			req = append(req, ci.FirstRow+int64(r.IntN(int(ci.Rows))))
		}
		rec, _, err := f.TakeContext(context.Background(), req, read.TakeOptions{})
		if err != nil {
			if !errors.Is(err, format.ErrChecksum) {
				t.Fatalf("round %d: %v, want a checksum error", round, err)
			}
			failed++
			continue
		}
		for i, row := range req {
			if err := sameRow(all, row, rec, int64(i)); err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
		}
		rec.Release()
	}
	if failed == 0 {
		t.Fatalf("no lookup met the corrupt chunk (stream %d, rows %d..%d)", best, ci.FirstRow, ci.FirstRow+ci.Rows)
	}
	f.DropCaches()
	if n := read.LiveLeases(); n != live {
		t.Fatalf("%d buffers of chunk memory held after dropping the caches, want %d", n, live)
	}
}
