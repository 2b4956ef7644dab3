// Package fieldtext implements FieldText: text with decimal numbers inside
// it (log lines, URLs and paths holding ids, JSON payloads, place names
// with distances, versions), stored as a skeleton per value — the text with
// each number cut out — and the numbers themselves as integer columns. The
// skeletons repeat where the numbers vary, so they go to a small alphabet
// indexed by an id per row, and each number column goes through the integer
// cascade, where an id of five digits costs its 17 bits instead of five
// bytes that FSST or zstd code at three to four bits each.
//
// Body layout (docs/FORMAT.md, "FieldText (kind 26)"):
//
//	F: u8 | mode: F bytes | skeletons node | ids node | per slot j < F: values node [| widths node]
//
// A skeleton is the value's bytes with 0xFF 0x01 where a number was and
// 0xFF 0x00 for a literal 0xFF byte. The j-th number of a value goes to
// slot j, which holds the j-th numbers of the values whose skeleton has
// more than j of them, in row order. A slot of mode 1 also stores each
// number's digit count, so leading zeros survive ("007", "2024-01-05").
package fieldtext

import (
	"encoding/binary"
	"fmt"
	"math/bits"

	"strata/encoding"
	"strata/encoding/internal/cascade"
)

// Codec registers FieldText.
var Codec = &encoding.Codec{
	Kind:    encoding.KindFieldText,
	Types:   encoding.TypesOf(encoding.Binary),
	Open:    open,
	Encoder: encoder{},
	Decode:  encoding.Cost{PerString: 10, PerException: 30}, // per value and per number: strata calibrate beside Trivial, Dictionary, FSST, FrontCoding and HexText, scaled to the table (docs/benchmarks.md, stop 50)
}

// MaxFields is the most numbers of one value stored as fields; the digits
// of any later number stay in the skeleton.
const MaxFields = 16

// maxRun is the longest run of digits stored as a field: 19 digits always
// fit a uint64. A longer run stays in the skeleton. Stats.DigitShare
// counts the digits of such runs only, so Fit never accepts text that
// holds no field.
const maxRun = encoding.MaxDigits

// maxWidth is the most digits a field prints: those of the largest uint64.
const maxWidth = 20

// The skeleton escape: marker then what follows it.
const (
	marker   = 0xFF
	escLit   = 0x00 // marker, escLit: one literal 0xFF byte
	escField = 0x01 // marker, escField: a field
)

// Slot modes.
const (
	modePlain  = 0 // every number printed in its fewest digits ("0" for zero)
	modeWidths = 1 // a widths child holds each number's digit count
)

// MinDigitShare is the share of digits (Stats.DigitShare) below which
// FieldText is not tried: text with fewer digits has little to gain.
const MinDigitShare = 0.05

func isDigit(c byte) bool { return c-'0' < 10 }

type encoder struct{}

// Fit accepts text of which at least MinDigitShare of the bytes are digits
// and that no text-of-numbers encoding (DigitText, NumText, HexText) fits
// whole.
func (encoder) Fit(st *encoding.Stats) bool {
	return st.Type == encoding.Binary && st.N > 0 && st.DigitShare >= MinDigitShare &&
		!st.Digits && st.Numbers == 0 && !st.Hex && !st.HexDigits
}

// Estimate defers to a trial: the children's sizes depend on the cascade.
func (encoder) Estimate(*encoding.Stats) (int, bool) { return 0, false }

