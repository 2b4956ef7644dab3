package strata

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"strata/encoding"
	"strata/encoding/all"
	"strata/format"
	"strata/internal/facade"
	"strata/iox"
	"strata/read"
	"strata/schema"
	"strata/stats"
)

func init() {
	facade.ReadFile = func(f any) *read.File { return f.(*File).r }
}

// File is an open Strata file, safe for concurrent use.
type File struct {
	r      *read.File
	closer io.Closer
	closed atomic.Bool
}

// ErrClosed is returned by a query of a File after its Close (a Scanner
// started before goes on failing its reads instead).
var ErrClosed = fmt.Errorf("strata: file is closed: %w", read.ErrInvalidArgument)

// open returns ErrClosed once the file is closed, naming the operation.
func (f *File) open(op string) error {
	if f.closed.Load() {
		return fmt.Errorf("%s: %w", op, ErrClosed)
	}
	return nil
}

// OpenOption tunes Open, OpenContext and OpenSource.
type OpenOption interface{ apply(*openConfig) }

type openConfig struct {
	OpenOptions
	cacheBytes int64
	gap        int64
	src        iox.Source
}

type optionFunc func(*openConfig)

func (f optionFunc) apply(c *openConfig) { f(c) }

// OpenOptions gathers the options as a struct; it is itself an OpenOption,
// and the zero value gives the defaults.
type OpenOptions struct {
	// Verify reads the whole file on open and checks its checksum, so a
	// corrupt byte anywhere is an error before any data is returned
	// (File.Verify also locates it). Without it every read checks the
	// checksums of what it loads.
	Verify bool
	// MaxMemory bounds every buffer the reader sizes from what the file
	// declares (the footer, each section and stripe group, each chunk,
	// each decoded buffer, the rows of a stripe: at most MaxMemory/32
	// rows), the counts of stripes, streams and chunks, and the decoder
	// cache (a quarter of it). A file that declares more is refused with
	// an error wrapping encoding.ErrLimit. A read holds a few such buffers
	// at once, about one per column it decodes, so its peak is a small
	// multiple of the limit per projected column. Zero keeps the defaults
	// (about 1-2 GiB per buffer); a negative budget is refused by Open
	// (ErrInvalidArgument), and one past 1 TiB acts as 1 TiB. A budget
	// below what the file needs is honoured, not raised: Open fails when
	// the footer or metadata does not fit, and a read of a chunk or stripe
	// that does not fit fails with ErrLimit, however small the budget.
	MaxMemory int64
	// Parallelism is how many goroutines a query decodes on: 0 means all
	// cores, 1 the calling goroutine only (ScanOptions can override it). A
	// count past the larger of GOMAXPROCS and read.MinMaxParallelism (256)
	// is taken as that bound; a negative one is refused by Open
	// (ErrInvalidArgument).
	Parallelism int
	// PrefetchBytes bounds what a parallel scan holds ahead of its caller
	// (fetched bytes and decoded batches not yet returned); 0 means
	// read.DefaultPrefetchBytes, and a negative budget is refused by Open
	// (ErrInvalidArgument). A budget below one batch's bytes (or one
	// stripe's, for a filtered scan) still lets that one batch through,
	// decoded alone: the scan then holds one batch at a time.
	PrefetchBytes int64
}

func (o OpenOptions) apply(c *openConfig) {
	c.Verify = c.Verify || o.Verify
	if o.MaxMemory != 0 {
		c.MaxMemory = o.MaxMemory
	}
	if o.Parallelism != 0 {
		c.Parallelism = o.Parallelism
	}
	if o.PrefetchBytes != 0 {
		c.PrefetchBytes = o.PrefetchBytes
	}
}

// WithVerify checks the whole file's checksum on open (OpenOptions.Verify).
func WithVerify() OpenOption { return optionFunc(func(c *openConfig) { c.Verify = true }) }

// WithMaxMemory bounds what reading may allocate on the file's say-so
// (OpenOptions.MaxMemory: 0 the defaults, negative refused by Open).
func WithMaxMemory(bytes int64) OpenOption {
	return optionFunc(func(c *openConfig) { c.MaxMemory = bytes })
}

