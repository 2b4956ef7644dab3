package read_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata/format"
	"strata/iox"
	"strata/read"
	"strata/write"
)

// writeDecimals writes one record of decimal128 columns of the given
// types, each holding the unscaled values vals, and opens the file.
func writeDecimals(t *testing.T, types []*arrow.Decimal128Type, vals []int64) *read.File {
	t.Helper()
	var fields []arrow.Field
	for i, dt := range types {
		fields = append(fields, arrow.Field{Name: string(rune('a' + i)), Type: dt, Nullable: true})
	}
	sch := arrow.NewSchema(fields, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	defer b.Release()
	for i := range types {
		for _, v := range vals {
			b.Field(i).(*array.Decimal128Builder).Append(decimal128.FromI64(v))
		}
	}
	rec := b.NewRecord()
	defer rec.Release()
	var buf bytes.Buffer
	w, err := write.New(format.NewWriter(&buf, format.WriterOptions{}), sch, write.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := read.Open(context.Background(), iox.Bytes(buf.Bytes()), read.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestAggNegativeScale: a decimal of negative scale (Arrow's decimal(p,-s):
// value = unscaled × 10^s) is aggregated in its own units. The unscaled 5,
// 7 and -3 of a decimal(38,-2) and of a decimal(10,-2) are 500, 700 and
// -300: their sum is 900, min -300, max 700 and avg 300, as strata cat
// prints the values (Arrow's ToString), not 9, -3, 7 and 3.
func TestAggNegativeScale(t *testing.T) {
	f := writeDecimals(t, []*arrow.Decimal128Type{{Precision: 38, Scale: -2}, {Precision: 10, Scale: -2}}, []int64{5, 7, -3, 0})
	for _, c := range []string{"a", "b"} {
		got, _, err := f.Aggregate("sum("+c+"), min("+c+"), max("+c+"), avg("+c+")", "")
		if err != nil {
			t.Fatal(err)
		}
		for i, want := range []string{"900", "-300", "700"} {
			if got[i].Text != want {
				t.Errorf("%s: text %q, want %q", got[i].Name, got[i].Text, want)
			}
		}
		if !got[3].Float || got[3].F != 225 {
			t.Errorf("%s = %v, want 225", got[3].Name, got[3])
		}
	}
	// A zero is 0, as Arrow writes it, not 000.
	z := writeDecimals(t, []*arrow.Decimal128Type{{Precision: 38, Scale: -2}, {Precision: 10, Scale: -2}}, []int64{0})
	for _, c := range []string{"a", "b"} {
		got, _, err := z.Aggregate("sum("+c+")", "")
		if err != nil {
			t.Fatal(err)
		}
		if got[0].Text != "0" {
			t.Errorf("%s: text %q, want 0", got[0].Name, got[0].Text)
		}
	}
}

type rvCol struct {
	name  string
	prec  int
	scale int
	vals  []*big.Int
}

func rvPow10(n int) *big.Int { return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil) }

func rvEdges(p int) []*big.Int {
	m := new(big.Int).Sub(rvPow10(p), big.NewInt(1))
	out := []*big.Int{big.NewInt(0), big.NewInt(1), big.NewInt(-1), big.NewInt(255), big.NewInt(256), big.NewInt(-256), big.NewInt(5), big.NewInt(-5), big.NewInt(50), big.NewInt(-50), big.NewInt(105), big.NewInt(-105),
		m, new(big.Int).Neg(m), new(big.Int).Sub(m, big.NewInt(1)), new(big.Int).Add(new(big.Int).Neg(m), big.NewInt(1)),
		new(big.Int).Lsh(big.NewInt(1), 64), new(big.Int).Neg(new(big.Int).Lsh(big.NewInt(1), 64)), big.NewInt(math.MaxInt64), big.NewInt(math.MinInt64),
		new(big.Int).Add(big.NewInt(math.MaxInt64), big.NewInt(1)), new(big.Int).Sub(big.NewInt(math.MinInt64), big.NewInt(1)), rvPow10(p - 1), new(big.Int).Neg(rvPow10(p - 1))}
	var ok []*big.Int
	for _, v := range out {
		if new(big.Int).Abs(v).Cmp(m) <= 0 {
			ok = append(ok, v)
		}
	}
	return ok
}

func rvRandVal(r *rand.Rand, p int, few []*big.Int) *big.Int {
	switch r.IntN(5) {
	case 0:
		e := rvEdges(p)
		return new(big.Int).Set(e[r.IntN(len(e))])
	case 1:
		return new(big.Int).Set(few[r.IntN(len(few))])
	}
	var b strings.Builder
	if r.IntN(2) == 0 {
		b.WriteByte('-')
	}
	for range 1 + r.IntN(p) {
		b.WriteByte(byte('0' + r.IntN(10)))
	}
	v, _ := new(big.Int).SetString(b.String(), 10)
	return v
}

var rvSpecs = []struct {
	name string
	p, s int
}{{"a", 38, 2}, {"b", 38, 0}, {"c", 38, 38}, {"e", 19, 0}, {"g", 19, 19}, {"h", 30, 7}, {"st.x", 38, 4}}

func rvBuild(t *testing.T, seed uint64, n int, opts write.Options) (*read.File, []rvCol, []bool) {
	r := rand.New(rand.NewPCG(seed, 9))
	var cols []rvCol
	for _, s := range rvSpecs {
		few := make([]*big.Int, 5)
		for i := range few {
			few[i] = rvRandVal(r, s.p, []*big.Int{big.NewInt(7)})
		}
		c := rvCol{name: s.name, prec: s.p, scale: s.s}
		nullRate := 1 + r.IntN(6)
		for i := 0; i < n; i++ {
			if r.IntN(nullRate+1) == 0 {
				c.vals = append(c.vals, nil)
			} else {
				c.vals = append(c.vals, rvRandVal(r, s.p, few))
			}
		}
		cols = append(cols, c)
	}
	stNull := make([]bool, n)
	for i := range stNull {
		stNull[i] = r.IntN(7) == 0
		if stNull[i] {
			cols[len(cols)-1].vals[i] = nil
		}
	}
	fields := []arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}}
	for _, s := range rvSpecs[:len(rvSpecs)-1] {
		fields = append(fields, arrow.Field{Name: s.name, Type: &arrow.Decimal128Type{Precision: int32(s.p), Scale: int32(s.s)}, Nullable: true})
	}
	last := rvSpecs[len(rvSpecs)-1]
	stype := arrow.StructOf(arrow.Field{Name: "x", Type: &arrow.Decimal128Type{Precision: int32(last.p), Scale: int32(last.s)}, Nullable: true})
	fields = append(fields, arrow.Field{Name: "st", Type: stype, Nullable: true})
	sch := arrow.NewSchema(fields, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	app := func(db *array.Decimal128Builder, v *big.Int) {
		if v == nil {
			db.AppendNull()
		} else {
			db.Append(decimal128.FromBigInt(v))
		}
	}
	for i := 0; i < n; i++ {
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		for c := 0; c < len(rvSpecs)-1; c++ {
			app(b.Field(c+1).(*array.Decimal128Builder), cols[c].vals[i])
		}
		sb := b.Field(len(rvSpecs)).(*array.StructBuilder)
		if stNull[i] {
			sb.AppendNull()
		} else {
			sb.Append(true)
			app(sb.FieldBuilder(0).(*array.Decimal128Builder), cols[len(cols)-1].vals[i])
		}
	}
	rec := b.NewRecord()
	var buf bytes.Buffer
	w, err := write.New(format.NewWriter(&buf, format.WriterOptions{GroupSize: 2}), sch, opts)
	if err != nil {
		t.Fatal(err)
	}
	for lo := 0; lo < n; lo += 300 {
		part := rec.NewSlice(int64(lo), int64(min(n, lo+300)))
		if err := w.Write(part); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := read.Open(context.Background(), iox.Bytes(buf.Bytes()), read.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return f, cols, stNull
}

// rvLitText writes v as a filter literal: plain, in exponent form
// (0.DIGITSeK or DIGITSEk), with a plus sign, or with trailing zeros.
func rvLitText(r *rand.Rand, v *big.Rat) string {
	s := v.FloatString(45)
	s = strings.TrimRight(s, "0")
	s = strings.TrimSuffix(s, ".")
	if s == "" || s == "-" {
		s = "0"
	}
	switch r.IntN(6) {
	case 0: // exponent form: mantissa digits with e
		neg := strings.HasPrefix(s, "-")
		u := strings.TrimPrefix(s, "-")
		ip, fp, _ := strings.Cut(u, ".")
		digits := strings.TrimLeft(ip+fp, "0")
		if digits == "" {
			return "0e5"
		}
		// value = 0.digits * 10^k where k = len(ip) - leading zeros count...
		lead := len(ip+fp) - len(strings.TrimLeft(ip+fp, "0"))
		k := len(ip) - lead // value = 0.DIGITS × 10^k
		out := "0." + digits + "e" + fmt.Sprint(k)
		if r.IntN(2) == 0 {
			out = digits + "E" + fmt.Sprint(k-len(digits))
		}
		if neg {
			out = "-" + out
		}
		return out
	case 1:
		if !strings.HasPrefix(s, "-") {
			return "+" + s
		}
	case 2:
		if s == "0" {
			return "-0.000"
		}
		if !strings.Contains(s, ".") {
			return s + ".000"
		}
		return s + "000"
	}
	return s
}

func rvRandLit(r *rand.Rand, c rvCol) string {
	switch r.IntN(14) {
	case 0:
		return []string{"1e40", "-1e40", "1e38", "-1e38", "99999999999999999999999999999999999999", "-99999999999999999999999999999999999999", "170141183460469231731687303715884105727", "-170141183460469231731687303715884105728", "170141183460469231731687303715884105728", "-170141183460469231731687303715884105729", "1e-39", "-1e-39", "0", "-0", "1e-50"}[r.IntN(15)]
	case 1:
		// boundary of domain as scaled literal
		m := new(big.Rat).SetFrac(new(big.Int).Sub(rvPow10(c.prec), big.NewInt(1)), rvPow10(c.scale))
		if r.IntN(2) == 0 {
			m.Neg(m)
		}
		if r.IntN(2) == 0 {
			m.Add(m, new(big.Rat).SetFrac(big.NewInt(int64(r.IntN(3)-1)), rvPow10(c.scale+r.IntN(2))))
		}
		return rvLitText(r, m)
	case 2:
		// int128 rvEdges scaled
		e := new(big.Int).Lsh(big.NewInt(1), 127)
		if r.IntN(2) == 0 {
			e.Sub(e, big.NewInt(1))
		} else {
			e.Neg(e)
		}
		e.Add(e, big.NewInt(int64(r.IntN(3)-1)))
		return rvLitText(r, new(big.Rat).SetFrac(e, rvPow10(c.scale)))
	}
	var v *big.Int
	for v == nil {
		v = c.vals[r.IntN(len(c.vals))]
	}
	x := new(big.Rat).SetFrac(v, rvPow10(c.scale))
	switch r.IntN(4) {
	case 0:
		x.Add(x, new(big.Rat).SetFrac(big.NewInt(int64(r.IntN(11)-5)), rvPow10(c.scale+1+r.IntN(3))))
	case 1:
		x.Add(x, new(big.Rat).SetFrac(big.NewInt(int64(r.IntN(3)-1)), rvPow10(c.scale)))
	}
	return rvLitText(r, x)
}

type rvQ struct {
	leaf  bool
	rvCol int
	op    string
	lits  []string
	not   bool
	and   bool
	kids  []*rvQ
}

func (x *rvQ) sql(cols []rvCol) string {
	var s string
	if x.leaf {
		n := cols[x.rvCol].name
		switch x.op {
		case "BETWEEN":
			s = n + " BETWEEN " + x.lits[0] + " AND " + x.lits[1]
		case "IN":
			s = n + " IN (" + strings.Join(x.lits, ", ") + ")"
		case "IS NULL", "IS NOT NULL":
			s = n + " " + x.op
		default:
			s = n + " " + x.op + " " + x.lits[0]
		}
	} else {
		sep := " OR "
		if x.and {
			sep = " AND "
		}
		var p []string
		for _, k := range x.kids {
			p = append(p, "("+k.sql(cols)+")")
		}
		s = strings.Join(p, sep)
	}
	if x.not {
		return "NOT (" + s + ")"
	}
	return s
}

func rvRat(t *testing.T, s string) *big.Rat {
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		t.Fatalf("lit %q", s)
	}
	return r
}

func (x *rvQ) eval(t *testing.T, cols []rvCol, i int) int {
	var res int
	if x.leaf {
		c := cols[x.rvCol]
		v := c.vals[i]
		switch {
		case x.op == "IS NULL":
			res = rvB2i(v == nil)
		case x.op == "IS NOT NULL":
			res = rvB2i(v != nil)
		case v == nil:
			res = -1
		default:
			xv := new(big.Rat).SetFrac(v, rvPow10(c.scale))
			switch x.op {
			case "BETWEEN":
				res = rvB2i(xv.Cmp(rvRat(t, x.lits[0])) >= 0 && xv.Cmp(rvRat(t, x.lits[1])) <= 0)
			case "IN":
				res = 0
				for _, l := range x.lits {
					if xv.Cmp(rvRat(t, l)) == 0 {
						res = 1
					}
				}
			default:
				cm := xv.Cmp(rvRat(t, x.lits[0]))
				res = rvB2i(map[string]bool{"=": cm == 0, "!=": cm != 0, "<>": cm != 0, "<": cm < 0, "<=": cm <= 0, ">": cm > 0, ">=": cm >= 0}[x.op])
			}
		}
	} else {
		if x.and {
			res = 1
		} else {
			res = 0
		}
		for _, k := range x.kids {
			v := k.eval(t, cols, i)
			if x.and {
				if v == 0 {
					res = 0
				} else if v == -1 && res == 1 {
					res = -1
				}
			} else {
				if v == 1 {
					res = 1
				} else if v == -1 && res == 0 {
					res = -1
				}
			}
		}
	}
	if x.not && res >= 0 {
		return 1 - res
	}
	return res
}

func rvB2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func rvRandLeaf(r *rand.Rand, cols []rvCol) *rvQ {
	x := &rvQ{leaf: true, rvCol: r.IntN(len(cols))}
	x.op = []string{"=", "!=", "<>", "<", "<=", ">", ">=", "BETWEEN", "IN", "IS NULL", "IS NOT NULL", "BETWEEN", "IN"}[r.IntN(13)]
	n := map[string]int{"BETWEEN": 2, "IN": 1 + r.IntN(6), "IS NULL": 0, "IS NOT NULL": 0}
	k, ok := n[x.op]
	if !ok {
		k = 1
	}
	for range k {
		x.lits = append(x.lits, rvRandLit(r, cols[x.rvCol]))
	}
	if x.op == "IN" && r.IntN(2) == 0 {
		x.lits = append(x.lits, x.lits[0]) // duplicate
	}
	x.not = r.IntN(3) == 0
	return x
}

func rvRandQ(r *rand.Rand, cols []rvCol, depth int) *rvQ {
	if depth == 0 || r.IntN(3) == 0 {
		return rvRandLeaf(r, cols)
	}
	x := &rvQ{and: r.IntN(2) == 0, not: r.IntN(3) == 0}
	for range 2 + r.IntN(2) {
		x.kids = append(x.kids, rvRandQ(r, cols, depth-1))
	}
	return x
}

// rvScanIDs returns the ids of the rows a filter selects, or the error
// of the scan.
func rvScanIDs(t *testing.T, f *read.File, where string) ([]int64, error) {
	sc, err := f.Scan(read.ScanOptions{Where: where, Columns: []string{"id"}})
	if err != nil {
		return nil, err
	}
	defer sc.Close()
	var ids []int64
	for {
		rec, err := sc.Next()
		if err == io.EOF {
			return ids, nil
		}
		if err != nil {
			return nil, err
		}
		ids = append(ids, rec.Column(0).(*array.Int64).Int64Values()...)
		rec.Release()
	}
}

// TestWideReviewRandomFilters checks random filters on wide decimals of
// scale 0, 2, 4 (in a struct), 7, 19 and 38, precision 19 to 38, against
// math/big, and the count, min, max, sum and avg of a random column under
// the same filter: literals in exponent form ("0.105e1", "105E-2"), with
// a sign or trailing zeros, one unit or a digit past the scale beside a
// stored value, at the ends of the column's precision and of the 128-bit
// range, beyond both; IN lists with duplicates; IS [NOT] NULL under NOT,
// AND and OR; several chunks and stripes, with bloom filters and without
// shared dictionaries.
func TestWideReviewRandomFilters(t *testing.T) {
	for _, seed := range []uint64{5} {
		for _, opts := range []write.Options{{ChunkValues: 64, StripeBytes: 8 << 10, Bloom: []string{"a", "b", "c", "e", "g", "h"}}, {NoShared: true, ChunkValues: 100}} {
			n := 900
			f, cols, _ := rvBuild(t, seed, n, opts)
			r := rand.New(rand.NewPCG(seed, 77))
			bad := 0
			for it := 0; it < 200 && bad < 10; it++ {
				x := rvRandQ(r, cols, 2)
				where := x.sql(cols)
				got, err := rvScanIDs(t, f, where)
				if err != nil {
					t.Errorf("%s: %v", where, err)
					bad++
					continue
				}
				var want []int64
				for i := 0; i < n; i++ {
					if x.eval(t, cols, i) == 1 {
						want = append(want, int64(i))
					}
				}
				if !slices.Equal(got, want) {
					bad++
					t.Errorf("seed %d %s: got %d rows want %d; rvDiff %v", seed, where, len(got), len(want), rvDiff(got, want))
				}
				// aggregates with the same filter on a random column
				c := r.IntN(len(cols))
				rvCheckAgg(t, f, cols, c, where, x)
			}
		}
	}
}

func rvDiff(a, b []int64) string {
	ma := map[int64]bool{}
	for _, v := range a {
		ma[v] = true
	}
	mb := map[int64]bool{}
	for _, v := range b {
		mb[v] = true
	}
	var extra, missing []int64
	for v := range ma {
		if !mb[v] {
			extra = append(extra, v)
		}
	}
	for v := range mb {
		if !ma[v] {
			missing = append(missing, v)
		}
	}
	slices.Sort(extra)
	slices.Sort(missing)
	if len(extra) > 5 {
		extra = extra[:5]
	}
	if len(missing) > 5 {
		missing = missing[:5]
	}
	return fmt.Sprintf("extra %v missing %v", extra, missing)
}

func rvDecText(v *big.Int, scale int) string {
	return new(big.Rat).SetFrac(v, rvPow10(scale)).FloatString(scale)
}

func rvCheckAgg(t *testing.T, f *read.File, cols []rvCol, c int, where string, x *rvQ) {
	name := cols[c].name
	got, _, err := f.Aggregate(fmt.Sprintf("count(%s), min(%s), max(%s), sum(%s), avg(%s)", name, name, name, name, name), where)
	var cnt int64
	var mn, mx *big.Int
	sum := new(big.Int)
	for i := range cols[c].vals {
		if x != nil && x.eval(t, cols, i) != 1 {
			continue
		}
		v := cols[c].vals[i]
		if v == nil {
			continue
		}
		cnt++
		sum.Add(sum, v)
		if mn == nil || v.Cmp(mn) < 0 {
			mn = v
		}
		if mx == nil || v.Cmp(mx) > 0 {
			mx = v
		}
	}
	over := new(big.Int).Abs(sum).Cmp(new(big.Int).Sub(rvPow10(38), big.NewInt(1))) > 0
	if err != nil {
		if over && strings.Contains(err.Error(), "overflow") {
			return
		}
		t.Errorf("agg %s where %s: %v", name, where, err)
		return
	}
	if over {
		t.Errorf("agg %s where %s: sum %s beyond 38 digits, no error", name, where, sum)
		return
	}
	if got[0].I != cnt {
		t.Errorf("count %s where %s: %d want %d", name, where, got[0].I, cnt)
	}
	if cnt == 0 {
		for k := 1; k < 5; k++ {
			if !got[k].Null {
				t.Errorf("%s where %s: not null on empty", got[k].Name, where)
			}
		}
		return
	}
	sc := cols[c].scale
	for k, want := range []*big.Int{mn, mx, sum} {
		g := got[1+k]
		if g.Big() == nil || g.Big().Cmp(want) != 0 || g.Text != rvDecText(want, sc) {
			t.Errorf("%s where %s: got %v (%q) want %s", g.Name, where, g.Big(), g.Text, rvDecText(want, sc))
		}
	}
	wantAvg, _ := new(big.Rat).SetFrac(sum, new(big.Int).Mul(rvPow10(sc), big.NewInt(cnt))).Float64()
	if !got[4].Float || got[4].F != wantAvg {
		t.Errorf("avg %s where %s: got %v want %v", name, where, got[4].F, wantAvg)
	}
}
