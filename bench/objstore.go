//go:build !nostrata

package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"strata"
	"strata/internal/facade"
	"strata/internal/objtest"
	"strata/iox"
	"strata/iox/remote"
	"strata/iox/s3"
)

// The object-storage benchmark: the same lineitem written as Strata and as
// Parquet (arrow-go, zstd) is stored in a real S3-compatible server
// (versitygw on 127.0.0.1) and read through a fault-injecting proxy that
// adds latency to every request and counts requests and bytes. Strata reads
// through its S3 source; arrow-go's pqarrow reads the Parquet object through
// an io.ReaderAt over the same S3 client (one ranged GET per ReadAt), so the
// two differ only in what they ask for.

const osBucket = "strata-bench"

// osRow is one measured query at one latency.
type osRow struct {
	Latency  time.Duration
	Query    string
	System   string
	Requests int64 // requests the server side saw in one run (median)
	Bytes    int64 // response bytes in one run (median)
	Time     *Fig  // ms
	Note     string
}

// takeTarget is the most requests a one-row Take may make once the
// file's metadata is cached (issue 10).
const takeTarget = 3

// osRun is the outcome of one run of a query.
type osRun struct {
	out Out
	// extra describes the run (stripes with survivors, say); kept from the
	// last run.
	extra string
}

