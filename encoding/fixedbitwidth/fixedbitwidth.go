// Package fixedbitwidth implements the FixedBitWidth encoding: frame of
// reference plus bit-packing. Each value is stored as its offset from the
// sequence minimum (the base) in the smallest bit width that holds the
// largest offset. The header also stores the exact maximum, so Bounds is
// exact and predicates translate into offset space without decoding.
package fixedbitwidth

import (
	"fmt"
	"math/bits"
	"slices"
	"sync"
	"unsafe"

	"strata/encoding"
	"strata/internal/bitpack"
	"strata/internal/filterkern"
)

// Codec registers FixedBitWidth.
var Codec = &encoding.Codec{
	Kind:    encoding.KindFixedBitWidth,
	Types:   encoding.IntegerTypes | encoding.TypesOf(encoding.Bool),
	Open:    open,
	Decode:  encoding.Cost{PerValue: 1.1}, // strata calibrate (docs/benchmarks.md)
	Encoder: encoder{},
	Leaf:    true,
	Zstd:    true,
}

// batch is the number of values decoded per step; a multiple of 64 so every
// step after the first starts on a bitpack block and a bitmap word.
const batch = 1024

type encoder struct{}

func (encoder) Fit(st *encoding.Stats) bool {
	return st.Type == encoding.Bool || st.Type.IsInteger()
}

func (encoder) Estimate(st *encoding.Stats) (int, bool) {
	return headerSize(st.Type) + bitpack.Bytes(st.N, st.RangeBits), true
}

// headerSize is width:u8 + base + max, each in the type's width.
func headerSize(t encoding.Type) int { return 1 + 2*t.Size() }

func (encoder) Encode(dst []byte, vals any, st *encoding.Stats, ctx *encoding.Ctx) ([]byte, error) {
	switch v := vals.(type) {
	case []bool:
		u := make([]uint8, len(v))
		for i, b := range v {
			if b {
				u[i] = 1
			}
		}
		return encodeInts(dst, u, st), nil
	case []int8:
		return encodeInts(dst, v, st), nil
	case []int16:
		return encodeInts(dst, v, st), nil
	case []int32:
		return encodeInts(dst, v, st), nil
	case []int64:
		return encodeInts(dst, v, st), nil
	case []uint8:
		return encodeInts(dst, v, st), nil
	case []uint16:
		return encodeInts(dst, v, st), nil
	case []uint32:
		return encodeInts(dst, v, st), nil
	case []uint64:
		return encodeInts(dst, v, st), nil
	}
	return dst, fmt.Errorf("fixedbitwidth: cannot encode %T", vals)
}

