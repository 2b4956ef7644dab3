package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"
)

// The --real mode runs every system over a list of Parquet files (or
// directories of them) and reports, per set, each system's file size, write
// time and full-scan time, then Strata's ratios to arrow-go/zstd with their
// geometric means across sets. Unlike the single-file mode, the timed runs of
// one figure are interleaved across systems (round r runs every system once,
// starting with a different one each round), so that a change in the load of
// a shared machine falls on every system alike; every timed run starts after
// a garbage collection and is measured both in wall time and in the process's
// CPU time (user + system), which moves less with the load of other processes.

// realFlags are the flags of the --real mode.
type realFlags struct {
	inputs     *string
	stripeRows *int64
	budget     *time.Duration
	minRuns    *int
	markdown   *bool
}

func addRealFlags(fs *flag.FlagSet) *realFlags {
	return &realFlags{
		inputs:     fs.String("real", "", "comma-separated Parquet files or directories of them: measure size, write and full scan of every system on each (see README)"),
		stripeRows: fs.Int64("stripe-rows", 0, "with --real: end Strata's stripes and arrow-go's row groups every N rows, as a table written in batches is (strata and arrow-go systems only; 0: one stripe / row group as the writers choose)"),
		budget:     fs.Duration("budget", 15*time.Second, "with --real: time budget of the timed runs of one phase (writes, scans) of one set; big sets get fewer runs"),
		minRuns:    fs.Int("min-runs", 3, "with --real: fewest timed runs per figure, whatever the budget"),
		markdown:   fs.Bool("markdown", false, "with --real: print the summary tables as Markdown"),
	}
}

// realInputs expands the --real list into Parquet files, directories in
// name order.
func realInputs(list string) ([]string, error) {
	var out []string
	for _, p := range strings.Split(list, ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			out = append(out, p)
			continue
		}
		m, err := filepath.Glob(filepath.Join(p, "*.parquet"))
		if err != nil {
			return nil, err
		}
		if len(m) == 0 {
			return nil, fmt.Errorf("%s: no .parquet files", p)
		}
		sort.Strings(m)
		out = append(out, m...)
	}
	if len(out) == 0 {
		return nil, errors.New("--real: no inputs")
	}
	return out, nil
}

// realResult is one system's figures on one set.
type realResult struct {
	System, Variant string
	Bytes           *int64
	Write, WriteCPU *Fig // ms
	Scan, ScanCPU   *Fig // ms
	Take            *Fig // µs per row
	Unsupported     string
	Errors          []string
}

// realSet is one set's results.
type realSet struct {
	Dataset              string
	Rows                 int64
	Columns              int
	WriteRuns, ScanRuns  int
	LoadBefore, LoadEnd  float64 // 1-minute load average
	Seconds              float64
	Results              []*realResult
	StrataSize, StrataWr *float64 // ratios of strata/default to arrow-go/zstd
	StrataWrCPU, StrataS *float64
	StrataSCPU           *float64
}

// realConfig is what runReal needs from the command line.
type realConfig struct {
	runs, minRuns, take, threads int
	stripeRows                   int64
	budget                       time.Duration
	systems, jsonOut, dir        string
	markdown                     bool
	seed                         uint64
	args                         []string
}

// loadAvg returns the 1-minute load average, or NaN where unknown.
func loadAvg() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return math.NaN()
	}
	var l float64
	if _, err := fmt.Sscan(string(b), &l); err != nil {
		return math.NaN()
	}
	return l
}

// cpuTime is the process's user + system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// timed runs f after a garbage collection and returns its wall and CPU time
// in milliseconds.
func timed(f func() error) (wall, cpu float64, err error) {
	runtime.GC()
	c0, t0 := cpuTime(), time.Now()
	err = f()
	return ms(time.Since(t0)), ms(cpuTime() - c0), err
}

// runsFor picks the number of timed runs of a phase: as many as fit the
// budget, given one round (every system once) took round, within
// [minRuns, maxRuns].
func runsFor(budget, round time.Duration, minRuns, maxRuns int) int {
	n := maxRuns
	if round > 0 {
		n = int(budget / round)
	}
	return max(minRuns, min(n, maxRuns))
}

// sourceLoader loads one set; the sources of --real are Parquet files, tests
// also pass records built in memory.
type sourceLoader func() (*Source, error)

