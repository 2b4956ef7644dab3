// Package chimp implements Chimp128 (Liakos, Papakonstantinopoulou and
// Kotidis, VLDB 2022), an XOR encoding of floats in the family of Gorilla:
// each value is stored as its XOR with one of the 128 values before it,
// keeping only the bits between the XOR's leading and trailing zeros.
//
// It suits time series of full-precision measurements (random walks,
// sensor values computed in floating point) where neighbouring values share
// sign, exponent and the top of the mantissa, and where ALP finds no
// decimal form. The reference among the previous 128 values is the latest
// one with the same low 14 bits, taken when their XOR ends in more than 13
// zero bits; repeated values (a sensor returning to an earlier reading)
// then cost 9 bits.
//
// The stream restarts every block of bs values (1024 by default), and the
// header gives each block's byte length, so Skip, Gather and Read from the
// middle decode at most one block they do not need.
//
// Body layout (see docs/FORMAT.md, "Chimp"):
//
//	bounds | bs:uvarint | blockLen:uvarint per block | block streams
package chimp

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"unsafe"

	"strata/encoding"
	"strata/encoding/internal/cascade"
	"strata/encoding/internal/floatx"
)

// DefaultBlockSize is the number of values per block (one stream each).
const DefaultBlockSize = 1024

// MaxBlockSize bounds the block size a node may declare.
const MaxBlockSize = 1 << 16

const (
	ringBits  = 7 // references reach back 1 << ringBits values
	ringSize  = 1 << ringBits
	threshold = 6 + ringBits // trailing zeros a reference XOR must exceed
	keyBits   = 14           // low bits that index the reference table
)

// leads are the leading-zero counts a 3-bit code stands for; a XOR's
// leading zeros are rounded down to one of them.
var leads = [8]int{0, 8, 12, 16, 18, 20, 22, 24}

// leadCode[z] is the code of the largest entry of leads not above z.
var leadCode [65]uint8

func init() {
	for z := range leadCode {
		c := 0
		for c+1 < len(leads) && leads[c+1] <= z {
			c++
		}
		leadCode[z] = uint8(c)
	}
}

// Codec registers Chimp with the default block size.
var Codec = NewCodec(DefaultBlockSize)

// NewCodec returns a Chimp codec writing blocks of bs values (clamped to
// [1, MaxBlockSize]). Readers take the block size from the node.
func NewCodec(bs int) *encoding.Codec {
	bs = max(1, min(bs, MaxBlockSize))
	return &encoding.Codec{
		Kind:    encoding.KindChimp,
		Open:    open,
		Encoder: encoder{bs: bs},
		Types:   encoding.FloatTypes,
		Decode:  encoding.Cost{PerValue: 9.89}, // strata calibrate (docs/benchmarks.md)
		Leaf:    true,
		Zstd:    true,
	}
}

type encoder struct{ bs int }

// Fit accepts non-empty float sequences.
func (encoder) Fit(st *encoding.Stats) bool { return st.Type.IsFloat() && st.N >= 1 }

// Estimate needs the values: the size depends on neighbouring values.
func (encoder) Estimate(*encoding.Stats) (int, bool) { return 0, false }

func (e encoder) Encode(dst []byte, vals any, st *encoding.Stats, ctx *encoding.Ctx) ([]byte, error) {
	switch v := vals.(type) {
	case []float32:
		return encodeT(dst, v, e.bs), nil
	case []float64:
		return encodeT(dst, v, e.bs), nil
	}
	return dst, fmt.Errorf("chimp: cannot encode %T", vals)
}

// bitWriter appends fields least significant bit first: stream bit k is
// bit k%8 of byte k/8, as in the bit-packed streams.
type bitWriter struct {
	buf []byte
	acc uint64
	n   uint // bits in acc
}

// write appends the low n bits of v (n ≤ 64).
func (w *bitWriter) write(v uint64, n uint) {
	if n == 0 {
		return
	}
	if n < 64 {
		v &= 1<<n - 1
	}
	w.acc |= v << w.n
	if w.n+n < 64 {
		w.n += n
		return
	}
	w.buf = binary.LittleEndian.AppendUint64(w.buf, w.acc)
	spill := w.n + n - 64
	w.acc = v >> (n - spill) // a shift by 64 gives 0
	if spill == 0 {
		w.acc = 0
	}
	w.n = spill
}

// flush writes the remaining bits, padding the last byte with zeros.
func (w *bitWriter) flush() {
	for ; w.n > 0; w.n -= min(w.n, 8) {
		w.buf = append(w.buf, byte(w.acc))
		w.acc >>= 8
	}
}

