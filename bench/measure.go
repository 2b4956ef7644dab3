package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"time"
)

// Fig is one measured figure: median, min and max over the timed runs.
// A nil *Fig means the system could not run that query.
type Fig struct {
	Median, Min, Max float64
}

func summarize(xs []float64) *Fig {
	if len(xs) == 0 {
		return nil
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	var med float64
	if n := len(s); n%2 == 1 {
		med = s[n/2]
	} else {
		med = (s[n/2-1] + s[n/2]) / 2
	}
	return &Fig{Median: med, Min: s[0], Max: s[len(s)-1]}
}

// Result is one system's row of the report.
type Result struct {
	System  string
	Variant string
	Bytes   *int64
	Write   *Fig // ms
	Scan    *Fig // ms
	QRange  *Fig // ms
	QMonth  *Fig // ms
	QAgg    *Fig // ms
	Take    *Fig // µs per row
	// TakeCold is take with the system's own caches dropped before each
	// run and every row in a chunk no earlier row of the run touched
	// (systems that implement coldTaker only).
	TakeCold *Fig // µs per row
	// IO holds, per query, the requests and bytes one run read (systems
	// that implement ioCounter only).
	IO     map[string][2]int64
	Errors []string
}

// coldTaker is implemented by systems that can drop the caches they keep of
// opened data, so that lookups can be timed cold.
type coldTaker interface {
	DropCaches()
}

// ioCounter is implemented by systems that count the requests and bytes
// their last query read.
type ioCounter interface {
	LastIO() (requests, bytes int64)
}

// coldBlock is the span of rows a cold lookup's row is alone in: Strata's
// writer cuts a column's chunks at multiples of a power of two of at most
// 64 Ki values (write.Options.ChunkValues), so a row alone in its 64 Ki
// block is in a chunk no other kept row touches, in every column. (It was
// 8,192, the chunk of the first writer; with byte-sized chunks of up to 64
// Ki values, later rows of a run found most columns' chunks opened by
// earlier ones, and the cold figure was cheaper than a cold lookup.)
const coldBlock = 64 << 10

// coldRows keeps, in order, the rows of rows that fall in a block of
// coldBlock rows no earlier kept row fell in.
func coldRows(rows []int64) []int64 {
	seen := map[int64]bool{}
	var out []int64
	for _, r := range rows {
		if !seen[r/coldBlock] {
			seen[r/coldBlock] = true
			out = append(out, r)
		}
	}
	return out
}

// Report is the whole run.
type Report struct {
	Dataset string
	Rows    int64
	Results []*Result
}

func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }

// takeBudget bounds the time of one timed take run (see measure).
var takeBudget = 3 * time.Second

