package read

import (
	"context"
	"fmt"
	"slices"
	"sort"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"strata/encoding"
	"strata/shred"
)

// TakeOptions select what a lookup returns.
type TakeOptions struct {
	// Columns are the columns to return, all when empty: top-level
	// columns, or dotted paths of fields nested in them ("properties.mag").
	// The paths into one column return that column pruned to those fields
	// (structs keep only the named fields, lists and maps their shape),
	// reading only their streams; a column also named whole comes whole.
	Columns []string
	// Parallelism overrides the file's Parallelism for this lookup (0
	// keeps it; negative is ErrInvalidArgument).
	Parallelism int
	// UnionByName makes TakeFiles read its files by column name
	// (UnionByName): the result has the union's columns (those of
	// Columns, which then name whole top-level columns), null in the
	// rows of a file that lacks them.
	UnionByName bool
}

// Take returns the rows at the given row numbers, in the order given, with
// the projected columns (all when columns is empty). Row-aligned columns are
// read by locating each row's stripe and chunk from the row counts and
// gathering from the chunk's encoded form, touching only the chunks that
// hold requested rows (kept opened in the decoder cache for the next
// lookups); nested columns read their stripe.
func (f *File) Take(rows []int64, columns []string) (arrow.Record, error) {
	rec, _, err := f.TakeContext(context.Background(), rows, TakeOptions{Columns: columns})
	return rec, err
}

// TakeContext is Take under a context, with options, reporting what it read.
// Per stripe, the chunks of every projected column that hold requested rows
// and are not in the decoder cache are fetched in one coalesced call.
func (f *File) TakeContext(ctx context.Context, rows []int64, opts TakeOptions) (arrow.Record, ScanStats, error) {
	var st ScanStats
	if err := checkParallelism("lookup", opts.Parallelism); err != nil {
		return nil, st, err
	}
	cols, err := f.columnIndexes(opts.Columns)
	if err != nil {
		return nil, st, err
	}
	n := f.NumRows()
	for _, r := range rows {
		if r < 0 || r >= n {
			return nil, st, fmt.Errorf("read: row %d out of range [0, %d): %w", r, n, ErrInvalidArgument)
		}
	}
	x := f.newExec(ctx, opts.Parallelism)
	if x.par > 1 && len(rows) > 1 {
		x.w = newWorkers(x.par - 1)
	}
	// Sort the request, keeping where each row goes.
	order := make([]int, len(rows))
	for i := range order {
		order[i] = i
	}
	sorted := rows
	if !slices.IsSorted(rows) {
		sort.SliceStable(order, func(a, b int) bool { return rows[order[a]] < rows[order[b]] })
		sorted = make([]int64, len(rows))
		for i, o := range order {
			sorted[i] = rows[o]
		}
	}
	t := &taker{f: f, x: x, cols: cols, sorted: sorted, order: order, st: &st}
	if err := t.run(); err != nil {
		t.release()
		return nil, st, err
	}
	arrs := make([]arrow.Array, len(cols))
	defer releaseAll(arrs)
	for ci, c := range cols {
		a, err := t.column(ci)
		if err != nil {
			t.release()
			return nil, st, fmt.Errorf("read: take column %q: %w", f.field(c).Name, err)
		}
		arrs[ci] = a
	}
	st.RowsReturned = int64(len(rows))
	return array.NewRecord(f.projectedSchema(cols), arrs, int64(len(rows))), st, nil
}

// taker gathers the requested rows (sorted) of every projected column,
// stripe by stripe.
type taker struct {
	f      *File
	x      *exec
	cols   []int
	sorted []int64
	order  []int
	st     *ScanStats
	vals   []any    // per column: gathered values (row-aligned columns)
	valid  [][]bool // per column
	pieces [][]arrow.Array
}

func (t *taker) release() {
	for _, ps := range t.pieces {
		for _, p := range ps {
			p.Release()
		}
	}
	t.pieces = nil
}

func (t *taker) run() error {
	f, k := t.f, len(t.sorted)
	t.vals = make([]any, len(t.cols))
	t.valid = make([][]bool, len(t.cols))
	t.pieces = make([][]arrow.Array, len(t.cols))
	for ci, c := range t.cols {
		stream := f.rowAligned(c)
		if stream < 0 {
			continue
		}
		typ := f.sch.Stream(stream).Type
		if typ == encoding.Binary {
			t.vals[ci] = make([][]byte, k)
		} else {
			v, err := encoding.NewValues(typ, k)
			if err != nil {
				return err
			}
			t.vals[ci] = v
		}
	}
	for i := 0; i < k; {
		s := f.f.StripeForRow(t.sorted[i])
		info := f.f.Stripe(s)
		j := i
		for j < k && t.sorted[j] < info.FirstRow+info.Rows {
			j++
		}
		if err := t.stripe(s, info.FirstRow, i, j); err != nil {
			return err
		}
		i = j
	}
	return nil
}

