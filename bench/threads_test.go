package main

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
)

// TestThreadCounts runs the interleaved mode at tiny scale: every query is
// timed on every (system, thread count) instance, the instances agree, and
// a system's own speed-up over itself at the first count is 1.
func TestThreadCounts(t *testing.T) {
	var out, log bytes.Buffer
	if rc := run([]string{"--tiny", "--thread-counts", "1,2", "--systems", "arrow-go/zstd,strata/default"}, &out, &log); rc != 0 {
		t.Fatalf("exit %d\n%s\n%s", rc, out.String(), log.String())
	}
	if !strings.Contains(log.String(), "all results agree") {
		t.Fatalf("no agreement reported:\n%s", log.String())
	}
	seen := map[string]bool{}
	for _, line := range strings.Split(out.String(), "\n") {
		f := strings.Fields(line)
		if len(f) < 5 || (f[1] != "arrow-go/zstd" && f[1] != "strata/default") {
			continue
		}
		q, sys, threads := f[0], f[1], f[2]
		seen[q+" "+sys+" "+threads] = true
		if q == "take_cold" && sys == "arrow-go/zstd" {
			continue // arrow-go keeps no cache to drop
		}
		if v, err := strconv.ParseFloat(f[3], 64); err != nil || v <= 0 {
			t.Fatalf("%q: median %q", line, f[3])
		}
		if threads == "1" && !strings.HasPrefix(f[5], "1.00×") {
			t.Fatalf("%q: speed-up over itself is not 1", line)
		}
	}
	for _, q := range []string{"scan", "q_range", "q_month", "q_agg", "take", "take_cold"} {
		for _, k := range []string{"arrow-go/zstd 1", "arrow-go/zstd 2", "strata/default 1", "strata/default 2"} {
			if !seen[q+" "+k] {
				t.Fatalf("no row for %s %s:\n%s", q, k, out.String())
			}
		}
	}
}
