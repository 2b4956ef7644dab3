package read

import (
	"context"
	"fmt"
	"sort"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"strata/encoding"
	"strata/shred"
)

// Take returns the rows at the given row numbers, in the order given, with
// the projected columns (all when columns is empty). Row-aligned columns are
// read by locating each row's stripe and chunk from the row counts and
// gathering from the chunk's encoded form, touching only the chunks that
// hold requested rows; nested columns read their stripe.
func (f *File) Take(rows []int64, columns []string) (arrow.Record, error) {
	ctx := context.Background()
	cols, err := f.columnIndexes(columns)
	if err != nil {
		return nil, err
	}
	n := f.NumRows()
	for _, r := range rows {
		if r < 0 || r >= n {
			return nil, fmt.Errorf("read: row %d out of range [0, %d)", r, n)
		}
	}
	// Sort the request, keeping where each row goes.
	order := make([]int, len(rows))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return rows[order[a]] < rows[order[b]] })
	sorted := make([]int64, len(rows))
	for i, o := range order {
		sorted[i] = rows[o]
	}
	arrs := make([]arrow.Array, len(cols))
	fields := make([]arrow.Field, len(cols))
	defer func() {
		for _, a := range arrs {
			if a != nil {
				a.Release()
			}
		}
	}()
	for ci, c := range cols {
		fields[ci] = f.arrow.Field(c)
		a, err := f.takeColumn(ctx, c, sorted, order)
		if err != nil {
			return nil, fmt.Errorf("read: take column %q: %w", fields[ci].Name, err)
		}
		arrs[ci] = a
	}
	return array.NewRecord(f.projectedSchema(cols, fields), arrs, int64(len(rows))), nil
}

// projectedSchema returns the Arrow schema of cols: the file's own when cols
// are all its columns in order (building a schema costs a name index,
// noticeable on single-row lookups).
func (f *File) projectedSchema(cols []int, fields []arrow.Field) *arrow.Schema {
	all := len(cols) == f.arrow.NumFields()
	for i, c := range cols {
		all = all && c == i
	}
	if all && f.arrow.Metadata().Len() == 0 {
		return f.arrow
	}
	return arrow.NewSchema(fields, nil)
}

// rowAligned returns the values stream of a column whose streams hold one
// entry per row (a primitive top-level column), or -1.
func (f *File) rowAligned(col int) int {
	ids := f.sch.ColumnStreams(col)
	if len(ids) != 1 || !f.sch.Column(col).Kind.IsLeaf() {
		return -1
	}
	return ids[0]
}

func (f *File) takeColumn(ctx context.Context, col int, sorted []int64, order []int) (arrow.Array, error) {
	stream := f.rowAligned(col)
	typ := encoding.TypeInvalid
	if stream >= 0 {
		typ = f.sch.Stream(stream).Type
	}
	k := len(sorted)
	var vals any
	var valid []bool
	var err error
	switch {
	case stream >= 0 && typ == encoding.Binary:
		vals = make([][]byte, k)
	case stream >= 0:
		if vals, err = newBuf(typ, k); err != nil {
			return nil, err
		}
	}
	var pieces []arrow.Array
	defer func() {
		for _, p := range pieces {
			p.Release()
		}
	}()
	for i := 0; i < k; {
		s := f.f.StripeForRow(sorted[i])
		info := f.f.Stripe(s)
		j := i
		for j < k && sorted[j] < info.FirstRow+info.Rows {
			j++
		}
		if stream < 0 {
			// Nested: read the stripe's column and slice out each row.
			rec, err := f.ReadStripe(ctx, s, []int{col}, nil)
			if err != nil {
				return nil, err
			}
			for _, r := range sorted[i:j] {
				pieces = append(pieces, array.NewSlice(rec.Column(0), r-info.FirstRow, r-info.FirstRow+1))
			}
			rec.Release()
			i = j
			continue
		}
		if err := f.takeStripe(ctx, s, stream, info.FirstRow, sorted[i:j], i, vals, &valid); err != nil {
			return nil, fmt.Errorf("stripe %d: %w", s, err)
		}
		i = j
	}
	if stream < 0 {
		// Concatenate in sorted order, then permute to the request order.
		perm := make([]arrow.Array, k)
		for i, o := range order {
			perm[o] = pieces[i]
		}
		if k == 0 {
			return array.MakeArrayOfNull(f.opts.Mem, f.arrow.Field(col).Type, 0), nil
		}
		return array.Concatenate(perm, f.opts.Mem)
	}
	vals, valid = permute(vals, valid, order)
	st := &shred.Stream{ID: stream, Type: typ, Values: vals, Valid: valid, Len: k}
	return shred.AssembleLeaf(f.sch, col, k, st, f.opts.Mem)
}

