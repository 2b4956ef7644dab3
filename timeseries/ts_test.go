package timeseries

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"sort"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata/iox"
	"strata/tsbs"
)

// refRow is one row of the reference: a series' time and values.
type refRow struct {
	t    int64
	vals []float64
}

// ref holds generated data as plain slices, by series path.
type ref struct {
	keys  map[string][]string // hostname → all ten tags
	rows  map[string][]refRow
	order []string // hostnames in key order
}

func tsbsData(t testing.TB, hosts int, dur time.Duration, timeMajor bool) ([]arrow.Record, *ref) {
	g, err := tsbs.New(tsbs.Options{Hosts: hosts, Duration: dur, Seed: 7, TimeMajor: timeMajor, BatchRows: 5000})
	if err != nil {
		t.Fatal(err)
	}
	r := &ref{keys: map[string][]string{}, rows: map[string][]refRow{}}
	var recs []arrow.Record
	for {
		rec, err := g.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, rec)
		ts := rec.Column(10).(*array.Timestamp)
		for i := 0; i < int(rec.NumRows()); i++ {
			h := rec.Column(0).(*array.String).Value(i)
			if _, ok := r.keys[h]; !ok {
				var tags []string
				for c := 0; c < 10; c++ {
					tags = append(tags, rec.Column(c).(*array.String).Value(i))
				}
				r.keys[h] = tags
				r.order = append(r.order, h)
			}
			row := refRow{t: int64(ts.Value(i))}
			for c := 11; c < 21; c++ {
				row.vals = append(row.vals, rec.Column(c).(*array.Float64).Value(i))
			}
			r.rows[h] = append(r.rows[h], row)
		}
	}
	sort.Slice(r.order, func(i, j int) bool {
		return compareKeys(Key(r.keys[r.order[i]]), Key(r.keys[r.order[j]])) < 0
	})
	return recs, r
}

func writeFile(t testing.TB, recs []arrow.Record, m Model, o *WriterOptions) []byte {
	var buf bytes.Buffer
	w, err := NewWriter(&buf, recs[0].Schema(), m, o)
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range recs {
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

var tsbsModel = Model{Keys: tsbs.Tags, Time: tsbs.TimeColumn}

// collect drains a query into rows by hostname, checking the schema.
func collect(t testing.TB, rows *Rows, cols []string) map[string][]refRow {
	t.Helper()
	out := map[string][]refRow{}
	for {
		rec, err := rows.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		sch := rec.Schema()
		host := sch.FieldIndices("hostname")
		tc := sch.FieldIndices("time")
		for i := 0; i < int(rec.NumRows()); i++ {
			h := "?"
			if len(host) > 0 {
				h = rec.Column(host[0]).(*array.String).Value(i)
			}
			row := refRow{t: math.MinInt64}
			if len(tc) > 0 {
				row.t = int64(rec.Column(tc[0]).(*array.Timestamp).Value(i))
			}
			for _, name := range cols {
				is := sch.FieldIndices(name)
				if len(is) == 0 {
					t.Fatalf("column %s missing from the result", name)
				}
				row.vals = append(row.vals, rec.Column(is[0]).(*array.Float64).Value(i))
			}
			out[h] = append(out[h], row)
		}
		rec.Release()
	}
	return out
}

func metricIndex(name string) int {
	for i, m := range tsbs.Metrics {
		if m == name {
			return i
		}
	}
	return -1
}

// expect returns the reference rows of hosts in [from, to), projected.
func (r *ref) expect(hosts []string, from, to int64, cols []string) map[string][]refRow {
	out := map[string][]refRow{}
	for _, h := range hosts {
		for _, row := range r.rows[h] {
			if row.t < from || row.t >= to {
				continue
			}
			p := refRow{t: row.t}
			for _, c := range cols {
				p.vals = append(p.vals, row.vals[metricIndex(c)])
			}
			out[h] = append(out[h], p)
		}
	}
	return out
}

func sameRows(t testing.TB, what string, got, want map[string][]refRow) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d series, want %d", what, len(got), len(want))
	}
	for h, w := range want {
		g := got[h]
		if len(g) != len(w) {
			t.Fatalf("%s: series %s: %d rows, want %d", what, h, len(g), len(w))
		}
		for i := range w {
			if g[i].t != w[i].t && g[i].t != math.MinInt64 {
				t.Fatalf("%s: series %s row %d: time %d, want %d", what, h, i, g[i].t, w[i].t)
			}
			for j := range w[i].vals {
				if g[i].vals[j] != w[i].vals[j] {
					t.Fatalf("%s: series %s row %d col %d: %v, want %v", what, h, i, j, g[i].vals[j], w[i].vals[j])
				}
			}
		}
	}
}

