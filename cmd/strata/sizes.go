package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"strata"
	"strata/encoding"
	"strata/interop"
	"strata/write"
)

// sizeColumn is one column of a size report: Strata's bytes for it beside
// the bytes of the Parquet file's column chunks for it.
type sizeColumn struct {
	Name    string  `json:"name"`
	Type    string  `json:"type"`
	Strata  int64   `json:"strata_bytes"`
	Parquet int64   `json:"parquet_bytes"`
	Ratio   float64 `json:"ratio"`
	Tree    string  `json:"tree"` // the encoding tree most chunks use
}

// sizeSet is one Parquet file of a size report.
type sizeSet struct {
	Name    string       `json:"name"`
	Rows    int64        `json:"rows"`
	Parquet int64        `json:"parquet_bytes"`
	Strata  int64        `json:"strata_bytes"`
	Ratio   float64      `json:"ratio"`
	WriteMS float64      `json:"write_ms"`
	Columns []sizeColumn `json:"columns"`
}

// sizeSkip is a file of a size report that could not be measured.
type sizeSkip struct {
	Name  string `json:"name"`
	Path  string `json:"path"`
	Error string `json:"error"`
}

// runSizes imports every Parquet file it is given (files, or directories
// whose *.parquet files are taken) with the writer options of `import`,
// and prints Strata's bytes beside the Parquet file's, per set and per
// column, with the geometric mean of the per-set ratios. It is the size
// report a user runs on their own data before adopting Strata.
func runSizes(args []string) error { return sizesTo(os.Stdout, args) }

// sizesTo is runSizes printing to out. A file that cannot be imported (a
// type Strata refuses, a codec arrow-go lacks, a damaged file) is
// reported and skipped, so one such file in a directory does not cost the
// report of the others; the run then ends with an error naming how many
// were skipped, after the report.
func sizesTo(out io.Writer, args []string) error {
	fs := flag.NewFlagSet("sizes", flag.ContinueOnError)
	wo := addWriteFlags(fs)
	pf := addProgressFlags(fs)
	perColumn := fs.Bool("columns", true, "print a line per column")
	jsonOut := fs.String("json", "", "also write the report as JSON to this file")
	keep := fs.String("keep", "", "keep the written .strata files in this directory")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return usagef("want one or more Parquet files or directories")
	}
	var files []string
	for _, p := range pos {
		st, err := os.Stat(p)
		if err != nil {
			return err
		}
		if !st.IsDir() {
			files = append(files, p)
			continue
		}
		m, err := filepath.Glob(filepath.Join(p, "*.parquet"))
		if err != nil {
			return err
		}
		sort.Strings(m)
		files = append(files, m...)
	}
	if len(files) == 0 {
		return fmt.Errorf("no .parquet files in %s", strings.Join(pos, ", "))
	}
	dir := *keep
	if dir == "" {
		if dir, err = os.MkdirTemp("", "strata-sizes-"); err != nil {
			return err
		}
		defer os.RemoveAll(dir)
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	opts, err := wo.options()
	if err != nil {
		return err
	}
	var sets []sizeSet
	var skipped []sizeSkip
	logSum := 0.0
	if opts.StripeRows > 0 {
		// The source's row groups are not Strata's stripes: compared
		// with them, a file of small stripes would look larger for its
		// shape, not its encodings.
		fmt.Fprintf(out, "parquet: each file rewritten by arrow-go with zstd in row groups of %d rows, as the stripes\n", opts.StripeRows)
	}
	fmt.Fprintf(out, "%-16s %10s %12s %12s %7s %9s\n", "set", "rows", "parquet", "strata", "ratio", "write")
	for _, src := range files {
		name := strings.TrimSuffix(filepath.Base(src), ".parquet")
		dst := filepath.Join(dir, name+".strata")
		set, err := sizeOne(src, dst, opts, newProgress("import "+name, "rows", 0, pf))
		if err != nil {
			os.Remove(dst) // what a failed import left, under --keep too
			skipped = append(skipped, sizeSkip{Name: name, Path: src, Error: err.Error()})
			fmt.Fprintf(out, "%-16s skipped: %v\n", name, err)
			continue
		}
		set.Name = name
		fmt.Fprintf(out, "%-16s %10d %12d %12d %7.3f %7.0fms\n", name, set.Rows, set.Parquet, set.Strata, set.Ratio, set.WriteMS)
		if *perColumn {
			for _, c := range set.Columns {
				fmt.Fprintf(out, "    %-28s %-14s %12d %12d %7.3f  %s\n", c.Name, shorten(c.Type, 14), c.Parquet, c.Strata, c.Ratio, c.Tree)
			}
		}
		logSum += math.Log(set.Ratio)
		sets = append(sets, *set)
	}
	report := map[string]any{"sets": sets}
	if len(sets) > 0 {
		geo := math.Exp(logSum / float64(len(sets)))
		worst := sets[0]
		for _, s := range sets {
			if s.Ratio > worst.Ratio {
				worst = s
			}
		}
		fmt.Fprintf(out, "\n%d sets: geometric mean of strata/parquet %.3f, worst %s %.3f\n", len(sets), geo, worst.Name, worst.Ratio)
		report["geomean"] = geo
	}
	if len(skipped) > 0 {
		names := make([]string, len(skipped))
		for i, s := range skipped {
			names[i] = s.Name
		}
		fmt.Fprintf(out, "%d skipped (not in the mean): %s\n", len(skipped), strings.Join(names, ", "))
		report["skipped"] = skipped
	}
	if *jsonOut != "" {
		b, err := json.MarshalIndent(report, "", "  ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(*jsonOut, append(b, '\n'), 0o644); err != nil {
			return err
		}
	}
	if len(skipped) > 0 {
		return fmt.Errorf("%d of %d files could not be measured (the report says why)", len(skipped), len(files))
	}
	return nil
}

