package randtable

import (
	"bytes"
	"fmt"
	"math"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Compare compares Arrow data logically: a null matches a null whatever
// lies under it, NaN matches NaN (of any payload) while +0 and -0 differ,
// and the entries of maps for which Unordered is true are compared as sets
// keyed by their keys.
type Compare struct {
	// Unordered reports whether the entries of the map field f (a field of
	// the got side) may come back in any order, as FlatMap entries do.
	Unordered func(f arrow.Field) bool
}

// MetadataFlag returns an Unordered function true for fields whose
// metadata maps key to "true".
func MetadataFlag(key string) func(arrow.Field) bool {
	return func(f arrow.Field) bool {
		i := f.Metadata.FindKey(key)
		return i >= 0 && f.Metadata.Values()[i] == "true"
	}
}

// Records compares two records column by column (by position; names and
// types must agree).
func (c Compare) Records(want, got arrow.RecordBatch) error {
	if want.NumCols() != got.NumCols() {
		return fmt.Errorf("%d columns, want %d", got.NumCols(), want.NumCols())
	}
	if want.NumRows() != got.NumRows() {
		return fmt.Errorf("%d rows, want %d", got.NumRows(), want.NumRows())
	}
	for i := range int(want.NumCols()) {
		f := got.Schema().Field(i)
		if want.ColumnName(i) != f.Name {
			return fmt.Errorf("column %d is %q, want %q", i, f.Name, want.ColumnName(i))
		}
		if err := c.Arrays(f, want.Column(i), got.Column(i)); err != nil {
			return fmt.Errorf("column %q: %w", f.Name, err)
		}
	}
	return nil
}

// Arrays compares two arrays of the same length; f describes got.
func (c Compare) Arrays(f arrow.Field, want, got arrow.Array) error {
	if !arrow.TypeEqual(want.DataType(), got.DataType()) {
		return fmt.Errorf("type %s, want %s", got.DataType(), want.DataType())
	}
	if want.Len() != got.Len() {
		return fmt.Errorf("%d values, want %d", got.Len(), want.Len())
	}
	for i := range want.Len() {
		if err := c.Value(f, want, i, got, i); err != nil {
			return fmt.Errorf("row %d: %w", i, err)
		}
	}
	return nil
}

// Value compares want[i] with got[j]; f describes got.
func (c Compare) Value(f arrow.Field, want arrow.Array, i int, got arrow.Array, j int) error {
	if isNull(want, i) != isNull(got, j) {
		return fmt.Errorf("null=%v, want null=%v", isNull(got, j), isNull(want, i))
	}
	if isNull(want, i) {
		return nil
	}
	switch g := got.(type) {
	case *array.Struct:
		w, ok := want.(*array.Struct)
		if !ok {
			return fmt.Errorf("got struct, want %s", want.DataType())
		}
		st := f.Type.(*arrow.StructType)
		for k := range g.NumField() {
			cf := st.Field(k)
			if err := c.Value(cf, w.Field(k), i, g.Field(k), j); err != nil {
				return fmt.Errorf(".%s: %w", cf.Name, err)
			}
		}
		return nil
	case *array.Map:
		w, ok := want.(*array.Map)
		if !ok {
			return fmt.Errorf("got map, want %s", want.DataType())
		}
		return c.mapValue(f, w, i, g, j)
	case *array.List:
		w, ok := want.(*array.List)
		if !ok {
			return fmt.Errorf("got list, want %s", want.DataType())
		}
		wlo, whi := w.ValueOffsets(i)
		glo, ghi := g.ValueOffsets(j)
		if whi-wlo != ghi-glo {
			return fmt.Errorf("list of %d, want %d: got %s, want %s", ghi-glo, whi-wlo, show(got, j), show(want, i))
		}
		ef := f.Type.(*arrow.ListType).ElemField()
		for k := range whi - wlo {
			if err := c.Value(ef, w.ListValues(), int(wlo+k), g.ListValues(), int(glo+k)); err != nil {
				return fmt.Errorf("[%d]: %w", k, err)
			}
		}
		return nil
	}
	if !LeafEqual(want, i, got, j) {
		return fmt.Errorf("got %s, want %s", show(got, j), show(want, i))
	}
	return nil
}

// isNull is a.IsNull(i), also for arrow-go's null arrays, which have no
// bitmap and report every slot valid.
func isNull(a arrow.Array, i int) bool {
	return a.IsNull(i) || a.DataType().ID() == arrow.NULL
}

func (c Compare) mapValue(f arrow.Field, w *array.Map, i int, g *array.Map, j int) error {
	wlo, whi := w.ValueOffsets(i)
	glo, ghi := g.ValueOffsets(j)
	if whi-wlo != ghi-glo {
		return fmt.Errorf("map of %d entries, want %d: got %s, want %s", ghi-glo, whi-wlo, show(g, j), show(w, i))
	}
	mt := f.Type.(*arrow.MapType)
	wi, gi := span(int(wlo), int(whi)), span(int(glo), int(ghi))
	if c.Unordered != nil && c.Unordered(f) {
		byKey := func(keys arrow.Array) func(a, b int) int {
			return func(a, b int) int { return bytes.Compare(KeyBytes(keys, a), KeyBytes(keys, b)) }
		}
		slices.SortFunc(wi, byKey(w.Keys()))
		slices.SortFunc(gi, byKey(g.Keys()))
	}
	for k := range wi {
		if err := c.Value(mt.KeyField(), w.Keys(), wi[k], g.Keys(), gi[k]); err != nil {
			return fmt.Errorf(" key %d: %w", k, err)
		}
		if err := c.Value(mt.ItemField(), w.Items(), wi[k], g.Items(), gi[k]); err != nil {
			return fmt.Errorf("[%s]: %w", show(w.Keys(), wi[k]), err)
		}
	}
	return nil
}

func span(lo, hi int) []int {
	s := make([]int, 0, hi-lo)
	for k := lo; k < hi; k++ {
		s = append(s, k)
	}
	return s
}

// show renders one value for error messages.
func show(a arrow.Array, i int) string {
	if i < 0 || i >= a.Len() {
		return "<out of range>"
	}
	s := a.ValueStr(i)
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// KeyBytes returns bytes that order and identify a map key (string or
// integer): the string itself, or the integer's big-endian bits with the
// sign flipped.
func KeyBytes(a arrow.Array, i int) []byte {
	var v uint64
	switch k := a.(type) {
	case *array.String:
		return []byte(k.Value(i))
	case *array.Binary:
		return k.Value(i)
	case *array.Int8:
		v = uint64(int64(k.Value(i))) ^ 1<<63
	case *array.Int16:
		v = uint64(int64(k.Value(i))) ^ 1<<63
	case *array.Int32:
		v = uint64(int64(k.Value(i))) ^ 1<<63
	case *array.Int64:
		v = uint64(k.Value(i)) ^ 1<<63
	case *array.Uint8:
		v = uint64(k.Value(i))
	case *array.Uint16:
		v = uint64(k.Value(i))
	case *array.Uint32:
		v = uint64(k.Value(i))
	case *array.Uint64:
		v = k.Value(i)
	default:
		return []byte(a.ValueStr(i))
	}
	return []byte{byte(v >> 56), byte(v >> 48), byte(v >> 40), byte(v >> 32), byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}
}

// LeafEqual compares two non-null primitive values of the same type.
// Floats compare by bits except that all NaNs are equal.
func LeafEqual(want arrow.Array, i int, got arrow.Array, j int) bool {
	switch g := got.(type) {
	case *array.Boolean:
		return want.(*array.Boolean).Value(i) == g.Value(j)
	case *array.Int8:
		return want.(*array.Int8).Value(i) == g.Value(j)
	case *array.Int16:
		return want.(*array.Int16).Value(i) == g.Value(j)
	case *array.Int32:
		return want.(*array.Int32).Value(i) == g.Value(j)
	case *array.Int64:
		return want.(*array.Int64).Value(i) == g.Value(j)
	case *array.Uint8:
		return want.(*array.Uint8).Value(i) == g.Value(j)
	case *array.Uint16:
		return want.(*array.Uint16).Value(i) == g.Value(j)
	case *array.Uint32:
		return want.(*array.Uint32).Value(i) == g.Value(j)
	case *array.Uint64:
		return want.(*array.Uint64).Value(i) == g.Value(j)
	case *array.Float32:
		a, b := want.(*array.Float32).Value(i), g.Value(j)
		if a != a || b != b {
			return a != a && b != b
		}
		return math.Float32bits(a) == math.Float32bits(b)
	case *array.Float64:
		a, b := want.(*array.Float64).Value(i), g.Value(j)
		if a != a || b != b {
			return a != a && b != b
		}
		return math.Float64bits(a) == math.Float64bits(b)
	case *array.String:
		return want.(*array.String).Value(i) == g.Value(j)
	case *array.Binary:
		return bytes.Equal(want.(*array.Binary).Value(i), g.Value(j))
	case *array.Date32:
		return want.(*array.Date32).Value(i) == g.Value(j)
	case *array.Timestamp:
		return want.(*array.Timestamp).Value(i) == g.Value(j)
	case *array.Time32:
		return want.(*array.Time32).Value(i) == g.Value(j)
	case *array.Time64:
		return want.(*array.Time64).Value(i) == g.Value(j)
	case *array.Duration:
		return want.(*array.Duration).Value(i) == g.Value(j)
	case *array.Decimal128:
		return want.(*array.Decimal128).Value(i) == g.Value(j)
	}
	panic(fmt.Sprintf("randtable: cannot compare %s", got.DataType()))
}

// Concat joins records of one schema into a single record (an empty record
// of sch when there are none).
func Concat(mem memory.Allocator, sch *arrow.Schema, recs []arrow.RecordBatch) (arrow.RecordBatch, error) {
	cols := make([]arrow.Array, sch.NumFields())
	var rows int64
	for _, r := range recs {
		rows += r.NumRows()
	}
	for c := range cols {
		parts := make([]arrow.Array, 0, len(recs))
		for _, r := range recs {
			parts = append(parts, r.Column(c))
		}
		if len(parts) == 0 {
			cols[c] = array.MakeArrayOfNull(mem, sch.Field(c).Type, 0)
			continue
		}
		a, err := array.Concatenate(parts, mem)
		if err != nil {
			for _, x := range cols[:c] {
				x.Release()
			}
			return nil, err
		}
		cols[c] = a
	}
	rec := array.NewRecordBatch(sch, cols, rows)
	for _, c := range cols {
		c.Release()
	}
	return rec, nil
}
