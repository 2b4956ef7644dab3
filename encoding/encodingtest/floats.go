package encodingtest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"strata/encoding"
	"strata/encoding/nullable"
)

// FloatShape names a shape of float data as real columns hold it.
type FloatShape string

// Float data shapes: decimals as they come out of text (prices, map
// coordinates, sensor readings), whole numbers, full-precision doubles,
// random walks, the special values, and vectors whose decimals differ.
const (
	FloatPrices     FloatShape = "prices"      // 2 decimals, a random walk of cents
	FloatCoords     FloatShape = "coordinates" // 6 decimals in [-180, 180]
	FloatSensor     FloatShape = "sensor"      // 1 decimal, a daily cycle plus noise
	FloatIntegers   FloatShape = "integers"    // whole numbers
	FloatRandom     FloatShape = "random"      // full-precision uniform doubles
	FloatWalk       FloatShape = "random-walk" // full-precision random walk
	FloatSpecial    FloatShape = "special"     // NaN, ±0, ±Inf, extremes among decimals
	FloatConstant   FloatShape = "constant"
	FloatSorted     FloatShape = "sorted"      // sorted 3-decimal values
	FloatMixedScale FloatShape = "mixed-scale" // 1 to 5 decimals, changing every 1000 rows
	FloatRepeats    FloatShape = "repeats"     // few distinct 2-decimal values
	FloatPrinted32  FloatShape = "printed32"   // float32 prices printed with 6 decimals (%f)
)

// FloatShapes lists every float shape.
var FloatShapes = []FloatShape{FloatPrices, FloatCoords, FloatSensor, FloatIntegers, FloatRandom,
	FloatWalk, FloatSpecial, FloatConstant, FloatSorted, FloatMixedScale, FloatRepeats, FloatPrinted32}

// dec returns the T nearest to m / 10^k, as parsing the decimal text would.
func dec[T float32 | float64](m int64, k int) T {
	var z T
	if _, ok := any(z).(float32); ok {
		// Go's float32 parse of the decimal: exact division in float64
		// is not always the nearest float32, so go through the text.
		return T(parse32(m, k))
	}
	return T(float64(m) / math.Pow10(k))
}

func parse32(m int64, k int) float32 {
	var f float32
	fmt.Sscan(fmt.Sprintf("%de-%d", m, k), &f)
	return f
}

// GenFloat returns n values of T in the given shape, deterministic for seed.
func GenFloat[T float32 | float64](shape FloatShape, n int, seed uint64) []T {
	r := rand.New(rand.NewPCG(seed, uint64(n)+11))
	out := make([]T, n)
	switch shape {
	case FloatPrices:
		c := int64(10000 + r.IntN(100000))
		for i := range out {
			c += int64(r.IntN(41) - 20)
			if c < 1 {
				c = 1
			}
			out[i] = dec[T](c, 2)
		}
	case FloatCoords:
		for i := range out {
			out[i] = dec[T](int64(r.IntN(360_000_001))-180_000_000, 6)
		}
	case FloatSensor:
		for i := range out {
			x := 150 + 80*math.Sin(float64(i)/24*2*math.Pi) + r.NormFloat64()*5
			out[i] = dec[T](int64(math.Round(x)), 1)
		}
	case FloatIntegers:
		for i := range out {
			out[i] = T(r.IntN(100000) - 5000)
		}
	case FloatRandom:
		for i := range out {
			out[i] = T(r.Float64()*2000 - 1000)
		}
	case FloatWalk:
		x := 100.0
		for i := range out {
			x += r.NormFloat64()
			out[i] = T(x)
		}
	case FloatSpecial:
		var z T
		tiny := math.SmallestNonzeroFloat64
		sp := []T{T(math.NaN()), T(math.Copysign(0, -1)), 0, T(math.Inf(1)), T(math.Inf(-1)), T(tiny)}
		if _, ok := any(z).(float32); ok {
			sp = append(sp, math.MaxFloat32, math.SmallestNonzeroFloat32, any(math.Float32frombits(0x7fc00001)).(T))
		} else {
			mx := math.MaxFloat64
			sp = append(sp, T(mx), any(math.Float64frombits(0x7ff8000000000123)).(T), T(mx/1e8), -T(1e-300))
		}
		for i := range out {
			if r.IntN(3) == 0 {
				out[i] = sp[r.IntN(len(sp))]
			} else {
				out[i] = dec[T](int64(r.IntN(20000)-10000), 2)
			}
		}
	case FloatConstant:
		c := dec[T](int64(r.IntN(100000)), 3)
		for i := range out {
			out[i] = c
		}
	case FloatSorted:
		c := int64(r.IntN(1000))
		for i := range out {
			c += int64(r.IntN(7))
			out[i] = dec[T](c, 3)
		}
	case FloatMixedScale:
		for i := range out {
			k := 1 + (i/1000)%5
			out[i] = dec[T](int64(r.IntN(1_000_000)), k)
		}
	case FloatPrinted32:
		c := int64(100000 + r.IntN(100000))
		for i := range out {
			c += int64(r.IntN(401) - 200)
			f := float32(float64(c) / 100)
			x, _ := strconv.ParseFloat(strconv.FormatFloat(float64(f), 'f', 6, 64), 64)
			out[i] = T(x)
		}
	case FloatRepeats:
		alpha := make([]T, 1+r.IntN(6))
		for i := range alpha {
			alpha[i] = dec[T](int64(r.IntN(10000)), 2)
		}
		for i := range out {
			out[i] = alpha[r.IntN(len(alpha))]
		}
	}
	return out
}

