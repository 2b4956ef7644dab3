package difftest

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"strata"
	"strata/iox"
	_ "strata/iox/remote" // http:// locations
)

// ReadSeeds is the first seed whose tables are also read the ways a
// deployed reader reads them, drawn per table and per query (readPlan):
// from memory, over HTTP range requests, or through a source that returns
// short reads and asks for object-store coalescing; on one to eight
// goroutines with a prefetch window down to one byte; with the decoder
// cache off, tiny or at its default; split by File.Splits, each split
// passed through its JSON form and scanned, aggregated or concatenated as
// a distributed engine would. Seeds below it open the file by path with
// the defaults, as they always did.
const ReadSeeds = 23_000_000

// readStream is the second word of the generators that draw how a table
// and each of its queries are read, apart from the table's and the
// queries' own streams so that those stay what their seed makes them.
const readStream = 0x72656164

// readPlan is how one table of ReadSeeds is opened.
type readPlan struct {
	source   string // "path", "memory", "http" or "short"
	opts     strata.OpenOptions
	cache    int64 // WithDecoderCache (0: the default)
	gap      int64 // WithCoalesceGap (0: the source's)
	shortMax int   // "short": the most bytes one ReadAt returns
	// noise is how many goroutines look rows up and scan the file while
	// the queries run, each checking what it reads against the table's
	// own rows: the decoder cache and the recycled memory of lookups
	// shared between readers
	noise int
}

func (p readPlan) String() string {
	return fmt.Sprintf("source %s, parallelism %d, prefetch %d, decoder cache %d, coalesce gap %d, verify %v, max memory %d, concurrent readers %d",
		p.source, p.opts.Parallelism, p.opts.PrefetchBytes, p.cache, p.gap, p.opts.Verify, p.opts.MaxMemory, p.noise)
}

func newReadPlan(seed uint64) readPlan {
	r := rand.New(rand.NewPCG(seed, readStream))
	p := readPlan{source: []string{"path", "memory", "http", "short"}[r.IntN(4)]}
	p.opts.Parallelism = []int{0, 1, 2, 3, 8}[r.IntN(5)]
	p.opts.PrefetchBytes = []int64{0, 1, 4 << 10, 64 << 10}[r.IntN(4)]
	p.opts.Verify = r.IntN(4) == 0
	if r.IntN(4) == 0 {
		p.opts.MaxMemory = 64 << 20
	}
	p.cache = []int64{0, -1, 16 << 10}[r.IntN(3)]
	p.gap = []int64{0, 0, 1 << 20}[r.IntN(3)]
	p.shortMax = 1 + r.IntN(5000)
	if r.IntN(3) == 0 {
		p.noise = 1 + r.IntN(3)
	}
	return p
}

// shortSource returns at most max bytes a read (with no error, as an
// io.ReaderAt may) and asks for an object store's read shape: holes up to
// a mebibyte read through, many reads in flight.
type shortSource struct {
	b   iox.Bytes
	max int
}

func (s shortSource) ReadAt(ctx context.Context, p []byte, off int64) (int, error) {
	if len(p) > s.max {
		p = p[:s.max]
	}
	return s.b.ReadAt(ctx, p, off)
}

func (s shortSource) Size() int64 { return s.b.Size() }

func (s shortSource) Hints() iox.Hints {
	return iox.Hints{Gap: 1 << 20, MaxRead: 16 << 20, InFlight: 8}
}

// server serves the runner's directory over HTTP for plans that read
// through range requests; started on first use.
type server struct {
	once sync.Once
	srv  *httptest.Server
}

func (r *Runner) url(name string) string {
	r.http.once.Do(func() { r.http.srv = httptest.NewServer(http.FileServer(http.Dir(r.dir))) })
	return r.http.srv.URL + "/" + filepath.Base(name)
}

// open opens the table's Strata file as its plan says.
func (r *Runner) open(t *Table) (*strata.File, error) {
	if t.Seed < ReadSeeds {
		return strata.Open(t.Strata)
	}
	return r.openAs(t.Strata, t.read)
}

// openAs opens the Strata file at path as plan p says. A file read over
// HTTP must stay in place until it is closed.
func (r *Runner) openAs(path string, p readPlan) (*strata.File, error) {
	opts := []strata.OpenOption{p.opts}
	if p.cache != 0 {
		opts = append(opts, strata.WithDecoderCache(p.cache))
	}
	if p.gap != 0 {
		opts = append(opts, strata.WithCoalesceGap(p.gap))
	}
	switch p.source {
	case "memory", "short":
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		var src iox.Source = iox.Bytes(b)
		if p.source == "short" {
			src = shortSource{iox.Bytes(b), p.shortMax}
		}
		return strata.Open(path, append(opts, strata.WithSource(src))...)
	case "http":
		return strata.Open(r.url(path), opts...)
	}
	return strata.Open(path, opts...)
}

