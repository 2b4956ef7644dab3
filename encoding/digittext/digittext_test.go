package digittext_test

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"strata/encoding"
	"strata/encoding/all"
	"strata/encoding/digittext"
	"strata/encoding/encodingtest"
	"strata/encoding/internal/cascade/cascadetest"
	"strata/encoding/nullable"
)

const kDT = encoding.KindDigitText

func bytesOf(vs ...string) encoding.Bytes {
	var b encoding.Bytes
	b.Offsets = append(b.Offsets, 0)
	for _, v := range vs {
		b.Append([]byte(v))
	}
	return b
}

func forced() (*encoding.Policy, *encoding.Options) {
	return cascadetest.Setup(digittext.Codec, nil)
}

// digitShapes returns n digit strings in each shape: fixed-width codes with
// leading zeros (zip codes), sorted and random; numbers without leading
// zeros; mixed widths with leading zeros; few distinct values; empties;
// 19-digit extremes; all equal.
func digitShapes(n int, seed uint64) map[string][]string {
	r := rand.New(rand.NewPCG(seed, uint64(n)))
	pad := func(v uint64, w int) string { return fmt.Sprintf("%0*d", w, v) }
	out := map[string][]string{}
	zips := make([]string, n)
	for i := range zips {
		zips[i] = pad(r.Uint64N(100000), 5)
	}
	out["fixed-random"] = zips
	sz := slices.Clone(zips)
	slices.Sort(sz)
	out["fixed-sorted"] = sz
	nums := make([]string, n)
	for i := range nums {
		nums[i] = strconv.FormatUint(r.Uint64N(1<<uint(1+r.IntN(40))), 10)
	}
	out["plain-numbers"] = nums
	mixed := make([]string, n)
	for i := range mixed {
		mixed[i] = pad(r.Uint64N(1000), r.IntN(8))
	}
	out["mixed-widths"] = mixed
	few := make([]string, n)
	alpha := []string{"53000", "53073", "30105", "00123", "16021"}
	for i := range few {
		few[i] = alpha[r.IntN(len(alpha))]
	}
	out["few-distinct"] = few
	emp := make([]string, n)
	for i := range emp {
		if r.IntN(3) > 0 {
			emp[i] = pad(r.Uint64N(100), 2)
		}
	}
	out["empties"] = emp
	ext := make([]string, n)
	for i := range ext {
		ext[i] = []string{"9999999999999999999", "0000000000000000000", "0", "00", "1234567890123456789", "1"}[r.IntN(6)]
	}
	out["extremes"] = ext
	eq := make([]string, n)
	for i := range eq {
		eq[i] = "007"
	}
	out["all-equal"] = eq
	return out
}

func TestRoundTrip(t *testing.T) {
	p, opts := forced()
	for _, n := range cascadetest.Lengths() {
		if n == 0 {
			continue // DigitText never encodes an empty sequence (Fit)
		}
		for name, vals := range digitShapes(n, 1) {
			t.Run(fmt.Sprintf("%s/%d", name, n), func(t *testing.T) {
				checkNode(t, p, opts, bytesOf(vals...))
			})
		}
	}
}

func checkNode(t *testing.T, p *encoding.Policy, opts *encoding.Options, vals encoding.Bytes) {
	t.Helper()
	node := encodingtest.RoundTripBytes(t, p, opts, vals)
	if k := encoding.Kind(node[0]); k != kDT {
		t.Fatalf("root encoded as %v", k)
	}
	r, err := encoding.OpenBinary(node, 0, opts)
	if err != nil {
		t.Fatal(err)
	}
	checkFilters(t, r, vals, 5)
}

// operands returns predicate operands near the values: present values, the
// same number at another width, prefixes, non-digits around '0' and '9',
// longer and shorter strings, the empty string.
func operands(vals encoding.Bytes, rng *rand.Rand) [][]byte {
	n := vals.Len()
	pick := func() []byte { return bytes.Clone(vals.Value(rng.IntN(n))) }
	out := [][]byte{nil, []byte("/"), []byte(":"), []byte("0"), []byte("9"), []byte("99999999999999999999")}
	for i := 0; i < 6; i++ {
		v := pick()
		out = append(out, v, append(bytes.Clone(v), '0'), append(bytes.Clone(v), ':'), append([]byte("0"), v...))
		if len(v) > 1 {
			out = append(out, v[:len(v)-1], append(bytes.Clone(v[:len(v)-1]), '/'))
		}
	}
	return out
}

