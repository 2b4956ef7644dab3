package timeseries

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata/encoding"
	"strata/encoding/all"
	"strata/format"
	"strata/iox"
	"strata/read"
	"strata/shred"
	"strata/stats"
	"strata/write"
)

// WriterOptions tune a time-series writer; zero fields take the defaults.
// NewWriter and Create refuse a negative ChunkRows, MinChunkRows,
// BlockSize or PageBytes (and Table's negative sizes, as write.New does),
// which have no meaning.
type WriterOptions struct {
	// ChunkRows is the most rows a chunk holds (default 8,192; at most
	// math.MaxInt32, like BlockSize and PageBytes). A series longer than
	// that is cut into equal chunks of at most ChunkRows rows.
	ChunkRows int
	// MinChunkRows: series shorter than this share chunks with their
	// neighbours, up to ChunkRows rows (default ChunkRows/8). Every other
	// series has chunks of its own.
	MinChunkRows int
	// Sorted declares that rows arrive sorted by (series key, time): they
	// are streamed to the file (and the order is checked) instead of
	// buffered and sorted at Close.
	Sorted bool
	// BlockSize is the rows per block of the block encodings (default
	// 128, against the default writer's 1,024): DeltaOfDelta blocks of
	// the time column are what a time filter settles from headers, and a
	// read of a few rows decodes at most a block of Delta differences or
	// of BlockFOR values before and after them.
	BlockSize int
	// PageBytes is the target size of an index page (default 4 KiB; a
	// value under 256 is taken as 256).
	PageBytes int
	// BloomFPP is the false-positive rate of the series-path bloom filter
	// (default 1 %, also for a value outside (0, 1); rates below 1e-6 are
	// sized as 1e-6 and above 0.5 as 0.5). NaN is refused.
	BloomFPP float64
	// Table passes options to the table writer (stripe size, zstd,
	// parallelism, metadata). Its ChunkValues, Force and Policy are set by
	// this layer. Stripes end only between units, which the series index
	// addresses whole within one stripe: Table.StripeRows bounds a
	// stripe's rows, unless a single unit holds more, and a stripe ends
	// after the unit that takes its buffered bytes to Table.StripeBytes
	// (or the chunks its rows could make to write.MaxStripeChunks),
	// exceeding the bound by at most that unit.
	Table write.Options

	// indexVersion, when not 0, is the index version written instead of
	// the current one: tests write version 1 files to keep the reading
	// of older files exercised.
	indexVersion int
}

// Defaults.
const (
	DefaultChunkRows = 8 << 10
	DefaultPageBytes = 4 << 10
)

func (o WriterOptions) withDefaults() WriterOptions {
	if o.ChunkRows <= 0 {
		o.ChunkRows = DefaultChunkRows
	}
	if o.MinChunkRows <= 0 {
		o.MinChunkRows = max(1, o.ChunkRows/8)
	}
	o.MinChunkRows = min(o.MinChunkRows, o.ChunkRows)
	if o.BlockSize <= 0 {
		o.BlockSize = 128
	}
	if o.PageBytes <= 0 {
		o.PageBytes = DefaultPageBytes
	}
	o.PageBytes = max(o.PageBytes, 256)
	if o.BloomFPP <= 0 || o.BloomFPP >= 1 {
		o.BloomFPP = stats.DefaultFPP
	}
	return o
}

// checkCounts refuses a negative size or count, before the defaults
// replace it: 0 is the documented way to take a default, and a negative
// value, which means nothing, would take it too without a word.
func (o WriterOptions) checkCounts() error {
	for _, f := range []struct {
		name string
		v    int
	}{{"ChunkRows", o.ChunkRows}, {"MinChunkRows", o.MinChunkRows}, {"BlockSize", o.BlockSize}, {"PageBytes", o.PageBytes}} {
		if f.v < 0 {
			return fmt.Errorf("timeseries: WriterOptions.%s is %d: %w (0 takes the default, negative values mean nothing)", f.name, f.v, read.ErrInvalidArgument)
		}
	}
	return nil
}

// check refuses sizes the file's model section cannot hold: its reader
// takes chunk rows, block size and the page counts that follow from
// PageBytes as at most math.MaxInt32, so a larger one would write a file
// that every open rejects as corrupt (and ChunkRows near math.MaxInt
// overflowed the chunk cuts). A NaN BloomFPP, which every bound lets
// through, would size the filter for 1e-6 without a word.
func (o WriterOptions) check() error {
	if math.IsNaN(o.BloomFPP) {
		return fmt.Errorf("timeseries: WriterOptions.BloomFPP is NaN: %w", read.ErrInvalidArgument)
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"ChunkRows", o.ChunkRows}, {"BlockSize", o.BlockSize}, {"PageBytes", o.PageBytes}} {
		if f.v > math.MaxInt32 {
			return fmt.Errorf("timeseries: WriterOptions.%s %d: %w (at most %d)", f.name, f.v, read.ErrInvalidArgument, math.MaxInt32)
		}
	}
	return nil
}

