package encodingtest

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"strata/encoding"
)

// The checks below compare every read path of a decoder with the values it
// must hold, value by value: the cursor (Read, Skip and ReadNullable in
// random interleavings, after Reset, past the end), Gather, Bounds,
// Filter, and the views (runs, dictionary ids). They return an error
// instead of failing a test so that the fuzz targets can tell a decoder
// that refuses a hostile node (an error wrapping a sentinel) from one that
// returns wrong values (a *Mismatch).

// Mismatch reports values that differ from the reference. It never wraps
// a sentinel, so fuzz targets treat it as a failure.
type Mismatch struct{ Msg string }

func (m *Mismatch) Error() string { return m.Msg }

func mismatchf(format string, args ...any) error {
	return &Mismatch{Msg: fmt.Sprintf(format, args...)}
}

// checker carries the options of one check.
type checker struct {
	rng *rand.Rand
	// lenient is set for nodes of unknown origin (fuzzing): the values
	// read once are the reference, so the other read paths must agree with
	// them, but header-level answers (Bounds, Filter, matching ids) are
	// only exercised, because a hostile header may declare bounds its
	// values do not keep.
	lenient bool
}

func newChecker(seed uint64, lenient bool) *checker {
	return &checker{rng: rand.New(rand.NewPCG(seed, 99)), lenient: lenient}
}

// step returns a random read size of at most left.
func (c *checker) step(left int) int {
	return 1 + c.rng.IntN(min(left, []int{1, 7, 64, 1000, 5000}[c.rng.IntN(5)]))
}

// rows returns a sorted, strictly increasing random subset of [0, n).
func (c *checker) rows(n int) []int32 {
	var rows []int32
	gap := 1 + c.rng.IntN(50)
	for i := c.rng.IntN(3); i < n; i += 1 + c.rng.IntN(gap) {
		rows = append(rows, int32(i))
	}
	if n > 0 && c.rng.IntN(2) == 0 && (len(rows) == 0 || rows[len(rows)-1] != int32(n-1)) {
		rows = append(rows, int32(n-1))
	}
	return rows
}

// Same reports whether two values are identical, bit for bit for floats.
func Same[T encoding.Fixed](a, b T) bool {
	switch x := any(a).(type) {
	case float32:
		return math.Float32bits(x) == math.Float32bits(any(b).(float32))
	case float64:
		return math.Float64bits(x) == math.Float64bits(any(b).(float64))
	}
	return a == b
}

func isNaN[T encoding.Fixed](v T) bool { return v != v }

// checkFixed checks r against want; valid is nil when no value is null,
// else want holds zero values at null rows.
func checkFixed[T encoding.Fixed](c *checker, r encoding.Reader[T], want []T, valid []bool) error {
	n := len(want)
	if r.Len() != n {
		return mismatchf("Len = %d, want %d", r.Len(), n)
	}
	same := func(got []T, at int, what string) error {
		for i := range got {
			if !Same(got[i], want[at+i]) {
				return mismatchf("%s: value %d = %v, want %v", what, at+i, got[i], want[at+i])
			}
		}
		return nil
	}
	// One read of everything, then random interleavings of Skip, Read and
	// ReadNullable, twice (Reset must return to the start).
	r.Reset()
	if r.Pos() != 0 {
		return mismatchf("Pos after Reset = %d", r.Pos())
	}
	got := make([]T, n)
	if err := r.Read(got); err != nil {
		return fmt.Errorf("Read(%d): %w", n, err)
	}
	if err := same(got, 0, "Read all"); err != nil {
		return err
	}
	if err := r.Read(make([]T, 1)); err == nil {
		return mismatchf("Read past the end returned no error")
	}
	for pass := 0; pass < 2; pass++ {
		r.Reset()
		for pos := 0; pos < n; {
			k := c.step(n - pos)
			switch c.rng.IntN(3) {
			case 0:
				if err := r.Skip(k); err != nil {
					return fmt.Errorf("Skip(%d) at %d: %w", k, pos, err)
				}
			case 1:
				buf := make([]T, k)
				if err := r.Read(buf); err != nil {
					return fmt.Errorf("Read(%d) at %d: %w", k, pos, err)
				}
				if err := same(buf, pos, fmt.Sprintf("Read(%d) at %d", k, pos)); err != nil {
					return err
				}
			default:
				buf, vb := make([]T, k), make([]bool, k)
				if err := encoding.ReadNullable(r, buf, vb); err != nil {
					return fmt.Errorf("ReadNullable(%d) at %d: %w", k, pos, err)
				}
				if err := same(buf, pos, fmt.Sprintf("ReadNullable(%d) at %d", k, pos)); err != nil {
					return err
				}
				for i, v := range vb {
					if v != (valid == nil || valid[pos+i]) {
						return mismatchf("ReadNullable at %d: row %d valid = %v", pos, pos+i, v)
					}
				}
			}
			pos += k
			if r.Pos() != pos {
				return mismatchf("Pos = %d after %d rows", r.Pos(), pos)
			}
		}
	}
	r.Reset()
	if err := r.Skip(n + 1); err == nil {
		return mismatchf("Skip past the end returned no error")
	}
	if err := gatherFixed(c, r, want); err != nil {
		return err
	}
	if err := checkNumber(c, r, want, valid); err != nil {
		return err
	}
	if err := checkDiffs(c, r, want); err != nil {
		return err
	}
	if valid == nil {
		if err := checkRuns(c, r, want); err != nil {
			return err
		}
		if err := checkDictNumber(c, r, want); err != nil {
			return err
		}
	}
	r.Reset()
	return nil
}

