package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"strata"
)

// TestUnionByName reads three files whose columns were added and reordered
// over time as one table by column name: every row value by value, with
// filters that name columns some files lack, projections, offsets and
// limits, and the export of the same table.
func TestUnionByName(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"p1.csv": "id,name\n1,a\n2,b\n3,c\n",
		"p2.csv": "id,name,score\n4,d,1.5\n5,e,\n6,f,3.5\n",
		"p3.csv": "score,id\n9.5,7\n0.5,8\n",
	} {
		src := filepath.Join(dir, name)
		if err := os.WriteFile(src, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, stderr, err := capture(t, "import", "--quiet", src, strings.TrimSuffix(src, ".csv")+".strata"); err != nil {
			t.Fatalf("import %s: %v\n%s", name, err, stderr)
		}
	}
	pattern := filepath.Join(dir, "p*.strata")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"cat"}, "id,name,score\n1,a,\n2,b,\n3,c,\n4,d,1.5\n5,e,\n6,f,3.5\n7,,9.5\n8,,0.5\n"},
		{[]string{"scan", "--where", "score > 2 OR name IS NULL"}, "id,name,score\n6,f,3.5\n7,,9.5\n8,,0.5\n"},
		{[]string{"scan", "--where", "NOT (score < 2)"}, "id,name,score\n6,f,3.5\n7,,9.5\n"},
		{[]string{"scan", "--where", "score IS NULL AND id > 1"}, "id,name,score\n2,b,\n3,c,\n5,e,\n"},
		{[]string{"scan", "--where", "name = 'a' OR score = 0.5"}, "id,name,score\n1,a,\n8,,0.5\n"},
		{[]string{"scan", "--where", "score = 1"}, "id,name,score\n"},
		{[]string{"cat", "--columns", "score,id", "--offset", "2", "--limit", "4"}, "score,id\n,3\n1.5,4\n,5\n3.5,6\n"},
		// one column: nulls are NULL, as export writes them (an empty
		// line would be skipped when read)
		{[]string{"cat", "--columns", "name", "--offset", "5"}, "name\nf\nNULL\nNULL\n"},
		{[]string{"scan", "--columns", "name", "--where", "score > 1", "--limit", "2"}, "name\nd\nf\n"},
	} {
		args := append(c.args[1:], pattern, "--union-by-name", "--format", "csv")
		got, stderr, err := capture(t, c.args[0], args...)
		if err != nil {
			t.Errorf("%s %v: %v\n%s", c.args[0], args, err, stderr)
			continue
		}
		if got != c.want {
			t.Errorf("%s %v:\n%s\nwant\n%s", c.args[0], args, got, c.want)
		}
	}
	agg, stderr, err := capture(t, "agg", "--union-by-name", pattern, "count(*), sum(score), count(name), max(id)", "--where", "score > 1 OR name = 'a'")
	if err != nil {
		t.Fatalf("agg: %v\n%s", err, stderr)
	}
	if want := "count(*) = 4\nsum(score) = 14.5\ncount(name) = 3\nmax(id) = 7\n"; agg != want {
		t.Errorf("agg:\n%s\nwant\n%s", agg, want)
	}
	take, stderr, err := capture(t, "take", "--union-by-name", pattern, "7", "0", "4", "--format", "csv")
	if err != nil {
		t.Fatalf("take: %v\n%s", err, stderr)
	}
	if want := "id,name,score\n8,,0.5\n1,a,\n5,e,\n"; take != want {
		t.Errorf("take:\n%s\nwant\n%s", take, want)
	}
	if take, _, err = capture(t, "take", "--union-by-name", pattern, "1", "--columns", "score", "--format", "csv"); err != nil || take != "score\nNULL\n" {
		t.Errorf("take of a column the row's file lacks: %q, %v", take, err)
	}
	out := filepath.Join(dir, "all.csv")
	if _, stderr, err := capture(t, "export", "--union-by-name", pattern, out); err != nil {
		t.Fatalf("export: %v\n%s", err, stderr)
	}
	if b, err := os.ReadFile(out); err != nil || string(b) != "id,name,score\n1,a,\n2,b,\n3,c,\n4,d,1.5\n5,e,\n6,f,3.5\n7,,9.5\n8,,0.5\n" {
		t.Errorf("export: %q, %v", b, err)
	}
	// the CSVs imported by name into one file hold the same table
	one := filepath.Join(dir, "one.strata")
	if _, stderr, err := capture(t, "import", "--quiet", "--union-by-name", filepath.Join(dir, "p*.csv"), one); err != nil {
		t.Fatalf("import --union-by-name: %v\n%s", err, stderr)
	}
	if got, _, err := capture(t, "cat", one, "--format", "csv"); err != nil || got != "id,name,score\n1,a,\n2,b,\n3,c,\n4,d,1.5\n5,e,\n6,f,3.5\n7,,9.5\n8,,0.5\n" {
		t.Errorf("import --union-by-name: %q, %v", got, err)
	}
	// and so do the Strata files themselves
	if _, stderr, err := capture(t, "import", "--quiet", "--union-by-name", pattern, filepath.Join(dir, "two.strata")); err != nil {
		t.Fatalf("import --union-by-name of Strata files: %v\n%s", err, stderr)
	}
	if got, _, err := capture(t, "cat", filepath.Join(dir, "two.strata"), "--format", "csv"); err != nil || got != "id,name,score\n1,a,\n2,b,\n3,c,\n4,d,1.5\n5,e,\n6,f,3.5\n7,,9.5\n8,,0.5\n" {
		t.Errorf("import --union-by-name of Strata files: %q, %v", got, err)
	}
	// without the flag the files are refused, and the error says why
	if _, _, err := capture(t, "cat", pattern, "--format", "csv"); err == nil || !strings.Contains(err.Error(), "--union-by-name") {
		t.Errorf("cat of different columns: %v", err)
	}
	// a column no file has, and a column of two types
	if _, _, err := capture(t, "scan", pattern, "--union-by-name", "--where", "nosuch = 1"); exitCode(err) != 2 {
		t.Errorf("filter on a column no file has: %v (exit %d)", err, exitCode(err))
	}
	bad := filepath.Join(dir, "p4.csv")
	if err := os.WriteFile(bad, []byte("id\nx\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, stderr, err := capture(t, "import", "--quiet", bad, filepath.Join(dir, "p4.strata")); err != nil {
		t.Fatalf("import: %v\n%s", err, stderr)
	}
	_, _, err = capture(t, "cat", pattern, "--union-by-name")
	if err == nil || !strings.Contains(err.Error(), "p1.strata") || !strings.Contains(err.Error(), "p4.strata") {
		t.Errorf("id of two types: %v", err)
	}
}

