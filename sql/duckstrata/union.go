package duckstrata

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"strata"
	"strata/filter"
	"strata/internal/facade"
	"strata/read"
)

// noRow is fileWhere's mark of a file no row of which can pass the filter.
const noRow = "\x00none"

// unite makes the bound files one table by column name
// (union_by_name := true): every column of any file, in the order first
// met, a file's missing columns read as nulls (the filter is rewritten for
// them by fileWheres).
func (b *bindData) unite() error {
	schemas := make([]*arrow.Schema, len(b.files))
	for i, f := range b.files {
		schemas[i] = f.Schema()
	}
	sch, err := strata.UnionByName(schemas...)
	if tc, ok := err.(*strata.TypeConflict); ok {
		return fmt.Errorf("strata_scan %s: column %q is %s in %s and %s in %s", b.path, tc.Column,
			tc.FirstType, b.paths[tc.First], tc.OtherType, b.paths[tc.Other])
	}
	if err != nil {
		return fmt.Errorf("strata_scan %s: %w", b.path, err)
	}
	b.schema = sch
	return nil
}

// fileWheres sets fileWhere, the filter as each file reads it, where some
// file lacks a column the filter names that another file holds: with
// union_by_name a top-level column, and either way a FlatMap key, as files
// written apart know different keys. A file's rows are NULL for what it
// lacks, so its filter is filter.AssumeNull's rewrite (read.FileWheres),
// as read.ScanFiles reads such files; before, the filter reached such a
// file unchanged and failed its scan as naming an unknown column.
// fileWhere stays nil when every file reads the filter as it is. A column
// no file holds is an error with union_by_name; without it the filter is
// left for the first file's compile to report with its own message.
func (b *bindData) fileWheres() error {
	b.fileWhere = nil
	if b.where == "" {
		return nil
	}
	e, err := filter.Parse(b.where)
	if err != nil {
		if b.union {
			return fmt.Errorf("strata_scan %s: filter %q: %w", b.path, b.where, err)
		}
		return nil
	}
	files := make([]*read.File, len(b.files))
	for i, f := range b.files {
		files[i] = facade.ReadFile(f)
	}
	wheres, none, unknown := read.FileWheres(files, b.where, e)
	if unknown != "" && b.union {
		return fmt.Errorf("strata_scan %s: filter %q: no file has a column %s", b.path, b.where, unknown)
	}
	for i := range wheres {
		if none[i] {
			wheres[i] = noRow
		}
	}
	b.fileWhere = wheres
	return nil
}

// skipped reports whether no row of file i can pass the filter.
func (b *bindData) skipped(i int) bool {
	return b.fileWhere != nil && b.fileWhere[i] == noRow
}

// options returns the scan options of one split: the columns DuckDB asked
// for, of those its file holds (with union_by_name), and the filter as
// that file reads it.
func (s *scanState) options(sp *fileSplit) strata.ScanOptions {
	opts := strata.ScanOptions{Columns: s.names, Where: s.b.where, Split: &sp.split}
	if s.b.fileWhere != nil {
		opts.Where = s.b.fileWhere[sp.file]
	}
	if !s.b.union {
		return opts
	}
	opts.Columns = read.ColumnsIn(s.b.files[sp.file].Schema(), s.names)
	return opts
}

// conform returns a file's record as one of the scan's target schema, and
// releases rec.
func (s *scanState) conform(rec arrow.Record) (arrow.Record, error) {
	out, err := strata.Conform(rec, s.target)
	rec.Release()
	return out, err
}
