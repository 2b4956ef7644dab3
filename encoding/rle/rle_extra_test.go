package rle_test

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"strata/encoding"
	"strata/encoding/all"
	"strata/encoding/encodingtest"
	"strata/encoding/rle"
)

const (
	kRLE    = encoding.KindRLE
	kTriv   = encoding.KindTrivial
	kFBW    = encoding.KindFixedBitWidth
	kConst  = encoding.KindConstant
	kSparse = encoding.KindSparseBool
)

func bytesOf(vs ...string) encoding.Bytes {
	var b encoding.Bytes
	for _, v := range vs {
		b.Append([]byte(v))
	}
	return b
}

func TestGolden(t *testing.T) {
	negZero := math.Copysign(0, -1)
	cases := []struct {
		name string
		vals any
		tree *encoding.Tree
	}{
		{"int32-fbw-trivial", []int32{5, 5, 5, -1, -1, 7, 7, 7, 7, 7}, encodingtest.T(kRLE, encodingtest.T(kFBW), encodingtest.T(kTriv))},
		{"uint64-trivial-trivial", []uint64{1, 1, math.MaxUint64, math.MaxUint64, 0}, encodingtest.T(kRLE, encodingtest.T(kTriv), encodingtest.T(kTriv))},
		{"float64-bits", []float64{0, 0, negZero, negZero, math.NaN(), math.NaN(), 1.5}, encodingtest.T(kRLE, encodingtest.T(kFBW), encodingtest.T(kTriv))},
		{"bool-fbw-trivial", []bool{true, true, true, false, false, true}, encodingtest.T(kRLE, encodingtest.T(kFBW), encodingtest.T(kTriv))},
		{"binary-fbw-trivial", bytesOf("aa", "aa", "aa", "", "", "b"), encodingtest.T(kRLE, encodingtest.T(kFBW), encodingtest.T(kTriv, encodingtest.T(kFBW)))},
	}
	opts := all.Options()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			node, tree, err := encodingtest.GoldenPolicy(rle.Codec, c.tree).Encode(nil, c.vals)
			if err != nil {
				t.Fatal(err)
			}
			if tree.String() != c.tree.String() {
				t.Fatalf("tree %v, want %v", tree, c.tree)
			}
			encodingtest.Golden(t, c.name, node)
			checkDecodes(t, node, c.vals, opts)
		})
	}
}

// checkDecodes decodes node and compares with vals value by value.
func checkDecodes(t *testing.T, node []byte, vals any, opts *encoding.Options) {
	t.Helper()
	encodingtest.CheckNode(t, node, opts, vals, nil)
}

func TestRuns(t *testing.T) {
	vals := []int64{4, 4, 4, 9, 9, -2, 4, 4}
	node, _, err := encodingtest.GoldenPolicy(rle.Codec, encodingtest.T(kRLE)).Encode(nil, vals)
	if err != nil {
		t.Fatal(err)
	}
	r, err := encoding.OpenTyped[int64](node, 0, all.Options())
	if err != nil {
		t.Fatal(err)
	}
	rr := r.(rle.RunReader[int64])
	lengths, values := rr.Runs()
	sum := int64(0)
	for i, l := range lengths {
		sum += int64(l) * values[i]
	}
	if sum != 4*3+9*2-2+4*2 {
		t.Fatalf("sum over runs = %d", sum)
	}
	if err := r.Skip(2); err != nil {
		t.Fatal(err)
	}
	l2, v2, err := rr.AppendRuns(nil, nil, 4)
	if err != nil {
		t.Fatal(err)
	}
	if !equal(l2, []uint32{1, 2, 1}) || !equal(v2, []int64{4, 9, -2}) || r.Pos() != 6 {
		t.Fatalf("AppendRuns = %v %v pos %d", l2, v2, r.Pos())
	}
	if _, _, err := rr.AppendRuns(nil, nil, 3); err == nil {
		t.Fatal("AppendRuns past the end succeeded")
	}
	b := bytesOf("x", "x", "yy")
	node, _, err = encodingtest.GoldenPolicy(rle.Codec, encodingtest.T(kRLE)).Encode(nil, b)
	if err != nil {
		t.Fatal(err)
	}
	br, err := encoding.OpenBinary(node, 0, all.Options())
	if err != nil {
		t.Fatal(err)
	}
	bl, bv := br.(rle.BinaryRunReader).BinaryRuns()
	if !equal(bl, []uint32{2, 1}) || !bytes.Equal(bv.Value(1), []byte("yy")) {
		t.Fatalf("BinaryRuns = %v %v", bl, bv)
	}
}

func equal[T comparable](a, b []T) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestHostile(t *testing.T) {
	lens := func(v ...uint32) []byte { return encodingtest.Child(t, v, encodingtest.T(kTriv)) }
	vals := func(v ...int32) []byte { return encodingtest.Child(t, v, encodingtest.T(kTriv)) }
	cases := map[string][]byte{
		"sum too small":    encodingtest.Node(kRLE, encoding.Int32, 5, lens(2, 2), vals(1, 2)),
		"sum too large":    encodingtest.Node(kRLE, encoding.Int32, 3, lens(2, 2), vals(1, 2)),
		"zero run":         encodingtest.Node(kRLE, encoding.Int32, 2, lens(2, 0), vals(1, 2)),
		"values mismatch":  encodingtest.Node(kRLE, encoding.Int32, 4, lens(2, 2), vals(1, 2, 3)),
		"more runs":        encodingtest.Node(kRLE, encoding.Int32, 1, lens(1, 1), vals(1, 2)),
		"no runs":          encodingtest.Node(kRLE, encoding.Int32, 4, lens(), vals()),
		"trailing":         encodingtest.Node(kRLE, encoding.Int32, 4, lens(2, 2), vals(1, 2), []byte{0}),
		"missing values":   encodingtest.Node(kRLE, encoding.Int32, 4, lens(2, 2)),
		"wrong value type": encodingtest.Node(kRLE, encoding.Int64, 4, lens(2, 2), vals(1, 2)),
		"huge child len":   encodingtest.Node(kRLE, encoding.Int32, 4, []byte{0xff, 0xff, 0xff, 0xff, 0x0f}),
		"huge const runs":  encodingtest.Node(kRLE, encoding.Int32, 4, encodingtest.Child(t, make([]uint32, 3000), encodingtest.T(kConst)), vals(1)),
	}
	for name, node := range cases {
		encodingtest.WantCorrupt(t, name, node)
	}
}

