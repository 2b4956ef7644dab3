// Package fsst implements FSST (Fast Static Symbol Table) string
// compression for binary values (Boncz, Neumann, Leis, VLDB 2020): a
// static table of up to 255 symbols of 1–8 bytes, each value stored as a
// string of one-byte codes. Code c < 255 stands for symbol c; code 255 is
// an escape followed by one literal byte. Decoding is one unaligned 8-byte
// store of the symbol per code and an advance by its length, which makes
// FSST several times faster to read than zstd at a somewhat larger size.
//
// Body layout (docs/FORMAT.md, "FSST (kind 12)"):
//
//	counts: 8 × u8 | symbols | rawLen: uvarint | codeLensLen: uvarint |
//	code lengths node (uint32, rows rows) | codes
//
// counts[l-1] is the number of symbols of length l; the symbols follow
// ordered by length (all 1-byte symbols, then all 2-byte ones, ...), and a
// symbol's code is its index in that order. rawLen is the total number of
// decoded bytes. Value i is the decoding of its code lengths[i] codes,
// which follow those of value i-1; an escape and its literal belong to the
// same value.
package fsst

import (
	"encoding/binary"
	"math"
	"math/bits"
	"sync"
	"unsafe"

	"strata/encoding"
	"strata/encoding/internal/cascade"
)

// Codec registers FSST. It nests a code lengths child, so it is not a leaf;
// selection offers it only for a column's own values (a root, or the
// values of a Nullable root) and never zstd-compresses it: where zstd
// would store text smaller, FSST is kept only when it decodes enough faster
// (encoding.Optimize).
var Codec = &encoding.Codec{
	Kind:     encoding.KindFSST,
	Types:    encoding.TypesOf(encoding.Binary),
	Open:     open,
	Decode:   encoding.Cost{PerString: 5.78, PerByte: 0.358}, // strata calibrate (docs/benchmarks.md)
	Encoder:  encoder{},
	RootOnly: true,
}

const (
	// escape is the code followed by one literal byte.
	escape = 255
	// maxSymbols is the most symbols a table holds (codes 0..254).
	maxSymbols = 255
	// maxSymbolLen is the longest symbol.
	maxSymbolLen = 8
)

// table is a parsed symbol table in decode form: sym[c] holds symbol c's
// bytes little-endian in a uint64 (zero past its length) and lens[c] its
// length. Codes at or above the symbol count n, and the escape, have
// length 0, so decoding one writes nothing; the kernel finds invalid codes
// 8 at a time (see overN).
type table struct {
	sym  [256]uint64
	lens [256]uint8
	n    int
	// add and hiSet test 8 codes at once for a code ≥ n (see overN).
	add   uint64
	hiSet bool
}

const (
	lo7 = 0x7f7f7f7f7f7f7f7f
	hi1 = 0x8080808080808080
)

// overN returns a non-zero value when some byte of x (8 codes, none of
// them an escape) is a code ≥ t.n. With thr = n mod 128 (128 when n =
// 128), a byte's low 7 bits plus 128−thr carry into its top bit exactly
// when they are ≥ thr, and never into the next byte. For n ≤ 128 a code is
// invalid when its top bit is set or its low bits are ≥ n; for n > 128
// when both its top bit is set and its low bits are ≥ n−128.
func (t *table) overN(x uint64) uint64 {
	u := ((x & lo7) + t.add) & hi1
	if t.hiSet {
		return u & x
	}
	return (u | x) & hi1
}

