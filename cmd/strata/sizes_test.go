package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"strata/interop"
	"strata/tpch"
)

// writeLineitemParquet writes a small lineitem table as Parquet.
func writeLineitemParquet(t *testing.T, path string) {
	t.Helper()
	w, err := interop.Create(path, tpch.Schema(), interop.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	generateInto(t, 0.001, w)
}

// TestSizesSkipsUnreadable: a file that cannot be imported is reported
// and skipped; the others are measured, the mean is over them, and the
// run ends with an error saying how many were skipped.
func TestSizesSkipsUnreadable(t *testing.T) {
	dir := t.TempDir()
	writeLineitemParquet(t, filepath.Join(dir, "good.parquet"))
	if err := os.WriteFile(filepath.Join(dir, "bad.parquet"), []byte("not a parquet file at all, just text"), 0o644); err != nil {
		t.Fatal(err)
	}
	keep := t.TempDir()
	report := filepath.Join(t.TempDir(), "report.json")
	var out bytes.Buffer
	err := sizesTo(&out, []string{"--quiet", "--columns=false", "--keep", keep, "--json", report, dir})
	if err == nil || !strings.Contains(err.Error(), "1 of 2 files") {
		t.Fatalf("error %v, want one naming 1 of 2 files", err)
	}
	if code := exitCode(err); code != 1 {
		t.Errorf("exit code %d, want 1", code)
	}
	text := out.String()
	for _, want := range []string{"bad              skipped: ", "bad.parquet", "1 sets: geometric mean", "worst good", "1 skipped (not in the mean): bad"} {
		if !strings.Contains(text, want) {
			t.Errorf("report lacks %q:\n%s", want, text)
		}
	}
	if !strings.Contains(text, "\ngood ") {
		t.Errorf("report lacks the line of good:\n%s", text)
	}
	if _, err := os.Stat(filepath.Join(keep, "good.strata")); err != nil {
		t.Errorf("good.strata not kept: %v", err)
	}
	if _, err := os.Stat(filepath.Join(keep, "bad.strata")); !os.IsNotExist(err) {
		t.Errorf("a failed import left bad.strata behind (%v)", err)
	}
	b, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Sets []struct {
			Name  string  `json:"name"`
			Ratio float64 `json:"ratio"`
		} `json:"sets"`
		Geomean *float64   `json:"geomean"`
		Skipped []sizeSkip `json:"skipped"`
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Sets) != 1 || rep.Sets[0].Name != "good" || rep.Geomean == nil || *rep.Geomean != rep.Sets[0].Ratio {
		t.Errorf("JSON sets %+v, geomean %v: want good alone, its ratio the mean", rep.Sets, rep.Geomean)
	}
	if len(rep.Skipped) != 1 || rep.Skipped[0].Name != "bad" || rep.Skipped[0].Error == "" ||
		rep.Skipped[0].Path != filepath.Join(dir, "bad.parquet") {
		t.Errorf("JSON skipped %+v, want bad with its path and error", rep.Skipped)
	}

	// only unreadable files: no mean, still an error
	out.Reset()
	err = sizesTo(&out, []string{"--quiet", filepath.Join(dir, "bad.parquet")})
	if err == nil || !strings.Contains(err.Error(), "1 of 1 files") {
		t.Fatalf("error %v, want one naming 1 of 1 files", err)
	}
	if strings.Contains(out.String(), "geometric mean") {
		t.Errorf("a mean over no sets:\n%s", out.String())
	}
}
