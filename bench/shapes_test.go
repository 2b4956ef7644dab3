package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// TestShapes writes every machine-data shape at a small size and runs the
// --real harness over them for Strata and arrow-go: each file must import,
// and the systems' scans and lookups must agree value by value.
func TestShapes(t *testing.T) {
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	if code := run([]string{"shapes", "--rows", "1500", dir}, &stdout, &stderr); code != 0 {
		t.Fatalf("bench shapes exited %d: %s", code, stderr.String())
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.parquet"))
	if len(files) != len(shapes) {
		t.Fatalf("%d files for %d shapes: %s", len(files), len(shapes), stdout.String())
	}
	jsonPath := filepath.Join(t.TempDir(), "out.json")
	stdout.Reset()
	stderr.Reset()
	args := []string{"--real", dir, "--runs", "1", "--min-runs", "1", "--take", "20", "--json", jsonPath,
		"--systems", "strata/default,arrow-go/zstd"}
	if code := run(args, &stdout, &stderr); code != 0 {
		t.Fatalf("bench %v exited %d\nstderr:\n%s", args, code, stderr.String())
	}
	if strings.Contains(stderr.String(), "MISMATCH") || strings.Count(stderr.String(), "all results agree") < len(shapes) {
		t.Fatalf("cross-check did not pass on every shape:\n%s", stderr.String())
	}
	var rep struct {
		Sets []struct {
			Rows    int64 `json:"rows"`
			Results []struct {
				System string
				Bytes  *int64
				Errors []string
			} `json:"results"`
		} `json:"sets"`
	}
	readReport(t, jsonPath, &rep)
	for _, s := range rep.Sets {
		if s.Rows != 1500 {
			t.Errorf("a set of %d rows, want 1500", s.Rows)
		}
		for _, r := range s.Results {
			if len(r.Errors) > 0 || r.Bytes == nil {
				t.Errorf("%s: errors %v", r.System, r.Errors)
			}
		}
	}
}