// WithParallelism sets how many goroutines a query decodes on
// (OpenOptions.Parallelism): 0 all cores, 1 the calling goroutine only,
// negative refused by Open.
func WithParallelism(n int) OpenOption {
	return optionFunc(func(c *openConfig) { c.Parallelism = n })
}

// WithPrefetch bounds what a parallel scan holds ahead of its caller
// (OpenOptions.PrefetchBytes: 0 the default, negative refused by Open).
func WithPrefetch(bytes int64) OpenOption {
	return optionFunc(func(c *openConfig) { c.PrefetchBytes = bytes })
}

// WithDecoderCache sets the bytes of opened chunk decoders kept for point
// lookups and repeated reads (default 256 MiB; negative disables the cache).
func WithDecoderCache(bytes int64) OpenOption {
	return optionFunc(func(c *openConfig) { c.cacheBytes = bytes })
}

// WithCoalesceGap merges byte ranges closer than this into one read (a
// larger gap suits object storage, where a request costs more than bytes):
// 0 takes the source's preference (else iox.DefaultGap), a negative gap
// merges only touching ranges, and any gap, math.MaxInt64 included, merges
// no read past the source's largest read size.
func WithCoalesceGap(bytes int64) OpenOption {
	return optionFunc(func(c *openConfig) { c.gap = bytes })
}

// WithSource reads the file from src (an object opened with strata/iox/s3,
// bytes in memory, any iox.Source) instead of opening the path, which then
// only names the file in messages. The caller keeps ownership of src.
func WithSource(src iox.Source) OpenOption {
	return optionFunc(func(c *openConfig) { c.src = src })
}

// readOptions turns the configuration into the reader's options.
func (c *openConfig) readOptions() read.Options {
	ro := read.Options{Verify: c.Verify, DecoderCacheBytes: c.cacheBytes, CoalesceGap: c.gap,
		Parallelism: c.Parallelism, PrefetchBytes: c.PrefetchBytes}
	if m := c.MaxMemory; m > 0 {
		// at most what an int holds: 1<<40 wraps to 0 in a 32-bit int,
		// which would refuse every chunk
		lim := int(min(m, 1<<40, math.MaxInt))
		dec := *all.Options()
		dec.MaxBytes = lim
		dec.MaxRows = max(lim/32, 1) // a stripe of int64 values and a child of as many fit in half the limit
		ro.Decode = &dec
		// Directory entries cost a few dozen bytes each once parsed.
		entries := max(lim/64, 1)
		ro.Format = format.ReaderOptions{MaxFooterSize: lim, MaxSectionSize: lim, MaxGroupSize: lim, MaxChunkSize: lim,
			MaxStripes: entries, MaxStreams: entries, MaxChunks: entries, MaxSections: entries}
		if ro.DecoderCacheBytes == 0 {
			ro.DecoderCacheBytes = max(m/4, 1)
		}
	}
	return ro
}

// Open opens a Strata file: a local path, or a URL whose scheme a source
// package has registered with iox (import strata/iox/s3 for s3:// and
// https:// URLs, strata/iox/remote for https:// alone).
func Open(path string, opts ...OpenOption) (*File, error) {
	return OpenContext(context.Background(), path, opts...)
}

// OpenContext is Open whose reading of the file's metadata (and, for a
// remote object, its first request) stops when ctx ends. A nil ctx is
// context.Background(), as it is for ScanContext and the other queries.
func OpenContext(ctx context.Context, path string, opts ...OpenOption) (*File, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	var c openConfig
	for _, o := range opts {
		o.apply(&c)
	}
	for _, b := range []struct {
		name string
		v    int64
	}{{"MaxMemory", c.MaxMemory}, {"PrefetchBytes", c.PrefetchBytes}} {
		if b.v < 0 {
			return nil, fmt.Errorf("strata: %s %d: %w (a budget may not be negative; 0 keeps the default)", b.name, b.v, read.ErrInvalidArgument)
		}
	}
	src := c.src
	var closer io.Closer
	if src == nil {
		s, err := iox.Open(ctx, path)
		if err != nil {
			return nil, fmt.Errorf("strata: %w", err)
		}
		src = s
		closer, _ = s.(io.Closer)
	}
	f, err := read.Open(ctx, src, c.readOptions())
	if err != nil {
		if closer != nil {
			closer.Close()
		}
		if path == "" {
			return nil, fmt.Errorf("strata: %w", err)
		}
		return nil, fmt.Errorf("strata: %s: %w", path, err)
	}
	return &File{r: f, closer: closer}, nil
}

