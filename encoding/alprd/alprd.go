// Package alprd implements ALP-RD ("real doubles"; Afroozeh and Boncz,
// SIGMOD 2023), the companion of ALP for floats that are not decimals:
// full-precision measurements and computed values, where ALP would make
// almost every value an exception.
//
// Each value's bits are cut at a position chosen per node: the low rw
// bits (the right part, close to random) are bit-packed as they are; the
// high lw = 8·size(T) − rw bits (sign, exponent and the first mantissa
// bits, 1 ≤ lw ≤ 16) repeat across a column, so they go through a
// dictionary of at most eight entries and are stored as bit-packed
// indexes. A left part that is not in the dictionary is an exception,
// stored by row with its full lw bits. The cut and the dictionary are
// chosen on a sample to minimize the packed size.
//
// Body layout (see docs/FORMAT.md, "ALP-RD"):
//
//	bounds | rw:u8 | dn:u8 | dict: dn × u16 | indexes | rights | E:uvarint | positions | lefts
package alprd

import (
	"fmt"
	"math/bits"
	"slices"
	"sort"
	"unsafe"

	"strata/encoding"
	"strata/encoding/internal/cascade"
	"strata/encoding/internal/floatx"
	"strata/internal/bitpack"
)

// MaxDict is the largest dictionary of left parts.
const MaxDict = 8

// maxLeft is the widest left part.
const maxLeft = 16

// sampleSize is how many values the cut and the dictionary are chosen on.
const sampleSize = 2048

// Codec registers ALP-RD.
var Codec = &encoding.Codec{
	Kind:    encoding.KindALPRD,
	Open:    open,
	Encoder: encoder{},
	Types:   encoding.FloatTypes,
	Decode:  encoding.Cost{PerValue: 3.43}, // strata calibrate (docs/benchmarks.md)
	Leaf:    true,
	Zstd:    true,
}

type encoder struct{}

// Fit accepts non-empty float sequences.
func (encoder) Fit(st *encoding.Stats) bool { return st.Type.IsFloat() && st.N >= 1 }

// Estimate needs the values: the cut is chosen on a sample of them.
func (encoder) Estimate(*encoding.Stats) (int, bool) { return 0, false }

func (encoder) Encode(dst []byte, vals any, st *encoding.Stats, ctx *encoding.Ctx) ([]byte, error) {
	switch v := vals.(type) {
	case []float32:
		return encodeT(dst, v), nil
	case []float64:
		return encodeT(dst, v), nil
	}
	return dst, fmt.Errorf("alprd: cannot encode %T", vals)
}

// plan is a cut and its dictionary.
type plan struct {
	rw   int
	dict []uint16
}

// topLefts returns the (at most MaxDict) most frequent values of lefts,
// which must be in ascending order, most frequent first (ties: smaller
// value first), and how many of lefts they cover.
func topLefts(lefts []uint16) ([]uint16, int) {
	type run struct {
		v uint16
		n int
	}
	// the runs come in ascending value order; each is inserted after the
	// kept runs at least as frequent, so ties keep the smaller value first
	var top [MaxDict]run
	k := 0
	for i := 0; i < len(lefts); {
		j := i + 1
		for j < len(lefts) && lefts[j] == lefts[i] {
			j++
		}
		r := run{lefts[i], j - i}
		i = j
		at := k
		for at > 0 && top[at-1].n < r.n {
			at--
		}
		if at == MaxDict {
			continue
		}
		if k < MaxDict {
			k++
		}
		copy(top[at+1:k], top[at:k-1])
		top[at] = r
	}
	dict := make([]uint16, k)
	covered := 0
	for i, r := range top[:k] {
		dict[i] = r.v
		covered += r.n
	}
	return dict, covered
}

