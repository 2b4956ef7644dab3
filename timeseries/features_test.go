package timeseries

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata/iox"
	"strata/read"
	"strata/tsbs"
)

func TestAggregate(t *testing.T) {
	recs, r := tsbsData(t, 12, 6*time.Hour, false)
	// 360 rows = one hour per unit, so hourly buckets cover whole units
	data := writeFile(t, recs, tsbsModel, &WriterOptions{Sorted: true, ChunkRows: 360})
	f, err := OpenSource(ctx, iox.Bytes(data), nil)
	if err != nil {
		t.Fatal(err)
	}
	t0 := tsbs.Start.UnixMicro()
	min5, hour := int64(300e6), int64(3600e6)
	cols := []string{"usage_user", "usage_steal"}
	for _, tc := range []struct {
		name      string
		every     int64
		tr        *TimeRange
		funcs     []string
		sel       Selector
		fromStats bool
		counted   bool
	}{
		{"5 min", min5, nil, []string{"count", "min", "max", "sum", "avg"}, nil, false, false},
		{"hourly from statistics", hour, nil, []string{"min", "max", "avg", "count"}, nil, true, false},
		{"hourly, cut range", hour, &TimeRange{t0 + 1234e6, t0 + 4*hour + 77e6}, []string{"max", "sum"}, Selector{"hostname": "host_3"}, true, false},
		{"count from block headers", min5 * 12, &TimeRange{t0 + 1000e6, t0 + 5*hour}, []string{"count"}, nil, false, true},
		{"one bucket per series", 0, &TimeRange{t0 + 100e6, t0 + 200e6}, []string{"avg", "count"}, nil, false, false},
		// bars over whole units: statistics, and first and last from the units' first and last rows
		{"hourly bars", hour, nil, []string{"first", "max", "min", "last"}, nil, true, false},
		{"bars of 7 min, cut range", 7 * 60e6, &TimeRange{t0 + 1234e6, t0 + 4*hour + 77e6}, []string{"last", "count", "first"}, nil, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, noStats := range []bool{false, true} {
				rec, st, err := f.Aggregate(ctx, AggOptions{Series: tc.sel, Time: tc.tr, Every: tc.every, Columns: cols, Funcs: tc.funcs, NoStats: noStats, Threads: 2})
				if err != nil {
					t.Fatal(err)
				}
				if !noStats && tc.fromStats && st.UnitsFromStats == 0 {
					t.Errorf("no unit folded from statistics: %+v", st)
				}
				if !noStats && tc.counted && st.BlocksCounted == 0 {
					t.Errorf("no block counted from its header: %+v", st)
				}
				if noStats && (st.UnitsFromStats > 0 || st.BlocksCounted > 0) {
					t.Errorf("NoStats used statistics: %+v", st)
				}
				// reference
				type key struct {
					host   string
					bucket int64
				}
				want := map[key][]acc{}
				// first and last by hand: the earliest and latest row of a
				// bucket (r.rows[h] is in time order, one row a time)
				type ends struct{ first, last float64 }
				wantEnds := map[key][]ends{}
				var order []key
				from, to := int64(math.MinInt64), int64(math.MaxInt64)
				if tc.tr != nil {
					from, to = tc.tr.From, tc.tr.To
				}
				for _, h := range r.order {
					if v, ok := tc.sel["hostname"]; ok && v != h {
						continue
					}
					for _, row := range r.rows[h] {
						if row.t < from || row.t >= to {
							continue
						}
						b := bucketOf(row.t, tc.every)
						if tc.every == 0 {
							b = math.MinInt64
						}
						k := key{h, b}
						if _, ok := want[k]; !ok {
							want[k] = make([]acc, len(cols))
							wantEnds[k] = make([]ends, len(cols))
							order = append(order, k)
						}
						for j, c := range cols {
							v := row.vals[metricIndex(c)]
							want[k][j].add(v, row.t)
							if want[k][j].count == 1 {
								wantEnds[k][j].first = v
							}
							wantEnds[k][j].last = v
						}
					}
				}
				if int(rec.NumRows()) != len(order) {
					t.Fatalf("noStats %v: %d buckets, want %d", noStats, rec.NumRows(), len(order))
				}
				sch := rec.Schema()
				for i, k := range order {
					if got := rec.Column(0).(*array.String).Value(i); got != k.host {
						t.Fatalf("row %d: host %s, want %s", i, got, k.host)
					}
					if tc.every > 0 {
						if got := int64(rec.Column(10).(*array.Timestamp).Value(i)); got != k.bucket {
							t.Fatalf("row %d: bucket %d, want %d", i, got, k.bucket)
						}
					}
					for j, c := range cols {
						w := want[k][j]
						for _, fn := range tc.funcs {
							col := sch.FieldIndices(fn + "(" + c + ")")[0]
							if fn == "count" {
								if got := rec.Column(col).(*array.Int64).Value(i); got != w.count {
									t.Fatalf("row %d %s(%s) = %d, want %d", i, fn, c, got, w.count)
								}
								continue
							}
							got := rec.Column(col).(*array.Float64).Value(i)
							e := wantEnds[k][j]
							exp := map[string]float64{"min": w.min, "max": w.max, "sum": w.sum, "avg": w.sum / float64(w.count), "first": e.first, "last": e.last}[fn]
							if math.Abs(got-exp) > 1e-9*math.Max(1, math.Abs(exp)) {
								t.Fatalf("noStats %v row %d %s(%s) = %v, want %v", noStats, i, fn, c, got, exp)
							}
						}
					}
				}
				rec.Release()
			}
		})
	}
}

