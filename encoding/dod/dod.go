// Package dod implements DeltaOfDelta: integers, typically timestamps,
// stored in blocks whose header holds the first value, the first difference,
// the minimum second-order difference ("delta of delta") and a bit width,
// followed by the second-order differences bit-packed at that width. A
// sequence at a regular interval has second-order differences of zero, and a
// block that continues its predecessor's interval exactly is stored as one
// header byte, so regular timestamps cost a few hundredths of a bit per row.
//
// Every block header also holds the exact minimum and maximum of the
// block's values, so a reader bounds a block's time range without decoding
// it (TsFile's TS2DIFF block peek): a time filter settles whole blocks from
// their headers, and Skip reaches any block's first row without decoding
// the blocks before it. Layout in docs/FORMAT.md, "DeltaOfDelta".
package dod

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"unsafe"

	"strata/encoding"
	"strata/internal/bitpack"
	"strata/internal/filterkern"
)

// DefaultBlockSize is the number of rows per block the default codec
// writes: 128 rows keep a time filter's boundary blocks (the only ones it
// decodes) small, at one header byte per regular block.
const DefaultBlockSize = 128

// MaxBlockSize bounds the block size a node may declare; it bounds the
// scratch buffers a decoder allocates.
const MaxBlockSize = 1 << 16

// tagRegular marks a block that continues its predecessor's interval
// exactly: first value and first difference as predicted, every
// second-order difference zero. Such a block has no other header fields
// and no payload.
const tagRegular = 0x80

// Codec registers DeltaOfDelta with the default block size.
var Codec = NewCodec(DefaultBlockSize)

// ReadOnly is DeltaOfDelta without an encoder: every reader decodes it, but
// default selection never picks it. Writers use it where they force it —
// the time column of a time-series table — because on general integer
// columns it was no smaller than Delta: across the 16 real data sets and
// TPC-H lineitem, offering it changed files by -0.07 % to +0.11 %
// (docs/benchmarks.md), while costing a trial encode on every integer
// column.
var ReadOnly = &encoding.Codec{Kind: encoding.KindDeltaOfDelta, Types: encoding.IntegerTypes, Open: open, Decode: Codec.Decode, Leaf: true}

// NewCodec returns a DeltaOfDelta codec that writes blocks of blockSize rows
// (clamped to [1, MaxBlockSize]). Decoding does not depend on it: the block
// size is stored in every node.
func NewCodec(blockSize int) *encoding.Codec {
	blockSize = max(1, min(blockSize, MaxBlockSize))
	return &encoding.Codec{
		Kind:    encoding.KindDeltaOfDelta,
		Types:   encoding.IntegerTypes,
		Open:    open,
		Encoder: encoder{blockSize: blockSize},
		Decode:  encoding.Cost{PerValue: 3.51}, // strata calibrate (docs/benchmarks.md)
		Leaf:    true,
		// No zstd: a time filter reads the block headers without
		// inflating anything.
	}
}

type encoder struct{ blockSize int }

// Fit accepts integer sequences of at least two values.
func (encoder) Fit(st *encoding.Stats) bool { return st.Type.IsInteger() && st.N >= 2 }

// Estimate defers to a trial encode: the size depends on the second-order
// differences, which statistics do not hold.
func (encoder) Estimate(st *encoding.Stats) (int, bool) { return 0, false }

func (e encoder) Encode(dst []byte, vals any, st *encoding.Stats, ctx *encoding.Ctx) ([]byte, error) {
	switch v := vals.(type) {
	case []int8:
		return AppendBody(dst, v, e.blockSize), nil
	case []int16:
		return AppendBody(dst, v, e.blockSize), nil
	case []int32:
		return AppendBody(dst, v, e.blockSize), nil
	case []int64:
		return AppendBody(dst, v, e.blockSize), nil
	case []uint8:
		return AppendBody(dst, v, e.blockSize), nil
	case []uint16:
		return AppendBody(dst, v, e.blockSize), nil
	case []uint32:
		return AppendBody(dst, v, e.blockSize), nil
	case []uint64:
		return AppendBody(dst, v, e.blockSize), nil
	}
	return dst, fmt.Errorf("dod: cannot encode %T", vals)
}

