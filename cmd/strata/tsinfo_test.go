package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestTSInfoIndexVersion: ts info says which index version a file has and
// what it means for bars, for a file of each version.
func TestTSInfoIndexVersion(t *testing.T) {
	dir := filepath.Join("..", "..", "timeseries", "testdata", "golden")
	for file, want := range map[string]string{
		"tsbs-4x40m-index1.strata": "index version 1 (first and last read from each unit's rows), 2311 bytes",
		"tsbs-4x40m.strata":        "index version 2 (first and last in the statistics), ",
	} {
		out, stderr, err := capture(t, "ts", "info", filepath.Join(dir, file))
		if err != nil {
			t.Fatalf("%s: %v\n%s", file, err, stderr)
		}
		if !strings.Contains(out, want) {
			t.Errorf("%s: want %q in\n%s", file, want, out)
		}
	}
}
