package read_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
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

// wideCol is a wide decimal column of a test table: its unscaled values,
// nil for null.
type wideCol struct {
	name  string
	prec  int32
	scale int32
	vals  []*big.Int
}

// wideEdges are unscaled values that a bytewise comparison of the stored
// little-endian two's complement orders wrongly, or that sit at the ends of
// the 38-digit range: ±1, 255 and 256 (which differ in the second byte),
// values that share the low word and differ in the high one, the 2^64 and
// int64 edges, and ±(10^38−1).
func wideEdges() []*big.Int {
	max38 := new(big.Int).Sub(new(big.Int).Exp(big.NewInt(10), big.NewInt(38), nil), big.NewInt(1))
	two64 := new(big.Int).Lsh(big.NewInt(1), 64)
	hiOnly := func(hi int64) *big.Int {
		return new(big.Int).Add(new(big.Int).Lsh(big.NewInt(hi), 64), big.NewInt(12345))
	}
	return []*big.Int{
		big.NewInt(0), big.NewInt(1), big.NewInt(-1), big.NewInt(255), big.NewInt(256), big.NewInt(-256),
		big.NewInt(100), big.NewInt(-100), big.NewInt(10000), big.NewInt(-10000),
		two64, new(big.Int).Neg(two64), new(big.Int).Sub(two64, big.NewInt(1)),
		hiOnly(1), hiOnly(2), hiOnly(-1), hiOnly(-2), hiOnly(1 << 40), hiOnly(-1 << 40),
		big.NewInt(1<<62 + (1<<62 - 1)), big.NewInt(-1 << 63),
		max38, new(big.Int).Neg(max38), new(big.Int).Sub(max38, big.NewInt(1)),
	}
}

// randWide returns an unscaled value of up to 38 digits: an edge value, or
// random digits of a random count and sign.
func randWide(r *rand.Rand, edges []*big.Int) *big.Int {
	if r.IntN(4) == 0 {
		return new(big.Int).Set(edges[r.IntN(len(edges))])
	}
	var b strings.Builder
	if r.IntN(2) == 0 {
		b.WriteByte('-')
	}
	for range 1 + r.IntN(38) {
		b.WriteByte(byte('0' + r.IntN(10)))
	}
	v, _ := new(big.Int).SetString(b.String(), 10)
	return v
}

