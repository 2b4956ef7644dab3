package timeseries

import (
	"fmt"
	"io"
	"math"
	"math/big"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"strata/iox"
)

// point is one row of the small tables these tests write: a string key,
// an int64 time and a nullable float64 value.
type point struct {
	k    string
	t    int64
	v    float64
	null bool
}

var pointSchema = arrow.NewSchema([]arrow.Field{
	{Name: "k", Type: arrow.BinaryTypes.String},
	{Name: "t", Type: arrow.PrimitiveTypes.Int64},
	{Name: "v", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
}, nil)

var pointModel = Model{Keys: []string{"k"}, Time: "t"}

// pointFile writes points (in any order) as a time-series table and opens it.
func pointFile(t *testing.T, pts []point, o *WriterOptions) *File {
	t.Helper()
	rs := pointRecords(pts, max(len(pts), 1))
	data := writeFile(t, rs, pointModel, o)
	for _, r := range rs {
		r.Release()
	}
	f, err := OpenSource(ctx, iox.Bytes(data), nil)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	return f
}

// queryPoints runs a query of every column and returns its rows.
func queryPoints(t *testing.T, f *File, o QueryOptions) []point {
	t.Helper()
	rows, err := f.Query(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []point
	for {
		rec, err := rows.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < int(rec.NumRows()); i++ {
			p := point{k: rec.Column(0).(*array.String).Value(i), t: rec.Column(1).(*array.Int64).Value(i), null: rec.Column(2).IsNull(i)}
			if !p.null {
				p.v = rec.Column(2).(*array.Float64).Value(i)
			}
			out = append(out, p)
		}
		rec.Release()
	}
}

// samePoints compares rows with the reference value by value.
func samePoints(t *testing.T, what string, got, want []point) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d rows, want %d: %v", what, len(got), len(want), got)
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.k != w.k || g.t != w.t || g.null != w.null || !w.null && math.Float64bits(g.v) != math.Float64bits(w.v) {
			t.Fatalf("%s: row %d is %+v, want %+v", what, i, g, w)
		}
	}
}