// parseTable reads the counts and symbols from the front of body.
func parseTable(body []byte) (*table, []byte, error) {
	if len(body) < maxSymbolLen {
		return nil, body, encoding.Corruptf("fsst: symbol table: %d bytes, need 8 counts", len(body))
	}
	counts := body[:maxSymbolLen]
	rest := body[maxSymbolLen:]
	total, bytes := 0, 0
	for l, c := range counts {
		total += int(c)
		bytes += int(c) * (l + 1)
	}
	if total > maxSymbols {
		return nil, body, encoding.Corruptf("fsst: symbol table of %d symbols, at most %d", total, maxSymbols)
	}
	if bytes > len(rest) {
		return nil, body, encoding.Corruptf("fsst: symbol table needs %d bytes, %d remain", bytes, len(rest))
	}
	t := &table{n: total}
	thr := total
	if total > 128 {
		thr, t.hiSet = total-128, true
	}
	t.add = uint64(128-thr) * 0x0101010101010101
	code, off := 0, 0
	for l, c := range counts {
		n := l + 1
		for j := 0; j < int(c); j++ {
			var v uint64
			for k := n - 1; k >= 0; k-- {
				v = v<<8 | uint64(rest[off+k])
			}
			t.sym[code], t.lens[code] = v, uint8(n)
			code++
			off += n
		}
	}
	return t, rest[off:], nil
}

func open(h encoding.Header, opts *encoding.Options) (encoding.Decoder, error) {
	if h.Type != encoding.Binary {
		return nil, encoding.Unsupportedf("fsst: type %v", h.Type)
	}
	t, rest, err := parseTable(h.Body)
	if err != nil {
		return nil, err
	}
	return openCodes(h, t, rest, opts, encoding.KindFSST)
}

// openCodes opens the part of a node after its symbol table (rawLen, code
// lengths, codes), decoding with t; kind is the node's kind (FSST, or
// SharedFSST for a reference to a stripe's table).
func openCodes(h encoding.Header, t *table, rest []byte, opts *encoding.Options, kind encoding.Kind) (encoding.Decoder, error) {
	raw, rest, err := encoding.Uvarint(rest, "fsst raw length")
	if err != nil {
		return nil, err
	}
	child, codes, err := encoding.Child(rest, "fsst code lengths")
	if err != nil {
		return nil, err
	}
	// Every code yields at most 8 bytes (an escape pair yields 1), so a
	// larger total is impossible; a smaller one is caught when a read
	// covers the whole node.
	if raw > uint64(len(codes))*maxSymbolLen {
		return nil, encoding.Corruptf("fsst: %d raw bytes declared for %d code bytes", raw, len(codes))
	}
	if lim := cascade.OutLimit(opts); raw > uint64(lim) {
		return nil, encoding.Limitf("fsst: %d decoded bytes, limit %d", raw, lim)
	}
	if len(codes) > math.MaxInt32 {
		return nil, encoding.Limitf("fsst: %d code bytes", len(codes))
	}
	lr, err := cascade.OpenFixed[uint32](child, h.Depth+1, opts, h.Rows, "fsst code lengths")
	if err != nil {
		return nil, err
	}
	// The code offsets, and the checks over every value that come with
	// them, wait for the first read that needs them (offsets): a lookup of
	// a few values sums only the code lengths (gatherFew).
	return &decoder{kind: kind, t: t, n: h.Rows, raw: int(raw), codes: codes, lens: lr, child: child, opts: opts}, nil
}

// offsets builds the code offsets of every value on first use, with the
// checks that cover the whole node: the code lengths add up to the code
// bytes, and no value ends with a dangling escape. Every read but a
// lookup of a few values goes through it before it returns a value.
func (d *decoder) offsets() error {
	if d.coff != nil {
		return nil
	}
	if d.bad != nil {
		return d.bad
	}
	d.lens.Reset()
	coff, err := cascade.ReadOffsets(d.lens, d.n, len(d.codes), d.opts, "fsst code lengths")
	if err == nil {
		err = d.checkTotal(uint64(coff[d.n]))
	}
	for i := 0; err == nil && i < d.n; i++ {
		if danglingEscape(d.codes, coff[i], coff[i+1]) {
			err = encoding.Corruptf("fsst: value %d ends with an escape", i)
		}
	}
	if err != nil {
		d.bad = err
		return err
	}
	d.coff = coff
	return nil
}

// checkTotal refuses code lengths that do not add up to the code bytes.
func (d *decoder) checkTotal(total uint64) error {
	if total != uint64(len(d.codes)) {
		return encoding.Corruptf("fsst: code lengths sum to %d, body holds %d code bytes", total, len(d.codes))
	}
	return nil
}

