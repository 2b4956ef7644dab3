package correlated_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"strata/encoding"
	"strata/encoding/all"
	"strata/encoding/correlated"
	"strata/encoding/encodingtest"
	"strata/encoding/nullable"
)

// refResolver resolves a reference to the concatenation of pieces (each a
// node of the reference stream), from row skip on, as a file reader does
// with the chunks of the reference stream a chunk covers.
type refResolver struct {
	stream int
	pieces [][]byte
	skip   int
	opts   *encoding.Options
}

func (r *refResolver) Shared(int, func([]byte) (any, error)) (any, error) {
	return nil, encoding.Corruptf("no shared alphabets here")
}

func (r *refResolver) Reference(stream int, typ encoding.Type) (encoding.Decoder, error) {
	if stream != r.stream {
		return nil, encoding.Corruptf("reference stream %d: no such stream", stream)
	}
	decs := make([]encoding.Decoder, len(r.pieces))
	total := 0
	for i, p := range r.pieces {
		d, err := encoding.Open(p, r.opts)
		if err != nil {
			return nil, err
		}
		if d.Type() != typ {
			return nil, encoding.Corruptf("reference stream holds %v", d.Type())
		}
		decs[i] = d
		total += d.Len()
	}
	return refWindow(decs, r.skip, total)
}

// refWindow is filled by the test: the chunk's row count is only known to
// the caller, so the resolver returns every row after skip and the decoder
// checks the count.
var refWindow = func(decs []encoding.Decoder, skip, total int) (encoding.Decoder, error) {
	return encoding.Concat(decs, skip, total-skip)
}

// split encodes ref (with its validity, nil for none) as 1..3 pieces with
// `pad` extra rows in front, returning the nodes and the skip.
func split[T encoding.Integer](t testing.TB, ref []T, valid []bool, pad int, r *rand.Rand) ([][]byte, int) {
	t.Helper()
	full := append(make([]T, pad), ref...)
	var fv []bool
	if valid != nil {
		fv = append(make([]bool, pad), valid...)
		for i := 0; i < pad; i++ {
			fv[i] = true
		}
	}
	var nodes [][]byte
	n := len(full)
	cuts := []int{0}
	for k := 0; k < r.IntN(3); k++ {
		cuts = append(cuts, r.IntN(n+1))
	}
	cuts = append(cuts, n)
	slices.Sort(cuts)
	for i := 1; i < len(cuts); i++ {
		lo, hi := cuts[i-1], cuts[i]
		part := full[lo:hi]
		var node []byte
		var err error
		if fv != nil {
			var vals []T
			for j := lo; j < hi; j++ {
				if fv[j] {
					vals = append(vals, full[j])
				}
			}
			node, _, err = nullable.Encode(all.Policy(), nil, vals, fv[lo:hi])
		} else {
			node, _, err = all.Policy().Encode(nil, part)
		}
		if err != nil {
			t.Fatal(err)
		}
		nodes = append(nodes, node)
	}
	return nodes, pad
}

func roundTrip[T encoding.Integer](t *testing.T, seed uint64) {
	r := rand.New(rand.NewPCG(seed, 3))
	for _, n := range []int{1, 70, 1025, 5000} {
		ref := encodingtest.Gen[T](encodingtest.ShapeRandom, n, seed)
		var valid []bool
		if seed%2 == 1 {
			valid = make([]bool, n)
			for i := range valid {
				valid[i] = r.IntN(5) != 0
			}
		}
		vals := make([]T, n)
		for i := range vals {
			base := ref[i]
			if valid != nil && !valid[i] {
				base = 0 // a null reference value counts as 0
			}
			vals[i] = base + T(r.IntN(9)) - 4 // wraps at the type's ends
			if r.IntN(200) == 0 {
				vals[i] = T(r.Uint64()) // an outlier
			}
		}
		refVals := make([]T, n)
		for i := range refVals {
			if valid == nil || valid[i] {
				refVals[i] = ref[i]
			}
		}
		node, tree, err := correlated.Encode(all.Policy(), nil, vals, refVals, 4, nil)
		if err != nil {
			t.Fatal(err)
		}
		if tree.Kind != encoding.KindCorrelated {
			t.Fatalf("tree %v", tree)
		}
		pieces, skip := split(t, ref, valid, r.IntN(40), r)
		opts := *all.Options()
		opts.Resolver = &refResolver{stream: 4, pieces: pieces, skip: skip, opts: all.Options()}
		d, err := encoding.OpenTyped[T](node, 0, &opts)
		if err != nil {
			t.Fatalf("n %d: %v", n, err)
		}
		encodingtest.CheckReader(t, d, vals, seed)
	}
}

