// Package delta implements Delta: integers stored as blocks of a first value
// followed by the differences between consecutive values. The differences of
// all blocks form one int64 child sequence whose encoding the cascade picks
// (bit-packed, BlockFOR, Dictionary, RLE, ...), so a sorted column with
// regular steps costs a bit or less per value.
//
// A header table holds every block's first value and the bounds of its
// differences, from which a reader bounds each block without decoding
// (TsFile's TS2DIFF block-header range peeking), prunes blocks when
// filtering and skips whole blocks by skipping the child.
package delta

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"unsafe"

	"strata/encoding"
	"strata/internal/filterkern"
)

// DefaultBlockSize is the number of rows per block the default codec writes.
const DefaultBlockSize = 1024

// MaxBlockSize bounds the block size a node may declare; it bounds the
// scratch buffers a decoder allocates.
const MaxBlockSize = 1 << 16

// minHeaderBytes is the smallest encoded size of one block header (three
// one-byte varints); the block count is checked against it before the header
// table is allocated.
const minHeaderBytes = 3

// batch is the number of differences moved through scratch at a time:
// large enough to amortize child calls across blocks, small enough for L1.
const batch = 2048

// Codec registers Delta with the default block size.
var Codec = NewCodec(DefaultBlockSize)

// NewCodec returns a Delta codec that writes blocks of blockSize rows
// (clamped to [1, MaxBlockSize]). Decoding does not depend on it: the block
// size is stored in every node.
func NewCodec(blockSize int) *encoding.Codec {
	blockSize = max(1, min(blockSize, MaxBlockSize))
	return &encoding.Codec{
		Kind:    encoding.KindDelta,
		Types:   encoding.IntegerTypes,
		Open:    open,
		Decode:  encoding.Cost{PerValue: 1.14}, // strata calibrate (docs/benchmarks.md)
		Encoder: encoder{blockSize: blockSize},
	}
}

type encoder struct{ blockSize int }

// Fit accepts integer sequences of at least two values.
func (encoder) Fit(st *encoding.Stats) bool { return st.Type.IsInteger() && st.N >= 2 }

// Estimate defers to a trial encode: the size depends on the encoding the
// cascade picks for the differences.
func (encoder) Estimate(st *encoding.Stats) (int, bool) { return 0, false }

func (e encoder) Encode(dst []byte, vals any, st *encoding.Stats, ctx *encoding.Ctx) ([]byte, error) {
	switch v := vals.(type) {
	case []int8:
		return appendBody(dst, v, e.blockSize, ctx)
	case []int16:
		return appendBody(dst, v, e.blockSize, ctx)
	case []int32:
		return appendBody(dst, v, e.blockSize, ctx)
	case []int64:
		return appendBody(dst, v, e.blockSize, ctx)
	case []uint8:
		return appendBody(dst, v, e.blockSize, ctx)
	case []uint16:
		return appendBody(dst, v, e.blockSize, ctx)
	case []uint32:
		return appendBody(dst, v, e.blockSize, ctx)
	case []uint64:
		return appendBody(dst, v, e.blockSize, ctx)
	}
	return dst, fmt.Errorf("delta: cannot encode %T", vals)
}

// wide maps a value to 64 bits: sign-extended for signed types,
// zero-extended for unsigned ones. Wrapping uint64 arithmetic on widened
// values, truncated back to T, reproduces values bit-exactly.
func wide[T encoding.Integer](v T) uint64 { return uint64(int64(v)) }

// signed reports whether T is a signed type.
func signed[T encoding.Integer]() bool { return ^T(0) < 0 }

// diff returns b-a as a wrapped int64 and whether the true difference lies
// outside the int64 range (possible only for 64-bit types).
func diff[T encoding.Integer](a, b T) (int64, bool) {
	d := int64(wide(b) - wide(a))
	return d, (b >= a) != (d >= 0)
}

