// Package numtext implements NumText: binary values that are the canonical
// decimal text of signed 64-bit integers, with or without thousands
// separators ("-42", "1,234,567"), stored as int64 through the cascade.
// Figures kept as text (amounts exported with grouping, signed counts in
// a CSV column that a reader left untyped) cost a byte per character as
// text; as integers they cost a few bits each, and dictionary, run-length
// and delta encodings then work on numbers. DigitText covers digit
// strings (which keep their leading zeros); NumText covers what DigitText
// cannot: a sign or grouping commas. It also stores decimal fractions
// kept as text ("42.53176", "-0.50": coordinates and prices that JSON
// sources quote to keep their digits) as integers scaled to the node's
// largest count of fraction digits, beside each value's own count, so
// that trailing zeros come back.
//
// Body layout (docs/FORMAT.md, "NumText (kind 23)"):
//
//	flags: u8 | values node (int64, rows)
//	flags: u8 | scale: u8 | values node (int64, rows) | scales node (uint8, rows)   (decimal)
//
// Flag bit 0 set: every value is printed with a comma between every three
// digits counted from the right (encoding.NumGrouped); clear: without
// (encoding.NumPlain). Flag bit 1 (decimal, never with bit 0): value i is
// v_i·10^-scale printed with s_i fraction digits (encoding.NumDecimal).
// The other bits are zero.
package numtext

import (
	"cmp"
	"fmt"
	"slices"

	"strata/encoding"
	"strata/encoding/internal/cascade"
)

// Codec registers NumText.
var Codec = &encoding.Codec{
	Kind:    encoding.KindNumText,
	Types:   encoding.TypesOf(encoding.Binary),
	Open:    open,
	Encoder: encoder{},
	// strata calibrate, scaled to the table (docs/benchmarks.md,
	// 2026-12-04; the decimal form, Alt, stop 46)
	Decode: encoding.Cost{PerString: 15.3, PerByte: 1.07, Alt: &encoding.Cost{PerString: 18.8, PerByte: 2.14}},
}

// Flags of a node: values printed with grouping commas, or decimal
// fractions with a scales child.
const (
	flagGrouped = 1
	flagDecimal = 2
)

type encoder struct{}

// Fit accepts binary sequences whose every value is the canonical text of
// an int64 in one form (Stats.Numbers) and that are not all digits:
// digit strings are DigitText's, which also keeps leading zeros. As with
// DigitText, one value of another form rules the sequence out.
func (encoder) Fit(st *encoding.Stats) bool {
	return st.Type == encoding.Binary && st.N > 0 && st.Numbers != 0 && !st.Digits
}

// Estimate defers to a trial: the child's size depends on the cascade.
func (encoder) Estimate(*encoding.Stats) (int, bool) { return 0, false }

// Encode appends the body for vals: the flags, then the integers.
func (encoder) Encode(dst []byte, vals any, st *encoding.Stats, ctx *encoding.Ctx) ([]byte, error) {
	b, ok := encoding.BinaryValues(vals)
	if !ok {
		return dst, fmt.Errorf("numtext: cannot encode %T", vals)
	}
	n := b.Len()
	nums := make([]int64, n)
	forms := encoding.NumPlain | encoding.NumGrouped
	for i := 0; i < n && forms != 0; i++ {
		v, f := encoding.ParseNumber(b.Value(i))
		forms &= f
		nums[i] = v
	}
	if forms == 0 {
		return encodeDecimal(dst, b, nums, ctx)
	}
	flags := byte(0)
	if forms&encoding.NumPlain == 0 {
		flags = flagGrouped
	}
	dst = append(dst, flags)
	var err error
	if dst, err = ctx.EncodeChild(dst, nums); err != nil {
		return dst, fmt.Errorf("values: %w", err)
	}
	return dst, nil
}

