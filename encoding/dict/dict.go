// Package dict implements the Dictionary encoding: the distinct values of a
// sequence (the alphabet, sorted ascending) and, per row, the id of its value
// in the alphabet. Both are child sequences chosen by the selection policy.
//
// Body layout (each child is a length-prefixed node):
//
//	alphabetLen:uvarint | alphabet node (T, D rows) | idsLen:uvarint | ids node (uint32, rows)
//
// The alphabet is strictly increasing: numeric order for integers; for
// floats numeric order with -0 before +0, then every NaN ordered by its bit
// pattern (as an unsigned integer); bytewise order for binary. Sorting makes
// every interval predicate an interval of ids, so a filter tests ids against
// two bounds (or pushes the interval down to the ids child) and never
// decodes a value. Bool sequences are not dictionary-encoded.
package dict

import (
	"bytes"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sort"

	"strata/encoding"
	"strata/encoding/internal/cascade"
)

// Codec registers Dictionary.
var Codec = &encoding.Codec{
	Kind:          encoding.KindDictionary,
	Types:         encoding.AllTypes &^ encoding.TypesOf(encoding.Bool),
	Open:          open,
	Encoder:       encoder{},
	Decode:        encoding.Cost{PerValue: 1.72, PerString: 7.42, PerByte: 0.161, FixedString: 2.6, FixedByte: 0.37}, // strata calibrate (docs/benchmarks.md; Fixed*: 2026-12-02)
	NeedsDistinct: true,
}

// The dictionary views are defined in package encoding so readers need not
// import this one; these aliases keep the names of this package working.
type (
	// IDReader is the id-level access every dictionary decoder offers.
	IDReader = encoding.IDReader
	// BinaryDictionary is implemented by dictionary decoders of binary values.
	BinaryDictionary = encoding.BinaryDictionary
)

// Dictionary is implemented by dictionary decoders of numeric types.
type Dictionary[T encoding.Number] = encoding.Dictionary[T]

// core is the id cursor every dictionary decoder shares.
type core struct {
	skipped int // filters settled on the alphabet alone (encoding.SkipCounter)
	typ     encoding.Type
	rows    int
	d       int // alphabet size
	nodes   [2][]byte
	ids     encoding.Reader[uint32]
	opts    *encoding.Options
	depth   int
	buf     []uint32
	gdec    encoding.Reader[uint32] // private ids cursor for gathers
}

func (c *core) Kind() encoding.Kind { return encoding.KindDictionary }
func (c *core) Type() encoding.Type { return c.typ }
func (c *core) Len() int            { return c.rows }
func (c *core) Pos() int            { return c.ids.Pos() }
func (c *core) Reset()              { c.ids.Reset() }
func (c *core) AlphabetLen() int    { return c.d }

// Skip advances the ids child.
func (c *core) Skip(n int) error {
	if err := cascade.CheckRead(encoding.KindDictionary, c.ids.Pos(), n, c.rows); err != nil {
		return err
	}
	return c.ids.Skip(n)
}

// DecodeSpan implements encoding.DecodeSpanner: the ids child decides;
// the alphabet is decoded when the node is opened.
func (c *core) DecodeSpan(from, to int) (int, int) { return encoding.DecodeSpan(c.ids, from, to) }

// Children implements encoding.Walker.
func (c *core) Children() []encoding.ChildNode {
	return []encoding.ChildNode{{Role: "alphabet", Node: c.nodes[0]}, {Role: "ids", Node: c.nodes[1]}}
}

func (c *core) scratch(n int) []uint32 {
	c.buf = cascade.Grow(c.buf, n)
	return c.buf
}

// checkIDs reports the first id at or beyond the alphabet size.
func (c *core) checkIDs(ids []uint32) error {
	d := uint32(c.d)
	for _, id := range ids {
		if id >= d {
			return encoding.Corruptf("dictionary: id %d beyond alphabet of %d", id, d)
		}
	}
	return nil
}

// ReadIDs implements IDReader.
func (c *core) ReadIDs(dst []uint32) error {
	if err := cascade.CheckRead(encoding.KindDictionary, c.ids.Pos(), len(dst), c.rows); err != nil {
		return err
	}
	if err := c.ids.Read(dst); err != nil {
		return err
	}
	return c.checkIDs(dst)
}

