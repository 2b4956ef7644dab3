// Package mainlyconst implements the MainlyConstant encoding: one common
// value stored once, plus the rows that differ from it (exceptions) as two
// child sequences chosen by the selection policy — their row positions
// (uint32, strictly increasing) and their values (the node's type).
//
// Body layout (children are length-prefixed nodes):
//
//	common value | positionsLen:uvarint | positions node (uint32, E rows) | valuesLen:uvarint | values node (T, E rows)
//
// The common value is the type's little-endian bytes (one byte 0/1 for
// bool) or, for binary, uvarint length + bytes. Equality is bit-exact for
// floats.
package mainlyconst

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"sort"

	"strata/encoding"
	"strata/encoding/internal/cascade"
)

// Codec registers MainlyConstant.
var Codec = &encoding.Codec{
	Kind:          encoding.KindMainlyConstant,
	Types:         encoding.AllTypes,
	Open:          open,
	Decode:        encoding.Cost{PerValue: 1.2, PerString: 8.94, PerByte: 0.073}, // strata calibrate (docs/benchmarks.md)
	Encoder:       encoder{},
	NeedsDistinct: true,
}

// Exceptions is implemented by MainlyConstant decoders of fixed-width types:
// an aggregate is common·(rows−E) combined with the E exception values.
type Exceptions[T encoding.Fixed] interface {
	// Common returns the common value.
	Common() T
	// Exceptions returns the exception rows (strictly increasing) and their
	// values. The slices belong to the decoder; do not modify.
	Exceptions() (positions []uint32, values []T)
}

// BinaryExceptions is Exceptions for binary values.
type BinaryExceptions interface {
	BinaryCommon() []byte
	BinaryExceptions() (positions []uint32, values *encoding.Bytes)
}

// core is the cursor shared by every value type: pos, and k, the first
// exception at or after pos.
type core struct {
	typ   encoding.Type
	rows  int
	pos   int
	k     int
	at    []uint32
	nodes [2][]byte
}

func (c *core) Kind() encoding.Kind { return encoding.KindMainlyConstant }
func (c *core) Type() encoding.Type { return c.typ }
func (c *core) Len() int            { return c.rows }
func (c *core) Pos() int            { return c.pos }
func (c *core) Reset()              { c.pos, c.k = 0, 0 }

// Children implements encoding.Walker.
func (c *core) Children() []encoding.ChildNode {
	return []encoding.ChildNode{{Role: "positions", Node: c.nodes[0]}, {Role: "values", Node: c.nodes[1]}}
}

// Skip moves past n rows; the exception index follows by search.
func (c *core) Skip(n int) error {
	if err := cascade.CheckRead(encoding.KindMainlyConstant, c.pos, n, c.rows); err != nil {
		return err
	}
	c.pos += n
	c.k = c.seek(c.k, c.pos)
	return nil
}

// seek returns the first exception index at or after from whose row is >= row.
func (c *core) seek(from, row int) int {
	at := c.at
	for i := 0; i < 4 && from < len(at); i++ {
		if int(at[from]) >= row {
			return from
		}
		from++
	}
	if from >= len(at) {
		return len(at)
	}
	return from + sort.Search(len(at)-from, func(i int) bool { return int(at[from+i]) >= row })
}

// span returns the exception index range [k, e) inside rows [pos, pos+n).
func (c *core) span(n int) (int, int) {
	e := c.k
	end := uint32(c.pos + n)
	for e < len(c.at) && c.at[e] < end {
		e++
	}
	return c.k, e
}

// clearOutside clears rows [0, n) of sel (relative to pos) except the
// exception rows whose keep(i) is true; used when the common value fails.
func (c *core) filterRows(n int, sel encoding.Bitmap, commonOK bool, keep func(i int) bool) {
	k, e := c.span(n)
	prev := 0
	for i := k; i < e; i++ {
		r := int(c.at[i]) - c.pos
		if !commonOK {
			cascade.ClearRange(sel, prev, r)
		}
		if !keep(i) {
			sel.Clear(r)
		}
		prev = r + 1
	}
	if !commonOK {
		cascade.ClearRange(sel, prev, n)
	}
	c.pos += n
	c.k = e
}

