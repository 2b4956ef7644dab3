// Package calibrate measures, on the machine it runs on, what encoding
// selection weighs bytes against: the time each encoding takes to decode a
// node on its own (its children not counted) and the time zstd takes to
// inflate a body. `strata calibrate` prints the figures; the values the
// codecs declare (Codec.Decode, encoding.DefaultZstdDecode) were measured
// with it.
//
// How a figure is measured: chunks of 8192 values in every shape of a fixed
// list that the encoding's Fit accepts and that it stores in fewer bytes
// than Trivial are encoded with the encoding at the root and zstd off. The
// time to open a node and read every value into a reused buffer is taken
// as the fastest of Rounds rounds of Reps repetitions, every node being
// timed once per round in turn (on a shared machine the fastest round is
// the one least disturbed by other work, and taking turns gives every node
// the same chances); each child node is timed on its own the same way and
// subtracted. Each encoding is measured on int64 and uint32 values (float64
// for float encodings, booleans for boolean ones) and, when it stores them,
// on short and long binary values. Least squares then give its Cost:
// PerValue from the fixed-width cases (time = PerValue·rows; the width
// hardly matters), PerString and PerByte from the binary ones (time =
// PerString·rows + PerByte·bytes; binary values of one length, 1, 3 and 8
// bytes, give FixedString and FixedByte the same way for encodings that
// report them, encoding.Ctx.FixedLength, and are left out of the other
// encodings' fits), and for encodings that report
// exceptions (encoding.Ctx.Exceptions: ALP's values that are patched in
// after the bulk decode) PerValue and PerException together (time =
// PerValue·rows + PerException·exceptions), so that clean data is not
// charged for the exceptions of other shapes; nodes whose encoder reports
// its codec's second form (encoding.Ctx.AltForm: NumText's decimal
// fractions) are fitted apart, the same way, as Cost.Alt. zstd is measured the same way on plain
// leaves of 1 to 256 KiB compressed and not: the difference is fitted as
// PerFrame plus PerByte per inflated byte.
package calibrate

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"time"

	"strata/encoding"
	"strata/encoding/nullable"
)

// Options tune a calibration run.
type Options struct {
	Rows   int // values per chunk (default 8192, the writer's chunk)
	Rounds int // rounds per measurement; the fastest counts (default 15)
	Reps   int // decodes per round (default 10)
	// Kinds, when not empty, are the only encodings measured (zstd is
	// always measured).
	Kinds []encoding.Kind
}

func (o Options) withDefaults() Options {
	if o.Rows <= 0 {
		o.Rows = 8192
	}
	if o.Rounds <= 0 {
		o.Rounds = 15
	}
	if o.Reps <= 0 {
		o.Reps = 10
	}
	return o
}

// Sample is one measured case.
type Sample struct {
	Type  encoding.Type
	Shape string
	Tree  string
	Rows  int
	Bytes int // decoded bytes
	// Exceptions is the count the root's encoder reported
	// (encoding.Ctx.Exceptions).
	Exceptions int
	// FixedLength: every value has one length (binary cases only), and
	// FixedReported: the root's encoder reported it
	// (encoding.Ctx.FixedLength).
	FixedLength, FixedReported bool
	// AltForm: the root's encoder wrote its codec's second form
	// (encoding.Ctx.AltForm), fitted apart as Cost.Alt.
	AltForm bool
	Ns      float64 // own decode time of the root node
}

// KindResult is the fitted cost of one encoding with the samples it was
// fitted on.
type KindResult struct {
	Kind    encoding.Kind
	Cost    encoding.Cost
	Samples []Sample
}

// Result is a whole calibration.
type Result struct {
	Kinds []KindResult
	Zstd  encoding.ZstdCost
	// ZstdSamples are (inflated bytes, extra ns) pairs.
	ZstdSamples [][2]float64
	Rows        int
}