// encodeDecimal appends the body of a decimal node for b, using nums
// (len b.Len()) as scratch: the values scaled to the largest count of
// fraction digits, then each value's count.
func encodeDecimal(dst []byte, b *encoding.Bytes, nums []int64, ctx *encoding.Ctx) ([]byte, error) {
	n := b.Len()
	scales := make([]uint8, n)
	top := 0
	for i := 0; i < n; i++ {
		m, sc, ok := encoding.ParseDecimal(b.Value(i))
		if !ok {
			return dst, fmt.Errorf("numtext: value %d is not a canonical number", i)
		}
		nums[i], scales[i] = m, uint8(sc)
		top = max(top, sc)
	}
	for i, m := range nums {
		// |m·10^(top-s)| stays below 10^MaxDecimalDigits
		up := top - int(scales[i])
		if encoding.ScaledDigits(m)+up > encoding.MaxDecimalDigits {
			return dst, fmt.Errorf("numtext: value %d has more than %d digits at %d fraction digits", i, encoding.MaxDecimalDigits, top)
		}
		nums[i] = m * int64(encoding.Pow10[up])
	}
	dst = append(dst, flagDecimal, byte(top))
	ctx.AltForm() // Codec.Decode.Alt
	var err error
	if dst, err = ctx.EncodeChild(dst, nums); err != nil {
		return dst, fmt.Errorf("values: %w", err)
	}
	if dst, err = ctx.EncodeChild(dst, scales); err != nil {
		return dst, fmt.Errorf("scales: %w", err)
	}
	return dst, nil
}

func open(h encoding.Header, opts *encoding.Options) (encoding.Decoder, error) {
	if h.Type != encoding.Binary {
		return nil, encoding.Unsupportedf("numtext: type %v", h.Type)
	}
	if len(h.Body) < 1 {
		return nil, encoding.Corruptf("numtext: no flags byte")
	}
	flags := h.Body[0]
	if flags&^(flagGrouped|flagDecimal) != 0 || flags == flagGrouped|flagDecimal {
		return nil, encoding.Unsupportedf("numtext: flags %#x", flags)
	}
	body := h.Body[1:]
	top := 0
	if flags&flagDecimal != 0 {
		if len(body) < 1 {
			return nil, encoding.Corruptf("numtext: no scale byte")
		}
		if top = int(body[0]); top > encoding.MaxDecimalDigits {
			return nil, encoding.Corruptf("numtext: scale %d above %d", top, encoding.MaxDecimalDigits)
		}
		body = body[1:]
	}
	vn, rest, err := encoding.Child(body, "numtext values")
	if err != nil {
		return nil, err
	}
	var sn []byte
	if flags&flagDecimal != 0 {
		if sn, rest, err = encoding.Child(rest, "numtext scales"); err != nil {
			return nil, err
		}
	}
	if len(rest) != 0 {
		return nil, encoding.Corruptf("numtext: %d trailing bytes", len(rest))
	}
	depth := h.Depth + 1
	vals, err := cascade.OpenFixed[int64](vn, depth, opts, h.Rows, "numtext values")
	if err != nil {
		return nil, err
	}
	d := &decoder{n: h.Rows, grouped: flags&flagGrouped != 0, vals: vals, node: vn, opts: opts, depth: depth}
	if sn != nil {
		if d.scales, err = cascade.OpenFixed[uint8](sn, depth, opts, h.Rows, "numtext scales"); err != nil {
			return nil, err
		}
		d.decimal, d.top, d.snode = true, top, sn
	}
	return d, nil
}

// decoder reads a NumText node by reading its child in batches and
// printing the integers.
type decoder struct {
	n, pos  int
	grouped bool
	vals    encoding.Reader[int64]
	node    []byte
	opts    *encoding.Options
	depth   int
	vbuf    []int64
	gv      encoding.Reader[int64] // private cursor for gathers over a child without a Gatherer
	skipped int
	scratch encoding.Bytes
	// decimal nodes: the scales child, the node's scale (top), and the
	// batch and private gather cursor of the scales
	decimal bool
	top     int
	scales  encoding.Reader[uint8]
	snode   []byte
	sbuf    []uint8
	gs      encoding.Reader[uint8]
}

func (d *decoder) Kind() encoding.Kind { return encoding.KindNumText }
func (d *decoder) Type() encoding.Type { return encoding.Binary }
func (d *decoder) Len() int            { return d.n }
func (d *decoder) Pos() int            { return d.pos }

