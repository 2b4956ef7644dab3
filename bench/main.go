// Command bench compares Strata with the storage formats and engines users
// would otherwise pick (Parquet via arrow-go and parquet-go, DuckDB on Parquet
// and on its own database file), in one run, on the same data.
//
// Every system writes the same Arrow records, then answers the same queries:
// a full scan of all columns, a selective key range (q_range), a month of ship
// dates (q_month), an aggregate over that month (q_agg) and random whole-row
// lookups by row number (take). Each figure is the median of --runs timed runs
// after one warm-up run; the warm-up run also computes an order-independent
// checksum of every result, and all systems' checksums must agree, or the
// program reports the mismatch and exits with status 1.
//
// Usage:
//
//	go run . [--parquet FILE | --sf 0.1] [--runs 7] [--threads 1]
//	         [--systems arrow-go,duckdb/native,...] [--take 1000]
//	         [--json FILE] [--svg FILE] [--tiny]
//	go run . --real DIR[,FILE...] [--budget 15s] [--runs 11] [--json FILE] [--markdown]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// errUnsupported marks a query a system cannot run; its figure is null.
var errUnsupported = errors.New("not supported by this system")

// Source is the data every system writes: Arrow records held in memory.
type Source struct {
	Name    string
	Schema  *arrow.Schema
	Records []arrow.Record
	Rows    int64
}

// Workload holds the query parameters, derived once from the data so that
// every system answers exactly the same questions.
type Workload struct {
	RangeLo, RangeHi int64 // l_orderkey BETWEEN RangeLo AND RangeHi
	MonthLo, MonthHi int32 // l_shipdate BETWEEN (days since 1970-01-01)
	Take             []int64
	Lineitem         bool // the lineitem columns the selective queries need exist
}

// Pred is an inclusive integer range predicate on one column (integers and
// dates alike); both selective queries are of this form.
type Pred struct {
	Col    string
	Lo, Hi int64
}

func (p Pred) match(v int64) bool { return v >= p.Lo && v <= p.Hi }

func (w *Workload) rangePred() Pred { return Pred{"l_orderkey", w.RangeLo, w.RangeHi} }
func (w *Workload) monthPred() Pred {
	return Pred{"l_shipdate", int64(w.MonthLo), int64(w.MonthHi)}
}

// monthCols are the columns q_month returns.
var monthCols = []string{"l_orderkey", "l_extendedprice"}

// Out is what one query run returns. Sum is filled only on verifying runs.
type Out struct {
	Rows     int64
	Sum      *Checksum
	AggCount int64
	AggSum   int64
}

// System is one storage system/variant under test. Write is called --runs+1
// times (each overwriting the file); Open once after; the query methods are
// called repeatedly on the open file. Query methods return errUnsupported when
// the system cannot answer that query.
type System interface {
	Name() string
	Variant() string
	// Write stores all of src under dir and returns the file written.
	Write(dir string, src *Source) (path string, err error)
	Open(path string) error
	Close() error
	Scan(verify bool) (Out, error)
	QRange(w *Workload, verify bool) (Out, error)
	QMonth(w *Workload, verify bool) (Out, error)
	QAgg(w *Workload) (Out, error)
	// Take looks up each row number individually (whole rows, all columns)
	// and returns the rows found.
	Take(rows []int64, verify bool) (Out, error)
}

type config struct {
	threads int
	// stripeRows, when positive, ends Strata's stripes and arrow-go's row
	// groups every stripeRows rows (--stripe-rows): files written in
	// batches, compared at the same granularity
	stripeRows int64
}

// allSystems lists every system in report order; the first is the baseline
// for ratios.
func allSystems(cfg config) []System {
	return []System{
		newArrowSys("zstd", cfg),
		newArrowSys("default", cfg),
		newParquetGoSys(cfg),
		newDuckSys("parquet-zstd", cfg),
		newDuckSys("native", cfg),
		newStrataSys("default", cfg),
		newStrataSys("no-zstd", cfg),
		newStrataSys("layout", cfg),
	}
}

