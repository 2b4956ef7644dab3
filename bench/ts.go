package main

// The time-series harness: `go run . ts`. It generates the TSBS cpu-only
// workload (hosts × duration at 10 s, sorted by (hostname, time)), has every
// system write it, and times four reads on each, checking that all systems
// return the same answers:
//
//   - host_hour: one host, one hour, three of the ten metrics (with time);
//   - windows: random windows of --length consecutive rows of one host, four
//     metrics, given to every system as the same row ranges (and, for
//     DuckDB, as the equivalent hostname and time range);
//   - downsample: per host, 5-minute min/max/avg of usage_user over the whole
//     span;
//   - last: the latest point (time and all ten metrics) of every host.

import (
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"strata/tsbs"
)

// tsWork holds the parameters every system answers for.
type tsWork struct {
	hosts    []string // hostnames in sorted order
	ticks    int64    // rows per host
	start    int64    // first time (µs)
	step     int64    // interval (µs)
	host     string   // host_hour's host
	hostPos  int
	from, to int64 // host_hour's hour [from, to) in µs
	hhCols   []string
	wins     []tsWin
	length   int
	winCols  []string
	// winStacked has Strata deliver the windows as one stacked record (a
	// leading window column, then every window's rows) instead of one
	// record per window; parquet-go's path builds no arrays either way.
	winStacked bool
	every      int64 // downsampling bucket (µs)
	aggCol     string
}

// tsWin is one window: rows [start, start+length) of the host at hostPos,
// which are file rows [row, row+length) of the sorted data and the times
// [from, to).
type tsWin struct {
	hostPos  int
	host     string
	start    int64
	row      int64
	from, to int64
}

// tsOut is one query's answer: row count and an order-independent checksum.
type tsOut struct {
	Rows int64
	Sum  *Checksum
}

// tsSystem is one system under test in the time-series harness.
type tsSystem interface {
	Name() string
	Write(dir string, src *Source, w *tsWork) (string, error)
	Open(path string) error
	Close() error
	HostHour(w *tsWork, verify bool) (tsOut, error)
	Windows(w *tsWork, wins []tsWin, verify bool) (tsOut, error)
	Downsample(w *tsWork, verify bool) (tsOut, error)
	Last(w *tsWork, verify bool) (tsOut, error)
	// Note describes what the last query read (bytes, pages, rows decoded),
	// or "" when the system cannot say.
	Note() string
}

type tsConfig struct {
	threads     int
	duckWindows int
	reuse       bool   // read files a previous run left (see tsReused)
	noQueries   bool   // open the files but time no query
	key         string // what the data is: hosts, duration and seed
}

// tsKey names the generated data a written file holds.
func tsKey(hosts int, dur time.Duration, seed uint64) string {
	return fmt.Sprintf("hosts=%d duration=%v seed=%d", hosts, dur, seed)
}

// tsReused returns the path of the file a finished write left in dir for
// the same data: the write records the path and the data's key in
// dir/written.txt after it closed the file.
func tsReused(dir, key string) (string, bool) {
	b, err := os.ReadFile(filepath.Join(dir, "written.txt"))
	if err != nil {
		return "", false
	}
	k, path, ok := strings.Cut(strings.TrimSpace(string(b)), "\n")
	if !ok || k != key {
		return "", false
	}
	if _, err := os.Stat(path); err != nil {
		return "", false
	}
	return path, true
}

func tsSystems(cfg tsConfig) []tsSystem {
	return []tsSystem{
		newStrataTS(cfg),
		newStrataTSNoCache(cfg),
		newPqgoTS(cfg),
		newArrowTS(cfg),
		newDuckTS("native", cfg),
		newDuckTS("parquet", cfg),
	}
}

// tsFig is a measured figure with the CPU time of the same runs.
type tsFig struct {
	Fig
	CPU float64 // median CPU ms (user+system) per run
}

type tsResult struct {
	System     string
	Bytes      int64
	WriteMS    float64
	HostHour   *tsFig
	Windows    *tsFig // ms per window set
	NWindows   int
	Downsample *tsFig
	Last       *tsFig
	Notes      map[string]string
	Errors     []string
}