// gatherFixed checks Gather, which must not move the cursor.
func gatherFixed[T encoding.Fixed](c *checker, r encoding.Reader[T], want []T) error {
	g, ok := r.(encoding.Gatherer[T])
	if !ok {
		return nil
	}
	n := len(want)
	if err := g.Gather(nil, nil); err != nil {
		return fmt.Errorf("Gather of no rows: %w", err)
	}
	if err := g.Gather([]int32{int32(n)}, make([]T, 1)); err == nil {
		return mismatchf("Gather of row %d of %d returned no error", n, n)
	}
	for trial := 0; trial < 3; trial++ {
		// Park the cursor somewhere, gather, then check it did not move.
		r.Reset()
		at := 0
		if n > 0 {
			at = c.rng.IntN(n)
		}
		if err := r.Skip(at); err != nil {
			return fmt.Errorf("Skip(%d): %w", at, err)
		}
		rows := c.rows(n)
		got := make([]T, len(rows))
		if err := g.Gather(rows, got); err != nil {
			return fmt.Errorf("Gather(%d rows): %w", len(rows), err)
		}
		for i, row := range rows {
			if !Same(got[i], want[row]) {
				return mismatchf("Gather: row %d = %v, want %v", row, got[i], want[row])
			}
		}
		if r.Pos() != at {
			return mismatchf("Gather moved the cursor from %d to %d", at, r.Pos())
		}
		if at < n {
			one := make([]T, 1)
			if err := r.Read(one); err != nil {
				return fmt.Errorf("Read after Gather: %w", err)
			}
			if !Same(one[0], want[at]) {
				return mismatchf("Read after Gather: row %d = %v, want %v", at, one[0], want[at])
			}
		}
	}
	return nil
}

// checkDiffs checks ReadDiffs of decoders that are DiffReaders: runs
// summed from their base must give the values, interleaved with Skip and
// Read.
func checkDiffs[T encoding.Fixed](c *checker, r encoding.Reader[T], want []T) error {
	switch w := any(want).(type) {
	case []int8:
		return diffCaps(c, r, w)
	case []int16:
		return diffCaps(c, r, w)
	case []int32:
		return diffCaps(c, r, w)
	case []int64:
		return diffCaps(c, r, w)
	case []uint8:
		return diffCaps(c, r, w)
	case []uint16:
		return diffCaps(c, r, w)
	case []uint32:
		return diffCaps(c, r, w)
	case []uint64:
		return diffCaps(c, r, w)
	}
	return nil
}

func diffCaps[I encoding.Integer](c *checker, d encoding.Decoder, want []I) error {
	if err := sumRanges(c, d, want); err != nil {
		return err
	}
	dr, ok := d.(encoding.DiffReader[I])
	if !ok {
		return nil
	}
	r := d.(encoding.Reader[I])
	n := len(want)
	sum := func(out, src []I, base I) I {
		if len(src) != len(out) {
			panic(fmt.Sprintf("ReadDiffs: run of %d rows with %d differences", len(out), len(src)))
		}
		for i, x := range src {
			base += x
			out[i] = base
		}
		return base
	}
	for pass := 0; pass < 2; pass++ {
		r.Reset()
		for pos := 0; pos < n; {
			k := c.step(n - pos)
			buf := make([]I, k)
			switch c.rng.IntN(3) {
			case 0:
				if err := r.Skip(k); err != nil {
					return fmt.Errorf("Skip(%d) at %d: %w", k, pos, err)
				}
				copy(buf, want[pos:])
			case 1:
				if err := dr.ReadDiffs(buf, sum); err != nil {
					return fmt.Errorf("ReadDiffs(%d) at %d: %w", k, pos, err)
				}
			default:
				if err := r.Read(buf); err != nil {
					return fmt.Errorf("Read(%d) at %d: %w", k, pos, err)
				}
			}
			for i, v := range buf {
				if v != want[pos+i] {
					return mismatchf("ReadDiffs pass: row %d = %v, want %v", pos+i, v, want[pos+i])
				}
			}
			pos += k
			if r.Pos() != pos {
				return mismatchf("Pos = %d after %d rows (ReadDiffs pass)", r.Pos(), pos)
			}
		}
	}
	if err := dr.ReadDiffs(make([]I, 1), sum); err == nil {
		return mismatchf("ReadDiffs past the end returned no error")
	}
	return nil
}

