// Package trivial implements the Trivial encoding: values stored plainly.
// Fixed-width numbers are little-endian, bools are bit-packed LSB-first and
// binary values are a lengths child node followed by the concatenated bytes.
// It is the fallback every other encoding is measured against and the leaf
// of most cascades.
package trivial

import (
	"encoding/binary"
	"fmt"
	"unsafe"

	"strata/encoding"
	"strata/encoding/internal/cascade"
	"strata/internal/filterkern"
)

// Codec registers Trivial. It is not a leaf because binary nodes nest their
// lengths; the selection policy still treats fixed-width Trivial as a leaf.
var Codec = &encoding.Codec{
	Kind:     encoding.KindTrivial,
	Types:    encoding.AllTypes,
	Open:     open,
	Decode:   encoding.Cost{PerValue: 0.743, PerString: 1.2}, // strata calibrate (docs/benchmarks.md)
	Encoder:  encoder{},
	LeafFor:  func(t encoding.Type) bool { return t != encoding.Binary },
	Fallback: true,
	Zstd:     true,
}

// littleEndian reports whether the host stores integers little-endian, in
// which case the body can be viewed in place as a []T.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

type encoder struct{}

// Fit accepts every valid type. It and Encode read no statistics of
// fixed-width values but their type: selection encodes a forced Trivial
// node of such values with the type and count alone (encoding's
// bareStats).
func (encoder) Fit(st *encoding.Stats) bool { return st.Type.Valid() }

func (encoder) Estimate(st *encoding.Stats) (int, bool) {
	switch st.Type {
	case encoding.Binary:
		return 0, false
	case encoding.Bool:
		return (st.N + 7) / 8, true
	}
	return st.N * st.Type.Size(), true
}

func (encoder) Encode(dst []byte, vals any, st *encoding.Stats, ctx *encoding.Ctx) ([]byte, error) {
	switch v := vals.(type) {
	case []bool:
		return appendBools(dst, v), nil
	case []int8:
		return appendFixed(dst, v), nil
	case []int16:
		return appendFixed(dst, v), nil
	case []int32:
		return appendFixed(dst, v), nil
	case []int64:
		return appendFixed(dst, v), nil
	case []uint8:
		return appendFixed(dst, v), nil
	case []uint16:
		return appendFixed(dst, v), nil
	case []uint32:
		return appendFixed(dst, v), nil
	case []uint64:
		return appendFixed(dst, v), nil
	case []float32:
		return appendFixed(dst, v), nil
	case []float64:
		return appendFixed(dst, v), nil
	case encoding.Bytes:
		return appendBinary(dst, &v, ctx)
	case *encoding.Bytes:
		return appendBinary(dst, v, ctx)
	}
	return dst, fmt.Errorf("trivial: cannot encode %T", vals)
}

// appendFixed appends vals little-endian.
func appendFixed[T encoding.Number](dst []byte, vals []T) []byte {
	if len(vals) == 0 {
		return dst
	}
	size := int(unsafe.Sizeof(vals[0]))
	if littleEndian {
		return append(dst, unsafe.Slice((*byte)(unsafe.Pointer(&vals[0])), len(vals)*size)...)
	}
	for _, v := range vals {
		dst = appendLE(dst, v, size)
	}
	return dst
}

func appendLE[T encoding.Number](dst []byte, v T, size int) []byte {
	var u uint64
	switch x := any(v).(type) {
	case float32:
		u = uint64(*(*uint32)(unsafe.Pointer(&x)))
	case float64:
		u = *(*uint64)(unsafe.Pointer(&x))
	default:
		u = uint64(v)
	}
	for i := 0; i < size; i++ {
		dst = append(dst, byte(u>>(8*i)))
	}
	return dst
}

// appendBools packs vals eight to a byte, value i at bit i%8 of byte i/8.
func appendBools(dst []byte, vals []bool) []byte {
	n := len(vals)
	for i := 0; i < n; i += 8 {
		var b byte
		end := min(i+8, n)
		for j, v := range vals[i:end] {
			if v {
				b |= 1 << uint(j)
			}
		}
		dst = append(dst, b)
	}
	return dst
}