func cpuNow() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func runTS(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("bench ts", flag.ContinueOnError)
	fs.SetOutput(stderr)
	hosts := fs.Int("hosts", 1000, "hosts")
	dur := fs.Duration("duration", 24*time.Hour, "time span")
	runs := fs.Int("runs", 5, "timed runs per figure (after one warm-up run)")
	nwin := fs.Int("windows", 10000, "random windows per run")
	length := fs.Int("length", 256, "rows per window")
	duckWin := fs.Int("duck-windows", 300, "windows per run for DuckDB (one SQL query each)")
	threads := fs.Int("threads", 1, "threads per system")
	systems := fs.String("systems", "", "comma-separated subset (default all)")
	dir := fs.String("dir", "", "directory for the files written (default: a temporary one)")
	seed := fs.Uint64("seed", 1, "seed of the data and the windows")
	tiny := fs.Bool("tiny", false, "seconds: 20 hosts × 6 h, 2 runs, 200 windows")
	experiments := fs.Bool("experiments", true, "run seed experiments B-D on the Strata file")
	aiEpochs := fs.Int("ai-epochs", 0, "seed experiment E: epochs of --windows windows delivered as one stacked float32 batch, by strata and parquet-go (0: not run)")
	winStacked := fs.Bool("win-stacked", false, "Strata returns the windows as one stacked record instead of one record per window (parquet-go's path builds no arrays either way)")
	queries := fs.Bool("queries", true, "time the four queries (false: write or reuse the files, then only the experiments)")
	reuse := fs.Bool("reuse", false, "with --dir: read the files a previous run with the same --hosts, --duration and --seed left there instead of writing them again (write time is then not measured; a system without a finished file writes it)")
	real := fs.String("real", "", "real series instead of the generator: PATH@TIME[@KEY+KEY],... (sizes against DuckDB's zstd Parquet, latest points from metadata)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *real != "" {
		d := *dir
		if d == "" {
			t, err := os.MkdirTemp("", "strata-ts-real-")
			if err != nil {
				fmt.Fprintln(stderr, "bench ts:", err)
				return 1
			}
			defer os.RemoveAll(t)
			d = t
		}
		return runTSReal(*real, d, *threads, stdout, stderr)
	}
	if *tiny {
		*hosts, *dur, *runs, *nwin, *duckWin = 20, 6*time.Hour, 2, 200, 50
	}
	runtime.GOMAXPROCS(max(*threads, runtime.GOMAXPROCS(0)))
	if *reuse && *dir == "" {
		fmt.Fprintln(stderr, "bench ts: --reuse needs --dir")
		return 2
	}
	workDir := *dir
	if workDir == "" {
		d, err := os.MkdirTemp("", "strata-ts-bench-")
		if err != nil {
			fmt.Fprintln(stderr, "bench ts:", err)
			return 1
		}
		defer os.RemoveAll(d)
		workDir = d
	}
	cfg := tsConfig{threads: *threads, duckWindows: min(*duckWin, *nwin)}
	var sel []tsSystem
	for _, s := range tsSystems(cfg) {
		if *systems == "" || strings.Contains(","+*systems+",", ","+s.Name()+",") {
			sel = append(sel, s)
		}
	}
	// The data is generated only when some system has to write it.
	gen := !*reuse
	for _, s := range sel {
		if _, ok := tsReused(filepath.Join(workDir, s.Name()), tsKey(*hosts, *dur, *seed)); !ok {
			gen = true
		}
	}
	src, w, err := tsSource(*hosts, *dur, *seed, *nwin, *length, gen)
	if err != nil {
		fmt.Fprintln(stderr, "bench ts:", err)
		return 1
	}
	defer func() {
		for _, r := range src.Records {
			r.Release()
		}
	}()
	cfg.reuse, cfg.key, cfg.noQueries = *reuse, tsKey(*hosts, *dur, *seed), !*queries
	w.winStacked = *winStacked
	shape := "one record per window"
	if *winStacked {
		shape = "one stacked record"
	}
	fmt.Fprintf(stderr, "tsbs cpu-only: %d hosts × %v at 10 s = %d rows; host_hour %s [%s, %s); %d windows of %d rows (strata: %s); runs=%d threads=%d\n",
		*hosts, *dur, src.Rows, w.host, usTime(w.from), usTime(w.to), len(w.wins), *length, shape, *runs, *threads)
	ck := newCrossCheck(stderr)
	var results []*tsResult
	for _, s := range sel {
		results = append(results, tsMeasure(s, src, w, filepath.Join(workDir, s.Name()), *runs, cfg, ck, stderr))
	}
	ck.final()
	tsPrint(stdout, results)
	if *experiments {
		for _, s := range sel {
			if e, ok := s.(interface {
				Experiments(io.Writer, *tsWork) error
			}); ok {
				if err := e.Experiments(stdout, w); err != nil {
					fmt.Fprintln(stderr, "bench ts: experiments:", err)
					return 1
				}
			}
		}
	}
	if *aiEpochs > 0 {
		if err := runTSAI(stdout, sel, w, *seed, *aiEpochs, *nwin); err != nil {
			fmt.Fprintln(stderr, "bench ts: experiment E:", err)
			return 1
		}
	}
	for _, s := range sel {
		s.Close()
	}
	if ck.failed {
		fmt.Fprintln(stderr, "bench ts: CROSS-CHECK FAILED: results differ between systems (see above)")
		return 1
	}
	return 0
}

