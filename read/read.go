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
	// CoalesceGap merges byte ranges closer than this into one read.
	CoalesceGap int64
	// DecoderCacheBytes bounds the cache of opened chunk decoders that
	// point lookups reuse (default 256 MiB; negative disables it).
	DecoderCacheBytes int64
	Mem               memory.Allocator
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

// File is an open Strata file. It is safe for concurrent use.
type File struct {
	src     iox.Source
	fetch   *iox.Fetcher
	f       *format.File
	sch     *schema.Schema
	arrow   *arrow.Schema
	opts    Options
	dec     *encoding.Options
	fstats  map[int]stats.ColumnStats
	sstats  []meta.StripeStats
	user    map[string]string
	mu      sync.Mutex
	blooms  map[[2]int]*stats.Bloom
	adaptMu sync.Mutex
	adapt   map[string]*filterCost
	cache   *decoderCache
	pool    *bufferPool
	// binHint holds, per stream, the bytes per value of the last binary
	// batch read (scaled by 1024), which sizes the next batch's buffer.
	binHint []atomic.Int64
	// openBytes is what Open read: postscript, footer and sections.
	openBytes int64
}

// OpenBytes returns the bytes Open read (postscript, footer, metadata
// sections); scans add their own BytesRead on top.
func (f *File) OpenBytes() int64 { return f.openBytes }

// BytesRead returns every byte read from the source so far, metadata
// included, by all scans and lookups.
func (f *File) BytesRead() int64 { return f.fetch.Stats().BytesRead }

// Open reads the metadata of a Strata file.
func Open(ctx context.Context, src iox.Source, opts Options) (*File, error) {
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
	if opts.DecoderCacheBytes == 0 {
		opts.DecoderCacheBytes = 256 << 20
	}
	fetch := iox.NewFetcher(src, iox.FetcherOptions{Gap: opts.CoalesceGap})
	ff, err := format.Open(ctx, fetch, opts.Format)
	if err != nil {
		return nil, err
	}
	if opts.Verify {
		if err := ff.Verify(ctx); err != nil {
			return nil, err
		}
	}
	// Row bitmaps and batches are sized by a stripe's declared rows: bound
	// them as the decoders bound a node's rows.
	maxRows := opts.Decode.MaxRows
	if maxRows <= 0 {
		maxRows = encoding.DefaultMaxRows
	}
	for i := 0; i < ff.NumStripes(); i++ {
		if r := ff.Stripe(i).Rows; r > int64(maxRows) {
			return nil, fmt.Errorf("read: stripe %d declares %d rows, limit %d: %w", i, r, maxRows, encoding.ErrLimit)
		}
	}
	f := &File{src: src, fetch: fetch, f: ff, opts: opts, dec: opts.Decode, blooms: map[[2]int]*stats.Bloom{}, adapt: map[string]*filterCost{},
		cache: newDecoderCache(opts.DecoderCacheBytes), pool: newBufferPool()}
	sb, ok, err := ff.Section(ctx, "schema")
	if err != nil {
		return nil, fmt.Errorf("read: schema section: %w", err)
	}
	if !ok {
		return nil, fmt.Errorf("read: no schema section: %w", encoding.ErrCorrupt)
	}
	if f.sch, err = schema.Unmarshal(sb); err != nil {
		return nil, fmt.Errorf("read: schema section: %w", err)
	}
	f.binHint = make([]atomic.Int64, f.sch.NumStreams())
	f.arrow = shred.ToArrow(f.sch)
	if b, ok, err := ff.Section(ctx, "stats.file"); err != nil {
		return nil, fmt.Errorf("read: file stats section: %w", err)
	} else if ok {
		if f.fstats, err = meta.UnmarshalFileStats(b); err != nil {
			return nil, fmt.Errorf("read: %w", err)
		}
	}
	if b, ok, err := ff.Section(ctx, "stats.stripe"); err != nil {
		return nil, fmt.Errorf("read: stripe stats section: %w", err)
	} else if ok {
		if f.sstats, err = meta.UnmarshalStripeStats(b); err != nil {
			return nil, fmt.Errorf("read: %w", err)
		}
		if len(f.sstats) != ff.NumStripes() {
			return nil, fmt.Errorf("read: stripe stats for %d stripes, file has %d: %w", len(f.sstats), ff.NumStripes(), encoding.ErrCorrupt)
		}
	}
	// The user section carries application metadata (interop keeps the
	// source's Arrow types there): a damaged one is an error, not an empty
	// map.
	if b, ok, err := ff.Section(ctx, "user"); err != nil {
		return nil, fmt.Errorf("read: user section: %w", err)
	} else if ok {
		if f.user, err = meta.UnmarshalKV(b); err != nil {
			return nil, fmt.Errorf("read: user section: %w", err)
		}
	}
	f.openBytes = fetch.Stats().BytesRead
	return f, nil
}

// Schema returns the file's Arrow schema.
func (f *File) Schema() *arrow.Schema { return f.arrow }

// StrataSchema returns the file's logical schema.
func (f *File) StrataSchema() *schema.Schema { return f.sch }

// Container returns the underlying container.
func (f *File) Container() *format.File { return f.f }

// NumRows returns the number of rows.
func (f *File) NumRows() int64 { return f.f.NumRows() }

// Metadata returns the user key/value metadata.
func (f *File) Metadata() map[string]string { return f.user }

// FileStats returns the file statistics of a stream.
func (f *File) FileStats(stream int) (stats.ColumnStats, bool) {
	s, ok := f.fstats[stream]
	return s, ok
}