// sumRanges checks SumRanges of decoders that are RangeSummers against the
// widened values added one by one, over random cuts (empty ranges, whole
// ones and ones at either end included), and that it leaves the cursor
// where it was and refuses ranges outside the node or out of order.
func sumRanges[I encoding.Integer](c *checker, d encoding.Decoder, want []I) error {
	s, ok := d.(encoding.RangeSummer)
	if !ok {
		return nil
	}
	n := len(want)
	out := make([]uint64, 8)
	for _, bad := range []struct {
		from int
		ends []int32
	}{{-1, []int32{0}}, {0, []int32{int32(n + 1)}}, {n + 1, nil}, {0, []int32{int32(n), int32(n - 1)}}} {
		if err := s.SumRanges(bad.from, bad.ends, out); err == nil {
			return mismatchf("SumRanges(%d, %v) of %d rows returned no error", bad.from, bad.ends, n)
		}
	}
	at := d.Pos()
	for trial := 0; trial < 16; trial++ {
		from := 0
		var ends []int32
		if trial == 0 {
			ends = []int32{int32(n)}
		} else {
			from = c.rng.IntN(n + 1)
			e := from
			for k := c.rng.IntN(6); k >= 0; k-- {
				e += c.rng.IntN(min(n-e, []int{0, 3, 70, 1100, n}[c.rng.IntN(5)]) + 1)
				ends = append(ends, int32(e))
			}
		}
		if err := s.SumRanges(from, ends, out); err != nil {
			return fmt.Errorf("SumRanges(%d, %v): %w", from, ends, err)
		}
		r := from
		for i, e := range ends {
			var w uint64
			for _, v := range want[r:e] {
				w += uint64(int64(v))
			}
			if out[i] != w {
				return mismatchf("SumRanges(%d, %v): sum %d of [%d, %d) = %d, want %d", from, ends, i, r, e, out[i], w)
			}
			r = int(e)
		}
	}
	if d.Pos() != at {
		return mismatchf("SumRanges moved the cursor from %d to %d", at, d.Pos())
	}
	return nil
}

// checkNumber checks Bounds and Filter of numeric decoders.
func checkNumber[T encoding.Fixed](c *checker, r encoding.Reader[T], want []T, valid []bool) error {
	switch w := any(want).(type) {
	case []int8:
		return numberCaps(c, r, w, valid)
	case []int16:
		return numberCaps(c, r, w, valid)
	case []int32:
		return numberCaps(c, r, w, valid)
	case []int64:
		return numberCaps(c, r, w, valid)
	case []uint8:
		return numberCaps(c, r, w, valid)
	case []uint16:
		return numberCaps(c, r, w, valid)
	case []uint32:
		return numberCaps(c, r, w, valid)
	case []uint64:
		return numberCaps(c, r, w, valid)
	case []float32:
		return numberCaps(c, r, w, valid)
	case []float64:
		return numberCaps(c, r, w, valid)
	}
	return nil
}

// operands returns predicate operands for want: values of it, the type's
// extremes (NaN, ±Inf and ±0 for floats) and neighbours of its bounds.
func operands[T encoding.Number](c *checker, want []T) []T {
	ops := extremeValues[T]()
	for k := 0; k < 6 && len(want) > 0; k++ {
		ops = append(ops, want[c.rng.IntN(len(want))])
	}
	if len(want) > 0 {
		v := want[c.rng.IntN(len(want))]
		ops = append(ops, v+1, v-1)
	}
	return ops
}

// preds returns predicates of every operator over the operands.
func preds[T encoding.Number](c *checker, ops []T) []*encoding.Pred[T] {
	pick := func() T { return ops[c.rng.IntN(len(ops))] }
	var out []*encoding.Pred[T]
	for op := encoding.OpEq; op <= encoding.OpIn; op++ {
		for k := 0; k < 2; k++ {
			p := &encoding.Pred[T]{Op: op, A: pick(), B: pick()}
			if p.B < p.A {
				p.A, p.B = p.B, p.A
			}
			if op == encoding.OpIn {
				for j := 0; j < 1+c.rng.IntN(5); j++ {
					if v := pick(); v == v { // a NaN has no place in a sorted set
						p.Set = append(p.Set, v)
					}
				}
				slices.Sort(p.Set)
				p.Set = slices.Compact(p.Set)
			}
			out = append(out, p)
		}
	}
	return out
}

// checkBlocks checks the BlockBounder contract: the blocks are
// consecutive and cover the node, even for nodes of unknown origin (the
// time-series reader skips to a block's first row and sizes reads by its
// row count), and every value of a node the suite wrote lies within its
// block's bounds.
func checkBlocks[T encoding.Number](c *checker, bb encoding.BlockBounder[T], want []T, valid []bool) error {
	next := 0
	for b := 0; b < bb.Blocks(); b++ {
		first, rows, lo, hi := bb.BlockBounds(b)
		if first != next || rows < 0 || rows > len(want)-first {
			return mismatchf("block %d: rows [%d, +%d) after row %d of %d", b, first, rows, next, len(want))
		}
		next = first + rows
		for i := first; i < next && !c.lenient; i++ {
			if v := want[i]; (valid == nil || valid[i]) && !isNaN(v) && (v < lo || v > hi) {
				return mismatchf("value %d = %v outside block %d's bounds [%v, %v]", i, v, b, lo, hi)
			}
		}
	}
	if next != len(want) {
		return mismatchf("%d blocks cover %d of %d rows", bb.Blocks(), next, len(want))
	}
	return nil
}