// OpenWith is OpenContext with options as a struct.
func OpenWith(ctx context.Context, path string, opts OpenOptions) (*File, error) {
	return OpenContext(ctx, path, opts)
}

// OpenSource opens a Strata file from any range-readable source, such as
// an object opened with strata/iox/s3. The caller keeps ownership of src.
func OpenSource(src iox.Source, opts ...OpenOption) (*File, error) {
	if src == nil {
		return nil, errors.New("strata: OpenSource: nil source")
	}
	return OpenContext(context.Background(), "", append(opts, WithSource(src))...)
}

// OpenSourceWith is OpenSource with options as a struct.
func OpenSourceWith(src iox.Source, opts OpenOptions) (*File, error) {
	return OpenSource(src, opts)
}

// DropCaches forgets the chunk decoders this file's queries kept open,
// so the next lookup pays what a first one does; the metadata stays
// cached.
func (f *File) DropCaches() { f.r.DropCaches() }

// Close releases the file.
func (f *File) Close() error {
	f.closed.Store(true)
	if f.closer != nil {
		return f.closer.Close()
	}
	return nil
}

// Schema returns the file's Arrow schema.
func (f *File) Schema() *arrow.Schema { return f.r.Schema() }

// NumRows returns the number of rows.
func (f *File) NumRows() int64 { return f.r.NumRows() }

// NumStripes returns the number of stripes, the units of Splits.
func (f *File) NumStripes() int { return f.r.Container().NumStripes() }

// Size returns the file's size in bytes.
func (f *File) Size() int64 { return f.r.Container().Size() }

// Version returns the format version the file was written in.
func (f *File) Version() (major, minor uint16) { return f.r.Container().Version() }

// Metadata returns the user key/value metadata written with the file.
func (f *File) Metadata() map[string]string { return f.r.Metadata() }

// BytesRead returns every byte read from the source so far, metadata
// included, by all scans and lookups.
func (f *File) BytesRead() int64 { return f.r.BytesRead() }

// OpenBytes returns the bytes Open read (postscript, footer, metadata).
func (f *File) OpenBytes() int64 { return f.r.OpenBytes() }

// Verify checks every stored checksum of the file, reading all of it, and
// returns the first mismatch, naming the stripe, column and chunk. A nil
// ctx is context.Background().
func (f *File) Verify(ctx context.Context) error {
	if err := f.open("strata: Verify"); err != nil {
		return err
	}
	return f.r.Verify(ctx)
}

// ColumnStats summarizes one leaf column over the whole file.
type ColumnStats struct {
	Rows  int64 // rows, nulls included
	Nulls int64
	NaNs  int64 // float NaN values (not null), outside Min/Max
	// Min and Max bound the other values, as Go values of the column's
	// logical type: int64 or uint64 for integers, float64, bool, string,
	// []byte, time.Time (UTC) for dates and timestamps, time.Duration for
	// times of day (since midnight) and durations (int64 in the column's
	// unit where nanoseconds would overflow), Decimal for decimals. HasMinMax is false when the writer kept no bounds (all
	// values null, or wide decimals); string bounds may be truncated
	// prefixes (MinTruncated, MaxTruncated) that still bound every value.
	// A float bound of zero holds for both zeros, which compare equal: a
	// Min of zero is -0 and a Max of zero +0, whichever sign the column
	// holds.
	Min, Max                   any
	HasMinMax                  bool
	MinTruncated, MaxTruncated bool
}