// danglingEscape reports whether the value of codes[start:end] ends with
// an escape that has no literal. Its codes end in a run of 0xff bytes that
// starts at a code boundary (after a code, or a literal that is not 0xff),
// so the run is escape and literal pairs exactly when its length is even.
func danglingEscape(codes []byte, start, end int32) bool {
	if end <= start || codes[end-1] != escape {
		return false
	}
	run := int32(1)
	for run < end-start && codes[end-1-run] == escape {
		run++
	}
	return run%2 == 1
}

// decoder reads an FSST node. coff holds the prefix sums of the code
// lengths (value i's codes are codes[coff[i]:coff[i+1]]), computed on the
// first read that needs them (offsets), so Skip is O(1) and a gather
// decodes only its rows; a lookup of a few rows does without them while
// its code lengths child can sum ranges (gatherFew).
type decoder struct {
	kind   encoding.Kind
	t      *table
	n, pos int
	raw    int
	codes  []byte
	coff   []int32
	lens   encoding.Reader[uint32] // the code lengths child
	bad    error                   // what offsets found wrong, returned again
	// totalOK: the code lengths were found to add up to the code bytes
	// (by gatherFew); fewSummed counts the lengths gatherFew has summed,
	// which past a few times n builds the offsets instead.
	totalOK   bool
	fewSummed int
	ends      []int32  // gatherFew's scratch
	sums      []uint64 // and
	spans     []int32
	child     []byte
	opts      *encoding.Options
	buf       []byte // FilterBinary scratch
	// FilterBinary operands with 8 bytes of padding
	padA, padB []byte
}

func (d *decoder) Kind() encoding.Kind { return d.kind }
func (d *decoder) Type() encoding.Type { return encoding.Binary }
func (d *decoder) Len() int            { return d.n }
func (d *decoder) Pos() int            { return d.pos }
func (d *decoder) Reset()              { d.pos = 0 }

// Children implements encoding.Walker.
func (d *decoder) Children() []encoding.ChildNode {
	return []encoding.ChildNode{{Role: "lengths", Node: d.child}}
}

// Skip advances the cursor; code offsets make it free.
func (d *decoder) Skip(n int) error {
	if err := cascade.CheckRead(encoding.KindFSST, d.pos, n, d.n); err != nil {
		return err
	}
	d.pos += n
	return nil
}

// estimate guesses the decoded size of the values whose code offsets are
// co from their share of the code bytes; it only sizes buffers (decoding
// checks capacity itself).
func (d *decoder) estimate(co []int32) int {
	if len(co) == d.n+1 {
		return d.raw // every value
	}
	if len(d.codes) == 0 {
		return 0
	}
	c := int(co[len(co)-1] - co[0])
	return int(uint64(c) * uint64(d.raw) / uint64(len(d.codes)))
}

// ReadBinary appends the next n values to dst.
func (d *decoder) ReadBinary(dst *encoding.Bytes, n int) error {
	if err := cascade.CheckRead(encoding.KindFSST, d.pos, n, d.n); err != nil {
		return err
	}
	if err := d.offsets(); err != nil {
		return err
	}
	start := len(dst.Data)
	if err := d.appendRange(dst, d.coff[d.pos:d.pos+n+1], d.pos); err != nil {
		return err
	}
	if d.pos == 0 && n == d.n && len(dst.Data)-start != d.raw {
		return encoding.Corruptf("fsst: values decode to %d bytes, header says %d", len(dst.Data)-start, d.raw)
	}
	d.pos += n
	return nil
}

