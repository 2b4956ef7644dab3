package main

import (
	"bytes"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata"
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