func runReal(stdout, stderr io.Writer, cfg realConfig, inputs []string) int {
	var loads []sourceLoader
	for _, in := range inputs {
		loads = append(loads, func() (*Source, error) { return readParquetSource(in) })
	}
	return runRealSources(stdout, stderr, cfg, loads)
}

func runRealSources(stdout, stderr io.Writer, cfg realConfig, loads []sourceLoader) int {
	var sets []*realSet
	failed := false
	for _, load := range loads {
		set, ok := runRealSet(stderr, cfg, load)
		if set != nil {
			sets = append(sets, set)
			printRealSet(stdout, set)
		}
		failed = failed || !ok
	}
	printRealSummary(stdout, sets, cfg.markdown)
	if cfg.jsonOut != "" {
		if err := writeRealJSON(cfg.jsonOut, cfg, sets); err != nil {
			fmt.Fprintln(stderr, "bench:", err)
			return 1
		}
	}
	if failed {
		fmt.Fprintln(stderr, "bench: CROSS-CHECK FAILED or errors on some sets (see above)")
		return 1
	}
	return 0
}

// runRealSet measures every system on one set. ok is false when results
// disagree between systems or a system failed other than by not supporting a
// type.
func runRealSet(log io.Writer, cfg realConfig, load sourceLoader) (*realSet, bool) {
	start := time.Now()
	src, err := load()
	if err != nil {
		fmt.Fprintln(log, "bench:", err)
		return nil, false
	}
	defer func() {
		for _, r := range src.Records {
			r.Release()
		}
	}()
	set := &realSet{Dataset: strings.TrimSuffix(src.Name, ".parquet"), Rows: src.Rows,
		Columns: len(src.Schema.Fields()), LoadBefore: loadAvg()}
	sel, err := selectSystems(allSystems(config{threads: cfg.threads, stripeRows: cfg.stripeRows}), cfg.systems)
	if err != nil {
		fmt.Fprintln(log, "bench:", err)
		return nil, false
	}
	workDir := cfg.dir
	if workDir == "" {
		d, err := os.MkdirTemp("", "strata-bench-real-")
		if err != nil {
			fmt.Fprintln(log, "bench:", err)
			return nil, false
		}
		defer os.RemoveAll(d)
		workDir = d
	}
	workDir = filepath.Join(workDir, set.Dataset)
	fmt.Fprintf(log, "== %s: %d rows, %d columns (load %.1f)\n", set.Dataset, set.Rows, set.Columns, set.LoadBefore)

	ok := true
	type live struct {
		s    System
		r    *realResult
		path string
		dir  string
		ws   []float64
		wcpu []float64
		ss   []float64
		scpu []float64
	}
	fail := func(l *live, what string, err error) {
		if errors.Is(err, errUnsupported) {
			l.r.Unsupported = fmt.Sprintf("%s: %v", what, err)
			fmt.Fprintf(log, "  %s cannot %s this set: %v\n", key(l.s), what, err)
			return
		}
		ok = false
		l.r.Errors = append(l.r.Errors, fmt.Sprintf("%s: %v", what, err))
		fmt.Fprintf(log, "  %s ERROR %s: %v\n", key(l.s), what, err)
	}
	var all, act []*live
	for _, s := range sel {
		l := &live{s: s, r: &realResult{System: s.Name(), Variant: s.Variant()},
			dir: filepath.Join(workDir, s.Name()+"-"+s.Variant())}
		all = append(all, l)
		set.Results = append(set.Results, l.r)
	}
	defer func() {
		for _, l := range all {
			l.s.Close()
		}
	}()

	// Writes: a warm-up round, then interleaved timed rounds.
	var round time.Duration
	for _, l := range all {
		if err := os.MkdirAll(l.dir, 0o755); err != nil {
			fail(l, "write", err)
			continue
		}
		var p string
		w, _, err := timed(func() (err error) { p, err = l.s.Write(l.dir, src); return err })
		if err != nil {
			fail(l, "write", err)
			continue
		}
		l.path = p
		round += time.Duration(w * float64(time.Millisecond))
		act = append(act, l)
	}
	set.WriteRuns = runsFor(cfg.budget, round, cfg.minRuns, cfg.runs)
	for r := range set.WriteRuns {
		for k := range act {
			l := act[(k+r)%len(act)]
			if l.path == "" {
				continue
			}
			w, c, err := timed(func() error { _, err := l.s.Write(l.dir, src); return err })
			if err != nil {
				fail(l, "write", err)
				l.path = ""
				continue
			}
			l.ws, l.wcpu = append(l.ws, w), append(l.wcpu, c)
		}
	}

	// Open, verify (the warm-up scan, cross-checked), then interleaved scans.
	ck := newCrossCheck(log)
	var readers []*live
	round = 0
	for _, l := range act {
		if l.path == "" {
			continue
		}
		l.r.Write, l.r.WriteCPU = summarize(l.ws), summarize(l.wcpu)
		size, err := fileBytes(l.path)
		if err != nil {
			fail(l, "write", err)
			continue
		}
		l.r.Bytes = &size
		if err := l.s.Open(l.path); err != nil {
			fail(l, "open", err)
			continue
		}
		var out Out
		w, _, err := timed(func() (err error) { out, err = l.s.Scan(true); return err })
		if err != nil {
			fail(l, "scan", err)
			continue
		}
		if out.Rows != src.Rows {
			ck.mismatch("scan", key(l.s), fmt.Sprintf("%d rows, the source has %d", out.Rows, src.Rows))
		}
		ck.add("scan", key(l.s), out)
		round += time.Duration(w * float64(time.Millisecond))
		readers = append(readers, l)
	}
	set.ScanRuns = runsFor(cfg.budget, round, cfg.minRuns, cfg.runs)
	for r := range set.ScanRuns {
		for k := range readers {
			l := readers[(k+r)%len(readers)]
			var out Out
			w, c, err := timed(func() (err error) { out, err = l.s.Scan(false); return err })
			if err == nil && out.Rows != src.Rows {
				err = fmt.Errorf("timed scan returned %d rows, want %d", out.Rows, src.Rows)
			}
			if err != nil {
				fail(l, "scan", err)
				continue
			}
			l.ss, l.scpu = append(l.ss, w), append(l.scpu, c)
		}
	}
	for _, l := range readers {
		l.r.Scan, l.r.ScanCPU = summarize(l.ss), summarize(l.scpu)
	}

	// Optional random lookups, cross-checked, each system on its own.
	if cfg.take > 0 && src.Rows > 0 {
		wl, err := makeWorkload(src, cfg.take, cfg.seed)
		if err != nil {
			fmt.Fprintln(log, "bench:", err)
			return set, false
		}
		for _, l := range readers {
			out, err := l.s.Take(wl.Take, true)
			if err != nil {
				fail(l, "take", err)
				continue
			}
			ck.add("take", key(l.s), out)
			var xs []float64
			for range set.ScanRuns {
				w, _, err := timed(func() error { _, err := l.s.Take(wl.Take, false); return err })
				if err != nil {
					fail(l, "take", err)
					break
				}
				xs = append(xs, w*1e3/float64(len(wl.Take)))
			}
			l.r.Take = summarize(xs)
		}
	}
	ck.final()
	if ck.failed {
		ok = false
	}
	for _, l := range all {
		l.s.Close()
		if cfg.dir == "" && l.path != "" {
			os.RemoveAll(l.dir)
		}
	}
	set.LoadEnd = loadAvg()
	set.Seconds = time.Since(start).Seconds()
	set.ratios()
	fmt.Fprintf(log, "   %s: %d write runs, %d scan runs, %.1f s, load %.1f → %.1f\n",
		set.Dataset, set.WriteRuns, set.ScanRuns, set.Seconds, set.LoadBefore, set.LoadEnd)
	return set, ok
}

