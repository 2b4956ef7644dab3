package encoding

import (
	"encoding/binary"
	"math"
	"math/bits"
	"strconv"
	"sync"

	"github.com/zeebo/xxh3"
)

// Stats describes a sequence for encoding selection. It is computed once per
// sequence (one pass plus a bounded distinct count) and shared by every
// candidate encoding.
type Stats struct {
	Type Type
	N    int

	// Integers: bounds in the type's own domain. Signed values are
	// sign-extended into MinI/MaxI, unsigned ones zero-extended into MinU/MaxU.
	// Range is Max-Min as an unsigned distance; RangeBits its bit width.
	MinI, MaxI int64
	MinU, MaxU uint64
	Range      uint64
	RangeBits  int

	// Floats.
	MinF, MaxF float64
	HasNaN     bool

	// Integers: bounds of consecutive differences v[i]-v[i-1], computed in
	// int64 with wrap-around, and whether the sequence is non-decreasing
	// (floats too: without NaN, in numeric order).
	DeltaMin, DeltaMax int64
	Sorted             bool
	// Integers: Step is the greatest common divisor of the differences
	// between the values (StepOf): every value is the least one plus a
	// multiple of Step. 0 when all values are equal, 1 when they share no
	// factor.
	Step uint64

	// Runs is the number of maximal runs of bit-identical adjacent values.
	Runs int
	// Distinct is the number of distinct values when DistinctExact, else a
	// lower bound (counting stopped once it passed the cap).
	Distinct      int
	DistinctExact bool
	// ModeIndex is the index of a most frequent value and ModeCount its count
	// (exact only when DistinctExact).
	ModeIndex, ModeCount int

	// Binary: total bytes of all values and the value length bounds.
	TotalBytes     int
	MinLen, MaxLen int
	// Binary: PrefixBytes is the sum over values of the bytes each shares
	// with the start of its predecessor (what front coding saves); Digits
	// reports that every value is 0 to 19 ASCII digits (what DigitText
	// stores as integers). Sorted is set for binary too (bytewise order).
	PrefixBytes int
	Digits      bool
	// Binary: Hex reports that every value has the first value's length,
	// 1 to MaxHexLen bytes, and that each position holds a hex digit in
	// every value or one byte that is not a hex digit in every value, with
	// at least one digit position and letters of one case (what HexText
	// stores as integers or packed bytes). HexDigits reports that every
	// value is 0 to 16 hex digits and nothing else, letters of one case,
	// whatever the lengths (HexText's widths form).
	Hex, HexDigits bool
	// Binary: Numbers holds the number forms (NumPlain, NumGrouped,
	// NumDecimal) that every value has: each is the canonical decimal
	// text of an int64, or of a decimal fraction (what NumText stores as
	// integers). 0 when some value is no such text. NumDecimal also
	// needs every value, scaled to the most fraction digits any has, to
	// stay within MaxDecimalDigits digits, as NumText stores them.
	Numbers uint8
	// Binary: DigitShare is the fraction of the bytes of every eighth
	// value (the first, the ninth, ...) that are ASCII digits in runs of
	// 1 to MaxDigits digits: a cheap sign of numbers inside text (what
	// FieldText stores as integers; above 0, some value holds one).
	DigitShare float64

	// Bool: number of true values.
	Trues int

	skipDistinct bool
}

// DistinctCap is the most distinct values ComputeStats counts exactly for a
// sequence of n values. A dictionary stops paying off well before half the
// values are distinct.
func DistinctCap(n int) int {
	c := n / 2
	if c < 64 {
		c = 64
	}
	if c > 1<<16 {
		c = 1 << 16
	}
	return c
}

// ComputeStats returns the statistics of vals (a []T or Bytes).
func ComputeStats(vals any) *Stats { return computeStats(vals, true) }

// ComputeStatsNoDistinct is ComputeStats without the distinct count (the
// costliest part): Distinct is then N and inexact, and ModeCount zero. The
// policy uses it when a replayed layout needs no distinct count.
func ComputeStatsNoDistinct(vals any) *Stats { return computeStats(vals, false) }

