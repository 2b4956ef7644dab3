package node

import (
	"encoding/binary"
	"fmt"
)

// Scaled (kind 24, FORMAT.md "Scaled"): integers on a common step from
// their least value:
//
//	base: 8 B LE (a widened T) | step: uvarint (≥ 2) | multiples: uvarint len | node (uint64, rows rows)
//
// v_i = T(base + step·k_i), on 64 bits with wrapping.

func init() { register(24, decodeScaled) }

// decodeScaled decodes a Scaled node: base + step·k for each multiple k.
func decodeScaled(h Header, r Resolver) (Values, error) {
	if err := needInteger(h); err != nil {
		return Values{}, err
	}
	t, n := h.Type, h.Rows
	b := h.Body
	if len(b) < 8 {
		return Values{}, fmt.Errorf("body of %d bytes before base: %w", len(b), ErrCorrupt)
	}
	base := binary.LittleEndian.Uint64(b)
	if !isWide(t, base) {
		return Values{}, fmt.Errorf("base %#x is not a widened %v: %w", base, t, ErrCorrupt)
	}
	step, b, err := readUvarint(b[8:], "step")
	if err != nil {
		return Values{}, err
	}
	if step < 2 {
		return Values{}, fmt.Errorf("step %d below 2: %w", step, ErrCorrupt)
	}
	ks, b, err := readChild(b, Uint64, n, n, r, "multiples child")
	if err != nil {
		return Values{}, err
	}
	if err := noTrailing(b, "the multiples child"); err != nil {
		return Values{}, err
	}
	v := Make(t, n)
	for i, k := range ks.Uint {
		setWide(&v, i, narrow(t, base+step*k))
	}
	return v, nil
}
