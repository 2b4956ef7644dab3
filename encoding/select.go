package encoding

import (
	"fmt"
	"math"
)

// Tree is the shape of an encoding tree: the kind of each node and whether
// its body is zstd-compressed. Selection returns the tree it built, and a
// Policy can be told to replay one (capture/replay, and forced layouts in
// tests).
type Tree struct {
	Kind     Kind
	Zstd     bool
	Children []*Tree
}

func (t *Tree) String() string {
	if t == nil {
		return "<nil>"
	}
	s := t.Kind.String()
	if t.Zstd {
		s += "+zstd"
	}
	if len(t.Children) > 0 {
		s += "("
		for i, c := range t.Children {
			if i > 0 {
				s += ", "
			}
			s += c.String()
		}
		s += ")"
	}
	return s
}

// Policy chooses encodings. The zero value is not usable; start from
// DefaultPolicy.
type Policy struct {
	Registry *Registry
	// MaxDepth bounds the cascade: the root is depth 0 and nodes at MaxDepth
	// must be leaves (Codec.Leaf).
	MaxDepth int
	// Zstd enables leaf compression, kept when it saves at least MinSaving.
	Zstd      bool
	MinSaving float64
	// Leaves smaller than ZstdMinBytes keep zstd only when it saves at
	// least SmallZstdSaving (instead of MinSaving). Inflating a zstd frame
	// costs a fixed setup (entropy tables) of several microseconds, as much
	// as decoding a whole small bit-packed leaf: on TPC-H lineitem with
	// 8 Ki-value chunks, compressing the 3-4 KiB bit-packed leaves (10-45 %
	// savings) made the file 2 % smaller and cost about 12 % of a full scan
	// and much of a point lookup. Small leaves that zstd shrinks several
	// times (text in short chunks) and large leaves keep it.
	ZstdMinBytes    int
	SmallZstdSaving float64
	// SampleRuns × SampleLen values are trial-encoded to estimate sizes of
	// sequences longer than ExactBelow; shorter ones are trial-encoded whole.
	SampleRuns, SampleLen int
	ExactBelow            int
	// Allow restricts the kinds selection may choose; nil allows all.
	Allow map[Kind]bool
	// Force replays a tree: each node takes the forced kind when it fits the
	// data, otherwise selection runs for that subtree.
	Force *Tree
	// FSSTZstdRatio is how much larger than Trivial+zstd an FSST node may
	// be and still be chosen over it. Selection compares trial sizes
	// without zstd, so FSST would otherwise beat plain Trivial on almost
	// any text; the zstd post-pass then makes Trivial smaller again. FSST
	// nodes are never zstd-compressed because FSST is chosen for decode
	// speed: it decodes several times faster than zstd inflates (see
	// docs/benchmarks.md), and 1.25 is the size that speed is worth — on
	// TPC-H l_comment FSST is about 1.19× Trivial+zstd, and a column where
	// zstd finds long repeats FSST cannot see keeps zstd. When FSST and
	// Trivial are both candidates and Trivial would win, the Trivial trial
	// (of the sample only) is compressed once to decide. 0 disables FSST
	// against Trivial when Zstd is on.
	FSSTZstdRatio float64
}

// DefaultPolicy returns the policy Strata writes with.
func DefaultPolicy(r *Registry) *Policy {
	return &Policy{Registry: r, MaxDepth: 3, Zstd: true, MinSaving: 0.02, ZstdMinBytes: 8 << 10, SmallZstdSaving: 0.5,
		SampleRuns: 10, SampleLen: 64, ExactBelow: 2048, FSSTZstdRatio: 1.25}
}

// Encode selects an encoding tree for vals and appends the root node to dst.
func (p *Policy) Encode(dst []byte, vals any) ([]byte, *Tree, error) {
	if TypeOf(vals) == TypeInvalid {
		return dst, nil, fmt.Errorf("encoding: cannot encode %T", vals)
	}
	c := &Ctx{p: p, force: p.Force}
	return c.encode(dst, vals, false)
}

