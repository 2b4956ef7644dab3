package read_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata/encoding"
	"strata/filter"
	"strata/format"
	"strata/iox"
	"strata/read"
	"strata/stats"
	"strata/write"
)

// countingSource is an in-memory source that counts its reads and may
// name itself (iox.Identifier). It is not an iox.Slicer, so every range
// the Fetcher plans becomes a ReadAt.
type countingSource struct {
	data  []byte
	id    string
	reads atomic.Int64
}

func (c *countingSource) ReadAt(ctx context.Context, p []byte, off int64) (int, error) {
	c.reads.Add(1)
	return iox.Bytes(c.data).ReadAt(ctx, p, off)
}

func (c *countingSource) Size() int64      { return int64(len(c.data)) }
func (c *countingSource) Identity() string { return c.id }

// expectedRows evaluates where row by row over all, the reference.
func expectedRows(t *testing.T, all arrow.Record, where string) []int64 {
	t.Helper()
	e, err := filter.Parse(where)
	if err == nil {
		e, err = filter.Bind(e, lookupInfo)
	}
	if err != nil {
		t.Fatalf("%s: %v", where, err)
	}
	var want []int64
	for i := 0; i < int(all.NumRows()); i++ {
		if filter.EvalRow(e, func(p string) (stats.Value, bool) { return value(column(all, p), i) }) {
			want = append(want, int64(i))
		}
	}
	return want
}

// TestOnePlanPerStripe holds the planners to their consumers: within one
// query every chunk is fetched at most once and opened at most once, a
// filtered scan makes at most two fetch calls per stripe (filter columns,
// then payload), a lookup and an aggregate one or two, and no payload chunk
// without a surviving row is fetched (but for the stream's shared
// definitions, which any of its chunks may need).
func TestOnePlanPerStripe(t *testing.T) {
	const rows = 12000
	data, recs := writeFile(t, 77, rows, write.Options{StripeBytes: 96 << 10, ChunkValues: 700})
	all := concat(t, recs)
	defer all.Release()
	r := rand.New(rand.NewPCG(5, 5))
	for _, par := range []int{1, 3} {
		f, err := read.Open(context.Background(), iox.Bytes(data), read.Options{DecoderCacheBytes: -1, Parallelism: par})
		if err != nil {
			t.Fatal(err)
		}
		ff := f.Container()
		trials := 40
		if raceEnabled {
			trials = 8
		}
		for trial := 0; trial < trials; trial++ {
			where := randomWhere(r)
			if trial%3 == 0 {
				lo := r.IntN(rows * 3)
				where = fmt.Sprintf("id BETWEEN %d AND %d", lo, lo+r.IntN(900))
			}
			cols := []string{"id", "grp", "price", "tag", "day"}
			fetches, opens, stop := read.ChunkEvents()
			got, st := scanAll(t, f, read.ScanOptions{Where: where, Columns: cols})
			stop()
			want := expectedRows(t, all, where)
			n := 0
			if got != nil {
				n = int(got.NumRows())
				got.Release()
			}
			if n != len(want) {
				t.Fatalf("%s: %d rows, want %d", where, n, len(want))
			}
			checkOnce(t, where, *fetches, *opens, 2)
			// Payload chunks of columns the filter does not read hold a
			// survivor, or they were not fetched.
			for _, call := range *fetches {
				for _, k := range call {
					name := streamColumn(f, k[1])
					if name == "" || filterReads(where, name) {
						continue
					}
					info, err := ff.Stream(context.Background(), k[0], k[1])
					if err != nil {
						t.Fatal(err)
					}
					ch := info.Chunks[k[2]]
					if ch.Rows == 0 {
						// a shared definition, fetched with any chunk of its stream
						continue
					}
					first := ff.Stripe(k[0]).FirstRow + ch.FirstRow
					found := false
					for _, w := range want {
						if w >= first && w < first+ch.Rows {
							found = true
							break
						}
					}
					if !found {
						t.Fatalf("%s: fetched chunk %v of payload column %s without a surviving row (%s)", where, k, name, st.String())
					}
				}
			}

			// Aggregates: at most two fetch calls per stripe.
			fetches, opens, stop = read.ChunkEvents()
			if _, _, err := f.Aggregate("count(*), sum(grp), min(tag), max(u)", where); err != nil {
				t.Fatal(err)
			}
			stop()
			checkOnce(t, "agg "+where, *fetches, *opens, 2)

			// Lookups: one fetch call per stripe.
			req := make([]int64, 1+r.IntN(40))
			for i := range req {
				req[i] = r.Int64N(rows)
			}
			fetches, opens, stop = read.ChunkEvents()
			rec, err := f.Take(req, nil)
			stop()
			if err != nil {
				t.Fatal(err)
			}
			rec.Release()
			checkOnce(t, fmt.Sprint("take ", req), *fetches, *opens, 1)
		}
		// A flat scan reads each chunk once, in units.
		fetches, opens, stop := read.ChunkEvents()
		got, st := scanAll(t, f, read.ScanOptions{Columns: []string{"id", "tag", "price"}})
		stop()
		got.Release()
		checkOnce(t, "flat scan", *fetches, *opens, 1<<30)
		if st.Requests == 0 || st.BytesRead == 0 {
			t.Fatalf("flat scan counted no traffic: %s", st.String())
		}
	}
}

