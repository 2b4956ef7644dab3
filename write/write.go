// Package write turns Arrow record batches into a Strata file: it shreds
// rows into typed streams, cuts each stream into chunks, picks a cascading
// encoding per chunk, gathers chunk, stripe and file statistics and bloom
// filters, and flushes stripes through the container writer. Memory stays
// bounded by the stripe size whatever the file size.
package write

import (
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"

	"strata/encoding"
	"strata/encoding/all"
	"strata/encoding/nullable"
	"strata/format"
	"strata/meta"
	"strata/schema"
	"strata/shred"
	"strata/stats"
)

// Options tune the writer. The zero value selects the defaults: a size or
// count field of 0 takes its default. New refuses a negative StripeBytes,
// ChunkValues, ChunkBytes, Parallel or StripeGroup, which has no meaning
// (it took the default without a word before); a negative ChunkTarget is
// a setting of its own (see below).
type Options struct {
	// StripeBytes flushes a stripe once this many raw bytes are buffered:
	// after the batch that reaches it, or, for a batch that would fill the
	// stripe past four times this, after the rows of the batch that reach
	// it (Write appends such a batch in pieces, unless WholeBatches). It
	// bounds the writer's memory, which grows with it: the buffered
	// values, the encoders' trials and the encoded chunks of a stripe, and
	// one more stripe of buffers when stripes are encoded in the
	// background (NoPipeline). Generating lineitem SF 1 with the default
	// took about 400 MB resident one stripe at a time, 550 MB pipelined.
	// 0: DefaultStripeBytes. Any positive value is taken as it is: 1
	// ends a stripe at every row, each stripe keeping some hundred bytes
	// of metadata in the writer until Close, and a stripe also ends once
	// its rows could make MaxStripeChunks chunks (reached only with
	// small ChunkValues or ChunkBytes, or stripes of over a hundred
	// million values).
	StripeBytes int
	// StripeRows, when positive, also ends a stripe after this many rows,
	// wherever the batches that bring them end (Write appends a batch that
	// crosses it in pieces, unless WholeBatches), as Parquet writers bound
	// a row group by rows: a stripe is the unit a split, a parallel scan
	// and a reader's memory work by, and stripes of a fixed number of rows
	// make them even. Stripes still end earlier at StripeBytes. 0: no
	// bound by rows.
	StripeRows int64
	// WholeBatches makes Write append every batch whole, so that a stripe
	// ends only between batches: after the batch that takes it to
	// StripeBytes, StripeRows or MaxStripeChunks chunks, which it may
	// exceed by that batch. By default Write cuts a batch into pieces
	// where it crosses StripeRows, would fill the stripe past four times
	// StripeBytes or take it past MaxStripeChunks chunks, and appends the
	// first rows of a file a probe at a time; a stripe can then end inside
	// a batch. A caller whose batches are units a stripe must hold whole
	// sets it: the time-series writer hands one unit of each column's
	// chunks per batch, which its series index addresses within one
	// stripe. Such a caller keeps its batches small, since a batch is
	// buffered and encoded whole whatever the bounds; a batch whose rows
	// make more chunks of one stream than readers take still fails with
	// ErrLimit. The bytes of a file whose batches no bound cut are the
	// same either way.
	WholeBatches bool
	// RowsHint, when positive, is the number of rows the caller expects to
	// write (an importer knows it from its source's metadata). The writer
	// then sizes its stripe buffers once, after the first record, for the
	// rows the first stripe will hold (never more than about StripeBytes,
	// nor than DefaultStripeBytes, of raw values, plus one record, whatever
	// the hint), instead of growing them a record at a time; a larger
	// stripe's buffers grow as its rows arrive. A wrong hint costs memory
	// or regrowth, never correctness.
	RowsHint int64
	// ChunkTarget is the encoded size a chunk aims at: each stream's chunks
	// hold as many values as fit in about this many bytes, judged by the
	// bytes per value of the stream's previous chunks (selection's
	// estimate of the stream's start for its first chunk), up to
	// ChunkValues. A negative value cuts every chunk at ChunkValues, as
	// writers before byte-sized chunks did.
	ChunkTarget int
	// ChunkValues is the most values a chunk holds, whatever its bytes:
	// the granularity of chunk statistics and of point lookups (0:
	// DefaultChunkValues). Any positive value is taken as it is, down to
	// 1 (a chunk a value), which is legal but costly: every chunk takes
	// about 20 bytes of the file and a few hundred of memory while its
	// stripe is written and read, so stripes of small chunks end at
	// MaxStripeChunks chunks whatever StripeBytes says. A single row
	// holding more values of one stream than format.DefaultMaxChunks
	// chunks take (a list of millions) fails the write with ErrLimit.
	ChunkValues int
	// ChunkBytes cuts binary chunks at this many raw value bytes, bounding
	// the memory a chunk's decoder needs. Values past 2 GiB - 1 (the most
	// a stripe's binary values hold) act as that limit (0:
	// DefaultChunkBytes). 1 makes a chunk of every non-empty binary
	// value, with the costs ChunkValues 1 has.
	ChunkBytes int
	// NoZstd disables leaf compression.
	NoZstd bool
	// MinSaving is the fraction of a leaf's size zstd must save to be kept
	// (0 or less: 0.02; 1 or more keeps no zstd). New refuses NaN.
	MinSaving float64
	// Optimize says how encoding selection trades bytes for decode time:
	// encoding.OptimizeBalanced (the default) takes a larger encoding only
	// where it decodes clearly faster, OptimizeSize the smallest one,
	// OptimizeSpeed the fastest to decode (see encoding.Optimize). Any
	// other value is refused by New.
	Optimize encoding.Optimize
	// Bloom lists the column paths ("l_orderkey", "s.a") that get a
	// split-block bloom filter per stripe, sized by the stripe's exact count
	// of distinct values at BloomFPP. Bloom filters answer = and IN on
	// columns whose statistics cannot (high-cardinality, unsorted); on
	// other columns they only cost space, so they are opt-in as in Parquet.
	// New refuses a path that names no leaf column (but one under a FlatMap
	// column, whose keys come with the data).
	Bloom []string
	// BloomFPP is the false-positive rate the filters are sized for: 0, or
	// a value outside (0, 1), takes stats.DefaultFPP (1 %); rates below
	// 1e-6 are sized as 1e-6 and above 0.5 as 0.5, and a stripe's filter
	// takes at most stats.MaxBloomBytes. New refuses NaN.
	BloomFPP float64
	// Parallel is the number of goroutines encoding streams (default
	// GOMAXPROCS; a stripe never starts more than it has streams).
	Parallel int
	// NoPipeline makes Write encode a full stripe before it returns. By
	// default, with Parallel above 1 and no FlatMap column, a full stripe
	// is encoded in the background while Write shreds the next rows into
	// a second set of buffers (one more stripe of raw data in memory, see
	// StripeBytes): reading and shredding the input then overlap the
	// encoding instead of waiting for it. The file's bytes are the same
	// either way. A background stripe's error is returned by the first
	// Write after the stripe ended, or by Flush or Close, which wait for
	// it. The destination is written, and the container's OnStripe
	// callback called, from the background goroutine between calls; the
	// file is complete when Close returns. A caller whose callbacks expect
	// stripes on its own goroutine sets NoPipeline, as the time-series
	// writer does.
	NoPipeline bool
	// StripeGroup is the number of stripes per stripe group (0: 8). A
	// group's chunk tables are held until the group is written, so a
	// large value with many small stripes holds their tables longer;
	// values past the stripes a file has make one group.
	StripeGroup int
	// FlatMap lists top-level map columns to store as FlatMap.
	FlatMap []string
	// Metadata is stored in the file's user section.
	Metadata map[string]string
	// Policy overrides the encoding selection policy (tests, and writers
	// that offer encodings default selection does not, such as the
	// time-series layer's DeltaOfDelta).
	Policy *encoding.Policy
	// NoShared disables stripe-scoped shared dictionaries and shared FSST
	// symbol tables (shared.go).
	NoShared bool
	// NoCorrelated disables Correlated columns (correlate.go). By default a
	// column stored relative to another is charged the weighted decode
	// time of its reference's rows (encoding.Optimize); a positive
	// CorrelationRefWeight charges that share of the reference's bytes
	// instead, and a negative one charges nothing. New refuses NaN.
	NoCorrelated         bool
	CorrelationRefWeight float64
	// Force maps a column path ("ts", "s.a") to the encoding tree every
	// chunk of its values stream starts from, as a replayed capture does:
	// each node takes the forced kind where it fits the data, selection
	// runs for the rest. A time-series table forces DeltaOfDelta on its
	// time column, so every chunk has block headers a time filter reads.
	Force map[string]*encoding.Tree
	// ForceYield, when positive, lets a forced tree yield: a chunk whose
	// forced encoding takes more than ForceYield bytes per value is also
	// encoded by selection, and the smaller kept. The time-series layer
	// forces DeltaOfDelta on its time column, which costs a few hundredths
	// of a bit per value at a regular interval, but tens of bits on
	// irregular times that selection stores far smaller (runs of equal
	// minutes in flight records). New refuses NaN.
	ForceYield float64
	// Layouts maps a leaf column path to the layout a previous write chose
	// for it (read.File.Layouts; strata import --layout-from): every chunk
	// of the column's values starts from the layout's tree as from a
	// forced one, so the column is encoded without a search (no trial
	// encodes, no shared alphabet weighed, no correlation tried; a layout
	// rooted at a SharedDictionary reference builds the stripe's alphabet
	// and stores it with Layout.Alphabet's tree), and a chunk
	// whose replay takes more than layoutDrift times the layout's bytes
	// per row is also selected afresh, the smaller kept. Force wins over a
	// layout of the same column, and a layout naming no leaf column is
	// ignored: files of one table written over time may add or drop
	// columns.
	Layouts map[string]encoding.Layout
}

