// Package scaled implements Scaled: integers that lie on a common step
// from their least value, stored as base + step·k with the multiples k in
// a child node. Amounts in whole thousands or whole dollars of a cents
// column, volumes in round lots, masses in steps of 25 g, timestamps of
// whole seconds in microseconds: a frame of reference alone spends
// log2(step) bits of every value on zeros that the step removes. The
// columns where a dictionary already catches the step (few distinct
// values) gain little; high-cardinality columns and short ones, where an
// alphabet does not pay, gain the most (the ClickHouse GCD codec applies
// the same idea).
//
// Body layout (docs/FORMAT.md, "Scaled (kind 24)"):
//
//	base: 8 bytes LE | step: uvarint (≥ 2) | multiples node (uint64, rows)
//
// Arithmetic is on values widened to 64 bits (sign-extended for signed
// types, zero-extended for unsigned ones), wrapping: value i is
// T(base + step·k_i).
package scaled

import (
	"encoding/binary"
	"fmt"
	"math"
	"unsafe"

	"strata/encoding"
	"strata/encoding/internal/cascade"
)

// Codec registers Scaled.
var Codec = &encoding.Codec{
	Kind:    encoding.KindScaled,
	Types:   encoding.IntegerTypes,
	Open:    open,
	Encoder: encoder{},
	Decode:  encoding.Cost{PerValue: 1.09}, // strata calibrate, scaled to the table (docs/benchmarks.md, 2026-12-04)
}

type encoder struct{}

// Fit accepts integer sequences whose differences share a factor of at
// least 2 (Stats.Step).
func (encoder) Fit(st *encoding.Stats) bool { return st.Type.IsInteger() && st.Step >= 2 }

// Estimate defers to a trial: the child's size depends on the cascade.
func (encoder) Estimate(*encoding.Stats) (int, bool) { return 0, false }

func (encoder) Encode(dst []byte, vals any, _ *encoding.Stats, ctx *encoding.Ctx) ([]byte, error) {
	switch v := vals.(type) {
	case []int8:
		return appendBody(dst, v, ctx)
	case []int16:
		return appendBody(dst, v, ctx)
	case []int32:
		return appendBody(dst, v, ctx)
	case []int64:
		return appendBody(dst, v, ctx)
	case []uint8:
		return appendBody(dst, v, ctx)
	case []uint16:
		return appendBody(dst, v, ctx)
	case []uint32:
		return appendBody(dst, v, ctx)
	case []uint64:
		return appendBody(dst, v, ctx)
	}
	return dst, fmt.Errorf("scaled: cannot encode %T", vals)
}

// appendBody appends the body of vals: their least value, the step
// (encoding.StepOf) and the multiples.
func appendBody[T encoding.Integer](dst []byte, vals []T, ctx *encoding.Ctx) ([]byte, error) {
	step := encoding.StepOf(vals)
	if step < 2 {
		return dst, fmt.Errorf("scaled: the values share no step (%d)", step)
	}
	base := vals[0]
	for _, v := range vals[1:] {
		base = min(base, v)
	}
	ks := make([]uint64, len(vals))
	for i, v := range vals {
		ks[i] = (uint64(v) - uint64(base)) / step // v ≥ base: the wrapped difference is exact
	}
	dst = binary.LittleEndian.AppendUint64(dst, uint64(base))
	dst = binary.AppendUvarint(dst, step)
	var err error
	if dst, err = ctx.EncodeChild(dst, ks); err != nil {
		return dst, fmt.Errorf("multiples: %w", err)
	}
	return dst, nil
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
	return nil, encoding.Unsupportedf("scaled: type %v", h.Type)
}

// decoder reads a Scaled node by reading the multiples in batches and
// scaling them.
type decoder[T encoding.Integer] struct {
	typ    encoding.Type
	n, pos int
	base   T
	step   uint64
	ks     encoding.Reader[uint64]
	node   []byte
	opts   *encoding.Options
	depth  int
	kbuf   []uint64
	gk     encoding.Reader[uint64] // private cursor for gathers over a child without a Gatherer
	// exact: the multiples' bounds are known and base + step·k stays
	// within T for all of them, so the value order is the multiples'
	// order: bounds and filters map onto the child.
	exact      bool
	kmin, kmax uint64
}

