package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/mattn/go-runewidth"

	"strata"
	"strata/format"
	"strata/interop"
	"strata/iox"
)

// parseInterspersed parses flags that may come before, between or after
// positional arguments, returning the positional ones.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := parseFlags(fs, args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

func splitList(s string) []string {
	if s == "" {
		return nil
	}
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func runImport(args []string) error {
	fs := flag.NewFlagSet("import", flag.ContinueOnError)
	wo := addWriteFlags(fs)
	pf := addProgressFlags(fs)
	sf := addStoreFlags(fs)
	byName := fs.Bool("union-by-name", false, "several SRCs: import them as one table by column name: every column of any source, null where a source lacks one (columns added over time)")
	rf := addReadFlags(fs)
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) < 2 {
		return usagef("want SRC (one or more, or patterns) and DST, got %d arguments", len(pos))
	}
	ro, err := rf.options()
	if err != nil {
		return err
	}
	dst := pos[len(pos)-1]
	var srcs []string
	for _, s := range pos[:len(pos)-1] {
		m, err := globPaths(context.Background(), s, sf)
		if err != nil {
			return err
		}
		srcs = append(srcs, m...)
	}
	if fm, err := interop.FormatOf(dst); err == nil {
		// a Strata file under a Parquet, CSV or Arrow name would mislead
		// every tool that trusts the name
		return usagef("DST %s: import writes a Strata file (name it .strata); strata export writes %s", dst, fm)
	}
	opts, err := wo.options()
	if err != nil {
		return err
	}
	for _, s := range srcs {
		if s == dst {
			return usagef("DST %s is also a source", dst)
		}
	}
	p := newProgress("import", "rows", 0, pf)
	var n int64
	if len(srcs) == 1 {
		n, err = importFile(srcs[0], dst, sf, opts, p, ro)
	} else {
		// (the tables are written one after another into one file)
		n, err = importFiles(srcs, dst, sf, opts, p, ro, *byName)
	}
	if err != nil {
		return err
	}
	p.finish(n)
	p.summary("wrote %s: %d rows, %d bytes\n", dst, n, outSize(ctx, dst, sf))
	return nil
}

// projectSchema returns the fields of sch named in cols (all when empty).
func projectSchema(sch *arrow.Schema, cols []string) *arrow.Schema {
	if len(cols) == 0 {
		return sch
	}
	var fs []arrow.Field
	for _, c := range cols {
		if idx := sch.FieldIndices(c); len(idx) > 0 {
			fs = append(fs, sch.Field(idx[0]))
		}
	}
	return arrow.NewSchema(fs, nil)
}

