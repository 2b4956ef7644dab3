package read

import (
	"encoding/binary"
	"math"
	"math/big"
	"math/bits"
)

// Int128 is a two's complement 128-bit integer: the type of an integer
// sum, as DuckDB returns HUGEINT for sum(BIGINT). A sum of fewer than 2^63
// values of at most 64 bits each cannot leave its range, so integer sums are
// always exact.
type Int128 struct {
	Hi int64
	Lo uint64
}

// IsInt64 reports whether the value fits in an int64.
func (v Int128) IsInt64() bool { return v.Hi == int64(v.Lo)>>63 }

// Big returns the value as a big.Int.
func (v Int128) Big() *big.Int {
	b := new(big.Int).SetInt64(v.Hi)
	b.Lsh(b, 64)
	return b.Add(b, new(big.Int).SetUint64(v.Lo))
}

func (v Int128) String() string { return v.Big().String() }

// addInt adds a signed 64-bit value.
func (v *Int128) addInt(x int64) {
	lo, c := bits.Add64(v.Lo, uint64(x), 0)
	v.Lo = lo
	v.Hi += int64(c) + x>>63
}

// addUint adds an unsigned 64-bit value.
func (v *Int128) addUint(x uint64) {
	lo, c := bits.Add64(v.Lo, x, 0)
	v.Lo = lo
	v.Hi += int64(c)
}

// add adds another 128-bit value.
func (v *Int128) add(o Int128) {
	lo, c := bits.Add64(v.Lo, o.Lo, 0)
	v.Lo = lo
	v.Hi += o.Hi + int64(c)
}

// addMulInt adds n·x for a count n ≥ 0 and a signed x.
func (v *Int128) addMulInt(n uint64, x int64) {
	ax := uint64(x)
	if x < 0 {
		ax = -ax
	}
	hi, lo := bits.Mul64(n, ax)
	p := Int128{Hi: int64(hi), Lo: lo}
	if x < 0 {
		p = p.neg()
	}
	v.add(p)
}

// addMulUint adds n·x for a count n and an unsigned x.
func (v *Int128) addMulUint(n, x uint64) {
	hi, lo := bits.Mul64(n, x)
	v.add(Int128{Hi: int64(hi), Lo: lo})
}

func (v Int128) neg() Int128 {
	lo, b := bits.Sub64(0, v.Lo, 0)
	return Int128{Hi: -v.Hi - int64(b), Lo: lo}
}

// floatSum is an exactly rounded float64 sum: Shewchuk's algorithm keeps
// the running sum as a short list of non-overlapping partial sums whose
// total is exact, and the result is that total rounded once to float64 (as
// Python's math.fsum). The result does not depend on the order of the
// values, so it is the same however stripes, chunks and row selections cut
// a column. Infinities and NaN follow IEEE: any NaN, or both infinities,
// give NaN; otherwise an infinity gives itself; a finite total beyond the
// float64 range gives ±Inf. When two partials overflow float64 (totals
// near ±1.8e308) the sum continues in a big.Float wide enough to hold any
// sum of float64 values exactly.
type floatSum struct {
	partials []float64
	wide     *big.Float // set once the partials overflowed
	posInf   bool
	negInf   bool
	nan      bool
}

// wideBits holds any sum of fewer than 2^63 float64 values exactly: the
// exponents span 2^-1074 .. 2^1024, plus 63 bits of carries.
const wideBits = 1074 + 1024 + 64

// add folds one value.
func (s *floatSum) add(x float64) {
	switch {
	case x != x:
		s.nan = true
		return
	case math.IsInf(x, 1):
		s.posInf = true
		return
	case math.IsInf(x, -1):
		s.negInf = true
		return
	}
	if s.wide != nil {
		s.wide.Add(s.wide, new(big.Float).SetFloat64(x))
		return
	}
	i := 0
	for j, y := range s.partials {
		if math.Abs(x) < math.Abs(y) {
			x, y = y, x
		}
		hi := x + y
		if math.IsInf(hi, 0) {
			s.widen(s.partials[:i], x, y, s.partials[j+1:])
			return
		}
		lo := y - (hi - x)
		if lo != 0 {
			s.partials[i] = lo
			i++
		}
		x = hi
	}
	s.partials = append(s.partials[:i], x)
}

// widen moves the exact total (the partials kept so far, x, y and the
// partials not yet visited) into a big.Float.
func (s *floatSum) widen(kept []float64, x, y float64, rest []float64) {
	w := new(big.Float).SetPrec(wideBits)
	for _, p := range kept {
		w.Add(w, new(big.Float).SetFloat64(p))
	}
	w.Add(w, new(big.Float).SetFloat64(x))
	w.Add(w, new(big.Float).SetFloat64(y))
	for _, p := range rest {
		w.Add(w, new(big.Float).SetFloat64(p))
	}
	s.wide, s.partials = w, nil
}

