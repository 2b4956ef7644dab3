package filterkern

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"strata/encoding"
)

// sliceBlocks is a BlockReader over a slice: blocks of bs rows bounded by
// their values, as Delta's headers bound them. reads and skips count calls.
type sliceBlocks struct {
	vals         []int64
	bs, pos      int
	reads, skips int
	readRows     int
}

func (s *sliceBlocks) Blocks() int { return (len(s.vals) + s.bs - 1) / s.bs }

func (s *sliceBlocks) BlockBounds(b int) (first, rows int, lo, hi int64) {
	first = b * s.bs
	rows = min(s.bs, len(s.vals)-first)
	lo, hi = s.vals[first], s.vals[first]
	for _, v := range s.vals[first : first+rows] {
		lo, hi = min(lo, v), max(hi, v)
	}
	return first, rows, lo, hi
}

func (s *sliceBlocks) Pos() int { return s.pos }

func (s *sliceBlocks) Skip(n int) error {
	if n < 0 || s.pos+n > len(s.vals) {
		return fmt.Errorf("skip %d at %d of %d", n, s.pos, len(s.vals))
	}
	s.pos += n
	s.skips++
	return nil
}

func (s *sliceBlocks) Read(dst []int64) error {
	if s.pos+len(dst) > len(s.vals) {
		return fmt.Errorf("read %d at %d of %d", len(dst), s.pos, len(s.vals))
	}
	copy(dst, s.vals[s.pos:])
	s.pos += len(dst)
	s.reads++
	s.readRows += len(dst)
	return nil
}

// TestBlocksMatchesNaive filters windows of block-structured values under
// every operator against Pred.Match row by row, from every kind of start
// (block boundary or not), and checks that a block settled by its bounds is
// never read and that the reader ends past the window.
func TestBlocksMatchesNaive(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	preds := func(r *rand.Rand) []encoding.Pred[int64] {
		a, b := r.Int64N(1200), r.Int64N(1200)
		return []encoding.Pred[int64]{
			{Op: encoding.OpEq, A: a}, {Op: encoding.OpNe, A: a}, {Op: encoding.OpLt, A: a},
			{Op: encoding.OpLe, A: a}, {Op: encoding.OpGt, A: a}, {Op: encoding.OpGe, A: a},
			{Op: encoding.OpBetween, A: min(a, b), B: max(a, b)},
			{Op: encoding.OpIn, Set: []int64{min(a, b), max(a, b) + 1}},
		}
	}
	var sc Scratch[int64]
	for _, n := range []int{1, 63, 64, 130, 1000} {
		for _, bs := range []int{1, 7, 64, 128} {
			// ascending values: most blocks are settled by their bounds
			vals := make([]int64, n)
			for i := range vals {
				vals[i] = int64(i) + r.Int64N(3)
			}
			for trial := 0; trial < 12; trial++ {
				from := r.IntN(n)
				cnt := 1 + r.IntN(n-from)
				for _, p := range preds(r) {
					sel := encoding.NewBitmap(cnt, true)
					for i := 0; i < cnt; i++ {
						if r.IntN(5) == 0 {
							sel.Clear(i)
						}
					}
					in := append(encoding.Bitmap(nil), sel...)
					d := &sliceBlocks{vals: vals, bs: bs, pos: from}
					settled, err := Blocks[int64](d, bs, &p, cnt, sel, &sc)
					if err != nil {
						t.Fatalf("n=%d bs=%d [%d,+%d) %v %d: %v", n, bs, from, cnt, p.Op, p.A, err)
					}
					for i := 0; i < cnt; i++ {
						want := in.Get(i) && p.Match(vals[from+i])
						if sel.Get(i) != want {
							t.Fatalf("n=%d bs=%d [%d,+%d) %v %d %d: row %d value %d: got %v want %v",
								n, bs, from, cnt, p.Op, p.A, p.B, from+i, vals[from+i], sel.Get(i), want)
						}
					}
					if d.pos != from+cnt {
						t.Fatalf("n=%d bs=%d [%d,+%d): reader at %d after the filter", n, bs, from, cnt, d.pos)
					}
					blocks := (from+cnt-1)/bs - from/bs + 1
					if settled > blocks || d.reads+settled > blocks {
						t.Fatalf("n=%d bs=%d [%d,+%d): %d blocks, %d settled and %d read", n, bs, from, cnt, blocks, settled, d.reads)
					}
					if d.readRows > cnt {
						t.Fatalf("read %d rows for a window of %d", d.readRows, cnt)
					}
				}
			}
		}
	}
}

// TestBlocksNothingSelected reads nothing when the selection is empty and
// passes the window with one skip.
func TestBlocksNothingSelected(t *testing.T) {
	vals := make([]int64, 500)
	for i := range vals {
		vals[i] = int64(i)
	}
	d := &sliceBlocks{vals: vals, bs: 64, pos: 10}
	sel := encoding.NewBitmap(400, false)
	var sc Scratch[int64]
	if _, err := Blocks[int64](d, 64, &encoding.Pred[int64]{Op: encoding.OpGe, A: 0}, 400, sel, &sc); err != nil {
		t.Fatal(err)
	}
	if d.reads != 0 || d.skips != 1 || d.pos != 410 {
		t.Fatalf("reads %d skips %d pos %d, want 0, 1, 410", d.reads, d.skips, d.pos)
	}
}
