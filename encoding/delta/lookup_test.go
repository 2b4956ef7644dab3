package delta_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"strata/encoding"
	"strata/encoding/all"
	"strata/encoding/encodingtest"
)

// TestGatherFewRows gathers 1 to 9 rows, several in one block, on fresh
// decoders (whose sums fit the decoder's own scratch up to 4 rows a block
// and allocate past it) over children that sum ranges and ones that do
// not, against the values.
func TestGatherFewRows(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	vals := make([]int32, 5000)
	acc := int32(0)
	for i := range vals {
		acc += int32(r.IntN(7))
		vals[i] = acc
	}
	for _, child := range []encoding.Kind{encoding.KindFixedBitWidth, encoding.KindBlockFOR, encoding.KindTrivial, encoding.KindVarint} {
		tree := encodingtest.T(encoding.KindDelta, encodingtest.T(child))
		node, got, err := encodingtest.GoldenPolicy(nil, tree).EncodeSequence(nil, vals, 1, encoding.KindInvalid, tree)
		if err != nil {
			t.Fatal(err)
		}
		if got.Kind != encoding.KindDelta || got.Children[0].Kind != child {
			t.Fatalf("encoded as %v", got)
		}
		for k := 1; k <= 9; k++ {
			for trial := 0; trial < 20; trial++ {
				// rows from one or two blocks
				base := r.IntN(len(vals) - 1500)
				seen := map[int32]bool{}
				var rows []int32
				for len(rows) < k {
					row := int32(base + r.IntN(1500))
					if !seen[row] {
						seen[row] = true
						rows = append(rows, row)
					}
				}
				slices.Sort(rows)
				d, err := encoding.Open(node, all.Options())
				if err != nil {
					t.Fatal(err)
				}
				dst := make([]int32, len(rows))
				if err := d.(encoding.Gatherer[int32]).Gather(rows, dst); err != nil {
					t.Fatalf("%v rows %v: %v", child, rows, err)
				}
				for i, row := range rows {
					if dst[i] != vals[row] {
						t.Fatalf("%v row %d: %d, want %d", child, row, dst[i], vals[row])
					}
				}
				lo, hi, _ := d.(encoding.Bounder[int32]).Bounds()
				if lo > vals[0] || hi < vals[len(vals)-1] {
					t.Fatalf("%v: bounds [%d, %d] miss [%d, %d]", child, lo, hi, vals[0], vals[len(vals)-1])
				}
			}
		}
	}
}
