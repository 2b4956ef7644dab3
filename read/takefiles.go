package read

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TakeFiles is TakeContext over several files read as one table, such as
// the files a pattern names: row r of the table is row r of the first
// file, then of the second after the first's rows, and so on. The rows
// come back in the order given. Each file is looked up only for its own
// rows; the projected columns must have the same names and types in every
// file looked up, and a column is nullable in the result when it is in any
// of them.
func TakeFiles(ctx context.Context, files []*File, rows []int64, opts TakeOptions) (arrow.Record, ScanStats, error) {
	var st ScanStats
	if len(files) == 0 {
		return nil, st, fmt.Errorf("read: a lookup in no file: %w", ErrInvalidArgument)
	}
	if err := checkParallelism("lookup", opts.Parallelism); err != nil {
		return nil, st, err
	}
	if len(files) == 1 {
		return files[0].TakeContext(ctx, rows, opts)
	}
	starts := make([]int64, len(files)+1)
	for i, f := range files {
		starts[i+1] = starts[i] + f.NumRows()
	}
	total := starts[len(files)]
	// which file each requested row lies in, and where in that file's
	// own request (kept in the order given)
	in := make([]int, len(rows))
	at := make([]int, len(rows))
	local := make([][]int64, len(files))
	for k, r := range rows {
		if r < 0 || r >= total {
			return nil, st, fmt.Errorf("read: row %d out of range [0, %d) of %d files: %w", r, total, len(files), ErrInvalidArgument)
		}
		i := fileOf(starts, r)
		in[k], at[k] = i, len(local[i])
		local[i] = append(local[i], r-starts[i])
	}
	var target *arrow.Schema
	if opts.UnionByName {
		var err error
		if target, err = unionTarget(files, opts.Columns); err != nil {
			return nil, st, err
		}
	}
	recs := make([]arrow.Record, len(files))
	defer func() {
		for _, r := range recs {
			if r != nil {
				r.Release()
			}
		}
	}()
	first := -1
	for i, f := range files {
		if len(local[i]) == 0 && !(len(rows) == 0 && i == 0) {
			continue
		}
		fo := opts
		if target != nil {
			names := make([]string, target.NumFields())
			for j, fl := range target.Fields() {
				names[j] = fl.Name
			}
			fo.Columns = ColumnsIn(f.Schema(), names)
		}
		rec, fst, err := f.TakeContext(ctx, local[i], fo)
		st.add(&fst)
		if err != nil {
			return nil, st, fmt.Errorf("file %d of %d: %w", i+1, len(files), err)
		}
		if target != nil {
			c, err := Conform(rec, target)
			rec.Release()
			if err != nil {
				return nil, st, fmt.Errorf("file %d of %d: %w", i+1, len(files), err)
			}
			rec = c
		}
		recs[i] = rec
		if first < 0 {
			first = i
		} else if err := sameTaken(recs[first].Schema(), rec.Schema()); err != nil {
			return nil, st, fmt.Errorf("file %d of %d against file %d: %w", i+1, len(files), first+1, err)
		}
	}
	fields := recs[first].Schema().Fields()
	for _, r := range recs {
		if r != nil {
			for j, fl := range r.Schema().Fields() {
				fields[j].Nullable = fields[j].Nullable || fl.Nullable
			}
		}
	}
	md := recs[first].Schema().Metadata()
	sch := arrow.NewSchema(fields, &md)
	// The result is runs of consecutive rows of one file's record: one
	// run per file when the rows are asked in order.
	type run struct{ file, lo, hi int }
	var runs []run
	for k := range rows {
		if n := len(runs); n > 0 && runs[n-1].file == in[k] && runs[n-1].hi == at[k] {
			runs[n-1].hi++
			continue
		}
		runs = append(runs, run{in[k], at[k], at[k] + 1})
	}
	if len(runs) == 1 && runs[0].lo == 0 && int64(runs[0].hi) == recs[runs[0].file].NumRows() {
		r := recs[runs[0].file]
		out := array.NewRecord(sch, r.Columns(), r.NumRows())
		st.RowsReturned = int64(len(rows))
		return out, st, nil
	}
	if len(runs) == 0 {
		out := array.NewRecord(sch, recs[first].Columns(), 0)
		return out, st, nil
	}
	cols := make([]arrow.Array, len(fields))
	defer releaseAll(cols)
	parts := make([]arrow.Array, len(runs))
	for j := range fields {
		for p, rn := range runs {
			parts[p] = array.NewSlice(recs[rn.file].Column(j), int64(rn.lo), int64(rn.hi))
		}
		a, err := array.Concatenate(parts, memory.DefaultAllocator)
		releaseAll(parts)
		if err != nil {
			return nil, st, fmt.Errorf("read: take column %q: %w", fields[j].Name, err)
		}
		cols[j] = a
	}
	st.RowsReturned = int64(len(rows))
	return array.NewRecord(sch, cols, int64(len(rows))), st, nil
}

// unionTarget is the schema of a lookup by column name in files: the
// union of their columns, projected to cols (top-level names; all when
// empty).
func unionTarget(files []*File, cols []string) (*arrow.Schema, error) {
	schemas := make([]*arrow.Schema, len(files))
	for i, f := range files {
		schemas[i] = f.Schema()
	}
	u, err := UnionByName(schemas...)
	if err != nil || len(cols) == 0 {
		return u, err
	}
	fields := make([]arrow.Field, len(cols))
	for i, c := range cols {
		idx := u.FieldIndices(c)
		if len(idx) == 0 {
			return nil, fmt.Errorf("read: %w %q in none of the %d files (by column name, name whole columns)", ErrUnknownColumn, c, len(files))
		}
		fields[i] = u.Field(idx[0])
	}
	md := u.Metadata()
	return arrow.NewSchema(fields, &md), nil
}

// ColumnsIn returns the names of cols that sch holds, for the read of one
// file of a table read by column name; when it holds none, sch's first
// column, read for the count of its rows and dropped by Conform.
func ColumnsIn(sch *arrow.Schema, cols []string) []string {
	var out []string
	for _, c := range cols {
		if len(sch.FieldIndices(c)) > 0 {
			out = append(out, c)
		}
	}
	if len(out) == 0 && sch.NumFields() > 0 {
		out = []string{sch.Field(0).Name}
	}
	return out
}

// fileOf returns the file whose rows [starts[i], starts[i+1]) hold row r.
func fileOf(starts []int64, r int64) int {
	lo, hi := 0, len(starts)-2
	for lo < hi {
		m := (lo + hi + 1) / 2
		if starts[m] <= r {
			lo = m
		} else {
			hi = m - 1
		}
	}
	return lo
}

// sameTaken checks that two files' lookups returned columns of the same
// names and types.
func sameTaken(a, b *arrow.Schema) error {
	if a.NumFields() != b.NumFields() {
		return fmt.Errorf("%d columns against %d: %w", b.NumFields(), a.NumFields(), ErrInvalidArgument)
	}
	for j, fa := range a.Fields() {
		fb := b.Field(j)
		if fa.Name != fb.Name || !arrow.TypeEqual(fa.Type, fb.Type) {
			return fmt.Errorf("column %d is %s %s against %s %s: %w", j+1, fb.Name, fb.Type, fa.Name, fa.Type, ErrInvalidArgument)
		}
	}
	return nil
}
