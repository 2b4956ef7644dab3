package dict_test

import (
	"bytes"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"strata/encoding"
	"strata/encoding/all"
	"strata/encoding/dict"
	"strata/encoding/encodingtest"
)

const (
	kDict  = encoding.KindDictionary
	kTriv  = encoding.KindTrivial
	kFBW   = encoding.KindFixedBitWidth
	kConst = encoding.KindConstant
)

func bytesOf(vs ...string) encoding.Bytes {
	var b encoding.Bytes
	for _, v := range vs {
		b.Append([]byte(v))
	}
	return b
}

func TestGolden(t *testing.T) {
	nz := math.Copysign(0, -1)
	nan2 := math.Float64frombits(0x7ff8000000000123)
	cases := []struct {
		name string
		vals any
		tree *encoding.Tree
	}{
		{"int64-trivial-fbw", []int64{30, -5, 30, 30, 7, -5, 30}, encodingtest.T(kDict, encodingtest.T(kTriv), encodingtest.T(kFBW))},
		{"float64-order", []float64{1, math.NaN(), 0, nz, nan2, math.Inf(-1), 0, 1, nz}, encodingtest.T(kDict, encodingtest.T(kTriv), encodingtest.T(kFBW))},
		{"binary-trivial-fbw", bytesOf("pear", "apple", "pear", "", "apple", "pear"), encodingtest.T(kDict, encodingtest.T(kTriv, encodingtest.T(kFBW)), encodingtest.T(kFBW))},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			node, tree, err := encodingtest.GoldenPolicy(dict.Codec, c.tree).Encode(nil, c.vals)
			if err != nil {
				t.Fatal(err)
			}
			if tree.String() != c.tree.String() {
				t.Fatalf("tree %v, want %v", tree, c.tree)
			}
			encodingtest.Golden(t, c.name, node)
			encodingtest.CheckNode(t, node, all.Options(), c.vals, nil)
		})
	}
}

// TestAlphabetOrder checks the float order: numbers ascending, -0 before +0,
// NaNs last by bits; and that predicates become id ranges.
func TestAlphabetOrder(t *testing.T) {
	nz := math.Copysign(0, -1)
	nan1, nan2 := math.Float64frombits(0x7ff8000000000001), math.Float64frombits(0xfff8000000000000)
	vals := []float64{nan2, 2, 0, nan1, nz, -1, 2, 0, nz, -1, nan1, nan2}
	node, _, err := encodingtest.GoldenPolicy(dict.Codec, encodingtest.T(kDict)).Encode(nil, vals)
	if err != nil {
		t.Fatal(err)
	}
	r, err := encoding.OpenTyped[float64](node, 0, all.Options())
	if err != nil {
		t.Fatal(err)
	}
	d := r.(dict.Dictionary[float64])
	got := d.Alphabet()
	want := []uint64{math.Float64bits(-1), math.Float64bits(nz), 0, math.Float64bits(2), 0x7ff8000000000001, 0xfff8000000000000}
	if len(got) != len(want) {
		t.Fatalf("alphabet %v", got)
	}
	for i := range want {
		if math.Float64bits(got[i]) != want[i] {
			t.Fatalf("alphabet[%d] = %x, want %x", i, math.Float64bits(got[i]), want[i])
		}
	}
	if _, _, ok := r.(encoding.Bounder[float64]).Bounds(); ok {
		t.Fatal("bounds known despite NaN")
	}
	lo, hi, set := d.MatchingIDs(&encoding.Pred[float64]{Op: encoding.OpEq, A: 0})
	if lo != 1 || hi != 3 || set != nil {
		t.Fatalf("Eq 0 ids [%d,%d) %v", lo, hi, set)
	}
	lo, hi, set = d.MatchingIDs(&encoding.Pred[float64]{Op: encoding.OpGe, A: 0})
	if lo != 1 || hi != 4 || set != nil {
		t.Fatalf("Ge 0 ids [%d,%d) %v", lo, hi, set)
	}
	_, _, set = d.MatchingIDs(&encoding.Pred[float64]{Op: encoding.OpNe, A: 2})
	if set == nil || set.Get(3) || !set.Get(4) || !set.Get(0) {
		t.Fatalf("Ne 2 set %v", set)
	}
	ids := make([]uint32, len(vals))
	if err := d.ReadIDs(ids); err != nil {
		t.Fatal(err)
	}
	for i, id := range ids {
		if math.Float64bits(got[id]) != math.Float64bits(vals[i]) {
			t.Fatalf("id %d -> %v, want %v", i, got[id], vals[i])
		}
	}
	g := make([]uint32, 2)
	if err := d.GatherIDs([]int32{1, 11}, g); err != nil || g[0] != ids[1] || g[1] != ids[11] {
		t.Fatalf("GatherIDs = %v, %v", g, err)
	}
}