// Run measures every codec of reg.
func Run(reg *encoding.Registry, opts Options) (*Result, error) {
	opts = opts.withDefaults()
	res := &Result{Rows: opts.Rows}
	p := encoding.DefaultPolicy(reg)
	p.Zstd = false
	dopts := &encoding.Options{Registry: reg}
	var tm timer
	type pending struct {
		kind     int
		sample   Sample
		root     *timed
		children []*timed
	}
	var todo []pending
	for _, cd := range reg.Codecs() {
		if len(opts.Kinds) > 0 && !slices.Contains(opts.Kinds, cd.Kind) {
			continue
		}
		ki := len(res.Kinds)
		res.Kinds = append(res.Kinds, KindResult{Kind: cd.Kind})
		for _, typ := range []encoding.Type{encoding.Int64, encoding.Uint32, encoding.Float64, encoding.Bool, encoding.Binary} {
			if !cd.Types.Has(typ) {
				continue
			}
			if typ == encoding.Float64 && cd.Types.Has(encoding.Int64) {
				continue // measured on integers
			}
			if typ == encoding.Bool && cd.Types != encoding.TypesOf(encoding.Bool) {
				continue // measured on wider types
			}
			lengths := []int{0}
			if typ == encoding.Binary {
				// Mixed lengths about 6 and 40 bytes long; one length
				// of 1, 3 or 8 bytes (negative: every value exactly so long).
				lengths = []int{6, 40, -1, -3, -8}
			}
			for _, avg := range lengths {
				nodes, err := kindNodes(p, cd, typ, avg, opts, dopts)
				if err != nil {
					return nil, fmt.Errorf("calibrate %v %v: %w", cd.Kind, typ, err)
				}
				for _, kn := range nodes {
					root, err := tm.add(kn.node, kn.opts)
					if err != nil {
						return nil, fmt.Errorf("calibrate %v %v: %w", cd.Kind, typ, err)
					}
					pd := pending{kind: ki, root: root,
						sample: Sample{Type: typ, Shape: kn.shape, Tree: kn.tree, Rows: root.rows, Bytes: root.bytes, Exceptions: kn.exceptions,
							FixedLength: avg < 0, FixedReported: kn.fixed, AltForm: kn.alt}}
					d, err := encoding.Open(kn.node, kn.opts)
					if err != nil {
						return nil, err
					}
					if w, ok := d.(encoding.Walker); ok {
						for _, ch := range w.Children() {
							c, err := tm.add(ch.Node, dopts)
							if err != nil {
								return nil, err
							}
							pd.children = append(pd.children, c)
						}
					}
					todo = append(todo, pd)
				}
			}
		}
	}
	zs, err := zstdNodes(reg, &tm, dopts)
	if err != nil {
		return nil, err
	}
	if err := tm.run(opts); err != nil {
		return nil, err
	}
	for _, pd := range todo {
		own := pd.root.ns
		for _, c := range pd.children {
			own -= c.ns
		}
		pd.sample.Ns = max(own, 0)
		k := &res.Kinds[pd.kind]
		k.Samples = append(k.Samples, pd.sample)
	}
	for i := range res.Kinds {
		res.Kinds[i].Cost = fit(res.Kinds[i].Samples)
	}
	res.Zstd, res.ZstdSamples = fitZstd(zs)
	return res, nil
}

// shapes are the data shapes an encoding is measured on: every one its Fit
// accepts and it stores in fewer bytes than Trivial (data it would be
// chosen for), the constant one only when no other qualifies.
var shapes = []string{"nulls", "sparse", "mainly-constant", "runs", "low-cardinality", "small-range", "outliers", "sorted", "text", "hex", "fields", "decimal", "fractions", "numbers", "stepped", "random", "constant"}

type kindNode struct {
	node        []byte
	shape, tree string
	exceptions  int
	fixed       bool // the root's encoder reported values of one length
	alt         bool // the root's encoder reported its codec's second form
	// opts decode the node: a resolver for nodes that refer to a shared
	// alphabet or a reference column.
	opts *encoding.Options
}

// resolver serves the nodes calibrate builds that read data outside their
// own node: the definition of a shared alphabet (chunk 0, built once and
// cached, as a file reader caches it per stripe) and a reference column
// (a plain Trivial node behind encoding.Concat, as a file reader serves it,
// so the measured time includes decoding the reference rows a second time,
// as a real read does, at the cheapest).
type resolver struct {
	def   []byte
	built any
	ref   []byte
	opts  *encoding.Options
}

func (r *resolver) Shared(chunk int, build func([]byte) (any, error)) (any, error) {
	if chunk != 0 || r.def == nil {
		return nil, encoding.Corruptf("calibrate: no shared chunk %d", chunk)
	}
	if r.built == nil {
		v, err := build(r.def)
		if err != nil {
			return nil, err
		}
		r.built = v
	}
	return r.built, nil
}