// sizeOne imports src into dst and measures both files. Under
// StripeRows the Parquet side is src rewritten in row groups of as many
// rows (rewriteParquet), beside dst.
func sizeOne(src, dst string, opts *strata.WriteOptions, p *progress) (*sizeSet, error) {
	pqPath := src
	if opts.StripeRows > 0 {
		pqPath = strings.TrimSuffix(dst, ".strata") + ".rowgroups.parquet"
		if err := rewriteParquet(src, pqPath, opts.StripeRows); err != nil {
			os.Remove(pqPath)
			return nil, err
		}
	}
	pq, err := interop.ReadParquetSizes(pqPath)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	rows, err := importFile(src, dst, nil, opts, p, interop.ReadOptions{})
	if err != nil {
		return nil, err
	}
	elapsed := time.Since(start)
	p.finish(rows)
	f, err := strata.Open(dst)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rep, err := f.Inspect()
	if err != nil {
		return nil, err
	}
	set := &sizeSet{Rows: rows, Parquet: pq.File, Strata: fileSize(dst), WriteMS: float64(elapsed.Microseconds()) / 1000}
	set.Ratio = ratio(set.Strata, set.Parquet)
	for _, c := range rep.Columns {
		sc := sizeColumn{Name: c.Name, Type: c.Type, Strata: c.Bytes, Parquet: pq.Columns[c.Name]}
		sc.Ratio = ratio(sc.Strata, sc.Parquet)
		if len(c.Trees) > 0 {
			sc.Tree = c.Trees[0].Tree
			if len(c.Trees) > 1 {
				sc.Tree += fmt.Sprintf(" (+%d other trees)", len(c.Trees)-1)
			}
		}
		set.Columns = append(set.Columns, sc)
	}
	return set, nil
}

// rewriteParquet writes the table of the Parquet file src to dst through
// arrow-go with zstd, in row groups of rows rows.
func rewriteParquet(src, dst string, rows int64) error {
	r, err := interop.Open(src, interop.ReadOptions{})
	if err != nil {
		return err
	}
	defer r.Close()
	w, err := interop.Create(dst, r.Schema(), interop.WriteOptions{ParquetRowGroupRows: rows})
	if err != nil {
		return err
	}
	for {
		rec, err := r.Next()
		if err == io.EOF || err == nil && rec == nil {
			break
		}
		if err == nil {
			err = w.Write(rec)
			rec.Release()
		}
		if err != nil {
			w.Abort()
			return fmt.Errorf("rewriting %s in row groups of %d rows: %w", src, rows, err)
		}
	}
	return w.Close()
}

func ratio(a, b int64) float64 {
	if b == 0 {
		return math.Inf(1)
	}
	return float64(a) / float64(b)
}

func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-1] + "…"
}

// writeFlags are the writer options shared by import and sizes.
type writeFlags struct {
	stripeMB    *int
	stripeRows  *int64
	chunkValues *int
	chunkTarget *int
	noZstd      *bool
	flatmap     *string
	optimize    *string
	layoutFrom  *string
	threads     *int
}