func TestBinaryDictionary(t *testing.T) {
	vals := bytesOf("kiwi", "apple", "kiwi", "apricot", "banana", "apple")
	node, _, err := encodingtest.GoldenPolicy(dict.Codec, encodingtest.T(kDict)).Encode(nil, vals)
	if err != nil {
		t.Fatal(err)
	}
	r, err := encoding.OpenBinary(node, 0, all.Options())
	if err != nil {
		t.Fatal(err)
	}
	d := r.(dict.BinaryDictionary)
	a := d.BinaryAlphabet()
	if a.Len() != 4 || !bytes.Equal(a.Value(0), []byte("apple")) || !bytes.Equal(a.Value(3), []byte("kiwi")) {
		t.Fatalf("alphabet %q", a.Data)
	}
	lo, hi, set := d.MatchingBinaryIDs(&encoding.BytesPred{Op: encoding.OpPrefix, A: []byte("ap")})
	if lo != 0 || hi != 2 || set != nil {
		t.Fatalf("prefix ap ids [%d,%d)", lo, hi)
	}
	lo, hi, _ = d.MatchingBinaryIDs(&encoding.BytesPred{Op: encoding.OpEq, A: []byte("zz")})
	if lo < hi {
		t.Fatalf("Eq zz matched ids [%d,%d)", lo, hi)
	}
}

func TestHostile(t *testing.T) {
	alpha := func(v ...int32) []byte { return encodingtest.Child(t, v, encodingtest.T(kTriv)) }
	ids := func(v ...uint32) []byte { return encodingtest.Child(t, v, encodingtest.T(kTriv)) }
	cases := map[string][]byte{
		"id beyond alphabet": encodingtest.Node(kDict, encoding.Int32, 3, alpha(1, 2), ids(0, 2, 1)),
		"unsorted alphabet":  encodingtest.Node(kDict, encoding.Int32, 3, alpha(2, 1), ids(0, 1, 1)),
		"duplicate entry":    encodingtest.Node(kDict, encoding.Int32, 3, alpha(1, 1), ids(0, 1, 1)),
		"alphabet > rows":    encodingtest.Node(kDict, encoding.Int32, 1, alpha(1, 2), ids(0)),
		"empty alphabet":     encodingtest.Node(kDict, encoding.Int32, 2, alpha(), ids(0, 0)),
		"ids count":          encodingtest.Node(kDict, encoding.Int32, 3, alpha(1, 2), ids(0, 1)),
		"trailing":           encodingtest.Node(kDict, encoding.Int32, 2, alpha(1, 2), ids(0, 1), []byte{1}),
		"bool":               encodingtest.Node(kDict, encoding.Bool, 2, encodingtest.Child(t, []bool{true}, encodingtest.T(kTriv)), ids(0, 0)),
		"const bad ids":      encodingtest.Node(kDict, encoding.Int32, 5000, alpha(1, 2), encodingtest.Child(t, repeat(7, 5000), encodingtest.T(kConst))),
		"binary unsorted":    encodingtest.Node(kDict, encoding.Binary, 2, encodingtest.Child(t, bytesOf("b", "a"), encodingtest.T(kTriv, encodingtest.T(kFBW))), ids(0, 1)),
	}
	// An id beyond the alphabet on every path that materializes binary
	// values: one-byte, 8-byte-slot and wider fixed-length alphabets, and
	// variable lengths in 8-, 16- and 32-byte slots or none.
	for name, alphabet := range map[string][]string{
		"len 1": {"a", "b"}, "len 5": {"aaaaa", "bbbbb"}, "len 12": {"aaaaaaaaaaaa", "bbbbbbbbbbbb"},
		"slot 8": {"a", "bbbbb"}, "slot 16": {"a", "bbbbbbbbbbbb"}, "slot 32": {"a", strings.Repeat("b", 30)},
		"no slot": {"a", strings.Repeat("b", 40)},
	} {
		cases["binary id beyond alphabet, "+name] = encodingtest.Node(kDict, encoding.Binary, 3, encodingtest.Child(t, bytesOf(alphabet...), encodingtest.T(kTriv, encodingtest.T(kFBW))), ids(0, 2, 1))
	}
	for name, node := range cases {
		if name == "bool" {
			if err := encodingtest.Exercise(node, all.Options()); err == nil {
				t.Fatalf("bool dictionary decoded")
			}
			continue
		}
		encodingtest.WantCorrupt(t, name, node)
	}
}

