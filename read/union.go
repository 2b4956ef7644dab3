package read

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata/filter"
	"strata/schema"
)

// UnionByName returns the schema of several files read as one table by
// column name, as a table's files look after columns were added to it:
// every column of any file, in the order they are first met (the first
// file's columns, then each later file's new ones), nullable where some
// file lacks the column. A column present in several files must have the
// same type in each, or types one widens to without loss (Promote: a
// narrower integer of the same signedness, float32 to float64), which the
// union takes; otherwise the error is a *TypeConflict naming the column,
// both schemas and both types.
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
				t, ok := Promote(fields[j].Type, f.Type)
				if !ok {
					return nil, &TypeConflict{Column: f.Name, First: from[j], FirstType: fields[j].Type, Other: i, OtherType: f.Type}
				}
				fields[j].Type = t
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

// Promote returns the type two types of one column widen to without loss,
// as a table's schema evolves: int8 < int16 < int32 < int64, uint8 <
// uint16 < uint32 < uint64, float32 < float64. Other pairs (signed with
// unsigned, integers with floats, dates, decimals, text) do not promote.
func Promote(a, b arrow.DataType) (arrow.DataType, bool) {
	if arrow.TypeEqual(a, b) {
		return a, true
	}
	ra, fa := promoteRank(a)
	rb, fb := promoteRank(b)
	if ra == 0 || rb == 0 || fa != fb {
		return nil, false
	}
	if ra >= rb {
		return a, true
	}
	return b, true
}

// promoteRank is a type's width within its family (signed, unsigned,
// float) for Promote; 0 for a type that does not promote.
func promoteRank(t arrow.DataType) (rank int, family byte) {
	switch t.ID() {
	case arrow.INT8:
		return 1, 's'
	case arrow.INT16:
		return 2, 's'
	case arrow.INT32:
		return 3, 's'
	case arrow.INT64:
		return 4, 's'
	case arrow.UINT8:
		return 1, 'u'
	case arrow.UINT16:
		return 2, 'u'
	case arrow.UINT32:
		return 3, 'u'
	case arrow.UINT64:
		return 4, 'u'
	case arrow.FLOAT32:
		return 1, 'f'
	case arrow.FLOAT64:
		return 2, 'f'
	}
	return 0, 0
}

// widen returns a as an array of type to, a wider type of its family
// (Promote), value by value, nulls kept.
func widen(a arrow.Array, to arrow.DataType) (arrow.Array, error) {
	mem := memory.DefaultAllocator
	n := a.Len()
	switch to.ID() {
	case arrow.INT16, arrow.INT32, arrow.INT64:
		get, ok := signedOf(a)
		if !ok {
			break
		}
		switch to.ID() {
		case arrow.INT16:
			return fill(array.NewInt16Builder(mem), n, a.IsNull, func(i int) int16 { return int16(get(i)) }), nil
		case arrow.INT32:
			return fill(array.NewInt32Builder(mem), n, a.IsNull, func(i int) int32 { return int32(get(i)) }), nil
		}
		return fill(array.NewInt64Builder(mem), n, a.IsNull, get), nil
	case arrow.UINT16, arrow.UINT32, arrow.UINT64:
		get, ok := unsignedOf(a)
		if !ok {
			break
		}
		switch to.ID() {
		case arrow.UINT16:
			return fill(array.NewUint16Builder(mem), n, a.IsNull, func(i int) uint16 { return uint16(get(i)) }), nil
		case arrow.UINT32:
			return fill(array.NewUint32Builder(mem), n, a.IsNull, func(i int) uint32 { return uint32(get(i)) }), nil
		}
		return fill(array.NewUint64Builder(mem), n, a.IsNull, get), nil
	case arrow.FLOAT64:
		if f, ok := a.(*array.Float32); ok {
			return fill(array.NewFloat64Builder(mem), n, a.IsNull, func(i int) float64 { return float64(f.Value(i)) }), nil
		}
	}
	return nil, fmt.Errorf("read: %s does not widen to %s: %w", a.DataType(), to, ErrInvalidArgument)
}

func signedOf(a arrow.Array) (func(int) int64, bool) {
	switch x := a.(type) {
	case *array.Int8:
		return func(i int) int64 { return int64(x.Value(i)) }, true
	case *array.Int16:
		return func(i int) int64 { return int64(x.Value(i)) }, true
	case *array.Int32:
		return func(i int) int64 { return int64(x.Value(i)) }, true
	case *array.Int64:
		return x.Value, true
	}
	return nil, false
}

