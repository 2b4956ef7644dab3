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
	"strata/encoding/internal/cascade/cascadetest"
	"strata/encoding/nullable"
)

const kFC = encoding.KindFrontCoding

func bytesOf(vs ...string) encoding.Bytes {
	var b encoding.Bytes
	b.Offsets = append(b.Offsets, 0)
	for _, v := range vs {
		b.Append([]byte(v))
	}
	return b
}

// forced returns a policy that encodes the root with FrontCoding whatever
// the data, and matching options.
func forced() (*encoding.Policy, *encoding.Options) {
	return cascadetest.Setup(frontcoding.Codec, nil)
}

// textShapes returns n values in each text shape the encoding is meant for
// and some it is not.
func textShapes(n int, seed uint64) map[string][]string {
	r := rand.New(rand.NewPCG(seed, uint64(n)))
	word := func(alpha string, lo, hi int) string {
		l := lo + r.IntN(hi-lo+1)
		var sb strings.Builder
		as := []rune(alpha)
		for i := 0; i < l; i++ {
			sb.WriteRune(as[r.IntN(len(as))])
		}
		return sb.String()
	}
	out := map[string][]string{}
	sorted := make([]string, n)
	for i := range sorted {
		sorted[i] = word("abcdefghij", 0, 12)
	}
	slices.Sort(sorted)
	out["sorted"] = sorted
	// clustered: runs of values sharing a stem, stems in random order
	var cl []string
	for len(cl) < n {
		stem := word("ABCDEFGH ", 3, 20)
		for k := 1 + r.IntN(30); k > 0 && len(cl) < n; k-- {
			cl = append(cl, stem+word("xyz", 0, 4))
		}
	}
	out["clustered"] = cl
	rnd := make([]string, n)
	for i := range rnd {
		rnd[i] = word("qwertyuiop", 0, 30)
	}
	out["random"] = rnd
	emp := make([]string, n)
	for i := range emp {
		if r.IntN(3) > 0 {
			emp[i] = word("ab", 0, 3)
		}
	}
	out["empties"] = emp
	utf := make([]string, n)
	for i := range utf {
		utf[i] = word("äöüßéλπжи中文字😀", 0, 8)
	}
	slices.Sort(utf)
	out["utf8-sorted"] = utf
	eq := make([]string, n)
	w := word("abc", 5, 9)
	for i := range eq {
		eq[i] = w
	}
	out["all-equal"] = eq
	bin := make([]string, n)
	for i := range bin {
		b := make([]byte, r.IntN(10))
		for k := range b {
			b[k] = []byte{0, 0xff, 0xfe, 1, 'a'}[r.IntN(5)]
		}
		bin[i] = string(b)
	}
	slices.Sort(bin)
	out["binary-sorted"] = bin
	return out
}

func TestRoundTrip(t *testing.T) {
	p, opts := forced()
	for _, n := range cascadetest.Lengths() {
		for name, vals := range textShapes(n, 1) {
			t.Run(fmt.Sprintf("%s/%d", name, n), func(t *testing.T) {
				checkNode(t, p, opts, bytesOf(vals...))
			})
		}
		for _, shape := range encodingtest.Shapes {
			t.Run(fmt.Sprintf("%s/%d", shape, n), func(t *testing.T) {
				checkNode(t, p, opts, encodingtest.GenBytes(shape, n, uint64(n)+3))
			})
		}
	}
}

func TestLong(t *testing.T) {
	p, opts := forced()
	long := strings.Repeat("the quick brown fox ", 4000) // 80 000 bytes
	vals := []string{long, long + "a", long + "b", long[:70000], "", long, "z"}
	checkNode(t, p, opts, bytesOf(vals...))
	var many []string
	for i := 0; i < 300; i++ {
		many = append(many, long[:1000+i*7])
	}
	checkNode(t, p, opts, bytesOf(many...))
}

