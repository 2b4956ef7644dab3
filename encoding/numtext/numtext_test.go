package numtext_test

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"strata/encoding"
	"strata/encoding/all"
	"strata/encoding/encodingtest"
	"strata/encoding/numtext"
)

// The shared suite (suite_test.go) checks NumText on signed numbers in both
// forms, with and without nulls. The tests here cover what is particular to
// it: the forms on the data it exists for, filters whose operands are
// numbers in the other form or not canonical, Fit, selection, golden bytes
// and hand-made nodes.

const kNT = encoding.KindNumText

func bytesOf(vs ...string) encoding.Bytes {
	var b encoding.Bytes
	b.Offsets = append(b.Offsets, 0)
	for _, v := range vs {
		b.Append([]byte(v))
	}
	return b
}

// numberShapes returns n number texts in the forms NumText is for: budget
// lines with grouping (mostly zero, some negative, amounts in thousands),
// the same without grouping, small signed counts, extremes, all equal.
func numberShapes(n int, seed uint64) map[string][]string {
	r := rand.New(rand.NewPCG(seed, uint64(n)))
	out := map[string][]string{}
	amount := func() int64 {
		if r.IntN(3) == 0 {
			return 0
		}
		v := r.Int64N(2_000_000) * 1000
		if r.IntN(5) == 0 {
			v = -v
		}
		return v
	}
	for _, grouped := range []bool{true, false} {
		vs := make([]string, n)
		for i := range vs {
			vs[i] = string(encoding.AppendNumber(nil, amount(), grouped))
		}
		out[fmt.Sprintf("amounts/grouped=%v", grouped)] = vs
	}
	counts := make([]string, n)
	for i := range counts {
		counts[i] = strconv.Itoa(r.IntN(201) - 100)
	}
	out["signed-counts"] = counts
	ext := make([]string, n)
	for i := range ext {
		ext[i] = []string{"-9,223,372,036,854,775,808", "9,223,372,036,854,775,807", "0", "-1", "999", "-1,000"}[r.IntN(6)]
	}
	out["extremes"] = ext
	out["all-equal"] = slices.Repeat([]string{"-7"}, n)
	// decimal fractions: coordinates with up to five fraction digits
	// (trailing zeros dropped, as a source that prints the shortest text
	// does), prices with two (kept), integers among fractions, small
	// fractions, and values of up to 18 digits once scaled to ten
	// fraction digits
	coords := make([]string, n)
	lat := -33.0
	for i := range coords {
		lat += float64(r.IntN(2001)-1000) / 1e5
		coords[i] = strconv.FormatFloat(math.Round(lat*1e5)/1e5, 'f', -1, 64)
	}
	out["decimal/coordinates"] = coords
	prices := make([]string, n)
	for i := range prices {
		c := r.Int64N(200000) - 10000
		prices[i] = string(encoding.AppendDecimal(nil, c, 2))
	}
	out["decimal/prices"] = prices
	mixed := make([]string, n)
	for i := range mixed {
		mixed[i] = []string{"5", "5.25", "-0.5", "0", "0.0", "-12", "100.000", "7.1"}[r.IntN(8)]
	}
	out["decimal/mixed"] = mixed
	long := make([]string, n)
	for i := range long {
		long[i] = []string{"0.0000000001", "-0.0000000001", "12345678", "-12345678.9012345678",
			"99999999", "0.5"}[r.IntN(6)]
	}
	out["decimal/long"] = long
	return out
}

// TestShapes runs the suite's checks on each form, and the filters with
// operands around the values.
func TestShapes(t *testing.T) {
	for _, n := range []int{1, 9, 1025, 5000} {
		for name, vals := range numberShapes(n, 1) {
			t.Run(fmt.Sprintf("%s/%d", name, n), func(t *testing.T) {
				encodingtest.CheckBinaryForm(t, numtext.Codec, bytesOf(vals...), 5, operands)
			})
		}
	}
}