// EncodeWith encodes vals with kind k at the root whatever its Fit says,
// selecting the children as Encode does (or replaying p.Force's children
// when p.Force is rooted at k). An encoder must either represent vals
// exactly or return an error; the shared test suite relies on this to run
// every encoding on every data shape, not only on those selection would
// give it.
func (p *Policy) EncodeWith(dst []byte, vals any, k Kind) ([]byte, *Tree, error) {
	cd := p.Registry.Codec(k)
	typ := TypeOf(vals)
	switch {
	case typ == TypeInvalid:
		return dst, nil, fmt.Errorf("encoding: cannot encode %T", vals)
	case cd == nil || cd.Encoder == nil:
		return dst, nil, fmt.Errorf("encoding: no encoder for kind %v", k)
	case !cd.Types.Has(typ):
		return dst, nil, fmt.Errorf("encoding: %v does not store %v", k, typ)
	}
	c := &Ctx{p: p, force: p.Force}
	return c.encodeWith(dst, vals, ComputeStats(vals), cd, p.Force)
}

// Ctx carries selection state through one node's encoding; encoders use it
// to encode their children.
type Ctx struct {
	p      *Policy
	depth  int
	parent Kind
	trial  bool
	force  *Tree
	// set while encoding a node's body
	self     Kind
	children []*Tree
	forced   *Tree
}

// Depth is the depth of the node being encoded.
func (c *Ctx) Depth() int { return c.depth }

// Trial reports whether this is a size-estimation encode, whose output is
// discarded; encoders may skip expensive refinements.
func (c *Ctx) Trial() bool { return c.trial }

// EncodeChild selects and encodes a child sequence, appending it to dst as a
// length-prefixed node.
func (c *Ctx) EncodeChild(dst []byte, vals any) ([]byte, error) {
	var f *Tree
	if c.forced != nil && len(c.children) < len(c.forced.Children) {
		f = c.forced.Children[len(c.children)]
	}
	cc := &Ctx{p: c.p, depth: c.depth + 1, parent: c.self, trial: c.trial, force: f}
	node, t, err := cc.encode(nil, vals, true)
	if err != nil {
		return dst, err
	}
	c.children = append(c.children, t)
	return AppendChild(dst, node), nil
}

// TrialLeaf returns a leaf child node that was just encoded as the zstd
// post-pass would leave it: in a trial encode (where the post-pass is
// skipped) it compresses the leaf when that saves MinSaving, so an encoder whose node keeps one
// large compressible leaf (front coding's suffix bytes) reports a trial
// size that counts the zstd the real encode will apply. Outside trials, or
// with zstd off, it returns node unchanged.
func (c *Ctx) TrialLeaf(node []byte) ([]byte, error) {
	if !c.trial || !c.p.Zstd {
		return node, nil
	}
	// The MinSaving rule, as zstdTrivialSize applies to Trivial's trial:
	// trials are of samples, far smaller than the leaves they stand for.
	return Compress(node, c.p.MinSaving, nil)
}

// EncodeChildWith encodes a child with a fixed kind, bypassing selection; it
// falls back to selection if that kind cannot encode the values. The zstd
// post-pass treats the child as it would a selected one: it keeps zstd when
// it pays.
func (c *Ctx) EncodeChildWith(dst []byte, vals any, k Kind) ([]byte, error) {
	saved := c.forced
	ft := &Tree{Kind: k, Zstd: true}
	tmp := &Tree{Children: make([]*Tree, len(c.children)+1)}
	tmp.Children[len(c.children)] = ft
	c.forced = tmp
	dst, err := c.EncodeChild(dst, vals)
	c.forced = saved
	return dst, err
}

func (c *Ctx) allowed(cd *Codec, st *Stats) bool {
	if cd.Encoder == nil || cd.Kind == c.parent || !cd.Types.Has(st.Type) {
		return false
	}
	if c.p.Allow != nil && !c.p.Allow[cd.Kind] {
		return false
	}
	// At MaxDepth and below only leaves; at exactly MaxDepth also the
	// fallback, whose children (one level deeper) are then leaves.
	if c.depth >= c.p.MaxDepth && !cd.IsLeaf(st.Type) && !(cd.Fallback && c.depth == c.p.MaxDepth) {
		return false
	}
	if cd.RootOnly && !c.ownValues() {
		return false
	}
	return cd.Encoder.Fit(st)
}

