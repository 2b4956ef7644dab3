// Package cascadetest runs the shared encoding harness over the composite
// encodings. Their Fit functions reject most data shapes (RLE needs runs, a
// dictionary needs repeats), so the helpers here register a codec whose Fit
// always accepts: a forced tree then exercises the codec on every shape and
// length, not only on the shapes selection would pick it for.
package cascadetest

import (
	"errors"
	"fmt"
	"testing"

	"strata/encoding"
	"strata/encoding/all"
	"strata/encoding/encodingtest"
)

type alwaysFit struct{ encoding.Encoder }

func (alwaysFit) Fit(*encoding.Stats) bool { return true }

// Registry returns the full registry with c (replacing the registered codec
// of its kind) whose encoder always fits when forceFit is set.
func Registry(c *encoding.Codec, forceFit bool) *encoding.Registry {
	var cs []*encoding.Codec
	mine := *c
	if forceFit && mine.Encoder != nil {
		mine.Encoder = alwaysFit{c.Encoder}
	}
	added := false
	for _, rc := range all.Registry().Codecs() {
		if rc.Kind == c.Kind {
			cs = append(cs, &mine)
			added = true
			continue
		}
		cs = append(cs, rc)
	}
	if !added {
		cs = append(cs, &mine)
	}
	return encoding.NewRegistry(cs...)
}

// Setup returns a policy forcing force (a tree rooted at c's kind, or just
// c's kind when force is nil) over Registry(c, true), and matching options.
func Setup(c *encoding.Codec, force *encoding.Tree) (*encoding.Policy, *encoding.Options) {
	reg := Registry(c, true)
	p := encoding.DefaultPolicy(reg)
	if force == nil {
		force = &encoding.Tree{Kind: c.Kind}
	}
	p.Force = force
	return p, &encoding.Options{Registry: reg}
}

// Lengths are the harness lengths; Short drops the longest.
func Lengths() []int {
	if testing.Short() {
		return encodingtest.Lengths[:len(encodingtest.Lengths)-1]
	}
	return encodingtest.Lengths
}

// RoundTrips checks every shape and length of type T with the root forced to
// p.Force.Kind.
func RoundTrips[T encoding.Fixed](t *testing.T, p *encoding.Policy, opts *encoding.Options) {
	for _, shape := range encodingtest.Shapes {
		for _, n := range Lengths() {
			t.Run(fmt.Sprintf("%s/%d", shape, n), func(t *testing.T) {
				vals := encodingtest.Gen[T](shape, n, uint64(n)+3)
				node := encodingtest.RoundTrip(t, p, opts, vals)
				if k := encoding.Kind(node[0]); k != p.Force.Kind {
					t.Fatalf("root encoded as %v, want %v", k, p.Force.Kind)
				}
			})
		}
	}
}

// RoundTripsBinary is RoundTrips for binary values.
func RoundTripsBinary(t *testing.T, p *encoding.Policy, opts *encoding.Options) {
	for _, shape := range encodingtest.Shapes {
		for _, n := range Lengths() {
			t.Run(fmt.Sprintf("%s/%d", shape, n), func(t *testing.T) {
				vals := encodingtest.GenBytes(shape, n, uint64(n)+3)
				node := encodingtest.RoundTripBytes(t, p, opts, vals)
				if k := encoding.Kind(node[0]); k != p.Force.Kind {
					t.Fatalf("root encoded as %v, want %v", k, p.Force.Kind)
				}
			})
		}
	}
}

// AllTypes runs RoundTrips for every numeric type, plus bool and binary when
// asked.
func AllTypes(t *testing.T, p *encoding.Policy, opts *encoding.Options, withBool, withBinary bool) {
	if withBool {
		t.Run("bool", func(t *testing.T) { RoundTrips[bool](t, p, opts) })
	}
	t.Run("int8", func(t *testing.T) { RoundTrips[int8](t, p, opts) })
	t.Run("int16", func(t *testing.T) { RoundTrips[int16](t, p, opts) })
	t.Run("int32", func(t *testing.T) { RoundTrips[int32](t, p, opts) })
	t.Run("int64", func(t *testing.T) { RoundTrips[int64](t, p, opts) })
	t.Run("uint8", func(t *testing.T) { RoundTrips[uint8](t, p, opts) })
	t.Run("uint16", func(t *testing.T) { RoundTrips[uint16](t, p, opts) })
	t.Run("uint32", func(t *testing.T) { RoundTrips[uint32](t, p, opts) })
	t.Run("uint64", func(t *testing.T) { RoundTrips[uint64](t, p, opts) })
	t.Run("float32", func(t *testing.T) { RoundTrips[float32](t, p, opts) })
	t.Run("float64", func(t *testing.T) { RoundTrips[float64](t, p, opts) })
	if withBinary {
		t.Run("binary", func(t *testing.T) { RoundTripsBinary(t, p, opts) })
	}
}