func appendBinary(dst []byte, b *encoding.Bytes, ctx *encoding.Ctx) ([]byte, error) {
	n := b.Len()
	lens := make([]uint32, n)
	for i := range lens {
		lens[i] = uint32(b.Offsets[i+1] - b.Offsets[i])
	}
	dst, err := ctx.EncodeChild(dst, lens)
	if err != nil {
		return dst, fmt.Errorf("lengths: %w", err)
	}
	if n > 0 {
		dst = append(dst, b.Data[b.Offsets[0]:b.Offsets[n]]...)
	}
	return dst, nil
}

func open(h encoding.Header, opts *encoding.Options) (encoding.Decoder, error) {
	switch h.Type {
	case encoding.Bool:
		return openBool(h)
	case encoding.Int8:
		return openFixed[int8](h, opts)
	case encoding.Int16:
		return openFixed[int16](h, opts)
	case encoding.Int32:
		return openFixed[int32](h, opts)
	case encoding.Int64:
		return openFixed[int64](h, opts)
	case encoding.Uint8:
		return openFixed[uint8](h, opts)
	case encoding.Uint16:
		return openFixed[uint16](h, opts)
	case encoding.Uint32:
		return openFixed[uint32](h, opts)
	case encoding.Uint64:
		return openFixed[uint64](h, opts)
	case encoding.Float32:
		return openFixed[float32](h, opts)
	case encoding.Float64:
		return openFixed[float64](h, opts)
	case encoding.Binary:
		return openBinary(h, opts)
	}
	return nil, encoding.Unsupportedf("trivial: type %v", h.Type)
}

// cursor is the position state shared by every Trivial decoder.
type cursor struct {
	typ      encoding.Type
	n, pos   int
	inflated bool // the body was stored zstd-compressed
}

// span implements encoding.DecodeSpanner for the fixed-width decoders:
// any row is addressed directly, unless the body was inflated whole.
func (c *cursor) span(from, to int) (int, int) {
	if c.inflated {
		return 0, c.n
	}
	return from, to
}

func (c *cursor) Kind() encoding.Kind { return encoding.KindTrivial }
func (c *cursor) Type() encoding.Type { return c.typ }
func (c *cursor) Len() int            { return c.n }
func (c *cursor) Pos() int            { return c.pos }
func (c *cursor) Reset()              { c.pos = 0 }

func (c *cursor) Skip(n int) error {
	if err := c.check(n, "skip"); err != nil {
		return err
	}
	c.pos += n
	return nil
}

// check returns an error unless n more values remain.
func (c *cursor) check(n int, what string) error {
	if n < 0 || n > c.n-c.pos {
		return fmt.Errorf("trivial: %s %d values at %d of %d: %w", what, n, c.pos, c.n, encoding.ErrCorrupt)
	}
	return nil
}

func checkRows(rows []int32, n int) error {
	prev := int32(-1)
	for _, r := range rows {
		if r <= prev || int(r) >= n {
			return encoding.Corruptf("trivial: gather row %d not increasing or beyond %d rows", r, n)
		}
		prev = r
	}
	return nil
}

// fixedDec decodes fixed-width numbers; vals views the body in place on
// little-endian hosts.
type fixedDec[T encoding.Number] struct {
	cursor
	vals []T
}

func openFixed[T encoding.Number](h encoding.Header, opts *encoding.Options) (encoding.Decoder, error) {
	var z T
	size := int(unsafe.Sizeof(z))
	if uint64(h.Rows)*uint64(size) != uint64(len(h.Body)) {
		return nil, encoding.Corruptf("trivial: %d rows of %d bytes need %d body bytes, have %d",
			h.Rows, size, uint64(h.Rows)*uint64(size), len(h.Body))
	}
	d := &fixedDec[T]{cursor: cursor{typ: h.Type, n: h.Rows, inflated: h.Flags&encoding.FlagZstd != 0}}
	if h.Rows == 0 {
		return d, nil
	}
	if littleEndian {
		d.vals = unsafe.Slice((*T)(unsafe.Pointer(&h.Body[0])), h.Rows)
		return d, nil
	}
	if err := opts.CheckAlloc(h.Rows, size, "trivial values"); err != nil {
		return nil, err
	}
	d.vals = make([]T, h.Rows)
	for i := range d.vals {
		d.vals[i] = loadLE[T](h.Body[i*size:], size)
	}
	return d, nil
}

