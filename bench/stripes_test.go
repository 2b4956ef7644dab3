//go:build !nostrata

package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/parquet/file"

	"strata"
)

// TestRealStripeRows: --stripe-rows writes Strata's stripes and arrow-go's
// row groups of that many rows, and is refused with a system it does not
// reach.
func TestRealStripeRows(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "types.parquet")
	writeTypesParquet(t, path, 1000)
	src, err := readParquetSource(path)
	if err != nil {
		t.Fatal(err)
	}
	cfg := config{threads: 1, stripeRows: 300}
	want := []int64{300, 300, 300, 100}
	pq, err := newArrowSys("zstd", cfg).Write(t.TempDir(), src)
	if err != nil {
		t.Fatal(err)
	}
	pf, err := file.OpenParquetFile(pq, false)
	if err != nil {
		t.Fatal(err)
	}
	var groups []int64
	for g := 0; g < pf.NumRowGroups(); g++ {
		groups = append(groups, pf.MetaData().RowGroup(g).NumRows())
	}
	pf.Close()
	if !equalRows(groups, want) {
		t.Errorf("arrow-go row groups of %v rows, want %v", groups, want)
	}
	sp, err := newStrataSys("default", cfg).Write(t.TempDir(), src)
	if err != nil {
		t.Fatal(err)
	}
	f, err := strata.Open(sp)
	if err != nil {
		t.Fatal(err)
	}
	var stripes []int64
	for _, s := range f.Splits(0) {
		stripes = append(stripes, s.Rows)
	}
	f.Close()
	if !equalRows(stripes, want) {
		t.Errorf("Strata stripes of %v rows, want %v", stripes, want)
	}
	var stdout, stderr bytes.Buffer
	args := []string{"--real", path, "--runs", "1", "--stripe-rows", "300", "--systems", "strata/default,duckdb/native"}
	if code := run(args, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), "duckdb/native") {
		t.Errorf("--stripe-rows with duckdb/native: exit %d\n%s", code, stderr.String())
	}
}

func equalRows(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
