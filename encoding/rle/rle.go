// Package rle implements the RLE encoding: a sequence is stored as its
// maximal runs of bit-identical adjacent values, as two child sequences
// chosen by the selection policy — the run lengths (uint32) and the run
// values (the node's own type).
//
// Body layout (each child is a length-prefixed node):
//
//	lengthsLen:uvarint | lengths node (uint32, R rows) | valuesLen:uvarint | values node (T, R rows)
//
// Every run length is at least 1 and they sum to the node's row count.
//
// The decoder materializes both children at open (R ≤ rows/2 when the policy
// chooses RLE), so reads fill whole runs, Skip moves across runs without
// touching values, Gather walks the run ends, and Filter tests each run once.
// Aggregates can work on the runs directly through encoding.RunReader.
package rle

import (
	"bytes"
	"fmt"
	"math"
	"slices"

	"strata/encoding"
	"strata/encoding/internal/cascade"
)

// Codec registers RLE.
var Codec = &encoding.Codec{
	Kind:    encoding.KindRLE,
	Types:   encoding.AllTypes,
	Open:    open,
	Decode:  encoding.Cost{PerValue: 2.55, PerString: 5.8, PerByte: 0.07}, // strata calibrate (docs/benchmarks.md; PerString, PerByte 2026-12-02)
	Encoder: encoder{},
}

// RunReader is the run view RLE decoders of fixed-width types implement;
// it is defined in package encoding so readers need not import this one.
type RunReader[T encoding.Fixed] = encoding.RunReader[T]

// BinaryRunReader is the run view of binary RLE decoders.
type BinaryRunReader = encoding.BinaryRunReader

// runs is the part of a decoder shared by every value type: run ends and the
// cursor (run index, row position).
type runs struct {
	typ     encoding.Type
	rows    int
	lengths []uint32
	ends    []int // ends[i] is one past the last row of run i
	nodes   [2][]byte
	pos     int
	run     int // the run holding pos; len(ends) at the end
}

func (r *runs) Kind() encoding.Kind { return encoding.KindRLE }
func (r *runs) Type() encoding.Type { return r.typ }
func (r *runs) Len() int            { return r.rows }
func (r *runs) Pos() int            { return r.pos }
func (r *runs) Reset()              { r.pos, r.run = 0, 0 }

// Children implements encoding.Walker.
func (r *runs) Children() []encoding.ChildNode {
	return []encoding.ChildNode{{Role: "lengths", Node: r.nodes[0]}, {Role: "values", Node: r.nodes[1]}}
}

// Skip advances n rows without reading values.
func (r *runs) Skip(n int) error {
	if err := cascade.CheckRead(encoding.KindRLE, r.pos, n, r.rows); err != nil {
		return err
	}
	r.pos += n
	r.run = r.seek(r.run, r.pos)
	return nil
}

