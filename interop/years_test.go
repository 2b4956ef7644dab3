package interop

import (
	"bytes"
	"math"
	"path/filepath"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestExtendedYearText checks the text of timestamps and dates across the
// years 0000 and 9999, in each unit and in zones whose local year differs
// from UTC's: a signed year outside them, nothing (arrow-go's text) within,
// and the raw integer for seconds Go's time cannot hold.
func TestExtendedYearText(t *testing.T) {
	mem := memory.DefaultAllocator
	ts := func(unit arrow.TimeUnit, zone string, v int64) arrow.Array {
		b := array.NewTimestampBuilder(mem, &arrow.TimestampType{Unit: unit, TimeZone: zone})
		defer b.Release()
		b.Append(arrow.Timestamp(v))
		return b.NewArray()
	}
	date32 := func(v int32) arrow.Array {
		b := array.NewDate32Builder(mem)
		defer b.Release()
		b.Append(arrow.Date32(v))
		return b.NewArray()
	}
	date64 := func(v int64) arrow.Array {
		b := array.NewDate64Builder(mem)
		defer b.Release()
		b.Append(arrow.Date64(v))
		return b.NewArray()
	}
	end := time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)
	start := time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC)
	cases := []struct {
		a    arrow.Array
		want string // "": ok false
	}{
		{ts(arrow.Second, "", end.Unix()), "+10000-01-01T00:00:00"},
		{ts(arrow.Second, "", end.Unix()-1), ""},
		{ts(arrow.Millisecond, "", end.UnixMilli()+1), "+10000-01-01T00:00:00.001"},
		{ts(arrow.Microsecond, "", start.UnixMicro()-1), "-0001-12-31T23:59:59.999999"},
		{ts(arrow.Microsecond, "", start.UnixMicro()), ""},
		{ts(arrow.Nanosecond, "", math.MinInt64), ""},
		// local years: 10000 in +02:00, 9999 in New York
		{ts(arrow.Second, "+02:00", end.Unix()-3600), "+10000-01-01T01:00:00+02:00"},
		{ts(arrow.Second, "America/New_York", end.Unix()+3600), ""},
		{ts(arrow.Second, "UTC", math.MaxInt64), ""},
		{ts(arrow.Second, "", math.MinInt64/4), "-73069254187-04-08T20:07:28"},
		{date32(math.MaxInt32), "+5881580-07-11"},
		{date32(-719529), "-0001-12-31"},
		{date32(-719528), ""},
		{date64(end.UnixMilli()), "+10000-01-01"},
	}
	for _, c := range cases {
		got, ok := ExtendedYearText(c.a, 0, 'T')
		if !ok {
			got = ""
		}
		if got != c.want {
			t.Errorf("%s %s: got %q, want %q", c.a.DataType(), c.a.ValueStr(0), got, c.want)
		}
		c.a.Release()
	}
}

// TestCSVFarYears checks that CSV export, serial and parallel, and
// NewCSVWriter write a timestamp or date column holding a year past 9999
// as JSON output and the table do (a signed year, a space before the
// time), its other values as before, and that JSON lines export writes
// the same with a T: not arrow-go's raw integer.
func TestCSVFarYears(t *testing.T) {
	mem := memory.DefaultAllocator
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "+01:00"}, Nullable: true},
		{Name: "d", Type: arrow.FixedWidthTypes.Date64, Nullable: true},
		{Name: "near", Type: &arrow.TimestampType{Unit: arrow.Second}, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(mem, sch)
	defer b.Release()
	far := time.Date(290000, 6, 1, 12, 0, 0, 0, time.UTC)
	now := time.Date(2024, 6, 1, 12, 0, 0, 0, time.UTC)
	b.Field(0).(*array.TimestampBuilder).AppendValues([]arrow.Timestamp{arrow.Timestamp(far.UnixMilli()), arrow.Timestamp(now.UnixMilli()), 0}, []bool{true, true, false})
	b.Field(1).(*array.Date64Builder).AppendValues([]arrow.Date64{arrow.Date64FromTime(now), arrow.Date64FromTime(far), 0}, []bool{true, true, false})
	b.Field(2).(*array.TimestampBuilder).AppendValues([]arrow.Timestamp{arrow.Timestamp(now.Unix()), 0, 0}, []bool{true, true, false})
	rec := b.NewRecord()
	defer rec.Release()
	const want = "ts,d,near\n" +
		"+290000-06-01 13:00:00+01:00,2024-06-01,2024-06-01 12:00:00\n" +
		"2024-06-01 13:00:00+01:00,+290000-06-01,1970-01-01 00:00:00\n" +
		",,\n"
	var buf bytes.Buffer
	w := NewCSVWriter(&buf, sch, ',')
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if buf.String() != want {
		t.Errorf("NewCSVWriter wrote\n%s\nwant\n%s", buf.String(), want)
	}
	for _, threads := range []int{1, 2} {
		path := filepath.Join(t.TempDir(), "t.csv")
		s, err := Create(path, sch, WriteOptions{Threads: threads})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Write(rec); err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if got := mustRead(t, path); got != want {
			t.Errorf("threads %d: export wrote\n%s\nwant\n%s", threads, got, want)
		}
	}
	buf.Reset()
	if err := WriteJSONRows(&buf, rec); err != nil {
		t.Fatal(err)
	}
	const wantJSON = `{"ts":"+290000-06-01T13:00:00+01:00","d":"2024-06-01","near":"2024-06-01T12:00:00"}` + "\n" +
		`{"ts":"2024-06-01T13:00:00+01:00","d":"+290000-06-01","near":"1970-01-01T00:00:00"}` + "\n" +
		`{"ts":null,"d":null,"near":null}` + "\n"
	if buf.String() != wantJSON {
		t.Errorf("JSON lines:\n%s\nwant\n%s", buf.String(), wantJSON)
	}
}
