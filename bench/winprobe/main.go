// Command winprobe times File.ReadWindows on a written time-series file by
// the process's CPU time (getrusage) as well as wall time, so that figures
// taken on a loaded machine still compare, and gives callgrind a fixed
// workload: the same windows (seed 1) every round, read after one warm-up
// round, records released before the next.
//
//	go run ./winprobe -f cpu.strata                          # 10,000 windows of 256 rows, 4 metrics, 5 rounds
//	go run ./winprobe -f cpu.strata -stacked                 # one stacked record per call
//	go run ./winprobe -f cpu.strata -prof cpu.prof           # CPU profile of the timed rounds
//	GOGC=off GODEBUG=asyncpreemptoff=1 valgrind --tool=callgrind --toggle-collect=main.timedRound \
//	    ./winprobe -f cpu.strata -r 1                        # instructions of the timed rounds
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime/pprof"
	"sort"
	"strings"
	"syscall"
	"time"

	"strata/timeseries"
)

func main() {
	path := flag.String("f", "", "time-series Strata file (strata gen tsbs --hosts 1000 --duration 24h cpu.strata)")
	windows := flag.Int("windows", 10000, "windows per round")
	length := flag.Int("length", 256, "rows per window")
	colsF := flag.String("cols", "usage_user,usage_system,usage_idle,usage_nice", "comma-separated columns of every window")
	rounds := flag.Int("r", 5, "timed rounds")
	stacked := flag.Bool("stacked", false, "one stacked record per round instead of one record per window")
	prof := flag.String("prof", "", "write a CPU profile of the timed rounds to this file")
	flag.Parse()
	if err := run(*path, *windows, *length, strings.Split(*colsF, ","), *rounds, *stacked, *prof); err != nil {
		fmt.Fprintln(os.Stderr, "winprobe:", err)
		os.Exit(1)
	}
}

func run(path string, windows, length int, cols []string, rounds int, stacked bool, prof string) error {
	ctx := context.Background()
	f, err := timeseries.Open(path, nil)
	if err != nil {
		return err
	}
	defer f.Close()
	o := timeseries.SampleOptions{Windows: windows, Length: length, Columns: cols, Seed: 1, Stacked: stacked, Threads: 1}
	ws, err := f.DrawWindows(ctx, o)
	if err != nil {
		return err
	}
	round := func() (timeseries.Stats, error) {
		recs, st, err := f.ReadWindows(ctx, ws, o)
		for _, r := range recs {
			r.Release()
		}
		return st, err
	}
	if _, err := round(); err != nil { // warm the metadata and decoder caches
		return err
	}
	if prof != "" {
		pf, err := os.Create(prof)
		if err != nil {
			return err
		}
		defer pf.Close()
		if err := pprof.StartCPUProfile(pf); err != nil {
			return fmt.Errorf("cpu profile: %w", err)
		}
		defer pprof.StopCPUProfile()
	}
	var walls, cpus []float64
	var st timeseries.Stats
	for range rounds {
		t0, c0 := time.Now(), cpuTime()
		if st, err = timedRound(round); err != nil {
			return err
		}
		walls = append(walls, float64(time.Since(t0).Microseconds())/float64(windows))
		cpus = append(cpus, float64((cpuTime()-c0).Microseconds())/float64(windows))
	}
	fmt.Printf("%d windows of %d rows, %d columns, stacked %v: wall µs/window %s, cpu µs/window %s; amplification %.3f\n",
		windows, length, len(cols), stacked, medianRange(walls), medianRange(cpus), st.Amplification())
	return nil
}

// timedRound runs one timed round; it is a function of its own so that
// callgrind can count the timed rounds alone (--toggle-collect).
//
//go:noinline
func timedRound(round func() (timeseries.Stats, error)) (timeseries.Stats, error) {
	return round()
}

// medianRange formats the median and the range of xs.
func medianRange(xs []float64) string {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return fmt.Sprintf("%.3f [%.3f-%.3f]", s[len(s)/2], s[0], s[len(s)-1])
}

// cpuTime is the process's user and system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
