package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestPrinterCSVNested prints a struct and a list column as CSV: they come
// out as JSON text, as export writes them, instead of failing.
func TestPrinterCSVNested(t *testing.T) {
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "s", Type: arrow.StructOf(arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Int64, Nullable: true}), Nullable: true},
		{Name: "l", Type: arrow.ListOf(arrow.BinaryTypes.String), Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	defer b.Release()
	b.Field(0).(*array.Int64Builder).AppendValues([]int64{1, 2}, nil)
	sb := b.Field(1).(*array.StructBuilder)
	sb.Append(true)
	sb.FieldBuilder(0).(*array.Int64Builder).Append(7)
	sb.AppendNull()
	lb := b.Field(2).(*array.ListBuilder)
	lb.Append(true)
	lb.ValueBuilder().(*array.StringBuilder).AppendValues([]string{"a", "b"}, nil)
	lb.AppendNull()
	rec := b.NewRecord()
	defer rec.Release()
	out := printAll(t, "csv", rec)
	want := "id,s,l\n1,\"{\"\"x\"\":7}\",\"[\"\"a\"\",\"\"b\"\"]\"\n2,,\n"
	if out != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
	if strings.Count(out, "\n") != 3 {
		t.Errorf("want a header and two rows")
	}
}

// TestPrinterTimes prints times of day, durations and a null-type column
// in every format: the same text in all three (as CSV export writes them),
// NULL or null for every null.
func TestPrinterTimes(t *testing.T) {
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "t", Type: arrow.FixedWidthTypes.Time32ms, Nullable: true},
		{Name: "d", Type: arrow.FixedWidthTypes.Duration_s},
		{Name: "n", Type: arrow.Null, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	defer b.Release()
	b.Field(0).(*array.Time32Builder).AppendValues([]arrow.Time32{45296789, 0}, []bool{true, false})
	b.Field(1).(*array.DurationBuilder).AppendValues([]arrow.Duration{5400, -1}, nil)
	b.Field(2).(*array.NullBuilder).AppendNulls(2)
	rec := b.NewRecord()
	defer rec.Release()
	for format, want := range map[string]string{
		"csv":   "t,d,n\n12:34:56.789,1h30m0s,\n,-1s,\n",
		"json":  "{\"t\":\"12:34:56.789\",\"d\":\"1h30m0s\",\"n\":null}\n{\"t\":null,\"d\":\"-1s\",\"n\":null}\n",
		"table": "t             d        n\n------------  -------  ----\n12:34:56.789  1h30m0s  NULL\nNULL          -1s      NULL\n",
	} {
		if out := printAll(t, format, rec); out != want {
			t.Errorf("%s: got\n%q\nwant\n%q", format, out, want)
		}
	}
}

