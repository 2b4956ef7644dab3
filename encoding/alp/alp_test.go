package alp_test

import (
	"math"
	"testing"

	"strata/encoding"
	"strata/encoding/all"
	"strata/encoding/alp"
	"strata/encoding/encodingtest"
)

// forcedPolicy returns the default policy with ALP forced at the root.
func forcedPolicy(r *encoding.Registry) *encoding.Policy {
	p := encoding.DefaultPolicy(r)
	p.Force = &encoding.Tree{Kind: encoding.KindALP}
	p.Zstd = false
	return p
}

func TestRoundTrip(t *testing.T) {
	encodingtest.FloatRoundTrips(t, forcedPolicy(all.Registry()), all.Options(), encoding.KindALP, encodingtest.Lengths)
}

// TestSmallVectors crosses many vector boundaries, with a last vector of
// one value, so Read, Skip, Gather and Filter spans start mid-vector.
func TestSmallVectors(t *testing.T) {
	for _, vs := range []int{1, 7, 64} {
		r := encodingtest.Registry(alp.NewCodec(vs))
		encodingtest.FloatRoundTrips(t, forcedPolicy(r), &encoding.Options{Registry: r}, encoding.KindALP, []int{1, 8, 65, 1000})
	}
}

func TestNullable(t *testing.T) {
	encodingtest.FloatNullable(t, forcedPolicy(all.Registry()), all.Options(), encoding.KindALP)
}

// TestDecimalsHaveNoExceptions checks the point of ALP: decimals printed
// with up to 15 significant digits (and float32s printed with 6 decimals,
// through narrow pairs) encode without exceptions, into a few bits each.
func TestDecimalsHaveNoExceptions(t *testing.T) {
	p := forcedPolicy(all.Registry())
	for _, shape := range []encodingtest.FloatShape{encodingtest.FloatPrices, encodingtest.FloatCoords,
		encodingtest.FloatSensor, encodingtest.FloatSorted, encodingtest.FloatIntegers, encodingtest.FloatPrinted32} {
		vals := encodingtest.GenFloat[float64](shape, 8192, 5)
		node, tree, err := p.Encode(nil, vals)
		if err != nil {
			t.Fatal(err)
		}
		if len(tree.Children) != 1 {
			t.Errorf("%s: tree %v has exception children", shape, tree)
		}
		bits := float64(len(node)) * 8 / float64(len(vals))
		t.Logf("%s: %.2f bits/value, tree %v", shape, bits, tree)
		if bits > 32 || shape == encodingtest.FloatPrinted32 && bits > 20 {
			t.Errorf("%s: %.2f bits per value", shape, bits)
		}
	}
}

