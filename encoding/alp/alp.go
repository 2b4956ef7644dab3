// Package alp implements ALP, Adaptive Lossless floating-Point compression
// (Afroozeh and Boncz, SIGMOD 2023), for float32 and float64.
//
// Most floats in real columns were decimals once (prices, coordinates,
// sensor readings printed with a few digits). ALP finds, per vector of
// values, an exponent e and a factor f such that
//
//	d = round(v × 10^e × 10^-f)    and    v == d × 10^f / 10^e
//
// holds bit for bit for most values; the integers d (the digits) then go
// through the integer cascade (frame of reference and bit-packing, Delta,
// RLE, Dictionary... whatever selection finds smallest) as one child node.
// Values for which the equation does not hold (NaN, ±Inf, -0, values with
// too many digits) are exceptions: their rows and raw values are stored in
// two more children and patched in after decoding. Every value therefore
// round-trips bit-exactly.
//
// The (e, f) pair is chosen by the paper's two-level sampling: a few
// vectors of the node are sampled to keep the (at most five) best pairs,
// and each vector then picks the best of those on a sample of its own.
//
// Decoding is a multiplication and a division by constants per value, and
// because d ↦ d × 10^f / 10^e is monotone, every comparison predicate turns into a
// range of digits per vector: Filter runs in integer space (pushed down to
// the digits child) and only exceptions are compared as floats.
//
// Body layout (see docs/FORMAT.md, "ALP"):
//
//	vs:uvarint | bounds | e,f: u8,u8 per vector | digits child | E:uvarint | [positions child | values child]
package alp

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sort"
	"strconv"
	"unsafe"

	"strata/encoding"
	"strata/encoding/internal/cascade"
	"strata/encoding/internal/floatx"
	"strata/internal/filterkern"
)

// DefaultVectorSize is the number of values per vector (one (e, f) pair each).
const DefaultVectorSize = 1024

// MaxVectorSize bounds the vector size a node may declare.
const MaxVectorSize = 1 << 16

// Sampling parameters of the paper: the first level samples up to
// sampleVectors vectors of sampleValues values each and keeps at most
// maxCombos (e, f) pairs; the second level samples sampleValues values of
// each vector.
const (
	sampleVectors = 8
	sampleValues  = 32
	maxCombos     = 5
)

// Codec registers ALP with the default vector size.
var Codec = NewCodec(DefaultVectorSize)

// NewCodec returns an ALP codec writing vectors of vs values (clamped to
// [1, MaxVectorSize]). Readers take the vector size from the node.
func NewCodec(vs int) *encoding.Codec {
	vs = max(1, min(vs, MaxVectorSize))
	return &encoding.Codec{
		Kind:    encoding.KindALP,
		Open:    open,
		Encoder: encoder{vs: vs},
		Types:   encoding.FloatTypes,
		Decode:  encoding.Cost{PerValue: 0.84, PerException: 6.43}, // strata calibrate (docs/benchmarks.md)
	}
}

// pow10[i] is 10^i (exact in float64 for i ≤ 22); negPow10[i] is the
// float64 nearest to 10^-i.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18}

var negPow10 = [...]float64{1e-0, 1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10,
	1e-11, 1e-12, 1e-13, 1e-14, 1e-15, 1e-16, 1e-17, 1e-18}

// magic is 2^52 + 2^51: adding and subtracting it rounds a float64 of
// magnitude below 2^51 to the nearest integer (ties to even).
const magic = 1<<52 + 1<<51

// params are the per-type constants: the largest exponent and the largest
// digit magnitude the encoder produces.
func maxExp[T floatx.Float]() int {
	if floatx.Size[T]() == 4 {
		return 10
	}
	return 18
}

func digitLimit[T floatx.Float]() float64 {
	if floatx.Size[T]() == 4 {
		return math.MaxInt32
	}
	return 1 << 51
}

// combo is a vector's (e, f) pair. When narrow is set (float64 nodes
// only) the digits encode float32(v), and a decoded float32 is printed
// back to k decimals: columns of float32 values written out with a fixed
// number of decimals (printf's %f) are decimals of up to 10 significant
// digits that float32 rounding scrambled, which ALP on the float64 values
// would store in 30 bits and more.
type combo struct {
	e, f   uint8
	narrow bool
	k      uint8
}

// narrowFlag marks a narrow combo in the e byte of a vector header.
const narrowFlag = 0x80

// maxNarrowDecimals bounds the decimals of a narrow combo the encoder tries.
const maxNarrowDecimals = 9

// encodeDigit returns round(v × 10^e × 10^-f) and whether it is within the
// digit limit. The explicit conversions keep each product rounded on its
// own (no fused multiply-add).
func encodeDigit(v float64, c combo, lim float64) (int64, bool) {
	x := float64(float64(v*pow10[c.e]) * negPow10[c.f])
	if !(x >= -lim && x <= lim) {
		return 0, false
	}
	return int64(float64(x+magic) - magic), true
}