func computeStats(vals any, withDistinct bool) *Stats {
	st := &Stats{Type: TypeOf(vals), N: LenOf(vals), skipDistinct: !withDistinct}
	switch v := vals.(type) {
	case []bool:
		boolStats(st, v)
	case []int8:
		intStats(st, v)
	case []int16:
		intStats(st, v)
	case []int32:
		intStats(st, v)
	case []int64:
		intStats(st, v)
	case []uint8:
		uintStats(st, v)
	case []uint16:
		uintStats(st, v)
	case []uint32:
		uintStats(st, v)
	case []uint64:
		uintStats(st, v)
	case []float32:
		floatStats(st, v, func(f float32) uint64 { return uint64(math.Float32bits(f)) })
	case []float64:
		floatStats(st, v, math.Float64bits)
	case Bytes:
		binaryStats(st, &v)
	case *Bytes:
		binaryStats(st, v)
	}
	return st
}

func boolStats(st *Stats, v []bool) {
	if len(v) == 0 {
		return
	}
	st.Runs = 1
	for i, b := range v {
		if b {
			st.Trues++
		}
		if i > 0 && b != v[i-1] {
			st.Runs++
		}
	}
	st.DistinctExact = true
	st.Distinct = 1
	if st.Trues > 0 && st.Trues < len(v) {
		st.Distinct = 2
	}
	st.ModeCount = max(st.Trues, len(v)-st.Trues)
	want := st.Trues >= len(v)-st.Trues
	for i, b := range v {
		if b == want {
			st.ModeIndex = i
			break
		}
	}
	st.MinU, st.MaxU = 0, 1
	if st.Trues == 0 {
		st.MaxU = 0
	}
	if st.Trues == len(v) {
		st.MinU = 1
	}
	st.Range = st.MaxU - st.MinU
	st.RangeBits = bits.Len64(st.Range)
}

func intStats[T int8 | int16 | int32 | int64](st *Stats, v []T) {
	if len(v) == 0 {
		st.DistinctExact, st.Sorted = true, true
		return
	}
	mn, mx := v[0], v[0]
	runs := 1
	dmin, dmax := int64(math.MaxInt64), int64(math.MinInt64)
	prev := v[0]
	down := 0
	// branch-free: the comparisons of random data mispredict half the time
	for _, x := range v[1:] {
		mn, mx = min(mn, x), max(mx, x)
		runs += b2i(x != prev)
		down |= b2i(x < prev)
		d := int64(x) - int64(prev)
		dmin, dmax = min(dmin, d), max(dmax, d)
		prev = x
	}
	sorted := down == 0
	if len(v) == 1 {
		dmin, dmax = 0, 0
	}
	st.MinI, st.MaxI = int64(mn), int64(mx)
	st.Range = uint64(st.MaxI - st.MinI)
	st.RangeBits = bits.Len64(st.Range)
	st.Runs, st.Sorted = runs, sorted
	st.DeltaMin, st.DeltaMax = dmin, dmax
	st.Step = StepOf(v)
	distinctInts(st, v)
}

func uintStats[T uint8 | uint16 | uint32 | uint64](st *Stats, v []T) {
	if len(v) == 0 {
		st.DistinctExact, st.Sorted = true, true
		return
	}
	mn, mx := v[0], v[0]
	runs := 1
	dmin, dmax := int64(math.MaxInt64), int64(math.MinInt64)
	prev := v[0]
	down := 0
	// branch-free: the comparisons of random data mispredict half the time
	for _, x := range v[1:] {
		mn, mx = min(mn, x), max(mx, x)
		runs += b2i(x != prev)
		down |= b2i(x < prev)
		d := int64(uint64(x) - uint64(prev))
		dmin, dmax = min(dmin, d), max(dmax, d)
		prev = x
	}
	sorted := down == 0
	if len(v) == 1 {
		dmin, dmax = 0, 0
	}
	st.MinU, st.MaxU = uint64(mn), uint64(mx)
	st.MinI, st.MaxI = int64(st.MinU), int64(st.MaxU)
	st.Range = st.MaxU - st.MinU
	st.RangeBits = bits.Len64(st.Range)
	st.Runs, st.Sorted = runs, sorted
	st.DeltaMin, st.DeltaMax = dmin, dmax
	st.Step = StepOf(v)
	distinctInts(st, v)
}