func (s *realSet) find(k string) *realResult {
	for _, r := range s.Results {
		if r.System+"/"+r.Variant == k {
			return r
		}
	}
	return nil
}

const strataKey = "strata/default"

// ratios fills Strata's ratios to the baseline.
func (s *realSet) ratios() {
	b, st := s.find(baselineKey), s.find(strataKey)
	if b == nil || st == nil {
		return
	}
	ratio := func(x, y *Fig) *float64 {
		if x == nil || y == nil || y.Median <= 0 {
			return nil
		}
		v := x.Median / y.Median
		return &v
	}
	if b.Bytes != nil && st.Bytes != nil && *b.Bytes > 0 {
		v := float64(*st.Bytes) / float64(*b.Bytes)
		s.StrataSize = &v
	}
	s.StrataWr, s.StrataWrCPU = ratio(st.Write, b.Write), ratio(st.WriteCPU, b.WriteCPU)
	s.StrataS, s.StrataSCPU = ratio(st.Scan, b.Scan), ratio(st.ScanCPU, b.ScanCPU)
}

// geomean is the geometric mean of the non-nil values, and how many there were.
func geomean(vals []*float64) (float64, int) {
	var s float64
	n := 0
	for _, v := range vals {
		if v != nil && *v > 0 {
			s += math.Log(*v)
			n++
		}
	}
	if n == 0 {
		return math.NaN(), 0
	}
	return math.Exp(s / float64(n)), n
}