// TestSpecial checks that the values ALP cannot express are exceptions and
// come back bit-exactly, and that Bounds are unknown with a NaN.
func TestSpecial(t *testing.T) {
	vals := []float64{1.5, math.Copysign(0, -1), math.NaN(), math.Inf(1), math.Inf(-1), 0,
		math.Float64frombits(0x7ff8000000000123), 1e300, 0.1 + 0.2, 2.25}
	node := encodingtest.RoundTrip(t, forcedPolicy(all.Registry()), all.Options(), vals)
	d, err := encoding.OpenTyped[float64](node, 0, all.Options())
	if err != nil {
		t.Fatal(err)
	}
	if _, _, ok := d.(encoding.Bounder[float64]).Bounds(); ok {
		t.Fatalf("Bounds known despite a NaN")
	}
	tree, err := encoding.Capture(node, all.Options())
	if err != nil {
		t.Fatal(err)
	}
	if len(tree.Children) != 3 {
		t.Fatalf("tree %v: want digits, positions and exceptions", tree)
	}
	vals = vals[:2]
	vals[1] = -7.25
	node = encodingtest.RoundTrip(t, forcedPolicy(all.Registry()), all.Options(), vals)
	d, _ = encoding.OpenTyped[float64](node, 0, all.Options())
	if lo, hi, ok := d.(encoding.Bounder[float64]).Bounds(); !ok || lo != -7.25 || hi != 1.5 {
		t.Fatalf("Bounds = %v %v %v", lo, hi, ok)
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
	encodingtest.Golden(t, "float64_prices_1500", enc(encodingtest.GenFloat[float64](encodingtest.FloatPrices, 1500, 1)))
	encodingtest.Golden(t, "float64_special_40", enc(encodingtest.GenFloat[float64](encodingtest.FloatSpecial, 40, 1)))
	encodingtest.Golden(t, "float32_sensor_1100", enc(encodingtest.GenFloat[float32](encodingtest.FloatSensor, 1100, 1)))
	encodingtest.Golden(t, "float64_mixed_2100", enc(encodingtest.GenFloat[float64](encodingtest.FloatMixedScale, 2100, 1)))
	encodingtest.Golden(t, "float64_printed32_1030", enc(encodingtest.GenFloat[float64](encodingtest.FloatPrinted32, 1030, 1)))
}

// TestGoldenDecode decodes the golden nodes and compares them value by
// value with the data they were written from, so a reader change that
// misreads old nodes fails even when the writer still agrees with itself.
func TestGoldenDecode(t *testing.T) {
	check := func(name string, want any) { encodingtest.CheckGolden(t, name, want) }
	check("float64_prices_1500", encodingtest.GenFloat[float64](encodingtest.FloatPrices, 1500, 1))
	check("float64_special_40", encodingtest.GenFloat[float64](encodingtest.FloatSpecial, 40, 1))
	check("float32_sensor_1100", encodingtest.GenFloat[float32](encodingtest.FloatSensor, 1100, 1))
	check("float64_mixed_2100", encodingtest.GenFloat[float64](encodingtest.FloatMixedScale, 2100, 1))
	// written when Chimp's read factor was 1.3 (its exceptions child differs)
	check("float64_mixed_2100-chimp-rf13", encodingtest.GenFloat[float64](encodingtest.FloatMixedScale, 2100, 1))
	check("float64_printed32_1030", encodingtest.GenFloat[float64](encodingtest.FloatPrinted32, 1030, 1))
	// written when selection weighed size by fixed read factors (children
	// differ from selection by measured decode cost)
	check("float64_special_40-read-factors", encodingtest.GenFloat[float64](encodingtest.FloatSpecial, 40, 1))
	check("float32_sensor_1100-read-factors", encodingtest.GenFloat[float32](encodingtest.FloatSensor, 1100, 1))
	// written before balanced selection bounded what it trades for speed
	// (a child differs)
	check("float64_special_40-before-size-bound", encodingtest.GenFloat[float64](encodingtest.FloatSpecial, 40, 1))
	// written before LagDelta (its digits are Delta's children)
	check("float32_sensor_1100-before-lagdelta", encodingtest.GenFloat[float32](encodingtest.FloatSensor, 1100, 1))
}

// TestCorrupt feeds truncated and bit-flipped nodes: every one must decode
// or fail with a wrapped sentinel error, never panic.
func TestCorrupt(t *testing.T) {
	encodingtest.FloatCorrupt(t, forcedPolicy(all.Registry()), all.Options())
}

func FuzzDecode(f *testing.F) {
	encodingtest.AddFloatSeeds(f, forcedPolicy(all.Registry()))
	// The suite adds its own seeds and checks every read path agrees.
	encodingtest.FuzzDecode(f, alp.Codec)
}

// TestSuite runs the shared encoding suite: every shape, length, float type
// and null pattern through every read path, and the codec's declarations.
func TestSuite(t *testing.T) { encodingtest.Run(t, alp.Codec) }

// FuzzRoundTrip is the shared round-trip fuzz target.
func FuzzRoundTrip(f *testing.F) { encodingtest.FuzzRoundTrip(f, alp.Codec) }

// FuzzFloatBits encodes arbitrary float64 bit patterns (and the same
// values as float32) with ALP forced and checks every read path.
func FuzzFloatBits(f *testing.F) {
	encodingtest.FuzzFloatBits(f, forcedPolicy(all.Registry()), all.Options())
}

// TestPeriodicDigits checks ALP over digits that repeat with a period
// (LagDelta whose differences are all zero, encoding.Periodic), where a
// read converts one period and copies it: with vectors of several sizes,
// with an exception at one phase of every
// period, through reads and skips of several sizes, bit for bit.
func TestPeriodicDigits(t *testing.T) {
	const period = 64
	pat := make([]float64, period)
	for j := range pat {
		pat[j] = float64(j*7%50) / 4
	}
	pat[5] = math.Pi // an exception in every period
	vals := make([]float64, period*80)
	for i := range vals {
		vals[i] = pat[i%period]
	}
	tree := &encoding.Tree{Kind: encoding.KindALP, Children: []*encoding.Tree{
		{Kind: encoding.KindLagDelta, Children: []*encoding.Tree{{Kind: encoding.KindTrivial}, {Kind: encoding.KindConstant}}}}}
	// vector sizes that divide the period or that it divides, so that
	// the slots of exceptions take the same digit in every period
	for _, vs := range []int{16, 32, alp.DefaultVectorSize} {
		r := encodingtest.Registry(alp.NewCodec(vs))
		opts := &encoding.Options{Registry: r}
		p := encoding.DefaultPolicy(r)
		p.Zstd = false
		p.Force = tree
		node, got, err := p.Encode(nil, vals)
		if err != nil {
			t.Fatal(err)
		}
		d, err := encoding.Open(node, opts)
		if err != nil {
			t.Fatal(err)
		}
		digits, err := encoding.OpenAt(d.(encoding.Walker).Children()[0].Node, 1, opts)
		if err != nil {
			t.Fatal(err)
		}
		if pr, ok := digits.(encoding.Periodic); !ok || pr.Period() != period {
			t.Fatalf("vector size %d: digits %v are not periodic with period %d", vs, got, period)
		}
		for _, rs := range [][2]int{{len(vals), 0}, {1, 0}, {63, 1}, {64, 0}, {65, 64}, {100, 37}, {5, 300}, {1000, 5}, {4096, 1}} {
			rd, err := encoding.OpenTyped[float64](node, 0, opts)
			if err != nil {
				t.Fatal(err)
			}
			buf := make([]float64, rs[0])
			for pos := 0; pos < len(vals); {
				m := min(rs[0], len(vals)-pos)
				if err := rd.Read(buf[:m]); err != nil {
					t.Fatal(err)
				}
				for i, v := range buf[:m] {
					if math.Float64bits(v) != math.Float64bits(vals[pos+i]) {
						t.Fatalf("vector size %d, read %d/skip %d: row %d = %v, want %v", vs, rs[0], rs[1], pos+i, v, vals[pos+i])
					}
				}
				pos += m
				sk := min(rs[1], len(vals)-pos)
				if err := rd.Skip(sk); err != nil {
					t.Fatal(err)
				}
				pos += sk
			}
		}
	}
}
