package node

import "fmt"

// SparseBool (kind 10, FORMAT.md "SparseBool"): bool only, the rare value
// and the rows that hold it:
//
//	sparse: u8 (0 or 1) | positionsLen: uvarint | positions node (uint32, K rows)
//
// Positions are strictly increasing and below rows; K ≤ rows; every other
// row holds !sparse.

func init() { register(10, decodeSparseBool) }

// decodeSparseBool decodes a SparseBool node: every row holds !sparse but
// the listed positions.
func decodeSparseBool(h Header, r Resolver) (Values, error) {
	if err := notZstd(h); err != nil {
		return Values{}, err
	}
	if h.Type != Bool {
		return Values{}, fmt.Errorf("sparse bool of %v: %w", h.Type, ErrUnsupported)
	}
	n := h.Rows
	if len(h.Body) < 1 {
		return Values{}, fmt.Errorf("empty body: %w", ErrCorrupt)
	}
	sparse := h.Body[0]
	if sparse > 1 {
		return Values{}, fmt.Errorf("sparse value byte %#x: %w", sparse, ErrCorrupt)
	}
	pos, b, err := readChild(h.Body[1:], Uint32, 0, n, r, "positions child")
	if err != nil {
		return Values{}, err
	}
	if err := noTrailing(b, "the positions child"); err != nil {
		return Values{}, err
	}
	if err := checkPositions(pos.Uint, n); err != nil {
		return Values{}, err
	}
	v := Make(Bool, n)
	if sparse == 0 {
		for i := range v.Bool {
			v.Bool[i] = true
		}
	}
	for _, p := range pos.Uint {
		v.Bool[p] = sparse == 1
	}
	return v, nil
}
