package strata_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"strata"
	"strata/encoding"
	"strata/internal/randtable"
	"strata/iox"
)

// layoutTable has columns for the stripe-level layouts: dates and times
// stored relative to earlier columns (one of them relative to a column with
// nulls), low-cardinality text and integers sharing one alphabet per
// stripe (one with nulls), a wide column that keeps chunks small, and
// long text drawn from a pool so large that a chunk holds mostly distinct
// values while the stripe repeats each about four times (with nulls).
func layoutTable(t *testing.T, rows int, seed uint64) *table {
	i64, i32, u16, str, date := arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Uint16,
		arrow.BinaryTypes.String, arrow.FixedWidthTypes.Date32
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "ship", Type: date}, {Name: "receipt", Type: date},
		{Name: "start", Type: i64}, {Name: "end", Type: i64},
		{Name: "base", Type: u16, Nullable: true}, {Name: "derived", Type: u16},
		{Name: "mode", Type: str}, {Name: "county", Type: str, Nullable: true},
		{Name: "code", Type: i32}, {Name: "note", Type: str},
		{Name: "org", Type: str, Nullable: true},
	}, nil)
	r := rand.New(rand.NewPCG(seed, 18))
	counties := make([]string, 400)
	for i := range counties {
		counties[i] = fmt.Sprintf("County %03d of %s", i, []string{"Alabama", "Ohio", "Utah", "Maine"}[i%4])
	}
	orgs := make([]string, max(1, rows/4))
	for i := range orgs {
		w := make([]byte, 30+r.IntN(30))
		for j := range w {
			w[j] = 'a' + byte(r.IntN(26))
		}
		orgs[i] = string(w)
	}
	tb := &table{sch: sch}
	ts := int64(1_700_000_000)
	for done := 0; done < rows; {
		n := min(rows-done, 1+r.IntN(rows/3+1))
		b := array.NewRecordBuilder(mem, sch)
		for range n {
			ship := arrow.Date32(8036 + r.IntN(2500))
			b.Field(0).(*array.Date32Builder).Append(ship)
			b.Field(1).(*array.Date32Builder).Append(ship + 1 + arrow.Date32(r.IntN(30)))
			ts += int64(r.IntN(1000))
			b.Field(2).(*array.Int64Builder).Append(ts)
			b.Field(3).(*array.Int64Builder).Append(ts + int64(r.IntN(16)))
			base := uint16(r.IntN(60000))
			if r.IntN(7) == 0 {
				b.Field(4).AppendNull()
				// a null reference value counts as 0
				b.Field(5).(*array.Uint16Builder).Append(uint16(r.IntN(8)) - 4)
			} else {
				b.Field(4).(*array.Uint16Builder).Append(base)
				b.Field(5).(*array.Uint16Builder).Append(base + uint16(r.IntN(8)) - 4) // wraps near 0
			}
			b.Field(6).(*array.StringBuilder).Append([]string{"REG AIR", "AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB"}[r.IntN(7)])
			if r.IntN(9) == 0 {
				b.Field(7).AppendNull()
			} else {
				b.Field(7).(*array.StringBuilder).Append(counties[r.IntN(len(counties))])
			}
			b.Field(8).(*array.Int32Builder).Append(int32(1000 * r.IntN(300)))
			w := make([]byte, 20+r.IntN(40))
			for i := range w {
				w[i] = 'a' + byte(r.IntN(26))
			}
			b.Field(9).(*array.StringBuilder).Append(string(w))
			if r.IntN(10) == 0 {
				b.Field(10).AppendNull()
			} else {
				b.Field(10).(*array.StringBuilder).Append(orgs[r.IntN(len(orgs))])
			}
		}
		tb.recs = append(tb.recs, b.NewRecordBatch())
		b.Release()
		done += n
	}
	all, err := randtable.Concat(mem, sch, tb.recs)
	if err != nil {
		t.Fatal(err)
	}
	tb.all = all
	return tb
}