// wide maps a value to 64 bits: sign-extended for signed types,
// zero-extended for unsigned ones. All differences are taken on widened
// values with wrapping uint64 arithmetic, which reproduces every value
// bit-exactly after truncating back to T.
func wide[T encoding.Integer](v T) uint64 { return uint64(int64(v)) }

// AppendBody appends the DeltaOfDelta body of vals (blocks of bs rows) to
// dst. Exported for tests and benchmarks that build nodes by hand.
func AppendBody[T encoding.Integer](dst []byte, vals []T, bs int) []byte {
	bs = max(1, min(bs, MaxBlockSize))
	n := len(vals)
	dst = binary.AppendUvarint(dst, uint64(bs))
	var prevFirst, prevD1 uint64
	prevN := 0
	dods := make([]uint64, max(0, min(bs, n)-2))
	for b := 0; b*bs < n; b++ {
		blk := vals[b*bs : min(n, (b+1)*bs)]
		m := len(blk)
		first := wide(blk[0])
		d1 := prevD1
		if m >= 2 {
			d1 = wide(blk[1]) - first
		}
		lo, hi := blk[0], blk[0]
		for _, v := range blk[1:] {
			lo, hi = min(lo, v), max(hi, v)
		}
		// Second-order differences, their minimum and span.
		var dmin, dmax int64
		delta := d1
		for i := 2; i < m; i++ {
			dd := wide(blk[i]) - wide(blk[i-1])
			x := int64(dd - delta)
			delta = dd
			if i == 2 || x < dmin {
				dmin = x
			}
			if i == 2 || x > dmax {
				dmax = x
			}
		}
		pred := prevFirst + uint64(prevN)*prevD1
		last := first + uint64(m-1)*d1
		// A regular block's bounds are its end points; the encoder uses the
		// flag only when that holds in T's own order (no wrap-around).
		regular := b > 0 && first == pred && d1 == prevD1 && dmin == 0 && dmax == 0 &&
			((lo == blk[0] && hi == T(last)) || (hi == blk[0] && lo == T(last)))
		if regular {
			dst = append(dst, tagRegular)
		} else {
			w := 0
			if m >= 3 {
				w = bits.Len64(uint64(dmax) - uint64(dmin))
			}
			dst = append(dst, byte(w))
			if b == 0 {
				dst = binary.AppendVarint(dst, int64(first))
			} else {
				dst = binary.AppendVarint(dst, int64(first-pred))
			}
			if m >= 2 {
				dst = binary.AppendVarint(dst, int64(d1-prevD1))
			}
			if m >= 3 {
				dst = binary.AppendVarint(dst, dmin)
			}
			if m >= 2 {
				dst = binary.AppendUvarint(dst, first-wide(lo))
				dst = binary.AppendVarint(dst, int64(wide(hi)-first-uint64(m-1)*d1))
			}
			if m >= 3 && w > 0 {
				delta = d1
				for i := 2; i < m; i++ {
					dd := wide(blk[i]) - wide(blk[i-1])
					dods[i-2] = dd - delta - uint64(dmin)
					delta = dd
				}
				dst = bitpack.Pack(dst, dods[:m-2], w)
			}
		}
		prevFirst, prevD1, prevN = first, d1, m
	}
	return dst
}

// block is one parsed block header.
type block[T encoding.Integer] struct {
	first  uint64 // widened first value
	d1     uint64 // first difference (wrapped)
	dmin   uint64 // minimum second-order difference (wrapped)
	w      int    // bit width of the packed second-order differences
	off    int    // payload offset in the body
	lo, hi T      // exact bounds of the block's values, from the header
}

type decoder[T encoding.Integer] struct {
	typ      encoding.Type
	inflated bool
	n, bs    int
	body     []byte
	blocks   []block[T]
	lo, hi   T
	skipped  int

	cur    cursor[T]
	gather *cursor[T]
	filter filterkern.Scratch[T]
}

