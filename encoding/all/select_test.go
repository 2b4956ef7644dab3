package all_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"strata/encoding"
	"strata/encoding/all"
	"strata/encoding/encodingtest"
)

func TestParseOptimize(t *testing.T) {
	for _, o := range []encoding.Optimize{encoding.OptimizeBalanced, encoding.OptimizeSize, encoding.OptimizeSpeed} {
		got, err := encoding.ParseOptimize(o.String())
		if err != nil || got != o {
			t.Errorf("ParseOptimize(%q) = %v, %v", o.String(), got, err)
		}
	}
	if _, err := encoding.ParseOptimize("fast"); err == nil {
		t.Error("ParseOptimize(fast) accepted")
	}
	if w := encoding.OptimizeSize.Weight(); w != 0 {
		t.Errorf("size weighs decode time at %v", w)
	}
	if b, s := encoding.OptimizeBalanced.Weight(), encoding.OptimizeSpeed.Weight(); !(b > 0 && s > b) {
		t.Errorf("weights balanced %v, speed %v", b, s)
	}
}

func encode(t *testing.T, o encoding.Optimize, force *encoding.Tree, vals any) ([]byte, *encoding.Tree) {
	t.Helper()
	p := all.Policy()
	p.Optimize = o
	p.Force = force
	node, tree, err := p.Encode(nil, vals)
	if err != nil {
		t.Fatal(err)
	}
	if force != nil && tree.Kind != force.Kind {
		t.Fatalf("forced %v, encoded as %v", force, tree)
	}
	encodingtest.CheckNode(t, node, all.Options(), vals, nil)
	return node, tree
}

// TestZstdPays checks that zstd is kept on a leaf as Optimize says: where
// it saves a little, for size only; where it saves most of a large leaf,
// for size and balanced; for speed, not at all.
func TestZstdPays(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	// 8192 bytes uniform over 0..149: entropy coding saves about a tenth.
	some := make([]uint8, 8192)
	for i := range some {
		some[i] = uint8(r.IntN(150))
	}
	// 65536 bytes of two values in long runs broken at random: zstd
	// shrinks the plain leaf tenfold.
	most := make([]uint8, 1<<16)
	for i := range most {
		most[i] = uint8(i/97%2) * 200
	}
	for _, c := range []struct {
		name string
		vals []uint8
		want map[encoding.Optimize]bool
	}{
		{"saves-little", some, map[encoding.Optimize]bool{encoding.OptimizeSize: true, encoding.OptimizeBalanced: false, encoding.OptimizeSpeed: false}},
		{"saves-most", most, map[encoding.Optimize]bool{encoding.OptimizeSize: true, encoding.OptimizeBalanced: true, encoding.OptimizeSpeed: false}},
	} {
		for o, want := range c.want {
			node, tree := encode(t, o, &encoding.Tree{Kind: encoding.KindTrivial, Zstd: true}, c.vals)
			t.Logf("%s, %v: %v, %d bytes for %d", c.name, o, tree, len(node), len(c.vals))
			if tree.Zstd != want {
				t.Errorf("%s, %v: zstd %v, want %v", c.name, o, tree.Zstd, want)
			}
		}
	}
}

// TestHonestSizes checks that selection compares every candidate on the
// same footing: on data whose redundancy a sample cannot see (values that
// repeat in the same order thousands of rows apart, like a county id
// listed once per species), neither FSST nor any other candidate is chosen
// over one several times smaller, and size mode stays close to the
// smallest forced root.
func TestHonestSizes(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 2))
	ids := make([]string, 2600)
	for i := range ids {
		ids[i] = fmt.Sprintf("%05d", 1000+r.IntN(60000))
	}
	var county encoding.Bytes
	for county.Len() < 8192 {
		for _, id := range ids {
			if county.Len() < 8192 {
				county.Append([]byte(id))
			}
		}
	}
	smallest := -1
	for _, f := range []*encoding.Tree{
		{Kind: encoding.KindFSST}, {Kind: encoding.KindTrivial, Zstd: true}, {Kind: encoding.KindDictionary},
	} {
		node, tree := encode(t, encoding.OptimizeSize, f, county)
		t.Logf("forced %v: %d bytes", tree, len(node))
		if smallest < 0 || len(node) < smallest {
			smallest = len(node)
		}
	}
	for _, o := range []encoding.Optimize{encoding.OptimizeSize, encoding.OptimizeBalanced} {
		node, tree := encode(t, o, nil, county)
		t.Logf("%v: %v, %d bytes", o, tree, len(node))
		limit := 1.05
		if o == encoding.OptimizeBalanced {
			limit = 1.5 // may trade bytes for decode time, not several times over
		}
		if float64(len(node)) > limit*float64(smallest) {
			t.Errorf("%v chose %v, %d bytes, against %d for the smallest forced root", o, tree, len(node), smallest)
		}
	}
}