// checkNode round-trips vals through every read path and checks the
// predicates that matter for front coding: values present, values between
// neighbours, prefixes, IN sets, empty operands.
func checkNode(t *testing.T, p *encoding.Policy, opts *encoding.Options, vals encoding.Bytes) {
	t.Helper()
	node := encodingtest.RoundTripBytes(t, p, opts, vals)
	if k := encoding.Kind(node[0]); k != kFC {
		t.Fatalf("root encoded as %v", k)
	}
	r, err := encoding.OpenBinary(node, 0, opts)
	if err != nil {
		t.Fatal(err)
	}
	checkFilters(t, r, vals, 5)
	checkInterleaved(t, r, vals, 9)
}

func preds(vals encoding.Bytes, rng *rand.Rand) []*encoding.BytesPred {
	n := vals.Len()
	var ops []*encoding.BytesPred
	pick := func() []byte { return vals.Value(rng.IntN(n)) }
	between := func() []byte { v := bytes.Clone(pick()); return append(v, 0x80) }
	for _, a := range [][]byte{nil, {}, {0xff, 0xff}, pick(), pick(), between(), between()} {
		b := pick()
		lo, hi := a, b
		if bytes.Compare(lo, hi) > 0 {
			lo, hi = hi, lo
		}
		for _, op := range []encoding.Op{encoding.OpEq, encoding.OpNe, encoding.OpLt, encoding.OpLe, encoding.OpGt, encoding.OpGe} {
			ops = append(ops, &encoding.BytesPred{Op: op, A: a})
		}
		ops = append(ops, &encoding.BytesPred{Op: encoding.OpBetween, A: lo, B: hi},
			&encoding.BytesPred{Op: encoding.OpBetween, A: hi, B: lo},
			&encoding.BytesPred{Op: encoding.OpPrefix, A: a[:min(len(a), 1+rng.IntN(3))]},
			&encoding.BytesPred{Op: encoding.OpPrefix, A: a})
		set := [][]byte{a, b, between()}
		slices.SortFunc(set, bytes.Compare)
		set = slices.CompactFunc(set, bytes.Equal)
		ops = append(ops, &encoding.BytesPred{Op: encoding.OpIn, Set: set})
	}
	return ops
}

// checkFilters runs many predicates over windows of the node against Match.
func checkFilters(t *testing.T, r encoding.BinaryReader, vals encoding.Bytes, seed uint64) {
	t.Helper()
	n := vals.Len()
	if n == 0 {
		return
	}
	f := r.(encoding.BinaryFilterer)
	rng := rand.New(rand.NewPCG(seed, uint64(n)))
	for _, p := range preds(vals, rng) {
		start := 0
		if rng.IntN(2) == 0 {
			start = rng.IntN(n)
		}
		k := n - start
		if rng.IntN(2) == 0 {
			k = 1 + rng.IntN(n-start)
		}
		sel := encoding.NewBitmap(k, true)
		for i := 0; i < k; i += 1 + rng.IntN(5) {
			if rng.IntN(4) == 0 {
				sel.Clear(i)
			}
		}
		pre := slices.Clone(sel)
		r.Reset()
		if err := r.Skip(start); err != nil {
			t.Fatal(err)
		}
		if err := f.FilterBinary(p, k, sel); err != nil {
			t.Fatalf("FilterBinary %v: %v", p.Op, err)
		}
		if r.Pos() != start+k {
			t.Fatalf("Pos after filter = %d, want %d", r.Pos(), start+k)
		}
		for i := 0; i < k; i++ {
			want := pre.Get(i) && p.Match(vals.Value(start+i))
			if sel.Get(i) != want {
				t.Fatalf("FilterBinary %v %q %q at row %d (%q): got %v, want %v", p.Op, p.A, p.B, start+i, vals.Value(start+i), sel.Get(i), want)
			}
		}
	}
}

