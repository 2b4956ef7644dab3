// Package blockfor implements BlockFOR: integers cut into fixed-size blocks,
// each stored frame-of-reference (value - base) bit-packed at its own width,
// with patched exceptions (PFOR, as in ORC's Patched Base) so a few outliers
// do not widen a whole block.
//
// A header table in front of the packed data gives every block's exact
// minimum and maximum, base, width and exception count. A reader therefore
// knows the bounds of the node and of every block without touching packed
// bits, prunes whole blocks when filtering (encoding-aware predicate
// pushdown, as TsFile does with TS2DIFF block headers) and reaches any row in
// O(1) for Skip and Gather.
package blockfor

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"slices"
	"sync"
	"unsafe"

	"strata/encoding"
	"strata/internal/bitpack"
	"strata/internal/filterkern"
)

// DefaultBlockSize is the number of rows per block the default codec writes.
const DefaultBlockSize = 1024

// MaxBlockSize bounds the block size a node may declare; it bounds the
// scratch buffers a decoder allocates.
const MaxBlockSize = 1 << 16

// minHeaderBytes is the smallest encoded size of one block header (five
// one-byte fields); the block count is checked against it before the header
// table is allocated.
const minHeaderBytes = 5

// Codec registers BlockFOR with the default block size.
var Codec = NewCodec(DefaultBlockSize)

// NewCodec returns a BlockFOR codec that writes blocks of blockSize rows
// (clamped to [1, MaxBlockSize]). Decoding does not depend on it: the block
// size is stored in every node.
func NewCodec(blockSize int) *encoding.Codec {
	blockSize = max(1, min(blockSize, MaxBlockSize))
	return &encoding.Codec{
		Kind:    encoding.KindBlockFOR,
		Types:   encoding.IntegerTypes,
		Open:    open,
		Decode:  encoding.Cost{PerValue: 1.25}, // strata calibrate (docs/benchmarks.md)
		Encoder: encoder{blockSize: blockSize},
		Leaf:    true,
		Zstd:    true,
	}
}

type encoder struct{ blockSize int }

// Fit accepts any non-empty integer sequence.
func (encoder) Fit(st *encoding.Stats) bool { return st.Type.IsInteger() && st.N >= 1 }

// Estimate is not computed from statistics: the per-block widths and
// exceptions depend on the data's local structure, so a trial encode tells.
func (encoder) Estimate(st *encoding.Stats) (int, bool) { return 0, false }

func (e encoder) Encode(dst []byte, vals any, st *encoding.Stats, ctx *encoding.Ctx) ([]byte, error) {
	switch v := vals.(type) {
	case []int8:
		return appendBody(dst, v, e.blockSize), nil
	case []int16:
		return appendBody(dst, v, e.blockSize), nil
	case []int32:
		return appendBody(dst, v, e.blockSize), nil
	case []int64:
		return appendBody(dst, v, e.blockSize), nil
	case []uint8:
		return appendBody(dst, v, e.blockSize), nil
	case []uint16:
		return appendBody(dst, v, e.blockSize), nil
	case []uint32:
		return appendBody(dst, v, e.blockSize), nil
	case []uint64:
		return appendBody(dst, v, e.blockSize), nil
	}
	return dst, fmt.Errorf("blockfor: cannot encode %T", vals)
}

// wide maps a value to 64 bits: sign-extended for signed types,
// zero-extended for unsigned ones. Differences of widened values, taken as
// uint64, are exact unsigned distances for every integer type.
func wide[T encoding.Integer](v T) uint64 { return uint64(int64(v)) }

// lowMask returns a mask of the low w bits (w in 0..64).
func lowMask(w int) uint64 {
	if w == 0 {
		return 0
	}
	return ^uint64(0) >> (64 - uint(w))
}

// signed reports whether T is a signed type.
func signed[T encoding.Integer]() bool { return ^T(0) < 0 }

// appendTyped appends a widened value as a zigzag varint for signed types
// and as a uvarint for unsigned ones.
func appendTyped[T encoding.Integer](dst []byte, w uint64) []byte {
	if signed[T]() {
		return binary.AppendVarint(dst, int64(w))
	}
	return binary.AppendUvarint(dst, w)
}

// readTyped reads a value written by appendTyped and checks that it is a
// valid T.
func readTyped[T encoding.Integer](buf []byte, what string) (uint64, []byte, error) {
	var w uint64
	if signed[T]() {
		v, n := binary.Varint(buf)
		if n <= 0 {
			return 0, buf, encoding.Corruptf("%s: bad varint", what)
		}
		w, buf = uint64(v), buf[n:]
	} else {
		v, rest, err := encoding.Uvarint(buf, what)
		if err != nil {
			return 0, buf, err
		}
		w, buf = v, rest
	}
	if wide(T(w)) != w {
		return 0, buf, encoding.Corruptf("%s: %d out of range for %v", what, int64(w), encoding.TypeFor[T]())
	}
	return w, buf, nil
}

// blockPlan is the encoder's choice for one block.
type blockPlan struct {
	min, max, base uint64 // widened
	w              int
	nexc           int
}

