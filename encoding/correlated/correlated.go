// Package correlated implements the Correlated encoding (kind 18): an
// integer column stored as its difference from another column of the same
// stripe, row by row. Columns that move together (a receipt date a few
// days after a ship date, an end after a start, a total near a subtotal)
// then cost the bits of their difference instead of the bits of their own
// range: TPC-H's l_receiptdate - l_shipdate lies in 1..30 (5 bits) where
// l_receiptdate alone spans 12.
//
// Body layout:
//
//	refStream:uvarint | diffLen:uvarint | diff node (S, rows)
//
// S is the signed integer type of T's width (int32 for int32 and uint32),
// so that a column a little below its reference has a small difference
// whatever its signedness. Row i of the node is ref[i] + T(diff[i]) in T's
// two's-complement (wrapping) arithmetic, where ref[i] is the value of stream refStream at the stripe
// row of the chunk's row i (a null reference value counts as 0). A
// Correlated node is always a chunk's root, of an integer type, and its
// reference stream holds the same physical type and one entry per row of
// the stripe like the chunk's own stream. References do not chain: the
// chunks of a reference stream that a Correlated chunk covers may not be
// Correlated themselves, so references never form cycles.
//
// Readers reach the reference rows through encoding.Options.Resolver. The
// writer builds Correlated nodes itself (Encode), after finding correlated
// column pairs on samples of each stripe; selection never offers the kind.
package correlated

import (
	"encoding/binary"
	"fmt"

	"strata/encoding"
	"strata/encoding/internal/cascade"
)

// Codec registers Correlated for decoding.
var Codec = &encoding.Codec{
	Kind:           encoding.KindCorrelated,
	Types:          encoding.IntegerTypes,
	Open:           open,
	Decode:         encoding.Cost{PerValue: 1.37}, // strata calibrate (docs/benchmarks.md)
	EncodeRelative: Encode,
}

// Encode appends a Correlated node of vals against ref (the reference
// stream's values for the same rows, nulls as 0) to dst. The difference is
// encoded with p, replaying force (a Correlated tree) when it is non-nil.
// It returns the extended dst and the node's tree.
func Encode(p *encoding.Policy, dst []byte, vals, ref any, refStream int, force *encoding.Tree) ([]byte, *encoding.Tree, error) {
	diff, err := Diff(vals, ref)
	if err != nil {
		return dst, nil, err
	}
	start := len(dst)
	n := encoding.LenOf(vals)
	dst = encoding.AppendHeader(dst, encoding.KindCorrelated, encoding.TypeOf(vals), n)
	dst = binary.AppendUvarint(dst, uint64(refStream))
	var ft *encoding.Tree
	if force != nil && force.Kind == encoding.KindCorrelated && len(force.Children) == 1 {
		ft = force.Children[0]
	}
	q := *p
	q.Shared = nil
	child, t, err := q.EncodeSequence(nil, diff, 1, encoding.KindCorrelated, ft)
	if err != nil {
		return dst[:start], nil, fmt.Errorf("correlated: difference: %w", err)
	}
	dst = encoding.AppendChild(dst, child)
	return dst, &encoding.Tree{Kind: encoding.KindCorrelated, Children: []*encoding.Tree{t}}, nil
}

// Diff returns vals - ref row by row, wrapping, as a new slice of the
// signed type of vals' width. vals and ref must be integer slices of one
// type and length.
func Diff(vals, ref any) (any, error) {
	switch v := vals.(type) {
	case []int8:
		return diff[int8, int8](v, ref)
	case []int16:
		return diff[int16, int16](v, ref)
	case []int32:
		return diff[int32, int32](v, ref)
	case []int64:
		return diff[int64, int64](v, ref)
	case []uint8:
		return diff[uint8, int8](v, ref)
	case []uint16:
		return diff[uint16, int16](v, ref)
	case []uint32:
		return diff[uint32, int32](v, ref)
	case []uint64:
		return diff[uint64, int64](v, ref)
	}
	return nil, fmt.Errorf("correlated: cannot encode %T", vals)
}

type signed interface{ int8 | int16 | int32 | int64 }

func diff[T encoding.Integer, S signed](v []T, ref any) (any, error) {
	r, ok := ref.([]T)
	if !ok || len(r) != len(v) {
		return nil, fmt.Errorf("correlated: reference of %T for %d values of %v", ref, len(v), encoding.TypeFor[T]())
	}
	out := make([]S, len(v))
	for i, x := range v {
		out[i] = S(x - r[i])
	}
	return out, nil
}