// checkInterleaved mixes Skip, ReadBinary into a non-empty buffer, Gather
// and Filter on one decoder.
func checkInterleaved(t *testing.T, r encoding.BinaryReader, vals encoding.Bytes, seed uint64) {
	t.Helper()
	n := vals.Len()
	rng := rand.New(rand.NewPCG(seed, uint64(n)))
	r.Reset()
	got := bytesOf("prefix")
	var want []int
	for pos := 0; pos < n; {
		k := 1 + rng.IntN(min(n-pos, 200))
		switch rng.IntN(4) {
		case 0:
			if err := r.Skip(k); err != nil {
				t.Fatal(err)
			}
		case 1:
			rows := []int32{int32(rng.IntN(n))}
			var g encoding.Bytes
			if err := r.(encoding.BinaryGatherer).GatherBinary(rows, &g); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(g.Value(0), vals.Value(int(rows[0]))) {
				t.Fatalf("gather %d", rows[0])
			}
			continue
		case 2:
			sel := encoding.NewBitmap(k, true)
			if err := r.(encoding.BinaryFilterer).FilterBinary(&encoding.BytesPred{Op: encoding.OpGe, A: vals.Value(pos)}, k, sel); err != nil {
				t.Fatal(err)
			}
		default:
			if err := r.ReadBinary(&got, k); err != nil {
				t.Fatal(err)
			}
			for i := 0; i < k; i++ {
				want = append(want, pos+i)
			}
		}
		pos += k
		if r.Pos() != pos {
			t.Fatalf("Pos = %d, want %d", r.Pos(), pos)
		}
	}
	if got.Len() != len(want)+1 || string(got.Value(0)) != "prefix" {
		t.Fatalf("read %d values, want %d", got.Len()-1, len(want))
	}
	for i, w := range want {
		if !bytes.Equal(got.Value(i+1), vals.Value(w)) {
			t.Fatalf("value %d = %q, want %q", w, got.Value(i+1), vals.Value(w))
		}
	}
}

func TestNulls(t *testing.T) {
	reg := cascadetest.Registry(frontcoding.Codec, true)
	p := encoding.DefaultPolicy(reg)
	p.Force = cascadetest.T(encoding.KindNullable, nil, cascadetest.T(kFC))
	opts := &encoding.Options{Registry: reg}
	for _, n := range []int{1, 9, 1025, 5000} {
		vals := textShapes(n, 4)["sorted"]
		valid := make([]bool, n)
		var present []string
		var all []string
		for i := range valid {
			valid[i] = i%3 != 1
			if valid[i] {
				present = append(present, vals[i])
				all = append(all, vals[i])
			} else {
				all = append(all, "")
			}
		}
		node, tree, err := nullable.Encode(p, nil, bytesOf(present...), valid)
		if err != nil {
			t.Fatal(err)
		}
		if tree.Children[1].Kind != kFC {
			t.Fatalf("values encoded as %v", tree)
		}
		r, err := encoding.OpenBinary(node, 0, opts)
		if err != nil {
			t.Fatal(err)
		}
		var got encoding.Bytes
		gv := make([]bool, n)
		if err := encoding.ReadBinaryNullable(r, &got, gv, n); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < n; i++ {
			if gv[i] != valid[i] || (valid[i] && string(got.Value(i)) != all[i]) {
				t.Fatalf("row %d: %q valid %v, want %q %v", i, got.Value(i), gv[i], all[i], valid[i])
			}
		}
	}
}

// TestSelection checks that the default policy picks front coding where it
// belongs (sorted words) and not on random text.
func TestSelection(t *testing.T) {
	p := all.Policy()
	vals := textShapes(8192, 2)["sorted"]
	_, tree, err := p.Encode(nil, bytesOf(vals...))
	if err != nil {
		t.Fatal(err)
	}
	if tree.Kind != kFC {
		t.Errorf("sorted words: chose %v", tree)
	}
	rnd := textShapes(8192, 2)["random"]
	_, tree, err = p.Encode(nil, bytesOf(rnd...))
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
	p, opts := forced()
	vals := textShapes(64*100, 3)["sorted"]
	node, _, err := p.Encode(nil, bytesOf(vals...))
	if err != nil {
		t.Fatal(err)
	}
	r, err := encoding.OpenBinary(node, 0, opts)
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
	node, tree, err := cascadetest.GoldenPolicy(frontcoding.Codec, cascadetest.T(kFC,
		cascadetest.T(encoding.KindFixedBitWidth), cascadetest.T(encoding.KindFixedBitWidth),
		cascadetest.T(encoding.KindTrivial))).Encode(nil, vals)
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
	u32 := func(v ...uint32) []byte { return cascadetest.Child(t, v, cascadetest.T(encoding.KindTrivial)) }
	u8 := func(s string) []byte { return cascadetest.Child(t, []uint8(s), cascadetest.T(encoding.KindTrivial)) }
	node := func(rows int, k byte, flags byte, parts ...[]byte) []byte {
		return cascadetest.Node(kFC, encoding.Binary, rows, append([][]byte{{k, flags}}, parts...)...)
	}
	good := node(3, 2, 1, u32(0, 2, 0), u32(3, 1, 2), u8("abcdxy"))
	if err := cascadetest.Exercise(good, all.Options()); err != nil {
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
		"no flags":             cascadetest.Node(kFC, encoding.Binary, 0, []byte{2}),
	}
	for name, n := range cases {
		cascadetest.WantCorrupt(t, name, n)
	}
	bad := node(3, 2, 0x80, u32(0, 2, 0), u32(3, 1, 2), u8("abcdxy"))
	if err := cascadetest.Exercise(bad, all.Options()); !errors.Is(err, encoding.ErrUnsupported) {
		t.Fatalf("unknown flag: %v", err)
	}
}