// Writer writes a time-series table: rows sorted by (series key, time),
// each series contiguous, chunks cut at series boundaries, and the series
// index after the data.
type Writer struct {
	opts   WriterOptions
	t      *table
	fw     *format.Writer
	w      *write.Writer
	stream []int // values stream of each column
	mem    memory.Allocator
	err    error
	closed bool

	// input: sorted mode
	cur     *seriesState
	started bool
	// input: buffered mode
	buf *sortBuffer

	// output
	series  []seriesEntry
	units   []unitInfo
	placed  int // units whose stripe and chunks are known
	open    []arrow.Record
	openRow int64 // rows in open
	openSer int   // first series in open
	nextRow int64 // file row of the next series' first row
	// stripeRows is Table.StripeRows, which this layer applies between
	// units; unstriped counts the rows handed to the table writer that
	// no stripe holds yet (onStripe takes them off).
	stripeRows, unstriped int64
}

// unitInfo is a unit being written: its record and statistics.
type unitInfo struct {
	rec   unitRec
	stats []unitStats
}

// seriesState accumulates one series in sorted mode.
type seriesState struct {
	e       seriesEntry
	recs    []arrow.Record
	rows    int64 // buffered rows
	emitted bool  // some of its rows are already in units of its own
}

// Create writes a time-series table to path (under a temporary name until
// Close succeeds), or to a remote location such as s3://bucket/key when
// its scheme's package is linked in (uploaded as it is written, and
// complete at Close or absent).
func Create(path string, sch *arrow.Schema, m Model, opts *WriterOptions) (*Writer, error) {
	return start(sch, m, opts, func(fo format.WriterOptions) (*format.Writer, error) {
		fw, err := format.Create(context.Background(), path, fo)
		if err != nil {
			return nil, fmt.Errorf("timeseries: %w", err)
		}
		return fw, nil
	})
}

// CreateSink writes a time-series table to s, a remote destination such as
// the upload s3.Create starts: Close commits it, so the table appears
// whole, and Abort, or a Close that fails, abandons it.
func CreateSink(s iox.Sink, sch *arrow.Schema, m Model, opts *WriterOptions) (*Writer, error) {
	if s == nil {
		return nil, errors.New("timeseries: CreateSink: nil sink")
	}
	return start(sch, m, opts, func(fo format.WriterOptions) (*format.Writer, error) {
		return format.CreateSink(s, fo), nil
	})
}

// NewWriter writes a time-series table to dst.
func NewWriter(dst io.Writer, sch *arrow.Schema, m Model, opts *WriterOptions) (*Writer, error) {
	if dst == nil {
		return nil, errors.New("timeseries: NewWriter: nil destination")
	}
	return start(sch, m, opts, func(fo format.WriterOptions) (*format.Writer, error) {
		return format.NewWriter(dst, fo), nil
	})
}

// start starts a table on the container writer open makes, abandoning it
// when the schema, model or options are refused.
func start(sch *arrow.Schema, m Model, opts *WriterOptions, open func(format.WriterOptions) (*format.Writer, error)) (*Writer, error) {
	var o WriterOptions
	if opts != nil {
		o = *opts
	}
	tw := &Writer{}
	fw, err := open(format.WriterOptions{GroupSize: o.Table.StripeGroup, OnStripe: tw.onStripe})
	if err != nil {
		return nil, err
	}
	if err := tw.init(fw, sch, m, o); err != nil {
		fw.Abort()
		return nil, err
	}
	return tw, nil
}

func (tw *Writer) init(fw *format.Writer, sch *arrow.Schema, m Model, o WriterOptions) error {
	if sch == nil {
		return errors.New("timeseries: no schema")
	}
	if err := o.checkCounts(); err != nil {
		return err
	}
	o = o.withDefaults()
	if err := o.check(); err != nil {
		return err
	}
	t, err := resolve(m, sch)
	if err != nil {
		return err
	}
	s, err := shred.SchemaFromArrow(sch)
	if err != nil {
		return fmt.Errorf("timeseries: %w", err)
	}
	tw.stream = make([]int, sch.NumFields())
	for c := range tw.stream {
		ids := s.ColumnStreams(c)
		if len(ids) != 1 || !s.Column(c).Kind.IsLeaf() {
			return fmt.Errorf("timeseries: column %q is not a flat primitive column", sch.Field(c).Name)
		}
		tw.stream[c] = ids[0]
	}
	wo := o.Table
	wo.ChunkValues = o.ChunkRows
	if wo.ChunkTarget == 0 {
		// Chunks hold ChunkRows rows of one series (cut at series
		// boundaries), the unit the series index and the sampler address.
		wo.ChunkTarget = -1
	}
	// This package reads a unit's chunks by their offsets in its series
	// index, without the stripe-wide view that resolves shared alphabets
	// and references between columns: its files use neither.
	wo.NoShared, wo.NoCorrelated = true, true
	// Stripes end where this writer's callbacks (onStripe) expect them,
	// on its own goroutine.
	wo.NoPipeline = true
	p := wo.Policy
	if p == nil {
		p = encoding.DefaultPolicy(all.RegistryWithBlocks(o.BlockSize))
		p.Zstd = !wo.NoZstd
		if wo.MinSaving > 0 {
			p.MinSaving = wo.MinSaving
		}
		// Windows decode only the blocks under them, which a zstd body,
		// inflated whole, does not allow: balanced selection keeps its
		// speed trades here without the bound on their bytes.
		p.BalancedLarger = 0
	}
	wo.Policy = p
	wo.Force = map[string]*encoding.Tree{sch.Field(t.time).Name: {Kind: encoding.KindDeltaOfDelta}}
	// The table writer would end a stripe by rows inside a unit (it
	// appends a batch that crosses StripeRows in pieces), and onStripe
	// needs every unit whole in one stripe: writeUnit ends stripes by rows
	// between units instead.
	tw.stripeRows, wo.StripeRows = wo.StripeRows, 0
	// Nor may the table writer end a stripe inside a unit by bytes or
	// chunks: it cuts a batch that would fill the stripe past four times
	// StripeBytes, or take it past MaxStripeChunks chunks, in pieces, and
	// a small StripeBytes or many small units failed Close as StripeRows
	// did. Each unit is one batch, appended whole.
	wo.WholeBatches = true
	// Irregular times (over half a byte per row in DeltaOfDelta) take
	// whatever selection finds smaller; a time filter then decodes the
	// time of the units it reads instead of settling blocks.
	wo.ForceYield = 0.5
	w, err := write.New(fw, sch, wo)
	if err != nil {
		return err
	}
	tw.opts, tw.t, tw.fw, tw.w, tw.mem = o, t, fw, w, memory.DefaultAllocator
	if !o.Sorted {
		tw.buf = newSortBuffer(t)
	}
	return nil
}