// GatherIDs implements IDReader: through the ids child's Gatherer when it
// has one, else by walking a private cursor over the ids child.
func (c *core) GatherIDs(rows []int32, dst []uint32) error {
	if err := cascade.CheckGather(encoding.KindDictionary, rows, len(dst), c.rows); err != nil {
		return err
	}
	dst = dst[:len(rows)]
	if g, ok := c.ids.(encoding.Gatherer[uint32]); ok {
		if err := g.Gather(rows, dst); err != nil {
			return err
		}
	} else {
		if c.gdec == nil {
			r, err := cascade.OpenFixed[uint32](c.nodes[1], c.depth, c.opts, c.rows, "ids")
			if err != nil {
				return err
			}
			c.gdec = r
		}
		if err := cascade.GatherSeq(c.gdec, rows, dst); err != nil {
			return err
		}
	}
	return c.checkIDs(dst)
}

// filterIDs clears the rows among the next n whose id is not in the set
// [lo, hi) (or set bits of bm). Chunks whose rows are all deselected are
// skipped without decoding ids.
func (c *core) filterIDs(lo, hi uint32, bm encoding.Bitmap, n int, sel encoding.Bitmap) error {
	if err := cascade.CheckRead(encoding.KindDictionary, c.ids.Pos(), n, c.rows); err != nil {
		return err
	}
	if bm == nil {
		if lo >= hi {
			// no alphabet entry matches: settled without reading ids
			cascade.ClearRange(sel, 0, n)
			c.skipped++
			return c.ids.Skip(n)
		}
		if lo == 0 && int(hi) >= c.d {
			c.skipped++
			return c.ids.Skip(n)
		}
		if f, ok := c.ids.(encoding.Filterer[uint32]); ok {
			return f.Filter(&encoding.Pred[uint32]{Op: encoding.OpBetween, A: lo, B: hi - 1}, n, sel)
		}
	}
	buf := c.scratch(cascade.Batch)
	width := hi - lo
	for off := 0; off < n; {
		k := min(n-off, cascade.Batch)
		if !sel.AnyIn(off, off+k) {
			if err := c.ids.Skip(k); err != nil {
				return err
			}
			off += k
			continue
		}
		ids := buf[:k]
		if err := c.ids.Read(ids); err != nil {
			return err
		}
		if bm == nil {
			for j, id := range ids {
				if id-lo >= width {
					sel.Clear(off + j)
				}
			}
		} else {
			nb := uint32(len(bm) * 64)
			for j, id := range ids {
				if id >= nb || bm[id>>6]&(1<<(id&63)) == 0 {
					sel.Clear(off + j)
				}
			}
		}
		off += k
	}
	return nil
}

func open(h encoding.Header, opts *encoding.Options) (encoding.Decoder, error) {
	an, rest, err := encoding.Child(h.Body, "alphabet")
	if err != nil {
		return nil, err
	}
	in, rest, err := encoding.Child(rest, "ids")
	if err != nil {
		return nil, err
	}
	if len(rest) != 0 {
		return nil, encoding.Corruptf("%d trailing bytes after ids", len(rest))
	}
	depth := h.Depth + 1
	ids, err := cascade.OpenFixed[uint32](in, depth, opts, h.Rows, "ids")
	if err != nil {
		return nil, err
	}
	c := core{typ: h.Type, rows: h.Rows, nodes: [2][]byte{an, in}, ids: ids, opts: opts, depth: depth}
	switch h.Type {
	case encoding.Int8:
		return openNum[int8](c, an, opts)
	case encoding.Int16:
		return openNum[int16](c, an, opts)
	case encoding.Int32:
		return openNum[int32](c, an, opts)
	case encoding.Int64:
		return openNum[int64](c, an, opts)
	case encoding.Uint8:
		return openNum[uint8](c, an, opts)
	case encoding.Uint16:
		return openNum[uint16](c, an, opts)
	case encoding.Uint32:
		return openNum[uint32](c, an, opts)
	case encoding.Uint64:
		return openNum[uint64](c, an, opts)
	case encoding.Float32:
		return openNum[float32](c, an, opts)
	case encoding.Float64:
		return openNum[float64](c, an, opts)
	case encoding.Binary:
		return openBinary(c, an, opts)
	}
	return nil, encoding.Unsupportedf("dictionary of %v", h.Type)
}

