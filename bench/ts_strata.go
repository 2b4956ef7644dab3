//go:build !nostrata

package main

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"strata/timeseries"
	"strata/tsbs"
	"strata/write"
)

// strataTS is Strata's time-series layer: timeseries.Create with the ten
// tags as the series key (input sorted, streamed), then File.Query for
// host_hour, File.ReadWindows for windows, File.Aggregate for downsample
// and File.Last for last.
type strataTS struct {
	cfg     tsConfig
	nocache bool // decoder cache off: every read reads, checks and opens its chunks
	f       *timeseries.File
	path    string
	last    timeseries.Stats
	note    string
}

func newStrataTS(cfg tsConfig) *strataTS { return &strataTS{cfg: cfg} }

// newStrataTSNoCache is Strata with its decoder cache off.
func newStrataTSNoCache(cfg tsConfig) *strataTS { return &strataTS{cfg: cfg, nocache: true} }

func (s *strataTS) Name() string {
	if s.nocache {
		return "strata-nocache"
	}
	return "strata"
}

var bg = context.Background()

func (s *strataTS) Write(dir string, src *Source, _ *tsWork) (string, error) {
	path := dir + "/data.strata"
	w, err := timeseries.Create(path, src.Schema, timeseries.Model{Keys: tsbs.Tags, Time: tsbs.TimeColumn},
		&timeseries.WriterOptions{Sorted: true, Table: write.Options{Parallel: s.cfg.threads}})
	if err != nil {
		return "", err
	}
	for _, rec := range src.Records {
		if err := w.Write(rec); err != nil {
			w.Abort()
			return "", err
		}
	}
	return path, w.Close()
}

func (s *strataTS) Open(path string) error {
	o := &timeseries.Options{Threads: s.cfg.threads}
	if s.nocache {
		o.DecoderCacheBytes = -1
	}
	f, err := timeseries.Open(path, o)
	s.f, s.path = f, path
	return err
}

func (s *strataTS) Close() error {
	if s.f != nil {
		return s.f.Close()
	}
	return nil
}

func (s *strataTS) Note() string { return s.note }

// hashRenamed folds rec into sum under new column names (absent: skipped).
func hashRenamed(sum *Checksum, rec arrow.Record, names map[string]string) error {
	sum.Rows += rec.NumRows()
	for i, f := range rec.Schema().Fields() {
		n, ok := names[f.Name]
		if !ok {
			continue
		}
		h, err := hashArrow(rec.Column(i), nil)
		if err != nil {
			return err
		}
		sum.Cols[n] += h
	}
	return nil
}

func same(names ...string) map[string]string {
	m := map[string]string{}
	for _, n := range names {
		m[n] = n
	}
	return m
}

func (s *strataTS) HostHour(w *tsWork, verify bool) (tsOut, error) {
	before := s.f.BytesRead()
	rows, err := s.f.Query(bg, timeseries.QueryOptions{Series: timeseries.Selector{"hostname": w.host},
		Time: &timeseries.TimeRange{From: w.from, To: w.to}, Columns: append([]string{"time"}, w.hhCols...)})
	if err != nil {
		return tsOut{}, err
	}
	var out tsOut
	if verify {
		out.Sum = newChecksum()
	}
	for {
		rec, err := rows.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return out, err
		}
		out.Rows += rec.NumRows()
		if verify {
			if err := hashRenamed(out.Sum, rec, same(append([]string{"time"}, w.hhCols...)...)); err != nil {
				return out, err
			}
		}
		rec.Release()
	}
	st := rows.Stats()
	s.note = fmt.Sprintf("data bytes %d = %.2fx the %d bytes of the chunks holding the answer, index %d bytes in %d pages (%d cached), %d bytes in all since the previous read; %d units of %d read, time blocks %d skipped + %d all-match + %d decoded of %d; values decoded %d for %d returned",
		st.BytesRead, float64(st.BytesRead)/float64(max(1, st.ChunkBytes)), st.ChunkBytes, st.IndexBytes, st.IndexPages, st.IndexPageHits,
		s.f.BytesRead()-before, st.UnitsRead, st.UnitsTotal, st.BlocksSkipped, st.BlocksAllMatch, st.BlocksDecoded, st.BlocksTotal,
		st.ValuesDecoded, st.ValuesReturned)
	return out, nil
}