// FloatRoundTrips runs RoundTrip for every float shape and length, float32
// and float64, with p (whose Force names the encoding under test), and
// checks the root is of kind want whenever the values are not empty.
func FloatRoundTrips(t *testing.T, p *encoding.Policy, opts *encoding.Options, want encoding.Kind, lengths []int) {
	floatRoundTrips[float32](t, p, opts, want, lengths)
	floatRoundTrips[float64](t, p, opts, want, lengths)
}

func floatRoundTrips[T float32 | float64](t *testing.T, p *encoding.Policy, opts *encoding.Options, want encoding.Kind, lengths []int) {
	for _, shape := range FloatShapes {
		for _, n := range lengths {
			// Past 2000 values (the suite covers every length with its own
			// shapes) only the shapes that mix exceptions, vectors and
			// blocks of different kinds stay.
			if n > 2000 && shape != FloatSpecial && shape != FloatMixedScale && shape != FloatWalk && shape != FloatPrinted32 {
				continue
			}
			t.Run(fmt.Sprintf("%v/%s/%d", encoding.TypeFor[T](), shape, n), func(t *testing.T) {
				t.Parallel()
				vals := GenFloat[T](shape, n, 42)
				node := RoundTrip(t, p, opts, vals)
				if n > 0 && encoding.Kind(node[0]) != want {
					t.Fatalf("root kind %v, want %v", encoding.Kind(node[0]), want)
				}
				CheckFloatFilters(t, node, opts, vals)
			})
		}
	}
}

// CheckFloatFilters runs every operator with constants taken from the
// values, their neighbours (one ulp away), values absent from the node,
// ±0 and NaN, over the whole node, and checks each row against Pred.Match.
func CheckFloatFilters[T float32 | float64](t testing.TB, node []byte, opts *encoding.Options, want []T) {
	t.Helper()
	r, err := encoding.OpenTyped[T](node, 0, opts)
	if err != nil {
		t.Fatal(err)
	}
	f, ok := r.(encoding.Filterer[T])
	if !ok || len(want) == 0 {
		return
	}
	rng := rand.New(rand.NewPCG(uint64(len(want)), 3))
	up := func(x T) T { return T(math.Nextafter(float64(x), math.Inf(1))) }
	if _, ok := any(x0[T]()).(float32); ok {
		up = func(x T) T { return any(math.Nextafter32(any(x).(float32), float32(math.Inf(1)))).(T) }
	}
	consts := []T{T(math.NaN()), T(math.Copysign(0, -1)), 0, T(math.Inf(1)), T(math.Inf(-1)), maxFinite[T](), -maxFinite[T]()}
	for k := 0; k < 6; k++ {
		v := want[rng.IntN(len(want))]
		consts = append(consts, v, up(v), -v, v+T(0.005))
	}
	n := len(want)
	for i, a := range consts {
		b := consts[rng.IntN(len(consts))]
		if b < a && i%3 != 0 {
			// (one range in three is left reversed: BETWEEN of bounds
			// out of order matches nothing)
			a, b = b, a
		}
		for op := encoding.OpEq; op <= encoding.OpIn; op++ {
			p := &encoding.Pred[T]{Op: op, A: a, B: b}
			if op == encoding.OpIn {
				p.Set = []T{a, b, want[rng.IntN(n)]}
				slices.Sort(p.Set)
				p.Set = slices.Compact(p.Set)
			}
			start := rng.IntN(n)
			m := n - start
			sel := NewSparse(m, rng)
			in := slices.Clone(sel)
			r.Reset()
			if err := r.Skip(start); err != nil {
				t.Fatal(err)
			}
			if err := f.Filter(p, m, sel); err != nil {
				t.Fatalf("Filter %v %v %v: %v", op, a, b, err)
			}
			if r.Pos() != n {
				t.Fatalf("Pos after Filter = %d, want %d", r.Pos(), n)
			}
			for i := 0; i < m; i++ {
				if exp := in.Get(i) && p.Match(want[start+i]); sel.Get(i) != exp {
					t.Fatalf("Filter %v %v/%v row %d (%v): got %v want %v", op, a, b, start+i, want[start+i], sel.Get(i), exp)
				}
			}
		}
	}
	r.Reset()
}

