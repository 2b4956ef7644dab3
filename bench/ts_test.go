package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"strata/tsbs"
)

// TestTSHarness runs the time-series harness end to end at tiny scale:
// every system writes the data and answers every query, and the answers
// agree.
func TestTSHarness(t *testing.T) {
	var stdout, stderr bytes.Buffer
	args := []string{"--hosts", "8", "--duration", "3h", "--runs", "1", "--windows", "100", "--duck-windows", "20",
		"--length", "64", "--dir", t.TempDir()}
	if code := runTS(args, &stdout, &stderr); code != 0 {
		t.Fatalf("bench ts exited %d\nstderr:\n%s\nstdout:\n%s", code, stderr.String(), stdout.String())
	}
	if !strings.Contains(stderr.String(), "all results agree") {
		t.Fatalf("cross-check did not pass:\n%s", stderr.String())
	}
	for _, sys := range []string{"strata", "parquet-go", "arrow-go", "duckdb-native", "duckdb-parquet"} {
		if !strings.Contains(stdout.String(), sys) {
			t.Errorf("no row for %s:\n%s", sys, stdout.String())
		}
	}
	if strings.Contains(stdout.String(), "ERROR") {
		t.Fatalf("a system failed:\n%s", stdout.String())
	}
	t.Log(stdout.String())
}

// TestTSReal runs --real on a small Parquet file of the generator's rows:
// both files are written, the series are counted, and the latest points
// come from metadata (no data bytes).
func TestTSReal(t *testing.T) {
	dir := t.TempDir()
	g, err := tsbs.New(tsbs.Options{Hosts: 3, Duration: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "three.parquet")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	fw, err := pqarrow.NewFileWriter(g.Schema(), f, nil, pqarrow.DefaultWriterProps())
	if err != nil {
		t.Fatal(err)
	}
	for {
		rec, err := g.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := fw.Write(rec); err != nil {
			t.Fatal(err)
		}
		rec.Release()
	}
	if err := fw.Close(); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := runTS([]string{"--real", path + "@time@hostname", "--dir", dir}, &stdout, &stderr); code != 0 {
		t.Fatalf("bench ts --real exited %d\nstderr:\n%s\nstdout:\n%s", code, stderr.String(), stdout.String())
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("want a header and one row:\n%s", stdout.String())
	}
	row := strings.Fields(lines[1])
	// set rows series source duck strata ratio last-ms last-data-bytes
	if len(row) != 9 || row[0] != "three" || row[1] != "1080" || row[2] != "3" || row[8] != "0" {
		t.Fatalf("row %q, want three, 1080 rows, 3 series, 0 data bytes for last", row)
	}
	for _, name := range []string{"duck.parquet", "data.strata"} {
		if st, err := os.Stat(filepath.Join(dir, "three", name)); err != nil || st.Size() == 0 {
			t.Fatalf("%s not written: %v", name, err)
		}
	}
}
