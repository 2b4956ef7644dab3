package main

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata"
	"strata/internal/randtable"
)

// readAll scans every column of a Strata file into one record.
func readAll(t *testing.T, path string) arrow.RecordBatch {
	t.Helper()
	f, err := strata.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc, err := f.Scan(strata.ScanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	var recs []arrow.RecordBatch
	for {
		rec, err := sc.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, rec)
	}
	all, err := randtable.Concat(memory.DefaultAllocator, f.Schema(), recs)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		r.Release()
	}
	return all
}

// TestImportOptimize runs `strata import --optimize` with each goal on the
// same data: every file reads back the same values, size writes the fewest
// bytes and speed the most, and an unknown goal is a usage error.
func TestImportOptimize(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "lineitem.strata")
	writeLineitem(t, src)
	arrowPath := filepath.Join(dir, "lineitem.arrow")
	if err := run("export", []string{"--quiet", src, arrowPath}); err != nil {
		t.Fatal(err)
	}
	want := readAll(t, src)
	defer want.Release()
	sizes := map[string]int64{}
	for _, goal := range []string{"speed", "balanced", "size"} {
		dst := filepath.Join(dir, goal+".strata")
		if err := run("import", []string{"--quiet", "--optimize", goal, arrowPath, dst}); err != nil {
			t.Fatalf("%s: %v", goal, err)
		}
		st, err := os.Stat(dst)
		if err != nil {
			t.Fatal(err)
		}
		sizes[goal] = st.Size()
		got := readAll(t, dst)
		if !array.RecordEqual(want, got) {
			t.Errorf("%s: values differ from the source", goal)
		}
		got.Release()
	}
	t.Logf("bytes: %v", sizes)
	if !(sizes["size"] <= sizes["balanced"] && sizes["balanced"] < sizes["speed"]) {
		t.Errorf("bytes out of order: %v", sizes)
	}
	err := run("import", []string{"--quiet", "--optimize", "fast", arrowPath, filepath.Join(dir, "x.strata")})
	if err == nil || exitCode(err) != exitUsage {
		t.Errorf("--optimize fast: %v (exit %d), want a usage error", err, exitCode(err))
	}
}
