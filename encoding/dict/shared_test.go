package dict_test

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"strata/encoding"
	"strata/encoding/all"
	"strata/encoding/dict"
	"strata/encoding/encodingtest"
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
		return nil, encoding.Corruptf("chunk %d refers to chunk %d of 1", 1, k)
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

// sharedChunks encodes vals as chunks of size n against a shared alphabet
// of all of vals, forcing SharedDictionary, and returns the definition and
// the chunk nodes.
func sharedChunks(t testing.TB, vals any, n int) ([]byte, [][]byte) {
	t.Helper()
	sh := dict.NewShared(vals, 0, 1<<16)
	if sh == nil {
		t.Fatal("no shared alphabet")
	}
	p := all.Policy()
	def, _, err := sh.Definition(p)
	if err != nil {
		t.Fatal(err)
	}
	p.Shared = sh
	p.Force = encodingtest.T(encoding.KindSharedDictionary)
	var nodes [][]byte
	for lo := 0; lo < encoding.LenOf(vals); lo += n {
		hi := min(lo+n, encoding.LenOf(vals))
		var part any
		switch v := vals.(type) {
		case encoding.Bytes:
			part = v.Slice(lo, hi)
		default:
			part = sliceOf(vals, lo, hi)
		}
		node, tree, err := p.Encode(nil, part)
		if err != nil {
			t.Fatal(err)
		}
		if tree.Kind != encoding.KindSharedDictionary {
			t.Fatalf("chunk encoded as %v", tree)
		}
		nodes = append(nodes, node)
	}
	return def, nodes
}

func sliceOf(vals any, lo, hi int) any {
	switch v := vals.(type) {
	case []int32:
		return v[lo:hi]
	case []float64:
		return v[lo:hi]
	case []uint8:
		return v[lo:hi]
	case []int64:
		return v[lo:hi]
	}
	panic(fmt.Sprintf("slice of %T", vals))
}

func sharedRoundTrip[T encoding.Number](t *testing.T, vals []T) {
	def, nodes := sharedChunks(t, vals, 700)
	res := &fakeResolver{def: def}
	opts := *all.Options()
	opts.Resolver = res
	for c, node := range nodes {
		want := vals[c*700 : min(len(vals), (c+1)*700)]
		r, err := encoding.OpenTyped[T](node, 0, &opts)
		if err != nil {
			t.Fatal(err)
		}
		if r.Kind() != encoding.KindSharedDictionary {
			t.Fatalf("opened %v", r.Kind())
		}
		encodingtest.CheckReader(t, r, want, uint64(c))
		// the dictionary view sees the stripe's alphabet
		if d, ok := r.(encoding.Dictionary[T]); !ok || d.AlphabetLen() != dict.NewShared(vals, 0, 1<<16).Len() {
			t.Fatalf("chunk %d: not a dictionary over the shared alphabet", c)
		}
	}
	if res.builds != 1 {
		t.Errorf("alphabet built %d times for %d chunks", res.builds, len(nodes))
	}
}

// TestSharedRoundTrip encodes chunks against one shared alphabet and reads
// each back through every cursor path, gathers and filters.
func TestSharedRoundTrip(t *testing.T) {
	t.Run("int32", func(t *testing.T) {
		sharedRoundTrip(t, encodingtest.Gen[int32](encodingtest.ShapeLowCard, 3000, 1))
	})
	t.Run("int64-extremes", func(t *testing.T) {
		v := encodingtest.Gen[int64](encodingtest.ShapeLowCard, 2100, 2)
		v[5], v[1500] = math.MinInt64, math.MaxInt64
		sharedRoundTrip(t, v)
	})
	t.Run("uint8", func(t *testing.T) {
		sharedRoundTrip(t, encodingtest.Gen[uint8](encodingtest.ShapeLowCard, 1500, 3))
	})
	t.Run("float64", func(t *testing.T) {
		v := make([]float64, 2500)
		specials := []float64{0, math.Copysign(0, -1), math.NaN(), math.Float64frombits(0x7ff8000000000123), math.Inf(1), -2.5, 1e300}
		for i := range v {
			v[i] = specials[(i*7)%len(specials)]
		}
		sharedRoundTrip(t, v)
	})
	t.Run("binary", func(t *testing.T) {
		sharedBinaryRoundTrip(t, encodingtest.GenBytes(encodingtest.ShapeLowCard, 2600, 4))
	})
	// values of at most 7 bytes are keyed by their bytes, not hashed:
	// the empty value, zero bytes and prefixes of one another must stay
	// apart; one longer value sends the whole stream to the hashed keys
	short := []string{"", "\x00", "\x00\x00", "a", "a\x00", "\x00a", "ab", "JFK", "LAX", "REG AIR", "TRUCK", "\xff\xff\xff\xff\xff\xff\xff"}
	t.Run("binary-short", func(t *testing.T) {
		sharedBinaryRoundTrip(t, cycle(short, 2600))
	})
	t.Run("binary-one-long", func(t *testing.T) {
		sharedBinaryRoundTrip(t, cycle(append(short, "8 bytes!"), 2600))
	})
}