func TestLast(t *testing.T) {
	recs, r := tsbsData(t, 30, 2*time.Hour, false)
	data := writeFile(t, recs, tsbsModel, &WriterOptions{Sorted: true})
	f, err := OpenSource(ctx, iox.Bytes(data), nil)
	if err != nil {
		t.Fatal(err)
	}
	before := f.BytesRead()
	rec, st, err := f.Last(ctx, nil, []string{"usage_idle", "usage_guest"})
	if err != nil {
		t.Fatal(err)
	}
	if st.BytesRead != 0 || st.UnitsRead != 0 {
		t.Fatalf("last read data: %v", &st)
	}
	// (pages inside the tail opening read are taken from it, not read)
	if read := f.BytesRead() - before; read > st.IndexBytes || st.IndexBytes == 0 {
		t.Fatalf("last read %d bytes, want at most its %d bytes of index pages", read, st.IndexBytes)
	}
	if int(rec.NumRows()) != len(r.order) {
		t.Fatalf("%d rows, want %d", rec.NumRows(), len(r.order))
	}
	for i, h := range r.order {
		last := r.rows[h][len(r.rows[h])-1]
		if rec.Column(0).(*array.String).Value(i) != h || int64(rec.Column(10).(*array.Timestamp).Value(i)) != last.t ||
			rec.Column(11).(*array.Float64).Value(i) != last.vals[2] || rec.Column(12).(*array.Float64).Value(i) != last.vals[8] {
			t.Fatalf("row %d: last point of %s differs", i, h)
		}
	}
}

