package node

import "fmt"

// MainlyConstant (kind 9, FORMAT.md "MainlyConstant"): any type, a common
// value and the exceptions to it:
//
//	common value | positionsLen: uvarint | positions node (uint32, E rows) |
//	valuesLen: uvarint | values node (T, E rows)
//
// The common value is stored as Constant stores its value (size(T) bytes,
// a 0/1 byte for bool, `len: uvarint | bytes` for binary). Positions are
// strictly increasing and below rows; E ≤ rows.

func init() { register(9, decodeMainlyConstant) }

// decodeMainlyConstant decodes a MainlyConstant node: every row takes the
// common value, then the exception rows take theirs.
func decodeMainlyConstant(h Header, r Resolver) (Values, error) {
	if err := notZstd(h); err != nil {
		return Values{}, err
	}
	n := h.Rows
	common := Make(h.Type, 1)
	b, err := readValue(h.Type, h.Body, &common, 0, "common value")
	if err != nil {
		return Values{}, err
	}
	pos, b, err := readChild(b, Uint32, 0, n, r, "positions child")
	if err != nil {
		return Values{}, err
	}
	if err := checkPositions(pos.Uint, n); err != nil {
		return Values{}, err
	}
	exc, b, err := readChild(b, h.Type, pos.Len, pos.Len, r, "exception values child")
	if err != nil {
		return Values{}, err
	}
	if err := noTrailing(b, "the exception values child"); err != nil {
		return Values{}, err
	}
	v := Make(h.Type, n)
	for i := 0; i < n; i++ {
		copyValue(&v, i, &common, 0)
	}
	for j, p := range pos.Uint {
		copyValue(&v, int(p), &exc, j)
	}
	return v, nil
}

// checkPositions checks that positions are strictly increasing and each
// below rows (MainlyConstant, SparseBool).
func checkPositions(pos []uint64, rows int) error {
	for j, p := range pos {
		if p >= uint64(rows) {
			return fmt.Errorf("position %d is row %d of %d: %w", j, p, rows, ErrCorrupt)
		}
		if j > 0 && p <= pos[j-1] {
			return fmt.Errorf("positions %d and %d not strictly increasing (%d, %d): %w", j-1, j, pos[j-1], p, ErrCorrupt)
		}
	}
	return nil
}
