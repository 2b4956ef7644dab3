// Package nullable implements the Nullable encoding: a sequence with nulls
// is stored as its validity (one bool per row, true = present) and its
// non-null values compacted, two child sequences chosen by the selection
// policy. The node's rows count nulls; the values child holds only the
// present rows.
//
// Body layout (children are length-prefixed nodes):
//
//	validityLen:uvarint | validity node (bool, rows) | valuesLen:uvarint | values node (T, M rows)
//
// where M is the number of true validity values.
//
// Plain reads return the zero value (empty binary) for a null row;
// ReadNullable / ReadBinaryNullable also return the validity. Nulls fail
// every predicate. The policy never selects Nullable (sequences carry no
// validity): writers call Encode with the validity instead.
package nullable

import (
	"fmt"
	"math/bits"

	"strata/encoding"
	"strata/encoding/internal/cascade"
)

// Codec registers Nullable; it has no Encoder (see Encode).
var Codec = &encoding.Codec{
	Kind:    encoding.KindNullable,
	Types:   encoding.AllTypes,
	Open:    open,
	Decode:  encoding.Cost{PerValue: 1.28, PerString: 3.64, PerByte: 0.065}, // strata calibrate (docs/benchmarks.md)
	Wrapper: true,
}

// trueCounter is the optional validity-child capability of consuming rows
// while only counting the present ones (implemented by SparseBool and by
// RLE over bools).
type trueCounter interface {
	CountTrue(n int) (int, error)
}

// Encode writes a whole Nullable node for vals (the compacted non-null
// values: a []T or encoding.Bytes holding one value per true in valid) and
// returns it appended to dst with its encoding tree. Both children are
// chosen by p; when p.Force is a Nullable tree its Children[0] is replayed
// for the validity and Children[1] for the values.
func Encode(p *encoding.Policy, dst []byte, vals any, valid []bool) ([]byte, *encoding.Tree, error) {
	typ := encoding.TypeOf(vals)
	if typ == encoding.TypeInvalid {
		return dst, nil, fmt.Errorf("nullable: cannot encode %T", vals)
	}
	present := 0
	for _, v := range valid {
		if v {
			present++
		}
	}
	if m := encoding.LenOf(vals); m != present {
		return dst, nil, fmt.Errorf("nullable: %d values for %d present rows", m, present)
	}
	var fv, fx *encoding.Tree
	if f := p.Force; f != nil && f.Kind == encoding.KindNullable {
		if len(f.Children) > 0 {
			fv = f.Children[0]
		}
		if len(f.Children) > 1 {
			fx = f.Children[1]
		}
	}
	start := len(dst)
	dst = encoding.AppendHeader(dst, encoding.KindNullable, typ, len(valid))
	vnode, vt, err := p.EncodeSequence(nil, valid, 1, encoding.KindNullable, fv)
	if err != nil {
		return dst[:start], nil, fmt.Errorf("nullable validity: %w", err)
	}
	dst = encoding.AppendChild(dst, vnode)
	xnode, xt, err := p.EncodeSequence(nil, vals, 1, encoding.KindNullable, fx)
	if err != nil {
		return dst[:start], nil, fmt.Errorf("nullable values: %w", err)
	}
	dst = encoding.AppendChild(dst, xnode)
	return dst, &encoding.Tree{Kind: encoding.KindNullable, Children: []*encoding.Tree{vt, xt}}, nil
}

// core is the validity cursor shared by every value type.
type core struct {
	typ   encoding.Type
	rows  int
	m     int // values child rows
	nodes [2][]byte
	valid encoding.Reader[bool]
	vals  encoding.Decoder
	vbuf  []bool
	csel  encoding.Bitmap
	opts  *encoding.Options
	depth int

	// rank index for Gather, built on first use: validity as bits and the
	// number of present rows before each 64-row word.
	vbits []uint64
	rank  []uint32
}

func (c *core) Kind() encoding.Kind { return encoding.KindNullable }
func (c *core) Type() encoding.Type { return c.typ }
func (c *core) Len() int            { return c.rows }
func (c *core) Pos() int            { return c.valid.Pos() }

// Reset rewinds both children.
func (c *core) Reset() {
	c.valid.Reset()
	c.vals.Reset()
}

// Children implements encoding.Walker.
func (c *core) Children() []encoding.ChildNode {
	return []encoding.ChildNode{{Role: "validity", Node: c.nodes[0]}, {Role: "values", Node: c.nodes[1]}}
}