func open(h encoding.Header, opts *encoding.Options) (encoding.Decoder, error) {
	body := h.Body
	var commonRaw []byte
	if h.Type == encoding.Binary {
		l, rest, err := encoding.Length(body, len(body), "common value length")
		if err != nil {
			return nil, err
		}
		if l > len(rest) {
			return nil, encoding.Corruptf("common value of %d bytes, %d left", l, len(rest))
		}
		commonRaw, body = rest[:l], rest[l:]
	} else {
		size := h.Type.Size()
		if len(body) < size {
			return nil, encoding.Corruptf("common value: %d bytes left, need %d", len(body), size)
		}
		commonRaw, body = body[:size], body[size:]
	}
	pn, rest, err := encoding.Child(body, "positions")
	if err != nil {
		return nil, err
	}
	vn, rest, err := encoding.Child(rest, "exception values")
	if err != nil {
		return nil, err
	}
	if len(rest) != 0 {
		return nil, encoding.Corruptf("%d trailing bytes after exception values", len(rest))
	}
	depth := h.Depth + 1
	pd, err := cascade.OpenFixed[uint32](pn, depth, opts, -1, "positions")
	if err != nil {
		return nil, err
	}
	if pd.Len() > h.Rows {
		return nil, encoding.Corruptf("%d exceptions for %d rows", pd.Len(), h.Rows)
	}
	at, err := cascade.ReadAll(pd, opts, "positions")
	if err != nil {
		return nil, err
	}
	if err := cascade.CheckPositions(at, h.Rows, "positions"); err != nil {
		return nil, err
	}
	c := core{typ: h.Type, rows: h.Rows, at: at, nodes: [2][]byte{pn, vn}}
	switch h.Type {
	case encoding.Bool:
		return openFixed[bool](c, commonRaw, vn, depth, opts)
	case encoding.Int8:
		return openNum[int8](c, commonRaw, vn, depth, opts)
	case encoding.Int16:
		return openNum[int16](c, commonRaw, vn, depth, opts)
	case encoding.Int32:
		return openNum[int32](c, commonRaw, vn, depth, opts)
	case encoding.Int64:
		return openNum[int64](c, commonRaw, vn, depth, opts)
	case encoding.Uint8:
		return openNum[uint8](c, commonRaw, vn, depth, opts)
	case encoding.Uint16:
		return openNum[uint16](c, commonRaw, vn, depth, opts)
	case encoding.Uint32:
		return openNum[uint32](c, commonRaw, vn, depth, opts)
	case encoding.Uint64:
		return openNum[uint64](c, commonRaw, vn, depth, opts)
	case encoding.Float32:
		return openNum[float32](c, commonRaw, vn, depth, opts)
	case encoding.Float64:
		return openNum[float64](c, commonRaw, vn, depth, opts)
	case encoding.Binary:
		vd, err := cascade.OpenBinary(vn, depth, opts, len(at), "exception values")
		if err != nil {
			return nil, err
		}
		vals, err := cascade.ReadAllBinary(vd, opts, "exception values")
		if err != nil {
			return nil, err
		}
		return &binaryMC{core: c, common: commonRaw, exc: vals, outLimit: cascade.OutLimit(opts)}, nil
	}
	return nil, encoding.Unsupportedf("type %v", h.Type)
}

// fixedMC decodes fixed-width values.
type fixedMC[T encoding.Fixed] struct {
	core
	common T
	exc    []T
}

func openFixed[T encoding.Fixed](c core, commonRaw, vn []byte, depth int, opts *encoding.Options) (*fixedMC[T], error) {
	common, _, err := cascade.ParseFixed[T](commonRaw, "common value")
	if err != nil {
		return nil, err
	}
	vd, err := cascade.OpenFixed[T](vn, depth, opts, len(c.at), "exception values")
	if err != nil {
		return nil, err
	}
	exc, err := cascade.ReadAll(vd, opts, "exception values")
	if err != nil {
		return nil, err
	}
	return &fixedMC[T]{core: c, common: common, exc: exc}, nil
}

// Read fills dst with the common value, then patches the exceptions.
func (d *fixedMC[T]) Read(dst []T) error {
	if err := cascade.CheckRead(encoding.KindMainlyConstant, d.pos, len(dst), d.rows); err != nil {
		return err
	}
	cascade.Fill(dst, d.common)
	k, e := d.span(len(dst))
	for i := k; i < e; i++ {
		dst[int(d.at[i])-d.pos] = d.exc[i]
	}
	d.pos += len(dst)
	d.k = e
	return nil
}

// Gather merges rows with the exception positions; the cursor does not move.
func (d *fixedMC[T]) Gather(rows []int32, dst []T) error {
	if err := cascade.CheckGather(encoding.KindMainlyConstant, rows, len(dst), d.rows); err != nil {
		return err
	}
	k := 0
	for i, row := range rows {
		k = d.seek(k, int(row))
		if k < len(d.at) && d.at[k] == uint32(row) {
			dst[i] = d.exc[k]
		} else {
			dst[i] = d.common
		}
	}
	return nil
}