// checkAlphabetSize enforces 1 ≤ D ≤ rows for a non-empty node, D = 0 for an
// empty one.
func checkAlphabetSize(d, rows int) error {
	if d > rows || (d == 0) != (rows == 0) {
		return encoding.Corruptf("alphabet of %d entries for %d rows", d, rows)
	}
	return nil
}

// numDict decodes dictionaries of numeric values.
type numDict[T encoding.Number] struct {
	core
	alpha []T
	nn    int // entries before the first NaN (all of them for integers)
	bm    encoding.Bitmap
}

func openNum[T encoding.Number](c core, an []byte, opts *encoding.Options) (*numDict[T], error) {
	alpha, nn, err := readNumAlphabet[T](an, c.depth, opts, c.rows)
	if err != nil {
		return nil, err
	}
	c.d = len(alpha)
	return &numDict[T]{core: c, alpha: alpha, nn: nn}, nil
}

// readNumAlphabet decodes an alphabet node and checks it is strictly
// increasing and, when rows ≥ 0, sized for a node of that many rows. nn is
// the count of entries before the first NaN.
func readNumAlphabet[T encoding.Number](an []byte, depth int, opts *encoding.Options, rows int) (alpha []T, nn int, err error) {
	ad, err := cascade.OpenFixed[T](an, depth, opts, -1, "alphabet")
	if err != nil {
		return nil, 0, err
	}
	if rows >= 0 {
		if err := checkAlphabetSize(ad.Len(), rows); err != nil {
			return nil, 0, err
		}
	}
	alpha, err = cascade.ReadAll(ad, opts, "alphabet")
	if err != nil {
		return nil, 0, err
	}
	for i := 1; i < len(alpha); i++ {
		if compare(alpha[i-1], alpha[i]) >= 0 {
			return nil, 0, encoding.Corruptf("alphabet not strictly increasing at entry %d", i)
		}
	}
	nn = len(alpha)
	for nn > 0 && alpha[nn-1] != alpha[nn-1] {
		nn--
	}
	return alpha, nn, nil
}

// Alphabet implements Dictionary.
func (d *numDict[T]) Alphabet() []T { return d.alpha }

// Read looks up batches of ids in the alphabet.
func (d *numDict[T]) Read(dst []T) error {
	if err := cascade.CheckRead(encoding.KindDictionary, d.ids.Pos(), len(dst), d.rows); err != nil {
		return err
	}
	buf := d.scratch(min(len(dst), cascade.Batch))
	alpha := d.alpha
	for len(dst) > 0 {
		k := min(len(dst), len(buf))
		ids := buf[:k]
		if err := d.ids.Read(ids); err != nil {
			return err
		}
		out := dst[:k]
		for j, id := range ids {
			if id >= uint32(len(alpha)) {
				return encoding.Corruptf("dictionary: id %d beyond alphabet of %d", id, len(alpha))
			}
			out[j] = alpha[id]
		}
		dst = dst[k:]
	}
	return nil
}

// Gather gathers ids, then looks them up.
func (d *numDict[T]) Gather(rows []int32, dst []T) error {
	if err := cascade.CheckGather(encoding.KindDictionary, rows, len(dst), d.rows); err != nil {
		return err
	}
	for len(rows) > 0 {
		k := min(len(rows), cascade.Batch)
		ids := d.scratch(k)
		if err := d.GatherIDs(rows[:k], ids); err != nil {
			return err
		}
		for j, id := range ids {
			dst[j] = d.alpha[id] // GatherIDs validated id < D
		}
		rows, dst = rows[k:], dst[k:]
	}
	return nil
}

// Bounds are the first and last alphabet entries. A NaN in the alphabet
// makes them unknown, as the Bounder contract asks.
func (d *numDict[T]) Bounds() (min, max T, ok bool) {
	if d.nn == 0 || d.nn < len(d.alpha) {
		return min, max, false
	}
	return d.alpha[0], d.alpha[d.nn-1], true
}

// Filter evaluates p on the alphabet (a binary search for interval
// predicates), then scans ids only.
func (d *numDict[T]) Filter(p *encoding.Pred[T], n int, sel encoding.Bitmap) error {
	lo, hi, bm := d.MatchingIDs(p)
	return d.filterIDs(lo, hi, bm, n, sel)
}

