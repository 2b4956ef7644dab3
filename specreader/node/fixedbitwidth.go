package node

import "fmt"

// FixedBitWidth (kind 3, FORMAT.md "FixedBitWidth"): frame of reference
// plus bit-packing for the integer types and bool (stored with the size of
// uint8):
//
//	w: u8 | base: size(T) LE | max: size(T) LE | packed offsets: ⌈n·w/8⌉ bytes
//
// Value i is base + offset_i modulo 2^(8·size(T)).

func init() { register(3, decodeFixedBitWidth) }

// decodeFixedBitWidth decodes a FixedBitWidth node after checking its
// width, its bounds and the exact size of the packed stream.
func decodeFixedBitWidth(h Header, _ Resolver) (Values, error) {
	t := h.Type
	if !t.Integer() && t != Bool {
		return Values{}, fmt.Errorf("type %v: %w", t, ErrUnsupported)
	}
	size := t.Width() // bool: 1, like uint8
	b := h.Body
	if len(b) < 1+2*size {
		return Values{}, fmt.Errorf("body of %d bytes, header needs %d: %w", len(b), 1+2*size, ErrCorrupt)
	}
	w := int(b[0])
	base := readFixed(b[1:], size)
	maxv := readFixed(b[1+size:], size)
	b = b[1+2*size:]
	if w > 8*size {
		return Values{}, fmt.Errorf("width %d over %d bits: %w", w, 8*size, ErrCorrupt)
	}
	// Compare base and max in the type's order.
	ut := t
	if t == Bool {
		ut = Uint8
	}
	wbase, wmax := narrow(ut, base), narrow(ut, maxv)
	if lessWide(ut, wmax, wbase) {
		return Values{}, fmt.Errorf("max %#x below base %#x: %w", maxv, base, ErrCorrupt)
	}
	if t == Bool && maxv > 1 {
		return Values{}, fmt.Errorf("bool max %d: %w", maxv, ErrCorrupt)
	}
	size2, err := packedLen(h.Rows, w)
	if err != nil {
		return Values{}, err
	}
	if len(b) != size2 {
		return Values{}, fmt.Errorf("packed stream of %d bytes, want %d for %d rows at %d bits: %w", len(b), size2, h.Rows, w, ErrCorrupt)
	}
	span := (maxv - base) & mask(ut) // max − base as an unsigned distance
	v := Make(t, h.Rows)
	for i := 0; i < h.Rows; i++ {
		var off uint64
		if w > 0 {
			off = bitsAt(b, w, i)
		}
		if off > span {
			return Values{}, fmt.Errorf("row %d: offset %d above max − base = %d: %w", i, off, span, ErrCorrupt)
		}
		v.SetBits(i, base+off)
	}
	return v, nil
}