func unsignedOf(a arrow.Array) (func(int) uint64, bool) {
	switch x := a.(type) {
	case *array.Uint8:
		return func(i int) uint64 { return uint64(x.Value(i)) }, true
	case *array.Uint16:
		return func(i int) uint64 { return uint64(x.Value(i)) }, true
	case *array.Uint32:
		return func(i int) uint64 { return uint64(x.Value(i)) }, true
	case *array.Uint64:
		return x.Value, true
	}
	return nil, false
}

// fill builds an array of n values from get, null where null says.
func fill[T any, B interface {
	Reserve(int)
	Append(T)
	AppendNull()
	NewArray() arrow.Array
	Release()
}](b B, n int, null func(int) bool, get func(int) T) arrow.Array {
	defer b.Release()
	b.Reserve(n)
	for i := range n {
		if null(i) {
			b.AppendNull()
		} else {
			b.Append(get(i))
		}
	}
	return b.NewArray()
}

// Conform returns rec as a record of target: its columns of target's
// names in target's order, widened where target's type is wider (see
// Promote), and a column of nulls for each of target's columns rec lacks.
// A column of rec that target lacks is dropped. rec's columns must have
// target's types or types that promote to them (UnionByName checks that
// for the files' schemas). The caller releases the result and still owns
// rec. A nil record or target is an ErrInvalidArgument.
func Conform(rec arrow.Record, target *arrow.Schema) (arrow.Record, error) {
	// a missing argument is the caller's mistake, not a reason to crash
	if rec == nil {
		return nil, fmt.Errorf("read: conform: no record: %w", ErrInvalidArgument)
	}
	if target == nil {
		return nil, fmt.Errorf("read: conform: no target schema: %w", ErrInvalidArgument)
	}
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
			if t, ok := Promote(c.DataType(), f.Type); !ok || !arrow.TypeEqual(t, f.Type) {
				return nil, fmt.Errorf("read: column %q is %s, want %s: %w", f.Name, c.DataType(), f.Type, ErrInvalidArgument)
			}
			w, err := widen(c, f.Type)
			if err != nil {
				return nil, fmt.Errorf("read: column %q: %w", f.Name, err)
			}
			cols[j] = w
			continue
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
	return whereFor(where, e, func(p string) bool { return !HasColumn(sch, p) })
}

// lacks reports whether f, a file of a table read by column name, lacks the
// column at filter path p, whose values are then NULL in all its rows: a
// top-level column f does not have (HasColumn), or a key of a FlatMap f has
// that f's schema does not know. Such a key is in none of f's rows, while
// another file's rows may hold it, as files written apart see different
// keys. A key f knows, or a path that is no FlatMap key (a misspelt struct
// field), is not lacked: f's own filter then binds it or reports it.
func (f *File) lacks(p string) bool {
	if !HasColumn(f.Schema(), p) {
		return true
	}
	if _, err := f.sch.Find(p); err == nil {
		return false
	}
	for i := strings.IndexByte(p, '.'); i >= 0; i = nextDot(p, i) {
		n, err := f.sch.Find(p[:i])
		if err != nil || n.Kind != schema.FlatMap {
			continue
		}
		rest := p[i+1:]
		for _, k := range n.Children {
			if rest == k.Name || strings.HasPrefix(rest, k.Name+".") {
				return false
			}
		}
		return true
	}
	return false
}

// nextDot returns the index of the first '.' in p after index i, or -1.
func nextDot(p string, i int) int {
	j := strings.IndexByte(p[i+1:], '.')
	if j < 0 {
		return -1
	}
	return i + 1 + j
}

// keyWheres returns the filter each of files, of the same columns read one
// after another, reads where as when some file's schema lacks a FlatMap key
// where names that another file's knows (files written apart see different
// keys): each file's rewrite for the keys it lacks (whereForFile), "FALSE"
// where no row can pass. It returns nil when every file reads where as it
// is, or when no file knows such a key (the files then report it as an
// unknown column), or where does not parse (the files report that).
func keyWheres(files []*File, where string) []string {
	if where == "" || len(files) < 2 {
		return nil
	}
	e, err := filter.Parse(where)
	if err != nil {
		return nil
	}
	out, none, _ := FileWheres(files, where, e)
	for i := range out {
		if none[i] {
			out[i] = "FALSE"
		}
	}
	return out
}

// whereForFile is WhereFor for file f, which also lacks the FlatMap keys
// its schema does not know (lacks).
func whereForFile(where string, e filter.Expr, f *File) (w string, none bool) {
	return whereFor(where, e, f.lacks)
}

// whereFor is WhereFor with absent reporting the columns the file lacks.
func whereFor(where string, e filter.Expr, absent func(p string) bool) (w string, none bool) {
	if e == nil {
		return where, false
	}
	missing := false
	r := filter.AssumeNull(e, func(p string) bool {
		a := absent(p)
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
