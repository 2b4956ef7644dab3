package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata/encoding"
	"strata/interop"
	"strata/iox"
	"strata/read"
	"strata/timeseries"
	"strata/write"
)

const tsUsage = `strata ts — time-series tables: series index, time-first reads, sampling

usage:
  strata ts import SRC DST.strata --series k1,k2 --time COL [--sorted] [--chunk-rows N]
  strata ts query FILE [--series 'k=v,k="a,b",...'] [--from T] [--to T] [--columns a,b] [--offset N] [--limit N]
  strata ts agg FILE --every 5m [--series ...] [--from T] [--to T] [--columns a,b] [--funcs first,max,min,last]
  strata ts sample FILE --windows N --length L [--series ...] [--columns a,b] [--seed S] [--epochs E] [--stacked]
  strata ts last FILE [--series ...] [--columns a,b]
  strata ts paths FILE --paths dev.meas,dev.meas [--from T] [--to T]   tree model: paths merged by time
  strata ts info FILE

--series picks series by their keys: k=v, k!=v, k=~regexp (RE2, matching the whole value; . matches
a newline too, as in Prometheus), k!~regexp, separated by commas; a quoted value ('a,b' or "a,b")
keeps commas and '='.
Times (--from, --to) are RFC 3339 ("2016-01-01T02:00:00Z"), dates ("2016-01-01"; UTC without a
zone) or integers in the time column's unit; --from is inclusive, --to exclusive. --every takes a
duration ("5m", "1h") that is a whole number of the time unit, or an integer. Every read command takes --stats (what was read and decoded, on stderr), --threads N and
--format table|csv|json.
`

// ctx is the context of the ts commands' reads.
var ctx = context.Background()

func runTS(args []string) error {
	if len(args) == 0 {
		fmt.Fprint(os.Stderr, tsUsage)
		return usagef("want a ts subcommand")
	}
	switch args[0] {
	case "import":
		return runTSImport(args[1:])
	case "query":
		return runTSQuery(args[1:])
	case "agg":
		return runTSAgg(args[1:])
	case "sample":
		return runTSSample(args[1:])
	case "last":
		return runTSLast(args[1:])
	case "paths":
		return runTSPaths(args[1:])
	case "info":
		return runTSInfo(args[1:])
	case "help", "-h", "--help":
		fmt.Print(tsUsage)
		return nil
	}
	return usagef("unknown ts subcommand %q\n\n%s", args[0], tsUsage)
}

func runTSImport(args []string) error {
	fs := flag.NewFlagSet("ts import", flag.ContinueOnError)
	series := fs.String("series", "", "comma-separated series key columns (tags), in sort order; quote a name holding a comma: \"a,b\"")
	timeCol := fs.String("time", "", "the time column (timestamp, date or int64)")
	sorted := fs.Bool("sorted", false, "the input is already sorted by (series, time): stream it")
	chunkRows := fs.Int("chunk-rows", timeseries.DefaultChunkRows, "most rows per chunk")
	noZstd := fs.Bool("no-zstd", false, "disable zstd on encoding leaves")
	pf := addProgressFlags(fs)
	sf := addStoreFlags(fs)
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 2 || *timeCol == "" {
		return usagef("want: ts import SRC DST.strata --series k1,k2 --time COL")
	}
	if *chunkRows < 1 || *chunkRows > math.MaxInt32 {
		return usagef("--chunk-rows %d: want 1 to %d", *chunkRows, math.MaxInt32)
	}
	keys, err := splitColumns(*series)
	if err != nil {
		return usagef("--series %s: %v", *series, err)
	}
	// a CSV source parsed in pieces on several goroutines: the same
	// batches, read sooner
	rr, err := openTable(ctx, pos[0], sf, interop.ReadOptions{Parallel: true})
	if err != nil {
		return err
	}
	defer rr.Close()
	sch, conv, err := timeColumnSchema(rr.Schema(), *timeCol)
	if err != nil {
		return err
	}
	model := timeseries.Model{Keys: keys, Time: *timeCol}
	wopts := &timeseries.WriterOptions{Sorted: *sorted, ChunkRows: *chunkRows, Table: write.Options{NoZstd: *noZstd}}
	w, err := createTimeSeries(ctx, pos[1], sf, sch, model, wopts)
	if err != nil {
		return err
	}
	p := newProgress("ts import", "rows", 0, pf)
	var n int64
	for {
		rec, err := rr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			w.Abort()
			return err
		}
		n += rec.NumRows()
		if conv != nil {
			r2 := conv(rec)
			rec.Release()
			rec = r2
		}
		err = w.Write(rec)
		rec.Release()
		if err != nil {
			w.Abort()
			return err
		}
		p.update(n)
	}
	if err := w.Close(); err != nil {
		return err
	}
	p.finish(n)
	p.summary("wrote %s: %d rows, %d bytes\n", pos[1], n, outSize(ctx, pos[1], sf))
	return nil
}

