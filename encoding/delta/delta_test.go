package delta_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"strata/encoding"
	"strata/encoding/all"
	"strata/encoding/delta"
	"strata/encoding/encodingtest"
)

// forcedPolicy returns the default policy over r with Delta forced at the
// root (children selected normally) and zstd off to keep the tests fast.
func forcedPolicy(r *encoding.Registry) *encoding.Policy {
	p := encoding.DefaultPolicy(r)
	p.Force = &encoding.Tree{Kind: encoding.KindDelta}
	p.Zstd = false
	return p
}

// TestTrivialChild forces plain deltas, so the cursor is tested against a
// child whose Skip is O(1), independent of what selection picks.
func TestTrivialChild(t *testing.T) {
	p := forcedPolicy(all.Registry())
	p.Force.Children = []*encoding.Tree{{Kind: encoding.KindTrivial}}
	for _, typ := range delta.Codec.Types.List() {
		for _, shape := range encodingtest.Shapes {
			for _, n := range []int{2, 1025, 5000} {
				t.Run(fmt.Sprintf("%v/%s/%d", typ, shape, n), func(t *testing.T) {
					node := encodingtest.RoundTrip(t, p, all.Options(), encodingtest.Values(typ, shape, n, 42))
					if tree, err := encoding.Capture(node, all.Options()); err != nil || tree.String() != "Delta(Trivial)" {
						t.Fatalf("encoded as %v, %v", tree, err)
					}
				})
			}
		}
	}
}

// TestSmallBlocks uses tiny blocks so every path crosses many block
// boundaries, including blocks of one row (no differences at all).
func TestSmallBlocks(t *testing.T) {
	for _, bs := range []int{1, 2, 7, 64} {
		c := delta.NewCodec(bs)
		for _, typ := range c.Types.List() {
			for _, shape := range encodingtest.Shapes {
				for _, n := range []int{2, 8, 65, 1000} {
					t.Run(fmt.Sprintf("%d/%v/%s/%d", bs, typ, shape, n), func(t *testing.T) {
						encodingtest.Check(t, c, encodingtest.Values(typ, shape, n, 42))
					})
				}
			}
		}
	}
}

// orderKeys returns n l_orderkey-like values: sorted order keys of which 8
// of every 32 are used, each repeated for 1 to 7 line items.
func orderKeys(n int) []int64 {
	r := rand.New(rand.NewPCG(1, 2))
	out := make([]int64, 0, n)
	for key := int64(1); len(out) < n; key++ {
		if (key-1)%32 >= 8 {
			continue
		}
		for l := 1 + r.IntN(7); l > 0 && len(out) < n; l-- {
			out = append(out, key)
		}
	}
	return out
}

// TestOrderKey checks the cascade the encoding exists for: a sorted key
// with runs compresses to a small fraction of a byte per row, with Delta
// inside the tree.
func TestOrderKey(t *testing.T) {
	vals := orderKeys(200_000)
	p := all.Policy()
	node, tree, err := p.Encode(nil, vals)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("tree %v: %d bytes for %d rows (%.3f bits/row)", tree, len(node), len(vals), float64(8*len(node))/float64(len(vals)))
	if !strings.Contains(tree.String(), "Delta") {
		t.Errorf("selection did not use Delta: %v", tree)
	}
	r, err := encoding.OpenTyped[int64](node, 0, all.Options())
	if err != nil {
		t.Fatal(err)
	}
	encodingtest.CheckReader(t, r, vals, 1)

	// The run values alone: Delta over them must win over plain bit-packing.
	var runs []int64
	for i, v := range vals {
		if i == 0 || v != vals[i-1] {
			runs = append(runs, v)
		}
	}
	node, tree, err = p.Encode(nil, runs)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("run values: tree %v: %d bytes for %d values", tree, len(node), len(runs))
	if encoding.Kind(node[0]) != encoding.KindDelta {
		t.Errorf("run values encoded as %v, want Delta at the root", tree)
	}
	if len(node) > len(runs)/4 {
		t.Errorf("run values take %d bytes for %d values", len(node), len(runs))
	}
}

