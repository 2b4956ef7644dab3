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
	"bytes"
	"encoding/binary"
	"fmt"
	"math/bits"
	"slices"

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

// mostlyDistinctMin is the fewest values whose trial may decline for
// skeletons that hardly repeat.
const mostlyDistinctMin = 256

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
	if ctx.Trial() && !ctx.Sampled() && n >= mostlyDistinctMin && len(index)*4 > 3*n {
		// Skeletons that hardly repeat store the text again beside an
		// id a row: FieldText cannot win, and a trial of a whole stream
		// would select children for an alphabet as long as the column.
		// (A sample's skeletons repeat less than the whole's, so only
		// trials of whole sequences decline.)
		return dst, fmt.Errorf("fieldtext: %d skeletons in %d values", len(index), n)
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
	d.idsNode = in
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
		d.vNode[j] = vn
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
			d.wNode[j] = wn
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

	// gathers: the children's nodes, private cursors over them, and the
	// wanted rows' skeleton ids and positions in each slot
	idsNode []byte
	vNode   [MaxFields][]byte
	wNode   [MaxFields][]byte
	gIDs    encoding.Reader[uint32]
	gVals   [MaxFields]encoding.Reader[uint64]
	gWids   [MaxFields]encoding.Reader[uint8]
	gPos    [MaxFields][]int32
	gBuf    []uint32

	// the predicate last filtered on, copied, and its verdicts
	vPred    *encoding.BytesPred
	vOp      encoding.Op
	vA, vB   []byte
	vSet     [][]byte
	vSettled bool
	verdict  []byte // per skeleton, for the predicate being filtered
	wants    []want // per skeleton of verdict matchNums, the numbers it wants
	row      []byte // one printed row of a filter
	skipped  int
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
		if err := d.skipSlots(need); err != nil {
			return err
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
		digitBytes, err := d.readSlots(need)
		if err != nil {
			return err
		}
		total += digitBytes
		if len(dst.Data)+total > d.limit {
			return encoding.Limitf("fieldtext: more than %d bytes of values", d.limit)
		}
		d.print(dst, total)
		d.at += k
		n -= k
	}
	return d.slotsLeft()
}

// readSlots reads the batch's numbers, need[j] of slot j, into d.vBuf and
// their digit counts into d.wBuf (the widths child's, checked, or the
// fewest digits), and returns the digits of all of them.
func (d *decoder) readSlots(need [MaxFields]int) (int, error) {
	total := 0
	for j := 0; j < d.f; j++ {
		d.vBuf[j] = cascade.Grow(d.vBuf[j], need[j])
		if err := d.vals[j].Read(d.vBuf[j]); err != nil {
			return 0, fmt.Errorf("fieldtext slot %d: %w", j, err)
		}
		d.wBuf[j] = cascade.Grow(d.wBuf[j], need[j])
		if d.wids[j] != nil {
			if err := d.wids[j].Read(d.wBuf[j]); err != nil {
				return 0, fmt.Errorf("fieldtext slot %d widths: %w", j, err)
			}
		}
		w, err := d.widths(j)
		if err != nil {
			return 0, err
		}
		total += w
	}
	return total, nil
}

// widths completes d.wBuf[j], the digit counts of the numbers in
// d.vBuf[j]: in mode 1 it holds the widths child's, which it checks
// against the numbers, else it gets the fewest digits of each. It returns
// the digits of all.
func (d *decoder) widths(j int) (int, error) {
	ws, total := d.wBuf[j], 0
	if d.wids[j] == nil {
		for i, v := range d.vBuf[j] {
			w := digits(v)
			ws[i] = uint8(w)
			total += w
		}
		return total, nil
	}
	for i, w := range ws {
		if int(w) > maxWidth || int(w) < digits(d.vBuf[j][i]) {
			return 0, encoding.Corruptf("fieldtext: slot %d: width %d for %d", j, w, d.vBuf[j][i])
		}
		total += int(w)
	}
	return total, nil
}

