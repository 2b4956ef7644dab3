package dod_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"strata/encoding"
	"strata/encoding/all"
	"strata/encoding/dod"
	"strata/encoding/encodingtest"
)

// forcedPolicy returns the default policy over r with DeltaOfDelta forced
// at the root and zstd off.
func forcedPolicy(r *encoding.Registry) *encoding.Policy {
	p := encoding.DefaultPolicy(r)
	p.Force = &encoding.Tree{Kind: encoding.KindDeltaOfDelta}
	p.Zstd = false
	return p
}

func roundTrip[T encoding.Integer](t *testing.T, p *encoding.Policy, opts *encoding.Options, lengths []int) {
	for _, shape := range encodingtest.Shapes {
		for _, n := range lengths {
			t.Run(fmt.Sprintf("%v/%s/%d", encoding.TypeFor[T](), shape, n), func(t *testing.T) {
				t.Parallel()
				vals := encodingtest.Gen[T](shape, n, 42)
				node := encodingtest.RoundTrip(t, p, opts, vals)
				if n >= 2 && encoding.Kind(node[0]) != encoding.KindDeltaOfDelta {
					t.Fatalf("root kind %v, want DeltaOfDelta", encoding.Kind(node[0]))
				}
				checkBlockBounds(t, node, opts, vals)
			})
		}
	}
}

func allTypes(t *testing.T, p *encoding.Policy, opts *encoding.Options, lengths []int) {
	roundTrip[int8](t, p, opts, lengths)
	roundTrip[int16](t, p, opts, lengths)
	roundTrip[int32](t, p, opts, lengths)
	roundTrip[int64](t, p, opts, lengths)
	roundTrip[uint8](t, p, opts, lengths)
	roundTrip[uint16](t, p, opts, lengths)
	roundTrip[uint32](t, p, opts, lengths)
	roundTrip[uint64](t, p, opts, lengths)
}

// checkBlockBounds checks that every block's header bounds are exactly the
// minimum and maximum of its values.
func checkBlockBounds[T encoding.Integer](t *testing.T, node []byte, opts *encoding.Options, vals []T) {
	t.Helper()
	if len(vals) < 2 {
		return
	}
	d, err := encoding.Open(node, opts)
	if err != nil {
		t.Fatal(err)
	}
	bb, ok := d.(encoding.BlockBounder[T])
	if !ok {
		t.Fatalf("%T is not a BlockBounder", d)
	}
	next := 0
	for b := 0; b < bb.Blocks(); b++ {
		first, rows, lo, hi := bb.BlockBounds(b)
		if first != next || rows <= 0 {
			t.Fatalf("block %d at row %d of %d rows, want row %d", b, first, rows, next)
		}
		mn, mx := vals[first], vals[first]
		for _, v := range vals[first : first+rows] {
			mn, mx = min(mn, v), max(mx, v)
		}
		if lo != mn || hi != mx {
			t.Fatalf("block %d bounds [%v, %v], values [%v, %v]", b, lo, hi, mn, mx)
		}
		next = first + rows
	}
	if next != len(vals) {
		t.Fatalf("blocks cover %d of %d rows", next, len(vals))
	}
}

func TestRoundTrip(t *testing.T) {
	allTypes(t, forcedPolicy(encodingtest.Registry(dod.Codec)), all.Options(), encodingtest.Lengths)
}

// TestSmallBlocks uses tiny blocks so every path crosses many block
// boundaries, including blocks of one and two rows (no packed payload).
func TestSmallBlocks(t *testing.T) {
	for _, bs := range []int{1, 2, 3, 7, 64} {
		r := encodingtest.Registry(dod.NewCodec(bs))
		t.Run(fmt.Sprint(bs), func(t *testing.T) {
			allTypes(t, forcedPolicy(r), &encoding.Options{Registry: r}, []int{2, 3, 8, 65, 1000})
		})
	}
}

// timestamps returns n nanosecond timestamps from 2016-01-01 every step,
// each moved by up to ±jitter.
func timestamps(n int, step, jitter int64, seed uint64) []int64 {
	r := rand.New(rand.NewPCG(seed, 3))
	out := make([]int64, n)
	for i := range out {
		out[i] = 1451606400_000000000 + int64(i)*step
		if jitter > 0 {
			out[i] += r.Int64N(2*jitter+1) - jitter
		}
	}
	return out
}