// Skipped implements encoding.SkipCounter.
func (d *decoder) Skipped() int { return d.skipped }

func (d *decoder) Reset() {
	d.pos = 0
	d.vals.Reset()
	if d.decimal {
		d.scales.Reset()
	}
}

// Children implements encoding.Walker.
func (d *decoder) Children() []encoding.ChildNode {
	if d.decimal {
		return []encoding.ChildNode{{Role: "values", Node: d.node}, {Role: "scales", Node: d.snode}}
	}
	return []encoding.ChildNode{{Role: "values", Node: d.node}}
}

func (d *decoder) Skip(n int) error {
	if err := cascade.CheckRead(encoding.KindNumText, d.pos, n, d.n); err != nil {
		return err
	}
	if err := d.vals.Skip(n); err != nil {
		return err
	}
	if d.decimal {
		if err := d.scales.Skip(n); err != nil {
			return err
		}
	}
	d.pos += n
	return nil
}

// ReadBinary appends the next n values to dst.
func (d *decoder) ReadBinary(dst *encoding.Bytes, n int) error {
	if err := cascade.CheckRead(encoding.KindNumText, d.pos, n, d.n); err != nil {
		return err
	}
	if len(dst.Offsets) == 0 {
		dst.Offsets = append(dst.Offsets, int32(len(dst.Data)))
	}
	for n > 0 {
		k := min(n, cascade.Batch)
		d.vbuf = cascade.Grow(d.vbuf, k)
		if err := d.vals.Read(d.vbuf); err != nil {
			return err
		}
		if d.decimal {
			d.sbuf = cascade.Grow(d.sbuf, k)
			if err := d.scales.Read(d.sbuf); err != nil {
				return err
			}
		}
		d.pos += k
		if err := d.format(dst, d.vbuf); err != nil {
			return err
		}
		n -= k
	}
	return nil
}

// format appends the text of vs to dst, within the decode limit on output
// bytes (checked per batch at the longest text a value can print to, then
// exactly when that bound is passed).
func (d *decoder) format(dst *encoding.Bytes, vs []int64) error {
	limit := cascade.OutLimit(d.opts)
	if len(dst.Data)+encoding.MaxNumberLen*len(vs) > limit {
		size := 0
		for _, v := range vs {
			size += textLen(v, d.grouped)
			if d.decimal {
				size += 2 + d.top // a point, and zeros before a fraction's digits at most
			}
		}
		if len(dst.Data)+size > limit {
			return encoding.Limitf("numtext: binary values need more than %d bytes", limit)
		}
	}
	dst.Offsets = slices.Grow(dst.Offsets, len(vs))
	if d.decimal {
		for i, v := range vs {
			sc := int(d.sbuf[i])
			if sc > d.top {
				return encoding.Corruptf("numtext: %d fraction digits above the node's %d", sc, d.top)
			}
			if sc != d.top {
				p := int64(encoding.Pow10[d.top-sc])
				q := v / p
				if q*p != v {
					return encoding.Corruptf("numtext: %d is not a multiple of 10^%d", v, d.top-sc)
				}
				v = q
			}
			dst.Data = encoding.AppendDecimal(dst.Data, v, sc)
			dst.Offsets = append(dst.Offsets, int32(len(dst.Data)))
		}
		return nil
	}
	for _, v := range vs {
		dst.Data = encoding.AppendNumber(dst.Data, v, d.grouped)
		dst.Offsets = append(dst.Offsets, int32(len(dst.Data)))
	}
	return nil
}

// textLen is the length of v's text.
func textLen(v int64, grouped bool) int {
	m := uint64(v)
	l := 0
	if v < 0 {
		m, l = -m, 1
	}
	digits := encoding.DecimalDigits(m)
	l += digits
	if grouped {
		l += (digits - 1) / 3
	}
	return l
}

