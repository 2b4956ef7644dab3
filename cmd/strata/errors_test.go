package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"strata"
)

// TestErrorsAdvise checks that the commonest mistakes get an error that
// says what to do, and the exit code the usage text documents.
func TestErrorsAdvise(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "lineitem.strata")
	writeLineitem(t, path)

	_, err := openFile(filepath.Join(dir, "missing.strata"))
	if err == nil || !strings.Contains(err.Error(), "missing.strata: no such file") || !errors.Is(err, os.ErrNotExist) || exitCode(err) != exitFailed {
		t.Errorf("missing file: %v (exit %d)", err, exitCode(err))
	}
	pq := filepath.Join(dir, "t.parquet")
	if err := os.WriteFile(pq, []byte("PAR1 not really a parquet file, but it starts like one PAR1"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = openFile(pq)
	if err == nil || !strings.Contains(err.Error(), "is a Parquet file") || !strings.Contains(err.Error(), "strata import") || exitCode(err) != exitCorrupt {
		t.Errorf("parquet file: %v (exit %d)", err, exitCode(err))
	}

	// import writes Strata: a foreign extension on its output is refused,
	// and nothing is written
	for _, dst := range []string{"out.parquet", "out.csv", "out.feather"} {
		err := runImport([]string{"--quiet", pq, filepath.Join(dir, dst)})
		if err == nil || !strings.Contains(err.Error(), "import writes a Strata file") || exitCode(err) != exitUsage {
			t.Errorf("import to %s: %v (exit %d)", dst, err, exitCode(err))
		}
		if _, err := os.Stat(filepath.Join(dir, dst)); !os.IsNotExist(err) {
			t.Errorf("import to %s left a file (%v)", dst, err)
		}
	}

	f, err := openFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, c := range []struct {
		where, want string
	}{
		{"l_shipdat > DATE '1995-01-01'", `did you mean "l_shipdate"?`},
		{"l_comment = 5", `text literals are quoted: '5'`},
		{"l_shipdate >", "filter"},
	} {
		_, err := f.Scan(strata.ScanOptions{Where: c.where})
		if err == nil || !strings.Contains(err.Error(), c.want) || exitCode(err) != exitUsage {
			t.Errorf("where %q: %v (exit %d), want %q and exit %d", c.where, err, exitCode(err), c.want, exitUsage)
		}
	}
	_, err = f.Scan(strata.ScanOptions{Columns: []string{"l_orderky"}})
	if err == nil || !strings.Contains(err.Error(), `did you mean "l_orderkey"?`) || exitCode(err) != exitUsage {
		t.Errorf("projection: %v (exit %d)", err, exitCode(err))
	}
	// Offsets, limits and row numbers no file could satisfy are the
	// command line's fault, filtered or not, never a panic.
	for _, o := range []strata.ScanOptions{{Offset: -5, Limit: 2}, {Limit: -1}, {Where: "l_quantity > 10", Offset: -5, Limit: 2}} {
		_, err := f.Scan(o)
		if err == nil || !strings.Contains(err.Error(), "negative") || exitCode(err) != exitUsage {
			t.Errorf("scan %+v: %v (exit %d), want a negative-argument error and exit %d", o, err, exitCode(err), exitUsage)
		}
	}
	if _, err := f.Take([]int64{-1}, nil); err == nil || exitCode(err) != exitUsage {
		t.Errorf("take of row -1: %v (exit %d), want exit %d", err, exitCode(err), exitUsage)
	}
	for _, e := range []string{"min(l_quantity", "", "median(l_quantity)", "sum(l_comment)", "sum(l_shipdate)"} {
		if _, _, err := f.Aggregate(strata.AggregateOptions{Exprs: e}); err == nil || exitCode(err) != exitUsage {
			t.Errorf("aggregate %q: %v (exit %d), want exit %d", e, err, exitCode(err), exitUsage)
		}
	}
	if exitCode(usagef("x")) != exitUsage || exitCode(nil) != exitOK {
		t.Error("usage errors and success map to the wrong exit codes")
	}
}