// Write appends a record batch. A record with a null in a series key
// column or in the time column is refused whole (a key has no null value:
// every row belongs to one series by its key values, and to a place in it
// by its time) and the writer stays usable.
func (tw *Writer) Write(rec arrow.Record) error {
	if tw.err != nil {
		return tw.err
	}
	if tw.closed {
		return fmt.Errorf("timeseries: write after close")
	}
	if rec == nil {
		return errors.New("timeseries: nil record")
	}
	if !rec.Schema().Equal(tw.t.sch) {
		return fmt.Errorf("timeseries: record schema %v differs from the table's: %w", rec.Schema(), read.ErrInvalidArgument)
	}
	for _, c := range tw.t.keys {
		if n := rec.Column(c).NullN(); n > 0 {
			return fmt.Errorf("timeseries: key column %q has %d nulls: %w", tw.t.sch.Field(c).Name, n, read.ErrInvalidArgument)
		}
	}
	if n := rec.Column(tw.t.time).NullN(); n > 0 {
		return fmt.Errorf("timeseries: time column %q has %d nulls: %w", tw.t.sch.Field(tw.t.time).Name, n, read.ErrInvalidArgument)
	}
	var err error
	if tw.buf != nil {
		err = tw.buf.add(rec)
	} else {
		err = tw.writeSorted(rec)
	}
	if err != nil {
		tw.err = err
	}
	return err
}

// keyAt returns the key of row i.
func (t *table) keyAt(rec arrow.Record, i int) Key {
	k := make(Key, len(t.keys))
	for j, c := range t.keys {
		k[j] = keyValue(rec.Column(c), i)
	}
	return k
}

// keyValue returns the canonical key value of row i of a key column.
func keyValue(a arrow.Array, i int) string {
	switch a := a.(type) {
	case *array.String:
		return a.Value(i)
	case *array.LargeString:
		return a.Value(i)
	case *array.Binary:
		return string(a.Value(i))
	case *array.LargeBinary:
		return string(a.Value(i))
	case *array.Int8:
		return intKey(int64(a.Value(i)))
	case *array.Int16:
		return intKey(int64(a.Value(i)))
	case *array.Int32:
		return intKey(int64(a.Value(i)))
	case *array.Int64:
		return intKey(a.Value(i))
	case *array.Uint8:
		return uintKey(uint64(a.Value(i)))
	case *array.Uint16:
		return uintKey(uint64(a.Value(i)))
	case *array.Uint32:
		return uintKey(uint64(a.Value(i)))
	case *array.Uint64:
		return uintKey(a.Value(i))
	}
	return ""
}

// sameKey reports whether row i has key k, without building its key.
func (t *table) sameKey(rec arrow.Record, i int, k Key) bool {
	for j, c := range t.keys {
		a := rec.Column(c)
		switch a := a.(type) {
		case *array.String:
			if a.Value(i) != k[j] {
				return false
			}
		default:
			if keyValue(a, i) != k[j] {
				return false
			}
		}
	}
	return true
}

// times returns the time column of a record as int64 values.
func (t *table) times(rec arrow.Record) ([]int64, error) {
	a := rec.Column(t.time)
	if n := a.NullN(); n > 0 {
		// a row without a time has no place in its series
		return nil, fmt.Errorf("timeseries: time column %q has %d nulls: %w", t.sch.Field(t.time).Name, n, read.ErrInvalidArgument)
	}
	switch a := a.(type) {
	case *array.Timestamp:
		v := a.TimestampValues()
		return unsafe.Slice((*int64)(unsafe.Pointer(unsafe.SliceData(v))), len(v)), nil
	case *array.Int64:
		return a.Int64Values(), nil
	}
	return nil, fmt.Errorf("timeseries: time column of %T", a)
}

