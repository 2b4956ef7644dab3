// Command cpuprobe times Strata's lookups, q_month and full scans on a
// written lineitem file by the process's CPU time (getrusage) as well as
// wall time, so that figures taken on a loaded, shared machine still
// compare: the CPU a query costs does not grow with the load the way its
// wall time does. It reads one file, one goroutine per query unless
// stated, and prints medians [min–max] over the rounds.
//
//	go run ./cpuprobe -f li.strata -mode cold      # one-row lookups, decoders dropped before each round
//	go run ./cpuprobe -f li.strata -mode cold -percol
//	go run ./cpuprobe -f li.strata -mode cold -objshape  # reads coalesced as from an object store
//	go run ./cpuprobe -f li.strata -mode monthtake # q_month after the lookups of a take run
//	go run ./cpuprobe -f li.strata -mode scan      # full scan, 1 and 2 goroutines alternately
//	go run ./cpuprobe -f li.strata -mode mem       # heap that q_month's cached decoders hold
//	go run ./cpuprobe -f li.strata -mode monthcols # q_month's CPU by returned column
package main

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"sort"
	"strings"
	"syscall"
	"time"

	"strata/iox"
	"strata/iox/remote"
	"strata/read"
)

func main() {
	path := flag.String("f", "", "Strata file of TPC-H lineitem (strata gen tpch --sf 1 li.strata)")
	n := flag.Int("n", 200, "random rows drawn for lookups; those in distinct 8192-row blocks are looked up")
	rounds := flag.Int("r", 5, "timed rounds")
	prof := flag.String("prof", "", "write a CPU profile of the timed rounds to this file")
	colsF := flag.String("cols", "", "comma-separated columns the lookups (or -mode month) return (default all; q_month's)")
	allocProf := flag.String("allocprof", "", "with -mode scan: write the allocation profile after each thread count to FILE.<n>.t<threads>; with -mode cold or warm: after the timed rounds, to FILE")
	percol := flag.Bool("percol", false, "with -mode cold: also time each column's lookups alone")
	mode := flag.String("mode", "cold", "cold | warm | month | monthcols | monthcold | monthtake | scan | scan1 | mem")
	inMem := flag.Bool("inmem", false, "read the whole file into memory first and look up from those bytes (no reads: what a lookup costs besides I/O)")
	objShape := flag.Bool("objshape", false, "read the local file with an object store's read shape (remote.ObjectHints: megabyte gaps read through), as a remote file is coalesced")
	gcs := flag.Int("gc", 0, "with -mode cold: garbage collections forced before each round, as other work between lookups would run them")
	scanFirst := flag.Bool("scanfirst", false, "with -mode cold: one full scan before the rounds (a process whose heap other queries grew)")
	ballast := flag.Int("ballast", 0, "MiB of live heap to hold while measuring (a process that keeps other data)")
	recycledBytes := flag.Int64("recycled", read.DefaultRecycledBytes, "bytes of released chunk memory kept for lookups (read.SetRecycledBytes)")
	verbose := flag.Bool("v", false, "with -mode cold or warm: print every round's CPU time and chunks opened")
	cacheBytes := flag.Int64("cache", 0, "decoder cache budget of the file in bytes (0: the process-wide default; negative: none)")
	flag.Parse()
	if *allocProf != "" {
		// Every allocation, so that the profile counts them exactly.
		runtime.MemProfileRate = 1
	}
	read.SetRecycledBytes(*recycledBytes)
	var hold [][]byte
	for range *ballast {
		b := make([]byte, 1<<20)
		for i := 0; i < len(b); i += 4096 {
			b[i] = 1
		}
		hold = append(hold, b)
	}
	defer runtime.KeepAlive(hold)
	file, err := iox.OpenFile(*path)
	if err != nil {
		panic(err)
	}
	var src iox.Source = file
	if *inMem {
		b, err := os.ReadFile(*path)
		if err != nil {
			panic(err)
		}
		src = iox.Bytes(b)
	}
	if *objShape {
		src = objShaped{file}
	}
	f, err := read.Open(context.Background(), src, read.Options{Parallelism: 1, DecoderCacheBytes: *cacheBytes})
	if err != nil {
		panic(err)
	}
	var cols []string
	if *colsF != "" {
		cols = strings.Split(*colsF, ",")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	rows := make([]int64, *n)
	for i := range rows {
		rows[i] = rng.Int64N(f.NumRows())
	}
	seen := map[int64]bool{}
	var cold []int64
	for _, r := range rows {
		if !seen[r/8192] {
			seen[r/8192] = true
			cold = append(cold, r)
		}
	}
	if *mode == "scan1" {
		// -r scans of the -cols columns on one goroutine (callgrind's
		// workload: run -r 3 and -r 1, the difference is two scans).
		for range *rounds {
			sc, err := f.Scan(read.ScanOptions{Columns: cols, Parallelism: 1})
			if err != nil {
				panic(err)
			}
			drain(sc)
		}
		return
	}
	if *mode == "scan" {
		allocN := 0
		for _, par := range []int{1, 2, 1, 2, 1, 2} {
			var per, cpus []float64
			m0 := readMetrics()
			for i := range *rounds + 1 {
				if i == 1 && *prof != "" && par == 2 {
					pf, _ := os.Create(*prof)
					pprof.StartCPUProfile(pf)
				}
				t0 := time.Now()
				c0 := cpuNow()
				sc, err := f.Scan(read.ScanOptions{Parallelism: par})
				if err != nil {
					panic(err)
				}
				drain(sc)
				if i > 0 {
					per = append(per, float64(time.Since(t0).Microseconds())/1000)
					cpus = append(cpus, float64((cpuNow()-c0).Microseconds())/1000)
				}
			}
			if *prof != "" && par == 2 {
				pprof.StopCPUProfile()
				*prof = ""
			}
			sort.Float64s(per)
			sort.Float64s(cpus)
			m1 := readMetrics()
			if *allocProf != "" {
				allocN++
				af, _ := os.Create(fmt.Sprintf("%s.%d.t%d", *allocProf, allocN, par))
				pprof.Lookup("allocs").WriteTo(af, 0)
				af.Close()
			}
			k := float64(*rounds + 1)
			fmt.Printf("scan par=%d: wall %.1f ms [%.1f–%.1f]; cpu %.1f [%.1f–%.1f]; per scan: gc cpu %.1f ms, total cpu (runtime) %.1f ms, mutex wait %.2f ms, alloc %.1f MB, gc cycles %.1f\n", par, per[len(per)/2], per[0], per[len(per)-1], cpus[len(cpus)/2], cpus[0], cpus[len(cpus)-1],
				(m1[0]-m0[0])*1000/k, (m1[1]-m0[1])*1000/k, (m1[2]-m0[2])*1000/k, (m1[3]-m0[3])/1e6/k, (m1[4]-m0[4])/k)
		}
		return
	}
	if *mode == "mem" {
		var m0, m1 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m0)
		sc, _ := f.Scan(read.ScanOptions{Columns: []string{"l_orderkey", "l_extendedprice"}, Where: "l_shipdate BETWEEN DATE '1995-01-01' AND DATE '1995-01-31'"})
		drain(sc)
		runtime.GC()
		runtime.ReadMemStats(&m1)
		fmt.Printf("q_month: heap %d MB retained\n", (int64(m1.HeapAlloc)-int64(m0.HeapAlloc))>>20)
		f.DropCaches()
		runtime.GC()
		runtime.ReadMemStats(&m0)
		for _, r := range rows[:*n/4] {
			rec, _, _ := f.TakeContext(context.Background(), []int64{r}, read.TakeOptions{Columns: cols})
			rec.Release()
		}
		runtime.GC()
		runtime.ReadMemStats(&m1)
		fmt.Printf("take %d rows: heap %d MB retained\n", *n/4, (int64(m1.HeapAlloc)-int64(m0.HeapAlloc))>>20)
		return
	}
	if *mode == "monthcols" {
		// q_month's filter with each returned column alone and with both,
		// one round of each in turn, to split its CPU time by column.
		sets := [][]string{{"l_shipdate"}, {"l_orderkey"}, {"l_extendedprice"}, {"l_orderkey", "l_extendedprice"}}
		cpus := make([][]float64, len(sets))
		if *prof != "" {
			pf, err := os.Create(*prof)
			if err != nil {
				panic(err)
			}
			pprof.StartCPUProfile(pf)
			defer pprof.StopCPUProfile()
		}
		for i := range *rounds + 1 {
			for k, cs := range sets {
				c0 := cpuNow()
				sc, err := f.Scan(read.ScanOptions{Columns: cs, Where: "l_shipdate BETWEEN DATE '1995-01-01' AND DATE '1995-01-31'"})
				if err != nil {
					panic(err)
				}
				drain(sc)
				if i > 0 {
					cpus[k] = append(cpus[k], float64((cpuNow()-c0).Microseconds())/1000)
				}
			}
		}
		for k, cs := range sets {
			c := cpus[k]
			sort.Float64s(c)
			fmt.Printf("month returning %s: cpu %.2f ms [%.2f–%.2f]\n", strings.Join(cs, ","), c[len(c)/2], c[0], c[len(c)-1])
		}
		return
	}
	if *mode == "month" || *mode == "monthtake" || *mode == "monthcold" {
		var per, cpus []float64
		var st read.ScanStats
		for i := range *rounds + 1 {
			if *mode == "monthcold" {
				f.DropCaches()
			}
			if *mode == "monthtake" {
				one := []int64{0}
				for _, r := range rows {
					one[0] = r
					rec, _, err := f.TakeContext(context.Background(), one, read.TakeOptions{})
					if err != nil {
						panic(err)
					}
					rec.Release()
				}
			}
			if i == 1 && *prof != "" {
				pf, _ := os.Create(*prof)
				pprof.StartCPUProfile(pf)
				defer pprof.StopCPUProfile()
			}
			t0 := time.Now()
			c0 := cpuNow()
			mcols := []string{"l_orderkey", "l_extendedprice"}
			if cols != nil {
				mcols = cols
			}
			sc, err := f.Scan(read.ScanOptions{Columns: mcols, Where: "l_shipdate BETWEEN DATE '1995-01-01' AND DATE '1995-01-31'"})
			if err != nil {
				panic(err)
			}
			n := int64(0)
			for {
				rec, err := sc.Next()
				if err != nil {
					break
				}
				n += rec.NumRows()
				rec.Release()
			}
			st = sc.Stats()
			sc.Close()
			if i > 0 {
				per = append(per, float64(time.Since(t0).Microseconds())/1000)
				cpus = append(cpus, float64((cpuNow()-c0).Microseconds())/1000)
			}
			_ = n
		}
		sort.Float64s(per)
		sort.Float64s(cpus)
		fmt.Printf("%s: median %.2f ms [%.2f–%.2f]; cpu %.2f [%.2f–%.2f]; last: %d requests, %d bytes, %d chunks opened\n", *mode, per[len(per)/2], per[0], per[len(per)-1], cpus[len(cpus)/2], cpus[0], cpus[len(cpus)-1], st.Requests, st.BytesRead, st.ChunksDecoded)
		return
	}
	if *prof != "" {
		pf, _ := os.Create(*prof)
		pprof.StartCPUProfile(pf)
		defer pprof.StopCPUProfile()
	}
	var per, cpus, users, allocs, allocBytes []float64
	var req, bytes int64
	var chunks int
	if *scanFirst {
		sc, err := f.Scan(read.ScanOptions{})
		if err != nil {
			panic(err)
		}
		drain(sc)
	}
	for range *rounds {
		if *mode == "cold" {
			f.DropCaches()
			for range *gcs {
				runtime.GC()
			}
		}
		req, bytes, chunks = 0, 0, 0
		var ms0, ms1 runtime.MemStats
		runtime.ReadMemStats(&ms0)
		t0 := time.Now()
		c0, u0 := cpuNow(), userNow()
		one := []int64{0}
		for _, r := range cold {
			one[0] = r
			rec, st, err := f.TakeContext(context.Background(), one, read.TakeOptions{Columns: cols})
			if err != nil {
				panic(err)
			}
			req += st.Requests
			bytes += st.BytesRead
			chunks += st.ChunksDecoded
			rec.Release()
		}
		per = append(per, float64(time.Since(t0).Microseconds())/float64(len(cold)))
		cpus = append(cpus, float64((cpuNow()-c0).Microseconds())/float64(len(cold)))
		users = append(users, float64((userNow()-u0).Microseconds())/float64(len(cold)))
		if *verbose {
			fmt.Printf("round %d: cpu %.1f µs/row, %d chunks opened\n", len(cpus), cpus[len(cpus)-1], chunks)
		}
		runtime.ReadMemStats(&ms1)
		allocs = append(allocs, float64(ms1.Mallocs-ms0.Mallocs)/float64(len(cold)))
		allocBytes = append(allocBytes, float64(ms1.TotalAlloc-ms0.TotalAlloc)/float64(len(cold)))
	}
	if *allocProf != "" {
		af, err := os.Create(*allocProf)
		if err != nil {
			panic(err)
		}
		pprof.Lookup("allocs").WriteTo(af, 0)
		af.Close()
	}
	if *percol {
		for _, fl := range f.Schema().Fields() {
			var cpu []float64
			for range *rounds {
				f.DropCaches()
				c0 := cpuNow()
				for _, r := range cold {
					rec, _, err := f.TakeContext(context.Background(), []int64{r}, read.TakeOptions{Columns: []string{fl.Name}})
					if err != nil {
						panic(err)
					}
					rec.Release()
				}
				cpu = append(cpu, float64((cpuNow()-c0).Microseconds())/float64(len(cold)))
			}
			sort.Float64s(cpu)
			fmt.Printf("%-16s cpu %.1f µs/row [%.1f–%.1f]\n", fl.Name, cpu[len(cpu)/2], cpu[0], cpu[len(cpu)-1])
		}
	}
	sort.Float64s(per)
	sort.Float64s(cpus)
	sort.Float64s(users)
	sort.Float64s(allocs)
	sort.Float64s(allocBytes)
	fmt.Printf("%s take: %d rows, median %.1f µs/row [%.1f–%.1f]; cpu %.1f [%.1f–%.1f] (user %.1f); %.0f allocations, %.1f KiB allocated a row (medians); last run: %d requests, %d bytes, %d chunks opened\n", *mode, len(cold), per[len(per)/2], per[0], per[len(per)-1], cpus[len(cpus)/2], cpus[0], cpus[len(cpus)-1], users[len(users)/2], allocs[len(allocs)/2], allocBytes[len(allocBytes)/2]/1024, req, bytes, chunks)
}

