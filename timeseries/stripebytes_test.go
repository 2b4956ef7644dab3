package timeseries

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata/format"
	"strata/iox"
	"strata/write"
)

// pointRecords builds records of pts (nulls included), size rows each
// but the last; no point gives one empty record.
func pointRecords(pts []point, size int) []arrow.Record {
	b := array.NewRecordBuilder(memory.DefaultAllocator, pointSchema)
	defer b.Release()
	if len(pts) == 0 {
		return []arrow.Record{b.NewRecord()}
	}
	var out []arrow.Record
	for i, p := range pts {
		b.Field(0).(*array.StringBuilder).Append(p.k)
		b.Field(1).(*array.Int64Builder).Append(p.t)
		if p.null {
			b.Field(2).AppendNull()
		} else {
			b.Field(2).(*array.Float64Builder).Append(p.v)
		}
		if (i+1)%size == 0 || i == len(pts)-1 {
			out = append(out, b.NewRecord())
		}
	}
	return out
}

// writeSamePoints writes rs (and releases them) with o, opens the file and
// checks that a query of everything returns pts; it returns the file and
// its bytes.
func writeSamePoints(t *testing.T, what string, rs []arrow.Record, o *WriterOptions, pts []point) (*File, []byte) {
	t.Helper()
	data := writeFile(t, rs, pointModel, o)
	for _, r := range rs {
		r.Release()
	}
	f, err := OpenSource(ctx, iox.Bytes(data), nil)
	if err != nil {
		t.Fatalf("%s: open: %v", what, err)
	}
	samePoints(t, what, queryPoints(t, f, QueryOptions{}), pts)
	return f, data
}