// ownValues reports whether the sequence being encoded is a column's own
// values: a root, or a child of a Wrapper root.
func (c *Ctx) ownValues() bool {
	if c.depth == 0 {
		return true
	}
	if c.depth != 1 {
		return false
	}
	pc := c.p.Registry.Codec(c.parent)
	return pc != nil && pc.Wrapper
}

// needsDistinct reports whether replaying a tree rooted at kind k needs the
// distinct count (an unknown kind is selected afresh, which needs it).
func (c *Ctx) needsDistinct(k Kind) bool {
	cd := c.p.Registry.Codec(k)
	return cd == nil || cd.NeedsDistinct
}

func (c *Ctx) encode(dst []byte, vals any, child bool) ([]byte, *Tree, error) {
	var st *Stats
	if c.force != nil && !c.needsDistinct(c.force.Kind) {
		st = ComputeStatsNoDistinct(vals)
	} else {
		st = ComputeStats(vals)
	}
	var chosen *Codec
	if c.force != nil {
		if cd := c.p.Registry.Codec(c.force.Kind); cd != nil && cd.Encoder != nil && cd.Encoder.Fit(st) {
			chosen = cd
		}
	}
	if chosen == nil && st.skipDistinct {
		st = ComputeStats(vals) // the replayed kind does not fit: select with full statistics
	}
	if chosen == nil {
		var err error
		chosen, err = c.choose(vals, st)
		if err != nil {
			return dst, nil, err
		}
	}
	node, t, err := c.encodeWith(dst, vals, st, chosen, c.force)
	if err != nil {
		return dst, nil, err
	}
	return node, t, nil
}

func (c *Ctx) encodeWith(dst []byte, vals any, st *Stats, cd *Codec, force *Tree) ([]byte, *Tree, error) {
	start := len(dst)
	dst = AppendHeader(dst, cd.Kind, st.Type, st.N)
	nc := &Ctx{p: c.p, depth: c.depth, parent: c.parent, trial: c.trial, self: cd.Kind}
	if force != nil && force.Kind == cd.Kind {
		nc.forced = force
	}
	out, err := cd.Encoder.Encode(dst, vals, st, nc)
	if err != nil {
		return dst[:start], nil, fmt.Errorf("%v<%v>: %w", cd.Kind, st.Type, err)
	}
	t := &Tree{Kind: cd.Kind, Children: nc.children}
	wantZstd := c.p.Zstd && cd.Zstd
	if force != nil && force.Kind == cd.Kind {
		wantZstd = force.Zstd && c.p.Zstd
	}
	if wantZstd && !c.trial {
		node := out[start:]
		minSaving := c.p.MinSaving
		if len(node) < c.p.ZstdMinBytes {
			minSaving = max(minSaving, c.p.SmallZstdSaving)
		}
		z, err := Compress(node, minSaving, nil)
		if err != nil {
			return dst[:start], nil, err
		}
		if len(z) < len(node) {
			out = append(out[:start], z...)
			t.Zstd = true
		}
	}
	return out, t, nil
}