func (r *resolver) Reference(stream int, typ encoding.Type) (encoding.Decoder, error) {
	if r.ref == nil {
		return nil, encoding.Corruptf("calibrate: no reference stream %d", stream)
	}
	d, err := encoding.Open(r.ref, r.opts)
	if err != nil {
		return nil, err
	}
	return encoding.Concat([]encoding.Decoder{d}, 0, d.Len())
}

// relative encodes vals with an EncodeRelative codec against a reference
// that differs from them by small amounts (a ship date and a receipt date).
func relative(p *encoding.Policy, cd *encoding.Codec, vals any, dopts *encoding.Options) ([]byte, *encoding.Tree, *encoding.Options, error) {
	r := rand.New(rand.NewPCG(5, 6))
	var ref any
	switch v := vals.(type) {
	case []int64:
		ref = mapSlice(v, func(x int64) int64 { return x - int64(r.IntN(30)) })
	case []uint32:
		ref = mapSlice(v, func(x uint32) uint32 { return x - uint32(r.IntN(min(30, int(x)+1))) })
	default:
		return nil, nil, nil, nil
	}
	node, tree, err := cd.EncodeRelative(p, nil, vals, ref, 1, nil)
	if err != nil {
		return nil, nil, nil, err
	}
	plain, _, err := p.EncodeWith(nil, ref, encoding.KindTrivial)
	if err != nil {
		return nil, nil, nil, err
	}
	o := *dopts
	o.Resolver = &resolver{ref: plain, opts: dopts}
	return node, tree, &o, nil
}

func mapSlice[T any](v []T, f func(T) T) []T {
	out := make([]T, len(v))
	for i, x := range v {
		out[i] = f(x)
	}
	return out
}

// shared encodes vals against a shared alphabet of their own values.
func shared(p *encoding.Policy, cd *encoding.Codec, vals any, dopts *encoding.Options) ([]byte, *encoding.Tree, *encoding.Options, error) {
	sh := cd.BuildShared(vals, 0, 1<<16)
	if sh == nil {
		return nil, nil, nil, nil
	}
	pp := *p
	pp.Shared, pp.Force = sh, nil // the alphabet is selected
	def, _, err := sh.Definition(&pp)
	if err != nil {
		return nil, nil, nil, err
	}
	node, tree, err := pp.EncodeWith(nil, vals, cd.Kind)
	if err != nil {
		return nil, nil, nil, err
	}
	o := *dopts
	o.Resolver = &resolver{def: def}
	return node, tree, &o, nil
}

// sharedTable encodes vals as a reference to a table (Codec.BuildTable)
// learned from them.
func sharedTable(p *encoding.Policy, cd *encoding.Codec, vals any, dopts *encoding.Options) ([]byte, *encoding.Tree, *encoding.Options, error) {
	b, ok := vals.(encoding.Bytes)
	if !ok {
		return nil, nil, nil, nil
	}
	tab := cd.BuildTable(&b)
	node, tree, err := tab.EncodeReference(p, nil, &b, 0, nil)
	if err != nil {
		return nil, nil, nil, err
	}
	o := *dopts
	o.Resolver = &resolver{def: tab.Definition()}
	return node, tree, &o, nil
}

// kindNodes encodes the shapes an encoding is measured on with it at the
// root.
func kindNodes(p *encoding.Policy, cd *encoding.Codec, typ encoding.Type, avgLen int, opts Options, dopts *encoding.Options) ([]kindNode, error) {
	var out []kindNode
	for _, sh := range shapes {
		if sh == "constant" && len(out) > 0 {
			break
		}
		vals, valid := gen(typ, sh, opts.Rows, avgLen)
		if vals == nil {
			continue
		}
		var node []byte
		var tree *encoding.Tree
		var err error
		nodeOpts := dopts
		switch {
		case cd.EncodeRelative != nil:
			if valid != nil {
				continue
			}
			node, tree, nodeOpts, err = relative(p, cd, vals, dopts)
		case cd.NeedsShared && cd.BuildShared != nil:
			if valid != nil || !cd.Encoder.Fit(encoding.ComputeStats(vals)) {
				continue
			}
			node, tree, nodeOpts, err = shared(p, cd, vals, dopts)
		case cd.BuildTable != nil:
			rc := p.Registry.Codec(cd.Replaces)
			if valid != nil || rc == nil || rc.Encoder == nil || !rc.Encoder.Fit(encoding.ComputeStats(vals)) {
				continue
			}
			node, tree, nodeOpts, err = sharedTable(p, cd, vals, dopts)
		case cd.Encoder == nil:
			if !cd.Wrapper || valid == nil {
				continue
			}
			pp := *p
			pp.Force = &encoding.Tree{Kind: cd.Kind}
			node, tree, err = nullable.Encode(&pp, nil, vals, valid)
		default:
			if valid != nil || !cd.Encoder.Fit(encoding.ComputeStats(vals)) {
				continue
			}
			node, tree, err = p.EncodeWith(nil, vals, cd.Kind)
		}
		if err != nil {
			return nil, err
		}
		if tree == nil || tree.Kind != cd.Kind {
			continue
		}
		// Only data the encoding would be chosen for: not larger than the
		// values stored plainly.
		if plain, _, err := p.EncodeWith(nil, vals, encoding.KindTrivial); err == nil && len(node) > len(plain)+16 && cd.Encoder != nil {
			continue
		}
		out = append(out, kindNode{node: node, shape: sh, tree: tree.String(), exceptions: tree.Exceptions(), fixed: tree.FixedLength(), alt: tree.AltForm(), opts: nodeOpts})
	}
	return out, nil
}