// timeColumnSchema turns a date time column into a timestamp (seconds for
// date32, milliseconds for date64) and returns the record conversion.
func timeColumnSchema(sch *arrow.Schema, col string) (*arrow.Schema, func(arrow.Record) arrow.Record, error) {
	is := sch.FieldIndices(col)
	if len(is) != 1 {
		return nil, nil, usagef("--time: no column %q", col)
	}
	i := is[0]
	var unit arrow.TimeUnit
	var scale int64
	switch sch.Field(i).Type.ID() {
	case arrow.DATE32:
		unit, scale = arrow.Second, 86400
	case arrow.DATE64:
		unit, scale = arrow.Millisecond, 1
	default:
		return sch, nil, nil
	}
	fields := append([]arrow.Field(nil), sch.Fields()...)
	fields[i].Type = &arrow.TimestampType{Unit: unit}
	out := arrow.NewSchema(fields, nil)
	conv := func(rec arrow.Record) arrow.Record {
		b := array.NewTimestampBuilder(memory.DefaultAllocator, fields[i].Type.(*arrow.TimestampType))
		defer b.Release()
		a := rec.Column(i)
		for r := 0; r < a.Len(); r++ {
			switch {
			case a.IsNull(r):
				b.AppendNull()
			case scale == 86400:
				b.Append(arrow.Timestamp(int64(a.(*array.Date32).Value(r)) * scale))
			default:
				b.Append(arrow.Timestamp(int64(a.(*array.Date64).Value(r))))
			}
		}
		ta := b.NewArray()
		defer ta.Release()
		cols := append([]arrow.Array(nil), rec.Columns()...)
		cols[i] = ta
		return array.NewRecord(out, cols, rec.NumRows())
	}
	return out, conv, nil
}

// tsFlags are the flags every ts read command shares.
type tsFlags struct {
	series, from, to, format *string
	null                     *string
	// nulls are the words of --null, set by parse
	nulls   []string
	cols    *[]string
	threads *int
	stats   *bool
	store   *storeFlags
}

func addTSFlags(fs *flag.FlagSet) *tsFlags {
	return &tsFlags{
		series:  fs.String("series", "", "series selector: tag=value[,tag=value...], each = or != (not equal), =~ or !~ (regular expression matching the whole value, or not); quote a value holding a comma: tag=\"a,b\" (default: every series)"),
		from:    fs.String("from", "", "first time (inclusive)"),
		to:      fs.String("to", "", "end time (exclusive)"),
		cols:    columnsFlag(fs, "comma-separated `columns` (default all); quote a name holding a comma: \"a,b\""),
		format:  fs.String("format", "table", "table, csv or json"),
		null:    nullOutFlag(fs),
		threads: threadsFlag(fs, 1, "`N` goroutines decoding columns in parallel"),
		stats:   fs.Bool("stats", false, "print what was read and decoded on stderr"),
		store:   addStoreFlags(fs),
	}
}

// parse parses the command line of a ts read command and checks --null
// against --format before any file is opened.
func (fl *tsFlags) parse(fs *flag.FlagSet, args []string) ([]string, error) {
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return nil, err
	}
	if fl.nulls, err = nullWords(*fl.null, *fl.format == "csv"); err != nil {
		return nil, err
	}
	return pos, nil
}

// tsFile is an open time-series file and the source it reads, a local
// file or an s3:// or http(s) object, which Close closes too.
type tsFile struct {
	*timeseries.File
	src iox.Source
	// opened is what opening the file read (BytesRead then)
	opened int64
}