// checkOnce fails when a chunk was fetched or opened twice, or when a
// stripe saw more than maxCalls fetch calls.
func checkOnce(t *testing.T, what string, fetches [][][3]int, opens [][3]int, maxCalls int) {
	t.Helper()
	fetched := map[[3]int]bool{}
	calls := map[int]int{}
	for _, call := range fetches {
		calls[call[0][0]]++
		for _, k := range call {
			if fetched[k] {
				t.Fatalf("%s: chunk %v fetched twice", what, k)
			}
			fetched[k] = true
		}
	}
	for s, n := range calls {
		if n > maxCalls {
			t.Fatalf("%s: stripe %d fetched in %d calls, want at most %d", what, s, n, maxCalls)
		}
	}
	opened := map[[3]int]bool{}
	for _, k := range opens {
		if opened[k] {
			t.Fatalf("%s: chunk %v opened twice", what, k)
		}
		opened[k] = true
	}
}

// streamColumn names the top-level primitive column whose values stream
// is id, or "".
func streamColumn(f *read.File, id int) string {
	sch := f.StrataSchema()
	for c := 0; c < sch.NumColumns(); c++ {
		if ids := sch.ColumnStreams(c); len(ids) == 1 && ids[0] == id && sch.Column(c).Kind.IsLeaf() {
			return sch.Column(c).Name
		}
	}
	return ""
}

// filterReads reports whether the filter mentions a column.
func filterReads(where, col string) bool {
	e, err := filter.Parse(where)
	if err != nil {
		return true
	}
	found := false
	filter.Walk(e, func(l *filter.Leaf) { found = found || l.Path == col })
	return found
}

// collect reads a whole scan, checking that batches arrive in order.
func collect(t *testing.T, f *read.File, opts read.ScanOptions) ([]arrow.Record, read.ScanStats) {
	t.Helper()
	sc, err := f.Scan(opts)
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	var recs []arrow.Record
	for {
		rec, err := sc.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%+v: %v", opts, err)
		}
		recs = append(recs, rec)
	}
	return recs, sc.Stats()
}

func sameRecords(t *testing.T, what string, a, b []arrow.Record) {
	t.Helper()
	if len(a) == 0 && len(b) == 0 {
		return
	}
	if len(a) == 0 || len(b) == 0 {
		t.Fatalf("%s: %d batches vs %d", what, len(a), len(b))
	}
	x, y := concat(t, a), concat(t, b)
	defer x.Release()
	defer y.Release()
	if x.NumRows() != y.NumRows() {
		t.Fatalf("%s: %d rows vs %d", what, x.NumRows(), y.NumRows())
	}
	for c := 0; c < int(x.NumCols()); c++ {
		if !array.ApproxEqual(x.Column(c), y.Column(c), array.WithNaNsEqual(true)) {
			t.Fatalf("%s: column %s differs", what, x.ColumnName(c))
		}
	}
}