// choose estimates every allowed candidate and returns the one with the
// smallest size × read factor. A SpeedOverZstd candidate (FSST), never
// zstd-compressed, is then weighed against that choice: against the
// Fallback (which the zstd post-pass will compress) by FSSTZstdRatio × the
// Fallback's compressed size, against anything else by score.
func (c *Ctx) choose(vals any, st *Stats) (*Codec, error) {
	var best, fast, zc, fallback *Codec
	bestScore, fastScore, zcScore, fallbackScore := math.Inf(1), math.Inf(1), math.Inf(1), math.Inf(1)
	var sample any
	var sampleSt *Stats
	for _, cd := range c.p.Registry.Codecs() {
		if !c.allowed(cd, st) {
			continue
		}
		size, ok := cd.Encoder.Estimate(st)
		if !ok {
			var err error
			if st.N <= c.p.ExactBelow {
				size, err = c.trialSize(vals, st, cd)
			} else {
				if sample == nil {
					sample = Sample(vals, c.p.SampleRuns, c.p.SampleLen)
					sampleSt = ComputeStats(sample)
				}
				if !cd.Encoder.Fit(sampleSt) {
					continue
				}
				var node []byte
				node, err = c.trialNode(sample, sampleSt, cd)
				fixed := 0
				if fs, ok := cd.Encoder.(FixedSizer); ok && err == nil {
					fixed = min(fs.FixedSize(node), len(node))
				}
				size = fixed + int(float64(len(node)-fixed)*float64(st.N)/float64(sampleSt.N))
			}
			if err != nil {
				continue
			}
		}
		rf := cd.ReadFactor
		if rf <= 0 {
			rf = 1
		}
		score := float64(size) * rf
		if cd.SpeedOverZstd {
			fast, fastScore = cd, score
			continue
		}
		if cd.TrialCountsZstd && score < zcScore {
			zc, zcScore = cd, score
			continue
		}
		if cd.Fallback {
			fallback, fallbackScore = cd, score
		}
		if score < bestScore {
			best, bestScore = cd, score
		}
	}
	trivZstd := math.NaN()
	zstdFallback := func() float64 {
		if trivZstd != trivZstd {
			trivZstd = c.zstdTrivialSize(vals, st, best, sample, sampleSt)
		}
		return trivZstd
	}
	// A TrialCountsZstd candidate (FrontCoding) is weighed against the
	// Fallback after zstd, not against the Fallback's uncompressed trial.
	if zc != nil {
		ref := bestScore
		if best != nil && best.Fallback && c.p.Zstd {
			ref = zstdFallback()
		}
		if zcScore < ref {
			best, bestScore = zc, zcScore
		}
	}
	if fast != nil {
		switch {
		case best == nil:
			best = fast
		case best.Fallback && c.p.Zstd:
			if c.p.FSSTZstdRatio > 0 && fastScore <= c.p.FSSTZstdRatio*zstdFallback() {
				best = fast
			}
		case fastScore < bestScore:
			best = fast
		}
	}
	// A SizeOverZstd winner (the float encodings) is weighed against the
	// Fallback's size after zstd, when zstd would be kept on that node:
	// trial sizes are compared before the zstd post-pass, which finds what
	// those encodings cannot (float32 values printed as doubles, repeated
	// byte patterns).
	if c.p.Zstd && best != nil && best.SizeOverZstd && fallback != nil && fallback.Zstd {
		z := c.zstdTrivialSize(vals, st, fallback, sample, sampleSt)
		raw := fallbackScore / max(fallback.ReadFactor, 1)
		minSaving := c.p.MinSaving
		if raw < float64(c.p.ZstdMinBytes) {
			minSaving = max(minSaving, c.p.SmallZstdSaving)
		}
		if z <= raw*(1-minSaving) && z*max(fallback.ReadFactor, 1) < bestScore {
			best = fallback
		}
	}
	if best == nil {
		return nil, fmt.Errorf("encoding: no encoding fits %v values at depth %d", st.Type, c.depth)
	}
	return best, nil
}

func (c *Ctx) trialSize(vals any, st *Stats, cd *Codec) (int, error) {
	out, err := c.trialNode(vals, st, cd)
	return len(out), err
}

// trialNode encodes vals with cd for size estimation (no zstd).
func (c *Ctx) trialNode(vals any, st *Stats, cd *Codec) ([]byte, error) {
	tc := &Ctx{p: c.p, depth: c.depth, parent: c.parent, trial: true}
	out, _, err := tc.encodeWith(nil, vals, st, cd, nil)
	return out, err
}