func runExport(args []string) error {
	fs := flag.NewFlagSet("export", flag.ContinueOnError)
	cols := columnsFlag(fs, "comma-separated `columns` or paths of nested fields (s.a), default all; quote a name holding a comma: \"a,b\"")
	threads := threadsFlag(fs, 0, "`N` goroutines decoding, and formatting CSV text (0: all cores)")
	byName := fs.Bool("union-by-name", false, "write the files of a pattern as one table by column name: every column of any file, nulls where a file lacks one (columns added over time)")
	null := nullOutFlag(fs)
	pf := addProgressFlags(fs)
	sf := addStoreFlags(fs)
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		return usagef("want SRC.strata (or a pattern of files) and DST, got %d arguments", len(pos))
	}
	fm, _ := interop.FormatOf(pos[1])
	nulls, err := nullWords(*null, fm == interop.CSV)
	if err != nil {
		return err
	}
	wopts := interop.WriteOptions{Threads: *threads, CSVNulls: nulls}
	ctx := context.Background()
	paths, err := globPaths(ctx, pos[0], sf)
	if err != nil {
		return err
	}
	// The files of a pattern are written one after another into DST, as
	// one table.
	files, err := openAll(ctx, paths, sf, strata.OpenOptions{Parallelism: *threads})
	if err != nil {
		return err
	}
	defer closeAll(files)
	var total int64
	// by name, one scan of all the files; its schema is the table's
	var union *strata.Scanner
	stored := projectSchema(files[0].Schema(), *cols)
	if *byName && len(files) > 1 {
		tables := make([]*strata.File, len(files))
		for i, f := range files {
			tables[i] = f.File
		}
		if union, err = strata.ScanFiles(ctx, tables, strata.ScanOptions{Columns: *cols, UnionByName: true}); err != nil {
			return byNameError(err, paths)
		}
		defer union.Close()
		stored = union.Schema()
	}
	if union == nil {
		if err := checkColumns(paths, files, *cols); err != nil {
			return err
		}
	}
	for _, f := range files {
		total += f.NumRows()
	}
	// The types import read from the source, where Strata stores a
	// stand-in (JSON, UUID, float16, fixed-size binary, decimal256, ...),
	// as the first file records them.
	outSch, restore, err := interop.RestoreSchema(files[0].Metadata(), stored)
	if err != nil {
		return err
	}
	var sink interop.Sink
	// An export that fails leaves no file (and the one it would have
	// replaced as it was): the sink writes under a temporary name.
	defer func() {
		if sink != nil {
			sink.Abort()
		}
	}()
	p := newProgress("export", "rows", total, pf)
	var n int64
	// one file's rows into the sink (created at the first batch, whose
	// schema the restored types decide)
	exportFile := func(path string, sc *strata.Scanner) error {
		defer sc.Close()
		for {
			rec, err := sc.Next()
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
			if restore {
				out, err := interop.RestoreRecord(memory.DefaultAllocator, rec, outSch)
				rec.Release()
				if err != nil {
					return err
				}
				rec = out
			}
			if sink == nil {
				if sink, err = createExport(ctx, pos[1], sf, rec.Schema(), wopts); err != nil {
					rec.Release()
					return err
				}
			}
			n += rec.NumRows()
			err = sink.Write(rec)
			rec.Release()
			if err != nil {
				return err
			}
			p.update(n)
		}
	}
	if union != nil {
		if err := exportFile(pos[0], union); err != nil {
			return err
		}
	} else {
		for i, f := range files {
			sc, err := f.Scan(strata.ScanOptions{Columns: *cols})
			if err != nil {
				return fmt.Errorf("%s: %w", paths[i], err)
			}
			if err := exportFile(paths[i], sc); err != nil {
				return err
			}
		}
	}
	if sink == nil {
		if sink, err = createExport(ctx, pos[1], sf, outSch, wopts); err != nil {
			return err
		}
	}
	err = sink.Close()
	sink = nil
	if err != nil {
		return err
	}
	p.finish(n)
	return nil
}

// printer writes batches in one of the output formats.
type printer struct {
	format string
	w      io.Writer
	csv    *interop.CSVWriter
	// nulls are the null words CSV output writes for its reader
	// (nullWords): nulls as the first, strings equal to one quoted
	nulls  []string
	rows   int
	header bool
	// width is each table column's width so far: a batch is printed at
	// least as wide as the ones before it, so that its columns line up
	// with the header
	width []int
	// meta is the metadata of the file the batches come from, whose
	// source types JSON output restores, as export does (setSource)
	meta map[string]string
	// from is the stored schema to's restored one was made for
	from, to *arrow.Schema
	restore  bool
}

// setSource names the metadata of the file the next batches come from:
// JSON output writes their columns of the types import kept from the
// source as export writes them (a JSON column as JSON, not as a string of
// its text).
func (p *printer) setSource(meta map[string]string) {
	p.meta, p.from, p.to, p.restore = meta, nil, nil, false
}

// restored returns rec with the source types its file recorded restored
// (interop.RestoreSchema, as export writes them); the caller releases it.
func (p *printer) restored(rec arrow.Record) (arrow.Record, error) {
	if p.meta == nil {
		rec.Retain()
		return rec, nil
	}
	if p.from == nil || !p.from.Equal(rec.Schema()) {
		to, restore, err := interop.RestoreSchema(p.meta, rec.Schema())
		if err != nil {
			return nil, err
		}
		p.from, p.to, p.restore = rec.Schema(), to, restore
	}
	if !p.restore {
		rec.Retain()
		return rec, nil
	}
	return interop.RestoreRecord(memory.DefaultAllocator, rec, p.to)
}

