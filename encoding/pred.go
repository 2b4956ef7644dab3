package encoding

import (
	"bytes"
	"math/bits"
)

// Op is a comparison operator of a predicate.
type Op uint8

// Predicate operators. Between is inclusive on both ends.
const (
	OpEq Op = iota + 1
	OpNe
	OpLt
	OpLe
	OpGt
	OpGe
	OpBetween
	OpIn
	OpPrefix // binary only
)

var opNames = [...]string{"", "=", "!=", "<", "<=", ">", ">=", "BETWEEN", "IN", "PREFIX"}

func (o Op) String() string {
	if int(o) < len(opNames) {
		return opNames[o]
	}
	return "op?"
}

// Pred is a single-column predicate on numeric values. For OpIn, Set holds
// the accepted values sorted ascending. Float comparisons follow IEEE 754: a
// NaN matches only OpNe.
type Pred[T Number] struct {
	Op   Op
	A, B T
	Set  []T
}

// Match reports whether v satisfies p.
func (p *Pred[T]) Match(v T) bool {
	switch p.Op {
	case OpEq:
		return v == p.A
	case OpNe:
		return v != p.A
	case OpLt:
		return v < p.A
	case OpLe:
		return v <= p.A
	case OpGt:
		return v > p.A
	case OpGe:
		return v >= p.A
	case OpBetween:
		return v >= p.A && v <= p.B
	case OpIn:
		lo, hi := 0, len(p.Set)
		for lo < hi {
			m := int(uint(lo+hi) >> 1)
			if p.Set[m] < v {
				lo = m + 1
			} else {
				hi = m
			}
		}
		return lo < len(p.Set) && p.Set[lo] == v
	}
	return false
}

// Range returns the closed interval [lo, hi] that contains every matching
// value, with ok false when the predicate is not an interval (Ne, or an empty
// set). Encodings use it to turn predicates into id or offset ranges.
func (p *Pred[T]) Range() (lo, hi T, ok bool) {
	switch p.Op {
	case OpEq:
		return p.A, p.A, true
	case OpBetween:
		return p.A, p.B, true
	case OpIn:
		if len(p.Set) == 0 {
			return lo, hi, false
		}
		return p.Set[0], p.Set[len(p.Set)-1], true
	}
	return lo, hi, false
}

// MayMatchRange reports whether any value in [min, max] could match.
func (p *Pred[T]) MayMatchRange(min, max T) bool {
	switch p.Op {
	case OpEq:
		return p.A >= min && p.A <= max
	case OpNe:
		return !(min == max && min == p.A)
	case OpLt:
		return min < p.A
	case OpLe:
		return min <= p.A
	case OpGt:
		return max > p.A
	case OpGe:
		return max >= p.A
	case OpBetween:
		return p.A <= max && p.B >= min && p.A <= p.B
	case OpIn:
		for _, v := range p.Set {
			if v >= min && v <= max {
				return true
			}
		}
		return false
	}
	return true
}

// AllMatchRange reports whether every value in [min, max] matches.
func (p *Pred[T]) AllMatchRange(min, max T) bool {
	switch p.Op {
	case OpEq:
		return min == max && min == p.A
	case OpNe:
		return p.A < min || p.A > max
	case OpLt:
		return max < p.A
	case OpLe:
		return max <= p.A
	case OpGt:
		return min > p.A
	case OpGe:
		return min >= p.A
	case OpBetween:
		return min >= p.A && max <= p.B
	case OpIn:
		return min == max && p.Match(min)
	}
	return false
}

// BytesPred is a predicate on binary values, compared bytewise.
// For OpIn, Set holds the accepted values sorted ascending.
type BytesPred struct {
	Op   Op
	A, B []byte
	Set  [][]byte
}

// Match reports whether v satisfies p.
func (p *BytesPred) Match(v []byte) bool {
	switch p.Op {
	case OpEq:
		return bytes.Equal(v, p.A)
	case OpNe:
		return !bytes.Equal(v, p.A)
	case OpLt:
		return bytes.Compare(v, p.A) < 0
	case OpLe:
		return bytes.Compare(v, p.A) <= 0
	case OpGt:
		return bytes.Compare(v, p.A) > 0
	case OpGe:
		return bytes.Compare(v, p.A) >= 0
	case OpBetween:
		return bytes.Compare(v, p.A) >= 0 && bytes.Compare(v, p.B) <= 0
	case OpIn:
		lo, hi := 0, len(p.Set)
		for lo < hi {
			m := int(uint(lo+hi) >> 1)
			if bytes.Compare(p.Set[m], v) < 0 {
				lo = m + 1
			} else {
				hi = m
			}
		}
		return lo < len(p.Set) && bytes.Equal(p.Set[lo], v)
	case OpPrefix:
		return bytes.HasPrefix(v, p.A)
	}
	return false
}