func numberCaps[T encoding.Number](c *checker, r any, want []T, valid []bool) error {
	if b, ok := r.(encoding.Bounder[T]); ok {
		mn, mx, ok := b.Bounds()
		if ok && !c.lenient {
			for i, v := range want {
				if (valid == nil || valid[i]) && !isNaN(v) && (v < mn || v > mx) {
					return mismatchf("value %d = %v outside Bounds [%v, %v]", i, v, mn, mx)
				}
			}
		}
	}
	if bb, ok := r.(encoding.BlockBounder[T]); ok {
		if err := checkBlocks(c, bb, want, valid); err != nil {
			return err
		}
	}
	f, ok := r.(encoding.Filterer[T])
	if !ok || len(want) == 0 {
		return nil
	}
	dec := r.(encoding.Reader[T])
	for i, p := range preds(c, operands(c, want)) {
		// From a random start over a random span, with a sparse incoming
		// selection every other time.
		start := c.rng.IntN(len(want))
		n := 1 + c.rng.IntN(len(want)-start)
		if i%3 == 0 {
			start, n = 0, len(want)
		}
		sel := encoding.NewBitmap(n, true)
		if i%2 == 1 {
			for j := 0; j < n; j++ {
				if c.rng.IntN(3) == 0 {
					sel.Clear(j)
				}
			}
		}
		in := slices.Clone(sel)
		dec.Reset()
		if err := dec.Skip(start); err != nil {
			return fmt.Errorf("Skip(%d): %w", start, err)
		}
		if err := f.Filter(p, n, sel); err != nil {
			return fmt.Errorf("Filter %v %v/%v: %w", p.Op, p.A, p.B, err)
		}
		if dec.Pos() != start+n {
			return mismatchf("Pos after Filter = %d, want %d", dec.Pos(), start+n)
		}
		if start+n < len(want) {
			next := make([]T, 1)
			if err := dec.Read(next); err != nil {
				return fmt.Errorf("Read after Filter to row %d: %w", start+n, err)
			}
			if !Same(next[0], want[start+n]) {
				return mismatchf("Read after Filter: row %d = %v, want %v", start+n, next[0], want[start+n])
			}
		}
		if c.lenient {
			continue
		}
		for j := 0; j < n; j++ {
			row := start + j
			exp := in.Get(j) && (valid == nil || valid[row]) && p.Match(want[row])
			if sel.Get(j) != exp {
				return mismatchf("Filter %v %v/%v %v at row %d (value %v, selected before %v): got %v, want %v",
					p.Op, p.A, p.B, p.Set, row, want[row], in.Get(j), sel.Get(j), exp)
			}
		}
	}
	dec.Reset()
	return nil
}

// checkRuns checks the run view against want.
func checkRuns[T encoding.Fixed](c *checker, r encoding.Reader[T], want []T) error {
	rr, ok := r.(encoding.RunReader[T])
	if !ok {
		return nil
	}
	lengths, values := rr.Runs()
	if len(lengths) != len(values) {
		return mismatchf("Runs: %d lengths, %d values", len(lengths), len(values))
	}
	if err := sameRuns(lengths, values, want, 0); err != nil {
		return fmt.Errorf("Runs: %w", err)
	}
	n := len(want)
	for trial := 0; trial < 3 && n > 0; trial++ {
		r.Reset()
		at := c.rng.IntN(n)
		k := 1 + c.rng.IntN(n-at)
		if err := r.Skip(at); err != nil {
			return fmt.Errorf("Skip(%d): %w", at, err)
		}
		l, v, err := rr.AppendRuns(nil, nil, k)
		if err != nil {
			return fmt.Errorf("AppendRuns(%d) at %d: %w", k, at, err)
		}
		if err := sameRuns(l, v, want[at:at+k], at); err != nil {
			return fmt.Errorf("AppendRuns(%d) at %d: %w", k, at, err)
		}
		if r.Pos() != at+k {
			return mismatchf("Pos after AppendRuns = %d, want %d", r.Pos(), at+k)
		}
	}
	return nil
}

func sameRuns[T encoding.Fixed](lengths []uint32, values []T, want []T, at int) error {
	pos := 0
	for i, l := range lengths {
		if l == 0 {
			return mismatchf("run %d is empty", i)
		}
		for j := 0; j < int(l); j++ {
			if pos >= len(want) {
				return mismatchf("runs cover more than %d rows", len(want))
			}
			if !Same(values[i], want[pos]) {
				return mismatchf("row %d = %v (run %d), want %v", at+pos, values[i], i, want[pos])
			}
			pos++
		}
	}
	if pos != len(want) {
		return mismatchf("runs cover %d of %d rows", pos, len(want))
	}
	return nil
}

// dictLess is the order of a dictionary's alphabet: numeric, with -0
// before +0, then NaNs by bit pattern.
func dictLess[T encoding.Number](a, b T) bool {
	an, bn := isNaN(a), isNaN(b)
	switch {
	case an && bn:
		return floatBits(a) < floatBits(b)
	case an || bn:
		return bn
	case a == b && a == 0:
		return math.Signbit(float64(a)) && !math.Signbit(float64(b))
	}
	return a < b
}

func floatBits[T encoding.Number](v T) uint64 {
	switch x := any(v).(type) {
	case float32:
		return uint64(math.Float32bits(x))
	case float64:
		return math.Float64bits(x)
	}
	return 0
}

