// Package encodingtest is the one test suite every Strata encoding plugs
// into. An encoding package's whole generic test is three one-line
// functions:
//
//	func TestSuite(t *testing.T)     { encodingtest.Run(t, rle.Codec) }
//	func FuzzRoundTrip(f *testing.F) { encodingtest.FuzzRoundTrip(f, rle.Codec) }
//	func FuzzDecode(f *testing.F)    { encodingtest.FuzzDecode(f, rle.Codec) }
//
// Run encodes every data shape (ShapesFor: constant, mainly constant,
// sorted, sorted with repeats, low cardinality, random, extremes such as
// min/max integers and NaN/±0/±Inf, narrow ranges, outliers, decimals, and
// for binary values digit strings and prefix-sharing text) at every
// length (Lengths: 0, 1, 7, 8, 9, 1023-1025 and one past 64 Ki) of every
// physical type the codec declares (Codec.Types), with the codec at the
// root whatever its Fit says (Policy.EncodeWith: an encoder either stores
// the values exactly or refuses them with an error; it must not refuse
// what its Fit accepts). The same values go through a Nullable root in
// every null pattern (NullPatterns) with the codec holding the present
// values, in a shape its Fit accepts where one does, so that encodings
// with a narrow Fit are tested under Nullable too. Each node is then
// checked value by value against the input through every read path
// (check.go): Read, Skip and ReadNullable in random interleavings, Gather,
// Bounds, Filter with every operator (and a read after it), and the run
// and dictionary views. Run also checks the codec's declarations: Types
// against Fit, Leaf against the tree it builds, Estimate against the body
// it writes, a measured Decode cost, and that encodings not declaring
// NeedsDistinct write the same bytes without the distinct count.
//
// Encoding-specific tests (golden bytes, hostile nodes, selection) use the
// helpers in helpers.go.
package encodingtest

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"strata/encoding"
	"strata/encoding/all"
	"strata/encoding/nullable"
)

// Lengths are the sequence lengths every encoding is tested at; the last
// one is past 64 Ki, where 16-bit counters and block indexes wrap.
var Lengths = []int{0, 1, 7, 8, 9, 1023, 1024, 1025, 70000}

// nullLengths are the lengths of the nullable cases.
var nullLengths = []int{0, 1, 9, 1025, 70000}

// Registry returns the full registry (encoding/all) with c in place of the
// codec of its kind, or added when its kind is not registered yet.
func Registry(c *encoding.Codec) *encoding.Registry {
	var cs []*encoding.Codec
	added := false
	for _, rc := range all.Registry().Codecs() {
		if rc.Kind == c.Kind {
			rc, added = c, true
		}
		cs = append(cs, rc)
	}
	if !added {
		cs = append(cs, c)
	}
	return encoding.NewRegistry(cs...)
}

type suite struct {
	c    *encoding.Codec
	reg  *encoding.Registry
	opts *encoding.Options
	p    *encoding.Policy
}

func newSuite(c *encoding.Codec) *suite {
	reg := Registry(c)
	return &suite{c: c, reg: reg, opts: &encoding.Options{Registry: reg}, p: encoding.DefaultPolicy(reg)}
}

// types returns the types the suite tests the codec with.
func (s *suite) types() []encoding.Type { return s.c.Types.List() }

// long reports whether a case is skipped to keep -short and -race runs
// fast: past 2000 values only the random and sorted-with-repeats shapes
// stay.
func long(shape Shape, n int) bool {
	return (raceEnabled || testing.Short()) && n > 2000 && shape != ShapeRandom && shape != ShapeSortedRepeats
}

func seedOf(typ encoding.Type, shape Shape, n int) uint64 {
	h := uint64(typ)<<32 ^ uint64(n)
	for _, b := range []byte(shape) {
		h = h*31 + uint64(b)
	}
	return h
}

// Run runs the whole suite on codec c (see the package doc).
func Run(t *testing.T, c *encoding.Codec) {
	s := newSuite(c)
	s.declarations(t)
	if c.Encoder == nil {
		if !c.Wrapper {
			t.Fatalf("%v has no encoder and is not a wrapper: nothing to test", c.Kind)
		}
		s.runWrapper(t)
		return
	}
	for _, typ := range s.types() {
		t.Run(typ.String(), func(t *testing.T) {
			for _, shape := range ShapesFor(typ) {
				for _, n := range Lengths {
					if long(shape, n) {
						continue
					}
					t.Run(fmt.Sprintf("%s/%d", shape, n), func(t *testing.T) {
						s.check(t, Values(typ, shape, n, seedOf(typ, shape, n)))
					})
				}
			}
			for pi, pat := range NullPatterns {
				for li, n := range nullLengths {
					valid := Validity(pat, n, uint64(n))
					shape, vals, ok := s.nullShape(typ, pi+li, n, valid, func(shape Shape) bool {
						return long(shape, n) && pat != RandomNulls
					})
					if !ok {
						continue
					}
					t.Run(fmt.Sprintf("%s/%s/%d", pat, shape, n), func(t *testing.T) {
						s.checkNullable(t, vals, valid, &encoding.Tree{Kind: c.Kind})
					})
				}
			}
		})
	}
}