// Common implements Exceptions.
func (d *fixedMC[T]) Common() T { return d.common }

// Exceptions implements Exceptions.
func (d *fixedMC[T]) Exceptions() ([]uint32, []T) { return d.at, d.exc }

// numMC adds the numeric capabilities.
type numMC[T encoding.Number] struct {
	fixedMC[T]
	bounded    bool
	bmin, bmax T
	boundsOK   bool
}

func openNum[T encoding.Number](c core, commonRaw, vn []byte, depth int, opts *encoding.Options) (*numMC[T], error) {
	f, err := openFixed[T](c, commonRaw, vn, depth, opts)
	if err != nil {
		return nil, err
	}
	return &numMC[T]{fixedMC: *f}, nil
}

// Bounds covers the common value and every exception (computed once); NaN
// makes them unknown.
func (d *numMC[T]) Bounds() (min, max T, ok bool) {
	if !d.bounded {
		d.bounded = true
		if d.rows > 0 && d.common == d.common {
			d.bmin, d.bmax, d.boundsOK = d.common, d.common, true
			for _, x := range d.exc {
				if x != x {
					d.boundsOK = false
					break
				}
				d.bmin, d.bmax = minT(d.bmin, x), maxT(d.bmax, x)
			}
		}
	}
	return d.bmin, d.bmax, d.boundsOK
}

func minT[T encoding.Number](a, b T) T {
	if b < a {
		return b
	}
	return a
}

func maxT[T encoding.Number](a, b T) T {
	if b > a {
		return b
	}
	return a
}

// Filter tests the common value once, then only the exceptions in the span.
func (d *numMC[T]) Filter(p *encoding.Pred[T], n int, sel encoding.Bitmap) error {
	if err := cascade.CheckRead(encoding.KindMainlyConstant, d.pos, n, d.rows); err != nil {
		return err
	}
	d.filterRows(n, sel, p.Match(d.common), func(i int) bool { return p.Match(d.exc[i]) })
	return nil
}

// binaryMC decodes binary values.
type binaryMC struct {
	core
	common   []byte
	exc      encoding.Bytes
	outLimit int
}

// ReadBinary appends the next n values.
func (d *binaryMC) ReadBinary(dst *encoding.Bytes, n int) error {
	if err := cascade.CheckRead(encoding.KindMainlyConstant, d.pos, n, d.rows); err != nil {
		return err
	}
	k, e := d.span(n)
	total := (n-(e-k))*len(d.common) + int(d.exc.Offsets[e]-d.exc.Offsets[k])
	if len(dst.Data)+total > d.outLimit {
		return encoding.Limitf("mainlyconst: %d values need more than %d bytes", n, d.outLimit)
	}
	if len(dst.Offsets) == 0 {
		dst.Offsets = append(dst.Offsets, int32(len(dst.Data)))
	}
	dst.Data = cascade.Reserve(dst.Data, total)
	dst.Offsets = cascade.Reserve(dst.Offsets, n)
	for r := d.pos; r < d.pos+n; r++ {
		v := d.common
		if k < e && int(d.at[k]) == r {
			v = d.exc.Value(k)
			k++
		}
		dst.Data = append(dst.Data, v...)
		dst.Offsets = append(dst.Offsets, int32(len(dst.Data)))
	}
	d.pos += n
	d.k = e
	return nil
}

// GatherBinary appends the values at rows.
func (d *binaryMC) GatherBinary(rows []int32, dst *encoding.Bytes) error {
	if err := cascade.CheckGather(encoding.KindMainlyConstant, rows, len(rows), d.rows); err != nil {
		return err
	}
	k := 0
	for _, row := range rows {
		k = d.seek(k, int(row))
		if k < len(d.at) && d.at[k] == uint32(row) {
			dst.Append(d.exc.Value(k))
		} else {
			dst.Append(d.common)
		}
	}
	return nil
}

// FilterBinary tests the common value once, then the exceptions.
func (d *binaryMC) FilterBinary(p *encoding.BytesPred, n int, sel encoding.Bitmap) error {
	if err := cascade.CheckRead(encoding.KindMainlyConstant, d.pos, n, d.rows); err != nil {
		return err
	}
	d.filterRows(n, sel, p.Match(d.common), func(i int) bool { return p.Match(d.exc.Value(i)) })
	return nil
}

