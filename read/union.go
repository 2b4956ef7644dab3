package read

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata/filter"
)

// UnionByName returns the schema of several files read as one table by
// column name, as a table's files look after columns were added to it:
// every column of any file, in the order they are first met (the first
// file's columns, then each later file's new ones), nullable where some
// file lacks the column. A column present in several files must have the
// same type in each; otherwise the error is a *TypeConflict naming the
// column, both schemas and both types.
// Schema metadata is the first file's.
func UnionByName(schemas ...*arrow.Schema) (*arrow.Schema, error) {
	if len(schemas) == 0 {
		return nil, fmt.Errorf("read: union of no schema: %w", ErrInvalidArgument)
	}
	var fields []arrow.Field
	at := map[string]int{}
	seen := make([]int, 0, 16) // how many schemas hold each field
	from := make([]int, 0, 16) // the schema each field was first met in
	for i, s := range schemas {
		if s == nil {
			return nil, fmt.Errorf("read: schema %d is nil: %w", i+1, ErrInvalidArgument)
		}
		for _, f := range s.Fields() {
			j, ok := at[f.Name]
			if !ok {
				if i > 0 {
					f.Nullable = true // the earlier files lack it
				}
				at[f.Name] = len(fields)
				fields = append(fields, f)
				seen = append(seen, 1)
				from = append(from, i)
				continue
			}
			if !arrow.TypeEqual(fields[j].Type, f.Type) {
				return nil, &TypeConflict{Column: f.Name, First: from[j], FirstType: fields[j].Type, Other: i, OtherType: f.Type}
			}
			fields[j].Nullable = fields[j].Nullable || f.Nullable
			seen[j]++
		}
	}
	for j := range fields {
		if seen[j] < len(schemas) {
			fields[j].Nullable = true
		}
	}
	md := schemas[0].Metadata()
	return arrow.NewSchema(fields, &md), nil
}

// TypeConflict is UnionByName's error for a column whose type differs
// between two schemas (First and Other index the schemas given).
type TypeConflict struct {
	Column               string
	First, Other         int
	FirstType, OtherType arrow.DataType
}

func (e *TypeConflict) Error() string {
	return fmt.Sprintf("read: column %q is %s in schema %d and %s in schema %d", e.Column, e.FirstType, e.First+1, e.OtherType, e.Other+1)
}

// Unwrap makes a TypeConflict an ErrInvalidArgument.
func (e *TypeConflict) Unwrap() error { return ErrInvalidArgument }

// Conform returns rec as a record of target: its columns of target's
// names in target's order, and a column of nulls for each of target's
// columns rec lacks. A column of rec that target lacks is dropped. rec's
// columns must have target's types (UnionByName checks that for the
// files' schemas). The caller releases the result and still owns rec.
func Conform(rec arrow.Record, target *arrow.Schema) (arrow.Record, error) {
	src := rec.Schema()
	n := rec.NumRows()
	cols := make([]arrow.Array, target.NumFields())
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	for j, f := range target.Fields() {
		idx := src.FieldIndices(f.Name)
		if len(idx) == 0 {
			if !f.Nullable {
				return nil, fmt.Errorf("read: column %q is missing and may not be null: %w", f.Name, ErrInvalidArgument)
			}
			cols[j] = array.MakeArrayOfNull(memory.DefaultAllocator, f.Type, int(n))
			continue
		}
		c := rec.Column(idx[0])
		if !arrow.TypeEqual(c.DataType(), f.Type) {
			return nil, fmt.Errorf("read: column %q is %s, want %s: %w", f.Name, c.DataType(), f.Type, ErrInvalidArgument)
		}
		c.Retain()
		cols[j] = c
	}
	return array.NewRecordBatch(target, cols, n), nil
}

// HasColumn reports whether the column path p (a top-level name, or a
// dotted path into one) names a column of sch.
func HasColumn(sch *arrow.Schema, p string) bool {
	if len(sch.FieldIndices(p)) > 0 {
		return true
	}
	top, _, nested := strings.Cut(p, ".")
	return nested && len(sch.FieldIndices(top)) > 0
}

// WhereFor returns the filter where (e, its parse) as a file of schema sch
// reads it in a table read by column name: where itself when the file
// holds every column it names, else filter.AssumeNull's rewrite for the
// columns the file lacks ("" when every row passes). none reports that no
// row of the file can pass.
func WhereFor(where string, e filter.Expr, sch *arrow.Schema) (w string, none bool) {
	if e == nil {
		return where, false
	}
	missing := false
	r := filter.AssumeNull(e, func(p string) bool {
		a := !HasColumn(sch, p)
		missing = missing || a
		return a
	})
	if !missing {
		return where, false
	}
	if c, ok := r.(*filter.Const); ok {
		return "", !c.Value
	}
	return r.String(), false
}