// TestRoundTrip encodes every integer type relative to a reference split
// into pieces (with nulls in half of the cases) and reads it back through
// every cursor path, gathers and filters.
func TestRoundTrip(t *testing.T) {
	for seed := uint64(0); seed < 4; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			t.Run("int8", func(t *testing.T) { roundTrip[int8](t, seed) })
			t.Run("int16", func(t *testing.T) { roundTrip[int16](t, seed) })
			t.Run("int32", func(t *testing.T) { roundTrip[int32](t, seed) })
			t.Run("int64", func(t *testing.T) { roundTrip[int64](t, seed) })
			t.Run("uint8", func(t *testing.T) { roundTrip[uint8](t, seed) })
			t.Run("uint16", func(t *testing.T) { roundTrip[uint16](t, seed) })
			t.Run("uint32", func(t *testing.T) { roundTrip[uint32](t, seed) })
			t.Run("uint64", func(t *testing.T) { roundTrip[uint64](t, seed) })
		})
	}
}

// TestSmallDifference checks the point of the encoding: a date 1..30 days
// after another costs 5 bits a row, and an unsigned column just below its
// reference costs its small signed difference, not the type's width.
func TestSmallDifference(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	ship := make([]int32, 8192)
	receipt := make([]int32, len(ship))
	below := make([]uint32, len(ship))
	base := make([]uint32, len(ship))
	for i := range ship {
		ship[i] = 8036 + int32(r.IntN(2500))
		receipt[i] = ship[i] + 1 + int32(r.IntN(30))
		base[i] = uint32(r.IntN(1 << 30))
		below[i] = base[i] - uint32(r.IntN(8))
	}
	p := all.Policy()
	p.Zstd = false
	node, _, err := correlated.Encode(p, nil, receipt, ship, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if bits := float64(len(node)) * 8 / float64(len(ship)); bits > 5.2 {
		t.Errorf("receipt relative to ship: %.2f bits per row", bits)
	}
	node, _, err = correlated.Encode(p, nil, below, base, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if bits := float64(len(node)) * 8 / float64(len(ship)); bits > 3.2 {
		t.Errorf("unsigned just below its reference: %.2f bits per row", bits)
	}
}

// TestHostile checks malformed Correlated nodes and bad references fail
// with a sentinel error.
func TestHostile(t *testing.T) {
	ref := []int32{5, 6, 7, 8}
	good, _, err := correlated.Encode(all.Policy(), nil, []int32{6, 7, 8, 9}, ref, 4, nil)
	if err != nil {
		t.Fatal(err)
	}
	refNode, _, _ := all.Policy().Encode(nil, ref)
	short, _, _ := all.Policy().Encode(nil, ref[:3])
	i64, _, _ := all.Policy().Encode(nil, []int64{1, 2, 3, 4})
	diff := encodingtest.Child(t, []int32{1, 1, 1, 1}, encodingtest.T(encoding.KindTrivial))
	for _, c := range []struct {
		name   string
		node   []byte
		pieces [][]byte
	}{
		{"float", encodingtest.Node(encoding.KindCorrelated, encoding.Float64, 4, []byte{4}, diff), [][]byte{refNode}},
		{"missing difference", encodingtest.Node(encoding.KindCorrelated, encoding.Int32, 4, []byte{4}), [][]byte{refNode}},
		{"difference of the wrong type", encodingtest.Node(encoding.KindCorrelated, encoding.Int32, 4, []byte{4}, encodingtest.Child(t, []int64{1, 1, 1, 1}, encodingtest.T(encoding.KindTrivial))), [][]byte{refNode}},
		{"difference of other rows", encodingtest.Node(encoding.KindCorrelated, encoding.Int32, 4, []byte{4}, encodingtest.Child(t, []int32{1, 1}, encodingtest.T(encoding.KindTrivial))), [][]byte{refNode}},
		{"trailing bytes", append(append([]byte(nil), good...), 9), [][]byte{refNode}},
		{"missing stream", encodingtest.Node(encoding.KindCorrelated, encoding.Int32, 4, []byte{9}, diff), [][]byte{refNode}},
		{"huge stream id", encodingtest.Node(encoding.KindCorrelated, encoding.Int32, 4, []byte{0xff, 0xff, 0xff, 0xff, 0x7f}, diff), [][]byte{refNode}},
		{"reference too short", good, [][]byte{short}},
		{"reference of another type", good, [][]byte{i64}},
	} {
		opts := *all.Options()
		opts.Resolver = &refResolver{stream: 4, pieces: c.pieces, opts: all.Options()}
		err := encodingtest.Exercise(c.node, &opts)
		if err == nil {
			t.Errorf("%s: decoded without error", c.name)
			continue
		}
		if !errors.Is(err, encoding.ErrCorrupt) && !errors.Is(err, encoding.ErrUnsupported) && !errors.Is(err, encoding.ErrLimit) {
			t.Errorf("%s: %v wraps no sentinel", c.name, err)
		}
	}
	// without a resolver
	if _, err := encoding.Open(good, all.Options()); !errors.Is(err, encoding.ErrUnsupported) {
		t.Errorf("open without resolver: %v", err)
	}
}

// FuzzDecode decodes arbitrary Correlated nodes against arbitrary
// reference nodes (split in two pieces at an arbitrary skip): a refusal
// (an error wrapping ErrCorrupt, ErrLimit or ErrUnsupported) is fine; a
// panic, an error that wraps no sentinel or read paths that disagree are
// not.
func FuzzDecode(f *testing.F) {
	r := rand.New(rand.NewPCG(7, 7))
	for _, n := range []int{3, 100, 1100} {
		ref := encodingtest.Gen[int32](encodingtest.ShapeRandom, n, 1)
		vals := make([]int32, n)
		for i := range vals {
			vals[i] = ref[i] + int32(r.IntN(31))
		}
		node, _, _ := correlated.Encode(all.Policy(), nil, vals, ref, 2, nil)
		a, _, _ := all.Policy().Encode(nil, ref[:n/2])
		b, _, _ := all.Policy().Encode(nil, ref[n/2:])
		f.Add(node, a, b, uint16(0))
		vals64 := make([]uint64, n)
		ref64 := make([]uint64, n)
		for i := range vals64 {
			ref64[i] = r.Uint64()
			vals64[i] = ref64[i] - uint64(r.IntN(5))
		}
		node, _, _ = correlated.Encode(all.Policy(), nil, vals64, ref64, 2, nil)
		a, _, _ = all.Policy().Encode(nil, append(make([]uint64, 3), ref64...))
		f.Add(node, a, []byte{}, uint16(3))
	}
	f.Fuzz(func(t *testing.T, node, a, b []byte, skip uint16) {
		opts := encodingtest.FuzzOptions(all.Registry())
		pieces := [][]byte{a}
		if len(b) > 0 {
			pieces = append(pieces, b)
		}
		opts.Resolver = &refResolver{stream: 2, pieces: pieces, skip: int(skip), opts: encodingtest.FuzzOptions(all.Registry())}
		if err := encodingtest.Exercise(node, opts); !encodingtest.IsRefusal(err) {
			t.Fatal(err)
		}
	})
}