func openT[T encoding.Integer](h encoding.Header, opts *encoding.Options) (*decoder[T], error) {
	body := h.Body
	if len(body) < 8 {
		return nil, encoding.Corruptf("scaled: %d-byte body, no base", len(body))
	}
	wb := binary.LittleEndian.Uint64(body)
	base := T(wb)
	if uint64(base) != wb {
		return nil, encoding.Corruptf("scaled: base %#x is no %v value", wb, h.Type)
	}
	step, k := binary.Uvarint(body[8:])
	if k <= 0 {
		return nil, encoding.Corruptf("scaled: bad step varint")
	}
	if step < 2 {
		return nil, encoding.Corruptf("scaled: step %d", step)
	}
	kn, rest, err := encoding.Child(body[8+k:], "scaled multiples")
	if err != nil {
		return nil, err
	}
	if len(rest) != 0 {
		return nil, encoding.Corruptf("scaled: %d trailing bytes", len(rest))
	}
	d := &decoder[T]{typ: h.Type, n: h.Rows, base: base, step: step, node: kn, opts: opts, depth: h.Depth + 1}
	if d.ks, err = cascade.OpenFixed[uint64](kn, d.depth, opts, h.Rows, "scaled multiples"); err != nil {
		return nil, err
	}
	if b, ok := d.ks.(encoding.Bounder[uint64]); ok && h.Rows > 0 {
		if lo, hi, ok := b.Bounds(); ok && lo <= hi && hi <= d.maxMultiple() {
			d.exact, d.kmin, d.kmax = true, lo, hi
		}
	}
	return d, nil
}

// maxMultiple is the largest k with base + step·k within T.
func (d *decoder[T]) maxMultiple() uint64 {
	top := uint64(math.MaxUint64) >> (64 - 8*d.typ.Size()) // T's maximum, widened
	if d.typ.IsSigned() {
		top >>= 1
	}
	return (top - uint64(d.base)) / d.step // top ≥ base in T's order: the wrapped difference is exact
}

func (d *decoder[T]) Kind() encoding.Kind { return encoding.KindScaled }
func (d *decoder[T]) Type() encoding.Type { return d.typ }
func (d *decoder[T]) Len() int            { return d.n }
func (d *decoder[T]) Pos() int            { return d.pos }

func (d *decoder[T]) Reset() {
	d.pos = 0
	d.ks.Reset()
}

// Children implements encoding.Walker.
func (d *decoder[T]) Children() []encoding.ChildNode {
	return []encoding.ChildNode{{Role: "multiples", Node: d.node}}
}

func (d *decoder[T]) Skip(n int) error {
	if err := cascade.CheckRead(encoding.KindScaled, d.pos, n, d.n); err != nil {
		return err
	}
	if err := d.ks.Skip(n); err != nil {
		return fmt.Errorf("scaled multiples: %w", err)
	}
	d.pos += n
	return nil
}

// Read decodes len(dst) values.
func (d *decoder[T]) Read(dst []T) error {
	if err := cascade.CheckRead(encoding.KindScaled, d.pos, len(dst), d.n); err != nil {
		return err
	}
	if len(dst) == 0 {
		return nil
	}
	if unsafe.Sizeof(dst[0]) == 8 {
		// The multiples are read into dst's memory and scaled in place.
		ks := unsafe.Slice((*uint64)(unsafe.Pointer(&dst[0])), len(dst))
		if err := d.ks.Read(ks); err != nil {
			return fmt.Errorf("scaled multiples: %w", err)
		}
		d.scale(dst, ks)
	} else {
		for off := 0; off < len(dst); {
			k := min(len(dst)-off, cascade.Batch)
			d.kbuf = cascade.Grow(d.kbuf, k)
			if err := d.ks.Read(d.kbuf); err != nil {
				return fmt.Errorf("scaled multiples: %w", err)
			}
			d.scale(dst[off:off+k], d.kbuf)
			off += k
		}
	}
	d.pos += len(dst)
	return nil
}

// scale sets dst[i] = base + step·ks[i] (ks may share dst's memory).
func (d *decoder[T]) scale(dst []T, ks []uint64) {
	b, s := uint64(d.base), d.step
	for i, k := range ks[:len(dst)] {
		dst[i] = T(b + s*k)
	}
}

// Gather reads the values at rows (strictly increasing) without moving the
// cursor.
func (d *decoder[T]) Gather(rows []int32, dst []T) error {
	if err := cascade.CheckGather(encoding.KindScaled, rows, len(dst), d.n); err != nil {
		return err
	}
	for off := 0; off < len(rows); {
		k := min(len(rows)-off, cascade.Batch)
		d.kbuf = cascade.Grow(d.kbuf, k)
		if err := d.gather(rows[off:off+k], d.kbuf); err != nil {
			return err
		}
		d.scale(dst[off:off+k], d.kbuf)
		off += k
	}
	return nil
}

func (d *decoder[T]) gather(rows []int32, dst []uint64) error {
	return cascade.GatherChild(d.ks, &d.gk, d.node, d.depth, d.opts, d.n, "scaled gather", rows, dst)
}

// Bounds implements encoding.Bounder from the multiples' bounds.
func (d *decoder[T]) Bounds() (lo, hi T, ok bool) {
	if !d.exact {
		return 0, 0, false
	}
	return T(uint64(d.base) + d.step*d.kmin), T(uint64(d.base) + d.step*d.kmax), true
}