// appendBody appends the Delta body of vals with blocks of bs rows; the
// differences go to one child node selected by ctx.
func appendBody[T encoding.Integer](dst []byte, vals []T, bs int, ctx *encoding.Ctx) ([]byte, error) {
	n := len(vals)
	nb := (n + bs - 1) / bs
	deltas := make([]int64, 0, n-nb)
	dst = binary.AppendUvarint(dst, uint64(bs))
	var prevFirst uint64
	for b := 0; b < nb; b++ {
		blk := vals[b*bs : min(n, (b+1)*bs)]
		dmin, dmax := int64(math.MaxInt64), int64(math.MinInt64)
		wrapped := false
		for i := 1; i < len(blk); i++ {
			d, w := diff(blk[i-1], blk[i])
			deltas = append(deltas, d)
			dmin, dmax, wrapped = min(dmin, d), max(dmax, d), wrapped || w
		}
		// The difference into the next block's first value is covered by
		// the bounds too, which lets a reader bound a block from both ends.
		if (b+1)*bs < n {
			d, w := diff(blk[len(blk)-1], vals[(b+1)*bs])
			dmin, dmax, wrapped = min(dmin, d), max(dmax, d), wrapped || w
		}
		if dmin > dmax {
			dmin, dmax = 0, 0
		}
		if wrapped {
			dmin, dmax = math.MinInt64, math.MaxInt64
		}
		first := wide(blk[0])
		if b == 0 {
			if signed[T]() {
				dst = binary.AppendVarint(dst, int64(first))
			} else {
				dst = binary.AppendUvarint(dst, first)
			}
		} else {
			dst = binary.AppendVarint(dst, int64(first-prevFirst))
		}
		prevFirst = first
		dst = binary.AppendVarint(dst, dmin)
		dst = binary.AppendUvarint(dst, uint64(dmax)-uint64(dmin))
	}
	if nb > 0 {
		// The last value bounds the last block from above or below the way
		// the next block's first value bounds the others.
		dst = binary.AppendVarint(dst, int64(wide(vals[n-1])-prevFirst))
	}
	return ctx.EncodeChild(dst, deltas)
}

// dblock is one parsed block header.
type dblock[T encoding.Integer] struct {
	first  uint64 // widened
	lo, hi T      // value bounds derived from the header
}

type decoder[T encoding.Integer] struct {
	skipped int // blocks Filter settled from their headers (encoding.SkipCounter)
	typ     encoding.Type
	n, bs   int
	blocks  []dblock[T]
	lo, hi  T
	node    []byte // the deltas child
	depth   int
	opts    *encoding.Options

	cur    cursor[T]
	gather *cursor[T] // second cursor over its own child decoder, for Gather
	gbuf   []T
	ends   []int32  // gatherSums' scratch: child rows ending each sum
	sums   []uint64 // and the sums
	// endBuf and sumBuf hold ends and sums inside the decoder for a
	// lookup of a few rows: no allocation.
	endBuf [4]int32
	sumBuf [4]uint64
	filter filterkern.Scratch[T]
	// blockBuf holds blocks inside the decoder for a node of one block
	// (a short chunk, the heads of a LagDelta): one allocation fewer.
	blockBuf [1]dblock[T]
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
	return nil, encoding.Unsupportedf("delta: type %v", h.Type)
}

