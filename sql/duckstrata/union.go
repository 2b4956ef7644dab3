package duckstrata

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"strata"
	"strata/filter"
	"strata/read"
)

// noRow is fileWhere's mark of a file no row of which can pass the filter.
const noRow = "\x00none"

// unite makes the bound files one table by column name
// (union_by_name := true): every column of any file, in the order first
// met, a file's missing columns read as nulls, and the filter rewritten
// for each file as filter.AssumeNull gives it for the columns it lacks.
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
	b.fileWhere = make([]string, len(b.files))
	if b.where == "" {
		return nil
	}
	e, err := filter.Parse(b.where)
	if err != nil {
		return fmt.Errorf("strata_scan %s: filter %q: %w", b.path, b.where, err)
	}
	for _, p := range filter.Columns(e) {
		if !read.HasColumn(sch, p) {
			return fmt.Errorf("strata_scan %s: filter %q: no file has a column %s", b.path, b.where, p)
		}
	}
	for i, f := range b.files {
		w, none := read.WhereFor(b.where, e, f.Schema())
		if none {
			w = noRow
		}
		b.fileWhere[i] = w
	}
	return nil
}

// options returns the scan options of one split: the columns DuckDB asked
// for, of those its file holds (with union_by_name), and the filter as
// that file reads it.
func (s *scanState) options(sp *fileSplit) strata.ScanOptions {
	opts := strata.ScanOptions{Columns: s.names, Where: s.b.where, Split: &sp.split}
	if !s.b.union {
		return opts
	}
	opts.Where = s.b.fileWhere[sp.file]
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