// decodeDigit is the one decoding formula: d × 10^f / 10^e, each step
// rounded to float64, then rounded to T. Dividing by the exact 10^e (where
// the paper multiplies by an inexact 10^-e) gives the correctly rounded
// quotient, which is exactly the double a parser makes of the decimal
// text: decimals with up to 15 significant digits have no exceptions. On
// this machine the division costs about a tenth more than the
// multiplication (see BenchmarkDecode).
func decodeDigit[T floatx.Float](d int64, c combo) T {
	x := float64(float64(d)*pow10[c.f]) / pow10[c.e]
	if c.narrow {
		return T(roundTo(float64(float32(x)), c.k))
	}
	return T(x)
}

// roundTo returns x rounded to k decimals: round-half-even(x × 10^k) / 10^k,
// the product and the quotient each rounded to float64.
func roundTo(x float64, k uint8) float64 {
	t := float64(x * pow10[k])
	if t > -(1<<51) && t < 1<<51 {
		t = float64(t+magic) - magic
	} else {
		t = math.RoundToEven(t)
	}
	return t / pow10[k]
}

// roundTrips encodes v with c and reports the digit if decoding gives v
// back bit for bit.
func roundTrips[T floatx.Float](v T, c combo, lim float64) (int64, bool) {
	x := float64(v)
	if c.narrow {
		x, lim = float64(float32(x)), math.MaxInt32
	}
	d, ok := encodeDigit(x, c, lim)
	if !ok || floatx.Bits(decodeDigit[T](d, c)) != floatx.Bits(v) {
		return 0, false
	}
	return d, true
}

type encoder struct{ vs int }

// Fit accepts non-empty float sequences.
func (encoder) Fit(st *encoding.Stats) bool { return st.Type.IsFloat() && st.N >= 1 }

// Estimate needs a trial: the digits child is selected recursively.
func (encoder) Estimate(*encoding.Stats) (int, bool) { return 0, false }

func (e encoder) Encode(dst []byte, vals any, st *encoding.Stats, ctx *encoding.Ctx) ([]byte, error) {
	switch v := vals.(type) {
	case []float32:
		return encodeT[float32, int32](dst, v, e.vs, ctx)
	case []float64:
		return encodeT[float64, int64](dst, v, e.vs, ctx)
	}
	return dst, fmt.Errorf("alp: cannot encode %T", vals)
}

// sampleOf appends up to k values of v spread evenly over it.
func sampleOf[T floatx.Float](dst, v []T, k int) []T {
	if len(v) <= k {
		return append(dst, v...)
	}
	for i := 0; i < k; i++ {
		dst = append(dst, v[i*len(v)/k])
	}
	return dst
}

// cost estimates the bits of encoding s with c: every value takes a slot
// of the digits' FOR width, and each exception its raw value and a
// position besides.
//
// Callers keep a combo only when its cost is below the best so far, bound:
// since the width and the exceptions only grow along s, cost returns bound
// as soon as the bits so far reach it. Most of the (e, f) pairs the search
// tries turn nearly every value into an exception, and stop after a few
// values instead of trying all of them.
func cost[T floatx.Float](s []T, c combo, lim float64, bound int) int {
	var mn, mx int64
	have := false
	exc, w := 0, 0
	excBits := 8*floatx.Size[T]() + 16
	for _, v := range s {
		d, ok := roundTrips(v, c, lim)
		if !ok {
			exc++
			if len(s)*w+exc*excBits >= bound {
				return bound
			}
			continue
		}
		if !have {
			mn, mx, have = d, d, true
			continue
		}
		if d < mn || d > mx {
			mn = min(mn, d)
			mx = max(mx, d)
			w = bits.Len64(uint64(mx - mn))
			if len(s)*w+exc*excBits >= bound {
				return bound
			}
		}
	}
	return len(s)*w + exc*excBits
}