func usTime(us int64) string { return time.UnixMicro(us).UTC().Format("2006-01-02T15:04:05") }

// tsSource generates the data in (hostname, time) order and draws the
// workload.
// Without gen, only the workload is drawn (the data's rows are counted,
// not made).
func tsSource(hosts int, dur time.Duration, seed uint64, nwin, length int, gen bool) (*Source, *tsWork, error) {
	g, err := tsbs.New(tsbs.Options{Hosts: hosts, Duration: dur, Seed: seed})
	if err != nil {
		return nil, nil, err
	}
	src := &Source{Name: fmt.Sprintf("tsbs-%dx%v", hosts, dur), Schema: g.Schema()}
	if !gen {
		src.Rows = int64(hosts) * int64(dur/(10*time.Second))
	}
	for gen {
		rec, err := g.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, err
		}
		src.Records = append(src.Records, rec)
		src.Rows += rec.NumRows()
	}
	w := &tsWork{ticks: int64(dur / (10 * time.Second)), start: tsbs.Start.UnixMicro(), step: 10e6,
		hhCols: []string{"usage_user", "usage_system", "usage_idle"}, length: length,
		winCols: []string{"usage_user", "usage_system", "usage_idle", "usage_nice"},
		every:   300e6, aggCol: "usage_user"}
	for i := 0; i < hosts; i++ {
		w.hosts = append(w.hosts, fmt.Sprintf("host_%d", i))
	}
	sort.Strings(w.hosts)
	r := rand.New(rand.NewPCG(seed, 0x7153))
	w.hostPos = r.IntN(hosts)
	w.host = w.hosts[w.hostPos]
	hoursIn := max(1, int64(dur/time.Hour)-1)
	w.from = w.start + r.Int64N(hoursIn)*3600e6 + 1800e6*int64(r.IntN(2))
	w.to = w.from + 3600e6
	if int64(length) > w.ticks {
		return nil, nil, fmt.Errorf("windows of %d rows in series of %d", length, w.ticks)
	}
	for i := 0; i < nwin; i++ {
		p := r.IntN(hosts)
		s := r.Int64N(w.ticks - int64(length) + 1)
		w.wins = append(w.wins, tsWin{hostPos: p, host: w.hosts[p], start: s, row: int64(p)*w.ticks + s,
			from: w.start + s*w.step, to: w.start + (s+int64(length))*w.step})
	}
	return src, w, nil
}

// tsTime runs fn once to verify, then runs times.
func tsTime(runs int, fn func(verify bool) (tsOut, error), query, sys string, ck *crossCheck) (*tsFig, error) {
	out, err := fn(true)
	if err != nil {
		return nil, err
	}
	ck.add(query, sys, Out{Rows: out.Rows, Sum: out.Sum})
	var wall, cpu []float64
	for range runs {
		t0, c0 := time.Now(), cpuNow()
		if _, err := fn(false); err != nil {
			return nil, err
		}
		wall = append(wall, ms(time.Since(t0)))
		cpu = append(cpu, ms(cpuNow()-c0))
	}
	f := &tsFig{Fig: *summarize(wall), CPU: summarize(cpu).Median}
	return f, nil
}

func tsMeasure(s tsSystem, src *Source, w *tsWork, dir string, runs int, cfg tsConfig, ck *crossCheck, log io.Writer) *tsResult {
	r := &tsResult{System: s.Name(), Notes: map[string]string{}}
	fail := func(what string, err error) {
		msg := fmt.Sprintf("%s: %v", what, err)
		r.Errors = append(r.Errors, msg)
		fmt.Fprintf(log, "  %s: %s\n", s.Name(), msg)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fail("mkdir", err)
		return r
	}
	path, reused := "", false
	if cfg.reuse {
		path, reused = tsReused(dir, cfg.key)
	}
	if reused {
		fmt.Fprintf(log, "%s: reusing %s\n", s.Name(), path)
	} else {
		fmt.Fprintf(log, "%s: writing\n", s.Name())
		os.Remove(filepath.Join(dir, "written.txt"))
		t0 := time.Now()
		var err error
		path, err = s.Write(dir, src, w)
		if err != nil {
			fail("write", err)
			return r
		}
		r.WriteMS = ms(time.Since(t0))
		if abs, err := filepath.Abs(path); err == nil {
			os.WriteFile(filepath.Join(dir, "written.txt"), []byte(cfg.key+"\n"+abs+"\n"), 0o644)
		}
	}
	var err error
	if r.Bytes, err = fileBytes(path); err != nil {
		fail("size", err)
	}
	if err := s.Open(path); err != nil {
		fail("open", err)
		return r
	}
	if cfg.noQueries {
		return r
	}
	nwin := len(w.wins)
	if strings.HasPrefix(s.Name(), "duckdb") {
		nwin = cfg.duckWindows
	}
	r.NWindows = nwin
	verifyWins := w.wins[:min(len(w.wins), cfg.duckWindows)]
	for _, q := range []struct {
		name string
		fig  **tsFig
		fn   func(bool) (tsOut, error)
	}{
		{"host_hour", &r.HostHour, func(v bool) (tsOut, error) { return s.HostHour(w, v) }},
		{"windows", &r.Windows, func(v bool) (tsOut, error) {
			if v {
				return s.Windows(w, verifyWins, true)
			}
			return s.Windows(w, w.wins[:nwin], false)
		}},
		{"downsample", &r.Downsample, func(v bool) (tsOut, error) { return s.Downsample(w, v) }},
		{"last", &r.Last, func(v bool) (tsOut, error) { return s.Last(w, v) }},
	} {
		fmt.Fprintf(log, "%s: %s\n", s.Name(), q.name)
		f, err := tsTime(runs, q.fn, q.name, s.Name(), ck)
		if err != nil {
			fail(q.name, err)
			continue
		}
		*q.fig = f
		r.Notes[q.name] = s.Note()
	}
	return r
}