// TestParallelMatchesSequential runs the same scans, aggregates and
// lookups on one goroutine and on several, with a prefetch window small
// enough to make the producer wait, and compares every batch.
func TestParallelMatchesSequential(t *testing.T) {
	const rows = 20000
	data, _ := writeFile(t, 31, rows, write.Options{StripeBytes: 128 << 10, ChunkValues: 900})
	seq, err := read.Open(context.Background(), iox.Bytes(data), read.Options{Parallelism: 1})
	if err != nil {
		t.Fatal(err)
	}
	par, err := read.Open(context.Background(), iox.Bytes(data), read.Options{Parallelism: 4, PrefetchBytes: 96 << 10})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(8, 8))
	trials := 30
	if raceEnabled {
		trials = 8
	}
	colSets := [][]string{nil, {"id", "tag", "price", "flag"}, {"s", "id"}, {"l", "u"}}
	for trial := 0; trial < trials; trial++ {
		opts := read.ScanOptions{Columns: colSets[r.IntN(len(colSets))]}
		if r.IntN(3) > 0 {
			opts.Where = randomWhere(r)
		}
		if r.IntN(3) == 0 {
			opts.Offset = r.Int64N(rows)
			opts.Limit = r.Int64N(3000)
		}
		a, sta := collect(t, seq, opts)
		b, stb := collect(t, par, opts)
		what := fmt.Sprintf("%+v", opts)
		sameRecords(t, what, a, b)
		if sta.RowsReturned != stb.RowsReturned {
			t.Fatalf("%s: returned %d vs %d rows", what, sta.RowsReturned, stb.RowsReturned)
		}
		for _, rec := range append(a, b...) {
			rec.Release()
		}
		if opts.Where != "" {
			x, _, err := seq.Aggregate("count(*), sum(grp), min(tag), max(price), count(flag)", opts.Where)
			if err != nil {
				t.Fatal(err)
			}
			y, _, err := par.Aggregate("count(*), sum(grp), min(tag), max(price), count(flag)", opts.Where)
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(x) != fmt.Sprint(y) {
				t.Fatalf("%s: aggregates %v vs %v", opts.Where, x, y)
			}
		}
		req := make([]int64, r.IntN(200))
		for i := range req {
			req[i] = r.Int64N(rows)
		}
		x, err := seq.Take(req, nil)
		if err != nil {
			t.Fatal(err)
		}
		y, err := par.Take(req, nil)
		if err != nil {
			t.Fatal(err)
		}
		sameRecords(t, fmt.Sprint("take ", req), []arrow.Record{x}, []arrow.Record{y})
		x.Release()
		y.Release()
	}
}

// TestPrefetchBoundsMemory scans, on two goroutines, a file ten times
// larger than the prefetch window and checks both the window's own account
// and the heap: neither may grow with the file.
func TestPrefetchBoundsMemory(t *testing.T) {
	// 4 incompressible int64 columns: about 15 MiB (3.8 MiB under the race
	// detector, which slows writing tenfold).
	budget, rows := int64(1<<20), 480000
	if raceEnabled {
		budget, rows = 256<<10, 120000
	}
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "a", Type: arrow.PrimitiveTypes.Int64},
		{Name: "b", Type: arrow.PrimitiveTypes.Int64},
		{Name: "c", Type: arrow.PrimitiveTypes.Int64},
		{Name: "d", Type: arrow.PrimitiveTypes.Int64},
	}, nil)
	path := filepath.Join(t.TempDir(), "big.strata")
	out, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	// Chunks of 32 KiB keep a batch of the four columns well under the
	// smaller window (one larger than the window is admitted alone, which
	// would make the bound the batch, not the window).
	w, err := write.New(format.NewWriter(out, format.WriterOptions{}), sch, write.Options{ChunkTarget: 32 << 10})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for done := 0; done < rows; done += 60000 {
		b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
		for c := 0; c < 4; c++ {
			ib := b.Field(c).(*array.Int64Builder)
			for i := 0; i < 60000; i++ {
				ib.Append(int64(r.Uint64()))
			}
		}
		rec := b.NewRecord()
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
		rec.Release()
		b.Release()
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	out.Close()
	fi, _ := os.Stat(path)
	if fi.Size() < 10*budget {
		t.Fatalf("file of %d bytes is not ten times the %d-byte window", fi.Size(), budget)
	}
	src, err := iox.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	f, err := read.Open(context.Background(), src, read.Options{Parallelism: 2, PrefetchBytes: budget, NoMetaCache: true})
	if err != nil {
		t.Fatal(err)
	}
	// The live heap after each collection (not garbage awaiting one) is what
	// the scan holds; a low GC target makes collections frequent enough to
	// sample it many times during the scan.
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	runtime.GC()
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(sample)
	base := sample[0].Value.Uint64()
	var peak atomic.Uint64
	stopSampling := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		for {
			select {
			case <-stopSampling:
				return
			case <-time.After(time.Millisecond):
			}
			metrics.Read(s)
			if v := s[0].Value.Uint64(); v > peak.Load() {
				peak.Store(v)
			}
		}
	}()
	sc, err := f.Scan(read.ScanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for {
		rec, err := sc.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		n += rec.NumRows()
		rec.Release()
	}
	close(stopSampling)
	wg.Wait()
	st := sc.Stats()
	if n != int64(rows) {
		t.Fatalf("%d rows, want %d", n, rows)
	}
	if st.PeakPrefetchBytes > budget || st.PeakPrefetchBytes == 0 {
		t.Fatalf("prefetch window peaked at %d bytes, budget %d", st.PeakPrefetchBytes, budget)
	}
	grew := int64(peak.Load()) - int64(base)
	t.Logf("file %d bytes, window peak %d, heap grew by at most %d", fi.Size(), st.PeakPrefetchBytes, grew)
	// The file is one stripe: a reader that fetched a stripe at a time, or
	// ran ahead without bound, would hold all of it. Within the window's
	// budget plus what does not depend on the file (the buffer pool's
	// reusable batches, read buffers awaiting collection: 3-4.5 MiB in
	// runs on one and two goroutines with budgets of 0.25-1 MiB), it holds
	// about half.
	if limit := 4*budget + 4<<20; !raceEnabled && grew > limit {
		t.Fatalf("heap grew by %d bytes scanning a %d-byte file with a %d-byte window (limit %d)", grew, fi.Size(), budget, limit)
	}
}

