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