// MayMatchRange reports whether any value in [min, max] could match.
func (p *BytesPred) MayMatchRange(min, max []byte) bool {
	switch p.Op {
	case OpEq:
		return bytes.Compare(p.A, min) >= 0 && bytes.Compare(p.A, max) <= 0
	case OpNe:
		return !(bytes.Equal(min, max) && bytes.Equal(min, p.A))
	case OpLt:
		return bytes.Compare(min, p.A) < 0
	case OpLe:
		return bytes.Compare(min, p.A) <= 0
	case OpGt:
		return bytes.Compare(max, p.A) > 0
	case OpGe:
		return bytes.Compare(max, p.A) >= 0
	case OpBetween:
		return bytes.Compare(p.A, max) <= 0 && bytes.Compare(p.B, min) >= 0
	case OpIn:
		for _, v := range p.Set {
			if bytes.Compare(v, min) >= 0 && bytes.Compare(v, max) <= 0 {
				return true
			}
		}
		return false
	case OpPrefix:
		// Values with the prefix lie in [A, A+0xff...]; compare truncated bounds.
		lo := min
		if len(lo) > len(p.A) {
			lo = lo[:len(p.A)]
		}
		hi := max
		if len(hi) > len(p.A) {
			hi = hi[:len(p.A)]
		}
		return bytes.Compare(lo, p.A) <= 0 && bytes.Compare(hi, p.A) >= 0
	}
	return true
}

// AllMatchRange reports whether every value in [min, max] matches.
func (p *BytesPred) AllMatchRange(min, max []byte) bool {
	switch p.Op {
	case OpEq:
		return bytes.Equal(min, max) && bytes.Equal(min, p.A)
	case OpNe:
		return bytes.Compare(p.A, min) < 0 || bytes.Compare(p.A, max) > 0
	case OpLt:
		return bytes.Compare(max, p.A) < 0
	case OpLe:
		return bytes.Compare(max, p.A) <= 0
	case OpGt:
		return bytes.Compare(min, p.A) > 0
	case OpGe:
		return bytes.Compare(min, p.A) >= 0
	case OpBetween:
		return bytes.Compare(min, p.A) >= 0 && bytes.Compare(max, p.B) <= 0
	case OpIn:
		return bytes.Equal(min, max) && p.Match(min)
	case OpPrefix:
		return bytes.HasPrefix(min, p.A) && bytes.HasPrefix(max, p.A)
	}
	return false
}

// Bitmap is a row selection: bit i of word i/64 is row i.
type Bitmap []uint64

// NewBitmap returns a bitmap of n rows, all set when full is true.
func NewBitmap(n int, full bool) Bitmap {
	b := make(Bitmap, (n+63)/64)
	if full {
		b.SetAll(n)
	}
	return b
}

// SetAll sets rows [0, n) and clears the rest.
func (b Bitmap) SetAll(n int) {
	for i := range b {
		b[i] = 0
	}
	for i := 0; i < n/64; i++ {
		b[i] = ^uint64(0)
	}
	if n%64 != 0 {
		b[n/64] = (1 << (n % 64)) - 1
	}
}

// Get reports whether row i is set.
func (b Bitmap) Get(i int) bool { return b[i>>6]&(1<<(i&63)) != 0 }

// Set sets row i.
func (b Bitmap) Set(i int) { b[i>>6] |= 1 << (i & 63) }

// Clear clears row i.
func (b Bitmap) Clear(i int) { b[i>>6] &^= 1 << (i & 63) }

// Count returns the number of set rows.
func (b Bitmap) Count() int {
	n := 0
	for _, w := range b {
		n += bits.OnesCount64(w)
	}
	return n
}

// AnyIn reports whether any row in [lo, hi) is set.
func (b Bitmap) AnyIn(lo, hi int) bool {
	for lo < hi {
		w := lo >> 6
		if lo&63 == 0 && hi-lo >= 64 {
			if b[w] != 0 {
				return true
			}
			lo += 64
			continue
		}
		if b.Get(lo) {
			return true
		}
		lo++
	}
	return false
}

// ClearRange clears rows [lo, hi).
func (b Bitmap) ClearRange(lo, hi int) {
	for lo < hi {
		if lo&63 == 0 && hi-lo >= 64 {
			b[lo>>6] = 0
			lo += 64
			continue
		}
		b.Clear(lo)
		lo++
	}
}

// Rows appends the indexes of set rows to dst.
func (b Bitmap) Rows(dst []int32) []int32 {
	for wi, w := range b {
		for w != 0 {
			t := bits.TrailingZeros64(w)
			dst = append(dst, int32(wi*64+t))
			w &= w - 1
		}
	}
	return dst
}