func open(h encoding.Header, opts *encoding.Options) (encoding.Decoder, error) {
	if h.Depth != 0 {
		return nil, encoding.Corruptf("correlated node at depth %d: it may only be a chunk's root", h.Depth)
	}
	if !h.Type.IsInteger() {
		return nil, encoding.Unsupportedf("correlated node of %v", h.Type)
	}
	ref, rest, err := encoding.Uvarint(h.Body, "reference stream")
	if err != nil {
		return nil, err
	}
	dn, rest, err := encoding.Child(rest, "difference")
	if err != nil {
		return nil, err
	}
	if len(rest) != 0 {
		return nil, encoding.Corruptf("%d trailing bytes after the difference", len(rest))
	}
	if ref > 1<<31 {
		return nil, encoding.Corruptf("reference stream %d", ref)
	}
	switch h.Type {
	case encoding.Int8:
		return newDec[int8, int8](h, opts, int(ref), dn)
	case encoding.Int16:
		return newDec[int16, int16](h, opts, int(ref), dn)
	case encoding.Int32:
		return newDec[int32, int32](h, opts, int(ref), dn)
	case encoding.Int64:
		return newDec[int64, int64](h, opts, int(ref), dn)
	case encoding.Uint8:
		return newDec[uint8, int8](h, opts, int(ref), dn)
	case encoding.Uint16:
		return newDec[uint16, int16](h, opts, int(ref), dn)
	case encoding.Uint32:
		return newDec[uint32, int32](h, opts, int(ref), dn)
	case encoding.Uint64:
		return newDec[uint64, int64](h, opts, int(ref), dn)
	}
	return nil, encoding.Unsupportedf("correlated node of %v", h.Type)
}

// dec decodes a Correlated node: its difference child (of S, the signed
// type of T's width) and the reference rows, read in step and added.
type dec[T encoding.Integer, S signed] struct {
	typ  encoding.Type
	rows int
	ref  int // reference stream
	node []byte
	opts *encoding.Options
	diff encoding.Reader[S]
	refs encoding.RefReader[T]
	dbuf []S
	rbuf []T
	gdec encoding.Reader[S] // private difference cursor for gathers
}

func newDec[T encoding.Integer, S signed](h encoding.Header, opts *encoding.Options, ref int, dn []byte) (*dec[T, S], error) {
	if opts == nil || opts.Resolver == nil {
		return nil, encoding.Unsupportedf("correlated: the node refers to stream %d; open it through a file reader, which resolves references", ref)
	}
	d, err := cascade.OpenFixed[S](dn, h.Depth+1, opts, h.Rows, "difference")
	if err != nil {
		return nil, err
	}
	rd, err := opts.Resolver.Reference(ref, h.Type)
	if err != nil {
		return nil, fmt.Errorf("correlated: %w", err)
	}
	rr, ok := rd.(encoding.RefReader[T])
	if !ok {
		return nil, encoding.Corruptf("correlated: reference stream %d does not read as %v", ref, h.Type)
	}
	if rr.Len() != h.Rows {
		return nil, encoding.Corruptf("correlated: reference stream %d gives %d rows for %d", ref, rr.Len(), h.Rows)
	}
	return &dec[T, S]{typ: h.Type, rows: h.Rows, ref: ref, node: dn, opts: opts, diff: d, refs: rr}, nil
}

func (d *dec[T, S]) Kind() encoding.Kind { return encoding.KindCorrelated }
func (d *dec[T, S]) Type() encoding.Type { return d.typ }
func (d *dec[T, S]) Len() int            { return d.rows }
func (d *dec[T, S]) Pos() int            { return d.diff.Pos() }
func (d *dec[T, S]) Reset()              { d.diff.Reset(); d.refs.Reset() }

// Reference returns the stream the node's values are relative to.
func (d *dec[T, S]) Reference() int { return d.ref }

// Children implements encoding.Walker.
func (d *dec[T, S]) Children() []encoding.ChildNode {
	return []encoding.ChildNode{{Role: "difference", Node: d.node}}
}

// Skip advances the difference and the reference rows together.
func (d *dec[T, S]) Skip(n int) error {
	if err := cascade.CheckRead(encoding.KindCorrelated, d.diff.Pos(), n, d.rows); err != nil {
		return err
	}
	if err := d.diff.Skip(n); err != nil {
		return err
	}
	return d.refs.Skip(n)
}

