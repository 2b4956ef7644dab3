package scaled_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"strata/encoding"
	"strata/encoding/all"
	"strata/encoding/encodingtest"
	"strata/encoding/scaled"
)

// The shared suite (suite_test.go) checks Scaled on every shape whose
// values share a step (its decimal shape: integers in hundreds), with and
// without nulls. The tests here cover what is particular to it: the step
// found, filters around the steps of every integer type, selection on
// the data it is for, golden bytes and hand-made nodes.

const kSc = encoding.KindScaled

func TestStepOf(t *testing.T) {
	cases := []struct {
		vals []int64
		want uint64
	}{
		{nil, 0}, {[]int64{5}, 0}, {[]int64{5, 5, 5}, 0},
		{[]int64{3, 8, 13, -2}, 5},
		{[]int64{1000, 3000, -7000}, 2000},
		{[]int64{math.MinInt64, math.MaxInt64}, math.MaxUint64},
		{[]int64{math.MinInt64, 0}, 1 << 63},
		{[]int64{6, 10, 15}, 1},
	}
	for _, c := range cases {
		if got := encoding.StepOf(c.vals); got != c.want {
			t.Errorf("StepOf(%v) = %d, want %d", c.vals, got, c.want)
		}
	}
	if got := encoding.StepOf([]uint8{255, 5, 130}); got != 125 {
		t.Errorf("StepOf(uint8) = %d, want 125", got)
	}
}

// stepped returns n values of type T on a step from a base, with repeats,
// the lowest and highest multiples that fit T, in random order.
func stepped[T encoding.Integer](n int, base T, step uint64, seed uint64) []T {
	r := rand.New(rand.NewPCG(seed, uint64(n)))
	top := maxOf[T]()
	kmax := (top - uint64(base)) / step
	out := make([]T, n)
	for i := range out {
		k := r.Uint64N(min(kmax, 1<<20) + 1)
		switch r.IntN(16) {
		case 0:
			k = 0
		case 1:
			k = kmax
		}
		out[i] = T(uint64(base) + step*k)
	}
	return out
}

// maxOf is T's largest value, widened.
func maxOf[T encoding.Integer]() uint64 {
	var z T
	switch any(z).(type) {
	case int8:
		return math.MaxInt8
	case int16:
		return math.MaxInt16
	case int32:
		return math.MaxInt32
	case int64:
		return math.MaxInt64
	case uint8:
		return math.MaxUint8
	case uint16:
		return math.MaxUint16
	case uint32:
		return math.MaxUint32
	}
	return math.MaxUint64
}

// TestTypes checks each integer type with steps near its range: the suite's
// reads, and every filter through the multiples.
func TestTypes(t *testing.T) {
	check := func(name string, vals any) {
		t.Run(name, func(t *testing.T) {
			encodingtest.Check(t, scaled.Codec, vals)
		})
	}
	for _, n := range []int{2, 9, 1025} {
		check("int8", stepped[int8](n, -128, 3, 1))
		check("int16", stepped[int16](n, -30000, 7, 2))
		check("int32", stepped[int32](n, -5, 1000, 3))
		check("int64", stepped[int64](n, math.MinInt64, 1<<40, 4))
		check("uint8", stepped[uint8](n, 4, 25, 5))
		check("uint16", stepped[uint16](n, 0, 250, 6))
		check("uint32", stepped[uint32](n, 17, 100, 7))
		check("uint64", stepped[uint64](n, 1<<63, 1<<20, 8))
	}
}

// TestSelection: trade volumes in round lots of 10,000 shares (high
// cardinality, so no alphabet pays) are stored as Scaled by the default
// policy, in at most three quarters of the bytes of the best encoding
// without it.
func TestSelection(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	vals := make([]int64, 8192)
	for i := range vals {
		vals[i] = int64(r.ExpFloat64()*5e4) * 10000
	}
	p := all.Policy()
	node, tree, err := p.Encode(nil, vals)
	if err != nil {
		t.Fatal(err)
	}
	if tree.Kind != kSc {
		t.Fatalf("chose %v", tree)
	}
	without := all.Policy()
	without.Allow = map[encoding.Kind]bool{}
	for _, c := range without.Registry.Codecs() {
		without.Allow[c.Kind] = c.Kind != kSc
	}
	other, otree, err := without.Encode(nil, vals)
	if err != nil {
		t.Fatal(err)
	}
	if 4*len(node) > 3*len(other) {
		t.Errorf("Scaled %d bytes (%v), without it %d (%v)", len(node), tree, len(other), otree)
	}
}

