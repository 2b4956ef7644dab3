package iox

import (
	"math/rand/v2"
	"syscall"
	"testing"
)

// TestFileOutOfDescriptors opens more files than the process may have
// descriptors, with the cache's bound above that limit: an open that finds
// the process out of descriptors closes the idle cached ones and succeeds,
// and every file still reads its own bytes.
func TestFileOutOfDescriptors(t *testing.T) {
	const nfiles = 30
	setMaxOpen(t, 10000)
	paths, datas := writeFiles(t, nfiles)
	n := openDescriptors()
	if n < 0 {
		t.Skip("cannot count the process's descriptors")
	}
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &old); err != nil {
		t.Fatal(err)
	}
	lower := old
	lower.Cur = min(old.Cur, uint64(n+8))
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lower); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &old); err != nil {
			t.Errorf("restoring the descriptor limit: %v", err)
		}
	}()
	rng := rand.New(rand.NewPCG(4, 4))
	files := make([]*File, nfiles)
	for i, p := range paths {
		f, err := OpenFile(p)
		if err != nil {
			t.Fatalf("opening file %d of %d under a limit of %d descriptors: %v", i+1, nfiles, lower.Cur, err)
		}
		defer f.Close()
		files[i] = f
	}
	for range 3 {
		for _, i := range rng.Perm(nfiles) {
			if err := readCheck(rng, files[i], datas[i]); err != nil {
				t.Fatal(err)
			}
		}
	}
}
