package frontcoding_test

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"strata/encoding"
	"strata/encoding/all"
	"strata/encoding/encodingtest"
	"strata/encoding/frontcoding"
)

// The shared suite (suite_test.go) checks FrontCoding on every shape,
// sorted and prefix-sharing text among them, with and without nulls. The
// tests here cover what is particular to it: sorted nodes over bytes the
// suite's sorted shapes lack, values longer than any in the suite,
// filters with operands between neighbours (the restart-key search),
// blocks a sorted filter settles without decoding, selection, golden
// bytes and hand-made corrupt nodes.

const kFC = encoding.KindFrontCoding

func bytesOf(vs ...string) encoding.Bytes {
	var b encoding.Bytes
	b.Offsets = append(b.Offsets, 0)
	for _, v := range vs {
		b.Append([]byte(v))
	}
	return b
}

// encode encodes vals with FrontCoding at the root.
func encode(t testing.TB, vals encoding.Bytes) []byte {
	t.Helper()
	node, tree, err := all.Policy().EncodeWith(nil, vals, kFC)
	if err != nil {
		t.Fatal(err)
	}
	if tree.Kind != kFC {
		t.Fatalf("encoded as %v", tree)
	}
	return node
}

// sortedText returns n sorted values drawn from alpha, 0 to 12 symbols
// long.
func sortedText(n int, seed uint64, alpha ...string) []string {
	r := rand.New(rand.NewPCG(seed, uint64(n)))
	out := make([]string, n)
	for i := range out {
		var sb strings.Builder
		for k := r.IntN(13); k > 0; k-- {
			sb.WriteString(alpha[r.IntN(len(alpha))])
		}
		out[i] = sb.String()
	}
	slices.Sort(out)
	return out
}

// special returns sorted sequences (the sorted flag and restart keys)
// over multi-byte UTF-8, 0x00/0xff and many empty values, and equal and
// very long values (prefixes past 64 KiB).
func special(n int) map[string][]string {
	long := strings.Repeat("the quick brown fox ", 4000) // 80 000 bytes
	var longs []string
	for i := 0; i < min(n, 300); i++ {
		longs = append(longs, long[:1000+i*7])
	}
	return map[string][]string{
		"utf8-sorted":   sortedText(n, 1, "ä", "ö", "ß", "λ", "ж", "中", "文", "😀"),
		"binary-sorted": sortedText(n, 2, "\x00", "\xff", "\xfe", "\x01", "a"),
		"empties":       sortedText(n, 3, "a", "b", "", "", ""),
		"all-equal":     slices.Repeat([]string{"abcabcab"}, n),
		"long":          {long, long + "a", long + "b", long[:70000], "", long, "z"},
		"long-prefixes": longs,
	}
}

// TestSpecial runs the suite's checks on the special sequences.
func TestSpecial(t *testing.T) {
	for _, n := range []int{2, 65, 1025} {
		for name, vals := range special(n) {
			t.Run(fmt.Sprintf("%s/%d", name, n), func(t *testing.T) {
				encodingtest.Check(t, frontcoding.Codec, bytesOf(vals...))
			})
		}
	}
}

// operands returns predicates whose operands sit on, between and around
// the values: present values, a value extended by 0x80 (between it and its
// successor), nil, the empty value, 0xffff, short prefixes, Between with
// both bound orders, IN sets.
func operands(vals encoding.Bytes, seed uint64) []*encoding.BytesPred {
	rng := rand.New(rand.NewPCG(seed, uint64(vals.Len())))
	n := vals.Len()
	pick := func() []byte { return vals.Value(rng.IntN(n)) }
	between := func() []byte { return append(bytes.Clone(pick()), 0x80) }
	var ops []*encoding.BytesPred
	for _, a := range [][]byte{nil, {}, {0xff, 0xff}, pick(), pick(), between(), between()} {
		b := pick()
		lo, hi := a, b
		if bytes.Compare(lo, hi) > 0 {
			lo, hi = hi, lo
		}
		for _, op := range []encoding.Op{encoding.OpEq, encoding.OpNe, encoding.OpLt, encoding.OpLe, encoding.OpGt, encoding.OpGe} {
			ops = append(ops, &encoding.BytesPred{Op: op, A: a})
		}
		set := [][]byte{a, b, between()}
		slices.SortFunc(set, bytes.Compare)
		set = slices.CompactFunc(set, bytes.Equal)
		ops = append(ops, &encoding.BytesPred{Op: encoding.OpBetween, A: lo, B: hi},
			&encoding.BytesPred{Op: encoding.OpBetween, A: hi, B: lo},
			&encoding.BytesPred{Op: encoding.OpPrefix, A: a[:min(len(a), 1+rng.IntN(3))]},
			&encoding.BytesPred{Op: encoding.OpPrefix, A: a},
			&encoding.BytesPred{Op: encoding.OpIn, Set: set})
	}
	return ops
}

// TestFilterOperands checks FilterBinary, which binary-searches the
// restart keys of sorted nodes and scans blocks otherwise, against
// BytesPred.Match with operands between neighbours, on sorted and
// clustered text spanning one to many blocks.
func TestFilterOperands(t *testing.T) {
	for _, n := range []int{1, 63, 64, 65, 1000, 5000} {
		cases := map[string]encoding.Bytes{
			"sorted":    encodingtest.GenBytes(encodingtest.ShapeSorted, n, 4),
			"clustered": encodingtest.GenBytes(encodingtest.ShapeClustered, n, 4),
		}
		for name, vals := range special(n) {
			cases[name] = bytesOf(vals...)
		}
		for name, vals := range cases {
			t.Run(fmt.Sprintf("%s/%d", name, n), func(t *testing.T) {
				r, err := encoding.OpenBinary(encode(t, vals), 0, all.Options())
				if err != nil {
					t.Fatal(err)
				}
				encodingtest.CheckBinaryFilters(t, r, vals, operands(vals, 5), 5)
			})
		}
	}
}