func checkDictNumber[T encoding.Fixed](c *checker, r encoding.Reader[T], want []T) error {
	switch w := any(want).(type) {
	case []int8:
		return checkDict(c, r, w)
	case []int16:
		return checkDict(c, r, w)
	case []int32:
		return checkDict(c, r, w)
	case []int64:
		return checkDict(c, r, w)
	case []uint8:
		return checkDict(c, r, w)
	case []uint16:
		return checkDict(c, r, w)
	case []uint32:
		return checkDict(c, r, w)
	case []uint64:
		return checkDict(c, r, w)
	case []float32:
		return checkDict(c, r, w)
	case []float64:
		return checkDict(c, r, w)
	}
	return nil
}

// checkDict checks the dictionary view against want: a strictly increasing
// alphabet, ids that map to the values, and matching ids that are exactly
// the entries a predicate matches.
func checkDict[T encoding.Number](c *checker, r any, want []T) error {
	d, ok := r.(encoding.Dictionary[T])
	if !ok {
		return nil
	}
	alpha := d.Alphabet()
	if d.AlphabetLen() != len(alpha) {
		return mismatchf("AlphabetLen = %d, alphabet holds %d", d.AlphabetLen(), len(alpha))
	}
	for i := 1; i < len(alpha) && !c.lenient; i++ {
		if !dictLess(alpha[i-1], alpha[i]) {
			return mismatchf("alphabet entry %d (%v) not above entry %d (%v)", i, alpha[i], i-1, alpha[i-1])
		}
	}
	ids := make([]uint32, len(want))
	if err := checkIDs(c, r.(encoding.Decoder), d, ids); err != nil {
		return err
	}
	for i, id := range ids {
		if int(id) >= len(alpha) || !Same(alpha[id], want[i]) {
			return mismatchf("id %d of row %d does not name its value %v", id, i, want[i])
		}
	}
	for _, p := range preds(c, operands(c, want)) {
		lo, hi, set := d.MatchingIDs(p)
		if c.lenient {
			continue
		}
		for id, v := range alpha {
			in := uint32(id) >= lo && uint32(id) < hi
			if set != nil {
				in = id < len(set)*64 && set.Get(id)
			}
			if in != p.Match(v) {
				return mismatchf("MatchingIDs %v %v/%v %v: entry %d (%v) matched = %v", p.Op, p.A, p.B, p.Set, id, v, in)
			}
		}
	}
	return nil
}

// checkIDs reads every id from the start and gathers a few, which must
// agree.
func checkIDs(c *checker, dec encoding.Decoder, d encoding.IDReader, ids []uint32) error {
	dec.Reset()
	if err := d.ReadIDs(ids); err != nil {
		return fmt.Errorf("ReadIDs: %w", err)
	}
	if dec.Pos() != len(ids) {
		return mismatchf("Pos after ReadIDs = %d, want %d", dec.Pos(), len(ids))
	}
	rows := c.rows(len(ids))
	got := make([]uint32, len(rows))
	if err := d.GatherIDs(rows, got); err != nil {
		return fmt.Errorf("GatherIDs: %w", err)
	}
	for i, row := range rows {
		if got[i] != ids[row] {
			return mismatchf("GatherIDs: row %d id %d, ReadIDs %d", row, got[i], ids[row])
		}
	}
	dec.Reset()
	return nil
}

