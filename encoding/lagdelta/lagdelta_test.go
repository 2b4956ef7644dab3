package lagdelta_test

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"sort"
	"testing"

	"strata/encoding"
	"strata/encoding/all"
	"strata/encoding/encodingtest"
	"strata/encoding/lagdelta"
)

// periodic returns n values of a daily-cycle-like series of period p: a
// pattern repeated with a slow drift and a little noise.
func periodic[T encoding.Integer](n, p int, seed uint64) []T {
	rng := rand.New(rand.NewPCG(seed, 7))
	pat := make([]int64, p)
	for i := range pat {
		pat[i] = int64(rng.IntN(100))
	}
	out := make([]T, n)
	for i := range out {
		out[i] = T(pat[i%p] + int64(i/p) + int64(rng.IntN(3)))
	}
	return out
}

// grid returns a coordinate of a w × h grid: the same w values each row.
func grid[T encoding.Integer](w, h int) []T {
	out := make([]T, 0, w*h)
	for r := 0; r < h; r++ {
		for c := 0; c < w; c++ {
			out = append(out, T(c*25+3))
		}
	}
	return out
}

func TestFindLag(t *testing.T) {
	for _, c := range []struct {
		vals []int64
		want int
	}{
		{periodic[int64](5000, 24, 1), 24},
		{grid[int64](80, 60), 80},
		{encodingtest.Gen[int64](encodingtest.ShapeSorted, 5000, 1), 1},
		{encodingtest.Gen[int64](encodingtest.ShapeRandom, 5000, 1), 1},
	} {
		if got := lagdelta.FindLag(c.vals); got != c.want {
			t.Errorf("FindLag = %d, want %d", got, c.want)
		}
	}
}

// readInPieces reads every value of node in reads of k values with a skip
// of s values after each read, and checks them against want.
func readInPieces[T encoding.Integer](t *testing.T, node []byte, want []T, k, s int) {
	t.Helper()
	r, err := encoding.OpenTyped[T](node, 0, all.Options())
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]T, k)
	for pos := 0; pos < len(want); {
		m := min(k, len(want)-pos)
		if err := r.Read(buf[:m]); err != nil {
			t.Fatal(err)
		}
		for i, v := range buf[:m] {
			if v != want[pos+i] {
				t.Fatalf("read %d/skip %d: row %d = %v, want %v", k, s, pos+i, v, want[pos+i])
			}
		}
		pos += m
		sk := min(s, len(want)-pos)
		if err := r.Skip(sk); err != nil {
			t.Fatal(err)
		}
		pos += sk
	}
}

func roundTrip[T encoding.Integer](t *testing.T, name string, vals []T, wantLag bool) {
	t.Run(fmt.Sprintf("%s/%v", name, encoding.TypeFor[T]()), func(t *testing.T) {
		p := all.Policy()
		p.Force = &encoding.Tree{Kind: encoding.KindLagDelta}
		node, _, err := p.Encode(nil, vals)
		if err != nil {
			t.Fatal(err)
		}
		if encoding.Kind(node[0]) != encoding.KindLagDelta {
			t.Fatalf("root kind %v", encoding.Kind(node[0]))
		}
		for _, rs := range [][2]int{{len(vals), 0}, {1, 0}, {7, 0}, {23, 1}, {100, 37}, {5, 300}, {4096, 5}} {
			readInPieces(t, node, vals, rs[0], rs[1])
		}
		// Selection takes it for periodic values.
		node, tree, err := all.Policy().Encode(nil, vals)
		if err != nil {
			t.Fatal(err)
		}
		encodingtest.RoundTrip(t, all.Policy(), all.Options(), vals)
		if got := fmt.Sprint(tree); wantLag && !containsLag(tree) {
			t.Errorf("selection chose %s for periodic values", got)
		}
		_ = node
	})
}

func containsLag(t *encoding.Tree) bool {
	if t.Kind == encoding.KindLagDelta {
		return true
	}
	for _, c := range t.Children {
		if containsLag(c) {
			return true
		}
	}
	return false
}

