package fsst

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"slices"
	"sync"

	"strata/encoding"
)

// encoder writes FSST.
type encoder struct{}

// Minimums for Fit: below them a symbol table (up to ~2 KiB) and the code
// lengths child cost more than FSST saves.
const (
	minBytes  = 1 << 10
	minAvgLen = 4
)

// Fit accepts binary sequences of at least 1 KiB whose values average at
// least 4 bytes.
func (encoder) Fit(st *encoding.Stats) bool {
	return st.Type == encoding.Binary && st.TotalBytes >= minBytes && st.TotalBytes >= minAvgLen*st.N
}

// Estimate needs a trial: the size depends on the symbol table.
func (encoder) Estimate(*encoding.Stats) (int, bool) { return 0, false }

// ScaleSample implements encoding.SampleScaler: the node prefix and the
// symbol table do not grow with the number of values; the code lengths and
// codes do.
func (encoder) ScaleSample(node []byte, sample, full *encoding.Stats) int {
	fixed := min(fixedSize(node), len(node))
	return fixed + int(float64(len(node)-fixed)*float64(full.N)/float64(max(sample.N, 1)))
}

// fixedSize returns how many bytes of a node (prefix included) are its
// symbol table.
func fixedSize(node []byte) int {
	h, err := encoding.ParseHeader(node, 0, nil)
	if err != nil || len(h.Body) < maxSymbolLen || h.Flags != 0 {
		return 0
	}
	n := len(node) - len(h.Body) + maxSymbolLen
	for l, c := range h.Body[:maxSymbolLen] {
		n += int(c) * (l + 1)
	}
	return n
}

// Encode builds a symbol table from a sample of the values and encodes
// every value greedily with it.
func (encoder) Encode(dst []byte, vals any, st *encoding.Stats, ctx *encoding.Ctx) ([]byte, error) {
	b, ok := encoding.BinaryValues(vals)
	if !ok {
		return dst, fmt.Errorf("fsst: cannot encode %T", vals)
	}
	bd := builders.Get().(*builder)
	defer func() {
		if cap(bd.out) > maxPooledOut {
			bd.out = nil // do not pin the scratch of an unusually large sequence
		}
		builders.Put(bd)
	}()
	if ctx.Sampled() {
		bd.buildWith(b, sampleTarget, trialFrac[:])
	} else {
		bd.build(b)
	}
	dst = bd.appendTable(dst)
	n := b.Len()
	lens := make([]uint32, n)
	codes := bd.encodeAll(b, lens)
	raw := 0
	if n > 0 {
		raw = int(b.Offsets[n] - b.Offsets[0])
	}
	dst = binary.AppendUvarint(dst, uint64(raw))
	dst, err := ctx.EncodeChild(dst, lens)
	if err != nil {
		return dst, fmt.Errorf("fsst code lengths: %w", err)
	}
	return append(dst, codes...), nil
}

// maxPooledOut is the largest code scratch a pooled builder keeps.
const maxPooledOut = 4 << 20

// Symbol table construction.
//
// A symbol is up to 8 bytes held little-endian in a uint64 (zero past its
// length). During construction codes 0..n-1 are the current table's
// symbols and codes 256+b are escaped single bytes b (pseudo-codes), so a
// code fits in 9 bits.
const (
	sampleTarget = 16 << 10 // bytes of sample the table is learned from
	sampleLine   = 512      // longest piece of one value taken into the sample
	codeSpace    = 512
	pseudo       = 256
	hashBits     = 11
	hashSize     = 1 << hashBits
	candBits     = 14
	candSize     = 1 << candBits
	topK         = 2 * maxSymbols // candidates kept for the final pick
)

// sampleFrac is the share (of 128) of the sample each generation counts:
// early tables are rough, so they are learned from less, as in the paper.
var sampleFrac = [...]int{16, 40, 64, 96, 128}

// trialFrac are the generations of the table of a sampled trial encode
// (Ctx.Sampled), which only estimates FSST's ratio: two instead of five.
// Whole encodes, and trials of whole short sequences (whose size is
// exact), keep five. On the 16 real data sets and lineitem every file
// came out byte for byte the same as with five.
var trialFrac = [...]int{32, 128}

type symbol struct {
	val uint64
	n   uint8
}