// checkBinary checks r against want; valid is nil when no value is null,
// else want holds empty values at null rows.
func checkBinary(c *checker, r encoding.BinaryReader, want *encoding.Bytes, valid []bool) error {
	n := want.Len()
	if r.Len() != n {
		return mismatchf("Len = %d, want %d", r.Len(), n)
	}
	same := func(got *encoding.Bytes, from, at, k int, what string) error {
		if got.Len() != from+k {
			return mismatchf("%s appended %d values, want %d", what, got.Len()-from, k)
		}
		if err := WellFormed(got, got.Len()); err != nil {
			return mismatchf("%s: %v", what, err)
		}
		for i := 0; i < k; i++ {
			if !bytes.Equal(got.Value(from+i), want.Value(at+i)) {
				return mismatchf("%s: value %d = %q, want %q", what, at+i, got.Value(from+i), want.Value(at+i))
			}
		}
		return nil
	}
	r.Reset()
	var all encoding.Bytes
	if err := r.ReadBinary(&all, n); err != nil {
		return fmt.Errorf("ReadBinary(%d): %w", n, err)
	}
	if err := same(&all, 0, 0, n, "ReadBinary all"); err != nil {
		return err
	}
	if err := r.ReadBinary(&all, 1); err == nil {
		return mismatchf("ReadBinary past the end returned no error")
	}
	for pass := 0; pass < 2; pass++ {
		r.Reset()
		// Values are appended after what the buffer already holds.
		var got encoding.Bytes
		got.Append([]byte("sentinel"))
		for pos := 0; pos < n; {
			k := c.step(n - pos)
			from := got.Len()
			switch c.rng.IntN(3) {
			case 0:
				if err := r.Skip(k); err != nil {
					return fmt.Errorf("Skip(%d) at %d: %w", k, pos, err)
				}
			case 1:
				if err := r.ReadBinary(&got, k); err != nil {
					return fmt.Errorf("ReadBinary(%d) at %d: %w", k, pos, err)
				}
				if err := same(&got, from, pos, k, fmt.Sprintf("ReadBinary(%d) at %d", k, pos)); err != nil {
					return err
				}
			default:
				vb := make([]bool, k)
				if err := encoding.ReadBinaryNullable(r, &got, vb, k); err != nil {
					return fmt.Errorf("ReadBinaryNullable(%d) at %d: %w", k, pos, err)
				}
				if err := same(&got, from, pos, k, fmt.Sprintf("ReadBinaryNullable(%d) at %d", k, pos)); err != nil {
					return err
				}
				for i, v := range vb {
					if v != (valid == nil || valid[pos+i]) {
						return mismatchf("ReadBinaryNullable at %d: row %d valid = %v", pos, pos+i, v)
					}
				}
			}
			pos += k
			if r.Pos() != pos {
				return mismatchf("Pos = %d after %d rows", r.Pos(), pos)
			}
		}
	}
	r.Reset()
	if err := r.Skip(n + 1); err == nil {
		return mismatchf("Skip past the end returned no error")
	}
	if g, ok := r.(encoding.BinaryGatherer); ok {
		if err := g.GatherBinary([]int32{int32(n)}, &encoding.Bytes{}); err == nil {
			return mismatchf("GatherBinary of row %d of %d returned no error", n, n)
		}
		for trial := 0; trial < 3; trial++ {
			r.Reset()
			at := 0
			if n > 0 {
				at = c.rng.IntN(n)
			}
			if err := r.Skip(at); err != nil {
				return fmt.Errorf("Skip(%d): %w", at, err)
			}
			rows := c.rows(n)
			var got encoding.Bytes
			got.Append([]byte("sentinel"))
			if err := g.GatherBinary(rows, &got); err != nil {
				return fmt.Errorf("GatherBinary(%d rows): %w", len(rows), err)
			}
			if got.Len() != 1+len(rows) || WellFormed(&got, got.Len()) != nil {
				return mismatchf("GatherBinary of %d rows appended %d values", len(rows), got.Len()-1)
			}
			for i, row := range rows {
				if !bytes.Equal(got.Value(1+i), want.Value(int(row))) {
					return mismatchf("GatherBinary: row %d = %q, want %q", row, got.Value(1+i), want.Value(int(row)))
				}
			}
			if r.Pos() != at {
				return mismatchf("GatherBinary moved the cursor from %d to %d", at, r.Pos())
			}
		}
	}
	if b, ok := r.(encoding.BinaryBounder); ok {
		mn, mx, ok := b.BinaryBounds()
		if ok && !c.lenient {
			for i := 0; i < n; i++ {
				v := want.Value(i)
				if (valid == nil || valid[i]) && (bytes.Compare(v, mn) < 0 || bytes.Compare(v, mx) > 0) {
					return mismatchf("value %d = %q outside bounds [%q, %q]", i, v, mn, mx)
				}
			}
		}
	}
	if err := filterBinary(c, r, want, valid); err != nil {
		return err
	}
	if valid == nil {
		if err := checkBinaryViews(c, r, want); err != nil {
			return err
		}
	}
	r.Reset()
	return nil
}

// binaryPreds returns predicates of every operator over values of want,
// shortened and extended values, and the empty value.
func binaryPreds(c *checker, want *encoding.Bytes) []*encoding.BytesPred {
	n := want.Len()
	var ops [][]byte
	ops = append(ops, nil, []byte{0xff, 0xff})
	for k := 0; k < 6 && n > 0; k++ {
		v := want.Value(c.rng.IntN(n))
		ops = append(ops, v)
		if len(v) > 0 {
			ops = append(ops, v[:c.rng.IntN(len(v))])
		}
		ops = append(ops, append(slices.Clone(v), 'a'))
	}
	pick := func() []byte { return ops[c.rng.IntN(len(ops))] }
	var out []*encoding.BytesPred
	for op := encoding.OpEq; op <= encoding.OpPrefix; op++ {
		for k := 0; k < 2; k++ {
			p := &encoding.BytesPred{Op: op, A: pick(), B: pick()}
			if bytes.Compare(p.B, p.A) < 0 {
				p.A, p.B = p.B, p.A
			}
			if op == encoding.OpIn {
				for j := 0; j < 1+c.rng.IntN(4); j++ {
					p.Set = append(p.Set, pick())
				}
				slices.SortFunc(p.Set, bytes.Compare)
				p.Set = slices.CompactFunc(p.Set, bytes.Equal)
			}
			out = append(out, p)
		}
	}
	return out
}

func filterBinary(c *checker, r encoding.BinaryReader, want *encoding.Bytes, valid []bool) error {
	if _, ok := r.(encoding.BinaryFilterer); !ok || want.Len() == 0 {
		return nil
	}
	return filterBinaryPreds(c, r, want, valid, binaryPreds(c, want))
}