// zstdTrivialSize estimates the size of the Trivial node of vals after the
// zstd post-pass, compressing the trial of the sample (vals itself when it
// is not longer than ExactBelow) and scaling it.
func (c *Ctx) zstdTrivialSize(vals any, st *Stats, triv *Codec, sample any, sampleSt *Stats) float64 {
	v, vst := vals, st
	if st.N > c.p.ExactBelow {
		if sample == nil {
			sample = Sample(vals, c.p.SampleRuns, c.p.SampleLen)
			sampleSt = ComputeStats(sample)
		}
		v, vst = sample, sampleSt
	}
	node, err := c.trialNode(v, vst, triv)
	if err != nil {
		return math.Inf(1)
	}
	z, err := Compress(node, c.p.MinSaving, nil)
	if err != nil {
		return math.Inf(1)
	}
	return float64(len(z)) * float64(st.N) / float64(max(vst.N, 1))
}

// Sample returns runs slices of runLen consecutive values spread evenly over
// vals, concatenated; vals itself when it is not longer than the sample.
func Sample(vals any, runs, runLen int) any {
	n := LenOf(vals)
	if n <= runs*runLen || runs <= 0 {
		return vals
	}
	step := (n - runLen) / (runs - 1)
	if runs == 1 {
		step = 0
	}
	switch v := vals.(type) {
	case []bool:
		return sampleSlice(v, runs, runLen, step)
	case []int8:
		return sampleSlice(v, runs, runLen, step)
	case []int16:
		return sampleSlice(v, runs, runLen, step)
	case []int32:
		return sampleSlice(v, runs, runLen, step)
	case []int64:
		return sampleSlice(v, runs, runLen, step)
	case []uint8:
		return sampleSlice(v, runs, runLen, step)
	case []uint16:
		return sampleSlice(v, runs, runLen, step)
	case []uint32:
		return sampleSlice(v, runs, runLen, step)
	case []uint64:
		return sampleSlice(v, runs, runLen, step)
	case []float32:
		return sampleSlice(v, runs, runLen, step)
	case []float64:
		return sampleSlice(v, runs, runLen, step)
	case Bytes:
		return sampleBytes(&v, runs, runLen, step)
	case *Bytes:
		return sampleBytes(v, runs, runLen, step)
	}
	return vals
}

func sampleSlice[T any](v []T, runs, runLen, step int) []T {
	out := make([]T, 0, runs*runLen)
	for r := 0; r < runs; r++ {
		out = append(out, v[r*step:r*step+runLen]...)
	}
	return out
}

func sampleBytes(b *Bytes, runs, runLen, step int) Bytes {
	var out Bytes
	for r := 0; r < runs; r++ {
		for i := r * step; i < r*step+runLen; i++ {
			out.Append(b.Value(i))
		}
	}
	return out
}

// EncodeSequence selects and encodes vals as a node that will sit at depth
// under a parent of kind parent (which it may not choose), replaying force
// when it is non-nil. It returns the node without a length prefix. It lets
// encodings whose nodes are built outside selection (Nullable) encode their
// children with the policy.
func (p *Policy) EncodeSequence(dst []byte, vals any, depth int, parent Kind, force *Tree) ([]byte, *Tree, error) {
	if TypeOf(vals) == TypeInvalid {
		return dst, nil, fmt.Errorf("encoding: cannot encode %T", vals)
	}
	c := &Ctx{p: p, depth: depth, parent: parent, force: force}
	return c.encode(dst, vals, depth > 0)
}

// Capture returns the tree of an encoded node by walking its children.
func Capture(node []byte, opts *Options) (*Tree, error) {
	d, err := Open(node, opts)
	if err != nil {
		return nil, err
	}
	return capture(node, d, 0, opts)
}

func capture(node []byte, d Decoder, depth int, opts *Options) (*Tree, error) {
	t := &Tree{Kind: d.Kind(), Zstd: len(node) > 2 && node[2]&FlagZstd != 0}
	if w, ok := d.(Walker); ok {
		for _, ch := range w.Children() {
			cd, err := OpenAt(ch.Node, depth+1, opts)
			if err != nil {
				return nil, err
			}
			ct, err := capture(ch.Node, cd, depth+1, opts)
			if err != nil {
				return nil, err
			}
			t.Children = append(t.Children, ct)
		}
	}
	return t, nil
}
