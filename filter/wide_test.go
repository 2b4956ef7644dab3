package filter

import (
	"bytes"
	"encoding/binary"
	"math/big"
	"math/rand"
	"strings"
	"testing"

	"strata/encoding"
	"strata/stats"
)

// wideLookup resolves the wide decimal columns of these tests: a
// decimal(38,2) and a decimal(20,0).
func wideLookup(p string) (ColumnInfo, bool) {
	switch p {
	case "d":
		return ColumnInfo{Type: encoding.Binary, Logical: LogicalWideDecimal, Precision: 38, Scale: 2}, true
	case "z":
		return ColumnInfo{Type: encoding.Binary, Logical: LogicalWideDecimal, Precision: 20, Scale: 0}, true
	}
	return ColumnInfo{}, false
}

// encodeWide is the stored form of an unscaled value, built independently
// of the package's encoder: the low 64 bits, then the high 64 bits
// (an arithmetic shift), little endian.
func encodeWide(v *big.Int) []byte {
	hi := new(big.Int).Rsh(v, 64) // floor division: arithmetic for negatives
	lo := new(big.Int).Sub(v, new(big.Int).Lsh(hi, 64))
	b := make([]byte, 16)
	binary.LittleEndian.PutUint64(b, lo.Uint64())
	binary.LittleEndian.PutUint64(b[8:], uint64(hi.Int64()))
	return b
}

// wideSamples returns unscaled values that trip bytewise comparisons:
// zero, ±1, 255 and 256 (which differ in the second byte), values equal in
// the low word and different in the high one, ±(10^38−1), the int64 and
// 2^64 edges, and random values of every width, negative and positive.
func wideSamples(r *rand.Rand, n int) []*big.Int {
	max38 := new(big.Int).Sub(new(big.Int).Exp(big.NewInt(10), big.NewInt(38), nil), big.NewInt(1))
	two64 := new(big.Int).Lsh(big.NewInt(1), 64)
	out := []*big.Int{
		big.NewInt(0), big.NewInt(1), big.NewInt(-1), big.NewInt(255), big.NewInt(256), big.NewInt(-256),
		big.NewInt(10000), big.NewInt(-10000), big.NewInt(10001), big.NewInt(9999),
		new(big.Int).Set(max38), new(big.Int).Neg(max38),
		new(big.Int).Set(two64), new(big.Int).Neg(two64), new(big.Int).Sub(two64, big.NewInt(1)),
		new(big.Int).Add(two64, big.NewInt(5)), new(big.Int).Add(new(big.Int).Lsh(big.NewInt(7), 64), big.NewInt(5)),
		new(big.Int).Add(new(big.Int).Lsh(big.NewInt(-7), 64), big.NewInt(5)),
		big.NewInt(1<<62 + (1<<62 - 1)), big.NewInt(-1 << 63),
	}
	for len(out) < n {
		digits := 1 + r.Intn(38)
		v := new(big.Int).Rand(r, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(digits)), nil))
		if r.Intn(2) == 0 {
			v.Neg(v)
		}
		out = append(out, v)
	}
	return out
}

// wideWhere returns a random comparison on d (scale 2) with literals that
// are sometimes in the samples, sometimes between them, with more
// fractional digits than the scale, or beyond 38 digits.
func wideWhere(r *rand.Rand, samples []*big.Int) string {
	lit := func() string {
		switch r.Intn(6) {
		case 0:
			return "1e40"
		case 1:
			return "-99999999999999999999999999999999999999.995"
		case 2:
			return "0.005"
		}
		v := samples[r.Intn(len(samples))]
		s := new(big.Rat).SetFrac(v, big.NewInt(100)).FloatString(2 + r.Intn(2))
		if r.Intn(4) == 0 {
			s += "1" // a digit past the scale
		}
		return s
	}
	ops := []string{"=", "!=", "<", "<=", ">", ">="}
	var w string
	switch k := r.Intn(8); {
	case k < 6:
		w = "d " + ops[k] + " " + lit()
	case k == 6:
		w = "d BETWEEN " + lit() + " AND " + lit()
	default:
		w = "d IN (" + lit() + ", " + lit() + ", " + lit() + ")"
	}
	if r.Intn(3) == 0 {
		w = "NOT (" + w + ")"
	}
	return w
}