func loadLE[T encoding.Number](b []byte, size int) T {
	var u uint64
	for i := size - 1; i >= 0; i-- {
		u = u<<8 | uint64(b[i])
	}
	var z T
	switch any(z).(type) {
	case float32:
		u32 := uint32(u)
		return T(*(*float32)(unsafe.Pointer(&u32)))
	case float64:
		return T(*(*float64)(unsafe.Pointer(&u)))
	}
	return T(u)
}

// DecodeSpan implements encoding.DecodeSpanner.
func (d *fixedDec[T]) DecodeSpan(from, to int) (int, int) { return d.span(from, to) }

func (d *fixedDec[T]) Read(dst []T) error {
	if err := d.check(len(dst), "read"); err != nil {
		return err
	}
	copy(dst, d.vals[d.pos:])
	d.pos += len(dst)
	return nil
}

func (d *fixedDec[T]) Gather(rows []int32, dst []T) error {
	if len(dst) < len(rows) {
		return fmt.Errorf("trivial: gather of %d rows into %d values", len(rows), len(dst))
	}
	if err := checkRows(rows, d.n); err != nil {
		return err
	}
	for i, r := range rows {
		dst[i] = d.vals[r]
	}
	return nil
}

func (d *fixedDec[T]) Filter(p *encoding.Pred[T], n int, sel encoding.Bitmap) error {
	if err := d.check(n, "filter"); err != nil {
		return err
	}
	filterkern.Filter(d.vals[d.pos:d.pos+n], p, sel)
	d.pos += n
	return nil
}

// boolDec decodes bit-packed bools.
type boolDec struct {
	cursor
	body []byte
}

func openBool(h encoding.Header) (encoding.Decoder, error) {
	if want := (uint64(h.Rows) + 7) / 8; want != uint64(len(h.Body)) {
		return nil, encoding.Corruptf("trivial: %d bools need %d body bytes, have %d", h.Rows, want, len(h.Body))
	}
	return &boolDec{cursor: cursor{typ: encoding.Bool, n: h.Rows, inflated: h.Flags&encoding.FlagZstd != 0}, body: h.Body}, nil
}

// DecodeSpan implements encoding.DecodeSpanner.
func (d *boolDec) DecodeSpan(from, to int) (int, int) { return d.span(from, to) }

func (d *boolDec) Read(dst []bool) error {
	if err := d.check(len(dst), "read"); err != nil {
		return err
	}
	pos := d.pos
	i := 0
	// leading bits up to a byte boundary
	for ; i < len(dst) && pos&7 != 0; i++ {
		dst[i] = d.body[pos>>3]>>(pos&7)&1 != 0
		pos++
	}
	// whole bytes
	for ; i+8 <= len(dst); i += 8 {
		b := d.body[pos>>3]
		out := dst[i : i+8 : i+8]
		out[0] = b&1 != 0
		out[1] = b&2 != 0
		out[2] = b&4 != 0
		out[3] = b&8 != 0
		out[4] = b&16 != 0
		out[5] = b&32 != 0
		out[6] = b&64 != 0
		out[7] = b&128 != 0
		pos += 8
	}
	for ; i < len(dst); i++ {
		dst[i] = d.body[pos>>3]>>(pos&7)&1 != 0
		pos++
	}
	d.pos = pos
	return nil
}

func (d *boolDec) Gather(rows []int32, dst []bool) error {
	if len(dst) < len(rows) {
		return fmt.Errorf("trivial: gather of %d rows into %d values", len(rows), len(dst))
	}
	if err := checkRows(rows, d.n); err != nil {
		return err
	}
	for i, r := range rows {
		dst[i] = d.body[r>>3]>>(r&7)&1 != 0
	}
	return nil
}

// binaryDec decodes binary values. Offsets are built once from the lengths
// child — at open, or, when every value has the same length (a Constant
// lengths child, as single-letter codes have), only when a read needs them:
// a lookup addresses such values directly and does not pay for offsets of
// every row of the chunk.
type binaryDec struct {
	cursor
	lengths []byte  // the lengths child node
	offs    []int32 // n+1 offsets into data; nil until needed when width >= 0
	width   int     // the length of every value, or -1 when lengths vary
	data    []byte
	opts    *encoding.Options
}

