package node

import (
	"fmt"
	"strconv"
)

// NumText (kind 23, FORMAT.md "Text encodings"): the canonical decimal text
// of int64 values, optionally with thousands separators, or decimal
// fractions as integers at one scale beside each value's count of fraction
// digits.

const kindNumText = 23

// NumText flags.
const (
	numTextGrouped = 1 << 0
	numTextDecimal = 1 << 1
)

func init() { register(kindNumText, decodeNumText) }

// decodeNumText decodes `flags | values: int64` or, decimal,
// `flags | S | values: int64 | scales: uint8`.
func decodeNumText(h Header, r Resolver) (Values, error) {
	if err := ftBinaryType(h.Type, "NumText"); err != nil {
		return Values{}, err
	}
	n := h.Rows
	flags, rest, err := ftByte(h.Body, "num text flags")
	if err != nil {
		return Values{}, err
	}
	if flags&^(numTextGrouped|numTextDecimal) != 0 || flags == numTextGrouped|numTextDecimal {
		return Values{}, fmt.Errorf("num text flags %#x: %w", flags, ErrUnsupported)
	}
	decimal := flags&numTextDecimal != 0
	scale := 0
	if decimal {
		var sb byte
		if sb, rest, err = ftByte(rest, "num text scale"); err != nil {
			return Values{}, err
		}
		if sb > 18 {
			return Values{}, fmt.Errorf("num text scale %d: %w", sb, ErrCorrupt)
		}
		scale = int(sb)
	}
	vals, rest, err := ftChild(rest, Int64, n, r, "num text values")
	if err != nil {
		return Values{}, err
	}
	var scales Values
	if decimal {
		if scales, rest, err = ftChild(rest, Uint8, n, r, "num text scales"); err != nil {
			return Values{}, err
		}
	}
	if err := ftNoTrailing(rest, "num text"); err != nil {
		return Values{}, err
	}
	// Every value prints to at most 26 bytes, so n·26 bounds the output.
	buf := make([]byte, 0, 26*n)
	v := Make(Binary, n)
	for i, x := range vals.Int {
		start := len(buf)
		if decimal {
			s := int(scales.Uint[i])
			if s > scale {
				return Values{}, fmt.Errorf("num text row %d: %d fraction digits over scale %d: %w", i, s, scale, ErrCorrupt)
			}
			div := int64(ftPow10Int[scale-s])
			if x%div != 0 {
				return Values{}, fmt.Errorf("num text row %d: %d is no multiple of 10^%d: %w", i, x, scale-s, ErrCorrupt)
			}
			buf = ftAppendDecimal(buf, x/div, s)
		} else {
			buf = ftAppendInt(buf, x, flags&numTextGrouped != 0)
		}
		v.Bin[i] = buf[start:len(buf):len(buf)]
	}
	return v, nil
}

// ftAbs is |x| as a uint64 (|MinInt64| = 2^63 included).
func ftAbs(x int64) uint64 {
	if x < 0 {
		return -uint64(x)
	}
	return uint64(x)
}

// ftAppendInt appends x in decimal, '-' first when negative, with a comma
// before every group of three digits that has a digit before it when
// grouped.
func ftAppendInt(buf []byte, x int64, grouped bool) []byte {
	if x < 0 {
		buf = append(buf, '-')
	}
	var d [20]byte
	digits := strconv.AppendUint(d[:0], ftAbs(x), 10)
	if !grouped {
		return append(buf, digits...)
	}
	for i, c := range digits {
		if i > 0 && (len(digits)-i)%3 == 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, c)
	}
	return buf
}

// ftAppendDecimal appends m with a point before its last s digits, padded
// on the left with zeros to at least s+1 digits, '-' first when negative
// (s = 0: the integer, no point).
func ftAppendDecimal(buf []byte, m int64, s int) []byte {
	if m < 0 {
		buf = append(buf, '-')
	}
	var d [40]byte
	digits := d[:0]
	var u [20]byte
	abs := strconv.AppendUint(u[:0], ftAbs(m), 10)
	for range s + 1 - len(abs) {
		digits = append(digits, '0')
	}
	digits = append(digits, abs...)
	if s == 0 {
		return append(buf, digits...)
	}
	buf = append(buf, digits[:len(digits)-s]...)
	buf = append(buf, '.')
	return append(buf, digits[len(digits)-s:]...)
}
