// Package cascade holds helpers shared by the composite encodings (RLE,
// Dictionary, MainlyConstant, SparseBool, Nullable): opening and fully
// reading child nodes under the decode limits, validating position
// children, cursor argument checks and a sequential gather fallback for
// children that cannot gather themselves.
package cascade

import (
	"fmt"

	"strata/encoding"
)

// Batch is the number of values composite decoders move through scratch
// buffers at a time: large enough to amortize child calls, small enough to
// stay in L1/L2.
const Batch = 1024

// MaxBytes returns the allocation bound of opts (defaults applied).
func MaxBytes(opts *encoding.Options) int {
	if opts == nil || opts.MaxBytes <= 0 {
		return encoding.DefaultMaxBytes
	}
	return opts.MaxBytes
}

// OpenFixed opens a child node that must hold values of Go type T and have
// exactly want rows (want < 0 accepts any row count).
func OpenFixed[T encoding.Fixed](node []byte, depth int, opts *encoding.Options, want int, what string) (encoding.Reader[T], error) {
	r, err := encoding.OpenTyped[T](node, depth, opts)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if r.Type() != encoding.TypeFor[T]() {
		return nil, encoding.Corruptf("%s: child holds %v, want %v", what, r.Type(), encoding.TypeFor[T]())
	}
	if want >= 0 {
		if err := encoding.CheckRows(r, want, what); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// OpenBinary opens a binary child node with exactly want rows (want < 0
// accepts any row count).
func OpenBinary(node []byte, depth int, opts *encoding.Options, want int, what string) (encoding.BinaryReader, error) {
	r, err := encoding.OpenBinary(node, depth, opts)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if r.Type() != encoding.Binary {
		return nil, encoding.Corruptf("%s: child holds %v, want binary", what, r.Type())
	}
	if want >= 0 {
		if err := encoding.CheckRows(r, want, what); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// ReadAll decodes every value of r into a new slice, checking the
// allocation against opts first.
func ReadAll[T encoding.Fixed](r encoding.Reader[T], opts *encoding.Options, what string) ([]T, error) {
	n := r.Len()
	if err := opts.CheckAlloc(n, encoding.TypeFor[T]().Size(), what); err != nil {
		return nil, err
	}
	out := make([]T, n)
	r.Reset()
	if err := r.Read(out); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	r.Reset()
	return out, nil
}

// ReadAllBinary decodes every value of r in batches, stopping with ErrLimit
// once the decoded bytes pass opts.MaxBytes (a small node may legally
// expand to many copies of one long value).
func ReadAllBinary(r encoding.BinaryReader, opts *encoding.Options, what string) (encoding.Bytes, error) {
	n := r.Len()
	var out encoding.Bytes
	if err := opts.CheckAlloc(n+1, 4, what+" offsets"); err != nil {
		return out, err
	}
	out.Offsets = make([]int32, 1, n+1)
	limit := MaxBytes(opts)
	if limit > 1<<31-1 {
		limit = 1<<31 - 1 // offsets are int32
	}
	r.Reset()
	for done := 0; done < n; {
		k := min(n-done, Batch)
		if err := r.ReadBinary(&out, k); err != nil {
			return out, fmt.Errorf("%s: %w", what, err)
		}
		if len(out.Data) > limit {
			return out, encoding.Limitf("%s: more than %d bytes of values", what, limit)
		}
		done += k
	}
	if out.Len() != n {
		return out, encoding.Corruptf("%s: child returned %d values, want %d", what, out.Len(), n)
	}
	r.Reset()
	return out, nil
}

// CheckPositions verifies that pos is strictly increasing and every entry is
// below rows.
func CheckPositions(pos []uint32, rows int, what string) error {
	prev := int64(-1)
	for i, p := range pos {
		if int64(p) <= prev {
			return encoding.Corruptf("%s: position %d (%d) not above the previous %d", what, i, p, prev)
		}
		prev = int64(p)
	}
	if prev >= int64(rows) {
		return encoding.Corruptf("%s: position %d beyond %d rows", what, prev, rows)
	}
	return nil
}

// CheckRead validates a Read/Skip of n values at pos of a node of length l.
func CheckRead(k encoding.Kind, pos, n, l int) error {
	if n < 0 || n > l-pos {
		return encoding.Corruptf("%v: cannot move %d values at position %d of %d", k, n, pos, l)
	}
	return nil
}

// CheckGather validates gather rows (strictly increasing, within [0, l))
// and that the destination holds dstLen >= len(rows) values.
func CheckGather(k encoding.Kind, rows []int32, dstLen, l int) error {
	if dstLen < len(rows) {
		return fmt.Errorf("%v: gather of %d rows into %d values", k, len(rows), dstLen)
	}
	prev := int32(-1)
	for _, r := range rows {
		if r <= prev {
			return encoding.Corruptf("%v: gather rows not strictly increasing at %d", k, r)
		}
		prev = r
	}
	if int(prev) >= l {
		return encoding.Corruptf("%v: gather row %d beyond %d rows", k, prev, l)
	}
	return nil
}

// GatherSeq gathers rows from r by moving it forward: r must be a decoder
// nobody else uses (its position is changed). It is the fallback for
// children without a Gatherer; rows must be validated by the caller.
func GatherSeq[T encoding.Fixed](r encoding.Reader[T], rows []int32, dst []T) error {
	if len(rows) > 0 && int(rows[0]) < r.Pos() {
		r.Reset()
	}
	for i, row := range rows {
		if d := int(row) - r.Pos(); d > 0 {
			if err := r.Skip(d); err != nil {
				return err
			}
		}
		if err := r.Read(dst[i : i+1]); err != nil {
			return err
		}
	}
	return nil
}

// GatherSeqBinary is GatherSeq for binary values.
func GatherSeqBinary(r encoding.BinaryReader, rows []int32, dst *encoding.Bytes) error {
	if len(rows) > 0 && int(rows[0]) < r.Pos() {
		r.Reset()
	}
	for _, row := range rows {
		if d := int(row) - r.Pos(); d > 0 {
			if err := r.Skip(d); err != nil {
				return err
			}
		}
		if err := r.ReadBinary(dst, 1); err != nil {
			return err
		}
	}
	return nil
}

// GatherChild reads rows of a child node through r's Gatherer, or, when r
// has none, by moving a private cursor *cur over node (n rows), opened on
// first use: r's own cursor must not move.
func GatherChild[T encoding.Fixed](r encoding.Reader[T], cur *encoding.Reader[T], node []byte, depth int, opts *encoding.Options, n int, what string, rows []int32, dst []T) error {
	if g, ok := r.(encoding.Gatherer[T]); ok {
		return g.Gather(rows, dst)
	}
	if *cur == nil {
		p, err := OpenFixed[T](node, depth, opts, n, what)
		if err != nil {
			return err
		}
		*cur = p
	}
	return GatherSeq(*cur, rows, dst)
}

// GatherChildBinary is GatherChild for a binary child.
func GatherChildBinary(r encoding.BinaryReader, cur *encoding.BinaryReader, node []byte, depth int, opts *encoding.Options, n int, what string, rows []int32, dst *encoding.Bytes) error {
	if g, ok := r.(encoding.BinaryGatherer); ok {
		return g.GatherBinary(rows, dst)
	}
	if *cur == nil {
		p, err := OpenBinary(node, depth, opts, n, what)
		if err != nil {
			return err
		}
		*cur = p
	}
	return GatherSeqBinary(*cur, rows, dst)
}

// Grow returns s resliced to n elements, reallocating only when needed.
func Grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// Extend returns s lengthened by n elements, whose contents are unset when
// it reallocates; a reallocation at least doubles the capacity, so that a
// decoder appending batch after batch to a caller's buffer copies it a
// logarithmic number of times.
func Extend[T any](s []T, n int) []T {
	need := len(s) + n
	if cap(s) < need {
		ns := make([]T, len(s), max(need, 2*cap(s)))
		copy(ns, s)
		s = ns
	}
	return s[:need]
}

// Reserve returns s with room for extra more elements past its length,
// reallocating (to twice its length plus extra) only when it has not.
func Reserve[T any](s []T, extra int) []T {
	if cap(s)-len(s) >= extra {
		return s
	}
	ns := make([]T, len(s), 2*len(s)+extra)
	copy(ns, s)
	return ns
}

// AppendFixed appends v's little-endian bytes (bool as one byte 0/1).
func AppendFixed[T encoding.Fixed](dst []byte, v T) []byte {
	switch x := any(v).(type) {
	case bool:
		if x {
			return append(dst, 1)
		}
		return append(dst, 0)
	case int8:
		return append(dst, byte(x))
	case uint8:
		return append(dst, x)
	case int16:
		return le(dst, uint64(uint16(x)), 2)
	case uint16:
		return le(dst, uint64(x), 2)
	case int32:
		return le(dst, uint64(uint32(x)), 4)
	case uint32:
		return le(dst, uint64(x), 4)
	case int64:
		return le(dst, uint64(x), 8)
	case uint64:
		return le(dst, x, 8)
	case float32:
		return le(dst, uint64(f32bits(x)), 4)
	case float64:
		return le(dst, f64bits(x), 8)
	}
	return dst
}

func le(dst []byte, v uint64, n int) []byte {
	for i := 0; i < n; i++ {
		dst = append(dst, byte(v>>(8*i)))
	}
	return dst
}

// ParseFixed reads one little-endian T written by AppendFixed.
func ParseFixed[T encoding.Fixed](buf []byte, what string) (T, []byte, error) {
	var z T
	size := encoding.TypeFor[T]().Size()
	if len(buf) < size {
		return z, buf, encoding.Corruptf("%s: %d bytes left, need %d", what, len(buf), size)
	}
	var u uint64
	for i := size - 1; i >= 0; i-- {
		u = u<<8 | uint64(buf[i])
	}
	rest := buf[size:]
	switch any(z).(type) {
	case bool:
		if u > 1 {
			return z, buf, encoding.Corruptf("%s: bool byte %d", what, u)
		}
		return any(u == 1).(T), rest, nil
	case int8:
		return any(int8(u)).(T), rest, nil
	case uint8:
		return any(uint8(u)).(T), rest, nil
	case int16:
		return any(int16(u)).(T), rest, nil
	case uint16:
		return any(uint16(u)).(T), rest, nil
	case int32:
		return any(int32(u)).(T), rest, nil
	case uint32:
		return any(uint32(u)).(T), rest, nil
	case int64:
		return any(int64(u)).(T), rest, nil
	case uint64:
		return any(u).(T), rest, nil
	case float32:
		return any(f32frombits(uint32(u))).(T), rest, nil
	case float64:
		return any(f64frombits(u)).(T), rest, nil
	}
	return z, buf, encoding.Unsupportedf("%s: type %T", what, z)
}

// Same reports whether a and b are identical, bit for bit for floats.
func Same[T encoding.Fixed](a, b T) bool {
	switch x := any(a).(type) {
	case float32:
		return f32bits(x) == f32bits(any(b).(float32))
	case float64:
		return f64bits(x) == f64bits(any(b).(float64))
	}
	return a == b
}

// ClearRange clears rows [lo, hi) of b a word at a time (Bitmap.ClearRange
// goes bit by bit outside whole words, which dominates filters over short
// runs).
func ClearRange(b encoding.Bitmap, lo, hi int) {
	if lo >= hi {
		return
	}
	wlo, whi := lo>>6, (hi-1)>>6
	mlo := ^uint64(0) << (lo & 63)
	mhi := ^uint64(0) >> (63 - (hi-1)&63)
	if wlo == whi {
		b[wlo] &^= mlo & mhi
		return
	}
	b[wlo] &^= mlo
	for w := wlo + 1; w < whi; w++ {
		b[w] = 0
	}
	b[whi] &^= mhi
}

// Fill sets every element of d to v; long spans double a copied prefix so
// the work is done by memmove.
func Fill[T any](d []T, v T) {
	if len(d) < 32 {
		for i := range d {
			d[i] = v
		}
		return
	}
	d[0] = v
	for k := 1; k < len(d); k *= 2 {
		copy(d[k:], d[:k])
	}
}

// OutLimit is the most bytes a binary read may grow its output buffer to:
// opts.MaxBytes, and never beyond the int32 offsets of encoding.Bytes. A few
// bytes of RLE, Dictionary or MainlyConstant can stand for a long value
// repeated a million times; a read that would materialize more than this
// fails with ErrLimit instead of allocating it.
func OutLimit(opts *encoding.Options) int {
	return min(MaxBytes(opts), 1<<31-1)
}

// ReadOffsets decodes the n lengths of r into running offsets: out[0] = 0
// and out[i+1] = out[i] + length i, failing with ErrCorrupt as soon as the
// total passes limit (the bytes the lengths index). The lengths are decoded
// in place into out[1:], so the only allocation is out itself, checked
// against opts first. Callers check that the total is exactly what they
// hold.
func ReadOffsets(r encoding.Reader[uint32], n, limit int, opts *encoding.Options, what string) ([]int32, error) {
	if err := opts.CheckAlloc(n+1, 4, what); err != nil {
		return nil, err
	}
	limit = min(limit, 1<<31-1) // offsets are int32
	out := allocInt32(opts, n+1)
	out[0] = 0
	if n > 0 {
		if err := r.Read(asUint32(out[1:])); err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
	}
	total := uint64(0)
	for i := 1; i < len(out); i++ {
		total += uint64(uint32(out[i]))
		if total > uint64(limit) {
			return nil, encoding.Corruptf("%s exceed %d bytes", what, limit)
		}
		out[i] = int32(total)
	}
	return out, nil
}

// FilterSeq filters the next n values of r by reading them in batches and
// clearing the rows of sel whose value fails p: the fallback of a decoder
// whose values (or child) have no Filterer.
func FilterSeq[T encoding.Number](r encoding.Reader[T], p *encoding.Pred[T], n int, sel encoding.Bitmap) error {
	buf := make([]T, min(n, Batch))
	for off := 0; off < n; {
		k := min(n-off, len(buf))
		if err := r.Read(buf[:k]); err != nil {
			return err
		}
		for j, v := range buf[:k] {
			if !p.Match(v) {
				sel.Clear(off + j)
			}
		}
		off += k
	}
	return nil
}

// FilterChild tests p on the next n values of child r into sel, through
// its Filterer when it has one, else by reading them (FilterSeq).
func FilterChild[T encoding.Number](r encoding.Reader[T], p *encoding.Pred[T], n int, sel encoding.Bitmap) error {
	if f, ok := r.(encoding.Filterer[T]); ok {
		return f.Filter(p, n, sel)
	}
	return FilterSeq(r, p, n, sel)
}

// FilterChildBinary is FilterChild for a binary child (FilterBinarySeq
// decodes into scratch).
func FilterChildBinary(r encoding.BinaryReader, p *encoding.BytesPred, n int, sel encoding.Bitmap, scratch *encoding.Bytes) error {
	if f, ok := r.(encoding.BinaryFilterer); ok {
		return f.FilterBinary(p, n, sel)
	}
	return FilterBinarySeq(r, p, n, sel, scratch)
}

// FilterBinarySeq filters the next n values of r by decoding them in
// batches into scratch and clearing the rows of sel whose value fails p;
// batches without a selected row are skipped, not decoded.
func FilterBinarySeq(r encoding.BinaryReader, p *encoding.BytesPred, n int, sel encoding.Bitmap, scratch *encoding.Bytes) error {
	for off := 0; off < n; {
		k := min(n-off, Batch)
		if !sel.AnyIn(off, off+k) {
			if err := r.Skip(k); err != nil {
				return err
			}
			off += k
			continue
		}
		scratch.Reset()
		if err := r.ReadBinary(scratch, k); err != nil {
			return err
		}
		for j := 0; j < k; j++ {
			if sel[(off+j)>>6]&(1<<((off+j)&63)) != 0 && !p.Match(scratch.Value(j)) {
				sel.Clear(off + j)
			}
		}
		off += k
	}
	return nil
}