// skipSlots moves every slot past the batch's numbers without reading them.
func (d *decoder) skipSlots(need [MaxFields]int) error {
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
	return nil
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
		at = d.printRow(out, at, id, &pos)
		dst.Offsets = append(dst.Offsets, int32(at))
	}
}

// printRow writes the value of a row of skeleton id at out[at:], taking
// its numbers at pos and moving pos past them, and returns the offset past
// it. out has pad bytes of room past the value.
func (d *decoder) printRow(out []byte, at int, id uint32, pos *[MaxFields]int) int {
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
	return at
}

// rowLen is the length of the value of a row of skeleton id whose numbers
// start at pos.
func (d *decoder) rowLen(id uint32, pos *[MaxFields]int) int {
	sk := &d.skels[id]
	n := int(sk.lits)
	for j := 0; j < int(sk.fields); j++ {
		n += int(d.wBuf[j][pos[j]])
	}
	return n
}

// Verdicts of a predicate on every value of one skeleton.
const (
	undecided byte = iota // print the row and compare
	matchNone
	matchAll
	matchNums // the row matches when its first want.m numbers are want's
)

// want is what an operand of Eq (or Prefix) says the numbers of a row
// of one skeleton must be: its first m fields, their values and digit
// counts.
type want struct {
	m    int
	nums [MaxFields]uint64
	wid  [MaxFields]uint8
}

// pieces returns skeleton s's literal pieces into buf.
func (d *decoder) pieces(s int, buf [][]byte) [][]byte {
	sk := &d.skels[s]
	c := d.cuts[sk.first : int(sk.first)+int(sk.fields)+2]
	buf = buf[:0]
	for i := 0; i+1 < len(c); i++ {
		buf = append(buf, d.lit[c[i]:c[i+1]])
	}
	return buf
}

// matcher finds how an operand reads as a value of one skeleton: its
// pieces in order with a number of 1 to 20 digits between each two (no
// leading zero in a slot of mode 0, whose numbers print in their fewest
// digits). It counts the readings, up to two, and keeps the first.
type matcher struct {
	d      *decoder
	pieces [][]byte
	a      []byte
	prefix bool // a need only be the start of a value
	ways   int
	cur    want
	first  want
}

// at matches piece i at a[pos:], the fields before it read.
func (mt *matcher) at(i, pos int) {
	if mt.ways > 1 {
		return
	}
	pc, a := mt.pieces[i], mt.a[pos:]
	if mt.prefix && len(a) <= len(pc) {
		if bytes.HasPrefix(pc, a) { // a ends inside the piece: i fields settle it
			mt.found(i)
		}
		return
	}
	if !bytes.HasPrefix(a, pc) {
		return
	}
	pos += len(pc)
	if i == len(mt.pieces)-1 {
		if pos == len(mt.a) {
			mt.found(i)
		}
		return
	}
	run := 0
	for pos+run < len(mt.a) && isDigit(mt.a[pos+run]) {
		run++
	}
	if mt.prefix && pos+run == len(mt.a) {
		// a ends inside the number (or right before it): the fields
		// before it decide only together with this one's digits
		mt.ways = 2
		return
	}
	for w := 1; w <= min(run, maxWidth); w++ {
		digitsAt := mt.a[pos : pos+w]
		if w > 1 && digitsAt[0] == '0' && mt.d.modes[i] == modePlain {
			continue // a number of mode 0 has no leading zero
		}
		v, ok := parseUint(digitsAt)
		if !ok {
			continue
		}
		mt.cur.nums[i], mt.cur.wid[i] = v, uint8(w)
		mt.at(i+1, pos+w)
	}
}

func (mt *matcher) found(m int) {
	mt.ways++
	if mt.ways == 1 {
		mt.first = mt.cur
		mt.first.m = m
	}
}

