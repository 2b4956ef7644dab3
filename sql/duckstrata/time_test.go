package duckstrata_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata/sql/duckstrata"
)

// TestTimeAndDuration: times of day of every unit reach DuckDB as TIME
// (nanoseconds rounded to the nearest microsecond, as DuckDB casts its
// TIME_NS) and durations as INTERVAL, nulls included, and DuckDB filters
// on them (comparisons on times are pushed into the scan, see
// TestPushdownRandom); a column of Arrow's null type is an INTEGER column
// of NULLs.
func TestTimeAndDuration(t *testing.T) {
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int32},
		{Name: "t_s", Type: arrow.FixedWidthTypes.Time32s, Nullable: true},
		{Name: "t_ms", Type: arrow.FixedWidthTypes.Time32ms},
		{Name: "t_us", Type: arrow.FixedWidthTypes.Time64us},
		{Name: "t_ns", Type: arrow.FixedWidthTypes.Time64ns},
		{Name: "d_s", Type: arrow.FixedWidthTypes.Duration_s, Nullable: true},
		{Name: "d_ns", Type: arrow.FixedWidthTypes.Duration_ns},
		{Name: "none", Type: arrow.Null, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	defer b.Release()
	for i := range 3000 {
		sec := int64(i) * 28 // 00:00:00 .. 23:19:32
		b.Field(0).(*array.Int32Builder).Append(int32(i))
		if i%10 == 9 {
			b.Field(1).AppendNull()
			b.Field(5).AppendNull()
		} else {
			b.Field(1).(*array.Time32Builder).Append(arrow.Time32(sec))
			b.Field(5).(*array.DurationBuilder).Append(arrow.Duration(sec - 3600))
		}
		b.Field(2).(*array.Time32Builder).Append(arrow.Time32(sec*1000 + 5))
		b.Field(3).(*array.Time64Builder).Append(arrow.Time64(sec*1e6 + 7))
		b.Field(4).(*array.Time64Builder).Append(arrow.Time64(sec*1e9 + 1999))
		b.Field(6).(*array.DurationBuilder).Append(arrow.Duration(-int64(i)*1e9 - 1500))
		b.Field(7).AppendNull()
	}
	rec := b.NewRecord()
	defer rec.Release()
	p := writeRecord(t, filepath.Join(t.TempDir(), "t.strata"), rec)
	_, conn := openDB(t)
	got := rowsOf(t, conn, "SELECT id, t_s::VARCHAR, t_ms::VARCHAR, t_us::VARCHAR, t_ns::VARCHAR, d_s::VARCHAR, d_ns::VARCHAR FROM "+quoted(p)+" WHERE id IN (0, 9, 1000) ORDER BY id")
	want := [][]string{
		{"0", "00:00:00", "00:00:00.005", "00:00:00.000007", "00:00:00.000002", "-01:00:00", "-00:00:00.000002"},
		{"9", "NULL", "00:04:12.005", "00:04:12.000007", "00:04:12.000002", "NULL", "-00:00:09.000002"},
		{"1000", "07:46:40", "07:46:40.005", "07:46:40.000007", "07:46:40.000002", "06:46:40", "-00:16:40.000002"},
	}
	sameRows(t, "times and durations", got, want)
	types := rowsOf(t, conn, "SELECT column_type FROM (DESCRIBE SELECT * FROM "+quoted(p)+")")
	for i, w := range []string{"INTEGER", "TIME", "TIME", "TIME", "TIME", "INTERVAL", "INTERVAL", "INTEGER"} {
		if types[i][0] != w {
			t.Errorf("column %d: %s, want %s", i, types[i][0], w)
		}
	}
	if n := rowsOf(t, conn, "SELECT count(*) FROM "+quoted(p)+" WHERE t_s BETWEEN TIME '01:00:00' AND TIME '02:00:00'"); n[0][0] != "116" {
		t.Errorf("count in 01:00-02:00 = %v, want 116", n)
	}
	if n := rowsOf(t, conn, "SELECT count(*) FROM "+quoted(p)+" WHERE d_s > INTERVAL 1 HOUR"); n[0][0] != "2467" {
		t.Errorf("durations over an hour = %v, want 2467", n)
	}
	// A column of Arrow's null type is NULL in every row.
	if n := rowsOf(t, conn, "SELECT count(none), count(*) FROM "+quoted(p)); n[0][0] != "0" || n[0][1] != "3000" {
		t.Errorf("count(none), count(*) = %v, want 0, 3000", n)
	}
	// Without WithPushAll, a time comparison is pushed when the file's
	// bounds (00:00:00.005 to 23:19:32.005) say it keeps few rows, and
	// left to DuckDB when it keeps most; either way the count is DuckDB's.
	for _, c := range []struct {
		where, filter, count string
	}{
		{"t_ms < TIME '01:00:00'", "t_ms < '01:00:00'", "129"},
		{"t_us BETWEEN '06:00:00' AND TIME '06:30:00'", "t_us BETWEEN '06:00:00' AND '06:30:00'", "64"},
		{"t_ms > TIME '01:00:00'", "", "2871"},
		{"t_ns < TIME '01:00:00'", "", "129"}, // nanoseconds: never pushed
	} {
		q := "SELECT count(*) FROM " + quoted(p) + " WHERE " + c.where
		pushed, pu, err := duckstrata.Pushdown(context.Background(), conn, q)
		if err != nil {
			t.Fatal(err)
		}
		if got := ""; len(pu) == 1 {
			if got = pu[0].Filter; got != c.filter {
				t.Errorf("%s: pushed %q, want %q", c.where, got, c.filter)
			}
		} else if c.filter != "" {
			t.Errorf("%s: nothing pushed, want %q", c.where, c.filter)
		}
		if n := rowsOf(t, conn, pushed); n[0][0] != c.count {
			t.Errorf("%s: count %v, want %s", c.where, n, c.count)
		}
	}
}