// layoutDrift is how much larger than its layout's bytes per row a
// replayed chunk may be before it is selected afresh too: the rule that
// bounds the replay of a stream's own captured tree (chunk.go), so that
// a layout from other data costs at most a tenth more than selection
// would, and usually nothing.
const layoutDrift = 1.1

// Defaults.
const (
	DefaultStripeBytes = 64 << 20
	// Chunks aim at DefaultChunkTarget encoded bytes and hold at most
	// DefaultChunkValues values (docs/benchmarks.md, "Chunk sizes", has
	// the measurements behind both).
	DefaultChunkTarget = 64 << 10
	DefaultChunkValues = 64 << 10
	DefaultChunkBytes  = 256 << 10
)

func (o Options) withDefaults() Options {
	if o.StripeBytes <= 0 {
		o.StripeBytes = DefaultStripeBytes
	}
	if o.ChunkValues <= 0 {
		o.ChunkValues = DefaultChunkValues
	}
	if o.ChunkTarget == 0 {
		o.ChunkTarget = DefaultChunkTarget
	}
	if o.ChunkBytes <= 0 {
		o.ChunkBytes = DefaultChunkBytes
	}
	// A stripe's binary values have int32 offsets: no chunk holds more,
	// and a larger limit (a caller's "no limit") must not overflow the
	// sums chunkEnd makes with it.
	o.ChunkBytes = min(o.ChunkBytes, math.MaxInt32)
	if o.MinSaving <= 0 {
		o.MinSaving = 0.02
	}
	if o.Parallel <= 0 {
		o.Parallel = runtime.GOMAXPROCS(0)
	}
	if o.StripeGroup <= 0 {
		o.StripeGroup = 8
	}
	if o.BloomFPP <= 0 || o.BloomFPP >= 1 {
		o.BloomFPP = stats.DefaultFPP
	}
	return o
}

// Writer writes one Strata file.
type Writer struct {
	opts    Options
	fw      *format.Writer
	closer  io.Closer
	sch     *schema.Schema
	shred   *shred.Shredder
	encs    []*chunkEncoder // per stream, kept across stripes for replay
	policy  *encoding.Policy
	rows    int64
	pending int // rows buffered for the current stripe
	// rowBytes is the raw bytes a row took in the last append (see
	// pieceRows); 0 before the first. rowChunks is what a row added to
	// the stripe's chunkEstimate in the last append.
	rowBytes  float64
	rowChunks float64
	// reserved is set once the stripe buffers were sized from RowsHint
	reserved bool
	stripe   int
	// The stats.stripe and stats.bloom.index entries of the stripes
	// written (meta.AppendStripeStats, meta.AppendBloomIndex) and their
	// bloom filters, encoded as each stripe ends: kept as maps until
	// Close, a file of many small stripes (StripeBytes 1 writes a stripe
	// a row) held over a kilobyte a stripe.
	stripeStats []byte
	bloomIndex  []byte
	blooms      []byte
	file        map[int]*stats.ColumnStats
	cuts        []int  // rows of the pending stripe at which Cut ended a chunk
	aligned     []bool // per stream: one entry per row (Cut applies)
	err         error
	// closed is set by Close and Abort: the container is finished or
	// abandoned, so rows written after it would be lost (see errClosed).
	closed bool

	// The stripe being encoded: its Cut rows (encodeStripe reads these,
	// never cuts, which Write fills for the next stripe meanwhile), and
	// the result of a background encode (nil when none is in flight).
	fcuts    []int
	inflight chan error
	pipeline bool
}

