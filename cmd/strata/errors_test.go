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

// TestExitCodes runs commands whose command lines are wrong, that ask for
// help, and verify over good, corrupt and missing files: each exits with
// the status the usage text documents (0 done, 1 failed, 2 the command
// line is wrong, 3 a file is corrupt), help printed on stdout, and a
// negative --threads refused alike by every command that takes it.
func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.strata")
	writeLineitem(t, good)
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)/3] ^= 0xff // inside the stripes: it opens, a chunk fails its checksum
	bad := filepath.Join(dir, "bad.strata")
	if err := os.WriteFile(bad, data, 0o644); err != nil {
		t.Fatal(err)
	}
	csvPath := filepath.Join(dir, "a.csv")
	if err := os.WriteFile(csvPath, []byte("a\n1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing.strata")
	const threads = `invalid value "-3" for flag -threads: want a count of goroutines, 0 or more`
	for _, c := range []struct {
		args []string
		code int
		// stdout and the error hold these
		out, msg string
	}{
		{[]string{"cat", good, "--bogus"}, exitUsage, "", "flag provided but not defined: -bogus"},
		{[]string{"scan", good, "--limit", "abc"}, exitUsage, "", `invalid value "abc" for flag -limit`},
		{[]string{"import", "--infer-rows", "abc", csvPath, filepath.Join(dir, "b.strata")}, exitUsage, "", "-infer-rows"},
		{[]string{"take", good, "-1"}, exitUsage, "", "-1"},
		{[]string{"import", "-h"}, exitOK, "-infer-rows", ""},
		{[]string{"cat", "--help"}, exitOK, "-columns", ""},
		{[]string{"agg", "-h"}, exitOK, "-where", ""},
		{[]string{"calibrate", "-h"}, exitOK, "-rounds", ""},
		{[]string{"ts", "query", "-h"}, exitOK, "-series", ""},
		{[]string{"verify", "-h"}, exitOK, "Usage of verify", ""},
		{[]string{"verify", "--bogus", good}, exitUsage, "", "-bogus"},
		{[]string{"verify", good}, exitOK, good + ": ok", ""},
		{[]string{"verify", missing}, exitFailed, "missing.strata: no such file", "1 of 1 files could not be read"},
		{[]string{"verify", bad}, exitCorrupt, "bad.strata: CORRUPT: ", "1 of 1 files corrupt"},
		{[]string{"verify", good, bad, missing}, exitCorrupt, good + ": ok", "1 of 3 files corrupt, 1 could not be read"},
		{[]string{"verify", filepath.Join(dir, "none*.strata")}, exitFailed, "no file matches", ""},
		{[]string{"cat", good, "--threads", "-3"}, exitUsage, "", threads},
		{[]string{"scan", good, "--threads", "-3"}, exitUsage, "", threads},
		{[]string{"take", good, "0", "--threads", "-3"}, exitUsage, "", threads},
		{[]string{"agg", good, "count(*)", "--threads", "-3"}, exitUsage, "", threads},
		{[]string{"export", good, filepath.Join(dir, "o.csv"), "--threads", "-3"}, exitUsage, "", threads},
		{[]string{"import", "--threads", "-3", csvPath, filepath.Join(dir, "b.strata")}, exitUsage, "", threads},
		{[]string{"sizes", "--threads", "-3", dir}, exitUsage, "", threads},
		{[]string{"ts", "query", good, "--threads", "-3"}, exitUsage, "", threads},
		{[]string{"cat", good, "--threads", "2", "--limit", "1"}, exitOK, "l_orderkey", ""},
		// (a count of hosts far past any benchmark's used to exhaust memory)
		{[]string{"gen", "tsbs", "--hosts", "100000000000", filepath.Join(dir, "g.strata")}, exitUsage, "", "--hosts 100000000000: want 1 to 10000000"},
		{[]string{"gen", "tsbs", "--hosts", "0", filepath.Join(dir, "g.strata")}, exitUsage, "", "--hosts 0: want 1"},
		{[]string{"gen", "tsbs", "--duration", "-1h", filepath.Join(dir, "g.strata")}, exitUsage, "", "--duration -1h0m0s: want a span above zero"},
		// (import and sizes took a stripe or chunk size of zero or less as the default, and a --stripe-mb past 2^43 wrapped)
		{[]string{"import", "--stripe-mb", "0", csvPath, filepath.Join(dir, "b.strata")}, exitUsage, "", "--stripe-mb 0: want 1 to 8796093022207"},
		{[]string{"import", "--stripe-mb", "9223372036854775807", csvPath, filepath.Join(dir, "b.strata")}, exitUsage, "", "--stripe-mb 9223372036854775807: want 1 to"},
		{[]string{"import", "--chunk-values", "-5", csvPath, filepath.Join(dir, "b.strata")}, exitUsage, "", "--chunk-values -5: want 1 or more"},
		{[]string{"import", "--chunk-target", "0", csvPath, filepath.Join(dir, "b.strata")}, exitUsage, "", "--chunk-target 0: want encoded bytes above zero"},
		{[]string{"import", "--chunk-target", "-1", "--chunk-values", "1000", csvPath, filepath.Join(dir, "c.strata")}, exitOK, "", ""},
		// (a demo of no runs panicked taking the median of none)
		{[]string{"demo", "--runs", "0"}, exitUsage, "", "--runs 0: want 1 or more"},
		{[]string{"demo", "--runs", "-1"}, exitUsage, "", "--runs -1: want 1 or more"},
		{[]string{"demo", "--sf", "NaN"}, exitUsage, "", "--sf NaN: want a scale factor in (0, 300]"},
		// (a size whose product with its unit wrapped around read as a negative one: a split per stripe)
		{[]string{"splits", good, "--target", "8589934592GiB"}, exitUsage, "", `--target: size "8589934592GiB": at most 9223372036854775807 bytes`},
		{[]string{"splits", good, "--target", "9223372036854775807"}, exitOK, `"first_stripe":0`, ""},
		{[]string{"gen", "tsbs", "--interval", "0s", filepath.Join(dir, "g.strata")}, exitUsage, "", "--interval 0s: want an interval above zero"},
	} {
		out, _, err := capture(t, c.args[0], c.args[1:]...)
		if code := exitCode(err); code != c.code {
			t.Errorf("strata %s: exit %d (%v), want %d", strings.Join(c.args, " "), code, err, c.code)
		}
		if !strings.Contains(out, c.out) {
			t.Errorf("strata %s: stdout %q, want it to hold %q", strings.Join(c.args, " "), out, c.out)
		}
		if c.msg != "" && (err == nil || !strings.Contains(err.Error(), c.msg)) {
			t.Errorf("strata %s: error %v, want %q", strings.Join(c.args, " "), err, c.msg)
		}
	}
}

// TestCalibrateFlags: calibrate's counts are checked before a run (the
// checks are tested directly: unchecked, --rows 10¹² ran out of memory and
// --rows 0 ran a full calibration with the default).
func TestCalibrateFlags(t *testing.T) {
	for _, c := range []struct {
		rows, rounds, reps int
		msg                string
	}{
		{1 << 30, 15, 10, "--rows 1073741824: want 1 to 268435456"}, // (1 << 30 fits a 32-bit int)
		{0, 15, 10, "--rows 0: want 1 to"},
		{-1, 15, 10, "--rows -1: want 1 to"},
		{8192, -1, 10, "--rounds -1: want 1 or more"},
		{8192, 15, 0, "--reps 0: want 1 or more"},
		{8192, 15, 10, ""},
		{1 << 28, 1, 1, ""},
	} {
		err := checkCalibrateFlags(c.rows, c.rounds, c.reps)
		if c.msg == "" {
			if err != nil {
				t.Errorf("%d, %d, %d: %v", c.rows, c.rounds, c.reps, err)
			}
			continue
		}
		if exitCode(err) != exitUsage || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%d, %d, %d: %v (exit %d), want a usage error %q", c.rows, c.rounds, c.reps, err, exitCode(err), c.msg)
		}
	}
}