// TestSizeNotLarger checks that, over every shape and type, optimizing for
// size gives less bytes in all than the balanced default, which gives less
// than speed, and never a node much larger than balanced (estimates from a
// sample may misjudge one sequence, not the goal).
func TestSizeNotLarger(t *testing.T) {
	total := map[encoding.Optimize]int{}
	for _, typ := range []encoding.Type{encoding.Int64, encoding.Uint32, encoding.Float64, encoding.Binary} {
		for _, shape := range encodingtest.Shapes {
			vals := encodingtest.Values(typ, shape, 8192, 3)
			sizes := map[encoding.Optimize]int{}
			trees := map[encoding.Optimize]*encoding.Tree{}
			for _, o := range []encoding.Optimize{encoding.OptimizeSize, encoding.OptimizeBalanced, encoding.OptimizeSpeed} {
				node, tree := encode(t, o, nil, vals)
				sizes[o], trees[o] = len(node), tree
				total[o] += len(node)
			}
			if float64(sizes[encoding.OptimizeSize]) > 1.2*float64(sizes[encoding.OptimizeBalanced])+64 {
				t.Errorf("%v %s: size %v %d bytes, balanced %v %d", typ, shape, trees[encoding.OptimizeSize],
					sizes[encoding.OptimizeSize], trees[encoding.OptimizeBalanced], sizes[encoding.OptimizeBalanced])
			}
		}
	}
	t.Logf("total bytes: size %d, balanced %d, speed %d", total[encoding.OptimizeSize], total[encoding.OptimizeBalanced], total[encoding.OptimizeSpeed])
	if !(total[encoding.OptimizeSize] <= total[encoding.OptimizeBalanced] && total[encoding.OptimizeBalanced] <= total[encoding.OptimizeSpeed]) {
		t.Errorf("totals out of order: %v", total)
	}
}

// TestBalancedBound checks the bound on what the balanced default trades
// for decode speed: on text where a slow decoder (FrontCoding, zstd) is
// much smaller than a fast one (FSST, a dictionary), its choice is never
// more than a quarter larger than the smallest root forced under the same
// policy (a little slack for the bodies the forced encodes compress
// differently).
func TestBalancedBound(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	texts := map[string]func(i int) string{
		// sorted identifiers sharing long prefixes: FrontCoding's case
		"sorted-urls": func(i int) string { return fmt.Sprintf("https://www.example.com/catalogue/item/%08d", 1000000+i*7) },
		// words from a vocabulary, sorted: names in a reference table
		"names": func(i int) string {
			w := []string{"LATIN", "SMALL", "CAPITAL", "LETTER", "WITH", "ACUTE", "GRAVE", "DOT", "BELOW", "ABOVE", "HOOK", "STROKE"}
			return fmt.Sprintf("%s %s %s %c %s %s", w[i/1024%2], w[1+i/256%3], w[3], 'A'+byte(i/16%26), w[4], w[5+i%7])
		},
		// keys of a grid, sorted: the suffixes repeat for every row of the
		// grid, which FrontCoding's zstd leaves find on the whole sequence
		// and not on a sample (it is estimated at 0.85 of Trivial's size
		// and comes out near a third)
		"grid-keys": func(i int) string { return fmt.Sprintf("%d-%d", i/100, 100+i%100) },
		// random numbers in paths: zstd's entropy coding beats FSST
		"paths": func(int) string {
			return fmt.Sprintf("/api/v%d/%s/%d", 1+r.IntN(3), []string{"users", "orders", "items", "search"}[r.IntN(4)], r.IntN(100000))
		},
	}
	for name, gen := range texts {
		var vals encoding.Bytes
		for i := range 8192 {
			vals.Append([]byte(gen(i)))
		}
		smallest, kind := -1, encoding.Kind(0)
		for _, k := range []encoding.Kind{encoding.KindTrivial, encoding.KindFSST, encoding.KindFrontCoding, encoding.KindDictionary} {
			p := all.Policy()
			p.Force = &encoding.Tree{Kind: k, Zstd: k == encoding.KindTrivial}
			node, tree, err := p.Encode(nil, vals)
			if err != nil {
				t.Fatal(err)
			}
			if tree.Kind != k {
				continue // the kind does not fit these values
			}
			if smallest < 0 || len(node) < smallest {
				smallest, kind = len(node), tree.Kind
			}
		}
		node, tree := encode(t, encoding.OptimizeBalanced, nil, vals)
		t.Logf("%s: balanced %v, %d bytes; smallest forced root %v, %d bytes", name, tree, len(node), kind, smallest)
		if float64(len(node)) > 1.25*1.02*float64(smallest)+64 {
			t.Errorf("%s: balanced chose %v, %d bytes, over a quarter more than %v's %d", name, tree, len(node), kind, smallest)
		}
	}
}