func open(h encoding.Header, opts *encoding.Options) (encoding.Decoder, error) {
	switch h.Type {
	case encoding.Int8:
		return openT[int8](h, opts)
	case encoding.Int16:
		return openT[int16](h, opts)
	case encoding.Int32:
		return openT[int32](h, opts)
	case encoding.Int64:
		return openT[int64](h, opts)
	case encoding.Uint8:
		return openT[uint8](h, opts)
	case encoding.Uint16:
		return openT[uint16](h, opts)
	case encoding.Uint32:
		return openT[uint32](h, opts)
	case encoding.Uint64:
		return openT[uint64](h, opts)
	}
	return nil, encoding.Unsupportedf("dod: type %v", h.Type)
}

// headerReader parses varints from the body with a sticky error.
type headerReader struct {
	b   []byte
	p   int
	err error
}

func (r *headerReader) uvarint(blk int, what string) uint64 {
	if r.err != nil {
		return 0
	}
	v, k := binary.Uvarint(r.b[r.p:])
	if k <= 0 {
		r.err = encoding.Corruptf("dod: block %d %s: bad uvarint", blk, what)
		return 0
	}
	r.p += k
	return v
}

func (r *headerReader) varint(blk int, what string) uint64 {
	if r.err != nil {
		return 0
	}
	v, k := binary.Varint(r.b[r.p:])
	if k <= 0 {
		r.err = encoding.Corruptf("dod: block %d %s: bad varint", blk, what)
		return 0
	}
	r.p += k
	return uint64(v)
}

func openT[T encoding.Integer](h encoding.Header, opts *encoding.Options) (*decoder[T], error) {
	d := &decoder[T]{typ: h.Type, n: h.Rows, body: h.Body, inflated: h.Flags&encoding.FlagZstd != 0}
	bs, body, err := encoding.Length(h.Body, MaxBlockSize, "dod: block size")
	if err != nil {
		return nil, err
	}
	if bs == 0 {
		return nil, encoding.Corruptf("dod: block size 0")
	}
	d.bs = bs
	nb := (d.n + bs - 1) / bs
	// Every block has at least its tag byte.
	if nb > len(body) {
		return nil, encoding.Corruptf("dod: %d blocks need at least %d header bytes, %d remain", nb, nb, len(body))
	}
	if err := opts.CheckAlloc(nb, int(unsafe.Sizeof(block[T]{})), "dod headers"); err != nil {
		return nil, err
	}
	d.blocks = make([]block[T], nb)
	r := &headerReader{b: h.Body, p: len(h.Body) - len(body)}
	var prevFirst, prevD1 uint64
	prevN := 0
	for b := range d.blocks {
		m := d.rows(b)
		if r.p >= len(r.b) {
			return nil, encoding.Corruptf("dod: block %d: header truncated", b)
		}
		tag := r.b[r.p]
		r.p++
		bl := &d.blocks[b]
		pred := prevFirst + uint64(prevN)*prevD1
		if tag == tagRegular {
			if b == 0 {
				return nil, encoding.Corruptf("dod: block 0 marked regular")
			}
			bl.first, bl.d1 = pred, prevD1
			if wide(T(bl.first)) != bl.first {
				return nil, encoding.Corruptf("dod: block %d first value out of range for %v", b, d.typ)
			}
			a, z := T(bl.first), T(bl.first+uint64(m-1)*bl.d1)
			bl.lo, bl.hi = min(a, z), max(a, z)
		} else {
			if tag > 64 {
				return nil, encoding.Corruptf("dod: block %d: tag %#x", b, tag)
			}
			bl.w = int(tag)
			if m < 3 && bl.w != 0 {
				return nil, encoding.Corruptf("dod: block %d of %d rows with bit width %d", b, m, bl.w)
			}
			f := r.varint(b, "first value")
			if b > 0 {
				f += pred
			}
			bl.first = f
			bl.d1 = prevD1
			if m >= 2 {
				bl.d1 = prevD1 + r.varint(b, "first difference")
			}
			if m >= 3 {
				bl.dmin = r.varint(b, "minimum second difference")
			}
			lo, hi := bl.first, bl.first
			if m >= 2 {
				lo = bl.first - r.uvarint(b, "lower extent")
				hi = bl.first + r.varint(b, "upper extent") + uint64(m-1)*bl.d1
			}
			if r.err != nil {
				return nil, r.err
			}
			if wide(T(bl.first)) != bl.first || wide(T(lo)) != lo || wide(T(hi)) != hi ||
				T(lo) > T(bl.first) || T(hi) < T(bl.first) {
				return nil, encoding.Corruptf("dod: block %d: values or bounds out of range for %v", b, d.typ)
			}
			bl.lo, bl.hi = T(lo), T(hi)
			bl.off = r.p
			if m >= 3 {
				size := bitpack.Bytes(m-2, bl.w)
				if size > len(r.b)-r.p {
					return nil, encoding.Corruptf("dod: block %d: %d payload bytes, %d remain", b, size, len(r.b)-r.p)
				}
				r.p += size
			}
		}
		if b == 0 || bl.lo < d.lo {
			d.lo = bl.lo
		}
		if b == 0 || bl.hi > d.hi {
			d.hi = bl.hi
		}
		prevFirst, prevD1, prevN = bl.first, bl.d1, m
	}
	if r.p != len(r.b) {
		return nil, encoding.Corruptf("dod: %d trailing bytes after the last block", len(r.b)-r.p)
	}
	d.cur = cursor[T]{d: d}
	return d, nil
}

