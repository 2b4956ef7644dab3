package filter

import (
	"encoding/binary"
	"math/big"
	"slices"
	"strings"

	"strata/encoding"
	"strata/stats"
)

// WideDecimalBytes is the size of a stored wide decimal: a 128-bit two's
// complement integer, little endian (docs/FORMAT.md, "Schema", kind 16).
const WideDecimalBytes = 16

// int128 is a signed 128-bit integer, the unscaled value of a wide decimal.
type int128 struct {
	hi int64
	lo uint64
}

// decodeInt128 reads a stored wide decimal; ok is false when b is not
// WideDecimalBytes long.
func decodeInt128(b []byte) (v int128, ok bool) {
	if len(b) != WideDecimalBytes {
		return int128{}, false
	}
	return int128{hi: int64(binary.LittleEndian.Uint64(b[8:])), lo: binary.LittleEndian.Uint64(b[:8])}, true
}

// cmp compares as signed integers: the high words signed, then the low
// words unsigned.
func (a int128) cmp(b int128) int {
	switch {
	case a.hi < b.hi:
		return -1
	case a.hi > b.hi:
		return 1
	case a.lo < b.lo:
		return -1
	case a.lo > b.lo:
		return 1
	}
	return 0
}

// minInt128 and maxInt128 bound every value 16 bytes can store: the
// domain a literal is clamped to, as an int32 column's literals are
// clamped to the int32 range.
var (
	maxInt128 = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 127), big.NewInt(1))
	minInt128 = new(big.Int).Neg(new(big.Int).Lsh(big.NewInt(1), 127))
)

// wideValue encodes v, which must lie in [minInt128, maxInt128], as a
// stored wide decimal: a Binary value whose bytes equal the stored bytes
// of the same number, so that equality (and bloom filter hashes) of the
// encodings is equality of the numbers. Its byte order is not their order.
func wideValue(v *big.Int) stats.Value {
	// Two's complement in 128 bits: v mod 2^128.
	u := new(big.Int).Set(v)
	if u.Sign() < 0 {
		u.Add(u, new(big.Int).Lsh(big.NewInt(1), 128))
	}
	var be [WideDecimalBytes]byte
	u.FillBytes(be[:])
	b := make([]byte, WideDecimalBytes)
	for i := range be {
		b[i] = be[WideDecimalBytes-1-i]
	}
	return stats.Bytes(b)
}

// wideBig is the number a stored wide decimal holds (nil when b is not 16
// bytes long).
func wideBig(b []byte) *big.Int {
	v, ok := decodeInt128(b)
	if !ok {
		return nil
	}
	n := big.NewInt(v.hi)
	n.Lsh(n, 64)
	return n.Add(n, new(big.Int).SetUint64(v.lo))
}

// wideText writes a stored wide decimal of the given scale as a number
// literal ("-12.50"), or "?" when it is not 16 bytes long.
func wideText(b []byte, scale int) string {
	n := wideBig(b)
	if n == nil {
		return "?"
	}
	digits := new(big.Int).Abs(n).String()
	if scale > 0 {
		if len(digits) <= scale {
			digits = strings.Repeat("0", scale-len(digits)+1) + digits
		}
		digits = digits[:len(digits)-scale] + "." + digits[len(digits)-scale:]
	}
	if n.Sign() < 0 {
		return "-" + digits
	}
	return digits
}

// WideDecimalPred is the predicate of a bound leaf on a wide decimal (a
// decimal of precision above MaxDecimalPrecision, stored as 16-byte little
// endian two's complement binary): it compares the stored values as signed
// 128-bit integers. It is a type of its own, not an encoding.BytesPred,
// because the bytes of these values do not order like the numbers (-1 is
// ff…ff, above every positive value; 256 is 00 01 00…, below 1): decoders
// that compare bytes, sort dictionaries bytewise or turn a predicate into
// a range of dictionary ids must never see it. Readers decode the values
// and call Match.
type WideDecimalPred struct {
	op  encoding.Op // OpEq … OpIn; OpIn with an empty set matches nothing
	all bool        // every value matches (a bound OpAll)
	a   int128
	b   int128
	set []int128 // OpIn, sorted ascending, without duplicates
}

// Match reports whether the stored value v (16 bytes) satisfies p. A value
// of another length is not a wide decimal and matches nothing; readers
// report it as corrupt before asking.
func (p *WideDecimalPred) Match(v []byte) bool {
	x, ok := decodeInt128(v)
	if !ok {
		return false
	}
	if p.all {
		return true
	}
	switch p.op {
	case encoding.OpEq:
		return x == p.a
	case encoding.OpNe:
		return x != p.a
	case encoding.OpLt:
		return x.cmp(p.a) < 0
	case encoding.OpLe:
		return x.cmp(p.a) <= 0
	case encoding.OpGt:
		return x.cmp(p.a) > 0
	case encoding.OpGe:
		return x.cmp(p.a) >= 0
	case encoding.OpBetween:
		return x.cmp(p.a) >= 0 && x.cmp(p.b) <= 0
	case encoding.OpIn:
		_, found := slices.BinarySearchFunc(p.set, x, int128.cmp)
		return found
	}
	return false
}

// widePred builds the predicate of a bound leaf on a wide decimal, or nil
// for operators that have none (IS [NOT] NULL).
func widePred(l *Leaf) *WideDecimalPred {
	p := &WideDecimalPred{op: encoding.Op(l.Op)}
	val := func(v stats.Value) (int128, bool) { return decodeInt128(v.Bytes()) }
	var ok bool
	switch l.Op {
	case OpEq, OpNe, OpLt, OpLe, OpGt, OpGe:
		p.a, ok = val(l.A)
	case OpBetween:
		var okB bool
		p.a, ok = val(l.A)
		p.b, okB = val(l.B)
		ok = ok && okB
	case OpIn:
		ok = true
		for _, s := range l.Set {
			x, good := val(s)
			if !good {
				return nil
			}
			p.set = append(p.set, x)
		}
		slices.SortFunc(p.set, int128.cmp)
		p.set = slices.Compact(p.set)
	case OpAll:
		p.all, ok = true, true
	case OpNone:
		p.op, ok = encoding.OpIn, true
	}
	if !ok {
		return nil
	}
	return p
}