// parseUint reads decimal digits, false when they pass a uint64.
func parseUint(b []byte) (uint64, bool) {
	var v uint64
	for _, c := range b {
		x := uint64(c - '0')
		if v > (^uint64(0)-x)/10 {
			return 0, false
		}
		v = v*10 + x
	}
	return v, true
}

// eagerVerdicts is the most skeletons whose verdicts a filter works out
// all at once, which lets it settle a node from its alphabet alone; a
// larger alphabet is judged a skeleton at a time as rows meet it.
const eagerVerdicts = 4096

// unknownVerdict marks a skeleton not judged yet.
const unknownVerdict = 0xff

// prepare readies the verdicts of p, kept from the last call when p is
// the same predicate (a Nullable parent filters batch by batch), and
// reports whether every skeleton rules its rows out.
func (d *decoder) prepare(p *encoding.BytesPred) (settled bool) {
	if d.vPred == p && d.vOp == p.Op && bytes.Equal(d.vA, p.A) && bytes.Equal(d.vB, p.B) &&
		slices.EqualFunc(d.vSet, p.Set, bytes.Equal) {
		return d.vSettled
	}
	d.vPred, d.vOp = p, p.Op
	d.vA, d.vB = append(d.vA[:0], p.A...), append(d.vB[:0], p.B...)
	d.vSet = d.vSet[:0]
	for _, x := range p.Set {
		d.vSet = append(d.vSet, bytes.Clone(x))
	}
	if cap(d.verdict) < len(d.skels) {
		d.verdict = make([]byte, len(d.skels))
		d.wants = make([]want, len(d.skels))
	}
	d.verdict = d.verdict[:len(d.skels)]
	if len(d.skels) > eagerVerdicts {
		for s := range d.verdict {
			d.verdict[s] = unknownVerdict
		}
		d.vSettled = false
		return false
	}
	d.vSettled = true
	for s := range d.verdict {
		d.verdict[s] = d.judge(s, p)
		d.vSettled = d.vSettled && d.verdict[s] == matchNone
	}
	return d.vSettled
}

// verdictOf returns skeleton id's verdict for p, judging it on first use.
func (d *decoder) verdictOf(id uint32, p *encoding.BytesPred) byte {
	v := d.verdict[id]
	if v == unknownVerdict {
		v = d.judge(int(id), p)
		d.verdict[id] = v
	}
	return v
}

// judge works out skeleton s's verdict for p (and what it wants).
func (d *decoder) judge(s int, p *encoding.BytesPred) byte {
	var buf [MaxFields + 1][]byte
	return d.verdict1(s, p, d.pieces(s, buf[:0]), &d.wants[s])
}

// verdict1 settles skeleton s for p from its pieces where it can. Every
// value of a skeleton is its pieces with a number of 1 to 20 digits
// between each two, whichever writer cut it, so the first piece followed
// by a digit starts every value.
func (d *decoder) verdict1(s int, p *encoding.BytesPred, pieces [][]byte, w *want) byte {
	head := pieces[0]
	if len(pieces) == 1 {
		if p.Match(head) {
			return matchAll
		}
		return matchNone
	}
	is := func(ok bool) byte {
		if ok {
			return matchAll
		}
		return matchNone
	}
	read := func(a []byte, prefix bool) (ways int) {
		mt := matcher{d: d, pieces: pieces, a: a, prefix: prefix}
		mt.at(0, 0)
		*w = mt.first
		return mt.ways
	}
	switch p.Op {
	case encoding.OpEq, encoding.OpNe:
		ways := read(p.A, false)
		switch {
		case ways == 0:
			return is(p.Op == encoding.OpNe)
		case ways == 1 && p.Op == encoding.OpEq:
			return matchNums
		}
	case encoding.OpIn:
		k := 0
		for _, a := range p.Set {
			if read(a, false) > 0 {
				k++
			}
		}
		if k == 0 {
			return matchNone
		}
		if k == 1 { // one member can be a value of s: Eq on it
			for _, a := range p.Set {
				if ways := read(a, false); ways > 0 {
					if ways == 1 {
						return matchNums
					}
					break
				}
			}
		}
	case encoding.OpPrefix:
		switch ways := read(p.A, true); {
		case ways == 0:
			return matchNone
		case ways == 1 && w.m == 0:
			return matchAll
		case ways == 1:
			return matchNums
		}
	case encoding.OpLt, encoding.OpLe:
		if c := side(head, p.A); c != 0 {
			return is(c < 0)
		}
	case encoding.OpGt, encoding.OpGe:
		if c := side(head, p.A); c != 0 {
			return is(c > 0)
		}
	case encoding.OpBetween:
		lo, hi := side(head, p.A), side(head, p.B)
		if lo < 0 || hi > 0 {
			return matchNone
		}
		if lo > 0 && hi < 0 {
			return matchAll
		}
	}
	return undecided
}

