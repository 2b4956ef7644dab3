// Package hextext implements HexText: binary values of one length whose
// bytes are, position by position, a hexadecimal digit in every value or
// one fixed separator in every value (UUIDs, hashes printed in hex, MAC
// addresses, hex ids). The digits are stored as an unsigned integer when
// there are at most 16 of them and as packed bytes, two digits a byte, when
// there are more, so a digit costs four bits where text costs eight and
// FSST or zstd five to six on random hex.
//
// Body layout (docs/FORMAT.md, "HexText (kind 25)"):
//
//	form: u8 | case: u8 | L: uvarint | template: L bytes | values node
//
// The template holds the separators and a '0' at every digit position.
// In the integer form (form 0) the values child is uint64 and bytewise order
// of the texts is numeric order, so bounds and every predicate work on the
// integers; in the bytes form (form 1) it is binary, ceil(H/2) bytes a value.
package hextext

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/bits"
	"strings"

	"strata/encoding"
	"strata/encoding/internal/cascade"
)

// Codec registers HexText.
var Codec = &encoding.Codec{
	Kind:    encoding.KindHexText,
	Types:   encoding.TypesOf(encoding.Binary),
	Open:    open,
	Encoder: encoder{},
	Decode:  encoding.Cost{PerString: 1.9, PerByte: 1.7}, // strata calibrate beside Trivial, Dictionary, FSST and FrontCoding, scaled to the table (docs/benchmarks.md, 2026-12-06)
}

// Forms.
const (
	formInt   = 0
	formBytes = 1
	// formWidths holds hex numbers of varying widths, without separators,
	// as integers beside their widths.
	formWidths = 2
)

// maxIntDigits is the most digits the integer form holds: 16 hex digits
// fill a uint64.
const maxIntDigits = 16

// MaxLen is the longest value writers offer HexText for (encoding.MaxHexLen).
const MaxLen = encoding.MaxHexLen

const lower, upper = "0123456789abcdef", "0123456789ABCDEF"

// digit returns the value of hex digit c and its letter case (0 for a
// decimal digit, 1 lowercase, 2 uppercase), or -1 when c is no hex digit.
func digit(c byte) (int, int) {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0'), 0
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10, 1
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10, 2
	}
	return -1, 0
}

type encoder struct{}

// Fit accepts binary sequences whose values share one template of hex
// digits and separators, with letters of one case, that are not all
// decimal digit strings (DigitText stores those in fewer bits).
func (encoder) Fit(st *encoding.Stats) bool {
	return st.Type == encoding.Binary && st.N > 0 && (st.Hex || st.HexDigits) && !st.Digits
}

// Estimate defers to a trial: the values child's size depends on the cascade.
func (encoder) Estimate(*encoding.Stats) (int, bool) { return 0, false }

