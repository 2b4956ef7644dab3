package interop

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// csvNullTable is a table whose string columns hold empty strings, nulls
// and the null words side by side, beside an integer column with nulls.
func csvNullTable(t *testing.T) (*arrow.Schema, arrow.Record) {
	t.Helper()
	mem := memory.DefaultAllocator
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "n", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "t", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	nb := array.NewInt64Builder(mem)
	defer nb.Release()
	nb.AppendValues([]int64{1, 0, 3, 4, 5, 6, 7}, []bool{true, false, true, true, true, true, true})
	sb := array.NewStringBuilder(mem)
	defer sb.Release()
	sb.AppendValues([]string{"", "", "NULL", "null", "x", "a\nb", ""}, []bool{true, false, true, true, true, true, false})
	tb := array.NewStringBuilder(mem)
	defer tb.Release()
	tb.AppendValues([]string{"", "", "", "NA", `q"r`, "", ""}, []bool{false, true, true, true, true, true, false})
	cols := []arrow.Array{nb.NewArray(), sb.NewArray(), tb.NewArray()}
	defer func() {
		for _, c := range cols {
			c.Release()
		}
	}()
	return sch, array.NewRecord(sch, cols, 7)
}

// csvNullText is how export writes csvNullTable: a null an empty field,
// an empty string "", a null word quoted.
const csvNullText = "n,s,t\n" +
	"1,\"\",\n" +
	",,\"\"\n" +
	"3,\"NULL\",\"\"\n" +
	"4,\"null\",NA\n" +
	"5,x,\"q\"\"r\"\n" +
	"6,\"a\nb\",\"\"\n" +
	"7,,\n"

// csvNullRows is csvNullTable's rows as readCSVText gives them.
const csvNullRows = `[["1" "" "∅"] ["∅" "∅" ""] ["3" "NULL" ""] ["4" "null" "NA"] ["5" "x" "q\"r"] ["6" "a\nb" ""] ["7" "∅" "∅"]]`

// TestCSVExportEmptyStrings checks that CSV export writes an empty string
// and a null apart ("" and an empty field), and a string that is a null
// word quoted, with the serial and the parallel sink, and that the serial
// and the parallel reader read each back as what it was, batches of one
// row to all: export, import, export gives the same bytes.
func TestCSVExportEmptyStrings(t *testing.T) {
	sch, rec := csvNullTable(t)
	defer rec.Release()
	for _, threads := range []int{1, 3} {
		dir := t.TempDir()
		path := filepath.Join(dir, "t.csv")
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
		text := mustRead(t, path)
		if text != csvNullText {
			t.Fatalf("threads %d: export wrote\n%q\nwant\n%q", threads, text, csvNullText)
		}
		for _, ro := range []ReadOptions{{}, {BatchRows: 1}, {BatchRows: 2}, {Parallel: true}, {Parallel: true, BatchRows: 2, Threads: 3}} {
			r, err := Open(path, ro)
			if err != nil {
				t.Fatal(err)
			}
			again := filepath.Join(dir, "again.csv")
			out, err := Create(again, r.Schema(), WriteOptions{Threads: threads})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := Copy(out, r); err != nil {
				t.Fatal(err)
			}
			r.Close()
			if err := out.Close(); err != nil {
				t.Fatal(err)
			}
			if got := mustRead(t, again); got != text {
				t.Errorf("threads %d, %+v: export of the import wrote\n%q\nwant\n%q", threads, ro, got, text)
			}
			_, rows, err := readCSVText(t, "t.csv", text, ro)
			if err != nil {
				t.Fatal(err)
			}
			if got := fmt.Sprintf("%q", rows); got != csvNullRows {
				t.Errorf("threads %d, %+v: read back\n%s\nwant\n%s", threads, ro, got, csvNullRows)
			}
		}
	}
}