// filterBinaryPreds runs each predicate over a random span (every third
// over all rows) with a sparse incoming selection every other time, checks
// the selection against BytesPred.Match and the cursor after the span, and
// reads the row after the span.
func filterBinaryPreds(c *checker, r encoding.BinaryReader, want *encoding.Bytes, valid []bool, preds []*encoding.BytesPred) error {
	f, ok := r.(encoding.BinaryFilterer)
	n := want.Len()
	if !ok || n == 0 {
		return nil
	}
	for i, p := range preds {
		start := c.rng.IntN(n)
		k := 1 + c.rng.IntN(n-start)
		if i%3 == 0 {
			start, k = 0, n
		}
		sel := encoding.NewBitmap(k, true)
		if i%2 == 1 {
			for j := 0; j < k; j++ {
				if c.rng.IntN(3) == 0 {
					sel.Clear(j)
				}
			}
		}
		in := slices.Clone(sel)
		r.Reset()
		if err := r.Skip(start); err != nil {
			return fmt.Errorf("Skip(%d): %w", start, err)
		}
		if err := f.FilterBinary(p, k, sel); err != nil {
			return fmt.Errorf("FilterBinary %v %q: %w", p.Op, p.A, err)
		}
		if r.Pos() != start+k {
			return mismatchf("Pos after FilterBinary = %d, want %d", r.Pos(), start+k)
		}
		if start+k < n {
			var next encoding.Bytes
			if err := r.ReadBinary(&next, 1); err != nil {
				return fmt.Errorf("ReadBinary after FilterBinary to row %d: %w", start+k, err)
			}
			if !bytes.Equal(next.Value(0), want.Value(start+k)) {
				return mismatchf("ReadBinary after FilterBinary: row %d = %q, want %q", start+k, next.Value(0), want.Value(start+k))
			}
		}
		if c.lenient {
			continue
		}
		for j := 0; j < k; j++ {
			row := start + j
			exp := in.Get(j) && (valid == nil || valid[row]) && p.Match(want.Value(row))
			if sel.Get(j) != exp {
				return mismatchf("FilterBinary %v %q/%q %q at row %d (%q, selected before %v): got %v, want %v",
					p.Op, p.A, p.B, p.Set, row, want.Value(row), in.Get(j), sel.Get(j), exp)
			}
		}
	}
	return nil
}

// checkBinaryViews checks the binary run and dictionary views.
func checkBinaryViews(c *checker, r encoding.BinaryReader, want *encoding.Bytes) error {
	n := want.Len()
	if rr, ok := r.(encoding.BinaryRunReader); ok {
		lengths, values := rr.BinaryRuns()
		if len(lengths) != values.Len() {
			return mismatchf("BinaryRuns: %d lengths, %d values", len(lengths), values.Len())
		}
		pos := 0
		for i, l := range lengths {
			if l == 0 || pos+int(l) > n {
				return mismatchf("BinaryRuns: run %d of %d rows at row %d of %d", i, l, pos, n)
			}
			for j := 0; j < int(l); j++ {
				if !bytes.Equal(values.Value(i), want.Value(pos)) {
					return mismatchf("BinaryRuns: row %d = %q, want %q", pos, values.Value(i), want.Value(pos))
				}
				pos++
			}
		}
		if pos != n {
			return mismatchf("BinaryRuns cover %d of %d rows", pos, n)
		}
	}
	d, ok := r.(encoding.BinaryDictionary)
	if !ok {
		return nil
	}
	alpha := d.BinaryAlphabet()
	if d.AlphabetLen() != alpha.Len() {
		return mismatchf("AlphabetLen = %d, alphabet holds %d", d.AlphabetLen(), alpha.Len())
	}
	for i := 1; i < alpha.Len() && !c.lenient; i++ {
		if bytes.Compare(alpha.Value(i-1), alpha.Value(i)) >= 0 {
			return mismatchf("alphabet entry %d (%q) not above entry %d (%q)", i, alpha.Value(i), i-1, alpha.Value(i-1))
		}
	}
	ids := make([]uint32, n)
	if err := checkIDs(c, r, d, ids); err != nil {
		return err
	}
	for i, id := range ids {
		if int(id) >= alpha.Len() || !bytes.Equal(alpha.Value(int(id)), want.Value(i)) {
			return mismatchf("id %d of row %d does not name its value %q", id, i, want.Value(i))
		}
	}
	for _, p := range binaryPreds(c, want) {
		lo, hi, set := d.MatchingBinaryIDs(p)
		if c.lenient {
			continue
		}
		for id := 0; id < alpha.Len(); id++ {
			in := uint32(id) >= lo && uint32(id) < hi
			if set != nil {
				in = id < len(set)*64 && set.Get(id)
			}
			if in != p.Match(alpha.Value(id)) {
				return mismatchf("MatchingBinaryIDs %v %q/%q: entry %d (%q) matched = %v", p.Op, p.A, p.B, id, alpha.Value(id), in)
			}
		}
	}
	return nil
}

// checkNode opens node and checks it against vals (a []T or Bytes) with
// validity valid (nil: no nulls; then len(valid) rows of which the valid
// ones hold vals in order).
func checkNode(c *checker, node []byte, opts *encoding.Options, vals any, valid []bool) error {
	d, err := encoding.Open(node, opts)
	if err != nil {
		return fmt.Errorf("Open: %w", err)
	}
	want := expand(vals, valid)
	if d.Type() != encoding.TypeOf(vals) {
		return mismatchf("node holds %v, want %v", d.Type(), encoding.TypeOf(vals))
	}
	if err := checkDecoder(c, d, want, valid); err != nil {
		return err
	}
	if opts != nil && opts.Alloc != nil {
		return nil
	}
	// A reader that recycles memory (point lookups) opens nodes with an
	// Alloc whose buffers hold what an earlier decoder left in them: the
	// decoder must not rely on zeroed memory.
	o := encoding.Options{}
	if opts != nil {
		o = *opts
	}
	o.Alloc = dirtyAlloc
	d, err = encoding.Open(node, &o)
	if err != nil {
		return fmt.Errorf("Open with recycled memory: %w", err)
	}
	if err := checkDecoder(c, d, want, valid); err != nil {
		return fmt.Errorf("with recycled memory: %w", err)
	}
	return nil
}