// Encode appends the body for vals, or fails when some value does not fit
// the first value's template.
func (encoder) Encode(dst []byte, vals any, st *encoding.Stats, ctx *encoding.Ctx) ([]byte, error) {
	b, ok := encoding.BinaryValues(vals)
	if !ok {
		return dst, fmt.Errorf("hextext: cannot encode %T", vals)
	}
	n := b.Len()
	if n == 0 {
		return dst, fmt.Errorf("hextext: no values")
	}
	first := b.Value(0)
	l := len(first)
	for i := 1; i < n && l > 0; i++ {
		if len(b.Value(i)) != l {
			return encodeWidths(dst, b, ctx)
		}
	}
	if l == 0 || l > MaxLen {
		return encodeWidths(dst, b, ctx)
	}
	tmpl := make([]byte, l)
	h := 0
	for j, c := range first {
		if d, _ := digit(c); d >= 0 {
			tmpl[j] = '0'
			h++
		} else {
			tmpl[j] = c
		}
	}
	if h == 0 {
		return dst, fmt.Errorf("hextext: no digit positions")
	}
	form := byte(formInt)
	var nums []uint64
	var packed encoding.Bytes
	if h <= maxIntDigits {
		nums = make([]uint64, n)
	} else {
		form = formBytes
		packed.Data = make([]byte, 0, n*((h+1)/2))
		packed.Offsets = make([]int32, 1, n+1)
	}
	cases := 0
	for i := 0; i < n; i++ {
		x := b.Value(i)
		if len(x) != l {
			return dst, fmt.Errorf("hextext: value %d has %d bytes, not %d", i, len(x), l)
		}
		var v uint64
		var cur byte
		nib := h % 2 // nibble index: an odd count leaves the first high half zero
		for j, c := range x {
			t := tmpl[j]
			if t != '0' {
				if c != t {
					return dst, fmt.Errorf("hextext: value %d differs from the template at byte %d", i, j)
				}
				continue
			}
			d, cs := digit(c)
			if d < 0 {
				return dst, fmt.Errorf("hextext: value %d has no hex digit at byte %d", i, j)
			}
			cases |= cs
			if form == formInt {
				v = v<<4 | uint64(d)
			} else if nib&1 == 0 {
				cur = byte(d) << 4
			} else {
				packed.Data = append(packed.Data, cur|byte(d))
				cur = 0
			}
			nib++
		}
		if form == formInt {
			nums[i] = v
		} else {
			packed.Offsets = append(packed.Offsets, int32(len(packed.Data)))
		}
	}
	if cases == 3 {
		return dst, fmt.Errorf("hextext: letters of both cases")
	}
	dst = append(dst, form, byte(cases>>1))
	dst = appendUvarint(dst, uint64(l))
	dst = append(dst, tmpl...)
	var err error
	if form == formInt {
		dst, err = ctx.EncodeChild(dst, nums)
	} else {
		dst, err = ctx.EncodeChild(dst, &packed)
	}
	if err != nil {
		return dst, fmt.Errorf("values: %w", err)
	}
	return dst, nil
}

// encodeWidths appends the body of the widths form, for values of 0 to 16
// hex digits of varying lengths.
func encodeWidths(dst []byte, b *encoding.Bytes, ctx *encoding.Ctx) ([]byte, error) {
	n := b.Len()
	nums := make([]uint64, n)
	widths := make([]uint8, n)
	cases := 0
	for i := 0; i < n; i++ {
		x := b.Value(i)
		if len(x) > maxIntDigits {
			return dst, fmt.Errorf("hextext: value %d has %d bytes, more than %d digits", i, len(x), maxIntDigits)
		}
		var v uint64
		for j, c := range x {
			d, cs := digit(c)
			if d < 0 {
				return dst, fmt.Errorf("hextext: value %d has no hex digit at byte %d", i, j)
			}
			cases |= cs
			v = v<<4 | uint64(d)
		}
		nums[i], widths[i] = v, uint8(len(x))
	}
	if cases == 3 {
		return dst, fmt.Errorf("hextext: letters of both cases")
	}
	dst = append(dst, formWidths, byte(cases>>1))
	var err error
	if dst, err = ctx.EncodeChild(dst, nums); err != nil {
		return dst, fmt.Errorf("values: %w", err)
	}
	if dst, err = ctx.EncodeChild(dst, widths); err != nil {
		return dst, fmt.Errorf("widths: %w", err)
	}
	return dst, nil
}

func appendUvarint(dst []byte, v uint64) []byte {
	for v >= 0x80 {
		dst = append(dst, byte(v)|0x80)
		v >>= 7
	}
	return append(dst, byte(v))
}