// appendBody appends the BlockFOR body of vals with blocks of bs rows.
func appendBody[T encoding.Integer](dst []byte, vals []T, bs int) []byte {
	n := len(vals)
	nb := (n + bs - 1) / bs
	sc := getPlanScratch(min(bs, n), nb)
	defer planPool.Put(sc)
	plans := sc.plans[:nb]
	for b := range plans {
		blk := vals[b*bs : min(n, (b+1)*bs)]
		plans[b] = plan(blk, sc)
	}
	offs := sc.offs
	dst = binary.AppendUvarint(dst, uint64(bs))
	var prev uint64
	for b, p := range plans {
		if b == 0 {
			dst = appendTyped[T](dst, p.min)
		} else {
			dst = binary.AppendVarint(dst, int64(p.min-prev))
		}
		prev = p.min
		dst = binary.AppendUvarint(dst, p.max-p.min)
		dst = binary.AppendUvarint(dst, p.base-p.min)
		dst = append(dst, byte(p.w))
		dst = binary.AppendUvarint(dst, uint64(p.nexc))
	}
	// The packed sizes are known from the plans: grow dst once rather
	// than copying a doubling buffer as blocks are appended.
	packed := 0
	for b, p := range plans {
		m := min(n, (b+1)*bs) - b*bs
		packed += bitpack.Bytes(m, p.w) + bitpack.Bytes(p.nexc, bits.Len(uint(m-1))) + bitpack.Bytes(p.nexc, bits.Len64(p.max-p.min))
	}
	dst = slices.Grow(dst, packed)
	pos, exc := sc.pos[:0], sc.exc[:0]
	for b, p := range plans {
		blk := vals[b*bs : min(n, (b+1)*bs)]
		slots := offs[:len(blk)]
		mask := lowMask(p.w)
		pos, exc = pos[:0], exc[:0]
		// The window is [base, base+mask] in the order of the values'
		// offsets from the block minimum, as plan counted it: a value
		// below base is an exception even where its offset from base
		// wraps into the window (a block holding values near both ends
		// of its type's range, whose window runs past the maximum).
		lowOff := p.base - p.min
		if p.nexc == 0 {
			// plan counted every value inside the window: no checks
			for i, v := range blk {
				slots[i] = wide(v) - p.base
			}
		} else {
			for i, v := range blk {
				o := wide(v) - p.base
				if o > mask || wide(v)-p.min < lowOff {
					pos = append(pos, uint64(i))
					exc = append(exc, wide(v)-p.min)
					o = 0
				}
				slots[i] = o
			}
		}
		dst = bitpack.Pack(dst, slots, p.w)
		dst = bitpack.Pack(dst, pos, bits.Len(uint(len(blk)-1)))
		dst = bitpack.Pack(dst, exc, bits.Len64(p.max-p.min))
	}
	return dst
}

// planScratch is plan's scratch space for blocks of up to n values.
type planScratch struct {
	offs, tmp []uint64
	starts    []int32
	// appendBody's per-block plans and a block's exception positions and
	// values
	plans    []blockPlan
	pos, exc []uint64
	// hist is plan's histogram of a block's offsets (histUniq), all zero
	// between blocks.
	hist []int32
}

func newPlanScratch(n int) *planScratch {
	return &planScratch{offs: make([]uint64, n), tmp: make([]uint64, n), starts: make([]int32, n+1)}
}

// planPool keeps appendBody's scratch between encodes: selection encodes
// BlockFOR many times per stream (trials, finalists, children), and
// allocating five block-sized slices each time was an eighth of the bytes
// a write of a small table allocated.
var planPool sync.Pool

// getPlanScratch returns a scratch from planPool (or a new one) with room
// for blocks of n values and nb plans; its contents are undefined.
func getPlanScratch(n, nb int) *planScratch {
	sc, _ := planPool.Get().(*planScratch)
	if sc == nil {
		sc = &planScratch{}
	}
	if cap(sc.starts) < n+1 {
		sc.offs, sc.tmp, sc.starts = make([]uint64, n), make([]uint64, n), make([]int32, n+1)
		sc.pos, sc.exc = make([]uint64, 0, n), make([]uint64, 0, n)
	}
	sc.offs, sc.tmp, sc.starts = sc.offs[:n], sc.tmp[:n], sc.starts[:n+1]
	if cap(sc.plans) < nb {
		sc.plans = make([]blockPlan, nb)
	}
	return sc
}

// plan picks the base and width of one block that minimize its packed size:
// n*w bits for the slots plus, per exception, its position and its full
// offset from the block minimum.
func plan[T encoding.Integer](blk []T, sc *planScratch) blockPlan {
	mn, mx := blk[0], blk[0]
	for _, v := range blk[1:] {
		mn = min(mn, v)
		mx = max(mx, v)
	}
	p := blockPlan{min: wide(mn), max: wide(mx), base: wide(mn)}
	spread := p.max - p.min
	rangeBits := bits.Len64(spread)
	p.w = rangeBits
	n := len(blk)
	if rangeBits <= 1 || n < 8 {
		return p
	}
	offs := sc.offs[:n]
	excBits := bits.Len(uint(n-1)) + rangeBits
	// Count the offsets in 2^k equal parts of the range; when those
	// counts show that no narrower window leaves few enough exceptions to
	// pay, the full width is the plan and the search below is skipped
	// (values spread over their range: random keys, hashes, bit-packed
	// ids).
	var parts [1 << maxPartBits]int32
	k := min(rangeBits, maxPartBits)
	sh := uint(rangeBits - k)
	for i, v := range blk {
		o := wide(v) - p.min
		offs[i] = o
		parts[o>>sh]++
	}
	if !narrowerMayPay(parts[:1<<k], n, excBits, rangeBits, k) {
		return p
	}
	// The distinct offsets (uniq, ascending) and how many values lie below
	// each (starts, with n last); windows are counted over them, which is
	// the same count in fewer steps when values repeat.
	var uniq []uint64
	var starts []int32
	if rangeBits < 32 && 1<<uint(rangeBits) <= histSlots*n {
		uniq, starts = sc.histUniq(offs, rangeBits)
	} else {
		sortOffsets(offs, sc.tmp[:n], rangeBits)
		uniq, starts = sc.tmp[:0], sc.starts[:0]
		for i, o := range offs {
			if i == 0 || o != offs[i-1] {
				uniq = append(uniq, o)
				starts = append(starts, int32(i))
			}
		}
		starts = append(starts, int32(n))
	}
	u := len(uniq)
	best := n * rangeBits
	// count returns how many values the best window [base, base+2^w) holds
	// and the offset it starts at (the first such window in value order);
	// values outside it become exceptions.
	count := func(w int) (cnt int, at uint64) {
		win := uint64(1)<<uint(w) - 1
		lo := 0
		for hi := 0; hi < u; hi++ {
			for uniq[hi]-uniq[lo] > win {
				lo++
			}
			if c := int(starts[hi+1] - starts[lo]); c > cnt {
				cnt, at = c, uniq[lo]
			}
		}
		return cnt, at
	}
	consider := func(w, cnt int, at uint64) {
		// Ties keep the wider width, which has fewer exceptions to patch.
		if cost := n*w + (n-cnt)*excBits; cost < best || (cost == best && w > p.w) {
			best = cost
			p.w, p.nexc, p.base = w, n-cnt, p.min+at
		}
	}
	// The window count c(w) grows with w, so over widths (lo, hi) the cost
	// n*w + (n-c(w))*excBits is at least n*lo + (n-c(hi))*excBits, and is
	// increasing where c is flat. Bisecting with these bounds finds the
	// exact minimum while evaluating only a few widths.
	var visit func(lo, clo, hi, chi int)
	visit = func(lo, clo, hi, chi int) {
		if hi-lo <= 1 || clo == chi || n*lo+(n-chi)*excBits > best {
			return
		}
		mid := (lo + hi) / 2
		c, at := count(mid)
		consider(mid, c, at)
		visit(mid, c, hi, chi)
		visit(lo, clo, mid, c)
	}
	c0, at0 := count(0)
	consider(0, c0, at0)
	visit(0, c0, rangeBits, n)
	return p
}