// writeSorted splits a sorted record at series boundaries.
func (tw *Writer) writeSorted(rec arrow.Record) error {
	t := tw.t
	times, err := t.times(rec)
	if err != nil {
		return err
	}
	n := int(rec.NumRows())
	for lo := 0; lo < n; {
		if tw.cur == nil || !t.sameKey(rec, lo, tw.cur.e.key) {
			k := t.keyAt(rec, lo)
			if tw.cur != nil {
				if compareKeys(tw.cur.e.key, k) >= 0 {
					return fmt.Errorf("timeseries: input declared sorted is not sorted by series key: %s after %s: %w", t.path(k), t.path(tw.cur.e.key), read.ErrInvalidArgument)
				}
				if err := tw.endSeries(); err != nil {
					return err
				}
			}
			tw.beginSeries(k, times[lo])
		}
		hi := lo + 1
		for hi < n && t.sameKey(rec, hi, tw.cur.e.key) {
			hi++
		}
		prev := tw.cur.e.tmax
		for i := lo; i < hi; i++ {
			if times[i] < prev {
				return fmt.Errorf("timeseries: input declared sorted is not sorted by time in series %s: %w", t.path(tw.cur.e.key), read.ErrInvalidArgument)
			}
			prev = times[i]
		}
		if err := tw.appendSeries(rec.NewSlice(int64(lo), int64(hi)), times[lo:hi]); err != nil {
			return err
		}
		lo = hi
	}
	return nil
}

func (tw *Writer) beginSeries(k Key, t0 int64) {
	tw.cur = &seriesState{e: seriesEntry{ord: len(tw.series), key: k, firstRow: tw.nextRow, tmin: t0, tmax: t0,
		last: make([]lastValue, len(tw.t.measures))}}
}

// appendSeries adds a slice of the current series (owned by the call) in
// time order, emitting whole chunks of a long series as they fill.
func (tw *Writer) appendSeries(rec arrow.Record, times []int64) error {
	s := tw.cur
	if len(times) == 0 {
		rec.Release()
		return nil
	}
	s.e.tmax = times[len(times)-1]
	tw.t.updateLast(s.e.last, rec, times)
	s.recs = append(s.recs, rec)
	s.rows += rec.NumRows()
	s.e.rows += rec.NumRows()
	// Keep at least one chunk's worth buffered so the end of the series
	// can be split evenly.
	cr := int64(tw.opts.ChunkRows)
	for s.rows >= 3*cr {
		if !s.emitted {
			if err := tw.closeOpen(); err != nil {
				return err
			}
			s.e.c0 = len(tw.units)
			s.emitted = true
		}
		part := takeRows(&s.recs, cr)
		s.rows -= cr
		if err := tw.writeUnit(part, s.e.ord, 1); err != nil {
			return err
		}
	}
	return nil
}

// endSeries places the rest of the current series in units.
func (tw *Writer) endSeries() error {
	s := tw.cur
	tw.cur = nil
	if s == nil || s.e.rows == 0 {
		return nil
	}
	cr := int64(tw.opts.ChunkRows)
	if !s.emitted && s.rows < int64(tw.opts.MinChunkRows) {
		// A small series shares a unit with its neighbours.
		if tw.openRow+s.rows > cr {
			if err := tw.closeOpen(); err != nil {
				return err
			}
		}
		if len(tw.open) == 0 {
			tw.openSer = s.e.ord
		}
		s.e.c0 = len(tw.units)
		s.e.c1 = s.e.c0 + 1
		tw.open = append(tw.open, s.recs...)
		tw.openRow += s.rows
		tw.addSeries(s.e)
		if tw.openRow >= int64(tw.opts.MinChunkRows) {
			return tw.closeOpen()
		}
		return nil
	}
	if !s.emitted {
		if err := tw.closeOpen(); err != nil {
			return err
		}
		s.e.c0 = len(tw.units)
	}
	k := (s.rows + cr - 1) / cr
	for i := int64(0); i < k; i++ {
		n := s.rows / k
		if i < s.rows%k {
			n++
		}
		if err := tw.writeUnit(takeRows(&s.recs, n), s.e.ord, 1); err != nil {
			return err
		}
	}
	s.e.c1 = len(tw.units)
	tw.addSeries(s.e)
	return nil
}

func (tw *Writer) addSeries(e seriesEntry) {
	tw.series = append(tw.series, e)
	tw.nextRow += e.rows
}

// closeOpen writes the unit of small series being filled, if any.
func (tw *Writer) closeOpen() error {
	if len(tw.open) == 0 {
		return nil
	}
	recs, first := tw.open, tw.openSer
	tw.open, tw.openRow = nil, 0
	return tw.writeUnit(recs, first, len(tw.series)-first)
}

// takeRows removes the first n rows from *recs and returns them.
func takeRows(recs *[]arrow.Record, n int64) []arrow.Record {
	var out []arrow.Record
	rs := *recs
	for n > 0 {
		r := rs[0]
		if r.NumRows() <= n {
			out = append(out, r)
			n -= r.NumRows()
			rs = rs[1:]
			continue
		}
		out = append(out, r.NewSlice(0, n))
		rest := r.NewSlice(n, r.NumRows())
		r.Release()
		rs[0] = rest
		n = 0
	}
	*recs = rs
	return out
}

