package timeseries

import (
	"fmt"
	"math"
	"sort"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
)

// TestAggregateNaN: min and max order NaN above every number, in every
// path an aggregate takes (units folded from the index statistics, rows
// decoded with and without nulls, buckets merged across units), and agree
// with a naive loop over the points and with strata agg (read's
// aggregates) over the same file as a plain table. The index's minimum of
// a unit holding a NaN is NaN, so such units were folded to a NaN minimum,
// and decoded rows took math.Min's NaN too: min was NaN where strata agg
// said 1.
func TestAggregateNaN(t *testing.T) {
	nan := math.NaN()
	var pts []point
	// series a: NaN among numbers in every unit; b: only NaNs; c: NaN in
	// one unit, numbers in the next; d: nulls beside NaNs (the
	// row-at-a-time path); e: no NaN
	for i := range 12 {
		pts = append(pts, point{k: "a", t: int64(i), v: []float64{3, nan, -1, 7}[i%4]})
		pts = append(pts, point{k: "b", t: int64(i), v: nan})
		v := nan
		if i >= 4 {
			v = float64(i)
		}
		pts = append(pts, point{k: "c", t: int64(i), v: v})
		pts = append(pts, point{k: "d", t: int64(i), v: []float64{nan, 2, 0, 5}[i%4], null: i%3 == 1})
		pts = append(pts, point{k: "e", t: int64(i), v: float64(i * i)})
	}
	f := pointFile(t, pts, &WriterOptions{ChunkRows: 4, MinChunkRows: 1})
	// same reports whether two results agree, NaN equal to NaN
	same := func(a, b float64) bool { return a == b || a != a && b != b }
	for _, every := range []int64{0, 2, 4, 8, 100} {
		for _, noStats := range []bool{false, true} {
			rec, st, err := f.Aggregate(ctx, AggOptions{Every: every, Funcs: []string{"count", "min", "max", "sum"}, NoStats: noStats})
			if err != nil {
				t.Fatal(err)
			}
			type bucket struct {
				k     string
				start int64
			}
			type ref struct {
				n             int64
				min, max, sum float64
				nans          int64
			}
			var order []bucket
			want := map[bucket]*ref{}
			for _, p := range pts {
				b := bucket{p.k, bucketOf(p.t, every)}
				r := want[b]
				if r == nil {
					r = &ref{min: math.Inf(1), max: math.Inf(-1)}
					want[b] = r
					order = append(order, b)
				}
				if p.null {
					continue
				}
				r.n++
				r.sum += p.v
				if p.v != p.v {
					r.nans++
					continue
				}
				r.min, r.max = math.Min(r.min, p.v), math.Max(r.max, p.v)
			}
			// the result is in series order, then bucket order
			sort.Slice(order, func(i, j int) bool {
				return order[i].k < order[j].k || order[i].k == order[j].k && order[i].start < order[j].start
			})
			if int(rec.NumRows()) != len(order) {
				t.Fatalf("every %d: %d buckets, want %d", every, rec.NumRows(), len(order))
			}
			for i, b := range order {
				r := want[b]
				wmin, wmax := r.min, r.max
				if r.nans > 0 {
					wmax = nan
				}
				if r.nans == r.n {
					wmin = nan
				}
				k, n := rec.Column(0).(*array.String).Value(i), rec.Column(2).(*array.Int64).Value(i)
				mn, mx, sum := rec.Column(3).(*array.Float64).Value(i), rec.Column(4).(*array.Float64).Value(i), rec.Column(5).(*array.Float64).Value(i)
				if k != b.k || n != r.n || !same(mn, wmin) || !same(mx, wmax) || !same(sum, r.sum) {
					t.Fatalf("every %d, no stats %v, bucket %s@%d: count %d min %v max %v sum %v, want %d %v %v %v",
						every, noStats, b.k, b.start, n, mn, mx, sum, r.n, wmin, wmax, r.sum)
				}
			}
			if every == 4 && !noStats && st.UnitsFromStats == 0 {
				t.Errorf("every 4: no unit folded from statistics: %+v", st)
			}
			rec.Release()
		}
	}
	// one bucket per series agrees with strata agg over each series' rows
	rec, _, err := f.Aggregate(ctx, AggOptions{Funcs: []string{"min", "max"}})
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Release()
	for i := 0; i < int(rec.NumRows()); i++ {
		k := rec.Column(0).(*array.String).Value(i)
		vals, _, err := f.Table().Aggregate("min(v), max(v)", fmt.Sprintf("k = '%s'", k))
		if err != nil {
			t.Fatal(err)
		}
		for j, v := range vals {
			if got := rec.Column(2 + j).(*array.Float64).Value(i); !same(got, v.F) {
				t.Errorf("series %s: %s %v, strata agg %v", k, v.Name, got, v.F)
			}
		}
	}
}