// lb returns the first non-NaN entry not below x; ub the first above x.
func (d *numDict[T]) lb(x T) int {
	a := d.alpha[:d.nn]
	return sort.Search(len(a), func(i int) bool { return !(a[i] < x) })
}

func (d *numDict[T]) ub(x T) int {
	a := d.alpha[:d.nn]
	return sort.Search(len(a), func(i int) bool { return x < a[i] })
}

// MatchingIDs implements Dictionary. NaN entries match only OpNe, as
// encoding.Pred does; a NaN operand matches nothing (everything for OpNe).
func (d *numDict[T]) MatchingIDs(p *encoding.Pred[T]) (lo, hi uint32, set encoding.Bitmap) {
	nan := func(x T) bool { return x != x }
	var s ids
	switch p.Op {
	case encoding.OpEq:
		if !nan(p.A) {
			s.add(d.lb(p.A), d.ub(p.A))
		}
	case encoding.OpLt:
		if !nan(p.A) {
			s.add(0, d.lb(p.A))
		}
	case encoding.OpLe:
		if !nan(p.A) {
			s.add(0, d.ub(p.A))
		}
	case encoding.OpGt:
		if !nan(p.A) {
			s.add(d.ub(p.A), d.nn)
		}
	case encoding.OpGe:
		if !nan(p.A) {
			s.add(d.lb(p.A), d.nn)
		}
	case encoding.OpBetween:
		if !nan(p.A) && !nan(p.B) {
			s.add(d.lb(p.A), d.ub(p.B))
		}
	case encoding.OpIn:
		if slices.ContainsFunc(p.Set, nan) {
			// A NaN breaks the set's order, and Pred.Match's binary search
			// with it; evaluate Match per entry to agree with it exactly.
			for i, x := range d.alpha {
				if p.Match(x) {
					s.add(i, i+1)
				}
			}
			break
		}
		for _, x := range p.Set {
			s.add(d.lb(x), d.ub(x))
		}
	case encoding.OpNe:
		if nan(p.A) {
			s.add(0, len(d.alpha))
		} else {
			e0, e1 := d.lb(p.A), d.ub(p.A)
			s.add(0, e0)
			s.add(e1, len(d.alpha))
		}
	}
	return s.result(len(d.alpha), &d.bm)
}

// ids accumulates id intervals in ascending order; result turns them into
// one interval when they are contiguous, else a bitmap over the alphabet.
type ids struct {
	r [][2]int
}

func (s *ids) add(lo, hi int) {
	if lo >= hi {
		return
	}
	if n := len(s.r); n > 0 && lo <= s.r[n-1][1] && hi >= s.r[n-1][0] {
		s.r[n-1] = [2]int{min(s.r[n-1][0], lo), max(s.r[n-1][1], hi)}
		return
	}
	s.r = append(s.r, [2]int{lo, hi})
}

func (s *ids) result(d int, scratch *encoding.Bitmap) (lo, hi uint32, set encoding.Bitmap) {
	switch len(s.r) {
	case 0:
		return 0, 0, nil
	case 1:
		return uint32(s.r[0][0]), uint32(s.r[0][1]), nil
	}
	bm := encoding.Bitmap(cascade.Grow([]uint64(*scratch), (d+63)/64))
	for i := range bm {
		bm[i] = 0
	}
	for _, r := range s.r {
		for i := r[0]; i < r[1]; i++ {
			bm.Set(i)
		}
	}
	*scratch = bm
	return 0, uint32(d), bm
}