func openT[T encoding.Integer](h encoding.Header, opts *encoding.Options) (*decoder[T], error) {
	d := &decoder[T]{typ: h.Type, n: h.Rows, depth: h.Depth + 1, opts: opts}
	bs, body, err := encoding.Length(h.Body, MaxBlockSize, "block size")
	if err != nil {
		return nil, err
	}
	if bs == 0 {
		return nil, encoding.Corruptf("block size 0")
	}
	d.bs = bs
	nb := (d.n + bs - 1) / bs
	if nb > len(body)/minHeaderBytes {
		return nil, encoding.Corruptf("%d blocks need at least %d header bytes, %d remain", nb, nb*minHeaderBytes, len(body))
	}
	if err := opts.CheckAlloc(nb, int(unsafe.Sizeof(dblock[T]{})), "delta headers"); err != nil {
		return nil, err
	}
	if nb <= len(d.blockBuf) {
		d.blocks = d.blockBuf[:nb]
	} else {
		d.blocks = make([]dblock[T], nb)
	}
	// Block b's bounds need the next block's first value (or the last
	// value), so they are set once that is parsed (bound); its difference
	// bounds wait in pmin and pmax meanwhile.
	var prev uint64
	var pmin, pmax int64
	for b := range d.blocks {
		var first uint64
		if b == 0 && !signed[T]() {
			first, body, err = encoding.Uvarint(body, "block 0 first value")
			if err != nil {
				return nil, err
			}
		} else {
			v, k := binary.Varint(body)
			if k <= 0 {
				return nil, encoding.Corruptf("block %d first value: bad varint", b)
			}
			body = body[k:]
			first = uint64(v)
			if b > 0 {
				first += prev
			}
		}
		if wide(T(first)) != first {
			return nil, encoding.Corruptf("block %d first value out of range for %v", b, d.typ)
		}
		prev = first
		dmin, k := binary.Varint(body)
		if k <= 0 {
			return nil, encoding.Corruptf("block %d delta min: bad varint", b)
		}
		span, rest, err := encoding.Uvarint(body[k:], "delta span")
		if err != nil {
			return nil, fmt.Errorf("block %d: %w", b, err)
		}
		body = rest
		dmax := int64(uint64(dmin) + span)
		if dmax < dmin {
			return nil, encoding.Corruptf("block %d: delta span %d overflows from %d", b, span, dmin)
		}
		d.blocks[b].first = first
		if b > 0 {
			d.bound(b-1, first, 1, pmin, pmax)
		}
		pmin, pmax = dmin, dmax
	}
	var last uint64
	if nb > 0 {
		v, k := binary.Varint(body)
		if k <= 0 {
			return nil, encoding.Corruptf("last value: bad varint")
		}
		body = body[k:]
		last = prev + uint64(v)
		if wide(T(last)) != last {
			return nil, encoding.Corruptf("last value out of range for %v", d.typ)
		}
		d.bound(nb-1, last, 0, pmin, pmax)
	}
	child, rest, err := encoding.Child(body, "deltas")
	if err != nil {
		return nil, err
	}
	if len(rest) != 0 {
		return nil, encoding.Corruptf("%d trailing bytes after the deltas child", len(rest))
	}
	r, err := encoding.OpenTyped[int64](child, d.depth, opts)
	if err != nil {
		return nil, fmt.Errorf("deltas: %w", err)
	}
	if err := encoding.CheckRows(r, d.n-nb, "deltas"); err != nil {
		return nil, err
	}
	d.node = child
	d.cur = cursor[T]{d: d, child: r}
	d.cur.summer, _ = r.(encoding.RangeSummer)
	return d, nil
}

// bound sets block b's value bounds from its difference bounds [dmin,
// dmax], its end anchored at g: the next block's first value, one row past
// its end (past 1), or the last value, on its last row (past 0); and
// widens the node's bounds to them. Blocks are bound in order.
func (d *decoder[T]) bound(b int, g uint64, past int, dmin, dmax int64) {
	bl := &d.blocks[b]
	bl.lo, bl.hi = blockBounds[T](bl.first, g, past, d.rows(b), dmin, dmax)
	if b == 0 || bl.lo < d.lo {
		d.lo = bl.lo
	}
	if b == 0 || bl.hi > d.hi {
		d.hi = bl.hi
	}
}

// rows returns the number of rows of block b.
func (d *decoder[T]) rows(b int) int { return min(d.bs, d.n-b*d.bs) }

func (d *decoder[T]) Kind() encoding.Kind { return encoding.KindDelta }
func (d *decoder[T]) Type() encoding.Type { return d.typ }
func (d *decoder[T]) Len() int            { return d.n }
func (d *decoder[T]) Pos() int            { return d.cur.pos }
func (d *decoder[T]) Reset()              { d.cur.reset() }

