// Package frontcoding implements FrontCoding: each binary value is stored as
// the length of the prefix it shares with its predecessor and the suffix
// that follows, the idea of Parquet's DELTA_BYTE_ARRAY and of the string
// dictionaries of ORC. Sorted or clustered text (word lists, names sorted by
// code, sorted dictionary alphabets, hexadecimal codes) keeps only what
// changes from one value to the next.
//
// Body layout (docs/FORMAT.md, "FrontCoding (kind 15)"):
//
//	interval: uvarint | flags: u8 | prefixes node (uint32, rows) |
//	suffix lengths node (uint32, rows) | suffix bytes node (uint8)
//
// Every interval-th value (0, K, 2K, ...) is a restart: its prefix length is
// zero, so it is stored whole and a reader can start decoding there. Skip
// and Gather decode at most K-1 values before the one they need, and on
// sorted nodes (flag bit 0) the restart values are search keys: range,
// equality and prefix filters binary-search them and decode at most two
// blocks. The prefix and suffix lengths are ordinary child sequences chosen
// by the cascade; the suffix bytes are a Trivial uint8 leaf, which the zstd
// post-pass compresses when it pays.
package frontcoding

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"strata/encoding"
	"strata/encoding/internal/cascade"
)

// Codec registers FrontCoding. Its node nests children and is not
// compressed itself; the suffix bytes leaf is, where zstd pays (selection
// tries zstd on it in trials too, so FrontCoding is weighed against
// Trivial+zstd on the sizes both will have).
var Codec = &encoding.Codec{
	Kind:    encoding.KindFrontCoding,
	Types:   encoding.TypesOf(encoding.Binary),
	Open:    open,
	Decode:  encoding.Cost{PerString: 25.2}, // strata calibrate (docs/benchmarks.md)
	Encoder: encoder{},
}

// Interval is the restart interval writers use: every Interval-th value is
// stored whole. A restart costs the bytes of one shared prefix; at 64 that
// is about 1 % of the suffix bytes of typical sorted text, while a seek
// decodes 32 values on average.
const Interval = 64

// maxInterval bounds the interval a reader accepts.
const maxInterval = 1 << 16

// flagSorted marks a node whose values are non-decreasing in bytewise order.
const flagSorted = 1

// minSharedFraction is the share of the value bytes that neighbours must
// share for front coding to be tried: below it the prefix child costs about
// what the prefixes save, and Trivial (with zstd) or FSST is the better
// candidate.
const minSharedFraction = 0.125

type encoder struct{}

// Fit accepts binary sequences whose values share at least an eighth of
// their bytes with their predecessors.
func (encoder) Fit(st *encoding.Stats) bool {
	return st.Type == encoding.Binary && st.N >= 2 && st.TotalBytes > 0 &&
		float64(st.PrefixBytes) >= minSharedFraction*float64(st.TotalBytes)
}

// Estimate defers to a trial: the children's sizes depend on the cascade.
func (encoder) Estimate(*encoding.Stats) (int, bool) { return 0, false }

// Encode appends the body for vals, a Bytes or *Bytes.
func (encoder) Encode(dst []byte, vals any, st *encoding.Stats, ctx *encoding.Ctx) ([]byte, error) {
	b, ok := encoding.BinaryValues(vals)
	if !ok {
		return dst, fmt.Errorf("frontcoding: cannot encode %T", vals)
	}
	return appendBody(dst, b, Interval, st.Sorted, ctx)
}

