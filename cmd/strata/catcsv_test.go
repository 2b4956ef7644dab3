package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestCatCSVOneColumn checks that cat --format csv writes a table of one
// column as export does, nulls as NULL and empty strings as "", so that
// no row becomes an empty line and every row comes back when the output
// is imported again.
func TestCatCSVOneColumn(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "s.jsonl")
	if err := os.WriteFile(src, []byte("{\"s\":\"\"}\n{\"s\":null}\n{\"s\":\"x\"}\n{\"s\":\"\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "s.strata")
	if _, stderr, err := capture(t, "import", "--quiet", src, out); err != nil {
		t.Fatalf("import: %v\n%s", err, stderr)
	}
	text, stderr, err := capture(t, "cat", out, "--format", "csv")
	if err != nil {
		t.Fatalf("cat: %v\n%s", err, stderr)
	}
	if want := "s\n\"\"\nNULL\nx\n\"\"\n"; text != want {
		t.Fatalf("cat --format csv wrote %q, want %q", text, want)
	}
	again := filepath.Join(dir, "again.csv")
	if err := os.WriteFile(again, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, stderr, err := capture(t, "import", "--quiet", again, out); err != nil {
		t.Fatalf("import: %v\n%s", err, stderr)
	}
	n, stderr, err := capture(t, "agg", out, "count(*)")
	if err != nil || n != "count(*) = 4\n" {
		t.Fatalf("rows read back: %q %v\n%s", n, err, stderr)
	}
}

// TestCSVEmptyStringsRoundTrip checks that cat --format csv and export
// write an empty string "" and a null as an empty field, and a string
// NULL quoted, in a table of several columns, and that importing the
// export and exporting it again gives the same bytes, every value as it
// was.
func TestCSVEmptyStringsRoundTrip(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "t.jsonl")
	rows := "{\"n\":1,\"s\":\"\",\"t\":null}\n{\"n\":null,\"s\":null,\"t\":\"\"}\n{\"n\":3,\"s\":\"NULL\",\"t\":\"x\"}\n"
	if err := os.WriteFile(src, []byte(rows), 0o644); err != nil {
		t.Fatal(err)
	}
	first := filepath.Join(dir, "t.strata")
	if _, stderr, err := capture(t, "import", "--quiet", src, first); err != nil {
		t.Fatalf("import: %v\n%s", err, stderr)
	}
	want := "n,s,t\n1,\"\",\n,,\"\"\n3,\"NULL\",x\n"
	text, stderr, err := capture(t, "cat", first, "--format", "csv")
	if err != nil || text != want {
		t.Fatalf("cat --format csv wrote %q, %v, want %q\n%s", text, err, want, stderr)
	}
	csv := filepath.Join(dir, "t.csv")
	if _, stderr, err := capture(t, "export", first, csv); err != nil {
		t.Fatalf("export: %v\n%s", err, stderr)
	}
	if got, err := os.ReadFile(csv); err != nil || string(got) != want {
		t.Fatalf("export wrote %q, %v, want %q", got, err, want)
	}
	second := filepath.Join(dir, "again.strata")
	if _, stderr, err := capture(t, "import", "--quiet", csv, second); err != nil {
		t.Fatalf("import of the export: %v\n%s", err, stderr)
	}
	again := filepath.Join(dir, "again.csv")
	if _, stderr, err := capture(t, "export", second, again); err != nil {
		t.Fatalf("export: %v\n%s", err, stderr)
	}
	if got, err := os.ReadFile(again); err != nil || string(got) != want {
		t.Fatalf("export of the import wrote %q, %v, want %q", got, err, want)
	}
	text, stderr, err = capture(t, "cat", second, "--format", "json")
	if wantJSON := "{\"n\":1,\"s\":\"\",\"t\":null}\n{\"n\":null,\"s\":null,\"t\":\"\"}\n{\"n\":3,\"s\":\"NULL\",\"t\":\"x\"}\n"; err != nil || text != wantJSON {
		t.Fatalf("the import of the export holds %q, %v, want %q\n%s", text, err, wantJSON, stderr)
	}
}

// TestCSVNullWordRoundTrip checks --null on the commands that write CSV:
// a CSV imported with --null NA, whose quoted "NA" is a string, is
// written by export and by cat, scan and take --format csv with nulls as
// NA and the string NA quoted, so that import --null NA reads back an
// empty string, a null, the string NA and the string NULL apart; and that
// --null with another output is refused.
func TestCSVNullWordRoundTrip(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "t.csv")
	if err := os.WriteFile(src, []byte("id,s\n1,\"\"\n2,NA\n3,\"NA\"\n4,\"NULL\"\n5,x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	first := filepath.Join(dir, "t.strata")
	if _, stderr, err := capture(t, "import", "--quiet", "--null", "NA", src, first); err != nil {
		t.Fatalf("import: %v\n%s", err, stderr)
	}
	wantJSON, stderr, err := capture(t, "cat", first, "--format", "json")
	if err != nil {
		t.Fatalf("cat: %v\n%s", err, stderr)
	}
	if want := `{"id":1,"s":""}` + "\n" + `{"id":2,"s":null}` + "\n" + `{"id":3,"s":"NA"}` + "\n" + `{"id":4,"s":"NULL"}` + "\n" + `{"id":5,"s":"x"}` + "\n"; wantJSON != want {
		t.Fatalf("import --null NA read %q, want %q", wantJSON, want)
	}
	want := "id,s\n1,\"\"\n2,NA\n3,\"NA\"\n4,\"NULL\"\n5,x\n"
	for _, cmd := range [][]string{{"cat"}, {"scan"}, {"take", "0,1,2,3,4"}} {
		args := append([]string{first}, cmd[1:]...)
		text, stderr, err := capture(t, cmd[0], append(args, "--format", "csv", "--null", "NA")...)
		if err != nil || text != want {
			t.Errorf("%s --format csv --null NA wrote %q, %v, want %q\n%s", cmd[0], text, err, want, stderr)
		}
	}
	csv := filepath.Join(dir, "out.csv")
	if _, stderr, err := capture(t, "export", "--null", "NA", first, csv); err != nil {
		t.Fatalf("export: %v\n%s", err, stderr)
	}
	if got, err := os.ReadFile(csv); err != nil || string(got) != want {
		t.Fatalf("export --null NA wrote %q, %v, want %q", got, err, want)
	}
	second := filepath.Join(dir, "again.strata")
	if _, stderr, err := capture(t, "import", "--quiet", "--null", "NA", csv, second); err != nil {
		t.Fatalf("import of the export: %v\n%s", err, stderr)
	}
	if got, stderr, err := capture(t, "cat", second, "--format", "json"); err != nil || got != wantJSON {
		t.Fatalf("export, import --null NA read back %q, %v, want %q\n%s", got, err, wantJSON, stderr)
	}
	for _, args := range [][]string{
		{"cat", first, "--null", "NA"},
		{"cat", first, "--format", "json", "--null", "NA"},
		{"export", "--null", "NA", first, filepath.Join(dir, "t.parquet")},
		{"cat", first, "--format", "csv", "--null", `"x"`},
	} {
		if _, _, err := capture(t, args[0], args[1:]...); exitCode(err) != 2 {
			t.Errorf("%q: %v, want a usage error", args, err)
		}
	}
}