// wideRef evaluates where on an unscaled value of d (nil for null) with
// math/big: the value over 10^2 against each literal as an exact rational.
// It knows the shapes wideWhere writes; ok is false for unknown (a null).
func wideRef(t *testing.T, where string, v *big.Int) (match, ok bool) {
	neg := false
	if s, found := strings.CutPrefix(where, "NOT ("); found {
		where, neg = strings.TrimSuffix(s, ")"), true
	}
	if v == nil {
		return false, false
	}
	x := new(big.Rat).SetFrac(v, big.NewInt(100))
	rat := func(s string) *big.Rat {
		r, good := new(big.Rat).SetString(strings.TrimSpace(s))
		if !good {
			t.Fatalf("literal %q", s)
		}
		return r
	}
	rest := strings.TrimPrefix(where, "d ")
	switch {
	case strings.HasPrefix(rest, "BETWEEN "):
		a, b, _ := strings.Cut(strings.TrimPrefix(rest, "BETWEEN "), " AND ")
		match = x.Cmp(rat(a)) >= 0 && x.Cmp(rat(b)) <= 0
	case strings.HasPrefix(rest, "IN ("):
		for _, s := range strings.Split(strings.TrimSuffix(strings.TrimPrefix(rest, "IN ("), ")"), ",") {
			match = match || x.Cmp(rat(s)) == 0
		}
	default:
		op, lit, _ := strings.Cut(rest, " ")
		c := x.Cmp(rat(lit))
		match = map[string]bool{"=": c == 0, "!=": c != 0, "<": c < 0, "<=": c <= 0, ">": c > 0, ">=": c >= 0}[op]
	}
	return match != neg, true
}

// TestWideDecimalCompare binds random comparisons on a decimal(38,2) and
// checks every one, value by value, against math/big on the literal as
// written: through EvalRow (NOT included) and through the leaf's
// predicate, which must be a WideDecimalPred, never a bytewise one.
func TestWideDecimalCompare(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	samples := wideSamples(r, 300)
	rows := append(append([]*big.Int(nil), samples...), nil) // a null row
	for q := 0; q < 400; q++ {
		where := wideWhere(r, samples)
		e, err := Parse(where)
		if err != nil {
			t.Fatalf("%s: %v", where, err)
		}
		b, err := Bind(e, wideLookup)
		if err != nil {
			t.Fatalf("%s: %v", where, err)
		}
		Walk(b, func(l *Leaf) {
			if _, ok := l.Pred().(*WideDecimalPred); !ok {
				t.Fatalf("%s: leaf %s has predicate %T", where, l, l.Pred())
			}
		})
		for _, v := range rows {
			want, known := wideRef(t, where, v)
			got := EvalRow(b, func(string) (stats.Value, bool) {
				if v == nil {
					return stats.Value{}, true
				}
				return stats.Bytes(encodeWide(v)), false
			})
			if got != (want && known) {
				t.Fatalf("%s (bound %s) on %v: got %v, want %v", where, b, v, got, want && known)
			}
		}
	}
}

// TestWideDecimalNotBytewise: on -1 and 1 and on 255 and 256, a bytewise
// comparison of the stored values answers d > 0 and z < 256 wrongly; the
// bound filters answer them right.
func TestWideDecimalNotBytewise(t *testing.T) {
	enc := func(v int64) []byte { return encodeWide(big.NewInt(v)) }
	if bytes.Compare(enc(-1), enc(0)) < 0 || bytes.Compare(enc(256), enc(255)) > 0 {
		t.Fatal("the samples no longer trip a bytewise comparison")
	}
	cases := []struct {
		where string
		v     int64
		want  bool
	}{
		{"d > 0", -100, false}, {"d > 0", 100, true}, {"d < 0", -100, true},
		{"z < 256", 255, true}, {"z < 256", 256, false}, {"z > 255", 256, true},
		{"z BETWEEN -1 AND 1", -1, true}, {"z BETWEEN -1 AND 1", 256, false},
		{"z IN (-1, 256)", 256, true}, {"z IN (-1, 256)", 255, false},
	}
	for _, c := range cases {
		l := leafOfWide(t, c.where)
		if got := l.Match(stats.Bytes(enc(c.v))); got != c.want {
			t.Errorf("%s on %d: %v, want %v", c.where, c.v, got, c.want)
		}
	}
}

func leafOfWide(t *testing.T, where string) *Leaf {
	t.Helper()
	e, err := Parse(where)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Bind(e, wideLookup)
	if err != nil {
		t.Fatalf("%s: %v", where, err)
	}
	l, ok := b.(*Leaf)
	if !ok {
		t.Fatalf("%s bound to %T", where, b)
	}
	return l
}

