package read

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"strata/encoding"
	"strata/filter"
	"strata/shred"
	"strata/stats"
)

// stripeSelection prunes a stripe and evaluates the filter into a row
// bitmap. It returns nil when no row of the stripe can match.
func (f *File) stripeSelection(ctx context.Context, i int, q *query, st *ScanStats) (encoding.Bitmap, error) {
	rows := int(f.f.Stripe(i).Rows)
	if ss := f.StripeStats(i); ss != nil {
		switch q.prune(q.expr, func(s int) (stats.ColumnStats, bool) { c, ok := ss.Columns[s]; return c, ok }) {
		case filter.None:
			st.StripesPrunedStats++
			return nil, nil
		case filter.All:
			st.RowsScanned += int64(rows)
			return encoding.NewBitmap(rows, true), nil
		}
		if q.bloomRejects(q.expr, func(s int) *stats.Bloom { return f.bloom(i, s) }) {
			st.StripesPrunedBloom++
			return nil, nil
		}
	}
	st.RowsScanned += int64(rows)
	sel := encoding.NewBitmap(rows, true)
	if err := f.evalExpr(ctx, q, i, q.expr, sel, rows, st); err != nil {
		return nil, err
	}
	if !anySet(sel) {
		return nil, nil
	}
	return sel, nil
}

// filePruned reports whether file statistics prove no row can match.
func (f *File) filePruned(q *query) bool {
	if f.fstats == nil {
		return false
	}
	return q.prune(q.expr, func(s int) (stats.ColumnStats, bool) { c, ok := f.fstats[s]; return c, ok }) == filter.None
}

// bloom returns the decoded bloom filter of a stream in a stripe, cached.
func (f *File) bloom(stripe, stream int) *stats.Bloom {
	f.mu.Lock()
	defer f.mu.Unlock()
	key := [2]int{stripe, stream}
	if b, ok := f.blooms[key]; ok {
		return b
	}
	var b *stats.Bloom
	if ss := f.StripeStats(stripe); ss != nil {
		if raw, ok := ss.Blooms[stream]; ok {
			if bl, _, err := stats.DecodeBloom(raw); err == nil {
				b = bl
			}
		}
	}
	f.blooms[key] = b
	return b
}

// scanStripe runs a filtered scan of one stripe: filters first, then the
// projected columns read only for the surviving rows.
func (f *File) scanStripe(ctx context.Context, i int, cols []int, q *query, st *ScanStats) (arrow.Record, error) {
	sel, err := f.stripeSelection(ctx, i, q, st)
	if err != nil || sel == nil {
		return nil, err
	}
	rows := sel.Rows(nil)
	arrs := make([]arrow.Array, len(cols))
	fields := make([]arrow.Field, len(cols))
	defer func() {
		for _, a := range arrs {
			if a != nil {
				a.Release()
			}
		}
	}()
	for k, c := range cols {
		fields[k] = f.arrow.Field(c)
		a, err := f.materialize(ctx, i, c, sel, rows, st)
		if err != nil {
			return nil, fmt.Errorf("read: stripe %d, column %q: %w", i, fields[k].Name, err)
		}
		arrs[k] = a
	}
	return array.NewRecord(arrow.NewSchema(fields, nil), arrs, int64(len(rows))), nil
}

// materialize reads column col for the selected rows of a stripe. A
// row-aligned column reads only chunks holding survivors and gathers from
// the encoded form when few rows of a chunk survive.
func (f *File) materialize(ctx context.Context, stripe, col int, sel encoding.Bitmap, rows []int32, st *ScanStats) (arrow.Array, error) {
	stream := f.rowAligned(col)
	if stream < 0 {
		rec, err := f.ReadStripe(ctx, stripe, []int{col}, st)
		if err != nil {
			return nil, err
		}
		defer rec.Release()
		return takeRuns(rec.Column(0), rows, f)
	}
	typ := f.sch.Stream(stream).Type
	info, err := f.f.Stream(ctx, stripe, stream)
	if err != nil {
		return nil, err
	}
	vals, err := newBuf(typ, len(rows))
	if err != nil {
		return nil, err
	}
	if _, ok := vals.(*encoding.Bytes); ok {
		vals = make([][]byte, len(rows))
	}
	var valid []bool
	at := 0
	for ci, ch := range info.Chunks {
		lo, hi := int32(ch.FirstRow), int32(ch.FirstRow+ch.Rows)
		j := at
		for j < len(rows) && rows[j] < hi {
			j++
		}
		if j == at {
			st.ChunksNoSurvivors++
			continue
		}
		rel := make([]int32, j-at)
		abs := make([]int64, j-at)
		for k, r := range rows[at:j] {
			rel[k] = r - lo
			abs[k] = int64(r)
		}
		if j-at < int(ch.Rows)/4 {
			// Few survivors: gather from the encoded form through the
			// decoder cache, so a chunk whose open is costly (runs,
			// alphabets, zstd bodies) is opened once across queries.
			st.ChunksGathered++
			e, err := f.cachedDecoder(ctx, chunkKey{stripe, stream, ci}, int(ch.Rows), st)
			if err != nil {
				return nil, fmt.Errorf("chunk %d: %w", ci, err)
			}
			e.mu.Lock()
			err = f.gatherFrom(e.dec, int(ch.Rows), rel, abs, int64(lo), at, vals, &valid)
			e.mu.Unlock()
			if err != nil {
				return nil, fmt.Errorf("chunk %d: %w", ci, err)
			}
			at = j
			continue
		}
		payloads, err := f.fetchChunks(ctx, stripe, stream, []int{ci}, st)
		if err != nil {
			return nil, err
		}
		if err := f.gatherChunk(payloads[0], int(ch.Rows), rel, abs, int64(lo), at, vals, &valid); err != nil {
			return nil, fmt.Errorf("chunk %d: %w", ci, err)
		}
		at = j
	}
	if at != len(rows) {
		return nil, encoding.Corruptf("stream %d: chunks cover %d of %d selected rows", stream, at, len(rows))
	}
	if b, ok := vals.([][]byte); ok {
		bb := &encoding.Bytes{Offsets: make([]int32, 1, len(b)+1)}
		for _, x := range b {
			bb.Append(x)
		}
		vals = bb
	}
	s := &shred.Stream{ID: stream, Type: typ, Values: vals, Valid: valid, Len: len(rows)}
	return shred.Assemble(f.sch, col, map[int]*shred.Stream{stream: s}, f.opts.Mem)
}

// takeRuns selects rows of an assembled array by slicing runs of
// consecutive rows and concatenating them.
func takeRuns(a arrow.Array, rows []int32, f *File) (arrow.Array, error) {
	if len(rows) == 0 {
		return array.MakeArrayOfNull(f.opts.Mem, a.DataType(), 0), nil
	}
	var parts []arrow.Array
	defer func() {
		for _, p := range parts {
			p.Release()
		}
	}()
	for i := 0; i < len(rows); {
		j := i + 1
		for j < len(rows) && rows[j] == rows[j-1]+1 {
			j++
		}
		parts = append(parts, array.NewSlice(a, int64(rows[i]), int64(rows[j-1])+1))
		i = j
	}
	return array.Concatenate(parts, f.opts.Mem)
}