func (f *tsFile) Close() error {
	err := f.File.Close()
	if c, ok := f.src.(io.Closer); ok {
		if cerr := c.Close(); err == nil {
			err = cerr
		}
	}
	return err
}

// openTS opens the one FILE of pos, at a local path or a URL as every
// reading command does, and turns the commonest mistakes into advice: a
// missing file names the directory looked in, and a Strata table without
// a series index (exit 2) or a Parquet or Arrow file (exit 3) says how to
// make a time-series table of it.
func openTS(pos []string, threads int, sf *storeFlags) (*tsFile, error) {
	if len(pos) != 1 {
		return nil, usagef("want one FILE, got %d arguments", len(pos))
	}
	path := pos[0]
	src, err := openSource(ctx, path, sf)
	if err == nil {
		var f *timeseries.File
		if f, err = timeseries.OpenSource(ctx, src, &timeseries.Options{Threads: threads}); err == nil {
			return &tsFile{File: f, src: src, opened: f.BytesRead()}, nil
		}
		if c, ok := src.(io.Closer); ok {
			c.Close()
		}
		err = fmt.Errorf("%s: %w", path, err)
	}
	how := fmt.Sprintf("strata ts import %s OUT.strata --series KEYS --time COLUMN", path)
	switch {
	case errors.Is(err, os.ErrNotExist) && iox.Scheme(path) == "":
		where := ""
		if !filepath.IsAbs(path) {
			where = " (looked in " + workingDir() + ")"
		}
		return nil, &adviceError{msg: fmt.Sprintf("%s: no such file%s", path, where), err: err}
	case errors.Is(err, timeseries.ErrNotTimeSeries):
		return nil, &adviceError{msg: fmt.Sprintf("%s is a Strata table without a series index; make a time-series table of it with: %s", path, how),
			err: fmt.Errorf("%w: %w", err, read.ErrInvalidArgument)}
	case errors.Is(err, encoding.ErrCorrupt) && iox.Scheme(path) == "":
		if kind := sniff(path); kind != "" {
			return nil, &adviceError{msg: fmt.Sprintf("%s is %s, not a Strata file; make a time-series table of it with: %s", path, kind, how), err: err}
		}
	}
	return nil, err
}

// timeUnit returns how many time-column units make a second (0 for a raw
// int64 time column).
func timeUnit(f *timeseries.File) int64 {
	t := f.Schema().Field(f.Schema().FieldIndices(f.Model().Time)[0]).Type
	if ts, ok := t.(*arrow.TimestampType); ok {
		return map[arrow.TimeUnit]int64{arrow.Second: 1, arrow.Millisecond: 1e3, arrow.Microsecond: 1e6, arrow.Nanosecond: 1e9}[ts.Unit]
	}
	return 0
}

// unitName names the time column's unit from timeUnit's units per second.
func unitName(per int64) string {
	return map[int64]string{1: "seconds", 1e3: "milliseconds", 1e6: "microseconds", 1e9: "nanoseconds"}[per]
}

// parseTime parses a time flag in the file's time unit. A time finer than
// the unit rounds up to the next unit, the first time at or after it, so
// that --from (inclusive) and --to (exclusive) keep exactly the times at or
// after, and before, the instant given. A time the unit cannot hold gives
// past -1 (before every time) or +1 (after every time), and v the nearest
// end of int64.
func parseTime(f *timeseries.File, s string) (v int64, past int, err error) {
	if v, err := strconv.ParseInt(s, 10, 64); err == nil {
		return v, 0, nil
	}
	per := timeUnit(f)
	if per == 0 {
		return 0, 0, usagef("time %q: the time column holds plain integers", s)
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02"} {
		t, err := time.Parse(layout, s)
		if err != nil {
			continue
		}
		// seconds and nanoseconds in units, rounded up, in big integers:
		// the seconds of year 1 or 9999 overflow int64 in nanoseconds
		u := new(big.Int).Mul(big.NewInt(t.Unix()), big.NewInt(per))
		frac := int64(t.Nanosecond()) * per // < 1e18
		u.Add(u, big.NewInt((frac+1e9-1)/1e9))
		switch {
		case u.IsInt64():
			return u.Int64(), 0, nil
		case u.Sign() < 0:
			return math.MinInt64, -1, nil
		}
		return math.MaxInt64, 1, nil
	}
	return 0, 0, usagef("time %q: want RFC 3339, a date or an integer", s)
}