// printAll prints recs in a format, one printer for all, and returns the text.
func printAll(t *testing.T, format string, recs ...arrow.Record) string {
	t.Helper()
	var out bytes.Buffer
	p, err := newPrinter(format, &out)
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range recs {
		if err := p.print(rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.flush(); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// TestPrinterTableBatchesAligned: a table printed in several batches keeps
// its columns under the header, a later narrower batch included (each
// batch was padded to its own widths).
func TestPrinterTableBatchesAligned(t *testing.T) {
	sch := arrow.NewSchema([]arrow.Field{{Name: "name", Type: arrow.BinaryTypes.String}, {Name: "n", Type: arrow.PrimitiveTypes.Int64}}, nil)
	batch := func(names []string, ns []int64) arrow.Record {
		b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
		defer b.Release()
		b.Field(0).(*array.StringBuilder).AppendValues(names, nil)
		b.Field(1).(*array.Int64Builder).AppendValues(ns, nil)
		return b.NewRecord()
	}
	r1, r2 := batch([]string{"a rather long name"}, []int64{1}), batch([]string{"x"}, []int64{2})
	defer r1.Release()
	defer r2.Release()
	out := printAll(t, "table", r1, r2)
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) != 4 {
		t.Fatalf("got %q", out)
	}
	at := strings.LastIndex(lines[0], " n") + 1
	for _, l := range lines[2:] {
		if len(l) <= at || l[at] < '0' || l[at] > '9' || l[at-1] != ' ' {
			t.Errorf("row %q: column n not under the header %q", l, lines[0])
		}
	}
}

// TestPrinterEmpty: a result of no rows still prints its header as a table
// or CSV, and nothing as JSON lines.
func TestPrinterEmpty(t *testing.T) {
	sch := arrow.NewSchema([]arrow.Field{{Name: "name", Type: arrow.BinaryTypes.String}, {Name: "s", Type: arrow.StructOf(arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Int64})}}, nil)
	for format, want := range map[string]string{"table": "name  s\n----  -\n", "csv": "name,s\n", "json": ""} {
		var buf bytes.Buffer
		p, err := newPrinter(format, &buf)
		if err != nil {
			t.Fatal(err)
		}
		if err := p.empty(sch); err != nil {
			t.Fatal(err)
		}
		if err := p.flush(); err != nil {
			t.Fatal(err)
		}
		if buf.String() != want {
			t.Errorf("%s: got %q, want %q", format, buf.String(), want)
		}
	}
}

// TestPrinterTableText checks that a table keeps one line a row and its
// columns aligned: control characters inside values are escaped, widths
// count characters rather than bytes, and CSV output keeps values exact.
func TestPrinterTableText(t *testing.T) {
	sch := arrow.NewSchema([]arrow.Field{{Name: "a", Type: arrow.BinaryTypes.String}, {Name: "b", Type: arrow.PrimitiveTypes.Int64}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	defer b.Release()
	b.Field(0).(*array.StringBuilder).AppendValues([]string{"multi\nline", "café", "tab\there", "x"}, nil)
	b.Field(1).(*array.Int64Builder).AppendValues([]int64{1, 2, 3, 4}, nil)
	rec := b.NewRecord()
	defer rec.Release()
	out := printAll(t, "table", rec)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 6 {
		t.Fatalf("%d lines for a header, a rule and 4 rows:\n%s", len(lines), out)
	}
	if !strings.Contains(lines[2], `"multi\nline"`) || !strings.Contains(lines[4], `"tab\there"`) {
		t.Errorf("control characters not escaped:\n%s", out)
	}
	// column b starts at the same character in every line
	at := -1
	for _, l := range lines[2:] {
		r := []rune(l)
		k := len(r) - 1 // b's one digit ends the line
		if at >= 0 && k != at {
			t.Errorf("column b at character %d in %q, %d above", k, l, at)
		}
		at = k
	}
	if csv := printAll(t, "csv", rec); !strings.Contains(csv, "\"multi\nline\"") || !strings.Contains(csv, "café") {
		t.Errorf("CSV changed the values:\n%s", csv)
	}
}

// TestPrinterTableWideText: columns holding CJK text (two terminal
// columns a character) and combining marks (none) stay aligned; they were
// padded by rune count, so every column after CJK text was pushed right.
func TestPrinterTableWideText(t *testing.T) {
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "name", Type: arrow.BinaryTypes.String},
		{Name: "n", Type: arrow.PrimitiveTypes.Int64},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	defer b.Release()
	b.Field(0).(*array.StringBuilder).AppendValues([]string{"张三", "alice", "山田太郎", "e\u0301te\u0301"}, nil)
	b.Field(1).(*array.Int64Builder).AppendValues([]int64{1, 22, 333, 4}, nil)
	rec := b.NewRecord()
	defer rec.Release()
	want := "name      n\n" +
		"--------  ---\n" +
		"张三      1\n" +
		"alice     22\n" +
		"山田太郎  333\n" +
		"e\u0301te\u0301       4\n"
	if out := printAll(t, "table", rec); out != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
}

// TestPrinterTableHeaderEscaped: a column name holding a newline or a tab
// (a CSV header can) is written as a quoted Go string literal in a
// table's header, as such values are in its cells, so the header stays
// one line above its rule. The name was written raw, breaking the table
// in two.
func TestPrinterTableHeaderEscaped(t *testing.T) {
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "a\nb", Type: arrow.PrimitiveTypes.Int64},
		{Name: "c\td", Type: arrow.PrimitiveTypes.Int64},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	defer b.Release()
	b.Field(0).(*array.Int64Builder).Append(1)
	b.Field(1).(*array.Int64Builder).Append(2)
	rec := b.NewRecord()
	defer rec.Release()
	want := "\"a\\nb\"  \"c\\td\"\n" +
		"------  ------\n" +
		"1       2\n"
	if out := printAll(t, "table", rec); out != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
}

// TestPrinterFarYears prints timestamps and dates of years past 9999 and
// before 0 in every format: with a signed ISO 8601 year, the same in all
// three (the table's and JSON's with T between date and time, as they
// print every timestamp, CSV's with a space), where arrow-go printed a
// timestamp as its raw integer; years within 0000-9999 as before.
func TestPrinterFarYears(t *testing.T) {
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Second}},
		{Name: "tz", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}},
		{Name: "d", Type: arrow.FixedWidthTypes.Date32},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	defer b.Release()
	for _, tm := range []time.Time{
		time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC),
		time.Date(290000, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(-100, 3, 1, 12, 0, 0, 500000000, time.UTC),
	} {
		b.Field(0).(*array.TimestampBuilder).Append(arrow.Timestamp(tm.Unix()))
		b.Field(1).(*array.TimestampBuilder).Append(arrow.Timestamp(tm.UnixMicro()))
		b.Field(2).(*array.Date32Builder).Append(arrow.Date32FromTime(tm))
	}
	rec := b.NewRecord()
	defer rec.Release()
	for format, want := range map[string]string{
		"csv": "ts,tz,d\n2024-01-02 03:04:05,2024-01-02 03:04:05Z,2024-01-02\n" +
			"+290000-01-01 00:00:00,+290000-01-01 00:00:00Z,+290000-01-01\n" +
			"-0100-03-01 12:00:00,-0100-03-01 12:00:00.5Z,-0100-03-01\n",
		"json": `{"ts":"2024-01-02T03:04:05","tz":"2024-01-02T03:04:05Z","d":"2024-01-02"}` + "\n" +
			`{"ts":"+290000-01-01T00:00:00","tz":"+290000-01-01T00:00:00Z","d":"+290000-01-01"}` + "\n" +
			`{"ts":"-0100-03-01T12:00:00","tz":"-0100-03-01T12:00:00.5Z","d":"-0100-03-01"}` + "\n",
		"table": "ts                      tz                       d\n" +
			"----------------------  -----------------------  -------------\n" +
			"2024-01-02T03:04:05     2024-01-02T03:04:05Z     2024-01-02\n" +
			"+290000-01-01T00:00:00  +290000-01-01T00:00:00Z  +290000-01-01\n" +
			"-0100-03-01T12:00:00    -0100-03-01T12:00:00.5Z  -0100-03-01\n",
	} {
		if out := printAll(t, format, rec); out != want {
			t.Errorf("%s: got\n%s\nwant\n%s", format, out, want)
		}
	}
}