// TestRegularCostsNothing checks the case the encoding exists for: a
// regular interval costs one header byte per block after the first.
func TestRegularCostsNothing(t *testing.T) {
	vals := timestamps(100_000, 10e9, 0, 1)
	node := encodingtest.RoundTrip(t, forcedPolicy(encodingtest.Registry(dod.Codec)), all.Options(), vals)
	bitsPerRow := float64(8*len(node)) / float64(len(vals))
	t.Logf("regular: %d bytes for %d rows (%.4f bits/row)", len(node), len(vals), bitsPerRow)
	if bitsPerRow > 0.07 {
		t.Errorf("regular timestamps take %.4f bits/row", bitsPerRow)
	}
	// Milliseconds jitter on a 10 s interval: a few bits per row.
	vals = timestamps(100_000, 10e9, 1e6, 1)
	node = encodingtest.RoundTrip(t, forcedPolicy(encodingtest.Registry(dod.Codec)), all.Options(), vals)
	t.Logf("jittered ±1 ms: %d bytes (%.2f bits/row)", len(node), float64(8*len(node))/float64(len(vals)))
	if len(node) > len(vals)*3 {
		t.Errorf("jittered timestamps take %d bytes for %d rows", len(node), len(vals))
	}
	checkBlockBounds(t, node, all.Options(), vals)
}

// TestFilterSettlesBlocks checks that a time range filter decodes only the
// blocks that straddle its ends.
func TestFilterSettlesBlocks(t *testing.T) {
	vals := timestamps(50_000, 10e9, 0, 1)
	node := encodingtest.RoundTrip(t, forcedPolicy(encodingtest.Registry(dod.Codec)), all.Options(), vals)
	d, err := encoding.OpenTyped[int64](node, 0, all.Options())
	if err != nil {
		t.Fatal(err)
	}
	p := &encoding.Pred[int64]{Op: encoding.OpBetween, A: vals[1000] + 1, B: vals[1360]}
	sel := encoding.NewBitmap(len(vals), true)
	if err := d.(encoding.Filterer[int64]).Filter(p, len(vals), sel); err != nil {
		t.Fatal(err)
	}
	if got := sel.Count(); got != 360 {
		t.Fatalf("%d rows selected, want 360", got)
	}
	nb := d.(encoding.BlockBounder[int64]).Blocks()
	if s := d.(encoding.SkipCounter).Skipped(); s != nb-2 {
		t.Fatalf("%d of %d blocks settled from headers, want %d", s, nb, nb-2)
	}
}

// TestWrap checks differences that overflow int64 round-trip bit-exactly
// and keep exact bounds.
func TestWrap(t *testing.T) {
	for _, bs := range []int{1, 2, 3, 128} {
		r := encodingtest.Registry(dod.NewCodec(bs))
		p, opts := forcedPolicy(r), &encoding.Options{Registry: r}
		for _, v := range [][]int64{
			{math.MinInt64, math.MaxInt64, math.MinInt64, 0, math.MaxInt64, -1},
			{math.MaxInt64, math.MaxInt64, math.MinInt64, math.MinInt64, math.MaxInt64},
			{0, math.MaxInt64 / 2, math.MaxInt64 - 1, math.MinInt64 + 3, 2},
		} {
			node := encodingtest.RoundTrip(t, p, opts, v)
			checkBlockBounds(t, node, opts, v)
		}
		for _, v := range [][]uint64{
			{0, math.MaxUint64, 1, math.MaxUint64 - 1, 1 << 63, 0},
			{math.MaxUint64, math.MaxUint64, 0, 0, math.MaxUint64, 5},
		} {
			node := encodingtest.RoundTrip(t, p, opts, v)
			checkBlockBounds(t, node, opts, v)
		}
		// A progression that wraps around in its own type is not regular.
		v := []int8{100, 110, 120, -126, -116, -106}
		node := encodingtest.RoundTrip(t, p, opts, v)
		checkBlockBounds(t, node, opts, v)
	}
}