// readValid reads the validity of the next len(v) rows and counts the
// present ones.
func (c *core) readValid(v []bool) (int, error) {
	if err := c.valid.Read(v); err != nil {
		return 0, fmt.Errorf("nullable validity: %w", err)
	}
	cnt := 0
	for _, b := range v {
		if b {
			cnt++
		}
	}
	if err := c.checkPresent(cnt); err != nil {
		return 0, err
	}
	return cnt, nil
}

// checkPresent checks that cnt more present rows fit the values child,
// and that the last validity rows leave none of its values unread: the
// child holds exactly the present rows (FORMAT.md, Nullable).
func (c *core) checkPresent(cnt int) error {
	left := c.m - c.vals.Pos()
	if cnt > left {
		return encoding.Corruptf("nullable: more present rows than %d values", c.m)
	}
	if cnt < left && c.valid.Pos() == c.rows {
		return encoding.Corruptf("nullable: %d present rows, values child holds %d", c.vals.Pos()+cnt, c.m)
	}
	return nil
}

// Skip counts the present rows among the next n and skips as many values.
func (c *core) Skip(n int) error {
	if err := cascade.CheckRead(encoding.KindNullable, c.Pos(), n, c.rows); err != nil {
		return err
	}
	cnt := 0
	if tc, ok := c.valid.(trueCounter); ok {
		k, err := tc.CountTrue(n)
		if err != nil {
			return err
		}
		cnt = k
	} else {
		c.vbuf = cascade.Grow(c.vbuf, min(n, cascade.Batch))
		for n > 0 {
			k := min(n, len(c.vbuf))
			p, err := c.readValid(c.vbuf[:k])
			if err != nil {
				return err
			}
			cnt += p
			n -= k
		}
	}
	if err := c.checkPresent(cnt); err != nil {
		return err
	}
	return c.vals.Skip(cnt)
}

// buildRank decodes the whole validity once through a private cursor.
func (c *core) buildRank() error {
	if c.rank != nil {
		return nil
	}
	words := (c.rows + 63) / 64
	if err := c.opts.CheckAlloc(words, 12, "nullable rank index"); err != nil {
		return err
	}
	r, err := cascade.OpenFixed[bool](c.nodes[0], c.depth, c.opts, c.rows, "validity")
	if err != nil {
		return err
	}
	vbits := make([]uint64, words)
	rank := make([]uint32, words+1)
	buf := make([]bool, min(c.rows, cascade.Batch*4))
	for off := 0; off < c.rows; {
		k := min(c.rows-off, len(buf))
		if err := r.Read(buf[:k]); err != nil {
			return fmt.Errorf("nullable validity: %w", err)
		}
		for j, b := range buf[:k] {
			if b {
				i := off + j
				vbits[i>>6] |= 1 << (i & 63)
			}
		}
		off += k
	}
	total := 0
	for w, x := range vbits {
		rank[w] = uint32(total)
		total += bits.OnesCount64(x)
	}
	rank[words] = uint32(total)
	if total != c.m {
		return encoding.Corruptf("nullable: %d present rows, values child holds %d", total, c.m)
	}
	c.vbits, c.rank = vbits, rank
	return nil
}

// present reports whether row is valid and its index among the values.
func (c *core) present(row int) (bool, int) {
	w := row >> 6
	bit := uint64(1) << (row & 63)
	return c.vbits[w]&bit != 0, int(c.rank[w]) + bits.OnesCount64(c.vbits[w]&(bit-1))
}

// ranks maps gather rows to present value indexes (into idx) and validity.
func (c *core) ranks(rows []int32, idx []int32, ok []bool) []int32 {
	idx = idx[:0]
	for i, row := range rows {
		p, r := c.present(int(row))
		ok[i] = p
		if p {
			idx = append(idx, int32(r))
		}
	}
	return idx
}

// compact builds the selection over the present rows of a chunk and clears
// null rows in sel. v is the chunk's validity, off its first row in sel.
func (c *core) compact(v []bool, cnt, off int, sel encoding.Bitmap) encoding.Bitmap {
	c.csel = encoding.Bitmap(cascade.Grow([]uint64(c.csel), (cnt+63)/64))
	cs := c.csel
	for i := range cs {
		cs[i] = 0
	}
	j := 0
	for i, b := range v {
		if !b {
			sel.Clear(off + i)
			continue
		}
		if sel.Get(off + i) {
			cs.Set(j)
		}
		j++
	}
	return cs
}

// scatter clears the rows of sel whose present value failed (bit clear in cs).
func scatter(v []bool, cs encoding.Bitmap, off int, sel encoding.Bitmap) {
	j := 0
	for i, b := range v {
		if b {
			if !cs.Get(j) {
				sel.Clear(off + i)
			}
			j++
		}
	}
}