// chooseCombos is the first sampling level: the best pair of each sampled
// vector gets a vote; the most voted pairs (ties: the lower total cost)
// are returned, at most maxCombos.
func chooseCombos[T floatx.Float](vals []T, vs int, lim float64) []combo {
	nv := (len(vals) + vs - 1) / vs
	type cand struct {
		c     combo
		votes int
		total int
	}
	var cands []cand
	maxE := maxExp[T]()
	var s []T
	for k := 0; k < min(nv, sampleVectors); k++ {
		v := k * nv / min(nv, sampleVectors)
		s = sampleOf(s[:0], vals[v*vs:min(len(vals), (v+1)*vs)], sampleValues)
		best, bestCost := combo{}, math.MaxInt
		for e := 0; e <= maxE; e++ {
			for f := 0; f <= e; f++ {
				c := combo{e: uint8(e), f: uint8(f)}
				if x := cost(s, c, lim, bestCost); x < bestCost {
					best, bestCost = c, x
				}
			}
		}
		// Narrow combos, tried when plain ones need more than 20 bits a
		// value and the values look like printed float32s.
		if k, ok := narrowDecimals(s); ok && bestCost > 20*len(s) {
			for e := 0; e <= maxExp[float32](); e++ {
				for f := 0; f <= e; f++ {
					c := combo{e: uint8(e), f: uint8(f), narrow: true, k: k}
					if x := cost(s, c, lim, bestCost); x < bestCost {
						best, bestCost = c, x
					}
				}
			}
		}
		i := slices.IndexFunc(cands, func(x cand) bool { return x.c == best })
		if i < 0 {
			cands = append(cands, cand{c: best})
			i = len(cands) - 1
		}
		cands[i].votes++
		cands[i].total += bestCost
	}
	slices.SortStableFunc(cands, func(a, b cand) int {
		if a.votes != b.votes {
			return b.votes - a.votes
		}
		return a.total - b.total
	})
	out := make([]combo, 0, maxCombos)
	for _, c := range cands[:min(len(cands), maxCombos)] {
		out = append(out, c.c)
	}
	return out
}

// narrowDecimals returns the decimals k at which float64 values s read as
// float32s printed with k decimals: the largest of the smallest k of each
// value, when at least half of them (and all but NaN and ±Inf, which are
// exceptions anyway) have one. Only float64 values qualify.
func narrowDecimals[T floatx.Float](s []T) (uint8, bool) {
	if floatx.Size[T]() != 8 || len(s) == 0 {
		return 0, false
	}
	var k uint8
	hits := 0
	for _, v := range s {
		x := float64(v)
		y := float64(float32(x))
		for j := uint8(0); j <= maxNarrowDecimals; j++ {
			if roundTo(y, j) == x {
				k = max(k, j)
				hits++
				break
			}
		}
	}
	return k, 2*hits >= len(s)
}

// vectorCombo is the second sampling level: the best of combos on a sample
// of the vector, stopping after two candidates in a row do no better.
func vectorCombo[T floatx.Float](vec []T, combos []combo, lim float64, s []T) combo {
	if len(combos) == 1 {
		return combos[0]
	}
	s = sampleOf(s[:0], vec, sampleValues)
	best, bestCost, worse := combos[0], math.MaxInt, 0
	for _, c := range combos {
		x := cost(s, c, lim, bestCost)
		if x < bestCost {
			best, bestCost, worse = c, x, 0
			continue
		}
		if worse++; worse == 2 {
			break
		}
	}
	return best
}

func encodeT[T floatx.Float, I int32 | int64](dst []byte, vals []T, vs int, ctx *encoding.Ctx) ([]byte, error) {
	lim := digitLimit[T]()
	n := len(vals)
	nv := (n + vs - 1) / vs
	dst = appendUvarint(dst, uint64(vs))
	dst = floatx.AppendBounds(dst, vals)
	var combos []combo
	if n > 0 {
		// Selection encodes the same floats more than once (a finalist
		// ranked, then encoded again at the real zstd level): the
		// exponent search, a pure function of the values and the vector
		// size, runs once per file for each sequence.
		tag := "alp.float64/" + strconv.Itoa(vs)
		if floatx.Size[T]() == 4 {
			tag = "alp.float32/" + strconv.Itoa(vs)
		}
		combos = ctx.Memo(tag, encoding.BytesOf(vals), func() any { return chooseCombos(vals, vs, lim) }).([]combo)
	}
	digits := make([]I, n)
	var pos []uint32
	var exc []T
	var s []T
	for v := 0; v < nv; v++ {
		vec := vals[v*vs : min(n, (v+1)*vs)]
		c := vectorCombo(vec, combos, lim, s)
		if c.narrow {
			dst = append(dst, c.e|narrowFlag, c.f, c.k)
		} else {
			dst = append(dst, c.e, c.f)
		}
		out := digits[v*vs:]
		first := len(pos)
		var fill I
		filled := false
		for i, x := range vec {
			d, ok := roundTrips(x, c, lim)
			if !ok {
				pos = append(pos, uint32(v*vs+i))
				exc = append(exc, x)
				continue
			}
			out[i] = I(d)
			if !filled {
				fill, filled = I(d), true
			}
		}
		// Exception slots take a digit of the vector so they do not widen
		// its frame of reference.
		for _, p := range pos[first:] {
			digits[p] = fill
		}
	}
	var err error
	// The digits are the column's values as integers: their selection and
	// that of their children weigh whole encodes, not samples only.
	ctx.WholeChildren()
	if dst, err = ctx.EncodeChild(dst, digits); err != nil {
		return dst, fmt.Errorf("alp digits: %w", err)
	}
	dst = appendUvarint(dst, uint64(len(pos)))
	ctx.Exceptions(len(pos))
	if len(pos) > 0 {
		if dst, err = ctx.EncodeChild(dst, pos); err != nil {
			return dst, fmt.Errorf("alp exception positions: %w", err)
		}
		if dst, err = ctx.EncodeChild(dst, exc); err != nil {
			return dst, fmt.Errorf("alp exception values: %w", err)
		}
	}
	return dst, nil
}