// choose finds the cut that minimizes the estimated size on a sample.
func choose[T floatx.Float](vals []T) plan {
	w := 8 * floatx.Size[T]()
	var s []uint64
	if len(vals) <= sampleSize {
		s = make([]uint64, 0, len(vals))
		for _, v := range vals {
			s = append(s, floatx.Bits(v))
		}
	} else {
		s = make([]uint64, 0, sampleSize)
		for i := 0; i < sampleSize; i++ {
			s = append(s, floatx.Bits(vals[i*len(vals)/sampleSize]))
		}
	}
	// Sorted once by bit pattern, the sample's left parts come out in
	// ascending order at every cut.
	slices.Sort(s)
	pw := bits.Len(uint(len(vals) - 1))
	lefts := make([]uint16, len(s))
	best, bestCost := plan{}, -1
	for lw := 1; lw <= maxLeft; lw++ {
		rw := w - lw
		for i, u := range s {
			lefts[i] = uint16(u >> uint(rw))
		}
		dict, covered := topLefts(lefts)
		iw := bits.Len(uint(len(dict) - 1))
		c := len(s)*(rw+iw) + (len(s)-covered)*(lw+pw)
		if bestCost < 0 || c < bestCost {
			best, bestCost = plan{rw: rw, dict: dict}, c
		}
	}
	return best
}

func encodeT[T floatx.Float](dst []byte, vals []T) []byte {
	dst = floatx.AppendBounds(dst, vals)
	n := len(vals)
	w := 8 * floatx.Size[T]()
	if n == 0 {
		return append(dst, byte(w-1), 1, 0, 0, 0)
	}
	p := choose(vals)
	dst = append(dst, byte(p.rw), byte(len(p.dict)))
	for _, e := range p.dict {
		dst = append(dst, byte(e), byte(e>>8))
	}
	var index [1 << maxLeft]uint8 // dictionary index + 1 of each left part
	for i, e := range p.dict {
		index[e] = uint8(i + 1)
	}
	iw := bits.Len(uint(len(p.dict) - 1))
	rmask := uint64(1)<<uint(p.rw) - 1
	idx := make([]uint64, n)
	right := make([]uint64, n)
	var pos, exc []uint64
	for i, v := range vals {
		u := floatx.Bits(v)
		right[i] = u & rmask
		l := uint16(u >> uint(p.rw))
		if k := index[l]; k > 0 {
			idx[i] = uint64(k - 1)
		} else {
			pos = append(pos, uint64(i))
			exc = append(exc, uint64(l))
		}
	}
	dst = bitpack.Pack(dst, idx, iw)
	dst = bitpack.Pack(dst, right, p.rw)
	dst = appendUvarint(dst, uint64(len(pos)))
	dst = bitpack.Pack(dst, pos, bits.Len(uint(n-1)))
	return bitpack.Pack(dst, exc, w-p.rw)
}

func appendUvarint(dst []byte, v uint64) []byte {
	for v >= 0x80 {
		dst = append(dst, byte(v)|0x80)
		v >>= 7
	}
	return append(dst, byte(v))
}

func open(h encoding.Header, opts *encoding.Options) (encoding.Decoder, error) {
	switch h.Type {
	case encoding.Float32:
		return openT[float32, uint32](h, opts)
	case encoding.Float64:
		return openT[float64, uint64](h, opts)
	}
	return nil, encoding.Unsupportedf("alprd: type %v", h.Type)
}

// decoder reads an ALP-RD node of T, whose bits are U.
type decoder[T floatx.Float, U uint32 | uint64] struct {
	typ     encoding.Type
	n, pos  int
	lo, hi  T
	bok     bool
	rw, iw  int
	dn      int
	dict    [MaxDict]uint64 // entries shifted into place
	idx     []byte          // packed indexes
	right   []byte          // packed right parts
	excPos  []uint32
	excLeft []uint64 // shifted into place
	xi      int
	ibuf    []uint32
	ubuf    []uint64
	scr     floatx.Scratch[T]
	skipped int
}