// TestMetaCacheReopen checks that reopening a file whose identity is
// cached reads nothing, and that another identity is read afresh.
func TestMetaCacheReopen(t *testing.T) {
	data, recs := writeFile(t, 3, 5000, write.Options{StripeBytes: 32 << 10, ChunkValues: 500})
	all := concat(t, recs)
	defer all.Release()
	cache := read.NewMetaCache(8 << 20)
	src := &countingSource{data: data, id: "test:one"}
	f1, err := read.Open(context.Background(), src, read.Options{MetaCache: cache})
	if err != nil {
		t.Fatal(err)
	}
	if src.reads.Load() == 0 {
		t.Fatal("first open read nothing")
	}
	// Load every stripe group and some chunk statistics through f1.
	if _, _, err := f1.Aggregate("count(*)", "id > 100"); err != nil {
		t.Fatal(err)
	}
	before := src.reads.Load()
	f2, err := read.Open(context.Background(), src, read.Options{MetaCache: cache})
	if err != nil {
		t.Fatal(err)
	}
	if got := src.reads.Load() - before; got != 0 || f2.OpenBytes() != 0 {
		t.Fatalf("reopening a cached file made %d reads (%d bytes)", got, f2.OpenBytes())
	}
	got, _ := scanAll(t, f2, read.ScanOptions{Where: "id < 600"})
	if want := expectedRows(t, all, "id < 600"); got == nil || got.NumRows() != int64(len(want)) {
		t.Fatalf("scan after reopen: %v rows, want %d", got, len(want))
	}
	got.Release()
	other := &countingSource{data: data, id: "test:two"}
	if _, err := read.Open(context.Background(), other, read.Options{MetaCache: cache}); err != nil {
		t.Fatal(err)
	}
	if other.reads.Load() == 0 {
		t.Fatal("a different identity was served from the cache")
	}
	if cache.Len() != 2 || cache.Bytes() <= 0 {
		t.Fatalf("cache holds %d files, %d bytes", cache.Len(), cache.Bytes())
	}
	// A budget below one file's metadata keeps only the latest file.
	small := read.NewMetaCache(1)
	for i := range 3 {
		if _, err := read.Open(context.Background(), &countingSource{data: data, id: fmt.Sprint("small:", i)}, read.Options{MetaCache: small}); err != nil {
			t.Fatal(err)
		}
	}
	if small.Len() != 1 {
		t.Fatalf("a 1-byte cache holds %d files", small.Len())
	}
}