func runObjstore(stdout, stderr io.Writer, src *Source, wl *Workload, runs int, latencies []time.Duration, workDir string) int {
	ctx := context.Background()
	fail := func(err error) int { fmt.Fprintln(stderr, "bench: objstore:", err); return 1 }
	if !wl.Lineitem {
		return fail(fmt.Errorf("the object-storage benchmark needs the lineitem columns"))
	}
	cfg := config{threads: 1}
	local := map[string]string{}
	for _, sys := range []System{newStrataSys("default", cfg), newArrowSys("zstd", cfg)} {
		dir := filepath.Join(workDir, sys.Name())
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fail(err)
		}
		path, err := sys.Write(dir, src)
		if err != nil {
			return fail(fmt.Errorf("%s: %w", sys.Name(), err))
		}
		local[sys.Name()] = path
	}
	bin, err := objtest.Binary(func(f string, a ...any) { fmt.Fprintf(stderr, f+"\n", a...) })
	if err != nil {
		return fail(err)
	}
	srv, err := objtest.Start(bin, filepath.Join(workDir, "s3"))
	if err != nil {
		return fail(err)
	}
	defer srv.Stop()
	keys := map[string]string{"strata": "lineitem.strata", "arrow-go": "lineitem.parquet"}
	for sys, path := range local {
		data, err := os.ReadFile(path)
		if err != nil {
			return fail(err)
		}
		if err := srv.Put(ctx, osBucket, keys[sys], data); err != nil {
			return fail(err)
		}
		fmt.Fprintf(stderr, "stored s3://%s/%s: %d bytes\n", osBucket, keys[sys], len(data))
	}
	proxy, err := objtest.NewProxy(srv.Endpoint)
	if err != nil {
		return fail(err)
	}
	defer proxy.Close()
	client, err := s3.NewClient(ctx, srv.Config(proxy.URL))
	if err != nil {
		return fail(err)
	}
	defer client.Close()

	// Reference results from the local Strata file.
	ref := newStrataSys("default", cfg)
	if err := ref.Open(local["strata"]); err != nil {
		return fail(err)
	}
	refMonth, err := ref.QMonth(wl, true)
	if err != nil {
		return fail(err)
	}
	refScan, err := ref.Scan(true)
	if err != nil {
		return fail(err)
	}
	ref.Close()

	var rows []osRow
	measureQ := func(lat time.Duration, query, system string, setup func() error, run func(i int) (osRun, error), want *Checksum) error {
		var times []float64
		var reqs, bytes []float64
		var note string
		for i := range runs + 1 { // the first run warms connections and is not timed
			if setup != nil {
				if err := setup(); err != nil {
					return err
				}
			}
			proxy.Reset()
			t0 := time.Now()
			r, err := run(i)
			el := time.Since(t0)
			if err != nil {
				return fmt.Errorf("%s/%s: %w", query, system, err)
			}
			if want != nil && i == 0 {
				if d := want.Diff(r.out.Sum); d != "" {
					return fmt.Errorf("%s/%s through S3 differs from the local file: %s", query, system, d)
				}
			}
			if i == 0 {
				continue
			}
			c := proxy.Counts()
			times = append(times, ms(el))
			reqs = append(reqs, float64(c.Requests))
			bytes = append(bytes, float64(c.Bytes))
			note = r.extra
		}
		rows = append(rows, osRow{Latency: lat, Query: query, System: system, Requests: int64(summarize(reqs).Median),
			Bytes: int64(summarize(bytes).Median), Time: summarize(times), Note: note})
		r := rows[len(rows)-1]
		fmt.Fprintf(stderr, "  %-8s %-22s %-9s %5d requests %11d bytes %9.2f ms [%.2f-%.2f] %s\n",
			fmtLatency(lat), query, system, r.Requests, r.Bytes, r.Time.Median, r.Time.Min, r.Time.Max, r.Note)
		return nil
	}

	// The same scans of the local files, in the same run, for scale.
	for _, sys := range []System{newStrataSys("default", cfg), newArrowSys("zstd", cfg)} {
		if err := sys.Open(local[sys.Name()]); err != nil {
			return fail(err)
		}
		err := measureQ(-1, "scan", sys.Name(), nil, func(i int) (osRun, error) {
			out, err := sys.Scan(i == 0)
			return osRun{out: out, extra: "local file, no server"}, err
		}, refScan.Sum)
		sys.Close()
		if err != nil {
			return fail(err)
		}
	}

	for _, lat := range latencies {
		proxy.SetLatency(lat)
		fmt.Fprintf(stderr, "latency %v per request:\n", lat)

		// Strata: open (HEAD + tail), then queries on one open file.
		var sf *strata.File
		openStrata := func() (*strata.File, error) {
			obj, err := client.Open(ctx, osBucket, keys["strata"])
			if err != nil {
				return nil, err
			}
			return strata.OpenSource(obj)
		}
		err := measureQ(lat, "open", "strata", nil, func(int) (osRun, error) {
			f, err := openStrata()
			if err == nil {
				sf = f
			}
			return osRun{}, err
		}, nil)
		if err != nil {
			return fail(err)
		}
		st := &strataSys{variant: "default", cfg: cfg, f: sf}
		// q_month on a file opened for it: the requests of the open count,
		// and no decoder is cached yet.
		if err := measureQ(lat, "open + q_month", "strata", nil, func(i int) (osRun, error) {
			f, err := openStrata()
			if err != nil {
				return osRun{}, err
			}
			// Decoders opened by earlier runs stay in the process-wide
			// cache (the metadata cache keeps the open itself to the
			// object's first request): drop them, so every run reads.
			f.DropCaches()
			out, err := (&strataSys{variant: "default", cfg: cfg, f: f}).QMonth(wl, i == 0)
			return osRun{out: out}, err
		}, refMonth.Sum); err != nil {
			return fail(err)
		}
		survivors, err := stripesWithSurvivors(sf, monthWhere(wl))
		if err != nil {
			return fail(err)
		}
		rows[len(rows)-1].Note = fmt.Sprintf("%d rows; %d of %d stripes with survivors: target %d requests",
			refMonth.Rows, survivors, sf.NumStripes(), 2+2*survivors)
		if err := measureQ(lat, "scan", "strata", nil, func(i int) (osRun, error) {
			out, err := st.Scan(i == 0)
			return osRun{out: out}, err
		}, refScan.Sum); err != nil {
			return fail(err)
		}
		// One-row Take once metadata is cached: a fresh file whose stripe
		// groups are loaded (untimed), then one row in a chunk not read yet.
		var tf *strata.File
		n := sf.NumRows()
		if err := measureQ(lat, "take 1 row (cold)", "strata", func() error {
			f, err := openStrata()
			if err != nil {
				return err
			}
			c := facade.ReadFile(f).Container()
			for i := range c.NumStripes() {
				if _, err := c.Streams(ctx, i); err != nil {
					return err
				}
			}
			f.DropCaches()
			tf = f
			return nil
		}, func(i int) (osRun, error) {
			row := (int64(i)*7919 + 1) * (n / 13) % n
			rec, err := tf.Take([]int64{row}, nil)
			if err != nil {
				return osRun{}, err
			}
			defer rec.Release()
			if rec.NumRows() != 1 {
				return osRun{}, fmt.Errorf("take returned %d rows", rec.NumRows())
			}
			return osRun{extra: "metadata cached, decoders cold"}, nil
		}, nil); err != nil {
			return fail(err)
		}
		// issue 10's target for this lookup; a regression shows in the note
		if r := &rows[len(rows)-1]; r.Requests > takeTarget {
			r.Note += fmt.Sprintf("; over the target of %d requests", takeTarget)
		} else {
			r.Note += fmt.Sprintf("; target %d requests", takeTarget)
		}
		obj, err := client.Open(ctx, osBucket, keys["strata"])
		if err != nil {
			return fail(err)
		}
		known := remote.Known{Size: obj.Size(), ETag: obj.ETag()}
		if err := measureQ(lat, "reopen", "strata", nil, func(int) (osRun, error) {
			_, err := strata.OpenSource(client.OpenKnown(osBucket, keys["strata"], known))
			return osRun{extra: "size and ETag known; metadata from the cache across opens"}, err
		}, nil); err != nil {
			return fail(err)
		}

		// arrow-go pqarrow through an io.ReaderAt over the same client,
		// one file reader as for the local scans and filtered queries.
		as := newArrowSys("zstd", cfg)
		openArrow := func() error {
			as.Close()
			obj, err := client.Open(ctx, osBucket, keys["arrow-go"])
			if err != nil {
				return err
			}
			if as.pf, err = file.NewParquetReader(io.NewSectionReader(iox.ReaderAt(ctx, obj), 0, obj.Size())); err != nil {
				return err
			}
			as.fr, err = pqarrow.NewFileReader(as.pf, pqarrow.ArrowReadProperties{BatchSize: 64 << 10}, memory.DefaultAllocator)
			return err
		}
		if err := measureQ(lat, "open", "arrow-go", nil, func(int) (osRun, error) {
			return osRun{}, openArrow()
		}, nil); err != nil {
			return fail(err)
		}
		if err := measureQ(lat, "open + q_month", "arrow-go", nil, func(i int) (osRun, error) {
			if err := openArrow(); err != nil {
				return osRun{}, err
			}
			out, err := as.QMonth(wl, i == 0)
			return osRun{out: out}, err
		}, refMonth.Sum); err != nil {
			return fail(err)
		}
		if err := openArrow(); err != nil {
			return fail(err)
		}
		if err := measureQ(lat, "scan", "arrow-go", nil, func(i int) (osRun, error) {
			out, err := as.Scan(i == 0)
			return osRun{out: out}, err
		}, refScan.Sum); err != nil {
			return fail(err)
		}
		as.Close()
	}
	printObjstore(stdout, rows)
	return 0
}