const baselineKey = "arrow-go/zstd"

func key(s System) string { return s.Name() + "/" + s.Variant() }

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "ts" {
		return runTS(args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "shapes" {
		return runShapes(args[1:], stdout, stderr)
	}
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	pqFile := fs.String("parquet", "", "input Parquet file (default: generated TPC-H lineitem)")
	sf := fs.Float64("sf", 0.1, "TPC-H scale factor of the generated lineitem")
	seed := fs.Uint64("seed", 1, "generator and take seed")
	runs := fs.Int("runs", 7, "timed runs per figure (after one warm-up run)")
	threads := fs.Int("threads", 1, "threads per system (1: one goroutine / PRAGMA threads=1)")
	systems := fs.String("systems", "", "comma-separated subset, e.g. arrow-go,duckdb/native (default all)")
	nTake := fs.Int("take", 1000, "random row lookups per take run")
	limit := fs.Int64("limit", 0, "use only the first N rows of the input (0: all)")
	tiny := fs.Bool("tiny", false, "tiny end-to-end check: sf 0.001, 2 runs, 50 lookups")
	jsonOut := fs.String("json", "", "write results as JSON to FILE")
	svgOut := fs.String("svg", "", "write a bar chart (ratios to Parquet+zstd) to FILE")
	budget := fs.Duration("take-budget", takeBudget, "time budget of one timed take run: slower readers are timed on a prefix of the lookups")
	dir := fs.String("dir", "", "directory for the files written (default: a temporary one, removed at exit)")
	objstore := fs.Bool("objstore", false, "measure reading Strata and arrow-go's Parquet from an S3-compatible server (versitygw, started on 127.0.0.1) through a latency-adding proxy, instead of the local comparison")
	threadCounts := fs.String("thread-counts", "", "measure the systems at each of these thread counts (e.g. 1,2,0; 0: all cores) in one process, interleaved round by round, with same-round ratios")
	latencyList := fs.String("latency", "0,20ms", "with --objstore: latencies added to every request")
	realMode := addRealFlags(fs)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *realMode.inputs != "" {
		return realMode.run(fs, args, stdout, stderr)
	}
	if *tiny {
		*sf, *runs, *nTake = 0.001, 2, 50
	}
	takeBudget = *budget
	if *runs < 1 || *threads < 1 {
		fmt.Fprintln(stderr, "bench: --runs and --threads must be >= 1")
		return 2
	}
	runtime.GOMAXPROCS(max(*threads, runtime.GOMAXPROCS(0)))

	src, err := loadSource(*pqFile, *sf, *seed, *limit)
	if err != nil {
		fmt.Fprintln(stderr, "bench:", err)
		return 1
	}
	defer func() {
		for _, r := range src.Records {
			r.Release()
		}
	}()
	wl, err := makeWorkload(src, *nTake, *seed)
	if err != nil {
		fmt.Fprintln(stderr, "bench:", err)
		return 1
	}

	workDir := *dir
	if workDir == "" {
		d, err := os.MkdirTemp("", "strata-bench-")
		if err != nil {
			fmt.Fprintln(stderr, "bench:", err)
			return 1
		}
		defer os.RemoveAll(d)
		workDir = d
	} else if err := os.MkdirAll(workDir, 0o755); err != nil {
		fmt.Fprintln(stderr, "bench:", err)
		return 1
	}

	if *objstore {
		lats, err := parseLatencies(*latencyList)
		if err != nil {
			fmt.Fprintln(stderr, "bench:", err)
			return 2
		}
		fmt.Fprintf(stderr, "dataset %s: %d rows; object storage, runs=%d\n", src.Name, src.Rows, *runs)
		return runObjstore(stdout, stderr, src, wl, *runs, lats, workDir)
	}

	if *threadCounts != "" {
		counts, err := parseThreadCounts(*threadCounts)
		if err != nil {
			fmt.Fprintln(stderr, "bench:", err)
			return 2
		}
		return runThreadCounts(stdout, stderr, src, wl, *systems, counts, *runs, workDir)
	}

	sel, err := selectSystems(allSystems(config{threads: *threads}), *systems)
	if err != nil {
		fmt.Fprintln(stderr, "bench:", err)
		return 2
	}
	fmt.Fprintf(stderr, "dataset %s: %d rows, %d columns; runs=%d threads=%d take=%d\n",
		src.Name, src.Rows, len(src.Schema.Fields()), *runs, *threads, len(wl.Take))
	if wl.Lineitem {
		fmt.Fprintf(stderr, "q_range: l_orderkey BETWEEN %d AND %d; q_month: l_shipdate BETWEEN %s AND %s\n",
			wl.RangeLo, wl.RangeHi, dateString(wl.MonthLo), dateString(wl.MonthHi))
	}

	rep := &Report{Dataset: src.Name, Rows: src.Rows}
	ck := newCrossCheck(stderr)
	for _, s := range sel {
		r := measure(s, src, wl, filepath.Join(workDir, s.Name()+"-"+s.Variant()), *runs, ck, stderr)
		rep.Results = append(rep.Results, r)
	}
	ck.final()

	printTable(stdout, rep)
	if *jsonOut != "" {
		if err := writeJSON(*jsonOut, rep); err != nil {
			fmt.Fprintln(stderr, "bench:", err)
			return 1
		}
	}
	if *svgOut != "" {
		if err := writeSVG(*svgOut, rep); err != nil {
			fmt.Fprintln(stderr, "bench:", err)
			return 1
		}
	}
	if ck.failed {
		fmt.Fprintln(stderr, "bench: CROSS-CHECK FAILED: results differ between systems (see above)")
		return 1
	}
	return 0
}

// defaultSystems is the systems measured when --systems is not given.
func defaultSystems(cfg config) []System {
	s, _ := selectSystems(allSystems(cfg), "")
	return s
}

// optIn lists the variants measured only when named by their full key:
// strata/layout replays the encodings of an earlier file of the table,
// a second write of a table rather than a first one.
var optIn = map[string]bool{"strata/layout": true}

func selectSystems(all []System, spec string) ([]System, error) {
	if strings.TrimSpace(spec) == "" {
		var out []System
		for _, s := range all {
			if !optIn[key(s)] {
				out = append(out, s)
			}
		}
		return out, nil
	}
	var out []System
	for _, want := range strings.Split(spec, ",") {
		want = strings.TrimSpace(want)
		found := false
		for _, s := range all {
			if want == key(s) || want == s.Name() && !optIn[key(s)] {
				if !containsSys(out, s) {
					out = append(out, s)
				}
				found = true
			}
		}
		if !found {
			var names []string
			for _, s := range all {
				names = append(names, key(s))
			}
			return nil, fmt.Errorf("unknown system %q (have %s)", want, strings.Join(names, ", "))
		}
	}
	// Keep report order stable.
	sort.SliceStable(out, func(i, j int) bool { return indexOf(all, out[i]) < indexOf(all, out[j]) })
	return out, nil
}

func containsSys(l []System, s System) bool { return indexOf(l, s) >= 0 }

func indexOf(l []System, s System) int {
	for i, x := range l {
		if x == s {
			return i
		}
	}
	return -1
}

// loadSource reads the input Parquet file, or generates lineitem.
func loadSource(path string, sf float64, seed uint64, limit int64) (*Source, error) {
	var src *Source
	var err error
	if path == "" {
		src, err = generate(sf, seed)
	} else {
		src, err = readParquetSource(path)
	}
	if err != nil {
		return nil, err
	}
	if limit > 0 && src.Rows > limit {
		var keep []arrow.Record
		var n int64
		for _, r := range src.Records {
			if n >= limit {
				r.Release()
				continue
			}
			if n+r.NumRows() > limit {
				s := r.NewSlice(0, limit-n)
				r.Release()
				r = s
			}
			n += r.NumRows()
			keep = append(keep, r)
		}
		src.Records, src.Rows = keep, n
		src.Name = fmt.Sprintf("%s[:%d]", src.Name, n)
	}
	return src, nil
}

// readParquetSource loads a whole Parquet file into Arrow records.
func readParquetSource(path string) (*Source, error) {
	pf, err := file.OpenParquetFile(path, false)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	defer pf.Close()
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: 64 << 10}, memory.DefaultAllocator)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	rr, err := fr.GetRecordReader(context.Background(), nil, nil)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	defer rr.Release()
	src := &Source{Name: filepath.Base(path), Schema: rr.Schema()}
	for rr.Next() {
		r := rr.Record()
		r.Retain()
		src.Records = append(src.Records, r)
		src.Rows += r.NumRows()
	}
	if err := rr.Err(); err != nil && err != io.EOF {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return src, nil
}