// sameNames reports two fields of one name among fields (the columns of a
// schema when in is empty, else the fields of struct in), at any depth,
// as the invalid argument it is.
func sameNames(fields []arrow.Field, in string) error {
	seen := make(map[string]bool, len(fields))
	for _, f := range fields {
		if seen[f.Name] {
			if in == "" {
				return fmt.Errorf("write: schema: two columns named %q: %w", f.Name, encoding.ErrInvalidArgument)
			}
			return fmt.Errorf("write: schema: struct %q has two fields named %q: %w", in, f.Name, encoding.ErrInvalidArgument)
		}
		seen[f.Name] = true
		t := f.Type
		for {
			// look through lists and maps to the structs they hold
			switch x := t.(type) {
			case *arrow.ListType:
				t = x.Elem()
				continue
			case *arrow.MapType:
				t = x.ItemType()
				continue
			}
			break
		}
		if st, ok := t.(*arrow.StructType); ok {
			name := f.Name
			if in != "" {
				name = in + "." + f.Name
			}
			if err := sameNames(st.Fields(), name); err != nil {
				return err
			}
		}
	}
	return nil
}

// New starts a file on fw with the given Arrow schema.
func New(fw *format.Writer, sch *arrow.Schema, opts Options) (*Writer, error) {
	if sch == nil {
		return nil, errors.New("write: no schema")
	}
	if err := checkCounts(opts); err != nil {
		return nil, err
	}
	opts = opts.withDefaults()
	if err := sameNames(sch.Fields(), ""); err != nil {
		return nil, err
	}
	s, err := shred.SchemaFromArrowWith(sch, shred.FromArrowOptions{FlatMap: opts.FlatMap})
	if errors.Is(err, encoding.ErrCorrupt) {
		// the checks a schema read from a file fails as corrupt are, for
		// the caller's schema, a wrong argument (two fields of one name)
		return nil, fmt.Errorf("write: schema: %v: %w", err, encoding.ErrInvalidArgument)
	}
	if err != nil {
		return nil, fmt.Errorf("write: schema: %w", err)
	}
	p := opts.Policy
	if p == nil {
		p = all.Policy()
		p.Zstd = !opts.NoZstd
		p.MinSaving = opts.MinSaving
		p.Optimize = opts.Optimize
	}
	// a zstd cache of this file's own (the caller's policy is not changed)
	q := *p
	q.ZstdCache = encoding.NewZstdCache()
	q.Trials = encoding.NewTrialCache()
	p = &q
	w := &Writer{opts: opts, fw: fw, sch: s, shred: shred.NewShredder(s), policy: p,
		file: map[int]*stats.ColumnStats{}}
	for path := range opts.Force {
		n, err := s.Find(path)
		if err != nil || n.StreamID(schema.RoleValues) < 0 {
			return nil, fmt.Errorf("write: forced encoding for %q: no such leaf column: %w", path, encoding.ErrInvalidArgument)
		}
	}
	if err := checkOptions(s, opts); err != nil {
		return nil, err
	}
	w.aligned = make([]bool, s.NumStreams())
	for id := range w.aligned {
		w.aligned[id] = rowAligned(s.Stream(id).Node)
	}
	// A FlatMap key found while a stripe encodes would extend the schema
	// the encode reads.
	w.pipeline = !opts.NoPipeline && opts.Parallel > 1 && !hasFlatMap(s.Root)
	return w, nil
}

// checkCounts refuses a negative size or count, before the defaults
// replace it: 0 is the documented way to take a default, and a negative
// value, which means nothing, would take it too without a word (as a
// mistaken computation, a subtraction gone below zero, would). ChunkTarget
// is not checked: a negative one cuts every chunk at ChunkValues.
func checkCounts(o Options) error {
	for _, f := range []struct {
		name string
		v    int
	}{{"StripeBytes", o.StripeBytes}, {"ChunkValues", o.ChunkValues}, {"ChunkBytes", o.ChunkBytes},
		{"Parallel", o.Parallel}, {"StripeGroup", o.StripeGroup}, {"StripeRows", int(min(o.StripeRows, math.MaxInt32))}} {
		if f.v < 0 {
			return fmt.Errorf("write: Options.%s is %d: %w (0 takes the default, negative values mean nothing)", f.name, f.v, encoding.ErrInvalidArgument)
		}
	}
	return nil
}

// checkOptions refuses options that would otherwise be ignored without a
// word: an Optimize value that names no trade-off (selection would treat
// it as balanced), a NaN float option, and a Bloom path that names no
// leaf column (the filter the caller asked for would be missing from the
// file, and lookups on the column would read every stripe). A Bloom path
// under a FlatMap column may name a key the data adds later.
func checkOptions(s *schema.Schema, opts Options) error {
	if opts.Optimize > encoding.OptimizeSpeed {
		return fmt.Errorf("write: Optimize %v is none of balanced, size and speed: %w", opts.Optimize, encoding.ErrInvalidArgument)
	}
	// A NaN compares false with every bound, so each of these would
	// otherwise act as some other value without a word: the tightest
	// bloom filters, never keeping zstd, the default weight, no yield.
	for _, f := range []struct {
		name string
		v    float64
	}{{"BloomFPP", opts.BloomFPP}, {"MinSaving", opts.MinSaving},
		{"CorrelationRefWeight", opts.CorrelationRefWeight}, {"ForceYield", opts.ForceYield}} {
		if math.IsNaN(f.v) {
			return fmt.Errorf("write: %s is NaN: %w", f.name, encoding.ErrInvalidArgument)
		}
	}
	leaves := map[string]bool{}
	for id := range s.NumStreams() {
		if st := s.Stream(id); st.Role == schema.RoleValues {
			leaves[st.Node.Path()] = true
		}
	}
	for _, path := range opts.Bloom {
		if leaves[path] || underFlatMap(s, path) {
			continue
		}
		return fmt.Errorf("write: bloom filter for %q: no such leaf column: %w", path, encoding.ErrInvalidArgument)
	}
	return nil
}