// appendRange decodes onto dst the len(co)-1 values from value first on,
// whose code offsets are co (value first+k's codes are
// codes[co[k]:co[k+1]]); no value among them ends with a dangling escape.
func (d *decoder) appendRange(dst *encoding.Bytes, co []int32, first int) error {
	j := len(co) - 1
	if len(dst.Offsets) == 0 {
		dst.Offsets = append(dst.Offsets, int32(len(dst.Data)))
	}
	dst.Offsets = cascade.Reserve(dst.Offsets, j)
	no := len(dst.Offsets)
	offs := dst.Offsets[no : no+j]
	limit := cascade.OutLimit(d.opts)
	w := len(dst.Data)
	est := d.estimate(co)
	if w+est > limit {
		return encoding.Limitf("fsst: binary values need more than %d bytes", limit)
	}
	out := cascade.Reserve(dst.Data, est)
	out = out[:cap(out)]
	codes := d.codes
	wp := wposPool.Get().(*[]int32)
	defer wposPool.Put(wp)
	wpos := *wp
	defer func() { *wp = wpos[:0] }()
	for a := 0; a < j; {
		ka := int(co[a])
		// The kernel may touch 8 bytes a code (and blockSlack more), so a
		// piece takes at most pieceCodes codes and no more than the space
		// left in out allows.
		room := -1
		if free := len(out) - w - blockSlack; free >= 0 {
			room = min(pieceCodes, free/maxSymbolLen)
		}
		if int(co[a+1])-ka > room {
			// Value a does not fit its worst case: decode it into scratch
			// and append only its bytes, growing out if they need it (the
			// estimate was short, or this is the end of a tight buffer).
			cs := codes[ka:co[a+1]]
			if need := bound(len(cs)); len(d.buf) < need {
				d.buf = make([]byte, max(need, 256))
			}
			vw, ok := decodeSlow(d.buf, 0, cs, d.t)
			if !ok {
				if err := d.check(first+a, cs); err != nil {
					return err
				}
				return encoding.Corruptf("fsst: value %d does not decode", first+a)
			}
			if w+vw > limit {
				return encoding.Limitf("fsst: binary values need more than %d bytes", limit)
			}
			if len(out)-w < vw {
				nb := make([]byte, max(w+vw+blockSlack, 2*len(out)))
				copy(nb, out[:w])
				out = nb
			}
			w += copy(out[w:], d.buf[:vw])
			offs[a] = int32(w)
			a++
			continue
		}
		// b: the last value end in (a, j] within room codes of ka, by
		// binary search; at least a+1.
		lo, hi := a+1, j
		for lo < hi {
			m := int(uint(lo+hi+1) >> 1)
			if int(co[m])-ka <= room {
				lo = m
			} else {
				hi = m - 1
			}
		}
		b := lo
		kb := int(co[b])
		if cap(wpos) < kb-ka+9 {
			wpos = make([]int32, kb-ka+9)
		}
		wpos = wpos[:kb-ka+9]
		wpos[0] = int32(w)
		var ok bool
		w, ok = decodeStream(out, w, codes[ka:kb], wpos[1:], d.t)
		if !ok {
			for v := a; v < b; v++ {
				if err := d.check(first+v, codes[co[v]:co[v+1]]); err != nil {
					return err
				}
			}
			return encoding.Corruptf("fsst: values %d..%d do not decode", first+a, first+b-1)
		}
		// wpos[e] is the output end after the piece's first e codes.
		for v := a; v < b; v++ {
			offs[v] = wpos[int(co[v+1])-ka]
		}
		if w > limit {
			return encoding.Limitf("fsst: binary values need more than %d bytes", limit)
		}
		a = b
	}
	dst.Data = out[:w]
	dst.Offsets = dst.Offsets[:no+j]
	return nil
}

// check names what is wrong with value v, whose codes are cs, if anything.
func (d *decoder) check(v int, cs []byte) error {
	for k := 0; k < len(cs); k++ {
		c := cs[k]
		if c == escape {
			if k+1 == len(cs) {
				return encoding.Corruptf("fsst: value %d ends with an escape", v)
			}
			k++
			continue
		}
		if int(c) >= d.t.n {
			return encoding.Corruptf("fsst: value %d: code %d beyond %d symbols", v, c, d.t.n)
		}
	}
	return nil
}

// wposPool holds decodeStream's position scratch (pieceCodes+9 entries, or
// more for a single long value), shared by all decoders.
var wposPool = sync.Pool{New: func() any { s := make([]int32, 0, pieceCodes+9); return &s }}

// pieceCodes bounds the codes decoded in one kernel call, so the output
// space reserved for the worst case (8 bytes a code) stays small.
const pieceCodes = 4096

