//go:build !nostrata

package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// TestObjstoreTiny runs the object-storage benchmark end to end at tiny
// scale: versitygw started, both files stored, every query answered through
// the proxy and checked against the local Strata file, and the one-row Take
// within its request target.
func TestObjstoreTiny(t *testing.T) {
	if os.Getenv("STRATA_S3_TESTS") == "skip" {
		t.Skip("STRATA_S3_TESTS=skip")
	}
	var stdout, stderr bytes.Buffer
	args := []string{"--objstore", "--tiny", "--runs", "1", "--latency", "0,2ms", "--dir", t.TempDir()}
	if code := run(args, &stdout, &stderr); code != 0 {
		t.Fatalf("bench %v exited %d\nstderr:\n%s", args, code, stderr.String())
	}
	out := stdout.String()
	for _, want := range []string{"| 0 ms | open + q_month | strata |", "| 2 ms | scan | arrow-go |", "| 2 ms | take 1 row (cold) | strata |", "Strata"} {
		if !strings.Contains(out, want) {
			t.Fatalf("output lacks %q:\n%s", want, out)
		}
	}
	// request counts are the benchmark's deterministic part: a lookup over
	// its target is a regression whatever the times
	if strings.Contains(out, "over the target") {
		t.Fatalf("a one-row Take made more requests than its target:\n%s", out)
	}
	t.Log(out)
}
