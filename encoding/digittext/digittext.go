// Package digittext implements DigitText: binary values that are all ASCII
// digits (zip codes, county ids, numeric codes kept as text) stored as
// unsigned integers through the cascade, with what it takes to restore
// their leading zeros. Integers cost a few bits each where text costs a
// byte per digit, and dictionary, run-length and delta encodings then work
// on numbers.
//
// Body layout (docs/FORMAT.md, "DigitText (kind 16)"):
//
//	mode: u8 | values node (uint64, rows) | shape node (uint8, rows)
//
// In mode 0 (widths) shape i is the number of digits of value i, which is
// values[i] in decimal, zero-padded to that width: fixed-width codes
// ("00501") make the shape child Constant. In mode 1 (leading zeros) shape i
// is the number of zeros written before values[i] in decimal: numbers
// without leading zeros make it Constant 0. Writers pick the mode whose
// shape child is constant (widths when both are), so typical data spends
// almost nothing on widths.
package digittext

import (
	"fmt"

	"strata/encoding"
	"strata/encoding/internal/cascade"
)

// Codec registers DigitText.
var Codec = &encoding.Codec{
	Kind:    encoding.KindDigitText,
	Types:   encoding.TypesOf(encoding.Binary),
	Open:    open,
	Encoder: encoder{},
	Decode:  encoding.Cost{PerString: 24.4}, // strata calibrate (docs/benchmarks.md)
}

// Modes.
const (
	modeWidths = 0
	modeZeros  = 1
)

// maxDigits is the longest value: every 19-digit number is below 10^19,
// which fits a uint64.
const maxDigits = encoding.MaxDigits

type encoder struct{}

// Fit accepts binary sequences whose every value is 0 to 19 ASCII digits.
// Other sequences (a sign, a decimal point, one stray letter) are left to
// the text encodings: patching exceptions would cost a position and a
// value per exception and a test on every read, for columns the real data
// sets show to be either all digits or mostly not.
func (encoder) Fit(st *encoding.Stats) bool {
	return st.Type == encoding.Binary && st.N > 0 && st.Digits
}

// Estimate defers to a trial: the children's sizes depend on the cascade.
func (encoder) Estimate(*encoding.Stats) (int, bool) { return 0, false }

// Encode appends the body for vals.
func (encoder) Encode(dst []byte, vals any, st *encoding.Stats, ctx *encoding.Ctx) ([]byte, error) {
	b, ok := encoding.BinaryValues(vals)
	if !ok {
		return dst, fmt.Errorf("digittext: cannot encode %T", vals)
	}
	n := b.Len()
	nums := make([]uint64, n)
	widths := make([]uint8, n)
	zeros := make([]uint8, n)
	sameW, sameZ, empty := true, true, false
	for i := 0; i < n; i++ {
		x := b.Value(i)
		if len(x) > maxDigits {
			return dst, fmt.Errorf("digittext: value %d has %d bytes", i, len(x))
		}
		var v uint64
		for _, c := range x {
			if c-'0' > 9 {
				return dst, fmt.Errorf("digittext: value %d is not all digits", i)
			}
			v = v*10 + uint64(c-'0')
		}
		nums[i], widths[i] = v, uint8(len(x))
		if len(x) == 0 {
			empty = true
		} else {
			zeros[i] = uint8(len(x) - encoding.DecimalDigits(v))
		}
		if i > 0 {
			sameW = sameW && widths[i] == widths[0]
			sameZ = sameZ && zeros[i] == zeros[0]
		}
	}
	mode, shape := byte(modeWidths), widths
	if !sameW && !empty && (sameZ || runs(zeros) < runs(widths)) {
		mode, shape = modeZeros, zeros
	}
	dst = append(dst, mode)
	var err error
	if dst, err = ctx.EncodeChild(dst, nums); err != nil {
		return dst, fmt.Errorf("values: %w", err)
	}
	if dst, err = ctx.EncodeChild(dst, shape); err != nil {
		return dst, fmt.Errorf("shape: %w", err)
	}
	return dst, nil
}

func runs(s []uint8) int {
	r := 0
	for i := range s {
		if i == 0 || s[i] != s[i-1] {
			r++
		}
	}
	return r
}