func open(h encoding.Header, opts *encoding.Options) (encoding.Decoder, error) {
	if h.Type != encoding.Binary {
		return nil, encoding.Unsupportedf("hextext: type %v", h.Type)
	}
	if len(h.Body) < 2 {
		return nil, encoding.Corruptf("hextext: body of %d bytes", len(h.Body))
	}
	form, cs := h.Body[0], h.Body[1]
	if form > formWidths {
		return nil, encoding.Unsupportedf("hextext: form %d", form)
	}
	if cs > 1 {
		return nil, encoding.Unsupportedf("hextext: case %d", cs)
	}
	if form == formWidths {
		return openWidths(h, cs, opts)
	}
	l, rest, err := encoding.Uvarint(h.Body[2:], "hextext length")
	if err != nil {
		return nil, err
	}
	if l == 0 || l > uint64(len(rest)) {
		return nil, encoding.Corruptf("hextext: template of %d bytes in %d", l, len(rest))
	}
	tmpl, rest := rest[:l], rest[l:]
	var pos []int
	for j, c := range tmpl {
		if c == '0' {
			pos = append(pos, j)
		} else if d, _ := digit(c); d >= 0 {
			return nil, encoding.Corruptf("hextext: template byte %q", c)
		}
	}
	hd := len(pos)
	if hd == 0 {
		return nil, encoding.Corruptf("hextext: template without digits")
	}
	if form == formInt && hd > maxIntDigits {
		return nil, encoding.Corruptf("hextext: %d digits in the integer form", hd)
	}
	if uint64(h.Rows)*l > uint64(cascade.OutLimit(opts)) {
		return nil, encoding.Limitf("hextext: %d values of %d bytes", h.Rows, l)
	}
	vn, rest, err := encoding.Child(rest, "hextext values")
	if err != nil {
		return nil, err
	}
	if len(rest) != 0 {
		return nil, encoding.Corruptf("hextext: %d trailing bytes", len(rest))
	}
	d := &decoder{n: h.Rows, form: form, tmpl: tmpl, pos: pos, node: vn, opts: opts, depth: h.Depth + 1}
	d.alpha, d.letter = lower, 'a'-'0'-10
	if cs == 1 {
		d.alpha, d.letter = upper, 'A'-'0'-10
	}
	for i, p := range pos {
		if i > 0 && p == pos[i-1]+1 {
			d.runs[len(d.runs)-1].n++
		} else {
			d.runs = append(d.runs, run{at: p, n: 1, k: i})
		}
	}
	for j, c := range tmpl {
		if c != '0' {
			d.seps = append(d.seps, sep{j, c})
		}
	}
	for _, r := range d.runs {
		for c := 0; c < r.n; c += 8 {
			q := r.k + c
			d.stores = append(d.stores, store{at: r.at + c, q: q, sh: 4*(hd-1-q) - 28})
		}
	}
	d.sep = hd < len(tmpl)
	if form == formInt {
		d.ints, err = cascade.OpenFixed[uint64](vn, d.depth, opts, h.Rows, "hextext values")
	} else {
		d.bins, err = cascade.OpenBinary(vn, d.depth, opts, h.Rows, "hextext values")
	}
	if err != nil {
		return nil, err
	}
	return d, nil
}

// openWidths opens a node of the widths form.
func openWidths(h encoding.Header, cs byte, opts *encoding.Options) (encoding.Decoder, error) {
	if uint64(h.Rows)*maxIntDigits > uint64(cascade.OutLimit(opts)) {
		return nil, encoding.Limitf("hextext: %d values of up to %d bytes", h.Rows, maxIntDigits)
	}
	vn, rest, err := encoding.Child(h.Body[2:], "hextext values")
	if err != nil {
		return nil, err
	}
	wn, rest, err := encoding.Child(rest, "hextext widths")
	if err != nil {
		return nil, err
	}
	if len(rest) != 0 {
		return nil, encoding.Corruptf("hextext: %d trailing bytes", len(rest))
	}
	d := &decoder{n: h.Rows, form: formWidths, node: vn, wnode: wn, opts: opts, depth: h.Depth + 1}
	d.alpha, d.letter = lower, 'a'-'0'-10
	if cs == 1 {
		d.alpha, d.letter = upper, 'A'-'0'-10
	}
	if d.ints, err = cascade.OpenFixed[uint64](vn, d.depth, opts, h.Rows, "hextext values"); err != nil {
		return nil, err
	}
	if d.widths, err = cascade.OpenFixed[uint8](wn, d.depth, opts, h.Rows, "hextext widths"); err != nil {
		return nil, err
	}
	return d, nil
}

// decoder reads a HexText node by reading its values child in batches and
// printing the digits into the template.
type decoder struct {
	n, at  int
	form   byte
	tmpl   []byte
	pos    []int // digit positions in the template, in order
	alpha  string
	letter uint64 // what hex8 adds to a letter digit past '0' + 10
	runs   []run  // the template's runs of digits, in order
	seps   []sep  // its separators
	stores []store
	sep    bool // the template has separators
	node   []byte
	opts   *encoding.Options
	depth  int
	ints   encoding.Reader[uint64]
	// the widths form's second child
	widths encoding.Reader[uint8]
	wnode  []byte
	wbuf   []uint8
	gw     encoding.Reader[uint8]
	bins   encoding.BinaryReader
	vbuf   []uint64
	bbuf   encoding.Bytes
	// private cursors for gathers over children without a gatherer
	gi      encoding.Reader[uint64]
	gb      encoding.BinaryReader
	skipped int
	scratch encoding.Bytes
}