func tsPrint(out io.Writer, rs []*tsResult) {
	var base *tsResult
	for _, r := range rs {
		if r.System == "strata" {
			base = r
		}
	}
	tw := tabwriter.NewWriter(out, 2, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "system\tbytes\tx strata\twrite ms\thost_hour ms\t(cpu)\twindows/s\t(cpu)\tdownsample ms\t(cpu)\tlast ms\t(cpu)\t\n")
	cell := func(f *tsFig) (string, string) {
		if f == nil {
			return "n/a", ""
		}
		return fmt.Sprintf("%.3f [%.3f-%.3f]", f.Median, f.Min, f.Max), fmt.Sprintf("%.3f", f.CPU)
	}
	for _, r := range rs {
		ratio := ""
		if base != nil && base.Bytes > 0 {
			ratio = fmt.Sprintf("%.2f", float64(r.Bytes)/float64(base.Bytes))
		}
		hh, hhc := cell(r.HostHour)
		ds, dsc := cell(r.Downsample)
		la, lac := cell(r.Last)
		ws, wsc := "n/a", ""
		if r.Windows != nil {
			ws = fmt.Sprintf("%.0f [%.0f-%.0f]", float64(r.NWindows)/r.Windows.Median*1e3,
				float64(r.NWindows)/r.Windows.Max*1e3, float64(r.NWindows)/r.Windows.Min*1e3)
			wsc = fmt.Sprintf("%.0f", float64(r.NWindows)/r.Windows.CPU*1e3)
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%.0f\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", r.System, r.Bytes, ratio, r.WriteMS, hh, hhc, ws, wsc, ds, dsc, la, lac)
	}
	tw.Flush()
	if base != nil {
		fmt.Fprintf(out, "\nratios to strata (median wall time; >1: strata faster):\n")
		for _, r := range rs {
			if r == base {
				continue
			}
			ratio := func(a, b *tsFig) string {
				if a == nil || b == nil {
					return "n/a"
				}
				return fmt.Sprintf("%.1fx (cpu %.1fx)", a.Median/b.Median, a.CPU/b.CPU)
			}
			wr := "n/a"
			if r.Windows != nil && base.Windows != nil {
				rate := func(x *tsResult) (float64, float64) {
					return float64(x.NWindows) / x.Windows.Median, float64(x.NWindows) / x.Windows.CPU
				}
				a, ac := rate(base)
				b, bc := rate(r)
				wr = fmt.Sprintf("%.1fx (cpu %.1fx)", a/b, ac/bc)
			}
			fmt.Fprintf(out, "  %-16s size %.2fx  host_hour %s  windows/s %s  downsample %s  last %s\n", r.System,
				float64(r.Bytes)/float64(base.Bytes), ratio(r.HostHour, base.HostHour), wr,
				ratio(r.Downsample, base.Downsample), ratio(r.Last, base.Last))
		}
	}
	fmt.Fprintln(out, "\nwhat each read touched (last timed run):")
	for _, r := range rs {
		for _, q := range []string{"host_hour", "windows", "downsample", "last"} {
			if n := r.Notes[q]; n != "" {
				fmt.Fprintf(out, "  %s %s: %s\n", r.System, q, n)
			}
		}
		for _, e := range r.Errors {
			fmt.Fprintf(out, "  %s ERROR %s\n", r.System, e)
		}
	}
}

// tsMetricNames returns the ten metric columns.
func tsMetricNames() []string { return tsbs.Metrics }