// TestYardstickInReach checks that the plain layout of a column's own
// values (Trivial+zstd, the yardstick) is compressed whole only when its
// sample leaves it within reach of the cheapest candidate: a hundred
// values of one decimal, which ALP stores in 7 bits each and whose plain
// layout costs over twice as much, skip it; full-precision random floats,
// where little beats the plain layout, do not.
func TestYardstickInReach(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	const n = 6000
	for _, c := range []struct {
		name  string
		gen   func() float64
		whole bool
	}{
		{"one decimal", func() float64 { return float64(r.IntN(100)) / 10 }, false},
		{"random bits", func() float64 { return r.Float64() * 1e6 }, true},
	} {
		vals := make([]float64, n)
		for i := range vals {
			vals[i] = c.gen()
		}
		p := all.Policy()
		p.ZstdCache = encoding.NewZstdCache()
		if _, _, err := p.Encode(nil, vals); err != nil {
			t.Fatal(err)
		}
		frames, src, largest := p.ZstdCache.Compressed()
		// the yardstick's body is the 8n bytes of the values, and no
		// other body is as large
		if whole := largest >= 8*n; whole != c.whole {
			t.Errorf("%s: %d frames of %d bytes compressed, the largest of %d; plain layout compressed whole: %v, want %v",
				c.name, frames, src, largest, whole, c.whole)
		}
	}
}

// TestLongRuns checks that selection sees runs longer than a sample's
// slices: a column of a few distinct values in a few hundred runs (a
// class code that is mostly "0", as unicode's combining class) is stored
// by balanced selection within a quarter of the smallest encoding of its
// runs, not as the plain text a sample of a few cut runs made look
// smaller (its sample put RLE at three times its size).
func TestLongRuns(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	classes := []string{"230", "220", "1", "7", "9", "202", "216", "8", "84", "91", "240", "232"}
	for _, typ := range []string{"text", "int64"} {
		var text encoding.Bytes
		text.Offsets = []int32{0}
		var ints []int64
		for text.Len()+len(ints) < 40000 {
			v, n := "0", 20+r.IntN(150)
			if r.IntN(2) == 0 {
				v, n = classes[r.IntN(len(classes))], 1+r.IntN(40)
			}
			for range n {
				if typ == "text" {
					text.Append([]byte(v))
				} else {
					x := int64(0)
					fmt.Sscan(v, &x)
					ints = append(ints, x)
				}
			}
		}
		var vals any = text
		if typ == "int64" {
			vals = ints
		}
		node, tree := encode(t, encoding.OptimizeBalanced, nil, vals)
		runs, runsTree := encode(t, encoding.OptimizeSize, &encoding.Tree{Kind: encoding.KindRLE}, vals)
		t.Logf("%s: balanced %v %d bytes, RLE %v %d", typ, tree, len(node), runsTree, len(runs))
		if float64(len(node)) > 1.25*float64(len(runs))+16 {
			t.Errorf("%s: balanced chose %v, %d bytes, where RLE takes %d", typ, tree, len(node), len(runs))
		}
	}
}

// TestSortedSamples checks that selection samples a sorted sequence
// without cutting its order: slices of it put end to end jump where one
// ends, which made differences look costly, so balanced selection stored
// sorted floats plainly at three times ALP over their differences, and
// sorted repeats as differences at twice RLE's size.
func TestSortedSamples(t *testing.T) {
	for _, c := range []struct {
		typ   encoding.Type
		shape encodingtest.Shape
	}{
		{encoding.Float64, encodingtest.ShapeSorted},
		{encoding.Float64, encodingtest.ShapeSortedRepeats},
		{encoding.Int64, encodingtest.ShapeSortedRepeats},
		{encoding.Uint32, encodingtest.ShapeSortedRepeats},
	} {
		vals := encodingtest.Values(c.typ, c.shape, 60000, 3)
		node, tree := encode(t, encoding.OptimizeBalanced, nil, vals)
		small, smallTree := encode(t, encoding.OptimizeSize, nil, vals)
		t.Logf("%v %s: balanced %v %d bytes, size %v %d", c.typ, c.shape, tree, len(node), smallTree, len(small))
		if float64(len(node)) > 1.25*float64(len(small))+64 {
			t.Errorf("%v %s: balanced chose %v, %d bytes, where size selection finds %v, %d", c.typ, c.shape, tree, len(node), smallTree, len(small))
		}
	}
}