// FuzzDecode feeds arbitrary nodes to every read path.
//
//	go test ./encoding/frontcoding -run '^$' -fuzz FuzzDecode -fuzztime 60s
func FuzzDecode(f *testing.F) {
	p, _ := forced()
	p.Zstd = false
	for name, vals := range textShapes(300, 5) {
		if name == "random" {
			continue
		}
		if node, _, err := p.Encode(nil, bytesOf(vals...)); err == nil && len(node) < 1<<11 {
			f.Add(node)
		}
	}
	opts := cascadetest.FuzzOptions(all.Registry())
	f.Fuzz(func(t *testing.T, node []byte) {
		err := cascadetest.Exercise(node, opts)
		if err != nil && !errors.Is(err, encoding.ErrCorrupt) && !errors.Is(err, encoding.ErrLimit) && !errors.Is(err, encoding.ErrUnsupported) {
			t.Fatalf("unwrapped error: %v", err)
		}
		if err != nil || len(node) < 2 || encoding.Kind(node[0]) != kFC {
			return
		}
		// A node that decodes must decode the same through every path.
		d, err := encoding.OpenBinary(node, 0, opts)
		if err != nil {
			t.Fatal(err)
		}
		n := min(d.Len(), 4096)
		var all encoding.Bytes
		if err := d.ReadBinary(&all, n); err != nil {
			t.Fatalf("read after a good decode: %v", err)
		}
		rows := make([]int32, 0, n)
		for i := 0; i < n; i += 3 {
			rows = append(rows, int32(i))
		}
		var got encoding.Bytes
		if err := d.(encoding.BinaryGatherer).GatherBinary(rows, &got); err != nil {
			t.Fatalf("gather after a good read: %v", err)
		}
		for i, r := range rows {
			if !bytes.Equal(got.Value(i), all.Value(int(r))) {
				t.Fatalf("row %d: gather %q, read %q", r, got.Value(i), all.Value(int(r)))
			}
		}
	})
}

// FuzzRoundTrip encodes arbitrary values (split from the input at 0x00)
// and checks they decode back exactly.
//
//	go test ./encoding/frontcoding -run '^$' -fuzz FuzzRoundTrip -fuzztime 60s
func FuzzRoundTrip(f *testing.F) {
	f.Add([]byte("apple\x00applesauce\x00apply\x00\x00b"), uint8(3))
	f.Add([]byte("\x00\x00\x00"), uint8(0))
	f.Add([]byte("äöü\x00äöx\x00中文\x00中"), uint8(1))
	p, opts := forced()
	f.Fuzz(func(t *testing.T, in []byte, sortIt uint8) {
		parts := strings.Split(string(in), "\x00")
		if sortIt%2 == 1 {
			slices.Sort(parts)
		}
		vals := bytesOf(parts...)
		node := encodingtest.RoundTripBytes(t, p, opts, vals)
		r, err := encoding.OpenBinary(node, 0, opts)
		if err != nil {
			t.Fatal(err)
		}
		checkFilters(t, r, vals, uint64(sortIt))
	})
}