func newPrinter(format string, w io.Writer) (*printer, error) {
	switch format {
	case "table", "csv", "json":
		return &printer{format: format, w: w}, nil
	}
	return nil, usagef("unknown format %q (want table, csv or json)", format)
}

func (p *printer) print(rec arrow.Record) error {
	switch p.format {
	case "csv":
		// Nested columns are written as JSON text, as export does.
		out, err := interop.CSVRecord(rec, nil)
		if err != nil {
			return err
		}
		defer out.Release()
		if p.csv == nil {
			// as export writes a CSV file (NewCSVWriter: nulls as empty
			// fields, NULL in a table of one column, and empty strings "";
			// or nulls as the first of --null's words, strings equal to
			// one of them quoted)
			if p.csv, err = interop.NewCSVWriterNulls(p.w, out.Schema(), ',', p.nulls); err != nil {
				return err
			}
		}
		return p.csv.Write(out)
	case "json":
		// JSON lines, as export writes a .jsonl file: the same types
		// restored, the same writer
		out, err := p.restored(rec)
		if err != nil {
			return err
		}
		defer out.Release()
		return interop.WriteJSONRows(p.w, out)
	}
	return p.table(rec)
}

func (p *printer) table(rec arrow.Record) error {
	ncol := int(rec.NumCols())
	cells := make([][]string, 0, rec.NumRows()+1)
	if !p.header {
		h := make([]string, ncol)
		for c := 0; c < ncol; c++ {
			h[c] = tableText(rec.ColumnName(c)) // (one line, as the cells)
		}
		cells = append(cells, h)
	}
	for i := 0; i < int(rec.NumRows()); i++ {
		row := make([]string, ncol)
		for c := 0; c < ncol; c++ {
			row[c] = cellText(rec.Column(c), i)
		}
		cells = append(cells, row)
	}
	if len(p.width) != ncol {
		p.width = make([]int, ncol)
	}
	width := p.width
	for _, r := range cells {
		for c, s := range r {
			width[c] = max(width[c], runewidth.StringWidth(s))
		}
	}
	var sb strings.Builder
	for ri, r := range cells {
		for c, s := range r {
			if c > 0 {
				sb.WriteString("  ")
			}
			sb.WriteString(s)
			if c < ncol-1 {
				// (by the columns a terminal gives it: two for wide CJK
				// characters, none for combining marks)
				sb.WriteString(strings.Repeat(" ", width[c]-runewidth.StringWidth(s)))
			}
		}
		sb.WriteByte('\n')
		if ri == 0 && !p.header {
			for c := range r {
				if c > 0 {
					sb.WriteString("  ")
				}
				sb.WriteString(strings.Repeat("-", width[c]))
			}
			sb.WriteByte('\n')
		}
	}
	p.header = true
	_, err := io.WriteString(p.w, sb.String())
	return err
}

// tableFormatHelp is the convention of table output, which --format's
// help gives: the table is for reading, so each cell must say what it
// holds, one line a row. psql and DuckDB print a null and the string NULL
// alike (NULL, or nothing), and a newline either raw, breaking the row,
// or as \n, like a backslash and an n; here a cell that could be read
// as something else is quoted instead.
const tableFormatHelp = "table: a null is NULL; a value that could read as something else (the string NULL, text holding a newline, tab " +
	"or other character that does not print, beginning with a quote, or beginning or ending with a space) is a double-quoted " +
	"Go string literal (\"a\\nb\", \"NULL\"); other text, backslashes included, as it is"