// blockSlack is the output space past 8 bytes a code that the kernel may
// touch (it writes whole 8-byte words).
const blockSlack = 64

// bound is the most output space decoding c codes may touch.
func bound(c int) int { return c*maxSymbolLen + blockSlack }

// hasEscape reports whether any byte of x is 0xff.
func hasEscape(x uint64) bool {
	y := ^x
	return (y-0x0101010101010101)&^y&0x8080808080808080 != 0
}

// decodeStream decodes codes, the codes of whole values, into out at w and
// returns the new end. wpos[k] receives the output end after code k (for
// an escape, after its literal), from which the caller reads each value's
// end; it must hold len(codes)+8 entries. ok is false when a code lies
// beyond the table or the codes end with an escape. The caller guarantees
// len(out) ≥ w + bound(len(codes)).
//
// Codes are taken 8 at a time as one uint64: with no escape among them,
// each is one 8-byte store of its symbol and an advance by its length, with
// no branch. Values are not boundaries: open checked that none ends with a
// dangling escape, so an escape and its literal never straddle two values.
func decodeStream(out []byte, w int, codes []byte, wpos []int32, t *table) (int, bool) {
	_ = out[w+bound(len(codes))-1]
	base := unsafe.Pointer(unsafe.SliceData(out))
	sym, lens := &t.sym, &t.lens
	var bad uint64
	k := 0
	for k+8 <= len(codes) {
		x := binary.LittleEndian.Uint64(codes[k : k+8])
		if hasEscape(x) {
			// one code at a time through the escape
			c := codes[k]
			if c == escape {
				*(*byte)(unsafe.Add(base, w)) = codes[k+1]
				w++
				wpos[k], wpos[k+1] = int32(w), int32(w)
				k += 2
				continue
			}
			l := lens[c]
			*(*uint64)(unsafe.Add(base, w)) = sym[c]
			w += int(l)
			bad |= uint64(l) - 1
			wpos[k] = int32(w)
			k++
			continue
		}
		bad |= t.overN(x)
		wp := wpos[k : k+8 : k+8]
		c := uint8(x)
		l := lens[c]
		*(*uint64)(unsafe.Add(base, w)) = sym[c]
		w += int(l)
		wp[0] = int32(w)
		c = uint8(x >> 8)
		l = lens[c]
		*(*uint64)(unsafe.Add(base, w)) = sym[c]
		w += int(l)
		wp[1] = int32(w)
		c = uint8(x >> 16)
		l = lens[c]
		*(*uint64)(unsafe.Add(base, w)) = sym[c]
		w += int(l)
		wp[2] = int32(w)
		c = uint8(x >> 24)
		l = lens[c]
		*(*uint64)(unsafe.Add(base, w)) = sym[c]
		w += int(l)
		wp[3] = int32(w)
		c = uint8(x >> 32)
		l = lens[c]
		*(*uint64)(unsafe.Add(base, w)) = sym[c]
		w += int(l)
		wp[4] = int32(w)
		c = uint8(x >> 40)
		l = lens[c]
		*(*uint64)(unsafe.Add(base, w)) = sym[c]
		w += int(l)
		wp[5] = int32(w)
		c = uint8(x >> 48)
		l = lens[c]
		*(*uint64)(unsafe.Add(base, w)) = sym[c]
		w += int(l)
		wp[6] = int32(w)
		c = uint8(x >> 56)
		l = lens[c]
		*(*uint64)(unsafe.Add(base, w)) = sym[c]
		w += int(l)
		wp[7] = int32(w)
		k += 8
	}
	for ; k < len(codes); k++ {
		c := codes[k]
		if c == escape {
			if k+1 == len(codes) {
				return w, false
			}
			*(*byte)(unsafe.Add(base, w)) = codes[k+1]
			w++
			wpos[k], wpos[k+1] = int32(w), int32(w)
			k++
			continue
		}
		l := lens[c]
		*(*uint64)(unsafe.Add(base, w)) = sym[c]
		w += int(l)
		bad |= uint64(l) - 1 // all ones for an invalid code (length 0)
		wpos[k] = int32(w)
	}
	return w, bad&hi1 == 0
}