// underFlatMap reports whether a proper prefix of path (cut at a dot)
// names a FlatMap column, whose keys become fields as the data brings them.
func underFlatMap(s *schema.Schema, path string) bool {
	for i := strings.LastIndexByte(path, '.'); i > 0; i = strings.LastIndexByte(path[:i], '.') {
		if n, err := s.Find(path[:i]); err == nil && n.Kind == schema.FlatMap {
			return true
		}
	}
	return false
}

// hasFlatMap reports whether a FlatMap lies at or below n.
func hasFlatMap(n *schema.Node) bool {
	if n.Kind == schema.FlatMap {
		return true
	}
	for _, c := range n.Children {
		if hasFlatMap(c) {
			return true
		}
	}
	return false
}

// rowAligned reports whether the streams of n hold one entry per row: no
// list, map or FlatMap lies above n.
func rowAligned(n *schema.Node) bool {
	for p := n.Parent(); p != nil; p = p.Parent() {
		if p.Kind == schema.List || p.Kind == schema.Map || p.Kind == schema.FlatMap {
			return false
		}
	}
	return n.Kind != schema.List && n.Kind != schema.Map && n.Kind != schema.FlatMap
}

// Cut ends the current chunk of every row-aligned stream (every stream of
// a flat table) after the rows written so far, whatever the chunk limits:
// the time-series layer cuts chunks at series boundaries, so a chunk never
// mixes two series. Streams inside lists and maps ignore cuts. Chunks are
// still cut by the ChunkValues and ChunkBytes limits between cuts.
func (w *Writer) Cut() {
	if w.pending > 0 && (len(w.cuts) == 0 || w.cuts[len(w.cuts)-1] != w.pending) {
		w.cuts = append(w.cuts, w.pending)
	}
}

// errClosed is the error of a call after Close or Abort. Rows written
// then would go nowhere (the container is finished, or gone), so the call
// fails instead of returning nil as if they had been stored; it wraps
// format.ErrClosed and encoding.ErrInvalidArgument.
func errClosed(op string) error {
	return fmt.Errorf("write: %s after Close or Abort: %w: %w", op, format.ErrClosed, encoding.ErrInvalidArgument)
}

// Flush ends the current stripe now (a no-op when no row is pending), so a
// caller can end stripes at boundaries of its own and learn their layout
// (format.WriterOptions.OnStripe) before it adds metadata sections.
func (w *Writer) Flush() error {
	if w.closed {
		return errClosed("Flush")
	}
	if w.err != nil {
		return w.err
	}
	if err := w.flush(false); err != nil {
		w.err = err
		return err
	}
	return nil
}

// Write appends a record batch. After Close or Abort it returns an error
// (errClosed) and stores nothing.
func (w *Writer) Write(rec arrow.Record) error {
	if w.closed {
		return errClosed("Write")
	}
	if w.err != nil {
		return w.err
	}
	if rec == nil {
		return errors.New("write: nil record")
	}
	if err := w.poll(); err != nil {
		w.err = err
		return err
	}
	// A batch that would fill the stripe past stripeOverfill times its
	// target is appended in pieces that end stripes at the target: a wide
	// table's batch of 64 Ki rows can hold many stripes' worth of values,
	// and a stripe is what the writer holds in memory (twice, while the
	// previous one encodes). Other batches are appended whole, so stripes
	// end at batch boundaries as a caller that sizes its batches expects.
	n := rec.NumRows()
	if w.opts.WholeBatches && n > 0 {
		return w.append(rec)
	}
	for off := int64(0); off < n; {
		k := w.pieceRows(n - off)
		if w.rowBytes <= 0 && k > 1 {
			// the probe: what a row takes is not known yet
			var err error
			if k, err = w.appendProbe(rec, off, k); err != nil {
				return err
			}
			off += k
			continue
		}
		piece := rec
		if k < n {
			piece = rec.NewSlice(off, off+k)
		}
		err := w.append(piece)
		if k < n {
			piece.Release()
		}
		if err != nil {
			return err
		}
		off += k
	}
	return nil
}

// appendProbe appends the probe, rows off to off+k of rec, the first rows
// appended, before anything is known of what a row takes: its first row
// alone, then as many of the others as the chunks that row made leave
// room for under maxStripeChunks (as pieceRows bounds later pieces). A
// probe of rows of long lists written with tiny chunks would otherwise
// make a stripe of many times the bound, or a stream of more chunks than
// readers take (ErrLimit), however short each row. It returns the rows
// appended. The rows shred as they would in one append: splitting the
// probe changes no byte of the file.
func (w *Writer) appendProbe(rec arrow.Record, off, k int64) (int64, error) {
	before, chunksBefore := w.shred.RawSize(), w.chunkEstimate()
	first := rec.NewSlice(off, off+1)
	err := w.shred.Append(first)
	first.Release()
	if err != nil {
		w.err = fmt.Errorf("write: %w", err)
		return 0, w.err
	}
	if c := w.chunkEstimate() - chunksBefore; c > 0 {
		room := maxStripeChunks - w.chunkEstimate()
		k = max(1, min(k, 1+int64(math.Ceil(float64(room)/float64(c)))))
	}
	if k > 1 {
		rest := rec.NewSlice(off+1, off+k)
		err := w.shred.Append(rest)
		rest.Release()
		if err != nil {
			// (the shredder rolled back the rest, not the first row:
			// the writer fails from here on, w.err)
			w.err = fmt.Errorf("write: %w", err)
			return 0, w.err
		}
	}
	return k, w.appended(k, before, chunksBefore)
}

// BufferedBytes returns the raw bytes of the rows buffered for the
// current stripe: values at their physical width, offsets and data of
// binary values, a byte a value of streams with nulls. The stripe is
// handed to encoding once they reach Options.StripeBytes.
func (w *Writer) BufferedBytes() int { return w.shred.RawSize() }

// probeRows is the piece of a batch appended first when the bytes a row
// takes are not known yet and the batch is larger.
const probeRows = 1024

// stripeOverfill is how many times its target a stripe may reach by
// taking a batch whole (see Write).
const stripeOverfill = 4

