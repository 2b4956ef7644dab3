package main

import (
	"os"
	"syscall"
	"testing"
)

// limitDescriptors lowers the process's soft descriptor limit to the
// descriptors it holds now plus extra, until the test ends, so a command
// that keeps a descriptor per file fails as it would over a pattern of
// more files than the usual limit.
func limitDescriptors(t *testing.T, extra int) {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Logf("descriptor limit left as it is: %v", err)
		return
	}
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &old); err != nil {
		t.Fatal(err)
	}
	lower := old
	lower.Cur = min(old.Cur, uint64(len(ents)+extra))
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lower); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &old); err != nil {
			t.Errorf("restoring the descriptor limit: %v", err)
		}
	})
}