// ColumnStats returns the file statistics of a leaf column (a top-level
// column name, or a dotted path into a struct).
func (f *File) ColumnStats(column string) (ColumnStats, bool) {
	n, err := f.r.StrataSchema().Find(column)
	if err != nil || !n.Kind.IsLeaf() {
		return ColumnStats{}, false
	}
	id := n.StreamID(schema.RoleValues)
	cs, ok := f.r.FileStats(id)
	if !ok {
		return ColumnStats{}, false
	}
	out := ColumnStats{Rows: cs.Rows, Nulls: cs.Nulls, NaNs: cs.NaNs, HasMinMax: cs.HasMinMax,
		MinTruncated: cs.MinTruncated, MaxTruncated: cs.MaxTruncated}
	if n.Kind == schema.Decimal && f.r.StrataSchema().Stream(id).Type == encoding.Binary {
		// A wide decimal (precision above 18) is stored as 16 bytes whose
		// byte order, which its statistics follow, is not its numeric
		// order: the bounds say nothing about its values.
		out.HasMinMax, out.MinTruncated, out.MaxTruncated = false, false, false
	}
	if out.HasMinMax {
		out.Min, out.Max = goValue(n, cs.Min), goValue(n, cs.Max)
	}
	return out, true
}

// goValue converts a statistics value into the Go value of its logical type.
func goValue(n *schema.Node, v stats.Value) any {
	t := v.Type
	switch n.Kind {
	case schema.String:
		return string(v.Bytes())
	case schema.Date:
		return time.Unix(v.Int()*86400, 0).UTC()
	case schema.Time, schema.Duration:
		// Both are spans of time: since midnight, or elapsed.
		per := int64(1e9) / n.Unit.PerSecond()
		if x := v.Int(); x <= math.MaxInt64/per && x >= math.MinInt64/per {
			return time.Duration(x * per)
		}
		return v.Int()
	case schema.Timestamp:
		per := n.Unit.PerSecond()
		x := v.Int()
		sec, rem := x/per, x%per
		if rem < 0 {
			sec, rem = sec-1, rem+per
		}
		return time.Unix(sec, rem*(1e9/per)).UTC()
	case schema.Decimal:
		if t.IsSigned() {
			// in the column's units: a negative scale -s multiplies the
			// stored value by 10^s
			return Decimal(read.FormatDecimal(n, v.Int()))
		}
	}
	switch {
	case t == encoding.Bool:
		return v.Bool()
	case t == encoding.Binary:
		return append([]byte(nil), v.Bytes()...)
	case t.IsFloat():
		return v.Float()
	case t.IsSigned():
		return v.Int()
	}
	return v.Uint()
}

// Split is a stripe-aligned piece of a file that one worker scans
// (ScanOptions.Split). It serializes to JSON, so a planner can hand it to
// another process that opens the same file; a split of a file since
// rewritten is refused.
type Split struct {
	Location    string `json:"location,omitempty"` // for the planner; the reader ignores it
	FileSize    int64  `json:"file_size"`
	FirstStripe int    `json:"first_stripe"`
	Stripes     int    `json:"stripes"`
	FirstRow    int64  `json:"first_row"`
	Rows        int64  `json:"rows"`
	Bytes       int64  `json:"bytes"`
}

// Splits cuts the file into stripe-aligned pieces of about targetBytes of
// stripe data each (at least one stripe each; targetBytes <= 0 gives one
// per stripe), covering every stripe once, in order.
func (f *File) Splits(targetBytes int64) []Split {
	rs := f.r.Splits(targetBytes)
	out := make([]Split, len(rs))
	for i, s := range rs {
		out[i] = Split(s)
	}
	return out
}

// ParseSplit decodes a Split from its JSON form (one line of
// `strata splits`).
func ParseSplit(b []byte) (*Split, error) {
	s, err := read.ParseSplit(b)
	if err != nil {
		return nil, err
	}
	out := Split(*s)
	return &out, nil
}

