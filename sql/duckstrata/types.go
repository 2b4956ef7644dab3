package duckstrata

import (
	"fmt"
	"strconv"
	"strings"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/duckdb/duckdb-go/v2/mapping"
)

// column is how one top-level Strata column reaches DuckDB: its DuckDB type
// and the routine that copies a slice of an Arrow array into a DuckDB
// vector.
type column struct {
	name  string // in the file
	duck  string // in DuckDB (see duckNames)
	sql   string // DuckDB type name, for messages and tests
	arrow arrow.DataType
	// nested: the column is, or holds, a list or map, which DuckDB gets
	// as JSON text in a VARCHAR, the way `strata cat --format csv` prints
	// it (structs are STRUCTs, see structColumn).
	nested bool
	// logical builds the DuckDB type (the caller destroys it).
	logical func() mapping.LogicalType
	// fill copies rows [lo, lo+n) of a into rows [0, n) of vec; validity
	// is handled by the caller. It fails on a value the DuckDB type cannot
	// hold (a VARCHAR that is not UTF-8).
	fill func(vec mapping.Vector, a arrow.Array, lo, n int) error
}

// fillFunc is a column's fill for a type that holds every value.
type fillFunc = func(vec mapping.Vector, a arrow.Array, lo, n int)

// always makes a fill that cannot fail a column's fill.
func always(f fillFunc) func(vec mapping.Vector, a arrow.Array, lo, n int) error {
	return func(vec mapping.Vector, a arrow.Array, lo, n int) error {
		f(vec, a, lo, n)
		return nil
	}
}

func simple(t mapping.Type) func() mapping.LogicalType {
	return func() mapping.LogicalType { return mapping.CreateLogicalType(t) }
}

