package blockfor

import "strata/encoding"

// Retained returns the bytes an int64 decoder's exception tables hold now
// (what retainedBound promises to cover), and the bound.
func Retained(d encoding.Decoder) (held, bound int64) {
	x := d.(*decoder[int64])
	e := &x.sums
	held = int64(8*cap(x.excs)) + int64(4*cap(e.at)) + int64(4*cap(e.apos)) + int64(8*cap(e.acum)) +
		int64(4*cap(e.spos)) + int64(8*cap(e.scum))
	return held, x.retainedBound()
}

// Exceptions returns the number of exceptions of all blocks of a decoder
// of T values.
func Exceptions[T encoding.Integer](d encoding.Decoder) int { return d.(*decoder[T]).totalExc }
