// Package constant implements the Constant encoding: a sequence whose values
// are all identical (bit for bit, for floats) stores that value once.
// Predicates, bounds and gathers are answered from the one value.
package constant

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"

	"strata/encoding"
)

// Codec registers Constant.
var Codec = &encoding.Codec{
	Kind:          encoding.KindConstant,
	Types:         encoding.AllTypes,
	Open:          open,
	Decode:        encoding.Cost{PerValue: 0.991, PerString: 0.9, PerByte: 0.078}, // strata calibrate (docs/benchmarks.md; PerString 2026-12-02)
	Encoder:       encoder{},
	Leaf:          true,
	Zstd:          true,
	NeedsDistinct: true,
}

type encoder struct{}

// Fit requires exactly one distinct value. Stats count floats by their bits,
// so -0.0 and 0.0 (or two NaN payloads) are different values here.
func (encoder) Fit(st *encoding.Stats) bool {
	return st.N > 0 && st.DistinctExact && st.Distinct == 1
}

func (encoder) Estimate(st *encoding.Stats) (int, bool) {
	switch st.Type {
	case encoding.Binary:
		return uvarintLen(uint64(st.MaxLen)) + st.MaxLen, true
	case encoding.Bool:
		return 1, true
	}
	return st.Type.Size(), true
}

func uvarintLen(v uint64) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}

func (encoder) Encode(dst []byte, vals any, st *encoding.Stats, ctx *encoding.Ctx) ([]byte, error) {
	if encoding.LenOf(vals) == 0 {
		return dst, fmt.Errorf("constant: empty sequence")
	}
	if !allSame(vals) {
		return dst, fmt.Errorf("constant: values differ")
	}
	switch v := vals.(type) {
	case []bool:
		if v[0] {
			return append(dst, 1), nil
		}
		return append(dst, 0), nil
	case []int8:
		return appendLE(dst, uint64(v[0]), 1), nil
	case []int16:
		return appendLE(dst, uint64(v[0]), 2), nil
	case []int32:
		return appendLE(dst, uint64(v[0]), 4), nil
	case []int64:
		return appendLE(dst, uint64(v[0]), 8), nil
	case []uint8:
		return appendLE(dst, uint64(v[0]), 1), nil
	case []uint16:
		return appendLE(dst, uint64(v[0]), 2), nil
	case []uint32:
		return appendLE(dst, uint64(v[0]), 4), nil
	case []uint64:
		return appendLE(dst, v[0], 8), nil
	case []float32:
		return appendLE(dst, uint64(math.Float32bits(v[0])), 4), nil
	case []float64:
		return appendLE(dst, math.Float64bits(v[0]), 8), nil
	case encoding.Bytes:
		x := v.Value(0)
		return append(binary.AppendUvarint(dst, uint64(len(x))), x...), nil
	case *encoding.Bytes:
		x := v.Value(0)
		return append(binary.AppendUvarint(dst, uint64(len(x))), x...), nil
	}
	return dst, fmt.Errorf("constant: cannot encode %T", vals)
}

// allSame reports whether every value is bit-identical to the first. Fit
// relies on a distinct count of hashes; this check makes Encode exact
// whatever selects it.
func allSame(vals any) bool {
	switch v := vals.(type) {
	case []bool:
		return sameAs(v, func(x bool) bool { return x })
	case []int8:
		return sameAs(v, func(x int8) int8 { return x })
	case []int16:
		return sameAs(v, func(x int16) int16 { return x })
	case []int32:
		return sameAs(v, func(x int32) int32 { return x })
	case []int64:
		return sameAs(v, func(x int64) int64 { return x })
	case []uint8:
		return sameAs(v, func(x uint8) uint8 { return x })
	case []uint16:
		return sameAs(v, func(x uint16) uint16 { return x })
	case []uint32:
		return sameAs(v, func(x uint32) uint32 { return x })
	case []uint64:
		return sameAs(v, func(x uint64) uint64 { return x })
	case []float32:
		return sameAs(v, math.Float32bits)
	case []float64:
		return sameAs(v, math.Float64bits)
	case encoding.Bytes:
		return sameBytes(&v)
	case *encoding.Bytes:
		return sameBytes(v)
	}
	return false
}