func sharedBinaryRoundTrip(t *testing.T, vals encoding.Bytes) {
	t.Helper()
	def, nodes := sharedChunks(t, vals, 900)
	opts := *all.Options()
	opts.Resolver = &fakeResolver{def: def}
	for c, node := range nodes {
		want := vals.Slice(c*900, min(vals.Len(), (c+1)*900))
		r, err := encoding.OpenBinary(node, 0, &opts)
		if err != nil {
			t.Fatal(err)
		}
		encodingtest.CheckBinaryReader(t, r, want, uint64(c))
	}
}

// cycle returns n values taking words in turn, with a stride that mixes
// their order.
func cycle(words []string, n int) encoding.Bytes {
	var b encoding.Bytes
	b.Offsets = []int32{0}
	for i := 0; i < n; i++ {
		b.Append([]byte(words[(i*7)%len(words)]))
	}
	return b
}

// TestSharedShortOutside checks that a value the stripe's alphabet of
// short values does not hold, a longer one included, is refused by the
// reference (selection then encodes the chunk otherwise).
func TestSharedShortOutside(t *testing.T) {
	sh := dict.NewShared(cycle([]string{"AA", "BB", "C"}, 100), 0, 1<<16)
	if sh == nil {
		t.Fatal("no shared alphabet")
	}
	p := all.Policy()
	p.Shared = sh
	p.Force = encodingtest.T(encoding.KindSharedDictionary)
	for _, extra := range []string{"D", "AAAAAAAAAAAA", "AA\x00", ""} {
		_, tree, err := p.Encode(nil, cycle([]string{"AA", extra}, 10))
		if err == nil && tree.Kind == encoding.KindSharedDictionary {
			t.Errorf("a chunk holding %q was encoded against an alphabet without it", extra)
		}
	}
	// and every value it holds is accepted
	if _, tree, err := p.Encode(nil, cycle([]string{"C", "BB", "AA"}, 10)); err != nil || tree.Kind != encoding.KindSharedDictionary {
		t.Errorf("a chunk of the alphabet's values: %v, %v", tree, err)
	}
}

// TestSharedMemo checks that the predicate a shared alphabet remembers is
// recomputed when another predicate comes, whichever chunk asks.
func TestSharedMemo(t *testing.T) {
	vals := make([]int32, 4000)
	for i := range vals {
		vals[i] = int32((i * 37) % 50)
	}
	def, nodes := sharedChunks(t, vals, 1000)
	opts := *all.Options()
	opts.Resolver = &fakeResolver{def: def}
	preds := []*encoding.Pred[int32]{
		{Op: encoding.OpBetween, A: 10, B: 20},
		{Op: encoding.OpIn, Set: []int32{3, 7, 49}},
		{Op: encoding.OpBetween, A: 10, B: 20},
		{Op: encoding.OpIn, Set: []int32{3, 7, 48}},
		{Op: encoding.OpNe, A: 5},
	}
	for k, p := range preds {
		for c, node := range nodes {
			r, err := encoding.OpenTyped[int32](node, 0, &opts)
			if err != nil {
				t.Fatal(err)
			}
			sel := encoding.NewBitmap(1000, true)
			if err := r.(encoding.Filterer[int32]).Filter(p, 1000, sel); err != nil {
				t.Fatal(err)
			}
			for i := 0; i < 1000; i++ {
				if sel.Get(i) != p.Match(vals[c*1000+i]) {
					t.Fatalf("predicate %d, chunk %d, row %d: got %v", k, c, i, sel.Get(i))
				}
			}
		}
	}
}