func checkFilters(t *testing.T, r encoding.BinaryReader, vals encoding.Bytes, seed uint64) {
	t.Helper()
	n := vals.Len()
	if n == 0 {
		return
	}
	f := r.(encoding.BinaryFilterer)
	rng := rand.New(rand.NewPCG(seed, uint64(n)))
	ops := operands(vals, rng)
	var preds []*encoding.BytesPred
	for _, a := range ops {
		b := ops[rng.IntN(len(ops))]
		if bytes.Compare(a, b) > 0 {
			a, b = b, a
		}
		for _, op := range []encoding.Op{encoding.OpEq, encoding.OpNe, encoding.OpLt, encoding.OpLe, encoding.OpGt, encoding.OpGe, encoding.OpPrefix} {
			preds = append(preds, &encoding.BytesPred{Op: op, A: a})
		}
		set := [][]byte{a, b, ops[rng.IntN(len(ops))]}
		slices.SortFunc(set, bytes.Compare)
		set = slices.CompactFunc(set, bytes.Equal)
		preds = append(preds, &encoding.BytesPred{Op: encoding.OpBetween, A: a, B: b},
			&encoding.BytesPred{Op: encoding.OpBetween, A: b, B: a}, &encoding.BytesPred{Op: encoding.OpIn, Set: set})
	}
	if n > 5000 { // long sequences: a sample of the predicates keeps the test short
		rng.Shuffle(len(preds), func(i, j int) { preds[i], preds[j] = preds[j], preds[i] })
		preds = preds[:len(preds)/8]
	}
	for _, p := range preds {
		start := 0
		if rng.IntN(2) == 0 {
			start = rng.IntN(n)
		}
		k := n - start
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

// TestModes checks that the shape child costs nothing on the two common
// forms: fixed widths and numbers without leading zeros.
func TestModes(t *testing.T) {
	p := all.Policy()
	for name, vals := range digitShapes(8192, 3) {
		if name != "fixed-random" && name != "plain-numbers" {
			continue
		}
		_, tree, err := p.Encode(nil, bytesOf(vals...))
		if err != nil {
			t.Fatal(err)
		}
		if tree.Kind != kDT || tree.Children[1].Kind != encoding.KindConstant {
			t.Errorf("%s: chose %v, want DigitText with a Constant shape", name, tree)
		}
	}
}

func TestFit(t *testing.T) {
	for _, vals := range [][]string{{"12", "1a"}, {"12", "-3"}, {"1.5"}, {"12345678901234567890"}, {" 1"}} {
		st := encoding.ComputeStats(bytesOf(vals...))
		if digittext.Codec.Encoder.Fit(st) {
			t.Errorf("Fit(%q) = true", vals)
		}
	}
	st := encoding.ComputeStats(bytesOf("0012", "", "9999999999999999999"))
	if !digittext.Codec.Encoder.Fit(st) {
		t.Errorf("Fit of digits = false")
	}
}

func TestNulls(t *testing.T) {
	reg := cascadetest.Registry(digittext.Codec, true)
	p := encoding.DefaultPolicy(reg)
	p.Force = cascadetest.T(encoding.KindNullable, nil, cascadetest.T(kDT))
	opts := &encoding.Options{Registry: reg}
	for _, n := range []int{1, 9, 1025, 5000} {
		vals := digitShapes(n, 4)["fixed-random"]
		valid := make([]bool, n)
		var present []string
		for i := range valid {
			valid[i] = i%3 != 1
			if valid[i] {
				present = append(present, vals[i])
			}
		}
		if len(present) == 0 {
			continue
		}
		node, tree, err := nullable.Encode(p, nil, bytesOf(present...), valid)
		if err != nil {
			t.Fatal(err)
		}
		if tree.Children[1].Kind != kDT {
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
			if gv[i] != valid[i] || (valid[i] && string(got.Value(i)) != vals[i]) {
				t.Fatalf("row %d: %q valid %v", i, got.Value(i), gv[i])
			}
		}
	}
}

func TestGolden(t *testing.T) {
	for name, c := range map[string]struct {
		vals []string
		tree string
	}{
		"digittext-widths": {[]string{"00501", "00544", "10001", "99950"}, "DigitText(FixedBitWidth, Constant)"},
		"digittext-zeros":  {[]string{"7", "42", "007", "1000"}, "DigitText(FixedBitWidth, FixedBitWidth)"},
	} {
		vals := bytesOf(c.vals...)
		child := cascadetest.T(encoding.KindFixedBitWidth)
		if strings.HasSuffix(c.tree, "Constant)") {
			child = cascadetest.T(encoding.KindConstant)
		}
		node, tree, err := cascadetest.GoldenPolicy(digittext.Codec, cascadetest.T(kDT,
			cascadetest.T(encoding.KindFixedBitWidth), child)).Encode(nil, vals)
		if err != nil {
			t.Fatal(err)
		}
		if tree.String() != c.tree {
			t.Fatalf("%s: tree %v", name, tree)
		}
		encodingtest.Golden(t, name, node)
		r, err := encoding.OpenBinary(node, 0, all.Options())
		if err != nil {
			t.Fatal(err)
		}
		encodingtest.CheckBinaryReader(t, r, vals, 1)
	}
}

func TestCorrupt(t *testing.T) {
	u64 := func(v ...uint64) []byte { return cascadetest.Child(t, v, cascadetest.T(encoding.KindTrivial)) }
	u8 := func(v ...uint8) []byte { return cascadetest.Child(t, v, cascadetest.T(encoding.KindTrivial)) }
	node := func(rows int, mode byte, parts ...[]byte) []byte {
		return cascadetest.Node(kDT, encoding.Binary, rows, append([][]byte{{mode}}, parts...)...)
	}
	if err := cascadetest.Exercise(node(2, 0, u64(5, 17), u8(3, 2)), all.Options()); err != nil {
		t.Fatalf("good node: %v", err)
	}
	cases := map[string][]byte{
		"value wider than width": node(2, 0, u64(5, 170), u8(3, 2)),
		"width beyond 19":        node(2, 0, u64(5, 17), u8(3, 20)),
		"zeros beyond 19":        node(2, 1, u64(5, 17), u8(3, 18)),
		"rows":                   node(2, 0, u64(5), u8(3, 2)),
		"trailing":               append(node(2, 0, u64(5, 17), u8(3, 2)), 1),
		"missing shape":          node(2, 0, u64(5, 17)),
		"shape type":             node(2, 0, u64(5, 17), u64(3, 2)),
		"no mode":                cascadetest.Node(kDT, encoding.Binary, 0),
	}
	for name, n := range cases {
		cascadetest.WantCorrupt(t, name, n)
	}
	if err := cascadetest.Exercise(node(2, 7, u64(5, 17), u8(3, 2)), all.Options()); !errors.Is(err, encoding.ErrUnsupported) {
		t.Fatalf("unknown mode: %v", err)
	}
}

// FuzzDecode feeds arbitrary nodes to every read path.
//
//	go test ./encoding/digittext -run '^$' -fuzz FuzzDecode -fuzztime 60s
func FuzzDecode(f *testing.F) {
	p, _ := forced()
	p.Zstd = false
	for _, vals := range digitShapes(200, 5) {
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
	})
}

// FuzzRoundTrip encodes digit strings taken from the input (split at any
// non-digit) and checks they decode back exactly and filter like Match.
//
//	go test ./encoding/digittext -run '^$' -fuzz FuzzRoundTrip -fuzztime 60s
func FuzzRoundTrip(f *testing.F) {
	f.Add("00501,00544,10001,,7,0,00")
	f.Add("9999999999999999999,0000000000000000000,1")
	p, opts := forced()
	f.Fuzz(func(t *testing.T, in string) {
		parts := strings.FieldsFunc(in, func(r rune) bool { return r < '0' || r > '9' })
		if len(in) > 0 && in[0] == ',' {
			parts = append(parts, "") // empty values too
		}
		var vals []string
		for _, s := range parts {
			if len(s) <= 19 {
				vals = append(vals, s)
			}
		}
		if len(vals) == 0 {
			return
		}
		b := bytesOf(vals...)
		node := encodingtest.RoundTripBytes(t, p, opts, b)
		r, err := encoding.OpenBinary(node, 0, opts)
		if err != nil {
			t.Fatal(err)
		}
		checkFilters(t, r, b, uint64(len(in)))
	})
}