func openBinary(h encoding.Header, opts *encoding.Options) (encoding.Decoder, error) {
	child, data, err := encoding.Child(h.Body, "trivial lengths")
	if err != nil {
		return nil, err
	}
	lr, err := encoding.OpenTyped[uint32](child, h.Depth+1, opts)
	if err != nil {
		return nil, fmt.Errorf("trivial lengths: %w", err)
	}
	if err := encoding.CheckRows(lr, h.Rows, "trivial lengths"); err != nil {
		return nil, err
	}
	d := &binaryDec{cursor: cursor{typ: encoding.Binary, n: h.Rows}, lengths: child, width: -1, data: data, opts: opts}
	if c, ok := lr.(interface{ Value() uint32 }); ok && lr.Kind() == encoding.KindConstant && h.Rows > 0 {
		if total := uint64(c.Value()) * uint64(h.Rows); total != uint64(len(data)) || total > 1<<31-1 {
			return nil, encoding.Corruptf("trivial: %d values of %d bytes, data holds %d bytes", h.Rows, c.Value(), len(data))
		}
		d.width = int(c.Value())
		return d, nil
	}
	offs, err := cascade.ReadOffsets(lr, h.Rows, len(data), opts, "trivial value lengths")
	if err != nil {
		return nil, err
	}
	if total := offs[h.Rows]; int(total) != len(data) {
		return nil, encoding.Corruptf("trivial: value lengths sum to %d, data holds %d bytes", total, len(data))
	}
	d.offs = offs
	return d, nil
}

// offsets returns the n+1 value offsets, building them for equal-length
// values on first use.
func (d *binaryDec) offsets() ([]int32, error) {
	if d.offs != nil {
		return d.offs, nil
	}
	if err := d.opts.CheckAlloc(d.n+1, 4, "trivial value offsets"); err != nil {
		return nil, err
	}
	offs := make([]int32, d.n+1)
	for i := range offs {
		offs[i] = int32(i * d.width) // the total was checked to fit at open
	}
	d.offs = offs
	return offs, nil
}

func (d *binaryDec) Children() []encoding.ChildNode {
	return []encoding.ChildNode{{Role: "lengths", Node: d.lengths}}
}

// appendRange appends values [i, j) to dst with one data copy.
func appendRange(dst *encoding.Bytes, offs []int32, data []byte, i, j int) {
	if len(dst.Offsets) == 0 {
		dst.Offsets = append(dst.Offsets, int32(len(dst.Data)))
	}
	shift := int32(len(dst.Data)) - offs[i]
	dst.Data = append(dst.Data, data[offs[i]:offs[j]]...)
	for _, o := range offs[i+1 : j+1] {
		dst.Offsets = append(dst.Offsets, o+shift)
	}
}

func (d *binaryDec) ReadBinary(dst *encoding.Bytes, n int) error {
	if err := d.check(n, "read"); err != nil {
		return err
	}
	if _, err := d.offsets(); err != nil {
		return err
	}
	if len(dst.Offsets) == 0 && len(dst.Data) == 0 {
		// An empty destination shares the decoder's offsets and bytes
		// instead of copying them (Offsets[0] need not be zero). The data
		// ends at the last value read, so that values appended later
		// start where the last offset says; the caps are clipped so a
		// later append reallocates rather than writing into memory the
		// decoder or its source still owns.
		end := d.offs[d.pos+n]
		dst.Offsets = d.offs[d.pos : d.pos+n+1 : d.pos+n+1]
		dst.Data = d.data[:end:end]
		d.pos += n
		return nil
	}
	appendRange(dst, d.offs, d.data, d.pos, d.pos+n)
	d.pos += n
	return nil
}

func (d *binaryDec) GatherBinary(rows []int32, dst *encoding.Bytes) error {
	if err := checkRows(rows, d.n); err != nil {
		return err
	}
	if d.offs == nil {
		w := d.width
		for _, r := range rows {
			dst.Append(d.data[int(r)*w : int(r)*w+w])
		}
		return nil
	}
	for _, r := range rows {
		dst.Append(d.data[d.offs[r]:d.offs[r+1]])
	}
	return nil
}

func (d *binaryDec) FilterBinary(p *encoding.BytesPred, n int, sel encoding.Bitmap) error {
	if err := d.check(n, "filter"); err != nil {
		return err
	}
	if _, err := d.offsets(); err != nil {
		return err
	}
	offs := d.offs[d.pos : d.pos+n+1]
	for i := 0; i < n; i++ {
		if sel[i>>6]&(1<<(i&63)) == 0 {
			continue
		}
		if !p.Match(d.data[offs[i]:offs[i+1]]) {
			sel.Clear(i)
		}
	}
	d.pos += n
	return nil
}