// FuzzOptions are tight decode limits for fuzz targets, so a hostile node
// declaring huge counts fails fast instead of allocating gigabytes.
func FuzzOptions(reg *encoding.Registry) *encoding.Options {
	return &encoding.Options{Registry: reg, MaxRows: 1 << 20, MaxBytes: 1 << 26, MaxDepth: 6}
}

// GoldenPolicy is a policy over Registry(c, true) (c may be nil for the
// full registry) with zstd off (golden bytes must not depend on the
// compressor's version) replaying force.
func GoldenPolicy(c *encoding.Codec, force *encoding.Tree) *encoding.Policy {
	reg := all.Registry()
	if c != nil {
		reg = Registry(c, true)
	}
	p := encoding.DefaultPolicy(reg)
	p.Zstd = false
	p.Force = force
	return p
}

// T is shorthand for a forced tree node.
func T(k encoding.Kind, children ...*encoding.Tree) *encoding.Tree {
	return &encoding.Tree{Kind: k, Children: children}
}

// Child encodes vals forced to tree (zstd off) and returns it as a
// length-prefixed child, for assembling hand-made (hostile) nodes.
func Child(t testing.TB, vals any, tree *encoding.Tree) []byte {
	t.Helper()
	node, got, err := GoldenPolicy(nil, tree).EncodeSequence(nil, vals, 1, encoding.KindInvalid, tree)
	if err != nil {
		t.Fatalf("child: %v", err)
	}
	if got.Kind != tree.Kind {
		t.Fatalf("child encoded as %v, want %v", got, tree)
	}
	return encoding.AppendChild(nil, node)
}

// Node assembles a node prefix and body parts.
func Node(k encoding.Kind, typ encoding.Type, rows int, parts ...[]byte) []byte {
	n := encoding.AppendHeader(nil, k, typ, rows)
	for _, p := range parts {
		n = append(n, p...)
	}
	return n
}

// WantCorrupt checks that opening or fully decoding node fails with an error
// wrapping ErrCorrupt.
func WantCorrupt(t testing.TB, name string, node []byte) {
	t.Helper()
	err := Exercise(node, all.Options())
	if err == nil {
		t.Fatalf("%s: decoded without error", name)
	}
	if !errors.Is(err, encoding.ErrCorrupt) {
		t.Fatalf("%s: error %v does not wrap ErrCorrupt", name, err)
	}
}

// Exercise runs every read path of an arbitrary node (encodingtest.Decode,
// then Bounds and a Filter over all rows), returning the first error. Fuzz
// targets call it; it must never panic.
func Exercise(node []byte, opts *encoding.Options) error {
	if err := encodingtest.Decode(node, opts); err != nil {
		return err
	}
	d, err := encoding.Open(node, opts)
	if err != nil {
		return err
	}
	n := min(d.Len(), 1<<20)
	sel := encoding.NewBitmap(n, true)
	switch r := d.(type) {
	case encoding.BinaryFilterer:
		if b, ok := d.(encoding.BinaryBounder); ok {
			b.BinaryBounds()
		}
		return r.FilterBinary(&encoding.BytesPred{Op: encoding.OpIn, Set: [][]byte{nil, []byte("a")}}, n, sel)
	case encoding.Filterer[int64]:
		return filterNum(d, r, n, sel)
	case encoding.Filterer[int32]:
		return filterNum(d, r, n, sel)
	case encoding.Filterer[uint32]:
		return filterNum(d, r, n, sel)
	case encoding.Filterer[float64]:
		return filterNum(d, r, n, sel)
	case encoding.Filterer[uint8]:
		return filterNum(d, r, n, sel)
	}
	return nil
}

func filterNum[T encoding.Number](d encoding.Decoder, f encoding.Filterer[T], n int, sel encoding.Bitmap) error {
	if b, ok := d.(encoding.Bounder[T]); ok {
		b.Bounds()
	}
	if err := f.Filter(&encoding.Pred[T]{Op: encoding.OpBetween, A: 1, B: 9}, n/2, sel); err != nil {
		return err
	}
	return f.Filter(&encoding.Pred[T]{Op: encoding.OpNe, A: 3}, n-n/2, encoding.NewBitmap(n-n/2, true))
}

// Seeds returns real encodings of a few shapes of vals-generating functions,
// for fuzz corpora.
func Seeds(p *encoding.Policy, inputs ...any) [][]byte {
	var out [][]byte
	for _, in := range inputs {
		node, _, err := p.Encode(nil, in)
		if err == nil {
			out = append(out, node)
		}
	}
	return out
}
