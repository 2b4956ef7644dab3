// Package read opens Strata files and reads them back as Arrow record
// batches: whole columns, projected sub-fields, row ranges, filtered scans
// with pruning and pushdown (scan.go), point lookups (take.go) and
// aggregates (agg.go). It computes the byte ranges it needs and fetches them
// through iox, so the same code reads local files, memory and object storage.
package read

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata/encoding"
	"strata/encoding/all"
	"strata/format"
	"strata/internal/suggest"
	"strata/iox"
	"strata/meta"
	"strata/schema"
	"strata/shred"
	"strata/stats"
)

// Options tune reading.
type Options struct {
	// Decode bounds what decoders may allocate from declared sizes.
	Decode *encoding.Options
	// CoalesceGap merges byte ranges closer than this into one read (0:
	// what the source prefers, else iox.DefaultGap).
	CoalesceGap int64
	// DecoderCacheBytes bounds a cache of opened chunk decoders that point
	// lookups and sparse reads reuse, counted as the memory the decoders
	// hold (fetched bytes, inflated bodies, offsets, alphabets). Decoders
	// opened by lookups may keep at most a quarter of it when queries need
	// the rest (see decoderCache). 0 shares one process-wide cache of
	// DefaultDecoderCacheBytes among all files; a negative value disables
	// it; a positive one gives the file a cache of its own.
	DecoderCacheBytes int64
	// MetaCache keeps the file's metadata across Open calls (nil: the
	// process-wide DefaultMetaCache); NoMetaCache opens without it. A file
	// opened with Format limits of its own does not use the cache.
	MetaCache   *MetaCache
	NoMetaCache bool
	// Parallelism is how many goroutines a query decodes on (0: all cores,
	// 1: the calling goroutine only; at most the larger of GOMAXPROCS and
	// MinMaxParallelism; negative: refused by Open). ScanOptions can
	// override it.
	Parallelism int
	// PrefetchBytes bounds what a parallel scan holds ahead of its caller:
	// fetched chunk bytes plus decoded batches not yet returned (0:
	// DefaultPrefetchBytes; negative: refused by Open). It is a bound on
	// the scan's own buffers, not on batches the caller keeps, and a job
	// (a batch, or a filtered scan's stripe) larger than it still runs,
	// alone.
	PrefetchBytes int64
	Mem           memory.Allocator
	// Verify makes Open read the whole file and check its checksum (in the
	// postscript), so corruption anywhere, also in chunks no later read
	// touches, is an error before any data is returned. Without it Open
	// checks the footer, and every read checks the checksums of the
	// stripe groups, sections and chunks it loads. File.Verify also
	// locates the first corrupt chunk.
	Verify bool
	// Format bounds what the container may declare (footer, sections,
	// stripe groups, chunk sizes and counts); zero fields take the
	// defaults of package format.
	Format format.ReaderOptions
}

// DefaultPrefetchBytes is the default bound of a scan's prefetch window.
const DefaultPrefetchBytes = 64 << 20

// File is an open Strata file. It is safe for concurrent use.
type File struct {
	src     iox.Source
	fetch   *iox.Fetcher
	f       *format.File
	m       *fileMeta
	sch     *schema.Schema
	arrow   *arrow.Schema
	opts    Options
	dec     *encoding.Options
	adaptMu sync.Mutex
	adapt   map[string]*filterCost
	cache   *decoderCache
	shared  sharedCache // decoded shared alphabets (resolve.go)
	pool    *bufferPool
	// binHint holds, per stream, the bytes per value of the last binary
	// batch read (scaled by 1024), which sizes the next batch's buffer.
	binHint []atomic.Int64
	// openBytes is what Open read: postscript, footer and sections (0 when
	// the metadata came from the cache).
	openBytes int64
	// key is the source's identity ("" when it has none).
	key string
	// proj caches recent projections (project.go).
	proj projCache
	// virt holds the nested projections queries asked for (project.go).
	virt virtCols
}

// OpenBytes returns the bytes Open read (postscript, footer, metadata
// sections; 0 when they came from the metadata cache); scans add their own
// BytesRead on top.
func (f *File) OpenBytes() int64 { return f.openBytes }

// BytesRead returns every byte read from the source so far, metadata
// included, by all scans and lookups.
func (f *File) BytesRead() int64 { return f.fetch.Stats().BytesRead }

// Reads returns the number of reads issued to the source so far (Open
// included).
func (f *File) Reads() int64 { return f.fetch.Stats().Reads }