// TestFilterPrunes checks block pruning on sorted data: a selective
// predicate decodes only the blocks that straddle it, and the header bounds
// of sorted data are tight.
func TestFilterPrunes(t *testing.T) {
	vals := make([]uint32, 100_000)
	for i := range vals {
		vals[i] = uint32(i*3 + i%2)
	}
	node := encodingtest.RoundTrip(t, forcedPolicy(all.Registry()), all.Options(), vals)
	d, err := encoding.OpenTyped[uint32](node, 0, all.Options())
	if err != nil {
		t.Fatal(err)
	}
	b := d.(interface {
		Blocks() int
		BlockBounds(int) (int, int, uint32, uint32)
	})
	for i := 0; i < b.Blocks(); i++ {
		first, rows, lo, hi := b.BlockBounds(i)
		if lo != vals[first] || hi > vals[first+rows-1]+4 {
			t.Fatalf("block %d bounds [%d, %d], values [%d, %d]", i, lo, hi, vals[first], vals[first+rows-1])
		}
	}
	sel := encoding.NewBitmap(len(vals), true)
	p := &encoding.Pred[uint32]{Op: encoding.OpBetween, A: 30_000, B: 30_300}
	if err := d.(encoding.Filterer[uint32]).Filter(p, len(vals), sel); err != nil {
		t.Fatal(err)
	}
	if got := sel.Count(); got != 101 {
		t.Fatalf("%d rows selected, want 101", got)
	}
}

// TestWrap checks differences that overflow int64 round-trip bit-exactly
// and leave the bounds correct.
func TestWrap(t *testing.T) {
	p := forcedPolicy(all.Registry())
	encodingtest.RoundTrip(t, p, all.Options(), []int64{math.MinInt64, math.MaxInt64, math.MinInt64, 0, math.MaxInt64, -1})
	encodingtest.RoundTrip(t, p, all.Options(), []uint64{0, math.MaxUint64, 1, math.MaxUint64 - 1, 1 << 63, 0})
	r := encodingtest.Registry(delta.NewCodec(2))
	p = forcedPolicy(r)
	opts := &encoding.Options{Registry: r}
	// wraps only across block boundaries
	encodingtest.RoundTrip(t, p, opts, []int64{math.MaxInt64, math.MaxInt64, math.MinInt64, math.MinInt64, math.MaxInt64})
	encodingtest.RoundTrip(t, p, opts, []uint64{math.MaxUint64, math.MaxUint64, 0, 0, math.MaxUint64, 5})
}

func TestGolden(t *testing.T) {
	p := forcedPolicy(all.Registry())
	p.Force.Children = []*encoding.Tree{{Kind: encoding.KindTrivial}}
	enc := func(vals any) []byte {
		node, tree, err := p.Encode(nil, vals)
		if err != nil {
			t.Fatal(err)
		}
		if tree.String() != "Delta(Trivial)" {
			t.Fatalf("tree %v", tree)
		}
		return node
	}
	encodingtest.Golden(t, "int32_sorted_1025", enc(encodingtest.Gen[int32](encodingtest.ShapeSorted, 1025, 1)))
	encodingtest.Golden(t, "uint64_extremes_9", enc(encodingtest.Gen[uint64](encodingtest.ShapeExtremes, 9, 1)))
	encodingtest.Golden(t, "int8_sorted_repeats_70", enc(encodingtest.Gen[int8](encodingtest.ShapeSortedRepeats, 70, 1)))
	encodingtest.Golden(t, "int64_orderkey_2100", enc(orderKeys(2100)))
}