// columnOf maps an Arrow field of a Strata file to a DuckDB column.
func columnOf(f arrow.Field) (column, error) {
	c := column{name: f.Name, arrow: f.Type}
	fixed := func(sql string, t mapping.Type, width int) (column, error) {
		c.sql, c.logical = sql, simple(t)
		c.fill = always(func(vec mapping.Vector, a arrow.Array, lo, n int) { copyFixed(vec, a, lo, n, width) })
		return c, nil
	}
	switch t := f.Type.(type) {
	case *arrow.BooleanType:
		c.sql, c.logical, c.fill = "BOOLEAN", simple(mapping.TypeBoolean), always(fillBool)
		return c, nil
	case *arrow.Int8Type:
		return fixed("TINYINT", mapping.TypeTinyInt, 1)
	case *arrow.Int16Type:
		return fixed("SMALLINT", mapping.TypeSmallInt, 2)
	case *arrow.Int32Type:
		return fixed("INTEGER", mapping.TypeInteger, 4)
	case *arrow.Int64Type:
		return fixed("BIGINT", mapping.TypeBigInt, 8)
	case *arrow.Uint8Type:
		return fixed("UTINYINT", mapping.TypeUTinyInt, 1)
	case *arrow.Uint16Type:
		return fixed("USMALLINT", mapping.TypeUSmallInt, 2)
	case *arrow.Uint32Type:
		return fixed("UINTEGER", mapping.TypeUInteger, 4)
	case *arrow.Uint64Type:
		return fixed("UBIGINT", mapping.TypeUBigInt, 8)
	case *arrow.Float32Type:
		return fixed("FLOAT", mapping.TypeFloat, 4)
	case *arrow.Float64Type:
		return fixed("DOUBLE", mapping.TypeDouble, 8)
	case *arrow.Date32Type:
		return fixed("DATE", mapping.TypeDate, 4)
	case *arrow.TimestampType:
		if t.TimeZone != "" {
			// DuckDB's TIMESTAMPTZ is an instant in microseconds.
			c.sql, c.logical = "TIMESTAMPTZ", simple(mapping.TypeTimestampTZ)
			c.fill = always(func(vec mapping.Vector, a arrow.Array, lo, n int) { fillMicros(vec, a, lo, n, t.Unit) })
			return c, nil
		}
		switch t.Unit {
		case arrow.Second:
			return fixed("TIMESTAMP_S", mapping.TypeTimestampS, 8)
		case arrow.Millisecond:
			return fixed("TIMESTAMP_MS", mapping.TypeTimestampMS, 8)
		case arrow.Microsecond:
			return fixed("TIMESTAMP", mapping.TypeTimestamp, 8)
		default:
			return fixed("TIMESTAMP_NS", mapping.TypeTimestampNS, 8)
		}
	case *arrow.Time32Type:
		c.sql, c.logical = "TIME", simple(mapping.TypeTime)
		c.fill = always(func(vec mapping.Vector, a arrow.Array, lo, n int) { fillTime32(vec, a, lo, n, t.Unit) })
		return c, nil
	case *arrow.Time64Type:
		if t.Unit == arrow.Microsecond {
			return fixed("TIME", mapping.TypeTime, 8)
		}
		// DuckDB reads a nanosecond time (Parquet's TIME NANOS) as TIME_NS,
		// which its Go driver cannot return; the scan gives TIME, rounded to
		// the nearest microsecond as DuckDB casts TIME_NS to TIME, so a
		// query over it sees what the same query over the Parquet file
		// with that cast sees.
		c.sql, c.logical = "TIME", simple(mapping.TypeTime)
		c.fill = always(fillTimeNanos)
		return c, nil
	case *arrow.DurationType:
		// DuckDB has no duration type; its INTERVAL holds one in its
		// microseconds part, as DuckDB's own Arrow import does.
		c.sql, c.logical = "INTERVAL", simple(mapping.TypeInterval)
		c.fill = always(func(vec mapping.Vector, a arrow.Array, lo, n int) { fillInterval(vec, a, lo, n, t.Unit) })
		return c, nil
	case *arrow.NullType:
		// A column with no values (pandas' all-None columns): NULL rows
		// of DuckDB's default type for an untyped NULL.
		c.sql, c.logical = "INTEGER", simple(mapping.TypeInteger)
		c.fill = always(func(vec mapping.Vector, a arrow.Array, lo, n int) { fillNull(vec, n) })
		return c, nil
	case *arrow.Decimal128Type:
		if t.Precision < 1 || t.Precision > 38 || t.Scale < 0 || t.Scale > t.Precision {
			return c, fmt.Errorf("column %q: decimal(%d,%d) has no DuckDB type", f.Name, t.Precision, t.Scale)
		}
		w, s := uint8(t.Precision), uint8(t.Scale)
		c.sql = fmt.Sprintf("DECIMAL(%d,%d)", w, s)
		c.logical = func() mapping.LogicalType { return mapping.CreateDecimalType(w, s) }
		c.fill = always(func(vec mapping.Vector, a arrow.Array, lo, n int) { fillDecimal(vec, a, lo, n, int(w)) })
		return c, nil
	case *arrow.StringType:
		c.sql, c.logical, c.fill = "VARCHAR", simple(mapping.TypeVarchar), fillStrings
		return c, nil
	case *arrow.BinaryType:
		c.sql, c.logical, c.fill = "BLOB", simple(mapping.TypeBlob), fillStrings
		return c, nil
	case *arrow.LargeStringType:
		c.sql, c.logical, c.fill = "VARCHAR", simple(mapping.TypeVarchar), fillLargeStrings
		return c, nil
	case *arrow.LargeBinaryType:
		c.sql, c.logical, c.fill = "BLOB", simple(mapping.TypeBlob), fillLargeStrings
		return c, nil
	case *arrow.StructType:
		return structColumn(c, t)
	case *arrow.ListType, *arrow.MapType, *arrow.LargeListType, *arrow.FixedSizeListType:
		c.sql, c.logical, c.fill, c.nested = "VARCHAR", simple(mapping.TypeVarchar), fillStrings, true
		return c, nil
	}
	return c, fmt.Errorf("column %q: type %s has no DuckDB mapping", f.Name, f.Type)
}

// duckNames returns the names DuckDB gets for columns (or the fields of a
// struct) named names. DuckDB tells names apart without case, and refuses a
// table whose names differ only so ("x" and "X", which Strata stores);
// DuckDB's Parquet reader renames a later such name to name_1 (or name_2,
// and so on, past names already taken), and so does the scan, so that such a
// file reads, with the names it would have as Parquet.
func duckNames(names []string) []string {
	out := make([]string, len(names))
	used := map[string]int{} // by lowerASCII name: how many took it (the next suffix)
	for i, n := range names {
		low := lowerASCII(n)
		if used[low] == 0 {
			used[low] = 1
			out[i] = n
			continue
		}
		for {
			alt := n + "_" + strconv.Itoa(used[low])
			if l := lowerASCII(alt); used[l] == 0 {
				used[l] = 1
				out[i] = alt
				break
			}
			used[low]++
		}
	}
	return out
}