// cellText is value i of col as a table cell (see tableFormatHelp): a null
// is NULL, the string NULL "NULL".
func cellText(col arrow.Array, i int) string {
	if col.IsNull(i) || col.DataType().ID() == arrow.NULL { // arrow-go's null arrays report IsValid
		return "NULL"
	}
	if s, ok := interop.TimeText(col, i); ok {
		return s
	}
	if s, ok := interop.DecimalText(col, i); ok {
		return s
	}
	if s, ok := interop.ExtendedYearText(col, i, 'T'); ok {
		// a year past 9999 or before 0 signed (+290000-01-01T00:00:00),
		// as JSON and CSV output write it, not arrow-go's raw integer
		return s
	}
	s := col.ValueStr(i)
	if s == "NULL" {
		return strconv.Quote(s)
	}
	return tableText(s)
}

// tableText is a value's text, or a column name, as a table cell
// (interop.TableText): as it is, or a quoted Go string literal when it
// could be read as something else. CSV and JSON output keep values exact.
func tableText(s string) string { return interop.TableText(s) }

// empty prints the header of sch when no batch was printed (a table or
// CSV of no rows still names its columns).
func (p *printer) empty(sch *arrow.Schema) error {
	if p.header || p.csv != nil || p.format == "json" {
		return nil
	}
	cols := emptyColumns(sch)
	rec := array.NewRecord(sch, cols, 0)
	releaseArrays(cols)
	defer rec.Release()
	return p.print(rec)
}

func releaseArrays(as []arrow.Array) {
	for _, a := range as {
		a.Release()
	}
}

// emptyColumns returns an empty array of each field of sch.
func emptyColumns(sch *arrow.Schema) []arrow.Array {
	cols := make([]arrow.Array, sch.NumFields())
	for i, f := range sch.Fields() {
		cols[i] = array.MakeArrayOfNull(memory.DefaultAllocator, f.Type, 0)
	}
	return cols
}

func (p *printer) flush() error {
	if p.csv != nil {
		return p.csv.Flush()
	}
	return nil
}

func runCat(args []string) error  { return scanCommand("cat", args, false) }
func runScan(args []string) error { return scanCommand("scan", args, true) }

