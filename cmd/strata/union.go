package main

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"strata"
	"strata/filter"
	"strata/read"
)

// unionPlan reads the files of a pattern as one table by column name
// (--union-by-name), as a table's files look once columns were added to
// it: the table has every column of any file, and a file's rows hold nulls
// in the columns it lacks.
type unionPlan struct {
	schema *arrow.Schema // the union, projected to the columns asked for
}

// newUnionPlan checks that the files' columns agree in type wherever they
// share a name and returns the plan of a scan of cols (top-level column
// names; nil: all) filtered by where.
func newUnionPlan(files []*openedFile, paths []string, cols []string, where string) (*unionPlan, error) {
	schemas := make([]*arrow.Schema, len(files))
	for i, f := range files {
		schemas[i] = f.Schema()
	}
	sch, err := strata.UnionByName(schemas...)
	if tc, ok := err.(*strata.TypeConflict); ok {
		return nil, fmt.Errorf("column %q is %s in %s and %s in %s: %w", tc.Column, tc.FirstType, paths[tc.First],
			tc.OtherType, paths[tc.Other], read.ErrInvalidArgument)
	}
	if err != nil {
		return nil, err
	}
	u := &unionPlan{schema: sch}
	if len(cols) > 0 {
		fields := make([]arrow.Field, 0, len(cols))
		for _, c := range cols {
			idx := sch.FieldIndices(c)
			if len(idx) == 0 {
				return nil, usagef("--columns: no file of the pattern has a column %q (with --union-by-name, name whole columns)", c)
			}
			fields = append(fields, sch.Field(idx[0]))
		}
		md := sch.Metadata()
		u.schema = arrow.NewSchema(fields, &md)
	}
	if where != "" {
		e, err := filter.Parse(where)
		if err != nil {
			return nil, err
		}
		for _, p := range filter.Columns(e) {
			if !read.HasColumn(sch, p) {
				return nil, usagef("--where: no file of the pattern has a column %q", p)
			}
		}
	}
	return u, nil
}
