package main

import (
	"path/filepath"
	"strings"
	"testing"

	"strata"
)

// TestImportStripeRows: import --stripe-rows ends a stripe every N rows;
// a negative count is a usage error.
func TestImportStripeRows(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "t.parquet")
	xs := make([]*int64, 2500)
	ss := make([]string, len(xs))
	for i := range xs {
		v := int64(i * 7)
		xs[i], ss[i] = &v, strings.Repeat("x", i%5)
	}
	writeTable(t, src, false, xs, ss)
	dst := filepath.Join(dir, "t.strata")
	if _, stderr, err := capture(t, "import", "--quiet", "--stripe-rows", "1000", src, dst); err != nil {
		t.Fatalf("import: %v\n%s", err, stderr)
	}
	f, err := strata.Open(dst)
	if err != nil {
		t.Fatal(err)
	}
	var rows []int64
	for _, s := range f.Splits(0) {
		rows = append(rows, s.Rows)
	}
	f.Close()
	if len(rows) != 3 || rows[0] != 1000 || rows[1] != 1000 || rows[2] != 500 {
		t.Errorf("--stripe-rows 1000 of 2,500 rows: stripes of %v rows", rows)
	}
	_, _, err = capture(t, "import", "--quiet", "--stripe-rows", "-5", src, filepath.Join(dir, "u.strata"))
	if err == nil || !strings.Contains(err.Error(), "--stripe-rows -5") || exitCode(err) != 2 {
		t.Errorf("--stripe-rows -5: %v", err)
	}
}