// Read decodes the difference and the reference rows batch by batch and
// adds them.
func (d *dec[T, S]) Read(dst []T) error {
	if err := cascade.CheckRead(encoding.KindCorrelated, d.diff.Pos(), len(dst), d.rows); err != nil {
		return err
	}
	for len(dst) > 0 {
		k := min(len(dst), cascade.Batch)
		d.dbuf = cascade.Grow(d.dbuf, k)
		d.rbuf = cascade.Grow(d.rbuf, k)
		df, ref := d.dbuf[:k], d.rbuf[:k]
		if err := d.diff.Read(df); err != nil {
			return err
		}
		if err := d.refs.Read(ref); err != nil {
			return err
		}
		out := dst[:k]
		for i, r := range ref {
			out[i] = r + T(df[i])
		}
		dst = dst[k:]
	}
	return nil
}

// Gather reads the values at rows without moving the cursor.
func (d *dec[T, S]) Gather(rows []int32, dst []T) error {
	if err := cascade.CheckGather(encoding.KindCorrelated, rows, len(dst), d.rows); err != nil {
		return err
	}
	dst = dst[:len(rows)]
	d.dbuf = cascade.Grow(d.dbuf, len(rows))
	df := d.dbuf[:len(rows)]
	if g, ok := d.diff.(encoding.Gatherer[S]); ok {
		if err := g.Gather(rows, df); err != nil {
			return err
		}
	} else {
		if d.gdec == nil {
			r, err := cascade.OpenFixed[S](d.node, 1, d.opts, d.rows, "difference")
			if err != nil {
				return err
			}
			d.gdec = r
		}
		if err := cascade.GatherSeq(d.gdec, rows, df); err != nil {
			return err
		}
	}
	if err := d.refs.GatherZero(rows, dst); err != nil {
		return err
	}
	for i, x := range df {
		dst[i] += T(x)
	}
	return nil
}

// Filter decodes the next n values batch by batch, skipping batches with
// no selected row, and clears the rows that fail p, a word of 64 rows at a
// time.
func (d *dec[T, S]) Filter(p *encoding.Pred[T], n int, sel encoding.Bitmap) error {
	if err := cascade.CheckRead(encoding.KindCorrelated, d.diff.Pos(), n, d.rows); err != nil {
		return err
	}
	if len(sel)*64 < n {
		return fmt.Errorf("correlated: selection of %d rows for %d", len(sel)*64, n)
	}
	vals := make([]T, 0, cascade.Batch)
	for off := 0; off < n; {
		k := min(n-off, cascade.Batch)
		if !sel.AnyIn(off, off+k) {
			if err := d.Skip(k); err != nil {
				return err
			}
			off += k
			continue
		}
		vals = vals[:k]
		if err := d.Read(vals); err != nil {
			return err
		}
		// off is a multiple of Batch, hence of 64
		for w := 0; w*64 < k; w++ {
			chunk := vals[w*64 : min(k, w*64+64)]
			sel[off/64+w] &= matchMask(p, chunk)
		}
		off += k
	}
	return nil
}

// matchMask returns bit i set for each vals[i] that p matches. Interval
// predicates compare order-preserving unsigned keys without branches.
func matchMask[T encoding.Integer](p *encoding.Pred[T], vals []T) uint64 {
	lo, hi := uint64(0), ^uint64(0)
	switch p.Op {
	case encoding.OpEq:
		lo, hi = key(p.A), key(p.A)
	case encoding.OpBetween:
		lo, hi = key(p.A), key(p.B)
		if lo > hi {
			return 0
		}
	case encoding.OpLt:
		if key(p.A) == 0 {
			return 0
		}
		hi = key(p.A) - 1
	case encoding.OpLe:
		hi = key(p.A)
	case encoding.OpGt:
		if key(p.A) == ^uint64(0) {
			return 0
		}
		lo = key(p.A) + 1
	case encoding.OpGe:
		lo = key(p.A)
	default:
		var m uint64
		for i, v := range vals {
			if p.Match(v) {
				m |= 1 << uint(i)
			}
		}
		return m
	}
	span := hi - lo
	var m uint64
	for i, v := range vals {
		var b uint64
		if key(v)-lo <= span {
			b = 1
		}
		m |= b << uint(i)
	}
	return m
}

// key maps an integer to a uint64 that orders like it.
func key[T encoding.Integer](v T) uint64 {
	var z T
	if z-1 < 0 { // signed
		return uint64(int64(v)) ^ (1 << 63)
	}
	return uint64(v)
}
