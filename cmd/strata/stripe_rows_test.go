package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/parquet/file"

	"strata"
	"strata/interop"
)

// writeRowsTable writes dir/t.parquet, 2,500 rows of an int64 column and
// a string column of 40 values, and returns its path.
func writeRowsTable(t *testing.T, dir string) string {
	t.Helper()
	src := filepath.Join(dir, "t.parquet")
	xs := make([]*int64, 2500)
	ss := make([]string, len(xs))
	for i := range xs {
		v := int64(i * 7)
		xs[i], ss[i] = &v, fmt.Sprintf("name %d", i%40)
	}
	writeTable(t, src, false, xs, ss)
	return src
}

// TestImportStripeRows: import --stripe-rows ends a stripe every N rows;
// a negative count is a usage error.
func TestImportStripeRows(t *testing.T) {
	dir := t.TempDir()
	src := writeRowsTable(t, dir)
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

// TestSizesStripeRows: sizes --stripe-rows weighs the Strata file of
// stripes of N rows against the source rewritten in row groups of N rows
// (kept beside it under --keep), not against the source's own groups.
func TestSizesStripeRows(t *testing.T) {
	dir := t.TempDir()
	src := writeRowsTable(t, dir)
	keep := filepath.Join(dir, "keep")
	jsonPath := filepath.Join(dir, "r.json")
	out, stderr, err := capture(t, "sizes", "--quiet", "--stripe-rows", "1000", "--keep", keep, "--json", jsonPath, src)
	if err != nil {
		t.Fatalf("sizes: %v\n%s", err, stderr)
	}
	if !strings.Contains(out, "row groups of 1000 rows") {
		t.Errorf("no word of the rewritten Parquet file:\n%s", out)
	}
	b, err := os.ReadFile(jsonPath)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Sets []struct {
			Parquet int64 `json:"parquet_bytes"`
		} `json:"sets"`
	}
	if err := json.Unmarshal(b, &rep); err != nil || len(rep.Sets) != 1 {
		t.Fatalf("report %s: %v", b, err)
	}
	rewritten := filepath.Join(keep, "t.rowgroups.parquet")
	pq, err := interop.ReadParquetSizes(rewritten)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Sets[0].Parquet != pq.File || pq.File == fileSize(src) {
		t.Errorf("parquet bytes %d, the rewritten file %d, the source %d", rep.Sets[0].Parquet, pq.File, fileSize(src))
	}
	pf, err := file.OpenParquetFile(rewritten, false)
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	var groups []int64
	for g := 0; g < pf.NumRowGroups(); g++ {
		groups = append(groups, pf.MetaData().RowGroup(g).NumRows())
	}
	if fmt.Sprint(groups) != "[1000 1000 500]" {
		t.Errorf("the rewritten file's row groups hold %v rows, want [1000 1000 500]", groups)
	}
}
