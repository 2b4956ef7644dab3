package filterkern

import (
	"fmt"

	"strata/encoding"
)

// BlockReader is a decoder read in order whose values fall in blocks of a
// fixed number of rows (the last one shorter), each bounded exactly by its
// header: Delta and DeltaOfDelta.
type BlockReader[T encoding.Number] interface {
	encoding.BlockBounder[T]
	Pos() int
	Skip(n int) error
	Read(dst []T) error
}

// Scratch is what Blocks keeps between calls: one block's values and
// FilterAt's windows.
type Scratch[T encoding.Number] struct {
	vals    []T
	in, out encoding.Bitmap
}

// Blocks filters the next n values of d, whose blocks hold bs rows: a block
// whose bounds cannot match clears its rows and one whose bounds match
// whole keeps them, both without decoding, as do rows sel already excludes.
// Consecutive rows settled so are passed over with one Skip; only the other
// blocks are read and compared. It returns the number of blocks settled
// from their bounds (encoding.SkipCounter); the caller checks n and sel.
func Blocks[T encoding.Number](d BlockReader[T], bs int, p *encoding.Pred[T], n int, sel encoding.Bitmap, sc *Scratch[T]) (int, error) {
	start := d.Pos()
	pending, settled := 0, 0
	for o := 0; o < n; {
		first, rows, lo, hi := d.BlockBounds((start + o) / bs)
		m := min(first+rows-start-o, n-o)
		if m <= 0 {
			return settled, fmt.Errorf("filter: block of %d rows from row %d holds no row %d: %w", rows, first, start+o, encoding.ErrCorrupt)
		}
		switch {
		case !sel.AnyIn(o, o+m):
			pending += m
		case !p.MayMatchRange(lo, hi):
			sel.ClearRange(o, o+m)
			pending += m
			settled++
		case p.AllMatchRange(lo, hi):
			pending += m
			settled++
		default:
			if pending > 0 {
				if err := d.Skip(pending); err != nil {
					return settled, err
				}
				pending = 0
			}
			if cap(sc.vals) < m {
				sc.vals = make([]T, m)
			}
			v := sc.vals[:m]
			if err := d.Read(v); err != nil {
				return settled, err
			}
			sc.in, sc.out = FilterAt(v, p, sel, o, sc.in, sc.out)
		}
		o += m
	}
	if pending > 0 {
		return settled, d.Skip(pending)
	}
	return settled, nil
}