// TestSplits cuts a file into splits, sends each through JSON, scans and
// aggregates each on its own and compares the union with the whole file.
func TestSplits(t *testing.T) {
	const rows = 15000
	data, recs := writeFile(t, 12, rows, write.Options{StripeBytes: 48 << 10, ChunkValues: 800})
	all := concat(t, recs)
	defer all.Release()
	f, err := read.Open(context.Background(), iox.Bytes(data), read.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ff := f.Container()
	if ff.NumStripes() < 4 {
		t.Fatalf("only %d stripes", ff.NumStripes())
	}
	for _, target := range []int64{0, 1, 100 << 10, 1 << 40} {
		splits := f.Splits(target)
		next, rowsSeen := 0, int64(0)
		var parts []arrow.Record
		var count int64
		for _, sp := range splits {
			if sp.FirstStripe != next || sp.Stripes < 1 || sp.FirstRow != rowsSeen {
				t.Fatalf("target %d: split %+v does not follow stripe %d, row %d", target, sp, next, rowsSeen)
			}
			if target > 0 && sp.Stripes > 1 && sp.Bytes > target {
				t.Fatalf("target %d: split %+v exceeds it with more than one stripe", target, sp)
			}
			next += sp.Stripes
			rowsSeen += sp.Rows
			sp.Location = "somewhere/file.strata"
			js, err := json.Marshal(sp)
			if err != nil {
				t.Fatal(err)
			}
			back, err := read.ParseSplit(js)
			if err != nil || *back != sp {
				t.Fatalf("split %s came back as %+v (%v)", js, back, err)
			}
			g, err := read.Open(context.Background(), iox.Bytes(data), read.Options{})
			if err != nil {
				t.Fatal(err)
			}
			recs, _ := collect(t, g, read.ScanOptions{Split: back, Where: "grp IS NOT NULL"})
			parts = append(parts, recs...)
			agg, _, err := g.AggregateContext(context.Background(), "count(*)", read.AggregateOptions{Split: back, Where: "grp IS NOT NULL"})
			if err != nil {
				t.Fatal(err)
			}
			count += agg[0].Int()
		}
		if next != ff.NumStripes() || rowsSeen != rows {
			t.Fatalf("target %d: splits cover %d stripes, %d rows", target, next, rowsSeen)
		}
		whole, _ := collect(t, f, read.ScanOptions{Where: "grp IS NOT NULL"})
		sameRecords(t, fmt.Sprint("splits of ", target), whole, parts)
		want := int64(len(expectedRows(t, all, "grp IS NOT NULL")))
		if count != want {
			t.Fatalf("target %d: counts over splits add up to %d, want %d", target, count, want)
		}
		for _, r := range append(whole, parts...) {
			r.Release()
		}
	}
	bad := f.Splits(0)[1]
	bad.FileSize++
	if _, err := f.Scan(read.ScanOptions{Split: &bad}); err == nil {
		t.Fatal("a split of another file was accepted")
	}
	bad = f.Splits(0)[1]
	bad.FirstStripe = ff.NumStripes()
	if _, err := f.Scan(read.ScanOptions{Split: &bad}); err == nil {
		t.Fatal("a split beyond the last stripe was accepted")
	}
}

// TestClusterIndex checks that a range on a sorted column skips stripes by
// the index and still returns exactly the matching rows.
func TestClusterIndex(t *testing.T) {
	const rows = 20000
	data, recs := writeFile(t, 19, rows, write.Options{StripeBytes: 48 << 10, ChunkValues: 600})
	all := concat(t, recs)
	defer all.Release()
	f, err := read.Open(context.Background(), iox.Bytes(data), read.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, where := range []string{"id BETWEEN 30000 AND 30300", "id = 27", "id < 100", "id >= 59900",
		"id IN (3, 33000, 59997)", "id > 30000 AND id < 30100 AND grp IS NOT NULL", "id BETWEEN 90000 AND 95000"} {
		got, st := scanAll(t, f, read.ScanOptions{Where: where, Columns: []string{"id", "grp"}})
		want := expectedRows(t, all, where)
		n := 0
		if got != nil {
			n = int(got.NumRows())
			ids := got.Column(0).(*array.Int32)
			for i := 0; i < n; i++ {
				if int64(ids.Value(i)) != want[i]*3 {
					t.Fatalf("%s: row %d has id %d, want %d", where, i, ids.Value(i), want[i]*3)
				}
			}
			got.Release()
		}
		if n != len(want) {
			t.Fatalf("%s: %d rows, want %d", where, n, len(want))
		}
		if st.StripesPrunedIndex == 0 && !st.FilePruned && where != "id IN (3, 33000, 59997)" {
			t.Fatalf("%s: no stripe pruned by the index (%s)", where, st.String())
		}
	}
}

// TestCancel cancels scans and aggregates midway: they stop with the
// context's error and leave no goroutine behind.
func TestCancel(t *testing.T) {
	data, _ := writeFile(t, 4, 20000, write.Options{StripeBytes: 32 << 10, ChunkValues: 500})
	f, err := read.Open(context.Background(), iox.Bytes(data), read.Options{Parallelism: 3, PrefetchBytes: 64 << 10})
	if err != nil {
		t.Fatal(err)
	}
	before := runtime.NumGoroutine()
	for _, opts := range []read.ScanOptions{{}, {Where: "grp > 3"}, {Columns: []string{"s", "l"}}} {
		ctx, cancel := context.WithCancel(context.Background())
		sc, err := f.ScanContext(ctx, opts)
		if err != nil {
			t.Fatal(err)
		}
		rec, err := sc.Next()
		if err != nil {
			t.Fatal(err)
		}
		rec.Release()
		cancel()
		for err == nil {
			if rec, err = sc.Next(); err == nil {
				rec.Release()
			}
		}
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("%+v: after cancel Next returned %v", opts, err)
		}
		sc.Close()
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := f.AggregateContext(ctx, "count(*)", read.AggregateOptions{Where: "grp > 3"}); !errors.Is(err, context.Canceled) {
		t.Fatalf("aggregate under a cancelled context: %v", err)
	}
	// An abandoned scan, closed early, stops its producer.
	sc, err := f.Scan(read.ScanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sc.Close()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Fatalf("%d goroutines after the scans ended, %d before", n, before)
	}
}

// TestBloomFiltersLazy checks that bloom filters live outside the metadata
// read at open (their own section) and are read per stripe when an
// equality predicate asks, pruning stripes statistics cannot.
func TestBloomFiltersLazy(t *testing.T) {
	const rows = 24000
	data, recs := writeFile(t, 15, rows, write.Options{StripeBytes: 96 << 10, ChunkValues: 1000, Bloom: []string{"u", "id"}})
	all := concat(t, recs)
	defer all.Release()
	f, err := read.Open(context.Background(), &countingSource{data: data}, read.Options{NoMetaCache: true})
	if err != nil {
		t.Fatal(err)
	}
	ff := f.Container()
	sec, ok := ff.SectionInfo("stats.bloom")
	if !ok {
		t.Fatal("no stats.bloom section")
	}
	if _, ok := ff.SectionInfo("stats.bloom.index"); !ok {
		t.Fatal("no bloom index")
	}
	for i := 0; i < ff.NumStripes(); i++ {
		ss, err := f.StripeStats(i)
		if err != nil {
			t.Fatal(err)
		}
		if n := len(ss.Blooms); n != 0 {
			t.Fatalf("stripe %d keeps %d bloom filters inline", i, n)
		}
	}
	if sec.Size == 0 || sec.Compression != format.CompressionNone {
		t.Fatalf("bloom section %+v: want stored bytes", sec)
	}
	// A value no stripe holds: every stripe is pruned by its filter, each
	// read with one request when the query asks, none at open.
	g, err := read.Open(context.Background(), &countingSource{data: data}, read.Options{NoMetaCache: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, st := scanAll(t, g, read.ScanOptions{Where: "u = 65001"}); st.StripesPrunedBloom != ff.NumStripes() || st.Requests != int64(ff.NumStripes()) {
		t.Fatalf("u = 65001: %s; want every stripe pruned by a filter read on its own", st.String())
	}
	u := column(all, "u").(*array.Uint16)
	for _, v := range []int{int(u.Value(5)), int(u.Value(rows - 3))} {
		where := fmt.Sprintf("u = %d", v)
		got, st := scanAll(t, f, read.ScanOptions{Where: where, Columns: []string{"id", "u"}})
		want := expectedRows(t, all, where)
		n := 0
		if got != nil {
			n = int(got.NumRows())
			got.Release()
		}
		if n != len(want) {
			t.Fatalf("%s: %d rows, want %d", where, n, len(want))
		}
		if st.StripesPrunedBloom == 0 {
			t.Fatalf("%s: no stripe pruned by bloom filters (%s)", where, st.String())
		}
	}
}

// TestBloomFiltersInline reads a file written before bloom filters had a
// section of their own: they sit inline in stats.stripe and still prune.
// (k = 7·row, s = "v" + letter(row%26) + letter(stripe), four stripes of
// 1000 rows.)
func TestBloomFiltersInline(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "bloom-inline.strata"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := read.Open(context.Background(), iox.Bytes(data), read.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := f.Container().SectionInfo("stats.bloom"); ok {
		t.Fatal("the frozen file has a stats.bloom section")
	}
	got, st := scanAll(t, f, read.ScanOptions{Where: "s = 'vab'"})
	if got == nil || got.NumRows() != 38 || st.StripesPrunedBloom != 1 {
		t.Fatalf("s = 'vab': %v rows (%s), want 38 with one stripe pruned by bloom", got, st.String())
	}
	k := got.Column(0).(*array.Int64)
	for i := 0; i < k.Len(); i++ {
		if row := k.Value(i) / 7; row/1000 != 1 || row%26 != 0 {
			t.Fatalf("row %d: k = %d is not in stripe 1 with letter b", i, k.Value(i))
		}
	}
	got.Release()
}

// TestCachedTakeReadsNothing: a lookup whose chunks are all in the decoder
// cache reads nothing, not even the shared dictionary definitions of their
// streams, whose alphabets the decoders already hold.
func TestCachedTakeReadsNothing(t *testing.T) {
	const rows = 12000
	// Selection for size shares the stripes' alphabets (the balanced
	// default leaves these small ones per chunk).
	data, recs := writeFile(t, 78, rows, write.Options{StripeBytes: 96 << 10, ChunkValues: 700, Optimize: encoding.OptimizeSize})
	all := concat(t, recs)
	defer all.Release()
	// (a tail read of the footer alone: chunks in the tail opening reads
	// would be served without a request, and the first lookups must read)
	f, err := read.Open(context.Background(), iox.Bytes(data), read.Options{DecoderCacheBytes: 64 << 20, Parallelism: 1,
		Format: format.ReaderOptions{TailSize: 1}})
	if err != nil {
		t.Fatal(err)
	}
	ff := f.Container()
	// The flat columns; nested ones read their stripe on every lookup.
	cols := []string{"id", "grp", "price", "tag", "day", "flag", "u"}
	var streams []int
	for c := range cols {
		streams = append(streams, f.StrataSchema().ColumnStreams(c)...)
	}
	defs := 0
	for s := 0; s < ff.NumStripes(); s++ {
		for _, id := range streams {
			info, err := ff.Stream(context.Background(), s, id)
			if err != nil {
				t.Fatal(err)
			}
			for _, ch := range info.Chunks {
				if ch.Rows == 0 {
					defs++
				}
			}
		}
	}
	if defs == 0 {
		t.Fatal("the flat columns hold no shared definition: the test would not test them")
	}
	r := rand.New(rand.NewPCG(9, 9))
	for trial := 0; trial < 20; trial++ {
		req := []int64{r.Int64N(rows), r.Int64N(rows)}
		_, first, err := f.TakeContext(context.Background(), req, read.TakeOptions{Columns: cols})
		if err != nil {
			t.Fatal(err)
		}
		if first.Requests == 0 {
			// Earlier trials may have cached these chunks; the first
			// lookups of the file cannot have.
			if trial == 0 {
				t.Fatalf("take %v: first lookup read nothing", req)
			}
		}
		fetches, _, stop := read.ChunkEvents()
		rec, st, err := f.TakeContext(context.Background(), req, read.TakeOptions{Columns: cols})
		stop()
		if err != nil {
			t.Fatal(err)
		}
		for i, row := range req {
			for c := range cols {
				if !array.ApproxEqual(array.NewSlice(all.Column(c), row, row+1), array.NewSlice(rec.Column(c), int64(i), int64(i+1)), array.WithNaNsEqual(true)) {
					t.Fatalf("take %v: row %d column %s differs", req, row, all.ColumnName(c))
				}
			}
		}
		rec.Release()
		if st.Requests != 0 || st.BytesRead != 0 || len(*fetches) != 0 {
			t.Fatalf("take %v again: %d requests, %d bytes, fetched %v; want nothing read", req, st.Requests, st.BytesRead, *fetches)
		}
	}
}

// TestReferencesComeWithThePlan: once a Correlated chunk has shown which
// stream it is stored relative to, a cold lookup fetches the reference
// chunks under it with its plan, in one fetch call per stripe, instead of in
// a round trip of their own; the rows are those of a full scan. Over a
// source the reader copies from (a file, an object store), lookups read
// into recycled memory, which a reference resolved after its chunk opened
// may not keep: it takes a copy of the fetched bytes, not a read of its own
// (over an object store's large reads it read them again, one more round
// trip a lookup).
func TestReferencesComeWithThePlan(t *testing.T) {
	data := lineitemWith(t, write.Options{}) // TPC-H lineitem: dates stored relative to l_shipdate
	own := read.Options{Parallelism: 1, DecoderCacheBytes: 64 << 20}
	for _, c := range []struct {
		name string
		src  iox.Source
		opts read.Options
	}{
		{"slices", iox.Bytes(data), own},
		{"copies", &countingSource{data: data}, own},
		{"object-shaped", objectShaped{&countingSource{data: data}}, own},
	} {
		t.Run(c.name, func(t *testing.T) { testReferencesWithPlan(t, c.src, c.opts) })
	}
}

func testReferencesWithPlan(t *testing.T, src iox.Source, opts read.Options) {
	open := func() *read.File {
		f, err := read.Open(context.Background(), src, opts)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	f := open()
	all, _ := scanAll(t, f, read.ScanOptions{})
	defer all.Release()
	n := f.NumRows()
	// Find a row whose first lookup, on a file that has learned nothing,
	// needs a reference chunk outside the row's own chunks.
	learned := int64(-1)
	for row := int64(0); row < n; row += n / 64 {
		g := open()
		fetches, _, stop := read.ChunkEvents()
		rec, err := g.Take([]int64{row}, nil)
		stop()
		if err != nil {
			t.Fatal(err)
		}
		rec.Release()
		if len(*fetches) > 1 {
			learned, f = row, g
			break
		}
	}
	if learned < 0 {
		t.Fatal("no lookup needed a reference chunk outside its plan: the test would not test them")
	}
	for i := int64(1); i <= 40; i++ {
		row := (learned + i*n/41) % n
		f.DropCaches()
		fetches, _, stop := read.ChunkEvents()
		rec, err := f.Take([]int64{row}, nil)
		stop()
		if err != nil {
			t.Fatal(err)
		}
		checkOnce(t, fmt.Sprint("cold take ", row), *fetches, nil, 1)
		for c := 0; c < int(all.NumCols()); c++ {
			want, got := array.NewSlice(all.Column(c), row, row+1), rec.Column(c)
			if !array.ApproxEqual(want, got, array.WithNaNsEqual(true)) {
				t.Fatalf("row %d column %s: %v, want %v", row, all.ColumnName(c), got, want)
			}
			want.Release()
		}
		rec.Release()
	}
}

// TestSmallPrefetchWindow scans with prefetch windows smaller than one
// unit's fetch and one batch: each job must still run (alone, if need be)
// rather than wait for bytes that only its own run releases.
func TestSmallPrefetchWindow(t *testing.T) {
	const rows = 20000
	data, _ := writeFile(t, 31, rows, write.Options{StripeBytes: 1 << 20, ChunkValues: 128})
	seq, err := read.Open(context.Background(), iox.Bytes(data), read.Options{Parallelism: 1})
	if err != nil {
		t.Fatal(err)
	}
	opts := read.ScanOptions{Columns: []string{"id", "tag", "price", "flag"}}
	want, _ := collect(t, seq, opts)
	defer func() {
		for _, rec := range want {
			rec.Release()
		}
	}()
	for _, budget := range []int64{1, 4 << 10, 32 << 10} {
		f, err := read.Open(context.Background(), iox.Bytes(data), read.Options{Parallelism: 4, PrefetchBytes: budget})
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan []arrow.Record)
		go func() {
			got, _ := collect(t, f, opts)
			done <- got
		}()
		select {
		case got := <-done:
			sameRecords(t, fmt.Sprintf("window of %d bytes", budget), want, got)
			for _, rec := range got {
				rec.Release()
			}
		case <-time.After(time.Minute):
			t.Fatalf("a scan with a window of %d bytes did not end", budget)
		}
	}
}