func open(h encoding.Header, opts *encoding.Options) (encoding.Decoder, error) {
	if h.Type != encoding.Binary {
		return nil, encoding.Unsupportedf("digittext: type %v", h.Type)
	}
	if len(h.Body) < 1 {
		return nil, encoding.Corruptf("digittext: no mode byte")
	}
	mode := h.Body[0]
	if mode > modeZeros {
		return nil, encoding.Unsupportedf("digittext: mode %d", mode)
	}
	vn, rest, err := encoding.Child(h.Body[1:], "digittext values")
	if err != nil {
		return nil, err
	}
	sn, rest, err := encoding.Child(rest, "digittext shape")
	if err != nil {
		return nil, err
	}
	if len(rest) != 0 {
		return nil, encoding.Corruptf("digittext: %d trailing bytes", len(rest))
	}
	depth := h.Depth + 1
	vals, err := cascade.OpenFixed[uint64](vn, depth, opts, h.Rows, "digittext values")
	if err != nil {
		return nil, err
	}
	shape, err := cascade.OpenFixed[uint8](sn, depth, opts, h.Rows, "digittext shape")
	if err != nil {
		return nil, err
	}
	d := &decoder{n: h.Rows, mode: mode, vals: vals, shape: shape, nodes: [2][]byte{vn, sn},
		opts: opts, depth: depth, width: -1}
	// A constant width makes numeric order bytewise order (range filters
	// and bounds work on the integers).
	if b, ok := shape.(encoding.Bounder[uint8]); ok && mode == modeWidths && h.Rows > 0 {
		if mn, mx, ok := b.Bounds(); ok && mn == mx && mn <= maxDigits {
			d.width = int(mn)
		}
	}
	return d, nil
}

// decoder reads a DigitText node by reading its two children in batches
// and printing the integers.
type decoder struct {
	n, pos int
	mode   byte
	vals   encoding.Reader[uint64]
	shape  encoding.Reader[uint8]
	nodes  [2][]byte
	opts   *encoding.Options
	depth  int
	// width is the digit count every value has (mode 0 with a constant
	// shape), or -1.
	width int
	vbuf  []uint64
	sbuf  []uint8
	// private cursors for gathers over children without a Gatherer
	gv      encoding.Reader[uint64]
	gs      encoding.Reader[uint8]
	skipped int
	scratch encoding.Bytes
	lbuf    []uint8 // text lengths of a batch (format)
}

func (d *decoder) Kind() encoding.Kind { return encoding.KindDigitText }
func (d *decoder) Type() encoding.Type { return encoding.Binary }
func (d *decoder) Len() int            { return d.n }
func (d *decoder) Pos() int            { return d.pos }

// Skipped implements encoding.SkipCounter.
func (d *decoder) Skipped() int { return d.skipped }

func (d *decoder) Reset() {
	d.pos = 0
	d.vals.Reset()
	d.shape.Reset()
}

// Children implements encoding.Walker.
func (d *decoder) Children() []encoding.ChildNode {
	return []encoding.ChildNode{{Role: "values", Node: d.nodes[0]}, {Role: "shape", Node: d.nodes[1]}}
}

func (d *decoder) Skip(n int) error {
	if err := cascade.CheckRead(encoding.KindDigitText, d.pos, n, d.n); err != nil {
		return err
	}
	if err := d.vals.Skip(n); err != nil {
		return err
	}
	if err := d.shape.Skip(n); err != nil {
		return err
	}
	d.pos += n
	return nil
}

// ReadBinary appends the next n values to dst.
func (d *decoder) ReadBinary(dst *encoding.Bytes, n int) error {
	if err := cascade.CheckRead(encoding.KindDigitText, d.pos, n, d.n); err != nil {
		return err
	}
	if len(dst.Offsets) == 0 {
		dst.Offsets = append(dst.Offsets, int32(len(dst.Data)))
	}
	for n > 0 {
		k := min(n, cascade.Batch)
		d.vbuf = cascade.Grow(d.vbuf, k)
		d.sbuf = cascade.Grow(d.sbuf, k)
		if err := d.vals.Read(d.vbuf); err != nil {
			return err
		}
		if err := d.shape.Read(d.sbuf); err != nil {
			return err
		}
		d.pos += k
		if err := d.format(dst, d.vbuf, d.sbuf); err != nil {
			return err
		}
		n -= k
	}
	return nil
}