var epoch = time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC)

func days(y int, m time.Month, d int) int32 {
	return int32(time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Sub(epoch).Hours() / 24)
}

func dateString(d int32) string { return epoch.AddDate(0, 0, int(d)).Format("2006-01-02") }

// makeWorkload picks the query parameters: a l_orderkey range holding 0.1% of
// the rows (around the median key), January 1995, and random row numbers.
func makeWorkload(src *Source, nTake int, seed uint64) (*Workload, error) {
	w := &Workload{MonthLo: days(1995, 1, 1), MonthHi: days(1995, 1, 31)}
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	n := min(int64(nTake), src.Rows)
	for range n {
		w.Take = append(w.Take, r.Int64N(src.Rows))
	}
	need := map[string]arrow.Type{"l_orderkey": 0, "l_shipdate": 0, "l_extendedprice": 0, "l_quantity": 0}
	for _, f := range src.Schema.Fields() {
		if _, ok := need[f.Name]; ok {
			delete(need, f.Name)
		}
	}
	if len(need) > 0 || src.Rows == 0 {
		return w, nil
	}
	w.Lineitem = true
	idx := src.Schema.FieldIndices("l_orderkey")[0]
	keys := make([]int64, 0, src.Rows)
	for _, rec := range src.Records {
		vals, err := intValues(rec.Column(idx))
		if err != nil {
			return nil, fmt.Errorf("l_orderkey: %w", err)
		}
		keys = append(keys, vals...)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	k := max(src.Rows/1000, 1)
	mid := src.Rows / 2
	if mid+k > src.Rows {
		mid = src.Rows - k
	}
	w.RangeLo, w.RangeHi = keys[mid], keys[mid+k-1]
	return w, nil
}

// intValues widens an integer or date Arrow array to int64 (nulls as 0).
func intValues(a arrow.Array) ([]int64, error) {
	out := make([]int64, a.Len())
	switch a := a.(type) {
	case *array.Int32:
		for i, v := range a.Int32Values() {
			out[i] = int64(v)
		}
	case *array.Int64:
		copy(out, a.Int64Values())
	case *array.Date32:
		for i, v := range a.Date32Values() {
			out[i] = int64(v)
		}
	case *array.Int16:
		for i, v := range a.Int16Values() {
			out[i] = int64(v)
		}
	case *array.Int8:
		for i, v := range a.Int8Values() {
			out[i] = int64(v)
		}
	case *array.Uint32:
		for i, v := range a.Uint32Values() {
			out[i] = int64(v)
		}
	default:
		return nil, fmt.Errorf("not an integer column: %s", a.DataType())
	}
	return out, nil
}

// parseLatencies reads "0,20ms".
func parseLatencies(s string) ([]time.Duration, error) {
	var out []time.Duration
	for _, p := range strings.Split(s, ",") {
		p = strings.TrimSpace(p)
		if p == "0" {
			out = append(out, 0)
			continue
		}
		d, err := time.ParseDuration(p)
		if err != nil || d < 0 {
			return nil, fmt.Errorf("latency %q: want durations such as 0,20ms", p)
		}
		out = append(out, d)
	}
	return out, nil
}
