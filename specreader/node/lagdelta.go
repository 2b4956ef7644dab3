package node

import "fmt"

// LagDelta (kind 22, FORMAT.md "LagDelta"): integers as their first L
// values and, for every later row, the difference from the value L rows
// earlier:
//
//	L: uvarint | heads: uvarint len | node (T, L rows) |
//	differences: uvarint len | node (int64, rows − L rows)
//
// 1 ≤ L < rows, L ≤ 65536; v_r = T(widened(v_{r−L}) + diff_{r−L}),
// wrapping.

func init() { register(22, decodeLagDelta) }

// maxLag bounds L.
const maxLag = 65536

// decodeLagDelta decodes a LagDelta node: the heads, then each later row
// from the row L earlier plus its difference.
func decodeLagDelta(h Header, r Resolver) (Values, error) {
	if err := needInteger(h); err != nil {
		return Values{}, err
	}
	t, n := h.Type, h.Rows
	lag, b, err := readUvarint(h.Body, "lag")
	if err != nil {
		return Values{}, err
	}
	if lag < 1 || lag >= uint64(n) || lag > maxLag {
		return Values{}, fmt.Errorf("lag %d for %d rows (want 1 ≤ L < rows, L ≤ %d): %w", lag, n, maxLag, ErrCorrupt)
	}
	L := int(lag)
	heads, b, err := readChild(b, t, L, L, r, "heads child")
	if err != nil {
		return Values{}, err
	}
	diffs, b, err := readChild(b, Int64, n-L, n-L, r, "differences child")
	if err != nil {
		return Values{}, err
	}
	if err := noTrailing(b, "the differences child"); err != nil {
		return Values{}, err
	}
	v := Make(t, n)
	for i := 0; i < L; i++ {
		setWide(&v, i, wide(&heads, i))
	}
	for i := L; i < n; i++ {
		setWide(&v, i, narrow(t, wide(&v, i-L)+uint64(diffs.Int[i-L])))
	}
	return v, nil
}