func appendBody(dst []byte, b *encoding.Bytes, k int, sorted bool, ctx *encoding.Ctx) ([]byte, error) {
	n := b.Len()
	dst = binary.AppendUvarint(dst, uint64(k))
	var flags byte
	if sorted {
		flags |= flagSorted
	}
	dst = append(dst, flags)
	pre := make([]uint32, n)
	sl := make([]uint32, n)
	total := 0
	if n > 0 {
		total = int(b.Offsets[n] - b.Offsets[0])
	}
	suf := make([]byte, 0, total)
	var prev []byte
	for i := 0; i < n; i++ {
		v := b.Value(i)
		p := 0
		if i%k != 0 {
			p = encoding.CommonPrefix(prev, v)
		}
		pre[i], sl[i] = uint32(p), uint32(len(v)-p)
		suf = append(suf, v[p:]...)
		prev = v
	}
	var err error
	if dst, err = ctx.EncodeChild(dst, pre); err != nil {
		return dst, fmt.Errorf("prefixes: %w", err)
	}
	if dst, err = ctx.EncodeChild(dst, sl); err != nil {
		return dst, fmt.Errorf("suffix lengths: %w", err)
	}
	if dst, err = ctx.EncodeChildWith(dst, suf, encoding.KindTrivial); err != nil {
		return dst, fmt.Errorf("suffix bytes: %w", err)
	}
	return dst, nil
}

func open(h encoding.Header, opts *encoding.Options) (encoding.Decoder, error) {
	if h.Type != encoding.Binary {
		return nil, encoding.Unsupportedf("frontcoding: type %v", h.Type)
	}
	k, rest, err := encoding.Length(h.Body, maxInterval, "frontcoding interval")
	if err != nil {
		return nil, err
	}
	if k == 0 {
		return nil, encoding.Corruptf("frontcoding: interval 0")
	}
	if len(rest) < 1 {
		return nil, encoding.Corruptf("frontcoding: no flags byte")
	}
	flags := rest[0]
	if flags&^flagSorted != 0 {
		return nil, encoding.Unsupportedf("frontcoding: unknown flags %#x", flags)
	}
	var nodes [3][]byte
	rest = rest[1:]
	for i, what := range [3]string{"frontcoding prefixes", "frontcoding suffix lengths", "frontcoding suffix bytes"} {
		if nodes[i], rest, err = encoding.Child(rest, what); err != nil {
			return nil, err
		}
	}
	if len(rest) != 0 {
		return nil, encoding.Corruptf("frontcoding: %d trailing bytes", len(rest))
	}
	depth := h.Depth + 1
	suf, err := suffixBytes(nodes[2], depth, opts)
	if err != nil {
		return nil, err
	}
	pr, err := cascade.OpenFixed[uint32](nodes[0], depth, opts, h.Rows, "frontcoding prefixes")
	if err != nil {
		return nil, err
	}
	pre, err := cascade.ReadAll(pr, opts, "frontcoding prefixes")
	if err != nil {
		return nil, err
	}
	sr, err := cascade.OpenFixed[uint32](nodes[1], depth, opts, h.Rows, "frontcoding suffix lengths")
	if err != nil {
		return nil, err
	}
	soff, err := cascade.ReadOffsets(sr, h.Rows, len(suf), opts, "frontcoding suffix lengths")
	if err != nil {
		return nil, err
	}
	if int(soff[h.Rows]) != len(suf) {
		return nil, encoding.Corruptf("frontcoding: suffix lengths sum to %d, suffix bytes hold %d", soff[h.Rows], len(suf))
	}
	// Every prefix is at most its predecessor's length and restarts have
	// none, so a value's length never exceeds the suffix bytes before it
	// (no overflow) and every prefix copy stays within the previous value.
	prevLen := uint32(0)
	for i, p := range pre {
		if i%k == 0 {
			if p != 0 {
				return nil, encoding.Corruptf("frontcoding: restart value %d has a prefix of %d bytes", i, p)
			}
		} else if p > prevLen {
			return nil, encoding.Corruptf("frontcoding: value %d shares %d bytes with a value of %d", i, p, prevLen)
		}
		prevLen = p + uint32(soff[i+1]-soff[i])
	}
	d := &decoder{n: h.Rows, k: k, sorted: flags&flagSorted != 0, pre: pre, soff: soff, suf: suf,
		nodes: nodes, opts: opts, lastPos: -1}
	if d.sorted {
		for b := k; b < d.n; b += k {
			if bytes.Compare(d.suffix(b-k), d.suffix(b)) > 0 {
				return nil, encoding.Corruptf("frontcoding: sorted node's restart value %d below the one before", b)
			}
		}
	}
	return d, nil
}