func TestTSBSQueries(t *testing.T) {
	recs, r := tsbsData(t, 25, 6*time.Hour, false)
	sorted := writeFile(t, recs, tsbsModel, &WriterOptions{Sorted: true, ChunkRows: 1000})
	// TSBS's own order (time-major) is sorted by the writer and gives the same file.
	tm, _ := tsbsData(t, 25, 6*time.Hour, true)
	buffered := writeFile(t, tm, tsbsModel, &WriterOptions{ChunkRows: 1000})
	if !bytes.Equal(sorted, buffered) {
		t.Fatalf("sorted input gives %d bytes, time-major input %d bytes", len(sorted), len(buffered))
	}
	f, err := OpenSource(ctx, iox.Bytes(sorted), nil)
	if err != nil {
		t.Fatal(err)
	}
	if f.NumSeries() != 25 || f.NumRows() != 25*2160 {
		t.Fatalf("%d series, %d rows", f.NumSeries(), f.NumRows())
	}
	t0 := tsbs.Start.UnixMicro()
	hour := int64(time.Hour / time.Microsecond)
	cols := []string{"usage_user", "usage_system", "usage_idle"}
	for _, tc := range []struct {
		name     string
		sel      Selector
		from, to int64
	}{
		{"one host, one hour", Selector{"hostname": "host_7"}, t0 + 2*hour + 5e6, t0 + 3*hour + 5e6},
		{"one host, all", Selector{"hostname": "host_3"}, math.MinInt64, math.MaxInt64},
		{"one host, exact unit edges", Selector{"hostname": "host_11"}, t0, t0 + 1000*10e6},
		{"all hosts, 10 min", Selector{}, t0 + hour, t0 + hour + 600e6},
		{"region", Selector{"region": r.keys["host_5"][1]}, t0 + 4*hour, t0 + 5*hour},
		{"empty range", Selector{"hostname": "host_1"}, t0 + 7*hour, t0 + 8*hour},
		{"absent host", Selector{"hostname": "host_99"}, math.MinInt64, math.MaxInt64},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := &TimeRange{tc.from, tc.to}
			for _, eager := range []bool{false, true} {
				for _, threads := range []int{1, 3} {
					rows, err := f.Query(ctx, QueryOptions{Series: tc.sel, Time: tr, Columns: append([]string{"hostname", "time"}, cols...), Eager: eager, Threads: threads})
					if err != nil {
						t.Fatal(err)
					}
					got := collect(t, rows, cols)
					var hosts []string
					for _, h := range r.order {
						match := true
						for k, v := range tc.sel {
							if r.keys[h][indexOf(tsbs.Tags, k)] != v {
								match = false
							}
						}
						if match {
							hosts = append(hosts, h)
						}
					}
					want := r.expect(hosts, tc.from, tc.to, cols)
					for h, w := range want {
						if len(w) == 0 {
							delete(want, h)
						}
					}
					sameRows(t, fmt.Sprintf("eager %v threads %d", eager, threads), got, want)
					st := rows.Stats()
					if st.Amplification() > 0 && !eager && st.Amplification() > 4 && tc.name == "one host, one hour" {
						t.Errorf("amplification %.2f: %v", st.Amplification(), &st)
					}
				}
			}
		})
	}
}

