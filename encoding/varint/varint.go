// Package varint implements the Varint encoding: each integer as an LEB128
// uvarint, signed types zig-zag mapped first so small magnitudes of either
// sign stay short. It suits integers whose magnitudes vary widely with a
// small typical size.
package varint

import (
	"encoding/binary"
	"fmt"
	"slices"
	"unsafe"

	"strata/encoding"
)

// Codec registers Varint.
var Codec = &encoding.Codec{
	Kind:    encoding.KindVarint,
	Types:   encoding.IntegerTypes,
	Open:    open,
	Decode:  encoding.Cost{PerValue: 11.6}, // strata calibrate (docs/benchmarks.md)
	Encoder: encoder{},
	Leaf:    true,
	Zstd:    true,
}

type encoder struct{}

func (encoder) Fit(st *encoding.Stats) bool { return st.Type.IsInteger() }

// Estimate cannot be exact from min/max alone; selection trial-encodes a sample.
func (encoder) Estimate(st *encoding.Stats) (int, bool) { return 0, false }

func (encoder) Encode(dst []byte, vals any, st *encoding.Stats, ctx *encoding.Ctx) ([]byte, error) {
	switch v := vals.(type) {
	case []int8:
		return appendSigned(dst, v), nil
	case []int16:
		return appendSigned(dst, v), nil
	case []int32:
		return appendSigned(dst, v), nil
	case []int64:
		return appendSigned(dst, v), nil
	case []uint8:
		return appendUnsigned(dst, v), nil
	case []uint16:
		return appendUnsigned(dst, v), nil
	case []uint32:
		return appendUnsigned(dst, v), nil
	case []uint64:
		return appendUnsigned(dst, v), nil
	}
	return dst, fmt.Errorf("varint: cannot encode %T", vals)
}

// zigzag maps 0, -1, 1, -2, ... to 0, 1, 2, 3, ...
func zigzag(v int64) uint64   { return uint64(v<<1) ^ uint64(v>>63) }
func unzigzag(u uint64) int64 { return int64(u>>1) ^ -int64(u&1) }

func appendSigned[T int8 | int16 | int32 | int64](dst []byte, vals []T) []byte {
	dst = slices.Grow(dst, len(vals)) // a byte a value at least
	for _, v := range vals {
		dst = binary.AppendUvarint(dst, zigzag(int64(v)))
	}
	return dst
}

func appendUnsigned[T uint8 | uint16 | uint32 | uint64](dst []byte, vals []T) []byte {
	dst = slices.Grow(dst, len(vals)) // a byte a value at least
	for _, v := range vals {
		dst = binary.AppendUvarint(dst, uint64(v))
	}
	return dst
}

func open(h encoding.Header, opts *encoding.Options) (encoding.Decoder, error) {
	switch h.Type {
	case encoding.Int8:
		return newDec[int8](h)
	case encoding.Int16:
		return newDec[int16](h)
	case encoding.Int32:
		return newDec[int32](h)
	case encoding.Int64:
		return newDec[int64](h)
	case encoding.Uint8:
		return newDec[uint8](h)
	case encoding.Uint16:
		return newDec[uint16](h)
	case encoding.Uint32:
		return newDec[uint32](h)
	case encoding.Uint64:
		return newDec[uint64](h)
	}
	return nil, encoding.Unsupportedf("varint: type %v", h.Type)
}

// dec reads uvarints in order; off is the byte offset of value pos.
type dec[T encoding.Integer] struct {
	typ    encoding.Type
	n, pos int
	off    int
	body   []byte
	signed bool
	bits   uint // width of T
	// marks[i] is the byte offset of value i·markEvery, built by the first
	// long Skip: a cached decoder then serves point lookups (Gather through
	// a sequential cursor) in O(markEvery) instead of O(rows).
	marks []int32
}

