package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// --thread-counts: the same systems at several thread counts in one
// process, timed interleaved. Round r runs each query once on every
// (system, thread count) instance, starting from a different instance each
// round, so that a change in the machine's load falls on all of them; the
// ratios are taken within a round (a faster instance against its slower
// sibling of the same round) and summarized over the rounds. On a shared
// machine that is what separates a speed-up from a quieter minute.

// instance is one system opened with one thread count.
type instance struct {
	sys     System
	threads int
	key     string // system/variant
	base    int    // index of the same system at the first thread count
}

func (in *instance) label() string { return fmt.Sprintf("%s t%d", in.key, in.threads) }

// parseThreadCounts reads "1,2,0" (0: all cores).
func parseThreadCounts(list string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(list, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 0 {
			return nil, fmt.Errorf("--thread-counts: %q is not a thread count (0: all cores)", f)
		}
		if n == 0 {
			n = runtime.NumCPU()
		}
		out = append(out, n)
	}
	return out, nil
}

type threadQuery struct {
	name   string
	perRow int // > 0: report µs per row
	run    func(s System, verify bool) (Out, error)
	// cold: run only on systems that can drop their caches (coldTaker),
	// dropping them before every run, untimed.
	cold bool
}

func runThreadCounts(stdout, stderr io.Writer, src *Source, wl *Workload, spec string, counts []int, runs int, workDir string) int {
	maxT := 1
	for _, c := range counts {
		maxT = max(maxT, c)
	}
	runtime.GOMAXPROCS(max(maxT, runtime.GOMAXPROCS(0)))
	var insts []*instance
	for ci, c := range counts {
		sel, err := selectSystems(allSystems(config{threads: c}), spec)
		if err != nil {
			fmt.Fprintln(stderr, "bench:", err)
			return 2
		}
		for si, s := range sel {
			base := si
			if ci == 0 {
				base = len(insts)
			}
			insts = append(insts, &instance{sys: s, threads: c, key: key(s), base: base})
		}
	}
	fmt.Fprintf(stderr, "dataset %s: %d rows; thread counts %v, %d interleaved rounds, take=%d, load %.1f\n",
		src.Name, src.Rows, counts, runs, len(wl.Take), loadAvg())

	// Each system writes its file once; every thread count opens it.
	paths := map[string]string{}
	for _, in := range insts {
		if _, ok := paths[in.key]; ok {
			continue
		}
		dir := filepath.Join(workDir, strings.ReplaceAll(in.key, "/", "-"))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			fmt.Fprintln(stderr, "bench:", err)
			return 1
		}
		p, err := in.sys.Write(dir, src)
		if err != nil {
			fmt.Fprintf(stderr, "bench: %s write: %v\n", in.key, err)
			return 1
		}
		paths[in.key] = p
	}
	for _, in := range insts {
		if err := in.sys.Open(paths[in.key]); err != nil {
			fmt.Fprintf(stderr, "bench: %s open: %v\n", in.label(), err)
			return 1
		}
		defer in.sys.Close()
	}

	queries := []threadQuery{{name: "scan", run: func(s System, v bool) (Out, error) { return s.Scan(v) }}}
	if wl.Lineitem {
		queries = append(queries,
			threadQuery{name: "q_range", run: func(s System, v bool) (Out, error) { return s.QRange(wl, v) }},
			threadQuery{name: "q_month", run: func(s System, v bool) (Out, error) { return s.QMonth(wl, v) }},
			threadQuery{name: "q_agg", run: func(s System, _ bool) (Out, error) { return s.QAgg(wl) }})
	}
	if len(wl.Take) > 0 {
		queries = append(queries, threadQuery{name: "take", perRow: len(wl.Take),
			run: func(s System, v bool) (Out, error) { return s.Take(wl.Take, v) }})
		cold := coldRows(wl.Take)
		queries = append(queries, threadQuery{name: "take_cold", perRow: len(cold), cold: true,
			run: func(s System, v bool) (Out, error) { return s.Take(cold, v) }})
	}

	ck := newCrossCheck(stderr)
	var takeTimes [][]float64 // per instance, the timed take runs
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "query\tsystem\tthreads\tmedian\tmin–max\tspeed-up over t%d\ttime vs %s\tcores busy\tCPU ms\tCPU over t%d\t\n", counts[0], insts[0].key, counts[0])
	for _, q := range queries {
		// The verifying run (also the warm-up); instances whose lookups take
		// longer than the take budget are left out of the timed take runs.
		skip := make([]bool, len(insts))
		prep := func(i int) {
			if q.cold {
				insts[i].sys.(coldTaker).DropCaches()
			}
		}
		for i, in := range insts {
			if _, ok := in.sys.(coldTaker); q.cold && !ok {
				skip[i] = true
				continue
			}
			prep(i)
			if q.perRow > 0 {
				// A probe of a few lookups keeps readers without a row
				// index (tens of milliseconds a row) out of the take.
				probe := wl.Take[:min(5, len(wl.Take))]
				t0 := time.Now()
				if _, err := in.sys.Take(probe, false); err != nil || time.Since(t0)*time.Duration(len(wl.Take)) > takeBudget*time.Duration(len(probe)) {
					fmt.Fprintf(stderr, "  %s take: %v for %d lookups, the whole list would exceed the take budget: not timed\n", in.label(), time.Since(t0).Round(time.Millisecond), len(probe))
					skip[i] = true
					continue
				}
			}
			prep(i)
			t0 := time.Now()
			out, err := q.run(in.sys, true)
			if err != nil {
				fmt.Fprintf(stderr, "  %s %s: %v\n", in.label(), q.name, err)
				skip[i] = true
				continue
			}
			ck.add(q.name, in.label(), out)
			if q.perRow > 0 && time.Since(t0) > takeBudget {
				fmt.Fprintf(stderr, "  %s take: %v for the verifying run, over the take budget: not timed\n", in.label(), time.Since(t0).Round(time.Millisecond))
				skip[i] = true
			}
		}
		times := make([][]float64, len(insts))
		busy := make([][]float64, len(insts)) // process CPU time over wall time, per run
		cpu := make([][]float64, len(insts))  // process CPU time (ms; µs per row for take), per run
		for r := 0; r < runs; r++ {
			for k := range insts {
				i := (k + r) % len(insts)
				if skip[i] {
					continue
				}
				prep(i)
				runtime.GC()
				c0, t0 := cpuTime(), time.Now()
				if _, err := q.run(insts[i].sys, false); err != nil {
					fmt.Fprintf(stderr, "  %s %s: %v\n", insts[i].label(), q.name, err)
					skip[i] = true
					continue
				}
				wall := time.Since(t0)
				busy[i] = append(busy[i], float64(cpuTime()-c0)/float64(wall))
				c := ms(cpuTime() - c0)
				if q.perRow > 0 {
					c = c * 1e3 / float64(q.perRow)
				}
				cpu[i] = append(cpu[i], c)
				v := ms(wall)
				if q.perRow > 0 {
					v = v * 1e3 / float64(q.perRow)
				}
				times[i] = append(times[i], v)
			}
		}
		if q.name == "take" {
			takeTimes = times
		}
		for i, in := range insts {
			f := summarize(times[i])
			if f == nil {
				fmt.Fprintf(tw, "%s\t%s\t%d\t-\t-\t-\t-\t-\t-\t-\t\n", q.name, in.key, in.threads)
				continue
			}
			// Ratios within each round: the time of the same system at the
			// first thread count over this instance's (its speed-up), and
			// this instance's time over the first system's at the same
			// thread count.
			vsT := roundRatios(times[in.base], times[i])
			first := 0
			for j, o := range insts {
				if o.threads == in.threads {
					first = j
					break
				}
			}
			ref := times[first]
			if q.cold {
				// Against the first system's lookups (its own, warm or
				// not: a system without a cache of its own has no cold
				// figure).
				ref = takeTimes[first]
			}
			vsB := roundRatios(times[i], ref)
			// CPU time against the same system's at the first thread count,
			// within each round: what running on more goroutines costs in
			// all (synchronization, allocation, GC), which load on a shared
			// machine does not change the way it changes wall time.
			cpuT := roundRatios(cpu[i], cpu[in.base])
			fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s–%s\t%s\t%s\t%.2f\t%s\t%s\t\n", q.name, in.key, in.threads,
				fmtNum(f.Median, "ms"), fmtNum(f.Min, "ms"), fmtNum(f.Max, "ms"), fmtRatioFig(vsT), fmtRatioFig(vsB), summarize(busy[i]).Median,
				fmtNum(summarize(cpu[i]).Median, "ms"), fmtRatioFig(cpuT))
		}
	}
	tw.Flush()
	fmt.Fprintf(stdout, "(ms; take in µs per row; take_cold: the take rows in distinct 65,536-row blocks, caches dropped before each run, compared with the first system's take; ratios are taken within a round, median [min–max] over %d rounds; cores busy: the process's CPU time over the wall time, median; CPU ms: the process's CPU time per run, median; CPU over t1: that time over the same system's at the first thread count, same round; load average after: %.1f)\n", runs, loadAvg())
	ck.final()
	if ck.failed {
		fmt.Fprintln(stderr, "bench: CROSS-CHECK FAILED: results differ between instances (see above)")
		return 1
	}
	return 0
}

// roundRatios summarizes a[r]/b[r] over the rounds both have.
func roundRatios(a, b []float64) *Fig {
	var xs []float64
	for r := 0; r < min(len(a), len(b)); r++ {
		if b[r] > 0 {
			xs = append(xs, a[r]/b[r])
		}
	}
	return summarize(xs)
}

func fmtRatioFig(f *Fig) string {
	if f == nil {
		return "-"
	}
	return fmt.Sprintf("%.2f× [%.2f–%.2f]", f.Median, f.Min, f.Max)
}