// side compares every value that starts with head and then a digit with
// a: -1 when all are less, 1 when all are greater, 0 when it depends on
// the rest.
func side(head, a []byte) int {
	m := min(len(head), len(a))
	if c := bytes.Compare(head[:m], a[:m]); c != 0 {
		return c
	}
	if len(a) <= len(head) {
		return 1 // a is a prefix of head, so a proper prefix of every value
	}
	switch next := a[len(head)]; {
	case next < '0':
		return 1
	case next > '9':
		return -1
	}
	return 0
}

// numsMatch reports whether the row whose numbers start at pos has w's.
func (d *decoder) numsMatch(w *want, pos *[MaxFields]int) bool {
	for j := 0; j < w.m; j++ {
		if d.vBuf[j][pos[j]] != w.nums[j] || d.wBuf[j][pos[j]] != w.wid[j] {
			return false
		}
	}
	return true
}

// FilterBinary tests the next n values. A row's skeleton settles it
// where its pieces decide the predicate; for Eq, In of one possible
// member and Prefix, an operand that reads one way as a value of the
// skeleton leaves the row's numbers to compare; only the rows left
// after that are printed and compared.
func (d *decoder) FilterBinary(p *encoding.BytesPred, n int, sel encoding.Bitmap) error {
	if err := cascade.CheckRead(encoding.KindFieldText, d.at, n, d.n); err != nil {
		return err
	}
	if n == 0 {
		return nil
	}
	if d.prepare(p) {
		cascade.ClearRange(sel, 0, n)
		d.skipped++
		return d.Skip(n)
	}
	for off := 0; off < n; {
		k := min(n-off, cascade.Batch)
		need, err := d.batch(k)
		if err != nil {
			return err
		}
		open := false
		for i, id := range d.idBuf {
			if !sel.Get(off + i) {
				continue
			}
			switch d.verdictOf(id, p) {
			case matchNone:
				sel.Clear(off + i)
			case undecided, matchNums:
				open = true
			}
		}
		if !open {
			if err := d.skipSlots(need); err != nil {
				return err
			}
		} else {
			if _, err := d.readSlots(need); err != nil {
				return err
			}
			var pos [MaxFields]int
			for i, id := range d.idBuf {
				if sel.Get(off + i) {
					switch d.verdictOf(id, p) {
					case matchNums:
						if !d.numsMatch(&d.wants[id], &pos) {
							sel.Clear(off + i)
						}
					case undecided:
						l := d.rowLen(id, &pos)
						d.row = cascade.Grow(d.row, l+pad)
						at := pos
						end := d.printRow(d.row, 0, id, &at)
						if !p.Match(d.row[:end]) {
							sel.Clear(off + i)
						}
					}
				}
				for j := 0; j < int(d.skels[id].fields); j++ {
					pos[j]++
				}
			}
		}
		d.at += k
		off += k
	}
	return d.slotsLeft()
}