func TestGolden(t *testing.T) {
	p := forcedPolicy(encodingtest.Registry(dod.Codec))
	enc := func(vals any) []byte {
		node, tree, err := p.Encode(nil, vals)
		if err != nil {
			t.Fatal(err)
		}
		if tree.String() != "DeltaOfDelta" {
			t.Fatalf("tree %v", tree)
		}
		return node
	}
	encodingtest.Golden(t, "int64_regular_1000", enc(timestamps(1000, 10e9, 0, 1)))
	encodingtest.Golden(t, "int64_jitter_300", enc(timestamps(300, 1000, 7, 1)))
	encodingtest.Golden(t, "int32_sorted_1025", enc(encodingtest.Gen[int32](encodingtest.ShapeSorted, 1025, 1)))
	encodingtest.Golden(t, "uint64_extremes_9", enc(encodingtest.Gen[uint64](encodingtest.ShapeExtremes, 9, 1)))
}

// TestSpecExample checks the worked example of the format document.
func TestSpecExample(t *testing.T) {
	r := encodingtest.Registry(dod.NewCodec(4))
	p := forcedPolicy(r)
	node, _, err := p.Encode(nil, []int64{100, 110, 120, 130, 140, 150, 160, 170, 180, 191, 199, 210})
	if err != nil {
		t.Fatal(err)
	}
	want := []byte{
		0x13, 0x05, 0x00, 0x0c, // DeltaOfDelta, int64, no flags, 12 rows
		0x04,                                     // block size 4
		0x00, 0xc8, 0x01, 0x14, 0x00, 0x00, 0x00, // block 0: width 0, first 100, d1 10, dmin 0, lo 0, hi 0
		0x80,                                     // block 1: regular (140, 150, 160, 170)
		0x03, 0x00, 0x02, 0x05, 0x00, 0x05, 0x30, // block 2: width 3, first +0, d1 +1, dmin -3, lo 0, hi -3, dods {0, 6}
	}
	if string(node) != string(want) {
		t.Fatalf("node % x, want % x", node, want)
	}
	d, err := encoding.OpenTyped[int64](node, 0, &encoding.Options{Registry: r})
	if err != nil {
		t.Fatal(err)
	}
	b := d.(encoding.BlockBounder[int64])
	for i, w := range [][2]int64{{100, 130}, {140, 170}, {180, 210}} {
		if _, _, lo, hi := b.BlockBounds(i); lo != w[0] || hi != w[1] {
			t.Fatalf("block %d bounds [%d, %d], want %v", i, lo, hi, w)
		}
	}
}

// TestCorrupt feeds truncated and bit-flipped nodes: every one must decode
// or fail with a wrapped sentinel error, never panic.
func TestCorrupt(t *testing.T) {
	r := encodingtest.Registry(dod.NewCodec(16))
	p := forcedPolicy(r)
	for _, vals := range []any{
		timestamps(3000, 10e9, 5, 3),
		encodingtest.Gen[uint64](encodingtest.ShapeRandom, 100, 3),
		encodingtest.Gen[int8](encodingtest.ShapeExtremes, 50, 3),
	} {
		node, _, err := p.Encode(nil, vals)
		if err != nil {
			t.Fatal(err)
		}
		encodingtest.Corrupt(t, node, 300, encodingtest.ExerciseInts)
	}
}

func FuzzDecodeHeaders(f *testing.F) {
	for _, bs := range []int{4, 128} {
		p := forcedPolicy(encodingtest.Registry(dod.NewCodec(bs)))
		for _, vals := range []any{
			timestamps(600, 10e9, 0, 1),
			timestamps(300, 1000, 7, 1),
			encodingtest.Gen[int32](encodingtest.ShapeSorted, 1100, 1),
			encodingtest.Gen[uint64](encodingtest.ShapeExtremes, 9, 1),
			encodingtest.Gen[int8](encodingtest.ShapeSortedRepeats, 70, 1),
			encodingtest.Gen[int64](encodingtest.ShapeSmallRandom, 300, 1),
		} {
			node, _, err := p.Encode(nil, vals)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(node)
		}
	}
	// Only panics, hangs and oversized allocations fail; any error is fine.
	f.Fuzz(func(t *testing.T, data []byte) { _ = encodingtest.ExerciseInts(data) })
}