// ScanOptions select what File.Scan returns.
type ScanOptions struct {
	// Columns are the columns to return, all when empty: top-level
	// columns, or dotted paths of fields nested in them ("properties.mag").
	// The paths into one column return that column pruned to those fields
	// (structs keep only the named fields, lists and maps their shape),
	// reading only their streams; a column also named whole comes whole.
	Columns []string
	// Where is a filter in the SQL-like syntax of `strata scan --where`;
	// Filter is one built in Go. When both are set, rows pass both.
	Where  string
	Filter Filter
	// Offset skips this many rows (after filtering); Limit caps the rows
	// returned (0: no limit).
	Offset, Limit int64
	// Split limits the scan to the stripes of one split (File.Splits).
	Split *Split
	// Parallelism overrides the file's (OpenOptions.Parallelism) for this
	// scan: 0 keeps it, 1 decodes on the calling goroutine only; negative
	// is refused (ErrInvalidArgument).
	Parallelism int
	// UnionByName makes ScanFiles read the files by column name (see
	// ScanFiles); a scan of one file ignores it.
	UnionByName bool
}

// Scanner streams the record batches of a scan (of one file, or of
// several read as one table: ScanFiles).
type Scanner struct{ s scanner }

// scanner is what a Scanner reads through: one file's scan or several's.
type scanner interface {
	Next() (arrow.Record, error)
	Stats() read.ScanStats
	Schema() *arrow.Schema
	Close() error
}

// Scan starts a scan. Release each record Next returns.
func (f *File) Scan(opts ScanOptions) (*Scanner, error) {
	return f.ScanContext(context.Background(), opts)
}

// ScanContext is Scan whose reads stop when ctx ends.
func (f *File) ScanContext(ctx context.Context, opts ScanOptions) (*Scanner, error) {
	if err := f.open("strata: Scan"); err != nil {
		return nil, err
	}
	ro, err := opts.read()
	if err != nil {
		return nil, err
	}
	s, err := f.r.ScanContext(ctx, ro)
	if err != nil {
		return nil, err
	}
	return &Scanner{s: s}, nil
}

// ScanFiles scans several files as one table (the files a pattern
// names, the parts of a partitioned table): the rows of the first, then of
// the second, and so on, with opts' filter and projection, and its offset
// and limit counted across the files; a file is read only once the rows
// before it are spent. The files must hold the same columns, unless
// opts.UnionByName reads them by column name (UnionByName): the result
// then has the union's columns, null where a file lacks one, and a file
// whose rows the filter rules out whatever they hold is not read. A split
// names stripes of one file and is refused with several. The files stay
// open; Close the scanner, then the files.
func ScanFiles(ctx context.Context, files []*File, opts ScanOptions) (*Scanner, error) {
	ro, err := opts.read()
	if err != nil {
		return nil, err
	}
	rs := make([]*read.File, len(files))
	for i, f := range files {
		if f == nil {
			return nil, fmt.Errorf("strata: ScanFiles: file %d is nil: %w", i+1, read.ErrInvalidArgument)
		}
		if err := f.open(fmt.Sprintf("strata: ScanFiles: file %d", i+1)); err != nil {
			return nil, err
		}
		rs[i] = f.r
	}
	s, err := read.ScanFiles(ctx, rs, ro, opts.UnionByName)
	if err != nil {
		return nil, err
	}
	return &Scanner{s: s}, nil
}

// read returns the reader's options opts stands for.
func (opts ScanOptions) read() (read.ScanOptions, error) {
	w, err := where(opts.Where, opts.Filter)
	if err != nil {
		return read.ScanOptions{}, err
	}
	ro := read.ScanOptions{Columns: opts.Columns, Where: w, Offset: opts.Offset, Limit: opts.Limit, Parallelism: opts.Parallelism}
	if opts.Split != nil {
		sp := read.Split(*opts.Split)
		ro.Split = &sp
	}
	return ro, nil
}

// Next returns the next batch, or io.EOF after the last.
func (s *Scanner) Next() (arrow.Record, error) { return s.s.Next() }

// Stats returns what the scan has done so far.
func (s *Scanner) Stats() ScanStats { return ScanStats(s.s.Stats()) }