// StepOf returns the greatest common divisor of the differences between
// the values of v: 0 when they are all equal (or fewer than two), 1 when
// they share no factor. It stops at the first difference that brings the
// divisor to 1, so on data without a step it reads a few values.
func StepOf[T Integer](v []T) uint64 {
	if len(v) < 2 {
		return 0
	}
	v0 := v[0]
	g := uint64(0)
	for _, x := range v[1:] {
		var d uint64 // |x - v0|, exact as a wrapped 64-bit difference
		if x >= v0 {
			d = uint64(x) - uint64(v0)
		} else {
			d = uint64(v0) - uint64(x)
		}
		if d == 0 || (g != 0 && d%g == 0) {
			continue
		}
		for d != 0 {
			g, d = d, g%d
		}
		if g == 1 {
			return 1
		}
	}
	return g
}

func floatStats[T float32 | float64](st *Stats, v []T, bitsOf func(T) uint64) {
	if len(v) == 0 {
		st.DistinctExact, st.Sorted = true, true
		return
	}
	mn, mx := math.Inf(1), math.Inf(-1)
	runs := 1
	sorted := true
	for i, x := range v {
		f := float64(x)
		if i > 0 && !(x >= v[i-1]) {
			sorted = false // (a NaN is in no order)
		}
		if f != f {
			st.HasNaN = true
			sorted = false
		} else {
			if f < mn {
				mn = f
			}
			if f > mx {
				mx = f
			}
		}
		if i > 0 && bitsOf(x) != bitsOf(v[i-1]) {
			runs++
		}
	}
	st.MinF, st.MaxF = mn, mx
	st.Runs, st.Sorted = runs, sorted
	distinct(st, len(v), func(i int) uint64 { return bitsOf(v[i]) })
}

func binaryStats(st *Stats, b *Bytes) {
	n := b.Len()
	if n == 0 {
		st.DistinctExact, st.Sorted = true, true
		return
	}
	st.TotalBytes = int(b.Offsets[n] - b.Offsets[0])
	st.MinLen, st.MaxLen = math.MaxInt, 0
	runs := 1
	sorted, digits := true, true
	hex := hexCheck{ok: true, only: true}
	numbers := NumPlain | NumGrouped | NumDecimal
	// the decimal form holds the values scaled to the most fraction
	// digits any has, within MaxDecimalDigits: intDigits is the most
	// digits before the point (less than one for 0.05) and scale the most
	// after it
	intDigits, scale := math.MinInt, 0
	var prev []byte
	digitBytes, sampledBytes := 0, 0
	for i := 0; i < n; i++ {
		x := b.Value(i)
		l := len(x)
		if i&7 == 0 {
			sampledBytes += l
			digitBytes += fieldDigits(x)
		}
		if l < st.MinLen {
			st.MinLen = l
		}
		if l > st.MaxLen {
			st.MaxLen = l
		}
		if digits {
			digits = l <= MaxDigits && allDigits(x)
		}
		if hex.ok || hex.only {
			hex.add(x)
		}
		if numbers != 0 {
			_, f := ParseNumber(x)
			if numbers&NumDecimal != 0 && f&NumPlain != 0 {
				// an integer of at most MaxDecimalDigits digits is a
				// decimal of no fraction digits (its text, without a
				// sign, is its digits, "0" counting none): no second parse
				d := len(x)
				if x[0] == '-' {
					d--
				}
				if x[0] == '0' {
					d = 0
				}
				if d <= MaxDecimalDigits {
					f |= NumDecimal
					intDigits = max(intDigits, d)
				}
			} else if numbers&NumDecimal != 0 {
				if m, sc, ok := ParseDecimal(x); ok {
					f |= NumDecimal
					intDigits, scale = max(intDigits, ScaledDigits(m)-sc), max(scale, sc)
				}
			}
			numbers &= f
		}
		if i > 0 {
			p := CommonPrefix(prev, x)
			st.PrefixBytes += p
			if p < len(x) || p < len(prev) {
				runs++
				if sorted && p < len(prev) && (p == len(x) || x[p] < prev[p]) {
					sorted = false
				}
			}
		}
		prev = x
	}
	if numbers&NumDecimal != 0 && intDigits+scale > MaxDecimalDigits {
		numbers &^= NumDecimal // some value scaled to the others' fraction digits passes an int64
	}
	st.Runs, st.Sorted, st.Digits, st.Numbers = runs, sorted, digits, numbers
	if sampledBytes > 0 {
		st.DigitShare = float64(digitBytes) / float64(sampledBytes)
	}
	st.Hex = hex.ok && hex.digits > 0 && hex.cases != 3
	st.HexDigits = hex.only && hex.cases != 3
	distinct(st, n, func(i int) uint64 { return xxh3.Hash(b.Value(i)) })
}