// Open reads the metadata of a Strata file, or takes it from the metadata
// cache when the source has an identity (iox.Identifier) already opened.
// A nil ctx is context.Background(), as it is for the queries.
func Open(ctx context.Context, src iox.Source, opts Options) (*File, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	if opts.Decode == nil {
		opts.Decode = all.Options()
	}
	if opts.Decode.Registry == nil {
		o := *opts.Decode
		o.Registry = all.Registry()
		opts.Decode = &o
	}
	if opts.Mem == nil {
		opts.Mem = memory.DefaultAllocator
	}
	if err := checkParallelism("open", opts.Parallelism); err != nil {
		return nil, err
	}
	if opts.PrefetchBytes < 0 {
		return nil, fmt.Errorf("read: PrefetchBytes %d: %w (a budget may not be negative; 0 keeps the default)", opts.PrefetchBytes, ErrInvalidArgument)
	}
	if opts.PrefetchBytes == 0 {
		opts.PrefetchBytes = DefaultPrefetchBytes
	}
	mc := opts.MetaCache
	if mc == nil {
		mc = defaultMetaCache
	}
	if opts.NoMetaCache {
		mc = nil
	}
	fetch := iox.NewFetcher(src, iox.FetcherOptions{Gap: opts.CoalesceGap})
	key := iox.IdentityOf(src)
	if opts.Format != (format.ReaderOptions{}) {
		// Cached metadata was checked against the default limits.
		mc = nil
	}
	var m *fileMeta
	if mc != nil && key != "" {
		m = mc.get(key)
	}
	var ff *format.File
	if m != nil {
		ff = m.c.Bind(fetch)
	} else {
		var err error
		if ff, err = format.Open(ctx, fetch, opts.Format); err != nil {
			return nil, err
		}
		if m, err = readMeta(ctx, ff); err != nil {
			return nil, err
		}
		m.openBytes = fetch.Stats().BytesRead
		if mc != nil && key != "" {
			m = mc.put(key, m)
			ff = m.c.Bind(fetch)
		}
	}
	// The chunks in the tail that opening read (all of a small file's)
	// are read from it, not requested again.
	fetch.Keep(ff.Tail())
	f := &File{src: src, fetch: fetch, f: ff, m: m, sch: m.sch, arrow: m.arrow, opts: opts, dec: opts.Decode,
		adapt: map[string]*filterCost{}, pool: newBufferPool(), key: key}
	switch {
	case opts.DecoderCacheBytes == 0:
		f.cache = sharedDecoders
	case opts.DecoderCacheBytes > 0:
		f.cache = newDecoderCache(opts.DecoderCacheBytes)
	}
	f.shared.limit = 16 << 20
	if opts.DecoderCacheBytes > 0 {
		f.shared.limit = max(opts.DecoderCacheBytes/4, 1<<20)
	}
	if opts.Verify {
		if err := ff.Verify(ctx); err != nil {
			return nil, err
		}
	}
	f.binHint = make([]atomic.Int64, f.sch.NumStreams())
	f.openBytes = fetch.Stats().BytesRead
	return f, nil
}

// DropCaches forgets the opened decoders this file's queries cached, so
// the next lookups open their chunks again (what a first lookup costs).
// The metadata stays cached. The chunk memory of the lookups' decoders
// goes to the process's free list of chunk buffers (SetRecycledBytes).
func (f *File) DropCaches() { f.cache.dropFile(f.m) }

// Schema returns the file's Arrow schema.
func (f *File) Schema() *arrow.Schema { return f.arrow }

// StrataSchema returns the file's logical schema.
func (f *File) StrataSchema() *schema.Schema { return f.sch }

// Container returns the underlying container.
func (f *File) Container() *format.File { return f.f }

// Allocator returns the file's buffer pool, the allocator of its scans'
// output buffers. A layer that builds records of its own (the time-series
// windows) allocates their value buffers from it and hands them to Arrow
// with it as their owner (shred.Stream.Owner): releasing the records
// returns the buffers, and the next read reuses them without zeroing
// fresh memory. Contents of a reused buffer are not zeroed.
func (f *File) Allocator() memory.Allocator { return f.pool }

// NumRows returns the number of rows.
func (f *File) NumRows() int64 { return f.f.NumRows() }

// Metadata returns the user key/value metadata.
func (f *File) Metadata() map[string]string { return f.m.user }

// FileStats returns the file statistics of a stream.
func (f *File) FileStats(stream int) (stats.ColumnStats, bool) {
	s, ok := f.m.fstats[stream]
	return s, ok
}

// StripeStats decodes the statistics of one stripe (nil when the file
// has none, or no stripe i). The file keeps its stripe statistics encoded,
// so each call decodes anew; an error names the stripe and stream whose
// statistics do not decode.
func (f *File) StripeStats(i int) (*meta.StripeStats, error) {
	if f.m.sstats == nil || i < 0 || i >= f.m.sstats.Len() {
		return nil, nil
	}
	ss, err := f.m.sstats.Stripe(i)
	if err != nil {
		return nil, fmt.Errorf("read: %w", err)
	}
	return &ss, nil
}