// Skip advances the cursor; whole blocks are skipped by skipping their
// differences in the child, the remainder within a block is summed.
func (d *decoder[T]) Skip(n int) error {
	if n < 0 || n > d.n-d.cur.pos {
		return fmt.Errorf("delta: skip %d at %d of %d: %w", n, d.cur.pos, d.n, encoding.ErrCorrupt)
	}
	return d.cur.skip(n)
}

// Read decodes len(dst) values.
func (d *decoder[T]) Read(dst []T) error {
	if len(dst) > d.n-d.cur.pos {
		return fmt.Errorf("delta: read %d at %d of %d: %w", len(dst), d.cur.pos, d.n, encoding.ErrCorrupt)
	}
	return d.cur.read(dst)
}

// ReadDiffs implements encoding.DiffReader: the differences are read in
// one call of the child into the tail of dst, and each block run is handed
// to finish from there.
func (d *decoder[T]) ReadDiffs(dst []T, finish func(out, src []T, base T) T) error {
	if len(dst) > d.n-d.cur.pos {
		return fmt.Errorf("delta: read %d at %d of %d: %w", len(dst), d.cur.pos, d.n, encoding.ErrCorrupt)
	}
	return d.cur.readDiffs(dst, finish)
}

// Bounds returns bounds of all values derived from the block headers.
func (d *decoder[T]) Bounds() (lo, hi T, ok bool) { return d.lo, d.hi, d.n > 0 }

// Blocks returns the number of blocks.
func (d *decoder[T]) Blocks() int { return len(d.blocks) }

// BlockBounds returns block b's first row, row count and value bounds
// derived from the header (conservative, not necessarily attained).
func (d *decoder[T]) BlockBounds(b int) (first, rows int, lo, hi T) {
	bl := &d.blocks[b]
	return b * d.bs, d.rows(b), bl.lo, bl.hi
}

// DecodeSpan implements encoding.DecodeSpanner: a read sums differences
// from the start of the block it starts in, and decodes whatever span of
// the differences child that takes.
func (d *decoder[T]) DecodeSpan(from, to int) (int, int) {
	bs := d.bs
	lo := from / bs * bs
	if bs < 2 || to <= from {
		return lo, max(to, lo)
	}
	// Row r = b·bs + k (k ≥ 1) holds child row b·(bs-1) + k - 1.
	child := func(r int) int { return r/bs*(bs-1) + r%bs - 1 }
	row := func(c int) int { return c/(bs-1)*bs + c%(bs-1) + 1 }
	cfrom := lo / bs * (bs - 1)
	cto := child(to-1) + 1
	if (to-1)%bs == 0 {
		cto = (to - 1) / bs * (bs - 1)
	}
	if cto <= cfrom {
		return lo, to
	}
	clo, chi := encoding.DecodeSpan(d.cur.child, cfrom, cto)
	return min(lo, row(clo)-1), max(to, row(chi-1)+1)
}

// Children exposes the deltas child.
func (d *decoder[T]) Children() []encoding.ChildNode {
	return []encoding.ChildNode{{Role: "deltas", Node: d.node}}
}