func (d *decoder) Kind() encoding.Kind { return encoding.KindHexText }
func (d *decoder) Type() encoding.Type { return encoding.Binary }
func (d *decoder) Len() int            { return d.n }
func (d *decoder) Pos() int            { return d.at }

// Skipped implements encoding.SkipCounter.
func (d *decoder) Skipped() int { return d.skipped }

func (d *decoder) Reset() {
	d.at = 0
	if d.ints != nil {
		d.ints.Reset()
	} else {
		d.bins.Reset()
	}
	if d.widths != nil {
		d.widths.Reset()
	}
}

// Children implements encoding.Walker.
func (d *decoder) Children() []encoding.ChildNode {
	if d.widths != nil {
		return []encoding.ChildNode{{Role: "values", Node: d.node}, {Role: "widths", Node: d.wnode}}
	}
	return []encoding.ChildNode{{Role: "values", Node: d.node}}
}

func (d *decoder) Skip(n int) error {
	if err := cascade.CheckRead(encoding.KindHexText, d.at, n, d.n); err != nil {
		return err
	}
	var err error
	if d.ints != nil {
		err = d.ints.Skip(n)
	} else {
		err = d.bins.Skip(n)
	}
	if err == nil && d.widths != nil {
		err = d.widths.Skip(n)
	}
	if err != nil {
		return err
	}
	d.at += n
	return nil
}

// ReadBinary appends the next n values to dst.
func (d *decoder) ReadBinary(dst *encoding.Bytes, n int) error {
	if err := cascade.CheckRead(encoding.KindHexText, d.at, n, d.n); err != nil {
		return err
	}
	if len(dst.Offsets) == 0 {
		dst.Offsets = append(dst.Offsets, int32(len(dst.Data)))
	}
	for n > 0 {
		k := min(n, cascade.Batch)
		if d.widths != nil {
			d.vbuf = cascade.Grow(d.vbuf, k)
			d.wbuf = cascade.Grow(d.wbuf, k)
			if err := d.ints.Read(d.vbuf); err != nil {
				return err
			}
			if err := d.widths.Read(d.wbuf); err != nil {
				return err
			}
			if err := d.formatWidths(dst, d.vbuf, d.wbuf); err != nil {
				return err
			}
		} else if d.ints != nil {
			d.vbuf = cascade.Grow(d.vbuf, k)
			if err := d.ints.Read(d.vbuf); err != nil {
				return err
			}
			if err := d.formatInts(dst, d.vbuf); err != nil {
				return err
			}
		} else {
			if err := d.bins.ReadBinary(d.packedBuf(), k); err != nil {
				return err
			}
			if err := d.formatBytes(dst, &d.bbuf); err != nil {
				return err
			}
		}
		d.at += k
		n -= k
	}
	return nil
}

// packedBuf empties the buffer packed values are read into. Its offsets
// start with one entry, so that no child reader takes the empty
// destination as leave to share its own memory (trivial's zero-copy read):
// the buffer stays this decoder's, reused from batch to batch.
func (d *decoder) packedBuf() *encoding.Bytes {
	d.bbuf.Data = d.bbuf.Data[:0]
	d.bbuf.Offsets = append(d.bbuf.Offsets[:0], 0)
	return &d.bbuf
}

// room grows dst for k more values of the template's length, with
// wordSlack bytes of capacity after them for emit's word stores.
func (d *decoder) room(dst *encoding.Bytes, k int) ([]byte, []int32, error) {
	l := len(d.tmpl)
	w := len(dst.Data)
	if w+l*k > cascade.OutLimit(d.opts) {
		return nil, nil, encoding.Limitf("hextext: binary values need more than %d bytes", cascade.OutLimit(d.opts))
	}
	return cascade.Extend(dst.Data, l*k+wordSlack)[:w+l*k], cascade.Extend(dst.Offsets, k), nil
}

// wordSlack is the capacity the format functions may write past the last
// value.
const wordSlack = 8

