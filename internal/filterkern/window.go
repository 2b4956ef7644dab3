package filterkern

import (
	"strata/encoding"
)

// FilterAt clears bit o+i of sel for every vals[i] that fails p. The
// compare kernels work on 64-row words, so a window that does not start on
// a word boundary is copied out into scratch (in, out; returned for reuse),
// filtered there, and the cleared bits are applied back.
func FilterAt[T encoding.Number](vals []T, p *encoding.Pred[T], sel encoding.Bitmap, o int, in, out encoding.Bitmap) (encoding.Bitmap, encoding.Bitmap) {
	n := len(vals)
	if o&63 == 0 {
		Filter(vals, p, sel[o>>6:])
		return in, out
	}
	words := (n + 63) >> 6
	if cap(in) < words {
		in = make(encoding.Bitmap, words)
		out = make(encoding.Bitmap, words)
	}
	in, out = in[:words], out[:words]
	w0, sh := o>>6, uint(o&63)
	for j := range in {
		x := sel[w0+j] >> sh
		if w0+j+1 < len(sel) {
			x |= sel[w0+j+1] << (64 - sh)
		}
		in[j] = x
	}
	if tail := n & 63; tail != 0 {
		in[words-1] &= 1<<uint(tail) - 1
	}
	copy(out, in)
	Filter(vals, p, out)
	for j := range in {
		cleared := in[j] &^ out[j]
		if cleared == 0 {
			continue
		}
		sel[w0+j] &^= cleared << sh
		if w0+j+1 < len(sel) {
			sel[w0+j+1] &^= cleared >> (64 - sh)
		}
	}
	return in, out
}
