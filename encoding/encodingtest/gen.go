package encodingtest

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"strata/encoding"
)

// Shape names a data shape.
type Shape string

// Data shapes.
const (
	ShapeConstant       Shape = "constant"
	ShapeMainlyConstant Shape = "mainly-constant"
	ShapeSorted         Shape = "sorted"
	ShapeSortedRepeats  Shape = "sorted-repeats"
	ShapeLowCard        Shape = "low-cardinality"
	ShapeRandom         Shape = "random"
	ShapeExtremes       Shape = "extremes"    // min/max integers, NaN/±0/±Inf
	ShapeSmallRandom    Shape = "small-range" // random in a narrow range
	ShapeOutliers       Shape = "outliers"    // narrow range with rare huge values
	ShapeDecimal        Shape = "decimal"     // few decimal digits: prices, coordinates, zero-padded digit strings
	// ShapeEnds: integers near the top of their type's range with a few
	// at the bottom (a window above a base that wraps past the maximum;
	// BlockFOR once lost such a block); other types as ShapeExtremes.
	ShapeEnds Shape = "ends"
)

// Shapes lists every shape values of every type take.
var Shapes = []Shape{ShapeConstant, ShapeMainlyConstant, ShapeSorted, ShapeSortedRepeats,
	ShapeLowCard, ShapeRandom, ShapeExtremes, ShapeSmallRandom, ShapeOutliers, ShapeDecimal, ShapeEnds}

// Text shapes: forms of binary values that encodings exist for and that
// the shapes above produce rarely or never. They are binary only: Gen
// returns zero values for them.
const (
	// ShapeDigits is numbers as text (zip codes, ids, counts): 1 to 19
	// digits (encoding.MaxDigits), some zero-padded, a few empty or at the
	// extremes of 19 nines or zeros; every value is all ASCII digits
	// (Stats.Digits).
	ShapeDigits Shape = "digits"
	// ShapeClustered is runs of values sharing a stem (paths, names grouped
	// by key), the runs in random order: neighbours share long prefixes
	// (Stats.PrefixBytes) but the values are not sorted. Stems mix ASCII,
	// multi-byte UTF-8, 0x00 and 0xff; a few values are cut short inside
	// their stem, some to nothing.
	ShapeClustered Shape = "clustered"
	// ShapeNumbers is signed integers as canonical text (amounts, counts,
	// signed ids; Stats.Numbers): magnitudes of 1 to 19 digits, zero and
	// the int64 extremes, written with a comma between every three digits
	// in sequences of odd length and without in sequences of even length,
	// so that both number forms occur.
	ShapeNumbers Shape = "numbers"
	// ShapeDecimals is decimal fractions as canonical text (coordinates
	// and prices that JSON sources quote; Stats.Numbers NumDecimal): up to
	// eight digits and zero to ten fraction digits, the count varying from
	// value to value (trailing zeros kept), integers and zero among them.
	ShapeDecimals Shape = "decimals"
	// ShapeHex is values of one template of hex digits and separators
	// (Stats.Hex), the template chosen by the length: lowercase UUIDs
	// (32 digits), uppercase MAC addresses with a fixed first half (12),
	// 33 lowercase digits without separators (an odd count over 16),
	// uppercase ids of 5 digits, and uppercase hex numbers of 0 to 16
	// digits (Unicode code points; HexText's widths form); a few values are
	// all zeros, all 'f's or decimal digits only.
	ShapeHex Shape = "hex"
	// ShapeFields is text with decimal numbers inside it (log lines, URLs
	// with ids, times, versions; FieldText): a few templates whose numbers
	// vary, some zero-padded, some of more than 19 digits or past the
	// sixteenth number of a value, with 0xff bytes and multi-byte UTF-8
	// in the text; a few values hold no number or are empty.
	ShapeFields Shape = "fields"
)

// TextShapes lists the binary-only shapes.
var TextShapes = []Shape{ShapeDigits, ShapeClustered, ShapeNumbers, ShapeDecimals, ShapeHex, ShapeFields}

// ShapesFor returns the shapes values of typ are tested in: Shapes, and
// TextShapes after them for Binary.
func ShapesFor(typ encoding.Type) []Shape {
	if typ == encoding.Binary {
		return append(slices.Clip(Shapes), TextShapes...)
	}
	return Shapes
}