func sameAs[T any, K comparable](v []T, key func(T) K) bool {
	first := key(v[0])
	for _, x := range v[1:] {
		if key(x) != first {
			return false
		}
	}
	return true
}

func sameBytes(b *encoding.Bytes) bool {
	first := b.Value(0)
	for i := 1; i < b.Len(); i++ {
		if string(b.Value(i)) != string(first) {
			return false
		}
	}
	return true
}

func appendLE(dst []byte, u uint64, size int) []byte {
	for i := 0; i < size; i++ {
		dst = append(dst, byte(u>>(8*i)))
	}
	return dst
}

func loadLE(b []byte) uint64 {
	var u uint64
	for i := len(b) - 1; i >= 0; i-- {
		u = u<<8 | uint64(b[i])
	}
	return u
}

func open(h encoding.Header, opts *encoding.Options) (encoding.Decoder, error) {
	c := cursor{typ: h.Type, n: h.Rows}
	if h.Type == encoding.Binary {
		l, rest, err := encoding.Length(h.Body, len(h.Body), "constant value length")
		if err != nil {
			return nil, err
		}
		if l != len(rest) {
			return nil, encoding.Corruptf("constant: value of %d bytes, body holds %d", l, len(rest))
		}
		return &binaryDec{cursor: c, v: rest, opts: opts}, nil
	}
	size := h.Type.Size()
	if len(h.Body) != size {
		return nil, encoding.Corruptf("constant: %v value needs %d bytes, body holds %d", h.Type, size, len(h.Body))
	}
	u := loadLE(h.Body)
	switch h.Type {
	case encoding.Bool:
		if u > 1 {
			return nil, encoding.Corruptf("constant: bool byte %d", u)
		}
		return &fixedDec[bool]{cursor: c, v: u == 1}, nil
	case encoding.Int8:
		return newNum(c, int8(u)), nil
	case encoding.Int16:
		return newNum(c, int16(u)), nil
	case encoding.Int32:
		return newNum(c, int32(u)), nil
	case encoding.Int64:
		return newNum(c, int64(u)), nil
	case encoding.Uint8:
		return newNum(c, uint8(u)), nil
	case encoding.Uint16:
		return newNum(c, uint16(u)), nil
	case encoding.Uint32:
		return newNum(c, uint32(u)), nil
	case encoding.Uint64:
		return newNum(c, u), nil
	case encoding.Float32:
		return newNum(c, math.Float32frombits(uint32(u))), nil
	case encoding.Float64:
		return newNum(c, math.Float64frombits(u)), nil
	}
	return nil, encoding.Unsupportedf("constant: type %v", h.Type)
}

type cursor struct {
	typ    encoding.Type
	n, pos int
}

func (c *cursor) Kind() encoding.Kind { return encoding.KindConstant }
func (c *cursor) Type() encoding.Type { return c.typ }
func (c *cursor) Len() int            { return c.n }
func (c *cursor) Pos() int            { return c.pos }
func (c *cursor) Reset()              { c.pos = 0 }

// DecodeSpan implements encoding.DecodeSpanner: nothing is decoded per row.
func (c *cursor) DecodeSpan(from, to int) (int, int) { return from, to }

func (c *cursor) Skip(n int) error {
	if err := c.check(n, "skip"); err != nil {
		return err
	}
	c.pos += n
	return nil
}

func (c *cursor) check(n int, what string) error {
	if n < 0 || n > c.n-c.pos {
		return fmt.Errorf("constant: %s %d values at %d of %d: %w", what, n, c.pos, c.n, encoding.ErrCorrupt)
	}
	return nil
}

func checkRows(rows []int32, n int) error {
	prev := int32(-1)
	for _, r := range rows {
		if r <= prev || int(r) >= n {
			return encoding.Corruptf("constant: gather row %d not increasing or beyond %d rows", r, n)
		}
		prev = r
	}
	return nil
}

// fixedDec serves a fixed-width constant.
type fixedDec[T encoding.Fixed] struct {
	cursor
	v T
}

