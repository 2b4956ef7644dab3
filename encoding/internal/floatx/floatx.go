// Package floatx holds what the float encodings (ALP, ALP-RD, Chimp) share:
// the bounds header each of them starts its body with, the predicate
// shortcut those bounds allow, bit views of float slices, and the
// decode-and-compare filter every one of them falls back to.
package floatx

import (
	"math"
	"unsafe"

	"strata/encoding"
	"strata/internal/filterkern"
)

// Float is the set of float types the float encodings store.
type Float interface{ float32 | float64 }

// Size returns the width of T in bytes.
func Size[T Float]() int {
	var z T
	return int(unsafe.Sizeof(z))
}

// Bits returns the IEEE 754 bits of v, zero-extended to 64 bits.
func Bits[T Float](v T) uint64 {
	switch x := any(v).(type) {
	case float32:
		return uint64(math.Float32bits(x))
	case float64:
		return math.Float64bits(x)
	}
	return 0
}

// FromBits is the inverse of Bits.
func FromBits[T Float](u uint64) T {
	var z T
	switch any(z).(type) {
	case float32:
		return any(math.Float32frombits(uint32(u))).(T)
	case float64:
		return any(math.Float64frombits(u)).(T)
	}
	return z
}

// View reinterprets a float slice as a slice of the unsigned or signed
// integer type U of the same width, sharing memory.
func View[U any, T Float](v []T) []U {
	if len(v) == 0 {
		return nil
	}
	return unsafe.Slice((*U)(unsafe.Pointer(&v[0])), len(v))
}

// Bounds header: flag:u8, then lo and hi (size(T) bytes each, IEEE bits
// little-endian) when flag is 1. Flag 0 means the node is empty or holds a
// NaN, so its bounds are unknown.

// AppendBounds appends the bounds header of vals.
func AppendBounds[T Float](dst []byte, vals []T) []byte {
	lo, hi, ok := MinMax(vals)
	if !ok {
		return append(dst, 0)
	}
	dst = append(dst, 1)
	dst = appendLE(dst, Bits(lo), Size[T]())
	return appendLE(dst, Bits(hi), Size[T]())
}

// MinMax returns the minimum and maximum of vals; ok is false when vals is
// empty or holds a NaN.
func MinMax[T Float](vals []T) (lo, hi T, ok bool) {
	if len(vals) == 0 {
		return lo, hi, false
	}
	lo, hi = vals[0], vals[0]
	for _, v := range vals {
		if v != v {
			return lo, hi, false
		}
		lo = min(lo, v)
		hi = max(hi, v)
	}
	return lo, hi, true
}

// ParseBounds reads a bounds header. It rejects a flag other than 0 or 1,
// NaN bounds and lo > hi.
func ParseBounds[T Float](body []byte) (lo, hi T, ok bool, rest []byte, err error) {
	if len(body) < 1 {
		return lo, hi, false, body, encoding.Corruptf("bounds: missing flag")
	}
	switch body[0] {
	case 0:
		return lo, hi, false, body[1:], nil
	case 1:
	default:
		return lo, hi, false, body, encoding.Corruptf("bounds: flag %d", body[0])
	}
	s := Size[T]()
	if len(body) < 1+2*s {
		return lo, hi, false, body, encoding.Corruptf("bounds: %d bytes, need %d", len(body), 1+2*s)
	}
	lo, hi = FromBits[T](loadLE(body[1:], s)), FromBits[T](loadLE(body[1+s:], s))
	if !(lo <= hi) {
		return lo, hi, false, body, encoding.Corruptf("bounds: [%v, %v]", lo, hi)
	}
	return lo, hi, true, body[1+2*s:], nil
}

func appendLE(dst []byte, u uint64, size int) []byte {
	for i := 0; i < size; i++ {
		dst = append(dst, byte(u>>(8*i)))
	}
	return dst
}

func loadLE(b []byte, size int) uint64 {
	var u uint64
	for i := size - 1; i >= 0; i-- {
		u = u<<8 | uint64(b[i])
	}
	return u
}

// Settle decides a predicate for n rows from the node bounds alone when it
// can: none can match (their bits are cleared) or all match. It reports
// whether it settled them; the caller then only advances its cursor.
func Settle[T Float](p *encoding.Pred[T], lo, hi T, ok bool, n int, sel encoding.Bitmap) bool {
	if !ok {
		return false
	}
	if !p.MayMatchRange(lo, hi) {
		sel.ClearRange(0, n)
		return true
	}
	return p.AllMatchRange(lo, hi)
}

// Batch is the number of values the fallback filter decodes at a time.
const Batch = 1024

// Scratch holds the buffers the fallback filter reuses.
type Scratch[T Float] struct {
	vals    []T
	in, out encoding.Bitmap
}

// FilterRead evaluates p on the next n values of r by decoding them in
// batches and comparing; batches whose rows are all deselected are skipped.
func FilterRead[T Float](r encoding.Reader[T], p *encoding.Pred[T], n int, sel encoding.Bitmap, s *Scratch[T]) error {
	if cap(s.vals) < Batch {
		s.vals = make([]T, Batch)
	}
	for o := 0; o < n; {
		k := min(Batch, n-o)
		if !sel.AnyIn(o, o+k) {
			if err := r.Skip(k); err != nil {
				return err
			}
			o += k
			continue
		}
		b := s.vals[:k]
		if err := r.Read(b); err != nil {
			return err
		}
		s.in, s.out = filterkern.FilterAt(b, p, sel, o, s.in, s.out)
		o += k
	}
	return nil
}
