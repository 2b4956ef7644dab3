package blockfor_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"strata/encoding"
	"strata/encoding/all"
	"strata/encoding/blockfor"
)

// TestReview59SumRangesPastKeptTables sums ranges of nodes with more
// exceptions than a decoder keeps tables for (maxKeptExceptions, 4096):
// past that, blocks walked again build their tables in a scratch that
// the next block's overwrites, while reads and gathers of parts of blocks
// patch from the kept tables or the exceptions directly. One decoder
// takes sums, part reads and gathers in random order, every sum checked
// value by value against the naive loop and every read and gather against
// the values written. (passes)
func TestReview59SumRangesPastKeptTables(t *testing.T) {
	t.Run("int8", func(t *testing.T) { testSumPastKept[int8](t) })
	t.Run("uint16", func(t *testing.T) { testSumPastKept[uint16](t) })
	t.Run("int32", func(t *testing.T) { testSumPastKept[int32](t) })
	t.Run("uint64", func(t *testing.T) { testSumPastKept[uint64](t) })
}

func testSumPastKept[T encoding.Integer](t *testing.T) {
	r := rand.New(rand.NewPCG(59, uint64(encoding.TypeFor[T]())))
	for _, bs := range []int{128, 1024} {
		const n = 100_000
		vals := sumValues[T](r, "outliers", n)
		node := blockforNode(t, vals, bs)
		d, err := encoding.OpenTyped[T](node, 0, all.Options())
		if err != nil {
			t.Fatal(err)
		}
		if e := blockfor.Exceptions[T](d); e <= 4096 {
			t.Fatalf("bs %d: %d exceptions, want more than the kept tables hold", bs, e)
		}
		what := fmt.Sprintf("bs %d", bs)
		got := make([]T, n)
		g := d.(encoding.Gatherer[T])
		for range 400 {
			switch r.IntN(4) {
			case 0:
				a := r.IntN(n)
				readPart(t, d, vals, got, a, min(n, a+1+r.IntN(2*bs)), what)
			case 1:
				// a few rows within a couple of blocks
				a := r.IntN(n)
				var rows []int32
				for k := a; k < n && len(rows) < 1+r.IntN(20); k += 1 + r.IntN(bs/4) {
					rows = append(rows, int32(k))
				}
				out := make([]T, len(rows))
				if err := g.Gather(rows, out); err != nil {
					t.Fatalf("%s: Gather(%v): %v", what, rows, err)
				}
				for k, row := range rows {
					if out[k] != vals[row] {
						t.Fatalf("%s: Gather row %d = %v, want %v", what, row, out[k], vals[row])
					}
				}
			default:
				from, ends := randomRanges(r, n, bs)
				checkSums(t, d.(encoding.RangeSummer), vals, from, ends, what)
			}
		}
		// the whole node read after all that
		d.Reset()
		if err := d.Read(got); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, vals) {
			t.Fatalf("%s: the whole node read other values", what)
		}
	}
}