func encodeT[T floatx.Float](dst []byte, vals []T, bs int) []byte {
	dst = floatx.AppendBounds(dst, vals)
	dst = binary.AppendUvarint(dst, uint64(bs))
	W := uint(8 * floatx.Size[T]())
	n := len(vals)
	u := make([]uint64, n)
	for i, v := range vals {
		u[i] = floatx.Bits(v)
	}
	var last [1 << keyBits]int32 // index + 1 of the latest value with each key
	var w bitWriter
	var lens []int
	for b := 0; b < n; b += bs {
		start := len(w.buf)
		blk := u[b:min(n, b+bs)]
		w.write(blk[0], W)
		last[blk[0]&(1<<keyBits-1)] = int32(b + 1)
		stored := -1 // leading zeros of the previous flag-3 value
		for i := 1; i < len(blk); i++ {
			v := blk[i]
			key := v & (1<<keyBits - 1)
			ref := i - 1
			if j := int(last[key]) - 1 - b; j >= 0 && i-j <= ringSize && bits.TrailingZeros64(v^blk[j]) > threshold {
				ref = j
			}
			last[key] = int32(b + i + 1)
			x := v ^ blk[ref]
			slot := uint64(ref & (ringSize - 1))
			if x == 0 {
				w.write(0|slot<<2, 2+ringBits)
				stored = -1
				continue
			}
			lz := bits.LeadingZeros64(x) - (64 - int(W))
			code := leadCode[lz]
			lead := leads[code]
			if tz := bits.TrailingZeros64(x); tz > threshold {
				sig := int(W) - lead - tz
				w.write(1|slot<<2|uint64(code)<<(2+ringBits)|uint64(sig)<<(5+ringBits), 11+ringBits)
				w.write(x>>uint(tz), uint(sig))
				stored = -1
				continue
			}
			if lead == stored {
				w.write(2, 2)
			} else {
				w.write(3|uint64(code)<<2, 5)
				stored = lead
			}
			w.write(x, W-uint(lead))
		}
		w.flush()
		lens = append(lens, len(w.buf)-start)
	}
	for _, l := range lens {
		dst = binary.AppendUvarint(dst, uint64(l))
	}
	return append(dst, w.buf...)
}

// bitReader reads fields written by bitWriter from a 64-bit buffer refilled
// a word at a time. Reading past the end yields zero bits and is detected
// by over.
type bitReader struct {
	buf     []byte
	pos     int    // next byte to load
	acc     uint64 // unread bits, next one lowest
	n       uint   // bits in acc
	padding uint   // zero bits loaded past the end
}

// refill tops acc up to at least 56 bits. It is kept out of line so read
// inlines.
//
//go:noinline
func (r *bitReader) refill() {
	if r.pos+8 <= len(r.buf) {
		r.acc |= binary.LittleEndian.Uint64(r.buf[r.pos:]) << r.n
		k := (63 - r.n) >> 3 // whole bytes that fit
		r.pos += int(k)
		r.n += 8 * k
		return
	}
	for r.n <= 56 {
		if r.pos < len(r.buf) {
			r.acc |= uint64(r.buf[r.pos]) << r.n
			r.pos++
		} else {
			r.padding += 8
		}
		r.n += 8
	}
}

// wide returns the next k bits (k ≤ 64).
func (r *bitReader) wide(k uint) uint64 {
	if k > 56 {
		lo := r.read(32)
		return lo | r.read(k-32)<<32
	}
	if r.n < k {
		r.refill()
	}
	v := r.acc & (1<<k - 1)
	r.acc >>= k
	r.n -= k
	return v
}

// read returns the next k bits (k ≤ 56). It is small enough to inline.
func (r *bitReader) read(k uint) uint64 {
	if r.n < k {
		r.refill()
	}
	v := r.acc & (1<<k - 1)
	r.acc >>= k
	r.n -= k
	return v
}

// over reports whether more bits were read than the stream holds.
func (r *bitReader) over() bool { return r.padding > r.n }

