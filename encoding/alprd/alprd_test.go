package alprd_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"strata/encoding"
	"strata/encoding/all"
	"strata/encoding/alprd"
	"strata/encoding/encodingtest"
)

// forcedPolicy returns the default policy with ALP-RD forced at the root.
func forcedPolicy(r *encoding.Registry) *encoding.Policy {
	p := encoding.DefaultPolicy(r)
	p.Force = &encoding.Tree{Kind: encoding.KindALPRD}
	p.Zstd = false
	return p
}

func TestRoundTrip(t *testing.T) {
	encodingtest.FloatRoundTrips(t, forcedPolicy(all.Registry()), all.Options(), encoding.KindALPRD, encodingtest.Lengths)
}

func TestNullable(t *testing.T) {
	encodingtest.FloatNullable(t, forcedPolicy(all.Registry()), all.Options(), encoding.KindALPRD)
}

// TestFullPrecision checks ALP-RD's point: full-precision doubles of one
// magnitude take clearly less than their 64 bits.
func TestFullPrecision(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	vals := make([]float64, 8192)
	for i := range vals {
		vals[i] = 1000 + r.Float64()*50
	}
	node := encodingtest.RoundTrip(t, forcedPolicy(all.Registry()), all.Options(), vals)
	bits := float64(len(node)) * 8 / float64(len(vals))
	t.Logf("%.2f bits/value", bits)
	if bits > 56 {
		t.Fatalf("%.2f bits per value", bits)
	}
}

// TestSpecial checks NaN payloads, ±0 and ±Inf among ordinary values come
// back bit-exactly (they are usually exceptions of the dictionary).
func TestSpecial(t *testing.T) {
	vals := []float64{1.5, math.Copysign(0, -1), math.NaN(), math.Inf(1), math.Inf(-1), 0,
		math.Float64frombits(0x7ff8000000000123), 1e300, 0.1 + 0.2, 2.25, 1.75, 1.125}
	node := encodingtest.RoundTrip(t, forcedPolicy(all.Registry()), all.Options(), vals)
	d, err := encoding.OpenTyped[float64](node, 0, all.Options())
	if err != nil {
		t.Fatal(err)
	}
	if _, _, ok := d.(encoding.Bounder[float64]).Bounds(); ok {
		t.Fatalf("Bounds known despite a NaN")
	}
}

func TestGolden(t *testing.T) {
	p := forcedPolicy(all.Registry())
	enc := func(vals any) []byte {
		node, _, err := p.Encode(nil, vals)
		if err != nil {
			t.Fatal(err)
		}
		return node
	}
	encodingtest.Golden(t, "float64_walk_1500", enc(encodingtest.GenFloat[float64](encodingtest.FloatWalk, 1500, 1)))
	encodingtest.Golden(t, "float64_special_40", enc(encodingtest.GenFloat[float64](encodingtest.FloatSpecial, 40, 1)))
	encodingtest.Golden(t, "float32_random_1100", enc(encodingtest.GenFloat[float32](encodingtest.FloatRandom, 1100, 1)))
	encodingtest.Golden(t, "float64_mixed_2100", enc(encodingtest.GenFloat[float64](encodingtest.FloatMixedScale, 2100, 1)))
}

// TestGoldenDecode decodes the golden nodes and compares them value by
// value with the data they were written from, so a reader change that
// misreads old nodes fails even when the writer still agrees with itself.
func TestGoldenDecode(t *testing.T) {
	check := func(name string, want any) { encodingtest.CheckGolden(t, name, want) }
	check("float64_walk_1500", encodingtest.GenFloat[float64](encodingtest.FloatWalk, 1500, 1))
	check("float64_special_40", encodingtest.GenFloat[float64](encodingtest.FloatSpecial, 40, 1))
	check("float32_random_1100", encodingtest.GenFloat[float32](encodingtest.FloatRandom, 1100, 1))
	check("float64_mixed_2100", encodingtest.GenFloat[float64](encodingtest.FloatMixedScale, 2100, 1))
}

// TestCorrupt feeds truncated and bit-flipped nodes: every one must decode
// or fail with a wrapped sentinel error, never panic.
func TestCorrupt(t *testing.T) {
	encodingtest.FloatCorrupt(t, forcedPolicy(all.Registry()), all.Options())
}

func FuzzDecode(f *testing.F) {
	encodingtest.AddFloatSeeds(f, forcedPolicy(all.Registry()))
	// The suite adds its own seeds and checks every read path agrees.
	encodingtest.FuzzDecode(f, alprd.Codec)
}

// TestSuite runs the shared encoding suite: every shape, length, float type
// and null pattern through every read path, and the codec's declarations.
func TestSuite(t *testing.T) { encodingtest.Run(t, alprd.Codec) }

// FuzzRoundTrip is the shared round-trip fuzz target.
func FuzzRoundTrip(f *testing.F) { encodingtest.FuzzRoundTrip(f, alprd.Codec) }

// FuzzFloatBits encodes arbitrary float64 bit patterns (and the same
// values as float32) with ALP-RD forced and checks every read path.
func FuzzFloatBits(f *testing.F) {
	encodingtest.FuzzFloatBits(f, forcedPolicy(all.Registry()), all.Options())
}