func appendUvarint(dst []byte, v uint64) []byte {
	for v >= 0x80 {
		dst = append(dst, byte(v)|0x80)
		v >>= 7
	}
	return append(dst, byte(v))
}

func open(h encoding.Header, opts *encoding.Options) (encoding.Decoder, error) {
	switch h.Type {
	case encoding.Float32:
		return openT[float32, int32](h, opts)
	case encoding.Float64:
		return openT[float64, int64](h, opts)
	}
	return nil, encoding.Unsupportedf("alp: type %v", h.Type)
}

// convert turns the digits held in dst's memory (of T's width), all of
// pair c, into their floats in place, through the kernels of kernels.go.
func convert[T floatx.Float](dst []T, c combo) {
	e, f := int(c.e), int(c.f)
	if floatx.Size[T]() == 4 {
		digitsF32(floatx.View[float32](dst), floatx.View[int32](dst), e, f)
		return
	}
	out, src := floatx.View[float64](dst), floatx.View[int64](dst)
	if c.narrow {
		digitsNarrow(out, src, e, f, int(c.k))
		return
	}
	digitsF64(out, src, e, f)
}

// sumConvert sums the differences src from base and writes the floats of
// those digits of pair c into out's memory (T has I's width), returning
// the last sum. src lies at out's position or after it (see
// encoding.DiffReader); the kernels read each difference before they
// write the float at or before it.
func sumConvert[T floatx.Float, I int32 | int64](out, src []I, base I, c combo) I {
	if len(src) == 0 {
		return base
	}
	e, f := int(c.e), int(c.f)
	po, ps := unsafe.Pointer(&out[0]), unsafe.Pointer(&src[0])
	if floatx.Size[T]() == 4 {
		return I(sumF32(unsafe.Slice((*float32)(po), len(out)), unsafe.Slice((*int32)(ps), len(src)), int32(base), e, f))
	}
	dst, digits := unsafe.Slice((*float64)(po), len(out)), unsafe.Slice((*int64)(ps), len(src))
	if c.narrow {
		return I(sumNarrow(dst, digits, int64(base), e, f, int(c.k)))
	}
	return I(sumF64(dst, digits, int64(base), e, f))
}

// decoder reads an ALP node of T whose digits are I (int32 for float32,
// int64 for float64, the same width as T so digits decode in place).
type decoder[T floatx.Float, I int32 | int64] struct {
	typ    encoding.Type
	n, pos int
	vs     int
	combos []combo // per vector
	single bool    // every vector has the same pair
	lo, hi T
	bok    bool

	digits encoding.Reader[I]
	diffs  encoding.DiffReader[I] // the digits child when it is Delta
	finish func(out, src []I, base I) I
	period int // the digits child's encoding.Periodic period, 0 if none
	row    int // row of the next run finishRun gets
	nodes  []encoding.ChildNode
	// nodeBuf and comboBuf hold nodes and the combos of up to eight
	// vectors inside the decoder: a short chunk opens with two
	// allocations fewer.
	nodeBuf  [3]encoding.ChildNode
	comboBuf [8]combo
	excPos   []uint32
	excVal   []T
	xi       int // first exception at or after pos
	opts     *encoding.Options
	depth    int
	gdec     encoding.Reader[I] // private digits cursor for gathers
	dbuf     []I
	excIn    []bool
	scr      floatx.Scratch[T]
	in, out  encoding.Bitmap
	skipped  int
}

