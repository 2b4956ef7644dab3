package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata"
	"strata/interop"
)

func TestRun(t *testing.T) {
	p := filepath.Join(t.TempDir(), "t.strata")
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "k", Type: arrow.PrimitiveTypes.Int64},
		{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "day", Type: arrow.FixedWidthTypes.Date32},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	for i := range 10 {
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		if i == 3 {
			b.Field(1).AppendNull()
		} else {
			b.Field(1).(*array.StringBuilder).Append(strings.Repeat("x", i))
		}
		b.Field(2).(*array.Date32Builder).Append(arrow.Date32(9000 + i))
	}
	rec := b.NewRecord()
	w, err := strata.Create(p, sch, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	q := "SELECT k, name, day FROM '" + p + "' WHERE k BETWEEN 2 AND 4 ORDER BY k"
	for format, want := range map[string]string{
		"table": "k  name  day\n-  ----  ----------\n2  xx    1994-08-25\n3  NULL  1994-08-26\n4  xxxx  1994-08-27\n(3 rows)\n",
		"csv":   "k,name,day\n2,xx,1994-08-25\n3,,1994-08-26\n4,xxxx,1994-08-27\n",
		"json":  "{\"k\":2,\"name\":\"xx\",\"day\":\"1994-08-25\"}\n{\"k\":3,\"name\":null,\"day\":\"1994-08-26\"}\n{\"k\":4,\"name\":\"xxxx\",\"day\":\"1994-08-27\"}\n",
	} {
		var out, errOut bytes.Buffer
		if err := run([]string{"--format", format, "--explain", q}, nil, &out, &errOut); err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		if out.String() != want {
			t.Errorf("%s:\n%s\nwant\n%s", format, out.String(), want)
		}
		if !strings.Contains(errOut.String(), "pushed k BETWEEN 2 AND 4") {
			t.Errorf("--explain printed %q", errOut.String())
		}
	}
	// SQL on standard input; errors from DuckDB are returned.
	var out bytes.Buffer
	if err := run(nil, strings.NewReader("SELECT count(*) AS n FROM '"+p+"'"), &out, io.Discard); err != nil || !strings.Contains(out.String(), "10") {
		t.Fatalf("stdin query: %v, %q", err, out.String())
	}
	if err := run([]string{"SELECT nope FROM '" + p + "'"}, nil, io.Discard, io.Discard); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Fatalf("bad column: %v", err)
	}
	if err := run([]string{"--format", "xml", "SELECT 1"}, nil, io.Discard, io.Discard); err == nil {
		t.Fatal("bad format accepted")
	}
}

// TestCSVNullsApart checks that --format csv writes a null and an empty
// string apart, as strata export does: a null as an empty field (NULL in
// a result of one column, where an empty field would be an empty line,
// which CSV readers skip) and an empty string as "", with a string that
// is a null word (NULL, null) quoted, so that strata import reads each
// back as what it was.
func TestCSVNullsApart(t *testing.T) {
	p := filepath.Join(t.TempDir(), "t.strata")
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "k", Type: arrow.PrimitiveTypes.Int64},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	defer b.Release()
	b.Field(0).(*array.Int64Builder).AppendValues([]int64{1, 2, 3, 4, 5, 6}, nil)
	b.Field(1).(*array.StringBuilder).AppendValues([]string{"", "", "NULL", "null", " x", "a,\"b\"\nc"}, []bool{true, false, true, true, true, true})
	rec := b.NewRecord()
	defer rec.Release()
	w, err := strata.Create(p, sch, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	for q, want := range map[string]string{
		"SELECT k, s FROM '" + p + "' ORDER BY k": "k,s\n1,\"\"\n2,\n3,\"NULL\"\n4,\"null\"\n5,\" x\"\n6,\"a,\"\"b\"\"\nc\"\n",
		"SELECT s FROM '" + p + "' ORDER BY k":    "s\n\"\"\nNULL\n\"NULL\"\n\"null\"\n\" x\"\n\"a,\"\"b\"\"\nc\"\n",
		"SELECT NULL::INTEGER AS n, '' AS e":      "n,e\n,\"\"\n",
	} {
		var out bytes.Buffer
		if err := run([]string{"--format", "csv", q}, nil, &out, io.Discard); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if out.String() != want {
			t.Errorf("%s: wrote\n%q\nwant\n%q", q, out.String(), want)
		}
	}
}