// TestOffsetLimit checks offset and limit against the reference, with and
// without a time range, and that whole units are skipped from the index.
func TestOffsetLimit(t *testing.T) {
	recs, r := tsbsData(t, 6, 3*time.Hour, false)
	data := writeFile(t, recs, tsbsModel, &WriterOptions{Sorted: true, ChunkRows: 300})
	f, err := OpenSource(ctx, iox.Bytes(data), nil)
	if err != nil {
		t.Fatal(err)
	}
	t0 := tsbs.Start.UnixMicro()
	var all []refRow
	var hosts []string
	for _, h := range r.order {
		all = append(all, r.rows[h]...)
		for range r.rows[h] {
			hosts = append(hosts, h)
		}
	}
	rng := rand.New(rand.NewPCG(1, 1))
	for trial := 0; trial < 40; trial++ {
		off := rng.Int64N(int64(len(all)) + 10)
		lim := rng.Int64N(3000)
		var tr *TimeRange
		if trial%2 == 1 {
			tr = &TimeRange{t0 + rng.Int64N(3*3600e6), 0}
			tr.To = tr.From + rng.Int64N(3*3600e6)
		}
		rows, err := f.Query(ctx, QueryOptions{Time: tr, Offset: off, Limit: lim, Columns: []string{"hostname", "time", "usage_idle"}})
		if err != nil {
			t.Fatal(err)
		}
		var want []refRow
		var wantHosts []string
		for i, row := range all {
			if tr == nil || row.t >= tr.From && row.t < tr.To {
				want = append(want, row)
				wantHosts = append(wantHosts, hosts[i])
			}
		}
		want = want[min(off, int64(len(want))):]
		wantHosts = wantHosts[min(off, int64(len(wantHosts))):]
		if lim > 0 && int64(len(want)) > lim {
			want = want[:lim]
		}
		n := 0
		for {
			rec, err := rows.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; i < int(rec.NumRows()); i++ {
				if n >= len(want) {
					t.Fatalf("trial %d: more than %d rows", trial, len(want))
				}
				h := rec.Column(0).(*array.String).Value(i)
				ts := int64(rec.Column(1).(*array.Timestamp).Value(i))
				v := rec.Column(2).(*array.Float64).Value(i)
				if h != wantHosts[n] || ts != want[n].t || v != want[n].vals[2] {
					t.Fatalf("trial %d (offset %d limit %d range %v): row %d = %s %d %v, want %s %d %v",
						trial, off, lim, tr, n, h, ts, v, wantHosts[n], want[n].t, want[n].vals[2])
				}
				n++
			}
			rec.Release()
		}
		if n != len(want) {
			t.Fatalf("trial %d: %d rows, want %d", trial, n, len(want))
		}
		if st := rows.Stats(); tr == nil && off > 600 && st.UnitsRead >= st.UnitsTotal {
			t.Fatalf("trial %d: offset %d skipped no unit from the index: %v", trial, off, &st)
		}
	}
}