// StripeStats returns the statistics of one stripe.
func (f *File) StripeStats(i int) *meta.StripeStats {
	if i < len(f.sstats) {
		return &f.sstats[i]
	}
	return nil
}

// ErrUnknownColumn reports a column name the file does not have; the
// message suggests the closest names.
var ErrUnknownColumn = errors.New("unknown column")

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

// columnIndexes resolves projected column names to top-level indexes.
func (f *File) columnIndexes(names []string) ([]int, error) {
	if len(names) == 0 {
		idx := make([]int, f.arrow.NumFields())
		for i := range idx {
			idx[i] = i
		}
		return idx, nil
	}
	idx := make([]int, 0, len(names))
	for _, n := range names {
		is := f.arrow.FieldIndices(n)
		if len(is) == 0 {
			return nil, f.unknownColumn(n, false)
		}
		idx = append(idx, is[0])
	}
	return idx, nil
}

// fetchChunks reads and unframes the given chunks of a stream, coalescing
// adjacent ranges into few reads.
func (f *File) fetchChunks(ctx context.Context, stripe, stream int, chunks []int, st *ScanStats) ([][]byte, error) {
	ranges := make([]iox.Range, len(chunks))
	for i, c := range chunks {
		r, err := f.f.ChunkRange(ctx, stripe, stream, c)
		if err != nil {
			return nil, err
		}
		ranges[i] = r
	}
	bufs, err := f.fetch.Fetch(ctx, ranges)
	if err != nil {
		return nil, fmt.Errorf("read: stripe %d, stream %d: %w", stripe, stream, err)
	}
	out := make([][]byte, len(bufs))
	for i, raw := range bufs {
		if st != nil {
			st.BytesRead += int64(len(raw))
			st.ChunksDecoded++
		}
		p, err := format.DecodeChunk(raw)
		if err != nil {
			return nil, fmt.Errorf("read: stripe %d, stream %d, chunk %d: %w", stripe, stream, chunks[i], err)
		}
		out[i] = p
	}
	return out, nil
}

// readStream decodes a whole stream of a stripe.
func (f *File) readStream(ctx context.Context, stripe, stream int, st *ScanStats) (*shred.Stream, error) {
	info, err := f.f.Streams(ctx, stripe)
	if err != nil {
		return nil, err
	}
	typ := f.sch.Stream(stream).Type
	if stream >= len(info) || len(info[stream].Chunks) == 0 {
		// A stream with no entries in this stripe.
		vals, err := newBuf(typ, 0)
		if err != nil {
			return nil, err
		}
		return &shred.Stream{ID: stream, Type: typ, Values: vals}, nil
	}
	chunks := info[stream].Chunks
	total := 0
	idx := make([]int, len(chunks))
	for i, c := range chunks {
		idx[i] = i
		total += int(c.Rows)
	}
	if err := f.dec.CheckAlloc(total, max(typ.Size(), 4), "stream rows"); err != nil {
		return nil, err
	}
	payloads, err := f.fetchChunks(ctx, stripe, stream, idx, st)
	if err != nil {
		return nil, err
	}
	vals, err := newBuf(typ, total)
	if err != nil {
		return nil, err
	}
	var valid []bool
	for _, p := range payloads {
		if len(p) > 0 && encoding.Kind(p[0]) == encoding.KindNullable {
			valid = make([]bool, total)
			break
		}
	}
	at := 0
	for i, p := range payloads {
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
		nullable, err := decodeInto(p, f.dec, vals, at, rows, valid)
		if err != nil {
			return nil, fmt.Errorf("read: stripe %d, stream %d, chunk %d: %w", stripe, stream, i, err)
		}
		if valid != nil && !nullable {
			for j := at; j < at+rows; j++ {
				valid[j] = true
			}
		}
		at += rows
	}
	return &shred.Stream{ID: stream, Type: typ, Values: vals, Valid: valid, Len: total}, nil
}

// ReadStripe reads the projected top-level columns of one stripe.
func (f *File) ReadStripe(ctx context.Context, stripe int, cols []int, st *ScanStats) (arrow.Record, error) {
	rows := f.f.Stripe(stripe).Rows
	arrs := make([]arrow.Array, len(cols))
	fields := make([]arrow.Field, len(cols))
	defer func() {
		for _, a := range arrs {
			if a != nil {
				a.Release()
			}
		}
	}()
	for i, c := range cols {
		streams := map[int]*shred.Stream{}
		infos, err := f.f.Streams(ctx, stripe)
		if err != nil {
			return nil, err
		}
		for _, id := range f.sch.ColumnStreams(c) {
			if id >= len(infos) || len(infos[id].Chunks) == 0 {
				// Absent from this stripe: a FlatMap key first seen in a
				// later stripe. The assembler treats the key as absent.
				continue
			}
			s, err := f.readStream(ctx, stripe, id, st)
			if err != nil {
				return nil, err
			}
			streams[id] = s
		}
		a, err := shred.AssembleRows(f.sch, c, int(rows), streams, f.opts.Mem)
		if err != nil {
			return nil, fmt.Errorf("read: stripe %d, column %q: %w", stripe, f.arrow.Field(c).Name, err)
		}
		if int64(a.Len()) != rows {
			a.Release()
			return nil, fmt.Errorf("read: stripe %d, column %q: %d values for %d rows: %w", stripe, f.arrow.Field(c).Name, a.Len(), rows, encoding.ErrCorrupt)
		}
		arrs[i] = a
		fields[i] = f.arrow.Field(c)
	}
	return array.NewRecord(arrow.NewSchema(fields, nil), arrs, rows), nil
}