// Encode appends the body for vals, or fails when no value holds a number.
func (encoder) Encode(dst []byte, vals any, st *encoding.Stats, ctx *encoding.Ctx) ([]byte, error) {
	b, ok := encoding.BinaryValues(vals)
	if !ok {
		return dst, fmt.Errorf("fieldtext: cannot encode %T", vals)
	}
	n := b.Len()
	ids := make([]uint32, n)
	index := make(map[string]uint32)
	var skels encoding.Bytes
	skels.Offsets = append(skels.Offsets, 0)
	var nums [MaxFields][]uint64
	var widths [MaxFields][]uint8
	var padded [MaxFields]bool
	f := 0
	skel := make([]byte, 0, 64)
	for i := 0; i < n; i++ {
		x := b.Value(i)
		skel = skel[:0]
		k := 0
		for p := 0; p < len(x); {
			c := x[p]
			if isDigit(c) {
				q := p + 1
				for q < len(x) && isDigit(x[q]) {
					q++
				}
				if k < MaxFields && q-p <= maxRun {
					var v uint64
					for _, d := range x[p:q] {
						v = v*10 + uint64(d-'0')
					}
					nums[k] = append(nums[k], v)
					widths[k] = append(widths[k], uint8(q-p))
					if c == '0' && q-p > 1 {
						padded[k] = true
					}
					skel = append(skel, marker, escField)
					k++
				} else {
					skel = append(skel, x[p:q]...)
				}
				p = q
				continue
			}
			if c == marker {
				skel = append(skel, marker, escLit)
			} else {
				skel = append(skel, c)
			}
			p++
		}
		id, seen := index[string(skel)]
		if !seen {
			id = uint32(len(index))
			index[string(skel)] = id
			skels.Append(skel)
		}
		ids[i] = id
		f = max(f, k)
	}
	if f == 0 {
		return dst, fmt.Errorf("fieldtext: no numbers")
	}
	// every number is read apart and printed into its text: selection
	// charges it Decode.PerException
	fields := 0
	for j := 0; j < f; j++ {
		fields += len(nums[j])
	}
	ctx.Exceptions(fields)
	dst = append(dst, byte(f))
	for j := 0; j < f; j++ {
		m := byte(modePlain)
		if padded[j] {
			m = modeWidths
		}
		dst = append(dst, m)
	}
	var err error
	if dst, err = ctx.EncodeChild(dst, &skels); err != nil {
		return dst, fmt.Errorf("skeletons: %w", err)
	}
	if dst, err = ctx.EncodeChild(dst, ids); err != nil {
		return dst, fmt.Errorf("ids: %w", err)
	}
	for j := 0; j < f; j++ {
		if dst, err = ctx.EncodeChild(dst, nums[j]); err != nil {
			return dst, fmt.Errorf("slot %d values: %w", j, err)
		}
		if padded[j] {
			if dst, err = ctx.EncodeChild(dst, widths[j]); err != nil {
				return dst, fmt.Errorf("slot %d widths: %w", j, err)
			}
		}
	}
	return dst, nil
}

// skeleton is one parsed alphabet entry: fields numbers between fields+1
// literal pieces.
type skeleton struct {
	first  int32 // index of its first piece in decoder.cuts
	fields uint8
	lits   int32 // bytes of its pieces together
}

func open(h encoding.Header, opts *encoding.Options) (encoding.Decoder, error) {
	if h.Type != encoding.Binary {
		return nil, encoding.Unsupportedf("fieldtext: type %v", h.Type)
	}
	body := h.Body
	if len(body) < 1 {
		return nil, encoding.Corruptf("fieldtext: empty body")
	}
	f := int(body[0])
	if f < 1 || f > MaxFields {
		return nil, encoding.Corruptf("fieldtext: %d slots", f)
	}
	if len(body) < 1+f {
		return nil, encoding.Corruptf("fieldtext: %d slot modes in %d bytes", f, len(body)-1)
	}
	d := &decoder{n: h.Rows, f: f, opts: opts, depth: h.Depth + 1}
	copy(d.modes[:], body[1:1+f])
	for j := 0; j < f; j++ {
		if d.modes[j] > modeWidths {
			return nil, encoding.Unsupportedf("fieldtext: slot %d mode %d", j, d.modes[j])
		}
	}
	rest := body[1+f:]
	sn, rest, err := encoding.Child(rest, "fieldtext skeletons")
	if err != nil {
		return nil, err
	}
	in, rest, err := encoding.Child(rest, "fieldtext ids")
	if err != nil {
		return nil, err
	}
	d.nodes = append(d.nodes, encoding.ChildNode{Role: "skeletons", Node: sn}, encoding.ChildNode{Role: "ids", Node: in})
	sr, err := cascade.OpenBinary(sn, d.depth, opts, -1, "fieldtext skeletons")
	if err != nil {
		return nil, err
	}
	if a := sr.Len(); a > h.Rows || (a == 0) != (h.Rows == 0) {
		return nil, encoding.Corruptf("fieldtext: %d skeletons for %d rows", a, h.Rows)
	}
	all, err := cascade.ReadAllBinary(sr, opts, "fieldtext skeletons")
	if err != nil {
		return nil, err
	}
	if err := d.parseSkeletons(&all); err != nil {
		return nil, err
	}
	if d.ids, err = cascade.OpenFixed[uint32](in, d.depth, opts, h.Rows, "fieldtext ids"); err != nil {
		return nil, err
	}
	prev := h.Rows
	for j := 0; j < f; j++ {
		var vn []byte
		if vn, rest, err = encoding.Child(rest, "fieldtext values"); err != nil {
			return nil, err
		}
		d.nodes = append(d.nodes, encoding.ChildNode{Role: fmt.Sprintf("values %d", j), Node: vn})
		if d.vals[j], err = cascade.OpenFixed[uint64](vn, d.depth, opts, -1, "fieldtext values"); err != nil {
			return nil, err
		}
		// rows with more than j+1 numbers are among those with more than j
		if l := d.vals[j].Len(); l > prev {
			return nil, encoding.Corruptf("fieldtext: slot %d holds %d values, more than %d", j, l, prev)
		}
		prev = d.vals[j].Len()
		if d.modes[j] == modeWidths {
			var wn []byte
			if wn, rest, err = encoding.Child(rest, "fieldtext widths"); err != nil {
				return nil, err
			}
			d.nodes = append(d.nodes, encoding.ChildNode{Role: fmt.Sprintf("widths %d", j), Node: wn})
			if d.wids[j], err = cascade.OpenFixed[uint8](wn, d.depth, opts, prev, "fieldtext widths"); err != nil {
				return nil, err
			}
		}
	}
	if len(rest) != 0 {
		return nil, encoding.Corruptf("fieldtext: %d trailing bytes", len(rest))
	}
	d.limit = cascade.OutLimit(opts)
	return d, nil
}