func openT[T floatx.Float, I int32 | int64](h encoding.Header, opts *encoding.Options) (*decoder[T, I], error) {
	d := &decoder[T, I]{typ: h.Type, n: h.Rows, opts: opts, depth: h.Depth + 1}
	vs, body, err := encoding.Length(h.Body, MaxVectorSize, "alp vector size")
	if err != nil {
		return nil, err
	}
	if vs == 0 {
		return nil, encoding.Corruptf("alp: vector size 0")
	}
	d.vs = vs
	if d.lo, d.hi, d.bok, body, err = floatx.ParseBounds[T](body); err != nil {
		return nil, fmt.Errorf("alp: %w", err)
	}
	nv := (d.n + vs - 1) / vs
	if 2*nv > len(body) {
		return nil, encoding.Corruptf("alp: %d vectors need %d header bytes, %d remain", nv, 2*nv, len(body))
	}
	if nv <= len(d.comboBuf) {
		d.combos = d.comboBuf[:nv]
	} else {
		d.combos = make([]combo, nv)
	}
	d.single = true
	for v := range d.combos {
		if len(body) < 2 {
			return nil, encoding.Corruptf("alp vector %d: header beyond the body", v)
		}
		c := combo{e: body[0], f: body[1]}
		body = body[2:]
		maxE := maxExp[T]()
		if c.e&narrowFlag != 0 {
			if len(body) < 1 || floatx.Size[T]() != 8 {
				return nil, encoding.Corruptf("alp vector %d: narrow pair in a %v node or without decimals", v, d.typ)
			}
			c.e &^= narrowFlag
			c.narrow, c.k = true, body[0]
			body = body[1:]
			maxE = maxExp[float32]()
			if c.k > 18 {
				return nil, encoding.Corruptf("alp vector %d: %d decimals", v, c.k)
			}
		}
		if int(c.e) > maxE || c.f > c.e {
			return nil, encoding.Corruptf("alp vector %d: exponent %d, factor %d", v, c.e, c.f)
		}
		d.combos[v] = c
		d.single = d.single && c == d.combos[0]
	}
	dn, body, err := encoding.Child(body, "alp digits")
	if err != nil {
		return nil, err
	}
	if d.digits, err = cascade.OpenFixed[I](dn, d.depth, opts, d.n, "alp digits"); err != nil {
		return nil, err
	}
	if dr, ok := d.digits.(encoding.DiffReader[I]); ok {
		d.diffs, d.finish = dr, d.finishRun
	}
	if pr, ok := d.digits.(encoding.Periodic); ok {
		if p := pr.Period(); p > 0 && p < d.n {
			d.period = p
		}
	}
	d.nodes = append(d.nodeBuf[:0], encoding.ChildNode{Role: "digits", Node: dn})
	ne, body, err := encoding.Length(body, d.n, "alp exception count")
	if err != nil {
		return nil, err
	}
	if ne > 0 {
		pn, rest, err := encoding.Child(body, "alp exception positions")
		if err != nil {
			return nil, err
		}
		vn, rest, err := encoding.Child(rest, "alp exception values")
		if err != nil {
			return nil, err
		}
		body = rest
		pr, err := cascade.OpenFixed[uint32](pn, d.depth, opts, ne, "alp exception positions")
		if err != nil {
			return nil, err
		}
		vr, err := cascade.OpenFixed[T](vn, d.depth, opts, ne, "alp exception values")
		if err != nil {
			return nil, err
		}
		if d.excPos, err = cascade.ReadAll(pr, opts, "alp exception positions"); err != nil {
			return nil, err
		}
		if err := cascade.CheckPositions(d.excPos, d.n, "alp exception positions"); err != nil {
			return nil, err
		}
		if d.excVal, err = cascade.ReadAll(vr, opts, "alp exception values"); err != nil {
			return nil, err
		}
		d.nodes = append(d.nodes, encoding.ChildNode{Role: "positions", Node: pn}, encoding.ChildNode{Role: "exceptions", Node: vn})
	}
	if len(body) != 0 {
		return nil, encoding.Corruptf("alp: %d trailing bytes", len(body))
	}
	return d, nil
}

func (d *decoder[T, I]) Kind() encoding.Kind { return encoding.KindALP }
func (d *decoder[T, I]) Type() encoding.Type { return d.typ }
func (d *decoder[T, I]) Len() int            { return d.n }
func (d *decoder[T, I]) Pos() int            { return d.pos }

// Reset moves the cursor back to the first value.
func (d *decoder[T, I]) Reset() {
	d.pos, d.xi = 0, 0
	d.digits.Reset()
}

// Children implements encoding.Walker.
func (d *decoder[T, I]) Children() []encoding.ChildNode { return d.nodes }

// Skipped implements encoding.SkipCounter: filters settled from the bounds.
func (d *decoder[T, I]) Skipped() int { return d.skipped }

// Bounds returns the exact minimum and maximum stored in the header;
// unknown when the node holds a NaN.
func (d *decoder[T, I]) Bounds() (T, T, bool) { return d.lo, d.hi, d.bok }

func (d *decoder[T, I]) check(n int, what string) error {
	if n < 0 || n > d.n-d.pos {
		return encoding.Corruptf("alp: %s %d values at %d of %d", what, n, d.pos, d.n)
	}
	return nil
}

// advance moves the cursor n rows on (the digits child already moved).
func (d *decoder[T, I]) advance(n int) {
	d.pos += n
	for d.xi < len(d.excPos) && int(d.excPos[d.xi]) < d.pos {
		d.xi++
	}
}

// DecodeSpan implements encoding.DecodeSpanner: values are turned back
// into floats one by one, so the digits child decides what a read decodes.
func (d *decoder[T, I]) DecodeSpan(from, to int) (int, int) {
	return encoding.DecodeSpan(d.digits, from, to)
}