// TestStripeLayouts writes tables that use byte-sized chunks, shared
// dictionaries and Correlated columns and reads them back every way the
// reader offers: scans with projections and windows, Take, filters and
// aggregates on dependent columns, on their references, and on shared
// dictionaries, each compared value by value with the table.
func TestStripeLayouts(t *testing.T) {
	rows := 30000
	if testing.Short() {
		rows = 8000
	}
	tb := layoutTable(t, rows, 1)
	defer tb.all.Release()
	correlated := []string{"receipt Correlated", "end Correlated", "derived Correlated"}
	// A shared alphabet saves each chunk its own: 400 counties of ~20 bytes
	// always pay for the slower shared lookup (encoding.Optimize); the 7
	// short modes do when optimizing for size. The org texts, mostly
	// distinct within a chunk, are weighed as a whole stream and stored
	// once per stripe.
	shared := []string{"county SharedDictionary", "org SharedDictionary"}
	allShared := []string{"mode SharedDictionary", "county SharedDictionary", "org SharedDictionary"}
	for i, c := range []struct {
		opts strata.WriteOptions
		want []string // layouts some chunk must use
	}{
		{strata.WriteOptions{}, append(correlated, "org SharedDictionary")},
		{strata.WriteOptions{ChunkTarget: 2 << 10, ChunkValues: 2048, StripeBytes: 1 << 20}, append(correlated, shared...)},
		{strata.WriteOptions{ChunkTarget: 1 << 10, ChunkValues: 1024, StripeBytes: 512 << 10, NoZstd: true, Parallel: 1,
			Optimize: encoding.OptimizeSize}, append(correlated, allShared...)},
		{strata.WriteOptions{ChunkTarget: -1, ChunkValues: 1500, StripeBytes: 2 << 20, Optimize: encoding.OptimizeSize}, append(correlated, allShared...)},
		{strata.WriteOptions{ChunkTarget: 1 << 10, ChunkValues: 1024, NoShared: true, NoCorrelated: true}, nil},
	} {
		opts := c.opts
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			f, err := strata.OpenSource(iox.Bytes(writeBytes(t, tb, opts)))
			if err != nil {
				t.Fatal(err)
			}
			rep, err := f.Inspect()
			if err != nil {
				t.Fatal(err)
			}
			kinds := map[string]bool{}
			for _, c := range rep.Columns {
				for _, tr := range c.Trees {
					for _, k := range []string{"SharedDictionary", "Correlated"} {
						if strings.Contains(tr.Tree, k) {
							kinds[c.Name+" "+k] = true
						}
					}
				}
			}
			for _, want := range c.want {
				if !kinds[want] {
					t.Errorf("no chunk of %s", want)
				}
			}
			if kinds["note SharedDictionary"] {
				t.Error("unique note texts refer to a shared alphabet")
			}
			if c.want == nil && len(kinds) > 0 {
				t.Errorf("layouts %v with both disabled", kinds)
			}
			r := rand.New(rand.NewPCG(uint64(i), 5))
			checkFile(t, f, tb, r)
			checkLayoutFilters(t, f, tb)
			checkLayoutAggs(t, f, tb)
		})
	}
}

func dateLit(d int32) string {
	return "DATE '" + time.Unix(int64(d)*86400, 0).UTC().Format("2006-01-02") + "'"
}

// checkLayoutFilters runs value predicates on Correlated columns, their
// references and shared dictionaries, alone and combined, and compares
// with the rows the table says match.
func checkLayoutFilters(t *testing.T, f *strata.File, tb *table) {
	t.Helper()
	all := tb.all
	ship := all.Column(0).(*array.Date32)
	receipt := all.Column(1).(*array.Date32)
	end := all.Column(3).(*array.Int64)
	base := all.Column(4).(*array.Uint16)
	derived := all.Column(5).(*array.Uint16)
	mode := all.Column(6).(*array.String)
	county := all.Column(7).(*array.String)
	code := all.Column(8).(*array.Int32)
	mid := int32(receipt.Value(int(all.NumRows() / 2)))
	e0 := end.Value(int(all.NumRows() / 3))
	cases := []struct {
		where string
		match func(i int) bool
	}{
		{fmt.Sprintf("receipt BETWEEN %s AND %s", dateLit(mid-40), dateLit(mid)),
			func(i int) bool { v := int32(receipt.Value(i)); return v >= mid-40 && v <= mid }},
		{fmt.Sprintf("receipt = %s", dateLit(mid)), func(i int) bool { return int32(receipt.Value(i)) == mid }},
		{fmt.Sprintf("receipt < %s", dateLit(mid)), func(i int) bool { return int32(receipt.Value(i)) < mid }},
		{fmt.Sprintf("receipt >= %s AND ship < %s", dateLit(mid), dateLit(mid-10)),
			func(i int) bool { return int32(receipt.Value(i)) >= mid && int32(ship.Value(i)) < mid-10 }},
		{fmt.Sprintf("receipt IN (%s, %s, %s)", dateLit(mid), dateLit(mid+3), dateLit(mid-700)),
			func(i int) bool { v := int32(receipt.Value(i)); return v == mid || v == mid+3 || v == mid-700 }},
		{fmt.Sprintf("end > %d", e0), func(i int) bool { return end.Value(i) > e0 }},
		{fmt.Sprintf("end <= %d OR mode = 'RAIL'", e0), func(i int) bool { return end.Value(i) <= e0 || mode.Value(i) == "RAIL" }},
		{"derived < 100", func(i int) bool { return derived.Value(i) < 100 }},
		{"derived BETWEEN 30000 AND 30100", func(i int) bool { return derived.Value(i) >= 30000 && derived.Value(i) <= 30100 }},
		{"base IS NULL AND derived > 60000", func(i int) bool { return base.IsNull(i) && derived.Value(i) > 60000 }},
		{"mode = 'AIR'", func(i int) bool { return mode.Value(i) == "AIR" }},
		{"mode IN ('FOB', 'SHIP')", func(i int) bool { return mode.Value(i) == "FOB" || mode.Value(i) == "SHIP" }},
		{"mode != 'TRUCK'", func(i int) bool { return mode.Value(i) != "TRUCK" }},
		{"mode > 'RAIL'", func(i int) bool { return mode.Value(i) > "RAIL" }},
		{"county < 'County 050'", func(i int) bool { return county.IsValid(i) && county.Value(i) < "County 050" }},
		{"county = 'County 123 of Utah'", func(i int) bool { return county.IsValid(i) && county.Value(i) == "County 123 of Utah" }},
		{"county IS NULL", func(i int) bool { return county.IsNull(i) }},
		{"NOT county = 'County 007 of Utah'", func(i int) bool { return county.IsValid(i) && county.Value(i) != "County 007 of Utah" }},
		{"code BETWEEN 10000 AND 20000", func(i int) bool { return code.Value(i) >= 10000 && code.Value(i) <= 20000 }},
		{"code = 299000 AND mode = 'MAIL'", func(i int) bool { return code.Value(i) == 299000 && mode.Value(i) == "MAIL" }},
		{"code = 123", func(i int) bool { return code.Value(i) == 123 }},
	}
	for _, c := range cases {
		var want []int64
		for i := 0; i < int(all.NumRows()); i++ {
			if c.match(i) {
				want = append(want, int64(i))
			}
		}
		for _, cols := range [][]string{nil, {"receipt", "county"}} {
			got, err := scan(f, strata.ScanOptions{Where: c.where, Columns: cols})
			must(t, err, "scan where %s", c.where)
			if got.NumRows() != int64(len(want)) {
				t.Fatalf("where %s: %d rows, want %d", c.where, got.NumRows(), len(want))
			}
			checkTake(t, all, want, cols, got)
			got.Release()
		}
		// the same filter twice: a shared alphabet remembers the predicate
		got, err := scan(f, strata.ScanOptions{Where: c.where, Columns: []string{"code"}, Offset: 3, Limit: 50})
		must(t, err, "scan where %s", c.where)
		w := want[min(3, len(want)):]
		w = w[:min(50, len(w))]
		checkTake(t, all, w, []string{"code"}, got)
		got.Release()
	}
}

