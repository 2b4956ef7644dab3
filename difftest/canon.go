package difftest

import (
	"encoding/hex"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/duckdb/duckdb-go/v2"
)

// Values from both systems are compared in one canonical text form, driven
// by the Arrow type of the column: integers in decimal, floats in their
// shortest exact form (every NaN alike, -0 apart from +0), strings quoted,
// binary in hex, dates as days and timestamps as seconds.nanoseconds since
// the epoch, decimals as their unscaled integer, structs, lists and maps
// element by element, map entries as a set.

const nullText = "NULL"

// canonArrow renders value i of a (of Arrow field f).
func canonArrow(f arrow.Field, a arrow.Array, i int) string {
	if a.IsNull(i) {
		return nullText
	}
	switch c := a.(type) {
	case *array.Boolean:
		return strconv.FormatBool(c.Value(i))
	case *array.Int8:
		return strconv.FormatInt(int64(c.Value(i)), 10)
	case *array.Int16:
		return strconv.FormatInt(int64(c.Value(i)), 10)
	case *array.Int32:
		return strconv.FormatInt(int64(c.Value(i)), 10)
	case *array.Int64:
		return strconv.FormatInt(c.Value(i), 10)
	case *array.Uint8:
		return strconv.FormatUint(uint64(c.Value(i)), 10)
	case *array.Uint16:
		return strconv.FormatUint(uint64(c.Value(i)), 10)
	case *array.Uint32:
		return strconv.FormatUint(uint64(c.Value(i)), 10)
	case *array.Uint64:
		return strconv.FormatUint(c.Value(i), 10)
	case *array.Float32:
		return canonFloat(float64(c.Value(i)), 32)
	case *array.Float64:
		return canonFloat(c.Value(i), 64)
	case *array.String:
		return strconv.Quote(c.Value(i))
	case *array.Binary:
		return "x" + hex.EncodeToString(c.Value(i))
	case *array.Date32:
		return strconv.FormatInt(int64(c.Value(i)), 10)
	case *array.Timestamp:
		return canonInstant(tsInstant(c.Value(i), c.DataType().(*arrow.TimestampType).Unit))
	case *array.Time32:
		return canonMicros(int64(c.Value(i)), c.DataType().(*arrow.Time32Type).Unit)
	case *array.Time64:
		return canonMicros(int64(c.Value(i)), c.DataType().(*arrow.Time64Type).Unit)
	case *array.Decimal128:
		return c.Value(i).BigInt().String()
	case *array.Struct:
		st := f.Type.(*arrow.StructType)
		parts := make([]string, c.NumField())
		for k := range parts {
			parts[k] = canonArrow(st.Field(k), c.Field(k), i)
		}
		return "{" + strings.Join(parts, ",") + "}"
	case *array.Map:
		mt := f.Type.(*arrow.MapType)
		lo, hi := c.ValueOffsets(i)
		entries := make([]string, 0, hi-lo)
		for k := lo; k < hi; k++ {
			entries = append(entries, canonArrow(mt.KeyField(), c.Keys(), int(k))+"="+canonArrow(mt.ItemField(), c.Items(), int(k)))
		}
		return canonMap(entries)
	case *array.List:
		lt := f.Type.(*arrow.ListType)
		lo, hi := c.ValueOffsets(i)
		parts := make([]string, 0, hi-lo)
		for k := lo; k < hi; k++ {
			parts = append(parts, canonArrow(lt.ElemField(), c.ListValues(), int(k)))
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
	return fmt.Sprintf("<unsupported %s>", a.DataType())
}

// canonMap renders map entries as a set: FlatMaps do not keep the order of
// entries, and DuckDB returns the entries of a Parquet map sorted by key.
func canonMap(entries []string) string {
	slices.Sort(entries)
	return "map{" + strings.Join(entries, ",") + "}"
}

func canonFloat(v float64, bits int) string {
	switch {
	case math.IsNaN(v):
		return "NaN"
	case v == 0 && math.Signbit(v):
		return "-0"
	}
	return strconv.FormatFloat(v, 'g', -1, bits)
}

// instant is a point in time as whole seconds and nanoseconds (0..1e9).
type instant struct{ sec, nsec int64 }

func canonInstant(t instant) string { return fmt.Sprintf("%d.%09d", t.sec, t.nsec) }

func tsInstant(v arrow.Timestamp, u arrow.TimeUnit) instant {
	per := int64(map[arrow.TimeUnit]int64{arrow.Second: 1, arrow.Millisecond: 1e3, arrow.Microsecond: 1e6, arrow.Nanosecond: 1e9}[u])
	sec, rem := int64(v)/per, int64(v)%per
	if rem < 0 {
		sec, rem = sec-1, rem+per
	}
	return instant{sec, rem * (1e9 / per)}
}

// canonMicros renders a time of day in unit u as microseconds since
// midnight (DuckDB's TIME).
func canonMicros(v int64, u arrow.TimeUnit) string {
	switch u {
	case arrow.Second:
		v *= 1e6
	case arrow.Millisecond:
		v *= 1e3
	case arrow.Nanosecond:
		v /= 1e3
	}
	return strconv.FormatInt(v, 10)
}

func timeInstant(t time.Time) instant { return instant{t.Unix(), int64(t.Nanosecond())} }

// canonDuck renders a value DuckDB returned through database/sql for a
// column of Arrow field f.
func canonDuck(f arrow.Field, v any) string {
	if v == nil {
		return nullText
	}
	switch f.Type.ID() {
	case arrow.STRUCT:
		st := f.Type.(*arrow.StructType)
		m, ok := v.(map[string]any)
		if !ok {
			return fmt.Sprintf("<struct %T>", v)
		}
		parts := make([]string, st.NumFields())
		for k := range parts {
			parts[k] = canonDuck(st.Field(k), m[st.Field(k).Name])
		}
		return "{" + strings.Join(parts, ",") + "}"
	case arrow.LIST:
		lt := f.Type.(*arrow.ListType)
		l, ok := v.([]any)
		if !ok {
			return fmt.Sprintf("<list %T>", v)
		}
		parts := make([]string, len(l))
		for k, x := range l {
			parts[k] = canonDuck(lt.ElemField(), x)
		}
		return "[" + strings.Join(parts, ",") + "]"
	case arrow.MAP:
		mt := f.Type.(*arrow.MapType)
		m, ok := v.(duckdb.OrderedMap)
		if !ok {
			return fmt.Sprintf("<map %T>", v)
		}
		keys, vals := m.Keys(), m.Values()
		entries := make([]string, len(keys))
		for k := range keys {
			entries[k] = canonDuck(mt.KeyField(), keys[k]) + "=" + canonDuck(mt.ItemField(), vals[k])
		}
		return canonMap(entries)
	case arrow.DATE32:
		t, ok := v.(time.Time)
		if !ok {
			return fmt.Sprintf("<date %T>", v)
		}
		return strconv.FormatInt(floorDiv(t.Unix(), 86400), 10)
	case arrow.TIMESTAMP:
		t, ok := v.(time.Time)
		if !ok {
			return fmt.Sprintf("<timestamp %T>", v)
		}
		return canonInstant(timeInstant(t))
	case arrow.TIME32, arrow.TIME64:
		t, ok := v.(time.Time)
		if !ok {
			return fmt.Sprintf("<time %T>", v)
		}
		return strconv.FormatInt(int64(t.Hour())*3600e6+int64(t.Minute())*60e6+int64(t.Second())*1e6+int64(t.Nanosecond())/1e3, 10)
	case arrow.DECIMAL128:
		d, ok := v.(duckdb.Decimal)
		if !ok {
			return fmt.Sprintf("<decimal %T>", v)
		}
		return rescale(d.Value, int(d.Scale), int(f.Type.(*arrow.Decimal128Type).Scale)).String()
	case arrow.FLOAT32:
		if x, ok := v.(float32); ok {
			return canonFloat(float64(x), 32)
		}
	case arrow.FLOAT64:
		if x, ok := v.(float64); ok {
			return canonFloat(x, 64)
		}
	case arrow.STRING:
		if s, ok := v.(string); ok {
			return strconv.Quote(s)
		}
	case arrow.BINARY:
		if b, ok := v.([]byte); ok {
			return "x" + hex.EncodeToString(b)
		}
	}
	return canonScalar(v)
}

// canonScalar renders a bool or an integer of any Go type.
func canonScalar(v any) string {
	switch x := v.(type) {
	case bool:
		return strconv.FormatBool(x)
	case int8, int16, int32, int64, int, uint8, uint16, uint32, uint64:
		return fmt.Sprint(x)
	case *big.Int:
		return x.String()
	}
	return fmt.Sprintf("<%T %v>", v, v)
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// rescale converts an unscaled decimal from one scale to another.
func rescale(v *big.Int, from, to int) *big.Int {
	if from == to {
		return v
	}
	p := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(abs(to-from))), nil)
	if to > from {
		return new(big.Int).Mul(v, p)
	}
	return new(big.Int).Quo(v, p)
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