func BenchmarkRead(b *testing.B) {
	const n = 1 << 16
	vals := encodingtest.Gen[int64](encodingtest.ShapeSortedRepeats, n, 1)
	r := encodingtest.OpenForced(b, kRLE, vals)
	encodingtest.BenchRead(b, "rle", r, vals)
	encodingtest.BenchFilter(b, "filter", r, &encoding.Pred[int64]{Op: encoding.OpBetween, A: 100, B: 5000})
	b.Run("sum-runs", func(b *testing.B) {
		b.SetBytes(8 * n)
		rr := r.(rle.RunReader[int64])
		for b.Loop() {
			l, v := rr.Runs()
			s := int64(0)
			for i := range l {
				s += int64(l[i]) * v[i]
			}
			_ = s
		}
	})
}

// TestSelected checks that selection picks RLE for long runs of unrelated
// values where it is the smallest (optimizing for size without zstd, which
// finds the repeats too), and that the default takes another tree only if
// it is not much larger.
func TestSelected(t *testing.T) {
	vals := make([]uint64, 20000)
	x := uint64(0x9E3779B97F4A7C15)
	for i := range vals {
		if i%100 == 0 {
			x = x*6364136223846793005 + 1442695040888963407
		}
		vals[i] = x
	}
	sizes := map[encoding.Optimize]int{}
	for _, o := range []encoding.Optimize{encoding.OptimizeSize, encoding.OptimizeBalanced} {
		p := all.Policy()
		p.Optimize = o
		p.Zstd = o != encoding.OptimizeSize
		node, tree, err := p.Encode(nil, vals)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%v: %v, %d bytes", o, tree, len(node))
		sizes[o] = len(node)
		if o == encoding.OptimizeSize && tree.Kind != kRLE {
			t.Errorf("size: encoded as %v", tree)
		}
	}
	if sizes[encoding.OptimizeBalanced] > 2*sizes[encoding.OptimizeSize] {
		t.Errorf("balanced %d bytes, twice size's %d", sizes[encoding.OptimizeBalanced], sizes[encoding.OptimizeSize])
	}
}

// TestOutputLimit checks a small node standing for a huge binary output
// fails with ErrLimit instead of allocating it.
func TestOutputLimit(t *testing.T) {
	long := bytes.Repeat([]byte("x"), 4096)
	var vals encoding.Bytes
	vals.Append(long)
	node := encodingtest.Node(kRLE, encoding.Binary, 1<<20, encodingtest.Child(t, []uint32{1 << 20}, encodingtest.T(kTriv)), encodingtest.Child(t, vals, encodingtest.T(kTriv, encodingtest.T(kFBW))))
	opts := encodingtest.FuzzOptions(all.Registry())
	r, err := encoding.OpenBinary(node, 0, opts)
	if err != nil {
		t.Fatal(err)
	}
	var out encoding.Bytes
	if err := r.ReadBinary(&out, 1<<20); !errors.Is(err, encoding.ErrLimit) {
		t.Fatalf("ReadBinary of 4 GiB: %v", err)
	}
	if err := r.ReadBinary(&out, 10); err != nil || out.Len() != 10 {
		t.Fatalf("small read after limit: %v", err)
	}
}

// TestBinaryRunsInBatches reads runs of binary values (lengths 0 to 40,
// runs of 1 to 3,000 values) in batches of odd sizes into a buffer that
// already holds values, and checks every value.
func TestBinaryRunsInBatches(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var vals encoding.Bytes
	for vals.Len() < 20000 {
		v := make([]byte, r.IntN(41))
		for k := range v {
			v[k] = byte('a' + r.IntN(26))
		}
		run := 1 + r.IntN(8)
		if r.IntN(4) == 0 {
			run = 1 + r.IntN(3000)
		}
		for range run {
			vals.Append(v)
		}
	}
	node, _, err := encodingtest.GoldenPolicy(rle.Codec, encodingtest.T(kRLE)).Encode(nil, vals)
	if err != nil {
		t.Fatal(err)
	}
	d, err := encoding.OpenBinary(node, 0, all.Options())
	if err != nil {
		t.Fatal(err)
	}
	dst := bytesOf("earlier", "values")
	for pos := 0; pos < vals.Len(); {
		n := min(1+r.IntN(700), vals.Len()-pos)
		if err := d.ReadBinary(&dst, n); err != nil {
			t.Fatal(err)
		}
		pos += n
	}
	if dst.Len() != vals.Len()+2 || string(dst.Value(0)) != "earlier" || string(dst.Value(1)) != "values" {
		t.Fatalf("read %d values", dst.Len())
	}
	for i := 0; i < vals.Len(); i++ {
		if !bytes.Equal(dst.Value(i+2), vals.Value(i)) {
			t.Fatalf("value %d = %q, want %q", i, dst.Value(i+2), vals.Value(i))
		}
	}
}
