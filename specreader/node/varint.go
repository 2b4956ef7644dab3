package node

import "fmt"

// Varint (kind 5, FORMAT.md "Varint"): the eight integer types as n
// uvarints, zig-zag mapped (of the value sign-extended to 64 bits) for
// signed types. The body holds exactly n varints; each must fit the type.

func init() { register(5, decodeVarint) }

// decodeVarint decodes a Varint node, counting its varints before
// allocating so that a short or long body is rejected first.
func decodeVarint(h Header, _ Resolver) (Values, error) {
	if err := needInteger(h); err != nil {
		return Values{}, err
	}
	b := h.Body
	// The body holds exactly n varints: as many bytes below 0x80 as rows,
	// the last byte among them. Checked before allocating.
	ends := 0
	for _, c := range b {
		if c < 0x80 {
			ends++
		}
	}
	if ends != h.Rows || (len(b) > 0 && b[len(b)-1] >= 0x80) {
		return Values{}, fmt.Errorf("body of %d bytes holds %d complete varints, want %d: %w", len(b), ends, h.Rows, ErrCorrupt)
	}
	t := h.Type
	bitsT := uint(8 * t.Width())
	v := Make(t, h.Rows)
	for i := 0; i < h.Rows; i++ {
		u, rest, err := Uvarint(b)
		if err != nil {
			return Values{}, fmt.Errorf("row %d: %w", i, err)
		}
		b = rest
		if bitsT < 64 && u>>bitsT != 0 {
			return Values{}, fmt.Errorf("row %d: varint %#x does not fit %d bits: %w", i, u, bitsT, ErrCorrupt)
		}
		if t.Signed() {
			v.Int[i] = unzigzag(u)
		} else {
			v.Uint[i] = u
		}
	}
	return v, nil
}