// A store prints eight digits of a value with one 8-byte store at byte at
// of the value, the first being digit q (most significant first): each
// run of the template's digit positions takes one store per eight
// digits. A store runs over into the bytes after its run, which the next
// store, the separators written last, or the next value overwrite. In the
// integer form sh is the shift that brings digit q to the top four bits
// of a uint32 (negative: to the left).
type store struct{ at, q, sh int }

// separators writes the template's separators of the value at ext[w:].
func (d *decoder) separators(ext []byte, w int) {
	for _, sp := range d.seps {
		ext[w+sp.at] = sp.c
	}
}

// formatInts appends the texts of the integers vs, computed from each
// integer in registers, eight digits a store.
func (d *decoder) formatInts(dst *encoding.Bytes, vs []uint64) error {
	h := len(d.pos)
	if h < maxIntDigits {
		lim := uint64(1) << (4 * h)
		for _, v := range vs {
			if v >= lim {
				return encoding.Corruptf("hextext: value %#x has more than %d digits", v, h)
			}
		}
	}
	w, no := len(dst.Data), len(dst.Offsets)
	data, offs, err := d.room(dst, len(vs))
	if err != nil {
		return err
	}
	ext := data[:cap(data)]
	l := len(d.tmpl)
	add := d.letter
	for i, v := range vs {
		for _, st := range d.stores {
			var x uint32
			if st.sh >= 0 {
				x = uint32(v >> st.sh)
			} else {
				x = uint32(v << -st.sh)
			}
			binary.LittleEndian.PutUint64(ext[w+st.at:], hex8(bits.ReverseBytes32(x), add))
		}
		d.separators(ext, w)
		w += l
		offs[no+i] = int32(w)
	}
	dst.Data, dst.Offsets = data[:w], offs
	return nil
}

// hex8 returns the eight hex digits of the four bytes of x, the first
// byte's in the low half (x as read little-endian from packed bytes), as
// the bytes of a little-endian uint64: each nibble is spread to a byte of
// its own and offset to '0', plus add more for the letters.
func hex8(x uint32, add uint64) uint64 {
	y := uint64(x)
	y = (y | y<<16) & 0x0000ffff0000ffff
	y = (y | y<<8) & 0x00ff00ff00ff00ff
	u := (y>>4)&0x000f000f000f000f | (y&0x000f000f000f000f)<<8
	letters := ((u + 0x0606060606060606) >> 4) & 0x0101010101010101
	return u + 0x3030303030303030 + letters*add
}

// formatWidths appends the texts of the widths form: each integer,
// shifted to start its w digits at the top, prints sixteen digits with two
// stores, of which the next value overwrites all but the first w.
func (d *decoder) formatWidths(dst *encoding.Bytes, vs []uint64, ws []uint8) error {
	size := 0
	for i, w := range ws {
		if w > maxIntDigits || (w < maxIntDigits && vs[i] >= uint64(1)<<(4*w)) {
			return encoding.Corruptf("hextext: value %#x does not fit %d digits", vs[i], w)
		}
		size += int(w)
	}
	w, no := len(dst.Data), len(dst.Offsets)
	if w+size > cascade.OutLimit(d.opts) {
		return encoding.Limitf("hextext: binary values need more than %d bytes", cascade.OutLimit(d.opts))
	}
	data := cascade.Extend(dst.Data, size+2*wordSlack)[:w+size]
	offs := cascade.Extend(dst.Offsets, len(vs))
	ext := data[:cap(data)]
	add := d.letter
	for i, v := range vs {
		width := int(ws[i])
		if width > 0 {
			v <<= 4 * (maxIntDigits - width)
			binary.LittleEndian.PutUint64(ext[w:], hex8(bits.ReverseBytes32(uint32(v>>32)), add))
			binary.LittleEndian.PutUint64(ext[w+8:], hex8(bits.ReverseBytes32(uint32(v)), add))
		}
		w += width
		offs[no+i] = int32(w)
	}
	dst.Data, dst.Offsets = data[:w], offs
	return nil
}