// objShaped is a local source that states an object store's read shape,
// so that the reader coalesces its requests as it does for a remote file
// while the bytes come from the page cache.
type objShaped struct{ iox.Source }

func (objShaped) Hints() iox.Hints { return remote.ObjectHints }

// drain reads a scan to its end (or its first error), releasing every
// batch, and closes it.
func drain(sc *read.Scanner) {
	for {
		rec, err := sc.Next()
		if err != nil {
			break
		}
		rec.Release()
	}
	sc.Close()
}

// userNow is the process's CPU time in user mode: cpuNow without the
// system calls (a lookup's preads).
func userNow() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano())
}

func cpuNow() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func readMetrics() [5]float64 {
	names := []string{"/cpu/classes/gc/total:cpu-seconds", "/cpu/classes/total:cpu-seconds", "/sync/mutex/wait/total:seconds", "/gc/heap/allocs:bytes", "/gc/cycles/total:gc-cycles"}
	ss := make([]metrics.Sample, len(names))
	for i, n := range names {
		ss[i].Name = n
	}
	metrics.Read(ss)
	var out [5]float64
	for i, s := range ss {
		switch s.Value.Kind() {
		case metrics.KindFloat64:
			out[i] = s.Value.Float64()
		case metrics.KindUint64:
			out[i] = float64(s.Value.Uint64())
		}
	}
	return out
}