// histSlots bounds the histogram plan counts a block's offsets in, in
// slots per value: a block whose offsets span at most that many slots is
// counted into one (a pass over the values and one over the slots)
// instead of being radix-sorted (two passes per byte of the range and one
// more to find the distinct offsets). Lengths, codes and small-range ids,
// most of the integers selection trials BlockFOR on, span a few slots per
// value.
const histSlots = 4

// histUniq returns the distinct offsets of offs, all below 2^rangeBits,
// in ascending order and, for each, how many offsets lie below it (with
// len(offs) appended): what sorting offs and walking it gives, from a
// histogram of the offsets. The histogram is left cleared for the next
// block.
func (sc *planScratch) histUniq(offs []uint64, rangeBits int) ([]uint64, []int32) {
	slots := 1 << uint(rangeBits)
	if cap(sc.hist) < slots {
		sc.hist = make([]int32, slots)
	}
	hist := sc.hist[:slots]
	for _, o := range offs {
		hist[o]++
	}
	uniq, starts := sc.tmp[:0], sc.starts[:0]
	below := int32(0)
	for o, c := range hist {
		if c != 0 {
			uniq = append(uniq, uint64(o))
			starts = append(starts, below)
			below += c
			hist[o] = 0
		}
	}
	return uniq, append(starts, below)
}

// maxPartBits: plan counts a block's offsets in up to 2^maxPartBits parts
// of its range before searching for a narrower width.
const maxPartBits = 6

// narrowerMayPay reports whether some width below rangeBits could cost
// less than n·rangeBits bits, judged from the counts of a block's n
// offsets in the 2^k equal parts of [0, 2^rangeBits). A width w costs n·w
// bits plus excBits for each value outside its best window of 2^w
// offsets. For w ≥ rangeBits−k that window is 2^(w−rangeBits+k) parts
// long, so it overlaps at most one part more than that; a narrower window
// is shorter than a part and overlaps at most two. Its count is thus at
// most the largest sum of that many neighbouring parts. When even those
// counts leave too many exceptions at every width, plan's search would
// keep the full width, and false lets it return that without sorting;
// true only means the search must run.
func narrowerMayPay(parts []int32, n, excBits, rangeBits, k int) bool {
	// most returns the largest count in j neighbouring parts.
	most := func(j int) int {
		j = min(j, len(parts))
		s := int32(0)
		for _, c := range parts[:j] {
			s += c
		}
		m := s
		for i := j; i < len(parts); i++ {
			s += parts[i] - parts[i-j]
			m = max(m, s)
		}
		return int(m)
	}
	// width w pays only if (n − count)·excBits < n·(rangeBits − w)
	for w := rangeBits - 1; w >= rangeBits-k && w >= 0; w-- {
		if (n-most(1<<(w-rangeBits+k)+1))*excBits < n*(rangeBits-w) {
			return true
		}
	}
	return rangeBits > k && (n-most(2))*excBits < n*rangeBits
}

// sortOffsets sorts offs, whose values are below 2^rangeBits, in place; tmp
// is scratch of len(offs). Planning sorts every block of every trial encode,
// which made comparison sorting a third of the writer's time on large
// integer columns; a least-significant-digit radix sort over the bytes the
// values use (skipping bytes they all share) does the same in a few linear
// passes. Input already in order (sorted columns) returns after one pass.
func sortOffsets(offs, tmp []uint64, rangeBits int) {
	n := len(offs)
	ordered := true
	for i := 1; i < n; i++ {
		if offs[i] < offs[i-1] {
			ordered = false
			break
		}
	}
	if ordered {
		return
	}
	if n < 64 {
		slices.Sort(offs)
		return
	}
	src, dst := offs, tmp[:n]
	for shift := 0; shift < rangeBits; shift += 8 {
		var cnt [256]int
		for _, v := range src {
			cnt[byte(v>>uint(shift))]++
		}
		if cnt[byte(src[0]>>uint(shift))] == n {
			continue // every value has this byte: the pass would not move anything
		}
		sum := 0
		for i, c := range cnt {
			cnt[i] = sum
			sum += c
		}
		for _, v := range src {
			d := byte(v >> uint(shift))
			dst[cnt[d]] = v
			cnt[d]++
		}
		src, dst = dst, src
	}
	if &src[0] != &offs[0] {
		copy(offs, src)
	}
}

// block is one parsed block header with the byte offsets of its sections.
type block struct {
	min, max, base uint64 // widened
	data           int    // offset of the packed slots in the data section
	pos, exc       int    // offsets of the exception positions and values
	rows           int32
	nexc           int32
	w, pw, ew      uint8
}

type decoder[T encoding.Integer] struct {
	skipped  int // blocks Filter settled from their bounds (encoding.SkipCounter)
	inflated bool
	typ      encoding.Type
	n, bs    int
	blocks   []block
	data     []byte
	pos      int
	lo, hi   T // node bounds

	cached int // index of the block held in cache, -1 if none
	cache  []T
	// parts: some read took part of a block, as reads that start
	// anywhere do (random windows), which sequential whole-block reads (a
	// scan) never do; see patchTable
	parts bool
	// excs holds the exception positions and values of block excBlock
	// (-1: none), see exceptions.
	excBlock int
	maxExc   int // most exceptions of any block
	totalExc int // exceptions of all blocks
	u64      []uint64
	u32      []uint32
	excs     []uint64
	sums     excSums // SumRanges' exception table of one block
	// blockBuf and excBuf hold blocks and excs inside the decoder when
	// they are that short: a node of one block with a few exceptions (a
	// short chunk, the heads of a LagDelta) opens with one allocation.
	blockBuf [1]block
	excBuf   [8]uint64
	selIn    encoding.Bitmap
	selOut   encoding.Bitmap
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
	return nil, encoding.Unsupportedf("blockfor: type %v", h.Type)
}