// timed is one node to time: opening it and reading all its values.
type timed struct {
	node        []byte
	read        func(encoding.Decoder) error
	rows, bytes int
	ns          float64 // fastest time seen
	dopts       *encoding.Options
}

// timer measures nodes round-robin: in every round each node is decoded
// Reps times, and a node's time is its fastest round. Interleaving gives
// every node the same chance of a quiet moment on a shared machine.
type timer struct{ nodes []*timed }

func (tm *timer) add(node []byte, dopts *encoding.Options) (*timed, error) {
	d, err := encoding.Open(node, dopts)
	if err != nil {
		return nil, err
	}
	t := &timed{node: node, rows: d.Len(), ns: math.Inf(1), dopts: dopts}
	t.read, t.bytes = reader(d, d.Len())
	tm.nodes = append(tm.nodes, t)
	return t, nil
}

func (tm *timer) run(opts Options) error {
	for r := 0; r < opts.Rounds; r++ {
		for _, t := range tm.nodes {
			start := time.Now()
			for i := 0; i < opts.Reps; i++ {
				d, err := encoding.Open(t.node, t.dopts)
				if err != nil {
					return err
				}
				if err := t.read(d); err != nil {
					return err
				}
			}
			t.ns = min(t.ns, float64(time.Since(start).Nanoseconds())/float64(opts.Reps))
		}
	}
	return nil
}

// reader returns a function reading all rows of a decoder of d's type into
// a buffer it reuses, and the decoded size.
func reader(d encoding.Decoder, rows int) (func(encoding.Decoder) error, int) {
	switch d.Type() {
	case encoding.Bool:
		return readFixed[bool](rows), rows
	case encoding.Int8:
		return readFixed[int8](rows), rows
	case encoding.Int16:
		return readFixed[int16](rows), 2 * rows
	case encoding.Int32:
		return readFixed[int32](rows), 4 * rows
	case encoding.Int64:
		return readFixed[int64](rows), 8 * rows
	case encoding.Uint8:
		return readFixed[uint8](rows), rows
	case encoding.Uint16:
		return readFixed[uint16](rows), 2 * rows
	case encoding.Uint32:
		return readFixed[uint32](rows), 4 * rows
	case encoding.Uint64:
		return readFixed[uint64](rows), 8 * rows
	case encoding.Float32:
		return readFixed[float32](rows), 4 * rows
	case encoding.Float64:
		return readFixed[float64](rows), 8 * rows
	}
	var out encoding.Bytes
	bytes := 0
	if r, ok := d.(encoding.BinaryReader); ok {
		if r.ReadBinary(&out, rows) == nil {
			bytes = len(out.Data)
		}
	}
	return func(d encoding.Decoder) error {
		out.Reset()
		return d.(encoding.BinaryReader).ReadBinary(&out, rows)
	}, bytes
}

func readFixed[T encoding.Fixed](rows int) func(encoding.Decoder) error {
	buf := make([]T, rows)
	valid := make([]bool, rows)
	return func(d encoding.Decoder) error {
		r, ok := d.(encoding.Reader[T])
		if !ok {
			return fmt.Errorf("%v decoder is not a Reader", d.Kind())
		}
		return encoding.ReadNullable(r, buf, valid)
	}
}