func openT[T floatx.Float, U uint32 | uint64](h encoding.Header, opts *encoding.Options) (*decoder[T, U], error) {
	d := &decoder[T, U]{typ: h.Type, n: h.Rows}
	var err error
	body := h.Body
	if d.lo, d.hi, d.bok, body, err = floatx.ParseBounds[T](body); err != nil {
		return nil, fmt.Errorf("alprd: %w", err)
	}
	w := 8 * floatx.Size[T]()
	if len(body) < 2 {
		return nil, encoding.Corruptf("alprd: missing cut")
	}
	d.rw, d.dn = int(body[0]), int(body[1])
	lw := w - d.rw
	if lw < 1 || lw > maxLeft || d.dn < 1 || d.dn > MaxDict {
		return nil, encoding.Corruptf("alprd: right width %d, %d dictionary entries", d.rw, d.dn)
	}
	body = body[2:]
	if len(body) < 2*d.dn {
		return nil, encoding.Corruptf("alprd: dictionary of %d entries in %d bytes", d.dn, len(body))
	}
	for i := 0; i < d.dn; i++ {
		e := uint64(body[2*i]) | uint64(body[2*i+1])<<8
		if e>>uint(lw) != 0 {
			return nil, encoding.Corruptf("alprd: dictionary entry %#x wider than %d bits", e, lw)
		}
		d.dict[i] = e << uint(d.rw)
	}
	body = body[2*d.dn:]
	d.iw = bits.Len(uint(d.dn - 1))
	ib, rb := bitpack.Bytes(d.n, d.iw), bitpack.Bytes(d.n, d.rw)
	if ib+rb > len(body) {
		return nil, encoding.Corruptf("alprd: %d rows need %d packed bytes, %d remain", d.n, ib+rb, len(body))
	}
	d.idx, d.right = body[:ib], body[ib:ib+rb]
	ne, body, err := encoding.Length(body[ib+rb:], d.n, "alprd exception count")
	if err != nil {
		return nil, err
	}
	pw := bits.Len(uint(max(d.n, 1) - 1))
	pb, lb := bitpack.Bytes(ne, pw), bitpack.Bytes(ne, lw)
	if pb+lb != len(body) {
		return nil, encoding.Corruptf("alprd: %d exceptions need %d bytes, body has %d", ne, pb+lb, len(body))
	}
	if ne > 0 {
		if err := opts.CheckAlloc(ne, 12, "alprd exceptions"); err != nil {
			return nil, err
		}
		d.excPos = make([]uint32, ne)
		d.excLeft = make([]uint64, ne)
		for j := 0; j < ne; j++ {
			d.excPos[j] = uint32(bitpack.Get(body, pw, j))
			d.excLeft[j] = bitpack.Get(body[pb:], lw, j) << uint(d.rw)
		}
		if err := cascade.CheckPositions(d.excPos, d.n, "alprd exception positions"); err != nil {
			return nil, err
		}
	}
	return d, nil
}

func (d *decoder[T, U]) Kind() encoding.Kind { return encoding.KindALPRD }
func (d *decoder[T, U]) Type() encoding.Type { return d.typ }
func (d *decoder[T, U]) Len() int            { return d.n }
func (d *decoder[T, U]) Pos() int            { return d.pos }
func (d *decoder[T, U]) Reset()              { d.pos, d.xi = 0, 0 }

// Skipped implements encoding.SkipCounter: filters settled from the bounds.
func (d *decoder[T, U]) Skipped() int { return d.skipped }

// Bounds returns the exact minimum and maximum stored in the header;
// unknown when the node holds a NaN.
func (d *decoder[T, U]) Bounds() (T, T, bool) { return d.lo, d.hi, d.bok }

func (d *decoder[T, U]) check(n int, what string) error {
	if n < 0 || n > d.n-d.pos {
		return encoding.Corruptf("alprd: %s %d values at %d of %d", what, n, d.pos, d.n)
	}
	return nil
}

func (d *decoder[T, U]) advance(n int) {
	d.pos += n
	for d.xi < len(d.excPos) && int(d.excPos[d.xi]) < d.pos {
		d.xi++
	}
}