// rawPointBytes returns the raw bytes the table writer buffers for pts,
// its measure of a stripe against StripeBytes (write.Writer.BufferedBytes).
func rawPointBytes(t *testing.T, pts []point) int {
	t.Helper()
	w, err := write.New(format.NewWriter(&bytes.Buffer{}, format.WriterOptions{}), pointSchema, write.Options{StripeBytes: 1 << 30, Parallel: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	for _, r := range pointRecords(pts, len(pts)) {
		err := w.Write(r)
		r.Release()
		if err != nil {
			t.Fatal(err)
		}
	}
	return w.BufferedBytes()
}

// aggKey is one bar of an aggregate: a series and a bucket start.
type aggKey struct {
	k      string
	bucket int64
}

// foldPoints folds the non-null values of pts within [from, to) by series
// and bucket of every (one bucket per series when 0), as Aggregate
// should: count, min, max, sum, first, last. It returns the bars in
// series and bucket order.
func foldPoints(pts []point, every, from, to int64) ([]aggKey, map[aggKey][6]float64) {
	var order []aggKey
	bars := map[aggKey][6]float64{}
	for _, p := range pts {
		if p.t < from || p.t >= to {
			continue
		}
		k := aggKey{k: p.k}
		if every > 0 {
			k.bucket = p.t - p.t%every // times are not negative here
		}
		a, seen := bars[k]
		if !seen {
			order = append(order, k)
			a = [6]float64{0, math.Inf(1), math.Inf(-1), 0, math.NaN(), 0}
		}
		if !p.null {
			if a[0] == 0 {
				a[4] = p.v
			}
			a[0]++
			a[1], a[2], a[3], a[5] = min(a[1], p.v), max(a[2], p.v), a[3]+p.v, p.v
		}
		bars[k] = a
	}
	return order, bars
}

// TestTableStripeBytes writes time-series tables with a small
// Table.StripeBytes (down to 1: a stripe a unit), sorted and buffered, in
// one record and in records of a few rows. The table writer cut a batch
// (a unit) that would fill a stripe past four times StripeBytes in
// pieces, ending a stripe inside a unit, which the series index
// addresses whole within one stripe: Close failed with "chunks do not end
// where unit 1 does" for every case here but 4000 bytes with units of at
// most 64 rows. Stripes now end after the unit that takes them to the
// bound: every row reads back, a stripe's rows but its last unit stay
// under the bound and every stripe but the last reaches it, and queries
// of one series and aggregates agree with a fold of the input.
func TestTableStripeBytes(t *testing.T) {
	lengths := []int{130, 3, 2, 5, 200, 1, 64, 65, 40, 7, 9, 150, 1500, 700}
	var pts []point
	for s, n := range lengths {
		for i := range n {
			// a null every eleventh row: series of fewer rows have none
			pts = append(pts, point{k: fmt.Sprintf("s%02d", s), t: int64(i), v: float64(s*1000 + i), null: i%11 == 10})
		}
	}
	shuffled := append([]point(nil), pts...)
	rand.New(rand.NewPCG(3, 93)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	funcs := []string{"count", "min", "max", "sum", "first", "last"}
	for _, c := range []struct{ sb, chunkRows int }{{1, 64}, {100, 64}, {1000, 512}, {4000, 64}, {4000, 512}} {
		for _, sorted := range []bool{true, false} {
			for _, size := range []int{len(pts), 7} {
				sb := c.sb
				what := fmt.Sprintf("StripeBytes %d, ChunkRows %d, sorted %v, records of %d rows", sb, c.chunkRows, sorted, size)
				o := &WriterOptions{Sorted: sorted, ChunkRows: c.chunkRows, MinChunkRows: 8}
				o.Table.StripeBytes = sb
				in := pts
				if !sorted {
					in = shuffled
				}
				f, _ := writeSamePoints(t, what, pointRecords(in, size), o, pts)

				// the units of each stripe, in file order (file rows are
				// the rows of pts)
				stripes := f.fc.NumStripes()
				if stripes < 2 {
					t.Errorf("%s: %d stripe", what, stripes)
				}
				ends := make([][]int64, stripes) // per stripe, the file row after each unit
				for u := range f.meta.units {
					rec, err := f.unit(ctx, u, &Stats{})
					if err != nil {
						t.Fatalf("%s: unit %d: %v", what, u, err)
					}
					ends[rec.stripe] = append(ends[rec.stripe], f.stripe[rec.stripe]+rec.row+rec.rows)
				}
				for s, e := range ends {
					first, n := f.stripe[s], f.fc.Stripe(s).Rows
					if len(e) == 0 || e[len(e)-1] != first+n {
						t.Fatalf("%s: stripe %d of rows [%d, %d) holds units ending at %v", what, s, first, first+n, e)
					}
					if len(e) > 1 {
						if raw := rawPointBytes(t, pts[first:e[len(e)-2]]); raw >= sb {
							t.Errorf("%s: stripe %d holds %d raw bytes before its last unit, bound %d", what, s, raw, sb)
						}
					}
					if raw := rawPointBytes(t, pts[first:first+n]); s < stripes-1 && raw < sb {
						t.Errorf("%s: stripe %d ends at %d raw bytes, before the bound %d", what, s, raw, sb)
					}
				}

				// one series, cut by a time range
				sel := []point{}
				for _, p := range pts {
					if p.k == "s04" && p.t >= 33 && p.t < 170 {
						sel = append(sel, p)
					}
				}
				samePoints(t, what+", series s04", queryPoints(t, f, QueryOptions{Series: Selector{"k": "s04"}, Time: &TimeRange{From: 33, To: 170}}), sel)

				for _, every := range []int64{0, 25} {
					for _, tr := range []*TimeRange{nil, {From: 7, To: 131}} {
						from, to := int64(math.MinInt64), int64(math.MaxInt64)
						if tr != nil {
							from, to = tr.From, tr.To
						}
						name := fmt.Sprintf("%s, every %d, range %v", what, every, tr)
						rec, _, err := f.Aggregate(ctx, AggOptions{Every: every, Time: tr, Columns: []string{"v"}, Funcs: funcs})
						if err != nil {
							t.Fatalf("%s: %v", name, err)
						}
						order, bars := foldPoints(pts, every, from, to)
						if int(rec.NumRows()) != len(order) {
							t.Fatalf("%s: %d bars, want %d", name, rec.NumRows(), len(order))
						}
						for i, k := range order {
							a := bars[k]
							gotK := rec.Column(0).(*array.String).Value(i)
							gotB := rec.Column(1).(*array.Int64).Value(i)
							if gotK != k.k || every > 0 && gotB != k.bucket {
								t.Fatalf("%s: bar %d is %s at %d, want %s at %d", name, i, gotK, gotB, k.k, k.bucket)
							}
							if got := rec.Column(2).(*array.Int64).Value(i); got != int64(a[0]) {
								t.Fatalf("%s: bar %d (%v): count %d, want %v", name, i, k, got, a[0])
							}
							for j, fn := range funcs[1:] {
								col := rec.Column(3 + j).(*array.Float64)
								if col.IsNull(i) || col.Value(i) != a[1+j] {
									t.Fatalf("%s: bar %d (%v): %s %v (null %v), want %v", name, i, k, fn, col.Value(i), col.IsNull(i), a[1+j])
								}
							}
						}
						rec.Release()
					}
				}
				f.Close()
			}
		}
	}
}

// TestUnitsPastStripeChunkBound writes many small units (series of 5 rows,
// ChunkRows 6) in one record with the default StripeBytes. The table
// writer ends a stripe once its rows could make write.MaxStripeChunks
// chunks, and cut the batch that crossed that bound in pieces: with these
// units the stripe ended inside unit 32768, and Close failed with "chunks
// do not end where unit 32768 does". Now the stripe ends after that unit:
// more than one stripe, every row reads back, and the sums of each series
// agree with the input's.
func TestUnitsPastStripeChunkBound(t *testing.T) {
	const series, per = 33000, 5
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "k", Type: arrow.PrimitiveTypes.Int64},
		{Name: "t", Type: arrow.PrimitiveTypes.Int64},
		{Name: "v", Type: arrow.PrimitiveTypes.Float64},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	defer b.Release()
	for i := range series * per {
		b.Field(0).(*array.Int64Builder).Append(int64(i / per))
		b.Field(1).(*array.Int64Builder).Append(int64(i % per))
		b.Field(2).(*array.Float64Builder).Append(float64(i))
	}
	rec := b.NewRecord()
	defer rec.Release()
	data := writeFile(t, []arrow.Record{rec}, Model{Keys: []string{"k"}, Time: "t"}, &WriterOptions{Sorted: true, ChunkRows: 6, MinChunkRows: 2})
	f, err := OpenSource(ctx, iox.Bytes(data), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if n := f.fc.NumStripes(); n < 2 {
		t.Errorf("%d stripe: the chunk bound ended none", n)
	}
	rows, err := f.Query(ctx, QueryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	at := 0
	for {
		r, err := rows.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		k, tm, v := r.Column(0).(*array.Int64), r.Column(1).(*array.Int64), r.Column(2).(*array.Float64)
		for i := range int(r.NumRows()) {
			if k.Value(i) != int64(at/per) || tm.Value(i) != int64(at%per) || v.Value(i) != float64(at) {
				t.Fatalf("row %d: %d %d %v", at, k.Value(i), tm.Value(i), v.Value(i))
			}
			at++
		}
		r.Release()
	}
	rows.Close()
	if at != series*per {
		t.Fatalf("%d rows read back, want %d", at, series*per)
	}
	agg, _, err := f.Aggregate(ctx, AggOptions{Columns: []string{"v"}, Funcs: []string{"count", "sum"}})
	if err != nil {
		t.Fatal(err)
	}
	defer agg.Release()
	if agg.NumRows() != series {
		t.Fatalf("%d bars, want %d", agg.NumRows(), series)
	}
	for s := range series {
		first := float64(s * per)
		want := per*first + per*(per-1)/2
		if c, sum := agg.Column(2).(*array.Int64).Value(s), agg.Column(3).(*array.Float64).Value(s); agg.Column(0).(*array.Int64).Value(s) != int64(s) || c != per || sum != want {
			t.Fatalf("series %d: count %d, sum %v; want %d, %v", s, c, sum, per, want)
		}
	}
}