// BinaryBounds covers the common value and the exceptions.
func (d *binaryMC) BinaryBounds() (min, max []byte, ok bool) {
	if d.rows == 0 {
		return nil, nil, false
	}
	min, max = d.common, d.common
	for i := 0; i < d.exc.Len(); i++ {
		v := d.exc.Value(i)
		if bytes.Compare(v, min) < 0 {
			min = v
		}
		if bytes.Compare(v, max) > 0 {
			max = v
		}
	}
	return min, max, true
}

// BinaryCommon implements BinaryExceptions.
func (d *binaryMC) BinaryCommon() []byte { return d.common }

// BinaryExceptions implements BinaryExceptions.
func (d *binaryMC) BinaryExceptions() ([]uint32, *encoding.Bytes) { return d.at, &d.exc }

// encoder writes MainlyConstant.
type encoder struct{}

// Fit accepts non-bool sequences whose most frequent value covers at least
// 90% of the rows (SparseBool handles bools).
func (encoder) Fit(st *encoding.Stats) bool {
	return st.Type.Valid() && st.Type != encoding.Bool && st.N >= 2 && st.ModeCount*10 >= st.N*9
}

// Estimate needs a trial: the children are selected recursively.
func (encoder) Estimate(*encoding.Stats) (int, bool) { return 0, false }

// Encode writes the most frequent value (st.ModeIndex) and the exceptions.
func (encoder) Encode(dst []byte, vals any, st *encoding.Stats, ctx *encoding.Ctx) ([]byte, error) {
	n := encoding.LenOf(vals)
	mode := st.ModeIndex
	if mode < 0 || mode >= n {
		mode = 0
	}
	var at []uint32
	var exc any
	switch v := vals.(type) {
	case []bool:
		dst, at, exc = split(dst, v, v, mode)
	case []int8:
		dst, at, exc = split(dst, v, v, mode)
	case []int16:
		dst, at, exc = split(dst, v, v, mode)
	case []int32:
		dst, at, exc = split(dst, v, v, mode)
	case []int64:
		dst, at, exc = split(dst, v, v, mode)
	case []uint8:
		dst, at, exc = split(dst, v, v, mode)
	case []uint16:
		dst, at, exc = split(dst, v, v, mode)
	case []uint32:
		dst, at, exc = split(dst, v, v, mode)
	case []uint64:
		dst, at, exc = split(dst, v, v, mode)
	case []float32:
		dst, at, exc = split(dst, v, cascade.Keys(v).([]uint32), mode)
	case []float64:
		dst, at, exc = split(dst, v, cascade.Keys(v).([]uint64), mode)
	case encoding.Bytes:
		dst, at, exc = splitBinary(dst, &v, mode)
	case *encoding.Bytes:
		dst, at, exc = splitBinary(dst, v, mode)
	default:
		return dst, fmt.Errorf("mainlyconst: cannot encode %T", vals)
	}
	dst, err := ctx.EncodeChild(dst, at)
	if err != nil {
		return dst, fmt.Errorf("positions: %w", err)
	}
	dst, err = ctx.EncodeChild(dst, exc)
	if err != nil {
		return dst, fmt.Errorf("exception values: %w", err)
	}
	return dst, nil
}

// split appends the common value vals[mode] (the zero value when empty) and returns the rows whose key
// differs from it, with their values.
func split[T encoding.Fixed, K comparable](dst []byte, vals []T, keys []K, mode int) ([]byte, []uint32, []T) {
	if len(vals) == 0 {
		var zero T
		return cascade.AppendFixed(dst, zero), []uint32{}, []T{}
	}
	dst = cascade.AppendFixed(dst, vals[mode])
	ck := keys[mode]
	at := []uint32{}
	exc := []T{}
	for i, k := range keys {
		if k != ck {
			at = append(at, uint32(i))
			exc = append(exc, vals[i])
		}
	}
	return dst, at, exc
}

func splitBinary(dst []byte, b *encoding.Bytes, mode int) ([]byte, []uint32, encoding.Bytes) {
	if b.Len() == 0 {
		return append(dst, 0), []uint32{}, encoding.Bytes{Offsets: []int32{0}}
	}
	common := b.Value(mode)
	dst = binary.AppendUvarint(dst, uint64(len(common)))
	dst = append(dst, common...)
	at := []uint32{}
	exc := encoding.Bytes{Offsets: []int32{0}}
	for i := 0; i < b.Len(); i++ {
		if v := b.Value(i); !bytes.Equal(v, common) {
			at = append(at, uint32(i))
			exc.Append(v)
		}
	}
	return dst, at, exc
}