func encodeInts[T encoding.Integer](dst []byte, vals []T, st *encoding.Stats) []byte {
	var base, mx T
	if len(vals) > 0 {
		base, mx = vals[0], vals[0]
		for _, v := range vals[1:] {
			base = min(base, v)
			mx = max(mx, v)
		}
	}
	size := int(unsafe.Sizeof(base))
	w := bits.Len64(uint64(mx) - uint64(base))
	if size < 8 {
		w = bits.Len64((uint64(mx) - uint64(base)) & (1<<(8*size) - 1))
	}
	dst = append(dst, byte(w))
	dst = appendLE(dst, uint64(base), size)
	dst = appendLE(dst, uint64(mx), size)
	// The packed size is known: one allocation instead of a doubling
	// buffer copied and cleared on every growth.
	dst = slices.Grow(dst, len(vals)/batch*bitpack.Bytes(batch, w)+bitpack.Bytes(len(vals)%batch, w))
	var buf [batch]uint64
	ub := uint64(base)
	for i := 0; i < len(vals); i += batch {
		chunk := vals[i:min(i+batch, len(vals))]
		for j, v := range chunk {
			buf[j] = uint64(v) - ub
		}
		dst = bitpack.Pack(dst, buf[:len(chunk)], w)
	}
	return dst
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

func open(h encoding.Header, opts *encoding.Options) (encoding.Decoder, error) {
	switch h.Type {
	case encoding.Bool:
		d, err := openInts[uint8](h)
		if err != nil {
			return nil, err
		}
		if d.max > 1 {
			return nil, encoding.Corruptf("fixedbitwidth: bool maximum %d", d.max)
		}
		return &boolDec{d: d}, nil
	case encoding.Int8:
		return openInts[int8](h)
	case encoding.Int16:
		return openInts[int16](h)
	case encoding.Int32:
		return openInts[int32](h)
	case encoding.Int64:
		return openInts[int64](h)
	case encoding.Uint8:
		return openInts[uint8](h)
	case encoding.Uint16:
		return openInts[uint16](h)
	case encoding.Uint32:
		return openInts[uint32](h)
	case encoding.Uint64:
		return openInts[uint64](h)
	}
	return nil, encoding.Unsupportedf("fixedbitwidth: type %v", h.Type)
}

// dec decodes an integer node. The packed stream is used in place.
type dec[T encoding.Integer] struct {
	typ       encoding.Type
	n, pos    int
	inflated  bool // the body was stored zstd-compressed
	w         int
	base, max T
	packed    []byte
}

// Scratch of the loops that unpack a batch at a time. A local array
// handed to the kernels (called through tables of functions) escapes, so
// every call that filtered or summed a few rows allocated and cleared 8 KiB;
// a decoder cannot keep its own, since the caches hold many decoders and
// count a few hundred bytes for each.
var (
	scratch64 = sync.Pool{New: func() any { return new([batch]uint64) }}
	scratch32 = sync.Pool{New: func() any { return new([batch]uint32) }}
)

func openInts[T encoding.Integer](h encoding.Header) (*dec[T], error) {
	var z T
	size := int(unsafe.Sizeof(z))
	if len(h.Body) < 1+2*size {
		return nil, encoding.Corruptf("fixedbitwidth: body of %d bytes shorter than its %d-byte header", len(h.Body), 1+2*size)
	}
	w := int(h.Body[0])
	if w > 8*size {
		return nil, encoding.Corruptf("fixedbitwidth: width %d for a %d-byte type", w, size)
	}
	d := &dec[T]{typ: h.Type, n: h.Rows, w: w, inflated: h.Flags&encoding.FlagZstd != 0,
		base: T(loadLE(h.Body[1:], size)), max: T(loadLE(h.Body[1+size:], size))}
	if d.max < d.base {
		return nil, encoding.Corruptf("fixedbitwidth: maximum %v below base %v", d.max, d.base)
	}
	d.packed = h.Body[1+2*size:]
	if want := bitpack.Bytes(h.Rows, w); uint64(len(d.packed)) != (uint64(h.Rows)*uint64(w)+7)/8 {
		return nil, encoding.Corruptf("fixedbitwidth: %d rows of %d bits need %d bytes, have %d", h.Rows, w, want, len(d.packed))
	}
	return d, nil
}

func (d *dec[T]) Kind() encoding.Kind { return encoding.KindFixedBitWidth }
func (d *dec[T]) Type() encoding.Type { return d.typ }
func (d *dec[T]) Len() int            { return d.n }
func (d *dec[T]) Pos() int            { return d.pos }
func (d *dec[T]) Reset()              { d.pos = 0 }

// DecodeSpan implements encoding.DecodeSpanner: any row is unpacked
// directly, unless the body was inflated whole.
func (d *dec[T]) DecodeSpan(from, to int) (int, int) {
	if d.inflated {
		return 0, d.n
	}
	return from, to
}

func (d *dec[T]) Skip(n int) error {
	if err := d.check(n, "skip"); err != nil {
		return err
	}
	d.pos += n
	return nil
}

func (d *dec[T]) check(n int, what string) error {
	if n < 0 || n > d.n-d.pos {
		return fmt.Errorf("fixedbitwidth: %s %d values at %d of %d: %w", what, n, d.pos, d.n, encoding.ErrCorrupt)
	}
	return nil
}

// Bounds returns the exact minimum and maximum stored in the header.
func (d *dec[T]) Bounds() (T, T, bool) { return d.base, d.max, d.n > 0 }

func (d *dec[T]) Read(dst []T) error {
	if err := d.check(len(dst), "read"); err != nil {
		return err
	}
	d.unpack(dst, d.pos)
	d.pos += len(dst)
	return nil
}

// unpack decodes values [start, start+len(dst)) into dst: the kernels write
// values straight into dst, base added, when T is as wide as their output.
func (d *dec[T]) unpack(dst []T, start int) {
	if len(dst) == 0 {
		return
	}
	size := unsafe.Sizeof(dst[0])
	ub := uint64(d.base)
	switch {
	case size == 8:
		u := unsafe.Slice((*uint64)(unsafe.Pointer(&dst[0])), len(dst))
		bitpack.UnpackAdd(u, d.packed, d.w, start, ub)
	case size == 4:
		u := unsafe.Slice((*uint32)(unsafe.Pointer(&dst[0])), len(dst))
		bitpack.Unpack32Add(u, d.packed, d.w, start, uint32(ub))
	default:
		buf := scratch32.Get().(*[batch]uint32)
		defer scratch32.Put(buf)
		for i := 0; i < len(dst); i += batch {
			out := dst[i:min(i+batch, len(dst))]
			b := buf[:len(out)]
			bitpack.Unpack32(b, d.packed, d.w, start+i)
			for j, o := range b {
				out[j] = T(uint64(o) + ub)
			}
		}
	}
}

func checkRows(rows []int32, n int) error {
	prev := int32(-1)
	for _, r := range rows {
		if r <= prev || int(r) >= n {
			return encoding.Corruptf("fixedbitwidth: gather row %d not increasing or beyond %d rows", r, n)
		}
		prev = r
	}
	return nil
}

func (d *dec[T]) Gather(rows []int32, dst []T) error {
	if len(dst) < len(rows) {
		return fmt.Errorf("fixedbitwidth: gather of %d rows into %d values", len(rows), len(dst))
	}
	if err := checkRows(rows, d.n); err != nil {
		return err
	}
	bitpack.Gather(dst, d.packed, d.w, rows, 0, uint64(d.base))
	return nil
}

// SumRanges implements encoding.RangeSummer: the rows' base plus their
// packed offsets summed by bitpack.Sum, nothing unpacked. A narrower type
// whose widest offset could carry base past T's range unpacks instead, so
// the sum is always that of the values Read returns.
func (d *dec[T]) SumRanges(from int, ends []int32, out []uint64) error {
	if len(out) < len(ends) {
		return fmt.Errorf("fixedbitwidth: %d sums into %d values", len(ends), len(out))
	}
	if from < 0 || from > d.n {
		return encoding.Corruptf("fixedbitwidth: sums from row %d of %d", from, d.n)
	}
	ub := uint64(int64(d.base))
	top := ub + mask(d.w)
	exact := unsafe.Sizeof(d.base) == 8 || (uint64(int64(T(top))) == top && T(top) >= d.base)
	r := from
	var buf []T
	for i, e32 := range ends {
		e := int(e32)
		if e < r || e > d.n {
			return encoding.Corruptf("fixedbitwidth: sum of rows [%d, %d) of %d", r, e, d.n)
		}
		if exact {
			out[i] = uint64(e-r)*ub + bitpack.Sum(d.packed, d.w, r, e-r)
			r = e
			continue
		}
		var s uint64
		if buf == nil {
			buf = make([]T, batch) // narrow types near their limit only
		}
		for r < e {
			b := buf[:min(batch, e-r)]
			d.unpack(b, r)
			for _, v := range b {
				s += uint64(int64(v))
			}
			r += len(b)
		}
		out[i] = s
	}
	return nil
}

// mask returns a mask of the low w bits (w in 0..64).
func mask(w int) uint64 {
	if w == 0 {
		return 0
	}
	return ^uint64(0) >> (64 - w)
}

// off maps a value inside [base, max] to its offset.
func (d *dec[T]) off(v T) uint64 { return uint64(v) - uint64(d.base) }

// Filter translates p into offset space (a closed offset range, a single
// excluded offset or a set of offsets), then scans the unpacked offsets
// without adding the base back. Constants outside [base, max] resolve the
// predicate for the whole span without scanning.
func (d *dec[T]) Filter(p *encoding.Pred[T], n int, sel encoding.Bitmap) error {
	if err := d.check(n, "filter"); err != nil {
		return err
	}
	start := d.pos
	d.pos += n
	lo, hi, mx := uint64(0), uint64(0), d.off(d.max)
	none := func() error { sel.ClearRange(0, n); return nil }
	a, b := p.A, p.B
	switch p.Op {
	case encoding.OpEq:
		if a < d.base || a > d.max {
			return none()
		}
		lo, hi = d.off(a), d.off(a)
	case encoding.OpNe:
		if a < d.base || a > d.max {
			return nil
		}
		d.scan(start, n, sel, func(v []uint64, s encoding.Bitmap) { filterkern.Uint64Ne(v, d.off(a), s) })
		return nil
	case encoding.OpLt:
		if a <= d.base {
			return none()
		}
		if a > d.max {
			return nil
		}
		lo, hi = 0, d.off(a)-1
	case encoding.OpLe:
		if a < d.base {
			return none()
		}
		if a >= d.max {
			return nil
		}
		lo, hi = 0, d.off(a)
	case encoding.OpGt:
		if a >= d.max {
			return none()
		}
		if a < d.base {
			return nil
		}
		lo, hi = d.off(a)+1, mx
	case encoding.OpGe:
		if a > d.max {
			return none()
		}
		if a <= d.base {
			return nil
		}
		lo, hi = d.off(a), mx
	case encoding.OpBetween:
		l, h := max(a, d.base), min(b, d.max)
		if a > b || l > h {
			return none()
		}
		if l == d.base && h == d.max {
			return nil
		}
		lo, hi = d.off(l), d.off(h)
	case encoding.OpIn:
		var set []uint64
		for _, v := range p.Set {
			if v >= d.base && v <= d.max {
				set = append(set, d.off(v))
			}
		}
		switch len(set) {
		case 0:
			return none()
		case 1:
			lo, hi = set[0], set[0]
		default:
			d.scan(start, n, sel, func(v []uint64, s encoding.Bitmap) { filterkern.Uint64Set(v, set, s) })
			return nil
		}
	default:
		return none()
	}
	if start&63 == 0 && d.w > 0 {
		// Aligned spans (every chunk's first filter) compare straight on
		// the packed words, never storing the values.
		bitpack.RangeMask(d.packed, d.w, start, n, lo, hi-lo, sel)
		return nil
	}
	d.scan(start, n, sel, func(v []uint64, s encoding.Bitmap) { filterkern.Uint64Range(v, lo, hi, s) })
	return nil
}

// scan unpacks offsets [start, start+n) a batch at a time and applies f to
// each batch with the matching slice of sel. Batches whose rows are all
// deselected are not unpacked.
func (d *dec[T]) scan(start, n int, sel encoding.Bitmap, f func([]uint64, encoding.Bitmap)) {
	buf := scratch64.Get().(*[batch]uint64)
	defer scratch64.Put(buf)
	for i := 0; i < n; i += batch {
		k := min(batch, n-i)
		s := sel[i>>6:]
		if !anyWord(s[:(k+63)>>6]) {
			continue
		}
		b := buf[:k]
		bitpack.Unpack(b, d.packed, d.w, start+i)
		f(b, s)
	}
}

func anyWord(ws []uint64) bool {
	for _, w := range ws {
		if w != 0 {
			return true
		}
	}
	return false
}

// boolDec reads a bool node (stored as uint8 0/1 offsets). It wraps the
// uint8 decoder without embedding it, so it offers no uint8 capabilities.
type boolDec struct{ d *dec[uint8] }

func (b *boolDec) Kind() encoding.Kind { return encoding.KindFixedBitWidth }
func (b *boolDec) Type() encoding.Type { return encoding.Bool }
func (b *boolDec) Len() int            { return b.d.n }
func (b *boolDec) Pos() int            { return b.d.pos }
func (b *boolDec) Reset()              { b.d.pos = 0 }
func (b *boolDec) Skip(n int) error    { return b.d.Skip(n) }

// DecodeSpan implements encoding.DecodeSpanner.
func (b *boolDec) DecodeSpan(from, to int) (int, int) { return b.d.DecodeSpan(from, to) }

func (bd *boolDec) Read(dst []bool) error {
	d := bd.d
	if err := d.check(len(dst), "read"); err != nil {
		return err
	}
	buf := scratch32.Get().(*[batch]uint32)
	defer scratch32.Put(buf)
	ub := uint32(d.base)
	for i := 0; i < len(dst); i += batch {
		out := dst[i:min(i+batch, len(dst))]
		b := buf[:len(out)]
		bitpack.Unpack32(b, d.packed, d.w, d.pos+i)
		for j, o := range b {
			out[j] = o+ub != 0
		}
	}
	d.pos += len(dst)
	return nil
}

func (bd *boolDec) Gather(rows []int32, dst []bool) error {
	d := bd.d
	if len(dst) < len(rows) {
		return fmt.Errorf("fixedbitwidth: gather of %d rows into %d values", len(rows), len(dst))
	}
	if err := checkRows(rows, d.n); err != nil {
		return err
	}
	ub := uint64(d.base)
	for i, r := range rows {
		dst[i] = bitpack.Get(d.packed, d.w, int(r))+ub != 0
	}
	return nil
}
