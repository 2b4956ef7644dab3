// Package numtext implements NumText: binary values that are the canonical
// decimal text of signed 64-bit integers, with or without thousands
// separators ("-42", "1,234,567"), stored as int64 through the cascade.
// Figures kept as text (amounts exported with grouping, signed counts in
// a CSV column that a reader left untyped) cost a byte per character as
// text; as integers they cost a few bits each, and dictionary, run-length
// and delta encodings then work on numbers. DigitText covers digit
// strings (which keep their leading zeros); NumText covers what DigitText
// cannot: a sign or grouping commas.
//
// Body layout (docs/FORMAT.md, "NumText (kind 23)"):
//
//	flags: u8 | values node (int64, rows)
//
// Flag bit 0 set: every value is printed with a comma between every three
// digits counted from the right (encoding.NumGrouped); clear: without
// (encoding.NumPlain). The other bits are zero.
package numtext

import (
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
	Decode:  encoding.Cost{PerString: 15.3, PerByte: 1.07}, // strata calibrate, scaled to the table (docs/benchmarks.md, 2026-12-04)
}

// flagGrouped marks a node whose values are printed with grouping commas.
const flagGrouped = 1

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
	for i := 0; i < n; i++ {
		v, f := encoding.ParseNumber(b.Value(i))
		forms &= f
		if forms == 0 {
			return dst, fmt.Errorf("numtext: value %d is not a canonical number of the sequence's form", i)
		}
		nums[i] = v
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

func open(h encoding.Header, opts *encoding.Options) (encoding.Decoder, error) {
	if h.Type != encoding.Binary {
		return nil, encoding.Unsupportedf("numtext: type %v", h.Type)
	}
	if len(h.Body) < 1 {
		return nil, encoding.Corruptf("numtext: no flags byte")
	}
	flags := h.Body[0]
	if flags&^flagGrouped != 0 {
		return nil, encoding.Unsupportedf("numtext: flags %#x", flags)
	}
	vn, rest, err := encoding.Child(h.Body[1:], "numtext values")
	if err != nil {
		return nil, err
	}
	if len(rest) != 0 {
		return nil, encoding.Corruptf("numtext: %d trailing bytes", len(rest))
	}
	depth := h.Depth + 1
	vals, err := cascade.OpenFixed[int64](vn, depth, opts, h.Rows, "numtext values")
	if err != nil {
		return nil, err
	}
	return &decoder{n: h.Rows, grouped: flags&flagGrouped != 0, vals: vals, node: vn, opts: opts, depth: depth}, nil
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
}

// Children implements encoding.Walker.
func (d *decoder) Children() []encoding.ChildNode {
	return []encoding.ChildNode{{Role: "values", Node: d.node}}
}

func (d *decoder) Skip(n int) error {
	if err := cascade.CheckRead(encoding.KindNumText, d.pos, n, d.n); err != nil {
		return err
	}
	if err := d.vals.Skip(n); err != nil {
		return err
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
		}
		if len(dst.Data)+size > limit {
			return encoding.Limitf("numtext: binary values need more than %d bytes", limit)
		}
	}
	dst.Offsets = slices.Grow(dst.Offsets, len(vs))
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
	digits := 1
	for m >= 10 {
		m /= 10
		digits++
	}
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
		if err := d.gather(rows[:k], d.vbuf); err != nil {
			return err
		}
		if err := d.format(dst, d.vbuf); err != nil {
			return err
		}
		rows = rows[k:]
	}
	return nil
}

// gather reads rows of the child through its Gatherer, or by moving a
// private cursor over the child's node.
func (d *decoder) gather(rows []int32, dst []int64) error {
	if g, ok := d.vals.(encoding.Gatherer[int64]); ok {
		return g.Gather(rows, dst)
	}
	if d.gv == nil {
		p, err := cascade.OpenFixed[int64](d.node, d.depth, d.opts, d.n, "numtext gather")
		if err != nil {
			return err
		}
		d.gv = p
	}
	return cascade.GatherSeq(d.gv, rows, dst)
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
// predicate decodes the text and matches it.
func (d *decoder) FilterBinary(p *encoding.BytesPred, n int, sel encoding.Bitmap) error {
	if err := cascade.CheckRead(encoding.KindNumText, d.pos, n, d.n); err != nil {
		return err
	}
	if n == 0 {
		return nil
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
	if f, ok := d.vals.(encoding.Filterer[int64]); ok {
		if err := f.Filter(q, n, sel); err != nil {
			return err
		}
		d.pos += n
		return nil
	}
	if err := cascade.FilterSeq(d.vals, q, n, sel); err != nil {
		return err
	}
	d.pos += n
	return nil
}

// compile-time checks of the capabilities.
var (
	_ encoding.BinaryReader   = (*decoder)(nil)
	_ encoding.BinaryFilterer = (*decoder)(nil)
	_ encoding.BinaryGatherer = (*decoder)(nil)
)