// stripe gathers requested rows sorted[i:j], all in stripe s. Its errors
// name the stripe.
func (t *taker) stripe(s int, first int64, i, j int) (err error) {
	f := t.f
	io, err := f.newStripeIO(t.x.ctx, s)
	if err != nil {
		return err // (format's error names the stripe)
	}
	defer func() {
		if err != nil {
			err = inStripe(s, "", err)
		}
	}()
	io.pointLookup = true
	// Gathers copy the values they return, so the chunks they read may
	// lie in recycled memory (lease.go); nothing read through io outlives
	// this function.
	io.recycle = true
	defer io.close()
	// Sized for what a lookup declares, a chunk per column and a shared
	// definition or reference for some: growing a map of them cost a warm
	// one-row Take of 16 columns about a twentieth of its time, and a
	// chunk apiece another allocation.
	io.reserve(len(t.cols) + 2)
	defer io.flush(t.st)
	rows := t.sorted[i:j]
	for _, c := range t.cols {
		stream := f.rowAligned(c)
		if stream < 0 {
			if err := f.needColumn(io, c); err != nil {
				return err
			}
			continue
		}
		info := io.stream(stream)
		for a := 0; a < len(rows); {
			ci := info.ChunkForRow(rows[a] - first)
			if ci < 0 {
				return encoding.Corruptf("row %d not in any chunk of stream %d", rows[a], stream)
			}
			if err := io.needLeased(stream, ci); err != nil {
				return err
			}
			end := first + info.Chunks[ci].FirstRow + info.Chunks[ci].Rows
			for a < len(rows) && rows[a] < end {
				a++
			}
		}
	}
	if err := io.fetch(); err != nil {
		return err
	}
	return t.x.w.each(t.x.ctx, len(t.cols), func(ci int) error {
		c := t.cols[ci]
		stream := f.rowAligned(c)
		if stream < 0 {
			// Nested: assemble the stripe's column and slice out each row.
			a, err := f.readColumn(io, c)
			if err != nil {
				return err
			}
			for _, r := range rows {
				t.pieces[ci] = append(t.pieces[ci], array.NewSlice(a, r-first, r-first+1))
			}
			a.Release()
			return nil
		}
		if err := t.gather(io, ci, stream, first, i, rows); err != nil {
			return inStripe(s, columnWhere(f.field(c).Name), err)
		}
		return nil
	})
}

// gather reads rows (absolute, sorted; the requests sorted[at:]) of one
// stripe's row-aligned stream into the column's values.
func (t *taker) gather(io *stripeIO, ci, stream int, first int64, at int, rows []int64) error {
	info := io.stream(stream)
	for i := 0; i < len(rows); {
		c := info.ChunkForRow(rows[i] - first)
		if c < 0 {
			return encoding.Corruptf("row %d not in any chunk", rows[i])
		}
		ch := info.Chunks[c]
		j := i
		for j < len(rows) && rows[j]-first < ch.FirstRow+ch.Rows {
			j++
		}
		rel := make([]int32, 0, j-i)
		for _, r := range rows[i:j] {
			v := int32(r - first - ch.FirstRow)
			if len(rel) == 0 || rel[len(rel)-1] != v {
				rel = append(rel, v)
			}
		}
		base := first + ch.FirstRow
		err := io.use(stream, c, true, func(d encoding.Decoder) error {
			return gatherFrom(d, rel, rows[i:j], base, at+i, t.vals[ci], &t.valid[ci])
		})
		if err != nil {
			return err
		}
		i = j
	}
	return nil
}

// column assembles the gathered values of projected column ci in request
// order.
func (t *taker) column(ci int) (arrow.Array, error) {
	f, col, k := t.f, t.cols[ci], len(t.sorted)
	stream := f.rowAligned(col)
	if stream < 0 {
		pieces := t.pieces[ci]
		if k == 0 {
			return array.MakeArrayOfNull(f.opts.Mem, f.field(col).Type, 0), nil
		}
		// Concatenate in sorted order, then permute to the request order.
		perm := make([]arrow.Array, k)
		for i, o := range t.order {
			perm[o] = pieces[i]
		}
		a, err := array.Concatenate(perm, f.opts.Mem)
		for _, p := range pieces {
			p.Release()
		}
		t.pieces[ci] = nil
		return a, err
	}
	vals, valid := t.vals[ci], t.valid[ci]
	if !isIdentity(t.order) {
		vals, valid = permute(vals, valid, t.order)
	} else if b, ok := vals.([][]byte); ok {
		bb := &encoding.Bytes{Offsets: make([]int32, 1, len(b)+1)}
		for _, x := range b {
			bb.Append(x)
		}
		vals = bb
	}
	s := &shred.Stream{ID: stream, Type: f.sch.Stream(stream).Type, Values: vals, Valid: valid, Len: k}
	return shred.AssembleLeaf(f.sch, col, k, s, f.opts.Mem)
}

func isIdentity(order []int) bool {
	for i, o := range order {
		if i != o {
			return false
		}
	}
	return true
}

// projectedSchema returns the Arrow schema of cols: the file's own when
// cols are all its columns in order, else one built once for the same cols
// (building a schema costs a name index, noticeable on single-row
// lookups).
func (f *File) projectedSchema(cols []int) *arrow.Schema {
	all := len(cols) == f.arrow.NumFields()
	for i, c := range cols {
		all = all && c == i
	}
	if all && f.arrow.Metadata().Len() == 0 {
		return f.arrow
	}
	if sch := f.proj.schemaFor(cols); sch != nil {
		return sch
	}
	fields := make([]arrow.Field, len(cols))
	for i, c := range cols {
		fields[i] = f.field(c)
	}
	sch := arrow.NewSchema(fields, nil)
	f.proj.putSchema(cols, sch)
	return sch
}

// rowAligned returns the values stream of a column whose streams hold one
// entry per row (a primitive top-level column), or -1.
func (f *File) rowAligned(col int) int {
	if col >= len(f.m.aligned) {
		return -1 // a nested projection
	}
	return f.m.aligned[col]
}

// gatherFrom reads the values at rel (sorted, unique, chunk-relative) from
// an opened decoder, reset (stripeIO.use resets it), and stores them for
// every requested row (rows may repeat) at out positions.
func gatherFrom(d encoding.Decoder, rel []int32, rows []int64, base int64, at int, vals any, valid *[]bool) error {
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