// rows returns the number of rows of block b.
func (d *decoder[T]) rows(b int) int { return min(d.bs, d.n-b*d.bs) }

func (d *decoder[T]) Kind() encoding.Kind { return encoding.KindDeltaOfDelta }
func (d *decoder[T]) Type() encoding.Type { return d.typ }
func (d *decoder[T]) Len() int            { return d.n }
func (d *decoder[T]) Pos() int            { return d.cur.pos }
func (d *decoder[T]) Reset()              { d.cur.reset() }

// Skip advances the cursor. A block boundary is reached from the headers
// alone; rows inside a block are decoded up to the target.
func (d *decoder[T]) Skip(n int) error {
	if n < 0 || n > d.n-d.cur.pos {
		return fmt.Errorf("dod: skip %d at %d of %d: %w", n, d.cur.pos, d.n, encoding.ErrCorrupt)
	}
	d.cur.skip(n)
	return nil
}

// Read decodes len(dst) values.
func (d *decoder[T]) Read(dst []T) error {
	if len(dst) > d.n-d.cur.pos {
		return fmt.Errorf("dod: read %d at %d of %d: %w", len(dst), d.cur.pos, d.n, encoding.ErrCorrupt)
	}
	d.cur.read(dst)
	return nil
}

// Bounds returns the exact minimum and maximum, from the block headers.
func (d *decoder[T]) Bounds() (lo, hi T, ok bool) { return d.lo, d.hi, d.n > 0 }

// Blocks returns the number of blocks.
func (d *decoder[T]) Blocks() int { return len(d.blocks) }

// BlockBounds returns block b's first row, row count and the exact bounds
// of its values, from its header (encoding.BlockBounder).
func (d *decoder[T]) BlockBounds(b int) (first, rows int, lo, hi T) {
	bl := &d.blocks[b]
	return b * d.bs, d.rows(b), bl.lo, bl.hi
}

// DecodeSpan implements encoding.DecodeSpanner: a read decodes from the
// start of the block it starts in.
func (d *decoder[T]) DecodeSpan(from, to int) (int, int) {
	if d.inflated {
		return 0, d.n
	}
	return from / d.bs * d.bs, to
}

// Skipped implements encoding.SkipCounter.
func (d *decoder[T]) Skipped() int { return d.skipped }