// nullShape returns the shape and present values of the nullable case
// numbered i with validity valid over n rows: the first shape from the
// i-th on (cyclically, skipping those skip drops) whose values the codec's
// Fit accepts, so that an encoding with a narrow Fit (runs, repeats, digit
// strings) is tested under Nullable too, or the i-th when none fits. ok is
// false when the case is skipped.
func (s *suite) nullShape(typ encoding.Type, i, n int, valid []bool, skip func(Shape) bool) (shape Shape, vals any, ok bool) {
	shapes := ShapesFor(typ)
	gen := func(shape Shape) any { return Values(typ, shape, count(valid), seedOf(typ, shape, n)) }
	for k := range shapes {
		sh := shapes[(i+k)%len(shapes)]
		if skip(sh) {
			continue
		}
		v := gen(sh)
		if s.c.Encoder.Fit(encoding.ComputeStats(v)) {
			return sh, v, true
		}
	}
	sh := shapes[i%len(shapes)]
	if skip(sh) {
		return "", nil, false
	}
	return sh, gen(sh), true
}

func count(valid []bool) int {
	n := 0
	for _, v := range valid {
		if v {
			n++
		}
	}
	return n
}

// declarations checks the codec's traits against its behaviour where a
// test can tell.
func (s *suite) declarations(t *testing.T) {
	c := s.c
	if all.Registry().Codec(c.Kind) == nil {
		t.Errorf("%v is not registered: add its Codec to encoding/all", c.Kind)
	}
	if strings.HasPrefix(c.Kind.String(), "kind(") {
		t.Errorf("kind %d has no name in encoding/types.go", uint8(c.Kind))
	}
	if c.Open == nil {
		t.Errorf("%v has no Open", c.Kind)
	}
	if c.Types.Has(encoding.Binary) && c.Decode.PerString <= 0 && c.Decode.PerByte <= 0 {
		t.Errorf("%v declares no Decode cost for binary values: measure it with strata calibrate", c.Kind)
	}
	if (c.Types == 0 || c.Types&^encoding.TypesOf(encoding.Binary) != 0) && c.Decode.PerValue <= 0 {
		t.Errorf("%v declares no Decode cost for fixed-width values: measure it with strata calibrate", c.Kind)
	}
	if c.Fallback && (c.Encoder == nil || c.Types != encoding.AllTypes && c.Types != 0) {
		t.Errorf("%v is the Fallback but does not store every type", c.Kind)
	}
	if c.Encoder == nil {
		return
	}
	// Fit must decline every type the codec does not declare, or selection
	// would silently never offer it there.
	for t0 := encoding.Bool; t0 <= encoding.Binary; t0++ {
		if c.Types.Has(t0) {
			continue
		}
		for _, shape := range []Shape{ShapeConstant, ShapeLowCard, ShapeSortedRepeats, ShapeRandom} {
			if c.Encoder.Fit(encoding.ComputeStats(Values(t0, shape, 100, 1))) {
				t.Errorf("%v fits %v %s values but Types does not declare %v", c.Kind, t0, shape, t0)
			}
		}
	}
}

// Check encodes vals (a []T or Bytes) with c at the root, whatever its Fit
// says, and checks the node through every read path. An encoder may refuse
// values its Fit declines.
func Check(t testing.TB, c *encoding.Codec, vals any) {
	t.Helper()
	newSuite(c).check(t, vals)
}

func (s *suite) check(t testing.TB, vals any) {
	t.Helper()
	c := s.c
	typ := encoding.TypeOf(vals)
	n := encoding.LenOf(vals)
	st := encoding.ComputeStats(vals)
	fits := c.Encoder.Fit(st)
	node, tree, err := s.p.EncodeWith(nil, vals, c.Kind)
	if err != nil {
		if fits {
			t.Fatalf("%v refused %d %v values its Fit accepts: %v", c.Kind, n, typ, err)
		}
		return
	}
	if tree.Kind != c.Kind || encoding.Kind(node[0]) != c.Kind {
		t.Fatalf("root encoded as %v, want %v", tree, c.Kind)
	}
	if c.IsLeaf(typ) && len(tree.Children) > 0 {
		t.Fatalf("%v is declared a leaf for %v but nests children: %v", c.Kind, typ, tree)
	}
	h, err := encoding.ParseHeader(node, 0, s.opts)
	if err != nil {
		t.Fatalf("ParseHeader: %v", err)
	}
	if size, ok := c.Encoder.Estimate(st); ok && fits && size != len(h.Body) {
		t.Fatalf("Estimate = %d bytes, body is %d", size, len(h.Body))
	}
	if got, err := encoding.Capture(node, s.opts); err != nil || got.String() != tree.String() {
		t.Fatalf("Capture = %v, %v; Encode built %v", got, err, tree)
	}
	if err := checkNode(newChecker(uint64(n), false), node, s.opts, vals, nil); err != nil {
		t.Fatalf("%v: %v", tree, err)
	}
	// An encoding that reads no distinct count must encode the same
	// without it (a replayed tree skips counting).
	if !c.NeedsDistinct && fits && (n == 9 || n == 1025) {
		p := *s.p
		p.Force = &encoding.Tree{Kind: c.Kind, Zstd: tree.Zstd}
		again, tree2, err := p.Encode(nil, vals)
		if err != nil {
			t.Fatalf("replay: %v", err)
		}
		if tree2.Kind == c.Kind && !bytes.Equal(again, node) {
			t.Fatalf("%v encodes differently without the distinct count: declare NeedsDistinct", c.Kind)
		}
	}
}

