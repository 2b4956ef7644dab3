package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata"
	"strata/internal/objtest"
	"strata/interop"
)

// writeTable writes a Parquet (or CSV) file of an int64 column x, nullable
// or not (nil entries are nulls), and a string column s.
func writeTable(t *testing.T, path string, nullable bool, xs []*int64, ss []string) {
	t.Helper()
	sch := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64, Nullable: nullable},
		{Name: "s", Type: arrow.BinaryTypes.String}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	defer b.Release()
	for i := range xs {
		if xs[i] == nil {
			b.Field(0).AppendNull()
		} else {
			b.Field(0).(*array.Int64Builder).Append(*xs[i])
		}
		b.Field(1).(*array.StringBuilder).Append(ss[i])
	}
	rec := b.NewRecord()
	defer rec.Release()
	writeRecord(t, path, rec)
}

// writeRecord writes rec as a file of the format its path names
// (interop.Create).
func writeRecord(t *testing.T, path string, rec arrow.Record) {
	t.Helper()
	sink, err := interop.Create(path, rec.Schema(), interop.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := sink.Write(rec); err != nil {
		sink.Abort()
		t.Fatal(err)
	}
	if err := sink.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestImportMany imports several tables into one Strata file: the files
// of a pattern and of several arguments, in order, a column required in
// one file and nullable in another, from local files and from s3://
// objects; tables of other columns are refused naming both.
func TestImportMany(t *testing.T) {
	dir := t.TempDir()
	p := func(v int64) *int64 { return &v }
	writeTable(t, filepath.Join(dir, "p1.parquet"), false, []*int64{p(1), p(2), p(3)}, []string{"a", "b", "c"})
	writeTable(t, filepath.Join(dir, "p2.parquet"), true, []*int64{p(4), nil, p(6)}, []string{"d", "e", "f"})
	writeTable(t, filepath.Join(dir, "p3.parquet"), false, []*int64{p(7)}, []string{"g"})
	want := "x,s\n1,a\n2,b\n3,c\n4,d\n,e\n6,f\n7,g\n"
	cat := func(path string) string {
		t.Helper()
		out, stderr, err := capture(t, "cat", path, "--format", "csv")
		if err != nil {
			t.Fatalf("cat: %v\n%s", err, stderr)
		}
		return out
	}
	out := filepath.Join(dir, "all.strata")
	if _, stderr, err := capture(t, "import", "--quiet", filepath.Join(dir, "p*.parquet"), out); err != nil {
		t.Fatalf("import of a pattern: %v\n%s", err, stderr)
	}
	if got := cat(out); got != want {
		t.Errorf("import of a pattern:\n%s\nwant:\n%s", got, want)
	}
	// several arguments, in the order given
	if _, stderr, err := capture(t, "import", "--quiet", filepath.Join(dir, "p3.parquet"), filepath.Join(dir, "p[12].parquet"), out); err != nil {
		t.Fatalf("import of several arguments: %v\n%s", err, stderr)
	}
	if got, w := cat(out), "x,s\n7,g\n1,a\n2,b\n3,c\n4,d\n,e\n6,f\n"; got != w {
		t.Errorf("import of several arguments:\n%s\nwant:\n%s", got, w)
	}
	// CSV tables too, each with its own inference
	for i, body := range []string{"x,s\n1,a\n2,b\n", "x,s\n3,c\n"} {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("c%d.csv", i)), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, stderr, err := capture(t, "import", "--quiet", filepath.Join(dir, "c*.csv"), out); err != nil {
		t.Fatalf("import of CSV files: %v\n%s", err, stderr)
	}
	if got, w := cat(out), "x,s\n1,a\n2,b\n3,c\n"; got != w {
		t.Errorf("import of CSV files:\n%s\nwant:\n%s", got, w)
	}

	// from s3:// objects, listed with the command's flags
	srv := objtest.Need(t)
	for i := 1; i <= 3; i++ {
		data, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("p%d.parquet", i)))
		if err != nil {
			t.Fatal(err)
		}
		if err := srv.Put(context.Background(), "cli", fmt.Sprintf("imp/p%d.parquet", i), data); err != nil {
			t.Fatal(err)
		}
	}
	if _, stderr, err := capture(t, "import", "--quiet", "s3://cli/imp/p*.parquet", out, "--endpoint", srv.Endpoint, "--region", srv.Region,
		"--access-key", srv.AccessKey, "--secret-key", srv.SecretKey); err != nil {
		t.Fatalf("import of an s3 pattern: %v\n%s", err, stderr)
	}
	if got := cat(out); got != want {
		t.Errorf("import of an s3 pattern:\n%s\nwant:\n%s", got, want)
	}

	// a table of other columns
	sch := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Float64}, {Name: "s", Type: arrow.BinaryTypes.String}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	b.Field(0).(*array.Float64Builder).Append(1.5)
	b.Field(1).(*array.StringBuilder).Append("z")
	rec := b.NewRecord()
	b.Release()
	writeRecord(t, filepath.Join(dir, "p9.parquet"), rec)
	rec.Release()
	_, _, err := capture(t, "import", "--quiet", filepath.Join(dir, "p*.parquet"), filepath.Join(dir, "bad.strata"))
	if err == nil || !strings.Contains(err.Error(), "p9.parquet") || !strings.Contains(err.Error(), "different columns") {
		t.Errorf("tables of other columns: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "bad.strata")); err == nil {
		t.Error("a refused import left a file")
	}
	if _, _, err := capture(t, "import", "--quiet", filepath.Join(dir, "p1.parquet"), out, out); err == nil || exitCode(err) != 2 {
		t.Errorf("DST among the sources: %v", err)
	}
}

