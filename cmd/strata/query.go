package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/mattn/go-runewidth"

	"strata"
)

func runTake(args []string) error {
	fs := flag.NewFlagSet("take", flag.ContinueOnError)
	cols := columnsFlag(fs, "comma-separated `columns` or paths of nested fields (s.a), default all; quote a name holding a comma: \"a,b\"")
	format := fs.String("format", "table", "table, csv or json (JSON lines, as export writes them: NaN and ±Inf as null); "+tableFormatHelp)
	threads := threadsFlag(fs, 0, "`N` goroutines decoding (0: all cores)")
	byName := fs.Bool("union-by-name", false, "look rows up in the files of a pattern as one table by column name: every column of any file, null where a file lacks one")
	null := nullOutFlag(fs)
	sf := addStoreFlags(fs)
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) < 2 {
		return usagef("want FILE (or a pattern of files) and at least one ROW")
	}
	nulls, err := nullWords(*null, *format == "csv")
	if err != nil {
		return err
	}
	var rows []int64
	for _, s := range pos[1:] {
		for _, part := range splitList(s) {
			r, err := strconv.ParseInt(part, 10, 64)
			if err != nil {
				return usagef("row %q is not a number", part)
			}
			rows = append(rows, r)
		}
	}
	// A pattern's files are one table: row numbers run on from one
	// file to the next.
	ctx := context.Background()
	paths, err := globPaths(ctx, pos[0], sf)
	if err != nil {
		return err
	}
	// The files open in name order, up to 8 ahead, until they hold the
	// last row asked for: files past it are not opened (over object
	// storage, a request each), unless the table's columns are the union
	// of every file's.
	last := slices.Max(rows)
	next, stop := openInOrder(ctx, paths, sf, strata.OpenOptions{Parallelism: *threads}, 8)
	defer stop()
	var files []*openedFile
	defer func() { closeAll(files) }()
	var total int64
	for range paths {
		if len(files) > 0 && total > last && !*byName {
			break
		}
		f, err := next()
		if err != nil {
			return err
		}
		files = append(files, f)
		total += f.NumRows()
	}
	if !*byName {
		if err := checkColumns(paths, files, *cols); err != nil {
			return err
		}
	}
	tables := make([]*strata.File, len(files))
	for i, f := range files {
		tables[i] = f.File
	}
	start := time.Now()
	rec, _, err := strata.TakeFiles(ctx, tables, rows, strata.TakeOptions{Columns: *cols, UnionByName: *byName})
	if err != nil {
		return err
	}
	defer rec.Release()
	el := time.Since(start)
	pr, err := newPrinter(*format, os.Stdout)
	if err != nil {
		return err
	}
	pr.nulls = nulls
	pr.setSource(files[0].Metadata())
	if err := pr.print(rec); err != nil {
		return err
	}
	if err := pr.flush(); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "%d rows in %v\n", len(rows), el.Round(time.Microsecond))
	if len(files) == 1 {
		if rl := files[0].requestLine(); rl != "" {
			fmt.Fprintln(os.Stderr, rl)
		}
	}
	return nil
}

func runAgg(args []string) error {
	fs := flag.NewFlagSet("agg", flag.ContinueOnError)
	where := fs.String("where", "", "filter")
	showStats := fs.Bool("stats", false, "print scan statistics on stderr")
	threads := threadsFlag(fs, 0, "`N` goroutines decoding (0: all cores)")
	split := fs.String("split", "", "aggregate one split only: its JSON (from 'strata splits') or @FILE")
	byName := fs.Bool("union-by-name", false, "aggregate the files of a pattern as one table by column name: a file lacking a column holds nulls there (columns added over time)")
	format := fs.String("format", "", "table, csv or json: one row, a column per aggregate (default: a line 'name = value' each); values print as cat prints their column's type; "+tableFormatHelp)
	null := nullOutFlag(fs)
	sf := addStoreFlags(fs)
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		return usagef("want FILE (or a pattern of files) and an aggregate list such as \"count(*), sum(l_quantity)\"")
	}
	var pr *printer
	if *format != "" {
		if pr, err = newPrinter(*format, os.Stdout); err != nil {
			return err
		}
	}
	nulls, err := nullWords(*null, *format == "csv")
	if err != nil {
		return err
	}
	if pr != nil {
		pr.nulls = nulls
	}
	ctx := context.Background()
	paths, err := globPaths(ctx, pos[0], sf)
	if err != nil {
		return err
	}
	opts := strata.AggregateOptions{Exprs: pos[1], Where: *where, UnionByName: *byName}
	if *split != "" {
		if len(paths) > 1 {
			return usagef("--split names a split of one file; %q matches %d files", pos[0], len(paths))
		}
		if opts.Split, err = parseSplit(*split); err != nil {
			return usagef("--split: %v", err)
		}
	}
	files, err := openAll(ctx, paths, sf, strata.OpenOptions{Parallelism: *threads})
	if err != nil {
		return err
	}
	defer closeAll(files)
	start := time.Now()
	var vals []strata.AggValue
	var st strata.ScanStats
	if len(files) == 1 {
		vals, st, err = files[0].AggregateContext(ctx, opts)
	} else {
		// (the files of a pattern are one table: their rows fold into one
		// exact result)
		fs := make([]*strata.File, len(files))
		for i, f := range files {
			fs[i] = f.File
		}
		vals, st, err = strata.AggregateFiles(ctx, fs, opts)
	}
	if err != nil {
		return err
	}
	el := time.Since(start)
	schemas := make([]*arrow.Schema, len(files))
	for i, f := range files {
		schemas[i] = f.Schema()
	}
	rec := aggRecord(vals, schemas)
	defer rec.Release()
	if pr != nil {
		if err := pr.print(rec); err != nil {
			return err
		}
		if err := pr.flush(); err != nil {
			return err
		}
	} else {
		for c, col := range rec.Columns() {
			fmt.Printf("%s = %s\n", rec.ColumnName(c), cellText(col, 0))
		}
	}
	if *showStats {
		fmt.Fprintf(os.Stderr, "%s\nelapsed %v\n", st.String(), el.Round(time.Microsecond))
		for _, f := range files {
			if rl := f.requestLine(); rl != "" {
				fmt.Fprintln(os.Stderr, rl)
			}
		}
	}
	return nil
}

