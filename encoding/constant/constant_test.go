package constant_test

import (
	"errors"
	"math"
	"testing"

	"strata/encoding"
	"strata/encoding/all"
	"strata/encoding/encodingtest"
)

func policy() *encoding.Policy {
	p := all.Policy()
	p.Zstd = false
	p.Force = &encoding.Tree{Kind: encoding.KindConstant}
	return p
}

// TestNotConstant checks every other shape still round-trips (selection
// falls back) and that -0.0/0.0 are not merged.
func TestNotConstant(t *testing.T) {
	p, opts := policy(), all.Options()
	for _, shape := range encodingtest.Shapes {
		vals := encodingtest.Gen[float64](shape, 1025, 2)
		encodingtest.RoundTrip(t, p, opts, vals)
		b := encodingtest.GenBytes(shape, 1025, 2)
		encodingtest.RoundTrip(t, p, opts, b)
	}
	node := encodingtest.RoundTrip(t, p, opts, []float64{0, math.Copysign(0, -1)})
	if encoding.Kind(node[0]) == encoding.KindConstant {
		t.Fatal("0.0 and -0.0 encoded as one constant")
	}
}

func bytesOf(v string, n int) encoding.Bytes {
	var b encoding.Bytes
	for i := 0; i < n; i++ {
		b.Append([]byte(v))
	}
	return b
}

func goldenInputs() map[string]any {
	return map[string]any{
		"bool":    []bool{true, true, true},
		"int16":   []int16{-2, -2},
		"uint64":  []uint64{1 << 63, 1 << 63},
		"float32": []float32{float32(math.Copysign(0, -1))},
		"float64": []float64{math.NaN(), math.NaN()},
		"binary":  bytesOf("strata", 5),
	}
}

func TestGolden(t *testing.T) {
	for name, vals := range goldenInputs() {
		node, _, err := policy().Encode(nil, vals)
		if err != nil {
			t.Fatal(err)
		}
		encodingtest.Golden(t, "constant-"+name, node)
		if err := encodingtest.Exercise(node, all.Options()); err != nil {
			t.Fatalf("%s: decode: %v", name, err)
		}
	}
}

func TestHostile(t *testing.T) {
	opts := all.Options()
	cases := map[string][]byte{
		"int64 short":     append(encoding.AppendHeader(nil, encoding.KindConstant, encoding.Int64, 5), 1, 2, 3),
		"int8 long":       append(encoding.AppendHeader(nil, encoding.KindConstant, encoding.Int8, 5), 1, 2),
		"bool 2":          append(encoding.AppendHeader(nil, encoding.KindConstant, encoding.Bool, 5), 2),
		"binary short":    append(encoding.AppendHeader(nil, encoding.KindConstant, encoding.Binary, 5), 3, 'a'),
		"binary long":     append(encoding.AppendHeader(nil, encoding.KindConstant, encoding.Binary, 5), 0, 'a'),
		"binary no len":   encoding.AppendHeader(nil, encoding.KindConstant, encoding.Binary, 5),
		"binary huge len": append(encoding.AppendHeader(nil, encoding.KindConstant, encoding.Binary, 5), 0xff, 0xff, 0xff, 0xff, 0x0f),
	}
	for name, node := range cases {
		if _, err := encoding.Open(node, opts); !errors.Is(err, encoding.ErrCorrupt) {
			t.Errorf("%s: got %v, want ErrCorrupt", name, err)
		}
	}
	// 2^28 copies of a 100-byte value exceed the byte limit: ErrLimit, no allocation
	node := encoding.AppendHeader(nil, encoding.KindConstant, encoding.Binary, 1<<28)
	node = append(node, 100)
	node = append(node, make([]byte, 100)...)
	r, err := encoding.OpenBinary(node, 0, opts)
	if err != nil {
		t.Fatal(err)
	}
	var b encoding.Bytes
	if err := r.ReadBinary(&b, 1<<28); !errors.Is(err, encoding.ErrLimit) {
		t.Fatalf("huge read: got %v, want ErrLimit", err)
	}
}

// A chunk of a long constant value decodes into a buffer that already
// holds earlier chunks of its stream: the limit applies to the bytes the
// buffer will hold, not to its bytes times the value's length (which
// refused 52 values of 2726 bytes after 880 KB of earlier chunks; found by
// the differential test, difftest regression 1000847).
func TestBinaryAppendAfterEarlierChunks(t *testing.T) {
	p, opts := policy(), all.Options()
	v := string(make([]byte, 2726))
	node := encodingtest.RoundTrip(t, p, opts, bytesOf(v, 52))
	d, err := encoding.Open(node, opts)
	if err != nil {
		t.Fatal(err)
	}
	dst := bytesOf("earlier chunk value ", 44000) // 880 KB
	before := dst.Len()
	if err := d.(encoding.BinaryReader).ReadBinary(&dst, 52); err != nil {
		t.Fatal(err)
	}
	if dst.Len() != before+52 || string(dst.Value(before+51)) != v || string(dst.Value(before-1)) != "earlier chunk value " {
		t.Fatalf("appended %d values", dst.Len()-before)
	}
	// The limit still holds for the total.
	small := *opts
	small.MaxBytes = len(dst.Data) + 2726*10
	d, _ = encoding.Open(node, &small)
	if err := d.(encoding.BinaryReader).ReadBinary(&dst, 52); !errors.Is(err, encoding.ErrLimit) {
		t.Fatalf("over the limit: %v", err)
	}
}
