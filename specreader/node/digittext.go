package node

import (
	"fmt"
	"strconv"
)

// DigitText (kind 16, FORMAT.md "Text encodings"): strings of 0 to 19 ASCII
// digits as unsigned integers, plus each value's width (mode 0) or count
// of leading zeros (mode 1) to restore them exactly.

const kindDigitText = 16

func init() { register(kindDigitText, decodeDigitText) }

// ftDigits is the number of decimal digits of v (1 for 0).
func ftDigits(v uint64) int {
	d := 1
	for v >= 10 {
		v /= 10
		d++
	}
	return d
}

// decodeDigitText decodes `mode | values: uint64 | shape: uint8`.
func decodeDigitText(h Header, r Resolver) (Values, error) {
	if err := ftBinaryType(h.Type, "DigitText"); err != nil {
		return Values{}, err
	}
	n := h.Rows
	mode, rest, err := ftByte(h.Body, "digit text mode")
	if err != nil {
		return Values{}, err
	}
	if mode > 1 {
		return Values{}, fmt.Errorf("digit text mode %d: %w", mode, ErrUnsupported)
	}
	vals, rest, err := ftChild(rest, Uint64, n, r, "digit text values")
	if err != nil {
		return Values{}, err
	}
	shape, rest, err := ftChild(rest, Uint8, n, r, "digit text shape")
	if err != nil {
		return Values{}, err
	}
	if err := ftNoTrailing(rest, "digit text shape"); err != nil {
		return Values{}, err
	}
	// Check every row and size the output before allocating it.
	total := 0
	for i := range n {
		x, w := vals.Uint[i], int(shape.Uint[i])
		if mode == 0 {
			if w > 19 || x >= ftPow10Int[w] {
				return Values{}, fmt.Errorf("digit text row %d: %d in %d digits: %w", i, x, w, ErrCorrupt)
			}
			total += w
		} else {
			if w+ftDigits(x) > 19 {
				return Values{}, fmt.Errorf("digit text row %d: %d zeros before %d: %w", i, w, x, ErrCorrupt)
			}
			total += w + ftDigits(x)
		}
	}
	buf := make([]byte, 0, total)
	v := Make(Binary, n)
	for i := range n {
		x, w := vals.Uint[i], int(shape.Uint[i])
		start := len(buf)
		if mode == 0 {
			if w > 0 {
				for range w - ftDigits(x) {
					buf = append(buf, '0')
				}
				buf = strconv.AppendUint(buf, x, 10)
			}
		} else {
			for range w {
				buf = append(buf, '0')
			}
			buf = strconv.AppendUint(buf, x, 10)
		}
		v.Bin[i] = buf[start:len(buf):len(buf)]
	}
	return v, nil
}

// ftPow10Int holds 10^0 .. 10^19, the powers of ten that fit in uint64.
var ftPow10Int = [...]uint64{
	1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19,
}
