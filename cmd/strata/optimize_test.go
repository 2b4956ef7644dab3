package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
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

// lineitemSource writes a small lineitem table as a Strata file (src) and
// exports it as Arrow IPC (arrowPath) in a temporary directory, and
// returns its rows for comparison.
func lineitemSource(t *testing.T) (dir, src, arrowPath string, want arrow.RecordBatch) {
	t.Helper()
	dir = t.TempDir()
	src = filepath.Join(dir, "lineitem.strata")
	writeLineitem(t, src)
	arrowPath = filepath.Join(dir, "lineitem.arrow")
	if err := run("export", []string{"--quiet", src, arrowPath}); err != nil {
		t.Fatal(err)
	}
	return dir, src, arrowPath, readAll(t, src)
}

// TestImportOptimize runs `strata import --optimize` with each goal on the
// same data: every file reads back the same values, size writes the fewest
// bytes and speed the most, and an unknown goal is a usage error.
func TestImportOptimize(t *testing.T) {
	dir, _, arrowPath, want := lineitemSource(t)
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

// TestImportLayoutFrom imports a table replaying the layouts of an earlier
// file of it: the values read back, the file is about as small as a fresh
// import, and a layout file that cannot be opened is an error, not a
// silent fresh import.
func TestImportLayoutFrom(t *testing.T) {
	dir, src, arrowPath, want := lineitemSource(t)
	defer want.Release()
	fresh := filepath.Join(dir, "fresh.strata")
	replayed := filepath.Join(dir, "replayed.strata")
	if err := run("import", []string{"--quiet", arrowPath, fresh}); err != nil {
		t.Fatal(err)
	}
	if err := run("import", []string{"--quiet", "--layout-from", src, arrowPath, replayed}); err != nil {
		t.Fatal(err)
	}
	got := readAll(t, replayed)
	if !array.RecordEqual(want, got) {
		t.Error("values differ from the source")
	}
	got.Release()
	a, err := os.Stat(fresh)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.Stat(replayed)
	if err != nil {
		t.Fatal(err)
	}
	if float64(b.Size()) > 1.1*float64(a.Size()) {
		t.Errorf("replayed import %d bytes, fresh %d", b.Size(), a.Size())
	}
	err = run("import", []string{"--quiet", "--layout-from", filepath.Join(dir, "missing.strata"), arrowPath, filepath.Join(dir, "x.strata")})
	if err == nil || !strings.Contains(err.Error(), "--layout-from") {
		t.Errorf("missing layout file: %v", err)
	}
}

// TestImportThreads imports the same table with one encoding goroutine
// and with several, which also encode each stripe while the next is read
// (stripes of 1 MiB make several): the files are byte for byte the same
// and hold the generated rows, and a negative count is a usage error.
func TestImportThreads(t *testing.T) {
	dir := t.TempDir()
	src, direct := filepath.Join(dir, "li.parquet"), filepath.Join(dir, "li.strata")
	for _, out := range []string{src, direct} {
		if err := run("gen", []string{"tpch", "--sf", "0.03", "--quiet", out}); err != nil {
			t.Fatal(err)
		}
	}
	var files [][]byte
	for _, n := range []string{"1", "3"} {
		dst := filepath.Join(dir, "t"+n+".strata")
		if err := run("import", []string{"--quiet", "--threads", n, "--stripe-mb", "1", src, dst}); err != nil {
			t.Fatalf("--threads %s: %v", n, err)
		}
		b, err := os.ReadFile(dst)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, b)
	}
	if !bytes.Equal(files[0], files[1]) {
		t.Errorf("--threads 1 wrote %d bytes, --threads 3 %d other bytes", len(files[0]), len(files[1]))
	}
	f, err := strata.Open(filepath.Join(dir, "t3.strata"))
	if err != nil {
		t.Fatal(err)
	}
	if n := f.NumStripes(); n < 3 {
		t.Errorf("%d stripes: the test needs several", n)
	}
	f.Close()
	want, got := readAll(t, direct), readAll(t, filepath.Join(dir, "t3.strata"))
	if !array.RecordEqual(want, got) {
		t.Error("values differ from the generated table")
	}
	want.Release()
	got.Release()
	err = run("import", []string{"--quiet", "--threads", "-1", src, filepath.Join(dir, "x.strata")})
	if err == nil || exitCode(err) != exitUsage {
		t.Errorf("--threads -1: %v (exit %d), want a usage error", err, exitCode(err))
	}
}