func (s symbol) concat(t symbol) symbol {
	n := int(s.n) + int(t.n)
	if n > maxSymbolLen {
		n = maxSymbolLen
	}
	v := s.val | t.val<<(8*uint(s.n))
	return symbol{val: v & mask(n), n: uint8(n)}
}

// mask keeps the low n bytes (n in 1..8).
func mask(n int) uint64 { return ^uint64(0) >> (64 - 8*uint(n)) }

// A lookup result packs a construction code (9 bits) and a length: code |
// length<<12.
func unpack(x uint16) (int, int) { return int(x & 0x1ff), int(x >> 12) }

func pack(code, n int) uint16 { return uint16(code | n<<12) }

// hentry is one slot of the hash of symbols of 3 or more bytes, keyed by
// their first 3 bytes. Like the paper's table it holds one symbol per slot:
// a symbol whose slot is taken is not admitted. An empty slot has mask 0
// and val 1, so it matches nothing.
type hentry struct {
	val, mask uint64
	x         uint16 // packed code and length
}

var emptySlot = hentry{val: 1}

// cand is a candidate symbol and its gain.
type cand struct {
	sym  symbol
	gain int64
}

// builder holds the (large) scratch state of one table construction; it is
// pooled so that encoding a chunk allocates nothing big.
type builder struct {
	syms []symbol // current table; code = index
	// Lookup structures of the current table: short[p] is the packed
	// longest symbol of at most 2 bytes that prefixes the 2 bytes p (a
	// 1-byte symbol, or pseudo+byte when there is none); hash holds the
	// symbols of 3+ bytes.
	short    []uint16 // [65536]
	byteRow  [256]uint16
	hash     []hentry // [hashSize]
	hashUsed []uint16
	count1   []int32    // [codeSpace]
	count2   []uint16   // [codeSpace*codeSpace]
	touched  []int32    // count2 cells that are non-zero
	cands    []candSlot // [candSize] open-addressing set of candidates
	candUsed []int32    // used slots of cands
	top      []cand     // heap of the best candidates
	keys     []uint64   // sort keys of top
	sorted   []cand     // top, best first
	// the sample: lines back to back in buf (plus 8 zero bytes), line j
	// is buf[ends[j-1]:ends[j]]
	buf   []byte
	ends  []int32
	taken [hashSize / 64]uint64
	out   []byte // codes of the values being encoded
}

type candSlot struct {
	sym  symbol
	used bool
	gain int64
}

var builders = sync.Pool{New: func() any {
	bd := &builder{
		short:    make([]uint16, 1<<16),
		hash:     make([]hentry, hashSize),
		hashUsed: make([]uint16, 0, maxSymbols),
		count1:   make([]int32, codeSpace),
		count2:   make([]uint16, codeSpace*codeSpace),
		cands:    make([]candSlot, candSize),
		touched:  make([]int32, 0, 4096),
	}
	for i := range bd.hash {
		bd.hash[i] = emptySlot
	}
	return bd
}}

func hash3(v uint64) uint32 {
	return uint32(((v & 0xffffff) * 0x9E3779B97F4A7C15) >> (64 - hashBits))
}

// symOf returns the symbol of a construction code.
func (bd *builder) symOf(code int) symbol {
	if code >= pseudo {
		return symbol{val: uint64(code - pseudo), n: 1}
	}
	return bd.syms[code]
}

// index rebuilds the lookup structures of bd.syms, whose symbols of 3+
// bytes must have distinct hash slots (makeTable admits them so).
func (bd *builder) index() {
	for _, h := range bd.hashUsed {
		bd.hash[h] = emptySlot
	}
	bd.hashUsed = bd.hashUsed[:0]
	for b := range bd.byteRow {
		bd.byteRow[b] = pack(pseudo+b, 1)
	}
	for c, s := range bd.syms {
		if s.n == 1 {
			bd.byteRow[s.val] = pack(c, 1)
		}
	}
	// Every 256-entry row of short (second byte fixed) starts as the
	// single-byte codes of the first byte.
	for r := 0; r < 1<<16; r += 256 {
		copy(bd.short[r:r+256], bd.byteRow[:])
	}
	for c, s := range bd.syms {
		switch {
		case s.n == 2:
			bd.short[s.val] = pack(c, 2)
		case s.n >= 3:
			h := hash3(s.val)
			bd.hash[h] = hentry{val: s.val, mask: mask(int(s.n)), x: pack(c, int(s.n))}
			bd.hashUsed = append(bd.hashUsed, uint16(h))
		}
	}
}