func scanCommand(name string, args []string, withWhere bool) error {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	cols := columnsFlag(fs, "comma-separated `columns` or paths of nested fields (s.a), default all; quote a name holding a comma: \"a,b\"")
	offset := fs.Int64("offset", 0, "skip N rows")
	limit := fs.Int64("limit", 0, "return at most N rows (0: all)")
	format := fs.String("format", "table", "table, csv or json (JSON lines, as export writes them: NaN and ±Inf as null); "+tableFormatHelp)
	threads := threadsFlag(fs, 0, "`N` goroutines decoding (0: all cores)")
	split := fs.String("split", "", "scan one split only: its JSON (from 'strata splits') or @FILE")
	byName := fs.Bool("union-by-name", false, "read the files of a pattern as one table by column name: every column of any file, nulls where a file lacks one (columns added over time)")
	null := nullOutFlag(fs)
	var where *string
	var showStats *bool
	if withWhere {
		where = fs.String("where", "", "filter, e.g. \"l_shipdate BETWEEN DATE '1995-01-01' AND DATE '1995-01-31'\"")
		showStats = fs.Bool("stats", false, "print scan statistics on stderr")
	}
	sf := addStoreFlags(fs)
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("want one FILE (or a pattern of files), got %d arguments", len(pos))
	}
	ctx := context.Background()
	paths, err := globPaths(ctx, pos[0], sf)
	if err != nil {
		return err
	}
	base := strata.ScanOptions{Columns: *cols}
	if where != nil {
		base.Where = *where
	}
	if *split != "" {
		if len(paths) > 1 {
			return usagef("--split names a split of one file; %q matches %d files", pos[0], len(paths))
		}
		if base.Split, err = parseSplit(*split); err != nil {
			return usagef("--split: %v", err)
		}
	}
	if len(paths) > 1 && (*offset < 0 || *limit < 0) {
		return usagef("--offset and --limit may not be negative")
	}
	pr, err := newPrinter(*format, os.Stdout)
	if err != nil {
		return err
	}
	if pr.nulls, err = nullWords(*null, *format == "csv"); err != nil {
		return err
	}
	if *byName && len(paths) > 1 {
		// the table's columns are known only once every file is open
		files, err := openAll(ctx, paths, sf, strata.OpenOptions{Parallelism: *threads})
		if err != nil {
			return err
		}
		defer closeAll(files)
		opts := base
		opts.Offset, opts.Limit, opts.UnionByName = *offset, *limit, true
		pr.setSource(files[0].Metadata())
		return scanByName(ctx, files, paths, opts, pr, showStats != nil && *showStats)
	}
	// The files of a pattern are scanned one after another, as one table:
	// the offset and limit count rows across them. Their columns are
	// compared before a row is printed.
	files, err := openAll(ctx, paths, sf, strata.OpenOptions{Parallelism: *threads})
	if err != nil {
		return err
	}
	defer closeAll(files)
	if err := checkColumns(paths, files, base.Columns); err != nil {
		return err
	}
	// (JSON output restores the source types the first file recorded, as
	// export does)
	pr.setSource(files[0].Metadata())
	skip, left := *offset, *limit
	var first *arrow.Schema
	for i, path := range paths {
		if *limit > 0 && left == 0 {
			break
		}
		f := files[i]
		done := func() { f.Close(); files[i] = nil }
		opts := base
		last := path == paths[len(paths)-1]
		if len(paths) == 1 {
			opts.Offset, opts.Limit, skip = skip, left, 0
		} else if opts.Where == "" {
			// (without a filter a file's rows are known: the offset goes
			// to the reader, which skips whole stripes; the last file is
			// scanned anyway, for the columns of an empty result)
			if skip >= f.NumRows() && !last {
				skip -= f.NumRows()
				done()
				continue
			}
			opts.Offset, opts.Limit, skip = skip, left, 0
		} else if left > 0 {
			opts.Limit = skip + left // the rest of the offset is dropped here
		}
		start := time.Now()
		same := func(sch *arrow.Schema) error {
			if first == nil {
				first = sch
			} else if !sameColumns(first, sch) {
				// (checkColumns compared the columns named; this is a
				// projection's result)
				return differentColumns(paths[0], path, first, sch)
			}
			return nil
		}
		n, err := scanFile(f, opts, pr, &skip, &left, *limit > 0, same)
		if err == nil && showStats != nil && *showStats {
			printScanStats(f, n, path, len(paths) > 1, time.Since(start))
		}
		done()
		if err != nil {
			return err
		}
	}
	if first != nil {
		if err := pr.empty(first); err != nil {
			return err
		}
	}
	return pr.flush()
}

// scanFile prints the rows of one file's scan, first dropping *skip rows
// of it (an offset the reader was not given), and counting the printed
// rows down from *left when limited, once check accepted the schema of its
// batches. It returns the scanner's statistics.
func scanFile(f *openedFile, opts strata.ScanOptions, pr *printer, skip, left *int64, limited bool, check func(*arrow.Schema) error) (strata.ScanStats, error) {
	sc, err := f.Scan(opts)
	if err != nil {
		return strata.ScanStats{}, err
	}
	if err := check(sc.Schema()); err != nil {
		return strata.ScanStats{}, err
	}
	for {
		rec, err := sc.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return strata.ScanStats{}, err
		}
		n := rec.NumRows()
		lo := min(*skip, n)
		*skip -= lo
		hi := n
		if limited {
			hi = min(n, lo+*left)
			*left -= hi - lo
		}
		if lo > 0 || hi < n {
			part := rec.NewSlice(lo, hi)
			rec.Release()
			rec = part
		}
		if rec.NumRows() > 0 || n == 0 {
			err = pr.print(rec)
		}
		rec.Release()
		if err != nil {
			return strata.ScanStats{}, err
		}
		if limited && *left == 0 {
			break
		}
	}
	return sc.Stats(), nil
}