// Skip moves the cursor; rows are addressed directly.
func (d *decoder[T, U]) Skip(n int) error {
	if err := d.check(n, "skip"); err != nil {
		return err
	}
	d.advance(n)
	return nil
}

// Read unpacks the right parts straight into dst's bits, ORs in the
// dictionary entries of a batch of unpacked indexes, then patches the
// exceptions' left parts.
func (d *decoder[T, U]) Read(dst []T) error {
	if err := d.check(len(dst), "read"); err != nil {
		return err
	}
	start := d.pos
	u := floatx.View[U](dst)
	dn := uint32(d.dn)
	for k := 0; k < len(dst); {
		m := min(len(dst)-k, floatx.Batch)
		out := u[k : k+m]
		if unsafe.Sizeof(out[0]) == 8 {
			bitpack.Unpack(floatx.View[uint64](dst[k:k+m]), d.right, d.rw, start+k)
		} else {
			bitpack.Unpack32(floatx.View[uint32](dst[k:k+m]), d.right, d.rw, start+k)
		}
		d.ibuf = cascade.Grow(d.ibuf, m)
		ix := d.ibuf[:m]
		bitpack.Unpack32(ix, d.idx, d.iw, start+k)
		var bad uint32
		dict := &d.dict
		for i, x := range ix {
			bad |= x &^ (MaxDict - 1)
			out[i] |= U(dict[x&(MaxDict-1)])
		}
		if bad != 0 || d.dn < 1<<d.iw && !idxBelow(ix, dn) {
			return encoding.Corruptf("alprd: dictionary index beyond %d entries", d.dn)
		}
		k += m
	}
	end := start + len(dst)
	mask := U(1)<<uint(d.rw) - 1
	for d.xi < len(d.excPos) && int(d.excPos[d.xi]) < end {
		i := int(d.excPos[d.xi]) - start
		u[i] = u[i]&mask | U(d.excLeft[d.xi])
		d.xi++
	}
	d.pos = end
	return nil
}

// idxBelow reports whether every index is below dn (needed only when dn is
// not a power of two).
func idxBelow(ix []uint32, dn uint32) bool {
	for _, x := range ix {
		if x >= dn {
			return false
		}
	}
	return true
}

// Gather reads each row's index and right part directly and finds
// exceptions by merging the sorted rows with the exception rows.
func (d *decoder[T, U]) Gather(rows []int32, dst []T) error {
	if err := cascade.CheckGather(encoding.KindALPRD, rows, len(dst), d.n); err != nil {
		return err
	}
	if len(rows) == 0 {
		return nil
	}
	u := floatx.View[U](dst[:len(rows)])
	for i, r := range rows {
		x := bitpack.Get(d.idx, d.iw, int(r))
		if x >= uint64(d.dn) {
			return encoding.Corruptf("alprd: dictionary index %d beyond %d entries", x, d.dn)
		}
		u[i] = U(d.dict[x] | bitpack.Get(d.right, d.rw, int(r)))
	}
	mask := U(1)<<uint(d.rw) - 1
	j := sort.Search(len(d.excPos), func(k int) bool { return d.excPos[k] >= uint32(rows[0]) })
	for i := 0; i < len(rows) && j < len(d.excPos); {
		switch p := int32(d.excPos[j]); {
		case p < rows[i]:
			j++
		case p > rows[i]:
			i++
		default:
			u[i] = u[i]&mask | U(d.excLeft[j])
			i++
			j++
		}
	}
	return nil
}

// Filter settles the span from the header bounds when it can, else
// decodes and compares.
func (d *decoder[T, U]) Filter(p *encoding.Pred[T], n int, sel encoding.Bitmap) error {
	if err := d.check(n, "filter"); err != nil {
		return err
	}
	if floatx.Settle(p, d.lo, d.hi, d.bok, n, sel) {
		d.skipped++
		d.advance(n)
		return nil
	}
	return floatx.FilterRead[T](d, p, n, sel, &d.scr)
}