// formatBytes appends the texts of the packed values of b, eight digits a
// store, each store's digits loaded from the packed bytes (eight bytes at
// a time where b's data reaches that far, byte by byte at its end).
func (d *decoder) formatBytes(dst *encoding.Bytes, b *encoding.Bytes) error {
	h := len(d.pos)
	nb := (h + 1) / 2
	odd := h % 2
	k := b.Len()
	w, no := len(dst.Data), len(dst.Offsets)
	data, offs, err := d.room(dst, k)
	if err != nil {
		return err
	}
	ext := data[:cap(data)]
	l := len(d.tmpl)
	add := d.letter
	src := b.Data
	for i := 0; i < k; i++ {
		lo, hi := int(b.Offsets[i]), int(b.Offsets[i+1])
		if hi-lo != nb {
			return encoding.Corruptf("hextext: packed value of %d bytes, want %d", hi-lo, nb)
		}
		if odd == 1 && src[lo]>>4 != 0 {
			return encoding.Corruptf("hextext: packed value %x has a digit before its first", src[lo:hi])
		}
		for _, st := range d.stores {
			q := st.q + odd
			p := lo + q>>1
			var v uint64
			if p+8 <= len(src) {
				v = binary.BigEndian.Uint64(src[p:])
			} else {
				for j := 0; j < 8; j++ {
					v <<= 8
					if p+j < hi {
						v |= uint64(src[p+j])
					}
				}
			}
			x := uint32(v >> (32 - 4*(q&1)))
			binary.LittleEndian.PutUint64(ext[w+st.at:], hex8(bits.ReverseBytes32(x), add))
		}
		d.separators(ext, w)
		w += l
		offs[no+i] = int32(w)
	}
	dst.Data, dst.Offsets = data[:w], offs
	return nil
}

// run is a stretch of n digit positions of the template from byte at,
// holding digits k to k+n of the value.
type run struct{ at, n, k int }

// sep is a separator byte of the template.
type sep struct {
	at int
	c  byte
}

// GatherBinary appends the values at rows (strictly increasing).
func (d *decoder) GatherBinary(rows []int32, dst *encoding.Bytes) error {
	if err := cascade.CheckGather(encoding.KindHexText, rows, len(rows), d.n); err != nil {
		return err
	}
	if len(dst.Offsets) == 0 {
		dst.Offsets = append(dst.Offsets, int32(len(dst.Data)))
	}
	for len(rows) > 0 {
		k := min(len(rows), cascade.Batch)
		if d.widths != nil {
			d.vbuf = cascade.Grow(d.vbuf, k)
			d.wbuf = cascade.Grow(d.wbuf, k)
			if err := d.gatherInts(rows[:k], d.vbuf); err != nil {
				return err
			}
			if err := d.gatherWidths(rows[:k], d.wbuf); err != nil {
				return err
			}
			if err := d.formatWidths(dst, d.vbuf, d.wbuf); err != nil {
				return err
			}
		} else if d.ints != nil {
			d.vbuf = cascade.Grow(d.vbuf, k)
			if err := d.gatherInts(rows[:k], d.vbuf); err != nil {
				return err
			}
			if err := d.formatInts(dst, d.vbuf); err != nil {
				return err
			}
		} else {
			if err := d.gatherBins(rows[:k], d.packedBuf()); err != nil {
				return err
			}
			if err := d.formatBytes(dst, &d.bbuf); err != nil {
				return err
			}
		}
		rows = rows[k:]
	}
	return nil
}

func (d *decoder) gatherInts(rows []int32, dst []uint64) error {
	return cascade.GatherChild(d.ints, &d.gi, d.node, d.depth, d.opts, d.n, "hextext gather", rows, dst)
}

func (d *decoder) gatherWidths(rows []int32, dst []uint8) error {
	return cascade.GatherChild(d.widths, &d.gw, d.wnode, d.depth, d.opts, d.n, "hextext gather", rows, dst)
}

func (d *decoder) gatherBins(rows []int32, dst *encoding.Bytes) error {
	return cascade.GatherChildBinary(d.bins, &d.gb, d.node, d.depth, d.opts, d.n, "hextext gather", rows, dst)
}

// print writes the text of integer v into out (len(d.tmpl) bytes).
func (d *decoder) print(out []byte, v uint64) {
	copy(out, d.tmpl)
	for k := len(d.pos) - 1; k >= 0; k-- {
		out[d.pos[k]] = d.alpha[v&15]
		v >>= 4
	}
}