// fieldDigits returns the count of bytes of x that are ASCII digits in
// maximal runs of 1 to MaxDigits digits.
func fieldDigits(x []byte) int {
	n, run := 0, 0
	for _, c := range x {
		if c-'0' < 10 {
			run++
			continue
		}
		if run <= MaxDigits {
			n += run
		}
		run = 0
	}
	if run <= MaxDigits {
		n += run
	}
	return n
}

// distinct counts distinct keys (and the most frequent one) with an
// open-addressing table, giving up once DistinctCap is passed.
func distinct(st *Stats, n int, key func(int) uint64) {
	if st.skipDistinct {
		st.Distinct, st.DistinctExact = n, false
		return
	}
	limit := DistinctCap(n)
	size := 64
	for size < 2*limit && size < 2*n {
		size <<= 1
	}
	shift := 64 - bits.TrailingZeros(uint(size))
	sc := getDistinctScratch(size)
	defer distinctPool.Put(sc)
	keys, counts, first := sc.keys[:size], sc.counts[:size], sc.first[:size]
	// keys and first are written when a slot is taken (counts 0), so only
	// counts must start cleared
	clear(counts)
	mask := uint64(size - 1)
	d := 0
	for i := 0; i < n; i++ {
		k := key(i)
		h := (k * 0x9E3779B97F4A7C15) >> shift
		for {
			if counts[h] == 0 {
				if d == limit {
					st.Distinct, st.DistinctExact = d+1, false
					st.fillMode(keys, counts, first)
					return
				}
				keys[h], counts[h], first[h] = k, 1, int32(i)
				d++
				break
			}
			if keys[h] == k {
				counts[h]++
				break
			}
			h = (h + 1) & mask
		}
	}
	st.Distinct, st.DistinctExact = d, true
	st.fillMode(keys, counts, first)
}

// distinctInts is distinct for integers, each its own key (uint64(x),
// which sign-extends signed values), with the key computed in the loop
// rather than through a call per value: statistics are computed for every
// trial's children, and the call was a third of the count's time. It
// fills st exactly as distinct does with that key.
func distinctInts[T Integer](st *Stats, v []T) {
	if st.skipDistinct {
		st.Distinct, st.DistinctExact = len(v), false
		return
	}
	n := len(v)
	limit := DistinctCap(n)
	size := 64
	for size < 2*limit && size < 2*n {
		size <<= 1
	}
	shift := 64 - bits.TrailingZeros(uint(size))
	sc := getDistinctScratch(size)
	defer distinctPool.Put(sc)
	keys, counts, first := sc.keys[:size], sc.counts[:size], sc.first[:size]
	clear(counts)
	mask := uint64(size - 1)
	d := 0
	for i, x := range v {
		k := uint64(x)
		h := (k * 0x9E3779B97F4A7C15) >> shift
		for {
			if counts[h] == 0 {
				if d == limit {
					st.Distinct, st.DistinctExact = d+1, false
					st.fillMode(keys, counts, first)
					return
				}
				keys[h], counts[h], first[h] = k, 1, int32(i)
				d++
				break
			}
			if keys[h] == k {
				counts[h]++
				break
			}
			h = (h + 1) & mask
		}
	}
	st.Distinct, st.DistinctExact = d, true
	st.fillMode(keys, counts, first)
}