// lowerASCII lower-cases the ASCII letters of s, as DuckDB compares
// identifiers (other letters keep their case).
func lowerASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// fieldNames returns the names of fields.
func fieldNames(fields []arrow.Field) []string {
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = f.Name
	}
	return names
}

// structColumn maps a struct to a DuckDB STRUCT of its fields' types, so
// that SQL reaches its fields (properties.mag); lists and maps inside it
// are JSON text as at the top level (nested is then set: the scan converts
// them, see duckArray).
func structColumn(c column, t *arrow.StructType) (column, error) {
	kids := make([]column, t.NumFields())
	names := duckNames(fieldNames(t.Fields()))
	sqls := make([]string, t.NumFields())
	for k, f := range t.Fields() {
		kc, err := columnOf(f)
		if err != nil {
			return c, fmt.Errorf("column %q: %w", c.name, err)
		}
		kids[k] = kc
		sqls[k] = quoteIdent(names[k]) + " " + kc.sql
		c.nested = c.nested || kc.nested
	}
	if len(kids) == 0 {
		// DuckDB has no struct without fields: an empty one is its JSON
		// text, "{}" or NULL.
		c.sql, c.logical, c.fill, c.nested = "VARCHAR", simple(mapping.TypeVarchar), fillStrings, true
		return c, nil
	}
	c.sql = "STRUCT(" + strings.Join(sqls, ", ") + ")"
	c.logical = func() mapping.LogicalType {
		types := make([]mapping.LogicalType, len(kids))
		for k := range kids {
			types[k] = kids[k].logical()
		}
		lt := mapping.CreateStructType(types, names)
		for k := range types {
			mapping.DestroyLogicalType(&types[k])
		}
		return lt
	}
	c.fill = func(vec mapping.Vector, a arrow.Array, lo, n int) error {
		s := a.(*array.Struct)
		for k := range kids {
			cv := mapping.StructVectorGetChild(vec, mapping.IdxT(k))
			ca := s.Field(k)
			// a field of a null struct is null, whatever the field holds
			fillValidityUnder(cv, ca, s, lo, n)
			if err := kids[k].fill(cv, ca, lo, n); err != nil {
				return fmt.Errorf("field %s: %w", quoteIdent(t.Field(k).Name), err)
			}
		}
		return nil
	}
	return c, nil
}