// pieceRows returns how many of the rem rows left of a batch to append
// next: all of them while that keeps the stripe within stripeOverfill
// times its target, else those that fill the stripe (at least one).
//
// Nor may a piece take the stripe's chunkEstimate past MaxStripeChunks:
// with tiny chunks (ChunkValues 1) a batch of 64 Ki rows makes hundreds
// of thousands of chunks, each with memory of its own until the stripe
// is written.
func (w *Writer) pieceRows(rem int64) int64 {
	if r := w.opts.StripeRows; r > 0 {
		// no piece crosses the end of a stripe by rows
		rem = min(rem, r-int64(w.pending))
	}
	if w.rowBytes <= 0 {
		return min(rem, probeRows)
	}
	raw := float64(w.shred.RawSize())
	target := float64(w.opts.StripeBytes)
	k := rem
	if raw+float64(rem)*w.rowBytes > target*stripeOverfill {
		k = int64(math.Ceil((target - raw) / w.rowBytes))
	}
	if w.rowChunks > 0 {
		room := float64(maxStripeChunks - w.chunkEstimate())
		if float64(k)*w.rowChunks > room {
			k = int64(math.Ceil(room / w.rowChunks))
		}
	}
	return max(1, min(k, rem))
}

// MaxStripeChunks bounds the chunks of one stripe, all streams together:
// a stripe ends, like at Options.StripeBytes, once its buffered rows
// could make this many (chunkEstimate). Every chunk holds memory of its
// own in the writer until its stripe is written (its node, statistics
// and place in the container's chunk table: about 250 bytes), and in a
// reader a stripe's chunks are opened together; without a bound, a
// default stripe of 64 MiB written with ChunkValues 1 made millions of
// chunks (gigabytes of heap), and a stream of more than
// format.DefaultMaxChunks chunks in one stripe, which readers refuse by
// default. With the default chunk sizes the bound is reached only by
// stripes of over a hundred million values.
const MaxStripeChunks = 1 << 18

// maxStripeChunks is MaxStripeChunks, lowered by tests.
var maxStripeChunks = MaxStripeChunks

// maxStreamChunks is the most chunks one stream of a stripe may have, a
// file of more being one readers refuse by default: one fewer than
// format.DefaultMaxChunks, for a shared definition chunk. Tests lower it.
var maxStreamChunks = format.DefaultMaxChunks - 1

// chunkEstimate returns about the most chunks the buffered rows make once
// the stripe is encoded: per stream, its values over the smallest size
// class the sizer can give them, doubled for chunks that end early where
// the size class changes, plus a definition chunk; for binary values of
// more than ChunkBytes bytes, up to one more chunk per value, for cuts at
// ChunkBytes (two chunks hold more than ChunkBytes, each cut halving the
// size class up to its bits; a stream of fewer bytes is never cut by
// them, and counting those cuts for every binary stream made a table of
// thousands of short string columns reach the bound at a few rows); and
// a chunk per Cut of each row-aligned stream.
//
// The sizer halves a chunk's size class from ChunkValues while the
// class times the stream's encoded bytes per value exceeds ChunkTarget,
// down to ChunkValues>>minChunkShift (sizer.size), so a class is never
// below ChunkTarget / (2 * encoded bytes per value). Encoded values take
// at most about their raw width (a Trivial fallback, lengths as varints),
// so twice the raw bytes per value plus one bounds them, and the bound
// stays close to the chunks a stripe really makes: taking the smallest
// class for every stream (as a first version did) ended stripes of
// ChunkValues 1000 at a sixtieth of the rows they hold.
func (w *Writer) chunkEstimate() int {
	ceil := w.opts.ChunkValues
	floor := max(1, ceil>>minChunkShift)
	halvings := bits.Len(uint(w.opts.ChunkValues)) + 1
	est := 0
	w.shred.EachLen(func(id, n, data, raw int) {
		k := ceil
		if w.opts.ChunkTarget > 0 && n > 0 {
			bpv := 2*float64(raw)/float64(n) + 1
			k = min(ceil, max(floor, int(float64(w.opts.ChunkTarget)/(2*bpv))))
		}
		c := 2*(n/k) + 2
		if data > w.opts.ChunkBytes {
			c += min(n+1, (2*(data/w.opts.ChunkBytes)+2)*halvings)
		}
		if id < len(w.aligned) && w.aligned[id] {
			c += len(w.cuts)
		}
		est += c
	})
	return est
}

// append shreds rec, learns the bytes a row takes, and hands the stripe to
// encoding when it is full.
func (w *Writer) append(rec arrow.Record) error {
	before, chunksBefore := w.shred.RawSize(), w.chunkEstimate()
	if err := w.shred.Append(rec); err != nil {
		w.err = fmt.Errorf("write: %w", err)
		return w.err
	}
	return w.appended(rec.NumRows(), before, chunksBefore)
}

// appended accounts for n rows just shredded, the raw bytes and chunk
// estimate before them given, and hands the stripe to encoding when it
// is full.
func (w *Writer) appended(n int64, before, chunksBefore int) error {
	chunks := w.chunkEstimate()
	if n > 0 {
		w.rowBytes = float64(w.shred.RawSize()-before) / float64(n)
		w.rowChunks = float64(chunks-chunksBefore) / float64(n)
	}
	w.rows += n
	w.pending += int(n)
	// (pending equal to rows: no stripe was handed to encoding yet)
	if w.pending > 0 && w.pending == int(w.rows) && !w.reserved && w.opts.RowsHint > w.rows {
		w.reserve()
	}
	if w.shred.RawSize() >= w.opts.StripeBytes || chunks >= maxStripeChunks ||
		w.opts.StripeRows > 0 && int64(w.pending) >= w.opts.StripeRows {
		if err := w.flush(w.pipeline); err != nil {
			w.err = err
			return err
		}
	}
	return nil
}

// poll takes back the stripe encoded in the background if it is done,
// so that its error stops the next Write rather than the one that fills
// the next stripe.
func (w *Writer) poll() error {
	if w.inflight == nil {
		return nil
	}
	select {
	case err := <-w.inflight:
		return w.landed(err)
	default:
		return nil
	}
}

// wait waits for the stripe encoding in the background, if any, and
// takes its buffers back.
func (w *Writer) wait() error {
	if w.inflight == nil {
		return nil
	}
	return w.landed(<-w.inflight)
}