func openT[T encoding.Integer](h encoding.Header, opts *encoding.Options) (*decoder[T], error) {
	d := &decoder[T]{typ: h.Type, n: h.Rows, cached: -1, excBlock: -1, sums: excSums{block: -1, walked: -1}, inflated: h.Flags&encoding.FlagZstd != 0}
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
	if err := opts.CheckAlloc(nb, 48, "blockfor headers"); err != nil {
		return nil, err
	}
	if nb <= len(d.blockBuf) {
		d.blocks = d.blockBuf[:nb]
	} else {
		d.blocks = make([]block, nb)
	}
	var prev uint64
	total := 0
	for b := range d.blocks {
		bl := &d.blocks[b]
		bl.rows = int32(min(bs, d.n-b*bs))
		var mn uint64
		if b == 0 {
			mn, body, err = readTyped[T](body, "block 0 min")
		} else {
			v, k := binary.Varint(body)
			if k <= 0 {
				return nil, encoding.Corruptf("block %d min: bad varint", b)
			}
			mn, body = prev+uint64(v), body[k:]
			if wide(T(mn)) != mn {
				return nil, encoding.Corruptf("block %d min out of range for %v", b, d.typ)
			}
		}
		if err != nil {
			return nil, err
		}
		prev = mn
		spread, rest, err := encoding.Uvarint(body, "block spread")
		if err != nil {
			return nil, fmt.Errorf("block %d: %w", b, err)
		}
		mx := mn + spread
		if wide(T(mx)) != mx || T(mx) < T(mn) {
			return nil, encoding.Corruptf("block %d: max beyond %v range", b, d.typ)
		}
		baseOff, rest, err := encoding.Uvarint(rest, "block base")
		if err != nil {
			return nil, fmt.Errorf("block %d: %w", b, err)
		}
		if baseOff > spread {
			return nil, encoding.Corruptf("block %d: base offset %d beyond spread %d", b, baseOff, spread)
		}
		if len(rest) == 0 {
			return nil, encoding.Corruptf("block %d: missing width", b)
		}
		w := int(rest[0])
		if w > bits.Len64(spread) {
			return nil, encoding.Corruptf("block %d: width %d wider than its spread needs", b, w)
		}
		nexc, rest, err := encoding.Length(rest[1:], int(bl.rows), "exception count")
		if err != nil {
			return nil, fmt.Errorf("block %d: %w", b, err)
		}
		body = rest
		d.maxExc = max(d.maxExc, nexc)
		d.totalExc += nexc
		*bl = block{min: mn, max: mx, base: mn + baseOff, rows: bl.rows, nexc: int32(nexc),
			w: uint8(w), pw: uint8(bits.Len(uint(bl.rows - 1))), ew: uint8(bits.Len64(spread))}
		bl.data = total
		bl.pos = bl.data + bitpack.Bytes(int(bl.rows), w)
		bl.exc = bl.pos + bitpack.Bytes(nexc, int(bl.pw))
		total = bl.exc + bitpack.Bytes(nexc, int(bl.ew))
		if total > len(body) {
			return nil, encoding.Corruptf("block %d: packed data ends at %d, beyond %d bytes", b, total, len(body))
		}
		if b == 0 || T(mn) < d.lo {
			d.lo = T(mn)
		}
		if b == 0 || T(mx) > d.hi {
			d.hi = T(mx)
		}
	}
	if total != len(body) {
		return nil, encoding.Corruptf("%d trailing bytes after packed data", len(body)-total)
	}
	d.data = body
	if opts != nil && opts.Allocated != nil {
		*opts.Allocated += d.retainedBound()
	}
	return d, nil
}

// retainedBound is the most memory a decoder's exception tables can come
// to hold after opening: the unpacked exceptions of one block (exceptions),
// and SumRanges' kept tables with their block index and scratch (excSums).
// Opening counts it in Options.Allocated, so a reader's decoder cache
// charges what a cached decoder may grow to rather than what it held when
// it was put.
func (d *decoder[T]) retainedBound() int64 {
	if d.maxExc == 0 {
		return 0
	}
	totalExc := d.totalExc
	const entry = 4 + 8 // a kept position (int32) and running correction (uint64)
	n := int64(16*d.maxExc) + int64(4*len(d.blocks)) + int64(entry*min(totalExc, maxKeptExceptions))
	if totalExc > maxKeptExceptions {
		n += int64(entry * min(d.bs, d.n)) // the scratch table once the arena is full
	}
	return n
}

func (d *decoder[T]) Kind() encoding.Kind { return encoding.KindBlockFOR }
func (d *decoder[T]) Type() encoding.Type { return d.typ }
func (d *decoder[T]) Len() int            { return d.n }
func (d *decoder[T]) Pos() int            { return d.pos }
func (d *decoder[T]) Reset()              { d.pos = 0 }

// DecodeSpan implements encoding.DecodeSpanner: blocks are addressed
// directly; Read decodes a part of a block without exceptions from the
// groups of 64 packed values that hold it, and a block with exceptions
// whole (see Read).
func (d *decoder[T]) DecodeSpan(from, to int) (int, int) {
	if d.inflated || d.bs <= 0 || to <= from {
		return 0, d.n
	}
	b0, b1 := from/d.bs, (to-1)/d.bs
	lo, hi := b0*d.bs, min(d.n, b1*d.bs+d.bs)
	if d.blocks[b0].nexc == 0 {
		lo += (from - lo) &^ 63
	}
	if d.blocks[b1].nexc == 0 {
		hi = min(hi, b1*d.bs+(to-b1*d.bs+63)&^63)
	}
	return lo, hi
}

// Skip moves the cursor; blocks are addressed directly, so it is O(1).
func (d *decoder[T]) Skip(n int) error {
	if n < 0 || n > d.n-d.pos {
		return fmt.Errorf("blockfor: skip %d at %d of %d: %w", n, d.pos, d.n, encoding.ErrCorrupt)
	}
	d.pos += n
	return nil
}

// Bounds returns the node's exact minimum and maximum, from the headers.
func (d *decoder[T]) Bounds() (lo, hi T, ok bool) { return d.lo, d.hi, d.n > 0 }

// Blocks returns the number of blocks.
func (d *decoder[T]) Blocks() int { return len(d.blocks) }

// BlockBounds returns block b's first row, row count and exact value bounds
// from its header.
func (d *decoder[T]) BlockBounds(b int) (first, rows int, lo, hi T) {
	bl := &d.blocks[b]
	return b * d.bs, int(bl.rows), T(bl.min), T(bl.max)
}

// minDirect is the smallest part of a block with exceptions that Read
// decodes straight into dst; a smaller part decodes the whole block into
// the cache.
const minDirect = 32