// TestImportManyCSVTypes imports CSV files whose samples infer different
// types: each column gets the type inference gives all the samples
// together, and every file is read with it. A CSV file beside a Parquet
// file of other types is still refused.
func TestImportManyCSVTypes(t *testing.T) {
	dir := t.TempDir()
	files := []string{
		// n: integers, d: dates, b: 0/1, e: empty, z: codes with leading zeros
		"n,d,b,e,z\n1,2024-01-02,1,,7\n2,2024-01-03,0,,8\n",
		// n: decimals, d: text, b: true/false, e: integers, z: zeros kept
		"n,d,b,e,z\n2.5,unknown,true,5,007\n",
		// every column empty
		"n,d,b,e,z\n,,,,\n",
	}
	for i, body := range files {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("t%d.csv", i)), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(dir, "t.strata")
	if _, stderr, err := capture(t, "import", "--quiet", filepath.Join(dir, "t*.csv"), out); err != nil {
		t.Fatalf("import: %v\n%s", err, stderr)
	}
	f, err := strata.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	got := f.Schema().String()
	f.Close()
	for _, w := range []string{"n: type=float64", "d: type=utf8", "b: type=bool", "e: type=int64", "z: type=utf8"} {
		if !strings.Contains(got, w) {
			t.Errorf("schema %s: want %s", got, w)
		}
	}
	rows, stderr, err := capture(t, "cat", out, "--format", "csv")
	if err != nil {
		t.Fatalf("cat: %v\n%s", err, stderr)
	}
	want := "n,d,b,e,z\n1,2024-01-02,true,,7\n2,2024-01-03,false,,8\n2.5,unknown,true,5,007\n,,,,\n"
	if rows != want {
		t.Errorf("rows:\n%s\nwant:\n%s", rows, want)
	}
	// the first file alone keeps its own types
	if _, stderr, err := capture(t, "import", "--quiet", filepath.Join(dir, "t0.csv"), out); err != nil {
		t.Fatalf("import: %v\n%s", err, stderr)
	}
	if f, err = strata.Open(out); err != nil {
		t.Fatal(err)
	}
	got = f.Schema().String()
	f.Close()
	if !strings.Contains(got, "n: type=int64") || !strings.Contains(got, "d: type=date32") {
		t.Errorf("one file: schema %s", got)
	}
	// other names are refused
	if err := os.WriteFile(filepath.Join(dir, "t3.csv"), []byte("n,d,b,e,y\n1,2,3,4,5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err = capture(t, "import", "--quiet", filepath.Join(dir, "t*.csv"), filepath.Join(dir, "bad.strata"))
	if err == nil || !strings.Contains(err.Error(), "t3.csv") || !strings.Contains(err.Error(), "column 5 is z against y") {
		t.Errorf("CSV of other names: %v", err)
	}
	// a CSV file and a Parquet file of other types
	writeTable(t, filepath.Join(dir, "p.parquet"), true, []*int64{nil}, []string{"a"})
	if err := os.WriteFile(filepath.Join(dir, "q.csv"), []byte("x,s\n1.5,b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err = capture(t, "import", "--quiet", filepath.Join(dir, "p.parquet"), filepath.Join(dir, "q.csv"), filepath.Join(dir, "bad.strata"))
	if err == nil || !strings.Contains(err.Error(), "different columns") {
		t.Errorf("Parquet and CSV of other types: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "bad.strata")); err == nil {
		t.Error("a refused import left a file")
	}
}

// TestImportCSVDialect imports CSV files through the dialect flags: a
// semicolon file sniffed (with and without --decimal-comma), one file and a
// pattern of two with --null and --no-header, an explicit --delimiter, and
// a refused one.
func TestImportCSVDialect(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	out := filepath.Join(dir, "t.strata")
	check := func(want string, args ...string) {
		t.Helper()
		if _, stderr, err := capture(t, "import", append(append([]string{"--quiet"}, args...), out)...); err != nil {
			t.Fatalf("import %v: %v\n%s", args, err, stderr)
		}
		rows, stderr, err := capture(t, "cat", out, "--format", "csv")
		if err != nil {
			t.Fatalf("cat: %v\n%s", err, stderr)
		}
		if rows != want {
			t.Errorf("import %v:\n%s\nwant:\n%s", args, rows, want)
		}
	}
	check("a,b,c\n1,\"2,5\",x\n3,,y\n", write("semi.csv", "a;b;c\n1;2,5;x\n3;NA;y\n"), "--null", "NA")
	check("a,b,c\n1,2.5,x\n3,,y\n", filepath.Join(dir, "semi.csv"), "--null", "NA", "--decimal-comma")
	write("p1.csv", "1|NA\n2|7\n")
	write("p2.csv", "3|\\N\n")
	check("f0,f1\n1,\n2,7\n3,\n", filepath.Join(dir, "p*.csv"), "--no-header", "--null", `NA,\N`, "--delimiter", "|")
	check("a,b\n1,x;y\n", write("tab.csv", "a\tb\n1\tx;y\n"), "--delimiter", "tab")
	check("a,b\n1,\"12\"\" x\"\n", write("lazy.csv", "a,b\n1,12\" x\n"), "--lazy-quotes")
	if _, _, err := capture(t, "import", "--quiet", "--delimiter", `"`, filepath.Join(dir, "semi.csv"), out); err == nil {
		t.Error("--delimiter '\"' accepted")
	}
}

// TestImportManyCSVLaterFloat: CSV files read under the types of their
// samples taken together (here int64 in one and float64 in the other make
// float64) refuse, as one file read alone does, a value past the samples
// that a float64 would round, naming its file and line; with every record
// inferred the column is decimal and the value kept.
func TestImportManyCSVLaterFloat(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a0.csv", "n,s\n1,x\n2,y\n3,z\n")
	write("a1.csv", "n,s\n2.5,x\n3.5,y\n4.5,z\n3.14159265358979323846,w\n")
	out := filepath.Join(dir, "t.strata")
	for _, byName := range []bool{false, true} {
		args := []string{"--quiet", "--infer-rows", "2"}
		if byName {
			args = append(args, "--union-by-name")
		}
		args = append(args, filepath.Join(dir, "a*.csv"), out)
		_, stderr, err := capture(t, "import", args...)
		if err == nil || !strings.Contains(err.Error(), "a1.csv") || !strings.Contains(err.Error(), "line 5") ||
			!strings.Contains(err.Error(), "round") {
			t.Errorf("by name %v: a float64 column took a value it rounds: %v\n%s", byName, err, stderr)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("by name %v: a refused import left a file", byName)
			os.Remove(out)
		}
	}
	if _, stderr, err := capture(t, "import", "--quiet", "--infer-rows", "-1", filepath.Join(dir, "a*.csv"), out); err != nil {
		t.Fatalf("every record inferred: %v\n%s", err, stderr)
	}
	rows, stderr, err := capture(t, "cat", out, "--format", "csv")
	if err != nil {
		t.Fatalf("cat: %v\n%s", err, stderr)
	}
	if !strings.Contains(rows, "3.14159265358979323846") {
		t.Errorf("every record inferred: the value did not survive:\n%s", rows)
	}
}