// TestCorrupt feeds truncated and bit-flipped nodes: every one must decode
// or fail with a wrapped sentinel error, never panic.
func TestCorrupt(t *testing.T) {
	p := forcedPolicy(all.Registry())
	p.Force.Children = []*encoding.Tree{{Kind: encoding.KindTrivial}}
	for _, vals := range []any{
		encodingtest.Gen[int16](encodingtest.ShapeSorted, 3000, 3),
		encodingtest.Gen[uint64](encodingtest.ShapeRandom, 100, 3),
		encodingtest.Gen[int8](encodingtest.ShapeExtremes, 50, 3),
	} {
		node, _, err := p.Encode(nil, vals)
		if err != nil {
			t.Fatal(err)
		}
		encodingtest.Corrupt(t, node, 200, encodingtest.ExerciseInts)
	}
}

// TestSpecExample checks the worked example of the format document.
func TestSpecExample(t *testing.T) {
	r := encodingtest.Registry(delta.NewCodec(4))
	p := forcedPolicy(r)
	p.Force.Children = []*encoding.Tree{{Kind: encoding.KindTrivial}}
	node, _, err := p.Encode(nil, []int32{10, 11, 13, 13, 20, 21})
	if err != nil {
		t.Fatal(err)
	}
	want := []byte{0x06, 0x04, 0x00, 0x06, 0x04, 0x14, 0x00, 0x07, 0x14, 0x02, 0x00, 0x02, 0x24, 0x02, 0x05, 0x00, 0x04}
	for _, d := range []byte{1, 2, 0, 1} {
		want = append(want, d, 0, 0, 0, 0, 0, 0, 0)
	}
	if string(node) != string(want) {
		t.Fatalf("node % x, want % x", node, want)
	}
	d, err := encoding.Open(node, &encoding.Options{Registry: r})
	if err != nil {
		t.Fatal(err)
	}
	b := d.(interface {
		BlockBounds(int) (int, int, int32, int32)
	})
	if _, _, lo, hi := b.BlockBounds(0); lo != 10 || hi != 20 {
		t.Fatalf("block 0 bounds [%d, %d], want [10, 20]", lo, hi)
	}
	if _, _, lo, hi := b.BlockBounds(1); lo != 20 || hi != 21 {
		t.Fatalf("block 1 bounds [%d, %d], want [20, 21]", lo, hi)
	}
}

// TestBlockFORChild forces Delta(BlockFOR) with blocks that do not line
// up (Delta 7 or 128 rows, BlockFOR 16 or 128) on a random walk with
// outliers, so the differences carry exceptions: a skip inside a Delta
// block adds the skipped differences up with BlockFOR's SumRanges, and
// reads start inside BlockFOR blocks with exceptions. The checker
// interleaves skips and reads of every length against the values.
func TestBlockFORChild(t *testing.T) {
	for _, bs := range [][2]int{{7, 16}, {128, 128}, {64, 16}} {
		reg := all.RegistryWithBlocks(bs[1])
		p := forcedPolicy(reg)
		p.Force = &encoding.Tree{Kind: encoding.KindDelta, Children: []*encoding.Tree{{Kind: encoding.KindBlockFOR}}}
		var cs []*encoding.Codec
		for _, c := range reg.Codecs() {
			if c.Kind == encoding.KindDelta {
				c = delta.NewCodec(bs[0])
			}
			cs = append(cs, c)
		}
		p.Registry = encoding.NewRegistry(cs...)
		r := rand.New(rand.NewPCG(7, uint64(bs[0])))
		for _, n := range []int{3, 200, 5000} {
			vals := make([]int64, n)
			var v int64
			for i := range vals {
				v += int64(r.IntN(3)) - 1
				if r.IntN(12) == 0 {
					v += int64(r.IntN(2000)) - 1000
				}
				vals[i] = v
			}
			t.Run(fmt.Sprintf("%d-%d/%d", bs[0], bs[1], n), func(t *testing.T) {
				node := encodingtest.RoundTrip(t, p, all.Options(), vals)
				if tree, err := encoding.Capture(node, all.Options()); err != nil || tree.String() != "Delta(BlockFOR)" {
					t.Fatalf("encoded as %v, %v", tree, err)
				}
			})
		}
	}
}