func fmtFig(f *Fig, spread bool) string {
	if f == nil {
		return "-"
	}
	s := fmtNum(f.Median, "ms")
	if spread {
		s += " [" + fmtNum(f.Min, "ms") + "–" + fmtNum(f.Max, "ms") + "]"
	}
	return s
}

func fmtRatio(v *float64) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprintf("%.2f", *v)
}

// printRealSet prints one set's table.
func printRealSet(w io.Writer, s *realSet) {
	fmt.Fprintf(w, "\n%s: %s rows × %d columns; %d write runs, %d scan runs (medians [min–max]; CPU = process user+system time); load %.1f → %.1f; %.0f s\n\n",
		s.Dataset, groupDigits(s.Rows), s.Columns, s.WriteRuns, s.ScanRuns, s.LoadBefore, s.LoadEnd, s.Seconds)
	base := s.find(baselineKey)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "system/variant\tbytes\t×\twrite ms\twrite CPU ms\t×\tscan ms\tscan CPU ms\t×\t")
	for _, r := range s.Results {
		row := []string{r.System + "/" + r.Variant}
		if r.Bytes == nil {
			reason := r.Unsupported
			if reason == "" {
				reason = strings.Join(r.Errors, "; ")
			}
			fmt.Fprintf(tw, "%s\t%s\t\t\t\t\t\t\t\t\n", row[0], "not measured: "+reason)
			continue
		}
		rb := "-"
		if base != nil && base.Bytes != nil {
			rb = fmt.Sprintf("%.2f", float64(*r.Bytes)/float64(*base.Bytes))
		}
		rel := func(x, y *Fig) string {
			if x == nil || y == nil || y.Median <= 0 {
				return "-"
			}
			return fmt.Sprintf("%.2f", x.Median/y.Median)
		}
		var bw, bs *Fig
		if base != nil {
			bw, bs = base.Write, base.Scan
		}
		row = append(row, groupDigits(*r.Bytes), rb, fmtFig(r.Write, true), fmtFig(r.WriteCPU, false), rel(r.Write, bw),
			fmtFig(r.Scan, true), fmtFig(r.ScanCPU, false), rel(r.Scan, bs))
		fmt.Fprintln(tw, strings.Join(row, "\t")+"\t")
	}
	tw.Flush()
	for _, r := range s.Results {
		if r.Take != nil {
			fmt.Fprintf(w, "take %s/%s: %s µs/row\n", r.System, r.Variant, fmtFig(r.Take, true))
		}
		for _, e := range r.Errors {
			fmt.Fprintf(w, "error: %s/%s: %s\n", r.System, r.Variant, e)
		}
	}
}