// writeUnit writes records (consumed) as one unit: one chunk per column.
func (tw *Writer) writeUnit(recs []arrow.Record, firstSeries, nSeries int) error {
	rec := recs[0]
	if len(recs) > 1 {
		var err error
		rec, err = concat(tw.t.sch, recs, tw.mem)
		for _, r := range recs {
			r.Release()
		}
		if err != nil {
			return err
		}
	}
	defer rec.Release()
	u := unitInfo{rec: unitRec{rows: rec.NumRows(), firstSeries: firstSeries, nSeries: nSeries}}
	times, err := tw.t.times(rec)
	if err != nil {
		return err
	}
	u.rec.tmin, u.rec.tmax = times[0], times[0]
	for _, v := range times {
		u.rec.tmin, u.rec.tmax = min(u.rec.tmin, v), max(u.rec.tmax, v)
	}
	u.stats = tw.t.unitStats(rec)
	n := rec.NumRows()
	if tw.stripeRows > 0 && tw.unstriped > 0 && tw.unstriped+n > tw.stripeRows {
		// the unit would take the stripe past StripeRows: end it first
		if err := tw.w.Flush(); err != nil {
			return err
		}
		if tw.err != nil {
			return tw.err
		}
	}
	tw.units = append(tw.units, u)
	tw.unstriped += n
	if err := tw.w.Write(rec); err != nil {
		return err
	}
	tw.w.Cut()
	if tw.err == nil && tw.stripeRows > 0 && tw.unstriped >= tw.stripeRows {
		if err := tw.w.Flush(); err != nil {
			return err
		}
	}
	return tw.err
}

// concat concatenates records column by column.
func concat(sch *arrow.Schema, recs []arrow.Record, mem memory.Allocator) (arrow.Record, error) {
	cols := make([]arrow.Array, sch.NumFields())
	var n int64
	for _, r := range recs {
		n += r.NumRows()
	}
	for c := range cols {
		parts := make([]arrow.Array, len(recs))
		for i, r := range recs {
			parts[i] = r.Column(c)
		}
		a, err := array.Concatenate(parts, mem)
		if err != nil {
			for _, x := range cols[:c] {
				x.Release()
			}
			return nil, err
		}
		cols[c] = a
	}
	rec := array.NewRecord(sch, cols, n)
	for _, a := range cols {
		a.Release()
	}
	return rec, nil
}

// onStripe learns where the units just flushed lie: their stripe, first
// row and, per column, chunk offsets and sizes.
func (tw *Writer) onStripe(stripe int, info format.StripeInfo, streams []format.StreamInfo) {
	if tw.err != nil {
		return
	}
	tw.unstriped -= info.Rows
	next := make([]int, len(tw.stream)) // next chunk of each column
	row := int64(0)
	for row < info.Rows {
		if tw.placed >= len(tw.units) {
			tw.err = fmt.Errorf("timeseries: stripe %d holds rows beyond the units written", stripe)
			return
		}
		u := &tw.units[tw.placed].rec
		u.stripe, u.row = stripe, row
		u.cols = make([]colLoc, len(tw.stream))
		for c, id := range tw.stream {
			if id >= len(streams) {
				tw.err = fmt.Errorf("timeseries: stripe %d has no stream %d", stripe, id)
				return
			}
			cs := streams[id].Chunks
			cl := &u.cols[c]
			var got int64
			for got < u.rows && next[c] < len(cs) {
				ch := cs[next[c]]
				if len(cl.sizes) == 0 {
					cl.off = ch.Offset
				} else if ch.Offset != cl.end() {
					tw.err = fmt.Errorf("timeseries: stripe %d, stream %d: chunks of a unit are not contiguous", stripe, id)
					return
				}
				cl.sizes = append(cl.sizes, ch.Size)
				cl.rows = append(cl.rows, ch.Rows)
				got += ch.Rows
				next[c]++
			}
			if got != u.rows {
				tw.err = fmt.Errorf("timeseries: stripe %d, stream %d: chunks do not end where unit %d does", stripe, id, tw.placed)
				return
			}
		}
		row += u.rows
		tw.placed++
	}
}

// Close writes the last rows and the series index, and finishes the file.
func (tw *Writer) Close() error {
	if tw.closed {
		return fmt.Errorf("timeseries: closed twice")
	}
	tw.closed = true
	err := tw.finish()
	if err != nil {
		tw.fw.Abort()
		tw.release()
		return err
	}
	return nil
}

// Abort discards the file.
func (tw *Writer) Abort() {
	tw.closed = true
	tw.release()
	tw.fw.Abort()
}

func (tw *Writer) release() {
	if tw.cur != nil {
		for _, r := range tw.cur.recs {
			r.Release()
		}
		tw.cur = nil
	}
	for _, r := range tw.open {
		r.Release()
	}
	tw.open = nil
	if tw.buf != nil {
		tw.buf.release()
	}
}