// checkColumns returns an error naming the first file whose columns differ
// from the first file's: the columns cols names (those the first file has:
// the scan reports the others), or all of them if cols is empty.
func checkColumns(paths []string, files []*openedFile, cols []string) error {
	if len(files) < 2 {
		return nil
	}
	a := files[0].Schema()
	for i, f := range files[1:] {
		b := f.Schema()
		if len(cols) == 0 {
			if !sameColumns(a, b) {
				return differentColumns(paths[0], paths[i+1], a, b)
			}
			continue
		}
		for _, c := range cols {
			ta := fieldType(a, c)
			if ta == nil {
				continue
			}
			switch tb := fieldType(b, c); {
			case tb == nil:
				return columnsError(paths[0], paths[i+1], fmt.Sprintf("no column %q", c))
			case !arrow.TypeEqual(ta, tb):
				return columnsError(paths[0], paths[i+1], fmt.Sprintf("column %q is %s, %s in the first file", c, tb, ta))
			}
		}
	}
	return nil
}

// differentColumns is the error of two files of a pattern whose columns
// differ (sameColumns): it names the first column that differs.
func differentColumns(a, b string, sa, sb *arrow.Schema) error {
	has := func(sch *arrow.Schema, name string) bool { return len(sch.FieldIndices(name)) > 0 }
	for i := 0; ; i++ {
		switch {
		case i >= sa.NumFields() && i >= sb.NumFields():
			return columnsError(a, b, "")
		case i < sa.NumFields() && (i >= sb.NumFields() || !has(sb, sa.Field(i).Name)):
			return columnsError(a, b, fmt.Sprintf("no column %q", sa.Field(i).Name))
		case i >= sa.NumFields() || !has(sa, sb.Field(i).Name):
			return columnsError(a, b, fmt.Sprintf("column %q is not in the first file", sb.Field(i).Name))
		}
		fa, fb := sa.Field(i), sb.Field(i)
		switch {
		case fa.Name != fb.Name:
			return columnsError(a, b, fmt.Sprintf("column %d is %q, %q in the first file", i+1, fb.Name, fa.Name))
		case !arrow.TypeEqual(fa.Type, fb.Type):
			return columnsError(a, b, fmt.Sprintf("column %q is %s, %s in the first file", fa.Name, fb.Type, fa.Type))
		}
	}
}

// columnsError is the usage error of file b of a pattern whose columns
// differ from those of a, the first file, as what says.
func columnsError(a, b, what string) error {
	if what != "" {
		what = ": " + what
	}
	return usagef("%s holds different columns from %s%s (--union-by-name reads files of different columns by column name)", b, a, what)
}

// fieldType returns the type of a column, or of a field of struct columns
// by its dotted path (s.a), in sch; nil if there is none.
func fieldType(sch *arrow.Schema, path string) arrow.DataType {
	if idx := sch.FieldIndices(path); len(idx) > 0 {
		return sch.Field(idx[0]).Type
	}
	for i := 0; i < len(path); i++ {
		if path[i] != '.' {
			continue
		}
		idx := sch.FieldIndices(path[:i])
		if len(idx) == 0 {
			continue
		}
		if st, ok := sch.Field(idx[0]).Type.(*arrow.StructType); ok {
			if t := fieldType(arrow.NewSchema(st.Fields(), nil), path[i+1:]); t != nil {
				return t
			}
		}
	}
	return nil
}

// sameColumns reports whether two schemas have the same column names and
// types, in order (field metadata, which records where a file came from,
// may differ).
func sameColumns(a, b *arrow.Schema) bool {
	if a.NumFields() != b.NumFields() {
		return false
	}
	for i, f := range a.Fields() {
		g := b.Field(i)
		if f.Name != g.Name || !arrow.TypeEqual(f.Type, g.Type) {
			return false
		}
	}
	return true
}