func TestSample(t *testing.T) {
	recs, r := tsbsData(t, 20, 6*time.Hour, false)
	data := writeFile(t, recs, tsbsModel, &WriterOptions{Sorted: true, ChunkRows: 1000})
	f, err := OpenSource(ctx, iox.Bytes(data), nil)
	if err != nil {
		t.Fatal(err)
	}
	cols := []string{"hostname", "time", "usage_user", "usage_system", "usage_idle", "usage_nice"}
	o := SampleOptions{Windows: 300, Length: 256, Columns: cols, Seed: 42, Epoch: 1, Threads: 2}
	ws, err := f.DrawWindows(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := f.DrawWindows(ctx, o)
	o2 := o
	o2.Epoch = 2
	other, _ := f.DrawWindows(ctx, o2)
	same := 0
	for i := range ws {
		if ws[i] != again[i] {
			t.Fatalf("window %d drawn differently with the same seed", i)
		}
		if ws[i] == other[i] {
			same++
		}
	}
	if same > 5 {
		t.Fatalf("%d of %d windows repeat in the next epoch", same, len(ws))
	}
	out, st, err := f.Sample(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != len(ws) {
		t.Fatalf("%d records for %d windows", len(out), len(ws))
	}
	check := func(rec arrow.Record, off int, w Window) {
		h := r.order[w.Series]
		for i := 0; i < o.Length; i++ {
			want := r.rows[h][w.Start+int64(i)]
			if rec.Column(0).(*array.String).Value(off+i) != h || int64(rec.Column(1).(*array.Timestamp).Value(off+i)) != want.t {
				t.Fatalf("window %+v row %d: wrong series or time", w, i)
			}
			for j := 0; j < 4; j++ {
				if got := rec.Column(2 + j).(*array.Float64).Value(off + i); got != want.vals[j] {
					t.Fatalf("window %+v row %d col %d: %v, want %v", w, i, j, got, want.vals[j])
				}
			}
		}
	}
	for i, rec := range out {
		if rec.NumRows() != int64(o.Length) {
			t.Fatalf("window %d: %d rows", i, rec.NumRows())
		}
		check(rec, 0, ws[i])
		rec.Release()
	}
	t.Logf("sample: %v", &st)
	if a := st.Amplification(); a > 2.5 {
		t.Errorf("read amplification %.2f", a)
	}
	// stacked: one record, window column first
	o.Stacked = true
	stacked, _, err := f.Sample(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(stacked) != 1 || stacked[0].NumRows() != int64(len(ws)*o.Length) {
		t.Fatalf("stacked: %d records", len(stacked))
	}
	s := stacked[0]
	body := array.NewRecord(arrowSchemaTail(s), s.Columns()[1:], s.NumRows())
	for i, w := range ws {
		if s.Column(0).(*array.Int32).Value(i*o.Length) != int32(i) {
			t.Fatalf("window column wrong at %d", i)
		}
		check(body, i*o.Length, w)
	}
	// a warm metadata cache: the next epoch reads no index page
	cs := f.CacheStats()
	o.Epoch, o.Stacked = 3, false
	_, st3, err := f.Sample(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	if st3.IndexPages != 0 || f.CacheStats().Hits <= cs.Hits {
		t.Fatalf("epoch 3 read %d index pages with a warm cache", st3.IndexPages)
	}
}

func arrowSchemaTail(r arrow.Record) *arrow.Schema {
	return arrow.NewSchema(r.Schema().Fields()[1:], nil)
}

// TestSingleSeries reads a table without key columns: one series.
func TestSingleSeries(t *testing.T) {
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Second}},
		{Name: "v", Type: arrow.PrimitiveTypes.Float64},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	const n = 20000
	for i := 0; i < n; i++ {
		b.Field(0).(*array.TimestampBuilder).Append(arrow.Timestamp(1e9 + int64(i)*3600))
		b.Field(1).(*array.Float64Builder).Append(float64(i%97) / 4)
	}
	rec := b.NewRecord()
	data := writeFile(t, []arrow.Record{rec}, Model{Time: "ts"}, nil)
	f, err := OpenSource(ctx, iox.Bytes(data), nil)
	if err != nil {
		t.Fatal(err)
	}
	if f.NumSeries() != 1 {
		t.Fatalf("%d series", f.NumSeries())
	}
	rows, err := f.Query(ctx, QueryOptions{Time: &TimeRange{1e9 + 5000*3600, 1e9 + 5010*3600}})
	if err != nil {
		t.Fatal(err)
	}
	got, err := rows.Next()
	if err != nil {
		t.Fatal(err)
	}
	if got.NumRows() != 10 || got.Column(1).(*array.Float64).Value(3) != float64(5003%97)/4 {
		t.Fatalf("query: %d rows", got.NumRows())
	}
	if _, _, err := f.Aggregate(ctx, AggOptions{Every: -5}); !errors.Is(err, read.ErrInvalidArgument) {
		t.Fatalf("buckets of -5: %v, want read.ErrInvalidArgument", err)
	}
	if _, _, err := f.Sample(ctx, SampleOptions{Windows: 2, Length: 0}); !errors.Is(err, read.ErrInvalidArgument) {
		t.Fatalf("windows of 0 rows: %v, want read.ErrInvalidArgument", err)
	}
	for _, o := range []QueryOptions{{Offset: -1}, {Limit: -3}} {
		if _, err := f.Query(ctx, o); !errors.Is(err, read.ErrInvalidArgument) {
			t.Fatalf("query with offset %d, limit %d: %v, want read.ErrInvalidArgument", o.Offset, o.Limit, err)
		}
	}
	recs, _, err := f.Sample(ctx, SampleOptions{Windows: 5, Length: 100, Seed: 3})
	if err != nil || len(recs) != 5 {
		t.Fatalf("sample: %v", err)
	}
	last, _, err := f.Last(ctx, nil, nil)
	if err != nil || last.NumRows() != 1 || last.Column(1).(*array.Float64).Value(0) != float64((n-1)%97)/4 {
		t.Fatalf("last: %v", err)
	}
	if _, ok, err := f.Lookup(ctx); err != nil || !ok {
		t.Fatalf("lookup of the one series: %v %v", ok, err)
	}
	p, _, err := f.QueryPaths(ctx, []string{"v"}, &TimeRange{1e9, 1e9 + 3*3600})
	if err != nil || p.NumRows() != 3 {
		t.Fatalf("paths: %v", err)
	}
}

// TestConcurrentReads runs queries, samples and aggregates from several
// goroutines on one File (shared metadata and decoder caches, parallel
// decode) and checks every answer.
func TestConcurrentReads(t *testing.T) {
	recs, r := tsbsData(t, 10, 3*time.Hour, false)
	data := writeFile(t, recs, tsbsModel, &WriterOptions{Sorted: true, ChunkRows: 300})
	f, err := OpenSource(ctx, iox.Bytes(data), &Options{Threads: 2, CacheBytes: 64 << 10, DecoderCacheBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	t0 := tsbs.Start.UnixMicro()
	cols := []string{"usage_user", "usage_guest"}
	done := make(chan error, 8)
	for g := 0; g < 8; g++ {
		go func(g int) {
			for i := 0; i < 10; i++ {
				h := r.order[(g+i)%len(r.order)]
				from := t0 + int64((g*7+i*13)%150)*60e6
				rows, err := f.Query(ctx, QueryOptions{Series: Selector{"hostname": h}, Time: &TimeRange{from, from + 1800e6},
					Columns: append([]string{"hostname", "time"}, cols...)})
				if err != nil {
					done <- err
					return
				}
				got := collect(t, rows, cols)
				want := r.expect([]string{h}, from, from+1800e6, cols)
				if len(got[h]) != len(want[h]) {
					done <- fmt.Errorf("goroutine %d: %d rows, want %d", g, len(got[h]), len(want[h]))
					return
				}
				for k := range want[h] {
					if got[h][k].t != want[h][k].t || got[h][k].vals[1] != want[h][k].vals[1] {
						done <- fmt.Errorf("goroutine %d: row %d differs", g, k)
						return
					}
				}
				if recs, _, err := f.Sample(ctx, SampleOptions{Windows: 20, Length: 50, Columns: cols, Seed: uint64(g), Epoch: i}); err != nil {
					done <- err
					return
				} else {
					for _, rec := range recs {
						rec.Release()
					}
				}
			}
			done <- nil
		}(g)
	}
	for g := 0; g < 8; g++ {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
}

// TestLookupAmong100k opens a file of 100,000 series and looks one up:
// past what Open reads (the file's tail), the lookup reads one bloom page
// and one directory page per level below the root, a few kilobytes of an
// index of megabytes; an absent key is answered by the bloom page alone.
func TestLookupAmong100k(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 100,000 series")
	}
	const series = 100_000
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "device", Type: arrow.BinaryTypes.String},
		{Name: "ts", Type: arrow.PrimitiveTypes.Int64},
		{Name: "v", Type: arrow.PrimitiveTypes.Float64},
	}, nil)
	var buf bytes.Buffer
	w, err := NewWriter(&buf, sch, Model{Keys: []string{"device"}, Time: "ts"}, &WriterOptions{Sorted: true})
	if err != nil {
		t.Fatal(err)
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	for s := 0; s < series; s++ {
		for i := 0; i < 3; i++ {
			b.Field(0).(*array.StringBuilder).Append(fmt.Sprintf("dev%06d", s))
			b.Field(1).(*array.Int64Builder).Append(int64(i * 60))
			b.Field(2).(*array.Float64Builder).Append(float64(s) + float64(i)/4)
		}
		if s%10000 == 9999 {
			rec := b.NewRecord()
			if err := w.Write(rec); err != nil {
				t.Fatal(err)
			}
			rec.Release()
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	f, err := OpenSource(ctx, iox.Bytes(data), nil)
	if err != nil {
		t.Fatal(err)
	}
	open, openReads := f.BytesRead(), f.Reads()
	var st Stats
	s, ok, err := f.lookup(ctx, []string{"dev071234"}, &st)
	if err != nil || !ok || s.Rows != 3 || s.Ordinal != 71234 {
		t.Fatalf("lookup: %+v %v %v", s, ok, err)
	}
	ix := f.Index()
	look, lookReads := f.BytesRead()-open, f.Reads()-openReads
	t.Logf("%d series, index %d bytes, height %d; Open read %d bytes in %d reads; lookup %d bytes in %d reads (%d pages)",
		f.NumSeries(), ix.IndexBytes, ix.Height, open, openReads, look, lookReads, st.IndexPages)
	if int64(st.IndexPages) > int64(ix.Height)+1 || look > 16<<10 || look*50 > ix.IndexBytes {
		t.Fatalf("lookup read %d bytes in %d pages of a %d-byte index of height %d", look, st.IndexPages, ix.IndexBytes, ix.Height)
	}
	// Absent keys: mostly one bloom page, never the directory below the root.
	var ast Stats
	for i := 0; i < 100; i++ {
		if _, ok, err := f.lookup(ctx, []string{fmt.Sprintf("nodev%d", i)}, &ast); err != nil || ok {
			t.Fatalf("absent key found (%v)", err)
		}
	}
	if ast.SeriesRejectedBloom < 95 {
		t.Fatalf("bloom rejected %d of 100 absent keys", ast.SeriesRejectedBloom)
	}
	// the data of the series
	rows, err := f.Query(ctx, QueryOptions{Series: Selector{"device": "dev071234"}})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := rows.Next()
	if err != nil || rec.NumRows() != 3 || rec.Column(2).(*array.Float64).Value(2) != 71234.5 {
		t.Fatalf("query of the series: %v", err)
	}
}

// TestQueryPaths merges tree-model paths of two devices by time, with
// nulls where a device has no point.
func TestQueryPaths(t *testing.T) {
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "dev", Type: arrow.BinaryTypes.String},
		{Name: "ts", Type: arrow.PrimitiveTypes.Int64},
		{Name: "temp", Type: arrow.PrimitiveTypes.Float64},
		{Name: "hum", Type: arrow.PrimitiveTypes.Int32},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	add := func(dev string, ts int64, temp float64, hum int32) {
		b.Field(0).(*array.StringBuilder).Append(dev)
		b.Field(1).(*array.Int64Builder).Append(ts)
		b.Field(2).(*array.Float64Builder).Append(temp)
		b.Field(3).(*array.Int32Builder).Append(hum)
	}
	add("b.2", 5, 1.5, 50)
	add("a", 0, 0.5, 40)
	add("b.2", 10, 2.5, 51)
	add("a", 10, 1.0, 41)
	add("a", 20, 2.0, 42)
	add("b.2", 30, 3.5, 52)
	data := writeFile(t, []arrow.Record{b.NewRecord()}, Model{Keys: []string{"dev"}, Time: "ts"}, nil)
	f, err := OpenSource(ctx, iox.Bytes(data), nil)
	if err != nil {
		t.Fatal(err)
	}
	// "b.2" holds a dot: its path escapes it.
	rec, _, err := f.QueryPaths(ctx, []string{"a.temp", `b\.2.hum`, "a.hum"}, &TimeRange{0, 25})
	if err != nil {
		t.Fatal(err)
	}
	wantT := []int64{0, 5, 10, 20}
	wantTemp := []any{0.5, nil, 1.0, 2.0}
	wantHum := []any{nil, int32(50), int32(51), nil}
	if int(rec.NumRows()) != len(wantT) {
		t.Fatalf("%d rows, want %d", rec.NumRows(), len(wantT))
	}
	for i := range wantT {
		if rec.Column(0).(*array.Int64).Value(i) != wantT[i] {
			t.Fatalf("row %d: time %d", i, rec.Column(0).(*array.Int64).Value(i))
		}
		temp, hum := rec.Column(1).(*array.Float64), rec.Column(2).(*array.Int32)
		if (wantTemp[i] == nil) != temp.IsNull(i) || wantTemp[i] != nil && temp.Value(i) != wantTemp[i].(float64) {
			t.Fatalf("row %d: a.temp %v", i, temp.Value(i))
		}
		if (wantHum[i] == nil) != hum.IsNull(i) || wantHum[i] != nil && hum.Value(i) != wantHum[i].(int32) {
			t.Fatalf("row %d: b.2.hum %v", i, hum.Value(i))
		}
	}
	if _, _, err := f.QueryPaths(ctx, []string{"a.nope"}, nil); err == nil {
		t.Fatal("unknown measurement accepted")
	}
	if s, ok, _ := f.Lookup(ctx, "b.2"); !ok || s.Path != `b\.2` {
		t.Fatalf("path of b.2: %q", s.Path)
	}
}

// TestArgumentErrors checks that models, selectors, paths and columns no
// file could satisfy are refused with the sentinel the CLI turns into its
// usage exit code, whatever the file holds.
func TestArgumentErrors(t *testing.T) {
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "host", Type: arrow.BinaryTypes.String},
		{Name: "ts", Type: arrow.FixedWidthTypes.Timestamp_us},
		{Name: "v", Type: arrow.PrimitiveTypes.Float64},
		{Name: "l", Type: arrow.ListOf(arrow.PrimitiveTypes.Int64)},
	}, nil)
	for _, m := range []Model{
		{Keys: []string{"nosuch"}, Time: "ts"},
		{Keys: []string{"host"}, Time: "nosuch"},
		{Keys: []string{"host", "host"}, Time: "ts"},
		{Keys: []string{"host"}, Time: "host"},
		{Keys: []string{"v"}, Time: "ts"},
		{Keys: []string{"host"}, Time: "v"},
	} {
		if _, err := NewWriter(io.Discard, sch, m, nil); !errors.Is(err, read.ErrInvalidArgument) {
			t.Errorf("model %+v: %v, want read.ErrInvalidArgument", m, err)
		}
	}
	if _, err := ParseSelector("host"); !errors.Is(err, read.ErrInvalidArgument) {
		t.Errorf("selector without a value: %v, want read.ErrInvalidArgument", err)
	}
	recs, _ := tsbsData(t, 2, time.Hour, false)
	f, err := OpenSource(context.Background(), iox.Bytes(writeFile(t, recs, tsbsModel, nil)), nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := f.Query(ctx, QueryOptions{Columns: []string{"nosuch"}}); !errors.Is(err, read.ErrUnknownColumn) {
		t.Errorf("query of an unknown column: %v, want read.ErrUnknownColumn", err)
	}
	if _, err := f.Query(ctx, QueryOptions{Series: Selector{"nosuch": "x"}}); !errors.Is(err, read.ErrInvalidArgument) {
		t.Errorf("selector on a column that is no key: %v, want read.ErrInvalidArgument", err)
	}
	if _, _, err := f.QueryPaths(ctx, []string{"nosuch.x"}, nil); !errors.Is(err, read.ErrInvalidArgument) {
		t.Errorf("path with too few keys: %v, want read.ErrInvalidArgument", err)
	}
	// Requests no file could answer, refused with the usage sentinel
	// (they once exited 1, as failures of the work do).
	var tags []string
	for range tsbsModel.Keys {
		tags = append(tags, "x")
	}
	device := strings.Join(tags, ".")
	for what, err := range map[string]error{
		"selector naming a key twice": func() error { _, err := ParseSelector("hostname=a,hostname=b"); return err }(),
		"aggregate of a key column":   aggErr(f, AggOptions{Columns: []string{"hostname"}}),
		"aggregate of the time":       aggErr(f, AggOptions{Columns: []string{"time"}}),
		"last of a key column":        func() error { _, _, err := f.Last(ctx, nil, []string{"region"}); return err }(),
		"no paths":                    func() error { _, _, err := f.QueryPaths(ctx, nil, nil); return err }(),
		"path to a key column":        func() error { _, _, err := f.QueryPaths(ctx, []string{device + ".region"}, nil); return err }(),
		"lookup with too few keys":    func() error { _, _, err := f.Lookup(ctx, "host_0"); return err }(),
		"windows longer than a series": func() error {
			_, _, err := f.Sample(ctx, SampleOptions{Windows: 1, Length: 1 << 20})
			return err
		}(),
		"window past a series' end": func() error {
			_, _, err := f.ReadWindows(ctx, []Window{{Series: 0, Start: math.MaxInt64 - 1}}, SampleOptions{Length: 4})
			return err
		}(),
		"window of no series": func() error {
			_, _, err := f.ReadWindows(ctx, []Window{{Series: 7}}, SampleOptions{Length: 1})
			return err
		}(),
	} {
		if !errors.Is(err, read.ErrInvalidArgument) {
			t.Errorf("%s: %v, want read.ErrInvalidArgument", what, err)
		}
	}
	// an integer key given text that is no integer
	ik := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int32}, {Name: "ts", Type: arrow.PrimitiveTypes.Int64}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, ik)
	defer b.Release()
	b.Field(0).(*array.Int32Builder).Append(3)
	b.Field(1).(*array.Int64Builder).Append(1)
	rec := b.NewRecord()
	defer rec.Release()
	fi, err := OpenSource(ctx, iox.Bytes(writeFile(t, []arrow.Record{rec}, Model{Keys: []string{"id"}, Time: "ts"}, nil)), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fi.Select(ctx, Selector{"id": "three"}); !errors.Is(err, read.ErrInvalidArgument) {
		t.Errorf("integer key selected by text: %v, want read.ErrInvalidArgument", err)
	}
	// a null time or unsorted input declared sorted
	nt := arrow.NewSchema([]arrow.Field{{Name: "ts", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil)
	for _, o := range []*WriterOptions{nil, {Sorted: true}} {
		b := array.NewRecordBuilder(memory.DefaultAllocator, nt)
		b.Field(0).(*array.Int64Builder).AppendValues([]int64{1, 0}, []bool{true, false})
		rec := b.NewRecord()
		b.Release()
		w, err := NewWriter(io.Discard, nt, Model{Time: "ts"}, o)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write(rec); !errors.Is(err, read.ErrInvalidArgument) || !strings.Contains(err.Error(), "1 nulls") {
			t.Errorf("null time (options %+v): %v, want read.ErrInvalidArgument counting the nulls", o, err)
		}
		rec.Release()
		w.Abort()
	}
	b2 := array.NewRecordBuilder(memory.DefaultAllocator, nt)
	b2.Field(0).(*array.Int64Builder).AppendValues([]int64{2, 1}, nil)
	unsorted := b2.NewRecord()
	b2.Release()
	defer unsorted.Release()
	w, err := NewWriter(io.Discard, nt, Model{Time: "ts"}, &WriterOptions{Sorted: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(unsorted); !errors.Is(err, read.ErrInvalidArgument) {
		t.Errorf("unsorted input declared sorted: %v, want read.ErrInvalidArgument", err)
	}
	w.Abort()
}

// aggErr runs an aggregate and returns its error.
func aggErr(f *File, o AggOptions) error {
	rec, _, err := f.Aggregate(context.Background(), o)
	if err == nil {
		rec.Release()
	}
	return err
}

// TestNilArguments: a nil schema, destination, record or source gets an
// error, never a panic, and a nil record leaves the writer usable.
func TestNilArguments(t *testing.T) {
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "host", Type: arrow.BinaryTypes.String},
		{Name: "ts", Type: arrow.FixedWidthTypes.Timestamp_us},
		{Name: "v", Type: arrow.PrimitiveTypes.Float64},
	}, nil)
	m := Model{Keys: []string{"host"}, Time: "ts"}
	if _, err := NewWriter(&bytes.Buffer{}, nil, m, nil); err == nil {
		t.Error("no schema: no error")
	}
	if _, err := NewWriter(nil, sch, m, nil); err == nil {
		t.Error("no destination: no error")
	}
	if _, err := OpenSource(context.Background(), nil, nil); err == nil {
		t.Error("no source: no error")
	}
	var buf bytes.Buffer
	w, err := NewWriter(&buf, sch, m, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(nil); err == nil {
		t.Error("nil record: no error")
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	defer b.Release()
	b.Field(0).(*array.StringBuilder).Append("a")
	b.Field(1).(*array.TimestampBuilder).Append(1)
	b.Field(2).(*array.Float64Builder).Append(2.5)
	rec := b.NewRecord()
	defer rec.Release()
	if err := w.Write(rec); err != nil {
		t.Fatalf("write after a nil record: %v", err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := OpenSource(context.Background(), iox.Bytes(buf.Bytes()), nil)
	if err != nil {
		t.Fatal(err)
	}
	if f.NumSeries() != 1 {
		t.Errorf("%d series, want 1", f.NumSeries())
	}
}

// TestRangeInSharedBlock queries a series that shares its unit, and its
// first time block, with a series of later times: the block's bounds come
// from the neighbour's rows, so they say a time is there that this
// series' rows in the block do not reach, and the search for where the
// range starts must go on to the next block (found by the differential
// test against DuckDB).
func TestRangeInSharedBlock(t *testing.T) {
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.BinaryTypes.String},
		{Name: "time", Type: arrow.PrimitiveTypes.Int64},
		{Name: "v", Type: arrow.PrimitiveTypes.Int64},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	defer b.Release()
	add := func(id string, from, n int64) {
		for i := range n {
			b.Field(0).(*array.StringBuilder).Append(id)
			b.Field(1).(*array.Int64Builder).Append(from + i)
			b.Field(2).(*array.Int64Builder).Append(from + i)
		}
	}
	add("a", 1000, 20) // rows 0-19: block 1 holds its last four
	add("b", 0, 100)   // rows 20-119: times 0-99
	rec := b.NewRecord()
	defer rec.Release()
	data := writeFile(t, []arrow.Record{rec}, Model{Keys: []string{"id"}, Time: "time"},
		&WriterOptions{Sorted: true, ChunkRows: 1000, MinChunkRows: 500, BlockSize: 16})
	f, err := OpenSource(ctx, iox.Bytes(data), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, tr := range []TimeRange{{50, 60}, {12, 13}, {5, 2000}, {99, 100}, {100, 2000}} {
		for _, eager := range []bool{false, true} {
			rows, err := f.Query(ctx, QueryOptions{Series: Selector{"id": "b"}, Time: &tr, Columns: []string{"time"}, Eager: eager})
			if err != nil {
				t.Fatal(err)
			}
			var got []int64
			for {
				rec, err := rows.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, rec.Column(0).(*array.Int64).Int64Values()...)
				rec.Release()
			}
			rows.Close()
			var want []int64
			for x := max(tr.From, 0); x < min(tr.To, 100); x++ {
				want = append(want, x)
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("range %v, eager %v: times %v, want %v", tr, eager, got, want)
			}
		}
		agg, _, err := f.Aggregate(ctx, AggOptions{Series: Selector{"id": "b"}, Time: &tr, Columns: []string{"v"}, Funcs: []string{"count", "min"}})
		if err != nil {
			t.Fatal(err)
		}
		n := max(0, min(tr.To, 100)-max(tr.From, 0))
		if n == 0 && agg.NumRows() != 0 || n > 0 && (agg.NumRows() != 1 || agg.Column(2).(*array.Int64).Value(0) != n || agg.Column(3).(*array.Float64).Value(0) != float64(max(tr.From, 0))) {
			t.Errorf("range %v: aggregate %v, want count %d from %d", tr, agg, n, max(tr.From, 0))
		}
		agg.Release()
	}
}

// TestNullKeyRefused: a record with a null in a series key column is
// refused whole, in sorted and buffered mode, and the writer stays usable.
// (Before, the row was filed under whatever value Arrow held beneath the
// null, while the stored key column held a null: found by the second
// reader's index check.)
func TestNullKeyRefused(t *testing.T) {
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "time", Type: arrow.PrimitiveTypes.Int64},
		{Name: "v", Type: arrow.PrimitiveTypes.Int64},
	}, nil)
	record := func(ids ...string) arrow.Record {
		b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
		defer b.Release()
		for i, id := range ids {
			if id == "" {
				b.Field(0).AppendNull()
			} else {
				b.Field(0).(*array.StringBuilder).Append(id)
			}
			b.Field(1).(*array.Int64Builder).Append(int64(i))
			b.Field(2).(*array.Int64Builder).Append(int64(i))
		}
		return b.NewRecord()
	}
	bad, good := record("a", "", "b"), record("a", "b")
	defer bad.Release()
	defer good.Release()
	for _, sorted := range []bool{true, false} {
		var buf bytes.Buffer
		w, err := NewWriter(&buf, sch, Model{Keys: []string{"id"}, Time: "time"}, &WriterOptions{Sorted: sorted})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write(bad); !errors.Is(err, read.ErrInvalidArgument) {
			t.Fatalf("sorted %v: a null key: %v, want ErrInvalidArgument", sorted, err)
		}
		if err := w.Write(good); err != nil {
			t.Fatalf("sorted %v: the next record: %v", sorted, err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		f, err := OpenSource(ctx, iox.Bytes(buf.Bytes()), nil)
		if err != nil {
			t.Fatal(err)
		}
		if f.NumSeries() != 2 || f.NumRows() != 2 {
			t.Errorf("sorted %v: %d series, %d rows; want 2 and 2", sorted, f.NumSeries(), f.NumRows())
		}
		f.Close()
	}
}

// TestNullTimeRefused: a record with a null in the time column is refused
// whole like one with a null key, in sorted and buffered mode, and the
// writer stays usable: the file holds the other records' rows, value by
// value. (Before, the refusal failed the writer, so Close discarded every
// row written before it.)
func TestNullTimeRefused(t *testing.T) {
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.BinaryTypes.String},
		{Name: "time", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "v", Type: arrow.PrimitiveTypes.Int64},
	}, nil)
	record := func(id string, times []int64, valid []bool) arrow.Record {
		b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
		defer b.Release()
		for i, tm := range times {
			b.Field(0).(*array.StringBuilder).Append(id)
			if valid != nil && !valid[i] {
				b.Field(1).AppendNull()
			} else {
				b.Field(1).(*array.Int64Builder).Append(tm)
			}
			b.Field(2).(*array.Int64Builder).Append(10 * tm)
		}
		return b.NewRecord()
	}
	first, bad, last := record("a", []int64{1, 2}, nil), record("a", []int64{3, 4}, []bool{true, false}), record("b", []int64{5}, nil)
	defer first.Release()
	defer bad.Release()
	defer last.Release()
	for _, sorted := range []bool{true, false} {
		var buf bytes.Buffer
		w, err := NewWriter(&buf, sch, Model{Keys: []string{"id"}, Time: "time"}, &WriterOptions{Sorted: sorted})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write(first); err != nil {
			t.Fatal(err)
		}
		if err := w.Write(bad); !errors.Is(err, read.ErrInvalidArgument) || !strings.Contains(err.Error(), `time column "time" has 1 nulls`) {
			t.Fatalf("sorted %v: a null time: %v, want ErrInvalidArgument naming the column", sorted, err)
		}
		if err := w.Write(last); err != nil {
			t.Fatalf("sorted %v: the next record: %v", sorted, err)
		}
		if err := w.Close(); err != nil {
			t.Fatalf("sorted %v: Close: %v", sorted, err)
		}
		f, err := OpenSource(ctx, iox.Bytes(buf.Bytes()), nil)
		if err != nil {
			t.Fatal(err)
		}
		rows, err := f.Query(ctx, QueryOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for {
			rec, err := rows.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; i < int(rec.NumRows()); i++ {
				got = append(got, fmt.Sprint(rec.Column(0).ValueStr(i), " ", rec.Column(1).ValueStr(i), " ", rec.Column(2).ValueStr(i)))
			}
			rec.Release()
		}
		rows.Close()
		if want := []string{"a 1 10", "a 2 20", "b 5 50"}; !slices.Equal(got, want) {
			t.Errorf("sorted %v: rows %q, want %q", sorted, got, want)
		}
		f.Close()
	}
}
