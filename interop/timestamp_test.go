package interop

import (
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// timestampTypes are the types the timestamp tests read text as: every
// unit, without a zone, in UTC and in a zone with daylight saving.
var timestampTypes = func() []*arrow.TimestampType {
	var ts []*arrow.TimestampType
	for _, u := range []arrow.TimeUnit{arrow.Second, arrow.Millisecond, arrow.Microsecond, arrow.Nanosecond} {
		for _, z := range []string{"", "UTC", "America/New_York"} {
			ts = append(ts, &arrow.TimestampType{Unit: u, TimeZone: z})
		}
	}
	return ts
}()

// checkTimestamp compares parseTimestamp with arrow-go's TimestampBuilder,
// which arrow-go's CSV reader parses timestamps with: the same value, or
// an error from both.
func checkTimestamp(t *testing.T, s string) {
	t.Helper()
	for _, tt := range timestampTypes {
		loc, err := tt.GetZone()
		if err != nil {
			t.Fatal(err)
		}
		got, err := parseTimestamp(s, tt, loc)
		b := array.NewTimestampBuilder(memory.DefaultAllocator, tt)
		wantErr := b.AppendValueFromString(s)
		a := b.NewTimestampArray()
		b.Release()
		var want arrow.Timestamp
		if wantErr == nil {
			want = a.Value(0)
		}
		a.Release()
		if (err != nil) != (wantErr != nil) || got != want {
			t.Errorf("%q as %s: %v, %v; arrow-go gives %v, %v", s, tt, got, err, want, wantErr)
		}
	}
}

// TestParseTimestamp checks the timestamp fast path against arrow-go's
// parser: dates and times across the four-digit years (leap days, month
// ends, the edges of a nanosecond count), fractions of every length,
// the zone forms, and text that is none of these.
func TestParseTimestamp(t *testing.T) {
	for _, y := range []int{0, 1, 1677, 1678, 1969, 1970, 2000, 2024, 2100, 2261, 2262, 9999} {
		for _, md := range []string{"01-01", "02-28", "02-29", "02-30", "03-01", "04-31", "12-31", "13-01", "00-10", "01-00"} {
			date := fmt.Sprintf("%04d-%s", y, md)
			checkTimestamp(t, date)
			for _, tm := range []string{"00:00:00", "23:59:59", "24:00:00", "12:60:00", "12:00:60", "09:05:07"} {
				for _, sep := range []string{" ", "T"} {
					v := date + sep + tm
					checkTimestamp(t, v)
					checkTimestamp(t, v+"Z")
					checkTimestamp(t, v+"+02:00")
				}
			}
		}
	}
	for _, frac := range []string{".", ".1", ".12", ".123", ".1234", ".12345", ".123456", ".1234567", ".12345678", ".123456789", ".1234567890", ".12a"} {
		checkTimestamp(t, "2024-03-10 02:30:00"+frac)
		checkTimestamp(t, "2024-03-10T02:30:00"+frac+"Z")
	}
	for _, s := range []string{"", "x", "2024", "1700000000", "-5", "2024-01-01Z", "2024-01-01 10", "2024-01-01 10:30",
		"2024-01-01 10Z", "2024-01-01t10:00:00", "2024-01-01 10:00:00-0500", "2024-01-01 10:00:00+05", "2024-01-01 10:00:00+05:30:15",
		"2024-01-01 1:00:00", "2024-01-01  10:00:00", " 2024-01-01", "2024-1-01 10:00:00", "１２３４-01-01"} {
		checkTimestamp(t, s)
	}
}

// FuzzParseTimestamp checks the timestamp fast path against arrow-go's
// parser on any text.
func FuzzParseTimestamp(f *testing.F) {
	for _, s := range []string{"2024-02-29 12:00:00", "1970-01-01T00:00:00.123456Z", "2262-04-11 23:47:16.854775807", "x", "123"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkTimestamp(t, s) })
}
