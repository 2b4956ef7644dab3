// Package filterkern holds the typed compare kernels leaf encodings use to
// evaluate a predicate over a batch of plain values and narrow a row bitmap.
// Each operator has its own loop so the comparison is not dispatched per
// value, and results are built one 64-row word at a time so the bitmap is
// written once per word.
package filterkern

import "strata/encoding"

// Filter clears bit i of sel (for i < len(vals)) whenever vals[i] does not
// satisfy p. Bits at or beyond len(vals) are left untouched. NaN follows
// IEEE 754: it matches only OpNe.
func Filter[T encoding.Number](vals []T, p *encoding.Pred[T], sel encoding.Bitmap) {
	a, b := p.A, p.B
	switch p.Op {
	case encoding.OpEq:
		words(vals, sel, func(v T) bool { return v == a })
	case encoding.OpNe:
		words(vals, sel, func(v T) bool { return v != a })
	case encoding.OpLt:
		words(vals, sel, func(v T) bool { return v < a })
	case encoding.OpLe:
		words(vals, sel, func(v T) bool { return v <= a })
	case encoding.OpGt:
		words(vals, sel, func(v T) bool { return v > a })
	case encoding.OpGe:
		words(vals, sel, func(v T) bool { return v >= a })
	case encoding.OpBetween:
		words(vals, sel, func(v T) bool { return v >= a && v <= b })
	case encoding.OpIn:
		if len(p.Set) == 1 {
			s := p.Set[0]
			words(vals, sel, func(v T) bool { return v == s })
			return
		}
		words(vals, sel, p.Match)
	default:
		ClearAll(sel, len(vals))
	}
}

// words applies keep to every value and ANDs the results into sel. The
// callback is a closure over the predicate constants; keeping words generic
// over the function lets the compiler specialise it per call site when it
// inlines.
func words[T any](vals []T, sel encoding.Bitmap, keep func(T) bool) {
	n := len(vals)
	full := n &^ 63
	for w := 0; w < full; w += 64 {
		wi := w >> 6
		if sel[wi] == 0 {
			continue
		}
		var m uint64
		blk := vals[w : w+64 : w+64]
		for j, v := range blk {
			if keep(v) {
				m |= 1 << uint(j)
			}
		}
		sel[wi] &= m
	}
	if full < n {
		wi := full >> 6
		var m uint64
		for j, v := range vals[full:] {
			if keep(v) {
				m |= 1 << uint(j)
			}
		}
		tail := uint64(1)<<uint(n-full) - 1
		sel[wi] &= m | ^tail
	}
}

// Uint64Range clears bit i of sel unless lo <= vals[i] <= hi (unsigned).
// FOR-style encodings translate predicates into this offset-space form.
func Uint64Range(vals []uint64, lo, hi uint64, sel encoding.Bitmap) {
	// The hottest kernel (every FOR-encoded range and equality test lands
	// here), so it is written out rather than going through words' callback,
	// which the compiler does not inline.
	span := hi - lo
	n := len(vals)
	full := n &^ 63
	for w := 0; w < full; w += 64 {
		wi := w >> 6
		if sel[wi] == 0 {
			continue
		}
		blk := (*[64]uint64)(vals[w : w+64])
		var m uint64
		// Branch-free: a match sets its bit through a 0/1 value, so
		// selectivity does not cost mispredictions.
		for j := 0; j < 64; j += 4 {
			m |= b2u(blk[j]-lo <= span)<<uint(j) | b2u(blk[j+1]-lo <= span)<<uint(j+1) |
				b2u(blk[j+2]-lo <= span)<<uint(j+2) | b2u(blk[j+3]-lo <= span)<<uint(j+3)
		}
		sel[wi] &= m
	}
	if full < n {
		var m uint64
		for j, v := range vals[full:] {
			m |= b2u(v-lo <= span) << uint(j)
		}
		tail := uint64(1)<<uint(n-full) - 1
		sel[full>>6] &= m | ^tail
	}
}

// b2u converts a comparison result to 0 or 1 without a branch.
func b2u(b bool) uint64 {
	var u uint64
	if b {
		u = 1
	}
	return u
}

// Uint64Ne clears bit i of sel when vals[i] == x.
func Uint64Ne(vals []uint64, x uint64, sel encoding.Bitmap) {
	words(vals, sel, func(v uint64) bool { return v != x })
}

// Uint64Set clears bit i of sel unless vals[i] is in set (sorted ascending).
func Uint64Set(vals []uint64, set []uint64, sel encoding.Bitmap) {
	words(vals, sel, func(v uint64) bool {
		lo, hi := 0, len(set)
		for lo < hi {
			m := int(uint(lo+hi) >> 1)
			if set[m] < v {
				lo = m + 1
			} else {
				hi = m
			}
		}
		return lo < len(set) && set[lo] == v
	})
}

// ClearAll clears bits [0, n) of sel.
func ClearAll(sel encoding.Bitmap, n int) { sel.ClearRange(0, n) }

// Shift returns sel viewed from row off, which must be a multiple of 64.
func Shift(sel encoding.Bitmap, off int) encoding.Bitmap { return sel[off>>6:] }