// queryRead is how one query of a ReadSeeds table is read.
type queryRead struct {
	parallelism int
	drop        bool  // DropCaches first
	splits      int   // 0: the whole file; 1: one split; 2: every split, concatenated
	target      int64 // Splits' target bytes
	pick        int   // which split, for one
	reopen      bool  // each split read through a file opened for it alone
	// abandon: a scan is first started, read for this many batches and
	// closed before it ends (-1: not), as a consumer that stops early.
	abandon int
}

func (q queryRead) String() string {
	s := fmt.Sprintf("parallelism %d, caches dropped %v", q.parallelism, q.drop)
	switch q.splits {
	case 1:
		s += fmt.Sprintf(", split %d of target %d bytes", q.pick, q.target)
	case 2:
		s += fmt.Sprintf(", every split of target %d bytes, concatenated", q.target)
	}
	if q.reopen {
		s += ", each split from a file opened for it"
	}
	if q.abandon >= 0 {
		s += fmt.Sprintf(", after a scan closed after %d batches", q.abandon)
	}
	return s
}

func newQueryRead(t *Table, qi int) queryRead {
	r := rand.New(rand.NewPCG(t.Seed^readStream, uint64(qi)))
	q := queryRead{parallelism: []int{0, 0, 1, 2, 5}[r.IntN(5)], drop: r.IntN(4) == 0, abandon: -1}
	if r.IntN(2) == 0 {
		q.splits = 1 + r.IntN(2)
		q.target = []int64{0, 1 << 10, 16 << 10, 1 << 20}[r.IntN(4)]
		q.pick = r.IntN(1 << 20)
		q.reopen = r.IntN(3) == 0
	}
	if r.IntN(6) == 0 {
		q.abandon = r.IntN(3)
	}
	return q
}

// splits returns the file's splits for q, each passed through its JSON
// form, as a planner hands them to the process that scans them.
func (q queryRead) splitsOf(f *strata.File) ([]*strata.Split, error) {
	var out []*strata.Split
	for _, s := range f.Splits(q.target) {
		b, err := json.Marshal(s)
		if err != nil {
			return nil, err
		}
		p, err := strata.ParseSplit(b)
		if err != nil {
			return nil, fmt.Errorf("split %s: %w", b, err)
		}
		out = append(out, p)
	}
	return out, nil
}

// rowRange restricts DuckDB's view to a split's rows.
func rowRange(s *strata.Split) string {
	return fmt.Sprintf("file_row_number BETWEEN %d AND %d", s.FirstRow, s.FirstRow+s.Rows-1)
}

// runRead runs a query of a ReadSeeds table the way qr says.
func (r *Runner) runRead(t *Table, f *strata.File, q *Query, qr queryRead) error {
	if qr.drop {
		f.DropCaches()
	}
	if q.Where != "" {
		r.Stats.Filtered++
	}
	if q.FlatKeys > 0 {
		r.Stats.FlatFiltered++
	}
	if q.Kind == "take" {
		r.Stats.Takes++
		return r.take(t, f, q, qr.parallelism)
	}
	if q.Kind == "scan" {
		r.Stats.Scans++
		if qr.abandon >= 0 {
			if err := abandonScan(f, q, qr); err != nil {
				return err
			}
		}
	} else {
		r.Stats.Aggs++
	}
	var splits []*strata.Split
	if qr.splits > 0 {
		var err error
		if splits, err = qr.splitsOf(f); err != nil {
			return err
		}
	}
	if len(splits) == 0 {
		// the whole file (or a file of no stripes, which has no split)
		if q.Kind == "scan" {
			return r.scan(t, func(o strata.ScanOptions) (*strata.Scanner, error) {
				o.Parallelism = qr.parallelism
				return f.Scan(o)
			}, q)
		}
		return r.agg(t, func(o strata.AggregateOptions) ([]strata.AggValue, strata.ScanStats, error) {
			o.Parallelism = qr.parallelism
			return f.Aggregate(o)
		}, q)
	}
	// fileFor returns the file a split is read from: the table's, or one
	// opened for the split alone, as another process would.
	fileFor := func() (*strata.File, func(), error) {
		if !qr.reopen {
			return f, func() {}, nil
		}
		g, err := r.open(t)
		if err != nil {
			return nil, nil, fmt.Errorf("open for a split: %w", err)
		}
		return g, func() { g.Close() }, nil
	}
	if qr.splits == 1 || q.Kind == "agg" {
		// one split, against DuckDB over the split's rows
		s := splits[qr.pick%len(splits)]
		g, done, err := fileFor()
		if err != nil {
			return err
		}
		defer done()
		sq := *q
		sq.SQL = rowRange(s)
		if q.SQL != "" {
			sq.SQL += " AND (" + q.SQL + ")"
		}
		if q.Kind == "scan" {
			return r.scan(t, func(o strata.ScanOptions) (*strata.Scanner, error) {
				o.Split, o.Parallelism = s, qr.parallelism
				return g.Scan(o)
			}, &sq)
		}
		return r.agg(t, func(o strata.AggregateOptions) ([]strata.AggValue, strata.ScanStats, error) {
			o.Split, o.Parallelism = s, qr.parallelism
			return g.Aggregate(o)
		}, &sq)
	}
	// every split in order, concatenated, with the offset and limit
	// applied to the whole as an engine above the splits would
	fields, nums, want, err := r.duckScan(t, q)
	if err != nil {
		return err
	}
	var got [][]string
	for _, s := range splits {
		g, done, err := fileFor()
		if err != nil {
			return err
		}
		got, err = scanRows(g.Scan, strata.ScanOptions{Columns: q.Columns, Where: q.Where, Split: s, Parallelism: qr.parallelism}, fields, got)
		done()
		if err != nil {
			return fmt.Errorf("split of rows %d+%d: %w", s.FirstRow, s.Rows, err)
		}
	}
	got = got[min(int(q.Offset), len(got)):]
	if q.Limit > 0 {
		got = got[:min(int(q.Limit), len(got))]
	}
	if len(want) == 0 {
		r.Stats.EmptyResults++
	}
	return r.compareRows(fields, nums, want, got)
}