// stripesWithSurvivors counts the stripes in which where matches a row: a
// filtered scan returns one batch per such stripe.
func stripesWithSurvivors(f *strata.File, where string) (int, error) {
	sc, err := f.Scan(strata.ScanOptions{Columns: monthCols[:1], Where: where})
	if err != nil {
		return 0, err
	}
	defer sc.Close()
	n := 0
	for {
		rec, err := sc.Next()
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return 0, err
		}
		if rec.NumRows() > 0 {
			n++
		}
		rec.Release()
	}
}

func fmtLatency(d time.Duration) string {
	if d < 0 {
		return "local"
	}
	if d == 0 {
		return "0 ms"
	}
	return fmt.Sprintf("%g ms", float64(d)/float64(time.Millisecond))
}

// printObjstore prints the rows as a Markdown table, with Strata's scan
// beside arrow-go's at each latency.
func printObjstore(w io.Writer, rows []osRow) {
	fmt.Fprintln(w, "| added latency | query | system | requests | bytes | time ms, median [min–max] | note |")
	fmt.Fprintln(w, "|---|---|---|---:|---:|---:|---|")
	for _, r := range rows {
		fmt.Fprintf(w, "| %s | %s | %s | %d | %s | %.1f [%.1f–%.1f] | %s |\n", fmtLatency(r.Latency), r.Query, r.System,
			r.Requests, groupDigits(r.Bytes), r.Time.Median, r.Time.Min, r.Time.Max, r.Note)
	}
	for _, lat := range uniqLatencies(rows) {
		var s, a *osRow
		for i := range rows {
			if rows[i].Latency == lat && rows[i].Query == "scan" {
				if rows[i].System == "strata" {
					s = &rows[i]
				} else {
					a = &rows[i]
				}
			}
		}
		if s != nil && a != nil {
			fmt.Fprintf(w, "\nfull scan at %s: Strata %.2fx faster than arrow-go pqarrow (medians)\n", fmtLatency(lat), a.Time.Median/s.Time.Median)
		}
	}
}

func uniqLatencies(rows []osRow) []time.Duration {
	var out []time.Duration
	for _, r := range rows {
		if len(out) == 0 || out[len(out)-1] != r.Latency {
			out = append(out, r.Latency)
		}
	}
	return out
}