func (tw *Writer) finish() error {
	if tw.err != nil {
		return tw.err
	}
	if tw.buf != nil {
		if err := tw.buf.drain(tw); err != nil {
			return err
		}
	} else if err := tw.endSeries(); err != nil {
		return err
	}
	if err := tw.closeOpen(); err != nil {
		return err
	}
	if err := tw.w.Flush(); err != nil {
		return err
	}
	if tw.err != nil {
		return tw.err
	}
	if tw.placed != len(tw.units) {
		return fmt.Errorf("timeseries: %d of %d units placed in stripes", tw.placed, len(tw.units))
	}
	idx, meta := tw.buildIndex()
	if err := tw.fw.AddSectionWith(sectionIndex, idx, format.CompressionNone); err != nil {
		return err
	}
	if err := tw.fw.AddSection(sectionModel, meta); err != nil {
		return err
	}
	return tw.w.Close()
}

// buildIndex lays out the index pages and the model section.
func (tw *Writer) buildIndex() (idx, meta []byte) {
	t, o := tw.t, tw.opts
	l := t.layout()
	version := indexVersion
	if o.indexVersion != 0 {
		version = o.indexVersion
	}
	l.ends = version >= endsVersion
	m := &indexMeta{version: version, roles: t.roles, keyOrder: t.keys, series: int64(len(tw.series)), rows: tw.nextRow,
		units: len(tw.units), chunkRows: o.ChunkRows, minChunkRows: o.MinChunkRows, blockSize: o.BlockSize}
	var sec bytes.Buffer
	put := func(payload []byte) pageRef {
		f := framePage(payload)
		r := pageRef{off: int64(sec.Len()), size: int64(len(f))}
		sec.Write(f)
		return r
	}
	for i, e := range tw.series {
		if i == 0 || e.tmin < m.tmin {
			m.tmin = e.tmin
		}
		if i == 0 || e.tmax > m.tmax {
			m.tmax = e.tmax
		}
	}
	// Directory: leaves, then inner levels until one page remains.
	type node struct {
		payload []byte
		key     Key
		first   int
	}
	var level []node
	for lo := 0; lo < len(tw.series); {
		hi := lo + 1
		size := 0
		for hi < len(tw.series) {
			size += 64 + 16*len(t.measures) + keySize(tw.series[hi].key)
			if size >= o.PageBytes {
				break
			}
			hi++
		}
		level = append(level, node{appendLeaf(nil, l, tw.series[lo:hi]), tw.series[lo].key, lo})
		lo = hi
	}
	for len(level) > 1 {
		var ents []innerEntry
		for _, n := range level {
			ents = append(ents, innerEntry{key: n.key, first: n.first, ref: put(n.payload)})
		}
		level = level[:0:0]
		for lo := 0; lo < len(ents); {
			hi, size := lo+1, 0
			for hi < len(ents) && size < o.PageBytes {
				size += 8 + keySize(ents[hi].key)
				hi++
			}
			level = append(level, node{appendInner(nil, ents[lo:hi]), ents[lo].key, ents[lo].first})
			lo = hi
		}
		m.height++
	}
	if len(level) == 1 {
		m.root = level[0].payload
	}
	// Unit and statistics pages.
	for lo := 0; lo < len(tw.units); {
		recs := []unitRec{tw.units[lo].rec}
		page := appendUnits(nil, lo, recs)
		hi := lo + 1
		for hi < len(tw.units) && len(page) < o.PageBytes {
			recs = append(recs, tw.units[hi].rec)
			page = appendUnits(page[:0], lo, recs)
			hi++
		}
		m.unitPages = append(m.unitPages, pageDir{lo, put(page)})
		lo = hi
	}
	statBytes := 25 // count and three float64s
	if l.ends {
		statBytes += 16
	}
	perStats := max(1, o.PageBytes/max(1, statBytes*l.nnum))
	for lo := 0; lo < len(tw.units); lo += perStats {
		hi := min(len(tw.units), lo+perStats)
		st := make([][]unitStats, 0, hi-lo)
		for _, u := range tw.units[lo:hi] {
			st = append(st, u.stats)
		}
		m.statPages = append(m.statPages, pageDir{lo, put(appendStats(nil, lo, st, l.ends))})
	}
	// Bloom filter over every key prefix.
	if len(tw.series) > 0 {
		var hs []uint64
		for _, e := range tw.series {
			for k := 1; k <= len(e.key); k++ {
				hs = append(hs, prefixHash(e.key, k))
			}
		}
		slices.Sort(hs)
		hs = slices.Compact(hs)
		b := stats.NewBloom(len(hs), o.BloomFPP)
		for _, h := range hs {
			b.Insert(h)
		}
		m.bloomBlocks = b.NumBlocks()
		m.bloomPerPage = max(1, o.PageBytes/32)
		for lo := 0; lo < m.bloomBlocks; lo += m.bloomPerPage {
			page := []byte{pageBloom}
			for i := lo; i < min(m.bloomBlocks, lo+m.bloomPerPage); i++ {
				page = b.AppendBlock(page, i)
			}
			m.bloomPages = append(m.bloomPages, put(page))
		}
	}
	return sec.Bytes(), appendMeta(nil, m)
}

