package cascade

import (
	"fmt"

	"strata/encoding"
)

// Spans is ReadOffsets for a few rows: it sets spans[2k] and spans[2k+1]
// to the start and end offsets of row rows[k] (strictly increasing, below
// n) from the n lengths of r, summed in place through r's
// encoding.RangeSummer without decoding a length into memory or building
// an offset a row, so that a lookup of one value costs the bit-packed sums
// of the lengths before it rather than every offset of the node. With
// total it also sums the lengths after the last row and returns the sum of
// all n, which the caller compares with the bytes it holds exactly as it
// does ReadOffsets' last offset: a node whose lengths do not add up is
// refused before any of its values is returned. Every offset is checked
// against limit (the bytes the lengths index). ok is false, and nothing is
// done, when r cannot sum ranges; the caller then builds every offset with
// ReadOffsets. ends and sums are scratch, grown as needed; r's cursor does
// not move.
func Spans(r encoding.Reader[uint32], n int, rows []int32, limit int, total bool, ends *[]int32, sums *[]uint64, spans []int32, what string) (sum uint64, ok bool, err error) {
	s, isSummer := r.(encoding.RangeSummer)
	if !isSummer {
		return 0, false, nil
	}
	if len(spans) < 2*len(rows) {
		return 0, true, fmt.Errorf("%s: %d spans into %d offsets", what, len(rows), len(spans))
	}
	if n > 1<<31-1 {
		return 0, true, encoding.Limitf("%s: %d lengths", what, n)
	}
	limit = min(limit, 1<<31-1) // offsets are int32
	m := 2 * len(rows)
	if total {
		m++
	}
	e := Grow(*ends, m)
	*ends = e
	prev := int32(-1)
	for k, row := range rows {
		if row <= prev || int(row) >= n {
			return 0, true, encoding.Corruptf("%s: row %d (previous %d) of %d", what, row, prev, n)
		}
		prev = row
		e[2*k], e[2*k+1] = row, row+1
	}
	if total {
		e[m-1] = int32(n)
	}
	out := Grow(*sums, m)
	*sums = out
	if err := s.SumRanges(0, e, out); err != nil {
		return 0, true, fmt.Errorf("%s: %w", what, err)
	}
	// Lengths are below 2^32 and there are fewer than 2^31 of them, so
	// the running sum cannot wrap around.
	for k, x := range out {
		sum += x
		if sum > uint64(limit) {
			return 0, true, encoding.Corruptf("%s exceed %d bytes", what, limit)
		}
		if k < 2*len(rows) {
			spans[k] = int32(sum)
		}
	}
	return sum, true, nil
}