// multiple maps a to the multiples: below reports a < base; otherwise
// q = floor((a-base)/step) and exact reports that a is base + step·q.
func (d *decoder[T]) multiple(a T) (q uint64, exact, below bool) {
	if a < d.base {
		return 0, false, true
	}
	o := uint64(a) - uint64(d.base)
	return o / d.step, o%d.step == 0, false
}

// Filter tests the next n values. Where the value order is the multiples'
// order (exact), every predicate becomes one on the multiples, pushed down
// to the child; otherwise the values are decoded and matched.
func (d *decoder[T]) Filter(p *encoding.Pred[T], n int, sel encoding.Bitmap) error {
	if err := cascade.CheckRead(encoding.KindScaled, d.pos, n, d.n); err != nil {
		return err
	}
	if n == 0 {
		return nil
	}
	if !d.exact {
		return cascade.FilterSeq[T](d, p, n, sel)
	}
	q, all, none, ok := d.mapPred(p)
	switch {
	case !ok:
		return cascade.FilterSeq[T](d, p, n, sel)
	case none:
		sel.ClearRange(0, n)
		return d.Skip(n)
	case all:
		return d.Skip(n)
	}
	if f, ok := d.ks.(encoding.Filterer[uint64]); ok {
		if err := f.Filter(q, n, sel); err != nil {
			return fmt.Errorf("scaled multiples: %w", err)
		}
		d.pos += n
		return nil
	}
	if err := cascade.FilterSeq(d.ks, q, n, sel); err != nil {
		return fmt.Errorf("scaled multiples: %w", err)
	}
	d.pos += n
	return nil
}

// mapPred turns p into a predicate on the multiples, or reports that every
// value or no value matches; ok is false for an operator it does not map.
func (d *decoder[T]) mapPred(p *encoding.Pred[T]) (q *encoding.Pred[uint64], all, none, ok bool) {
	// ceil is the least multiple whose value is ≥ a; it exists for every a
	// at or below the values' bound (callers check a ≤ base first for 0).
	ceil := func(a T) uint64 {
		k, exact, _ := d.multiple(a)
		if !exact {
			k++
		}
		return k
	}
	switch p.Op {
	case encoding.OpEq, encoding.OpNe:
		k, exact, below := d.multiple(p.A)
		if below || !exact {
			return nil, p.Op == encoding.OpNe, p.Op == encoding.OpEq, true
		}
		return &encoding.Pred[uint64]{Op: p.Op, A: k}, false, false, true
	case encoding.OpLt: // v < a ⟺ k < ceil(a)
		if p.A <= d.base {
			return nil, false, true, true
		}
		return &encoding.Pred[uint64]{Op: encoding.OpLt, A: ceil(p.A)}, false, false, true
	case encoding.OpLe: // v ≤ a ⟺ k ≤ floor(a)
		k, _, below := d.multiple(p.A)
		if below {
			return nil, false, true, true
		}
		return &encoding.Pred[uint64]{Op: encoding.OpLe, A: k}, false, false, true
	case encoding.OpGt: // v > a ⟺ k > floor(a)
		k, _, below := d.multiple(p.A)
		if below {
			return nil, true, false, true
		}
		return &encoding.Pred[uint64]{Op: encoding.OpGt, A: k}, false, false, true
	case encoding.OpGe: // v ≥ a ⟺ k ≥ ceil(a)
		if p.A <= d.base {
			return nil, true, false, true
		}
		return &encoding.Pred[uint64]{Op: encoding.OpGe, A: ceil(p.A)}, false, false, true
	case encoding.OpBetween:
		if p.B < p.A || p.B < d.base {
			return nil, false, true, true
		}
		lo := uint64(0)
		if p.A > d.base {
			lo = ceil(p.A)
		}
		hi, _, _ := d.multiple(p.B)
		if lo > hi {
			return nil, false, true, true
		}
		return &encoding.Pred[uint64]{Op: encoding.OpBetween, A: lo, B: hi}, false, false, true
	case encoding.OpIn:
		set := make([]uint64, 0, len(p.Set))
		for _, a := range p.Set { // ascending, so the multiples are too
			if k, exact, below := d.multiple(a); exact && !below {
				set = append(set, k)
			}
		}
		if len(set) == 0 {
			return nil, false, true, true
		}
		return &encoding.Pred[uint64]{Op: encoding.OpIn, Set: set}, false, false, true
	}
	return nil, false, false, false
}

// compile-time checks of the capabilities.
var (
	_ encoding.Reader[int64]   = (*decoder[int64])(nil)
	_ encoding.Gatherer[int64] = (*decoder[int64])(nil)
	_ encoding.Bounder[int64]  = (*decoder[int64])(nil)
	_ encoding.Filterer[int64] = (*decoder[int64])(nil)
)