// TestSharedHostile checks malformed definitions and references fail with
// ErrCorrupt, ErrLimit or ErrUnsupported.
func TestSharedHostile(t *testing.T) {
	def, nodes := sharedChunks(t, encodingtest.Gen[int32](encodingtest.ShapeLowCard, 1000, 5), 1000)
	ref := nodes[0]
	for _, c := range []struct {
		name     string
		def, ref []byte
	}{
		{"empty body", def, encodingtest.Node(encoding.KindSharedDictionary, encoding.Int32, 3)},
		{"unknown form", def, encodingtest.Node(encoding.KindSharedDictionary, encoding.Int32, 3, []byte{7})},
		{"other chunk", def, append(encodingtest.Node(encoding.KindSharedDictionary, encoding.Int32, 2, []byte{1, 3}), encodingtest.Child(t, []uint32{0, 1}, encodingtest.T(encoding.KindTrivial))...)},
		{"trailing bytes", def, append(append([]byte(nil), ref...), 0)},
		{"definition with rows", encodingtest.Node(encoding.KindSharedDictionary, encoding.Int32, 2, []byte{0}, encodingtest.Child(t, []int32{1, 2}, encodingtest.T(encoding.KindTrivial))), ref},
		{"definition unsorted", encodingtest.Node(encoding.KindSharedDictionary, encoding.Int32, 0, []byte{0}, encodingtest.Child(t, []int32{2, 1}, encodingtest.T(encoding.KindTrivial))), ref},
		{"definition empty", encodingtest.Node(encoding.KindSharedDictionary, encoding.Int32, 0, []byte{0}, encodingtest.Child(t, []int32{}, encodingtest.T(encoding.KindTrivial))), ref},
		{"definition of another type", encodingtest.Node(encoding.KindSharedDictionary, encoding.Int64, 0, []byte{0}, encodingtest.Child(t, []int64{1, 2}, encodingtest.T(encoding.KindTrivial))), ref},
		{"definition not a definition", ref, ref},
		{"definition of another kind", encodingtest.Node(encoding.KindDictionary, encoding.Int32, 0, []byte{0}), ref},
	} {
		opts := *all.Options()
		opts.Resolver = &fakeResolver{def: c.def}
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
	for i, vals := range []any{
		encodingtest.Gen[int32](encodingtest.ShapeLowCard, 600, 1),
		encodingtest.GenBytes(encodingtest.ShapeLowCard, 300, 2),
		encodingtest.Gen[uint8](encodingtest.ShapeLowCard, 200, 3),
	} {
		def, nodes := sharedChunks(f, vals, 150+i*50)
		for _, n := range nodes[:min(2, len(nodes))] {
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

// TestSharedScaleSample checks how a reference's size on a sample is
// scaled to the whole sequence: its ids grow with the rows, its prefix
// does not, and for a sequence of one value nothing does (the ids are one
// value). Scaling the whole node made references for a column of one
// repeated string look larger than a Constant chunk of it.
func TestSharedScaleSample(t *testing.T) {
	long := "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36"
	for _, c := range []struct {
		name  string
		words []string
		grows bool
	}{
		{"one value", []string{long}, false},
		{"two values", []string{long, "other"}, true},
	} {
		const sampleN, fullN = 640, 8192
		sample, full := cycle(c.words, sampleN/len(c.words)), cycle(c.words, fullN/len(c.words))
		sh := dict.NewShared(full, 0, 1<<16)
		if sh == nil {
			t.Fatal("no shared alphabet")
		}
		p := all.Policy()
		p.Shared = sh
		p.Force = encodingtest.T(encoding.KindSharedDictionary)
		node, _, err := p.Encode(nil, sample)
		if err != nil {
			t.Fatal(err)
		}
		sc, ok := dict.SharedCodec.Encoder.(encoding.SampleScaler)
		if !ok {
			t.Fatal("SharedDictionary scales no sample")
		}
		got := sc.ScaleSample(node, encoding.ComputeStats(sample), encoding.ComputeStats(full))
		switch {
		case !c.grows && got != len(node):
			t.Errorf("%s: %d bytes scaled to %d, want the node's own size", c.name, len(node), got)
		case c.grows && (got <= len(node) || got > len(node)*fullN/sampleN):
			t.Errorf("%s: %d bytes scaled to %d rows gives %d", c.name, len(node), fullN, got)
		}
	}
}