func addWriteFlags(fs *flag.FlagSet) *writeFlags {
	return &writeFlags{
		stripeMB:    fs.Int("stripe-mb", write.DefaultStripeBytes>>20, "flush a stripe every N MiB of raw data"),
		stripeRows:  fs.Int64("stripe-rows", 0, "also end a stripe every N rows, as a Parquet writer's row group size (0: no bound by rows)"),
		chunkValues: fs.Int("chunk-values", write.DefaultChunkValues, "most values per chunk"),
		chunkTarget: fs.Int("chunk-target", write.DefaultChunkTarget, "encoded bytes a chunk aims at (negative: cut every chunk at --chunk-values)"),
		noZstd:      fs.Bool("no-zstd", false, "disable zstd on encoding leaves"),
		flatmap:     fs.String("flatmap", "", "comma-separated map columns to store as FlatMap"),
		optimize:    fs.String("optimize", "balanced", "speed, balanced or size: how encoding selection trades bytes for decode time"),
		layoutFrom:  fs.String("layout-from", "", "replay the encodings an earlier Strata `file` of the same table chose, instead of selecting them again"),
		threads:     threadsFlag(fs, 0, "`N` goroutines encoding, and parsing a CSV source (0: all cores; above 1, a stripe encodes while the next is read)"),
	}
}

func (w *writeFlags) options() (*strata.WriteOptions, error) {
	opt, err := encoding.ParseOptimize(*w.optimize)
	if err != nil {
		return nil, usagef("%v", err)
	}
	// (the writer takes zero or less as its default, and a MiB count past
	// these wraps around to a negative byte count)
	if *w.stripeMB < 1 || *w.stripeMB > math.MaxInt>>20 {
		return nil, usagef("--stripe-mb %d: want 1 to %d", *w.stripeMB, math.MaxInt>>20)
	}
	if *w.stripeRows < 0 {
		return nil, usagef("--stripe-rows %d: want 0 (no bound) or more", *w.stripeRows)
	}
	if *w.chunkValues < 1 {
		return nil, usagef("--chunk-values %d: want 1 or more", *w.chunkValues)
	}
	if *w.chunkTarget == 0 {
		return nil, usagef("--chunk-target 0: want encoded bytes above zero, or a negative number to cut every chunk at --chunk-values")
	}
	o := &strata.WriteOptions{StripeBytes: *w.stripeMB << 20, StripeRows: *w.stripeRows, ChunkValues: *w.chunkValues, ChunkTarget: *w.chunkTarget,
		NoZstd: *w.noZstd, Optimize: opt, FlatMap: splitList(*w.flatmap), Parallel: *w.threads}
	if *w.layoutFrom != "" {
		f, err := strata.Open(*w.layoutFrom)
		if err != nil {
			return nil, fmt.Errorf("--layout-from: %w", err)
		}
		o.Layouts, err = f.Layouts()
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("--layout-from %s: %w", *w.layoutFrom, err)
		}
	}
	return o, nil
}

// importFile copies a .parquet, .csv or .arrow file into a Strata file,
// reporting progress to p when it is not nil; ro holds how a CSV or JSON
// source is read (readFlags), and the writer's goroutines set how many
// parse it.
func importFile(src, dst string, sf *storeFlags, opts *strata.WriteOptions, p *progress, ro interop.ReadOptions) (int64, error) {
	// with more than one encoding goroutine, a CSV source is parsed on
	// several too
	ro.Parallel = true
	if opts != nil {
		ro.Parallel, ro.Threads = opts.Parallel != 1, opts.Parallel
	}
	rr, err := openTable(context.Background(), src, sf, ro)
	if err != nil {
		return 0, err
	}
	defer rr.Close()
	// The source's types where Strata stores a stand-in, for export.
	meta, err := sourceMetadata(rr)
	if err != nil {
		return 0, err
	}
	// the caller's options, copied before this import adds to them
	o := strata.WriteOptions{}
	if opts != nil {
		o = *opts
	}
	// a source that knows its row count (a Parquet footer) lets the
	// writer size its stripe buffers once
	if _, total, unit, ok := interop.ExtentOf(rr); ok && unit == "rows" && total > 0 && o.RowsHint == 0 {
		o.RowsHint = total
	}
	o.Metadata = withMetadata(o.Metadata, meta)
	w, err := createStrata(context.Background(), dst, sf, rr.Schema(), &o)
	if err != nil {
		return 0, err
	}
	var n int64
	for {
		rec, err := rr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			w.Abort()
			return n, err
		}
		n += rec.NumRows()
		err = w.Write(rec)
		rec.Release()
		if err != nil {
			w.Abort()
			return n, err
		}
		if p != nil {
			if done, total, unit, ok := interop.ExtentOf(rr); ok && total > 0 {
				p.setTotal(total, unit)
				p.update(done)
			} else {
				p.update(n)
			}
		}
	}
	if err := w.Close(); err != nil {
		return n, err
	}
	return n, nil
}