// BinaryBounds reports, in the integer form, the values child's bounds
// printed through the template.
func (d *decoder) BinaryBounds() (min, max []byte, ok bool) {
	if d.ints == nil || d.widths != nil || d.n == 0 {
		return nil, nil, false
	}
	b, ok := d.ints.(encoding.Bounder[uint64])
	if !ok {
		return nil, nil, false
	}
	mn, mx, ok := b.Bounds()
	if !ok || mn > mx || (len(d.pos) < maxIntDigits && mx >= uint64(1)<<(4*len(d.pos))) {
		return nil, nil, false
	}
	min, max = make([]byte, len(d.tmpl)), make([]byte, len(d.tmpl))
	d.print(min, mn)
	d.print(max, mx)
	return min, max, true
}

// parse returns the integer a stands for in the integer form, ok false
// when a is no text of the node's template and case.
func (d *decoder) parse(a []byte) (v uint64, ok bool) {
	if len(a) != len(d.tmpl) {
		return 0, false
	}
	for j, c := range a {
		t := d.tmpl[j]
		if t != '0' {
			if c != t {
				return 0, false
			}
			continue
		}
		i := bytes.IndexByte(d.alphaBytes(), c)
		if i < 0 {
			return 0, false
		}
		v = v<<4 | uint64(i)
	}
	return v, true
}

// pack returns the packed bytes a stands for in the bytes form, ok false
// when a is no text of the node's template and case.
func (d *decoder) pack(a []byte) ([]byte, bool) {
	if len(a) != len(d.tmpl) {
		return nil, false
	}
	h := len(d.pos)
	out := make([]byte, (h+1)/2)
	s := h % 2
	for j, c := range a {
		t := d.tmpl[j]
		if t != '0' {
			if c != t {
				return nil, false
			}
			continue
		}
		i := bytes.IndexByte(d.alphaBytes(), c)
		if i < 0 {
			return nil, false
		}
		if s&1 == 0 {
			out[s>>1] |= byte(i) << 4
		} else {
			out[s>>1] |= byte(i)
		}
		s++
	}
	return out, true
}

// rank returns how many texts of the template sort bytewise below a, for
// templates of at most 15 digits (16^15 texts fit a uint64 with room).
func (d *decoder) rank(a []byte) uint64 {
	r := uint64(0)
	left := len(d.pos) // digit positions from here on
	for j, t := range d.tmpl {
		if j == len(a) {
			return r // the texts that start with a are above it
		}
		c := a[j]
		if t != '0' {
			switch {
			case c < t:
				return r
			case c > t:
				return r + uint64(1)<<(4*left)
			}
			continue
		}
		left--
		below := uint64(countBelow(d.alpha, c))
		r += below << (4 * left)
		if below == 16 || d.alpha[below] != c {
			return r // no digit equals c: the texts above it are counted out
		}
	}
	if len(a) > len(d.tmpl) {
		r++ // the text equal to a's first bytes is below a
	}
	return r
}

// alphaBytes returns the node's sixteen digits in order.
func (d *decoder) alphaBytes() []byte { return []byte(d.alpha) }

// countBelow counts the digits of alpha (ascending bytes) below c.
func countBelow(alpha string, c byte) int {
	n := 0
	for n < len(alpha) && alpha[n] < c {
		n++
	}
	return n
}