// TestCSVImportQuotedEmpty reads CSV text written by hand: in a string
// column an unquoted empty field or null word is null and a quoted one is
// the text it holds; in other columns (integers, dates, times, floats
// with a decimal comma) either is null; --null's words (CSVNulls) are
// nulls as the built-in ones are; quoted fields span lines, lines end in
// \r\n, a separator may be longer than a byte, empty lines are no rows.
// Each case is read by the serial and the parallel reader, in batches of
// one row and more.
func TestCSVImportQuotedEmpty(t *testing.T) {
	cases := []struct {
		name, text string
		ro         ReadOptions
		want       string
	}{
		{"types", "i,s,d,h\n" +
			"1,\"\",\"\",\"\"\n" +
			"\"\",,,\n" +
			"NULL,NULL,NULL,NULL\n" +
			"\"NULL\",\"NULL\",2024-01-02,10:11\n" +
			"null,\"null\",\"null\",null\n",
			ReadOptions{},
			`[["1" "" "∅" "∅"] ["∅" "∅" "∅" "∅"] ["∅" "∅" "∅" "∅"] ["∅" "NULL" "2024-01-02" "10:11:00.000"] ["∅" "null" "∅" "∅"]]`},
		{"null option", "a,b\nNA,NA\n\"NA\",\"NA\"\n,\"\"\n2,x\n",
			ReadOptions{CSVNulls: []string{"NA"}},
			`[["∅" "∅"] ["∅" "NA"] ["∅" ""] ["2" "x"]]`},
		{"null option empty", "a,b\n1,\"\"\n2,\n",
			ReadOptions{CSVNulls: []string{"-"}},
			`[["1" ""] ["2" "∅"]]`},
		{"multiline", "s,n,u\n\"a\n\n\",,\"\"\n\"\",1,\"x\ny\"\n,2,\n",
			ReadOptions{},
			`[["a\n\n" "∅" ""] ["" "1" "x\ny"] ["∅" "2" "∅"]]`},
		{"crlf", "s,u\r\n\"\",\r\n,\"\"\r\n\"a\r\nb\",\r\n",
			ReadOptions{},
			`[["" "∅"] ["∅" ""] ["a\r\nb" "∅"]]`},
		{"one column", "s\n\"\"\nNULL\n\n\"NULL\"\nx\n\"\"\n",
			ReadOptions{},
			`[[""] ["∅"] ["NULL"] ["x"] [""]]`},
		{"semicolon", "a;s;t\n1;\"\";\n2;;\"\"\n3;\"x;y\";NULL\n",
			ReadOptions{},
			`[["1" "" "∅"] ["2" "∅" ""] ["3" "x;y" "∅"]]`},
		{"long separator", "a§s§t\n1§\"\"§\n2§§\"\"\n",
			ReadOptions{CSVComma: '§'},
			`[["1" "" "∅"] ["2" "∅" ""]]`},
		{"no header", "1,\"\",\n2,,\"\"\n",
			ReadOptions{CSVNoHeader: true, CSVSchema: arrow.NewSchema([]arrow.Field{
				{Name: "a", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
				{Name: "s", Type: arrow.BinaryTypes.LargeString, Nullable: true},
				{Name: "t", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)},
			`[["1" "" "∅"] ["2" "∅" ""]]`},
		{"decimal comma", "f;s\n\"\";\"\"\n2,5;\n",
			ReadOptions{CSVDecimalComma: true},
			`[["∅" ""] ["2.5" "∅"]]`},
		{"lazy quotes", "a,s,t\n1,\"\",x\"y\n2,,\"\"\n",
			ReadOptions{CSVLazyQuotes: true},
			`[["1" "" "x\"y"] ["2" "∅" ""]]`},
	}
	for _, c := range cases {
		for _, batch := range []int{0, 1, 2} {
			for _, par := range []bool{false, true} {
				ro := c.ro
				ro.BatchRows, ro.Parallel = batch, par
				_, rows, err := readCSVText(t, "t.csv", c.text, ro)
				if err != nil {
					t.Errorf("%s, batch %d, parallel %v: %v", c.name, batch, par, err)
					continue
				}
				if got := fmt.Sprintf("%q", rows); got != c.want {
					t.Errorf("%s, batch %d, parallel %v: read\n%s\nwant\n%s", c.name, batch, par, got, c.want)
				}
			}
		}
	}
}

// TestCSVWriterEmptyStrings checks NewCSVWriter, which strata cat
// --format csv writes with: the header once, empty strings "" and nulls
// empty, in a table of one column nulls NULL, and an empty column name "".
func TestCSVWriterEmptyStrings(t *testing.T) {
	sch, rec := csvNullTable(t)
	defer rec.Release()
	var b bytes.Buffer
	w := NewCSVWriter(&b, sch, ',')
	for _, r := range []arrow.Record{rec.NewSlice(0, 3), rec.NewSlice(3, 7)} {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
		r.Release()
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if b.String() != csvNullText {
		t.Errorf("wrote\n%q\nwant\n%q", b.String(), csvNullText)
	}
	one := arrow.NewSchema([]arrow.Field{{Name: "", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	col := array.NewRecord(one, []arrow.Array{rec.Column(1)}, rec.NumRows())
	defer col.Release()
	b.Reset()
	w = NewCSVWriter(&b, one, ';')
	if err := w.Write(col); err != nil {
		t.Fatal(err)
	}
	if want := "\"\"\n\"\"\nNULL\n\"NULL\"\n\"null\"\nx\n\"a\nb\"\nNULL\n"; b.String() != want {
		t.Errorf("one column wrote\n%q\nwant\n%q", b.String(), want)
	}
	path := filepath.Join(t.TempDir(), "one.csv")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, par := range []bool{false, true} {
		_, rows, err := readCSVText(t, "one.csv", b.String(), ReadOptions{Parallel: par})
		if want := `[[""] ["∅"] ["NULL"] ["null"] ["x"] ["a\nb"] ["∅"]]`; err != nil || fmt.Sprintf("%q", rows) != want {
			t.Errorf("parallel %v: one column read back as %q, %v; want %s", par, rows, err, want)
		}
	}
}