// Gen returns n values of type T in the given shape, deterministic for seed.
func Gen[T encoding.Fixed](shape Shape, n int, seed uint64) []T {
	r := rand.New(rand.NewPCG(seed, uint64(n)))
	out := make([]T, n)
	typ := encoding.TypeFor[T]()
	extremes := extremeValues[T]()
	rnd := func() T { return fromBits[T](r.Uint64()) }
	small := func(k uint64) T { return fromSmall[T](r.Uint64N(k)) }
	switch shape {
	case ShapeConstant:
		c := rnd()
		for i := range out {
			out[i] = c
		}
	case ShapeMainlyConstant:
		c := small(100)
		for i := range out {
			out[i] = c
			if r.IntN(20) == 0 {
				out[i] = rnd()
			}
		}
	case ShapeSorted:
		v := uint64(0)
		for i := range out {
			v += r.Uint64N(5)
			out[i] = fromSmall[T](v)
		}
		if typ != encoding.Bool {
			slices.SortFunc(out, cmpT[T])
		}
	case ShapeSortedRepeats:
		v := uint64(0)
		for i := range out {
			if r.IntN(4) == 0 {
				v += r.Uint64N(30)
			}
			out[i] = fromSmall[T](v)
		}
		if typ != encoding.Bool {
			slices.SortFunc(out, cmpT[T])
		}
	case ShapeLowCard:
		alpha := make([]T, 1+r.IntN(12))
		for i := range alpha {
			alpha[i] = rnd()
		}
		for i := range out {
			out[i] = alpha[r.IntN(len(alpha))]
		}
	case ShapeRandom:
		for i := range out {
			out[i] = rnd()
		}
	case ShapeExtremes:
		for i := range out {
			out[i] = extremes[r.IntN(len(extremes))]
		}
	case ShapeEnds:
		for i := range out {
			out[i] = extremes[r.IntN(len(extremes))]
		}
		nearEnds(r, out)
	case ShapeSmallRandom:
		base := r.Uint64N(1000)
		for i := range out {
			out[i] = fromSmall[T](base + r.Uint64N(64))
		}
	case ShapeOutliers:
		for i := range out {
			out[i] = small(16)
			if r.IntN(200) == 0 {
				out[i] = rnd()
			}
		}
	case ShapeDecimal:
		for i := range out {
			out[i] = decimal[T](r.Int64N(200001) - 100000)
		}
	}
	return out
}

// decimal makes a T from k: k/100 for floats (two decimal digits), k
// shifted to be non-negative and rounded to hundreds for integers (wrapping
// in narrow types), k's parity for bools.
func decimal[T encoding.Fixed](k int64) T {
	var z T
	switch any(z).(type) {
	case bool:
		return any(k&1 == 1).(T)
	case float32:
		return any(float32(k) / 100).(T)
	case float64:
		return any(float64(k) / 100).(T)
	}
	return fromSmall[T](uint64((k + 100000) / 100 * 100))
}

func cmpT[T encoding.Fixed](a, b T) int {
	switch x := any(a).(type) {
	case bool:
		y := any(b).(bool)
		if x == y {
			return 0
		}
		if !x {
			return -1
		}
		return 1
	}
	return cmpNum(a, b)
}

func cmpNum[T encoding.Fixed](a, b T) int {
	switch x := any(a).(type) {
	case int8:
		return cmpOrd(x, any(b).(int8))
	case int16:
		return cmpOrd(x, any(b).(int16))
	case int32:
		return cmpOrd(x, any(b).(int32))
	case int64:
		return cmpOrd(x, any(b).(int64))
	case uint8:
		return cmpOrd(x, any(b).(uint8))
	case uint16:
		return cmpOrd(x, any(b).(uint16))
	case uint32:
		return cmpOrd(x, any(b).(uint32))
	case uint64:
		return cmpOrd(x, any(b).(uint64))
	case float32:
		return cmpOrd(x, any(b).(float32))
	case float64:
		return cmpOrd(x, any(b).(float64))
	}
	return 0
}

func cmpOrd[T int8 | int16 | int32 | int64 | uint8 | uint16 | uint32 | uint64 | float32 | float64](a, b T) int {
	if a < b {
		return -1
	}
	if a > b {
		return 1
	}
	return 0
}

// fromBits makes a T from random bits (floats may be any bit pattern).
func fromBits[T encoding.Fixed](u uint64) T {
	var z T
	switch any(z).(type) {
	case bool:
		return any(u&1 == 1).(T)
	case int8:
		return any(int8(u)).(T)
	case int16:
		return any(int16(u)).(T)
	case int32:
		return any(int32(u)).(T)
	case int64:
		return any(int64(u)).(T)
	case uint8:
		return any(uint8(u)).(T)
	case uint16:
		return any(uint16(u)).(T)
	case uint32:
		return any(uint32(u)).(T)
	case uint64:
		return any(u).(T)
	case float32:
		return any(float32(int64(u>>20)) / 1024).(T)
	case float64:
		return any(float64(int64(u>>11)) / 4096).(T)
	}
	return z
}

