package chimp_test

import (
	"math/rand/v2"
	"testing"

	"strata/encoding"
	"strata/encoding/all"
	"strata/encoding/chimp"
	"strata/encoding/encodingtest"
)

// forcedPolicy returns the default policy with Chimp forced at the root.
func forcedPolicy(r *encoding.Registry) *encoding.Policy {
	p := encoding.DefaultPolicy(r)
	p.Force = &encoding.Tree{Kind: encoding.KindChimp}
	p.Zstd = false
	return p
}

func TestRoundTrip(t *testing.T) {
	encodingtest.FloatRoundTrips(t, forcedPolicy(all.Registry()), all.Options(), encoding.KindChimp, encodingtest.Lengths)
}

// TestSmallBlocks crosses many block boundaries, with a last block of one
// value, and blocks shorter and longer than the reference window.
func TestSmallBlocks(t *testing.T) {
	for _, bs := range []int{1, 7, 200} {
		r := encodingtest.Registry(chimp.NewCodec(bs))
		encodingtest.FloatRoundTrips(t, forcedPolicy(r), &encoding.Options{Registry: r}, encoding.KindChimp, []int{1, 8, 401, 1000})
	}
}

func TestNullable(t *testing.T) {
	encodingtest.FloatNullable(t, forcedPolicy(all.Registry()), all.Options(), encoding.KindChimp)
}

// TestRandomWalk checks Chimp's point: on a full-precision random walk it
// is smaller than ALP (which falls back to ALP-RD there), and repeats of
// recent values cost a few bits.
func TestRandomWalk(t *testing.T) {
	vals := encodingtest.GenFloat[float64](encodingtest.FloatWalk, 8192, 3)
	node := encodingtest.RoundTrip(t, forcedPolicy(all.Registry()), all.Options(), vals)
	p := all.Policy()
	p.Allow = map[encoding.Kind]bool{}
	for _, c := range all.Registry().Codecs() {
		p.Allow[c.Kind] = c.Kind != encoding.KindChimp
	}
	other, tree, err := p.Encode(nil, vals)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("chimp %.2f bits/value, best without chimp (%v) %.2f", float64(len(node))*8/8192, tree, float64(len(other))*8/8192)
	if len(node) >= len(other) {
		t.Fatalf("chimp %d bytes, %v %d bytes", len(node), tree, len(other))
	}
	r := rand.New(rand.NewPCG(1, 1))
	alpha := make([]float64, 30)
	for i := range alpha {
		alpha[i] = 20 + r.NormFloat64()
	}
	rep := make([]float64, 8192)
	for i := range rep {
		rep[i] = alpha[r.IntN(len(alpha))]
	}
	node = encodingtest.RoundTrip(t, forcedPolicy(all.Registry()), all.Options(), rep)
	if bits := float64(len(node)) * 8 / 8192; bits > 11 {
		t.Fatalf("30 distinct values repeating: %.2f bits/value", bits)
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
	encodingtest.Golden(t, "float32_sensor_1100", enc(encodingtest.GenFloat[float32](encodingtest.FloatSensor, 1100, 1)))
	encodingtest.Golden(t, "float64_mixed_2100", enc(encodingtest.GenFloat[float64](encodingtest.FloatMixedScale, 2100, 1)))
}

// TestGoldenDecode decodes the golden nodes and compares them value by
// value with the data they were written from, so a reader change that
// misreads old nodes fails even when the writer still agrees with itself.
func TestGoldenDecode(t *testing.T) {
	check := func(name string, want any) { encodingtest.CheckGolden(t, name, want) }
	check("float64_walk_1500", encodingtest.GenFloat[float64](encodingtest.FloatWalk, 1500, 1))
	check("float64_special_40", encodingtest.GenFloat[float64](encodingtest.FloatSpecial, 40, 1))
	check("float32_sensor_1100", encodingtest.GenFloat[float32](encodingtest.FloatSensor, 1100, 1))
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
	encodingtest.FuzzDecode(f, chimp.Codec)
}

// TestSuite runs the shared encoding suite: every shape, length, float type
// and null pattern through every read path, and the codec's declarations.
func TestSuite(t *testing.T) { encodingtest.Run(t, chimp.Codec) }

// FuzzRoundTrip is the shared round-trip fuzz target.
func FuzzRoundTrip(f *testing.F) { encodingtest.FuzzRoundTrip(f, chimp.Codec) }

// FuzzFloatBits encodes arbitrary float64 bit patterns (and the same
// values as float32) with Chimp forced and checks every read path.
func FuzzFloatBits(f *testing.F) {
	encodingtest.FuzzFloatBits(f, forcedPolicy(all.Registry()), all.Options())
}