// fit fits the samples' own times: PerValue by least squares over the
// fixed-width samples (time = PerValue·rows), PerString and PerByte over
// the binary ones of mixed lengths (time = PerString·rows + PerByte·bytes),
// FixedString and FixedByte over those of one length whose encoder
// reported it, all kept non-negative. Samples of one length that the
// encoder did not report are not fitted: selection charges such nodes
// PerString and PerByte, which are fitted on the mixed lengths they were
// always measured on.
func fit(ss []Sample) encoding.Cost {
	var c encoding.Cost
	var srr, srt float64
	var bin, binExc, fixed, exc, alt []Sample
	anyExc := false
	for _, s := range ss {
		if s.AltForm {
			s.AltForm = false // fitted below as a form of its own
			alt = append(alt, s)
			continue
		}
		if s.Type == encoding.Binary {
			switch {
			case s.Exceptions > 0:
				// values pieced together from parts read apart
				// (FieldText's numbers): t = PerString·rows +
				// PerException·exceptions
				binExc = append(binExc, Sample{Rows: s.Rows, Bytes: s.Exceptions, Ns: s.Ns})
			case !s.FixedLength:
				bin = append(bin, s)
			case s.FixedReported:
				fixed = append(fixed, s)
			}
			continue
		}
		anyExc = anyExc || s.Exceptions > 0
		exc = append(exc, Sample{Rows: s.Rows, Bytes: s.Exceptions, Ns: s.Ns})
		srr += float64(s.Rows) * float64(s.Rows)
		srt += float64(s.Rows) * s.Ns
	}
	switch {
	case anyExc:
		// t = PerValue·rows + PerException·exceptions
		c.PerValue, c.PerException = fit2(exc)
	case srr > 0:
		c.PerValue = round(srt / srr)
	}
	c.PerString, c.PerByte = fit2(bin)
	if len(binExc) > 0 {
		c.PerString, c.PerException = fit2(binExc)
	}
	c.FixedString, c.FixedByte = fit2(fixed)
	if len(alt) > 0 {
		a := fit(alt)
		c.Alt = &a
	}
	return c
}

// fit2 solves t = a·rows + b·bytes by least squares, a and b not negative.
func fit2(ss []Sample) (a, b float64) {
	var srr, sbb, srb, srt, sbt float64
	for _, s := range ss {
		r, by, t := float64(s.Rows), float64(s.Bytes), s.Ns
		srr += r * r
		sbb += by * by
		srb += r * by
		srt += r * t
		sbt += by * t
	}
	if srr == 0 {
		return 0, 0
	}
	if det := srr*sbb - srb*srb; sbb > 0 && det > 1e-9*srr*sbb {
		a, b = (srt*sbb-sbt*srb)/det, (srr*sbt-srb*srt)/det
		switch {
		case a >= 0 && b >= 0:
			return round(a), round(b)
		case b < 0:
			return round(srt / srr), 0
		default:
			return 0, round(sbt / sbb)
		}
	}
	return round(srt / srr), 0
}

func round(x float64) float64 { return math.Round(x*1000) / 1000 }

// zstdNodes adds plain and compressed Trivial leaves of several sizes.
func zstdNodes(reg *encoding.Registry, tm *timer, dopts *encoding.Options) ([][2]*timed, error) {
	p := encoding.DefaultPolicy(reg)
	p.Zstd = false
	rng := rand.New(rand.NewPCG(3, 4))
	var out [][2]*timed
	for _, kib := range []int{1, 4, 16, 64, 256} {
		// Text bytes: zstd compresses them severalfold at either level
		// (leaves of 64 KiB and more use the faster one).
		vals := make([]uint8, 0, kib<<10)
		for len(vals) < kib<<10 {
			vals = append(vals, words[rng.IntN(len(words))]...)
			vals = append(vals, ' ')
		}
		vals = vals[:kib<<10]
		plain, _, err := p.EncodeWith(nil, vals, encoding.KindTrivial)
		if err != nil {
			return nil, err
		}
		z, err := encoding.Compress(plain, 0, dopts)
		if err != nil {
			return nil, err
		}
		if len(z) >= len(plain) {
			return nil, fmt.Errorf("zstd did not compress a %d KiB leaf", kib)
		}
		tp, err := tm.add(plain, dopts)
		if err != nil {
			return nil, err
		}
		tz, err := tm.add(z, dopts)
		if err != nil {
			return nil, err
		}
		out = append(out, [2]*timed{tp, tz})
	}
	return out, nil
}