// printScanStats prints one scan's statistics on stderr, headed by the
// file's name when a pattern matched several.
func printScanStats(f *openedFile, st strata.ScanStats, path string, named bool, el time.Duration) {
	if named {
		fmt.Fprintf(os.Stderr, "%s:\n", path)
	}
	fmt.Fprintf(os.Stderr, "%s\n%s\nelapsed %v\n", st.String(), bytesReadLines(f.OpenBytes(), f.BytesRead(), f.Size(), -1, "the file's"), el.Round(time.Microsecond))
	if rl := f.requestLine(); rl != "" {
		fmt.Fprintln(os.Stderr, rl)
	}
}

// bytesReadLines describes the bytes read from a file, or from the files
// of a pattern (whose is "the file's" or "the 3 files'"), of size bytes:
// total in all, opened of them by opening it, in reads requests (none said
// when negative). Opening reads the file's tail (format.DefaultTailSize
// bytes, or all of a smaller file: postscript, footer and metadata, and
// the data before them); the reads after it take what the tail holds from
// memory and fetch the rest. A range fetched twice (a chunk whose decoder
// was evicted and is read again) can still bring the sum past the file's
// size, so the share of the file is that of the reads after opening, the
// figure that says how selective the read was.
func bytesReadLines(opened, total, size, reads int64, whose string) string {
	after := max(total-opened, 0)
	in := ""
	if reads >= 0 {
		in = fmt.Sprintf(" in %d reads", reads)
	}
	return fmt.Sprintf("bytes read in all, metadata included: %d%s (%d opening, %d after)\n"+
		"bytes read after opening: %d, %.2f%% of %s %d bytes; opening reads the last %d KiB or less, "+
		"data included, which later reads take from memory",
		total, in, opened, after, after, 100*float64(after)/float64(max(size, 1)), whose, size, format.DefaultTailSize>>10)
}

func fileSize(path string) int64 {
	st, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return st.Size()
}

// outSize is the size of a file a command wrote: a local path's, or a
// remote object's as the store has it (one request).
func outSize(ctx context.Context, path string, sf *storeFlags) int64 {
	if iox.IsRemote(path) {
		// the object as the store has it (one request)
		if sf == nil {
			sf = addStoreFlags(flag.NewFlagSet("", flag.ContinueOnError))
		}
		src, err := openSource(ctx, path, sf)
		if err != nil {
			return 0
		}
		if c, ok := src.(io.Closer); ok {
			defer c.Close()
		}
		return src.Size()
	}
	return fileSize(iox.LocalPath(path))
}

// scanByName prints the rows of files read as one table by column name
// (opts.UnionByName), offset and limit counted across them.
func scanByName(ctx context.Context, files []*openedFile, paths []string, opts strata.ScanOptions, pr *printer, stats bool) error {
	tables := make([]*strata.File, len(files))
	for i, f := range files {
		tables[i] = f.File
	}
	start := time.Now()
	sc, err := strata.ScanFiles(ctx, tables, opts)
	if err != nil {
		return byNameError(err, paths)
	}
	defer sc.Close()
	for {
		rec, err := sc.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		err = pr.print(rec)
		rec.Release()
		if err != nil {
			return err
		}
	}
	if stats {
		var opened, read, size int64
		for _, f := range files {
			opened, read, size = opened+f.OpenBytes(), read+f.BytesRead(), size+f.Size()
		}
		fmt.Fprintf(os.Stderr, "%s\n%s\nelapsed %v\n", sc.Stats().String(),
			bytesReadLines(opened, read, size, -1, fmt.Sprintf("the %d files'", len(files))), time.Since(start).Round(time.Microsecond))
	}
	if err := pr.empty(sc.Schema()); err != nil {
		return err
	}
	return pr.flush()
}