// longestFull returns the packed longest symbol that prefixes the 8 bytes
// in word, for a position with at least 8 bytes left: the hash symbol for
// its first 3 bytes if it matches, else the 1- or 2-byte one.
func (bd *builder) longestFull(word uint64) uint16 {
	e := &bd.hash[hash3(word)]
	x := bd.short[word&0xffff]
	if word&e.mask == e.val {
		x = e.x
	}
	return x
}

// longest is longestFull for the rem (1..7) bytes left at the end of a
// value; word holds them, zero past rem.
func (bd *builder) longest(word uint64, rem int) uint16 {
	e := &bd.hash[hash3(word)]
	if word&e.mask == e.val && int(e.x>>12) <= rem {
		return e.x
	}
	x := bd.short[word&0xffff]
	if rem == 1 {
		x = bd.byteRow[word&0xff]
	}
	return x
}

// makeSample copies pieces of values spread over b into bd.buf, about
// target bytes in all (all of b when it is smaller), each at most
// sampleLine bytes.
func (bd *builder) makeSample(b *encoding.Bytes, target int) {
	bd.buf, bd.ends = bd.buf[:0], bd.ends[:0]
	n := b.Len()
	if n == 0 {
		bd.buf = append(bd.buf, make([]byte, 8)...)
		return
	}
	total := int(b.Offsets[n] - b.Offsets[0])
	if total <= target {
		for i := 0; i < n; i++ {
			v := b.Value(i)
			for len(v) > 0 {
				k := min(len(v), sampleLine)
				bd.addLine(v[:k])
				v = v[k:]
			}
		}
	} else {
		// Take every step-th value (a window of at most sampleLine bytes),
		// in rounds from rotating starts, until the target is reached.
		avg := max(1, min(total/n, sampleLine))
		step := max(1, n/max(1, target/avg))
		for start := 0; start < step && len(bd.buf) < target; start++ {
			for i := start; i < n && len(bd.buf) < target; i += step {
				v := b.Value(i)
				if len(v) > sampleLine {
					off := int(uint64(i) * 2654435761 % uint64(len(v)-sampleLine+1))
					v = v[off : off+sampleLine]
				}
				v = v[:min(len(v), target-len(bd.buf))]
				if len(v) > 0 {
					bd.addLine(v)
				}
			}
		}
	}
	bd.buf = append(bd.buf, make([]byte, 8)...)
}

func (bd *builder) addLine(v []byte) {
	bd.buf = append(bd.buf, v...)
	bd.ends = append(bd.ends, int32(len(bd.buf)))
}

// count parses part of the sample (frac of 128 lines, spread) with the
// current table, counting each code and each pair of adjacent codes. A
// code of 2+ bytes also counts its first byte alone, so single bytes keep
// a chance to enter the table.
func (bd *builder) count(frac int) {
	clear(bd.count1)
	for _, t := range bd.touched {
		bd.count2[t] = 0
	}
	bd.touched = bd.touched[:0]
	buf := bd.buf
	start := 0
	for j, end := range bd.ends {
		s, e := start, int(end)
		start = e
		if int((uint32(j)*0x9E3779B1)>>25) >= frac {
			continue
		}
		prev := -1
		for i := s; i < e; {
			w := binary.LittleEndian.Uint64(buf[i:])
			var x uint16
			if rem := e - i; rem >= 8 {
				x = bd.longestFull(w)
			} else {
				x = bd.longest(w&mask(rem), rem)
			}
			c, l := unpack(x)
			bd.count1[c]++
			if l > 1 {
				bd.count1[pseudo+int(w&0xff)]++
			}
			if prev >= 0 {
				cell := int32(prev*codeSpace + c)
				if bd.count2[cell] == 0 {
					bd.touched = append(bd.touched, cell)
				}
				if bd.count2[cell] < 0xffff {
					bd.count2[cell]++
				}
			}
			prev = c
			i += l
		}
	}
}