func x0[T float32 | float64]() T { var z T; return z }

// maxFinite is the largest finite value of T.
func maxFinite[T float32 | float64]() T {
	m := math.MaxFloat64
	if _, ok := any(x0[T]()).(float32); ok {
		m = math.MaxFloat32
	}
	return T(m)
}

// NewSparse returns a selection of n rows, all set or (half of the time)
// about two thirds set.
func NewSparse(n int, rng *rand.Rand) encoding.Bitmap {
	sel := encoding.NewBitmap(n, true)
	if rng.IntN(2) == 0 {
		for i := 0; i < n; i++ {
			if rng.IntN(3) == 0 {
				sel.Clear(i)
			}
		}
	}
	return sel
}

// FloatNullable encodes every float shape with nulls through Nullable,
// with p choosing the values child (Force is replayed under Nullable), and
// checks ReadNullable, Gather and Filter value by value.
func FloatNullable(t *testing.T, p *encoding.Policy, opts *encoding.Options, want encoding.Kind) {
	floatNullable[float32](t, p, opts, want)
	floatNullable[float64](t, p, opts, want)
}

func floatNullable[T float32 | float64](t *testing.T, p *encoding.Policy, opts *encoding.Options, want encoding.Kind) {
	for _, shape := range FloatShapes {
		for _, n := range []int{1, 9, 1025, 5000} {
			t.Run(fmt.Sprintf("%v/%s/%d", encoding.TypeFor[T](), shape, n), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(uint64(n), 1))
				all := GenFloat[T](shape, n, 7)
				valid := make([]bool, n)
				var vals []T
				for i := range valid {
					valid[i] = rng.IntN(4) != 0
					if valid[i] {
						vals = append(vals, all[i])
					}
				}
				np := *p
				if p.Force != nil {
					np.Force = &encoding.Tree{Kind: encoding.KindNullable, Children: []*encoding.Tree{nil, p.Force}}
				}
				node, tree, err := nullable.Encode(&np, nil, vals, valid)
				if err != nil {
					t.Fatal(err)
				}
				if len(vals) > 0 && tree.Children[1].Kind != want {
					t.Fatalf("values child %v, want %v", tree.Children[1].Kind, want)
				}
				r, err := encoding.OpenTyped[T](node, 0, opts)
				if err != nil {
					t.Fatal(err)
				}
				got := make([]T, n)
				gv := make([]bool, n)
				if err := encoding.ReadNullable(r, got, gv); err != nil {
					t.Fatal(err)
				}
				for i := range valid {
					if gv[i] != valid[i] || (valid[i] && !Same(got[i], all[i])) {
						t.Fatalf("row %d = %v (valid %v), want %v (valid %v)", i, got[i], gv[i], all[i], valid[i])
					}
				}
				if g, ok := r.(encoding.Gatherer[T]); ok {
					var rows []int32
					for i := 0; i < n; i += 1 + rng.IntN(9) {
						if valid[i] {
							rows = append(rows, int32(i))
						}
					}
					gd := make([]T, len(rows))
					if err := g.Gather(rows, gd); err != nil {
						t.Fatal(err)
					}
					for i, row := range rows {
						if !Same(gd[i], all[row]) {
							t.Fatalf("Gather row %d = %v, want %v", row, gd[i], all[row])
						}
					}
				}
				if f, ok := r.(encoding.Filterer[T]); ok && len(vals) > 0 {
					a := vals[rng.IntN(len(vals))]
					for _, op := range []encoding.Op{encoding.OpEq, encoding.OpLe, encoding.OpGt, encoding.OpNe} {
						pr := &encoding.Pred[T]{Op: op, A: a}
						sel := encoding.NewBitmap(n, true)
						r.Reset()
						if err := f.Filter(pr, n, sel); err != nil {
							t.Fatal(err)
						}
						for i := 0; i < n; i++ {
							if exp := valid[i] && pr.Match(all[i]); sel.Get(i) != exp {
								t.Fatalf("Filter %v %v row %d: got %v want %v", op, a, i, sel.Get(i), exp)
							}
						}
					}
				}
			})
		}
	}
}