// Schema returns the schema of the batches the scan returns (also when it
// returns none): the projected columns, nested ones pruned to the fields
// named.
func (s *Scanner) Schema() *arrow.Schema { return s.s.Schema() }

// Close ends the scan.
func (s *Scanner) Close() error { return s.s.Close() }

// ScanStats counts what a scan (or an aggregate) read and pruned.
type ScanStats struct {
	RowsScanned  int64 // rows in stripes that were not pruned
	RowsReturned int64
	Stripes      int // stripes in the scan's range (the split's, or the file's)
	// Pruned counts at each level.
	StripesPrunedIndex int // by the cluster index of a sorted column
	StripesPrunedStats int
	StripesPrunedBloom int
	StripesSkipped     int // by offset/limit
	ChunksPrunedStats  int
	ChunksAllMatch     int // chunks that passed on statistics without evaluating rows
	ChunksNoSurvivors  int // payload chunks not read because no row survived
	BlocksPruned       int // encoding blocks settled from headers inside decoders
	ChunksDecoded      int
	ChunksGathered     int
	// ChunksAggCompressed counts chunks an aggregate folded on their runs
	// or dictionary ids without materializing values.
	ChunksAggCompressed int
	// FilePruned is set when file statistics proved no row can match.
	FilePruned bool
	// Requests is the number of reads sent to the source (after
	// coalescing); BytesRead the bytes they read, holes included.
	// Metadata read at Open is not included (File.OpenBytes).
	Requests  int64
	BytesRead int64
	// PeakPrefetchBytes is the most the scan held ahead of its caller at
	// once: fetched chunk bytes plus decoded batches not yet returned.
	PeakPrefetchBytes int64
}

func (s ScanStats) String() string { r := read.ScanStats(s); return r.String() }

// Take returns whole rows (or the given columns) by row number, in the
// order given.
func (f *File) Take(rows []int64, columns []string) (arrow.Record, error) {
	if err := f.open("strata: Take"); err != nil {
		return nil, err
	}
	return f.r.Take(rows, columns)
}

// TakeOptions select the columns of File.TakeContext and the goroutines
// it decodes on.
type TakeOptions struct {
	Columns     []string // all when empty
	Parallelism int      // 0: the file's (OpenOptions.Parallelism); negative: refused
	// UnionByName makes TakeFiles read the files by column name: the
	// union of their columns (UnionByName), null where a file lacks one.
	UnionByName bool
}

// TakeContext is Take whose reads stop when ctx ends; it also reports
// what the lookup read.
func (f *File) TakeContext(ctx context.Context, rows []int64, opts TakeOptions) (arrow.Record, ScanStats, error) {
	if err := f.open("strata: Take"); err != nil {
		return nil, ScanStats{}, err
	}
	rec, st, err := f.r.TakeContext(ctx, rows, read.TakeOptions{Columns: opts.Columns, Parallelism: opts.Parallelism})
	return rec, ScanStats(st), err
}

// TakeFiles looks rows up in several files read as one table (the files a
// pattern names, the parts of a partitioned table): row r is row r of the
// first file, then of the second after the first's rows, and so on, and
// the rows come back in the order given. Each file is read only for its
// own rows. The columns must have the same names and types in every file
// looked up.
func TakeFiles(ctx context.Context, files []*File, rows []int64, opts TakeOptions) (arrow.Record, ScanStats, error) {
	rs := make([]*read.File, len(files))
	for i, f := range files {
		if f == nil {
			return nil, ScanStats{}, fmt.Errorf("strata: TakeFiles: file %d is nil: %w", i+1, read.ErrInvalidArgument)
		}
		if err := f.open(fmt.Sprintf("strata: TakeFiles: file %d", i+1)); err != nil {
			return nil, ScanStats{}, err
		}
		rs[i] = f.r
	}
	rec, st, err := read.TakeFiles(ctx, rs, rows, read.TakeOptions{Columns: opts.Columns, Parallelism: opts.Parallelism, UnionByName: opts.UnionByName})
	return rec, ScanStats(st), err
}

// Agg is one aggregate of File.Aggregate: Count, CountAll, Sum, Min, Max.
type Agg struct{ fn, col string }

