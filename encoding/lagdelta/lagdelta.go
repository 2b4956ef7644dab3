// Package lagdelta implements LagDelta: integers stored as their first L
// values (the heads) and, for every later row i, the difference
// v[i] - v[i-L] from the value one period L earlier. Delta is the case
// L = 1; a larger L suits sequences with a period, which plain differences
// turn into a saw-tooth: hourly readings that follow the time of day
// (L = 24), a grid's coordinate that runs over the same values row after
// row (L = the row length), weekly or monthly cycles. ALP's digits of such
// columns become differences of a bit or two, or one constant.
//
// The encoder finds L on the whole sequence: the lag, up to maxSearchLag,
// whose differences take the fewest bits at a few hundred probe rows, kept
// only where it saves a fifth of plain differences' bits. Decoding adds
// each difference to the value L rows back: no running sum, so the loop has
// no dependency from one row to the next when L is not tiny.
// Where every difference is zero (a differences child bounded to [0, 0],
// such as Constant 0), decoding copies the heads period after period and
// the node reports its period (encoding.Periodic), so that ALP above it
// converts one period of digits and copies the floats.
//
// Body layout (see docs/FORMAT.md, "LagDelta"):
//
//	L:uvarint | heads child (L values of the node's type) | differences child (rows - L int64)
package lagdelta

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"unsafe"

	"strata/encoding"
	"strata/encoding/internal/cascade"
)

// MaxLag bounds the lag a node may declare: it bounds the heads and the
// window of previous values a decoder keeps.
const MaxLag = 1 << 16

// maxSearchLag is the largest lag the encoder tries, and probes the number
// of rows at which it compares lags.
const (
	maxSearchLag = 1024
	probes       = 192
)

// minRows is the fewest values the encoder takes: shorter sequences have
// no period worth finding.
const minRows = 64

// Codec registers LagDelta.
var Codec = &encoding.Codec{
	Kind:    encoding.KindLagDelta,
	Types:   encoding.IntegerTypes,
	Open:    open,
	Decode:  encoding.Cost{PerValue: 1.3}, // strata calibrate beside Delta, scaled to its table (docs/benchmarks.md, 2026-12-01)
	Encoder: encoder{},
}

type encoder struct{}

// Fit accepts integer sequences of at least minRows values.
func (encoder) Fit(st *encoding.Stats) bool { return st.Type.IsInteger() && st.N >= minRows }

// Estimate needs a trial: the children are selected recursively.
func (encoder) Estimate(*encoding.Stats) (int, bool) { return 0, false }

// errNoPeriod declines, in a selection's trial, a sequence without a
// useful lag.
var errNoPeriod = fmt.Errorf("lagdelta: no period saves bits over plain differences")

// errNoWhole declines a trial whose selection trusts a sample's estimate
// (Ctx.Whole is nil there).
var errNoWhole = fmt.Errorf("lagdelta: trial without the whole sequence")

func (encoder) Encode(dst []byte, vals any, st *encoding.Stats, ctx *encoding.Ctx) ([]byte, error) {
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
	return dst, fmt.Errorf("lagdelta: cannot encode %T", vals)
}

// wide maps a value to 64 bits: sign-extended for signed types,
// zero-extended for unsigned ones; wrapping arithmetic on widened values,
// truncated back to T, reproduces values bit-exactly.
func wide[T encoding.Integer](v T) uint64 { return uint64(int64(v)) }

// cost is the bits a difference of d takes bit-packed after zigzag.
func cost(d uint64) int {
	return bits.Len64(d<<1 ^ uint64(int64(d)>>63))
}