// landed takes back the buffers of the stripe the background encoded,
// which ended with err.
func (w *Writer) landed(err error) error {
	w.inflight = nil
	w.shred.Return()
	return err
}

// flush encodes the buffered rows as one stripe, once the stripe encoding
// in the background (if any) is written: stripes are written in order,
// and each stream's encoder carries its choices from one stripe to the
// next. In the background (the pipeline, Options.NoPipeline) it hands
// the rows to a goroutine and returns; otherwise it returns when the
// stripe is written.
func (w *Writer) flush(background bool) error {
	if err := w.wait(); err != nil {
		return err
	}
	if w.pending == 0 {
		return nil
	}
	var streams []shred.Stream
	if background {
		var err error
		if streams, err = w.shred.Swap(); err != nil {
			return fmt.Errorf("write: %w", err)
		}
	} else {
		streams = w.shred.Streams()
	}
	rows := w.pending
	w.fcuts, w.cuts = w.cuts, w.fcuts[:0]
	w.pending = 0
	if background {
		done := make(chan error, 1)
		w.inflight = done
		go func() { done <- w.encodeStripe(streams, rows) }()
		return nil
	}
	err := w.encodeStripe(streams, rows)
	w.shred.Reset()
	return err
}

type encodedChunk struct {
	node   []byte
	rows   int
	stats  []byte
	lo     int  // first entry of the stream
	shared bool // refers to the stream's shared alphabet
	// time is selection's estimate of decoding the chunk's node, in ns
	time float64
	// tree is the chunk's encoding tree (nil for definition chunks)
	tree *encoding.Tree
}

type streamResult struct {
	chunks []encodedChunk
	col    stats.ColumnStats
	hasCol bool
	bloom  []byte
	err    error
}

// encoders is the number of goroutines encodeStripe starts for streams
// streams: Options.Parallel, but no more than there are streams to encode
// (a Parallel of 10⁸ would otherwise start as many goroutines per stripe
// and run out of memory).
func encoders(parallel, streams int) int {
	return max(1, min(parallel, streams))
}

// encodeStripe encodes streams, the buffered rows, as one stripe and
// writes it. It reads fcuts and no state that Write changes, so that it
// can run while Write shreds the next stripe.
func (w *Writer) encodeStripe(streams []shred.Stream, rows int) error {
	for len(w.encs) < len(streams) {
		e := &chunkEncoder{policy: w.policy, nullable: nullable.Encode}
		if id := len(w.encs); w.sch.Stream(id).Role == schema.RoleValues {
			path := w.sch.Stream(id).Node.Path()
			e.fixed = w.opts.Force[path]
			e.yield = w.opts.ForceYield
			if l, ok := w.opts.Layouts[path]; ok && e.fixed == nil && l.Tree != nil && l.BytesPerRow > 0 {
				e.fixed, e.yield, e.layout, e.alphabet = l.Tree, layoutDrift*l.BytesPerRow+0.01, true, l.Alphabet
				e.bpvEst = l.BytesPerRow // sizes the first chunk without a trial encode
			}
		}
		w.encs = append(w.encs, e)
	}
	plans := w.correlate(streams)
	for i := range streams {
		w.encs[i].corr = plans[streams[i].ID]
	}
	results := make([]streamResult, len(streams))
	var wg sync.WaitGroup
	next := make(chan int)
	for g := 0; g < encoders(w.opts.Parallel, len(streams)); g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				results[i] = w.encodeStream(&streams[i], w.encs[i])
			}
		}()
	}
	for _, i := range largestFirst(streams) {
		next <- i
	}
	close(next)
	wg.Wait()
	st := meta.StripeStats{Rows: int64(rows), Columns: map[int]stats.ColumnStats{}}
	refs := map[int]meta.BloomRef{}
	for i, r := range results {
		if r.err != nil {
			return fmt.Errorf("write: stripe %d, stream %d: %w", w.stripe, streams[i].ID, r.err)
		}
		for _, c := range r.chunks {
			if err := w.fw.WriteChunk(streams[i].ID, c.node, c.rows, c.stats); err != nil {
				return fmt.Errorf("write: stripe %d, stream %d: %w", w.stripe, streams[i].ID, err)
			}
		}
		if r.hasCol {
			st.Columns[streams[i].ID] = r.col
			fs := w.file[streams[i].ID]
			if fs == nil {
				c := r.col
				w.file[streams[i].ID] = &c
			} else {
				fs.Merge(r.col)
			}
		}
		if r.bloom != nil {
			// (streams in id order: the filters lie in that order)
			refs[streams[i].ID] = meta.BloomRef{Off: int64(len(w.blooms)), Len: int64(len(r.bloom)), Sum: format.Checksum32(r.bloom)}
			w.blooms = append(w.blooms, r.bloom...)
		}
	}
	if err := w.fw.FinishStripe(rows); err != nil {
		return fmt.Errorf("write: stripe %d: %w", w.stripe, err)
	}
	w.stripeStats = meta.AppendStripeStats(w.stripeStats, st)
	w.bloomIndex = meta.AppendBloomIndex(w.bloomIndex, refs)
	w.stripe++
	return nil
}

// largestFirst returns the indexes of streams in the order the encoding
// goroutines take them: largest raw size first, so the stream that takes
// longest (a text column, typically) starts at once instead of last and
// the others fill the remaining goroutines around it. Results stay in
// stream order whatever the order of work, so the file's bytes do not
// depend on it.
func largestFirst(streams []shred.Stream) []int {
	order := make([]int, len(streams))
	size := make([]int, len(streams))
	for i := range streams {
		order[i] = i
		size[i] = streams[i].RawSize()
	}
	sort.SliceStable(order, func(a, b int) bool { return size[order[a]] > size[order[b]] })
	return order
}