// parseSkeletons splits every skeleton into its literal pieces and checks
// that their largest count of fields is the node's slot count.
func (d *decoder) parseSkeletons(all *encoding.Bytes) error {
	a := all.Len()
	d.skels = make([]skeleton, a)
	d.lit = make([]byte, 0, len(all.Data)+pad)
	d.cuts = append(make([]int32, 0, a+1), 0)
	most := 0
	for s := 0; s < a; s++ {
		x := all.Value(s)
		sk := skeleton{first: int32(len(d.cuts) - 1)}
		start := len(d.lit)
		for p := 0; p < len(x); p++ {
			c := x[p]
			if c != marker {
				d.lit = append(d.lit, c)
				continue
			}
			if p+1 == len(x) {
				return encoding.Corruptf("fieldtext: skeleton %d ends inside an escape", s)
			}
			p++
			switch x[p] {
			case escLit:
				d.lit = append(d.lit, marker)
			case escField:
				if int(sk.fields) == d.f {
					return encoding.Corruptf("fieldtext: skeleton %d has more than %d fields", s, d.f)
				}
				sk.fields++
				d.cuts = append(d.cuts, int32(len(d.lit)))
			default:
				return encoding.Corruptf("fieldtext: skeleton %d has escape byte %#x", s, x[p])
			}
		}
		d.cuts = append(d.cuts, int32(len(d.lit)))
		sk.lits = int32(len(d.lit) - start)
		d.skels[s] = sk
		most = max(most, int(sk.fields))
	}
	d.lit = append(d.lit, make([]byte, pad)...) // room for word loads past the last piece
	if a > 0 && most != d.f {
		return encoding.Corruptf("fieldtext: %d slots but at most %d fields a skeleton", d.f, most)
	}
	return nil
}

// decoder reads a FieldText node a batch at a time: the batch's skeleton
// ids, then each slot's numbers for the rows that have one, then the text.
type decoder struct {
	n, at int
	f     int
	modes [MaxFields]byte
	opts  *encoding.Options
	depth int
	nodes []encoding.ChildNode
	limit int

	skels []skeleton
	lit   []byte  // the skeletons' literal bytes, piece after piece
	cuts  []int32 // piece boundaries in lit: skeleton s's piece i is lit[cuts[first+i]:cuts[first+i+1]]

	ids  encoding.Reader[uint32]
	vals [MaxFields]encoding.Reader[uint64]
	wids [MaxFields]encoding.Reader[uint8]

	idBuf []uint32
	vBuf  [MaxFields][]uint64
	wBuf  [MaxFields][]uint8
}

func (d *decoder) Kind() encoding.Kind { return encoding.KindFieldText }
func (d *decoder) Type() encoding.Type { return encoding.Binary }
func (d *decoder) Len() int            { return d.n }
func (d *decoder) Pos() int            { return d.at }