// TestPrinterTableUnambiguous checks the table's one convention (see
// tableFormatHelp): a null is NULL, and a value that would read as
// something else is a double-quoted Go string literal: the string NULL,
// text holding a newline, a tab or another character that does not
// print, text beginning with a quote, and text beginning or ending with a
// space. So a newline and a backslash followed by n, the string NULL and
// a null, print apart; other text (a backslash, an empty string) prints
// as it is. CSV and JSON output keep the values as they were.
func TestPrinterTableUnambiguous(t *testing.T) {
	sch := arrow.NewSchema([]arrow.Field{{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true}, {Name: "n", Type: arrow.PrimitiveTypes.Int64}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	defer b.Release()
	vals := []string{"a\nb", `a\nb`, "NULL", "", "", `"a\nb"`, " x", "x ", "null", "zero\u200bwidth", "c:\\dir", "e\u0301"}
	valid := make([]bool, len(vals))
	for i := range valid {
		valid[i] = i != 4
	}
	b.Field(0).(*array.StringBuilder).AppendValues(vals, valid)
	for i := range vals {
		b.Field(1).(*array.Int64Builder).Append(int64(i))
	}
	rec := b.NewRecord()
	defer rec.Release()
	want := []string{`"a\nb"`, `a\nb`, `"NULL"`, ``, `NULL`, `"\"a\\nb\""`, `" x"`, `"x "`, `null`, `"zero\u200bwidth"`, `c:\dir`, "e\u0301"}
	out := printAll(t, "table", rec)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != len(want)+2 {
		t.Fatalf("%d lines for a header, a rule and %d rows:\n%s", len(lines), len(want), out)
	}
	for i, w := range want {
		cell := lines[i+2]
		cell = strings.TrimRight(cell[:strings.LastIndex(cell, "  ")], " ")
		if cell != w {
			t.Errorf("row %d, %q: printed %s, want %s", i, vals[i], cell, w)
		}
	}
	if csv := printAll(t, "csv", rec); !strings.Contains(csv, "\n\"a\nb\",0\n") || !strings.Contains(csv, "\n\"NULL\",2\n") || !strings.Contains(csv, "\n,4\n") {
		t.Errorf("CSV changed the values:\n%s", csv)
	}
	if js := printAll(t, "json", rec); !strings.Contains(js, `{"s":"a\nb","n":0}`) || !strings.Contains(js, `{"s":"NULL","n":2}`) {
		t.Errorf("JSON changed the values:\n%s", js)
	}
}
