package blockfor_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"strata/encoding"
	"strata/encoding/all"
	"strata/encoding/blockfor"
	"strata/encoding/encodingtest"
)

// forcedPolicy returns the default policy with BlockFOR forced at the root.
func forcedPolicy(r *encoding.Registry) *encoding.Policy {
	p := encoding.DefaultPolicy(r)
	p.Force = &encoding.Tree{Kind: encoding.KindBlockFOR}
	p.Zstd = false
	return p
}

// TestSmallBlocks uses tiny blocks so every path crosses many block
// boundaries, including a last block of one row.
func TestSmallBlocks(t *testing.T) {
	for _, bs := range []int{1, 7, 64} {
		c := blockfor.NewCodec(bs)
		for _, typ := range c.Types.List() {
			for _, shape := range encodingtest.Shapes {
				for _, n := range []int{1, 8, 65, 1000} {
					t.Run(fmt.Sprintf("%d/%v/%s/%d", bs, typ, shape, n), func(t *testing.T) {
						encodingtest.Check(t, c, encodingtest.Values(typ, shape, n, 42))
					})
				}
			}
		}
	}
}

// TestExceptions checks that rare outliers become exceptions instead of
// widening their block, and that low outliers are handled as well as high.
func TestExceptions(t *testing.T) {
	const n = 4096
	vals := make([]int64, n)
	for i := range vals {
		vals[i] = 1_000_000 + int64(i%16)
	}
	vals[100] = math.MaxInt64
	vals[2000] = math.MinInt64
	vals[3000] = -5
	p := forcedPolicy(all.Registry())
	p.Zstd = false
	node := encodingtest.RoundTrip(t, p, all.Options(), vals)
	// 4 bits per value plus headers and three exceptions.
	if len(node) > n/2+200 {
		t.Fatalf("node of %d bytes; outliers widened their blocks", len(node))
	}
	d, err := encoding.OpenTyped[int64](node, 0, all.Options())
	if err != nil {
		t.Fatal(err)
	}
	b := d.(interface {
		Blocks() int
		BlockBounds(int) (int, int, int64, int64)
	})
	if b.Blocks() != 4 {
		t.Fatalf("%d blocks", b.Blocks())
	}
	first, rows, lo, hi := b.BlockBounds(1)
	if first != 1024 || rows != 1024 || lo != math.MinInt64 || hi != 1_000_015 {
		t.Fatalf("block 1 bounds: %d %d [%d, %d]", first, rows, lo, hi)
	}
	mn, mx, ok := d.(encoding.Bounder[int64]).Bounds()
	if !ok || mn != math.MinInt64 || mx != math.MaxInt64 {
		t.Fatalf("Bounds = %d %d %v", mn, mx, ok)
	}
	// Blocks 0-2 hold an exception each and are decoded whole; block 3
	// (rows 3072-4095) is read by groups of 64 packed values.
	ds := d.(encoding.DecodeSpanner)
	for _, c := range []struct{ from, to, lo, hi int }{
		{3100, 3200, 3072, 3200},
		{3200, 3300, 3200, 3328},
		{4000, 4096, 3968, 4096},
		{2100, 2200, 2048, 3072},
		{2100, 3100, 2048, 3136},
		{1000, 1030, 0, 2048},
	} {
		if lo, hi := ds.DecodeSpan(c.from, c.to); lo != c.lo || hi != c.hi {
			t.Errorf("DecodeSpan(%d, %d) = [%d, %d), want [%d, %d)", c.from, c.to, lo, hi, c.lo, c.hi)
		}
	}
}

// TestWindowPastMax: a block of 64-bit values near the top of their type's
// range beside a few at the bottom, where the packed window above the
// base runs past the block's maximum and, in the unsigned arithmetic of
// the offsets, over the bottom values. They must be stored as exceptions,
// as the block's plan counts them: a writer once packed them in the
// window and wrote an exception count the body did not hold, a node no
// reader could open (found by the differential test).
func TestWindowPastMax(t *testing.T) {
	p := forcedPolicy(all.Registry())
	p.Zstd = false
	r := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{64, 1000, 3000} {
		s := make([]int64, n)
		u := make([]uint64, n)
		for i := range s {
			s[i] = math.MaxInt64 - r.Int64N(10)
			u[i] = math.MaxUint64 - r.Uint64N(10)
			if r.IntN(8) == 0 {
				s[i] = math.MinInt64 + r.Int64N(2)
				u[i] = r.Uint64N(2)
			}
		}
		encodingtest.RoundTrip(t, p, all.Options(), s)
		encodingtest.RoundTrip(t, p, all.Options(), u)
	}
}