func TestRoundTrip(t *testing.T) {
	roundTrip(t, "daily", periodic[int64](8760, 24, 1), true)
	roundTrip(t, "daily", periodic[int32](8760, 24, 2), true)
	roundTrip(t, "daily", periodic[uint16](8760, 24, 3), true)
	roundTrip(t, "daily", periodic[int8](3000, 24, 4), false)
	roundTrip(t, "grid", grid[int64](80, 60), true)
	roundTrip(t, "grid", grid[uint64](3, 1000), false)
	roundTrip(t, "random", encodingtest.Gen[uint64](encodingtest.ShapeExtremes, 5000, 1), false)
	roundTrip(t, "random", encodingtest.Gen[int16](encodingtest.ShapeRandom, 70000, 1), false)
}

// TestFloatPeriod checks that ALP's digits of a periodic float column go
// through LagDelta and come back bit for bit.
func TestFloatPeriod(t *testing.T) {
	vals := make([]float64, 8760)
	for i, v := range periodic[int64](len(vals), 24, 5) {
		vals[i] = float64(v+9000) / 10
	}
	node, tree, err := all.Policy().Encode(nil, vals)
	if err != nil {
		t.Fatal(err)
	}
	if !containsLag(tree) {
		t.Errorf("tree %v, want LagDelta in it", tree)
	}
	encodingtest.RoundTrip(t, all.Policy(), all.Options(), vals)
	_ = node
}

// TestHostile checks that nodes declaring a bad lag are errors.
func TestHostile(t *testing.T) {
	p := all.Policy()
	p.Force = &encoding.Tree{Kind: encoding.KindLagDelta}
	node, _, err := p.Encode(nil, grid[int64](80, 60))
	if err != nil {
		t.Fatal(err)
	}
	h, err := encoding.ParseHeader(node, 0, all.Options())
	if err != nil {
		t.Fatal(err)
	}
	off := len(node) - len(h.Body)
	// 0 is no lag; 127 is a valid one that the heads child's rows do not match.
	for _, lag := range []byte{0, 0x7f} {
		bad := append([]byte(nil), node...)
		bad[off] = lag
		if _, err := encoding.OpenTyped[int64](bad, 0, all.Options()); err == nil {
			t.Errorf("lag byte %#x: no error", lag)
		}
	}
}

func TestGolden(t *testing.T) {
	p := encodingtest.GoldenPolicy(nil, encodingtest.T(encoding.KindLagDelta,
		encodingtest.T(encoding.KindFixedBitWidth), encodingtest.T(encoding.KindFixedBitWidth)))
	enc := func(vals any) []byte {
		node, tree, err := p.Encode(nil, vals)
		if err != nil {
			t.Fatal(err)
		}
		if tree.String() != "LagDelta(FixedBitWidth, FixedBitWidth)" {
			t.Fatalf("tree %v", tree)
		}
		return node
	}
	encodingtest.Golden(t, "int64_daily_500", enc(periodic[int64](500, 24, 1)))
	encodingtest.Golden(t, "uint16_grid_300", enc(grid[uint16](30, 10)))
}

// TestFormatExample decodes the example of docs/FORMAT.md.
func TestFormatExample(t *testing.T) {
	node := []byte{0x16, 0x04, 0x00, 0x06, 0x02,
		0x0c, 0x02, 0x04, 0x00, 0x02, 5, 0, 0, 0, 9, 0, 0, 0,
		0x24, 0x02, 0x05, 0x00, 0x04}
	for range 4 {
		node = append(node, 1, 0, 0, 0, 0, 0, 0, 0)
	}
	r, err := encoding.OpenTyped[int32](node, 0, all.Options())
	if err != nil {
		t.Fatal(err)
	}
	got := make([]int32, 6)
	if err := r.Read(got); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != "[5 9 6 10 7 11]" {
		t.Fatalf("decoded %v", got)
	}
}

// periodicTree is LagDelta with plain heads and a Constant differences
// child, which on values that repeat exactly is Constant 0.
var periodicTree = &encoding.Tree{Kind: encoding.KindLagDelta, Children: []*encoding.Tree{{Kind: encoding.KindTrivial}, {Kind: encoding.KindConstant}}}