// printRealSummary prints, across sets, every system's bytes, write and scan
// medians, and Strata's ratios to arrow-go/zstd with geometric means.
func printRealSummary(w io.Writer, sets []*realSet, md bool) {
	if len(sets) == 0 {
		return
	}
	var keys []string
	for _, r := range sets[0].Results {
		keys = append(keys, r.System+"/"+r.Variant)
	}
	table := func(title string, hdr []string, rows [][]string) {
		fmt.Fprintf(w, "\n%s\n\n", title)
		if md {
			fmt.Fprintln(w, "| "+strings.Join(hdr, " | ")+" |")
			seps := make([]string, len(hdr))
			for i := range seps {
				seps[i] = "---:"
			}
			seps[0] = "---"
			fmt.Fprintln(w, "|"+strings.Join(seps, "|")+"|")
			for _, r := range rows {
				fmt.Fprintln(w, "| "+strings.Join(r, " | ")+" |")
			}
			return
		}
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, strings.Join(hdr, "\t")+"\t")
		for _, r := range rows {
			fmt.Fprintln(tw, strings.Join(r, "\t")+"\t")
		}
		tw.Flush()
	}
	per := func(title string, cell func(*realResult) string) {
		hdr := append([]string{"set"}, keys...)
		var rows [][]string
		for _, s := range sets {
			row := []string{s.Dataset}
			for _, k := range keys {
				r := s.find(k)
				switch {
				case r == nil:
					row = append(row, "-")
				case r.Bytes == nil && r.Unsupported != "":
					row = append(row, "unsupported")
				default:
					row = append(row, cell(r))
				}
			}
			rows = append(rows, row)
		}
		table(title, hdr, rows)
	}
	per("file bytes", func(r *realResult) string {
		if r.Bytes == nil {
			return "-"
		}
		return groupDigits(*r.Bytes)
	})
	per("write ms, one goroutine (median [min–max] wall)", func(r *realResult) string { return fmtFig(r.Write, true) })
	per("full scan ms, one goroutine (median [min–max] wall)", func(r *realResult) string { return fmtFig(r.Scan, true) })

	hdr := []string{"set", "rows", "runs w/s", "load", "size ×", "write ×", "write CPU ×", "scan ×", "scan CPU ×"}
	var rows [][]string
	var sz, wr, wc, sc, scc []*float64
	for _, s := range sets {
		rows = append(rows, []string{s.Dataset, groupDigits(s.Rows), fmt.Sprintf("%d/%d", s.WriteRuns, s.ScanRuns),
			fmt.Sprintf("%.0f–%.0f", math.Min(s.LoadBefore, s.LoadEnd), math.Max(s.LoadBefore, s.LoadEnd)),
			fmtRatio(s.StrataSize), fmtRatio(s.StrataWr), fmtRatio(s.StrataWrCPU), fmtRatio(s.StrataS), fmtRatio(s.StrataSCPU)})
		sz, wr, wc = append(sz, s.StrataSize), append(wr, s.StrataWr), append(wc, s.StrataWrCPU)
		sc, scc = append(sc, s.StrataS), append(scc, s.StrataSCPU)
	}
	g := func(v []*float64) string {
		m, n := geomean(v)
		if n == 0 {
			return "-"
		}
		return fmt.Sprintf("%.2f", m)
	}
	rows = append(rows, []string{fmt.Sprintf("geometric mean (%d sets)", len(sets)), "", "", "", g(sz), g(wr), g(wc), g(sc), g(scc)})
	table(fmt.Sprintf("%s / %s (ratios of medians)", strataKey, baselineKey), hdr, rows)
}

// JSON form of the --real report.
type realJSONResult struct {
	System      string                `json:"system"`
	Variant     string                `json:"variant"`
	Bytes       *int64                `json:"bytes"`
	WriteMs     *float64              `json:"write_ms"`
	WriteCPUMs  *float64              `json:"write_cpu_ms"`
	ScanMs      *float64              `json:"scan_ms"`
	ScanCPUMs   *float64              `json:"scan_cpu_ms"`
	TakeUs      *float64              `json:"take_us"`
	Spread      map[string][2]float64 `json:"spread"`
	Unsupported string                `json:"unsupported,omitempty"`
	Errors      []string              `json:"errors,omitempty"`
}

type realJSONSet struct {
	Dataset    string              `json:"dataset"`
	Rows       int64               `json:"rows"`
	Columns    int                 `json:"columns"`
	WriteRuns  int                 `json:"write_runs"`
	ScanRuns   int                 `json:"scan_runs"`
	LoadBefore float64             `json:"load_before"`
	LoadAfter  float64             `json:"load_after"`
	Seconds    float64             `json:"seconds"`
	Results    []realJSONResult    `json:"results"`
	Strata     map[string]*float64 `json:"strata_vs_arrow_zstd"`
}