// format appends the text of values vs with shapes ss to dst. A constant
// width (the common case: fixed-width codes) takes a loop that neither
// measures nor checks shapes per value; otherwise the lengths of the first
// pass are kept for the second.
func (d *decoder) format(dst *encoding.Bytes, vs []uint64, ss []uint8) error {
	w := len(dst.Data)
	limit := cascade.OutLimit(d.opts)
	no := len(dst.Offsets)
	if d.width >= 0 {
		width := d.width
		if w+width*len(vs) > limit {
			return encoding.Limitf("digittext: binary values need more than %d bytes", limit)
		}
		lim := encoding.Pow10[width] // width ≤ maxDigits, so 10^width fits
		data := cascade.Extend(dst.Data, width*len(vs))
		grown := cascade.Extend(dst.Offsets, len(vs))
		offs := grown[no : no+len(vs)]
		for i, v := range vs {
			if v >= lim || ss[i] != uint8(width) {
				return encoding.Corruptf("digittext: value %d with shape %d does not fit the chunk's %d digits", v, ss[i], width)
			}
			put(data[w:w+width], v)
			w += width
			offs[i] = int32(w)
		}
		dst.Data = data[:w]
		dst.Offsets = grown
		return nil
	}
	d.lbuf = cascade.Grow(d.lbuf, len(vs))
	lens := d.lbuf[:len(vs)]
	size := 0
	for i, s := range ss {
		l, err := d.length(vs[i], s)
		if err != nil {
			return err
		}
		lens[i] = uint8(l)
		size += l
	}
	if w+size > limit {
		return encoding.Limitf("digittext: binary values need more than %d bytes", limit)
	}
	data := cascade.Extend(dst.Data, size)
	grown := cascade.Extend(dst.Offsets, len(vs))
	offs := grown[no : no+len(vs)]
	for i, v := range vs {
		l := int(lens[i])
		put(data[w:w+l], v)
		w += l
		offs[i] = int32(w)
	}
	dst.Data = data[:w]
	dst.Offsets = grown
	return nil
}

// length returns the text length of value v with shape s, or ErrCorrupt
// when they do not form a value of at most 19 digits.
func (d *decoder) length(v uint64, s uint8) (int, error) {
	if d.mode == modeWidths {
		if s > maxDigits || v >= encoding.Pow10[s] {
			return 0, encoding.Corruptf("digittext: value %d does not fit %d digits", v, s)
		}
		return int(s), nil
	}
	l := int(s) + encoding.DecimalDigits(v)
	if l > maxDigits {
		return 0, encoding.Corruptf("digittext: %d zeros before %d make more than %d digits", s, v, maxDigits)
	}
	return l, nil
}

// put writes v in decimal right-aligned in b, zero-filled on the left.
func put(b []byte, v uint64) {
	i := len(b)
	for i >= 2 && v >= 10 {
		q := v / 100
		r := v - q*100
		i -= 2
		b[i], b[i+1] = pairs[2*r], pairs[2*r+1]
		v = q
	}
	for i > 0 {
		i--
		b[i] = byte('0' + v%10)
		v /= 10
	}
}

const pairs = "00010203040506070809" + "10111213141516171819" + "20212223242526272829" +
	"30313233343536373839" + "40414243444546474849" + "50515253545556575859" +
	"60616263646566676869" + "70717273747576777879" + "80818283848586878889" +
	"90919293949596979899"

// GatherBinary appends the values at rows (strictly increasing).
func (d *decoder) GatherBinary(rows []int32, dst *encoding.Bytes) error {
	if err := cascade.CheckGather(encoding.KindDigitText, rows, len(rows), d.n); err != nil {
		return err
	}
	if len(dst.Offsets) == 0 {
		dst.Offsets = append(dst.Offsets, int32(len(dst.Data)))
	}
	for len(rows) > 0 {
		k := min(len(rows), cascade.Batch)
		d.vbuf = cascade.Grow(d.vbuf, k)
		d.sbuf = cascade.Grow(d.sbuf, k)
		if err := gather(d, &d.gv, d.vals, 0, rows[:k], d.vbuf); err != nil {
			return err
		}
		if err := gather(d, &d.gs, d.shape, 1, rows[:k], d.sbuf); err != nil {
			return err
		}
		if err := d.format(dst, d.vbuf, d.sbuf); err != nil {
			return err
		}
		rows = rows[k:]
	}
	return nil
}

// gather reads rows of child r through its Gatherer, or by moving a
// private cursor over the child's node.
func gather[T encoding.Fixed](d *decoder, priv *encoding.Reader[T], r encoding.Reader[T], child int, rows []int32, dst []T) error {
	return cascade.GatherChild(r, priv, d.nodes[child], d.depth, d.opts, d.n, "digittext gather", rows, dst)
}

// BinaryBounds reports bounds when every value has the same width: the
// values child's bounds, printed.
func (d *decoder) BinaryBounds() (min, max []byte, ok bool) {
	if d.width < 0 {
		return nil, nil, false
	}
	b, ok := d.vals.(encoding.Bounder[uint64])
	if !ok {
		return nil, nil, false
	}
	mn, mx, ok := b.Bounds()
	if !ok || mx >= encoding.Pow10[d.width] || mn > mx {
		return nil, nil, false
	}
	min, max = make([]byte, d.width), make([]byte, d.width)
	put(min, mn)
	put(max, mx)
	return min, max, true
}