func (s *strataTS) windows(wins []tsWin) []timeseries.Window {
	ws := make([]timeseries.Window, len(wins))
	for i, x := range wins {
		ws[i] = timeseries.Window{Series: x.hostPos, Start: x.start}
	}
	return ws
}

func (s *strataTS) Windows(w *tsWork, wins []tsWin, verify bool) (tsOut, error) {
	recs, st, err := s.f.ReadWindows(bg, s.windows(wins), timeseries.SampleOptions{Length: w.length, Columns: w.winCols, Stacked: w.winStacked})
	if err != nil {
		return tsOut{}, err
	}
	var out tsOut
	if verify {
		out.Sum = newChecksum()
	}
	for _, rec := range recs {
		out.Rows += rec.NumRows()
		if verify {
			if err := hashRenamed(out.Sum, rec, same(w.winCols...)); err != nil {
				return out, err
			}
		}
		rec.Release()
	}
	s.note = fmt.Sprintf("read amplification %.2f (values decoded %d / returned %d), data bytes %d in %d reads, %d units",
		st.Amplification(), st.ValuesDecoded, st.ValuesReturned, st.BytesRead, st.Reads, st.UnitsRead)
	s.last = st
	return out, nil
}

func (s *strataTS) Downsample(w *tsWork, verify bool) (tsOut, error) {
	rec, st, err := s.f.Aggregate(bg, timeseries.AggOptions{Every: w.every, Columns: []string{w.aggCol}, Funcs: []string{"min", "max", "avg"},
		Keys: []string{"hostname"}})
	if err != nil {
		return tsOut{}, err
	}
	defer rec.Release()
	out := tsOut{Rows: rec.NumRows()}
	if verify {
		out.Sum = newChecksum()
		if err := hashRenamed(out.Sum, rec, map[string]string{"hostname": "host", "bucket": "bucket",
			"min(" + w.aggCol + ")": "min", "max(" + w.aggCol + ")": "max", "avg(" + w.aggCol + ")": "avg"}); err != nil {
			return out, err
		}
	}
	s.note = fmt.Sprintf("values decoded %d, units from index statistics %d, data bytes %d", st.ValuesDecoded, st.UnitsFromStats, st.BytesRead)
	return out, nil
}

func (s *strataTS) Last(w *tsWork, verify bool) (tsOut, error) {
	rec, st, err := s.f.Last(bg, nil, tsbs.Metrics)
	if err != nil {
		return tsOut{}, err
	}
	defer rec.Release()
	out := tsOut{Rows: rec.NumRows()}
	if verify {
		out.Sum = newChecksum()
		names := same(append([]string{"time"}, tsbs.Metrics...)...)
		names["hostname"] = "host"
		if err := hashRenamed(out.Sum, rec, names); err != nil {
			return out, err
		}
	}
	s.note = fmt.Sprintf("data bytes %d (no data chunk read), index %d bytes in %d pages (%d cached)", st.BytesRead, st.IndexBytes, st.IndexPages, st.IndexPageHits)
	return out, nil
}