// operands returns predicate operands near the values: present values, the
// same number in the other form, with a plus sign, a leading zero, a
// trailing byte, as "-0", cut short; and texts that are no numbers.
func operands(vals encoding.Bytes, rng *rand.Rand) [][]byte {
	n := vals.Len()
	out := [][]byte{nil, []byte("-"), []byte("0"), []byte("-0"), []byte(","), []byte("9,223,372,036,854,775,808"),
		[]byte("99999999999999999999")}
	for i := 0; i < 6; i++ {
		v := bytes.Clone(vals.Value(rng.IntN(n)))
		x, _ := encoding.ParseNumber(v)
		out = append(out, v, encoding.AppendNumber(nil, x, false), encoding.AppendNumber(nil, x, true),
			append([]byte("+"), v...), append([]byte("0"), v...), append(bytes.Clone(v), '0'), append(bytes.Clone(v), ' '))
		if len(v) > 1 {
			out = append(out, v[:len(v)-1])
		}
	}
	return out
}

// TestParseNumber checks the canonical forms: what each text parses to and
// in which forms, and that every other text is refused.
func TestParseNumber(t *testing.T) {
	cases := []struct {
		text  string
		v     int64
		forms uint8
	}{
		{"0", 0, encoding.NumPlain | encoding.NumGrouped},
		{"7", 7, encoding.NumPlain | encoding.NumGrouped},
		{"-999", -999, encoding.NumPlain | encoding.NumGrouped},
		{"1000", 1000, encoding.NumPlain},
		{"1,000", 1000, encoding.NumGrouped},
		{"-12,345,678", -12345678, encoding.NumGrouped},
		{"9223372036854775807", math.MaxInt64, encoding.NumPlain},
		{"-9,223,372,036,854,775,808", math.MinInt64, encoding.NumGrouped},
	}
	for _, c := range cases {
		v, f := encoding.ParseNumber([]byte(c.text))
		if v != c.v || f != c.forms {
			t.Errorf("ParseNumber(%q) = %d, %b; want %d, %b", c.text, v, f, c.v, c.forms)
		}
	}
	for _, s := range []string{"", "-", "-0", "00", "007", "+5", " 5", "5 ", "1,23", "1234,567", "1,234567,890",
		",123", "1,", "1,,234", "12,34,567", "9223372036854775808", "-9223372036854775809",
		"99999999999999999999", "1.5", "1e3", "-,123", "0,123"} {
		if _, f := encoding.ParseNumber([]byte(s)); f != 0 {
			t.Errorf("ParseNumber(%q) accepted in forms %b", s, f)
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 20000; i++ {
		v := int64(r.Uint64()) >> r.IntN(64)
		for _, grouped := range []bool{false, true} {
			text := encoding.AppendNumber(nil, v, grouped)
			if !grouped && string(text) != strconv.FormatInt(v, 10) {
				t.Fatalf("AppendNumber(%d) = %q", v, text)
			}
			got, f := encoding.ParseNumber(text)
			want := encoding.NumPlain
			if grouped {
				want = encoding.NumGrouped
			}
			if got != v || f&want == 0 || len(text) > encoding.MaxNumberLen {
				t.Fatalf("ParseNumber(%q) = %d, %b", text, got, f)
			}
		}
	}
}

func TestFit(t *testing.T) {
	for _, vals := range [][]string{
		{"12", "34"},            // digits: DigitText's
		{"-1", "1,000", "1000"}, // two forms
		{"-1", "x"}, {"-0"}, {"-0.0"}, {"1."}, {".5"}, {"00.5"}, {"1e5"}, {"1,000.5"}, {"1.5", "1,000"}, {},
	} {
		st := encoding.ComputeStats(bytesOf(vals...))
		if numtext.Codec.Encoder.Fit(st) {
			t.Errorf("Fit(%q) = true", vals)
		}
	}
	for _, vals := range [][]string{{"12", "-3"}, {"1,000", "5"}, {"-9,223,372,036,854,775,808"}, {"1.5"},
		{"0.05", "-7", "12.50"}, {"0", "0.123456789012345678"}, {"-3050604295421713181", "17"}} {
		if !numtext.Codec.Encoder.Fit(encoding.ComputeStats(bytesOf(vals...))) {
			t.Errorf("Fit(%q) = false", vals)
		}
	}
	// What Fit accepts, NumText encodes (a replayed chunk is forced to
	// the kind its predecessor chose wherever Fit accepts it): texts
	// whose decimal form would pass MaxDecimalDigits once scaled to
	// another value's fraction digits are not decimals together.
	for _, vals := range [][]string{{"123456789012345678", "0.5"}, {"3050604295421713181", "5.9"}, {"1", "0.0000000000000000001"}} {
		if numtext.Codec.Encoder.Fit(encoding.ComputeStats(bytesOf(vals...))) {
			t.Errorf("Fit(%q) = true", vals)
		}
	}
	pool := []string{"0", "-1", "17", "5.9", "0.05", "-12.500", "0.123456789012345678", "123456789012345678",
		"3050604295421713181", "-9223372036854775808", "99999999999999999.9", "1,234", "-0.000000000000000001"}
	r := rand.New(rand.NewPCG(7, 8))
	accepted := 0
	for range 3000 {
		vals := make([]string, 1+r.IntN(4))
		for i := range vals {
			vals[i] = pool[r.IntN(len(pool))]
		}
		b := bytesOf(vals...)
		if !numtext.Codec.Encoder.Fit(encoding.ComputeStats(b)) {
			continue
		}
		accepted++
		node, _, err := all.Policy().EncodeWith(nil, b, kNT)
		if err != nil {
			t.Fatalf("Fit(%q) = true but NumText refuses them: %v", vals, err)
		}
		r, err := encoding.OpenBinary(node, 0, all.Options())
		if err != nil {
			t.Fatal(err)
		}
		encodingtest.CheckBinaryReader(t, r, b, 1)
	}
	if accepted < 500 {
		t.Errorf("only %d of 3000 mixes accepted", accepted)
	}
}

// refusing is an encoder that refuses every sequence its Fit accepts.
type refusing struct{ encoding.Encoder }

func (refusing) Encode(dst []byte, vals any, st *encoding.Stats, ctx *encoding.Ctx) ([]byte, error) {
	return dst, errors.New("refused")
}

// TestForcedRefusal: a forced kind (a chunk replaying its predecessor's
// tree) whose encoder refuses the values its Fit accepted does not fail
// the encode: selection takes over, as for a kind that does not fit.
func TestForcedRefusal(t *testing.T) {
	var cs []*encoding.Codec
	for _, c := range all.Registry().Codecs() {
		if c.Kind == kNT {
			cc := *c
			cc.Encoder = refusing{c.Encoder}
			c = &cc
		}
		cs = append(cs, c)
	}
	p := all.Policy()
	p.Registry = encoding.NewRegistry(cs...)
	vals := bytesOf("-1.5", "12.50", "0", "0.05", "3.25", "-1.5")
	for _, force := range []*encoding.Tree{encodingtest.T(kNT), encodingtest.T(encoding.KindDictionary, encodingtest.T(kNT), nil)} {
		p.Force = force
		node, tree, err := p.Encode(nil, vals)
		if err != nil {
			t.Fatalf("forced %v: %v", force, err)
		}
		if strings.Contains(tree.String(), "NumText") {
			t.Fatalf("forced %v: tree %v holds the refusing encoding", force, tree)
		}
		r, err := encoding.OpenBinary(node, 0, all.Options())
		if err != nil {
			t.Fatal(err)
		}
		encodingtest.CheckBinaryReader(t, r, vals, 1)
	}
}

// TestSelection: grouped amounts (a budget table's yearly columns) are
// stored as NumText by the default policy, smaller than by the best
// encoding without it (FSST, which learns the commas and the thousands'
// zeros, comes within about a tenth on these).
func TestSelection(t *testing.T) {
	vals := bytesOf(numberShapes(4096, 7)["amounts/grouped=true"]...)
	node, tree := selectNumText(t, vals)
	smallerThanWithout(t, vals, node, tree)
}

// selectNumText encodes vals with the default policy and fails t unless
// it chose NumText.
func selectNumText(t *testing.T, vals encoding.Bytes) ([]byte, *encoding.Tree) {
	t.Helper()
	node, tree, err := all.Policy().Encode(nil, vals)
	if err != nil {
		t.Fatal(err)
	}
	if tree.Kind != kNT {
		t.Fatalf("chose %v", tree)
	}
	return node, tree
}

// smallerThanWithout fails t unless node, vals as NumText, is smaller
// than the default policy's encoding of vals without NumText.
func smallerThanWithout(t *testing.T, vals encoding.Bytes, node []byte, tree *encoding.Tree) {
	t.Helper()
	without := all.Policy()
	without.Allow = map[encoding.Kind]bool{}
	for _, c := range without.Registry.Codecs() {
		without.Allow[c.Kind] = c.Kind != kNT
	}
	other, otree, err := without.Encode(nil, vals)
	if err != nil {
		t.Fatal(err)
	}
	if len(node) >= len(other) {
		t.Errorf("NumText %d bytes (%v), without it %d (%v)", len(node), tree, len(other), otree)
	}
}

func TestGolden(t *testing.T) {
	vals := bytesOf("-566,000", "39,000", "0", "1,234,567")
	node, tree, err := encodingtest.GoldenPolicy(numtext.Codec, encodingtest.T(kNT,
		encodingtest.T(encoding.KindFixedBitWidth))).Encode(nil, vals)
	if err != nil {
		t.Fatal(err)
	}
	if tree.String() != "NumText(FixedBitWidth)" {
		t.Fatalf("tree %v", tree)
	}
	encodingtest.Golden(t, "numtext-grouped", node)
	r, err := encoding.OpenBinary(node, 0, all.Options())
	if err != nil {
		t.Fatal(err)
	}
	encodingtest.CheckBinaryReader(t, r, vals, 1)

	vals = bytesOf("-1.5", "12.50", "0", "0.05")
	node, tree, err = encodingtest.GoldenPolicy(numtext.Codec, encodingtest.T(kNT,
		encodingtest.T(encoding.KindFixedBitWidth), encodingtest.T(encoding.KindFixedBitWidth))).Encode(nil, vals)
	if err != nil {
		t.Fatal(err)
	}
	if tree.String() != "NumText(FixedBitWidth, FixedBitWidth)" {
		t.Fatalf("tree %v", tree)
	}
	encodingtest.Golden(t, "numtext-decimal", node)
	if r, err = encoding.OpenBinary(node, 0, all.Options()); err != nil {
		t.Fatal(err)
	}
	encodingtest.CheckBinaryReader(t, r, vals, 1)
}

// TestParseDecimal checks the canonical decimal texts: what each parses
// to, that every other text is refused, and AppendDecimal as its inverse.
func TestParseDecimal(t *testing.T) {
	cases := []struct {
		text string
		m    int64
		s    int
	}{
		{"0", 0, 0}, {"0.0", 0, 1}, {"-7", -7, 0}, {"1.50", 150, 2}, {"-0.5", -5, 1}, {"0.05", 5, 2},
		{"42.53176", 4253176, 5}, {"999999999999999999", 999999999999999999, 0},
		{"-0.000000000000000001", -1, 18}, {"12345678.9012345678", 123456789012345678, 10},
	}
	for _, c := range cases {
		m, sc, ok := encoding.ParseDecimal([]byte(c.text))
		if !ok || m != c.m || sc != c.s {
			t.Errorf("ParseDecimal(%q) = %d, %d, %v; want %d, %d", c.text, m, sc, ok, c.m, c.s)
		}
		if got := string(encoding.AppendDecimal(nil, c.m, c.s)); got != c.text {
			t.Errorf("AppendDecimal(%d, %d) = %q, want %q", c.m, c.s, got, c.text)
		}
	}
	for _, x := range []string{"", "-", ".", "-.5", ".5", "1.", "1..5", "1.5.", "00", "00.5", "-0", "-0.0", "-0.000",
		"+1", "1e5", "1,000", "1,000.5", " 1", "1 ", "1.5x", "1234567890123456789", "0.1234567890123456789", "--1"} {
		if m, sc, ok := encoding.ParseDecimal([]byte(x)); ok {
			t.Errorf("ParseDecimal(%q) accepted as %d, %d", x, m, sc)
		}
	}
	r := rand.New(rand.NewPCG(3, 4))
	// AppendDecimal against a plain rendering, over every int64 width
	// and fraction length
	for i := 0; i < 20000; i++ {
		m := int64(r.Uint64()) >> r.IntN(64)
		sc := r.IntN(41)
		u := uint64(m)
		if m < 0 {
			u = -u
		}
		d := strconv.FormatUint(u, 10)
		if len(d) <= sc {
			d = strings.Repeat("0", sc+1-len(d)) + d
		}
		want := d
		if sc > 0 {
			want = d[:len(d)-sc] + "." + d[len(d)-sc:]
		}
		if m < 0 {
			want = "-" + want
		}
		if got := string(encoding.AppendDecimal([]byte("x"), m, sc)); got != "x"+want {
			t.Fatalf("AppendDecimal(%d, %d) = %q, want %q", m, sc, got[1:], want)
		}
	}
	for i := 0; i < 20000; i++ {
		m := int64(r.Uint64N(1_000_000_000_000_000_000)) >> r.IntN(60)
		if r.IntN(2) == 0 {
			m = -m
		}
		sc := r.IntN(encoding.MaxDecimalDigits + 1)
		text := encoding.AppendDecimal(nil, m, sc)
		got, gs, ok := encoding.ParseDecimal(text)
		if m == 0 && sc > 0 && text[0] == '-' {
			t.Fatalf("AppendDecimal(0, %d) = %q", sc, text)
		}
		if !ok || got != m || gs != sc {
			// only texts of more than MaxDecimalDigits digits may be refused
			if ok || len(bytes.Trim(text, "-.")) <= encoding.MaxDecimalDigits {
				t.Fatalf("ParseDecimal(%q) = %d, %d, %v; want %d, %d", text, got, gs, ok, m, sc)
			}
		}
	}
}

// TestDecimal: decimal texts are stored as NumText's decimal form and
// come back byte for byte, and coordinates kept as text are stored
// smaller than by the best encoding without NumText.
func TestDecimal(t *testing.T) {
	vals := bytesOf(numberShapes(8192, 11)["decimal/coordinates"]...)
	node, tree := selectNumText(t, vals)
	r, err := encoding.OpenBinary(node, 0, all.Options())
	if err != nil {
		t.Fatal(err)
	}
	encodingtest.CheckBinaryReader(t, r, vals, 1)
	smallerThanWithout(t, vals, node, tree)
	// equality is pushed down to both children: "1.5" is not "1.50"
	vals = bytesOf("1.5", "1.50", "2", "-0.5", "0.0", "1.5", "12.500")
	node, _, err = all.Policy().EncodeWith(nil, vals, kNT)
	if err != nil {
		t.Fatal(err)
	}
	if r, err = encoding.OpenBinary(node, 0, all.Options()); err != nil {
		t.Fatal(err)
	}
	var preds []*encoding.BytesPred
	operands := []string{"1.5", "1.50", "1.500", "2", "2.0", "-0.5", "-0.50", "0.0", "0", "-0.0", "12.5", "12.500", "x", ""}
	for _, a := range operands {
		preds = append(preds, &encoding.BytesPred{Op: encoding.OpEq, A: []byte(a)}, &encoding.BytesPred{Op: encoding.OpNe, A: []byte(a)})
	}
	// sets of one to all the operands, sorted as a BytesPred's set is
	for k := 1; k <= len(operands); k += 3 {
		set := make([][]byte, 0, k)
		for _, a := range operands[:k] {
			set = append(set, []byte(a))
		}
		slices.SortFunc(set, bytes.Compare)
		preds = append(preds, &encoding.BytesPred{Op: encoding.OpIn, Set: slices.CompactFunc(set, bytes.Equal)})
	}
	encodingtest.CheckBinaryFilters(t, r, vals, preds, 3)
	// a value whose digits, scaled to the others' fraction digits, would
	// pass MaxDecimalDigits is refused, not stored wrong
	if _, _, err := all.Policy().EncodeWith(nil, bytesOf("123456789012345678", "0.5"), kNT); err == nil {
		t.Error("NumText took 18 integer digits beside a fraction digit")
	}
}

// TestDecodeCost checks that selection charges each form of NumText its
// own calibrated decode cost: the decimal form reports itself
// (encoding.Ctx.AltForm) and is charged Codec.Decode.Alt, the integer
// forms are charged Codec.Decode.
func TestDecodeCost(t *testing.T) {
	if numtext.Codec.Decode.Alt == nil {
		t.Fatal("NumText declares no cost for its decimal form")
	}
	for _, c := range []struct {
		vals encoding.Bytes
		alt  bool
	}{
		{bytesOf("-1.5", "12.50", "0", "0.05", "3.14159"), true},
		{bytesOf("-566,000", "39,000", "0", "1,234,567"), false},
		{bytesOf("-566", "39", "0", "1234567"), false},
	} {
		_, tree, err := all.Policy().EncodeWith(nil, c.vals, kNT)
		if err != nil {
			t.Fatal(err)
		}
		if tree.AltForm() != c.alt {
			t.Errorf("%q: AltForm %v, want %v", c.vals.Data, tree.AltForm(), c.alt)
		}
		cost := numtext.Codec.Decode
		if c.alt {
			cost = *cost.Alt
		}
		own := tree.Time()
		for _, ch := range tree.Children {
			own -= ch.Time()
		}
		want := cost.Time(encoding.Binary, c.vals.Len(), len(c.vals.Data))
		if math.Abs(own-want) > 1e-6*want {
			t.Errorf("%q: own decode time %g, want %g", c.vals.Data, own, want)
		}
	}
}

// TestCorrupt hand-builds nodes that break each rule of the format.
func TestCorrupt(t *testing.T) {
	i64 := func(v ...int64) []byte { return encodingtest.Child(t, v, encodingtest.T(encoding.KindTrivial)) }
	node := func(rows int, flags byte, parts ...[]byte) []byte {
		return encodingtest.Node(kNT, encoding.Binary, rows, append([][]byte{{flags}}, parts...)...)
	}
	if err := encodingtest.Exercise(node(3, 1, i64(math.MinInt64, 0, 1234)), all.Options()); err != nil {
		t.Fatalf("good node: %v", err)
	}
	cases := map[string][]byte{
		"rows":       node(2, 0, i64(5)),
		"trailing":   append(node(2, 0, i64(5, 17)), 1),
		"no values":  node(2, 0),
		"value type": node(2, 0, encodingtest.Child(t, []uint64{5, 17}, encodingtest.T(encoding.KindTrivial))),
		"no flags":   encodingtest.Node(kNT, encoding.Binary, 0),
	}
	for name, n := range cases {
		encodingtest.WantCorrupt(t, name, n)
	}
	for _, flags := range []byte{4, 3, 0x80} {
		if err := encodingtest.Exercise(node(2, flags, i64(5, 17)), all.Options()); !errors.Is(err, encoding.ErrUnsupported) {
			t.Fatalf("flags %#x: %v", flags, err)
		}
	}
	u8 := func(v ...uint8) []byte { return encodingtest.Child(t, v, encodingtest.T(encoding.KindTrivial)) }
	if err := encodingtest.Exercise(node(3, 2, []byte{2}, i64(-150, 0, 5), u8(2, 0, 2)), all.Options()); err != nil {
		t.Fatalf("good decimal node: %v", err)
	}
	dec := map[string][]byte{
		"no scale":       node(2, 2),
		"scale above 18": node(2, 2, []byte{19}, i64(5, 17), u8(0, 0)),
		"no scales":      node(2, 2, []byte{1}, i64(5, 17)),
		"scales rows":    node(2, 2, []byte{1}, i64(5, 17), u8(0)),
		"scales type":    node(2, 2, []byte{1}, i64(5, 17), i64(0, 0)),
		"fraction above": node(2, 2, []byte{1}, i64(5, 17), u8(1, 2)),
		"not a multiple": node(2, 2, []byte{2}, i64(500, 17), u8(0, 0)),
		"trailing":       append(node(2, 2, []byte{1}, i64(5, 17), u8(1, 1)), 0),
	}
	for name, n := range dec {
		encodingtest.WantCorrupt(t, name, n)
	}
	// the pushed-down inequality and set membership check every value
	// they read, the ones they reject included
	for name, n := range map[string][]byte{
		"fraction above": dec["fraction above"],
		"not a multiple": dec["not a multiple"],
	} {
		for _, p := range []*encoding.BytesPred{
			{Op: encoding.OpNe, A: []byte("0.5")},
			{Op: encoding.OpIn, Set: [][]byte{[]byte("0.5"), []byte("9")}},
		} {
			r, err := encoding.OpenBinary(n, 0, all.Options())
			if err != nil {
				continue // refused at open: as good
			}
			sel := encoding.NewBitmap(2, true)
			if err := r.(encoding.BinaryFilterer).FilterBinary(p, 2, sel); !errors.Is(err, encoding.ErrCorrupt) {
				t.Errorf("%s, %v: filter error %v, want corrupt", name, p.Op, err)
			}
		}
	}
}

// BenchmarkDecimalDecode decodes 16 Ki coordinates kept as text (the
// decimal/coordinates shape) stored as NumText, FSST and Trivial+zstd,
// reporting ns and bytes a value:
//
//	go test -run XXX -bench DecimalDecode ./encoding/numtext
func BenchmarkDecimalDecode(b *testing.B) {
	vals := bytesOf(numberShapes(16384, 11)["decimal/coordinates"]...)
	encodingtest.BenchBinaryDecode(b, "", vals, kNT, encoding.KindFSST, encoding.KindTrivial)
}

// BenchmarkDecimalFilter times equality, inequality and set membership on
// decimal text kept as NumText's decimal form:
//
//	go test -run XXX -bench DecimalFilter ./encoding/numtext
func BenchmarkDecimalFilter(b *testing.B) {
	vals := bytesOf(numberShapes(16384, 11)["decimal/coordinates"]...)
	node, _, err := all.Policy().EncodeWith(nil, vals, kNT)
	if err != nil {
		b.Fatal(err)
	}
	a, c := vals.Value(100), vals.Value(200)
	set := [][]byte{a, c}
	slices.SortFunc(set, bytes.Compare)
	for _, p := range []*encoding.BytesPred{
		{Op: encoding.OpEq, A: a},
		{Op: encoding.OpNe, A: a},
		{Op: encoding.OpIn, Set: set},
	} {
		b.Run(p.Op.String(), func(b *testing.B) {
			sel := encoding.NewBitmap(vals.Len(), true)
			for b.Loop() {
				r, err := encoding.OpenBinary(node, 0, all.Options())
				if err != nil {
					b.Fatal(err)
				}
				sel.SetAll(vals.Len())
				if err := r.(encoding.BinaryFilterer).FilterBinary(p, vals.Len(), sel); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(vals.Len()), "ns/value")
		})
	}
}