// wideTable builds the test table: id (the row number), d decimal(38,2)
// (random values and edges, nulls), k decimal(38,0) (a few distinct
// values, so that the writer may keep a dictionary, with a bloom filter)
// and s.w, a decimal(25,3) in a nullable struct; and writes it with opts
// and small chunks and stripes.
func wideTable(t *testing.T, seed uint64, n int, opts write.Options) (*read.File, []wideCol, []bool) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 3))
	edges := wideEdges()
	few := make([]*big.Int, 7)
	for i := range few {
		few[i] = randWide(r, edges)
	}
	cols := []wideCol{{name: "d", prec: 38, scale: 2}, {name: "k", prec: 38, scale: 0}, {name: "s.w", prec: 25, scale: 3}}
	lim25 := new(big.Int).Exp(big.NewInt(10), big.NewInt(25), nil)
	structNull := make([]bool, n)
	for i := 0; i < n; i++ {
		var d, k, w *big.Int
		if r.IntN(8) != 0 {
			d = randWide(r, edges)
		}
		if r.IntN(10) != 0 {
			k = few[r.IntN(len(few))]
		}
		structNull[i] = r.IntN(12) == 0
		if !structNull[i] && r.IntN(6) != 0 {
			w = randWide(r, edges)
			w.Rem(w, lim25) // 25 digits
		}
		cols[0].vals = append(cols[0].vals, d)
		cols[1].vals = append(cols[1].vals, k)
		cols[2].vals = append(cols[2].vals, w)
	}

	mem := memory.DefaultAllocator
	stype := arrow.StructOf(arrow.Field{Name: "w", Type: &arrow.Decimal128Type{Precision: 25, Scale: 3}, Nullable: true})
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "d", Type: &arrow.Decimal128Type{Precision: 38, Scale: 2}, Nullable: true},
		{Name: "k", Type: &arrow.Decimal128Type{Precision: 38, Scale: 0}, Nullable: true},
		{Name: "s", Type: stype, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(mem, sch)
	defer b.Release()
	appendDec := func(db *array.Decimal128Builder, v *big.Int) {
		if v == nil {
			db.AppendNull()
		} else {
			db.Append(decimal128.FromBigInt(v))
		}
	}
	sb := b.Field(3).(*array.StructBuilder)
	for i := 0; i < n; i++ {
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		appendDec(b.Field(1).(*array.Decimal128Builder), cols[0].vals[i])
		appendDec(b.Field(2).(*array.Decimal128Builder), cols[1].vals[i])
		if structNull[i] {
			sb.AppendNull() // appends a null to the field too
		} else {
			sb.Append(true)
			appendDec(sb.FieldBuilder(0).(*array.Decimal128Builder), cols[2].vals[i])
		}
	}
	rec := b.NewRecord()
	defer rec.Release()

	var buf bytes.Buffer
	opts.ChunkValues, opts.StripeBytes, opts.Bloom = 100, 16<<10, []string{"k"}
	w, err := write.New(format.NewWriter(&buf, format.WriterOptions{GroupSize: 2}), sch, opts)
	if err != nil {
		t.Fatal(err)
	}
	for lo := 0; lo < n; lo += 500 {
		part := rec.NewSlice(int64(lo), int64(min(n, lo+500)))
		err := w.Write(part)
		part.Release()
		if err != nil {
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
	return f, cols, structNull
}

// wideQ is a filter of the test: a comparison on one column, or NOT, AND,
// OR of others, written as SQL and evaluated by a math/big reference.
type wideQ struct {
	col   int // leaf: index into the columns
	op    string
	lits  []string
	not   bool
	and   bool
	kids  []*wideQ
	idMax int // > 0: the leaf id < idMax
}

func (q *wideQ) sql(cols []wideCol) string {
	switch {
	case q.kids != nil:
		sep := " OR "
		if q.and {
			sep = " AND "
		}
		parts := make([]string, len(q.kids))
		for i, k := range q.kids {
			parts[i] = "(" + k.sql(cols) + ")"
		}
		return strings.Join(parts, sep)
	case q.not:
		return "NOT (" + q.kids0(cols) + ")"
	case q.idMax > 0:
		return fmt.Sprintf("id < %d", q.idMax)
	}
	return q.leafSQL(cols)
}

func (q *wideQ) kids0(cols []wideCol) string {
	c := *q
	c.not = false
	return c.sql(cols)
}

func (q *wideQ) leafSQL(cols []wideCol) string {
	name := cols[q.col].name
	switch q.op {
	case "BETWEEN":
		return name + " BETWEEN " + q.lits[0] + " AND " + q.lits[1]
	case "IN":
		return name + " IN (" + strings.Join(q.lits, ", ") + ")"
	}
	return name + " " + q.op + " " + q.lits[0]
}

// eval is the three-valued truth of q on row i: 1 true, 0 false, -1
// unknown (a null).
func (q *wideQ) eval(t *testing.T, cols []wideCol, i int) int {
	switch {
	case q.kids != nil:
		res := 1
		if !q.and {
			res = 0
		}
		for _, k := range q.kids {
			v := k.eval(t, cols, i)
			switch {
			case q.and && v == 0, !q.and && v == 1:
				return v
			case v == -1:
				res = -1
			}
		}
		return res
	case q.not:
		c := *q
		c.not = false
		if v := c.eval(t, cols, i); v >= 0 {
			return 1 - v
		}
		return -1
	case q.idMax > 0:
		return b2i(i < q.idMax)
	}
	c := cols[q.col]
	v := c.vals[i]
	if v == nil {
		return -1
	}
	x := new(big.Rat).SetFrac(v, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(c.scale)), nil))
	rat := func(s string) *big.Rat {
		r, ok := new(big.Rat).SetString(s)
		if !ok {
			t.Fatalf("literal %q", s)
		}
		return r
	}
	switch q.op {
	case "BETWEEN":
		return b2i(x.Cmp(rat(q.lits[0])) >= 0 && x.Cmp(rat(q.lits[1])) <= 0)
	case "IN":
		for _, l := range q.lits {
			if x.Cmp(rat(l)) == 0 {
				return 1
			}
		}
		return 0
	}
	cmp := x.Cmp(rat(q.lits[0]))
	return b2i(map[string]bool{"=": cmp == 0, "!=": cmp != 0, "<": cmp < 0, "<=": cmp <= 0, ">": cmp > 0, ">=": cmp >= 0}[q.op])
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// wideLit is a literal for column c: a value the column holds (as its
// decimal text, sometimes with a digit past the scale), one near an edge,
// or one beyond 38 digits.
func wideLit(r *rand.Rand, c wideCol) string {
	switch r.IntN(10) {
	case 0:
		return "1e40"
	case 1:
		return "-1e39"
	case 2:
		return "-0.0001"
	}
	var v *big.Int
	for v == nil {
		v = c.vals[r.IntN(len(c.vals))]
	}
	if r.IntN(5) == 0 {
		v = new(big.Int).Add(v, big.NewInt(int64(r.IntN(3)-1)))
	}
	s := new(big.Rat).SetFrac(v, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(c.scale)), nil)).FloatString(int(c.scale))
	if r.IntN(4) == 0 {
		if c.scale == 0 {
			s += "."
		}
		s += fmt.Sprint(1 + r.IntN(9)) // a digit past the scale
	}
	return s
}