// decodeSlow decodes the codes cs of one value one at a time into out at w
// and returns the new end; ok is false for a code beyond the table or a
// trailing escape. The caller guarantees len(out) ≥ w + bound(len(cs)).
func decodeSlow(out []byte, w int, cs []byte, t *table) (int, bool) {
	_ = out[w+bound(len(cs))-1]
	base := unsafe.Pointer(unsafe.SliceData(out))
	for k := 0; k < len(cs); k++ {
		c := cs[k]
		if c == escape {
			if k+1 == len(cs) {
				return w, false
			}
			k++
			*(*byte)(unsafe.Add(base, w)) = cs[k]
			w++
			continue
		}
		l := t.lens[c]
		if l == 0 {
			return w, false
		}
		*(*uint64)(unsafe.Add(base, w)) = t.sym[c]
		w += int(l)
	}
	return w, true
}

// GatherBinary appends the values at rows (strictly increasing) to dst
// without moving the cursor.
func (d *decoder) GatherBinary(rows []int32, dst *encoding.Bytes) error {
	if err := cascade.CheckGather(encoding.KindFSST, rows, len(rows), d.n); err != nil {
		return err
	}
	if d.coff == nil && d.bad == nil && len(rows) <= fewRows && d.fewSummed <= fewBudget*d.n {
		if ok, err := d.gatherFew(rows, dst); ok || err != nil {
			return err
		}
	}
	if err := d.offsets(); err != nil {
		return err
	}
	for _, r := range rows {
		if err := d.appendRange(dst, d.coff[r:r+2], int(r)); err != nil {
			return err
		}
	}
	return nil
}

// fewRows is the most rows gatherFew looks up; fewBudget times the node's
// rows bounds the code lengths it sums over a decoder's life, past which
// building the offsets once (offsets) is cheaper than summing again.
const (
	fewRows   = 16
	fewBudget = 4
)

// gatherFew is GatherBinary for a few rows before the offsets are built:
// each row's codes are found by summing the code lengths before it in the
// lengths child (cascade.Spans), nothing decoded into memory. The checks
// offsets makes over every value are made for what the lookup returns: the
// first lookup sums all the lengths and refuses the node unless they add
// up to the code bytes, and no returned value may end with a dangling
// escape. ok is false when the lengths child cannot sum ranges.
func (d *decoder) gatherFew(rows []int32, dst *encoding.Bytes) (bool, error) {
	d.spans = cascade.Grow(d.spans, 2*len(rows))
	total, ok, err := cascade.Spans(d.lens, d.n, rows, len(d.codes), !d.totalOK, &d.ends, &d.sums, d.spans, "fsst code lengths")
	if !ok || err != nil {
		return ok, err
	}
	if !d.totalOK {
		if err := d.checkTotal(total); err != nil {
			return true, err
		}
		d.totalOK = true
		d.fewSummed += d.n
	} else if len(rows) > 0 {
		// (a gather of no rows is legal: a Nullable parent makes one
		// when every row it looks up is null)
		d.fewSummed += int(rows[len(rows)-1]) + 1
	}
	for k, r := range rows {
		co := d.spans[2*k : 2*k+2]
		if danglingEscape(d.codes, co[0], co[1]) {
			return true, encoding.Corruptf("fsst: value %d ends with an escape", r)
		}
		if err := d.appendRange(dst, co, int(r)); err != nil {
			return true, err
		}
	}
	return true, nil
}