// ErrUnknownColumn reports a column name the file does not have; the
// message suggests the closest names.
var ErrUnknownColumn = errors.New("unknown column")

// ErrInvalidArgument reports an argument that no file could satisfy: a
// negative offset or limit, a row number outside the file. It is
// encoding.ErrInvalidArgument, which the writer wraps too.
var ErrInvalidArgument = encoding.ErrInvalidArgument

// unknownColumn returns an ErrUnknownColumn error for name with the
// closest column names (every leaf path when leaves is set, the top-level
// columns otherwise).
func (f *File) unknownColumn(name string, leaves bool) error {
	return fmt.Errorf("read: %w %q%s", ErrUnknownColumn, name, f.columnHint(name, leaves))
}

// hintedError is an error whose message carries a hint for the user and
// which wraps several errors.
type hintedError struct {
	msg  string
	errs []error
}

func (e *hintedError) Error() string   { return e.msg }
func (e *hintedError) Unwrap() []error { return e.errs }

// columnHint suggests the column names closest to name.
func (f *File) columnHint(name string, leaves bool) string {
	var names []string
	if leaves {
		for _, si := range f.sch.Streams() {
			if si.Role == schema.RoleValues {
				names = append(names, si.Node.Path())
			}
		}
	} else {
		for _, fl := range f.arrow.Fields() {
			names = append(names, fl.Name)
		}
	}
	return suggest.Hint(name, names)
}

// columnIndexes resolves projected column names to column indexes. A
// name is a top-level column or the dotted path of a field nested in one
// ("properties.mag"); the paths into one column become a single column of
// that name pruned to them (a nested projection, project.go), placed where
// the column is first named, unless the column is also named whole.
func (f *File) columnIndexes(names []string) ([]int, error) {
	if len(names) == 0 {
		idx := make([]int, f.arrow.NumFields())
		for i := range idx {
			idx[i] = i
		}
		return idx, nil
	}
	if idx, ok := f.proj.colsFor(names); ok {
		return idx, nil
	}
	whole := map[int]bool{}
	paths := map[int][]string{}
	tops := make([]int, len(names))
	nested := make([]bool, len(names))
	for i, n := range names {
		if is := f.arrow.FieldIndices(n); len(is) > 0 {
			tops[i] = is[0]
			whole[is[0]] = true
			continue
		}
		nested[i] = true
		node, err := f.sch.Find(n)
		if err != nil {
			return nil, f.unknownColumn(n, true)
		}
		_, top := f.sch.ColumnOf(node)
		if top < 0 {
			return nil, f.unknownColumn(n, true)
		}
		tops[i] = top
		paths[top] = append(paths[top], n)
	}
	idx := make([]int, 0, len(names))
	done := map[int]bool{}
	for i := range names {
		top := tops[i]
		if !nested[i] {
			idx = append(idx, top)
			continue
		}
		if whole[top] || done[top] {
			continue
		}
		done[top] = true
		v, err := f.virt.add(f, paths[top])
		if err != nil {
			return nil, err
		}
		idx = append(idx, v)
	}
	f.proj.putCols(names, idx)
	return idx, nil
}

// exec is what one query runs with: its context, the goroutines it may
// decode on (nil: the caller's only), and its parallelism.
type exec struct {
	ctx context.Context
	w   *workers
	par int
}

func (f *File) newExec(ctx context.Context, par int) *exec {
	if ctx == nil {
		ctx = context.Background()
	}
	if par == 0 {
		par = f.opts.Parallelism
	}
	par = parallelism(par)
	return &exec{ctx: ctx, par: par}
}

