package interop

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// ExtendedYearText renders value i of a timestamp or date array whose
// year is outside 0000-9999 with an ISO 8601 expanded year: a sign and at
// least four digits, +290000-01-01T00:00:00 or -0100-03-01, the rest as
// the value's text always is (sep between the date and the time of day:
// 'T' in table and JSON output, ' ' in CSV). arrow-go prints such a
// timestamp as its raw integer, which reads as a number of unknown unit,
// and such a date with a bare year of five digits or more; ok is false for
// those within 0000-9999 (arrow-go's text is then the same as this),
// arrays of other types, and timestamps in seconds past ±146 billion
// years, which Go's time cannot represent (they stay raw integers).
func ExtendedYearText(a arrow.Array, i int, sep byte) (s string, ok bool) {
	t, ok := calendarTime(a, i)
	if !ok || t.Year() >= 0 && t.Year() <= 9999 {
		return "", false
	}
	return calendarText(a, t, sep), true
}

// calendarTime is value i of a timestamp or date array as a time (in the
// timestamp's zone); ok is false for arrays of other types and values
// time.Time cannot hold.
func calendarTime(a arrow.Array, i int) (t time.Time, ok bool) {
	switch v := a.(type) {
	case *array.Timestamp:
		typ := v.DataType().(*arrow.TimestampType)
		x := v.Value(i)
		if typ.Unit == arrow.Second && (x > math.MaxInt64/2 || x < math.MinInt64/2) {
			// (time.Unix adds the seconds from year 1 to 1970, which
			// overflows near the ends of int64)
			return time.Time{}, false
		}
		toTime, err := typ.GetToTimeFunc()
		if err != nil {
			return time.Time{}, false
		}
		return toTime(x), true
	case *array.Date32:
		return v.Value(i).ToTime(), true
	case *array.Date64:
		return v.Value(i).ToTime(), true
	}
	return time.Time{}, false
}

// calendarText is t, a value of a's type, as ExtendedYearText writes it:
// for a year within 0000-9999 the text arrow-go gives (its CSV writer's
// with sep ' ', ValueStr's with 'T').
func calendarText(a arrow.Array, t time.Time, sep byte) string {
	layout := "-01-02"
	if typ, ok := a.DataType().(*arrow.TimestampType); ok {
		layout += string(sep) + "15:04:05.999999999"
		if typ.TimeZone != "" {
			layout += "Z07:00"
			if _, offset := t.Zone(); offset%60 != 0 {
				layout += ":00"
			}
		}
	}
	return yearText(t.Year()) + t.Format(layout)
}

// yearText is an ISO 8601 year: four digits within 0000-9999, else a sign
// and at least four digits (+10000, -0001 for 2 BC).
func yearText(y int) string {
	switch {
	case y < 0:
		return fmt.Sprintf("-%04d", -y)
	case y > 9999:
		return "+" + strconv.Itoa(y)
	}
	return fmt.Sprintf("%04d", y)
}

// Bounds of the years 0000-9999 in seconds and days since 1970, and a
// margin of two days within them, past which a timestamp's year may be
// outside them in some zone.
const (
	year0Seconds     = -62167219200 // 0000-01-01T00:00:00Z
	year10000Seconds = 253402300800 // 10000-01-01T00:00:00Z
	year0Days        = -719528
	year10000Days    = 2932897
	zoneMargin       = 2 * 86400
)

// mayBeFarYear reports whether value i of a timestamp or date array may
// have a year outside 0000-9999 (ExtendedYearText says whether it has),
// by comparing integers; timestamps in nanoseconds never do.
func mayBeFarYear(a arrow.Array, i int) bool {
	switch v := a.(type) {
	case *array.Timestamp:
		var per int64
		switch v.DataType().(*arrow.TimestampType).Unit {
		case arrow.Second:
			per = 1
		case arrow.Millisecond:
			per = 1e3
		case arrow.Microsecond:
			per = 1e6
		default:
			return false
		}
		x := int64(v.Value(i))
		return x < (year0Seconds+zoneMargin)*per || x >= (year10000Seconds-zoneMargin)*per
	case *array.Date32:
		x := int64(v.Value(i))
		return x < year0Days || x >= year10000Days
	case *array.Date64:
		x := int64(v.Value(i))
		return x < year0Days*86400000 || x >= year10000Days*86400000
	}
	return false
}

// csvFarYears returns rec with each timestamp or date column holding a
// year outside 0000-9999 replaced by a string column of every value's
// text (ExtendedYearText's for those, arrow-go's CSV writer's for the
// others), and its schema; arrow-go's writer would write such a timestamp
// as its raw integer. It returns rec itself, retained, when no column
// holds one. The caller releases the result.
func csvFarYears(rec arrow.Record, sch *arrow.Schema, mem memory.Allocator) (arrow.Record, *arrow.Schema) {
	var cols []arrow.Array
	var fields []arrow.Field
	for c, a := range rec.Columns() {
		switch a.(type) {
		case *array.Timestamp, *array.Date32, *array.Date64:
		default:
			continue
		}
		far := false
		for i := 0; i < a.Len() && !far; i++ {
			if a.IsValid(i) && mayBeFarYear(a, i) {
				_, far = ExtendedYearText(a, i, ' ')
			}
		}
		if !far {
			continue
		}
		if cols == nil {
			cols = append([]arrow.Array(nil), rec.Columns()...)
			fields = append([]arrow.Field(nil), sch.Fields()...)
		}
		b := array.NewStringBuilder(mem)
		b.Reserve(a.Len())
		for i := range a.Len() {
			t, ok := calendarTime(a, i)
			switch {
			case a.IsNull(i):
				b.AppendNull()
			case !ok:
				b.Append(a.ValueStr(i)) // (the raw integer: see calendarTime)
			default:
				b.Append(calendarText(a, t, ' '))
			}
		}
		cols[c] = b.NewArray()
		b.Release()
		defer cols[c].Release()
		f := fields[c]
		fields[c] = arrow.Field{Name: f.Name, Type: arrow.BinaryTypes.String, Nullable: f.Nullable, Metadata: f.Metadata}
	}
	if cols == nil {
		rec.Retain()
		return rec, sch
	}
	md := sch.Metadata()
	out := arrow.NewSchema(fields, &md)
	return array.NewRecord(out, cols, rec.NumRows()), out
}