// Children implements encoding.Walker.
func (d *decoder) Children() []encoding.ChildNode { return d.nodes }

func (d *decoder) Reset() {
	d.at = 0
	d.ids.Reset()
	for j := 0; j < d.f; j++ {
		d.vals[j].Reset()
		if d.wids[j] != nil {
			d.wids[j].Reset()
		}
	}
}

// batch reads the skeleton ids of the next k rows into d.idBuf, checks
// them, and returns how many of the rows have more than j numbers, per j.
func (d *decoder) batch(k int) ([MaxFields]int, error) {
	var need [MaxFields]int
	d.idBuf = cascade.Grow(d.idBuf, k)
	if err := d.ids.Read(d.idBuf); err != nil {
		return need, fmt.Errorf("fieldtext ids: %w", err)
	}
	var count [MaxFields + 1]int
	a := uint32(len(d.skels))
	for _, id := range d.idBuf {
		if id >= a {
			return need, encoding.Corruptf("fieldtext: skeleton id %d of %d", id, a)
		}
		count[d.skels[id].fields]++
	}
	for j := d.f - 1; j >= 0; j-- {
		need[j] = count[j+1]
		if j+1 < d.f {
			need[j] += need[j+1]
		}
	}
	return need, nil
}

// slotsLeft checks, once the last row is passed, that every slot was read
// to its end: a slot holding more numbers than its rows use is corrupt.
func (d *decoder) slotsLeft() error {
	if d.at != d.n {
		return nil
	}
	for j := 0; j < d.f; j++ {
		if p, l := d.vals[j].Pos(), d.vals[j].Len(); p != l {
			return encoding.Corruptf("fieldtext: slot %d holds %d values, its rows use %d", j, l, p)
		}
	}
	return nil
}

func (d *decoder) Skip(n int) error {
	if err := cascade.CheckRead(encoding.KindFieldText, d.at, n, d.n); err != nil {
		return err
	}
	for n > 0 {
		k := min(n, cascade.Batch)
		need, err := d.batch(k)
		if err != nil {
			return err
		}
		for j := 0; j < d.f; j++ {
			if err := d.vals[j].Skip(need[j]); err != nil {
				return fmt.Errorf("fieldtext slot %d: %w", j, err)
			}
			if d.wids[j] != nil {
				if err := d.wids[j].Skip(need[j]); err != nil {
					return fmt.Errorf("fieldtext slot %d widths: %w", j, err)
				}
			}
		}
		d.at += k
		n -= k
	}
	return d.slotsLeft()
}

// digits returns the count of decimal digits of v (1 for zero).
func digits(v uint64) int {
	l := bits.Len64(v)
	d := int(digitGuess[l])
	if v >= digitNext[l] {
		d++
	}
	return d
}

// digitGuess[l] is the fewest digits of a number of bit length l, and
// digitNext[l] the least number of l bits with one digit more (the
// largest uint64 where there is none).
var digitGuess, digitNext = func() (g [65]uint8, t [65]uint64) {
	for l := 0; l <= 64; l++ {
		lo := uint64(0)
		if l > 0 {
			lo = 1 << (l - 1)
		}
		d, p := 1, uint64(10)
		for lo >= p && d < 20 {
			d++
			if d < 20 {
				p *= 10
			}
		}
		g[l] = uint8(d)
		t[l] = ^uint64(0)
		if d < 20 && (l == 64 || p < 1<<l) {
			t[l] = p
		}
	}
	return
}()