// decodeBlock decodes one block's stream into out (its row count of
// values), bit patterns zero-extended from W bits. The bit buffer lives in
// locals (acc, n) refilled a word at a time; the out-of-line bitReader
// handles only the last bytes of the stream.
func decodeBlock[U uint32 | uint64](src []byte, out []U, W uint) error {
	r := bitReader{buf: src}
	first := r.wide(W)
	out[0] = U(first)
	prev := first
	acc, n, pos := r.acc, r.n, r.pos
	stored := -1
	for i := 1; i < len(out); i++ {
		// Every value takes at most 2+7+3+6 = 18 header bits and 64
		// payload bits: top the buffer up to at least 56 bits first.
		if n < 56 {
			if pos+8 <= len(src) {
				acc |= binary.LittleEndian.Uint64(src[pos:]) << n
				k := (63 - n) >> 3
				pos += int(k)
				n += 8 * k
			} else {
				r.acc, r.n, r.pos = acc, n, pos
				r.refill()
				acc, n, pos = r.acc, r.n, r.pos
			}
		}
		h := acc
		var v uint64
		var k uint // payload bits
		switch h & 3 {
		case 0:
			acc >>= 2 + ringBits
			n -= 2 + ringBits
			j := i - 1 - (i-1-int(h>>2&(ringSize-1)))&(ringSize-1)
			if j < 0 {
				return refError(i, h>>2&(ringSize-1))
			}
			v = uint64(out[j])
			stored = -1
			out[i] = U(v)
			prev = v
			continue
		case 1:
			acc >>= 11 + ringBits
			n -= 11 + ringBits
			j := i - 1 - (i-1-int(h>>2&(ringSize-1)))&(ringSize-1)
			if j < 0 {
				return refError(i, h>>2&(ringSize-1))
			}
			lead := uint(leads[h>>(2+ringBits)&7])
			k = uint(h >> (5 + ringBits) & 63)
			if k == 0 || lead+k > W {
				return encoding.Corruptf("chimp: %d significant bits after %d leading zeros", k, lead)
			}
			v = uint64(out[j])
			stored = -1
			// the payload is XORed in shifted: x << (W - lead - k)
			h = uint64(W - lead - k)
		case 2:
			acc >>= 2
			n -= 2
			if stored < 0 {
				return encoding.Corruptf("chimp: value %d reuses leading zeros no value set", i)
			}
			k = W - uint(stored)
			v, h = prev, 0
		case 3:
			acc >>= 5
			n -= 5
			stored = leads[h>>2&7]
			k = W - uint(stored)
			v, h = prev, 0
		}
		if k > 56 || n < k {
			r.acc, r.n, r.pos = acc, n, pos
			x := r.wide(k)
			acc, n, pos = r.acc, r.n, r.pos
			v ^= x << h
		} else {
			v ^= (acc & (1<<k - 1)) << h
			acc >>= k
			n -= k
		}
		out[i] = U(v)
		prev = v
	}
	r.acc, r.n, r.pos = acc, n, pos
	if r.over() {
		return encoding.Corruptf("chimp: block stream of %d bytes ends before its %d values", len(src), len(out))
	}
	return nil
}

// refError reports a reference before the block start.
func refError(i int, s uint64) error {
	return encoding.Corruptf("chimp: value %d refers to ring slot %d before the block start", i, s)
}

func open(h encoding.Header, opts *encoding.Options) (encoding.Decoder, error) {
	switch h.Type {
	case encoding.Float32:
		return openT[float32, uint32](h, opts)
	case encoding.Float64:
		return openT[float64, uint64](h, opts)
	}
	return nil, encoding.Unsupportedf("chimp: type %v", h.Type)
}

type decoder[T floatx.Float, U uint32 | uint64] struct {
	typ    encoding.Type
	n, pos int
	bs     int
	lo, hi T
	bok    bool
	starts []int // byte offset of each block's stream in data, plus the end
	data   []byte

	cached  int // block held in cache, -1 if none
	cache   []T
	scr     floatx.Scratch[T]
	skipped int
}

func openT[T floatx.Float, U uint32 | uint64](h encoding.Header, opts *encoding.Options) (*decoder[T, U], error) {
	d := &decoder[T, U]{typ: h.Type, n: h.Rows, cached: -1}
	var err error
	body := h.Body
	if d.lo, d.hi, d.bok, body, err = floatx.ParseBounds[T](body); err != nil {
		return nil, fmt.Errorf("chimp: %w", err)
	}
	if d.bs, body, err = encoding.Length(body, MaxBlockSize, "chimp block size"); err != nil {
		return nil, err
	}
	if d.bs == 0 {
		return nil, encoding.Corruptf("chimp: block size 0")
	}
	nb := (d.n + d.bs - 1) / d.bs
	if nb > len(body) {
		return nil, encoding.Corruptf("chimp: %d blocks need at least %d header bytes, %d remain", nb, nb, len(body))
	}
	if err := opts.CheckAlloc(nb+1, 8, "chimp block table"); err != nil {
		return nil, err
	}
	d.starts = make([]int, nb+1)
	total := 0
	for b := 0; b < nb; b++ {
		l, rest, err := encoding.Length(body, len(body), "chimp block length")
		if err != nil {
			return nil, err
		}
		body = rest
		// A block's first value takes size(T) bytes; each other at least 2 bits.
		if rows := min(d.bs, d.n-b*d.bs); l < floatx.Size[T]()+(rows-1+3)/4 {
			return nil, encoding.Corruptf("chimp block %d: %d bytes for %d values", b, l, rows)
		}
		total += l
		d.starts[b+1] = total
	}
	if total != len(body) {
		return nil, encoding.Corruptf("chimp: blocks take %d bytes, body has %d", total, len(body))
	}
	d.data = body
	return d, nil
}