// quoteIdent quotes a name for DuckDB SQL (types in messages and tests).
func quoteIdent(name string) string {
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

// vectorBytes returns the data of vec as n*width bytes.
func vectorBytes(vec mapping.Vector, n, width int) []byte {
	return unsafe.Slice((*byte)(mapping.VectorGetData(vec)), n*width)
}

// copyFixed copies fixed-width values, which DuckDB stores as Arrow does.
func copyFixed(vec mapping.Vector, a arrow.Array, lo, n, width int) {
	d := a.Data()
	buf := d.Buffers()[1].Bytes()
	off := (d.Offset() + lo) * width
	copy(vectorBytes(vec, n, width), buf[off:off+n*width])
}

func fillBool(vec mapping.Vector, a arrow.Array, lo, n int) {
	b := a.(interface{ Value(int) bool })
	out := vectorBytes(vec, n, 1)
	for i := range out {
		if b.Value(lo + i) {
			out[i] = 1
		} else {
			out[i] = 0
		}
	}
}

// fillMicros converts timestamps of any unit to microseconds
// (nanoseconds floored).
func fillMicros(vec mapping.Vector, a arrow.Array, lo, n int, unit arrow.TimeUnit) {
	d := a.Data()
	in := unsafe.Slice((*int64)(unsafe.Pointer(unsafe.SliceData(d.Buffers()[1].Bytes()))), d.Offset()+lo+n)[d.Offset()+lo:]
	out := unsafe.Slice((*int64)(mapping.VectorGetData(vec)), n)
	switch unit {
	case arrow.Second:
		for i, v := range in {
			out[i] = v * 1e6
		}
	case arrow.Millisecond:
		for i, v := range in {
			out[i] = v * 1e3
		}
	case arrow.Microsecond:
		copy(out, in)
	default:
		for i, v := range in {
			out[i] = floorMicros(v)
		}
	}
}

// fillTime32 widens times of day in seconds or milliseconds to DuckDB's
// microseconds.
func fillTime32(vec mapping.Vector, a arrow.Array, lo, n int, unit arrow.TimeUnit) {
	d := a.Data()
	in := unsafe.Slice((*int32)(unsafe.Pointer(unsafe.SliceData(d.Buffers()[1].Bytes()))), d.Offset()+lo+n)[d.Offset()+lo:]
	out := unsafe.Slice((*int64)(mapping.VectorGetData(vec)), n)
	per := int64(1e3)
	if unit == arrow.Second {
		per = 1e6
	}
	for i, v := range in {
		out[i] = int64(v) * per
	}
}

// fillInterval stores durations as DuckDB intervals of no months and no
// days: microseconds (nanoseconds round toward negative infinity).
func fillInterval(vec mapping.Vector, a arrow.Array, lo, n int, unit arrow.TimeUnit) {
	d := a.Data()
	in := unsafe.Slice((*int64)(unsafe.Pointer(unsafe.SliceData(d.Buffers()[1].Bytes()))), d.Offset()+lo+n)[d.Offset()+lo:]
	type interval struct {
		months, days int32
		micros       int64
	}
	out := unsafe.Slice((*interval)(mapping.VectorGetData(vec)), n)
	if unit == arrow.Nanosecond {
		for i, v := range in {
			out[i] = interval{micros: floorMicros(v)}
		}
		return
	}
	mul := map[arrow.TimeUnit]int64{arrow.Second: 1e6, arrow.Millisecond: 1e3, arrow.Microsecond: 1}[unit]
	for i, v := range in {
		out[i] = interval{micros: v * mul}
	}
}

// floorMicros converts nanoseconds to microseconds, rounding toward
// negative infinity (so instants before 1970 round down).
// fillTimeNanos rounds times of day in nanoseconds to DuckDB's
// microseconds, halves up (23:59:59.9999995 becomes 24:00:00, which
// DuckDB's TIME holds).
func fillTimeNanos(vec mapping.Vector, a arrow.Array, lo, n int) {
	d := a.Data()
	in := unsafe.Slice((*int64)(unsafe.Pointer(unsafe.SliceData(d.Buffers()[1].Bytes()))), d.Offset()+lo+n)[d.Offset()+lo:]
	out := unsafe.Slice((*int64)(mapping.VectorGetData(vec)), n)
	for i, v := range in {
		out[i] = roundMicros(v)
	}
}

// roundMicros is ns in microseconds, rounded to the nearest, halves up.
func roundMicros(ns int64) int64 {
	q := floorMicros(ns)
	if ns-q*1e3 >= 500 {
		q++
	}
	return q
}

func floorMicros(ns int64) int64 {
	q := ns / 1e3
	if ns%1e3 < 0 {
		q--
	}
	return q
}

// fillDecimal narrows Arrow's 128-bit decimals to DuckDB's storage for the
// width: int16 up to 4 digits, int32 up to 9, int64 up to 18, else 128-bit
// (DuckDB's hugeint has Arrow's layout: low 64 bits, then high 64 bits).
func fillDecimal(vec mapping.Vector, a arrow.Array, lo, n, width int) {
	d := a.Data()
	raw := d.Buffers()[1].Bytes()
	in := unsafe.Slice((*[2]uint64)(unsafe.Pointer(unsafe.SliceData(raw))), len(raw)/16)[d.Offset()+lo : d.Offset()+lo+n]
	p := mapping.VectorGetData(vec)
	switch {
	case width <= 4:
		out := unsafe.Slice((*int16)(p), n)
		for i, v := range in {
			out[i] = int16(v[0])
		}
	case width <= 9:
		out := unsafe.Slice((*int32)(p), n)
		for i, v := range in {
			out[i] = int32(v[0])
		}
	case width <= 18:
		out := unsafe.Slice((*int64)(p), n)
		for i, v := range in {
			out[i] = int64(v[0])
		}
	default:
		copy(unsafe.Slice((*[2]uint64)(p), n), in)
	}
}