// TestWideTimeSpans: a series or unit whose times span more than
// math.MaxInt64 units (int64 times at both extremes, or nanosecond times
// from 1700 to 2200) is a valid table. The index stores the span as an
// unsigned number; the reader once refused spans past math.MaxInt64 and
// called the file the writer had just made corrupt. A latest value far
// before the series' last time (its latest point null) reads back too.
func TestWideTimeSpans(t *testing.T) {
	const ns1700, ns2200 = -8520336000 * 1e9, 7258118400 * 1e9
	pts := []point{
		{k: "a", t: math.MinInt64, v: 1},
		{k: "a", t: -1, v: 2},
		{k: "a", t: math.MaxInt64 - 1, null: true},
		{k: "b", t: ns1700, v: 3},
		{k: "b", t: ns2200, null: true},
		{k: "c", t: 5, v: 4},
	}
	for _, o := range []*WriterOptions{nil, {ChunkRows: 1, MinChunkRows: 1}} {
		f := pointFile(t, pts, o)
		samePoints(t, "every row", queryPoints(t, f, QueryOptions{}), pts)
		samePoints(t, "series b", queryPoints(t, f, QueryOptions{Series: Selector{"k": "b"}}), pts[3:5])
		rec, _, err := f.Last(ctx, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		// each series' last time, and its latest non-null value
		want := []point{{k: "a", t: math.MaxInt64 - 1, v: 2}, {k: "b", t: ns2200, v: 3}, {k: "c", t: 5, v: 4}}
		if int(rec.NumRows()) != len(want) {
			t.Fatalf("last: %d rows, want %d", rec.NumRows(), len(want))
		}
		for i, w := range want {
			if k, tm, v := rec.Column(0).(*array.String).Value(i), rec.Column(1).(*array.Int64).Value(i), rec.Column(2).(*array.Float64).Value(i); k != w.k || tm != w.t || v != w.v {
				t.Fatalf("last row %d: %s %d %v, want %+v", i, k, tm, v, w)
			}
		}
		rec.Release()
		if lo, hi := f.TimeRange(); lo != math.MinInt64 || hi != math.MaxInt64-1 {
			t.Fatalf("time range [%d, %d]", lo, hi)
		}
	}
}

// refBucket is the start of the bucket holding t, computed in big
// integers: the multiple of every at or below t, or math.MinInt64 when that
// multiple lies below it.
func refBucket(t, every int64) int64 {
	_, m := new(big.Int).DivMod(big.NewInt(t), big.NewInt(every), new(big.Int)) // Euclidean: m >= 0
	start := new(big.Int).Sub(big.NewInt(t), m)
	if !start.IsInt64() {
		return math.MinInt64
	}
	return start.Int64()
}

// TestExtremeTimes: rows at math.MinInt64 and math.MaxInt64 are returned
// by queries without a range or with one open above (To math.MaxInt64),
// counted in the aggregate buckets a naive loop over the rows gives, and
// merged by tree-model paths. The time filter once ended every range
// before math.MaxInt64, so a series whose points all lay there vanished,
// and the bucket of math.MinInt64 wrapped to a start near math.MaxInt64.
func TestExtremeTimes(t *testing.T) {
	pts := []point{
		{k: "a", t: 10, v: 1},
		{k: "a", t: math.MaxInt64, v: 2},
		{k: "b", t: math.MaxInt64 - 1, v: 3},
		{k: "b", t: math.MaxInt64, v: 4},
		{k: "c", t: math.MinInt64, v: 5},
		{k: "c", t: math.MinInt64 + 1, v: 6},
		{k: "c", t: math.MinInt64 + 2, v: 7},
		{k: "c", t: -10, v: 8},
	}
	for _, o := range []*WriterOptions{nil, {ChunkRows: 2, MinChunkRows: 1, BlockSize: 1}} {
		f := pointFile(t, pts, o)
		for _, tr := range []*TimeRange{nil, {math.MinInt64, math.MaxInt64}, {math.MaxInt64 - 1, math.MaxInt64}, {math.MinInt64, math.MinInt64 + 2}, {math.MaxInt64, math.MaxInt64 - 1}} {
			r := AllTime
			if tr != nil {
				r = *tr
			}
			var want []point
			for _, p := range pts {
				if p.t >= r.From && (p.t < r.To || r.To == math.MaxInt64) {
					want = append(want, p)
				}
			}
			for _, eager := range []bool{false, true} {
				samePoints(t, fmt.Sprintf("range %v, eager %v", tr, eager), queryPoints(t, f, QueryOptions{Time: tr, Eager: eager}), want)
			}
		}
		for _, every := range []int64{3, 1 << 62, math.MaxInt64} {
			for _, noStats := range []bool{false, true} {
				rec, _, err := f.Aggregate(ctx, AggOptions{Every: every, Funcs: []string{"count", "sum"}, NoStats: noStats})
				if err != nil {
					t.Fatal(err)
				}
				type bucket struct {
					k     string
					start int64
				}
				var order []bucket
				sums := map[bucket]float64{}
				counts := map[bucket]int64{}
				for _, p := range pts {
					b := bucket{p.k, refBucket(p.t, every)}
					if _, ok := counts[b]; !ok {
						order = append(order, b)
					}
					counts[b]++
					sums[b] += p.v
				}
				if int(rec.NumRows()) != len(order) {
					t.Fatalf("every %d: %d buckets, want %d", every, rec.NumRows(), len(order))
				}
				for i, b := range order {
					k, start := rec.Column(0).(*array.String).Value(i), rec.Column(1).(*array.Int64).Value(i)
					n, sum := rec.Column(2).(*array.Int64).Value(i), rec.Column(3).(*array.Float64).Value(i)
					if k != b.k || start != b.start || n != counts[b] || sum != sums[b] {
						t.Fatalf("every %d, no stats %v, bucket %d: %s %d count %d sum %v, want %s %d %d %v", every, noStats, i, k, start, n, sum, b.k, b.start, counts[b], sums[b])
					}
				}
				rec.Release()
			}
		}
		rec, _, err := f.QueryPaths(ctx, []string{"a.v", "b.v"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		// times 10, MaxInt64-1, MaxInt64; a has 1 and 2, b has 3 and 4
		wantT := []int64{10, math.MaxInt64 - 1, math.MaxInt64}
		wantA := []string{"1", "(null)", "2"}
		wantB := []string{"(null)", "3", "4"}
		if rec.NumRows() != 3 {
			t.Fatalf("paths: %d rows, want 3", rec.NumRows())
		}
		for i := range wantT {
			if tm, a, b := rec.Column(0).(*array.Int64).Value(i), rec.Column(1).ValueStr(i), rec.Column(2).ValueStr(i); tm != wantT[i] || a != wantA[i] || b != wantB[i] {
				t.Fatalf("paths row %d: %d %s %s, want %d %s %s", i, tm, a, b, wantT[i], wantA[i], wantB[i])
			}
		}
		rec.Release()
	}
}
