package main

import (
	"bytes"
	"strings"
	"testing"
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
