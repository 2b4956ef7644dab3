package fsst_test

import (
	"errors"
	"testing"

	"strata/encoding"
	"strata/encoding/all"
	"strata/encoding/encodingtest"
	"strata/encoding/fsst"
)

// fakeResolver resolves chunk 0 to a definition payload, building it once
// like a file reader's resolver.
type fakeResolver struct {
	def    []byte
	built  any
	builds int
}

func (r *fakeResolver) Shared(k int, build func([]byte) (any, error)) (any, error) {
	if k != 0 {
		return nil, encoding.Corruptf("chunk refers to chunk %d of 1", k)
	}
	if r.built == nil {
		v, err := build(r.def)
		if err != nil {
			return nil, err
		}
		r.built = v
		r.builds++
	}
	return r.built, nil
}

func (r *fakeResolver) Reference(int, encoding.Type) (encoding.Decoder, error) {
	return nil, encoding.Corruptf("no references here")
}

// sharedChunks learns a shared table from all of vals and encodes them as
// references in chunks of n values; it returns the definition and the
// chunks' nodes and values.
func sharedChunks(t testing.TB, vals encoding.Bytes, n int) ([]byte, [][]byte, []encoding.Bytes) {
	t.Helper()
	tab := fsst.NewSharedTable(&vals)
	var nodes [][]byte
	var parts []encoding.Bytes
	for lo := 0; lo < vals.Len(); lo += n {
		part := vals.Slice(lo, min(lo+n, vals.Len()))
		node, tree, err := tab.EncodeReference(all.Policy(), nil, &part, 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		if tree.Kind != encoding.KindSharedFSST {
			t.Fatalf("tree %v", tree)
		}
		nodes = append(nodes, node)
		parts = append(parts, part)
	}
	return tab.Definition(), nodes, parts
}

// TestSharedRoundTrip decodes references of several shapes of text (and
// values the table was not learned from) through a resolver and checks
// every read path against the values, the table built once.
func TestSharedRoundTrip(t *testing.T) {
	for i, shape := range append([]encodingtest.Shape{encodingtest.ShapeRandom, encodingtest.ShapeLowCard}, encodingtest.TextShapes...) {
		vals := encodingtest.GenBytes(shape, 3000, uint64(i+1))
		def, nodes, parts := sharedChunks(t, vals, 700)
		res := &fakeResolver{def: def}
		opts := *all.Options()
		opts.Resolver = res
		for c, node := range nodes {
			d, err := encoding.Open(node, &opts)
			if err != nil {
				t.Fatalf("%v chunk %d: %v", shape, c, err)
			}
			if d.Kind() != encoding.KindSharedFSST {
				t.Fatalf("kind %v", d.Kind())
			}
			encodingtest.CheckBinaryReader(t, d.(encoding.BinaryReader), parts[c], uint64(c))
		}
		if res.builds != 1 {
			t.Errorf("%v: table built %d times, want 1", shape, res.builds)
		}
		// the definition opens as a node of no rows
		d, err := encoding.Open(def, &opts)
		if err != nil || d.Len() != 0 {
			t.Fatalf("definition: %v, %v", d, err)
		}
	}
	// values unlike the table's sample still round-trip (escapes)
	learn := encodingtest.GenBytes(encodingtest.ShapeLowCard, 500, 7)
	other := encodingtest.GenBytes(encodingtest.ShapeRandom, 800, 8)
	tab := fsst.NewSharedTable(&learn)
	node, _, err := tab.EncodeReference(all.Policy(), nil, &other, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	opts := *all.Options()
	opts.Resolver = &fakeResolver{def: tab.Definition()}
	d, err := encoding.Open(node, &opts)
	if err != nil {
		t.Fatal(err)
	}
	encodingtest.CheckBinaryReader(t, d.(encoding.BinaryReader), other, 9)
}

// TestSharedHostile checks malformed definitions and references fail with
// ErrCorrupt, ErrLimit or ErrUnsupported.
func TestSharedHostile(t *testing.T) {
	def, nodes, _ := sharedChunks(t, encodingtest.GenBytes(encodingtest.ShapeRandom, 600, 3), 600)
	ref := nodes[0]
	defRows := append([]byte(nil), def...)
	defRows[3] = 2 // rows
	for _, c := range []struct {
		name     string
		def, ref []byte
		noRes    bool
	}{
		{"empty body", def, encodingtest.Node(encoding.KindSharedFSST, encoding.Binary, 3), false},
		{"unknown form", def, encodingtest.Node(encoding.KindSharedFSST, encoding.Binary, 3, []byte{7}), false},
		{"other chunk", def, encodingtest.Node(encoding.KindSharedFSST, encoding.Binary, 3, []byte{1, 4}), false},
		{"no resolver", def, ref, true},
		{"trailing bytes", def, append(append([]byte(nil), ref...), 0), false},
		{"truncated", def, ref[:len(ref)-1], false},
		{"definition with rows", defRows, ref, false},
		{"definition truncated", def[:len(def)-1], ref, false},
		{"definition with trailing bytes", append(append([]byte(nil), def...), 'x'), ref, false},
		{"definition not a definition", ref, ref, false},
		{"definition of another kind", encodingtest.Node(encoding.KindFSST, encoding.Binary, 0, []byte{0}), ref, false},
	} {
		opts := *all.Options()
		if !c.noRes {
			opts.Resolver = &fakeResolver{def: c.def}
		}
		err := encodingtest.Exercise(c.ref, &opts)
		if err == nil {
			t.Errorf("%s: decoded without error", c.name)
			continue
		}
		if !errors.Is(err, encoding.ErrCorrupt) && !errors.Is(err, encoding.ErrUnsupported) && !errors.Is(err, encoding.ErrLimit) {
			t.Errorf("%s: %v wraps no sentinel", c.name, err)
		}
	}
}

// FuzzShared decodes arbitrary reference nodes against arbitrary
// definitions through a resolver: a refusal (an error wrapping
// ErrCorrupt, ErrLimit or ErrUnsupported) is fine; a panic, an error that
// wraps no sentinel or read paths that disagree are not.
func FuzzShared(f *testing.F) {
	for i, shape := range []encodingtest.Shape{encodingtest.ShapeRandom, encodingtest.ShapeLowCard} {
		def, nodes, _ := sharedChunks(f, encodingtest.GenBytes(shape, 300, uint64(i+1)), 150)
		for _, n := range nodes {
			f.Add(def, n)
		}
	}
	f.Fuzz(func(t *testing.T, def, ref []byte) {
		opts := encodingtest.FuzzOptions(all.Registry())
		opts.Resolver = &fakeResolver{def: def}
		if err := encodingtest.Exercise(ref, opts); !encodingtest.IsRefusal(err) {
			t.Fatalf("reference: %v", err)
		}
		if err := encodingtest.Exercise(def, opts); !encodingtest.IsRefusal(err) {
			t.Fatalf("definition: %v", err)
		}
	})
}