// checkPeriodic encodes vals with periodicTree and checks the period the
// node reports, then every value through reads and skips of several sizes.
func checkPeriodic[T encoding.Integer](t *testing.T, vals []T, wantPeriod int) {
	t.Helper()
	p := all.Policy()
	p.Zstd = false
	p.Force = periodicTree
	node, tree, err := p.Encode(nil, vals)
	if err != nil {
		t.Fatal(err)
	}
	if tree.String() != "LagDelta(Trivial, Constant)" {
		t.Fatalf("tree %v", tree)
	}
	d, err := encoding.Open(node, all.Options())
	if err != nil {
		t.Fatal(err)
	}
	if got := d.(encoding.Periodic).Period(); got != wantPeriod {
		t.Errorf("%v: Period() = %d, want %d", encoding.TypeFor[T](), got, wantPeriod)
	}
	for _, rs := range [][2]int{{len(vals), 0}, {1, 0}, {7, 0}, {79, 1}, {80, 0}, {81, 80}, {100, 37}, {5, 300}, {1000, 5}, {4096, 1}} {
		readInPieces(t, node, vals, rs[0], rs[1])
	}
}

// TestPeriodic checks the copy path of values that repeat exactly (all
// differences zero) on every width, and that differences of one constant
// other than zero are not taken for a period.
func TestPeriodic(t *testing.T) {
	checkPeriodic(t, grid[int64](80, 60), 80)
	checkPeriodic(t, grid[int32](80, 61), 80)
	checkPeriodic(t, grid[uint16](80, 7), 80)
	checkPeriodic(t, grid[uint8](80, 9), 80)
	g := grid[int64](100, 50)
	ramp := make([]int64, len(g))
	for i, v := range g {
		ramp[i] = v*v%997 + int64(i/100)*3 // lag 100, differences all 3
	}
	checkPeriodic(t, ramp, 0)
}

// findLagRef is FindLag's definition spelled out plainly: every lag scored
// at every fourth probe row, the best four (smallest lag first on ties)
// scored again at all probe rows, lag 1 kept unless the best saves a fifth
// of its bits.
func findLagRef(vals []int64) int {
	n := len(vals)
	maxL := min(1024, n/4)
	if maxL < 2 {
		return 1
	}
	np := min(192, n-maxL)
	score := func(l, step int) int {
		s := 0
		for k := 0; k < np; k += step {
			p := maxL + k*(n-maxL)/np
			d := uint64(vals[p] - vals[p-l])
			s += bits.Len64(d<<1 ^ uint64(int64(d)>>63))
		}
		return s
	}
	type scored struct{ l, s int }
	var all []scored
	for l := 2; l <= maxL; l++ {
		all = append(all, scored{l, score(l, 4)})
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].s < all[j].s })
	s1 := score(1, 1)
	best, bestScore := 1, s1
	for _, c := range all[:min(4, len(all))] {
		if s := score(c.l, 1); s < bestScore || s == bestScore && c.l < best {
			best, bestScore = c.l, s
		}
	}
	if 5*bestScore > 4*s1 {
		return 1
	}
	return best
}

// TestFindLagReference checks the lag search, which stops scoring a lag
// early once it cannot be among the best few, against the plain
// definition on periodic, grid, sorted, random and noisy-step data.
func TestFindLagReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var cases [][]int64
	for _, n := range []int{3, 8, 9, 40, 333, 1000, 4096, 5000, 9000} {
		cases = append(cases, periodic[int64](n, 1+rng.IntN(200), uint64(n)), grid[int64](1+rng.IntN(90), 1+n/50))
		for _, sh := range []encodingtest.Shape{encodingtest.ShapeSorted, encodingtest.ShapeRandom, encodingtest.ShapeLowCard,
			encodingtest.ShapeSmallRandom, encodingtest.ShapeOutliers, encodingtest.ShapeExtremes} {
			cases = append(cases, encodingtest.Gen[int64](sh, n, uint64(n)))
		}
		steps := make([]int64, n)
		for i := range steps {
			steps[i] = int64(i/7) + int64(rng.IntN(4))
		}
		cases = append(cases, steps)
	}
	for i, vals := range cases {
		if got, want := lagdelta.FindLag(vals), findLagRef(vals); got != want {
			t.Errorf("case %d (%d values): FindLag = %d, reference %d", i, len(vals), got, want)
		}
	}
}