// FindLag returns the lag the encoder stores vals with: the one of 1 to
// maxSearchLag (and at most a quarter of the values) whose differences
// take the fewest bits at the probe rows, or 1 when no lag saves a fifth of
// the bits of lag 1 there. Every lag is scored first at every fourth
// probe row, and the best few again at all of them: the search runs on
// every integer column a writer encodes, so it is kept to about
// 50 × maxSearchLag differences.
func FindLag[T encoding.Integer](vals []T) int {
	n := len(vals)
	maxL := min(maxSearchLag, n/4)
	if maxL < 2 {
		return 1
	}
	np := min(probes, n-maxL)
	pos := make([]int, np)
	for k := range pos {
		pos[k] = maxL + k*(n-maxL)/np
	}
	score := func(l, step int) int {
		s := 0
		for k := 0; k < len(pos); k += step {
			p := pos[k]
			s += cost(wide(vals[p]) - wide(vals[p-l]))
		}
		return s
	}
	// The coarse pass keeps the best few lags (smallest first on ties).
	const keep = 4
	var top [keep]struct{ l, s int }
	nt := 0
	for l := 2; l <= maxL; l++ {
		s := score(l, 4)
		i := nt
		for i > 0 && top[i-1].s > s {
			i--
		}
		if i == keep {
			continue
		}
		if nt < keep {
			nt++
		}
		copy(top[i+1:nt], top[i:nt-1])
		top[i].l, top[i].s = l, s
	}
	s1 := score(1, 1)
	best, bestScore := 1, s1
	for _, c := range top[:nt] {
		if s := score(c.l, 1); s < bestScore || s == bestScore && c.l < best {
			best, bestScore = c.l, s
		}
	}
	if 5*bestScore > 4*s1 {
		return 1
	}
	return best
}

// lagTag names the lag search of values of type T in Ctx.Memo: the same
// bytes read as another type have other differences.
func lagTag[T encoding.Integer]() string {
	var z T
	switch any(z).(type) {
	case int8:
		return "lagdelta.int8"
	case int16:
		return "lagdelta.int16"
	case int32:
		return "lagdelta.int32"
	case int64:
		return "lagdelta.int64"
	case uint8:
		return "lagdelta.uint8"
	case uint16:
		return "lagdelta.uint16"
	case uint32:
		return "lagdelta.uint32"
	case uint64:
		return "lagdelta.uint64"
	}
	return "lagdelta"
}

// appendBody appends the LagDelta body of vals. Inside the trial encode of
// a sample, the lag is found on the whole sequence (Ctx.Whole) and the
// sample's share of heads and differences is encoded, so that the trial's
// size scales to the whole node's; trials without the whole sequence are
// declined.
func appendBody[T encoding.Integer](dst []byte, vals []T, ctx *encoding.Ctx) ([]byte, error) {
	if len(vals) < 2 {
		return dst, fmt.Errorf("lagdelta: %d values, want at least 2", len(vals))
	}
	w, whole := ctx.Whole().([]T)
	if ctx.Trial() && !whole {
		// A sample's runs cut the period, and this selection would
		// trust the estimate: declined.
		return dst, errNoWhole
	}
	src := vals
	if whole && len(w) > len(vals) {
		src = w
	}
	// Selection encodes the same sequence more than once (a trial and the
	// whole encode, a finalist ranked and encoded again): the lag search,
	// a pure function of src, runs once per file for each sequence.
	l := ctx.Memo(lagTag[T](), encoding.BytesOf(src), func() any { return FindLag(src) }).(int)
	if l < 2 && ctx.Trial() {
		// Declined in selection, where Delta stores plain differences
		// with block bounds; a node is still written when asked for.
		return dst, errNoPeriod
	}
	l = min(l, len(src)-1)
	diffs := make([]int64, len(src)-l)
	for i := range diffs {
		diffs[i] = int64(wide(src[i+l]) - wide(src[i]))
	}
	heads := src[:l]
	if len(src) != len(vals) {
		// The sample's share: heads in proportion, differences sampled
		// as selection samples, len(vals) values in all.
		hk := max(1, min(l, (l*len(vals)+len(src)/2)/len(src)))
		heads = src[:hk]
		m := len(vals) - hk
		runs := 10
		ds := encoding.Sample(diffs, runs, max(1, m/runs)).([]int64)
		diffs = ds[:min(len(ds), m)]
	}
	dst = binary.AppendUvarint(dst, uint64(l))
	dst, err := ctx.EncodeChild(dst, heads)
	if err != nil {
		return dst, err
	}
	return ctx.EncodeChild(dst, diffs)
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
	return nil, encoding.Unsupportedf("lagdelta: type %v", h.Type)
}

// batch is the number of differences a decoder of a type narrower than
// int64 moves through its scratch buffer at a time.
const batch = 2048

