package node

import "fmt"

// RLE (kind 7, FORMAT.md "RLE"): runs of bit-identical adjacent values, any
// physical type:
//
//	lengthsLen: uvarint | lengths node (uint32, R rows) |
//	valuesLen: uvarint | values node (T, R rows)
//
// R ≤ rows, R = 0 exactly when rows = 0, every length ≥ 1 and the lengths
// sum to rows.

func init() { register(7, decodeRLE) }

// decodeRLE decodes an RLE node: the run lengths first (their sum must be
// rows), then the run values, whose count must match.
func decodeRLE(h Header, r Resolver) (Values, error) {
	if err := notZstd(h); err != nil {
		return Values{}, err
	}
	n := h.Rows
	minRuns := 0
	if n > 0 {
		minRuns = 1
	}
	lens, b, err := readChild(h.Body, Uint32, minRuns, n, r, "run lengths child")
	if err != nil {
		return Values{}, err
	}
	var sum uint64
	for i, l := range lens.Uint {
		if l == 0 {
			return Values{}, fmt.Errorf("run %d of length 0: %w", i, ErrCorrupt)
		}
		sum += l // < 2^28 runs of < 2^32 rows: no overflow
	}
	if sum != uint64(n) {
		return Values{}, fmt.Errorf("run lengths sum to %d, node has %d rows: %w", sum, n, ErrCorrupt)
	}
	runs, b, err := readChild(b, h.Type, lens.Len, lens.Len, r, "run values child")
	if err != nil {
		return Values{}, err
	}
	if err := noTrailing(b, "the run values child"); err != nil {
		return Values{}, err
	}
	v := Make(h.Type, n)
	row := 0
	for i, l := range lens.Uint {
		for k := 0; k < int(l); k++ {
			copyValue(&v, row, &runs, i)
			row++
		}
	}
	return v, nil
}