// IsSentinel reports whether err wraps one of the decode sentinels.
func IsSentinel(err error) bool { return err != nil && IsRefusal(err) }

// FloatsFromBytes turns fuzz input into float64 values: each 8 bytes are
// one value's bits, little-endian, and a short tail becomes a small
// decimal, so inputs mix arbitrary patterns with decimals ALP can encode.
func FloatsFromBytes(data []byte) []float64 {
	var out []float64
	for len(data) >= 8 {
		var u uint64
		for i := 7; i >= 0; i-- {
			u = u<<8 | uint64(data[i])
		}
		out = append(out, math.Float64frombits(u))
		data = data[8:]
	}
	for _, b := range data {
		out = append(out, float64(int(b)-100)/100)
	}
	return out
}

// ReadGolden returns the bytes of testdata/golden/<name>.bin.
func ReadGolden(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "golden", name+".bin"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// FloatCorrupt is the corruption test of a float encoding that p forces
// (p.Force names it, zstd off): it encodes float64 special values (NaN
// payloads, ±0, ±Inf, extremes among decimals: the exception paths) and
// float32 decimals whose scale changes every 1000 rows (vectors of
// different exponents) and feeds each node to Corrupt, opening it with
// opts. Every node cut short must be refused with an error wrapping a
// sentinel, every node with a bit flipped must decode or be refused so,
// and none may panic.
func FloatCorrupt(t *testing.T, p *encoding.Policy, opts *encoding.Options) {
	t.Helper()
	for _, vals := range []any{
		GenFloat[float64](FloatSpecial, 300, 3),
		GenFloat[float32](FloatMixedScale, 2100, 3),
	} {
		node, _, err := p.Encode(nil, vals)
		if err != nil {
			t.Fatal(err)
		}
		Corrupt(t, node, 200, func(b []byte) error { return Exercise(b, opts) })
	}
}

// AddFloatSeeds adds to the corpus of a float encoding's decode fuzz target
// the nodes p (whose Force names the encoding) writes for float64 special
// values, float64 decimals of mixed scales, float32 prices and float64
// full-precision doubles, each with zstd off and then on: well-formed
// nodes with exceptions, several vectors and compressed bodies, for the
// fuzzer to mutate. Call it before FuzzDecode, which adds the suite's own
// seeds. p itself is not changed.
func AddFloatSeeds(f *testing.F, p *encoding.Policy) {
	f.Helper()
	zp := *p
	for _, vals := range []any{
		GenFloat[float64](FloatSpecial, 100, 1),
		GenFloat[float64](FloatMixedScale, 2100, 1),
		GenFloat[float32](FloatPrices, 300, 1),
		GenFloat[float64](FloatRandom, 50, 1),
	} {
		for _, z := range []bool{false, true} {
			zp.Zstd = z
			node, _, err := zp.Encode(nil, vals)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(node)
		}
	}
}

// FuzzFloatBits is the bit-pattern fuzz target of a float encoding that p
// forces: the fuzzer's bytes become float64 values (FloatsFromBytes:
// arbitrary bit patterns, so NaN payloads, subnormals and ±Inf, mixed with
// small decimals), which are encoded with p and checked through every read
// path against the input, bit for bit (RoundTrip, opening with opts); then
// the same values converted to float32. It is seeded with a NaN and -0,
// and with 0.1 and 0.3.
func FuzzFloatBits(f *testing.F, p *encoding.Policy, opts *encoding.Options) {
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0xf8, 0x7f, 0, 0, 0, 0, 0, 0, 0, 0x80})
	f.Add([]byte("\x9a\x99\x99\x99\x99\x99\xb9\x3f\x33\x33\x33\x33\x33\x33\xd3\x3f"))
	f.Fuzz(func(t *testing.T, data []byte) {
		vals := FloatsFromBytes(data)
		RoundTrip(t, p, opts, vals)
		v32 := make([]float32, len(vals))
		for i, v := range vals {
			v32[i] = float32(v)
		}
		RoundTrip(t, p, opts, v32)
	})
}