// addCand adds gain to a candidate symbol.
func (bd *builder) addCand(s symbol, gain int64) {
	h := uint32((s.val*0x9E3779B97F4A7C15 ^ uint64(s.n)*0xC2B2AE3D27D4EB4F) >> (64 - candBits))
	for {
		e := &bd.cands[h]
		if !e.used {
			*e = candSlot{sym: s, used: true, gain: gain}
			bd.candUsed = append(bd.candUsed, int32(h))
			return
		}
		if e.sym == s {
			e.gain += gain
			return
		}
		h = (h + 1) & (candSize - 1)
	}
}

// better orders candidates: higher gain, then longer, then smaller bytes,
// so the table is deterministic.
func better(a, b cand) bool {
	if a.gain != b.gain {
		return a.gain > b.gain
	}
	if a.sym.n != b.sym.n {
		return a.sym.n > b.sym.n
	}
	return a.sym.val < b.sym.val
}

// makeTable replaces the table with the best candidates: every counted
// code and every concatenation of a counted pair, by gain = count × length.
func (bd *builder) makeTable() {
	for _, h := range bd.candUsed {
		bd.cands[h] = candSlot{}
	}
	bd.candUsed = bd.candUsed[:0]
	for c, n := range bd.count1 {
		if n == 0 {
			continue
		}
		s := bd.symOf(c)
		gain := int64(n) * int64(s.n)
		if s.n == 1 && c >= pseudo {
			// An escaped byte costs two code bytes: a 1-byte symbol for it
			// saves one per occurrence, as much as any symbol does.
			gain = int64(n) * 2
		}
		bd.addCand(s, gain)
	}
	for _, cell := range bd.touched {
		n := bd.count2[cell]
		if n < 2 {
			continue // a pair seen once is noise
		}
		a := bd.symOf(int(cell) / codeSpace)
		if a.n == maxSymbolLen {
			continue
		}
		s := a.concat(bd.symOf(int(cell) % codeSpace))
		bd.addCand(s, int64(n)*int64(s.n))
	}
	// Keep the topK best in a min-heap (root = worst kept).
	top := bd.top[:0]
	for _, h := range bd.candUsed {
		e := &bd.cands[h]
		c := cand{sym: e.sym, gain: e.gain}
		if len(top) < topK {
			top = append(top, c)
			siftUp(top, len(top)-1)
			continue
		}
		if better(c, top[0]) {
			top[0] = c
			siftDown(top, 0)
		}
	}
	// Best first: by gain, then length, then the order of discovery (the
	// candidates' insertion order, deterministic for the input). Sorting
	// packed integer keys is several times faster than a comparator.
	keys := bd.keys[:0]
	for i, c := range top {
		keys = append(keys, uint64(c.gain)<<24|uint64(c.sym.n)<<16|uint64(0xffff-i))
	}
	slices.Sort(keys)
	sorted := bd.sorted[:0]
	for i := len(keys) - 1; i >= 0; i-- {
		sorted = append(sorted, top[0xffff-int(keys[i]&0xffff)])
	}
	bd.keys, bd.sorted, bd.top = keys, sorted, top
	top = sorted
	// Admit in gain order; a symbol of 3+ bytes needs a free hash slot.
	bd.syms = bd.syms[:0]
	clear(bd.taken[:])
	for _, c := range top {
		if len(bd.syms) == maxSymbols {
			break
		}
		if c.sym.n >= 3 {
			h := hash3(c.sym.val)
			if bd.taken[h/64]&(1<<(h%64)) != 0 {
				continue
			}
			bd.taken[h/64] |= 1 << (h % 64)
		}
		bd.syms = append(bd.syms, c.sym)
	}
	bd.index()
}

// siftUp and siftDown maintain a heap whose root is the worst candidate.
func siftUp(h []cand, i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !better(h[p], h[i]) {
			break
		}
		h[p], h[i] = h[i], h[p]
		i = p
	}
}