// Experiments runs seed experiments B, C and D on the file and prints them.
func (s *strataTS) Experiments(out io.Writer, w *tsWork) error {
	if s.nocache {
		return nil
	}
	fmt.Fprintln(out, "\nseed experiments on the Strata file (A: go test -bench Decode ./encoding/dod)")
	// B: what each filtering level keeps, for host_hour on a cold file.
	f, err := timeseries.Open(s.path, nil)
	if err != nil {
		return err
	}
	defer f.Close()
	openBytes := f.BytesRead()
	sz, _ := fileBytes(s.path)
	if _, ok, err := f.Lookup(bg, "no_such_host", "", "", "", "", "", "", "", "", ""); err != nil || ok {
		return fmt.Errorf("absent host: %v %v", ok, err)
	}
	afterAbsent := f.BytesRead()
	rows, err := f.Query(bg, timeseries.QueryOptions{Series: timeseries.Selector{"hostname": w.host},
		Time: &timeseries.TimeRange{From: w.from, To: w.to}, Columns: append([]string{"time"}, w.hhCols...)})
	if err != nil {
		return err
	}
	for {
		rec, err := rows.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		rec.Release()
	}
	st := rows.Stats()
	fmt.Fprintf(out, "B. filtering levels, host_hour on a cold file of %d bytes (%d rows):\n", sz, f.NumRows())
	fmt.Fprintf(out, "   open: %d bytes (postscript, footer, metadata sections incl. the directory root)\n", openBytes)
	fmt.Fprintf(out, "   1 bloom filter: an absent host is rejected reading %d bytes (one bloom page)\n", afterAbsent-openBytes)
	fmt.Fprintf(out, "   2 series directory: 1 of %d series -> %d of %d units, index %d bytes in %d pages\n", f.NumSeries(), st.UnitsTotal, f.Index().Units, st.IndexBytes, st.IndexPages)
	fmt.Fprintf(out, "   3 unit time ranges: %d of %d units pruned, %d read\n", st.UnitsPrunedTime, st.UnitsTotal, st.UnitsRead)
	fmt.Fprintf(out, "   4 DeltaOfDelta block headers: %d time blocks: %d skipped and %d all-match without decoding, %d decoded\n", st.BlocksTotal, st.BlocksSkipped, st.BlocksAllMatch, st.BlocksDecoded)
	fmt.Fprintf(out, "   5 rows: %d scanned in the units read, %d returned; data bytes %d (%.2fx the chunks holding the answer), %.4f%% of the file\n",
		st.RowsScanned, st.RowsReturned, st.BytesRead, float64(st.BytesRead)/float64(max(1, st.ChunkBytes)), 100*float64(st.BytesRead)/float64(sz))
	// windows: amplification
	if wst := s.last; wst.ValuesReturned > 0 {
		fmt.Fprintf(out, "   windows: %d x %d rows: values decoded %d for %d returned (amplification %.2f), data bytes %d\n",
			len(w.wins), w.length, wst.ValuesDecoded, wst.ValuesReturned, wst.Amplification(), wst.BytesRead)
	}

	// C: late materialization — decode time with and without it.
	fmt.Fprintln(out, "C. late materialization (time decoded and filtered first, values only for survivors):")
	for _, c := range []struct {
		name string
		sel  timeseries.Selector
		tr   timeseries.TimeRange
		cols []string
	}{
		{"host_hour, 10 metrics", timeseries.Selector{"hostname": w.host}, timeseries.TimeRange{From: w.from, To: w.to}, tsbs.Metrics},
		{"all hosts, one hour, 10 metrics", nil, timeseries.TimeRange{From: w.from, To: w.to}, tsbs.Metrics},
		{"all hosts, 10 minutes, 4 metrics", nil, timeseries.TimeRange{From: w.from, To: w.from + 600e6}, w.winCols},
	} {
		var res [2]timeseries.Stats
		var wall [2]time.Duration
		for k, eager := range []bool{true, false} {
			best := time.Duration(1 << 62)
			for rep := 0; rep < 5; rep++ {
				st, el, err := s.drain(timeseries.QueryOptions{Series: c.sel, Time: &c.tr, Columns: c.cols, Eager: eager})
				if err != nil {
					return err
				}
				if st.Decode < best {
					best, res[k], wall[k] = st.Decode, st, el
				}
			}
		}
		fmt.Fprintf(out, "   %s: decode %v eager, %v late (%.0f%% saved); values decoded %d vs %d (%.0f%% saved); wall %v vs %v\n",
			c.name, res[0].Decode.Round(time.Microsecond), res[1].Decode.Round(time.Microsecond),
			100*(1-float64(res[1].Decode)/float64(res[0].Decode)), res[0].ValuesDecoded, res[1].ValuesDecoded,
			100*(1-float64(res[1].ValuesDecoded)/float64(res[0].ValuesDecoded)), wall[0].Round(time.Microsecond), wall[1].Round(time.Microsecond))
	}
	// D: parallel column decode after one read step. Wall time needs an
	// idle machine; CPU time (user + system of the process) shows the work
	// the parallel path adds, which a loaded machine does not hide.
	fmt.Fprintf(out, "D. parallel column decode (%d cores; best wall and median CPU of 5 runs):\n", runtime.NumCPU())
	ths := []int{1, 2}
	if n := runtime.NumCPU(); n > 2 {
		ths = append(ths, n)
	}
	wins := s.windows(w.wins)
	for _, q := range []struct {
		name string
		run  func(th int) error
	}{
		{"all hosts, one hour, 10 metrics", func(th int) error {
			_, _, err := s.drain(timeseries.QueryOptions{Time: &timeseries.TimeRange{From: w.from, To: w.to}, Columns: tsbs.Metrics, Threads: th})
			return err
		}},
		{fmt.Sprintf("%d windows of %d rows, 4 metrics", len(wins), w.length), func(th int) error {
			recs, _, err := s.f.ReadWindows(bg, wins, timeseries.SampleOptions{Length: w.length, Columns: w.winCols, Threads: th})
			for _, r := range recs {
				r.Release()
			}
			return err
		}},
	} {
		var base, baseCPU time.Duration
		for _, th := range ths {
			if err := q.run(th); err != nil { // warm-up
				return err
			}
			best := time.Duration(1 << 62)
			var cpus []float64
			for rep := 0; rep < 5; rep++ {
				t0, c0 := time.Now(), cpuNow()
				if err := q.run(th); err != nil {
					return err
				}
				best = min(best, time.Since(t0))
				cpus = append(cpus, float64(cpuNow()-c0))
			}
			cpu := time.Duration(summarize(cpus).Median)
			if th == 1 {
				base, baseCPU = best, cpu
			}
			fmt.Fprintf(out, "   %s, %d threads: wall %v (speed-up %.2fx), CPU %v (%.2fx the CPU of one thread)\n", q.name, th,
				best.Round(time.Microsecond), float64(base)/float64(best), cpu.Round(time.Microsecond), float64(cpu)/float64(baseCPU))
		}
	}
	return nil
}