// markEvery is the spacing of Skip's checkpoints, and longSkip the skip
// length from which they are built and used.
const (
	markEvery = 256
	longSkip  = 4 * markEvery
)

// newDec checks that the body holds exactly h.Rows varints: every value ends
// in a byte with the high bit clear, so the count of such bytes must equal
// the row count and the last byte must end a value. Overlong or out-of-range
// values are caught while decoding.
func newDec[T encoding.Integer](h encoding.Header) (*dec[T], error) {
	if h.Rows > len(h.Body) {
		return nil, encoding.Corruptf("varint: %d rows in %d bytes", h.Rows, len(h.Body))
	}
	if len(h.Body) > 0 && h.Body[len(h.Body)-1]&0x80 != 0 {
		return nil, encoding.Corruptf("varint: body ends inside a value")
	}
	ends := 0
	for _, b := range h.Body {
		ends += int(^b >> 7)
	}
	if ends != h.Rows {
		return nil, encoding.Corruptf("varint: body holds %d values, header says %d", ends, h.Rows)
	}
	var z T
	return &dec[T]{typ: h.Type, n: h.Rows, body: h.Body, signed: h.Type.IsSigned(),
		bits: uint(8 * unsafe.Sizeof(z))}, nil
}

func (d *dec[T]) Kind() encoding.Kind { return encoding.KindVarint }
func (d *dec[T]) Type() encoding.Type { return d.typ }
func (d *dec[T]) Len() int            { return d.n }
func (d *dec[T]) Pos() int            { return d.pos }
func (d *dec[T]) Reset()              { d.pos, d.off = 0, 0 }

func (d *dec[T]) check(n int, what string) error {
	if n < 0 || n > d.n-d.pos {
		return fmt.Errorf("varint: %s %d values at %d of %d: %w", what, n, d.pos, d.n, encoding.ErrCorrupt)
	}
	return nil
}

// Skip scans continuation bits: a value ends at each byte below 0x80. A
// long skip first jumps to the last checkpoint before its target.
func (d *dec[T]) Skip(n int) error {
	if err := d.check(n, "skip"); err != nil {
		return err
	}
	target := d.pos + n
	from, off := d.pos, d.off
	if n >= longSkip {
		if d.marks == nil {
			d.buildMarks()
		}
		if m := target / markEvery; m < len(d.marks) && m*markEvery > from {
			from, off = m*markEvery, int(d.marks[m])
		}
	}
	body := d.body
	for k := target - from; k > 0; off++ {
		if body[off] < 0x80 {
			k--
		}
	}
	d.off = off
	d.pos = target
	return nil
}

// buildMarks records the byte offset of every markEvery-th value.
func (d *dec[T]) buildMarks() {
	d.marks = make([]int32, 0, d.n/markEvery+1)
	v := 0
	for off, b := range d.body {
		if v%markEvery == 0 && len(d.marks) == v/markEvery {
			d.marks = append(d.marks, int32(off))
		}
		if b < 0x80 {
			v++
		}
	}
}

func (d *dec[T]) Read(dst []T) error {
	if err := d.check(len(dst), "read"); err != nil {
		return err
	}
	body, off := d.body, d.off
	var acc uint64 // OR of all raw values, to check they fit T
	for i := range dst {
		var u uint64
		if b := body[off]; b < 0x80 {
			u = uint64(b)
			off++
		} else {
			v, k := binary.Uvarint(body[off:])
			if k <= 0 {
				return encoding.Corruptf("varint: bad value at row %d", d.pos+i)
			}
			u = v
			off += k
		}
		acc |= u
		if d.signed {
			dst[i] = T(unzigzag(u))
		} else {
			dst[i] = T(u)
		}
	}
	if d.bits < 64 && acc>>d.bits != 0 {
		return encoding.Corruptf("varint: value wider than %v between rows %d and %d", d.typ, d.pos, d.pos+len(dst))
	}
	d.off = off
	d.pos += len(dst)
	return nil
}