// Gather reads rows through a second cursor over its own child decoder, so
// the main cursor does not move. Each row costs at most one block of
// differences.
func (d *decoder[T]) Gather(rows []int32, dst []T) error {
	if len(dst) < len(rows) {
		return fmt.Errorf("delta: gather of %d rows into %d values", len(rows), len(dst))
	}
	if len(rows) == 0 {
		return nil
	}
	if s, ok := d.cur.child.(encoding.RangeSummer); ok {
		return d.gatherSums(s, rows, dst)
	}
	if d.gather == nil {
		r, err := encoding.OpenTyped[int64](d.node, d.depth, d.opts)
		if err != nil {
			return fmt.Errorf("deltas: %w", err)
		}
		d.gather = &cursor[T]{d: d, child: r}
		d.gather.summer, _ = r.(encoding.RangeSummer)
	}
	g := d.gather
	if int(rows[0]) < g.pos {
		g.reset()
	}
	prev := int32(-1)
	for i := 0; i < len(rows); {
		r := int(rows[i])
		if rows[i] <= prev || r >= d.n {
			return fmt.Errorf("delta: gather row %d (previous %d, %d rows): %w", r, prev, d.n, encoding.ErrCorrupt)
		}
		// Rows i..j-1 fall in the same block: decode it once, from the
		// gather cursor or the block start, up to the last of them.
		b := r / d.bs
		end := min((b+1)*d.bs, d.n)
		j := i + 1
		for j < len(rows) && int(rows[j]) < end && rows[j] > rows[j-1] {
			j++
		}
		last := int(rows[j-1])
		if g.pos < b*d.bs {
			if err := g.skip(b*d.bs - g.pos); err != nil {
				return err
			}
		}
		start := g.pos
		// as long as the block's rows up to the last wanted one
		if need := last - start + 1; len(d.gbuf) < need {
			d.gbuf = make([]T, max(need, min(2*len(d.gbuf), d.bs, d.n)))
		}
		buf := d.gbuf[:last-start+1]
		if err := g.read(buf); err != nil {
			return err
		}
		for k := i; k < j; k++ {
			dst[k] = buf[int(rows[k])-start]
		}
		prev = rows[j-1]
		i = j
	}
	return nil
}

// gatherSums is Gather over a child that sums ranges of differences in
// place (encoding.RangeSummer): row b·bs+k is block b's first value plus
// the differences at child rows [b·(bs-1), b·(bs-1)+k), so the wanted rows
// of a block are one call of the child that sums the differences between
// them, and a block's differences past its last wanted row are never
// touched. Nothing is unpacked into memory and the cursors do not move.
func (d *decoder[T]) gatherSums(s encoding.RangeSummer, rows []int32, dst []T) error {
	bs := d.bs
	// A block's sums take at most as many entries as it has rows, and as
	// rows are gathered.
	if need := min(bs, d.n, len(rows)); cap(d.ends) < need {
		if need <= len(d.endBuf) {
			d.ends, d.sums = d.endBuf[:], d.sumBuf[:]
		} else {
			d.ends = make([]int32, need)
			d.sums = make([]uint64, need)
		}
	}
	prev := int32(-1)
	for i := 0; i < len(rows); {
		r := int(rows[i])
		if rows[i] <= prev || r >= d.n {
			return fmt.Errorf("delta: gather row %d (previous %d, %d rows): %w", r, prev, d.n, encoding.ErrCorrupt)
		}
		// Rows i..j-1 fall in block b; row b·bs+k ends its sum at child
		// row b·(bs-1)+k.
		b := r / bs
		start, end := b*bs, min((b+1)*bs, d.n)
		c0 := b * (bs - 1)
		ends := d.ends[:0]
		j := i
		for ; j < len(rows) && int(rows[j]) < end; j++ {
			if rows[j] <= prev {
				return fmt.Errorf("delta: gather row %d (previous %d, %d rows): %w", rows[j], prev, d.n, encoding.ErrCorrupt)
			}
			prev = rows[j]
			ends = append(ends, int32(c0+int(rows[j])-start))
		}
		sums := d.sums[:len(ends)]
		if err := s.SumRanges(c0, ends, sums); err != nil {
			return fmt.Errorf("deltas: %w", err)
		}
		acc := d.blocks[b].first
		for k, x := range sums {
			acc += x
			dst[i+k] = T(acc)
		}
		i = j
	}
	return nil
}

// Filter tests the next n values block by block on the header bounds: a
// block that cannot match clears its rows and one that matches entirely
// keeps them, both without decoding; only the remaining blocks are decoded
// and compared (filterkern.Blocks).
func (d *decoder[T]) Filter(p *encoding.Pred[T], n int, sel encoding.Bitmap) error {
	if n < 0 || n > d.n-d.cur.pos {
		return fmt.Errorf("delta: filter %d at %d of %d: %w", n, d.cur.pos, d.n, encoding.ErrCorrupt)
	}
	if len(sel)*64 < n {
		return fmt.Errorf("delta: selection of %d words for %d rows", len(sel), n)
	}
	settled, err := filterkern.Blocks[T](d, d.bs, p, n, sel, &d.filter)
	d.skipped += settled
	return err
}