// suffixBytes returns the decoded suffix bytes: a Trivial uint8 child (what
// writers emit) is used in place, any other uint8 node is decoded.
func suffixBytes(node []byte, depth int, opts *encoding.Options) ([]byte, error) {
	h, err := encoding.ParseHeader(node, depth, opts)
	if err != nil {
		return nil, fmt.Errorf("frontcoding suffix bytes: %w", err)
	}
	if h.Type != encoding.Uint8 {
		return nil, encoding.Corruptf("frontcoding suffix bytes: child holds %v, want uint8", h.Type)
	}
	if h.Kind == encoding.KindTrivial {
		if len(h.Body) != h.Rows {
			return nil, encoding.Corruptf("frontcoding suffix bytes: %d rows in %d bytes", h.Rows, len(h.Body))
		}
		return h.Body, nil
	}
	r, err := cascade.OpenFixed[uint8](node, depth, opts, -1, "frontcoding suffix bytes")
	if err != nil {
		return nil, err
	}
	return cascade.ReadAll(r, opts, "frontcoding suffix bytes")
}

// decoder reads a FrontCoding node. pre and soff (running suffix offsets)
// are decoded once at open; last holds the value at lastPos, from which a
// read continues without going back to a restart.
type decoder struct {
	n, pos, k int
	sorted    bool
	pre       []uint32
	soff      []int32
	suf       []byte
	nodes     [3][]byte
	opts      *encoding.Options
	last      []byte
	lastPos   int
	skipped   int
	scratch   encoding.Bytes
}

func (d *decoder) Kind() encoding.Kind { return encoding.KindFrontCoding }
func (d *decoder) Type() encoding.Type { return encoding.Binary }
func (d *decoder) Len() int            { return d.n }
func (d *decoder) Pos() int            { return d.pos }
func (d *decoder) Reset()              { d.pos = 0 }

// Skipped implements encoding.SkipCounter: blocks a sorted filter settled
// from the restart keys without decoding them.
func (d *decoder) Skipped() int { return d.skipped }

// Children implements encoding.Walker.
func (d *decoder) Children() []encoding.ChildNode {
	return []encoding.ChildNode{{Role: "prefixes", Node: d.nodes[0]},
		{Role: "suffix lengths", Node: d.nodes[1]}, {Role: "suffix bytes", Node: d.nodes[2]}}
}

// Skip advances the cursor; the values are rebuilt when next read.
func (d *decoder) Skip(n int) error {
	if err := cascade.CheckRead(encoding.KindFrontCoding, d.pos, n, d.n); err != nil {
		return err
	}
	d.pos += n
	return nil
}

func (d *decoder) suffix(i int) []byte { return d.suf[d.soff[i]:d.soff[i+1]] }

// seek makes last hold value t, continuing from the value it holds when that
// lies in t's block at or before t, else from t's restart.
func (d *decoder) seek(t int) {
	r := t - t%d.k
	from := d.lastPos
	if from < r || from > t {
		d.last = append(d.last[:0], d.suffix(r)...)
		from = r
	}
	for j := from + 1; j <= t; j++ {
		d.last = append(d.last[:d.pre[j]], d.suffix(j)...)
	}
	d.lastPos = t
}

// ReadBinary appends the next n values to dst.
func (d *decoder) ReadBinary(dst *encoding.Bytes, n int) error {
	if err := cascade.CheckRead(encoding.KindFrontCoding, d.pos, n, d.n); err != nil {
		return err
	}
	if n == 0 {
		if len(dst.Offsets) == 0 {
			dst.Offsets = append(dst.Offsets, int32(len(dst.Data)))
		}
		return nil
	}
	if err := d.appendRange(dst, d.pos, d.pos+n); err != nil {
		return err
	}
	d.pos += n
	return nil
}