// Gather reads rows through a second cursor, so the main cursor does not
// move. Each row costs at most the rows of its block before it.
func (d *decoder[T]) Gather(rows []int32, dst []T) error {
	if len(dst) < len(rows) {
		return fmt.Errorf("dod: gather of %d rows into %d values", len(rows), len(dst))
	}
	if d.gather == nil {
		d.gather = &cursor[T]{d: d}
	}
	g := d.gather
	g.reset()
	prev := int32(-1)
	var one [1]T
	for i, r := range rows {
		if r <= prev || int(r) >= d.n {
			return fmt.Errorf("dod: gather row %d (previous %d, %d rows): %w", r, prev, d.n, encoding.ErrCorrupt)
		}
		g.skip(int(r) - g.pos)
		g.read(one[:])
		dst[i] = one[0]
		prev = r
	}
	return nil
}

// Filter tests the next n values block by block on the header bounds: a
// block that cannot match clears its rows and one that matches entirely
// keeps them, both without decoding; only the remaining blocks are decoded
// and compared (filterkern.Blocks).
func (d *decoder[T]) Filter(p *encoding.Pred[T], n int, sel encoding.Bitmap) error {
	if n < 0 || n > d.n-d.cur.pos {
		return fmt.Errorf("dod: filter %d at %d of %d: %w", n, d.cur.pos, d.n, encoding.ErrCorrupt)
	}
	if len(sel)*64 < n {
		return fmt.Errorf("dod: selection of %d words for %d rows", len(sel), n)
	}
	settled, err := filterkern.Blocks[T](d, d.bs, p, n, sel, &d.filter)
	d.skipped += settled
	return err
}

// cursor walks the values. Inside a block (pos not at a block start), val
// is the widened value of row pos-1 and delta the difference into it.
type cursor[T encoding.Integer] struct {
	d          *decoder[T]
	pos        int
	val, delta uint64
	buf        []uint64 // second-order differences of one block
	skipBuf    []T
}

func (c *cursor[T]) reset() { c.pos, c.val, c.delta = 0, 0, 0 }

// skip advances n rows (checked by the caller): whole blocks from their
// headers, the rest by decoding within the target block.
func (c *cursor[T]) skip(n int) {
	if n == 0 {
		return
	}
	d := c.d
	target := c.pos + n
	if tb := target / d.bs; tb > c.pos/d.bs || c.pos%d.bs == 0 {
		c.pos = tb * d.bs
	}
	if k := target - c.pos; k > 0 {
		if c.skipBuf == nil {
			c.skipBuf = make([]T, min(d.bs, d.n))
		}
		c.read(c.skipBuf[:k])
	}
}

// read decodes len(dst) values (checked by the caller).
func (c *cursor[T]) read(dst []T) {
	d := c.d
	for len(dst) > 0 {
		b := c.pos / d.bs
		k := c.pos - b*d.bs
		m := d.rows(b)
		bl := &d.blocks[b]
		seg := min(m-k, len(dst))
		out := dst[:seg]
		dst = dst[seg:]
		if k == 0 {
			c.val, c.delta = bl.first, 0
			out[0] = T(c.val)
			out = out[1:]
			k++
		}
		if len(out) > 0 && k == 1 {
			c.delta = bl.d1
			c.val += c.delta
			out[0] = T(c.val)
			out = out[1:]
			k++
		}
		if len(out) > 0 {
			// rows k.. use second-order differences k-2..
			c.decodeRun(bl, k-2, out)
		}
		c.pos += seg
	}
}

// decodeRun produces len(out) values from second-order differences
// [from, from+len(out)) of block bl, continuing from c.val and c.delta.
func (c *cursor[T]) decodeRun(bl *block[T], from int, out []T) {
	val, delta := c.val, c.delta
	switch {
	case bl.w == 0 && bl.dmin == 0:
		// A constant interval: an arithmetic progression.
		for i := range out {
			val += delta
			out[i] = T(val)
		}
	case bl.w == 0:
		dd := bl.dmin
		for i := range out {
			delta += dd
			val += delta
			out[i] = T(val)
		}
	default:
		if c.buf == nil {
			c.buf = make([]uint64, max(c.d.bs-2, 1))
		}
		buf := c.buf[:len(out)]
		bitpack.UnpackAdd(buf, c.d.body[bl.off:], bl.w, from, bl.dmin)
		for i, dd := range buf {
			delta += dd
			val += delta
			out[i] = T(val)
		}
	}
	c.val, c.delta = val, delta
}
