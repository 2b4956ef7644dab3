// Command winprobe times File.ReadWindows on a written time-series file by
// the process's CPU time (getrusage) as well as wall time, so that figures
// taken on a loaded machine still compare, and gives callgrind a fixed
// workload: the same windows (seed 1) every round, read after one warm-up
// round, records released before the next.
//
//	go run ./winprobe -f cpu.strata                          # 10,000 windows of 256 rows, 4 metrics, 5 rounds
//	go run ./winprobe -f cpu.strata -stacked                 # one stacked record per call
//	go run ./winprobe -f cpu.strata -prof cpu.prof           # CPU profile of the timed rounds
//	go run ./winprobe -f cpu.strata -mode downsample         # 5-minute min/max/avg of usage_user per host (the bench's downsample)
//	go run ./winprobe -f cpu.strata -mode hosthour           # one host, one hour, three metrics (the bench's host_hour), 100 queries a round
//	GOGC=off GODEBUG=asyncpreemptoff=1 GOMAXPROCS=1 valgrind --tool=callgrind \
//	    ./winprobe -f cpu.strata -r 3                        # and again with -r 1: the difference is two rounds
//
// Count instructions per window as the difference between runs of 3 and 1
// timed rounds: --toggle-collect=main.timedRound undercounted (by a
// quarter to a half on 1,000 hosts), most likely because a goroutine that
// moves to another thread during the round leaves callgrind's collection
// off there.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"sort"
	"strings"
	"syscall"
	"time"

	"strata/timeseries"
	"strata/tsbs"
)

// each prints every timed round's figures as well as the summary.
var each = flag.Bool("each", false, "print every timed round's figures too")

// memProf names the file an allocation profile of the whole run goes to.
var memProf = flag.String("memprof", "", "write an allocation profile of the whole run to this file")

func main() {
	path := flag.String("f", "", "time-series Strata file (strata gen tsbs --hosts 1000 --duration 24h cpu.strata)")
	windows := flag.Int("windows", 10000, "windows per round")
	length := flag.Int("length", 256, "rows per window")
	colsF := flag.String("cols", "usage_user,usage_system,usage_idle,usage_nice", "comma-separated columns of every window")
	rounds := flag.Int("r", 5, "timed rounds")
	stacked := flag.Bool("stacked", false, "one stacked record per round instead of one record per window")
	prof := flag.String("prof", "", "write a CPU profile of the timed rounds to this file")
	mode := flag.String("mode", "windows", "windows | downsample | hosthour")
	flag.Parse()
	var err error
	switch *mode {
	case "windows":
		err = run(*path, *windows, *length, strings.Split(*colsF, ","), *rounds, *stacked, *prof)
	case "downsample", "hosthour":
		err = runQuery(*path, *mode, *rounds)
	default:
		err = fmt.Errorf("unknown mode %q", *mode)
	}
	if err != nil {
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
		if *each {
			fmt.Printf("round %d: wall µs/window %.3f, cpu %.3f\n", len(walls), walls[len(walls)-1], cpus[len(cpus)-1])
		}
	}
	fmt.Printf("%d windows of %d rows, %d columns, stacked %v: wall µs/window %s, cpu µs/window %s; amplification %.3f\n",
		windows, length, len(cols), stacked, medianRange(walls), medianRange(cpus), st.Amplification())
	return writeMemProfile()
}

// writeMemProfile writes the allocation profile of the run so far to
// -memprof, if set.
func writeMemProfile() error {
	if *memProf == "" {
		return nil
	}
	mf, err := os.Create(*memProf)
	if err != nil {
		return err
	}
	defer mf.Close()
	if err := pprof.Lookup("allocs").WriteTo(mf, 0); err != nil {
		return fmt.Errorf("allocation profile: %w", err)
	}
	return nil
}

// runQuery times the bench's downsample (one Aggregate) or host_hour (100
// one-hour queries of host_7, three metrics) rounds the same way.
func runQuery(path, mode string, rounds int) error {
	ctx := context.Background()
	f, err := timeseries.Open(path, nil)
	if err != nil {
		return err
	}
	defer f.Close()
	t0 := tsbs.Start.Add(19 * time.Hour).UnixMicro()
	round := func() (timeseries.Stats, error) {
		if mode == "downsample" {
			rec, _, err := f.Aggregate(ctx, timeseries.AggOptions{Every: 300e6, Columns: []string{"usage_user"},
				Funcs: []string{"min", "max", "avg"}, Keys: []string{"hostname"}})
			if err == nil {
				rec.Release()
			}
			return timeseries.Stats{}, err
		}
		for range 100 {
			rows, err := f.Query(ctx, timeseries.QueryOptions{Series: timeseries.Selector{"hostname": "host_7"},
				Time: &timeseries.TimeRange{From: t0, To: t0 + time.Hour.Microseconds()}, Columns: []string{"time", "usage_user", "usage_system", "usage_idle"}})
			if err != nil {
				return timeseries.Stats{}, err
			}
			for {
				rec, err := rows.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					return timeseries.Stats{}, err
				}
				rec.Release()
			}
		}
		return timeseries.Stats{}, nil
	}
	if _, err := round(); err != nil {
		return err
	}
	var walls, cpus []float64
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	for range rounds {
		w0, c0 := time.Now(), cpuTime()
		if _, err := timedRound(round); err != nil {
			return err
		}
		walls = append(walls, float64(time.Since(w0).Microseconds())/1e3)
		cpus = append(cpus, float64((cpuTime()-c0).Microseconds())/1e3)
	}
	runtime.ReadMemStats(&m1)
	if err := writeMemProfile(); err != nil {
		return err
	}
	fmt.Printf("%s: wall ms/round %s, cpu ms/round %s; allocated %.1f MB in %.0f objects a round, %d collections in all\n",
		mode, medianRange(walls), medianRange(cpus), float64(m1.TotalAlloc-m0.TotalAlloc)/1e6/float64(rounds),
		float64(m1.Mallocs-m0.Mallocs)/float64(rounds), m1.NumGC-m0.NumGC)
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