// cursor walks the values: pos is the next row, acc the widened value of
// row pos-1 while pos is inside a block, and the child stands at the
// difference of row pos (block b, offset k >= 1: child row b*(bs-1)+k-1).
type cursor[T encoding.Integer] struct {
	d      *decoder[T]
	child  encoding.Reader[int64]
	summer encoding.RangeSummer // the child, when it can sum what it skips
	end    [1]int32             // summer's range end, kept here so a skip allocates nothing
	sum    [1]uint64
	pos    int
	acc    uint64
	buf    []int64
}

func (c *cursor[T]) reset() {
	c.pos, c.acc = 0, 0
	c.child.Reset()
}

// scratch makes c.buf hold the differences of k rows, or of batch rows
// when k is more: a lookup that reads a few rows of a block does not
// allocate a whole batch, and a scan grows it to one at its first read.
func (c *cursor[T]) scratch(k int) {
	want := min(batch, max(c.d.n, 1), max(k, 1))
	if len(c.buf) < want {
		c.buf = make([]int64, max(want, min(2*len(c.buf), batch)))
	}
}

// skip advances n rows (checked by the caller).
func (c *cursor[T]) skip(n int) error {
	if n == 0 {
		return nil
	}
	d := c.d
	target := c.pos + n
	tb := target / d.bs
	if tb > c.pos/d.bs || c.pos%d.bs == 0 {
		// Jump to the start of block tb: its differences start at child
		// row tb*(bs-1).
		if skip := tb*(d.bs-1) - c.child.Pos(); skip > 0 {
			if err := c.child.Skip(skip); err != nil {
				return fmt.Errorf("deltas: %w", err)
			}
		} else if skip < 0 {
			return encoding.Corruptf("delta cursor: child at %d beyond block %d", c.child.Pos(), tb)
		}
		c.pos = tb * d.bs
	}
	if target == c.pos {
		return nil
	}
	if c.pos%d.bs == 0 {
		c.acc = d.blocks[c.pos/d.bs].first
		c.pos++
	}
	m := target - c.pos
	if c.summer != nil {
		// only the total of the skipped differences is needed: add them
		// where they lie, then step over them
		from := c.child.Pos()
		c.end[0] = int32(from + m)
		err := c.summer.SumRanges(from, c.end[:], c.sum[:])
		if err == nil {
			err = c.child.Skip(m)
		}
		if err != nil {
			return fmt.Errorf("deltas: %w", err)
		}
		c.acc += c.sum[0]
		c.pos = target
		return nil
	}
	c.scratch(m)
	acc := c.acc
	for m > 0 {
		k := min(m, len(c.buf))
		buf := c.buf[:k]
		if err := c.child.Read(buf); err != nil {
			return fmt.Errorf("deltas: %w", err)
		}
		for _, x := range buf {
			acc += uint64(x)
		}
		m -= k
	}
	c.acc = acc
	c.pos = target
	return nil
}