// abandonScan starts q's scan, reads qr.abandon batches and closes it:
// the scan must stop its goroutines and reads without waiting for the
// rest, and leave the file as it found it.
func abandonScan(f *strata.File, q *Query, qr queryRead) error {
	sc, err := f.Scan(strata.ScanOptions{Columns: q.Columns, Where: q.Where, Offset: q.Offset, Limit: q.Limit, Parallelism: qr.parallelism})
	if err != nil {
		return fmt.Errorf("strata scan: %w", err)
	}
	for range qr.abandon {
		rec, err := sc.Next()
		if err != nil {
			break // io.EOF, or an error the full scan will report
		}
		rec.Release()
	}
	return sc.Close()
}

// noise runs t.read.noise goroutines that read f until stop is closed:
// lookups of random rows and columns, and whole scans, each compared
// value by value with the table's own rows, with the caches dropped now
// and then. Once they stop it sends what they found wrong and how many
// reads they compared.
func noise(t *Table, f *strata.File, stop <-chan struct{}) <-chan noiseResult {
	out := make(chan noiseResult, 1)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var found []string
	var reads atomic.Int64
	report := func(format string, args ...any) {
		mu.Lock()
		if len(found) < 5 {
			found = append(found, fmt.Sprintf(format, args...))
		}
		mu.Unlock()
	}
	sch := t.Rec.Schema()
	want := func(cols []string, row int64) []string {
		fields := projected(t, cols)
		out := make([]string, len(fields))
		for c, fl := range fields {
			out[c] = canonArrow(fl, t.Rec.Column(sch.FieldIndices(fl.Name)[0]), int(row))
		}
		return out
	}
	for g := range t.read.noise {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(t.Seed, uint64(g)+0x6e6f697365))
			n := t.Rec.NumRows()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				var cols []string
				if r.IntN(2) == 0 {
					for _, fl := range sch.Fields() {
						if r.IntN(2) == 0 {
							cols = append(cols, fl.Name)
						}
					}
				}
				fields := projected(t, cols)
				reads.Add(1)
				switch {
				case r.IntN(20) == 0:
					f.DropCaches()
				case n > 0 && r.IntN(4) > 0:
					rows := make([]int64, 1+r.IntN(20))
					for k := range rows {
						rows[k] = r.Int64N(n)
					}
					rec, _, err := f.TakeContext(context.Background(), rows, strata.TakeOptions{Columns: cols, Parallelism: r.IntN(3)})
					if err != nil {
						report("concurrent take of rows %v: %v", rows, err)
						continue
					}
					got, err := strataRows(rec, fields, nil)
					rec.Release()
					if err != nil {
						report("concurrent take: %v", err)
						continue
					}
					for k, row := range rows {
						if w := want(cols, row); !slices.Equal(got[k], w) {
							report("concurrent take of row %d, columns %v: strata %v, table %v", row, cols, clipRow(got[k]), clipRow(w))
						}
					}
				default:
					got, err := scanRows(f.Scan, strata.ScanOptions{Columns: cols, Parallelism: r.IntN(3)}, fields, nil)
					if err != nil {
						report("concurrent scan: %v", err)
						continue
					}
					if int64(len(got)) != n {
						report("concurrent scan of columns %v: %d rows, table %d", cols, len(got), n)
						continue
					}
					for row := range got {
						if w := want(cols, int64(row)); !slices.Equal(got[row], w) {
							report("concurrent scan, row %d, columns %v: strata %v, table %v", row, cols, clipRow(got[row]), clipRow(w))
							break
						}
					}
				}
			}
		}()
	}
	go func() {
		wg.Wait()
		out <- noiseResult{found, int(reads.Load())}
	}()
	return out
}

// noiseResult is what the concurrent readers of noise found.
type noiseResult struct {
	wrong []string
	reads int
}

func clipRow(row []string) string { return clip(strings.Join(row, " | ")) }