// appendRange decodes values [i, j) onto dst and leaves value j-1 in last.
func (d *decoder) appendRange(dst *encoding.Bytes, i, j int) error {
	if i%d.k != 0 && d.lastPos != i-1 {
		d.seek(i - 1)
	}
	// The exact output size, from the lengths alone.
	size := uint64(0)
	for v := i; v < j; v++ {
		size += uint64(d.pre[v]) + uint64(d.soff[v+1]-d.soff[v])
	}
	w := len(dst.Data)
	if limit := cascade.OutLimit(d.opts); uint64(w)+size > uint64(limit) {
		return encoding.Limitf("frontcoding: binary values need more than %d bytes", limit)
	}
	if len(dst.Offsets) == 0 {
		dst.Offsets = append(dst.Offsets, int32(w))
	}
	// slack lets short copies move 16 bytes at a time past their end.
	data := cascade.Extend(dst.Data, int(size)+slack)
	offs := cascade.Extend(dst.Offsets, j-i)
	no := len(dst.Offsets)
	pre, soff, suf := d.pre, d.soff, d.suf
	// The first value copies its prefix from last (the value before i);
	// later ones from the value just written.
	v := i
	ps := w
	if v < j {
		p := int(pre[v])
		copy(data[w:w+p], d.last[:p])
		s := suf[soff[v]:soff[v+1]]
		copy(data[w+p:], s)
		w += p + len(s)
		offs[no] = int32(w)
		v++
	}
	end := len(data) - slack
	for ; v < j; v++ {
		p := int(pre[v])
		so, se := int(soff[v]), int(soff[v+1])
		// Both pieces of most values are at most 16 bytes: move them as
		// two 8-byte words (loaded before they are stored, since the
		// prefix source may run into the destination), writing past the
		// value's end into space the next value or the slack overwrites.
		if p <= 16 && se-so <= 16 && se+16 <= len(suf) {
			a := binary.LittleEndian.Uint64(data[ps:])
			b := binary.LittleEndian.Uint64(data[ps+8:])
			binary.LittleEndian.PutUint64(data[w:], a)
			binary.LittleEndian.PutUint64(data[w+8:], b)
			a = binary.LittleEndian.Uint64(suf[so:])
			b = binary.LittleEndian.Uint64(suf[so+8:])
			binary.LittleEndian.PutUint64(data[w+p:], a)
			binary.LittleEndian.PutUint64(data[w+p+8:], b)
		} else {
			copy(data[w:w+p], data[ps:ps+p])
			copy(data[w+p:end], suf[so:se])
		}
		ps = w
		w += p + se - so
		offs[no+v-i] = int32(w)
	}
	dst.Data = data[:w]
	dst.Offsets = offs[:no+j-i]
	d.last = append(d.last[:0], data[ps:w]...)
	d.lastPos = j - 1
	return nil
}

// slack is the space past the decoded values that the 16-byte copies of
// appendRange may write.
const slack = 32

// grow returns b with room for n more bytes, its length the capacity it
// will be written up to.

// GatherBinary appends the values at rows (strictly increasing) to dst;
// each costs at most the values back to its restart.
func (d *decoder) GatherBinary(rows []int32, dst *encoding.Bytes) error {
	if err := cascade.CheckGather(encoding.KindFrontCoding, rows, len(rows), d.n); err != nil {
		return err
	}
	limit := cascade.OutLimit(d.opts)
	for _, r := range rows {
		d.seek(int(r))
		if len(dst.Data)+len(d.last) > limit {
			return encoding.Limitf("frontcoding: binary values need more than %d bytes", limit)
		}
		dst.Append(d.last)
	}
	return nil
}

// BinaryBounds reports the first and last values of a sorted node; an
// unsorted node's bounds would need a full decode.
func (d *decoder) BinaryBounds() (min, max []byte, ok bool) {
	if !d.sorted || d.n == 0 {
		return nil, nil, false
	}
	min = bytes.Clone(d.suffix(0))
	d.seek(d.n - 1)
	return min, bytes.Clone(d.last), true
}

