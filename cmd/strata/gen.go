package main

import (
	"flag"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"strata"
	"strata/interop"
	"strata/timeseries"
	"strata/tpch"
	"strata/tsbs"
)

func runGen(args []string) error {
	fs := flag.NewFlagSet("gen", flag.ContinueOnError)
	sf := fs.Float64("sf", 0.1, "TPC-H scale factor")
	seed := fs.Uint64("seed", 1, "random seed")
	hosts := fs.Int("hosts", 100, "tsbs: hosts")
	duration := fs.Duration("duration", 24*time.Hour, "tsbs: time span")
	interval := fs.Duration("interval", 10*time.Second, "tsbs: reporting interval")
	precise := fs.Bool("precise", false, "tsbs: keep the random walks' full float64 values instead of whole numbers")
	timeMajor := fs.Bool("time-major", false, "tsbs: emit rows in TSBS's order (every host at each time) instead of (hostname, time)")
	pf := addProgressFlags(fs)
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 2 && pos[0] == "tsbs" {
		switch {
		case *hosts < 1 || *hosts > tsbs.MaxHosts:
			return usagef("--hosts %d: want 1 to %d", *hosts, tsbs.MaxHosts)
		case *duration <= 0:
			return usagef("--duration %v: want a span above zero", *duration)
		case *interval <= 0:
			return usagef("--interval %v: want an interval above zero", *interval)
		}
		return genTSBS(pos[1], tsbs.Options{Hosts: *hosts, Duration: *duration, Interval: *interval, Seed: *seed,
			Precise: *precise, TimeMajor: *timeMajor}, pf)
	}
	if len(pos) != 2 || pos[0] != "tpch" {
		return usagef("want: gen tpch [--sf 0.1] [--seed 1] OUT, or gen tsbs [--hosts 100] [--duration 24h] OUT")
	}
	out := pos[1]
	if !(*sf > 0 && *sf <= tpch.MaxScaleFactor) {
		return usagef("--sf %v: want a scale factor in (0, %d]", *sf, tpch.MaxScaleFactor)
	}
	gen := tpch.NewLineitem(*sf, *seed, 64<<10)
	var sink genSink
	switch strings.ToLower(filepath.Ext(out)) {
	case ".strata":
		w, err := createStrata(ctx, out, nil, tpch.Schema(), &strata.WriteOptions{RowsHint: gen.Rows()})
		if err != nil {
			return err
		}
		sink = w
	default:
		s, err := createExport(ctx, out, nil, tpch.Schema(), interop.WriteOptions{})
		if err != nil {
			return err
		}
		sink = s
	}
	return generate(out, sink, gen, gen.Rows(), pf)
}

// genTSBS writes the TSBS cpu-only workload: a time-series table keyed by
// the ten host tags for .strata, plain rows for .parquet and .csv.
func genTSBS(out string, o tsbs.Options, pf *progressFlags) error {
	g, err := tsbs.New(o)
	if err != nil {
		return err
	}
	var sink genSink
	if strings.ToLower(filepath.Ext(out)) == ".strata" {
		w, err := createTimeSeries(ctx, out, nil, g.Schema(), timeseries.Model{Keys: tsbs.Tags, Time: tsbs.TimeColumn},
			&timeseries.WriterOptions{Sorted: !o.TimeMajor})
		if err != nil {
			return err
		}
		sink = w
	} else {
		s, err := createExport(ctx, out, nil, g.Schema(), interop.WriteOptions{})
		if err != nil {
			return err
		}
		sink = s
	}
	return generate(out, sink, g, g.Rows(), pf)
}

// genSink is where a generator's batches go: a Strata writer, or an
// export sink of another format.
type genSink interface {
	Write(rec arrow.Record) error
	Close() error
	Abort()
}

// generate writes every batch of src (rows in all) into sink, which it
// closes, or aborts on failure so that a failed generation leaves no file.
func generate(out string, sink genSink, src interface{ Next() (arrow.Record, error) }, rows int64, pf *progressFlags) (err error) {
	closed := false
	defer func() {
		if err != nil && !closed {
			sink.Abort()
		}
	}()
	p := newProgress("gen", "rows", rows, pf)
	var n int64
	for {
		rec, err := src.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		n += rec.NumRows()
		err = sink.Write(rec)
		rec.Release()
		if err != nil {
			return err
		}
		p.update(n)
	}
	closed = true
	if err := sink.Close(); err != nil {
		return err
	}
	p.finish(n)
	p.summary("wrote %s: %d rows, %d bytes\n", out, n, outSize(ctx, out, nil))
	return nil
}