// fromSmall makes a T from a small non-negative number (bools alternate).
func fromSmall[T encoding.Fixed](u uint64) T {
	var z T
	switch any(z).(type) {
	case bool:
		return any(u&1 == 1).(T)
	case int8:
		return any(int8(u)).(T)
	case int16:
		return any(int16(u)).(T)
	case int32:
		return any(int32(u)).(T)
	case int64:
		return any(int64(u)).(T)
	case uint8:
		return any(uint8(u)).(T)
	case uint16:
		return any(uint16(u)).(T)
	case uint32:
		return any(uint32(u)).(T)
	case uint64:
		return any(u).(T)
	case float32:
		return any(float32(u)).(T)
	case float64:
		return any(float64(u)).(T)
	}
	return z
}

// nearEnds fills integer values with ones within 10 of their type's
// maximum and, one in eight, within 2 of its minimum; other types are
// left as they are.
func nearEnds(r *rand.Rand, out any) {
	switch v := out.(type) {
	case []int8:
		fillEnds(r, v, math.MinInt8, math.MaxInt8)
	case []int16:
		fillEnds(r, v, math.MinInt16, math.MaxInt16)
	case []int32:
		fillEnds(r, v, math.MinInt32, math.MaxInt32)
	case []int64:
		fillEnds(r, v, math.MinInt64, math.MaxInt64)
	case []uint8:
		fillEnds(r, v, 0, math.MaxUint8)
	case []uint16:
		fillEnds(r, v, 0, math.MaxUint16)
	case []uint32:
		fillEnds(r, v, 0, math.MaxUint32)
	case []uint64:
		fillEnds(r, v, 0, math.MaxUint64)
	}
}

func fillEnds[T encoding.Integer](r *rand.Rand, out []T, lo, hi T) {
	for i := range out {
		out[i] = hi - T(r.IntN(10))
		if r.IntN(8) == 0 {
			out[i] = lo + T(r.IntN(2))
		}
	}
}

func extremeValues[T encoding.Fixed]() []T {
	var z T
	var out []any
	switch any(z).(type) {
	case bool:
		out = []any{true, false}
	case int8:
		out = []any{int8(math.MinInt8), int8(math.MaxInt8), int8(0), int8(-1)}
	case int16:
		out = []any{int16(math.MinInt16), int16(math.MaxInt16), int16(0), int16(-1)}
	case int32:
		out = []any{int32(math.MinInt32), int32(math.MaxInt32), int32(0), int32(-1)}
	case int64:
		out = []any{int64(math.MinInt64), int64(math.MaxInt64), int64(0), int64(-1)}
	case uint8:
		out = []any{uint8(0), uint8(math.MaxUint8), uint8(1)}
	case uint16:
		out = []any{uint16(0), uint16(math.MaxUint16), uint16(1)}
	case uint32:
		out = []any{uint32(0), uint32(math.MaxUint32), uint32(1)}
	case uint64:
		out = []any{uint64(0), uint64(math.MaxUint64), uint64(1)}
	case float32:
		out = []any{float32(math.NaN()), math.Float32frombits(0x7fc00001), float32(math.Copysign(0, -1)), float32(0),
			float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.MaxFloat32), float32(math.SmallestNonzeroFloat32)}
	case float64:
		out = []any{math.NaN(), math.Float64frombits(0x7ff8000000000123), math.Copysign(0, -1), 0.0,
			math.Inf(1), math.Inf(-1), math.MaxFloat64, math.SmallestNonzeroFloat64}
	}
	res := make([]T, len(out))
	for i, v := range out {
		res[i] = v.(T)
	}
	return res
}