func repeat(v uint32, n int) []uint32 {
	out := make([]uint32, n)
	for i := range out {
		out[i] = v
	}
	return out
}

func BenchmarkDict(b *testing.B) {
	const n = 1 << 16
	vals := encodingtest.Gen[int64](encodingtest.ShapeLowCard, n, 1)
	r := encodingtest.OpenForced(b, kDict, vals)
	encodingtest.BenchRead(b, "read", r, vals)
	encodingtest.BenchFilter(b, "filter-eq", r, &encoding.Pred[int64]{Op: encoding.OpEq, A: vals[7]})
	p := all.Policy()
	p.Force = encodingtest.T(kDict)
	b.Run("encode", func(b *testing.B) {
		b.SetBytes(8 * n)
		for b.Loop() {
			if _, _, err := p.Encode(nil, vals); err != nil {
				b.Fatal(err)
			}
		}
	})
	bv := encodingtest.GenBytes(encodingtest.ShapeLowCard, n, 1)
	bnode, _, err := p.Encode(nil, bv)
	if err != nil {
		b.Fatal(err)
	}
	br, err := encoding.OpenBinary(bnode, 0, all.Options())
	if err != nil {
		b.Fatal(err)
	}
	b.Run("read-binary", func(b *testing.B) {
		b.SetBytes(int64(len(bv.Data)))
		var out encoding.Bytes
		for b.Loop() {
			br.Reset()
			out.Reset()
			if err := br.ReadBinary(&out, n); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("memcpy-binary", func(b *testing.B) {
		b.SetBytes(int64(len(bv.Data)))
		out := encoding.Bytes{Offsets: make([]int32, n+1), Data: make([]byte, len(bv.Data))}
		for b.Loop() {
			copy(out.Offsets, bv.Offsets)
			copy(out.Data, bv.Data)
		}
	})
}

// TestSelected checks the default policy picks Dictionary where it obviously
// pays: few distinct long strings, few distinct 64-bit values.
func TestSelected(t *testing.T) {
	words := []string{"alpha-centauri", "betelgeuse", "cassiopeia", "deneb-algedi"}
	var b encoding.Bytes
	ints := make([]int64, 20000)
	alpha := []int64{7, 0x1234567890123, 0x1234567890124, 0x369D0368B0369, 0x48D159E24048D}
	rng := rand.New(rand.NewPCG(5, 13))
	for i := range ints {
		b.Append([]byte(words[(i*7)%len(words)]))
		// in no period (a sequence with one is LagDelta's) and on no
		// common step (values on one are Scaled's)
		ints[i] = alpha[rng.IntN(len(alpha))]
	}
	for _, vals := range []any{b, ints} {
		_, tree, err := all.Policy().Encode(nil, vals)
		if err != nil {
			t.Fatal(err)
		}
		if tree.Kind != kDict {
			t.Errorf("%T encoded as %v", vals, tree)
		}
	}
}

// TestPaddedAlphabets covers the slot-store materialization: alphabets whose
// longest value needs a 16-byte slot, a 32-byte slot, or no slot at all.
// TestFixedLengthAlphabets covers the paths for alphabets whose entries
// all have one length: one byte, up to 8 bytes, and longer.
func TestFixedLengthAlphabets(t *testing.T) {
	for _, l := range []int{0, 1, 2, 5, 8, 9, 12, 33} {
		var alpha [][]byte
		for k := 0; k < 7 && (l > 0 || k == 0); k++ {
			alpha = append(alpha, bytes.Repeat([]byte{byte('a' + k)}, l))
		}
		var vals encoding.Bytes
		for i := 0; i < 5000; i++ {
			vals.Append(alpha[(i*7+i/13)%len(alpha)])
		}
		p := all.Policy()
		p.Force = encodingtest.T(kDict)
		node := encodingtest.RoundTrip(t, p, all.Options(), vals)
		if node[0] != byte(encoding.KindDictionary) {
			t.Fatalf("length %d: root is %v, want Dictionary", l, encoding.Kind(node[0]))
		}
	}
}

func TestPaddedAlphabets(t *testing.T) {
	for _, longest := range []int{0, 1, 15, 16, 17, 31, 32, 33, 100} {
		alpha := [][]byte{nil}
		for l := 1; l <= longest; l += 1 + l/4 {
			w := make([]byte, l)
			for i := range w {
				w[i] = byte('a' + (i+l)%26)
			}
			alpha = append(alpha, w)
		}
		var vals encoding.Bytes
		for i := 0; i < 5000; i++ {
			vals.Append(alpha[(i*7+i/13)%len(alpha)])
		}
		p := all.Policy()
		p.Force = encodingtest.T(kDict)
		node := encodingtest.RoundTrip(t, p, all.Options(), vals)
		if node[0] != byte(encoding.KindDictionary) {
			t.Fatalf("longest %d: root is %v, want Dictionary", longest, encoding.Kind(node[0]))
		}
	}
}

// TestOneLengthAlphabets covers the decode paths of alphabets whose entries
// all have one length (1, 2–8, 9–16 and longer bytes), with alphabets
// larger than the padded table's limit, on every read path; and that the
// encoder reports such alphabets to selection (Tree.FixedLength) and no
// others.
func TestOneLengthAlphabets(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 9))
	for _, l := range []int{1, 2, 3, 8, 9, 16, 17} {
		for _, d := range []int{3, 4200} {
			if l == 1 && d > 256 {
				continue
			}
			alpha := make([][]byte, d)
			seen := map[string]bool{}
			for i := range alpha {
				for {
					v := make([]byte, l)
					for k := range v {
						v[k] = byte(r.IntN(256))
						if l == 1 {
							v[k] = byte(i)
						}
					}
					if !seen[string(v)] {
						seen[string(v)] = true
						alpha[i] = v
						break
					}
				}
			}
			var vals encoding.Bytes
			for i := 0; i < 2*d+100; i++ {
				vals.Append(alpha[r.IntN(d)])
			}
			node, tree, err := encodingtest.GoldenPolicy(dict.Codec, nil).EncodeWith(nil, vals, kDict)
			if err != nil {
				t.Fatalf("len %d, %d entries: %v", l, d, err)
			}
			if !tree.FixedLength() {
				t.Errorf("len %d, %d entries: the encoder did not report one length", l, d)
			}
			// selection charges the node the codec's one-length cost
			own := tree.Time()
			for _, ch := range tree.Children {
				own -= ch.Time()
			}
			want, ok := dict.Codec.Decode.FixedTime(vals.Len(), len(vals.Data))
			if !ok || math.Abs(own-want) > 1e-6*want {
				t.Errorf("len %d, %d entries: own decode time %g, want the one-length cost %g", l, d, own, want)
			}
			encodingtest.CheckNode(t, node, all.Options(), vals, nil)
		}
	}
	mixed := bytesOf("a", "bb", "a", "bb", "a", "bb")
	_, tree, err := encodingtest.GoldenPolicy(dict.Codec, nil).EncodeWith(nil, mixed, kDict)
	if err != nil {
		t.Fatal(err)
	}
	if tree.FixedLength() {
		t.Error("an alphabet of two lengths was reported as one length")
	}
}

// TestShortValues round-trips a dictionary of values short enough to be
// their own hash-table keys (at most 7 bytes): the empty value, zero
// bytes and values that are prefixes of one another must stay apart, and
// so must they beside one longer value (hashed keys then).
func TestShortValues(t *testing.T) {
	short := []string{"", "\x00", "\x00\x00", "a", "a\x00", "\x00a", "ab", "REG AIR", "\xff\xff\xff\xff\xff\xff\xff"}
	for _, words := range [][]string{short, append(short, "8 bytes!")} {
		var vals []string
		for i := 0; i < 500; i++ {
			vals = append(vals, words[(i*7)%len(words)])
		}
		b := bytesOf(vals...)
		node, _, err := encodingtest.GoldenPolicy(dict.Codec, encodingtest.T(kDict)).Encode(nil, b)
		if err != nil {
			t.Fatal(err)
		}
		r, err := encoding.OpenBinary(node, 0, all.Options())
		if err != nil {
			t.Fatal(err)
		}
		if n := r.(dict.BinaryDictionary).BinaryAlphabet().Len(); n != len(words) {
			t.Errorf("%d distinct values, alphabet of %d", len(words), n)
		}
		encodingtest.CheckBinaryReader(t, r, b, 1)
	}
}