// CheckNullable encodes vals as the present values of a Nullable node with
// validity valid, the values child replaying force (nil: selected), and
// checks every read path, nulls included.
func CheckNullable(t testing.TB, vals any, valid []bool, force *encoding.Tree) {
	t.Helper()
	newSuite(all.Registry().Codec(encoding.KindNullable)).checkNullable(t, vals, valid, force)
}

func (s *suite) checkNullable(t testing.TB, vals any, valid []bool, force *encoding.Tree) {
	t.Helper()
	s.checkNullableTree(t, vals, valid, &encoding.Tree{Kind: encoding.KindNullable, Children: []*encoding.Tree{nil, force}})
}

// checkNullableTree encodes vals and valid as a Nullable node replaying
// force (a Nullable tree whose children may be nil) and checks it.
func (s *suite) checkNullableTree(t testing.TB, vals any, valid []bool, force *encoding.Tree) {
	t.Helper()
	p := *s.p
	p.Force = force
	node, tree, err := nullable.Encode(&p, nil, vals, valid)
	if err != nil {
		t.Fatalf("nullable.Encode: %v", err)
	}
	for i, in := range []any{valid, vals} {
		f := force.Children[i]
		if f == nil || len(tree.Children) != 2 || tree.Children[i].Kind == f.Kind {
			continue
		}
		if cd := s.reg.Codec(f.Kind); cd != nil && cd.Encoder != nil && cd.Encoder.Fit(encoding.ComputeStats(in)) {
			t.Fatalf("child %d encoded as %v, want %v", i, tree.Children[i], f.Kind)
		}
	}
	if got, err := encoding.Capture(node, s.opts); err != nil || got.String() != tree.String() {
		t.Fatalf("Capture = %v, %v; Encode built %v", got, err, tree)
	}
	if err := checkNode(newChecker(uint64(len(valid)), false), node, s.opts, vals, valid); err != nil {
		t.Fatalf("%v: %v", tree, err)
	}
}

// runWrapper tests a wrapper encoding (Nullable), which selection never
// chooses: through nullable.Encode, in every null pattern and with no
// nulls, with every registered encoding forced as the values child, every
// one that stores bools forced as the validity child, and both selected.
func (s *suite) runWrapper(t *testing.T) {
	patterns := append([]Nulls{"no-nulls"}, NullPatterns...)
	null := func(validity, values *encoding.Tree) *encoding.Tree {
		return &encoding.Tree{Kind: encoding.KindNullable, Children: []*encoding.Tree{validity, values}}
	}
	for _, typ := range s.types() {
		t.Run(typ.String(), func(t *testing.T) {
			for pi, pat := range patterns {
				for li, n := range nullLengths {
					shape := Shapes[(pi+li)%len(Shapes)]
					valid := Validity(pat, n, uint64(n))
					vals := Values(typ, shape, count(valid), seedOf(typ, shape, n))
					forces := []*encoding.Tree{null(nil, nil)}
					if n < 2000 {
						for _, cd := range s.reg.Codecs() {
							// NeedsShared encodings encode against an
							// alphabet the writer builds per stripe
							// (dict's own tests cover them)
							if cd.Encoder == nil || cd.NeedsShared {
								continue
							}
							if cd.Types.Has(typ) {
								forces = append(forces, null(nil, &encoding.Tree{Kind: cd.Kind}))
							}
							if cd.Types.Has(encoding.Bool) && typ == encoding.Int32 {
								forces = append(forces, null(&encoding.Tree{Kind: cd.Kind}, nil))
							}
						}
					} else if long(shape, n) && pat != RandomNulls {
						continue
					}
					for _, f := range forces {
						t.Run(fmt.Sprintf("%s/%s/%d/%v", pat, shape, n, f), func(t *testing.T) {
							s.checkNullableTree(t, vals, valid, f)
						})
					}
				}
			}
		})
	}
}