// reserve sizes the first stripe's buffers from the first record (see
// Options.RowsHint): for the hinted rows, or as many as StripeBytes holds
// at the first record's raw bytes per row plus one more record (the
// stripe flushes at the first record that reaches StripeBytes), whichever
// is fewer. A first record that fills a stripe by itself reserves
// nothing: the stripe is flushed at once. Later stripes reuse the
// buffers' capacity.
//
// What is reserved before the rows arrive is at most maxReserveBytes of
// raw values: a StripeBytes of math.MaxInt ("one stripe") with a hint of
// a billion rows reserved the billion rows' buffers (gigabytes, and a
// fatal out-of-memory) at the first record of a thousand, and the product
// of StripeBytes and the record's rows overflowed.
func (w *Writer) reserve() {
	w.reserved = true
	raw := w.shred.RawSize()
	if raw <= 0 || raw >= w.opts.StripeBytes || w.pending <= 0 {
		return
	}
	budget := min(int64(w.opts.StripeBytes), maxReserveBytes)
	want := w.opts.RowsHint
	if r := w.opts.StripeRows; r > 0 {
		want = min(want, r)
	}
	if fit := int64(float64(budget)/float64(raw)*float64(w.pending)) + int64(w.pending); fit < want {
		want = fit
	}
	w.shred.Reserve(w.pending, int(min(want, math.MaxInt32)))
}

// maxReserveBytes bounds the raw bytes reserve sizes buffers for ahead of
// the rows: a default stripe's.
const maxReserveBytes = DefaultStripeBytes

// encodeStream cuts one stream into chunks and encodes them.
func (w *Writer) encodeStream(s *shred.Stream, enc *chunkEncoder) (res streamResult) {
	defer func() {
		if r := recover(); r != nil {
			res.err = fmt.Errorf("encoder panic: %v", r)
		}
	}()
	n := s.Len
	info := w.sch.Stream(s.ID)
	valuesRole := info.Role == schema.RoleValues
	var hashes []uint64
	wantBloom := valuesRole && s.Type != encoding.Bool && w.bloomed(info.Node.Path())
	var buf []byte
	enc.shared = nil
	// A stream whose whole length the sizer's trial encodes may turn out
	// to be one chunk, which never keeps an offered shared alphabet
	// (finishShared needs minSharedUses chunks): its trial runs without
	// one and is its chunk. Any other values stream is offered the shared
	// alphabet, and its trial (if any) runs with it. A stream whose
	// values are mostly distinct within a chunk is not offered one, but
	// weighed whole against it after its chunks are encoded (tryShared).
	var whole encoding.SharedAlphabet
	first := enc.bpvEst <= 0
	trialN, wholeTrial := 0, false
	if first {
		trialN, wholeTrial = w.trialLen(s, enc)
	}
	var sizer *sizer
	if wholeTrial {
		sizer = w.newSizer(s, enc, trialN, true)
	}
	if valuesRole && enc.layout && enc.fixed.Kind == encoding.KindSharedDictionary {
		// the layout refers to the stripe's alphabet: build it and keep it
		// whatever the number of chunks that use it (finishShared)
		enc.shared, _ = w.sharedFor(s, max(1, w.opts.ChunkValues>>minChunkShift))
	}
	if valuesRole && !enc.layout {
		oneChunk := wholeTrial && enc.trialNode != nil && w.chunkEnd(s, 0, sizer) == s.Len
		sh, offer := w.sharedFor(s, max(1, w.opts.ChunkValues>>minChunkShift))
		switch {
		case offer:
			if !oneChunk {
				enc.shared = sh
				if wholeTrial {
					enc.bpvEst = 0
					enc.trialNode, enc.trialTree, enc.trialN = nil, nil, 0
					sizer = nil
				}
			}
		case enc.corr == nil && enc.fixed == nil:
			whole = sh
		}
	}
	if sizer == nil {
		sizer = w.newSizer(s, enc, trialN, wholeTrial)
	}
	enc.table, enc.tableSaved, enc.tablePerRow, enc.tableCodec = nil, 0, 0, nil
	if valuesRole && enc.shared == nil && !enc.layout && enc.fixed == nil && enc.corr == nil {
		enc.tableCodec = w.tableCodec(s)
		enc.tableVals = func() *encoding.Bytes {
			all := sliceValues(s.Values, 0, s.Len).(encoding.Bytes)
			return &all
		}
	}
	// the chunks whose trees shareTable replays
	keepTree := w.tableCodec(s)
	for lo := 0; lo < n || (n == 0 && lo == 0); {
		hi := w.chunkEnd(s, lo, sizer)
		vals := sliceValues(s.Values, lo, hi)
		var valid []bool
		if s.Valid != nil {
			valid = s.Valid[lo:hi]
		}
		// a stream of one chunk could not keep a shared table
		enc.tableOK = enc.tableCodec != nil && (lo > 0 || hi < n)
		var err error
		if node, ok := enc.takeTrial(lo, hi); ok {
			buf = append(buf[:0], node...)
		} else {
			buf, err = enc.encode(buf[:0], vals, valid)
		}
		if err != nil {
			res.err = fmt.Errorf("chunk %d: %w", len(res.chunks), err)
			return
		}
		node := buf
		// A forced tree (Options.Force) stays: the time-series layer
		// forces DeltaOfDelta for its block headers, which a Correlated
		// node would hide.
		if enc.corr != nil && enc.fixed == nil && valid == nil && hi > lo {
			if node, err = enc.encodeCorrelated(buf, vals, lo, hi); err != nil {
				res.err = fmt.Errorf("chunk %d: %w", len(res.chunks), err)
				return
			}
		}
		if len(res.chunks) >= maxStreamChunks {
			// a file readers refuse by default: a row of a stream holding
			// more values than chunks of ChunkValues fit (a list of
			// millions of values)
			res.err = fmt.Errorf("column %s (%v stream): over %d chunks in one stripe, more than readers take; a larger ChunkValues (%d) or ChunkBytes (%d) makes fewer: %w",
				info.Node.Path(), info.Role, maxStreamChunks, w.opts.ChunkValues, w.opts.ChunkBytes, encoding.ErrLimit)
			return
		}
		c := encodedChunk{node: append([]byte(nil), node...), rows: hi - lo, lo: lo, shared: usesShared(enc.last),
			time: enc.last.Time()}
		if keepTree != nil && len(node) > 0 && encoding.Kind(node[0]) == keepTree.Replaces {
			// shareTable replays it to refer to the stripe's table; no
			// other chunk's tree is read again, and a tree a chunk takes
			// as much memory as a small chunk's node and statistics
			c.tree = enc.last
		}
		sizer.observe(hi-lo, len(node))
		if valuesRole {
			cs := stats.FromValues(vals, valid)
			c.stats = cs.AppendBinary(nil)
			if res.hasCol {
				res.col.Merge(cs)
			} else {
				res.col, res.hasCol = cs, true
			}
			if wantBloom {
				hashes = stats.AppendHashes(hashes, vals, valid)
			}
		}
		res.chunks = append(res.chunks, c)
		lo = hi
		if n == 0 {
			break
		}
	}
	if enc.shared != nil {
		if res.err = w.finishShared(s, enc, &res); res.err != nil {
			return
		}
	}
	if whole != nil {
		if res.err = w.tryShared(s, enc, whole, &res); res.err != nil {
			return
		}
	}
	if res.err = w.shareTable(s, enc, &res); res.err != nil {
		return
	}
	if wantBloom && len(hashes) > 0 {
		slices.Sort(hashes)
		hashes = slices.Compact(hashes)
		b := stats.NewBloom(len(hashes), w.opts.BloomFPP)
		for _, h := range hashes {
			b.Insert(h)
		}
		res.bloom = b.AppendBinary(nil)
	}
	return res
}