// TestWideDecimalBind: literals round as a narrower decimal's do (to the
// scale, keeping the comparison's meaning); a literal beyond what 16 bytes
// hold matches every value or none; strings and LIKE are refused naming
// the decimal type; a bound leaf prints its values as numbers.
func TestWideDecimalBind(t *testing.T) {
	for _, c := range []struct{ where, bound string }{
		{"d <= 0.055", "d <= 0.05"},
		{"d < 0.055", "d < 0.06"},
		{"d = 0.055", "d <no value>"},
		{"d != 0.055", "d <any value>"},
		{"d > 1e40", "d <no value>"},
		{"d < 1e40", "d <any value>"},
		{"d >= -1e40", "d <any value>"},
		{"d BETWEEN 0.001 AND 0.019", "d BETWEEN 0.01 AND 0.01"},
		{"d BETWEEN 0.011 AND 0.019", "d <no value>"},
		{"d IN (1e40, 0.001)", "d <no value>"},
		{"d IN (-5, 1e40, 0.5, -5.00)", "d IN (-5.00, 0.50)"},
		{"z = -99999999999999999999", "z = -99999999999999999999"},
	} {
		l := leafOfWide(t, c.where)
		l.Lits = nil // print the bound values
		if got := l.String(); got != c.bound {
			t.Errorf("%s bound to %s, want %s", c.where, got, c.bound)
		}
	}
	for _, c := range []struct{ where, msg string }{
		{"d = '1.5'", "d is a decimal(38,2); cannot compare with '1.5' (numbers are written without quotes: 1.5)"},
		{"d LIKE '1%'", "LIKE needs a string column; d is a decimal(38,2)"},
		{"d > DATE '2020-01-01'", "d is a decimal(38,2); cannot compare with DATE '2020-01-01'"},
	} {
		e, err := Parse(c.where)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Bind(e, wideLookup); err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: %v, want %q", c.where, err, c.msg)
		}
	}
	for _, where := range []string{"d IS NULL", "d IS NOT NULL"} {
		if l := leafOfWide(t, where); l.Pred() != nil {
			t.Errorf("%s has a value predicate", where)
		}
	}
}

// TestWideDecimalPruneIgnoresBounds: the bytewise bounds the writer keeps
// for a wide decimal never settle a comparison, even when they would
// exclude (or include) every value read as numbers; counts of nulls still
// do.
func TestWideDecimalPruneIgnoresBounds(t *testing.T) {
	// The bytewise least and greatest of {-1, 1, 256}: 256 (00 01 …) and
	// -1 (ff …). Numerically "bounds" [256, -1] is empty, and d > 0 would
	// "match all" of [1, 256]; neither may be concluded.
	lo, hi := stats.Bytes(encodeWide(big.NewInt(256))), stats.Bytes(encodeWide(big.NewInt(-1)))
	cs := stats.ColumnStats{Rows: 3, HasMinMax: true, Min: lo, Max: hi}
	for _, where := range []string{"d > 0", "d < 0", "d = 0.01", "d BETWEEN 0 AND 3", "d IN (0.01, 2.56)", "NOT (d > 0)", "d != 5"} {
		e, _ := Parse(where)
		b, err := Bind(e, wideLookup)
		if err != nil {
			t.Fatal(err)
		}
		if got := Prune(b, func(string) (stats.ColumnStats, bool) { return cs, true }); got != Some {
			t.Errorf("%s pruned to %v on bytewise bounds, want some", where, got)
		}
	}
	nulls := stats.ColumnStats{Rows: 3, Nulls: 3}
	e, _ := Parse("d > 0")
	b, _ := Bind(e, wideLookup)
	if got := Prune(b, func(string) (stats.ColumnStats, bool) { return nulls, true }); got != None {
		t.Errorf("d > 0 on only nulls: %v, want none", got)
	}
}

// TestWideDecimalPredBadLength: a stored value that is not 16 bytes long
// matches nothing and does not panic.
func TestWideDecimalPredBadLength(t *testing.T) {
	for _, where := range []string{"d > 0", "d != 0", "d IN (1, 2)", "d < 1e40"} {
		p := leafOfWide(t, where).Pred().(*WideDecimalPred)
		for _, v := range [][]byte{nil, {}, make([]byte, 15), make([]byte, 17)} {
			if p.Match(v) {
				t.Errorf("%s matches %d bytes", where, len(v))
			}
		}
	}
}