// Skip advances the cursor.
func (d *decoder[T, I]) Skip(n int) error {
	if err := d.check(n, "skip"); err != nil {
		return err
	}
	if err := d.digits.Skip(n); err != nil {
		return err
	}
	d.advance(n)
	return nil
}

// Read decodes the digits straight into dst (I has T's width) and turns
// them into floats in place, a vector (or a run of vectors sharing one
// pair) at a time; a Delta child leaves its running sum to the conversion
// (finishRun). Exceptions are patched last. (Decoding and converting in
// batches of 1024 values, to convert while the digits are in the
// first-level cache, was not faster than one child Read.) Digits with a
// period (encoding.Periodic) are converted for one period and copied.
func (d *decoder[T, I]) Read(dst []T) error {
	if err := d.check(len(dst), "read"); err != nil {
		return err
	}
	if len(dst) == 0 {
		return nil
	}
	start := d.pos
	if d.diffs != nil {
		d.row = start
		if err := d.diffs.ReadDiffs(floatx.View[I](dst), d.finish); err != nil {
			return err
		}
	} else if d.period > 0 && len(dst) > d.period {
		if err := d.readPeriodic(dst, start); err != nil {
			return err
		}
	} else {
		if err := d.digits.Read(floatx.View[I](dst)); err != nil {
			return err
		}
		for k := 0; k < len(dst); {
			r := start + k
			v := r / d.vs
			m := len(dst) - k
			if !d.single {
				m = min(m, (v+1)*d.vs-r)
			}
			convert(dst[k:k+m], d.combos[v])
			k += m
		}
	}
	end := start + len(dst)
	for d.xi < len(d.excPos) && int(d.excPos[d.xi]) < end {
		dst[int(d.excPos[d.xi])-start] = d.excVal[d.xi]
		d.xi++
	}
	d.pos = end
	return nil
}

// readPeriodic is Read's bulk decode when the digits repeat with period p
// (encoding.Periodic): within a span of rows whose vectors share one pair,
// equal digits give equal floats, so the span's first p rows are read and
// converted, the child skips the rest, and the floats are copied onward
// in doubling spans (multiples of p). Exceptions are patched after it, at
// their own rows only.
func (d *decoder[T, I]) readPeriodic(dst []T, start int) error {
	p := d.period
	for k := 0; k < len(dst); {
		r := start + k
		v := r / d.vs
		m := len(dst) - k
		if !d.single {
			m = min(m, (v+1)*d.vs-r)
			for k+m < len(dst) && d.combos[(r+m)/d.vs] == d.combos[v] {
				m = min(len(dst)-k, m+d.vs)
			}
		}
		span := dst[k : k+m]
		h := min(m, p)
		if err := d.digits.Read(floatx.View[I](span[:h])); err != nil {
			return err
		}
		if err := d.digits.Skip(m - h); err != nil {
			return err
		}
		convert(span[:h], d.combos[v])
		for j := h; j < m; {
			j += copy(span[j:], span[:j])
		}
		k += m
	}
	return nil
}

// finishRun is the finish function of encoding.DiffReader: it sums the
// differences src from base and converts the sums into out, vector by
// vector, returning the last sum.
func (d *decoder[T, I]) finishRun(out, src []I, base I) I {
	for k := 0; k < len(out); {
		r := d.row + k
		v := r / d.vs
		m := len(out) - k
		if !d.single {
			m = min(m, (v+1)*d.vs-r)
		}
		base = sumConvert[T](out[k:k+m], src[k:k+m], base, d.combos[v])
		k += m
	}
	d.row += len(out)
	return base
}

// Gather reads rows through the digits child's Gatherer (or a private
// cursor), decodes them with their vectors' pairs, and patches exceptions
// found by merging the two sorted row lists.
func (d *decoder[T, I]) Gather(rows []int32, dst []T) error {
	if err := cascade.CheckGather(encoding.KindALP, rows, len(dst), d.n); err != nil {
		return err
	}
	if len(rows) == 0 {
		return nil
	}
	dst = dst[:len(rows)]
	iv := unsafe.Slice((*I)(unsafe.Pointer(&dst[0])), len(rows))
	if g, ok := d.digits.(encoding.Gatherer[I]); ok {
		if err := g.Gather(rows, iv); err != nil {
			return err
		}
	} else {
		if d.gdec == nil {
			r, err := cascade.OpenFixed[I](d.nodes[0].Node, d.depth, d.opts, d.n, "alp digits")
			if err != nil {
				return err
			}
			d.gdec = r
		}
		if err := cascade.GatherSeq(d.gdec, rows, iv); err != nil {
			return err
		}
	}
	for i, r := range rows {
		dst[i] = decodeDigit[T](int64(iv[i]), d.combos[int(r)/d.vs])
	}
	j := sort.Search(len(d.excPos), func(k int) bool { return d.excPos[k] >= uint32(rows[0]) })
	for i := 0; i < len(rows) && j < len(d.excPos); {
		switch p := int32(d.excPos[j]); {
		case p < rows[i]:
			j++
		case p > rows[i]:
			i++
		default:
			dst[i] = d.excVal[j]
			i++
			j++
		}
	}
	return nil
}

