package write

import (
	"math/bits"
	"slices"

	"strata/encoding"
	"strata/schema"
	"strata/shred"
)

// Correlated columns. Per stripe, the writer looks for integer columns that
// are cheaper stored as their difference from an earlier integer column of
// the same physical type (a receipt date from a ship date, a commit date
// from a ship date): on samples of the stripe's rows it compares the cost
// of each column with the cost of its difference from every candidate
// reference, both weighed as selection weighs candidates (bytes plus
// Optimize's weight times the estimated decode time), the difference also
// charged for decoding the reference's rows, which a reader of the column
// must do too. Each column keeps its best reference when that saves at
// least minCorrSaving of its cost; a column that serves as a reference is
// never stored relative to another, so references do not chain. Chunks of
// a chosen column then take the Correlated encoding only where it costs
// less, by the same measure.

// corrPlan is a stream's Correlated plan for one stripe.
type corrPlan struct {
	encode func(p *encoding.Policy, dst []byte, vals, ref any, refStream int, force *encoding.Tree) ([]byte, *encoding.Tree, error)
	ref    int // reference stream
	vals   any // the reference's values, nulls as 0
	// charge is what a value of the column pays for its reference, in
	// bytes: w × the reference's decode time per value, or with
	// Options.CorrelationRefWeight that share of its bytes per value.
	charge float64
	// w is Optimize's weight of a nanosecond, and nodeNS the Correlated
	// node's own decode time per value (its codec's measured cost).
	w, nodeNS float64
}

// Sampling of the correlation search: corrRuns runs of corrRunLen
// consecutive rows spread over the stripe, the same rows for every column.
const (
	corrRuns   = 16
	corrRunLen = 256
	// minCorrRows is the shortest stripe searched.
	minCorrRows = 1024
	// maxCorrColumns bounds the columns compared pairwise in one stripe.
	maxCorrColumns = 64
	// minCorrSaving is the fraction of a column's estimated bytes a
	// reference must save, its charge included.
	minCorrSaving = 0.1
)

type corrCand struct {
	id     int
	vals   any // whole stream
	sample any
	size   int     // encoded bytes of the sample
	time   float64 // estimated decode time of the sample, ns
	lo, hi int64
	nulls  bool
	// fixed: the stream's chunks replay a given tree (Options.Force or
	// Layouts), which no Correlated node replaces: it may be a reference
	// but not a dependent.
	fixed bool
}

// refCharge is what a column stored relative to r pays per value for
// decoding r's rows too, in bytes: wt (Optimize's weight of a nanosecond)
// times r's estimated decode time per value, which follows the goal as
// selection does (nothing with size, the full time with speed). A positive
// weight (Options.CorrelationRefWeight) charges that share of r's bytes
// instead, a negative one nothing.
func refCharge(weight, wt float64, r *corrCand) float64 {
	n := float64(max(encoding.LenOf(r.sample), 1))
	switch {
	case weight > 0:
		return weight * float64(r.size) / n
	case weight < 0:
		return 0
	}
	return wt * r.time / n
}