// read decodes len(dst) values (checked by the caller). The differences of
// consecutive blocks are contiguous in the child, so they are fetched in
// batches spanning blocks, and each block's first value is put in between.
func (c *cursor[T]) read(dst []T) error {
	d := c.d
	if unsafe.Sizeof(dst[0]) == 8 && len(dst) > 0 {
		return c.readInPlace(dst)
	}
	c.scratch(len(dst))
	for len(dst) > 0 {
		// Plan: how many rows fit with one buffer of differences.
		nd, rows, p := 0, 0, c.pos
		for rows < len(dst) {
			b := p / d.bs
			k := p - b*d.bs
			if k == 0 {
				rows++
				p++
				continue
			}
			seg := min(d.rows(b)-k, len(dst)-rows, len(c.buf)-nd)
			if seg == 0 {
				break
			}
			nd, rows, p = nd+seg, rows+seg, p+seg
		}
		buf := c.buf[:nd]
		if err := c.child.Read(buf); err != nil {
			return fmt.Errorf("deltas: %w", err)
		}
		out := dst[:rows]
		acc, p := c.acc, c.pos
		for len(out) > 0 {
			b := p / d.bs
			k := p - b*d.bs
			if k == 0 {
				acc = d.blocks[b].first
				out[0] = T(acc)
				out = out[1:]
				p++
				continue
			}
			seg := min(d.rows(b)-k, len(out))
			o, ds := out[:seg], buf[:seg]
			for i, x := range ds {
				acc += uint64(x)
				o[i] = T(acc)
			}
			buf, out, p = buf[seg:], out[seg:], p+seg
		}
		c.acc, c.pos = acc, p
		dst = dst[rows:]
	}
	return nil
}

// readInPlace is read for 64-bit T, without scratch: the differences the
// rows need (one per row that does not start a block) are read in one
// child call into the tail of dst, then summed forward into place. Row o
// takes the difference stored at o + (block starts after row o), never
// before o, so every difference is read before its slot is overwritten.
func (c *cursor[T]) readInPlace(dst []T) error {
	d := c.d
	bs := d.bs
	starts := (c.pos+len(dst)+bs-1)/bs - (c.pos+bs-1)/bs
	diffs := unsafe.Slice((*int64)(unsafe.Pointer(&dst[0])), len(dst))
	if err := c.child.Read(diffs[starts:]); err != nil {
		return fmt.Errorf("deltas: %w", err)
	}
	acc, p, j := c.acc, c.pos, starts
	for o := 0; o < len(dst); {
		b := p / bs
		k := p - b*bs
		if k == 0 {
			acc = d.blocks[b].first
			dst[o] = T(acc)
			o++
			p++
			continue
		}
		seg := min(bs-k, len(dst)-o)
		src, out := diffs[j:j+seg], dst[o:o+seg]
		for i, x := range src {
			acc += uint64(x)
			out[i] = T(acc)
		}
		o, p, j = o+seg, p+seg, j+seg
	}
	c.acc, c.pos = acc, p
	return nil
}

// readDiffs is read with the running sum left to finish. The child's
// differences for all of dst are read in one call (so the child reads
// whole packed blocks rather than a part at each end of every block) into
// the tail of dst, shifted right by the number of block starts dst holds.
// A run that starts a block takes the slot just before its differences
// for the block's first value (that slot held the previous run's last
// difference, already consumed), so every run's src lies at or after its
// out, as finish requires.
func (c *cursor[T]) readDiffs(dst []T, finish func(out, src []T, base T) T) error {
	d := c.d
	bs := d.bs
	starts := (c.pos+len(dst)+bs-1)/bs - (c.pos+bs-1)/bs
	if err := c.readChildInto(dst[starts:]); err != nil {
		return err
	}
	j := starts // next difference in dst
	for o := 0; o < len(dst); {
		b := c.pos / bs
		k := c.pos - b*bs
		seg := min(d.rows(b)-k, len(dst)-o)
		base := T(c.acc)
		if k == 0 {
			j--
			dst[j], base = T(d.blocks[b].first), 0
		}
		c.acc = wide(finish(dst[o:o+seg], dst[j:j+seg], base))
		j += seg
		o += seg
		c.pos += seg
	}
	return nil
}

// readChildInto reads len(dst) differences from the child into dst:
// directly when T is 64 bits wide, else through scratch, truncated.
func (c *cursor[T]) readChildInto(dst []T) error {
	if len(dst) == 0 {
		return nil
	}
	if unsafe.Sizeof(dst[0]) == 8 {
		if err := c.child.Read(unsafe.Slice((*int64)(unsafe.Pointer(&dst[0])), len(dst))); err != nil {
			return fmt.Errorf("deltas: %w", err)
		}
		return nil
	}
	c.scratch(len(dst))
	for len(dst) > 0 {
		buf := c.buf[:min(len(dst), len(c.buf))]
		if err := c.child.Read(buf); err != nil {
			return fmt.Errorf("deltas: %w", err)
		}
		for i, x := range buf {
			dst[i] = T(x)
		}
		dst = dst[len(buf):]
	}
	return nil
}