func open(h encoding.Header, opts *encoding.Options) (encoding.Decoder, error) {
	vn, rest, err := encoding.Child(h.Body, "validity")
	if err != nil {
		return nil, err
	}
	xn, rest, err := encoding.Child(rest, "values")
	if err != nil {
		return nil, err
	}
	if len(rest) != 0 {
		return nil, encoding.Corruptf("%d trailing bytes after values", len(rest))
	}
	depth := h.Depth + 1
	valid, err := cascade.OpenFixed[bool](vn, depth, opts, h.Rows, "validity")
	if err != nil {
		return nil, err
	}
	c := core{typ: h.Type, rows: h.Rows, nodes: [2][]byte{vn, xn}, valid: valid, opts: opts, depth: depth}
	switch h.Type {
	case encoding.Bool:
		return openFixed[bool](c, xn)
	case encoding.Int8:
		return openNum[int8](c, xn)
	case encoding.Int16:
		return openNum[int16](c, xn)
	case encoding.Int32:
		return openNum[int32](c, xn)
	case encoding.Int64:
		return openNum[int64](c, xn)
	case encoding.Uint8:
		return openNum[uint8](c, xn)
	case encoding.Uint16:
		return openNum[uint16](c, xn)
	case encoding.Uint32:
		return openNum[uint32](c, xn)
	case encoding.Uint64:
		return openNum[uint64](c, xn)
	case encoding.Float32:
		return openNum[float32](c, xn)
	case encoding.Float64:
		return openNum[float64](c, xn)
	case encoding.Binary:
		r, err := cascade.OpenBinary(xn, depth, opts, -1, "values")
		if err != nil {
			return nil, err
		}
		if r.Len() > h.Rows {
			return nil, encoding.Corruptf("%d values for %d rows", r.Len(), h.Rows)
		}
		c.vals, c.m = r, r.Len()
		return &binaryNullable{core: c, x: r}, nil
	}
	return nil, encoding.Unsupportedf("type %v", h.Type)
}

// fixedNullable decodes fixed-width values.
type fixedNullable[T encoding.Fixed] struct {
	core
	x    encoding.Reader[T]
	gdec encoding.Reader[T]
	gbuf []T
	gidx []int32
	gok  []bool
}

func openFixed[T encoding.Fixed](c core, xn []byte) (*fixedNullable[T], error) {
	r, err := cascade.OpenFixed[T](xn, c.depth, c.opts, -1, "values")
	if err != nil {
		return nil, err
	}
	if r.Len() > c.rows {
		return nil, encoding.Corruptf("%d values for %d rows", r.Len(), c.rows)
	}
	c.vals, c.m = r, r.Len()
	return &fixedNullable[T]{core: c, x: r}, nil
}

// readInto reads len(dst) rows: validity into v, the present values into
// the front of dst, then spreads them to their rows from the back, zeroing
// nulls (in place: a value only ever moves to a later slot).
func (d *fixedNullable[T]) readInto(dst []T, v []bool) error {
	cnt, err := d.readValid(v)
	if err != nil {
		return err
	}
	if err := d.x.Read(dst[:cnt]); err != nil {
		return fmt.Errorf("nullable values: %w", err)
	}
	if cnt == len(dst) {
		return nil
	}
	// Branch-free body: with mixed validity a per-row branch mispredicts
	// about half the time, which costs more than the extra load and store.
	var zero T
	j := cnt - 1
	for i := len(dst) - 1; i >= 0; i-- {
		x := dst[max(j, 0)]
		step := 0
		if v[i] {
			step = 1
		} else {
			x = zero
		}
		dst[i] = x
		j -= step
	}
	return nil
}

// Read decodes the next len(dst) rows; nulls read as the zero value.
func (d *fixedNullable[T]) Read(dst []T) error {
	if err := cascade.CheckRead(encoding.KindNullable, d.Pos(), len(dst), d.rows); err != nil {
		return err
	}
	d.vbuf = cascade.Grow(d.vbuf, min(len(dst), cascade.Batch))
	for len(dst) > 0 {
		k := min(len(dst), len(d.vbuf))
		if err := d.readInto(dst[:k], d.vbuf[:k]); err != nil {
			return err
		}
		dst = dst[k:]
	}
	return nil
}

// ReadNullable implements encoding.NullableReader.
func (d *fixedNullable[T]) ReadNullable(dst []T, valid []bool) error {
	if len(valid) < len(dst) {
		return fmt.Errorf("nullable: validity buffer of %d for %d values", len(valid), len(dst))
	}
	if err := cascade.CheckRead(encoding.KindNullable, d.Pos(), len(dst), d.rows); err != nil {
		return err
	}
	return d.readInto(dst, valid[:len(dst)])
}