// CountAll counts rows: count(*).
func CountAll() Agg { return Agg{"count", "*"} }

// Count counts a column's non-null values.
func Count(column string) Agg { return Agg{"count", column} }

// Sum sums a numeric column (exactly, for integers and decimals).
func Sum(column string) Agg { return Agg{"sum", column} }

// Min is a column's smallest non-null value.
func Min(column string) Agg { return Agg{"min", column} }

// Max is a column's largest non-null value.
func Max(column string) Agg { return Agg{"max", column} }

func (a Agg) String() string {
	if a.col == "*" {
		return a.fn + "(*)"
	}
	return a.fn + `("` + stringsReplaceQuote(a.col) + `")`
}

func stringsReplaceQuote(s string) string {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '"' {
			out = append(out, '"')
		}
		out = append(out, s[i])
	}
	return string(out)
}

// AggregateOptions say what File.Aggregate computes over which rows.
type AggregateOptions struct {
	// Aggs are built in Go; Exprs is the same in text ("count(*),
	// sum(l_quantity)"). Results come in the order of Aggs, then Exprs.
	// A column is a top-level primitive column or a primitive field
	// reached through structs, by its dotted path ("address.zip"): a row
	// where the field or a struct above it is null holds no value of it.
	// Fields inside lists and maps are not aggregated.
	Aggs  []Agg
	Exprs string
	// Where and Filter select the rows, as in ScanOptions.
	Where  string
	Filter Filter
	// Split limits the rows to one split's stripes (File.Splits).
	Split *Split
	// Parallelism overrides the file's for this aggregate (0 keeps it;
	// negative is refused, ErrInvalidArgument).
	Parallelism int
	// UnionByName makes AggregateFiles read the files by column name, as
	// a table whose files gained columns over time: an aggregate of a
	// column a file lacks folds none of that file's rows (as over nulls),
	// and the filter treats the columns a file lacks as null.
	UnionByName bool
}

// AggValue is one aggregate result.
type AggValue struct {
	// Name is the aggregate as an expression names it again: the function
	// lower-cased, the column written as a filter writes it, quoted where
	// needed: sum(l_quantity), sum("US Gross"), sum(s.x) for a struct
	// field, sum("a"."b") for field b of a beside a column "a.b".
	Name string
	// Column is the aggregated column's path, its top-level name and the
	// struct fields down to it (nil for count(*) and under a list or map).
	Column []string
	Null   bool // no non-null input (min/max/sum of nothing)
	Float  bool // the value is a float (F)
	// I is an integer value; for the min or max of an unsigned column,
	// the bits of its uint64 (Big, String and, above math.MaxInt64,
	// Text give the number).
	I int64
	F float64
	// Wide reports an integer sum, or the min or max of a decimal of
	// precision above 18, beyond the int64 range (Big has it, unscaled
	// for a decimal).
	Wide bool
	// Text is the value formatted for the column's logical type (a date,
	// a decimal, a string); empty when the plain number says it all.
	Text string
	v    read.AggValue
}

// Int returns the value as an integer: a Wide sum, an unsigned min or max
// above math.MaxInt64 and a float beyond the int64 range saturate, and a
// float is truncated toward zero (NaN gives 0).
func (v AggValue) Int() int64 { return v.v.Int() }

// Big returns an integer value exactly (nil for floats and nulls).
func (v AggValue) Big() *big.Int { return v.v.Big() }

func (v AggValue) String() string { return v.v.String() }

// Aggregate computes count/sum/avg/min/max over the rows the filter selects,
// answering from statistics and encoded runs where it can.
func (f *File) Aggregate(opts AggregateOptions) ([]AggValue, ScanStats, error) {
	return f.AggregateContext(context.Background(), opts)
}

// AggregateContext is Aggregate whose reads stop when ctx ends.
func (f *File) AggregateContext(ctx context.Context, opts AggregateOptions) ([]AggValue, ScanStats, error) {
	if err := f.open("strata: Aggregate"); err != nil {
		return nil, ScanStats{}, err
	}
	exprs, ro, err := opts.read()
	if err != nil {
		return nil, ScanStats{}, err
	}
	vals, st, err := f.r.AggregateContext(ctx, exprs, ro)
	return aggValues(vals), ScanStats(st), err
}