// decoder reads a LagDelta node. tail holds the values of rows
// pos-lag .. pos-1 once pos has passed the heads.
type decoder[T encoding.Integer] struct {
	typ         encoding.Type
	n, lag, pos int
	heads, tail []T
	diffs       encoding.Reader[int64]
	dbuf        []int64
	skip        []T
	nodes       []encoding.ChildNode
	nodeBuf     [2]encoding.ChildNode // nodes' storage, inside the decoder
	depth       int
	opts        *encoding.Options
	// periodic: every difference is zero (the differences child bounds
	// them to [0, 0]), so row i holds heads[i mod lag]; reads copy the
	// heads instead of adding differences, and skips only move the cursor.
	periodic bool
}

func openT[T encoding.Integer](h encoding.Header, opts *encoding.Options) (*decoder[T], error) {
	d := &decoder[T]{typ: h.Type, n: h.Rows, depth: h.Depth + 1, opts: opts}
	l, body, err := encoding.Length(h.Body, MaxLag, "lagdelta lag")
	if err != nil {
		return nil, err
	}
	if l < 1 || l >= d.n {
		return nil, encoding.Corruptf("lagdelta: lag %d for %d rows", l, d.n)
	}
	d.lag = l
	hn, body, err := encoding.Child(body, "lagdelta heads")
	if err != nil {
		return nil, err
	}
	dn, body, err := encoding.Child(body, "lagdelta differences")
	if err != nil {
		return nil, err
	}
	if len(body) != 0 {
		return nil, encoding.Corruptf("lagdelta: %d trailing bytes", len(body))
	}
	hr, err := cascade.OpenFixed[T](hn, d.depth, opts, l, "lagdelta heads")
	if err != nil {
		return nil, err
	}
	if d.heads, err = cascade.ReadAll(hr, opts, "lagdelta heads"); err != nil {
		return nil, err
	}
	if d.diffs, err = cascade.OpenFixed[int64](dn, d.depth, opts, d.n-l, "lagdelta differences"); err != nil {
		return nil, err
	}
	if b, ok := d.diffs.(encoding.Bounder[int64]); ok {
		lo, hi, ok := b.Bounds()
		d.periodic = ok && lo == 0 && hi == 0
	}
	if !d.periodic {
		// a periodic node reads every value from the heads: no window
		if err := opts.CheckAlloc(l, encoding.TypeFor[T]().Size(), "lagdelta window"); err != nil {
			return nil, err
		}
		d.tail = make([]T, l)
	}
	d.nodeBuf = [2]encoding.ChildNode{{Role: "heads", Node: hn}, {Role: "differences", Node: dn}}
	d.nodes = d.nodeBuf[:]
	return d, nil
}

func (d *decoder[T]) Kind() encoding.Kind { return encoding.KindLagDelta }
func (d *decoder[T]) Type() encoding.Type { return d.typ }
func (d *decoder[T]) Len() int            { return d.n }
func (d *decoder[T]) Pos() int            { return d.pos }

// Reset moves the cursor back to the first value.
func (d *decoder[T]) Reset() {
	d.pos = 0
	d.diffs.Reset()
}

// Children implements encoding.Walker.
func (d *decoder[T]) Children() []encoding.ChildNode { return d.nodes }

// Period implements encoding.Periodic: the lag when every difference is
// zero, so that row i holds the value of row i-lag; else 0.
func (d *decoder[T]) Period() int {
	if d.periodic {
		return d.lag
	}
	return 0
}

// skipDiffs moves the differences cursor past the differences of rows
// pos .. pos+n-1 (row r >= lag has difference r-lag).
func (d *decoder[T]) skipDiffs(n int) error {
	from, to := max(0, d.pos-d.lag), max(0, d.pos+n-d.lag)
	if err := d.diffs.Skip(to - from); err != nil {
		return fmt.Errorf("lagdelta differences: %w", err)
	}
	return nil
}

// readPeriodic is Read when every difference is zero: the heads from the
// cursor's place in the period, then what dst already holds copied onward
// in doubling spans (each span's length is a multiple of the lag, so the
// copy lands every value on a row of the same phase).
func (d *decoder[T]) readPeriodic(dst []T) error {
	if err := d.skipDiffs(len(dst)); err != nil {
		return err
	}
	off := d.pos % d.lag
	k := copy(dst, d.heads[off:])
	if k < len(dst) {
		k += copy(dst[k:], d.heads[:off])
	}
	for k < len(dst) {
		k += copy(dst[k:], dst[:k])
	}
	d.pos += len(dst)
	return nil
}