func randWideLeaf(r *rand.Rand, cols []wideCol) *wideQ {
	q := &wideQ{col: r.IntN(len(cols))}
	q.op = []string{"=", "!=", "<", "<=", ">", ">=", "BETWEEN", "IN"}[r.IntN(8)]
	n := map[string]int{"BETWEEN": 2, "IN": 1 + r.IntN(4)}[q.op]
	for range max(n, 1) {
		q.lits = append(q.lits, wideLit(r, cols[q.col]))
	}
	q.not = r.IntN(4) == 0
	return q
}

func randWideQ(r *rand.Rand, cols []wideCol, n int) *wideQ {
	switch r.IntN(6) {
	case 0:
		return &wideQ{and: true, kids: []*wideQ{{idMax: 1 + r.IntN(n)}, randWideLeaf(r, cols)}}
	case 1:
		return &wideQ{and: r.IntN(2) == 0, kids: []*wideQ{randWideLeaf(r, cols), randWideLeaf(r, cols)}}
	}
	return randWideLeaf(r, cols)
}

// scanIDs returns the ids of the rows a filter selects.
func scanIDs(t *testing.T, f *read.File, where string) []int64 {
	t.Helper()
	ids, err := rvScanIDs(t, f, where)
	if err != nil {
		t.Fatalf("%s: %v", where, err)
	}
	return ids
}

// TestWideDecimalFilters runs random filters on wide decimals (every
// comparison, BETWEEN, IN, NOT, AND/OR, literals past the scale and beyond
// 38 digits) over a file of many chunks and stripes holding negatives,
// nulls, a null struct parent and the values bytewise order gets wrong,
// and checks the rows returned against math/big on the same values. The
// file is written twice: as the writer chooses (shared dictionaries) and
// without shared dictionaries (per-chunk encodings).
func TestWideDecimalFilters(t *testing.T) {
	for _, noShared := range []bool{false, true} {
		t.Run(fmt.Sprintf("noShared=%v", noShared), func(t *testing.T) { testWideFilters(t, write.Options{NoShared: noShared}) })
	}
}

func testWideFilters(t *testing.T, opts write.Options) {
	const n = 3000
	f, cols, structNull := wideTable(t, 1, n, opts)
	if f.Container().NumStripes() < 3 {
		t.Fatalf("only %d stripes", f.Container().NumStripes())
	}
	for i, null := range structNull {
		if null {
			cols[2].vals[i] = nil // a field of a null struct is null
		}
	}
	r := rand.New(rand.NewPCG(2, 3))
	queries := 200
	if raceEnabled {
		queries = 40
	}
	for range queries {
		q := randWideQ(r, cols, n)
		where := q.sql(cols)
		var want []int64
		for i := 0; i < n; i++ {
			if q.eval(t, cols, i) == 1 {
				want = append(want, int64(i))
			}
		}
		if got := scanIDs(t, f, where); !equalIDs(got, want) {
			t.Fatalf("%s: %d rows, want %d\n%s", where, len(got), len(want), idDiff(got, want, cols))
		}
	}
}