// bloomed reports whether a column path was asked to get bloom filters.
func (w *Writer) bloomed(path string) bool {
	for _, p := range w.opts.Bloom {
		if p == path {
			return true
		}
	}
	return false
}

// chunkEnd returns the end of the chunk starting at lo: after the number
// of values the sizer asks for, and for binary values halved until the raw
// bytes fit ChunkBytes (which keeps the boundaries nested, see size.go);
// never past the next Cut of a row-aligned stream. With a negative
// ChunkTarget, chunks are cut as before byte-sized chunks: every
// ChunkValues values, binary ones also at the last value that fits
// ChunkBytes.
func (w *Writer) chunkEnd(s *shred.Stream, lo int, z *sizer) int {
	end := s.Len
	if s.ID < len(w.aligned) && w.aligned[s.ID] {
		// the first cut after lo, if it comes before the stream's end
		i, _ := slices.BinarySearch(w.fcuts, lo+1)
		if i < len(w.fcuts) && w.fcuts[i] < end {
			end = w.fcuts[i]
		}
	}
	b, isBinary := s.Values.(*encoding.Bytes)
	if z.target <= 0 {
		// end-lo, not lo+ceil, which a ChunkValues near math.MaxInt
		// ("no count limit") overflows
		hi := end
		if end-lo > z.ceil {
			hi = lo + z.ceil
		}
		if isBinary {
			limit := int64(b.Offsets[lo]) + int64(w.opts.ChunkBytes)
			if int64(b.Offsets[hi]) > limit {
				hi = lo + max(1, sort.Search(hi-lo, func(i int) bool { return int64(b.Offsets[lo+i+1]) > limit }))
			}
		}
		return hi
	}
	k := z.size()
	hi := min(end, (lo/k+1)*k)
	if isBinary {
		// in int64: a ChunkBytes past the int32 offsets (or an offset
		// near their end plus ChunkBytes) must not wrap to a negative
		// limit, which cut every chunk to one value
		limit := int64(b.Offsets[lo]) + int64(w.opts.ChunkBytes)
		for int64(b.Offsets[hi]) > limit && hi > lo+1 {
			if k > 1 {
				k >>= 1
				hi = min(end, (lo/k+1)*k)
			} else {
				hi = lo + 1
			}
		}
	}
	return hi
}

// Abort waits for a stripe encoding in the background, if any, and
// abandons the container (format.Writer.Abort). Abort after Close leaves
// the closed file as it is.
func (w *Writer) Abort() error {
	w.wait()
	w.closed = true
	return w.fw.Abort()
}

// Close flushes the last stripe and writes the metadata. Only the first
// call finishes the file: a second Close, like Write and Flush after
// Close, returns an error wrapping format.ErrClosed and changes nothing.
func (w *Writer) Close() error {
	if w.closed {
		return errClosed("Close")
	}
	w.closed = true
	if w.err != nil {
		return w.err
	}
	if err := w.flush(false); err != nil {
		return err
	}
	w.policy.ZstdCache.Reset()
	w.policy.Trials.Reset()
	w.fw.AddSection("schema", w.sch.Marshal())
	fs := make(map[int]stats.ColumnStats, len(w.file))
	for id, c := range w.file {
		fs[id] = *c
	}
	w.fw.AddSection("stats.file", meta.MarshalFileStats(fs))
	// Bloom filters go to a section of their own, stored uncompressed, with
	// an index of where each lies: a reader reads the index when it opens
	// the file and a stripe's filter only when a predicate needs it.
	w.fw.AddSection("stats.stripe", meta.Counted(w.stripe, w.stripeStats))
	w.stripeStats = nil
	if len(w.blooms) > 0 {
		w.fw.AddSectionRaw("stats.bloom", w.blooms)
		w.fw.AddSection("stats.bloom.index", meta.Counted(w.stripe, w.bloomIndex))
	}
	w.blooms, w.bloomIndex = nil, nil
	if len(w.opts.Metadata) > 0 {
		w.fw.AddSection("user", meta.MarshalKV(w.opts.Metadata))
	}
	w.fw.AddSection("properties", meta.MarshalKV(map[string]string{"writer": "strata", "rows": fmt.Sprint(w.rows)}))
	if err := w.fw.Close(); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	return nil
}

// finishShared stores the stream's shared alphabet as its first chunk when
// enough chunks chose it, and otherwise encodes the few that did again
// without it.
func (w *Writer) finishShared(s *shred.Stream, enc *chunkEncoder, res *streamResult) error {
	sh := enc.shared
	uses := 0
	for _, c := range res.chunks {
		if c.shared {
			uses++
		}
	}
	if uses == 0 {
		return nil
	}
	if uses < minSharedUses && !enc.layout {
		enc.shared, enc.tree = nil, nil
		for i, c := range res.chunks {
			if !c.shared {
				continue
			}
			vals := sliceValues(s.Values, c.lo, c.lo+c.rows)
			var valid []bool
			if s.Valid != nil {
				valid = s.Valid[c.lo : c.lo+c.rows]
			}
			node, err := enc.encode(nil, vals, valid)
			if err != nil {
				return fmt.Errorf("chunk %d: %w", i, err)
			}
			res.chunks[i].node, res.chunks[i].shared = node, false
		}
		return nil
	}
	p := w.policy
	if enc.layout && enc.alphabet != nil {
		q := *p
		q.Force = enc.alphabet // the layout's alphabet tree, replayed
		p = &q
	}
	def, _, err := sh.Definition(p)
	if err != nil {
		return err
	}
	res.chunks = append([]encodedChunk{{node: def}}, res.chunks...)
	return nil
}
