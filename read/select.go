package read

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"strata/encoding"
	"strata/filter"
	"strata/shred"
	"strata/stats"
)

// stripeSelection prunes a stripe, fetches the filter chunks it needs in
// one go and evaluates the filter into a row bitmap over the stripe rows
// [lo, hi) the cluster indexes leave (all rows when lo = 0, hi = rows). It
// returns nil when no row of the stripe can match.
func (f *File) stripeSelection(x *exec, io *stripeIO, q *query, lo, hi int, st *ScanStats) (encoding.Bitmap, error) {
	i := io.stripe
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
	sel := encoding.NewBitmap(rows, false)
	if lo == 0 && hi == rows {
		sel.SetAll(rows)
	} else {
		setRange(sel, lo, hi)
	}
	if err := f.planFilter(io, q, sel, st); err != nil {
		return nil, err
	}
	if err := io.fetch(); err != nil {
		return nil, err
	}
	if err := f.evalExpr(x, io, q, q.expr, sel, st); err != nil {
		return nil, err
	}
	if !anySet(sel) {
		return nil, nil
	}
	return sel, nil
}

// setRange sets rows [lo, hi) of b.
func setRange(b encoding.Bitmap, lo, hi int) {
	for lo < hi && lo&63 != 0 {
		b.Set(lo)
		lo++
	}
	for ; lo+64 <= hi; lo += 64 {
		b[lo>>6] = ^uint64(0)
	}
	for ; lo < hi; lo++ {
		b.Set(lo)
	}
}

// filePruned reports whether file statistics prove no row can match.
func (f *File) filePruned(q *query) bool {
	if f.m.fstats == nil {
		return false
	}
	return q.prune(q.expr, func(s int) (stats.ColumnStats, bool) { c, ok := f.m.fstats[s]; return c, ok }) == filter.None
}

// scanStripe runs a filtered scan of one stripe: the filter chunks in one
// fetch, the filter evaluated on them, then the payload chunks holding
// survivors in a second fetch, the projected columns materialized from
// them in parallel. A column both filtered and returned is fetched and
// opened once: its decoders are shared.
func (f *File) scanStripe(x *exec, io *stripeIO, cols []int, q *query, lo, hi int, st *ScanStats) (arrow.Record, error) {
	sel, err := f.stripeSelection(x, io, q, lo, hi, st)
	if err != nil || sel == nil {
		return nil, err
	}
	rows := sel.Rows(nil)
	if err := f.planPayload(io, cols, rows, st); err != nil {
		return nil, err
	}
	if err := io.fetch(); err != nil {
		return nil, err
	}
	arrs := make([]arrow.Array, len(cols))
	fields := make([]arrow.Field, len(cols))
	defer releaseAll(arrs)
	for k, c := range cols {
		fields[k] = f.arrow.Field(c)
	}
	gathered := make([]int, len(cols))
	err = x.w.each(x.ctx, len(cols), func(k int) error {
		a, n, err := f.materialize(io, cols[k], sel, rows)
		if err != nil {
			return fmt.Errorf("read: stripe %d, column %q: %w", io.stripe, fields[k].Name, err)
		}
		arrs[k], gathered[k] = a, n
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, n := range gathered {
		st.ChunksGathered += n
	}
	return array.NewRecord(f.projectedSchema(cols, fields), arrs, int64(len(rows))), nil
}

// survivorChunks calls fn for every chunk of a row-aligned stream holding
// selected rows, with the survivors' positions rows[at:j] in it.
func survivorChunks(info []chunkRows, rows []int32, fn func(ci, at, j int) error) error {
	at := 0
	for at < len(rows) {
		ci := findChunk(info, int64(rows[at]))
		if ci < 0 {
			return encoding.Corruptf("row %d not in any chunk", rows[at])
		}
		end := int32(info[ci].first + info[ci].rows)
		j := at
		for j < len(rows) && rows[j] < end {
			j++
		}
		if err := fn(ci, at, j); err != nil {
			return err
		}
		at = j
	}
	return nil
}

// chunkRows is the row extent of a chunk within its stream.
type chunkRows struct{ first, rows int64 }

func findChunk(info []chunkRows, row int64) int {
	lo, hi := 0, len(info)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if info[m].first+info[m].rows <= row {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo == len(info) || row < info[lo].first {
		return -1
	}
	return lo
}

func (s *stripeIO) chunkRows(stream int) []chunkRows {
	chunks := s.stream(stream).Chunks
	out := make([]chunkRows, len(chunks))
	for i, c := range chunks {
		out[i] = chunkRows{c.FirstRow, c.Rows}
	}
	return out
}

// planPayload declares the chunks that hold the survivors rows of the
// projected columns: for a row-aligned column only chunks with survivors
// (the others are counted as ChunksNoSurvivors and never requested), for
// a nested one every chunk of its streams.
func (f *File) planPayload(io *stripeIO, cols []int, rows []int32, st *ScanStats) error {
	for _, c := range cols {
		stream := f.rowAligned(c)
		if stream < 0 {
			if err := f.needColumn(io, c); err != nil {
				return err
			}
			continue
		}
		n := 0
		err := survivorChunks(io.chunkRows(stream), rows, func(ci, at, j int) error {
			n++
			return io.need(stream, ci)
		})
		if err != nil {
			return err
		}
		st.ChunksNoSurvivors += len(io.stream(stream).Chunks) - n
	}
	return nil
}

// materialize reads column col for the selected rows of a stripe. A
// row-aligned column reads only chunks holding survivors and gathers from
// the encoded form when few rows of a chunk survive. It returns the number
// of chunks gathered.
func (f *File) materialize(io *stripeIO, col int, sel encoding.Bitmap, rows []int32) (arrow.Array, int, error) {
	stream := f.rowAligned(col)
	if stream < 0 {
		a, err := f.readColumn(io, col)
		if err != nil {
			return nil, 0, err
		}
		defer a.Release()
		out, err := takeRuns(a, rows, f)
		return out, 0, err
	}
	typ := f.sch.Stream(stream).Type
	vals, err := newBuf(typ, len(rows))
	if err != nil {
		return nil, 0, err
	}
	if _, ok := vals.(*encoding.Bytes); ok {
		vals = make([][]byte, len(rows))
	}
	var valid []bool
	gathered := 0
	crows := io.chunkRows(stream)
	err = survivorChunks(crows, rows, func(ci, at, j int) error {
		lo := int32(crows[ci].first)
		rel := make([]int32, j-at)
		abs := make([]int64, j-at)
		for k, r := range rows[at:j] {
			rel[k] = r - lo
			abs[k] = int64(r)
		}
		// Few survivors: gather from the encoded form, keeping the opened
		// decoder in the cache so a chunk whose open is costly (runs,
		// alphabets, zstd bodies) is opened once across queries.
		sparse := j-at < int(crows[ci].rows)/4
		if sparse {
			gathered++
		}
		return io.use(stream, ci, sparse, func(d encoding.Decoder) error {
			return gatherFrom(d, rel, abs, int64(lo), at, vals, &valid)
		})
	})
	if err != nil {
		return nil, 0, err
	}
	if b, ok := vals.([][]byte); ok {
		bb := &encoding.Bytes{Offsets: make([]int32, 1, len(b)+1)}
		for _, x := range b {
			bb.Append(x)
		}
		vals = bb
	}
	s := &shred.Stream{ID: stream, Type: typ, Values: vals, Valid: valid, Len: len(rows)}
	a, err := shred.AssembleLeaf(f.sch, col, len(rows), s, f.opts.Mem)
	return a, gathered, err
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