// TestSelection checks that selection picks front coding where it is the
// smallest (sorted words, optimizing for size: the default may take a
// larger tree that decodes faster) and not on random text.
func TestSelection(t *testing.T) {
	p := all.Policy()
	p.Optimize = encoding.OptimizeSize
	vals := bytesOf(sortedText(8192, 2, "a", "b", "c", "d", "e", "f", "g", "h", "i", "j")...)
	_, tree, err := p.Encode(nil, vals)
	if err != nil {
		t.Fatal(err)
	}
	if tree.Kind != kFC {
		t.Errorf("sorted words: chose %v", tree)
	}
	p = all.Policy()
	_, tree, err = p.Encode(nil, encodingtest.GenBytes(encodingtest.ShapeRandom, 8192, 2))
	if err != nil {
		t.Fatal(err)
	}
	if tree.Kind == kFC {
		t.Errorf("random text: chose %v", tree)
	}
}

// TestSortedSkipsBlocks checks that a filter on a sorted node settles most
// blocks from the restart keys.
func TestSortedSkipsBlocks(t *testing.T) {
	vals := sortedText(64*100, 3, "a", "b", "c", "d", "e", "f", "g", "h", "i", "j")
	r, err := encoding.OpenBinary(encode(t, bytesOf(vals...)), 0, all.Options())
	if err != nil {
		t.Fatal(err)
	}
	sel := encoding.NewBitmap(len(vals), true)
	if err := r.(encoding.BinaryFilterer).FilterBinary(&encoding.BytesPred{Op: encoding.OpEq, A: []byte(vals[3000])}, len(vals), sel); err != nil {
		t.Fatal(err)
	}
	if s := r.(encoding.SkipCounter).Skipped(); s < 90 {
		t.Errorf("skipped %d blocks of 100", s)
	}
	for i, v := range vals {
		if sel.Get(i) != (v == vals[3000]) {
			t.Fatalf("row %d", i)
		}
	}
}

func TestGolden(t *testing.T) {
	vals := bytesOf("apple", "applesauce", "apply", "banana", "band", "bandana", "", "zz")
	node, tree, err := encodingtest.GoldenPolicy(frontcoding.Codec, encodingtest.T(kFC,
		encodingtest.T(encoding.KindFixedBitWidth), encodingtest.T(encoding.KindFixedBitWidth),
		encodingtest.T(encoding.KindTrivial))).Encode(nil, vals)
	if err != nil {
		t.Fatal(err)
	}
	if tree.String() != "FrontCoding(FixedBitWidth, FixedBitWidth, Trivial)" {
		t.Fatalf("tree %v", tree)
	}
	encodingtest.Golden(t, "frontcoding-binary", node)
	r, err := encoding.OpenBinary(node, 0, all.Options())
	if err != nil {
		t.Fatal(err)
	}
	encodingtest.CheckBinaryReader(t, r, vals, 1)
}

// TestCorrupt hand-builds nodes that break each rule of the format.
func TestCorrupt(t *testing.T) {
	u32 := func(v ...uint32) []byte { return encodingtest.Child(t, v, encodingtest.T(encoding.KindTrivial)) }
	u8 := func(s string) []byte { return encodingtest.Child(t, []uint8(s), encodingtest.T(encoding.KindTrivial)) }
	node := func(rows int, k byte, flags byte, parts ...[]byte) []byte {
		return encodingtest.Node(kFC, encoding.Binary, rows, append([][]byte{{k, flags}}, parts...)...)
	}
	good := node(3, 2, 1, u32(0, 2, 0), u32(3, 1, 2), u8("abcdxy"))
	if err := encodingtest.Exercise(good, all.Options()); err != nil {
		t.Fatalf("good node: %v", err)
	}
	cases := map[string][]byte{
		"interval 0":           node(3, 0, 0, u32(0, 2, 0), u32(3, 1, 2), u8("abcdxy")),
		"restart with prefix":  node(3, 2, 0, u32(0, 2, 1), u32(3, 1, 2), u8("abcdxy")),
		"prefix beyond prev":   node(3, 2, 0, u32(0, 4, 0), u32(3, 1, 2), u8("abcdxy")),
		"lengths beyond bytes": node(3, 2, 0, u32(0, 2, 0), u32(3, 1, 3), u8("abcdxy")),
		"lengths short":        node(3, 2, 0, u32(0, 2, 0), u32(3, 1, 1), u8("abcdxy")),
		"prefix rows":          node(3, 2, 0, u32(0, 2), u32(3, 1, 2), u8("abcdxy")),
		"sorted lie":           node(3, 2, 1, u32(0, 2, 0), u32(3, 1, 2), u8("xyzdab")),
		"trailing":             append(node(3, 2, 0, u32(0, 2, 0), u32(3, 1, 2), u8("abcdxy")), 0),
		"missing child":        node(3, 2, 0, u32(0, 2, 0), u32(3, 1, 2)),
		"wrong bytes type":     node(3, 2, 0, u32(0, 2, 0), u32(3, 1, 2), u32(1, 2, 3, 4, 5, 6)),
		"no flags":             encodingtest.Node(kFC, encoding.Binary, 0, []byte{2}),
	}
	for name, n := range cases {
		encodingtest.WantCorrupt(t, name, n)
	}
	bad := node(3, 2, 0x80, u32(0, 2, 0), u32(3, 1, 2), u8("abcdxy"))
	if err := encodingtest.Exercise(bad, all.Options()); !errors.Is(err, encoding.ErrUnsupported) {
		t.Fatalf("unknown flag: %v", err)
	}
}
