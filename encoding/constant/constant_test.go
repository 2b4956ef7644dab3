package constant_test

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"strata/encoding"
	"strata/encoding/all"
	"strata/encoding/constant"
	"strata/encoding/encodingtest"
)

func policy() *encoding.Policy {
	p := all.Policy()
	p.Zstd = false
	p.Force = &encoding.Tree{Kind: encoding.KindConstant}
	return p
}

func checkKind(t testing.TB, node []byte, n int) {
	t.Helper()
	want := n > 0
	if got := encoding.Kind(node[0]) == encoding.KindConstant; got != want {
		t.Fatalf("%d values encoded as %v", n, encoding.Kind(node[0]))
	}
}

func checkEstimate(t testing.TB, vals any, node []byte) {
	t.Helper()
	st := encoding.ComputeStats(vals)
	if !constant.Codec.Encoder.Fit(st) {
		return
	}
	size, ok := constant.Codec.Encoder.Estimate(st)
	h, err := encoding.ParseHeader(node, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !ok || size != len(h.Body) {
		t.Fatalf("Estimate = %d, %v; body is %d bytes", size, ok, len(h.Body))
	}
}

func roundTrips[T encoding.Fixed](extra ...T) func(t *testing.T) {
	return func(t *testing.T) {
		p, opts := policy(), all.Options()
		for _, n := range encodingtest.Lengths {
			vals := encodingtest.Gen[T](encodingtest.ShapeConstant, n, 1)
			sets := [][]T{vals}
			for _, x := range extra {
				s := make([]T, n)
				for i := range s {
					s[i] = x
				}
				sets = append(sets, s)
			}
			for k, vals := range sets {
				t.Run(fmt.Sprintf("%d/%d", n, k), func(t *testing.T) {
					node := encodingtest.RoundTrip(t, p, opts, vals)
					checkKind(t, node, n)
					checkEstimate(t, vals, node)
				})
			}
		}
	}
}

func TestRoundTrip(t *testing.T) {
	t.Run("bool", roundTrips(true, false))
	t.Run("int8", roundTrips[int8](math.MinInt8, math.MaxInt8))
	t.Run("int16", roundTrips[int16](-1))
	t.Run("int32", roundTrips[int32](math.MinInt32))
	t.Run("int64", roundTrips[int64](math.MinInt64, math.MaxInt64))
	t.Run("uint8", roundTrips[uint8](255))
	t.Run("uint16", roundTrips[uint16](0))
	t.Run("uint32", roundTrips[uint32](math.MaxUint32))
	t.Run("uint64", roundTrips[uint64](math.MaxUint64))
	t.Run("float32", roundTrips(float32(math.NaN()), float32(math.Copysign(0, -1)), float32(math.Inf(-1))))
	t.Run("float64", roundTrips(math.NaN(), math.Copysign(0, -1), math.Float64frombits(0x7ff8000000000123)))
}

// TestNotConstant checks every other shape still round-trips (selection
// falls back) and that -0.0/0.0 are not merged.
func TestNotConstant(t *testing.T) {
	p, opts := policy(), all.Options()
	for _, shape := range encodingtest.Shapes {
		vals := encodingtest.Gen[float64](shape, 1025, 2)
		encodingtest.RoundTrip(t, p, opts, vals)
		b := encodingtest.GenBytes(shape, 1025, 2)
		encodingtest.RoundTripBytes(t, p, opts, b)
	}
	node := encodingtest.RoundTrip(t, p, opts, []float64{0, math.Copysign(0, -1)})
	if encoding.Kind(node[0]) == encoding.KindConstant {
		t.Fatal("0.0 and -0.0 encoded as one constant")
	}
}

func TestRoundTripBinary(t *testing.T) {
	p, opts := policy(), all.Options()
	for _, n := range encodingtest.Lengths {
		for k, v := range []string{"", "x", "hello strata", string(make([]byte, 300))} {
			var b encoding.Bytes
			for i := 0; i < n; i++ {
				b.Append([]byte(v))
			}
			t.Run(fmt.Sprintf("%d/%d", n, k), func(t *testing.T) {
				node := encodingtest.RoundTripBytes(t, p, opts, b)
				checkKind(t, node, n)
				checkEstimate(t, b, node)
			})
		}
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
		if err := encodingtest.Decode(node, all.Options()); err != nil {
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

func FuzzDecode(f *testing.F) {
	for _, vals := range goldenInputs() {
		node, _, err := policy().Encode(nil, vals)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(node)
	}
	opts := all.Options()
	opts.MaxRows = 1 << 20
	opts.MaxBytes = 1 << 26
	f.Fuzz(func(t *testing.T, node []byte) {
		err := encodingtest.Decode(node, opts)
		if err != nil && !errors.Is(err, encoding.ErrCorrupt) && !errors.Is(err, encoding.ErrLimit) && !errors.Is(err, encoding.ErrUnsupported) {
			t.Fatalf("unwrapped error: %v", err)
		}
	})
}

// A chunk of a long constant value decodes into a buffer that already
// holds earlier chunks of its stream: the limit applies to the bytes the
// buffer will hold, not to its bytes times the value's length (which
// refused 52 values of 2726 bytes after 880 KB of earlier chunks; found by
// the differential test, difftest regression 1000847).
func TestBinaryAppendAfterEarlierChunks(t *testing.T) {
	p, opts := policy(), all.Options()
	v := string(make([]byte, 2726))
	node := encodingtest.RoundTripBytes(t, p, opts, bytesOf(v, 52))
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