// TestSmallSeriesShareUnits writes many tiny series of mixed lengths,
// unsorted, with nulls and integer keys, and checks every series reads
// back and shares units with its neighbours.
func TestSmallSeriesShareUnits(t *testing.T) {
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "site", Type: arrow.PrimitiveTypes.Int32},
		{Name: "sensor", Type: arrow.BinaryTypes.String},
		{Name: "ts", Type: arrow.PrimitiveTypes.Int64},
		{Name: "v", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "n", Type: arrow.PrimitiveTypes.Int64},
		{Name: "note", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	type row struct {
		site   int32
		sensor string
		ts     int64
		v      float64
		vnull  bool
		n      int64
		note   string
	}
	rng := rand.New(rand.NewPCG(3, 4))
	var rows []row
	for s := 0; s < 400; s++ {
		n := 1 + rng.IntN(12)
		if s%50 == 0 {
			n = 700 // a few long ones
		}
		site, sensor := int32(s%7-3), fmt.Sprintf("s%03d", s)
		for i := 0; i < n; i++ {
			rows = append(rows, row{site, sensor, int64(i*1000 + rng.IntN(10)), rng.Float64(), rng.IntN(5) == 0, rng.Int64N(100), fmt.Sprint(i)})
		}
	}
	rng.Shuffle(len(rows), func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	for _, r := range rows {
		b.Field(0).(*array.Int32Builder).Append(r.site)
		b.Field(1).(*array.StringBuilder).Append(r.sensor)
		b.Field(2).(*array.Int64Builder).Append(r.ts)
		if r.vnull {
			b.Field(3).AppendNull()
		} else {
			b.Field(3).(*array.Float64Builder).Append(r.v)
		}
		b.Field(4).(*array.Int64Builder).Append(r.n)
		b.Field(5).(*array.StringBuilder).Append(r.note)
	}
	rec := b.NewRecord()
	data := writeFile(t, []arrow.Record{rec}, Model{Keys: []string{"site", "sensor"}, Time: "ts"}, &WriterOptions{ChunkRows: 512, MinChunkRows: 64})
	f, err := OpenSource(ctx, iox.Bytes(data), nil)
	if err != nil {
		t.Fatal(err)
	}
	if f.NumSeries() != 400 {
		t.Fatalf("%d series", f.NumSeries())
	}
	if f.Index().Units >= 400 {
		t.Fatalf("%d units for 400 mostly tiny series", f.Index().Units)
	}
	// reference: by (site, sensor), sorted by time (stable for ties)
	sort.SliceStable(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		if a.site != b.site {
			return a.site < b.site
		}
		if a.sensor != b.sensor {
			return a.sensor < b.sensor
		}
		return a.ts < b.ts
	})
	for _, probe := range []struct{ site, sensor string }{{"-3", "s000"}, {"1", "s018"}, {"2", "s050"}, {"3", "s391"}, {"0", "s399"}} {
		s, ok, err := f.Lookup(ctx, probe.site, probe.sensor)
		if err != nil {
			t.Fatal(err)
		}
		var want []row
		for _, r := range rows {
			if fmt.Sprint(r.site) == probe.site && r.sensor == probe.sensor {
				want = append(want, r)
			}
		}
		if ok != (len(want) > 0) {
			t.Fatalf("lookup %v: found %v, want %d rows", probe, ok, len(want))
		}
		if !ok {
			continue
		}
		if s.Rows != int64(len(want)) || s.Path != probe.site+"."+probe.sensor {
			t.Fatalf("lookup %v: %+v", probe, s)
		}
		q, err := f.Query(ctx, QueryOptions{Series: Selector{"site": probe.site, "sensor": probe.sensor}})
		if err != nil {
			t.Fatal(err)
		}
		i := 0
		for {
			rec, err := q.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			for k := 0; k < int(rec.NumRows()); k, i = k+1, i+1 {
				w := want[i]
				v := rec.Column(3).(*array.Float64)
				note := rec.Column(5).(*array.String)
				if rec.Column(0).(*array.Int32).Value(k) != w.site || rec.Column(1).(*array.String).Value(k) != w.sensor ||
					rec.Column(2).(*array.Int64).Value(k) != w.ts || v.IsNull(k) != w.vnull || (!w.vnull && v.Value(k) != w.v) ||
					rec.Column(4).(*array.Int64).Value(k) != w.n || note.Value(k) != w.note {
					t.Fatalf("series %v row %d differs", probe, i)
				}
			}
			rec.Release()
		}
		if i != len(want) {
			t.Fatalf("series %v: %d rows, want %d", probe, i, len(want))
		}
	}
	// absent keys: mostly answered by the bloom filter
	rejected := 0
	for i := 0; i < 200; i++ {
		var st Stats
		_, ok, err := f.lookup(ctx, []string{"9", fmt.Sprintf("x%d", i)}, &st)
		if err != nil || ok {
			t.Fatalf("absent key found (%v)", err)
		}
		rejected += st.SeriesRejectedBloom
	}
	if rejected < 190 {
		t.Fatalf("bloom filter rejected %d of 200 absent keys", rejected)
	}
	checkNullAggregate(t, f, rows, func(r row) (string, int64, float64, bool, int64) {
		return fmt.Sprint(r.site) + "." + r.sensor, r.ts, r.v, r.vnull, r.n
	})
}