// fitZstd fits extra time = frame + perByte·bytes to the measured pairs,
// by least squares on the relative error (every size counts alike).
func fitZstd(pairs [][2]*timed) (encoding.ZstdCost, [][2]float64) {
	var pts [][2]float64
	for _, pr := range pairs {
		pts = append(pts, [2]float64{float64(len(pr[0].node)), max(pr[1].ns-pr[0].ns, 0)})
	}
	// Minimize Σ ((a + b·x − y)/y)²: weights 1/y².
	var sw, sx, sy, sxx, sxy float64
	for _, pt := range pts {
		if pt[1] <= 0 {
			continue
		}
		w := 1 / (pt[1] * pt[1])
		sw += w
		sx += w * pt[0]
		sy += w * pt[1]
		sxx += w * pt[0] * pt[0]
		sxy += w * pt[0] * pt[1]
	}
	det := sw*sxx - sx*sx
	if det == 0 {
		return encoding.ZstdCost{}, pts
	}
	b := (sw*sxy - sx*sy) / det
	a := (sy - b*sx) / sw
	return encoding.ZstdCost{PerFrame: round(max(a, 0)), PerByte: round(max(b, 0))}, pts
}

// costLiteral prints c as the Go literal a codec declares, with the fields
// its fit set.
func costLiteral(c encoding.Cost) string {
	switch {
	case c.PerException > 0 && c.PerString > 0:
		return fmt.Sprintf("encoding.Cost{PerString: %g, PerException: %g}", c.PerString, c.PerException)
	case c.PerException > 0:
		return fmt.Sprintf("encoding.Cost{PerValue: %g, PerException: %g}", c.PerValue, c.PerException)
	case c.FixedString > 0 || c.FixedByte > 0:
		return fmt.Sprintf("encoding.Cost{PerValue: %g, PerString: %g, PerByte: %g, FixedString: %g, FixedByte: %g}",
			c.PerValue, c.PerString, c.PerByte, c.FixedString, c.FixedByte)
	}
	return fmt.Sprintf("encoding.Cost{PerValue: %g, PerString: %g, PerByte: %g}", c.PerValue, c.PerString, c.PerByte)
}

// Report formats a result: a table of every sample, then the fitted costs
// as the Go fields the codecs declare.
func (r *Result) Report() string {
	var b strings.Builder
	fmt.Fprintf(&b, "decode cost of each encoding on its own, %d-value chunks (fastest of the rounds, children subtracted)\n\n", r.Rows)
	fmt.Fprintf(&b, "%-15s %-8s %-16s %10s %12s  %s\n", "kind", "type", "shape", "ns", "ns/value", "tree")
	for _, k := range r.Kinds {
		for _, s := range k.Samples {
			shape := s.Shape
			if s.FixedLength {
				// one length, that many bytes
				shape = fmt.Sprintf("%s/len%d", shape, s.Bytes/max(s.Rows, 1))
			}
			if s.AltForm {
				shape += "/alt"
			}
			fmt.Fprintf(&b, "%-15v %-8v %-16s %10.0f %12.3f  %s\n", k.Kind, s.Type, shape, s.Ns, s.Ns/float64(max(s.Rows, 1)), s.Tree)
		}
	}
	fmt.Fprintf(&b, "\nzstd inflate, extra ns over the plain leaf:\n")
	for _, pt := range r.ZstdSamples {
		fmt.Fprintf(&b, "  %7.0f bytes  %9.0f ns\n", pt[0], pt[1])
	}
	fmt.Fprintf(&b, "\nfitted costs (Codec.Decode; encoding.DefaultZstdDecode):\n")
	ks := slices.Clone(r.Kinds)
	sort.Slice(ks, func(i, j int) bool { return ks[i].Kind < ks[j].Kind })
	for _, k := range ks {
		fmt.Fprintf(&b, "  %-15v Decode: %s,\n", k.Kind, costLiteral(k.Cost))
		if a := k.Cost.Alt; a != nil {
			fmt.Fprintf(&b, "  %-15v Decode.Alt: &%s,\n", k.Kind, costLiteral(*a))
		}
	}
	fmt.Fprintf(&b, "  %-15s DefaultZstdDecode = ZstdCost{PerFrame: %g, PerByte: %g}\n", "zstd", r.Zstd.PerFrame, r.Zstd.PerByte)
	return b.String()
}