// GenBytes returns n binary values in the given shape.
func GenBytes(shape Shape, n int, seed uint64) encoding.Bytes {
	r := rand.New(rand.NewPCG(seed, uint64(n)+7))
	word := func(l int) []byte {
		b := make([]byte, l)
		for i := range b {
			b[i] = byte('a' + r.IntN(26))
		}
		return b
	}
	var out encoding.Bytes
	out.Offsets = append(out.Offsets, 0)
	switch shape {
	case ShapeConstant:
		w := word(r.IntN(20))
		for i := 0; i < n; i++ {
			out.Append(w)
		}
	case ShapeMainlyConstant:
		w := word(5)
		for i := 0; i < n; i++ {
			if r.IntN(20) == 0 {
				out.Append(word(r.IntN(30)))
			} else {
				out.Append(w)
			}
		}
	case ShapeSorted, ShapeSortedRepeats:
		vals := make([]string, n)
		for i := range vals {
			vals[i] = string(word(1 + r.IntN(6)))
		}
		slices.Sort(vals)
		for _, v := range vals {
			out.Append([]byte(v))
		}
	case ShapeLowCard:
		alpha := make([][]byte, 1+r.IntN(12))
		for i := range alpha {
			alpha[i] = word(r.IntN(12))
		}
		for i := 0; i < n; i++ {
			out.Append(alpha[r.IntN(len(alpha))])
		}
	case ShapeExtremes, ShapeEnds:
		for i := 0; i < n; i++ {
			switch r.IntN(4) {
			case 0:
				out.Append(nil)
			case 1:
				out.Append([]byte{0, 0xff, 0})
			case 2:
				out.Append(bytes.Repeat([]byte{0xff}, r.IntN(300)))
			default:
				out.Append(word(1))
			}
		}
	case ShapeDecimal:
		for i := 0; i < n; i++ {
			out.Append(fmt.Appendf(nil, "%05d", r.IntN(100000)))
		}
	case ShapeDigits:
		extremes := []string{"0", "00", "9999999999999999999", "0000000000000000000"}
		for i := 0; i < n; i++ {
			w := 1 + r.IntN(encoding.MaxDigits)
			v := r.Uint64N(pow10(w))
			switch k := r.IntN(64); {
			case k == 0:
				out.Append(nil)
			case k == 1:
				out.Append([]byte(extremes[r.IntN(len(extremes))]))
			case k < 10:
				out.Append(fmt.Appendf(nil, "%0*d", w+r.IntN(encoding.MaxDigits-w+1), v))
			default:
				out.Append(strconv.AppendUint(nil, v, 10))
			}
		}
	case ShapeNumbers:
		extremes := []int64{0, math.MinInt64, math.MaxInt64, -1, 999, -1000}
		for i := 0; i < n; i++ {
			var v int64
			switch k := r.IntN(64); {
			case k == 0:
				v = extremes[r.IntN(len(extremes))]
			case k < 16:
				v = int64(r.IntN(2001)) - 1000
			default:
				v = int64(r.Uint64N(pow10(1 + r.IntN(encoding.MaxDigits))))
				if r.IntN(3) == 0 {
					v = -v
				}
			}
			out.Append(encoding.AppendNumber(nil, v, n%2 == 1))
		}
	case ShapeDecimals:
		for i := 0; i < n; i++ {
			m := int64(r.Uint64N(pow10(1 + r.IntN(8))))
			if r.IntN(3) == 0 {
				m = -m
			}
			out.Append(encoding.AppendDecimal(nil, m, r.IntN(11)))
		}
	case ShapeHex:
		templates := []string{"00000000-0000-0000-0000-000000000000", "00:1B:21:00:00:00",
			"000000000000000000000000000000000", "00000", ""}
		tm := templates[(n+n/7+n/1000)%len(templates)]
		if tm == "" {
			for i := 0; i < n; i++ {
				w := r.IntN(17)
				if r.IntN(4) > 0 {
					w = 4 + r.IntN(3)
				}
				v := r.Uint64()
				if w < 16 {
					v &= 1<<(4*w) - 1
				}
				out.Append(fmt.Appendf(nil, "%0*X", w, v)[:w])
			}
			break
		}
		alpha := "0123456789abcdef"
		if strings.ContainsAny(tm, "B") || len(tm) == 5 {
			alpha = "0123456789ABCDEF"
		}
		for i := 0; i < n; i++ {
			v := []byte(tm)
			k := r.IntN(32)
			for j := range v {
				if v[j] != '0' || (len(tm) == 17 && j < 8) {
					continue
				}
				switch {
				case k == 0: // all zeros
				case k == 1:
					v[j] = alpha[15]
				case k == 2:
					v[j] = alpha[r.IntN(10)]
				default:
					v[j] = alpha[r.IntN(16)]
				}
			}
			out.Append(v)
		}
	case ShapeFields:
		num := func() uint64 {
			switch r.IntN(16) {
			case 0:
				return 0
			case 1:
				return 9999999999999999999 // 19 nines: the longest field
			case 2:
				return r.Uint64N(1 << 40)
			}
			return r.Uint64N(100000)
		}
		for i := 0; i < n; i++ {
			var v []byte
			switch r.IntN(8) {
			case 0:
				v = fmt.Appendf(nil, "GET /api/v%d/users/%d?page=%d HTTP/1.1", 1+r.IntN(3), num(), r.IntN(50))
			case 1:
				v = fmt.Appendf(nil, "%04d-%02d-%02d %02d:%02d:%02d.%03d", 2000+r.IntN(30), 1+r.IntN(12), 1+r.IntN(28),
					r.IntN(24), r.IntN(60), r.IntN(60), r.IntN(1000))
			case 2:
				v = fmt.Appendf(nil, "%dkm SSW of Tōkyō \xff %d", num(), num())
			case 3:
				v = fmt.Appendf(nil, "order %d0000000000000000000%d", r.IntN(100), num()) // a run of over 19 digits
			case 4:
				for k := 0; k < 18; k++ { // past the sixteenth number
					v = fmt.Appendf(v, "%d,", r.IntN(1000))
				}
			case 5:
				v = fmt.Appendf(nil, "{\"id\":%d,\"v\":\"%d.%d.%d\",\"ok\":true}", num(), r.IntN(10), r.IntN(20), r.IntN(100))
			case 6:
				v = fmt.Appendf(nil, "code %03d", r.IntN(1000))
			default:
				if r.IntN(2) == 0 {
					v = word(r.IntN(12))
				}
			}
			out.Append(v)
		}
	case ShapeClustered:
		pieces := []string{"a", "b", "c", "x", "/", " ", "\u00e9", "\u4e2d", "\x00", "\xff"}
		for out.Len() < n {
			var stem []byte
			for k := 3 + r.IntN(10); k > 0; k-- {
				stem = append(stem, pieces[r.IntN(len(pieces))]...)
			}
			for k := 1 + r.IntN(30); k > 0 && out.Len() < n; k-- {
				v := append(slices.Clip(stem), word(r.IntN(5))...)
				if r.IntN(16) == 0 {
					v = v[:r.IntN(len(v)+1)]
				}
				out.Append(v)
			}
		}
	default:
		for i := 0; i < n; i++ {
			out.Append(word(r.IntN(40)))
		}
	}
	return out
}