func keySize(k Key) int {
	n := 0
	for _, v := range k {
		n += len(v) + 2
	}
	return n
}

// updateLast records each measurement's latest non-null value in rec.
func (t *table) updateLast(last []lastValue, rec arrow.Record, times []int64) {
	for j, c := range t.measures {
		a := rec.Column(c)
		for i := a.Len() - 1; i >= 0; i-- {
			if a.IsNull(i) {
				continue
			}
			last[j] = valueAt(a, t.classes[j], i, times[i])
			break
		}
	}
}

// valueAt returns row i of a measurement column as a lastValue.
func valueAt(a arrow.Array, c valueClass, i int, t int64) lastValue {
	v := lastValue{ok: true, t: t}
	switch c {
	case classInt:
		v.num = uint64(intAt(a, i))
	case classUint:
		v.num = uintAt(a, i)
	case classFloat:
		v.num = math.Float64bits(floatAt(a, i))
	case classBool:
		if a.(*array.Boolean).Value(i) {
			v.num = 1
		}
	case classBytes:
		switch a := a.(type) {
		case *array.String:
			v.b = []byte(a.Value(i))
		case *array.Binary:
			v.b = bytes.Clone(a.Value(i))
		}
	}
	return v
}

// unitStats summarizes the numeric measurements of a unit.
func (t *table) unitStats(rec arrow.Record) []unitStats {
	var out []unitStats
	for j, c := range t.measures {
		cl := t.classes[j]
		if !cl.numeric() {
			continue
		}
		a := rec.Column(c)
		var s unitStats
		if f, ok := a.(*array.Float64); ok && a.NullN() == 0 {
			vs := f.Float64Values()
			s.count = int64(len(vs))
			if len(vs) > 0 {
				s.min, s.max = vs[0], vs[0]
				s.first, s.last = vs[0], vs[len(vs)-1]
			}
			for _, v := range vs {
				s.min, s.max, s.sum = math.Min(s.min, v), math.Max(s.max, v), s.sum+v
			}
		} else {
			for i := 0; i < a.Len(); i++ {
				if a.IsNull(i) {
					continue
				}
				v := numAt(a, cl, i)
				if s.count == 0 {
					s.min, s.max, s.first = v, v, v
				}
				s.min, s.max, s.sum = math.Min(s.min, v), math.Max(s.max, v), s.sum+v
				s.last = v
				s.count++
			}
		}
		s.ends = true
		out = append(out, s)
	}
	return out
}

func numAt(a arrow.Array, c valueClass, i int) float64 {
	switch c {
	case classInt:
		return float64(intAt(a, i))
	case classUint:
		return float64(uintAt(a, i))
	}
	return floatAt(a, i)
}

func intAt(a arrow.Array, i int) int64 {
	switch a := a.(type) {
	case *array.Int8:
		return int64(a.Value(i))
	case *array.Int16:
		return int64(a.Value(i))
	case *array.Int32:
		return int64(a.Value(i))
	case *array.Int64:
		return a.Value(i)
	case *array.Date32:
		return int64(a.Value(i))
	case *array.Date64:
		return int64(a.Value(i))
	case *array.Timestamp:
		return int64(a.Value(i))
	case *array.Time32:
		return int64(a.Value(i))
	case *array.Time64:
		return int64(a.Value(i))
	case *array.Duration:
		return int64(a.Value(i))
	}
	return 0
}

func uintAt(a arrow.Array, i int) uint64 {
	switch a := a.(type) {
	case *array.Uint8:
		return uint64(a.Value(i))
	case *array.Uint16:
		return uint64(a.Value(i))
	case *array.Uint32:
		return uint64(a.Value(i))
	case *array.Uint64:
		return a.Value(i)
	}
	return 0
}

func floatAt(a arrow.Array, i int) float64 {
	switch a := a.(type) {
	case *array.Float32:
		return float64(a.Value(i))
	case *array.Float64:
		return a.Value(i)
	}
	return 0
}

// sortBuffer holds unsorted input until Close: the non-key columns of
// every record, and per row its series and time.
type sortBuffer struct {
	t      *table
	recs   []arrow.Record // input records (retained)
	series map[string]int
	keys   []Key
	row    []rowRef
}

type rowRef struct {
	series int32
	rec    int32
	idx    int32
	time   int64
}

func newSortBuffer(t *table) *sortBuffer {
	return &sortBuffer{t: t, series: map[string]int{}}
}

func (b *sortBuffer) add(rec arrow.Record) error {
	times, err := b.t.times(rec)
	if err != nil {
		return err
	}
	if len(b.recs) >= math.MaxInt32 || rec.NumRows() > math.MaxInt32 {
		return fmt.Errorf("timeseries: too many records to sort")
	}
	ri := int32(len(b.recs))
	rec.Retain()
	b.recs = append(b.recs, rec)
	var prev Key
	var ps int32
	var sb []byte
	for i := 0; i < int(rec.NumRows()); i++ {
		if prev == nil || !b.t.sameKey(rec, i, prev) {
			prev = b.t.keyAt(rec, i)
			sb = sb[:0]
			for _, v := range prev {
				sb = appendBlob(sb, []byte(v))
			}
			s, ok := b.series[string(sb)]
			if !ok {
				s = len(b.keys)
				b.series[string(sb)] = s
				b.keys = append(b.keys, prev)
			}
			ps = int32(s)
		}
		b.row = append(b.row, rowRef{series: ps, rec: ri, idx: int32(i), time: times[i]})
	}
	return nil
}

