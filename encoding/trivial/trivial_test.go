package trivial_test

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"strata/encoding"
	"strata/encoding/all"
	"strata/encoding/encodingtest"
	"strata/encoding/trivial"
)

func policy() *encoding.Policy {
	p := all.Policy()
	p.Force = &encoding.Tree{Kind: encoding.KindTrivial}
	return p
}

func roundTrips[T encoding.Fixed](t *testing.T) {
	p, opts := policy(), all.Options()
	for _, shape := range encodingtest.Shapes {
		for _, n := range encodingtest.Lengths {
			if long(shape, n) {
				continue
			}
			t.Run(fmt.Sprintf("%s/%d", shape, n), func(t *testing.T) {
				vals := encodingtest.Gen[T](shape, n, 1)
				node := encodingtest.RoundTrip(t, p, opts, vals)
				if encoding.Kind(node[0]) != encoding.KindTrivial {
					t.Fatalf("encoded as %v", encoding.Kind(node[0]))
				}
			})
		}
	}
}

func TestRoundTrip(t *testing.T) {
	t.Run("bool", roundTrips[bool])
	t.Run("int8", roundTrips[int8])
	t.Run("int16", roundTrips[int16])
	t.Run("int32", roundTrips[int32])
	t.Run("int64", roundTrips[int64])
	t.Run("uint8", roundTrips[uint8])
	t.Run("uint16", roundTrips[uint16])
	t.Run("uint32", roundTrips[uint32])
	t.Run("uint64", roundTrips[uint64])
	t.Run("float32", roundTrips[float32])
	t.Run("float64", roundTrips[float64])
}

func TestRoundTripBinary(t *testing.T) {
	p, opts := policy(), all.Options()
	for _, shape := range encodingtest.Shapes {
		for _, n := range encodingtest.Lengths {
			if long(shape, n) {
				continue
			}
			t.Run(fmt.Sprintf("%s/%d", shape, n), func(t *testing.T) {
				vals := encodingtest.GenBytes(shape, n, 1)
				node := encodingtest.RoundTripBytes(t, p, opts, vals)
				if encoding.Kind(node[0]) != encoding.KindTrivial {
					t.Fatalf("encoded as %v", encoding.Kind(node[0]))
				}
			})
		}
	}
}

func bytesOf(vs ...string) encoding.Bytes {
	var b encoding.Bytes
	for _, v := range vs {
		b.Append([]byte(v))
	}
	return b
}

// goldenInputs are small fixed inputs per type class. Binary forces its
// lengths child to FixedBitWidth so the bytes do not depend on selection.
func goldenInputs() map[string]any {
	return map[string]any{
		"bool":    []bool{true, false, true, true, false, false, false, false, true, true},
		"int8":    []int8{-128, 0, 127, -1},
		"int32":   []int32{1, -2, 3, math.MaxInt32, math.MinInt32},
		"uint64":  []uint64{0, 1, math.MaxUint64, 1 << 40},
		"float32": []float32{1.5, float32(math.Copysign(0, -1)), float32(math.Inf(1)), math.Float32frombits(0x7fc00001)},
		"float64": []float64{math.Pi, math.Copysign(0, -1), math.NaN(), -1e300},
		"binary":  bytesOf("a", "", "bc", "strata"),
	}
}

func goldenPolicy() *encoding.Policy {
	p := all.Policy()
	p.Zstd = false
	p.Force = &encoding.Tree{Kind: encoding.KindTrivial, Children: []*encoding.Tree{{Kind: encoding.KindFixedBitWidth}}}
	return p
}

func TestGolden(t *testing.T) {
	for name, vals := range goldenInputs() {
		node, _, err := goldenPolicy().Encode(nil, vals)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		encodingtest.Golden(t, "trivial-"+name, node)
		if err := encodingtest.Decode(node, all.Options()); err != nil {
			t.Fatalf("%s: decode: %v", name, err)
		}
	}
}

func TestHostile(t *testing.T) {
	opts := all.Options()
	// int64 declaring 2^28 rows with a 10-byte body
	node := encoding.AppendHeader(nil, encoding.KindTrivial, encoding.Int64, 1<<28)
	node = append(node, make([]byte, 10)...)
	if _, err := encoding.Open(node, opts); !errors.Is(err, encoding.ErrCorrupt) {
		t.Fatalf("int64 rows=2^28: got %v, want ErrCorrupt", err)
	}
	// bool body one byte short
	node = encoding.AppendHeader(nil, encoding.KindTrivial, encoding.Bool, 17)
	node = append(node, 0, 0)
	if _, err := encoding.Open(node, opts); !errors.Is(err, encoding.ErrCorrupt) {
		t.Fatalf("bool short body: got %v, want ErrCorrupt", err)
	}
	// binary lengths summing past the data
	good, _, err := goldenPolicy().Encode(nil, bytesOf("abc", "de"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := encoding.Open(good[:len(good)-1], opts); !errors.Is(err, encoding.ErrCorrupt) {
		t.Fatalf("binary truncated data: got %v, want ErrCorrupt", err)
	}
	if _, err := encoding.Open(append(good, 'x'), opts); !errors.Is(err, encoding.ErrCorrupt) {
		t.Fatalf("binary extra data: got %v, want ErrCorrupt", err)
	}
	// read past the end
	node, _, _ = goldenPolicy().Encode(nil, []int32{1, 2, 3})
	r, err := encoding.OpenTyped[int32](node, 0, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Skip(4); err == nil {
		t.Fatal("Skip past end: no error")
	}
	if err := r.(encoding.Gatherer[int32]).Gather([]int32{3}, make([]int32, 1)); err == nil {
		t.Fatal("Gather past end: no error")
	}
}

func TestEstimateExact(t *testing.T) {
	for name, vals := range goldenInputs() {
		st := encoding.ComputeStats(vals)
		size, ok := trivial.Codec.Encoder.Estimate(st)
		if !ok {
			if st.Type != encoding.Binary {
				t.Fatalf("%s: no estimate", name)
			}
			continue
		}
		node, _, err := goldenPolicy().Encode(nil, vals)
		if err != nil {
			t.Fatal(err)
		}
		h, err := encoding.ParseHeader(node, 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(h.Body) != size {
			t.Fatalf("%s: estimate %d, body %d", name, size, len(h.Body))
		}
	}
}

func fuzzOptions() *encoding.Options {
	o := all.Options()
	o.MaxRows = 1 << 20
	o.MaxBytes = 1 << 26
	return o
}

func FuzzDecode(f *testing.F) {
	for _, vals := range goldenInputs() {
		node, _, err := goldenPolicy().Encode(nil, vals)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(node)
	}
	node, _, _ := policy().Encode(nil, encodingtest.GenBytes(encodingtest.ShapeRandom, 100, 3))
	f.Add(node)
	opts := fuzzOptions()
	f.Fuzz(func(t *testing.T, node []byte) {
		err := encodingtest.Decode(node, opts)
		if err != nil && !errors.Is(err, encoding.ErrCorrupt) && !errors.Is(err, encoding.ErrLimit) && !errors.Is(err, encoding.ErrUnsupported) {
			t.Fatalf("unwrapped error: %v", err)
		}
	})
}

// long reports whether a case is skipped to keep -race and -short runs fast:
// the longest length is then kept for the random shape only.
func long(shape encodingtest.Shape, n int) bool {
	return (raceEnabled || testing.Short()) && n > 2000 && shape != encodingtest.ShapeRandom
}
