package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"strata/internal/objtest"
)

// TestScanPattern scans three files through one pattern, locally and as
// s3:// objects, and compares the rows with the files' own scans put end to
// end: the offset and limit count across the files, with and without a
// filter.
func TestScanPattern(t *testing.T) {
	dir := t.TempDir()
	var rows [][]string // each file's own CSV rows, unfiltered and filtered
	var frows [][]string
	const where = "l_quantity < 800" // (hundredths)
	var header string
	for i := range 3 {
		path := filepath.Join(dir, fmt.Sprintf("part%d.strata", i))
		if _, _, err := capture(t, "gen", "tpch", "--sf", "0.001", "--seed", fmt.Sprint(i+5), path); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			args []string
			into *[][]string
		}{{[]string{"cat"}, &rows}, {[]string{"scan", "--where", where}, &frows}} {
			out, stderr, err := capture(t, c.args[0], append(c.args[1:], path, "--format", "csv", "--columns", "l_orderkey,l_linenumber,l_quantity")...)
			if err != nil {
				t.Fatalf("%v: %v\n%s", c.args, err, stderr)
			}
			lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			header = lines[0]
			*c.into = append(*c.into, lines[1:])
		}
	}
	// a file outside the pattern
	if _, _, err := capture(t, "gen", "tpch", "--sf", "0.001", filepath.Join(dir, "other.strata")); err != nil {
		t.Fatal(err)
	}
	expect := func(files [][]string, offset, limit int) string {
		var all []string
		for _, f := range files {
			all = append(all, f...)
		}
		all = all[min(offset, len(all)):]
		if limit > 0 {
			all = all[:min(limit, len(all))]
		}
		return strings.Join(append([]string{header}, all...), "\n") + "\n"
	}
	n0, n01 := len(rows[0]), len(rows[0])+len(rows[1])
	f0 := len(frows[0])
	if f0 == 0 || len(frows[1]) == 0 {
		t.Fatal("the filter keeps no row of a file")
	}
	cases := []struct{ offset, limit int }{{0, 0}, {0, 7}, {5, 10}, {n0 - 2, 5}, {n01 + 3, 0}, {n01 + len(rows[2]) + 5, 0}}
	fcases := []struct{ offset, limit int }{{0, 0}, {f0 - 1, 3}, {f0 + 1, 0}, {0, f0 + 2}}
	check := func(name, pattern string, extra ...string) {
		t.Helper()
		for _, filtered := range []bool{false, true} {
			cs, files, args := cases, rows, []string{"cat"}
			if filtered {
				cs, files, args = fcases, frows, []string{"scan", "--where", where}
			}
			for _, c := range cs {
				a := append(append(args[1:], pattern, "--format", "csv", "--columns", "l_orderkey,l_linenumber,l_quantity",
					"--offset", fmt.Sprint(c.offset), "--limit", fmt.Sprint(c.limit)), extra...)
				got, stderr, err := capture(t, args[0], a...)
				if err != nil {
					t.Fatalf("%s %v: %v\n%s", name, a, err, stderr)
				}
				if want := expect(files, c.offset, c.limit); got != want {
					t.Errorf("%s %s offset %d limit %d: %d lines, want %d", name, args[0], c.offset, c.limit,
						strings.Count(got, "\n"), strings.Count(want, "\n"))
				}
			}
		}
	}
	check("local", filepath.Join(dir, "part*.strata"))

	// agg over the pattern: the per-file counts and sums add, the minima
	// and maxima are the least and greatest of the files'.
	const aggs = "count(*), sum(l_quantity), min(l_orderkey), max(l_shipdate)"
	var count, sum, least int64
	var latest string
	for i := range 3 {
		out, stderr, err := capture(t, "agg", filepath.Join(dir, fmt.Sprintf("part%d.strata", i)), aggs, "--where", where)
		if err != nil {
			t.Fatalf("agg: %v\n%s", err, stderr)
		}
		v := aggLines(t, out)
		count += atoi(t, v[0])
		sum += atoi(t, v[1])
		if k := atoi(t, v[2]); i == 0 || k < least {
			least = k
		}
		latest = max(latest, v[3])
	}
	wantAgg := fmt.Sprintf("count(*) = %d\nsum(l_quantity) = %d\nmin(l_orderkey) = %d\nmax(l_shipdate) = %s\n", count, sum, least, latest)
	checkAgg := func(name, pattern string, extra ...string) {
		t.Helper()
		got, stderr, err := capture(t, "agg", append([]string{pattern, aggs, "--where", where}, extra...)...)
		if err != nil {
			t.Fatalf("%s agg: %v\n%s", name, err, stderr)
		}
		if got != wantAgg {
			t.Errorf("%s agg over the pattern:\n%s\nwant:\n%s", name, got, wantAgg)
		}
	}
	checkAgg("local", filepath.Join(dir, "part*.strata"))

	// take over the pattern: row numbers run on from file to file
	var all []string
	for _, f := range rows {
		all = append(all, f...)
	}
	takeRows := []int{n01 + 1, 0, n0 - 1, n0, len(all) - 1, n0, 3}
	checkTake := func(name, pattern string, extra ...string) {
		t.Helper()
		args := []string{pattern}
		want := []string{header}
		for _, r := range takeRows {
			args = append(args, fmt.Sprint(r))
			want = append(want, all[r])
		}
		args = append(append(args, "--format", "csv", "--columns", "l_orderkey,l_linenumber,l_quantity"), extra...)
		got, stderr, err := capture(t, "take", args...)
		if err != nil {
			t.Fatalf("%s take: %v\n%s", name, err, stderr)
		}
		if w := strings.Join(want, "\n") + "\n"; got != w {
			t.Errorf("%s take over the pattern:\n%s\nwant:\n%s", name, got, w)
		}
		if _, _, err := capture(t, "take", append([]string{pattern, fmt.Sprint(len(all))}, extra...)...); err == nil || !strings.Contains(err.Error(), "out of range") {
			t.Errorf("%s take past the last file's rows: %v", name, err)
		}
	}
	checkTake("local", filepath.Join(dir, "part*.strata"))
	// take opens the files only as far as the last row asked for: a
	// damaged file after them is not read
	tdir := t.TempDir()
	for i := range 3 {
		data, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("part%d.strata", i)))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(tdir, fmt.Sprintf("part%d.strata", i)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(tdir, "part3.strata"), []byte("not a Strata file"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, stderr, err := capture(t, "take", filepath.Join(tdir, "part*.strata"), "1", fmt.Sprint(n0+1), "--format", "csv", "--columns", "l_orderkey,l_linenumber,l_quantity")
	if err != nil {
		t.Fatalf("take before a damaged file: %v\n%s", err, stderr)
	}
	if w := header + "\n" + all[1] + "\n" + all[n0+1] + "\n"; got != w {
		t.Errorf("take before a damaged file:\n%s\nwant:\n%s", got, w)
	}
	if _, _, err := capture(t, "take", filepath.Join(tdir, "part*.strata"), fmt.Sprint(len(all))); err == nil || !strings.Contains(err.Error(), "part3.strata") {
		t.Errorf("take of a row past the good files: %v, want an error naming part3.strata", err)
	}

	// export of the pattern: the files' rows in order, in one CSV file
	csvOut := filepath.Join(t.TempDir(), "all.csv")
	if _, stderr, err := capture(t, "export", filepath.Join(dir, "part*.strata"), csvOut, "--columns", "l_orderkey,l_linenumber,l_quantity"); err != nil {
		t.Fatalf("export: %v\n%s", err, stderr)
	}
	if got, err := os.ReadFile(csvOut); err != nil || string(got) != expect(rows, 0, 0) {
		t.Errorf("export of the pattern: %d lines, want %d (%v)", strings.Count(string(got), "\n"), strings.Count(expect(rows, 0, 0), "\n"), err)
	}
	// verify checks every file a pattern matches
	if out, _, err := capture(t, "verify", filepath.Join(dir, "part*.strata")); err != nil || strings.Count(out, ": ok\n") != 3 {
		t.Errorf("verify of the pattern: %v\n%s", err, out)
	}
	if out, _, err := capture(t, "verify", filepath.Join(dir, "none*.strata")); err == nil || !strings.Contains(out, "no file matches") {
		t.Errorf("verify of a pattern matching nothing: %v\n%s", err, out)
	}

	srv := objtest.Need(t)
	for i := range 3 {
		data, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("part%d.strata", i)))
		if err != nil {
			t.Fatal(err)
		}
		for _, key := range []string{fmt.Sprintf("pat/part%d.strata", i), fmt.Sprintf("pat/old/part%d.strata", i)} {
			if err := srv.Put(context.Background(), "cli", key, data); err != nil {
				t.Fatal(err)
			}
		}
	}
	// The bucket listed with the command's flags, the environment cleared.
	for _, k := range []string{"AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"} {
		t.Setenv(k, "")
	}
	s3flags := []string{"--endpoint", srv.Endpoint, "--region", srv.Region, "--access-key", srv.AccessKey, "--secret-key", srv.SecretKey}
	check("s3", "s3://cli/pat/part?.strata", s3flags...)
	checkAgg("s3", "s3://cli/pat/part?.strata", s3flags...)
	checkTake("s3", "s3://cli/pat/part?.strata", s3flags...)

	// Files of other columns, a split of several files, no match.
	local := filepath.Join(dir, "*.strata")
	if err := os.WriteFile(filepath.Join(dir, "zz.csv"), []byte("a,b\n1,x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := capture(t, "import", "--quiet", filepath.Join(dir, "zz.csv"), filepath.Join(dir, "zz.strata")); err != nil {
		t.Fatal(err)
	}
	if _, _, err := capture(t, "cat", local, "--format", "csv"); err == nil || !strings.Contains(err.Error(), "different columns") {
		t.Errorf("files of different columns: %v", err)
	}
	if _, _, err := capture(t, "scan", local, "--split", `{"stripes":[0,1]}`); err == nil || exitCode(err) != 2 {
		t.Errorf("a split over a pattern: %v", err)
	}
	if _, _, err := capture(t, "agg", local, "count(*)", "--split", `{"stripes":[0,1]}`); err == nil || exitCode(err) != 2 {
		t.Errorf("agg: a split over a pattern: %v", err)
	}
	if _, _, err := capture(t, "agg", local, "sum(a)"); err == nil {
		t.Errorf("agg over files of other columns: %v", err)
	}
	if _, _, err := capture(t, "export", local, filepath.Join(dir, "mixed.csv")); err == nil || !strings.Contains(err.Error(), "different columns") {
		t.Errorf("export of files of other columns: %v", err)
	}
	if _, _, err := capture(t, "cat", filepath.Join(dir, "none*.strata")); err == nil || !strings.Contains(err.Error(), "no file matches") {
		t.Errorf("no match: %v", err)
	}
}