// takeStripe gathers rows (absolute, sorted) of one stripe into vals[at:].
func (f *File) takeStripe(ctx context.Context, stripe, stream int, first int64, rows []int64, at int, vals any, valid *[]bool) error {
	info, err := f.f.Stream(ctx, stripe, stream)
	if err != nil {
		return err
	}
	for i := 0; i < len(rows); {
		c := info.ChunkForRow(rows[i] - first)
		if c < 0 {
			return encoding.Corruptf("row %d not in any chunk", rows[i])
		}
		ch := info.Chunks[c]
		j := i
		for j < len(rows) && rows[j]-first < ch.FirstRow+int64(ch.Rows) {
			j++
		}
		rel := make([]int32, 0, j-i)
		for _, r := range rows[i:j] {
			v := int32(r - first - ch.FirstRow)
			if len(rel) == 0 || rel[len(rel)-1] != v {
				rel = append(rel, v)
			}
		}
		e, err := f.cachedDecoder(ctx, chunkKey{stripe, stream, c}, int(ch.Rows), nil)
		if err != nil {
			return fmt.Errorf("stream %d, chunk %d: %w", stream, c, err)
		}
		e.mu.Lock()
		err = f.gatherFrom(e.dec, int(ch.Rows), rel, rows[i:j], first+ch.FirstRow, at+i, vals, valid)
		e.mu.Unlock()
		if err != nil {
			return fmt.Errorf("stream %d, chunk %d: %w", stream, c, err)
		}
		i = j
	}
	return nil
}

// cachedDecoder returns an opened decoder for a chunk, from the cache or
// freshly fetched and opened (and then cached).
func (f *File) cachedDecoder(ctx context.Context, k chunkKey, rows int, st *ScanStats) (*cacheEntry, error) {
	if e := f.cache.get(k); e != nil {
		return e, nil
	}
	payloads, err := f.fetchChunks(ctx, k.stripe, k.stream, []int{k.chunk}, st)
	if err != nil {
		return nil, err
	}
	d, err := encoding.Open(payloads[0], f.dec)
	if err != nil {
		return nil, err
	}
	if d.Len() != rows {
		return nil, encoding.Corruptf("chunk holds %d rows, index says %d", d.Len(), rows)
	}
	return f.cache.put(k, d, decodedCost(payloads[0], rows, d.Type())), nil
}

// gatherChunk reads the values at rel (sorted, unique, chunk-relative) of
// an encoded chunk; see gatherFrom.
func (f *File) gatherChunk(node []byte, chunkRows int, rel []int32, rows []int64, base int64, at int, vals any, valid *[]bool) error {
	d, err := encoding.Open(node, f.dec)
	if err != nil {
		return err
	}
	if d.Len() != chunkRows {
		return encoding.Corruptf("chunk holds %d rows, index says %d", d.Len(), chunkRows)
	}
	return f.gatherFrom(d, chunkRows, rel, rows, base, at, vals, valid)
}

// gatherFrom reads the values at rel (sorted, unique, chunk-relative) from
// an opened decoder and stores them for every requested row (rows may
// repeat) at out positions.
func (f *File) gatherFrom(d encoding.Decoder, chunkRows int, rel []int32, rows []int64, base int64, at int, vals any, valid *[]bool) error {
	d.Reset()
	nullable := d.Kind() == encoding.KindNullable
	if nullable && *valid == nil {
		*valid = make([]bool, lenOfBuf(vals))
		for i := 0; i < at; i++ {
			(*valid)[i] = true
		}
	}
	switch b := vals.(type) {
	case []bool:
		return gatherTyped(d, b, rel, rows, base, at, *valid, nullable)
	case []int8:
		return gatherTyped(d, b, rel, rows, base, at, *valid, nullable)
	case []int16:
		return gatherTyped(d, b, rel, rows, base, at, *valid, nullable)
	case []int32:
		return gatherTyped(d, b, rel, rows, base, at, *valid, nullable)
	case []int64:
		return gatherTyped(d, b, rel, rows, base, at, *valid, nullable)
	case []uint8:
		return gatherTyped(d, b, rel, rows, base, at, *valid, nullable)
	case []uint16:
		return gatherTyped(d, b, rel, rows, base, at, *valid, nullable)
	case []uint32:
		return gatherTyped(d, b, rel, rows, base, at, *valid, nullable)
	case []uint64:
		return gatherTyped(d, b, rel, rows, base, at, *valid, nullable)
	case []float32:
		return gatherTyped(d, b, rel, rows, base, at, *valid, nullable)
	case []float64:
		return gatherTyped(d, b, rel, rows, base, at, *valid, nullable)
	case [][]byte:
		return gatherBinary(d, b, rel, rows, base, at, *valid, nullable)
	}
	return fmt.Errorf("read: gather into %T", vals)
}