// correlate returns the Correlated plans of this stripe's streams by id.
func (w *Writer) correlate(streams []shred.Stream) map[int]*corrPlan {
	var encode func(*encoding.Policy, []byte, any, any, int, *encoding.Tree) ([]byte, *encoding.Tree, error)
	for _, c := range w.policy.Registry.Codecs() {
		if c.EncodeRelative != nil {
			encode = c.EncodeRelative
		}
	}
	if w.opts.NoCorrelated || encode == nil {
		return nil
	}
	var cands []*corrCand
	for i := range streams {
		s := &streams[i]
		info := w.sch.Stream(s.ID)
		if info.Role != schema.RoleValues || !s.Type.IsInteger() || s.Len < minCorrRows ||
			info.Node.Parent() != w.sch.Root || len(cands) == maxCorrColumns {
			continue
		}
		c := &corrCand{id: s.ID, vals: sliceValues(s.Values, 0, s.Len), fixed: s.ID < len(w.encs) && w.encs[s.ID].fixed != nil}
		for _, ok := range s.Valid {
			if !ok {
				c.nulls = true
				c.vals = zeroNulls(c.vals, s.Valid)
				break
			}
		}
		cands = append(cands, c)
	}
	if len(cands) < 2 || !slices.ContainsFunc(cands, func(c *corrCand) bool { return !c.fixed && !c.nulls }) {
		return nil // no column could be stored relative to another
	}
	p := *w.policy
	// The costs compare samples with samples, so a sample's selection
	// keeps the best of its candidates' trials rather than encoding the
	// finalists of a sample whole again (on the 16 real sets, the 37
	// held-out ones and lineitem SF 0.1 and SF 1 the same plans; half of
	// the search's time on windvectors).
	p.Zstd, p.Force, p.Shared, p.Finalists = false, nil, nil, 0
	for _, c := range cands {
		c.sample = encoding.Sample(c.vals, corrRuns, corrRunLen)
		st := encoding.ComputeStatsNoDistinct(c.sample)
		c.lo, c.hi = st.MinI, st.MaxI
		c.size = -1 // not encoded yet
	}
	// A column's sample is encoded (a selection, its costliest step) only
	// when a pair it is part of passes the width test below; a stripe
	// whose differences are all as wide as their columns encodes none.
	costs := func(c *corrCand) bool {
		if c.size < 0 {
			node, t, err := p.Encode(nil, c.sample)
			if err != nil {
				return false
			}
			c.size, c.time = len(node), t.Time()
		}
		return true
	}
	type pick struct {
		dep, ref *corrCand
		saving   float64
	}
	var picks []pick
	wt := w.policy.Optimize.Weight()
	var nodeNS float64 // Correlated's own decode time per value
	if cd := w.policy.Registry.Codec(encoding.KindCorrelated); cd != nil {
		nodeNS = cd.Decode.PerValue
	}
	charge := func(r *corrCand) float64 { return refCharge(w.opts.CorrelationRefWeight, wt, r) }
	for _, d := range cands {
		if d.nulls || d.fixed {
			continue // Correlated nodes are chunk roots: no Nullable layer, no forced tree
		}
		own := bits.Len64(uint64(d.hi - d.lo))
		best := pick{}
		for _, r := range cands {
			// a column refers only to an earlier column of the schema:
			// derived columns (an end, a total) usually follow the ones
			// they derive from, and a column read alone (a ship date in a
			// filter) is then not the one that pays for its reference
			if r.id >= d.id || encoding.TypeOf(r.vals) != encoding.TypeOf(d.vals) {
				continue
			}
			// a difference no narrower than the column is not worth a trial
			if diffBits(d.sample, r.sample)+2 > own {
				continue
			}
			if !costs(d) || !costs(r) {
				return nil
			}
			node, t, err := encode(&p, nil, d.sample, r.sample, r.id, nil)
			if err != nil {
				continue
			}
			n := float64(encoding.LenOf(d.sample))
			cost := float64(len(node)) + wt*(nodeNS*n+t.Time()) + charge(r)*n
			own := float64(d.size) + wt*d.time
			if saving := 1 - cost/own; saving >= minCorrSaving && saving > best.saving {
				best = pick{d, r, saving}
			}
		}
		if best.dep != nil {
			picks = append(picks, best)
		}
	}
	slices.SortStableFunc(picks, func(a, b pick) int {
		switch {
		case a.saving > b.saving:
			return -1
		case a.saving < b.saving:
			return 1
		}
		return 0
	})
	plans := map[int]*corrPlan{}
	isRef := map[int]bool{}
	for _, pk := range picks {
		if isRef[pk.dep.id] || plans[pk.ref.id] != nil {
			continue // references do not chain
		}
		plans[pk.dep.id] = &corrPlan{encode: encode, ref: pk.ref.id, vals: pk.ref.vals,
			charge: charge(pk.ref), w: wt, nodeNS: nodeNS}
		isRef[pk.ref.id] = true
	}
	return plans
}