// GatherBinary appends the values at rows (strictly increasing).
func (d *decoder) GatherBinary(rows []int32, dst *encoding.Bytes) error {
	if err := cascade.CheckGather(encoding.KindNumText, rows, len(rows), d.n); err != nil {
		return err
	}
	if len(dst.Offsets) == 0 {
		dst.Offsets = append(dst.Offsets, int32(len(dst.Data)))
	}
	for len(rows) > 0 {
		k := min(len(rows), cascade.Batch)
		d.vbuf = cascade.Grow(d.vbuf, k)
		if err := gatherChild(d, d.vals, &d.gv, d.node, rows[:k], d.vbuf); err != nil {
			return err
		}
		if d.decimal {
			d.sbuf = cascade.Grow(d.sbuf, k)
			if err := gatherChild(d, d.scales, &d.gs, d.snode, rows[:k], d.sbuf); err != nil {
				return err
			}
		}
		if err := d.format(dst, d.vbuf); err != nil {
			return err
		}
		rows = rows[k:]
	}
	return nil
}

// gatherChild reads rows of child r (whose node is node) through its
// Gatherer, or by moving a private cursor *cur, opened over the node on
// first use.
func gatherChild[T encoding.Fixed](d *decoder, r encoding.Reader[T], cur *encoding.Reader[T], node []byte, rows []int32, dst []T) error {
	return cascade.GatherChild(r, cur, node, d.depth, d.opts, d.n, "numtext gather", rows, dst)
}

// operand returns the integer whose text a is in this node's form.
func (d *decoder) operand(a []byte) (int64, bool) {
	v, f := encoding.ParseNumber(a)
	want := encoding.NumPlain
	if d.grouped {
		want = encoding.NumGrouped
	}
	return v, f&want != 0
}

// FilterBinary tests the next n values. Equality, inequality and set
// membership become predicates on the integers pushed down to the child
// (an operand that is not a number of the node's form equals no value);
// the order of the texts is not the order of the numbers, so every other
// predicate decodes the text and matches it. On a decimal node the three
// compare the children's pairs instead (filterDecimal).
func (d *decoder) FilterBinary(p *encoding.BytesPred, n int, sel encoding.Bitmap) error {
	if err := cascade.CheckRead(encoding.KindNumText, d.pos, n, d.n); err != nil {
		return err
	}
	if n == 0 {
		return nil
	}
	if d.decimal {
		return d.filterDecimal(p, n, sel)
	}
	var q *encoding.Pred[int64]
	switch p.Op {
	case encoding.OpEq:
		if v, ok := d.operand(p.A); ok {
			q = &encoding.Pred[int64]{Op: encoding.OpEq, A: v}
		}
	case encoding.OpNe:
		v, ok := d.operand(p.A)
		if !ok {
			d.skipped++
			return d.Skip(n) // every value differs from it
		}
		q = &encoding.Pred[int64]{Op: encoding.OpNe, A: v}
	case encoding.OpIn:
		var set []int64
		for _, a := range p.Set {
			if v, ok := d.operand(a); ok {
				set = append(set, v)
			}
		}
		if len(set) > 0 {
			slices.Sort(set)
			q = &encoding.Pred[int64]{Op: encoding.OpIn, Set: slices.Compact(set)}
		}
	default:
		return cascade.FilterBinarySeq(d, p, n, sel, &d.scratch)
	}
	if q == nil {
		cascade.ClearRange(sel, 0, n)
		d.skipped++
		return d.Skip(n)
	}
	if err := cascade.FilterChild(d.vals, q, n, sel); err != nil {
		return err
	}
	d.pos += n
	return nil
}