// TestFilterPrunes checks block pruning on sorted data: a selective
// predicate decodes at most the blocks that straddle it.
func TestFilterPrunes(t *testing.T) {
	vals := make([]uint32, 100_000)
	for i := range vals {
		vals[i] = uint32(i * 3)
	}
	node := encodingtest.RoundTrip(t, forcedPolicy(all.Registry()), all.Options(), vals)
	d, err := encoding.OpenTyped[uint32](node, 0, all.Options())
	if err != nil {
		t.Fatal(err)
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

func TestGolden(t *testing.T) {
	p := forcedPolicy(all.Registry())
	p.Zstd = false
	enc := func(vals any) []byte {
		node, _, err := p.Encode(nil, vals)
		if err != nil {
			t.Fatal(err)
		}
		return node
	}
	encodingtest.Golden(t, "int32_outliers_1025", enc(encodingtest.Gen[int32](encodingtest.ShapeOutliers, 1025, 1)))
	encodingtest.Golden(t, "uint64_extremes_9", enc(encodingtest.Gen[uint64](encodingtest.ShapeExtremes, 9, 1)))
	encodingtest.Golden(t, "int8_sorted_70", enc(encodingtest.Gen[int8](encodingtest.ShapeSorted, 70, 1)))
	encodingtest.Golden(t, "int64_small_range_2100", enc(encodingtest.Gen[int64](encodingtest.ShapeSmallRandom, 2100, 1)))
}

// TestCorrupt feeds truncated and bit-flipped nodes: every one must decode
// or fail with a wrapped sentinel error, never panic.
func TestCorrupt(t *testing.T) {
	p := forcedPolicy(all.Registry())
	p.Zstd = false
	for _, vals := range []any{
		encodingtest.Gen[int16](encodingtest.ShapeOutliers, 3000, 3),
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
	p := forcedPolicy(encodingtest.Registry(blockfor.NewCodec(8)))
	node, _, err := p.Encode(nil, []int16{3, 5, 4, 900, 6, 3, -2, 5})
	if err != nil {
		t.Fatal(err)
	}
	want := []byte{0x04, 0x03, 0x00, 0x08, 0x08, 0x03, 0x86, 0x07, 0x05, 0x02, 0x02, 0x18, 0x83, 0x33, 0x86, 0x03, 0x00}
	if string(node) != string(want) {
		t.Fatalf("node % x, want % x", node, want)
	}
}

// TestSumRangesKeptTables sums ranges of a node with more exceptions than
// a decoder keeps tables for (l_orderkey-like differences: mostly 0 and 1,
// every eighth a jump), in passes forward and back, against the values.
func TestSumRangesKeptTables(t *testing.T) {
	const n = 200_000
	vals := make([]int64, n)
	for i := range vals {
		vals[i] = int64(i % 2)
		if i%8 == 7 {
			vals[i] = 25
		}
	}
	p := forcedPolicy(all.Registry())
	node := encodingtest.RoundTrip(t, p, all.Options(), vals)
	if len(node) > n/2 {
		t.Fatalf("node of %d bytes: the jumps widened the blocks instead of being exceptions", len(node))
	}
	opts := all.Options()
	var counted int64
	opts.Allocated = &counted
	d, err := encoding.OpenTyped[int64](node, 0, opts)
	if err != nil {
		t.Fatal(err)
	}
	s := d.(encoding.RangeSummer)
	out := make([]uint64, 3)
	defer func() {
		// what the tables came to hold stays within what opening counted
		held, bound := blockfor.Retained(d)
		if held == 0 || held > bound || bound > counted {
			t.Errorf("exception tables hold %d bytes, bound %d, opening counted %d", held, bound, counted)
		}
	}()
	for pass := 0; pass < 3; pass++ {
		for from := 0; from+3000 <= n; from += 2999 {
			f := from
			if pass == 2 {
				f = n - 3000 - from // backwards
			}
			ends := []int32{int32(f + 5), int32(f + 900), int32(f + 3000)}
			if err := s.SumRanges(f, ends, out); err != nil {
				t.Fatal(err)
			}
			r := f
			for i, e := range ends {
				var want uint64
				for _, v := range vals[r:e] {
					want += uint64(v)
				}
				if out[i] != want {
					t.Fatalf("pass %d: sum of [%d, %d) = %d, want %d", pass, r, e, out[i], want)
				}
				r = int(e)
			}
		}
	}
}

// TestPartsThroughKeptTables reads parts of blocks with exceptions again
// and again, as random windows do (a sum up to the part's start, then the
// part), so that reads patch exceptions from the kept SumRanges tables:
// parts that start and end at exceptions, beside them, inside one group of
// 64 packed values, across groups and blocks, in every integer width
// (narrow types patch by wrapping addition), and with more exceptions than
// the tables keep (the rest are read directly). Every value is compared.
func TestPartsThroughKeptTables(t *testing.T) {
	t.Run("int64", func(t *testing.T) { testParts[int64](t, 20_000, 0, 1<<40) })
	t.Run("int64-arena-full", func(t *testing.T) { testParts[int64](t, 120_000, 0, 1<<40) })
	t.Run("int32", func(t *testing.T) { testParts[int32](t, 20_000, -5, math.MaxInt32) })
	t.Run("int16", func(t *testing.T) { testParts[int16](t, 20_000, math.MinInt16, math.MaxInt16) })
	t.Run("int8", func(t *testing.T) { testParts[int8](t, 20_000, math.MinInt8, math.MaxInt8) })
	t.Run("uint8", func(t *testing.T) { testParts[uint8](t, 20_000, 0, math.MaxUint8) })
}

func testParts[T encoding.Integer](t *testing.T, n int, lo, hi int64) {
	r := rand.New(rand.NewPCG(5, 6))
	vals := make([]T, n)
	var exc []int
	for i := range vals {
		vals[i] = T(int64(r.IntN(4)) + max(lo, 0))
		if r.IntN(10) == 0 {
			// an outlier at either end of T's range
			vals[i] = T(hi - int64(r.IntN(3)))
			if r.IntN(2) == 0 {
				vals[i] = T(lo + int64(r.IntN(3)))
			}
			exc = append(exc, i)
		}
	}
	node := encodingtest.RoundTrip(t, forcedPolicy(all.Registry()), all.Options(), vals)
	d, err := encoding.OpenTyped[T](node, 0, all.Options())
	if err != nil {
		t.Fatal(err)
	}
	s, _ := d.(encoding.RangeSummer)
	type part struct{ a, b int }
	var parts []part
	for _, p := range exc[:min(len(exc), 300)] {
		parts = append(parts, part{p, p + 1}, part{p, min(n, p+40)}, part{max(0, p-40), p + 1},
			part{max(0, p-3), min(n, p+3)}, part{max(0, p-200), min(n, p+257)})
	}
	for range 600 {
		a := r.IntN(n)
		parts = append(parts, part{a, min(n, a+1+r.IntN(300))})
	}
	for _, edge := range []int{64, 128, 1024} {
		for k := edge; k < n; k += 7 * edge {
			parts = append(parts, part{k - 5, k + 5}, part{k, k + 64}, part{k - 64, k}, part{k + 3, k + 60})
		}
	}
	got := make([]T, n)
	sums := make([]uint64, 1)
	for pass := 0; pass < 3; pass++ {
		for i, pt := range parts {
			d.Reset()
			if s != nil && pass > 0 && i%2 == 0 && pt.a > 0 {
				// a Delta parent's skip: sum the rows before the part
				from := max(0, pt.a-1-r.IntN(100))
				if err := d.Skip(from); err != nil {
					t.Fatal(err)
				}
				if err := s.SumRanges(from, []int32{int32(pt.a)}, sums); err != nil {
					t.Fatal(err)
				}
				var want uint64
				for _, v := range vals[from:pt.a] {
					want += uint64(int64(v))
				}
				if sums[0] != want {
					t.Fatalf("pass %d: sum of [%d, %d) = %d, want %d", pass, from, pt.a, sums[0], want)
				}
				if err := d.Skip(pt.a - from); err != nil {
					t.Fatal(err)
				}
			} else if err := d.Skip(pt.a); err != nil {
				t.Fatal(err)
			}
			out := got[:pt.b-pt.a]
			if err := d.Read(out); err != nil {
				t.Fatal(err)
			}
			for j, v := range out {
				if v != vals[pt.a+j] {
					t.Fatalf("pass %d: part [%d, %d): row %d = %d, want %d", pass, pt.a, pt.b, pt.a+j, v, vals[pt.a+j])
				}
			}
		}
	}
}