func (b *sortBuffer) release() {
	for _, r := range b.recs {
		r.Release()
	}
	b.recs, b.row = nil, nil
}

// drain sorts the buffered rows by (key, time) and feeds them to tw series
// by series.
func (b *sortBuffer) drain(tw *Writer) error {
	defer b.release()
	rank := make([]int32, len(b.keys))
	order := make([]int, len(b.keys))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(i, j int) bool { return compareKeys(b.keys[order[i]], b.keys[order[j]]) < 0 })
	for r, s := range order {
		rank[s] = int32(r)
	}
	sort.SliceStable(b.row, func(i, j int) bool {
		x, y := &b.row[i], &b.row[j]
		if x.series != y.series {
			return rank[x.series] < rank[y.series]
		}
		return x.time < y.time
	})
	cr := tw.opts.ChunkRows
	for lo := 0; lo < len(b.row); {
		s := b.row[lo].series
		hi := lo
		for hi < len(b.row) && b.row[hi].series == s {
			hi++
		}
		key := b.keys[s]
		tw.beginSeries(key, b.row[lo].time)
		for p := lo; p < hi; p += cr {
			q := min(hi, p+cr)
			rec, err := b.gather(key, b.row[p:q], tw.mem)
			if err != nil {
				return err
			}
			times := make([]int64, q-p)
			for i, r := range b.row[p:q] {
				times[i] = r.time
			}
			if err := tw.appendSeries(rec, times); err != nil {
				return err
			}
		}
		if err := tw.endSeries(); err != nil {
			return err
		}
		lo = hi
	}
	return nil
}

// gather builds the record of rows of one series.
func (b *sortBuffer) gather(key Key, rows []rowRef, mem memory.Allocator) (arrow.Record, error) {
	t := b.t
	cols := make([]arrow.Array, t.sch.NumFields())
	defer func() {
		for _, a := range cols {
			if a != nil {
				a.Release()
			}
		}
	}()
	for i, f := range t.sch.Fields() {
		bld := array.NewBuilder(mem, f.Type)
		bld.Reserve(len(rows))
		for _, r := range rows {
			if err := appendFrom(bld, b.recs[r.rec].Column(i), int(r.idx)); err != nil {
				bld.Release()
				return nil, fmt.Errorf("timeseries: column %q: %w", f.Name, err)
			}
		}
		cols[i] = bld.NewArray()
		bld.Release()
	}
	return array.NewRecord(t.sch, cols, int64(len(rows))), nil
}

// appendFrom appends row i of src to a builder of the same type.
func appendFrom(b array.Builder, src arrow.Array, i int) error {
	if src.IsNull(i) {
		b.AppendNull()
		return nil
	}
	switch s := src.(type) {
	case *array.Int8:
		b.(*array.Int8Builder).Append(s.Value(i))
	case *array.Int16:
		b.(*array.Int16Builder).Append(s.Value(i))
	case *array.Int32:
		b.(*array.Int32Builder).Append(s.Value(i))
	case *array.Int64:
		b.(*array.Int64Builder).Append(s.Value(i))
	case *array.Uint8:
		b.(*array.Uint8Builder).Append(s.Value(i))
	case *array.Uint16:
		b.(*array.Uint16Builder).Append(s.Value(i))
	case *array.Uint32:
		b.(*array.Uint32Builder).Append(s.Value(i))
	case *array.Uint64:
		b.(*array.Uint64Builder).Append(s.Value(i))
	case *array.Float32:
		b.(*array.Float32Builder).Append(s.Value(i))
	case *array.Float64:
		b.(*array.Float64Builder).Append(s.Value(i))
	case *array.Boolean:
		b.(*array.BooleanBuilder).Append(s.Value(i))
	case *array.String:
		b.(*array.StringBuilder).Append(s.Value(i))
	case *array.LargeString:
		b.(*array.LargeStringBuilder).Append(s.Value(i))
	case *array.Binary:
		b.(*array.BinaryBuilder).Append(s.Value(i))
	case *array.LargeBinary:
		b.(*array.BinaryBuilder).Append(s.Value(i))
	case *array.Timestamp:
		b.(*array.TimestampBuilder).Append(s.Value(i))
	case *array.Date32:
		b.(*array.Date32Builder).Append(s.Value(i))
	case *array.Date64:
		b.(*array.Date64Builder).Append(s.Value(i))
	case *array.Time32:
		b.(*array.Time32Builder).Append(s.Value(i))
	case *array.Time64:
		b.(*array.Time64Builder).Append(s.Value(i))
	case *array.Duration:
		b.(*array.DurationBuilder).Append(s.Value(i))
	default:
		return fmt.Errorf("cannot sort values of type %v", src.DataType())
	}
	return nil
}