func (d *decoder[T, U]) Kind() encoding.Kind { return encoding.KindChimp }
func (d *decoder[T, U]) Type() encoding.Type { return d.typ }
func (d *decoder[T, U]) Len() int            { return d.n }
func (d *decoder[T, U]) Pos() int            { return d.pos }
func (d *decoder[T, U]) Reset()              { d.pos = 0 }

// Skipped implements encoding.SkipCounter: filters settled from the bounds.
func (d *decoder[T, U]) Skipped() int { return d.skipped }

// Bounds returns the exact minimum and maximum stored in the header;
// unknown when the node holds a NaN.
func (d *decoder[T, U]) Bounds() (T, T, bool) { return d.lo, d.hi, d.bok }

func (d *decoder[T, U]) check(n int, what string) error {
	if n < 0 || n > d.n-d.pos {
		return encoding.Corruptf("chimp: %s %d values at %d of %d", what, n, d.pos, d.n)
	}
	return nil
}

// Skip moves the cursor; blocks restart the stream, so it costs nothing
// until the next Read.
func (d *decoder[T, U]) Skip(n int) error {
	if err := d.check(n, "skip"); err != nil {
		return err
	}
	d.pos += n
	return nil
}

// decode writes block b's values into out.
func (d *decoder[T, U]) decode(b int, out []T) error {
	if err := decodeBlock(d.data[d.starts[b]:d.starts[b+1]], floatx.View[U](out), uint(8*unsafe.Sizeof(U(0)))); err != nil {
		return fmt.Errorf("block %d: %w", b, err)
	}
	return nil
}

// load decodes block b into the cache.
func (d *decoder[T, U]) load(b int) error {
	if d.cached == b {
		return nil
	}
	d.cache = cascade.Grow(d.cache, min(d.bs, d.n))
	d.cached = -1
	rows := min(d.bs, d.n-b*d.bs)
	if err := d.decode(b, d.cache[:rows]); err != nil {
		return err
	}
	d.cached = b
	return nil
}

// Read decodes whole blocks straight into dst and partial ones through
// the one-block cache.
func (d *decoder[T, U]) Read(dst []T) error {
	if err := d.check(len(dst), "read"); err != nil {
		return err
	}
	for len(dst) > 0 {
		b := d.pos / d.bs
		k := d.pos - b*d.bs
		rows := min(d.bs, d.n-b*d.bs)
		m := min(rows-k, len(dst))
		if k == 0 && m == rows && d.cached != b {
			if err := d.decode(b, dst[:m]); err != nil {
				return err
			}
		} else {
			if err := d.load(b); err != nil {
				return err
			}
			copy(dst[:m], d.cache[k:k+m])
		}
		dst = dst[m:]
		d.pos += m
	}
	return nil
}

// Gather decodes the blocks that hold rows, one at a time.
func (d *decoder[T, U]) Gather(rows []int32, dst []T) error {
	if err := cascade.CheckGather(encoding.KindChimp, rows, len(dst), d.n); err != nil {
		return err
	}
	for i, r := range rows {
		b := int(r) / d.bs
		if err := d.load(b); err != nil {
			return err
		}
		dst[i] = d.cache[int(r)-b*d.bs]
	}
	return nil
}

// Filter settles the span from the header bounds when it can, else
// decodes and compares.
func (d *decoder[T, U]) Filter(p *encoding.Pred[T], n int, sel encoding.Bitmap) error {
	if err := d.check(n, "filter"); err != nil {
		return err
	}
	if floatx.Settle(p, d.lo, d.hi, d.bok, n, sel) {
		d.skipped++
		d.pos += n
		return nil
	}
	return floatx.FilterRead[T](d, p, n, sel, &d.scr)
}