func (s *strataTS) drain(o timeseries.QueryOptions) (timeseries.Stats, time.Duration, error) {
	t0 := time.Now()
	rows, err := s.f.Query(bg, o)
	if err != nil {
		return timeseries.Stats{}, 0, err
	}
	for {
		rec, err := rows.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return timeseries.Stats{}, 0, err
		}
		rec.Release()
	}
	return rows.Stats(), time.Since(t0), nil
}

// strataTSReal writes src as a time-series table (keys, time) at path,
// letting the writer sort it, then reads the latest point of every series
// and reports the series count, the data bytes that read touched and its
// time (the best of five, after a first read that fills the index cache).
func strataTSReal(path string, src *Source, keys []string, timeCol string, threads int) (int, int64, float64, error) {
	w, err := timeseries.Create(path, src.Schema, timeseries.Model{Keys: keys, Time: timeCol},
		&timeseries.WriterOptions{Table: write.Options{Parallel: threads}})
	if err != nil {
		return 0, 0, 0, err
	}
	for _, rec := range src.Records {
		if err := w.Write(rec); err != nil {
			w.Abort()
			return 0, 0, 0, err
		}
	}
	if err := w.Close(); err != nil {
		return 0, 0, 0, err
	}
	f, err := timeseries.Open(path, &timeseries.Options{Threads: threads})
	if err != nil {
		return 0, 0, 0, err
	}
	defer f.Close()
	var dataBytes int64
	best := 0.0
	for i := 0; i < 6; i++ {
		t0 := time.Now()
		rec, st, err := f.Last(bg, nil, nil)
		if err != nil {
			return 0, 0, 0, err
		}
		el := msSince(t0)
		if rec.NumRows() != int64(f.NumSeries()) {
			rec.Release()
			return 0, 0, 0, fmt.Errorf("last: %d rows for %d series", rec.NumRows(), f.NumSeries())
		}
		rec.Release()
		if i == 0 {
			dataBytes = st.BytesRead
		} else if i == 1 || el < best {
			best = el
		}
	}
	return f.NumSeries(), dataBytes, best, nil
}

// Batch reads the windows as one stacked record and interleaves the
// metrics into dst as float32 (seed experiment E).
func (s *strataTS) Batch(w *tsWork, wins []tsWin, dst []float32) error {
	recs, _, err := s.f.ReadWindows(bg, s.windows(wins), timeseries.SampleOptions{Length: w.length, Columns: w.winCols, Stacked: true})
	if err != nil {
		return err
	}
	if len(recs) != 1 {
		return fmt.Errorf("%d stacked records", len(recs))
	}
	rec := recs[0]
	defer rec.Release()
	C := len(w.winCols)
	for c := range w.winCols {
		a, ok := rec.Column(1 + c).(*array.Float64)
		if !ok {
			return fmt.Errorf("column %q is %T", w.winCols[c], rec.Column(1+c))
		}
		for k, v := range a.Float64Values() {
			dst[k*C+c] = float32(v)
		}
	}
	return nil
}