// readStream decodes a whole stream of a stripe (declared with needAll).
func (f *File) readStream(io *stripeIO, stream int) (*shred.Stream, error) {
	typ := f.sch.Stream(stream).Type
	chunks := io.stream(stream).Chunks
	if len(chunks) == 0 {
		// A stream with no entries in this stripe.
		vals, err := encoding.NewValues(typ, 0)
		if err != nil {
			return nil, err
		}
		return &shred.Stream{ID: stream, Type: typ, Values: vals}, nil
	}
	total := 0
	for _, c := range chunks {
		total += int(c.Rows)
	}
	if err := f.dec.CheckAlloc(total, max(typ.Size(), 4), "stream rows"); err != nil {
		return nil, err
	}
	vals, err := encoding.NewValues(typ, total)
	if err != nil {
		return nil, err
	}
	var valid []bool
	at := 0
	for i := range chunks {
		rows := int(chunks[i].Rows)
		if b, ok := vals.(*encoding.Bytes); ok && i == 1 && at > 0 {
			// Size the stripe's value bytes once from the first chunk's
			// average instead of letting appends regrow and copy them.
			est := len(b.Data) / at * total * 9 / 8
			if err := f.dec.CheckAlloc(est, 1, "binary stream bytes"); err == nil && est > cap(b.Data) {
				nd := make([]byte, len(b.Data), est)
				copy(nd, b.Data)
				b.Data = nd
			}
		}
		err := io.use(stream, i, false, func(d encoding.Decoder) error {
			nullable := d.Kind() == encoding.KindNullable
			if nullable && valid == nil {
				valid = make([]bool, total)
				fillTrue(valid[:at])
			}
			if err := encoding.ReadPart(d, vals, at, rows, valid, nullable); err != nil {
				return err
			}
			if valid != nil && !nullable {
				fillTrue(valid[at : at+rows])
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		at += rows
	}
	return &shred.Stream{ID: stream, Type: typ, Values: vals, Valid: valid, Len: total}, nil
}

func fillTrue(b []bool) {
	for i := range b {
		b[i] = true
	}
}

// needColumn declares every chunk of every stream of column col.
func (f *File) needColumn(io *stripeIO, col int) error {
	for _, id := range f.columnStreams(col) {
		if err := io.needAll(id); err != nil {
			return err
		}
	}
	return nil
}

// readColumn assembles the whole of column col in the stripe of io.
func (f *File) readColumn(io *stripeIO, col int) (arrow.Array, error) {
	rows := f.f.Stripe(io.stripe).Rows
	streams := map[int]*shred.Stream{}
	for _, id := range f.columnStreams(col) {
		if id >= len(io.infos) || len(io.infos[id].Chunks) == 0 {
			// Absent from this stripe: a FlatMap key first seen in a
			// later stripe. The assembler treats the key as absent.
			continue
		}
		s, err := f.readStream(io, id)
		if err != nil {
			return nil, err
		}
		streams[id] = s
	}
	var a arrow.Array
	var err error
	if v := f.virt.get(f, col); v != nil {
		a, err = v.proj.Assemble(f.sch, int(rows), streams, f.opts.Mem)
	} else {
		a, err = shred.AssembleRows(f.sch, col, int(rows), streams, f.opts.Mem)
	}
	if err != nil {
		return nil, inStripe(io.stripe, columnWhere(f.field(col).Name), err)
	}
	if int64(a.Len()) != rows {
		a.Release()
		return nil, inStripe(io.stripe, columnWhere(f.field(col).Name), fmt.Errorf("%d values for %d rows: %w", a.Len(), rows, encoding.ErrCorrupt))
	}
	return a, nil
}

// readColumns assembles whole columns of the stripe of io (declared with
// needColumn and fetched), the columns decoding in parallel.
func (f *File) readColumns(x *exec, io *stripeIO, cols []int) (arrow.Record, error) {
	rows := f.f.Stripe(io.stripe).Rows
	arrs := make([]arrow.Array, len(cols))
	defer releaseAll(arrs)
	err := x.w.each(x.ctx, len(cols), func(i int) error {
		a, err := f.readColumn(io, cols[i])
		arrs[i] = a
		return err
	})
	if err != nil {
		return nil, err
	}
	return array.NewRecord(f.projectedSchema(cols), arrs, rows), nil
}

// releaseAll drops the references a function holds on the arrays it built
// (array.NewRecord takes references of its own).
func releaseAll(arrs []arrow.Array) {
	for _, a := range arrs {
		if a != nil {
			a.Release()
		}
	}
}

// ReadStripe reads the projected top-level columns of one stripe.
func (f *File) ReadStripe(ctx context.Context, stripe int, cols []int, st *ScanStats) (arrow.Record, error) {
	if stripe < 0 || stripe >= f.f.NumStripes() {
		return nil, fmt.Errorf("read: stripe %d of %d: %w", stripe, f.f.NumStripes(), format.ErrIndex)
	}
	for _, c := range cols {
		if c < 0 || c >= f.sch.NumColumns() {
			return nil, fmt.Errorf("read: column %d of %d: %w", c, f.sch.NumColumns(), format.ErrIndex)
		}
	}
	x := f.newExec(ctx, 1)
	io, err := f.newStripeIO(x.ctx, stripe)
	if err != nil {
		return nil, err
	}
	if st == nil {
		st = &ScanStats{}
	}
	defer io.flush(st)
	for _, c := range cols {
		if err := f.needColumn(io, c); err != nil {
			return nil, err
		}
	}
	if err := io.fetch(); err != nil {
		return nil, err
	}
	return f.readColumns(x, io, cols)
}