// Skip advances the cursor: each value depends on the one a lag earlier,
// so the skipped rows are decoded into scratch (a periodic node only
// moves its cursors).
func (d *decoder[T]) Skip(n int) error {
	if n < 0 || n > d.n-d.pos {
		return encoding.Corruptf("lagdelta: skip %d at %d of %d", n, d.pos, d.n)
	}
	if d.periodic {
		if err := d.skipDiffs(n); err != nil {
			return err
		}
		d.pos += n
		return nil
	}
	if d.skip == nil {
		d.skip = make([]T, min(d.n, batch))
	}
	for n > 0 {
		k := min(n, len(d.skip))
		if err := d.Read(d.skip[:k]); err != nil {
			return err
		}
		n -= k
	}
	return nil
}

// Read decodes len(dst) values: heads are copied, and every later value is
// the difference plus the value lag rows back (in dst, or in tail for the
// first lag rows of a read).
func (d *decoder[T]) Read(dst []T) error {
	if len(dst) > d.n-d.pos {
		return encoding.Corruptf("lagdelta: read %d at %d of %d", len(dst), d.pos, d.n)
	}
	if d.periodic {
		return d.readPeriodic(dst)
	}
	if d.pos < d.lag {
		m := min(len(dst), d.lag-d.pos)
		copy(dst, d.heads[d.pos:d.pos+m])
		d.pos += m
		dst = dst[m:]
		if d.pos == d.lag {
			copy(d.tail, d.heads)
		}
	}
	if len(dst) == 0 {
		return nil
	}
	l, m := d.lag, len(dst)
	if unsafe.Sizeof(dst[0]) == 8 {
		// The differences are read into dst's memory and replaced in place.
		if err := d.diffs.Read(unsafe.Slice((*int64)(unsafe.Pointer(&dst[0])), m)); err != nil {
			return fmt.Errorf("lagdelta differences: %w", err)
		}
		h := min(l, m)
		t := d.tail[:h]
		for i, x := range dst[:h] {
			dst[i] = t[i] + x
		}
		if m > l {
			addLag(dst[l:], dst[:m-l], l)
		}
	} else {
		if d.dbuf == nil {
			d.dbuf = make([]int64, min(batch, d.n))
		}
		for k := 0; k < m; {
			b := min(m-k, len(d.dbuf))
			buf := d.dbuf[:b]
			if err := d.diffs.Read(buf); err != nil {
				return fmt.Errorf("lagdelta differences: %w", err)
			}
			for j, x := range buf {
				i := k + j
				if i < l {
					dst[i] = d.tail[i] + T(x)
				} else {
					dst[i] = dst[i-l] + T(x)
				}
			}
			k += b
		}
	}
	if m >= l {
		copy(d.tail, dst[m-l:])
	} else {
		copy(d.tail, d.tail[m:])
		copy(d.tail[l-m:], dst)
	}
	d.pos += m
	return nil
}

// addLag adds prev[i] to out[i] for every i, wrapping; out and prev are
// the same buffer a lag apart, out after prev, so prev[i] is final when it
// is read. 64-bit values go through the AVX2 kernel where the lag is at
// least asmMinLag: four lanes need a lag of 4, and a lag that is no
// multiple of 4 below 16 would make each 32-byte load straddle two stores
// still in flight, which the store buffer cannot forward.
func addLag[T encoding.Integer](out, prev []T, lag int) {
	prev = prev[:len(out)]
	k := 0
	if useAsm && unsafe.Sizeof(out[0]) == 8 && (lag >= asmMinLag || lag%4 == 0) {
		if k = len(out) &^ 3; k > 0 {
			addLag64AVX2((*uint64)(unsafe.Pointer(&out[0])), (*uint64)(unsafe.Pointer(&prev[0])), k)
		}
	}
	out, prev = out[k:], prev[k:]
	for i := range out {
		out[i] += prev[i]
	}
}

// asmMinLag is the least lag the AVX2 kernel takes when it is no multiple
// of 4 (see addLag).
const asmMinLag = 16