// distinctScratch is the hash table of one distinct count. Selection
// computes statistics for every candidate's children and every trial
// sample, so the tables are pooled rather than allocated (and zeroed) per
// sequence: they were a quarter of the bytes a small file's write
// allocated.
type distinctScratch struct {
	keys          []uint64
	counts, first []int32
}

var distinctPool sync.Pool

// getDistinctScratch returns pooled tables of at least size slots.
func getDistinctScratch(size int) *distinctScratch {
	sc, _ := distinctPool.Get().(*distinctScratch)
	if sc == nil {
		sc = &distinctScratch{}
	}
	if cap(sc.keys) < size {
		sc.keys, sc.counts, sc.first = make([]uint64, size), make([]int32, size), make([]int32, size)
	}
	return sc
}

func (st *Stats) fillMode(keys []uint64, counts, first []int32) {
	for i, c := range counts {
		if int(c) > st.ModeCount {
			st.ModeCount, st.ModeIndex = int(c), int(first[i])
		}
	}
}

// MaxDigits is the longest digit string Stats.Digits accepts: every string
// of up to 19 decimal digits has a value below 10^19, which fits a uint64.
const MaxDigits = 19

// MaxHexLen is the longest value HexText is offered for (Stats.Hex).
const MaxHexLen = 1024

// hexClass sorts bytes for the hex check: 0 not a hex digit, 1 a decimal
// digit, 2 a lowercase and 3 an uppercase letter digit.
var hexClass = func() (t [256]uint8) {
	for c := '0'; c <= '9'; c++ {
		t[c] = 1
	}
	for c := 'a'; c <= 'f'; c++ {
		t[c] = 2
	}
	for c := 'A'; c <= 'F'; c++ {
		t[c] = 3
	}
	return
}()

// hexCheck follows Stats.Hex and Stats.HexDigits over the values of a
// sequence: the first value sets the template, the others must fit it
// (ok); every value is at most 16 hex digits (only).
type hexCheck struct {
	ok, only bool
	first    []byte
	digits   int // digit positions of the template
	cases    int // bit 0: a lowercase letter seen, bit 1: an uppercase one
}

func (h *hexCheck) add(x []byte) {
	if h.only {
		if len(x) > 16 {
			h.only = false
		} else {
			for _, c := range x {
				k := hexClass[c]
				if k == 0 {
					h.only = false
					break
				}
				if k > 1 {
					h.cases |= int(k - 1)
				}
			}
		}
	}
	if !h.ok {
		return
	}
	if h.first == nil {
		if len(x) == 0 || len(x) > MaxHexLen {
			h.ok = false
			return
		}
		h.first = x
		for _, c := range x {
			if k := hexClass[c]; k != 0 {
				h.digits++
				if k > 1 {
					h.cases |= int(k - 1)
				}
			}
		}
		h.ok = h.digits > 0
		return
	}
	if len(x) != len(h.first) {
		h.ok = false
		return
	}
	for j, c := range x {
		k, t := hexClass[c], h.first[j]
		if hexClass[t] == 0 {
			if c != t {
				h.ok = false
				return
			}
			continue
		}
		if k == 0 {
			h.ok = false
			return
		}
		if k > 1 {
			h.cases |= int(k - 1)
		}
	}
	if h.cases == 3 {
		h.ok = false
	}
}

func allDigits(x []byte) bool {
	for _, c := range x {
		if c-'0' > 9 {
			return false
		}
	}
	return true
}

// Number forms: the canonical decimal texts of an int64 (Stats.Numbers).
// Both have an optional minus sign, then the digits of the magnitude with
// no leading zero ("0" alone for zero, never "-0"); NumGrouped puts a
// comma between every three digits counted from the right ("-1,234,567"),
// NumPlain none ("-1234567"). Values below 1,000 in magnitude have both.
// NumDecimal is the plain form optionally followed by a point and one or
// more fraction digits ("-0.50", "42.53176"; see ParseDecimal): every
// NumPlain value has it too.
const (
	NumPlain uint8 = 1 << iota
	NumGrouped
	NumDecimal
)