// Read decodes len(dst) values straight into dst, a block or a part of
// one at a time, so a parent reading in cache-sized batches (ALP) gets
// its digits without a copy. A block held in the cache is copied from it.
// A small part of a block with exceptions (under minDirect rows) is
// decoded into the cache: the exceptions of a block are all read
// whatever part is asked for, and small reads must not pay for them
// again each time. A larger part is decoded in place like any other (a
// window of rows starting inside a block, after a Delta parent summed
// its way there, must not unpack the rows before it).
func (d *decoder[T]) Read(dst []T) error {
	if len(dst) > d.n-d.pos {
		return fmt.Errorf("blockfor: read %d at %d of %d: %w", len(dst), d.pos, d.n, encoding.ErrCorrupt)
	}
	for len(dst) > 0 {
		b := d.pos / d.bs
		k := d.pos - b*d.bs
		rows := int(d.blocks[b].rows)
		m := min(rows-k, len(dst))
		switch {
		case d.cached == b:
			copy(dst[:m], d.cache[k:k+m])
		case m == rows || d.blocks[b].nexc == 0 || m >= minDirect || d.sums.kept(b):
			if err := d.decodeAt(b, k, dst[:m]); err != nil {
				return err
			}
		default:
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

// load decodes block b into the cache.
func (d *decoder[T]) load(b int) error {
	if d.cached == b {
		return nil
	}
	if d.cache == nil {
		d.cache = make([]T, min(d.bs, d.n))
	}
	d.cached = -1
	if err := d.decode(b, d.cache[:d.blocks[b].rows]); err != nil {
		return err
	}
	d.cached = b
	return nil
}

// decode writes all values of block b into out (len = block rows).
func (d *decoder[T]) decode(b int, out []T) error { return d.decodeAt(b, 0, out) }

// decodeAt writes rows [k, k+len(out)) of block b into out. Every
// exception position of the block is checked, whichever rows are asked
// for, so a corrupt block fails the same way however it is read.
func (d *decoder[T]) decodeAt(b, k int, out []T) error {
	bl := &d.blocks[b]
	base := bl.base
	if bl.w == 0 {
		v := T(base)
		for i := range out {
			out[i] = v
		}
	} else {
		// the stream runs on past the block's slots (its exceptions, the
		// next blocks), so unaligned loads at its end need no care
		d.unpack(out, d.data[bl.data:], int(bl.w), k, base)
	}
	if bl.nexc == 0 {
		return nil
	}
	if d.patchTable(b, k == 0 && len(out) == int(bl.rows)) {
		// add the kept corrections: base + slot + correction is the
		// exception's value, wrapping as T does
		e := &d.sums
		pos, cum := e.pos, e.cum
		j := firstAtOrAfter(pos, k)
		var prev uint64
		if j > 0 {
			prev = cum[j-1]
		}
		for ; j < len(pos) && int(pos[j]) < k+len(out); j++ {
			out[int(pos[j])-k] += T(cum[j] - prev)
			prev = cum[j]
		}
		return nil
	}
	ps, vs, err := d.exceptions(b)
	if err != nil {
		return err
	}
	for j := firstAtOrAfter(ps, k); j < len(ps) && int(ps[j]) < k+len(out); j++ {
		out[int(ps[j])-k] = T(vs[j])
	}
	return nil
}

// patchTable reports whether decodeAt patches block b from the block's
// kept SumRanges table (made current): when the table is kept already or
// the arena has room to keep it. Random windows read the same blocks
// again and again, in parts (a Delta skip sums its way into a block, then
// the read starts there) and whole, and unpacking and checking all of a
// block's exceptions for every read cost more than the rest of a part's
// decode; the kept table was checked when it was built (by exceptions, as
// every read checks) and costs one lookup. The first read of a block pays
// for the table (a slot lookup per exception beyond what exceptions
// costs); once the arena is full, blocks take the exceptions directly. A
// read of a whole block does not build a table until some read has taken
// part of a block: a scan reads each block once, whole, and would pay for
// tables it never uses again.
func (d *decoder[T]) patchTable(b int, whole bool) bool {
	e := &d.sums
	if !whole {
		d.parts = true
	}
	switch {
	case e.kept(b):
	case whole && !d.parts:
		return false
	case len(e.apos)+int(d.blocks[b].nexc) <= maxKeptExceptions:
	default:
		return false
	}
	return d.loadSums(b) == nil && e.block == b
}

// exceptions returns the positions of block b's exceptions and their
// values (the block minimum added), unpacked and checked once and kept
// until another block's are asked for: reads and sums that take a block
// in several parts (a Delta parent skipping into it, then reading on)
// do not unpack them again. Every position is checked, whichever rows
// are asked for, so a corrupt block fails the same way however it is
// read.
func (d *decoder[T]) exceptions(b int) (ps, vs []uint64, err error) {
	bl := &d.blocks[b]
	ne := int(bl.nexc)
	if d.excBlock == b {
		return d.excs[:ne], d.excs[ne : 2*ne], nil
	}
	d.excBlock = -1
	if len(d.excs) < 2*ne {
		// once, for the block with the most (maxExc <= rows, checked at open)
		if 2*d.maxExc <= len(d.excBuf) {
			d.excs = d.excBuf[:]
		} else {
			d.excs = make([]uint64, 2*d.maxExc)
		}
	}
	ps, vs = d.excs[:ne], d.excs[ne:2*ne]
	unpacked, valid := unpackExceptions(ps, vs, d.data, bl)
	if valid {
		d.excBlock = b
		return ps, vs, nil
	}
	if !unpacked {
		// both sections run on to the end of the data (no short tail)
		bitpack.Unpack(ps, d.data[bl.pos:], int(bl.pw), 0)
		bitpack.UnpackAdd(vs, d.data[bl.exc:], int(bl.ew), 0, bl.min)
	}
	prev := -1
	for j, p64 := range ps {
		p := int(p64)
		if p <= prev || p >= int(bl.rows) {
			return nil, nil, d.badException(b, j, p, prev)
		}
		prev = p
	}
	d.excBlock = b
	return ps, vs, nil
}

// unpackExceptions unpacks block bl's exception positions into ps and its
// values (the block minimum added) into vs in one loop, each with one
// 8-byte load, and checks that the positions increase within the block,
// when the widths allow it (a value and its bit offset within a byte fit
// in 64 bits). unpacked is false when it
// left the work to bitpack; valid is true when the positions passed the
// check (false leaves the caller to find and report the bad one). A block
// has a few exceptions, which bitpack's unpacking took through two calls
// each and a second pass to check, and windows of rows touch three or
// four blocks per column.
func unpackExceptions(ps, vs []uint64, data []byte, bl *block) (unpacked, valid bool) {
	ne := len(ps)
	pw, ew := uint64(bl.pw), uint64(bl.ew)
	if ne == 0 || pw > 56 || ew > 56 || len(vs) != ne {
		return false, false
	}
	// Open checked that both sections lie within data. Every load takes 8
	// bytes; where fewer follow the last exception's position or value
	// (the last exceptions of the data's last block), the block's sections
	// are copied with 8 zero bytes after them and read from there.
	off := 0 // offset of data within the node's data
	lastP := uint64(bl.pos) + ((uint64(ne)-1)*pw)>>3
	lastV := uint64(bl.exc) + ((uint64(ne)-1)*ew)>>3
	if end := uint64(len(data)); lastP+8 > end || lastV+8 > end {
		var buf [128]byte
		var padded []byte
		if n := len(data) - bl.pos + 8; n <= len(buf) {
			padded = buf[:n]
		} else {
			padded = make([]byte, n)
		}
		copy(padded, data[bl.pos:])
		data, off = padded, bl.pos
	}
	p := unsafe.Pointer(unsafe.SliceData(data))
	pm, vm := uint64(1)<<pw-1, uint64(1)<<ew-1
	pbit, vbit := uint64(bl.pos-off)*8, uint64(bl.exc-off)*8
	rows := uint64(bl.rows)
	next := uint64(0) // the smallest position the next exception may take
	valid = true
	for j := range ps {
		pword := binary.LittleEndian.Uint64((*[8]byte)(unsafe.Add(p, pbit>>3))[:])
		vword := binary.LittleEndian.Uint64((*[8]byte)(unsafe.Add(p, vbit>>3))[:])
		pos := pword >> (pbit & 7) & pm
		valid = valid && pos >= next && pos < rows
		next = pos + 1
		ps[j] = pos
		vs[j] = vword>>(vbit&7)&vm + bl.min
		pbit += pw
		vbit += ew
	}
	return true, valid
}

// firstAtOrAfter returns the index of the first position in the sorted
// ps (an exception list's or a kept table's) that is at least k.
func firstAtOrAfter[P int32 | uint64](ps []P, k int) int {
	lo, hi := 0, len(ps)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if int(ps[m]) < k {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

func (d *decoder[T]) badException(b, j, p, prev int) error {
	return encoding.Corruptf("blockfor block %d: exception %d at position %d (previous %d, %d rows)", b, j, p, prev, d.blocks[b].rows)
}

// unpack writes T(base + slot) for len(out) slots of width w from slot
// start on. 64-bit and 32-bit values are unpacked in place in out, base
// added by the kernels; narrower ones through a 32-bit scratch when the
// width allows, since only the low bits of base + slot survive.
func (d *decoder[T]) unpack(out []T, src []byte, w, start int, base uint64) {
	switch unsafe.Sizeof(out[0]) {
	case 8:
		u := unsafe.Slice((*uint64)(unsafe.Pointer(&out[0])), len(out))
		bitpack.UnpackAdd(u, src, w, start, base)
		return
	case 4:
		if w <= 32 {
			u := unsafe.Slice((*uint32)(unsafe.Pointer(&out[0])), len(out))
			bitpack.Unpack32Add(u, src, w, start, uint32(base))
			return
		}
	}
	if w <= 32 {
		if d.u32 == nil {
			d.u32 = make([]uint32, min(d.bs, d.n))
		}
		u := d.u32[:len(out)]
		bitpack.Unpack32(u, src, w, start)
		b := uint32(base)
		for i, x := range u {
			out[i] = T(b + x)
		}
		return
	}
	if d.u64 == nil {
		d.u64 = make([]uint64, min(d.bs, d.n))
	}
	u := d.u64[:len(out)]
	bitpack.Unpack(u, src, w, start)
	for i, x := range u {
		out[i] = T(base + x)
	}
}

// Gather reads the rows of one block at a time: their slots by bit offset
// (bitpack.Gather), then the exceptions among them, found by walking the
// block's sorted exception positions beside the rows, or by binary search
// per row when the block has many more exceptions than wanted rows.
func (d *decoder[T]) Gather(rows []int32, dst []T) error {
	if len(dst) < len(rows) {
		return fmt.Errorf("blockfor: gather of %d rows into %d values", len(rows), len(dst))
	}
	prev := int32(-1)
	for i := 0; i < len(rows); {
		if r := rows[i]; r <= prev || int(r) >= d.n {
			return fmt.Errorf("blockfor: gather row %d (previous %d, %d rows): %w", r, prev, d.n, encoding.ErrCorrupt)
		}
		b := int(rows[i]) / d.bs
		start := b * d.bs
		bl := &d.blocks[b]
		end := int32(start + int(bl.rows))
		j := i
		for ; j < len(rows) && rows[j] < end; j++ {
			if rows[j] <= prev {
				return fmt.Errorf("blockfor: gather row %d (previous %d, %d rows): %w", rows[j], prev, d.n, encoding.ErrCorrupt)
			}
			prev = rows[j]
		}
		seg, out := rows[i:j], dst[i:j]
		i = j
		if b == d.cached {
			for k, r := range seg {
				out[k] = d.cache[int(r)-start]
			}
			continue
		}
		bitpack.Gather(out, d.data[bl.data:bl.pos], int(bl.w), seg, start, bl.base)
		if bl.nexc == 0 {
			continue
		}
		pos, exc := d.data[bl.pos:bl.exc], d.data[bl.exc:]
		pw, ew, ne := int(bl.pw), int(bl.ew), int(bl.nexc)
		if ne > 8*len(seg) {
			for k, r := range seg {
				at := int(r) - start
				lo, hi := 0, ne
				for lo < hi {
					m := int(uint(lo+hi) >> 1)
					if int(bitpack.Get(pos, pw, m)) < at {
						lo = m + 1
					} else {
						hi = m
					}
				}
				if lo < ne && int(bitpack.Get(pos, pw, lo)) == at {
					out[k] = T(bl.min + bitpack.Get(exc, ew, lo))
				}
			}
			continue
		}
		e, p := 0, int(bitpack.Get(pos, pw, 0))
		for k, r := range seg {
			at := int(r) - start
			for p < at && e+1 < ne {
				e++
				p = int(bitpack.Get(pos, pw, e))
			}
			if p == at {
				out[k] = T(bl.min + bitpack.Get(exc, ew, e))
			}
		}
	}
	return nil
}

// excSums is what SumRanges needs of blocks' exceptions: their positions
// (checked increasing and inside the block) and the running sums of their
// corrections, the exception's value less the slot value it replaces (both
// as Read returns them: T(min + exc) and T(base + slot), widened). The
// tables are kept, up to maxKeptExceptions entries per decoder, so that a
// decoder the cache holds sums the same blocks again (a repeated query)
// without rebuilding them; past that, one block's table is rebuilt as
// needed.
type excSums struct {
	block int     // block of pos, cum and the walk state, -1 if none
	pos   []int32 // its exception positions
	cum   []uint64
	// The last range ended at slot end; next exceptions lie before it.
	end, next int
	// walked is the last block whose exceptions a SumRanges call added
	// in place without a table (-1: none); a later call into it builds
	// the table.
	walked int

	at   []int32 // 1 + arena index of block b's kept table; 0 if not kept
	apos []int32 // arena of kept positions
	acum []uint64
	spos []int32 // scratch table when the arena is full
	scum []uint64
}

// maxKeptExceptions bounds the exception tables a decoder keeps (12 bytes
// an entry).
const maxKeptExceptions = 4096

// minArena is the fewest entries the kept-exception arena grows to.
const minArena = 64

// SumRanges implements encoding.RangeSummer: each block adds its rows'
// base and its packed slots summed by bitpack.Sum, then the corrections of
// the exceptions among the rows. A block whose exceptions have a table
// (kept, or the block a previous call walked: a Delta parent's skips and
// gathers come back to a block) takes them from it, walked forward as the
// ranges advance. Otherwise its packed exceptions are walked once for all
// the ranges of the call that touch it, each correction added to the sum
// of the range holding it: a cold lookup (FSST summing its code lengths
// up to a row, to the next and to the end) allocates nothing and unpacks
// no block. Either way every exception position of the block is checked,
// as a read does. Narrower types whose packed window runs past T's range
// wrap each slot as Read does, so the sum is always that of the values
// Read returns.
func (d *decoder[T]) SumRanges(from int, ends []int32, out []uint64) error {
	if len(out) < len(ends) {
		return fmt.Errorf("blockfor: %d sums into %d values", len(ends), len(out))
	}
	r := from
	if r < 0 || r > d.n {
		return fmt.Errorf("blockfor: sums from row %d of %d: %w", r, d.n, encoding.ErrCorrupt)
	}
	// Corrections of walked blocks go to out ahead of the range loop.
	out = out[:len(ends)]
	clear(out)
	b, bstart, bend := -1, 0, 0 // block of row r and its rows
	walked := -1                // block this call walked, whose corrections are in out
	for i, e32 := range ends {
		e := int(e32)
		if e < r || e > d.n {
			return fmt.Errorf("blockfor: sum of rows [%d, %d) of %d: %w", r, e, d.n, encoding.ErrCorrupt)
		}
		var s uint64
		for r < e {
			if r >= bend {
				b = r / d.bs
				bstart = b * d.bs
				bend = bstart + int(d.blocks[b].rows)
			}
			bl := &d.blocks[b]
			k := r - bstart
			m := min(bend, e) - r
			s += d.sumSlots(bl, k, m)
			if bl.nexc > 0 && b != walked {
				if d.sums.kept(b) || d.sums.walked == b {
					if err := d.loadSums(b); err != nil {
						return err
					}
					s += d.sums.add(k, m)
				} else {
					if err := d.walkExceptions(b, r, i, ends, out); err != nil {
						return err
					}
					walked, d.sums.walked = b, b
				}
			}
			r += m
		}
		out[i] += s
	}
	return nil
}

// sumSlots returns the sum of T(base + slot), widened, over slots
// [k, k+m) of block bl: m·base plus the slots summed in place where no
// slot can carry base past T's range (slotsExact), else the slots
// unpacked 64 at a time into a stack buffer and each wrapped.
func (d *decoder[T]) sumSlots(bl *block, k, m int) uint64 {
	slots, w := d.data[bl.data:bl.pos], int(bl.w)
	if d.slotsExact(bl) {
		return uint64(m)*bl.base + bitpack.Sum(slots, w, k, m)
	}
	var tmp [64]uint64
	var s uint64
	for m > 0 {
		c := min(m, len(tmp))
		bitpack.UnpackAdd(tmp[:c], slots, w, k, bl.base)
		for _, x := range tmp[:c] {
			s += wide(T(x))
		}
		k, m = k+c, m-c
	}
	return s
}

// walkExceptions adds the corrections of block b's exceptions at rows r
// and after to the sums in out of the ranges that hold them, range i (which
// r is in) and on, straight from the packed sections. Every position of
// the block is checked as exceptions checks it, with the same error. The
// ends past range i are checked by SumRanges as it reaches them (an error
// then voids out); here they only place corrections, and a correction
// past the last end is dropped.
func (d *decoder[T]) walkExceptions(b, r, i int, ends []int32, out []uint64) error {
	bl := &d.blocks[b]
	pw, ew, w := int(bl.pw), int(bl.ew), int(bl.w)
	pm, em, sm := lowMask(pw), lowMask(ew), lowMask(w)
	rows, bstart := uint64(bl.rows), b*d.bs
	// Each value is read with one 8-byte load at its byte when that stays
	// within the data (open checked that the sections do) and no width
	// passes 56 bits; else (the last exceptions of the data's last block,
	// wide values: lim 0) through bitpack.Get.
	data := unsafe.Pointer(unsafe.SliceData(d.data))
	lim := uint64(len(d.data))
	if pw > 56 || ew > 56 || w > 56 {
		lim = 0
	}
	load := func(bit, m uint64) uint64 {
		return binary.LittleEndian.Uint64((*[8]byte)(unsafe.Add(data, bit>>3))[:]) >> (bit & 7) & m
	}
	pbit, vbit, sbit := uint64(bl.pos)*8, uint64(bl.exc)*8, uint64(bl.data)*8
	prev := -1
	for j := range int(bl.nexc) {
		var p uint64
		if pbit>>3+8 <= lim {
			p = load(pbit, pm)
		} else {
			p = bitpack.Get(d.data[bl.pos:], pw, j)
		}
		pbit += uint64(pw)
		if int(p) <= prev || p >= rows {
			return d.badException(b, j, int(p), prev)
		}
		prev = int(p)
		at := bstart + int(p)
		if at < r {
			continue
		}
		for i < len(ends) && int(ends[i]) <= at {
			i++
		}
		if i == len(ends) {
			continue // past the ranges: checked only
		}
		var v, slot uint64
		if vb := vbit + uint64(j*ew); vb>>3+8 <= lim {
			v = load(vb, em)
		} else {
			v = bitpack.Get(d.data[bl.exc:], ew, j)
		}
		if sb := sbit + p*uint64(w); sb>>3+8 <= lim {
			slot = load(sb, sm)
		} else {
			slot = bitpack.Get(d.data[bl.data:], w, int(p))
		}
		out[i] += wide(T(bl.min+v)) - wide(T(bl.base+slot))
	}
	return nil
}

// add returns the corrections of the exceptions among slots [k, k+m) of
// the table's block. The positions are walked forward from where the last
// range ended when this one starts at or after it (as Delta's gathers
// walk a block), else from the first: every exception is passed once per
// forward walk.
func (e *excSums) add(k, m int) uint64 {
	j := 0
	if k >= e.end {
		j = e.next
	}
	for j < len(e.pos) && int(e.pos[j]) < k {
		j++
	}
	lo := j
	for j < len(e.pos) && int(e.pos[j]) < k+m {
		j++
	}
	e.end, e.next = k+m, j
	return e.upTo(j) - e.upTo(lo)
}

// kept reports whether block b's table is current or kept in the arena.
func (e *excSums) kept(b int) bool {
	return e.block == b || (e.at != nil && e.at[b] > 0)
}

// upTo returns the corrections of the first j exceptions.
func (e *excSums) upTo(j int) uint64 {
	if j == 0 {
		return 0
	}
	return e.cum[j-1]
}

// slotsExact reports whether base + slot, widened, is the widened value
// T(base + slot) for every slot value of block bl's width: always for
// 64-bit types, and for narrower ones when the widest slot cannot carry
// base past T's range. Exceptions do not matter: their corrections take
// out T(base + slot) as summed and put in T(min + exc).
func (d *decoder[T]) slotsExact(bl *block) bool {
	var z T
	if unsafe.Sizeof(z) == 8 {
		return true
	}
	top := bl.base + lowMask(int(bl.w))
	return wide(T(top)) == top && T(top) >= T(bl.base)
}

// loadSums makes block b's exception table current for SumRanges: a kept
// one, or one built now (and kept while the arena has room).
func (d *decoder[T]) loadSums(b int) error {
	e := &d.sums
	if e.block == b {
		return nil
	}
	bl := &d.blocks[b]
	ne := int(bl.nexc)
	e.block, e.end, e.next = -1, 0, 0
	if e.at == nil {
		e.at = make([]int32, len(d.blocks))
	}
	if i := int(e.at[b]) - 1; i >= 0 {
		e.pos, e.cum, e.block = e.apos[i:i+ne], e.acum[i:i+ne], b
		return nil
	}
	var pos []int32
	var cum []uint64
	keep := len(e.apos)+ne <= maxKeptExceptions
	if keep {
		if need := len(e.apos) + ne; need > cap(e.apos) {
			// The arena grows with the blocks summed, never past the
			// final size retainedBound counts: a lookup that sums one
			// block of a chunk does not clear a table for all of them.
			k := min(d.totalExc, maxKeptExceptions)
			c := min(k, max(need, 2*cap(e.apos), minArena))
			e.apos = append(make([]int32, 0, c), e.apos...)
			e.acum = append(make([]uint64, 0, c), e.acum...)
		}
		i := len(e.apos)
		e.apos = append(e.apos, make([]int32, ne)...)
		e.acum = append(e.acum, make([]uint64, ne)...)
		pos, cum = e.apos[i:i+ne], e.acum[i:i+ne]
	} else {
		if cap(e.spos) < ne {
			e.spos = make([]int32, min(d.bs, d.n))
			e.scum = make([]uint64, min(d.bs, d.n))
		}
		pos, cum = e.spos[:ne], e.scum[:ne]
	}
	// the positions are checked by exceptions, shared with reads and skips
	ps, vs, err := d.exceptions(b)
	if err != nil {
		if keep {
			e.apos, e.acum = e.apos[:len(e.apos)-ne], e.acum[:len(e.acum)-ne]
		}
		return err
	}
	slots, w := d.data[bl.data:bl.pos], int(bl.w)
	var c uint64
	for j, p64 := range ps {
		p := int(p64)
		pos[j] = int32(p)
		// as Read returns them: for narrower types both may wrap T (a
		// corrupt exception past the block's maximum, a window past T's
		// range); decodeAt adds the difference in T, where the widening
		// makes no difference
		c += wide(T(vs[j])) - wide(T(bl.base+bitpack.Get(slots, w, p)))
		cum[j] = c
	}
	if keep {
		e.at[b] = int32(len(e.apos) - ne + 1)
	}
	e.pos, e.cum, e.block = pos, cum, b
	return nil
}

// Filter tests the next n values block by block on the header bounds: a
// block that cannot match clears its rows without decoding, a block that
// matches entirely keeps them, and only the rest is decoded and compared.
func (d *decoder[T]) Filter(p *encoding.Pred[T], n int, sel encoding.Bitmap) error {
	if n < 0 || n > d.n-d.pos {
		return fmt.Errorf("blockfor: filter %d at %d of %d: %w", n, d.pos, d.n, encoding.ErrCorrupt)
	}
	if len(sel)*64 < n {
		return fmt.Errorf("blockfor: selection of %d words for %d rows", len(sel), n)
	}
	start := d.pos
	for o := 0; o < n; {
		r := start + o
		b := r / d.bs
		k := r - b*d.bs
		bl := &d.blocks[b]
		m := min(int(bl.rows)-k, n-o)
		lo, hi := T(bl.min), T(bl.max)
		switch {
		case !sel.AnyIn(o, o+m):
		case !p.MayMatchRange(lo, hi):
			sel.ClearRange(o, o+m)
			d.skipped++
		case p.AllMatchRange(lo, hi):
			d.skipped++
		default:
			if err := d.load(b); err != nil {
				return err
			}
			d.selIn, d.selOut = filterkern.FilterAt(d.cache[k:k+m], p, sel, o, d.selIn, d.selOut)
		}
		o += m
	}
	d.pos = start + n
	return nil
}

// Skipped implements encoding.SkipCounter.
func (d *decoder[T]) Skipped() int { return d.skipped }