// openAll opens the files of a pattern, up to 16 at a time (an object's
// open is a round trip), closing them all if one fails.
func openAll(ctx context.Context, paths []string, sf *storeFlags, opts strata.OpenOptions) ([]*openedFile, error) {
	files := make([]*openedFile, len(paths))
	errs := make([]error, len(paths))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 16)
	for i, p := range paths {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			files[i], errs[i] = openStrataWith(ctx, p, sf, opts)
			<-sem
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			closeAll(files)
			return nil, err
		}
	}
	return files, nil
}

// closeAll closes the files openAll opened (nil entries are skipped).
func closeAll(files []*openedFile) {
	for _, f := range files {
		if f != nil {
			f.Close()
		}
	}
}

func runInspect(args []string) error {
	fs := flag.NewFlagSet("inspect", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "machine-readable output")
	asHTML := fs.Bool("html", false, "a self-contained HTML page (bytes by column and encoding, trees, stripe and chunk statistics, schema)")
	sf := addStoreFlags(fs)
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("want one FILE")
	}
	f, err := openStrata(context.Background(), pos[0], sf)
	if err != nil {
		return err
	}
	defer f.Close()
	rep, err := f.Inspect()
	if err != nil {
		return err
	}
	rep.Bytes = f.Size()
	if *asHTML {
		return writeHTMLReport(os.Stdout, pos[0], rep)
	}
	if *asJSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	printReport(rep)
	return nil
}

// encodingOrder lists the encodings of a column's report by the bytes
// they hold, most first, and by name where bytes tie, so that inspect
// prints a file the same way every time (map order broke ties at random:
// Constant 88, Trivial 88 came out either way).
func encodingOrder(enc map[string]int64) []string {
	kinds := make([]string, 0, len(enc))
	for k := range enc {
		kinds = append(kinds, k)
	}
	sort.Slice(kinds, func(i, j int) bool {
		if a, b := enc[kinds[i]], enc[kinds[j]]; a != b {
			return a > b
		}
		return kinds[i] < kinds[j]
	})
	return kinds
}

func printReport(r *strata.Report) {
	fmt.Printf("rows %d, stripes %d, bytes %d\n\n", r.Rows, r.Stripes, r.Bytes)
	fmt.Printf("%-24s %-22s %12s %7s  %s\n", "column", "type", "bytes", "share", "encodings (bytes)")
	for _, c := range r.Columns {
		share := 0.0
		if r.Bytes > 0 {
			share = 100 * float64(c.Bytes) / float64(r.Bytes)
		}
		kinds := encodingOrder(c.Encodings)
		parts := make([]string, len(kinds))
		for i, k := range kinds {
			parts[i] = fmt.Sprintf("%s %d", k, c.Encodings[k])
		}
		// (the name as a table cell: one line, control characters
		// escaped, padded by the columns a terminal gives it)
		name := tableText(c.Name)
		fmt.Printf("%s%s %-22s %12d %6.1f%%  %s\n", name, strings.Repeat(" ", max(24-runewidth.StringWidth(name), 0)), c.Type, c.Bytes, share, strings.Join(parts, ", "))
		for _, t := range c.Trees {
			fmt.Printf("%-24s   %s ×%d chunks\n", "", t.Tree, t.Chunks)
		}
	}
}

// openInOrder opens paths in order on goroutines, at most ahead of them
// beyond the file the caller last took. next returns the files in order
// (the caller closes each); stop closes the files opened and not taken,
// and must be called once the caller is done.
func openInOrder(ctx context.Context, paths []string, sf *storeFlags, opts strata.OpenOptions, ahead int) (next func() (*openedFile, error), stop func()) {
	type result struct {
		f   *openedFile
		err error
	}
	ctx, cancel := context.WithCancel(ctx)
	results := make([]chan result, len(paths))
	for i := range results {
		results[i] = make(chan result, 1)
	}
	slots := make(chan struct{}, ahead)
	go func() {
		for i, p := range paths {
			select {
			case slots <- struct{}{}:
			case <-ctx.Done():
				for _, ch := range results[i:] {
					ch <- result{err: ctx.Err()}
				}
				return
			}
			go func() {
				f, err := openStrataWith(ctx, p, sf, opts)
				results[i] <- result{f, err}
			}()
		}
	}()
	taken := 0
	next = func() (*openedFile, error) {
		r := <-results[taken]
		taken++
		<-slots
		return r.f, r.err
	}
	stop = func() {
		cancel()
		for _, ch := range results[taken:] {
			go func() {
				if r := <-ch; r.f != nil {
					r.f.Close()
				}
			}()
		}
	}
	return next, stop
}