// filterDecimal is FilterBinary on a decimal node. A text equals the
// operand exactly when its scaled integer and its count of fraction
// digits both equal the operand's ("1.5" is not "1.50"), so equality is
// pushed down to the two children in turn, and inequality and set
// membership compare the pairs the children hold (filterPairs); the
// order of the texts is not the order of the pairs, so every other
// predicate decodes the text.
func (d *decoder) filterDecimal(p *encoding.BytesPred, n int, sel encoding.Bitmap) error {
	switch p.Op {
	case encoding.OpNe, encoding.OpIn:
		return d.filterPairs(p, n, sel)
	case encoding.OpEq:
	default:
		return cascade.FilterBinarySeq(d, p, n, sel, &d.scratch)
	}
	v, sc, ok := d.decimalOperand(p.A)
	if !ok {
		cascade.ClearRange(sel, 0, n) // no value of the node has that text
		d.skipped++
		return d.Skip(n)
	}
	if err := cascade.FilterChild(d.vals, &encoding.Pred[int64]{Op: encoding.OpEq, A: v}, n, sel); err != nil {
		return err
	}
	if err := cascade.FilterChild(d.scales, &encoding.Pred[uint8]{Op: encoding.OpEq, A: sc}, n, sel); err != nil {
		return err
	}
	d.pos += n
	return nil
}

// decimalOperand returns the pair (scaled integer, count of fraction
// digits) a value of the node holds when its text is a, and false when no
// value of the node can have that text (a is no canonical decimal, or has
// more fraction digits than the node, or too many digits once scaled).
func (d *decoder) decimalOperand(a []byte) (int64, uint8, bool) {
	m, sc, ok := encoding.ParseDecimal(a)
	if !ok || sc > d.top || encoding.ScaledDigits(m)+d.top-sc > encoding.MaxDecimalDigits {
		return 0, 0, false
	}
	return m * int64(encoding.Pow10[d.top-sc]), uint8(sc), true
}

// decimalPair is a decimal value as its node stores it.
type decimalPair struct {
	v int64
	s uint8
}

// filterPairs is inequality or set membership on a decimal node: the
// operands become pairs (decimalOperand) and the next n values' pairs are
// read from the two children and compared, no text printed. Every pair
// read is checked as the decoder checks it (fraction digits within the
// node's, a multiple of the power of ten it was scaled by), so a corrupt
// value is reported whether it matches or not.
func (d *decoder) filterPairs(p *encoding.BytesPred, n int, sel encoding.Bitmap) error {
	ops := p.Set
	if p.Op == encoding.OpNe {
		ops = [][]byte{p.A}
	}
	var want []decimalPair
	for _, a := range ops {
		if v, sc, ok := d.decimalOperand(a); ok {
			want = append(want, decimalPair{v, sc})
		}
	}
	ne := p.Op == encoding.OpNe
	slices.SortFunc(want, func(a, b decimalPair) int {
		if a.v != b.v {
			return cmp.Compare(a.v, b.v)
		}
		return cmp.Compare(a.s, b.s)
	})
	want = slices.Compact(want)
	for done := 0; done < n; {
		k := min(n-done, cascade.Batch)
		d.vbuf = cascade.Grow(d.vbuf, k)
		d.sbuf = cascade.Grow(d.sbuf, k)
		if err := d.vals.Read(d.vbuf); err != nil {
			return err
		}
		if err := d.scales.Read(d.sbuf); err != nil {
			return err
		}
		for i, v := range d.vbuf {
			sc := d.sbuf[i]
			if int(sc) > d.top {
				return encoding.Corruptf("numtext: %d fraction digits above the node's %d", sc, d.top)
			}
			if int(sc) != d.top && v%int64(encoding.Pow10[d.top-int(sc)]) != 0 {
				return encoding.Corruptf("numtext: %d is not a multiple of 10^%d", v, d.top-int(sc))
			}
			if !sel.Get(done + i) {
				continue
			}
			if hasPair(want, decimalPair{v, sc}) == ne {
				sel.Clear(done + i)
			}
		}
		d.pos += k
		done += k
	}
	return nil
}

// hasPair reports whether the sorted pairs hold x.
func hasPair(pairs []decimalPair, x decimalPair) bool {
	lo, hi := 0, len(pairs)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if c := pairs[m]; c.v < x.v || (c.v == x.v && c.s < x.s) {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo < len(pairs) && pairs[lo] == x
}

// compile-time checks of the capabilities.
var (
	_ encoding.BinaryReader   = (*decoder)(nil)
	_ encoding.BinaryFilterer = (*decoder)(nil)
	_ encoding.BinaryGatherer = (*decoder)(nil)
)