// Gather maps rows to value indexes with the rank index, then gathers the
// present values from the values child.
func (d *fixedNullable[T]) Gather(rows []int32, dst []T) error {
	if err := cascade.CheckGather(encoding.KindNullable, rows, len(dst), d.rows); err != nil {
		return err
	}
	if err := d.buildRank(); err != nil {
		return err
	}
	d.gok = cascade.Grow(d.gok, len(rows))
	d.gidx = d.ranks(rows, d.gidx, d.gok)
	d.gbuf = cascade.Grow(d.gbuf, len(d.gidx))
	if err := d.gatherValues(d.gidx, d.gbuf); err != nil {
		return err
	}
	var zero T
	j := 0
	for i := range rows {
		if d.gok[i] {
			dst[i] = d.gbuf[j]
			j++
		} else {
			dst[i] = zero
		}
	}
	return nil
}

func (d *fixedNullable[T]) gatherValues(idx []int32, dst []T) error {
	if g, ok := d.x.(encoding.Gatherer[T]); ok {
		return g.Gather(idx, dst)
	}
	if d.gdec == nil {
		r, err := cascade.OpenFixed[T](d.nodes[1], d.depth, d.opts, d.m, "values")
		if err != nil {
			return err
		}
		d.gdec = r
	}
	return cascade.GatherSeq(d.gdec, idx, dst)
}

// numNullable adds the numeric capabilities.
type numNullable[T encoding.Number] struct {
	fixedNullable[T]
	fbuf []T
}

func openNum[T encoding.Number](c core, xn []byte) (*numNullable[T], error) {
	f, err := openFixed[T](c, xn)
	if err != nil {
		return nil, err
	}
	return &numNullable[T]{fixedNullable: *f}, nil
}

// Bounds are the values child's bounds (nulls do not count).
func (d *numNullable[T]) Bounds() (min, max T, ok bool) {
	if b, isB := d.x.(encoding.Bounder[T]); isB && d.m > 0 {
		return b.Bounds()
	}
	return min, max, false
}

// Filter clears null rows, then filters the present values through the
// values child (its Filterer when it has one) on a compacted selection.
func (d *numNullable[T]) Filter(p *encoding.Pred[T], n int, sel encoding.Bitmap) error {
	if err := cascade.CheckRead(encoding.KindNullable, d.Pos(), n, d.rows); err != nil {
		return err
	}
	d.vbuf = cascade.Grow(d.vbuf, min(n, cascade.Batch))
	f, hasF := d.x.(encoding.Filterer[T])
	for off := 0; off < n; {
		k := min(n-off, len(d.vbuf))
		v := d.vbuf[:k]
		cnt, err := d.readValid(v)
		if err != nil {
			return err
		}
		if !sel.AnyIn(off, off+k) {
			if err := d.x.Skip(cnt); err != nil {
				return err
			}
			off += k
			continue
		}
		cs := d.compact(v, cnt, off, sel)
		if hasF {
			if err := f.Filter(p, cnt, cs); err != nil {
				return err
			}
		} else {
			d.fbuf = cascade.Grow(d.fbuf, cnt)
			if err := d.x.Read(d.fbuf); err != nil {
				return err
			}
			for j, x := range d.fbuf {
				if !p.Match(x) {
					cs.Clear(j)
				}
			}
		}
		scatter(v, cs, off, sel)
		off += k
	}
	return nil
}

// binaryNullable decodes binary values.
type binaryNullable struct {
	core
	x    encoding.BinaryReader
	gdec encoding.BinaryReader
	gbuf encoding.Bytes
	gidx []int32
	gok  []bool
}

// readInto appends n rows: the present values, then spreads their offsets
// so that null rows become empty values.
func (d *binaryNullable) readInto(dst *encoding.Bytes, v []bool) error {
	cnt, err := d.readValid(v)
	if err != nil {
		return err
	}
	if len(dst.Offsets) == 0 {
		dst.Offsets = append(dst.Offsets, int32(len(dst.Data)))
	}
	s := len(dst.Offsets) - 1
	if err := d.x.ReadBinary(dst, cnt); err != nil {
		return fmt.Errorf("nullable values: %w", err)
	}
	if len(dst.Offsets) != s+1+cnt {
		return encoding.Corruptf("nullable: values child appended %d offsets, want %d", len(dst.Offsets)-s-1, cnt)
	}
	n := len(v)
	if cnt == n {
		return nil
	}
	dst.Offsets = append(dst.Offsets, make([]int32, n-cnt)...)
	off := dst.Offsets[s:]
	// off[1+i] is the end of row i; a null row ends where the previous
	// present row ended.
	j := cnt
	for i := n; i >= 1; i-- {
		off[i] = off[j]
		step := 0
		if v[i-1] {
			step = 1
		}
		j -= step
	}
	return nil
}

