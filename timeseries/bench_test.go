package timeseries

import (
	"bytes"
	"io"
	"sync"
	"syscall"
	"testing"
	"time"

	"strata/iox"
	"strata/tsbs"
)

var (
	benchOnce sync.Once
	benchFile []byte
)

// benchData is 200 hosts × 1 day of the TSBS cpu-only workload (1.7 M rows).
func benchData(b *testing.B) *File {
	benchOnce.Do(func() {
		g, _ := tsbs.New(tsbs.Options{Hosts: 200, Duration: 24 * time.Hour})
		var buf bytes.Buffer
		w, err := NewWriter(&buf, g.Schema(), tsbsModel, &WriterOptions{Sorted: true})
		if err != nil {
			b.Fatal(err)
		}
		for {
			rec, err := g.Next()
			if err == io.EOF {
				break
			}
			if err := w.Write(rec); err != nil {
				b.Fatal(err)
			}
			rec.Release()
		}
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
		benchFile = buf.Bytes()
	})
	f, err := OpenSource(ctx, iox.Bytes(benchFile), nil)
	if err != nil {
		b.Fatal(err)
	}
	return f
}

// BenchmarkSample reads 1,000 windows of 256 rows × 4 metrics per op from
// a warm metadata cache, as one record per window and as one stacked
// record:
//
//	go test -run '^$' -bench Sample ./timeseries
func BenchmarkSample(b *testing.B) {
	for _, stacked := range []bool{false, true} {
		name := "per-window"
		if stacked {
			name = "stacked"
		}
		b.Run(name, func(b *testing.B) { benchSample(b, stacked) })
	}
}

func benchSample(b *testing.B, stacked bool) {
	f := benchData(b)
	o := SampleOptions{Windows: 1000, Length: 256, Columns: []string{"usage_user", "usage_system", "usage_idle", "usage_nice"}, Threads: 1, Stacked: stacked}
	for e := 0; e < 3; e++ { // warm the caches
		o.Epoch = -1 - e
		recs, _, _ := f.Sample(ctx, o)
		for _, r := range recs {
			r.Release()
		}
	}
	b.ResetTimer()
	var st Stats
	c0 := cpuTime()
	for i := 0; i < b.N; i++ {
		o.Epoch = i
		recs, s, err := f.Sample(ctx, o)
		if err != nil {
			b.Fatal(err)
		}
		for _, r := range recs {
			r.Release()
		}
		st = s
	}
	b.ReportMetric(float64(b.N*o.Windows)/b.Elapsed().Seconds(), "windows/s")
	b.ReportMetric(float64(cpuTime()-c0)/1e3/float64(b.N*o.Windows), "cpu-µs/window")
	b.ReportMetric(st.Amplification(), "amplification")
}

// BenchmarkQueryHostHour reads one host, one hour, three metrics.
func BenchmarkQueryHostHour(b *testing.B) {
	f := benchData(b)
	t0 := tsbs.Start.UnixMicro()
	tr := &TimeRange{t0 + 5*3600e6, t0 + 6*3600e6}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rows, err := f.Query(ctx, QueryOptions{Series: Selector{"hostname": "host_17"}, Time: tr,
			Columns: []string{"time", "usage_user", "usage_system", "usage_idle"}})
		if err != nil {
			b.Fatal(err)
		}
		for {
			rec, err := rows.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			rec.Release()
		}
	}
}

// BenchmarkDownsample computes 5-minute min/max/avg of one metric for
// every host over the day.
func BenchmarkDownsample(b *testing.B) {
	f := benchData(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rec, _, err := f.Aggregate(ctx, AggOptions{Every: 300e6, Columns: []string{"usage_user"}, Funcs: []string{"min", "max", "avg"}, Keys: []string{"hostname"}})
		if err != nil {
			b.Fatal(err)
		}
		rec.Release()
	}
}

// cpuTime is the process's CPU time (user and system), which moves less
// than wall time on a shared machine.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