// Filter translates p into a range (or set) of digits per vector, which
// is exact because decoding is monotone in the digit, and evaluates it on
// the digits child (through its own Filter when every vector shares one
// pair); exceptions are then compared as floats. Predicates that have no
// digit form (a NaN constant, != of a value two digits decode to) decode
// and compare instead.
func (d *decoder[T, I]) Filter(p *encoding.Pred[T], n int, sel encoding.Bitmap) error {
	if err := d.check(n, "filter"); err != nil {
		return err
	}
	if n == 0 {
		return nil
	}
	if len(sel)*64 < n {
		return fmt.Errorf("alp: selection of %d words for %d rows", len(sel), n)
	}
	if floatx.Settle(p, d.lo, d.hi, d.bok, n, sel) {
		d.skipped++
		return d.Skip(n)
	}
	start := d.pos
	v0, v1 := start/d.vs, (start+n-1)/d.vs
	preds := make([]digitPred[I], 0, 1)
	for v := v0; v <= v1; v++ {
		if v > v0 && d.single {
			break
		}
		dp, ok := translate[T, I](p, d.combos[v])
		if !ok {
			return floatx.FilterRead[T](d, p, n, sel, &d.scr)
		}
		preds = append(preds, dp)
	}
	// Remember the incoming selection of the exception rows: the digit
	// test below sees their filler digits, not their values.
	x0 := d.xi
	x1 := x0
	d.excIn = d.excIn[:0]
	for x1 < len(d.excPos) && int(d.excPos[x1]) < start+n {
		d.excIn = append(d.excIn, sel.Get(int(d.excPos[x1])-start))
		x1++
	}
	if d.single {
		if err := d.filterDigits(&preds[0], n, sel); err != nil {
			return err
		}
	} else {
		for k := 0; k < n; {
			r := start + k
			v := r / d.vs
			m := min(n-k, (v+1)*d.vs-r)
			if err := d.filterDigitsAt(&preds[v-v0], k, m, sel); err != nil {
				return err
			}
			k += m
		}
	}
	for j, in := range d.excIn {
		if !in {
			continue
		}
		o := int(d.excPos[x0+j]) - start
		if p.Match(d.excVal[x0+j]) {
			sel.Set(o)
		} else {
			sel.Clear(o)
		}
	}
	d.advance(n)
	return nil
}

// filterDigits applies dp to the next n digits, through the child's Filter
// when it has one.
func (d *decoder[T, I]) filterDigits(dp *digitPred[I], n int, sel encoding.Bitmap) error {
	switch {
	case dp.none:
		sel.ClearRange(0, n)
		return d.digits.Skip(n)
	case dp.all:
		return d.digits.Skip(n)
	}
	if f, ok := d.digits.(encoding.Filterer[I]); ok {
		return f.Filter(&dp.p, n, sel)
	}
	for k := 0; k < n; {
		m := min(n-k, floatx.Batch)
		if err := d.filterDigitsAt(dp, k, m, sel); err != nil {
			return err
		}
		k += m
	}
	return nil
}

// filterDigitsAt applies dp to the next m digits, which are rows [o, o+m)
// of sel, by reading them.
func (d *decoder[T, I]) filterDigitsAt(dp *digitPred[I], o, m int, sel encoding.Bitmap) error {
	switch {
	case dp.none:
		sel.ClearRange(o, o+m)
		return d.digits.Skip(m)
	case dp.all:
		return d.digits.Skip(m)
	}
	for m > 0 {
		k := min(m, floatx.Batch)
		if !sel.AnyIn(o, o+k) {
			if err := d.digits.Skip(k); err != nil {
				return err
			}
		} else {
			d.dbuf = cascade.Grow(d.dbuf, k)
			if err := d.digits.Read(d.dbuf); err != nil {
				return err
			}
			d.in, d.out = filterkern.FilterAt(d.dbuf, &dp.p, sel, o, d.in, d.out)
		}
		o += k
		m -= k
	}
	return nil
}

// digitPred is a predicate on digits: none or all match, or p decides.
type digitPred[I int32 | int64] struct {
	none, all bool
	p         encoding.Pred[I]
}

// digitRange returns the smallest and largest I.
func digitRange[I int32 | int64]() (I, I) {
	var z I
	if unsafe.Sizeof(z) == 4 {
		lo, hi := int64(math.MinInt32), int64(math.MaxInt32)
		return I(lo), I(hi)
	}
	lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
	return I(lo), I(hi)
}