// Pow10 holds 10^0 to 10^MaxDigits, every power of ten a uint64 holds.
var Pow10 = func() (p [MaxDigits + 1]uint64) {
	p[0] = 1
	for i := 1; i <= MaxDigits; i++ {
		p[i] = p[i-1] * 10
	}
	return
}()

// DecimalDigits returns the number of decimal digits of v (1 for 0).
func DecimalDigits(v uint64) int {
	// bits.Len64(v)*1233>>12 is floor(log10(2^bits)), one below or equal
	// to the digit count less one; a comparison settles which
	d := (bits.Len64(v) * 1233) >> 12
	if d < MaxDigits+1 && v >= Pow10[d] {
		d++
	}
	return max(d, 1)
}

// ScaledDigits is the number of decimal digits of |m|, 0 for 0: the
// digits that scaling m by a power of ten must keep within
// MaxDecimalDigits (zero scales to zero at any power). Statistics and
// NumText's encoder hold decimal text to the same bound through it.
func ScaledDigits(m int64) int {
	if m == 0 {
		return 0
	}
	u := uint64(m)
	if m < 0 {
		u = -u
	}
	return DecimalDigits(u)
}

// MaxDecimalDigits is the most digits (before and after the point) a
// NumDecimal text may have: any such magnitude, scaled by a power of ten
// that keeps it within MaxDecimalDigits digits, fits an int64.
const MaxDecimalDigits = 18

// ParseDecimal returns the digits of x as an integer m and the number of
// its fraction digits s (x is m·10^-s), or ok false when x is not a
// canonical decimal text: an optional minus sign, the integer part with
// no leading zero ("0" alone), then optionally a point and at least one
// digit; at most MaxDecimalDigits digits in all (not counting a zero
// integer part), and never zero with a sign ("-0", "-0.00"). Trailing
// fraction zeros are part of the text ("1.50" has s 2), which is why s
// is kept apart from m.
func ParseDecimal(x []byte) (m int64, s int, ok bool) {
	if len(x) == 0 {
		return 0, 0, false
	}
	neg := x[0] == '-'
	if neg {
		x = x[1:]
	}
	if len(x) == 0 || x[0] == '.' || (x[0] == '0' && len(x) > 1 && x[1] != '.') {
		return 0, 0, false
	}
	var u int64
	digits, point := 0, -1
	for i, c := range x {
		if c == '.' {
			if point >= 0 || i == len(x)-1 {
				return 0, 0, false
			}
			point = i
			continue
		}
		if c < '0' || c > '9' {
			return 0, 0, false
		}
		if i == 0 && c == '0' {
			continue // the zero before a point adds no digit to m
		}
		if digits++; digits > MaxDecimalDigits {
			return 0, 0, false
		}
		u = u*10 + int64(c-'0')
	}
	if point >= 0 {
		s = len(x) - point - 1
	}
	if neg {
		if u == 0 {
			return 0, 0, false
		}
		u = -u
	}
	return u, s, true
}

// AppendDecimal appends the canonical decimal text of m·10^-s (0 ≤ s ≤
// 40): ParseDecimal's inverse.
func AppendDecimal(dst []byte, m int64, s int) []byte {
	// the digits are written from the right into buf, two at a time
	// where two remain on the side of the point being written
	var buf [48]byte
	i := len(buf)
	u := uint64(m)
	if m < 0 {
		u = -u
	}
	s = min(s, 40)
	for k := s; k > 0; {
		if k >= 2 {
			r := 2 * (u % 100)
			u /= 100
			i -= 2
			buf[i], buf[i+1] = pairs[r], pairs[r+1]
			k -= 2
			continue
		}
		i--
		buf[i] = byte('0' + u%10)
		u /= 10
		k--
	}
	if s > 0 {
		i--
		buf[i] = '.'
	}
	for u >= 100 {
		r := 2 * (u % 100)
		u /= 100
		i -= 2
		buf[i], buf[i+1] = pairs[r], pairs[r+1]
	}
	if u >= 10 {
		i -= 2
		buf[i], buf[i+1] = pairs[2*u], pairs[2*u+1]
	} else {
		i--
		buf[i] = byte('0' + u)
	}
	if m < 0 {
		i--
		buf[i] = '-'
	}
	return append(dst, buf[i:]...)
}

