package read

import (
	"context"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"strata/filter"
)

// FilesScanner reads several files as one table (ScanFiles): the rows of
// the first file, then of the second, and so on, filtered and projected
// alike, with the offset and limit counted across them.
type FilesScanner struct {
	ctx   context.Context
	files []*File
	opts  ScanOptions
	sch   *arrow.Schema
	// byName: each file's records are conformed to sch, and where (the
	// parsed filter) is rewritten for the columns a file lacks
	byName bool
	names  []string
	where  filter.Expr
	// wheres, without byName: the filter each file reads, where some
	// file lacks a FlatMap key another knows (keyWheres); nil otherwise
	wheres []string
	next   int      // the next file to open
	cur    *Scanner // the open file's scanner, nil between files
	skip   int64    // rows still to drop
	left   int64    // rows still to return (-1: no limit)
	stats  ScanStats
	err    error
}

// ScanFiles scans files as one table, one after another in the order
// given, as ScanContext scans one: opts.Offset and opts.Limit count rows
// across the files, and a file is read only once the rows before it are
// spent. Without byName the files must hold the same columns (names and
// types, in order; a column is nullable in the result when it is in any
// file). With byName the files are read by column name (UnionByName):
// the result has the union's columns (those opts.Columns names, which then
// name whole top-level columns), null where a file lacks one, and each
// file's filter is rewritten for the columns it lacks (WhereFor); a file
// no row of which can pass is not read. opts.Split, which names stripes of
// one file, is refused with more than one.
func ScanFiles(ctx context.Context, files []*File, opts ScanOptions, byName bool) (*FilesScanner, error) {
	switch {
	case len(files) == 0:
		return nil, fmt.Errorf("read: a scan of no file: %w", ErrInvalidArgument)
	case len(files) > 1 && opts.Split != nil:
		return nil, fmt.Errorf("read: a split names stripes of one file, not of %d: %w", len(files), ErrInvalidArgument)
	case opts.Offset < 0 || opts.Limit < 0:
		return nil, fmt.Errorf("read: scan with offset %d and limit %d: %w (neither may be negative)", opts.Offset, opts.Limit, ErrInvalidArgument)
	case opts.PrefetchBytes < 0:
		return nil, fmt.Errorf("read: scan with PrefetchBytes %d: %w (a budget may not be negative; 0 keeps the file's)", opts.PrefetchBytes, ErrInvalidArgument)
	}
	if err := checkParallelism("scan", opts.Parallelism); err != nil {
		return nil, err
	}
	s := &FilesScanner{ctx: ctx, files: files, opts: opts, byName: byName, skip: opts.Offset, left: -1}
	if opts.Limit > 0 {
		s.left = opts.Limit
	}
	if byName {
		u, err := unionTarget(files, opts.Columns)
		if err != nil {
			return nil, err
		}
		s.sch = u
		for _, fl := range u.Fields() {
			s.names = append(s.names, fl.Name)
		}
		if opts.Where != "" {
			if s.where, err = filter.Parse(opts.Where); err != nil {
				return nil, err
			}
			for _, p := range filter.Columns(s.where) {
				if !anyHas(files, p) {
					return nil, fmt.Errorf("read: filter: %w %q in none of the %d files", ErrUnknownColumn, p, len(files))
				}
			}
		}
		return s, nil
	}
	s.wheres = keyWheres(files, opts.Where)
	first := files[0]
	cols, err := first.columnIndexes(opts.Columns)
	if err != nil {
		return nil, err
	}
	sch := first.projectedSchema(cols)
	fields := sch.Fields()
	for i, f := range files[1:] {
		if err := sameColumns(first.Schema(), f.Schema()); err != nil {
			return nil, fmt.Errorf("read: file %d of %d against file 1: %w", i+2, len(files), err)
		}
		for j, fl := range fields {
			if idx := f.Schema().FieldIndices(fl.Name); len(idx) > 0 && f.Schema().Field(idx[0]).Nullable {
				fields[j].Nullable = true
			}
		}
	}
	md := sch.Metadata()
	s.sch = arrow.NewSchema(fields, &md)
	return s, nil
}

// anyHas reports whether some file holds the column path p.
func anyHas(files []*File, p string) bool {
	for _, f := range files {
		if !f.lacks(p) {
			return true
		}
	}
	return false
}