// firstDigit returns the smallest digit d of I whose value decodes above
// a (at or above a when !strict), and false when no digit does. Decoding
// is non-decreasing in d over all of I, so a binary search is exact; the
// encoder's estimate starts it.
func firstDigit[T floatx.Float, I int32 | int64](a T, strict bool, c combo) (I, bool) {
	keep := func(x int64) bool {
		v := decodeDigit[T](x, c)
		if strict {
			return v > a
		}
		return v >= a
	}
	mn, mx := digitRange[I]()
	lo, hi := int64(mn), int64(mx)
	if !keep(hi) {
		return 0, false
	}
	if keep(lo) {
		return mn, true
	}
	// invariant: keep(lo) false, keep(hi) true
	if g, ok := encodeDigit(float64(a), c, digitLimit[T]()); ok && !c.narrow && g > lo && g < hi {
		if keep(g) {
			if !keep(g - 1) {
				return I(g), true
			}
			hi = g
		} else {
			if keep(g + 1) {
				return I(g + 1), true
			}
			lo = g
		}
	}
	for span := uint64(hi) - uint64(lo); span > 1; span = uint64(hi) - uint64(lo) {
		mid := int64(uint64(lo) + span/2)
		if keep(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return I(hi), true
}

// between returns the digits [lo, hiNext) (up to the largest I when
// !hiOK); ok is false when the range is empty.
func between[I int32 | int64](lo I, loOK bool, hiNext I, hiOK bool) (I, I, bool) {
	_, mx := digitRange[I]()
	if !loOK {
		return 0, 0, false
	}
	hi := mx
	if hiOK {
		if hiNext <= lo {
			// empty: an upper bound below every digit (hiNext the
			// smallest digit, which hiNext-1 would wrap past) or a
			// reversed range
			return 0, 0, false
		}
		hi = hiNext - 1
	}
	return lo, hi, true
}

// eqRange returns the digits that decode to a value equal to a.
func eqRange[T floatx.Float, I int32 | int64](a T, c combo) (I, I, bool) {
	l, lok := firstDigit[T, I](a, false, c)
	h, hok := firstDigit[T, I](a, true, c)
	return between(l, lok, h, hok)
}

// translate turns p into a digit predicate for vectors with pair c; ok is
// false when p has no exact digit form.
func translate[T floatx.Float, I int32 | int64](p *encoding.Pred[T], c combo) (dp digitPred[I], ok bool) {
	nan := func(x T) bool { return x != x }
	if nan(p.A) || (p.Op == encoding.OpBetween && nan(p.B)) || slices.ContainsFunc(p.Set, nan) {
		return dp, false
	}
	mn, mx := digitRange[I]()
	rng := func(lo, hi I, ok bool) (digitPred[I], bool) {
		switch {
		case !ok:
			return digitPred[I]{none: true}, true
		case lo == mn && hi == mx:
			return digitPred[I]{all: true}, true
		}
		return digitPred[I]{p: encoding.Pred[I]{Op: encoding.OpBetween, A: lo, B: hi}}, true
	}
	switch p.Op {
	case encoding.OpEq:
		return rng(eqRange[T, I](p.A, c))
	case encoding.OpGe, encoding.OpGt:
		l, lok := firstDigit[T, I](p.A, p.Op == encoding.OpGt, c)
		return rng(l, mx, lok)
	case encoding.OpLe, encoding.OpLt:
		h, hok := firstDigit[T, I](p.A, p.Op == encoding.OpLe, c)
		return rng(between(mn, true, h, hok))
	case encoding.OpBetween:
		l, lok := firstDigit[T, I](p.A, false, c)
		h, hok := firstDigit[T, I](p.B, true, c)
		return rng(between(l, lok, h, hok))
	case encoding.OpNe:
		lo, hi, ok := eqRange[T, I](p.A, c)
		switch {
		case !ok:
			return digitPred[I]{all: true}, true
		case lo == hi:
			return digitPred[I]{p: encoding.Pred[I]{Op: encoding.OpNe, A: lo}}, true
		}
		return dp, false
	case encoding.OpIn:
		var set []I
		for _, x := range p.Set {
			lo, hi, ok := eqRange[T, I](x, c)
			if !ok {
				continue
			}
			if lo != hi {
				return dp, false
			}
			set = append(set, lo)
		}
		slices.Sort(set)
		set = slices.Compact(set)
		switch len(set) {
		case 0:
			return digitPred[I]{none: true}, true
		case 1:
			return digitPred[I]{p: encoding.Pred[I]{Op: encoding.OpBetween, A: set[0], B: set[0]}}, true
		}
		return digitPred[I]{p: encoding.Pred[I]{Op: encoding.OpIn, Set: set}}, true
	}
	return digitPred[I]{none: true}, true
}