func equalIDs(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// idDiff describes the first rows where two id lists differ.
func idDiff(got, want []int64, cols []wideCol) string {
	in := map[int64]int{}
	for _, id := range got {
		in[id]++
	}
	for _, id := range want {
		in[id]--
	}
	var b strings.Builder
	k := 0
	for id, c := range in {
		if c != 0 && k < 5 {
			fmt.Fprintf(&b, "row %d (d=%v k=%v s.w=%v): extra %d\n", id, cols[0].vals[id], cols[1].vals[id], cols[2].vals[id], c)
			k++
		}
	}
	return b.String()
}

// TestWideDecimalNotClustered: chunks whose bytewise bounds are sorted
// across the file (row i of chunk k holds k + 256·j, so every stored value
// of chunk k begins with the byte k) are not sorted by value. The cluster
// index, which turns a key range into a row range from chunk bounds, must
// not take them for sorted: c < 256 holds the first row of every chunk.
func TestWideDecimalNotClustered(t *testing.T) {
	const chunks, per = 20, 100
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "c", Type: &arrow.Decimal128Type{Precision: 38, Scale: 0}},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	defer b.Release()
	vals := make([]int64, 0, chunks*per)
	for k := range chunks {
		for j := range per {
			v := int64(k + 256*j)
			vals = append(vals, v)
			b.Field(0).(*array.Int64Builder).Append(int64(len(vals) - 1))
			b.Field(1).(*array.Decimal128Builder).Append(decimal128.FromI64(v))
		}
	}
	rec := b.NewRecord()
	defer rec.Release()
	var buf bytes.Buffer
	w, err := write.New(format.NewWriter(&buf, format.WriterOptions{}), sch, write.Options{ChunkValues: per})
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
	for _, c := range []struct {
		where string
		keep  func(v int64) bool
	}{
		{"c < 256", func(v int64) bool { return v < 256 }},
		{"c = 3", func(v int64) bool { return v == 3 }},
		{"c BETWEEN 0 AND 300", func(v int64) bool { return v <= 300 }},
		{"c >= 25000", func(v int64) bool { return v >= 25000 }},
		{"c IN (1, 5, 25000)", func(v int64) bool { return v == 1 || v == 5 || v == 25000 }},
	} {
		var want []int64
		for i, v := range vals {
			if c.keep(v) {
				want = append(want, int64(i))
			}
		}
		if got := scanIDs(t, f, c.where); !equalIDs(got, want) {
			t.Errorf("%s: rows %v, want %v", c.where, got, want)
		}
	}
}

// wideAggRef is the reference of the aggregates of column c over the rows
// q selects (nil: every row): count, min, max and sum of the unscaled
// values, with math/big.
func wideAggRef(t *testing.T, cols []wideCol, c int, q *wideQ) (count int64, mn, mx, sum *big.Int) {
	sum = new(big.Int)
	for i, v := range cols[c].vals {
		if v == nil || q != nil && q.eval(t, cols, i) != 1 {
			continue
		}
		count++
		sum.Add(sum, v)
		if mn == nil || v.Cmp(mn) < 0 {
			mn = v
		}
		if mx == nil || v.Cmp(mx) > 0 {
			mx = v
		}
	}
	return count, mn, mx, sum
}

// decText writes an unscaled value as a decimal of the given scale.
func decText(v *big.Int, scale int32) string {
	return new(big.Rat).SetFrac(v, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil)).FloatString(int(scale))
}

// checkWideAgg checks one aggregate value against an unscaled reference
// (nil: NULL): the exact number (Big), I or W as it fits an int64, and the
// decimal text.
func checkWideAgg(t *testing.T, what string, got read.AggValue, want *big.Int, scale int32) {
	t.Helper()
	if want == nil {
		if !got.Null {
			t.Errorf("%s = %v, want NULL", what, got)
		}
		return
	}
	if got.Null || got.Float || got.Big() == nil || got.Big().Cmp(want) != 0 {
		t.Errorf("%s = %+v, want %v (unscaled)", what, got, want)
		return
	}
	if got.Wide != !want.IsInt64() {
		t.Errorf("%s: Wide %v for %v", what, got.Wide, want)
	}
	if text := decText(want, scale); got.Text != text || got.String() != text {
		t.Errorf("%s: text %q, want %q", what, got.Text, text)
	}
}

// TestWideDecimalAggregates computes count, min, max, sum and avg of wide
// decimals over the whole file (where chunk statistics, bytewise, must not
// answer min and max) and under random filters, against math/big: a sum
// beyond 38 digits must be ErrOverflow, any other sum exact.
func TestWideDecimalAggregates(t *testing.T) {
	for _, noShared := range []bool{false, true} {
		t.Run(fmt.Sprintf("noShared=%v", noShared), func(t *testing.T) { testWideAggs(t, write.Options{NoShared: noShared}) })
	}
}