// GatherBinary appends the values at rows (strictly increasing). It reads
// the skeleton ids up to the last row to place each wanted row in the
// slots, gathers only the wanted rows' numbers, and prints those rows.
func (d *decoder) GatherBinary(rows []int32, dst *encoding.Bytes) error {
	if err := cascade.CheckGather(encoding.KindFieldText, rows, len(rows), d.n); err != nil {
		return err
	}
	if len(rows) == 0 {
		return nil
	}
	if d.gIDs == nil {
		r, err := cascade.OpenFixed[uint32](d.idsNode, d.depth, d.opts, d.n, "fieldtext ids")
		if err != nil {
			return err
		}
		d.gIDs = r
	}
	d.gIDs.Reset()
	for j := 0; j < d.f; j++ {
		d.gPos[j] = d.gPos[j][:0]
	}
	want := d.idBuf[:0]
	// hist counts the rows read so far by their number of fields; a
	// wanted row's position in slot j is the count of rows with more
	// than j fields
	var hist [MaxFields + 1]int32
	a := uint32(len(d.skels))
	last := int(rows[len(rows)-1])
	k := 0
	for at := 0; at <= last; {
		m := min(last+1-at, cascade.Batch)
		d.gBuf = cascade.Grow(d.gBuf, m)
		if err := d.gIDs.Read(d.gBuf); err != nil {
			return fmt.Errorf("fieldtext ids: %w", err)
		}
		next := int(rows[k]) - at
		for i, id := range d.gBuf {
			if id >= a {
				return encoding.Corruptf("fieldtext: skeleton id %d of %d", id, a)
			}
			f := d.skels[id].fields
			if i == next {
				want = append(want, id)
				var above int32
				for j := d.f - 1; j >= 0; j-- {
					above += hist[j+1]
					if j < int(f) {
						d.gPos[j] = append(d.gPos[j], above)
					}
				}
				if k++; k == len(rows) {
					break
				}
				next = int(rows[k]) - at
			}
			hist[f]++
		}
		at += m
	}
	d.idBuf = want
	total := 0
	for _, id := range want {
		total += int(d.skels[id].lits)
	}
	for j := 0; j < d.f; j++ {
		pos := d.gPos[j]
		if len(pos) == 0 {
			continue
		}
		if int(pos[len(pos)-1]) >= d.vals[j].Len() {
			return encoding.Corruptf("fieldtext: slot %d holds %d values, its rows use more", j, d.vals[j].Len())
		}
		d.vBuf[j] = cascade.Grow(d.vBuf[j], len(pos))
		if err := cascade.GatherChild(d.vals[j], &d.gVals[j], d.vNode[j], d.depth, d.opts, d.vals[j].Len(), "fieldtext values", pos, d.vBuf[j]); err != nil {
			return fmt.Errorf("fieldtext slot %d: %w", j, err)
		}
		d.wBuf[j] = cascade.Grow(d.wBuf[j], len(pos))
		if d.wids[j] != nil {
			if err := cascade.GatherChild(d.wids[j], &d.gWids[j], d.wNode[j], d.depth, d.opts, d.wids[j].Len(), "fieldtext widths", pos, d.wBuf[j]); err != nil {
				return fmt.Errorf("fieldtext slot %d widths: %w", j, err)
			}
		}
		w, err := d.widths(j)
		if err != nil {
			return err
		}
		total += w
	}
	if len(dst.Offsets) == 0 {
		dst.Offsets = append(dst.Offsets, int32(len(dst.Data)))
	}
	if len(dst.Data)+total > d.limit {
		return encoding.Limitf("fieldtext: more than %d bytes of values", d.limit)
	}
	d.print(dst, total)
	return nil
}

// Skipped implements encoding.SkipCounter: filters settled on the
// skeletons alone.
func (d *decoder) Skipped() int { return d.skipped }

// compile-time checks of the capabilities.
var (
	_ encoding.BinaryReader   = (*decoder)(nil)
	_ encoding.BinaryFilterer = (*decoder)(nil)
	_ encoding.SkipCounter    = (*decoder)(nil)
	_ encoding.BinaryGatherer = (*decoder)(nil)
	_ encoding.Walker         = (*decoder)(nil)
)

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