// numericPred turns p into a predicate on the integers; ok is false when
// p has no such form here.
func (d *decoder) numericPred(p *encoding.BytesPred) (q *encoding.Pred[uint64], none, ok bool) {
	ranges := len(d.pos) < maxIntDigits
	limit := uint64(1) << (4 * min(len(d.pos), 15))
	ge := func(r uint64) (*encoding.Pred[uint64], bool, bool) {
		if r >= limit {
			return nil, true, true
		}
		return &encoding.Pred[uint64]{Op: encoding.OpGe, A: r}, false, true
	}
	lt := func(r uint64) (*encoding.Pred[uint64], bool, bool) {
		if r == 0 {
			return nil, true, true
		}
		return &encoding.Pred[uint64]{Op: encoding.OpLt, A: r}, false, true
	}
	le := func(a []byte) uint64 {
		r := d.rank(a)
		if _, ok := d.parse(a); ok {
			r++
		}
		return r
	}
	switch p.Op {
	case encoding.OpEq:
		v, ok := d.parse(p.A)
		if !ok {
			return nil, true, true
		}
		return &encoding.Pred[uint64]{Op: encoding.OpEq, A: v}, false, true
	case encoding.OpNe:
		v, ok := d.parse(p.A)
		if !ok {
			return nil, false, false
		}
		return &encoding.Pred[uint64]{Op: encoding.OpNe, A: v}, false, true
	case encoding.OpIn:
		set := make([]uint64, 0, len(p.Set))
		for _, a := range p.Set {
			if v, ok := d.parse(a); ok {
				set = append(set, v) // sorted: texts of one template sort as their integers
			}
		}
		if len(set) == 0 {
			return nil, true, true
		}
		return &encoding.Pred[uint64]{Op: encoding.OpIn, Set: set}, false, true
	}
	if !ranges {
		return nil, false, false
	}
	switch p.Op {
	case encoding.OpLt:
		return lt(d.rank(p.A))
	case encoding.OpLe:
		return lt(le(p.A))
	case encoding.OpGt:
		return ge(le(p.A))
	case encoding.OpGe:
		return ge(d.rank(p.A))
	case encoding.OpBetween:
		a, b := d.rank(p.A), le(p.B)
		if a >= b {
			return nil, true, true
		}
		return &encoding.Pred[uint64]{Op: encoding.OpBetween, A: a, B: b - 1}, false, true
	}
	return nil, false, false
}

// filterWidthsEq tests the next n values of a widths-form node for
// equality with a: its integer and width, pushed down to the children.
func (d *decoder) filterWidthsEq(a []byte, n int, sel encoding.Bitmap) error {
	var v uint64
	ok := len(a) <= maxIntDigits
	for _, c := range a {
		i := strings.IndexByte(d.alpha, c)
		if i < 0 {
			ok = false
			break
		}
		v = v<<4 | uint64(i)
	}
	if !ok {
		cascade.ClearRange(sel, 0, n)
		d.skipped++
		return d.Skip(n)
	}
	if err := cascade.FilterChild(d.ints, &encoding.Pred[uint64]{Op: encoding.OpEq, A: v}, n, sel); err != nil {
		return err
	}
	if err := cascade.FilterChild(d.widths, &encoding.Pred[uint8]{Op: encoding.OpEq, A: uint8(len(a))}, n, sel); err != nil {
		return err
	}
	d.at += n
	return nil
}

// FilterBinary tests the next n values: on the integers in the integer
// form, equality on the packed bytes in the bytes form, anything else by
// decoding the text.
func (d *decoder) FilterBinary(p *encoding.BytesPred, n int, sel encoding.Bitmap) error {
	if err := cascade.CheckRead(encoding.KindHexText, d.at, n, d.n); err != nil {
		return err
	}
	if n == 0 {
		return nil
	}
	if d.widths != nil {
		if p.Op == encoding.OpEq {
			return d.filterWidthsEq(p.A, n, sel)
		}
	} else if d.ints != nil {
		if q, none, ok := d.numericPred(p); ok {
			if none {
				cascade.ClearRange(sel, 0, n)
				d.skipped++
				return d.Skip(n)
			}
			if err := cascade.FilterChild(d.ints, q, n, sel); err != nil {
				return err
			}
			d.at += n
			return nil
		}
	} else if p.Op == encoding.OpEq {
		b, ok := d.pack(p.A)
		if !ok {
			cascade.ClearRange(sel, 0, n)
			d.skipped++
			return d.Skip(n)
		}
		if err := cascade.FilterChildBinary(d.bins, &encoding.BytesPred{Op: encoding.OpEq, A: b}, n, sel, &d.scratch); err != nil {
			return err
		}
		d.at += n
		return nil
	}
	return cascade.FilterBinarySeq(d, p, n, sel, &d.scratch)
}

// compile-time checks of the capabilities.
var (
	_ encoding.BinaryReader   = (*decoder)(nil)
	_ encoding.BinaryFilterer = (*decoder)(nil)
	_ encoding.BinaryGatherer = (*decoder)(nil)
	_ encoding.BinaryBounder  = (*decoder)(nil)
)