// zeroNulls returns a copy of integer values with the null rows set to 0,
// as readers of a reference see them.
func zeroNulls(vals any, valid []bool) any {
	switch v := vals.(type) {
	case []int8:
		return zeroed(v, valid)
	case []int16:
		return zeroed(v, valid)
	case []int32:
		return zeroed(v, valid)
	case []int64:
		return zeroed(v, valid)
	case []uint8:
		return zeroed(v, valid)
	case []uint16:
		return zeroed(v, valid)
	case []uint32:
		return zeroed(v, valid)
	case []uint64:
		return zeroed(v, valid)
	}
	return vals
}

func zeroed[T encoding.Integer](v []T, valid []bool) []T {
	out := slices.Clone(v)
	for i, ok := range valid {
		if !ok {
			out[i] = 0
		}
	}
	return out
}

// encodeCorrelated encodes a chunk relative to its reference and returns
// the node when its cost (bytes plus weighted decode time), plus the
// reference's charge, is less than plain's (whose tree is c.last);
// otherwise plain.
func (c *chunkEncoder) encodeCorrelated(plain []byte, vals any, lo, hi int) ([]byte, error) {
	pl := c.corr
	ref := sliceValues(pl.vals, lo, hi)
	p := *c.policy
	p.Force, p.Shared = nil, nil
	node, tree, err := pl.encode(&p, nil, vals, ref, pl.ref, c.corrTree)
	if err != nil {
		return plain, nil // not representable: keep the plain node
	}
	c.corrTree = tree
	n := float64(hi - lo)
	cost := float64(len(node)) + pl.w*(pl.nodeNS*n+tree.Time()) + pl.charge*n
	if cost < float64(len(plain))+pl.w*c.last.Time() {
		c.last = tree
		return node, nil
	}
	return plain, nil
}

// diffBits returns the bit width of the differences vals - ref, computed
// as the signed integers of the values' width the Correlated encoding
// stores: the width of their whole range, or less when all but one in a
// hundred lie within a narrower band around their median. A few values
// that follow nothing (an entry error, a missing date filled in) must not
// hide that the rest are close; the trial encode that follows weighs them
// as the exceptions they are.
func diffBits(vals, ref any) int {
	switch v := vals.(type) {
	case []int8:
		return rangeBits[int8, int8](v, ref)
	case []int16:
		return rangeBits[int16, int16](v, ref)
	case []int32:
		return rangeBits[int32, int32](v, ref)
	case []int64:
		return rangeBits[int64, int64](v, ref)
	case []uint8:
		return rangeBits[uint8, int8](v, ref)
	case []uint16:
		return rangeBits[uint16, int16](v, ref)
	case []uint32:
		return rangeBits[uint32, int32](v, ref)
	case []uint64:
		return rangeBits[uint64, int64](v, ref)
	}
	return 64
}

func rangeBits[T encoding.Integer, S int8 | int16 | int32 | int64](v []T, ref any) int {
	r, ok := ref.([]T)
	if !ok || len(r) != len(v) || len(v) == 0 {
		return 64
	}
	n := len(v)
	// the median of up to 63 evenly spaced differences
	var probe [63]int64
	ps := probe[:min(n, len(probe))]
	for j := range ps {
		i := j * n / len(ps)
		ps[j] = int64(S(v[i] - r[i]))
	}
	slices.Sort(ps)
	med := ps[len(ps)/2]
	// hist[b]: differences b bits from the median
	var hist [65]int
	lo, hi := int64(S(v[0]-r[0])), int64(S(v[0]-r[0]))
	for i, x := range v {
		d := int64(S(x - r[i]))
		lo, hi = min(lo, d), max(hi, d)
		u := uint64(d) - uint64(med) // the distance, without overflow
		if d < med {
			u = uint64(med) - uint64(d)
		}
		hist[bits.Len64(u)]++
	}
	whole := bits.Len64(uint64(hi - lo))
	// the narrowest band ±2^b around the median holding all but n/100
	out, b := 0, 64
	for b > 0 && out+hist[b] <= n/100 {
		out += hist[b]
		b--
	}
	return min(whole, b+1)
}