// ReadBinary appends the next n values to dst.
func (d *decoder) ReadBinary(dst *encoding.Bytes, n int) error {
	if err := cascade.CheckRead(encoding.KindFieldText, d.at, n, d.n); err != nil {
		return err
	}
	if len(dst.Offsets) == 0 {
		dst.Offsets = append(dst.Offsets, int32(len(dst.Data)))
	}
	for n > 0 {
		k := min(n, cascade.Batch)
		need, err := d.batch(k)
		if err != nil {
			return err
		}
		// the batch's bytes: literals, then each number's digits
		total := 0
		for _, id := range d.idBuf {
			total += int(d.skels[id].lits)
		}
		for j := 0; j < d.f; j++ {
			d.vBuf[j] = cascade.Grow(d.vBuf[j], need[j])
			if err := d.vals[j].Read(d.vBuf[j]); err != nil {
				return fmt.Errorf("fieldtext slot %d: %w", j, err)
			}
			d.wBuf[j] = cascade.Grow(d.wBuf[j], need[j])
			ws := d.wBuf[j]
			if d.wids[j] == nil {
				for i, v := range d.vBuf[j] {
					w := digits(v)
					ws[i] = uint8(w)
					total += w
				}
				continue
			}
			if err := d.wids[j].Read(ws); err != nil {
				return fmt.Errorf("fieldtext slot %d widths: %w", j, err)
			}
			for i, w := range ws {
				if int(w) > maxWidth || int(w) < digits(d.vBuf[j][i]) {
					return encoding.Corruptf("fieldtext: slot %d: width %d for %d", j, w, d.vBuf[j][i])
				}
				total += int(w)
			}
		}
		if len(dst.Data)+total > d.limit {
			return encoding.Limitf("fieldtext: more than %d bytes of values", d.limit)
		}
		d.print(dst, total)
		d.at += k
		n -= k
	}
	return d.slotsLeft()
}

// print appends the batch's values, total bytes in all, to dst: each
// number in the width d.wBuf holds for it.
func (d *decoder) print(dst *encoding.Bytes, total int) {
	at := len(dst.Data)
	// room past the end: numbers and short pieces are stored a word at
	// a time, the bytes past them overwritten by what follows
	out := cascade.Extend(dst.Data, total+pad)
	dst.Data = out[:len(out)-pad]
	dst.Offsets = cascade.Reserve(dst.Offsets, len(d.idBuf))
	var pos [MaxFields]int
	for _, id := range d.idBuf {
		sk := &d.skels[id]
		c := d.cuts[sk.first : int(sk.first)+int(sk.fields)+2]
		at = d.piece(out, at, c[0], c[1])
		for j := 0; j < int(sk.fields); j++ {
			p := pos[j]
			pos[j]++
			w := int(d.wBuf[j][p])
			if v := d.vBuf[j][p]; w <= 8 {
				binary.LittleEndian.PutUint64(out[at:], ascii8(v)>>(64-8*w))
			} else {
				putDigits(out[at:at+w], v)
			}
			at += w
			at = d.piece(out, at, c[j+1], c[j+2])
		}
		dst.Offsets = append(dst.Offsets, int32(at))
	}
}

// pairs holds "00" to "99".
const pairs = "00010203040506070809101112131415161718192021222324252627282930313233343536373839" +
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879" +
	"8081828384858687888990919293949596979899"

// pad is the room kept past the literal bytes and past the output for
// word-sized stores.
const pad = 16

// piece copies the literal bytes lit[from:to] to out at at and returns
// the offset past them; a piece of up to 16 bytes is moved as two words,
// which the pad past lit and past the output make room for.
func (d *decoder) piece(out []byte, at int, from, to int32) int {
	n := int(to - from)
	if n <= pad {
		src := d.lit[from:]
		binary.LittleEndian.PutUint64(out[at:], binary.LittleEndian.Uint64(src))
		binary.LittleEndian.PutUint64(out[at+8:], binary.LittleEndian.Uint64(src[8:]))
		return at + n
	}
	return at + copy(out[at:], d.lit[from:to])
}

// ascii8 returns the eight decimal digits of v < 10^8, zero-padded, as
// ASCII in the bytes of a little-endian word: the first digit in the low
// byte. Each step splits every lane of the word in two (by 10^4, 10^2,
// 10) with multiplications by reciprocals that are exact in the range.
func ascii8(v uint64) uint64 {
	hi := v / 10000
	x := hi | (v-hi*10000)<<32
	q := (x * 10486 >> 20) & 0x0000007f0000007f
	x = q | (x-q*100)<<16
	q = (x * 103 >> 10) & 0x000f000f000f000f
	x = q | (x-q*10)<<8
	return x | 0x3030303030303030
}

// putDigits writes v in decimal into out, right-aligned and zero-padded
// to len(out), which holds at least v's digits.
func putDigits(out []byte, v uint64) {
	i := len(out)
	for v >= 100 && i >= 2 {
		q := v / 100
		r := v - q*100
		out[i-1], out[i-2] = pairs[2*r+1], pairs[2*r]
		v = q
		i -= 2
	}
	for i > 0 {
		out[i-1] = byte('0' + v%10)
		v /= 10
		i--
	}
}