// i128 is a signed 128-bit integer, enough to evaluate first + k*delta for
// any 64-bit value, delta and block length without overflow.
type i128 struct {
	hi int64
	lo uint64
}

func fromWide[T encoding.Integer](w uint64) i128 {
	if signed[T]() {
		return i128{int64(w) >> 63, w}
	}
	return i128{0, w}
}

func (a i128) add(b i128) i128 {
	lo, c := bits.Add64(a.lo, b.lo, 0)
	return i128{a.hi + b.hi + int64(c), lo}
}

func (a i128) neg() i128 {
	lo := ^a.lo + 1
	hi := ^a.hi
	if lo == 0 {
		hi++
	}
	return i128{hi, lo}
}

func (a i128) less(b i128) bool { return a.hi < b.hi || (a.hi == b.hi && a.lo < b.lo) }

// mul returns d*k for k >= 0.
func mul(d int64, k int) i128 {
	u := uint64(d)
	if d < 0 {
		u = -u
	}
	hi, lo := bits.Mul64(u, uint64(k))
	r := i128{int64(hi), lo}
	if d < 0 {
		r = r.neg()
	}
	return r
}

// typeRange returns the smallest and largest T as i128.
func typeRange[T encoding.Integer]() (i128, i128) {
	sz := uint(unsafe.Sizeof(T(0))) * 8
	if signed[T]() {
		m := uint64(1) << (sz - 1)
		return fromWide[T](-m), fromWide[T](m - 1)
	}
	return i128{}, i128{0, ^uint64(0) >> (64 - sz)}
}

// blockBounds derives the value bounds of a block of rows values starting
// at first, whose differences (including the one into the next block's
// first value) lie in [dmin, dmax]. The block's end is anchored at value g,
// at row rows-1+past (past is 1 for the next block's first value, 0 for the
// node's last value). Row k lies in [first + k*dmin, first + k*dmax] and,
// counting back from the anchor j = rows-1+past-k steps, in
// [g - j*dmax, g - j*dmin]. The pair (MinInt64, MaxInt64) marks differences
// that wrapped around; such a block is bounded only by its type when it has
// more than one row.
func blockBounds[T encoding.Integer](first, g uint64, past, rows int, dmin, dmax int64) (T, T) {
	tmin, tmax := typeRange[T]()
	f := fromWide[T](first)
	lo, hi := f, f
	unbounded := dmin == math.MinInt64 && dmax == math.MaxInt64
	if rows > 1 {
		if unbounded {
			return T(tmin.lo), T(tmax.lo)
		}
		lo = f.add(mul(min(dmin, 0), rows-1))
		hi = f.add(mul(max(dmax, 0), rows-1))
	}
	if !unbounded {
		// j ranges over [past, rows-1+past].
		jlo, jhi := past, rows-1+past
		gg := fromWide[T](g)
		jmax, jmin := jlo, jlo
		if dmax > 0 {
			jmax = jhi
		}
		if dmin < 0 {
			jmin = jhi
		}
		lo2 := gg.add(mul(dmax, jmax).neg())
		hi2 := gg.add(mul(dmin, jmin).neg())
		if lo.less(lo2) {
			lo = lo2
		}
		if hi2.less(hi) {
			hi = hi2
		}
	}
	if lo.less(tmin) {
		lo = tmin
	}
	if tmax.less(hi) {
		hi = tmax
	}
	if hi.less(lo) {
		// Inconsistent header (corrupt input): fall back to the type range.
		return T(tmin.lo), T(tmax.lo)
	}
	return T(lo.lo), T(hi.lo)
}

// Skipped implements encoding.SkipCounter.
func (d *decoder[T]) Skipped() int { return d.skipped }