// ReadBinary appends the next n rows; nulls are empty values.
func (d *binaryNullable) ReadBinary(dst *encoding.Bytes, n int) error {
	if err := cascade.CheckRead(encoding.KindNullable, d.Pos(), n, d.rows); err != nil {
		return err
	}
	d.vbuf = cascade.Grow(d.vbuf, min(n, cascade.Batch))
	for n > 0 {
		k := min(n, len(d.vbuf))
		if err := d.readInto(dst, d.vbuf[:k]); err != nil {
			return err
		}
		n -= k
	}
	return nil
}

// ReadBinaryNullable implements encoding.NullableBinaryReader.
func (d *binaryNullable) ReadBinaryNullable(dst *encoding.Bytes, valid []bool, n int) error {
	if len(valid) < n {
		return fmt.Errorf("nullable: validity buffer of %d for %d values", len(valid), n)
	}
	if err := cascade.CheckRead(encoding.KindNullable, d.Pos(), n, d.rows); err != nil {
		return err
	}
	return d.readInto(dst, valid[:n])
}

// GatherBinary appends the values at rows (empty for nulls).
func (d *binaryNullable) GatherBinary(rows []int32, dst *encoding.Bytes) error {
	if err := cascade.CheckGather(encoding.KindNullable, rows, len(rows), d.rows); err != nil {
		return err
	}
	if err := d.buildRank(); err != nil {
		return err
	}
	d.gok = cascade.Grow(d.gok, len(rows))
	d.gidx = d.ranks(rows, d.gidx, d.gok)
	d.gbuf.Reset()
	if g, ok := d.x.(encoding.BinaryGatherer); ok {
		if err := g.GatherBinary(d.gidx, &d.gbuf); err != nil {
			return err
		}
	} else {
		if d.gdec == nil {
			r, err := cascade.OpenBinary(d.nodes[1], d.depth, d.opts, d.m, "values")
			if err != nil {
				return err
			}
			d.gdec = r
		}
		if err := cascade.GatherSeqBinary(d.gdec, d.gidx, &d.gbuf); err != nil {
			return err
		}
	}
	if d.gbuf.Len() != len(d.gidx) {
		return encoding.Corruptf("nullable: values gather returned %d of %d", d.gbuf.Len(), len(d.gidx))
	}
	j := 0
	for i := range rows {
		if d.gok[i] {
			dst.Append(d.gbuf.Value(j))
			j++
		} else {
			dst.Append(nil)
		}
	}
	return nil
}

// BinaryBounds are the values child's bounds.
func (d *binaryNullable) BinaryBounds() (min, max []byte, ok bool) {
	if b, isB := d.x.(encoding.BinaryBounder); isB && d.m > 0 {
		return b.BinaryBounds()
	}
	return nil, nil, false
}

// FilterBinary clears null rows and filters the present values.
func (d *binaryNullable) FilterBinary(p *encoding.BytesPred, n int, sel encoding.Bitmap) error {
	if err := cascade.CheckRead(encoding.KindNullable, d.Pos(), n, d.rows); err != nil {
		return err
	}
	d.vbuf = cascade.Grow(d.vbuf, min(n, cascade.Batch))
	f, hasF := d.x.(encoding.BinaryFilterer)
	var tmp encoding.Bytes
	for off := 0; off < n; {
		k := min(n-off, len(d.vbuf))
		v := d.vbuf[:k]
		cnt, err := d.readValid(v)
		if err != nil {
			return err
		}
		if !sel.AnyIn(off, off+k) {
			if err := d.x.Skip(cnt); err != nil {
				return err
			}
			off += k
			continue
		}
		cs := d.compact(v, cnt, off, sel)
		if hasF {
			if err := f.FilterBinary(p, cnt, cs); err != nil {
				return err
			}
		} else {
			tmp.Reset()
			if err := d.x.ReadBinary(&tmp, cnt); err != nil {
				return err
			}
			for j := 0; j < cnt; j++ {
				if !p.Match(tmp.Value(j)) {
					cs.Clear(j)
				}
			}
		}
		scatter(v, cs, off, sel)
		off += k
	}
	return nil
}