// pairs holds "00" to "99", two bytes each.
const pairs = "0001020304050607080910111213141516171819202122232425262728293031323334353637383940414243444546474849" +
	"5051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"

// MaxNumberLen is the longest canonical number text: a sign, 19 digits
// and 6 commas.
const MaxNumberLen = 26

// ParseNumber returns the int64 whose canonical text x is and the forms x
// has (NumPlain, NumGrouped or both), or forms 0 when x is not the
// canonical text of an int64 in either form.
func ParseNumber(x []byte) (v int64, forms uint8) {
	if len(x) == 0 || len(x) > MaxNumberLen {
		return 0, 0
	}
	neg := x[0] == '-'
	if neg {
		x = x[1:]
		if len(x) == 0 {
			return 0, 0
		}
	}
	if x[0] == '0' {
		if len(x) == 1 && !neg {
			return 0, NumPlain | NumGrouped
		}
		return 0, 0
	}
	var m uint64
	digits, commas := 0, 0 // digits since the last comma
	for i, c := range x {
		if c == ',' {
			// a comma must follow the first group (1-3 digits) or a
			// whole group of three
			if i == 0 || (commas == 0 && digits > 3) || (commas > 0 && digits != 3) {
				return 0, 0
			}
			commas++
			digits = 0
			continue
		}
		d := uint64(c - '0')
		if d > 9 {
			return 0, 0
		}
		if m > (math.MaxUint64-d)/10 {
			return 0, 0
		}
		m = m*10 + d
		digits++
	}
	grouped := digits == 3 // the last group is whole
	limit := uint64(math.MaxInt64)
	if neg {
		limit++
	}
	if m > limit {
		return 0, 0
	}
	v = int64(m)
	if neg {
		v = -v // wraps to MinInt64 for its magnitude, as intended
	}
	switch {
	case commas > 0 && grouped:
		return v, NumGrouped
	case commas > 0:
		return 0, 0
	case digits <= 3:
		return v, NumPlain | NumGrouped
	}
	return v, NumPlain
}

// AppendNumber appends the canonical text of v in form NumPlain or
// NumGrouped (ParseNumber's inverse).
func AppendNumber(dst []byte, v int64, grouped bool) []byte {
	if !grouped {
		return strconv.AppendInt(dst, v, 10)
	}
	var buf [MaxNumberLen]byte
	i := len(buf)
	m := uint64(v)
	if v < 0 {
		m = -m // |MinInt64| too
	}
	for m >= 1000 {
		q := m / 1000
		r := 3 * (m - q*1000)
		i -= 4
		buf[i] = ','
		copy(buf[i+1:i+4], triples[r:r+3])
		m = q
	}
	switch r := 3 * m; {
	case m >= 100:
		i -= 3
		copy(buf[i:], triples[r:r+3])
	case m >= 10:
		i -= 2
		copy(buf[i:], triples[r+1:r+3])
	default:
		i--
		buf[i] = byte('0' + m)
	}
	if v < 0 {
		i--
		buf[i] = '-'
	}
	return append(dst, buf[i:]...)
}

// triples holds "000" to "999", three bytes each.
var triples = func() string {
	b := make([]byte, 0, 3000)
	for i := 0; i < 1000; i++ {
		b = append(b, byte('0'+i/100), byte('0'+i/10%10), byte('0'+i%10))
	}
	return string(b)
}()

// CommonPrefix returns the number of leading bytes a and b share.
func CommonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	for i+8 <= n {
		x := binary.LittleEndian.Uint64(a[i:]) ^ binary.LittleEndian.Uint64(b[i:])
		if x != 0 {
			return i + bits.TrailingZeros64(x)/8
		}
		i += 8
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

// b2i is 1 for true and 0 for false, compiled without a branch.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