// seek returns the first run at or after from whose end is beyond row:
// a galloping search (steps 1, 2, 4, … from from, then bisection of the
// last step), so sorted gathers pay for the distance they move, not for
// the runs left in the node.
func (r *runs) seek(from, row int) int {
	ends := r.ends
	n := len(ends)
	if from >= n || ends[from] > row {
		return from
	}
	// Invariant: ends[lo] <= row, and hi == n or ends[hi] > row.
	lo, step := from, 1
	hi := from + step
	for hi < n && ends[hi] <= row {
		lo = hi
		step <<= 1
		hi = from + step
	}
	hi = min(hi, n)
	for lo+1 < hi {
		mid := int(uint(lo+hi) >> 1)
		if ends[mid] > row {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}

func open(h encoding.Header, opts *encoding.Options) (encoding.Decoder, error) {
	ln, rest, err := encoding.Child(h.Body, "run lengths")
	if err != nil {
		return nil, err
	}
	vn, rest, err := encoding.Child(rest, "run values")
	if err != nil {
		return nil, err
	}
	if len(rest) != 0 {
		return nil, encoding.Corruptf("%d trailing bytes after run values", len(rest))
	}
	ld, err := cascade.OpenFixed[uint32](ln, h.Depth+1, opts, -1, "run lengths")
	if err != nil {
		return nil, err
	}
	nr := ld.Len()
	if nr > h.Rows || (nr == 0) != (h.Rows == 0) {
		return nil, encoding.Corruptf("%d runs for %d rows", nr, h.Rows)
	}
	if err := opts.CheckAlloc(nr, 12, "run table"); err != nil {
		return nil, err
	}
	lengths, err := cascade.ReadAll(ld, opts, "run lengths")
	if err != nil {
		return nil, err
	}
	ends := make([]int, nr)
	total := 0
	for i, l := range lengths {
		if l == 0 {
			return nil, encoding.Corruptf("run %d has length 0", i)
		}
		total += int(l)
		if total > h.Rows {
			return nil, encoding.Corruptf("run lengths exceed %d rows at run %d", h.Rows, i)
		}
		ends[i] = total
	}
	if total != h.Rows {
		return nil, encoding.Corruptf("run lengths sum to %d, want %d rows", total, h.Rows)
	}
	rs := runs{typ: h.Type, rows: h.Rows, lengths: lengths, ends: ends, nodes: [2][]byte{ln, vn}}
	depth := h.Depth + 1
	switch h.Type {
	case encoding.Bool:
		f, err := openFixed[bool](rs, vn, depth, opts)
		if err != nil {
			return nil, err
		}
		return &boolReader{*f}, nil
	case encoding.Int8:
		return openNum[int8](rs, vn, depth, opts)
	case encoding.Int16:
		return openNum[int16](rs, vn, depth, opts)
	case encoding.Int32:
		return openNum[int32](rs, vn, depth, opts)
	case encoding.Int64:
		return openNum[int64](rs, vn, depth, opts)
	case encoding.Uint8:
		return openNum[uint8](rs, vn, depth, opts)
	case encoding.Uint16:
		return openNum[uint16](rs, vn, depth, opts)
	case encoding.Uint32:
		return openNum[uint32](rs, vn, depth, opts)
	case encoding.Uint64:
		return openNum[uint64](rs, vn, depth, opts)
	case encoding.Float32:
		return openNum[float32](rs, vn, depth, opts)
	case encoding.Float64:
		return openNum[float64](rs, vn, depth, opts)
	case encoding.Binary:
		vd, err := cascade.OpenBinary(vn, depth, opts, len(ends), "run values")
		if err != nil {
			return nil, err
		}
		vals, err := cascade.ReadAllBinary(vd, opts, "run values")
		if err != nil {
			return nil, err
		}
		return &binaryReader{runs: rs, values: vals, vdec: vd, outLimit: cascade.OutLimit(opts)}, nil
	}
	return nil, encoding.Unsupportedf("type %v", h.Type)
}

// fixedReader decodes runs of fixed-width values.
type fixedReader[T encoding.Fixed] struct {
	runs
	values []T
	vdec   encoding.Reader[T]
}

func openFixed[T encoding.Fixed](rs runs, vn []byte, depth int, opts *encoding.Options) (*fixedReader[T], error) {
	vd, err := cascade.OpenFixed[T](vn, depth, opts, len(rs.ends), "run values")
	if err != nil {
		return nil, err
	}
	vals, err := cascade.ReadAll(vd, opts, "run values")
	if err != nil {
		return nil, err
	}
	return &fixedReader[T]{runs: rs, values: vals, vdec: vd}, nil
}

// Read fills dst run by run.
func (r *fixedReader[T]) Read(dst []T) error {
	if err := cascade.CheckRead(encoding.KindRLE, r.pos, len(dst), r.rows); err != nil {
		return err
	}
	n, start := len(dst), r.pos
	ends, values := r.ends, r.values
	run := r.run
	for p := 0; p < n; {
		full := ends[run] - start
		e := min(full, n)
		v := values[run]
		if p+8 <= n {
			// Short runs dominate when runs are short: store 8 copies
			// unconditionally (later runs overwrite the excess) so the
			// common case has no length-dependent branch.
			d := dst[p : p+8 : p+8]
			d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7] = v, v, v, v, v, v, v, v
			if e-p > 8 {
				cascade.Fill(dst[p+8:e], v)
			}
		} else {
			cascade.Fill(dst[p:e], v)
		}
		p = e
		if e == full {
			run++
		}
	}
	r.pos, r.run = start+n, run
	return nil
}

// Gather reads the values at rows (sorted, strictly increasing) with a
// forward merge over the run ends; the cursor does not move.
func (r *fixedReader[T]) Gather(rows []int32, dst []T) error {
	if err := cascade.CheckGather(encoding.KindRLE, rows, len(dst), r.rows); err != nil {
		return err
	}
	run := 0
	for i, row := range rows {
		run = r.seek(run, int(row))
		dst[i] = r.values[run]
	}
	return nil
}

// Runs implements RunReader.
func (r *fixedReader[T]) Runs() ([]uint32, []T) { return r.lengths, r.values }

// AppendRuns implements RunReader.
func (r *fixedReader[T]) AppendRuns(lengths []uint32, values []T, n int) ([]uint32, []T, error) {
	if err := cascade.CheckRead(encoding.KindRLE, r.pos, n, r.rows); err != nil {
		return lengths, values, err
	}
	for n > 0 {
		k := min(r.ends[r.run]-r.pos, n)
		lengths = append(lengths, uint32(k))
		values = append(values, r.values[r.run])
		n -= k
		r.pos += k
		if r.pos == r.ends[r.run] {
			r.run++
		}
	}
	return lengths, values, nil
}

// boolReader adds CountTrue for bool runs.
type boolReader struct{ fixedReader[bool] }

// CountTrue consumes the next n rows and returns how many are true, one step
// per run (Nullable uses it to skip validity without materializing it).
func (r *boolReader) CountTrue(n int) (int, error) {
	if err := cascade.CheckRead(encoding.KindRLE, r.pos, n, r.rows); err != nil {
		return 0, err
	}
	c := 0
	for n > 0 {
		k := min(r.ends[r.run]-r.pos, n)
		if r.values[r.run] {
			c += k
		}
		n -= k
		r.pos += k
		if r.pos == r.ends[r.run] {
			r.run++
		}
	}
	return c, nil
}

// numReader adds the numeric capabilities.
type numReader[T encoding.Number] struct {
	fixedReader[T]
	bounded  bool
	min, max T
	boundsOK bool
	matchBuf []bool
	prevPred *encoding.Pred[T]
}

func openNum[T encoding.Number](rs runs, vn []byte, depth int, opts *encoding.Options) (*numReader[T], error) {
	f, err := openFixed[T](rs, vn, depth, opts)
	if err != nil {
		return nil, err
	}
	return &numReader[T]{fixedReader: *f}, nil
}

// Bounds returns the run values' bounds: the values child's own bounds when
// it can tell, else computed over the (few) run values. NaN makes float
// bounds unknown.
func (r *numReader[T]) Bounds() (min, max T, ok bool) {
	if b, isB := r.vdec.(encoding.Bounder[T]); isB {
		if mn, mx, ok := b.Bounds(); ok {
			return mn, mx, true
		}
	}
	if !r.bounded {
		r.bounded = true
		r.min, r.max, r.boundsOK = boundsOf(r.values)
	}
	return r.min, r.max, r.boundsOK
}

func boundsOf[T encoding.Number](v []T) (mn, mx T, ok bool) {
	if len(v) == 0 {
		return mn, mx, false
	}
	mn, mx = v[0], v[0]
	for _, x := range v {
		if x != x {
			return mn, mx, false
		}
		if x < mn {
			mn = x
		}
		if x > mx {
			mx = x
		}
	}
	return mn, mx, true
}

// Filter tests each run overlapping the next n rows once and clears the
// rows of failing runs as whole ranges.
func (r *numReader[T]) Filter(p *encoding.Pred[T], n int, sel encoding.Bitmap) error {
	if err := cascade.CheckRead(encoding.KindRLE, r.pos, n, r.rows); err != nil {
		return err
	}
	start := r.pos
	for r.pos < start+n {
		end := min(r.ends[r.run], start+n)
		if !p.Match(r.values[r.run]) {
			cascade.ClearRange(sel, r.pos-start, end-start)
		}
		r.pos = end
		if r.pos == r.ends[r.run] {
			r.run++
		}
	}
	return nil
}

// binaryReader decodes runs of binary values.
type binaryReader struct {
	runs
	values   encoding.Bytes
	vdec     encoding.BinaryReader
	outLimit int

	bounded    bool
	bmin, bmax []byte
}

// ReadBinary appends the next n values.
func (r *binaryReader) ReadBinary(dst *encoding.Bytes, n int) error {
	if err := cascade.CheckRead(encoding.KindRLE, r.pos, n, r.rows); err != nil {
		return err
	}
	// Size the output once: one pass over the runs covered.
	total := 0
	for run, pos := r.run, r.pos; pos < r.pos+n; run++ {
		k := min(r.ends[run], r.pos+n) - pos
		total += k * len(r.values.Value(run))
		pos += k
		if len(dst.Data)+total > r.outLimit {
			return encoding.Limitf("rle: %d values need more than %d bytes", n, r.outLimit)
		}
	}
	if len(dst.Offsets) == 0 {
		dst.Offsets = append(dst.Offsets, int32(len(dst.Data)))
	}
	dst.Data = grow(dst.Data, total)
	dst.Offsets = grow(dst.Offsets, n)
	for n > 0 {
		k := min(r.ends[r.run]-r.pos, n)
		dst.AppendRepeated(r.values.Value(r.run), k)
		n -= k
		r.pos += k
		if r.pos == r.ends[r.run] {
			r.run++
		}
	}
	return nil
}

// grow makes room for extra more elements of s, growing its capacity
// geometrically (slices.Grow): the values of a stream's chunks are
// appended to one buffer a chunk at a time, and growing it by exactly
// extra copied the whole buffer at every chunk, quadratic in the chunks.
func grow[T any](s []T, extra int) []T { return slices.Grow(s, extra) }

// GatherBinary appends the values at rows; the cursor does not move.
func (r *binaryReader) GatherBinary(rows []int32, dst *encoding.Bytes) error {
	if err := cascade.CheckGather(encoding.KindRLE, rows, len(rows), r.rows); err != nil {
		return err
	}
	run := 0
	for _, row := range rows {
		run = r.seek(run, int(row))
		dst.Append(r.values.Value(run))
	}
	return nil
}

// FilterBinary tests each run once.
func (r *binaryReader) FilterBinary(p *encoding.BytesPred, n int, sel encoding.Bitmap) error {
	if err := cascade.CheckRead(encoding.KindRLE, r.pos, n, r.rows); err != nil {
		return err
	}
	start := r.pos
	for r.pos < start+n {
		end := min(r.ends[r.run], start+n)
		if !p.Match(r.values.Value(r.run)) {
			cascade.ClearRange(sel, r.pos-start, end-start)
		}
		r.pos = end
		if r.pos == r.ends[r.run] {
			r.run++
		}
	}
	return nil
}

// BinaryBounds returns the values child's bounds, else the bounds of the run
// values.
func (r *binaryReader) BinaryBounds() (min, max []byte, ok bool) {
	if b, isB := r.vdec.(encoding.BinaryBounder); isB {
		if mn, mx, ok := b.BinaryBounds(); ok {
			return mn, mx, true
		}
	}
	if !r.bounded {
		r.bounded = true
		for i := 0; i < r.values.Len(); i++ {
			v := r.values.Value(i)
			if i == 0 || bytes.Compare(v, r.bmin) < 0 {
				r.bmin = v
			}
			if i == 0 || bytes.Compare(v, r.bmax) > 0 {
				r.bmax = v
			}
		}
	}
	return r.bmin, r.bmax, r.values.Len() > 0
}

// BinaryRuns implements BinaryRunReader.
func (r *binaryReader) BinaryRuns() ([]uint32, *encoding.Bytes) { return r.lengths, &r.values }

// encoder writes RLE.
type encoder struct{}

// Fit accepts sequences with at most one run per two values on average.
func (encoder) Fit(st *encoding.Stats) bool {
	return st.N >= 2 && st.Type.Valid() && st.Runs*2 <= st.N
}

// WholeTrial: RLE's children hold one value a run, so with no more runs
// than a sample has values a trial on the whole sequence costs a pass over
// the values and a sample's trial of the children, and sees the runs a
// sample's short slices cut.
func (encoder) WholeTrial(st *encoding.Stats, sampleLen int) bool {
	return st.Runs <= sampleLen
}

// Estimate needs a trial: both children are selected recursively.
func (encoder) Estimate(*encoding.Stats) (int, bool) { return 0, false }

// Encode splits vals into runs and encodes lengths then values as children.
func (encoder) Encode(dst []byte, vals any, st *encoding.Stats, ctx *encoding.Ctx) ([]byte, error) {
	var lengths []uint32
	var values any
	switch v := vals.(type) {
	case []bool:
		lengths, values = splitRuns(v, v)
	case []int8:
		lengths, values = splitRuns(v, v)
	case []int16:
		lengths, values = splitRuns(v, v)
	case []int32:
		lengths, values = splitRuns(v, v)
	case []int64:
		lengths, values = splitRuns(v, v)
	case []uint8:
		lengths, values = splitRuns(v, v)
	case []uint16:
		lengths, values = splitRuns(v, v)
	case []uint32:
		lengths, values = splitRuns(v, v)
	case []uint64:
		lengths, values = splitRuns(v, v)
	case []float32:
		lengths, values = splitRuns(v, cascade.Keys(v).([]uint32))
	case []float64:
		lengths, values = splitRuns(v, cascade.Keys(v).([]uint64))
	case encoding.Bytes:
		lengths, values = splitBinaryRuns(&v)
	case *encoding.Bytes:
		lengths, values = splitBinaryRuns(v)
	default:
		return dst, fmt.Errorf("rle: cannot encode %T", vals)
	}
	dst, err := ctx.EncodeChild(dst, lengths)
	if err != nil {
		return dst, fmt.Errorf("run lengths: %w", err)
	}
	dst, err = ctx.EncodeChild(dst, values)
	if err != nil {
		return dst, fmt.Errorf("run values: %w", err)
	}
	return dst, nil
}

// splitRuns returns the runs of vals, comparing keys (a bit-exact view of
// vals). Runs longer than the uint32 range are split.
func splitRuns[T any, K comparable](vals []T, keys []K) ([]uint32, []T) {
	if len(keys) == 0 {
		return []uint32{}, []T{}
	}
	var lengths []uint32
	var values []T
	start := 0
	for i := 1; i <= len(keys); i++ {
		if i < len(keys) && keys[i] == keys[i-1] && uint64(i-start) < math.MaxUint32 {
			continue
		}
		lengths = append(lengths, uint32(i-start))
		values = append(values, vals[start])
		start = i
	}
	return lengths, values
}

func splitBinaryRuns(b *encoding.Bytes) ([]uint32, encoding.Bytes) {
	n := b.Len()
	var lengths []uint32
	values := encoding.Bytes{Offsets: []int32{0}}
	start := 0
	for i := 1; i <= n; i++ {
		if i < n && bytes.Equal(b.Value(i), b.Value(i-1)) && uint64(i-start) < math.MaxUint32 {
			continue
		}
		lengths = append(lengths, uint32(i-start))
		values.Append(b.Value(start))
		start = i
	}
	if lengths == nil {
		lengths = []uint32{}
	}
	return lengths, values
}