func (d *fixedDec[T]) Read(dst []T) error {
	if err := d.check(len(dst), "read"); err != nil {
		return err
	}
	for i := range dst {
		dst[i] = d.v
	}
	d.pos += len(dst)
	return nil
}

func (d *fixedDec[T]) Gather(rows []int32, dst []T) error {
	if len(dst) < len(rows) {
		return fmt.Errorf("constant: gather of %d rows into %d values", len(rows), len(dst))
	}
	if err := checkRows(rows, d.n); err != nil {
		return err
	}
	for i := range rows {
		dst[i] = d.v
	}
	return nil
}

// numDec adds the numeric capabilities.
type numDec[T encoding.Number] struct{ fixedDec[T] }

func newNum[T encoding.Number](c cursor, v T) *numDec[T] {
	return &numDec[T]{fixedDec[T]{cursor: c, v: v}}
}

// Bounds is the value itself; unknown for NaN.
func (d *numDec[T]) Bounds() (T, T, bool) {
	return d.v, d.v, d.n > 0 && d.v == d.v
}

// Filter tests the value once for the whole span.
func (d *numDec[T]) Filter(p *encoding.Pred[T], n int, sel encoding.Bitmap) error {
	if err := d.check(n, "filter"); err != nil {
		return err
	}
	if !p.Match(d.v) {
		sel.ClearRange(0, n)
	}
	d.pos += n
	return nil
}

// Value returns the constant, for callers that special-case constants.
func (d *fixedDec[T]) Value() T { return d.v }

// binaryDec serves a binary constant.
type binaryDec struct {
	cursor
	v    []byte
	opts *encoding.Options
}

func (d *binaryDec) ReadBinary(dst *encoding.Bytes, n int) error {
	if err := d.check(n, "read"); err != nil {
		return err
	}
	if err := d.grow(dst, n); err != nil {
		return err
	}
	dst.AppendRepeated(d.v, n)
	d.pos += n
	return nil
}

// grow checks that n more copies fit the decode limits, then reserves them.
func (d *binaryDec) grow(dst *encoding.Bytes, n int) error {
	if len(d.v) > 0 {
		// n copies, then the bytes the buffer will hold in all (it may
		// already hold the earlier chunks of a stream).
		if err := d.opts.CheckAlloc(n, len(d.v), "constant: binary values"); err != nil {
			return err
		}
		if err := d.opts.CheckAlloc(len(dst.Data)+n*len(d.v), 1, "constant: binary bytes"); err != nil {
			return err
		}
		if n > (math.MaxInt32-len(dst.Data))/len(d.v) {
			return encoding.Limitf("constant: %d values of %d bytes overflow 32-bit offsets", n, len(d.v))
		}
	}
	dst.Data = growCap(dst.Data, n*len(d.v))
	dst.Offsets = growCap(dst.Offsets, n+1)
	return nil
}

// growCap makes room for n more elements of s, growing its capacity
// geometrically (slices.Grow): a stream read a chunk at a time appends
// each chunk's values to one buffer, and growing it by exactly n copied
// the whole buffer at every chunk, quadratic in the stream's chunks (a
// file written with ChunkValues 1 took 2 GB to scan 40,000 rows).
func growCap[E any](s []E, n int) []E { return slices.Grow(s, n) }

func (d *binaryDec) GatherBinary(rows []int32, dst *encoding.Bytes) error {
	if err := checkRows(rows, d.n); err != nil {
		return err
	}
	if err := d.grow(dst, len(rows)); err != nil {
		return err
	}
	for range rows {
		dst.Append(d.v)
	}
	return nil
}

func (d *binaryDec) BinaryBounds() ([]byte, []byte, bool) { return d.v, d.v, d.n > 0 }

func (d *binaryDec) FilterBinary(p *encoding.BytesPred, n int, sel encoding.Bitmap) error {
	if err := d.check(n, "filter"); err != nil {
		return err
	}
	if !p.Match(d.v) {
		sel.ClearRange(0, n)
	}
	d.pos += n
	return nil
}

// Value returns the constant.
func (d *binaryDec) Value() []byte { return d.v }