func writeRealJSON(path string, cfg realConfig, sets []*realSet) error {
	type report struct {
		Args    []string           `json:"args"`
		Threads int                `json:"threads"`
		Sets    []realJSONSet      `json:"sets"`
		Geomean map[string]float64 `json:"strata_vs_arrow_zstd_geomean"`
	}
	rep := report{Args: cfg.args, Threads: cfg.threads, Sets: []realJSONSet{}, Geomean: map[string]float64{}}
	cols := map[string][]*float64{}
	for _, s := range sets {
		js := realJSONSet{Dataset: s.Dataset, Rows: s.Rows, Columns: s.Columns, WriteRuns: s.WriteRuns,
			ScanRuns: s.ScanRuns, LoadBefore: s.LoadBefore, LoadAfter: s.LoadEnd, Seconds: s.Seconds,
			Results: []realJSONResult{},
			Strata: map[string]*float64{"size": s.StrataSize, "write": s.StrataWr, "write_cpu": s.StrataWrCPU,
				"scan": s.StrataS, "scan_cpu": s.StrataSCPU}}
		for k, v := range js.Strata {
			cols[k] = append(cols[k], v)
		}
		for _, r := range s.Results {
			j := realJSONResult{System: r.System, Variant: r.Variant, Bytes: r.Bytes,
				WriteMs: med(r.Write), WriteCPUMs: med(r.WriteCPU), ScanMs: med(r.Scan), ScanCPUMs: med(r.ScanCPU),
				TakeUs: med(r.Take), Spread: map[string][2]float64{}, Unsupported: r.Unsupported, Errors: r.Errors}
			for name, f := range map[string]*Fig{"write_ms": r.Write, "scan_ms": r.Scan, "take_us": r.Take} {
				if f != nil {
					j.Spread[name] = [2]float64{f.Min, f.Max}
				}
			}
			js.Results = append(js.Results, j)
		}
		rep.Sets = append(rep.Sets, js)
	}
	for k, v := range cols {
		if m, n := geomean(v); n > 0 {
			rep.Geomean[k] = m
		}
	}
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// run is the --real mode's entry: it reads the shared flags (--runs, --take,
// --threads, --systems, --json, --dir, --seed) from fs. Without an explicit
// --runs it allows up to 11 timed runs per figure, and without an explicit
// --take it does no lookups.
func (rf *realFlags) run(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) int {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	get := func(name string) flag.Getter { return fs.Lookup(name).Value.(flag.Getter) }
	cfg := realConfig{runs: 11, minRuns: *rf.minRuns, budget: *rf.budget, markdown: *rf.markdown,
		threads: get("threads").Get().(int), systems: get("systems").Get().(string),
		jsonOut: get("json").Get().(string), dir: get("dir").Get().(string),
		seed: get("seed").Get().(uint64), args: args}
	if set["runs"] {
		cfg.runs = get("runs").Get().(int)
	}
	if set["take"] {
		cfg.take = get("take").Get().(int)
	}
	if cfg.runs < 1 || cfg.threads < 1 || cfg.minRuns < 1 {
		fmt.Fprintln(stderr, "bench: --runs, --min-runs and --threads must be >= 1")
		return 2
	}
	cfg.minRuns = min(cfg.minRuns, cfg.runs)
	if cfg.stripeRows = *rf.stripeRows; cfg.stripeRows < 0 {
		fmt.Fprintln(stderr, "bench: --stripe-rows must be >= 0")
		return 2
	}
	if cfg.stripeRows > 0 {
		// only these writers are given the bound: a figure of another
		// would compare files of other shapes
		sel, err := selectSystems(allSystems(config{}), cfg.systems)
		if err != nil {
			fmt.Fprintln(stderr, "bench:", err)
			return 2
		}
		for _, s := range sel {
			if s.Name() != "strata" && s.Name() != "arrow-go" {
				fmt.Fprintf(stderr, "bench: --stripe-rows applies to the strata and arrow-go systems only; --systems names %s\n", key(s))
				return 2
			}
		}
	}
	runtime.GOMAXPROCS(max(cfg.threads, runtime.GOMAXPROCS(0)))
	inputs, err := realInputs(*rf.inputs)
	if err != nil {
		fmt.Fprintln(stderr, "bench:", err)
		return 2
	}
	fmt.Fprintf(stderr, "real: %d sets, threads=%d, up to %d timed runs per figure (at least %d), budget %v per phase and set\n",
		len(inputs), cfg.threads, cfg.runs, cfg.minRuns, cfg.budget)
	if cfg.stripeRows > 0 {
		fmt.Fprintf(stderr, "real: stripes and row groups of %d rows\n", cfg.stripeRows)
	}
	return runReal(stdout, stderr, cfg, inputs)
}
