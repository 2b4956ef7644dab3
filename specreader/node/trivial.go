package node

import "fmt"

// Trivial (kind 2, FORMAT.md "Trivial"): values stored plainly. Fixed-width
// types are n·size(T) bytes little endian; bool is ⌈n/8⌉ bytes, value i at
// bit i mod 8 of byte ⌊i/8⌋; binary is `lengthsLen: uvarint | lengths node
// (uint32, n rows) | data`, data being the concatenated values whose
// length must equal the sum of the lengths.

func init() { register(2, decodeTrivial) }

// decodeTrivial decodes a Trivial node of any type, checking that the
// body has exactly the size the row count implies.
func decodeTrivial(h Header, r Resolver) (Values, error) {
	n := h.Rows
	switch h.Type {
	case Binary:
		return decodeTrivialBinary(h, r)
	case Bool:
		if want := (n + 7) / 8; len(h.Body) != want {
			return Values{}, fmt.Errorf("bool body of %d bytes for %d rows, want %d: %w", len(h.Body), n, want, ErrCorrupt)
		}
		v := Make(Bool, n)
		for i := range v.Bool {
			v.Bool[i] = h.Body[i/8]>>(i%8)&1 != 0
		}
		return v, nil
	}
	size := h.Type.Width()
	if want := uint64(n) * uint64(size); uint64(len(h.Body)) != want {
		return Values{}, fmt.Errorf("body of %d bytes for %d %v values, want %d: %w", len(h.Body), n, h.Type, want, ErrCorrupt)
	}
	v := Make(h.Type, n)
	for i := 0; i < n; i++ {
		v.SetBits(i, readFixed(h.Body[i*size:], size))
	}
	return v, nil
}

// decodeTrivialBinary decodes Trivial's binary form: a uint32 lengths child
// of n rows, then the data, exactly as long as the lengths sum to.
func decodeTrivialBinary(h Header, r Resolver) (Values, error) {
	n := h.Rows
	lens, data, err := readChild(h.Body, Uint32, n, n, r, "lengths child")
	if err != nil {
		return Values{}, err
	}
	var total uint64
	for _, l := range lens.Uint {
		total += l // each < 2^32, n < 2^28: no overflow
	}
	if total != uint64(len(data)) {
		return Values{}, fmt.Errorf("lengths sum to %d, data holds %d bytes: %w", total, len(data), ErrCorrupt)
	}
	v := Make(Binary, n)
	off := 0
	for i, l := range lens.Uint {
		end := off + int(l)
		v.Bin[i] = data[off:end:end]
		off = end
	}
	return v, nil
}