func siftDown(h []cand, i int) {
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		m := l
		if r := l + 1; r < len(h) && better(h[l], h[r]) {
			m = r
		}
		if !better(h[i], h[m]) {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}

// build learns the symbol table of b and sets the final codes: symbols are
// ordered by length (then by bytes), and a symbol's code is its index.
func (bd *builder) build(b *encoding.Bytes) {
	bd.buildWith(b, sampleTarget, sampleFrac[:])
}

// buildWith is build learning from a sample of about target bytes, one
// generation per entry of fracs (the share of the sample it counts).
func (bd *builder) buildWith(b *encoding.Bytes, target int, fracs []int) {
	bd.makeSample(b, target)
	bd.syms = bd.syms[:0]
	bd.index()
	if len(bd.ends) > 0 {
		for _, f := range fracs {
			bd.count(f)
			bd.makeTable()
		}
		// Drop symbols the last table never used on the sample: they cost
		// table bytes and win nothing.
		bd.count(128)
		kept := bd.syms[:0]
		for c, s := range bd.syms {
			if bd.count1[c] > 0 {
				kept = append(kept, s)
			}
		}
		bd.syms = kept
	}
	slices.SortFunc(bd.syms, func(a, b symbol) int {
		if a.n != b.n {
			return int(a.n) - int(b.n)
		}
		return cmpBytes(a, b)
	})
	bd.index()
}

// cmpBytes orders symbols of equal length by their bytes.
func cmpBytes(a, b symbol) int {
	x, y := bits.ReverseBytes64(a.val), bits.ReverseBytes64(b.val)
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

// appendTable appends the counts and the symbols (already in code order).
func (bd *builder) appendTable(dst []byte) []byte {
	var counts [maxSymbolLen]byte
	for _, s := range bd.syms {
		counts[s.n-1]++
	}
	dst = append(dst, counts[:]...)
	for _, s := range bd.syms {
		for k := 0; k < int(s.n); k++ {
			dst = append(dst, byte(s.val>>(8*k)))
		}
	}
	return dst
}

// encodeWindows encodes data from i while at least 8 bytes remain, writing
// codes to out at k; it returns the new k and i. Nothing in the loop
// branches on the data: the hash hit is selected arithmetically and an
// escape always writes its literal (overwritten unless it was needed).
func encodeWindows(out []byte, k int, data []byte, i int, short *[1 << 16]uint16, hash *[hashSize]hentry) (int, int) {
	for ; i+8 <= len(data); k++ {
		w := binary.LittleEndian.Uint64(data[i:])
		h := &hash[hash3(w)]
		d := w&h.mask ^ h.val
		hit := uint16(((d | -d) >> 63) ^ 1) // 1 when the hash symbol matches
		x := short[uint16(w)]
		x ^= (x ^ h.x) & -hit
		c := uint(x & 0x1ff)
		esc := c >> 8 // 1 for an escaped byte
		o := out[k : k+2 : k+2]
		o[0] = byte(c) | byte(0-esc)
		o[1] = byte(w)
		k += int(esc)
		i += int(x >> 12)
	}
	return k, i
}

// encodeAll writes the codes of every value of b into bd.out (sized for
// the worst case, two code bytes per input byte) and the number of codes
// of each value into lens: at each position the longest symbol that
// matches, else an escape and the byte.
func (bd *builder) encodeAll(b *encoding.Bytes, lens []uint32) []byte {
	n := b.Len()
	if n == 0 {
		return nil
	}
	data := b.Data
	raw := int(b.Offsets[n] - b.Offsets[0])
	if cap(bd.out) < 2*raw+16 {
		bd.out = make([]byte, 2*raw+16)
	}
	out := bd.out[:2*raw+16]
	short := (*[1 << 16]uint16)(bd.short)
	hash := (*[hashSize]hentry)(bd.hash)
	k := 0
	for v := 0; v < n; v++ {
		i, e := int(b.Offsets[v]), int(b.Offsets[v+1])
		k0 := k
		if e-i >= 8 {
			k, i = encodeWindows(out, k, data[:e], i, short, hash)
		}
		for ; i < e; k++ {
			rem := e - i
			var w uint64
			if i+8 <= len(data) {
				w = binary.LittleEndian.Uint64(data[i:]) & mask(rem)
			} else {
				for j := e - 1; j >= i; j-- {
					w = w<<8 | uint64(data[j])
				}
			}
			x := bd.longest(w, rem)
			c := uint(x & 0x1ff)
			esc := c >> 8
			o := out[k : k+2 : k+2]
			o[0] = byte(c) | byte(0-esc)
			o[1] = byte(w)
			k += int(esc)
			i += int(x >> 12)
		}
		lens[v] = uint32(k - k0)
	}
	return out[:k]
}