// parseEvery parses a bucket width in the file's time unit: an integer of
// units, or a duration that is a whole number of them.
func parseEvery(f *timeseries.File, s string) (int64, error) {
	if v, err := strconv.ParseInt(s, 10, 64); err == nil {
		return v, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, usagef("--every %q: want a duration (5m, 1h) or an integer in the time unit", s)
	}
	per := timeUnit(f)
	if per == 0 {
		return 0, usagef("--every %q: the time column holds plain integers: give an integer", s)
	}
	unit := int64(time.Second) / per
	if d%time.Duration(unit) != 0 {
		// 1ns of a microsecond column would be 0: one bucket per series
		return 0, usagef("--every %q: not a whole number of %s, the time column's unit", s, unitName(per))
	}
	return int64(d) / unit, nil
}

// openSelection opens the file of pos with the series selector and time
// range the flags give, as query and agg take them.
func (fl *tsFlags) openSelection(pos []string) (*tsFile, timeseries.Selector, *timeseries.TimeRange, error) {
	f, err := openTS(pos, *fl.threads, fl.store)
	if err != nil {
		return nil, nil, nil, err
	}
	sel, err := timeseries.ParseSelector(*fl.series)
	if err != nil {
		f.Close()
		return nil, nil, nil, err
	}
	tr, err := fl.timeRange(f.File)
	if err != nil {
		f.Close()
		return nil, nil, nil, err
	}
	return f, sel, tr, nil
}

// timeRange returns the range of --from and --to (nil when neither is
// given). A --to past every time the unit holds leaves the range open
// above; a --from past them empties it; --from after --to is refused.
func (fl *tsFlags) timeRange(f *timeseries.File) (*timeseries.TimeRange, error) {
	if *fl.from == "" && *fl.to == "" {
		return nil, nil
	}
	tr := timeseries.TimeRange{From: math.MinInt64, To: math.MaxInt64}
	var fromPast, toPast int
	var err error
	if *fl.from != "" {
		if tr.From, fromPast, err = parseTime(f, *fl.from); err != nil {
			return nil, err
		}
	}
	if *fl.to != "" {
		if tr.To, toPast, err = parseTime(f, *fl.to); err != nil {
			return nil, err
		}
	}
	if *fl.from != "" && *fl.to != "" && (fromPast > toPast || fromPast == 0 && toPast == 0 && tr.From > tr.To) {
		return nil, usagef("--from %s is after --to %s", *fl.from, *fl.to)
	}
	if fromPast > 0 {
		return &timeseries.TimeRange{From: math.MaxInt64, To: math.MinInt64}, nil // no time
	}
	return &tr, nil
}

func printRecords(fl *tsFlags, recs ...arrow.Record) error {
	if *fl.format == "none" {
		return nil
	}
	pr, err := newPrinter(*fl.format, os.Stdout)
	if err != nil {
		return err
	}
	pr.nulls = fl.nulls
	for _, r := range recs {
		if err := pr.print(r); err != nil {
			return err
		}
	}
	return pr.flush()
}

func printTSStats(f *tsFile, st fmt.Stringer, start time.Time) {
	fmt.Fprintf(os.Stderr, "%s\n%s\nelapsed %v\n", st.String(),
		bytesReadLines(f.opened, f.BytesRead(), f.src.Size(), f.Reads(), "the file's"), time.Since(start).Round(time.Microsecond))
}

func runTSQuery(args []string) error {
	fs := flag.NewFlagSet("ts query", flag.ContinueOnError)
	fl := addTSFlags(fs)
	offset := fs.Int64("offset", 0, "skip N rows")
	limit := fs.Int64("limit", 0, "return at most N rows")
	eager := fs.Bool("eager", false, "decode value columns before filtering time (no late materialization)")
	pos, err := fl.parse(fs, args)
	if err != nil {
		return err
	}
	start := time.Now()
	f, sel, tr, err := fl.openSelection(pos)
	if err != nil {
		return err
	}
	defer f.Close()
	rows, err := f.Query(ctx, timeseries.QueryOptions{Series: sel, Time: tr, Columns: *fl.cols,
		Offset: *offset, Limit: *limit, Eager: *eager})
	if err != nil {
		return err
	}
	pr, err := newPrinter(*fl.format, os.Stdout)
	if err != nil && *fl.format != "none" {
		return err
	}
	if pr != nil {
		pr.nulls = fl.nulls
	}
	for {
		rec, err := rows.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		if pr != nil {
			err = pr.print(rec)
		}
		rec.Release()
		if err != nil {
			return err
		}
	}
	if pr != nil {
		// a query of no rows still names its columns, as scan does
		if err := pr.empty(rows.Schema()); err != nil {
			return err
		}
		if err := pr.flush(); err != nil {
			return err
		}
	}
	if *fl.stats {
		st := rows.Stats()
		printTSStats(f, &st, start)
	}
	return nil
}