// aggLines returns the values of agg's "name = value" lines.
func aggLines(t *testing.T, out string) []string {
	t.Helper()
	var v []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		_, val, ok := strings.Cut(line, " = ")
		if !ok {
			t.Fatalf("agg printed %q", line)
		}
		v = append(v, val)
	}
	return v
}

func atoi(t *testing.T, s string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestPatternOtherColumns reads patterns of files whose columns differ:
// cat, scan, take and export refuse them before printing or writing a row,
// in one line naming the file and the column that differs; columns the
// files share may still be read.
func TestPatternOtherColumns(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"p1": "a,b\n1,2\n", "p2": "a,c\n3,4\n",
		"q1": "a,b\n1,2\n", "q2": "a,b\nx,4\n",
	} {
		src := filepath.Join(dir, name+".csv")
		if err := os.WriteFile(src, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, stderr, err := capture(t, "import", "--quiet", src, filepath.Join(dir, name+".strata")); err != nil {
			t.Fatalf("import: %v\n%s", err, stderr)
		}
	}
	p, q := filepath.Join(dir, "p?.strata"), filepath.Join(dir, "q?.strata")
	p2, q2 := filepath.Join(dir, "p2.strata"), filepath.Join(dir, "q2.strata")
	out := filepath.Join(dir, "out.csv")
	for _, c := range []struct {
		args []string
		want []string // in the error
	}{
		{[]string{"cat", p}, []string{p2, `no column "b"`}},
		{[]string{"scan", p, "--where", "a > 0"}, []string{p2, `no column "b"`}},
		{[]string{"take", p, "0", "1"}, []string{p2, `no column "b"`}},
		{[]string{"export", p, out}, []string{p2, `no column "b"`}},
		{[]string{"cat", q, "--format", "json"}, []string{q2, `column "a" is utf8, int64 in the first file`}},
		{[]string{"cat", q, "--columns", "b,a"}, []string{q2, `column "a" is utf8`}},
		{[]string{"export", q, out, "--columns", "a"}, []string{q2, `column "a" is utf8`}},
	} {
		got, _, err := capture(t, c.args[0], c.args[1:]...)
		if err == nil || exitCode(err) != exitUsage {
			t.Errorf("%v: %v (exit %d), want exit %d", c.args, err, exitCode(err), exitUsage)
			continue
		}
		if got != "" {
			t.Errorf("%v printed %q before failing", c.args, got)
		}
		if msg := err.Error(); strings.Contains(msg, "\n") || len(msg) > 300 {
			t.Errorf("%v: a long error:\n%s", c.args, msg)
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%v: %v, want %q in it", c.args, err, w)
			}
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a refused export wrote its file")
	}
	// the columns the files share
	for _, args := range [][]string{{"cat", p, "--columns", "a"}, {"take", p, "0", "1", "--columns", "a"}, {"cat", q, "--columns", "b"}} {
		got, stderr, err := capture(t, args[0], append(args[1:], "--format", "csv")...)
		if err != nil || (got != "a\n1\n3\n" && got != "b\n2\n4\n") {
			t.Errorf("%v: %v\n%s%s", args, err, got, stderr)
		}
	}
}