// AggregateFiles aggregates several files as one table (the files a
// pattern names, the parts of a partitioned table): the result is exactly
// the one a single file of all their rows would give, sums and averages
// included. The aggregated columns must have the same types in every
// file; opts.Split, which names stripes of one file, is refused with more
// than one.
func AggregateFiles(ctx context.Context, files []*File, opts AggregateOptions) ([]AggValue, ScanStats, error) {
	exprs, ro, err := opts.read()
	if err != nil {
		return nil, ScanStats{}, err
	}
	rs := make([]*read.File, len(files))
	for i, f := range files {
		if f == nil {
			return nil, ScanStats{}, fmt.Errorf("strata: AggregateFiles: file %d is nil: %w", i+1, read.ErrInvalidArgument)
		}
		if err := f.open(fmt.Sprintf("strata: AggregateFiles: file %d", i+1)); err != nil {
			return nil, ScanStats{}, err
		}
		rs[i] = f.r
	}
	vals, st, err := read.AggregateFiles(ctx, rs, exprs, ro)
	return aggValues(vals), ScanStats(st), err
}

// read returns the aggregate list and the reader's options opts stands for.
func (opts AggregateOptions) read() (string, read.AggregateOptions, error) {
	exprs := ""
	for _, a := range opts.Aggs {
		if exprs != "" {
			exprs += ", "
		}
		exprs += a.String()
	}
	if opts.Exprs != "" {
		if exprs != "" {
			exprs += ", "
		}
		exprs += opts.Exprs
	}
	w, err := where(opts.Where, opts.Filter)
	if err != nil {
		return "", read.AggregateOptions{}, err
	}
	ro := read.AggregateOptions{Where: w, Parallelism: opts.Parallelism, UnionByName: opts.UnionByName}
	if opts.Split != nil {
		sp := read.Split(*opts.Split)
		ro.Split = &sp
	}
	return exprs, ro, nil
}

func aggValues(vals []read.AggValue) []AggValue {
	if vals == nil {
		return nil
	}
	out := make([]AggValue, len(vals))
	for i, v := range vals {
		out[i] = AggValue{Name: v.Name, Column: v.Column, Null: v.Null, Float: v.Float, I: v.I, F: v.F, Wide: v.Wide, Text: v.Text, v: v}
	}
	return out
}

// UnionByName returns the schema of several files read as one table by
// column name, as the files of a table look after columns were added to
// it: every column of any schema, in the order first met, nullable where a
// file lacks it. A column in several schemas must have one type, or
// integer or float types of one family, which widen to the widest
// (int32 and int64 to int64, float32 and float64 to float64). Read each
// file's records into it with Conform, and filter a file that lacks
// columns the filter names with filter.AssumeNull's rewrite of the filter.
func UnionByName(schemas ...*arrow.Schema) (*arrow.Schema, error) {
	u, err := read.UnionByName(schemas...)
	var tc *read.TypeConflict
	if errors.As(err, &tc) {
		return nil, &TypeConflict{Column: tc.Column, First: tc.First, Other: tc.Other, FirstType: tc.FirstType, OtherType: tc.OtherType, err: err}
	}
	return u, err
}

// TypeConflict is UnionByName's error for a column of two types: the
// column, the indexes of the two schemas (First before Other) and the
// column's type in each. It is an ErrInvalidArgument of package read's.
type TypeConflict struct {
	Column               string
	First, Other         int
	FirstType, OtherType arrow.DataType
	err                  error
}

func (e *TypeConflict) Error() string { return e.err.Error() }
func (e *TypeConflict) Unwrap() error { return e.err }

// Conform returns rec as a record of target (from UnionByName): target's
// columns in its order, nulls for those rec lacks. The caller releases the
// result and still owns rec.
func Conform(rec arrow.Record, target *arrow.Schema) (arrow.Record, error) {
	return read.Conform(rec, target)
}