func runTSAgg(args []string) error {
	fs := flag.NewFlagSet("ts agg", flag.ContinueOnError)
	fl := addTSFlags(fs)
	every := fs.String("every", "", "bucket width: a duration (5m, 1h) or an integer in the time unit (default: one bucket per series)")
	funcs := fs.String("funcs", "count,min,max,avg", "aggregates: count, min, max, sum, avg, first, last (first and last: the values of the earliest and latest time in a bucket)")
	noStats := fs.Bool("no-index-stats", false, "decode every row instead of folding whole units from the index statistics")
	keys := fs.String("keys", "", "key columns naming each series in the result (default all); quote a name holding a comma: \"a,b\"")
	pos, err := fl.parse(fs, args)
	if err != nil {
		return err
	}
	keyNames, err := splitColumns(*keys)
	if err != nil {
		return usagef("--keys %s: %v", *keys, err)
	}
	start := time.Now()
	f, sel, tr, err := fl.openSelection(pos)
	if err != nil {
		return err
	}
	defer f.Close()
	var ev int64
	if *every != "" {
		if ev, err = parseEvery(f.File, *every); err != nil {
			return err
		}
	}
	var fn []string
	for _, s := range splitList(*funcs) {
		fn = append(fn, strings.ToLower(s))
	}
	rec, st, err := f.Aggregate(ctx, timeseries.AggOptions{Series: sel, Time: tr, Every: ev, Columns: *fl.cols, Funcs: fn, NoStats: *noStats, Keys: keyNames})
	if err != nil {
		return err
	}
	defer rec.Release()
	if err := printRecords(fl, rec); err != nil {
		return err
	}
	if *fl.stats {
		printTSStats(f, aggStats{st}, start)
	}
	return nil
}

type aggStats struct{ timeseries.AggStats }

func (a aggStats) String() string {
	return fmt.Sprintf("%s\nunits folded from index statistics %d, time blocks counted from headers %d",
		a.Stats.String(), a.UnitsFromStats, a.BlocksCounted)
}

func runTSSample(args []string) error {
	fs := flag.NewFlagSet("ts sample", flag.ContinueOnError)
	fl := addTSFlags(fs)
	windows := fs.Int("windows", 16, "windows per epoch")
	length := fs.Int("length", 256, "rows per window")
	seed := fs.Uint64("seed", 1, "random seed")
	epoch := fs.Int("epoch", 0, "first epoch")
	epochs := fs.Int("epochs", 1, "epochs to draw (the metadata cache stays warm between them)")
	stacked := fs.Bool("stacked", false, "one record of all windows with a window column")
	pos, err := fl.parse(fs, args)
	if err != nil {
		return err
	}
	// Counts below 1 drew nothing and printed nothing, exit 0 (or failed
	// in the library without naming the flag).
	for _, c := range []struct {
		name string
		n    int
	}{{"windows", *windows}, {"length", *length}, {"epochs", *epochs}} {
		if c.n < 1 {
			return usagef("--%s %d: want 1 or more", c.name, c.n)
		}
	}
	if *epoch > math.MaxInt-(*epochs-1) {
		return usagef("--epoch %d --epochs %d: the last epoch would be past %d", *epoch, *epochs, math.MaxInt)
	}
	start := time.Now()
	f, err := openTS(pos, *fl.threads, fl.store)
	if err != nil {
		return err
	}
	defer f.Close()
	sel, err := timeseries.ParseSelector(*fl.series)
	if err != nil {
		return err
	}
	var total timeseries.Stats
	for i := range *epochs {
		e, t0 := *epoch+i, time.Now() // (e < epoch+epochs would overflow at the largest epoch)
		recs, st, err := f.Sample(ctx, timeseries.SampleOptions{Series: sel, Windows: *windows, Length: *length,
			Columns: *fl.cols, Seed: *seed, Epoch: e, Stacked: *stacked})
		if err != nil {
			return err
		}
		if err := printRecords(fl, recs...); err != nil {
			return err
		}
		for _, r := range recs {
			r.Release()
		}
		if *fl.stats {
			el := time.Since(t0)
			fmt.Fprintf(os.Stderr, "epoch %d: %d windows in %v (%.0f windows/s); %v\n", e, *windows, el.Round(time.Microsecond),
				float64(*windows)/el.Seconds(), &st)
		}
		total = st
	}
	if *fl.stats {
		cs := f.CacheStats()
		fmt.Fprintf(os.Stderr, "metadata cache: %d pages, %d bytes, %d hits, %d misses\n", cs.Pages, cs.Bytes, cs.Hits, cs.Misses)
		printTSStats(f, &total, start)
	}
	return nil
}

