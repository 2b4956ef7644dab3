package read

import (
	"fmt"
	"sort"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"strata/encoding"
	"strata/filter"
	"strata/format"
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
	if f.m.sstats != nil {
		var serr error
		verdict := q.prune(q.expr, int64(rows), func(s int) (stats.ColumnStats, bool) {
			c, ok, err := f.stripeColumnStats(i, s)
			if err != nil && serr == nil {
				serr = err
			}
			return c, ok
		}, func(inmap int) bool { return len(io.stream(inmap).Chunks) == 0 })
		if serr != nil {
			return nil, serr
		}
		switch verdict {
		case filter.None:
			st.StripesPrunedStats++
			return nil, nil
		case filter.All:
			st.RowsScanned += int64(rows)
			return encoding.NewBitmap(rows, true), nil
		}
		if q.bloomRejects(q.expr, func(s int) *stats.Bloom { return f.bloom(x.ctx, i, s, st) }) {
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
	// A key absent from every stripe has no file record: no verdict on it.
	return q.prune(q.expr, f.NumRows(), func(s int) (stats.ColumnStats, bool) { c, ok := f.m.fstats[s]; return c, ok },
		func(int) bool { return false }) == filter.None
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
	rows := selRows(sel)
	if err := f.planPayload(io, cols, rows, st); err != nil {
		return nil, err
	}
	if err := io.fetch(); err != nil {
		return nil, err
	}
	arrs := make([]arrow.Array, len(cols))
	defer releaseAll(arrs)
	gathered := make([]int, len(cols))
	w := x.w
	if len(rows) <= smallSelection && io.allOpen() {
		// Gathering a few rows from open decoders takes microseconds a
		// column: less than waking a helper goroutine, on a loaded machine
		// much less. Such a stripe is materialized serially.
		w = nil
	}
	err = w.each(x.ctx, len(cols), func(k int) error {
		a, n, err := f.materialize(io, cols[k], sel, rows)
		if err != nil {
			return inStripe(io.stripe, columnWhere(f.field(cols[k]).Name), err)
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
	return array.NewRecord(f.projectedSchema(cols), arrs, int64(len(rows))), nil
}

// smallSelection is the most selected rows of a stripe that are
// materialized serially when every chunk they need is open already.
const smallSelection = 4096

// survivorChunks calls fn for every chunk of a row-aligned stream holding
// selected rows, with the survivors' positions rows[at:j] in it.
func survivorChunks(info []format.ChunkInfo, rows []int32, fn func(ci, at, j int) error) error {
	at := 0
	for at < len(rows) {
		ci := findChunk(info, int64(rows[at]))
		if ci < 0 {
			return encoding.Corruptf("row %d not in any chunk", rows[at])
		}
		end := int32(info[ci].FirstRow + info[ci].Rows)
		j := at + sort.Search(len(rows)-at, func(k int) bool { return rows[at+k] >= end })
		if err := fn(ci, at, j); err != nil {
			return err
		}
		at = j
	}
	return nil
}

// findChunk returns the chunk holding stream row row, or -1.
func findChunk(info []format.ChunkInfo, row int64) int {
	lo, hi := 0, len(info)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if info[m].FirstRow+info[m].Rows <= row {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo == len(info) || row < info[lo].FirstRow {
		return -1
	}
	return lo
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
		err := survivorChunks(io.stream(stream).Chunks, rows, func(ci, at, j int) error {
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
// row-aligned column reads only chunks holding survivors: a run of
// consecutive survivors is read in place (skip, then read), scattered ones
// are gathered from the encoded form. Decoders of chunks read in part stay
// in the decoder cache, so repeated selective queries do not reopen them.
// It returns the number of chunks gathered.
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
	if err := f.dec.CheckAlloc(len(rows), max(typ.Size(), 4), "selected rows"); err != nil {
		return nil, 0, err
	}
	// Output buffers come from the file's pool, as a flat scan's do: every
	// position is written below, and releasing the batch returns them.
	var vals any
	var bin *encoding.Bytes
	var pooled [2]unsafe.Pointer
	var err error
	if typ == encoding.Binary {
		bin, pooled = f.pooledBytes(stream, len(rows))
		vals = bin
	} else if vals, err = f.pooledBuf(typ, len(rows)); err != nil {
		return nil, 0, err
	}
	var valid []bool
	gathered := 0
	crows := io.stream(stream).Chunks
	err = survivorChunks(crows, rows, func(ci, at, j int) error {
		lo := int32(crows[ci].FirstRow)
		var rel []int32 // nil: one run of consecutive rows
		if int(rows[j-1]-rows[at])+1 != j-at {
			rel = make([]int32, j-at)
			for k, r := range rows[at:j] {
				rel[k] = r - lo
			}
			gathered++
		}
		part := j-at < int(crows[ci].Rows)
		return io.use(stream, ci, part, func(d encoding.Decoder) error {
			return readRows(d, rel, rows[at]-lo, j-at, at, len(rows), vals, &valid)
		})
	})
	if err != nil {
		return nil, 0, err
	}
	s := &shred.Stream{ID: stream, Type: typ, Values: vals, Valid: valid, Len: len(rows)}
	if len(rows) > 0 {
		s.Owner = f.pool
	}
	if bin != nil {
		f.settleBytes(stream, bin, pooled, len(rows))
	}
	a, err := shred.AssembleLeaf(f.sch, col, len(rows), s, f.opts.Mem)
	return a, gathered, err
}

// readRows reads n values of an opened decoder into vals at position at
// (binary values are appended, in order): those at rel (chunk-relative,
// sorted, unique), or when rel is nil the run of n rows from first. It
// fills valid (of total entries, allocated on the first nullable chunk)
// when the chunk may hold nulls.
func readRows(d encoding.Decoder, rel []int32, first int32, n, at, total int, vals any, valid *[]bool) error {
	nullable := d.Kind() == encoding.KindNullable
	if nullable && *valid == nil {
		*valid = make([]bool, total)
		fillTrue((*valid)[:at])
	}
	defer func() {
		if *valid != nil && !nullable {
			fillTrue((*valid)[at : at+n])
		}
	}()
	if rel == nil {
		// One run of rows: skip to it and read it in place.
		if first > 0 {
			if err := d.Skip(int(first)); err != nil {
				return err
			}
		}
		return encoding.ReadPart(d, vals, at, n, *valid, nullable)
	}
	switch b := vals.(type) {
	case []bool:
		return pickTyped(d, b[at:at+n], rel, *valid, at, nullable)
	case []int8:
		return pickTyped(d, b[at:at+n], rel, *valid, at, nullable)
	case []int16:
		return pickTyped(d, b[at:at+n], rel, *valid, at, nullable)
	case []int32:
		return pickTyped(d, b[at:at+n], rel, *valid, at, nullable)
	case []int64:
		return pickTyped(d, b[at:at+n], rel, *valid, at, nullable)
	case []uint8:
		return pickTyped(d, b[at:at+n], rel, *valid, at, nullable)
	case []uint16:
		return pickTyped(d, b[at:at+n], rel, *valid, at, nullable)
	case []uint32:
		return pickTyped(d, b[at:at+n], rel, *valid, at, nullable)
	case []uint64:
		return pickTyped(d, b[at:at+n], rel, *valid, at, nullable)
	case []float32:
		return pickTyped(d, b[at:at+n], rel, *valid, at, nullable)
	case []float64:
		return pickTyped(d, b[at:at+n], rel, *valid, at, nullable)
	case *encoding.Bytes:
		r, ok := d.(encoding.BinaryReader)
		if !ok {
			return encoding.Corruptf("%v node holds %v, want binary", d.Kind(), d.Type())
		}
		if g, ok := d.(encoding.BinaryGatherer); ok && !nullable {
			return g.GatherBinary(rel, b)
		}
		var all encoding.Bytes
		v := make([]bool, d.Len())
		if err := encoding.ReadBinaryNullable(r, &all, v, d.Len()); err != nil {
			return err
		}
		for k, x := range rel {
			b.Append(all.Value(int(x)))
			if nullable {
				(*valid)[at+k] = v[x]
			}
		}
		return nil
	}
	return fmt.Errorf("read: gather into %T", vals)
}

// pickTyped gathers the values at rel into dst: through the decoder's
// Gatherer when it has one and no nulls, else by decoding the chunk.
func pickTyped[T encoding.Fixed](d encoding.Decoder, dst []T, rel []int32, valid []bool, at int, nullable bool) error {
	r, ok := d.(encoding.Reader[T])
	if !ok {
		return encoding.Corruptf("%v node holds %v", d.Kind(), d.Type())
	}
	if g, ok := d.(encoding.Gatherer[T]); ok && !nullable {
		return g.Gather(rel, dst)
	}
	all := make([]T, d.Len())
	v := make([]bool, d.Len())
	if err := encoding.ReadNullable(r, all, v); err != nil {
		return err
	}
	for k, x := range rel {
		dst[k] = all[x]
		if nullable {
			valid[at+k] = v[x]
		}
	}
	return nil
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