// FilterBinary tests the next n values. On a sorted node every predicate
// but != on a value present is one or a few row intervals, found by binary
// search over the restart keys; otherwise values are decoded block by block
// (blocks whose rows are all deselected are skipped) and matched.
func (d *decoder) FilterBinary(p *encoding.BytesPred, n int, sel encoding.Bitmap) error {
	if err := cascade.CheckRead(encoding.KindFrontCoding, d.pos, n, d.n); err != nil {
		return err
	}
	if n == 0 {
		return nil
	}
	if d.sorted {
		if ranges, ok := d.matchRanges(p); ok {
			d.applyRanges(ranges, n, sel)
			d.pos += n
			return nil
		}
	}
	for off := 0; off < n; {
		k := min(n-off, cascade.Batch)
		if !sel.AnyIn(off, off+k) {
			d.pos += k
			off += k
			continue
		}
		d.scratch.Reset()
		if err := d.appendRange(&d.scratch, d.pos, d.pos+k); err != nil {
			return err
		}
		for j := 0; j < k; j++ {
			if sel[(off+j)>>6]&(1<<((off+j)&63)) != 0 && !p.Match(d.scratch.Value(j)) {
				sel.Clear(off + j)
			}
		}
		d.pos += k
		off += k
	}
	return nil
}

// applyRanges clears the rows of [pos, pos+n) outside every range (ranges
// are sorted, disjoint, in node rows) and counts the blocks settled.
func (d *decoder) applyRanges(ranges [][2]int, n int, sel encoding.Bitmap) {
	lo, hi := d.pos, d.pos+n
	at := lo
	kept := 0
	for _, r := range ranges {
		a, b := max(r[0], lo, at), min(r[1], hi)
		if a >= b {
			continue
		}
		cascade.ClearRange(sel, at-lo, a-lo)
		kept += b - a
		at = b
	}
	cascade.ClearRange(sel, at-lo, n)
	d.skipped += (n - kept) / d.k
}

// matchRanges returns the row intervals of a sorted node that match p.
func (d *decoder) matchRanges(p *encoding.BytesPred) ([][2]int, bool) {
	switch p.Op {
	case encoding.OpEq:
		return [][2]int{{d.lower(p.A, false), d.lower(p.A, true)}}, true
	case encoding.OpNe:
		return [][2]int{{0, d.lower(p.A, false)}, {d.lower(p.A, true), d.n}}, true
	case encoding.OpLt:
		return [][2]int{{0, d.lower(p.A, false)}}, true
	case encoding.OpLe:
		return [][2]int{{0, d.lower(p.A, true)}}, true
	case encoding.OpGt:
		return [][2]int{{d.lower(p.A, true), d.n}}, true
	case encoding.OpGe:
		return [][2]int{{d.lower(p.A, false), d.n}}, true
	case encoding.OpBetween:
		a, b := d.lower(p.A, false), d.lower(p.B, true)
		return [][2]int{{a, max(a, b)}}, true
	case encoding.OpIn:
		out := make([][2]int, 0, len(p.Set))
		for _, v := range p.Set {
			out = append(out, [2]int{d.lower(v, false), d.lower(v, true)})
		}
		return out, true
	case encoding.OpPrefix:
		a := d.lower(p.A, false)
		if succ := successor(p.A); succ != nil {
			return [][2]int{{a, max(a, d.lower(succ, false))}}, true
		}
		return [][2]int{{a, d.n}}, true
	}
	return nil, false
}

// successor returns the smallest byte string above every string with
// prefix a, or nil when there is none (a is empty or all 0xff).
func successor(a []byte) []byte {
	for i := len(a) - 1; i >= 0; i-- {
		if a[i] != 0xff {
			s := bytes.Clone(a[:i+1])
			s[i]++
			return s
		}
	}
	return nil
}

// lower returns the first row whose value is ≥ key (> key when strict):
// a binary search over the restart keys, then a scan of one block.
func (d *decoder) lower(key []byte, strict bool) int {
	above := func(v []byte) bool {
		c := bytes.Compare(v, key)
		return c > 0 || (c == 0 && !strict)
	}
	blocks := (d.n + d.k - 1) / d.k
	lo, hi := 0, blocks // first block whose restart key is above key
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if above(d.suffix(m * d.k)) {
			hi = m
		} else {
			lo = m + 1
		}
	}
	if lo == 0 {
		return 0
	}
	start := (lo - 1) * d.k
	end := min(start+d.k, d.n)
	d.seek(start)
	for v := start + 1; v < end; v++ {
		if above(d.last) {
			return v - 1
		}
		d.seek(v)
	}
	if above(d.last) {
		return end - 1
	}
	return end
}