func gatherTyped[T encoding.Fixed](d encoding.Decoder, out []T, rel []int32, rows []int64, base int64, at int, valid []bool, nullable bool) error {
	r, ok := d.(encoding.Reader[T])
	if !ok {
		return encoding.Corruptf("%v node holds %v", d.Kind(), d.Type())
	}
	got := make([]T, len(rel))
	var ok2 []bool
	if g, isG := d.(encoding.Gatherer[T]); isG && !nullable {
		if err := g.Gather(rel, got); err != nil {
			return err
		}
	} else {
		// Sequential fallback: skip to each row and read it.
		all := make([]T, d.Len())
		var v []bool
		if nullable {
			v = make([]bool, d.Len())
			if err := encoding.ReadNullable(r, all, v); err != nil {
				return err
			}
			ok2 = make([]bool, len(rel))
		} else if err := r.Read(all); err != nil {
			return err
		}
		for i, x := range rel {
			got[i] = all[x]
			if v != nil {
				ok2[i] = v[x]
			}
		}
	}
	j := 0
	for i, row := range rows {
		for int64(rel[j]) != row-base {
			j++
		}
		out[at+i] = got[j]
		if valid != nil {
			valid[at+i] = ok2 == nil || ok2[j]
		}
	}
	return nil
}

func gatherBinary(d encoding.Decoder, out [][]byte, rel []int32, rows []int64, base int64, at int, valid []bool, nullable bool) error {
	r, ok := d.(encoding.BinaryReader)
	if !ok {
		return encoding.Corruptf("%v node holds %v, want binary", d.Kind(), d.Type())
	}
	var got encoding.Bytes
	var ok2 []bool
	if g, isG := d.(encoding.BinaryGatherer); isG && !nullable {
		if err := g.GatherBinary(rel, &got); err != nil {
			return err
		}
	} else {
		var all encoding.Bytes
		var v []bool
		if nullable {
			v = make([]bool, d.Len())
			if err := encoding.ReadBinaryNullable(r, &all, v, d.Len()); err != nil {
				return err
			}
			ok2 = make([]bool, len(rel))
		} else if err := r.ReadBinary(&all, d.Len()); err != nil {
			return err
		}
		for i, x := range rel {
			got.Append(all.Value(int(x)))
			if v != nil {
				ok2[i] = v[x]
			}
		}
	}
	j := 0
	for i, row := range rows {
		for int64(rel[j]) != row-base {
			j++
		}
		out[at+i] = append([]byte(nil), got.Value(j)...)
		if valid != nil {
			valid[at+i] = ok2 == nil || ok2[j]
		}
	}
	return nil
}

func lenOfBuf(vals any) int {
	if b, ok := vals.([][]byte); ok {
		return len(b)
	}
	return encoding.LenOf(vals)
}

// permute reorders gathered values from sorted order to request order.
func permute(vals any, valid []bool, order []int) (any, []bool) {
	var nv []bool
	if valid != nil {
		nv = make([]bool, len(valid))
		for i, o := range order {
			nv[o] = valid[i]
		}
	}
	switch v := vals.(type) {
	case []bool:
		return permuteSlice(v, order), nv
	case []int8:
		return permuteSlice(v, order), nv
	case []int16:
		return permuteSlice(v, order), nv
	case []int32:
		return permuteSlice(v, order), nv
	case []int64:
		return permuteSlice(v, order), nv
	case []uint8:
		return permuteSlice(v, order), nv
	case []uint16:
		return permuteSlice(v, order), nv
	case []uint32:
		return permuteSlice(v, order), nv
	case []uint64:
		return permuteSlice(v, order), nv
	case []float32:
		return permuteSlice(v, order), nv
	case []float64:
		return permuteSlice(v, order), nv
	case [][]byte:
		p := permuteSlice(v, order)
		b := &encoding.Bytes{Offsets: make([]int32, 1, len(p)+1)}
		for _, x := range p {
			b.Append(x)
		}
		return b, nv
	}
	return vals, nv
}

func permuteSlice[T any](v []T, order []int) []T {
	out := make([]T, len(v))
	for i, o := range order {
		out[o] = v[i]
	}
	return out
}