func testWideAggs(t *testing.T, opts write.Options) {
	const n = 3000
	f, cols, structNull := wideTable(t, 4, n, opts)
	for i, null := range structNull {
		if null {
			cols[2].vals[i] = nil
		}
	}
	r := rand.New(rand.NewPCG(5, 6))
	rounds := 60
	if raceEnabled {
		rounds = 15
	}
	sums, overflows := 0, 0
	for round := range rounds {
		var q *wideQ
		where := ""
		if round > 0 {
			q = randWideQ(r, cols, n)
			where = q.sql(cols)
		}
		for c, col := range cols {
			count, mn, mx, sum := wideAggRef(t, cols, c, q)
			what := fmt.Sprintf("%s where %q", col.name, where)
			got, _, err := f.Aggregate(fmt.Sprintf("count(%[1]s), min(%[1]s), max(%[1]s), avg(%[1]s)", col.name), where)
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			if got[0].I != count {
				t.Errorf("count %s = %d, want %d", what, got[0].I, count)
			}
			checkWideAgg(t, "min "+what, got[1], mn, col.scale)
			checkWideAgg(t, "max "+what, got[2], mx, col.scale)
			if count == 0 {
				if !got[3].Null {
					t.Errorf("avg %s = %v, want NULL", what, got[3])
				}
			} else {
				want, _ := new(big.Rat).SetFrac(sum, new(big.Int).Mul(big.NewInt(count),
					new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(col.scale)), nil))).Float64()
				if !got[3].Float || math.Abs(got[3].F-want) > 1e-14*math.Abs(want) {
					t.Errorf("avg %s = %v, want %v", what, got[3], want)
				}
			}

			got, _, err = f.Aggregate("sum("+col.name+")", where)
			max38 := new(big.Int).Sub(new(big.Int).Exp(big.NewInt(10), big.NewInt(38), nil), big.NewInt(1))
			switch {
			case new(big.Int).Abs(sum).Cmp(max38) > 0:
				overflows++
				if !errors.Is(err, read.ErrOverflow) || !strings.Contains(err.Error(), "sum("+col.name+")") {
					t.Errorf("sum %s = %v, %v; want ErrOverflow naming the aggregate (sum %v)", what, got, err, sum)
				}
			case err != nil:
				t.Errorf("sum %s: %v", what, err)
			case count == 0:
				if !got[0].Null {
					t.Errorf("sum %s = %v, want NULL", what, got[0])
				}
			default:
				sums++
				checkWideAgg(t, "sum "+what, got[0], sum, col.scale)
			}
		}
	}
	if sums == 0 || overflows == 0 {
		t.Errorf("%d exact sums, %d overflows: the test data no longer tries both", sums, overflows)
	}
}

// TestWideDecimalSumCancels: a sum whose running total passes 128 bits
// (hundreds of values of 38 nines) and comes back comes out exact, across
// chunks; one that stays beyond 38 digits, or ends just past them, is
// ErrOverflow, and one that ends at exactly 38 nines is not.
func TestWideDecimalSumCancels(t *testing.T) {
	max38 := new(big.Int).Sub(new(big.Int).Exp(big.NewInt(10), big.NewInt(38), nil), big.NewInt(1))
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "d", Type: &arrow.Decimal128Type{Precision: 38, Scale: 4}, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	defer b.Release()
	add := func(v *big.Int, times int) {
		for range times {
			b.Field(0).(*array.Int64Builder).Append(int64(b.Field(0).Len()))
			b.Field(1).(*array.Decimal128Builder).Append(decimal128.FromBigInt(v))
		}
	}
	add(max38, 250)                   // rows 0..249
	add(new(big.Int).Neg(max38), 250) // rows 250..499
	add(big.NewInt(5), 1)             // row 500
	add(big.NewInt(-5), 1)            // row 501
	rec := b.NewRecord()
	defer rec.Release()
	f := aggFile(t, rec)
	for _, c := range []struct {
		where string
		want  *big.Int // nil: ErrOverflow
	}{
		{"", big.NewInt(0)},
		{"id <= 500", big.NewInt(5)},
		{"id < 250 OR id >= 500", nil}, // 250 × max38
		{"id = 0 OR id = 500", nil},    // max38 + 5
		{"id = 0 OR id = 501 OR id = 500", max38},
		{"id >= 249 AND id <= 251", new(big.Int).Neg(max38)},
	} {
		got, _, err := f.Aggregate("sum(d)", c.where)
		if c.want == nil {
			if !errors.Is(err, read.ErrOverflow) || !strings.Contains(err.Error(), "38 digits") {
				t.Errorf("sum where %q = %v, %v; want ErrOverflow", c.where, got, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("sum where %q: %v", c.where, err)
		}
		checkWideAgg(t, "sum where "+c.where, got[0], c.want, 4)
	}
}