// sameColumns reports how b's columns differ from a's, if they do: their
// number, a name or a type (nullability aside).
func sameColumns(a, b *arrow.Schema) error {
	if a.NumFields() != b.NumFields() {
		return fmt.Errorf("%d columns against %d: %w", b.NumFields(), a.NumFields(), ErrInvalidArgument)
	}
	for j, fa := range a.Fields() {
		if fb := b.Field(j); fa.Name != fb.Name || !arrow.TypeEqual(fa.Type, fb.Type) {
			return fmt.Errorf("column %d is %s %s against %s %s (UnionByName reads files by column name): %w",
				j+1, fb.Name, fb.Type, fa.Name, fa.Type, ErrInvalidArgument)
		}
	}
	return nil
}

// Schema is the table's: the columns every record of Next holds.
func (s *FilesScanner) Schema() *arrow.Schema { return s.sch }

// Stats sums the statistics of the files' scans so far.
func (s *FilesScanner) Stats() ScanStats {
	st := s.stats
	if s.cur != nil {
		cs := s.cur.Stats()
		st.add(&cs)
	}
	return st
}

// Close releases the open file's scanner; the files stay open.
func (s *FilesScanner) Close() error {
	if s.cur != nil {
		cs := s.cur.Stats()
		s.stats.add(&cs)
		s.cur.Close()
		s.cur = nil
	}
	s.next = len(s.files)
	return nil
}

// open opens the next file's scanner that can return rows, or reports
// false when none is left.
func (s *FilesScanner) open() (bool, error) {
	for s.next < len(s.files) {
		if s.left == 0 {
			return false, nil
		}
		f := s.files[s.next]
		s.next++
		o := s.opts
		o.Offset, o.Limit = 0, 0
		if s.byName {
			o.Columns = ColumnsIn(f.Schema(), s.names)
			w, none := whereForFile(s.opts.Where, s.where, f)
			if none {
				continue
			}
			o.Where = w
		} else if s.wheres != nil {
			if o.Where = s.wheres[s.next-1]; o.Where == "FALSE" {
				continue // no row of the file passes
			}
		}
		if o.Where == "" {
			// every row of the file passes: its offset goes to the
			// reader, which skips whole stripes
			if s.skip >= f.NumRows() {
				s.skip -= f.NumRows()
				continue
			}
			o.Offset, s.skip = s.skip, 0
			if s.left > 0 {
				o.Limit = s.left
			}
		} else if s.left > 0 {
			o.Limit = s.skip + s.left // rows past them are not needed
		}
		sc, err := f.ScanContext(s.ctx, o)
		if err != nil {
			return false, fmt.Errorf("file %d of %d: %w", s.next, len(s.files), err)
		}
		s.cur = sc
		return true, nil
	}
	return false, nil
}

// Next returns the next batch of the table, or io.EOF after the last.
func (s *FilesScanner) Next() (arrow.Record, error) {
	for {
		if s.err != nil {
			return nil, s.err
		}
		if s.cur == nil {
			ok, err := s.open()
			if err != nil {
				s.err = err
				return nil, err
			}
			if !ok {
				return nil, io.EOF
			}
		}
		rec, err := s.cur.Next()
		if err == io.EOF {
			cs := s.cur.Stats()
			s.stats.add(&cs)
			s.cur.Close()
			s.cur = nil
			continue
		}
		if err != nil {
			s.err = fmt.Errorf("file %d of %d: %w", s.next, len(s.files), err)
			return nil, s.err
		}
		n := rec.NumRows()
		lo := min(s.skip, n)
		s.skip -= lo
		hi := n
		if s.left >= 0 {
			hi = min(n, lo+s.left)
			s.left -= hi - lo
		}
		if lo == hi {
			rec.Release()
			continue
		}
		if lo > 0 || hi < n {
			part := rec.NewSlice(lo, hi)
			rec.Release()
			rec = part
		}
		if s.byName {
			c, err := Conform(rec, s.sch)
			rec.Release()
			if err != nil {
				s.err = fmt.Errorf("file %d of %d: %w", s.next, len(s.files), err)
				return nil, s.err
			}
			return c, nil
		}
		out := array.NewRecordBatch(s.sch, rec.Columns(), rec.NumRows())
		rec.Release()
		return out, nil
	}
}