// TestTableUnambiguous checks that the table output prints as strata cat
// does (interop.TableText): a null as NULL and the string NULL as "NULL",
// text with a newline as a quoted Go literal on one line, apart from a
// backslash followed by n; CSV and JSON keep the values as they are.
func TestTableUnambiguous(t *testing.T) {
	q := `SELECT * FROM (VALUES (1, 'a' || chr(10) || 'b'), (2, 'a\nb'), (3, 'NULL'), (4, NULL), (5, ''), (6, ' x')) t(k, s) ORDER BY k`
	var out bytes.Buffer
	if err := run([]string{q}, nil, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	want := "k  s\n" +
		"-  ------\n" +
		"1  \"a\\nb\"\n" +
		"2  a\\nb\n" +
		"3  \"NULL\"\n" +
		"4  NULL\n" +
		"5  \n" +
		"6  \" x\"\n" +
		"(6 rows)\n"
	if out.String() != want {
		t.Errorf("table:\n%s\nwant\n%s", out.String(), want)
	}
	out.Reset()
	if err := run([]string{"--format", "csv", q}, nil, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	if want := "k,s\n1,\"a\nb\"\n2,a\\nb\n3,\"NULL\"\n4,\n5,\"\"\n6,\" x\"\n"; out.String() != want {
		t.Errorf("csv:\n%q\nwant\n%q", out.String(), want)
	}
}

// TestCSVNullWordsRoundTrip checks --null as strata export --null writes
// it: a null as the first word, a string equal to any word (or to NULL,
// null or "") quoted, so that strata's CSV import given the same words
// reads every value back as it was; a value of another type whose text is
// a word fails, and --null with other output, with a word holding a
// quote or a line break, or with a first word CSV quotes on its own (a
// leading space, \.; nulls are written as it and must be bare), is a
// usage error (exit status 2).
func TestCSVNullWordsRoundTrip(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "t.strata")
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "k", Type: arrow.PrimitiveTypes.Int64},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "n", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	}, nil)
	strs := []string{"NA", "", "", `\N`, "NULL", "null", "x", "na", "NA "}
	valid := []bool{true, false, true, true, true, true, true, true, true}
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	defer b.Release()
	for i := range strs {
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		if i%3 == 1 {
			b.Field(2).AppendNull()
		} else {
			b.Field(2).(*array.Int64Builder).Append(int64(10 * i))
		}
	}
	b.Field(1).(*array.StringBuilder).AppendValues(strs, valid)
	rec := b.NewRecord()
	defer rec.Release()
	w, err := strata.Create(p, sch, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	words := []string{"NA", `\N`}
	for _, tc := range []struct {
		q, want string
		cols    []int // the file's columns the result holds
	}{
		{"SELECT k, s, n FROM '" + p + "' ORDER BY k",
			"k,s,n\n0,\"NA\",0\n1,NA,NA\n2,\"\",20\n3,\"\\N\",30\n4,\"NULL\",NA\n5,\"null\",50\n6,x,60\n7,na,NA\n8,NA ,80\n", []int{0, 1, 2}},
		{"SELECT s FROM '" + p + "' ORDER BY k",
			"s\n\"NA\"\nNA\n\"\"\n\"\\N\"\n\"NULL\"\n\"null\"\nx\nna\nNA \n", []int{1}},
	} {
		var out bytes.Buffer
		if err := run([]string{"--format", "csv", "--null", strings.Join(words, ","), tc.q}, nil, &out, io.Discard); err != nil {
			t.Fatalf("%s: %v", tc.q, err)
		}
		if out.String() != tc.want {
			t.Errorf("%s: wrote\n%q\nwant\n%q", tc.q, out.String(), tc.want)
		}
		// Strata's CSV import, given the same words, reads every value
		// back: nulls as nulls, the strings NA, \N, NULL, null and "" as
		// those strings.
		csvPath := filepath.Join(dir, "out.csv")
		if err := os.WriteFile(csvPath, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		back := readCSV(t, csvPath, interop.ReadOptions{CSVNulls: words})
		if int(back.NumCols()) != len(tc.cols) || back.NumRows() != rec.NumRows() {
			t.Fatalf("%s: read back %d columns, %d rows", tc.q, back.NumCols(), back.NumRows())
		}
		for j, c := range tc.cols {
			orig, got := rec.Column(c), back.Column(j)
			for i := range int(rec.NumRows()) {
				if orig.IsNull(i) != got.IsNull(i) || orig.IsValid(i) && orig.ValueStr(i) != got.ValueStr(i) {
					t.Errorf("%s: column %s row %d read back as %q (null %v), want %q (null %v)",
						tc.q, sch.Field(c).Name, i, got.ValueStr(i), got.IsNull(i), orig.ValueStr(i), orig.IsNull(i))
				}
			}
		}
		back.Release()
	}

	// A first word "" keeps the default null (an empty field, NULL in a
	// result of one column) and still quotes the other words.
	var out bytes.Buffer
	if err := run([]string{"--format", "csv", "--null", ",NA", "SELECT s FROM '" + p + "' WHERE k < 3 ORDER BY k"}, nil, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	if want := "s\n\"NA\"\nNULL\n\"\"\n"; out.String() != want {
		t.Errorf("--null ,NA wrote %q, want %q", out.String(), want)
	}
	// A string equal to a later word CSV quotes on its own is quoted
	// once.
	out.Reset()
	if err := run([]string{"--format", "csv", "--null", "NA, x", "SELECT * FROM (VALUES (' x'), (NULL)) t(s)"}, nil, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	if want := "s\n\" x\"\nNA\n"; out.String() != want {
		t.Errorf("--null 'NA, x' wrote %q, want %q", out.String(), want)
	}
	// A number whose text is a word would read back as null: refused.
	err = run([]string{"--format", "csv", "--null", "20", "SELECT n FROM '" + p + "' ORDER BY k"}, nil, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "null word") {
		t.Errorf("a value equal to a null word: %v", err)
	}
	for _, args := range [][]string{
		{"--null", "NA", "SELECT 1"},
		{"--format", "json", "--null", "NA", "SELECT 1"},
		{"--format", "csv", "--null", `N"A`, "SELECT 1"},
		{"--format", "csv", "--null", "NA,a\nb", "SELECT 1"},
		{"--format", "csv", "--null", " NA", "SELECT 1"},
		{"--format", "csv", "--null", "\u00a0NA,NA", "SELECT 1"},
		{"--format", "csv", "--null", `\.`, "SELECT 1"},
	} {
		err := run(args, nil, io.Discard, io.Discard)
		var ue usageError
		if !errors.As(err, &ue) {
			t.Errorf("%q: %v, want a usage error", args, err)
		}
	}
}

// readCSV reads a CSV file with strata's import reader into one record.
func readCSV(t *testing.T, path string, opts interop.ReadOptions) arrow.Record {
	t.Helper()
	r, err := interop.Open(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var recs []arrow.Record
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		defer rec.Release()
		recs = append(recs, rec)
	}
	if len(recs) == 0 {
		t.Fatalf("%s: no rows", path)
	}
	tbl := array.NewTableFromRecords(r.Schema(), recs)
	defer tbl.Release()
	tr := array.NewTableReader(tbl, tbl.NumRows())
	defer tr.Release()
	if !tr.Next() {
		t.Fatalf("%s: no rows", path)
	}
	out := tr.Record()
	out.Retain()
	return out
}

// TestFarYears checks that dates and timestamps of years outside
// 0000-9999 print with a signed year of at least four digits in table,
// CSV and JSON output, as strata cat prints them
// (interop.ExtendedYearText; strata-sql keeps its space between date and
// time), and years within it as before.
func TestFarYears(t *testing.T) {
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "k", Type: arrow.PrimitiveTypes.Int64},
		{Name: "d", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
		{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond}, Nullable: true},
		{Name: "tz", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, Nullable: true},
	}, nil)
	times := []time.Time{
		time.Date(1994, 8, 22, 1, 2, 3, 0, time.UTC),
		time.Date(12000, 3, 4, 5, 6, 7, 500e6, time.UTC),
		time.Date(290000, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(-100, 3, 1, 12, 0, 0, 0, time.UTC),
		time.Date(0, 6, 1, 0, 0, 0, 0, time.UTC),
		{},
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	defer b.Release()
	for i, tm := range times {
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		if tm.IsZero() {
			for f := 1; f < 4; f++ {
				b.Field(f).AppendNull()
			}
			continue
		}
		b.Field(1).(*array.Date32Builder).Append(arrow.Date32FromTime(tm))
		b.Field(2).(*array.TimestampBuilder).Append(arrow.Timestamp(tm.UnixMicro()))
		b.Field(3).(*array.TimestampBuilder).Append(arrow.Timestamp(tm.UnixMicro()))
	}
	rec := b.NewRecord()
	defer rec.Release()
	p := filepath.Join(t.TempDir(), "t.strata")
	w, err := strata.Create(p, sch, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	q := "SELECT k, d, ts, tz FROM '" + p + "' ORDER BY k"
	rows := [][]string{
		{"0", "1994-08-22", "1994-08-22 01:02:03", "1994-08-22 01:02:03Z"},
		{"1", "+12000-03-04", "+12000-03-04 05:06:07.5", "+12000-03-04 05:06:07.5Z"},
		{"2", "+290000-01-01", "+290000-01-01 00:00:00", "+290000-01-01 00:00:00Z"},
		{"3", "-0100-03-01", "-0100-03-01 12:00:00", "-0100-03-01 12:00:00Z"},
		{"4", "0000-06-01", "0000-06-01 00:00:00", "0000-06-01 00:00:00Z"},
	}
	// The far years as strata cat writes them in CSV (its table and JSON
	// put a T between date and time; strata-sql a space throughout).
	for i := 1; i <= 3; i++ {
		for c := 1; c < 4; c++ {
			want, ok := interop.ExtendedYearText(rec.Column(c), i, ' ')
			if !ok || want != rows[i][c] {
				t.Fatalf("row %d column %d: strata writes %q (%v), the test expects %q", i, c, want, ok, rows[i][c])
			}
		}
	}
	var csvWant, jsonWant strings.Builder
	csvWant.WriteString("k,d,ts,tz\n")
	tableWant := [][]string{{"k", "d", "ts", "tz"}}
	for _, r := range rows {
		csvWant.WriteString(strings.Join(r, ",") + "\n")
		fmt.Fprintf(&jsonWant, "{\"k\":%s,\"d\":%q,\"ts\":%q,\"tz\":%q}\n", r[0], r[1], r[2], r[3])
		tableWant = append(tableWant, r)
	}
	csvWant.WriteString("5,,,\n")
	jsonWant.WriteString("{\"k\":5,\"d\":null,\"ts\":null,\"tz\":null}\n")
	tableWant = append(tableWant, []string{"5", "NULL", "NULL", "NULL"})
	var tw bytes.Buffer
	writeTable(&tw, tableWant)
	tw.WriteString("(6 rows)\n")
	for format, want := range map[string]string{"csv": csvWant.String(), "json": jsonWant.String(), "table": tw.String()} {
		var out bytes.Buffer
		if err := run([]string{"--format", format, q}, nil, &out, io.Discard); err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		if out.String() != want {
			t.Errorf("%s:\n%s\nwant\n%s", format, out.String(), want)
		}
	}
}