// FilterBinary tests the selected values among the next n; deselected
// values are not touched. Comparisons (=, !=, <, <=, >, >=, BETWEEN) and
// PREFIX run on the codes: a value's symbols are compared with the operand
// 8 bytes at a time and the test stops at the first differing byte, so a
// value is decoded only as far as its first difference (usually its first
// symbol). This holds for any valid encoding of the value, greedy or not.
// IN decodes each value and tests it.
func (d *decoder) FilterBinary(p *encoding.BytesPred, n int, sel encoding.Bitmap) error {
	if err := cascade.CheckRead(encoding.KindFSST, d.pos, n, d.n); err != nil {
		return err
	}
	if err := d.offsets(); err != nil {
		return err
	}
	coff := d.coff[d.pos : d.pos+n+1]
	a := padded(&d.padA, p.A)
	b := padded(&d.padB, p.B)
	// keep[1+sign] tells whether a value comparing below (0), equal to (1)
	// or above (2) the operand matches.
	var keep [3]bool
	prefix, between, decode := false, false, false
	switch p.Op {
	case encoding.OpEq:
		keep = [3]bool{false, true, false}
	case encoding.OpNe:
		keep = [3]bool{true, false, true}
	case encoding.OpLt:
		keep = [3]bool{true, false, false}
	case encoding.OpLe:
		keep = [3]bool{true, true, false}
	case encoding.OpGt:
		keep = [3]bool{false, false, true}
	case encoding.OpGe:
		keep = [3]bool{false, true, true}
	case encoding.OpPrefix:
		keep, prefix = [3]bool{false, true, false}, true
	case encoding.OpBetween:
		between = true
	default:
		decode = true
	}
	for i := 0; i < n; i++ {
		if sel[i>>6]&(1<<(i&63)) == 0 {
			continue
		}
		cs := d.codes[coff[i]:coff[i+1]]
		var match, ok bool
		switch {
		case decode:
			need := bound(len(cs))
			if len(d.buf) < need {
				d.buf = make([]byte, max(need, 256))
			}
			var w int
			w, ok = decodeSlow(d.buf, 0, cs, d.t)
			match = ok && p.Match(d.buf[:w])
		case between:
			var c int
			if c, ok = compareCodes(cs, a, len(p.A), d.t, false); ok && c >= 0 {
				c, ok = compareCodes(cs, b, len(p.B), d.t, false)
				match = c <= 0
			}
		default:
			var c int
			c, ok = compareCodes(cs, a, len(p.A), d.t, prefix)
			match = keep[1+c]
		}
		if !ok {
			if err := d.check(d.pos+i, cs); err != nil {
				return err
			}
			return encoding.Corruptf("fsst: value %d does not decode", d.pos+i)
		}
		if !match {
			sel.Clear(i)
		}
	}
	d.pos += n
	return nil
}

// padded returns v copied into *buf with 8 zero bytes after it, so that
// 8-byte loads at any position of v stay in bounds.
func padded(buf *[]byte, v []byte) []byte {
	*buf = append(append((*buf)[:0], v...), 0, 0, 0, 0, 0, 0, 0, 0)
	return *buf
}

// compareCodes compares the value the codes cs decode to with the operand
// a[:n] (a holds 8 bytes of padding after n), as bytes.Compare does; with
// prefix it instead returns 0 when the value starts with the operand and
// non-zero otherwise. ok is false for a code beyond the table or a trailing
// escape met before the result was known.
func compareCodes(cs, a []byte, n int, t *table, prefix bool) (int, bool) {
	pos := 0
	for k := 0; k < len(cs); k++ {
		var s uint64
		var l int
		if c := cs[k]; c == escape {
			if k+1 == len(cs) {
				return 0, false
			}
			k++
			s, l = uint64(cs[k]), 1
		} else {
			s, l = t.sym[c], int(t.lens[c])
			if l == 0 {
				return 0, false
			}
		}
		// Compare the symbol with the operand bytes it overlaps.
		m := min(l, n-pos) // bytes of the operand left to match
		if m > 0 {
			x := (s ^ binary.LittleEndian.Uint64(a[pos:pos+8])) & (^uint64(0) >> (64 - 8*uint(m)))
			if x != 0 {
				// first differing byte decides
				j := uint(bits.TrailingZeros64(x)) / 8 * 8
				if byte(s>>j) < byte(binary.LittleEndian.Uint64(a[pos:pos+8])>>j) {
					return -1, true
				}
				return 1, true
			}
		}
		if m < l {
			// the value goes on past the operand
			if prefix {
				return 0, true
			}
			return 1, true
		}
		pos += l
	}
	switch {
	case pos < n:
		return -1, true // the value is a proper prefix of the operand
	}
	return 0, true
}