func TestGolden(t *testing.T) {
	vals := []int32{-5000, 25000, 0, 105000}
	node, tree, err := encodingtest.GoldenPolicy(scaled.Codec, encodingtest.T(kSc,
		encodingtest.T(encoding.KindFixedBitWidth))).Encode(nil, vals)
	if err != nil {
		t.Fatal(err)
	}
	if tree.String() != "Scaled(FixedBitWidth)" {
		t.Fatalf("tree %v", tree)
	}
	encodingtest.Golden(t, "scaled-int32", node)
	encodingtest.Check(t, scaled.Codec, vals)
}

// TestCorrupt hand-builds nodes that break each rule of the format, and
// nodes whose multiples leave the type, which must read the same way on
// every path.
func TestCorrupt(t *testing.T) {
	u64 := func(v ...uint64) []byte { return encodingtest.Child(t, v, encodingtest.T(encoding.KindTrivial)) }
	packed := func(v ...uint64) []byte { return encodingtest.Child(t, v, encodingtest.T(encoding.KindFixedBitWidth)) }
	head := func(base uint64, step uint64) []byte {
		b := make([]byte, 8, 18)
		for i := range 8 {
			b[i] = byte(base >> (8 * i))
		}
		for step >= 0x80 {
			b = append(b, byte(step)|0x80)
			step >>= 7
		}
		return append(b, byte(step))
	}
	node := func(typ encoding.Type, rows int, parts ...[]byte) []byte {
		return encodingtest.Node(kSc, typ, rows, parts...)
	}
	good := node(encoding.Int8, 2, head(uint64(1<<64-128), 3), u64(0, 85))
	if err := encodingtest.Exercise(good, all.Options()); err != nil {
		t.Fatalf("good node: %v", err)
	}
	// Multiples past the type wrap, as every read path agrees.
	for name, n := range map[string][]byte{
		"wrap, no bounds": node(encoding.Int8, 3, head(uint64(1<<64-128), 3), u64(0, 86, 200)),
		"wrap, bounds":    node(encoding.Uint16, 3, head(65000, 1000), packed(0, 1, 7)),
	} {
		if err := encodingtest.Exercise(n, all.Options()); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	cases := map[string][]byte{
		"base not int8":  node(encoding.Int8, 2, head(200, 3), u64(0, 1)),
		"base not int32": node(encoding.Int32, 2, head(1<<40, 3), u64(0, 1)),
		"step 1":         node(encoding.Int64, 2, head(0, 1), u64(0, 1)),
		"step 0":         node(encoding.Int64, 2, head(0, 0), u64(0, 1)),
		"rows":           node(encoding.Int64, 2, head(0, 5), u64(1)),
		"trailing":       append(node(encoding.Int64, 2, head(0, 5), u64(0, 1)), 1),
		"no multiples":   node(encoding.Int64, 2, head(0, 5)),
		"multiples type": node(encoding.Int64, 2, head(0, 5), encodingtest.Child(t, []int64{0, 1}, encodingtest.T(encoding.KindTrivial))),
		"short base":     node(encoding.Int64, 2, []byte{1, 2, 3}),
	}
	for name, n := range cases {
		encodingtest.WantCorrupt(t, name, n)
	}
	if _, err := encoding.Open(node(encoding.Float64, 2, head(0, 5), u64(0, 1)), all.Options()); !errors.Is(err, encoding.ErrUnsupported) && !errors.Is(err, encoding.ErrCorrupt) {
		t.Errorf("float node: %v", err)
	}
}