func runTSLast(args []string) error {
	fs := flag.NewFlagSet("ts last", flag.ContinueOnError)
	fl := addTSFlags(fs)
	pos, err := fl.parse(fs, args)
	if err != nil {
		return err
	}
	start := time.Now()
	f, err := openTS(pos, *fl.threads, fl.store)
	if err != nil {
		return err
	}
	defer f.Close()
	sel, err := timeseries.ParseSelector(*fl.series)
	if err != nil {
		return err
	}
	rec, st, err := f.Last(ctx, sel, *fl.cols)
	if err != nil {
		return err
	}
	defer rec.Release()
	if err := printRecords(fl, rec); err != nil {
		return err
	}
	if *fl.stats {
		printTSStats(f, &st, start)
	}
	return nil
}

func runTSPaths(args []string) error {
	fs := flag.NewFlagSet("ts paths", flag.ContinueOnError)
	fl := addTSFlags(fs)
	paths := fs.String("paths", "", "comma-separated device.measurement paths; quote a path holding a comma: \"a,b.cpu\"")
	pos, err := fl.parse(fs, args)
	if err != nil {
		return err
	}
	pl, err := splitColumns(*paths)
	if err != nil {
		return usagef("--paths: %v", err)
	}
	if len(pl) == 0 {
		return usagef("want --paths dev.meas[,dev.meas...]")
	}
	start := time.Now()
	f, err := openTS(pos, *fl.threads, fl.store)
	if err != nil {
		return err
	}
	defer f.Close()
	tr, err := fl.timeRange(f.File)
	if err != nil {
		return err
	}
	rec, st, err := f.QueryPaths(ctx, pl, tr)
	if err != nil {
		return err
	}
	defer rec.Release()
	if err := printRecords(fl, rec); err != nil {
		return err
	}
	if *fl.stats {
		printTSStats(f, &st, start)
	}
	return nil
}

func runTSInfo(args []string) error {
	fs := flag.NewFlagSet("ts info", flag.ContinueOnError)
	sf := addStoreFlags(fs)
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	f, err := openTS(pos, 1, sf)
	if err != nil {
		return err
	}
	defer f.Close()
	m := f.Model()
	ix := f.Index()
	lo, hi := f.TimeRange()
	fmt.Printf("series keys %s, time %s; %d series, %d rows, time [%d, %d]\n", strings.Join(m.Keys, ","), m.Time, ix.Series, f.NumRows(), lo, hi)
	fmt.Printf("units %d (chunks of at most %d rows, small series share below %d), time blocks of %d rows\n",
		ix.Units, ix.ChunkRows, ix.MinChunkRows, ix.BlockSize)
	ends := "first and last in the statistics"
	if ix.Version < 2 {
		ends = "first and last read from each unit's rows"
	}
	fmt.Printf("index version %d (%s), %d bytes: directory height %d, %d unit pages, %d statistics pages, bloom %d blocks; Open read %d bytes\n",
		ix.Version, ends, ix.IndexBytes, ix.Height, ix.UnitPages, ix.StatPages, ix.BloomBlocks, f.BytesRead())
	return nil
}
