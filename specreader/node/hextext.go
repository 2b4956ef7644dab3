package node

import "fmt"

// HexText (kind 25, FORMAT.md "Text encodings"): values of one length L
// whose bytes are, position by position, a hexadecimal digit in every
// value or one fixed separator in every value (UUIDs, hashes, MAC
// addresses). A template of L bytes marks the H digit positions with '0';
// the digits are stored as one uint64 a value (integer form, H ≤ 16) or
// packed two a byte, high half first (bytes form). A third form holds hex
// numbers of 0 to 16 digits and varying widths, no separators, as a uint64
// and a uint8 width a value (widths form).

const kindHexText = 25

// HexText forms.
const (
	hexTextInteger = 0
	hexTextBytes   = 1
	hexTextWidths  = 2
)

func init() { register(kindHexText, decodeHexText) }

// hexIsDigit reports whether c is a hexadecimal digit of either case.
func hexIsDigit(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// hexDigits returns the 16 digit bytes of case cs (0: 'a'–'f', 1: 'A'–'F').
func hexDigits(cs byte) [16]byte {
	alpha := byte('a')
	if cs == 1 {
		alpha = 'A'
	}
	var digits [16]byte
	for d := range digits {
		if d < 10 {
			digits[d] = '0' + byte(d)
		} else {
			digits[d] = alpha + byte(d-10)
		}
	}
	return digits
}

// decodeHexText decodes `form | case | L | template: L bytes | values`
// (forms 0 and 1) or `form | case | values | widths` (form 2).
func decodeHexText(h Header, r Resolver) (Values, error) {
	if err := ftBinaryType(h.Type, "HexText"); err != nil {
		return Values{}, err
	}
	n := h.Rows
	form, rest, err := ftByte(h.Body, "hex text form")
	if err != nil {
		return Values{}, err
	}
	if form != hexTextInteger && form != hexTextBytes && form != hexTextWidths {
		return Values{}, fmt.Errorf("hex text form %d: %w", form, ErrUnsupported)
	}
	cs, rest, err := ftByte(rest, "hex text case")
	if err != nil {
		return Values{}, err
	}
	if cs > 1 {
		return Values{}, fmt.Errorf("hex text case %d: %w", cs, ErrUnsupported)
	}
	if form == hexTextWidths {
		return decodeHexWidths(n, cs, rest, r)
	}
	l, rest, err := Count(rest, len(rest), "hex text L")
	if err != nil {
		return Values{}, err
	}
	if l < 1 {
		return Values{}, fmt.Errorf("hex text L 0: %w", ErrCorrupt)
	}
	if l > len(rest) {
		return Values{}, fmt.Errorf("hex text template of %d bytes, %d left: %w", l, len(rest), ErrCorrupt)
	}
	tmpl, rest := rest[:l], rest[l:]
	hd := 0 // H, the digit positions
	for i, c := range tmpl {
		switch {
		case c == '0':
			hd++
		case hexIsDigit(c):
			return Values{}, fmt.Errorf("hex text template byte %d is %q: %w", i, c, ErrCorrupt)
		}
	}
	if hd < 1 {
		return Values{}, fmt.Errorf("hex text template of %d bytes has no digit position: %w", l, ErrCorrupt)
	}
	if form == hexTextInteger && hd > 16 {
		return Values{}, fmt.Errorf("hex text integer form with %d digits: %w", hd, ErrCorrupt)
	}
	// The output is exactly n·L bytes: bound it by the decode limit before
	// the child (which may be a Constant declaring many rows) is decoded.
	if uint64(n)*uint64(l) > MaxRawLen {
		return Values{}, fmt.Errorf("hex text values of %d × %d bytes exceed %d: %w", n, l, MaxRawLen, ErrCorrupt)
	}
	want := Uint64
	if form == hexTextBytes {
		want = Binary
	}
	vals, rest, err := ftChild(rest, want, n, r, "hex text values")
	if err != nil {
		return Values{}, err
	}
	if err := ftNoTrailing(rest, "hex text values"); err != nil {
		return Values{}, err
	}
	// Check every row before allocating the output.
	nb := (hd + 1) / 2
	odd := hd%2 == 1
	for i := range n {
		if form == hexTextInteger {
			if hd < 16 && vals.Uint[i]>>(4*uint(hd)) != 0 {
				return Values{}, fmt.Errorf("hex text row %d: %#x has more than %d hex digits: %w", i, vals.Uint[i], hd, ErrCorrupt)
			}
			continue
		}
		b := vals.Bin[i]
		if len(b) != nb {
			return Values{}, fmt.Errorf("hex text row %d: %d bytes, want %d for %d digits: %w", i, len(b), nb, hd, ErrCorrupt)
		}
		if odd && b[0]>>4 != 0 {
			return Values{}, fmt.Errorf("hex text row %d: first byte %#02x has a high half with %d digits: %w", i, b[0], hd, ErrCorrupt)
		}
	}
	digits := hexDigits(cs)
	// pos holds the template's digit positions, left to right.
	pos := make([]int, 0, hd)
	for p, c := range tmpl {
		if c == '0' {
			pos = append(pos, p)
		}
	}
	skip := 0 // bytes form: the unused high half of the first byte
	if odd {
		skip = 1
	}
	buf := make([]byte, n*l)
	v := Make(Binary, n)
	for i := range n {
		out := buf[i*l : (i+1)*l : (i+1)*l]
		copy(out, tmpl)
		if form == hexTextInteger {
			x := vals.Uint[i]
			for k, p := range pos {
				out[p] = digits[x>>(4*uint(hd-1-k))&0xf]
			}
		} else {
			b := vals.Bin[i]
			for k, p := range pos {
				j := skip + k
				c := b[j/2]
				if j%2 == 0 {
					c >>= 4
				}
				out[p] = digits[c&0xf]
			}
		}
		v.Bin[i] = out
	}
	return v, nil
}

// decodeHexWidths decodes the rest of a widths-form body, `values: uint64 |
// widths: uint8`: value i is v_i in base 16 left-padded with zeros to
// exactly w_i ≤ 16 digits, v_i < 16^w_i (so v_i = 0 when w_i = 0, the empty
// string).
func decodeHexWidths(n int, cs byte, rest []byte, r Resolver) (Values, error) {
	// The output is at most 16 bytes a row: bound it by the decode limit
	// before the children (Constants declaring many rows) are decoded.
	if uint64(n)*16 > MaxRawLen {
		return Values{}, fmt.Errorf("hex text widths form: %d values of up to 16 bytes exceed %d: %w", n, MaxRawLen, ErrCorrupt)
	}
	vals, rest, err := ftChild(rest, Uint64, n, r, "hex text values")
	if err != nil {
		return Values{}, err
	}
	widths, rest, err := ftChild(rest, Uint8, n, r, "hex text widths")
	if err != nil {
		return Values{}, err
	}
	if err := ftNoTrailing(rest, "hex text widths"); err != nil {
		return Values{}, err
	}
	// Check every row and size the output before allocating it.
	total := 0
	for i := range n {
		x, w := vals.Uint[i], widths.Uint[i]
		if w > 16 {
			return Values{}, fmt.Errorf("hex text row %d: width %d over 16: %w", i, w, ErrCorrupt)
		}
		if w < 16 && x>>(4*uint(w)) != 0 {
			return Values{}, fmt.Errorf("hex text row %d: %#x has more than %d hex digits: %w", i, x, w, ErrCorrupt)
		}
		total += int(w)
	}
	digits := hexDigits(cs)
	buf := make([]byte, total)
	v := Make(Binary, n)
	off := 0
	for i := range n {
		x, w := vals.Uint[i], int(widths.Uint[i])
		out := buf[off : off+w : off+w]
		for k := range w {
			out[k] = digits[x>>(4*uint(w-1-k))&0xf]
		}
		v.Bin[i] = out
		off += w
	}
	return v, nil
}