// dirtyAlloc hands out buffers filled with a pattern, as recycled memory
// would be.
func dirtyAlloc(n int) []byte {
	b := make([]byte, n+n/4)
	for i := range b {
		b[i] = byte(0xa5 ^ i)
	}
	return b[:n]
}

// checkDecoder dispatches on the type of want.
func checkDecoder(c *checker, d encoding.Decoder, want any, valid []bool) error {
	if err := checkDecodeSpan(c, d); err != nil {
		return err
	}
	switch w := want.(type) {
	case []bool:
		return checkTyped(c, d, w, valid)
	case []int8:
		return checkTyped(c, d, w, valid)
	case []int16:
		return checkTyped(c, d, w, valid)
	case []int32:
		return checkTyped(c, d, w, valid)
	case []int64:
		return checkTyped(c, d, w, valid)
	case []uint8:
		return checkTyped(c, d, w, valid)
	case []uint16:
		return checkTyped(c, d, w, valid)
	case []uint32:
		return checkTyped(c, d, w, valid)
	case []uint64:
		return checkTyped(c, d, w, valid)
	case []float32:
		return checkTyped(c, d, w, valid)
	case []float64:
		return checkTyped(c, d, w, valid)
	case encoding.Bytes:
		r, ok := d.(encoding.BinaryReader)
		if !ok {
			return mismatchf("%v decoder of binary values is not a BinaryReader", d.Kind())
		}
		return checkBinary(c, r, &w, valid)
	}
	return errors.New("encodingtest: unsupported value type")
}

// checkDecodeSpan checks that DecodeSpan covers the rows asked for and
// stays within the node.
func checkDecodeSpan(c *checker, d encoding.Decoder) error {
	ds, ok := d.(encoding.DecodeSpanner)
	n := d.Len()
	if !ok || n == 0 {
		return nil
	}
	for k := 0; k < 20; k++ {
		from := c.rng.IntN(n)
		to := from + 1 + c.rng.IntN(n-from)
		lo, hi := ds.DecodeSpan(from, to)
		if !c.lenient && (lo < 0 || lo > from || hi < to || hi > n) {
			return mismatchf("DecodeSpan(%d, %d) = [%d, %d) of %d rows", from, to, lo, hi, n)
		}
	}
	return nil
}

func checkTyped[T encoding.Fixed](c *checker, d encoding.Decoder, want []T, valid []bool) error {
	r, ok := d.(encoding.Reader[T])
	if !ok {
		return mismatchf("%v decoder of %v values is not a Reader", d.Kind(), d.Type())
	}
	return checkFixed(c, r, want, valid)
}

// expand spreads vals over the valid rows (zero values at null rows).
func expand(vals any, valid []bool) any {
	if valid == nil {
		return vals
	}
	switch v := vals.(type) {
	case []bool:
		return expandSlice(v, valid)
	case []int8:
		return expandSlice(v, valid)
	case []int16:
		return expandSlice(v, valid)
	case []int32:
		return expandSlice(v, valid)
	case []int64:
		return expandSlice(v, valid)
	case []uint8:
		return expandSlice(v, valid)
	case []uint16:
		return expandSlice(v, valid)
	case []uint32:
		return expandSlice(v, valid)
	case []uint64:
		return expandSlice(v, valid)
	case []float32:
		return expandSlice(v, valid)
	case []float64:
		return expandSlice(v, valid)
	case encoding.Bytes:
		var out encoding.Bytes
		out.Offsets = append(out.Offsets, 0)
		j := 0
		for _, ok := range valid {
			if ok {
				out.Append(v.Value(j))
				j++
			} else {
				out.Append(nil)
			}
		}
		return out
	}
	return vals
}

func expandSlice[T any](v []T, valid []bool) []T {
	out := make([]T, len(valid))
	j := 0
	for i, ok := range valid {
		if ok {
			out[i] = v[j]
			j++
		}
	}
	return out
}

// WellFormed checks the BinaryReader contract on b after reading n values
// into it: n values, offsets that never decrease, all within b.Data. Its
// error is not ErrCorrupt, so fuzz targets report a violation as a failure.
func WellFormed(b *encoding.Bytes, n int) error {
	if b.Len() != n {
		return fmt.Errorf("decoded %d binary values, want %d", b.Len(), n)
	}
	if n == 0 {
		return nil
	}
	prev := b.Offsets[0]
	if prev < 0 {
		return fmt.Errorf("first offset %d is negative", prev)
	}
	for i, o := range b.Offsets[1:] {
		if o < prev {
			return fmt.Errorf("offset %d decreases: %d after %d", i+1, o, prev)
		}
		prev = o
	}
	if int(prev) > len(b.Data) {
		return fmt.Errorf("last offset %d beyond %d data bytes", prev, len(b.Data))
	}
	return nil
}