// rank returns how many strings of w digits sort bytewise below a.
func rank(a []byte, w int) uint64 {
	r := uint64(0)
	for i := 0; i < w; i++ {
		if i == len(a) {
			return r // longer strings with prefix a are above a
		}
		c := a[i]
		switch {
		case c < '0':
			return r
		case c > '9':
			return r + encoding.Pow10[w-i]
		}
		r += uint64(c-'0') * encoding.Pow10[w-i-1]
	}
	if len(a) > w {
		r++ // a's first w bytes are a digit string below a
	}
	return r
}

// parse returns the integer and width of a, ok false when a is not 0 to 19
// digits.
func parse(a []byte) (v uint64, ok bool) {
	if len(a) > maxDigits {
		return 0, false
	}
	for _, c := range a {
		if c-'0' > 9 {
			return 0, false
		}
		v = v*10 + uint64(c-'0')
	}
	return v, true
}

// numericPred turns p into a predicate on the integers of a node whose
// values all have d.width digits; ok is false when p has no such form.
func (d *decoder) numericPred(p *encoding.BytesPred) (q *encoding.Pred[uint64], none, ok bool) {
	w := d.width
	limit := encoding.Pow10[w] // integers are < limit
	// atLeast(r): integers ≥ r; below(r): integers < r.
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
	// le is the rank counting a itself when it is a w-digit string.
	le := func(a []byte) uint64 {
		r := rank(a, w)
		if _, ok := parse(a); ok && len(a) == w {
			r++
		}
		return r
	}
	switch p.Op {
	case encoding.OpEq:
		v, ok := parse(p.A)
		if !ok || len(p.A) != w {
			return nil, true, true
		}
		return &encoding.Pred[uint64]{Op: encoding.OpEq, A: v}, false, true
	case encoding.OpNe:
		v, ok := parse(p.A)
		if !ok || len(p.A) != w {
			return nil, false, false
		}
		return &encoding.Pred[uint64]{Op: encoding.OpNe, A: v}, false, true
	case encoding.OpLt:
		return lt(rank(p.A, w))
	case encoding.OpLe:
		return lt(le(p.A))
	case encoding.OpGt:
		return ge(le(p.A))
	case encoding.OpGe:
		return ge(rank(p.A, w))
	case encoding.OpBetween:
		a, b := rank(p.A, w), le(p.B)
		if a >= b {
			return nil, true, true
		}
		return &encoding.Pred[uint64]{Op: encoding.OpBetween, A: a, B: b - 1}, false, true
	case encoding.OpPrefix:
		v, ok := parse(p.A)
		if !ok || len(p.A) > w {
			return nil, true, true
		}
		s := encoding.Pow10[w-len(p.A)]
		return &encoding.Pred[uint64]{Op: encoding.OpBetween, A: v * s, B: v*s + s - 1}, false, true
	case encoding.OpIn:
		set := make([]uint64, 0, len(p.Set))
		for _, a := range p.Set {
			if v, ok := parse(a); ok && len(a) == w {
				set = append(set, v) // sorted: same-width strings sort as numbers
			}
		}
		if len(set) == 0 {
			return nil, true, true
		}
		return &encoding.Pred[uint64]{Op: encoding.OpIn, Set: set}, false, true
	}
	return nil, false, false
}

// FilterBinary tests the next n values. With one width for every value,
// every predicate becomes a predicate on the integers pushed down to the
// values child; equality is pushed down to both children in either mode;
// anything else decodes the text and matches it.
func (d *decoder) FilterBinary(p *encoding.BytesPred, n int, sel encoding.Bitmap) error {
	if err := cascade.CheckRead(encoding.KindDigitText, d.pos, n, d.n); err != nil {
		return err
	}
	if n == 0 {
		return nil
	}
	if d.width >= 0 {
		if q, none, ok := d.numericPred(p); ok {
			if none {
				cascade.ClearRange(sel, 0, n)
				d.skipped++
				return d.Skip(n)
			}
			if err := cascade.FilterChild(d.vals, q, n, sel); err != nil {
				return err
			}
			if err := d.shape.Skip(n); err != nil {
				return err
			}
			d.pos += n
			return nil
		}
	}
	if p.Op == encoding.OpEq {
		v, ok := parse(p.A)
		if !ok || (d.mode == modeZeros && len(p.A) == 0) {
			cascade.ClearRange(sel, 0, n)
			d.skipped++
			return d.Skip(n)
		}
		s := uint8(len(p.A))
		if d.mode == modeZeros {
			s = uint8(len(p.A) - encoding.DecimalDigits(v))
		}
		if err := cascade.FilterChild(d.vals, &encoding.Pred[uint64]{Op: encoding.OpEq, A: v}, n, sel); err != nil {
			return err
		}
		if err := cascade.FilterChild(d.shape, &encoding.Pred[uint8]{Op: encoding.OpEq, A: s}, n, sel); err != nil {
			return err
		}
		d.pos += n
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