// checkLayoutAggs compares count, sum, min and max of Correlated and
// shared-dictionary columns, with and without filters, with the table.
func checkLayoutAggs(t *testing.T, f *strata.File, tb *table) {
	t.Helper()
	all := tb.all
	receipt := all.Column(1).(*array.Date32)
	end := all.Column(3).(*array.Int64)
	derived := all.Column(5).(*array.Uint16)
	mode := all.Column(6).(*array.String)
	county := all.Column(7).(*array.String)
	code := all.Column(8).(*array.Int32)
	ship := all.Column(0).(*array.Date32)
	mid := int32(ship.Value(int(all.NumRows() / 2)))
	for _, c := range []struct {
		where string
		match func(i int) bool
	}{
		{"", func(int) bool { return true }},
		{fmt.Sprintf("ship < %s", dateLit(mid)), func(i int) bool { return int32(ship.Value(i)) < mid }},
		{fmt.Sprintf("receipt > %s", dateLit(mid)), func(i int) bool { return int32(receipt.Value(i)) > mid }},
		{"mode = 'SHIP'", func(i int) bool { return mode.Value(i) == "SHIP" }},
		{"code < 3000", func(i int) bool { return code.Value(i) < 3000 }},
	} {
		var cnt, sumEnd, sumDerived, sumCode, cntCounty int64
		minR, maxR := int32(1<<31-1), int32(-1<<31)
		minCounty, maxCounty := "", ""
		minCode, maxCode := int32(1<<31-1), int32(-1<<31)
		for i := 0; i < int(all.NumRows()); i++ {
			if !c.match(i) {
				continue
			}
			cnt++
			v := int32(receipt.Value(i))
			minR, maxR = min(minR, v), max(maxR, v)
			sumEnd += end.Value(i)
			sumDerived += int64(derived.Value(i))
			sumCode += int64(code.Value(i))
			minCode, maxCode = min(minCode, code.Value(i)), max(maxCode, code.Value(i))
			if county.IsValid(i) {
				s := county.Value(i)
				if cntCounty == 0 || s < minCounty {
					minCounty = s
				}
				if cntCounty == 0 || s > maxCounty {
					maxCounty = s
				}
				cntCounty++
			}
		}
		got, _, err := f.Aggregate(strata.AggregateOptions{Exprs: "count(*), min(receipt), max(receipt), sum(end), sum(derived), count(county), min(county), max(county), sum(code), min(code), max(code)", Where: c.where})
		must(t, err, "aggregate where %q", c.where)
		want := []string{fmt.Sprint(cnt), fmt.Sprint(minR), fmt.Sprint(maxR), fmt.Sprint(sumEnd), fmt.Sprint(sumDerived),
			fmt.Sprint(cntCounty), minCounty, maxCounty, fmt.Sprint(sumCode), fmt.Sprint(minCode), fmt.Sprint(maxCode)}
		for k, v := range got {
			s := fmt.Sprint(v.I)
			if v.Name == "min(county)" || v.Name == "max(county)" {
				s = v.Text
			}
			if cnt == 0 && k > 0 && k != 5 {
				continue
			}
			if s != want[k] {
				t.Errorf("where %q: %s = %s, want %s", c.where, v.Name, s, want[k])
			}
		}
	}
}