// compare orders alphabet entries: numeric order, -0 before +0, NaNs last
// ordered by bits.
func compare[T encoding.Number](a, b T) int {
	switch x := any(a).(type) {
	case float32:
		y := any(b).(float32)
		return cmpFloat(float64(x), float64(y), uint64(math.Float32bits(x)), uint64(math.Float32bits(y)))
	case float64:
		y := any(b).(float64)
		return cmpFloat(x, y, math.Float64bits(x), math.Float64bits(y))
	}
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func cmpFloat(x, y float64, bx, by uint64) int {
	xn, yn := x != x, y != y
	switch {
	case xn && yn:
		return cmpU(bx, by)
	case xn:
		return 1
	case yn:
		return -1
	case x < y:
		return -1
	case x > y:
		return 1
	}
	// equal numbers: only ±0 differ in bits; the negative one first.
	return -cmpU(bx, by)
}

func cmpU(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// binDict decodes dictionaries of binary values.
type binDict struct {
	core
	alpha encoding.Bytes
	bm    encoding.Bitmap
	// lens are the entry lengths, fixed the common length of every entry
	// (-1 when they differ). When every entry fits a slot of 8, 16 or 32
	// bytes, pad holds each entry in its own slot of that size: writing a
	// value is then one store of the whole slot, with no copy loop or
	// memmove call per value.
	lens  []int32
	fixed int
	slot  int
	pad   []byte
	// packed, for entries of one length from 2 to 16 bytes, is the
	// alphabet's bytes (entry i at fixed·i) and 16 spare bytes: writing a
	// value is one 8- or 16-byte load and store whatever the alphabet's
	// size, and the table is no larger than the alphabet.
	packed []byte
}

// padAlphabet fills lens, fixed and, for alphabets of short values, pad.
func (d *binDict) padAlphabet() {
	n := d.alpha.Len()
	d.lens = make([]int32, n)
	d.fixed = -1
	longest := 0
	for i := 0; i < n; i++ {
		l := d.alpha.Offsets[i+1] - d.alpha.Offsets[i]
		d.lens[i] = l
		longest = max(longest, int(l))
		if i == 0 {
			d.fixed = int(l)
		} else if d.fixed != int(l) {
			d.fixed = -1
		}
	}
	if n > 0 && d.fixed >= 2 && d.fixed <= 16 {
		a := d.alpha.Data[d.alpha.Offsets[0]:d.alpha.Offsets[n]]
		d.packed = make([]byte, len(a)+16)
		copy(d.packed, a)
	}
	if n == 0 || n > 1<<12 {
		return
	}
	switch {
	case longest <= 8:
		d.slot = 8
	case longest <= 16:
		d.slot = 16
	case longest <= 32:
		d.slot = 32
	default:
		return
	}
	d.pad = make([]byte, d.slot*n)
	for i := 0; i < n; i++ {
		copy(d.pad[d.slot*i:], d.alpha.Value(i))
	}
}

func openBinary(c core, an []byte, opts *encoding.Options) (*binDict, error) {
	alpha, err := readBinaryAlphabet(an, c.depth, opts, c.rows)
	if err != nil {
		return nil, err
	}
	c.d = alpha.Len()
	d := &binDict{core: c, alpha: alpha}
	d.padAlphabet()
	return d, nil
}

// readBinaryAlphabet is readNumAlphabet for binary alphabets.
func readBinaryAlphabet(an []byte, depth int, opts *encoding.Options, rows int) (encoding.Bytes, error) {
	ad, err := cascade.OpenBinary(an, depth, opts, -1, "alphabet")
	if err != nil {
		return encoding.Bytes{}, err
	}
	if rows >= 0 {
		if err := checkAlphabetSize(ad.Len(), rows); err != nil {
			return encoding.Bytes{}, err
		}
	}
	alpha, err := cascade.ReadAllBinary(ad, opts, "alphabet")
	if err != nil {
		return encoding.Bytes{}, err
	}
	for i := 1; i < alpha.Len(); i++ {
		if bytes.Compare(alpha.Value(i-1), alpha.Value(i)) >= 0 {
			return encoding.Bytes{}, encoding.Corruptf("alphabet not strictly increasing at entry %d", i)
		}
	}
	return alpha, nil
}

// BinaryAlphabet implements BinaryDictionary.
func (d *binDict) BinaryAlphabet() *encoding.Bytes { return &d.alpha }

// ReadBinary looks up batches of ids and appends their values.
func (d *binDict) ReadBinary(dst *encoding.Bytes, n int) error {
	if err := cascade.CheckRead(encoding.KindDictionary, d.ids.Pos(), n, d.rows); err != nil {
		return err
	}
	buf := d.scratch(min(n, cascade.Batch))
	for n > 0 {
		k := min(n, len(buf))
		ids := buf[:k]
		if err := d.ids.Read(ids); err != nil {
			return err
		}
		if err := d.appendIDs(dst, ids); err != nil {
			return err
		}
		n -= k
	}
	return nil
}

func (d *binDict) appendIDs(dst *encoding.Bytes, ids []uint32) error {
	// Two passes: the first writes the offsets (a running sum, the only
	// serial dependency), the second stores the values at offsets already
	// known, so the stores do not wait on each other. Ids are checked in
	// whichever pass reads them first.
	na := uint32(len(d.lens))
	lim := min(cascade.OutLimit(d.opts), math.MaxInt32)
	if len(dst.Offsets) == 0 {
		dst.Offsets = append(dst.Offsets, int32(len(dst.Data)))
	}
	w0 := len(dst.Data)
	no := len(dst.Offsets)
	dst.Offsets = cascade.Reserve(dst.Offsets, len(ids))
	outOffs := dst.Offsets[no : no+len(ids)]
	fail := func(err error) error {
		dst.Offsets = dst.Offsets[:no]
		return err
	}
	var end int
	if d.fixed >= 0 {
		end = w0 + d.fixed*len(ids)
		if end > lim {
			return fail(encoding.Limitf("dictionary: binary values need more than %d bytes", lim))
		}
		arithOffsets(outOffs, int32(w0), int32(d.fixed))
	} else {
		var ok bool
		if end, ok = sumOffsets(outOffs, ids, d.lens, w0); !ok {
			return fail(d.checkIDs(ids))
		}
		if end > lim {
			return fail(encoding.Limitf("dictionary: binary values need more than %d bytes", lim))
		}
	}
	total := end - w0
	dst.Data = cascade.Reserve(dst.Data, total+32)
	// The slot stores may write up to a slot past the last value; the
	// spare capacity reserved above holds them, beyond len(dst.Data).
	wide := dst.Data[:end+32]
	switch {
	case d.fixed == 1:
		a := d.alpha.Data[d.alpha.Offsets[0]:]
		if !gatherBytes(wide[w0:w0+len(ids)], ids, a[:na]) {
			return fail(d.checkIDs(ids))
		}
	case d.fixed > 1 && d.fixed <= 8:
		l := d.fixed
		packed := d.packed[:l*int(na)+8]
		out := wide[w0:]
		for j, id := range ids {
			if id >= na {
				return fail(d.checkIDs(ids))
			}
			at := l * int(id)
			*(*[8]byte)(out[l*j : l*j+8]) = *(*[8]byte)(packed[at : at+8])
		}
	case d.fixed > 8 && d.fixed <= 16:
		l := d.fixed
		packed := d.packed[:l*int(na)+16]
		out := wide[w0:]
		for j, id := range ids {
			if id >= na {
				return fail(d.checkIDs(ids))
			}
			at := l * int(id)
			*(*[16]byte)(out[l*j : l*j+16]) = *(*[16]byte)(packed[at : at+16])
		}
	case d.fixed >= 0:
		a := d.alpha.Data[d.alpha.Offsets[0]:]
		l := uint32(d.fixed)
		for j, id := range ids {
			if id >= na {
				return fail(d.checkIDs(ids))
			}
			at := w0 + j*d.fixed
			copy(wide[at:at+d.fixed], a[l*id:l*id+l])
		}
	case d.slot == 8:
		pad := d.pad
		at := int32(w0)
		for j, id := range ids {
			*(*[8]byte)(wide[at : at+8]) = *(*[8]byte)(pad[8*id : 8*id+8])
			at = outOffs[j]
		}
	case d.slot == 16:
		pad := d.pad
		at := int32(w0)
		for j, id := range ids {
			*(*[16]byte)(wide[at : at+16]) = *(*[16]byte)(pad[16*id : 16*id+16])
			at = outOffs[j]
		}
	case d.slot == 32:
		pad := d.pad
		at := int32(w0)
		for j, id := range ids {
			// Two 16-byte stores: a [32]byte copy compiles to a memmove call.
			src := (*[32]byte)(pad[32*id : 32*id+32])
			dst := (*[32]byte)(wide[at : at+32])
			*(*[16]byte)(dst[:16]) = *(*[16]byte)(src[:16])
			*(*[16]byte)(dst[16:]) = *(*[16]byte)(src[16:])
			at = outOffs[j]
		}
	default:
		data, offs := d.alpha.Data, d.alpha.Offsets
		at := int32(w0)
		for j, id := range ids {
			copy(wide[at:outOffs[j]], data[offs[id]:offs[id+1]])
			at = outOffs[j]
		}
	}
	dst.Data = dst.Data[:end]
	dst.Offsets = dst.Offsets[:no+len(ids)]
	return nil
}

// oneLength reports whether every value of a non-empty b has one length,
// the alphabets appendIDs writes with one store a value and offsets by
// arithmetic.
func oneLength(b *encoding.Bytes) bool {
	n := b.Len()
	if n == 0 {
		return false
	}
	l := b.Offsets[1] - b.Offsets[0]
	for i := 1; i < n; i++ {
		if b.Offsets[i+1]-b.Offsets[i] != l {
			return false
		}
	}
	return true
}

// arithOffsets writes the offsets of values of length l starting at o.
func arithOffsets(out []int32, o, l int32) {
	for j := range out {
		o += l
		out[j] = o
	}
}

// sumOffsets writes the running offsets of the values ids select, starting
// at o, and returns the end; ok is false if an id is beyond lens.
func sumOffsets(out []int32, ids []uint32, lens []int32, o int) (end int, ok bool) {
	out = out[:len(ids)]
	for j, id := range ids {
		if id >= uint32(len(lens)) {
			return 0, false
		}
		o += int(lens[id])
		out[j] = int32(o)
	}
	return o, true
}

// gatherBytes sets out[j] = a[ids[j]]; ok is false if an id is beyond a.
func gatherBytes(out []byte, ids []uint32, a []byte) bool {
	out = out[:len(ids)]
	for j, id := range ids {
		if id >= uint32(len(a)) {
			return false
		}
		out[j] = a[id]
	}
	return true
}

// GatherBinary gathers ids, then appends their values.
func (d *binDict) GatherBinary(rows []int32, dst *encoding.Bytes) error {
	if err := cascade.CheckGather(encoding.KindDictionary, rows, len(rows), d.rows); err != nil {
		return err
	}
	ids := d.scratch(min(len(rows), cascade.Batch))
	for len(rows) > 0 {
		k := min(len(rows), len(ids))
		if err := d.GatherIDs(rows[:k], ids[:k]); err != nil {
			return err
		}
		if err := d.appendIDs(dst, ids[:k]); err != nil {
			return err
		}
		rows = rows[k:]
	}
	return nil
}

// BinaryBounds are the first and last alphabet entries.
func (d *binDict) BinaryBounds() (min, max []byte, ok bool) {
	n := d.alpha.Len()
	if n == 0 {
		return nil, nil, false
	}
	return d.alpha.Value(0), d.alpha.Value(n - 1), true
}

// FilterBinary evaluates p on the alphabet, then scans ids.
func (d *binDict) FilterBinary(p *encoding.BytesPred, n int, sel encoding.Bitmap) error {
	lo, hi, bm := d.MatchingBinaryIDs(p)
	return d.filterIDs(lo, hi, bm, n, sel)
}

func (d *binDict) lb(x []byte) int {
	return sort.Search(d.alpha.Len(), func(i int) bool { return bytes.Compare(d.alpha.Value(i), x) >= 0 })
}

func (d *binDict) ub(x []byte) int {
	return sort.Search(d.alpha.Len(), func(i int) bool { return bytes.Compare(d.alpha.Value(i), x) > 0 })
}

// MatchingBinaryIDs implements BinaryDictionary.
func (d *binDict) MatchingBinaryIDs(p *encoding.BytesPred) (lo, hi uint32, set encoding.Bitmap) {
	n := d.alpha.Len()
	var s ids
	switch p.Op {
	case encoding.OpEq:
		s.add(d.lb(p.A), d.ub(p.A))
	case encoding.OpNe:
		s.add(0, d.lb(p.A))
		s.add(d.ub(p.A), n)
	case encoding.OpLt:
		s.add(0, d.lb(p.A))
	case encoding.OpLe:
		s.add(0, d.ub(p.A))
	case encoding.OpGt:
		s.add(d.ub(p.A), n)
	case encoding.OpGe:
		s.add(d.lb(p.A), n)
	case encoding.OpBetween:
		s.add(d.lb(p.A), d.ub(p.B))
	case encoding.OpIn:
		for _, x := range p.Set {
			s.add(d.lb(x), d.ub(x))
		}
	case encoding.OpPrefix:
		// Entries with the prefix are contiguous from the first entry >= it.
		l := d.lb(p.A)
		h := l + sort.Search(n-l, func(i int) bool { return !bytes.HasPrefix(d.alpha.Value(l+i), p.A) })
		s.add(l, h)
	}
	return s.result(n, &d.bm)
}

// encoder writes Dictionary.
type encoder struct{}

// Fit accepts non-bool sequences with an exact distinct count of at most
// half the values.
func (encoder) Fit(st *encoding.Stats) bool {
	return st.Type.Valid() && st.Type != encoding.Bool && st.N >= 2 && st.DistinctExact && st.Distinct*2 <= st.N
}

// Estimate needs a trial: both children are selected recursively.
func (encoder) Estimate(*encoding.Stats) (int, bool) { return 0, false }

// ScaleSample implements encoding.SampleScaler. A sample holds only part of
// the alphabet: the alphabet child grows with the distinct count (known
// exactly from the whole sequence's statistics) and the ids child with the
// row count and the width of an id.
func (encoder) ScaleSample(node []byte, sample, full *encoding.Stats) int {
	rows := float64(full.N) / float64(max(sample.N, 1))
	h, err := encoding.ParseHeader(node, 0, nil)
	if err != nil || sample.Distinct == 0 {
		return int(float64(len(node)) * rows)
	}
	_, rest, err := encoding.Child(h.Body, "alphabet")
	if err != nil {
		return int(float64(len(node)) * rows)
	}
	a := len(h.Body) - len(rest) // the alphabet child with its length
	ids := len(rest)
	widthS, widthF := max(bits.Len(uint(sample.Distinct-1)), 1), max(bits.Len(uint(full.Distinct-1)), 1)
	est := float64(len(node)-len(h.Body)) +
		float64(a)*float64(full.Distinct)/float64(sample.Distinct) +
		float64(ids)*rows*float64(widthF)/float64(widthS)
	return int(est)
}

// Encode builds the exact sorted dictionary and encodes the alphabet and the
// ids as children.
func (encoder) Encode(dst []byte, vals any, st *encoding.Stats, ctx *encoding.Ctx) ([]byte, error) {
	var alpha any
	var idv []uint32
	d := 0
	if st.DistinctExact {
		d = st.Distinct
	}
	switch v := vals.(type) {
	case []int8:
		alpha, idv = build(v, func(x int8) uint64 { return uint64(x) }, d)
	case []int16:
		alpha, idv = build(v, func(x int16) uint64 { return uint64(x) }, d)
	case []int32:
		alpha, idv = build(v, func(x int32) uint64 { return uint64(x) }, d)
	case []int64:
		alpha, idv = build(v, func(x int64) uint64 { return uint64(x) }, d)
	case []uint8:
		alpha, idv = build(v, func(x uint8) uint64 { return uint64(x) }, d)
	case []uint16:
		alpha, idv = build(v, func(x uint16) uint64 { return uint64(x) }, d)
	case []uint32:
		alpha, idv = build(v, func(x uint32) uint64 { return uint64(x) }, d)
	case []uint64:
		alpha, idv = build(v, func(x uint64) uint64 { return x }, d)
	case []float32:
		alpha, idv = build(v, func(x float32) uint64 { return uint64(math.Float32bits(x)) }, d)
	case []float64:
		alpha, idv = build(v, math.Float64bits, d)
	case encoding.Bytes:
		alpha, idv = buildBinary(&v, d)
	case *encoding.Bytes:
		alpha, idv = buildBinary(v, d)
	default:
		return dst, fmt.Errorf("dictionary: cannot encode %T", vals)
	}
	if a, ok := alpha.(encoding.Bytes); ok && oneLength(&a) {
		ctx.FixedLength()
	}
	dst, err := ctx.EncodeChild(dst, alpha)
	if err != nil {
		return dst, fmt.Errorf("alphabet: %w", err)
	}
	dst, err = ctx.EncodeChild(dst, idv)
	if err != nil {
		return dst, fmt.Errorf("ids: %w", err)
	}
	return dst, nil
}

// Skipped implements encoding.SkipCounter.
func (c *core) Skipped() int { return c.skipped }

// WholeTrial: with no more runs than a sample has values, a sample's short
// slices cut the runs the ids' RLE would store, and the whole sequence is
// trialled instead (encoding.WholeTrialer).
func (encoder) WholeTrial(st *encoding.Stats, sampleLen int) bool { return st.Runs <= sampleLen }