// pow10 returns 10^k for k <= encoding.MaxDigits.
func pow10(k int) uint64 {
	p := uint64(1)
	for ; k > 0; k-- {
		p *= 10
	}
	return p
}

// Nulls names a validity pattern: which rows of a nullable sequence are
// null.
type Nulls string

// Validity patterns.
const (
	AllNull     Nulls = "all-null"
	Alternating Nulls = "alternating-nulls" // every other row null
	RandomNulls Nulls = "random-nulls"      // about a third null
	SparseNulls Nulls = "sparse-nulls"      // about one in fifty null
)

// NullPatterns lists every validity pattern.
var NullPatterns = []Nulls{AllNull, Alternating, RandomNulls, SparseNulls}

// Validity returns n validity flags in the given pattern, deterministic
// for seed.
func Validity(pattern Nulls, n int, seed uint64) []bool {
	r := rand.New(rand.NewPCG(seed, 11))
	v := make([]bool, n)
	for i := range v {
		switch pattern {
		case AllNull:
		case Alternating:
			v[i] = i%2 == 1
		case RandomNulls:
			v[i] = r.IntN(3) != 0
		case SparseNulls:
			v[i] = r.IntN(50) != 0
		default:
			v[i] = true
		}
	}
	return v
}

// Values returns n values of physical type typ in the given shape: a []T
// for fixed-width types, encoding.Bytes for Binary.
func Values(typ encoding.Type, shape Shape, n int, seed uint64) any {
	switch typ {
	case encoding.Bool:
		return Gen[bool](shape, n, seed)
	case encoding.Int8:
		return Gen[int8](shape, n, seed)
	case encoding.Int16:
		return Gen[int16](shape, n, seed)
	case encoding.Int32:
		return Gen[int32](shape, n, seed)
	case encoding.Int64:
		return Gen[int64](shape, n, seed)
	case encoding.Uint8:
		return Gen[uint8](shape, n, seed)
	case encoding.Uint16:
		return Gen[uint16](shape, n, seed)
	case encoding.Uint32:
		return Gen[uint32](shape, n, seed)
	case encoding.Uint64:
		return Gen[uint64](shape, n, seed)
	case encoding.Float32:
		return Gen[float32](shape, n, seed)
	case encoding.Float64:
		return Gen[float64](shape, n, seed)
	case encoding.Binary:
		return GenBytes(shape, n, seed)
	}
	return nil
}