// TestImportStrata rewrites Strata files with import: one file comes out
// byte for byte the same, and a pattern of several is compacted into one
// holding their rows in order.
func TestImportStrata(t *testing.T) {
	dir := t.TempDir()
	var want strings.Builder
	for i := range 3 {
		path := filepath.Join(dir, fmt.Sprintf("part%d.strata", i))
		if _, stderr, err := capture(t, "gen", "tpch", "--sf", "0.001", "--seed", fmt.Sprint(i+1), path); err != nil {
			t.Fatalf("gen: %v\n%s", err, stderr)
		}
		out, _, err := capture(t, "cat", path, "--format", "csv")
		if err != nil {
			t.Fatal(err)
		}
		if i > 0 {
			out = out[strings.IndexByte(out, '\n')+1:] // one header
		}
		want.WriteString(out)
	}
	again := filepath.Join(dir, "again.strata")
	if _, stderr, err := capture(t, "import", "--quiet", filepath.Join(dir, "part0.strata"), again); err != nil {
		t.Fatalf("import: %v\n%s", err, stderr)
	}
	a, _ := os.ReadFile(filepath.Join(dir, "part0.strata"))
	b, _ := os.ReadFile(again)
	if len(a) == 0 || !bytes.Equal(a, b) {
		t.Errorf("a file imported again: %d bytes, want the same %d", len(b), len(a))
	}
	all := filepath.Join(dir, "all.strata")
	if _, stderr, err := capture(t, "import", "--quiet", filepath.Join(dir, "part*.strata"), all); err != nil {
		t.Fatalf("import of a pattern: %v\n%s", err, stderr)
	}
	if got, _, err := capture(t, "cat", all, "--format", "csv"); err != nil || got != want.String() {
		t.Errorf("compacted: %d bytes of CSV, want %d (%v)", len(got), want.Len(), err)
	}
}

// TestImportUnionCSVTypes imports CSVs of different columns whose samples
// infer different types for one column: by name, the column gets the type
// all the samples give together, as the positional import of CSVs does.
func TestImportUnionCSVTypes(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"a.csv": "id,v\n1,5\n2,7\n",
		"b.csv": "v,note\n2.5,x\n,y\n",
		"c.csv": "note,id,day\nz,9,2024-03-01\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(dir, "all.strata")
	if _, stderr, err := capture(t, "import", "--quiet", "--union-by-name", filepath.Join(dir, "*.csv"), out); err != nil {
		t.Fatalf("import: %v\n%s", err, stderr)
	}
	got, _, err := capture(t, "cat", out, "--format", "csv")
	if want := "id,v,note,day\n1,5,,\n2,7,,\n,2.5,x,\n,,y,\n9,,z,2024-03-01\n"; err != nil || got != want {
		t.Errorf("import by name: %q, %v; want %q", got, err, want)
	}
	// v is a float64 column, day a date
	f, err := strata.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sch := f.Schema()
	if sch.Field(1).Type.ID() != arrow.FLOAT64 || sch.Field(3).Type.ID() != arrow.DATE32 {
		t.Errorf("schema %v: want v float64 and day date32", sch)
	}
}