// merge folds another sum into s.
func (s *floatSum) merge(o *floatSum) {
	s.nan = s.nan || o.nan
	s.posInf = s.posInf || o.posInf
	s.negInf = s.negInf || o.negInf
	if o.wide != nil {
		if s.wide == nil {
			s.wide = new(big.Float).SetPrec(wideBits)
			for _, p := range s.partials {
				s.wide.Add(s.wide, new(big.Float).SetFloat64(p))
			}
			s.partials = nil
		}
		s.wide.Add(s.wide, o.wide)
	}
	for _, p := range o.partials {
		s.add(p)
	}
}

// value returns the correctly rounded total.
func (s *floatSum) value() float64 {
	switch {
	case s.nan || s.posInf && s.negInf:
		return math.NaN()
	case s.posInf:
		return math.Inf(1)
	case s.negInf:
		return math.Inf(-1)
	case s.wide != nil:
		f, _ := s.wide.Float64() // nearest even; ±Inf beyond the range
		return f
	}
	p := s.partials
	n := len(p)
	if n == 0 {
		return 0
	}
	// Add the partials from the largest down until the sum becomes
	// inexact, then correct the half-way case (as fsum does).
	n--
	hi := p[n]
	lo := 0.0
	for n > 0 {
		x := hi
		n--
		y := p[n]
		hi = x + y
		lo = y - (hi - x)
		if lo != 0 {
			break
		}
	}
	if n > 0 && (lo < 0 && p[n-1] < 0 || lo > 0 && p[n-1] > 0) {
		y := lo * 2
		x := hi + y
		if y == x-hi {
			hi = x
		}
	}
	return hi
}

// wideDecimalBytes is the size of a stored wide decimal (a decimal of
// precision above 18): its unscaled value in 128-bit little-endian two's
// complement.
const wideDecimalBytes = 16

// wideInt reads a stored wide decimal; ok is false when b is not 16 bytes.
func wideInt(b []byte) (v Int128, ok bool) {
	if len(b) != wideDecimalBytes {
		return Int128{}, false
	}
	return Int128{Hi: int64(binary.LittleEndian.Uint64(b[8:])), Lo: binary.LittleEndian.Uint64(b[:8])}, true
}

// cmp orders two values as signed integers: the high words signed, then
// the low words unsigned (the bytes of the stored form do not order so).
func (v Int128) cmp(o Int128) int {
	switch {
	case v.Hi != o.Hi:
		return cmpOrder(v.Hi < o.Hi)
	case v.Lo != o.Lo:
		return cmpOrder(v.Lo < o.Lo)
	}
	return 0
}

func cmpOrder(less bool) int {
	if less {
		return -1
	}
	return 1
}

// int192 is a two's complement 192-bit integer: the running sum of wide
// decimals. Each value has at most 128 bits, so fewer than 2^63 of them
// cannot leave its range, and the sum is exact however the values cancel
// along the way; whether it fits the column's 38 digits is asked once, of
// the total (see maxDecimal38).
type int192 struct {
	hi      int64
	mid, lo uint64
}

// add128 adds a 128-bit value, sign-extended.
func (s *int192) add128(v Int128) {
	lo, c := bits.Add64(s.lo, v.Lo, 0)
	mid, c := bits.Add64(s.mid, uint64(v.Hi), c)
	s.lo, s.mid = lo, mid
	s.hi += v.Hi>>63 + int64(c)
}

// add adds another 192-bit value.
func (s *int192) add(o int192) {
	lo, c := bits.Add64(s.lo, o.lo, 0)
	mid, c := bits.Add64(s.mid, o.mid, c)
	s.lo, s.mid = lo, mid
	s.hi += o.hi + int64(c)
}

// Big returns the value as a big.Int.
func (s int192) Big() *big.Int {
	b := big.NewInt(s.hi)
	b.Lsh(b, 64)
	b.Add(b, new(big.Int).SetUint64(s.mid))
	b.Lsh(b, 64)
	return b.Add(b, new(big.Int).SetUint64(s.lo))
}

// maxDecimal38 is 10^38 − 1, the largest unscaled value of a decimal of 38
// digits, the widest Strata stores as a number (and Arrow's decimal128).
var maxDecimal38 = new(big.Int).Sub(new(big.Int).Exp(big.NewInt(10), big.NewInt(38), nil), big.NewInt(1))

// int128 returns the value as an Int128, ok false when it needs more bits.
func (s int192) int128() (v Int128, ok bool) {
	v = Int128{Hi: int64(s.mid), Lo: s.lo}
	return v, s.hi == v.Hi>>63
}