// measure runs every figure of one system. Failures other than
// errUnsupported are recorded (and printed) but do not stop the other systems.
func measure(s System, src *Source, wl *Workload, dir string, runs int, ck *crossCheck, log io.Writer) *Result {
	res := &Result{System: s.Name(), Variant: s.Variant()}
	fail := func(what string, err error) {
		if errors.Is(err, errUnsupported) {
			fmt.Fprintf(log, "  %s %s: not supported (%v)\n", key(s), what, err)
			return
		}
		msg := fmt.Sprintf("%s: %v", what, err)
		res.Errors = append(res.Errors, msg)
		fmt.Fprintf(log, "  %s ERROR %s\n", key(s), msg)
	}
	fmt.Fprintf(log, "== %s\n", key(s))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fail("write", err)
		return res
	}

	// Write: one warm-up, then timed runs (each overwrites the file).
	var path string
	var times []float64
	for i := 0; i <= runs; i++ {
		t0 := time.Now()
		p, err := s.Write(dir, src)
		d := time.Since(t0)
		if err != nil {
			fail("write", err)
			return res
		}
		path = p
		if i > 0 {
			times = append(times, ms(d))
		}
	}
	res.Write = summarize(times)
	size, err := fileBytes(path)
	if err != nil {
		fail("write", err)
		return res
	}
	res.Bytes = &size
	fmt.Fprintf(log, "  bytes %d, write %.1f ms\n", size, res.Write.Median)

	if err := s.Open(path); err != nil {
		fail("open", err)
		return res
	}
	defer s.Close()

	// timeQuery runs q once verifying (warm-up), then runs times.
	timeQuery := func(name string, q func(verify bool) (Out, error), perRow int) *Fig {
		out, err := q(true)
		if err != nil {
			fail(name, err)
			return nil
		}
		if name != "take" { // take is cross-checked on its full lookup list
			ck.add(name, key(s), out)
		}
		var xs []float64
		for range runs {
			t0 := time.Now()
			o, err := q(false)
			d := time.Since(t0)
			if err != nil {
				fail(name, err)
				return nil
			}
			if o.Rows != out.Rows {
				ck.mismatch(name, key(s), fmt.Sprintf("timed run returned %d rows, warm-up %d", o.Rows, out.Rows))
			}
			v := ms(d)
			if perRow > 0 {
				v = float64(d.Nanoseconds()) / 1e3 / float64(perRow)
			}
			xs = append(xs, v)
		}
		f := summarize(xs)
		unit := "ms"
		if perRow > 0 {
			unit = "µs/row"
		}
		io := ""
		if c, ok := s.(ioCounter); ok {
			req, n := c.LastIO()
			if res.IO == nil {
				res.IO = map[string][2]int64{}
			}
			res.IO[name] = [2]int64{req, n}
			io = fmt.Sprintf(", %d requests, %d bytes", req, n)
			if ct, ok := s.(coldTaker); ok && perRow == 0 {
				// Once more, untimed, with the system's caches dropped: what
				// the query reads when nothing is cached.
				ct.DropCaches()
				if _, err := q(false); err == nil {
					req, n := c.LastIO()
					res.IO[name+"_cold"] = [2]int64{req, n}
					io += fmt.Sprintf(" (cold: %d requests, %d bytes)", req, n)
				}
			}
		}
		fmt.Fprintf(log, "  %-8s %10.3f %s (min %.3f, max %.3f), %d rows%s\n", name, f.Median, unit, f.Min, f.Max, out.Rows, io)
		return f
	}

	res.Scan = timeQuery("scan", s.Scan, 0)
	if wl.Lineitem {
		res.QRange = timeQuery("q_range", func(v bool) (Out, error) { return s.QRange(wl, v) }, 0)
		res.QMonth = timeQuery("q_month", func(v bool) (Out, error) { return s.QMonth(wl, v) }, 0)
		res.QAgg = timeQuery("q_agg", func(bool) (Out, error) { return s.QAgg(wl) }, 0)
	}
	if len(wl.Take) > 0 {
		// The verifying run looks up every row; when that took long (readers
		// without a row index), timed runs use a prefix of the same rows sized
		// to about takeBudget per run, so a slow reader still finishes.
		rows := wl.Take
		t0 := time.Now()
		out, err := s.Take(rows, true)
		full := time.Since(t0)
		if err != nil {
			fail("take", err)
		} else {
			ck.add("take", key(s), out)
			if k := int(float64(len(rows)) * takeBudget.Seconds() / full.Seconds()); k < len(rows) {
				rows = rows[:max(k, min(len(rows), 20))]
				fmt.Fprintf(log, "  take: verifying run took %v; timed runs use the first %d of %d lookups\n", full.Round(time.Millisecond), len(rows), len(wl.Take))
			}
			res.Take = timeQuery("take", func(v bool) (Out, error) {
				if v {
					return Out{Rows: int64(len(rows))}, nil // already verified above
				}
				return s.Take(rows, false)
			}, len(rows))
			if ct, ok := s.(coldTaker); ok {
				cold := coldRows(rows)
				var xs []float64
				for range runs {
					ct.DropCaches()
					t0 := time.Now()
					if _, err := s.Take(cold, false); err != nil {
						fail("take_cold", err)
						break
					}
					xs = append(xs, float64(time.Since(t0).Nanoseconds())/1e3/float64(len(cold)))
				}
				if res.TakeCold = summarize(xs); res.TakeCold != nil {
					fmt.Fprintf(log, "  %-8s %10.3f µs/row (min %.3f, max %.3f), %d rows in distinct chunks, caches dropped before each run\n",
						"take_cold", res.TakeCold.Median, res.TakeCold.Min, res.TakeCold.Max, len(cold))
				}
			}
		}
	}
	return res
}

// fileBytes is the size of a written file; for a directory (a format that
// writes several files), the sum of its regular files.
func fileBytes(path string) (int64, error) {
	st, err := os.Stat(path)
	if err != nil {
		return 0, err
	}
	if !st.IsDir() {
		return st.Size(), nil
	}
	var n int64
	err = filepath.Walk(path, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			n += fi.Size()
		}
		return err
	})
	return n, err
}

// crossCheck compares every system's verified results per query with the
// first system that answered it.
type crossCheck struct {
	log    io.Writer
	ref    map[string]Out
	refSys map[string]string
	failed bool
	checks int
}

func newCrossCheck(log io.Writer) *crossCheck {
	return &crossCheck{log: log, ref: map[string]Out{}, refSys: map[string]string{}}
}

func (c *crossCheck) mismatch(query, sys, msg string) {
	c.failed = true
	fmt.Fprintf(c.log, "\n!!!!!!!! MISMATCH %s on %s: %s !!!!!!!!\n\n", sys, query, msg)
}

func (c *crossCheck) add(query, sys string, out Out) {
	// q_agg's count must also agree with q_month's row count.
	if query == "q_agg" {
		if m, ok := c.ref["q_month"]; ok && m.Rows != out.AggCount {
			c.mismatch(query, sys, fmt.Sprintf("count(*) %d but q_month (%s) returned %d rows", out.AggCount, c.refSys["q_month"], m.Rows))
		}
	}
	ref, ok := c.ref[query]
	if !ok {
		c.ref[query], c.refSys[query] = out, sys
		return
	}
	c.checks++
	rs := c.refSys[query]
	switch {
	case query == "q_agg":
		if ref.AggCount != out.AggCount || ref.AggSum != out.AggSum {
			c.mismatch(query, sys, fmt.Sprintf("count %d sum %d, but %s has count %d sum %d", out.AggCount, out.AggSum, rs, ref.AggCount, ref.AggSum))
		}
	case ref.Sum == nil || out.Sum == nil:
		if ref.Rows != out.Rows {
			c.mismatch(query, sys, fmt.Sprintf("%d rows, but %s returned %d", out.Rows, rs, ref.Rows))
		}
	default:
		if d := out.Sum.Diff(ref.Sum); d != "" || out.Rows != ref.Rows {
			c.mismatch(query, sys, fmt.Sprintf("differs from %s: rows %d vs %d; %s", rs, out.Rows, ref.Rows, d))
		}
	}
}

func (c *crossCheck) final() {
	if !c.failed {
		fmt.Fprintf(c.log, "cross-check: %d comparisons, all results agree\n", c.checks)
	}
}