// nullOutFlag defines --null of the commands that write CSV (export, and
// cat, scan, take and agg with --format csv): the null words of the
// program that reads the CSV back, as import's --null takes them.
func nullOutFlag(fs *flag.FlagSet) *string {
	return fs.String("null", "", "CSV output: comma-separated `words` its reader takes for null, as import's --null (e.g. 'NA' or '\\N'): "+
		"a null is written as the first word, and a string equal to any word, or to NULL, null or \"\", quoted, so that "+
		"import --null with the same words reads each back as it was (default: a null is an empty field)")
}

// nullWords returns the words of --null (see nullOutFlag), or a usage
// error when there are words and the output is not CSV, or a word cannot
// be written as a bare CSV field.
func nullWords(s string, csv bool) ([]string, error) {
	if s == "" {
		return nil, nil
	}
	if !csv {
		return nil, usagef("--null %q: null words apply to CSV output only", s)
	}
	words := strings.Split(s, ",")
	for _, w := range words {
		if strings.ContainsAny(w, "\"\r\n") {
			return nil, usagef("--null: null word %q may not hold a quote or a line break", w)
		}
	}
	return words, nil
}

// readFlags are how import reads a CSV, JSON or Parquet source.
type readFlags struct {
	inferRows *int
	delimiter *string
	noHeader  *bool
	null      *string
	decimal   *bool
	lazy      *bool
	maxPage   *string
}

func addReadFlags(fs *flag.FlagSet) *readFlags {
	return &readFlags{
		inferRows: fs.Int("infer-rows", 0, fmt.Sprintf("CSV and JSON: records sampled to infer column types (0: %d for CSV, %d for JSON; -1: every record, one more pass over the file)", interop.DefaultCSVInferRows, interop.DefaultJSONInferRows)),
		delimiter: fs.String("delimiter", "", "CSV: the field separator, one character or 'tab' (default: a tab for .tsv, else sniffed from the first records: comma, semicolon, tab or '|')"),
		noHeader:  fs.Bool("no-header", false, "CSV: the file has no header line (columns are named f0, f1, ...)"),
		null:      fs.String("null", "", "CSV: comma-separated values read as null besides empty fields, NULL and null (e.g. 'NA,\\N'); in a string column only unquoted: a quoted \"NA\" or \"\" is that text"),
		decimal:   fs.Bool("decimal-comma", false, "CSV: numbers are written with a decimal comma (2,5), as with a semicolon separator"),
		lazy:      fs.Bool("lazy-quotes", false, "CSV: take quotes inside fields as text (12\" pizza) instead of refusing the file (read on one goroutine)"),
		maxPage:   fs.String("max-page-bytes", "", "Parquet: the largest page a source may declare, compressed or not, e.g. 2GiB (default: 64MiB compressed, 256MiB uncompressed); a page is decoded whole, so raise it only for a trusted file"),
	}
}

// options returns the read options the flags ask for, or a usage error.
func (r *readFlags) options() (interop.ReadOptions, error) {
	ro := interop.ReadOptions{CSVInferRows: *r.inferRows, JSONInferRows: *r.inferRows, CSVNoHeader: *r.noHeader, CSVDecimalComma: *r.decimal, CSVLazyQuotes: *r.lazy}
	if *r.inferRows < -1 {
		return ro, usagef("--infer-rows %d: want a count, 0 for the default, or -1 for every record", *r.inferRows)
	}
	switch d := *r.delimiter; {
	case d == "":
	case d == "tab" || d == `\t`:
		ro.CSVComma = '\t'
	default:
		c, size := utf8.DecodeRuneInString(d)
		if size != len(d) || !interop.ValidCSVComma(c) {
			return ro, usagef("--delimiter %q: want one character other than a quote or a line break, or 'tab'", d)
		}
		ro.CSVComma = c
	}
	if *r.null != "" {
		ro.CSVNulls = strings.Split(*r.null, ",")
	}
	if *r.maxPage != "" {
		n, err := parseBytes(*r.maxPage)
		if err != nil || n <= 0 {
			return ro, usagef("--max-page-bytes %q: want a size such as 512MiB or 2GiB", *r.maxPage)
		}
		ro.ParquetMaxPageBytes = n
	}
	return ro, nil
}