// checkNullAggregate aggregates v (nullable) and n per series and 4000-unit
// bucket, three times in a row on one File with and without statistics:
// the later calls decode into the buffers the earlier ones gave back,
// whose stale values sit at the null slots, and must agree with the
// reference all the same.
func checkNullAggregate[R any](t *testing.T, f *File, rows []R, get func(R) (series string, ts int64, v float64, vnull bool, n int64)) {
	t.Helper()
	type key struct {
		series string
		bucket int64
	}
	const every = 4000
	want := map[key][2]acc{}
	// the non-null values of the earliest and latest time of a bucket, by
	// hand; tied when two values share that time (either may be taken)
	type end struct {
		t    int64
		v    float64
		tied bool
	}
	firsts, lasts := map[key][2]end{}, map[key][2]end{}
	for _, r := range rows {
		s, ts, v, vnull, n := get(r)
		k := key{s, bucketOf(ts, every)}
		a := want[k]
		fe, le := firsts[k], lasts[k]
		for j, x := range []float64{v, float64(n)} {
			if j == 0 && vnull {
				continue
			}
			switch {
			case a[j].count == 0 || ts < fe[j].t:
				fe[j] = end{t: ts, v: x}
			case ts == fe[j].t:
				fe[j].tied = true
			}
			switch {
			case a[j].count == 0 || ts > le[j].t:
				le[j] = end{t: ts, v: x}
			case ts == le[j].t:
				le[j].tied = true
			}
			a[j].add(x, ts)
		}
		want[k] = a
		firsts[k], lasts[k] = fe, le
	}
	for call := range 3 {
		rec, _, err := f.Aggregate(ctx, AggOptions{Every: every, Columns: []string{"v", "n"}, Funcs: []string{"count", "min", "max", "sum", "first", "last"}, NoStats: call == 1, Threads: 2})
		if err != nil {
			t.Fatal(err)
		}
		if int(rec.NumRows()) != len(want) {
			t.Fatalf("call %d: %d buckets, want %d", call, rec.NumRows(), len(want))
		}
		col := func(name string) arrow.Array { return rec.Column(rec.Schema().FieldIndices(name)[0]) }
		site, sensor, bucket := col("site").(*array.Int32), col("sensor").(*array.String), col("bucket").(*array.Int64)
		for i := range int(rec.NumRows()) {
			k := key{fmt.Sprint(site.Value(i)) + "." + sensor.Value(i), bucket.Value(i)}
			w, ok := want[k]
			if !ok {
				t.Fatalf("call %d: bucket %v not in the reference", call, k)
			}
			for j, c := range []string{"v", "n"} {
				if got := col("count(" + c + ")").(*array.Int64).Value(i); got != w[j].count {
					t.Fatalf("call %d %v: count(%s) = %d, want %d", call, k, c, got, w[j].count)
				}
				if w[j].count == 0 {
					if !col("min(" + c + ")").IsNull(i) {
						t.Fatalf("call %d %v: min(%s) of no value is not null", call, k, c)
					}
					continue
				}
				for _, e := range []struct {
					fn  string
					end end
				}{{"first", firsts[k][j]}, {"last", lasts[k][j]}} {
					if got := col(e.fn + "(" + c + ")").(*array.Float64).Value(i); !e.end.tied && got != e.end.v {
						t.Fatalf("call %d %v: %s(%s) = %v, want %v (time %d)", call, k, e.fn, c, got, e.end.v, e.end.t)
					}
				}
				for fn, exp := range map[string]float64{"min": w[j].min, "max": w[j].max, "sum": w[j].sum} {
					got := col(fn + "(" + c + ")").(*array.Float64).Value(i)
					if math.Abs(got-exp) > 1e-9*math.Max(1, math.Abs(exp)) {
						t.Fatalf("call %d %v: %s(%s) = %v, want %v", call, k, fn, c, got, exp)
					}
				}
			}
		}
		rec.Release()
	}
}

var ctx = context.Background()
