package iox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// setMaxOpen sets the descriptor bound for one test.
func setMaxOpen(t testing.TB, n int) {
	prev := SetMaxOpenFiles(n)
	t.Cleanup(func() { SetMaxOpenFiles(prev) })
}

// evictIdle closes every idle cached descriptor, as a cache under pressure
// would, so the next read of each File must reopen its path.
func evictIdle() {
	descriptors.mu.Lock()
	descriptors.trimLocked(0)
	descriptors.mu.Unlock()
}

// cachedDescriptors is the number of descriptors the cache holds.
func cachedDescriptors() int {
	descriptors.mu.Lock()
	defer descriptors.mu.Unlock()
	return descriptors.open
}

// openDescriptors counts the process's descriptors, or returns -1 where
// /proc/self/fd does not list them. The count includes the descriptor that
// lists the directory, in every call alike.
func openDescriptors() int {
	if runtime.GOOS != "linux" {
		return -1
	}
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return -1
	}
	return len(ents)
}

// writeFiles writes n files of random bytes of differing sizes and
// returns their paths and contents.
func writeFiles(t testing.TB, n int) ([]string, [][]byte) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(7, 11))
	paths, datas := make([]string, n), make([][]byte, n)
	for i := range n {
		data := make([]byte, 1+rng.IntN(20000))
		for j := range data {
			data[j] = byte(rng.Uint32())
		}
		paths[i] = filepath.Join(dir, fmt.Sprintf("f%03d", i))
		if err := os.WriteFile(paths[i], data, 0o644); err != nil {
			t.Fatal(err)
		}
		datas[i] = data
	}
	return paths, datas
}

// readCheck reads a random range of f and compares it with data.
func readCheck(rng *rand.Rand, f *File, data []byte) error {
	off := rng.IntN(len(data))
	n := 1 + rng.IntN(len(data)-off)
	p, err := ReadRange(context.Background(), f, Range{int64(off), int64(n)})
	if err != nil {
		return fmt.Errorf("%s [%d,+%d): %w", f.Name(), off, n, err)
	}
	if !bytes.Equal(p, data[off:off+n]) {
		return fmt.Errorf("%s [%d,+%d): bytes differ from the file's", f.Name(), off, n)
	}
	return nil
}

// TestFileDescriptorBound opens 50 files with the bound at 4 and reads
// them in interleaved order, then from several goroutines at once: every
// byte matches the files', and the process never holds more descriptors
// than the bound allows (plus one per goroutine mid-read or mid-reopen).
func TestFileDescriptorBound(t *testing.T) {
	const bound, nfiles, workers = 4, 50, 6
	// A small slack for descriptors the runtime or the test harness may
	// open meanwhile.
	const slack = 2
	setMaxOpen(t, bound)
	paths, datas := writeFiles(t, nfiles)
	base := openDescriptors()
	files := make([]*File, nfiles)
	for i, p := range paths {
		f, err := OpenFile(p)
		if err != nil {
			t.Fatal(err)
		}
		files[i] = f
		if f.Size() != int64(len(datas[i])) {
			t.Fatalf("%s: size %d, want %d", p, f.Size(), len(datas[i]))
		}
		if n := openDescriptors(); base >= 0 && n > base+bound+slack {
			t.Fatalf("after opening %d files: %d descriptors, %d before", i+1, n, base)
		}
	}
	defer func() {
		for _, f := range files {
			f.Close()
		}
	}()
	if n := cachedDescriptors(); n > bound {
		t.Fatalf("%d cached descriptors after opening, bound %d", n, bound)
	}

	// Interleaved: every file in turn, in a new order each round.
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 4 {
		for _, i := range rng.Perm(nfiles) {
			if err := readCheck(rng, files[i], datas[i]); err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
			if n := openDescriptors(); base >= 0 && n > base+bound+slack {
				t.Fatalf("round %d: %d descriptors, %d before opening", round, n, base)
			}
		}
	}

	// Concurrent: the goroutines read random files, some the same file
	// at once, while another counts the process's descriptors.
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 3))
			for range 400 {
				i := rng.IntN(nfiles)
				if w%2 == 0 {
					i = rng.IntN(6) // a few hot files read by several at once
				}
				if err := readCheck(rng, files[i], datas[i]); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	done := make(chan struct{})
	peak := make(chan int)
	go func() {
		most := 0
		for {
			select {
			case <-done:
				peak <- most
				return
			default:
			}
			most = max(most, openDescriptors())
			runtime.Gosched()
		}
	}()
	wg.Wait()
	close(done)
	most := <-peak
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if base >= 0 && most > base+bound+workers+slack {
		t.Errorf("%d descriptors at most while %d goroutines read, %d before opening, bound %d", most, workers, base, bound)
	}
	if n := cachedDescriptors(); n > bound {
		t.Errorf("%d cached descriptors once the reads ended, bound %d", n, bound)
	}
	t.Logf("descriptors: %d before opening, at most %d while reading concurrently", base, most)
}

// TestFileChanged changes files after they are opened: a read whose
// descriptor is still cached reads the file as it was opened; once the
// descriptor has been evicted, the read fails with an error naming the
// path and never returns other bytes.
func TestFileChanged(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	data := bytes.Repeat([]byte("0123456789abcdef"), 256)
	other := bytes.Repeat([]byte("fedcba9876543210"), 256)
	open := func(t *testing.T, name string) (string, *File) {
		t.Helper()
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := OpenFile(path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return path, f
	}
	// failsWith evicts f's descriptor, reads, and expects an error
	// wrapping want that names path, with no bytes.
	failsWith := func(t *testing.T, f *File, path string, want error) {
		t.Helper()
		evictIdle()
		p := make([]byte, 64)
		n, err := f.ReadAt(ctx, p, 100)
		if !errors.Is(err, want) || n != 0 {
			t.Fatalf("%s: read %d bytes, error %v; want none and %v", path, n, err, want)
		}
		if !strings.Contains(err.Error(), path) {
			t.Errorf("error %q does not name %s", err, path)
		}
		// and again, now that the cache has no descriptor for it
		if _, err := f.ReadAt(ctx, p, 0); !errors.Is(err, want) {
			t.Fatalf("%s: second read: %v, want %v", path, err, want)
		}
	}

	t.Run("unchanged", func(t *testing.T) {
		path, f := open(t, "same")
		id := f.Identity()
		for range 3 {
			evictIdle()
			if f.state.Load()&fdGone == 0 {
				t.Fatal("the descriptor was not evicted")
			}
			p, err := ReadRange(ctx, f, Range{1000, 500})
			if err != nil || !bytes.Equal(p, data[1000:1500]) {
				t.Fatalf("%s after eviction: %v", path, err)
			}
		}
		if f.Identity() != id {
			t.Errorf("identity %q after reopening, %q before", f.Identity(), id)
		}
		abs, err := filepath.Abs(path)
		if err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprintf("file://%s size=%d ", abs, len(data)); !strings.HasPrefix(id, want) {
			t.Errorf("identity %q, want it to begin %q", id, want)
		}
	})
	t.Run("renamed over", func(t *testing.T) {
		path, f := open(t, "renamed")
		tmp := path + ".tmp"
		if err := os.WriteFile(tmp, other, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, path); err != nil {
			t.Fatal(err)
		}
		// The cached descriptor still reads the file that was opened.
		p, err := ReadRange(ctx, f, Range{0, 32})
		if err != nil || !bytes.Equal(p, data[:32]) {
			t.Fatalf("cached read after the rename: %q %v", p, err)
		}
		failsWith(t, f, path, ErrChanged)
	})
	t.Run("truncated", func(t *testing.T) {
		path, f := open(t, "truncated")
		if err := os.Truncate(path, int64(len(data)/2)); err != nil {
			t.Fatal(err)
		}
		failsWith(t, f, path, ErrChanged)
	})
	t.Run("rewritten in place", func(t *testing.T) {
		path, f := open(t, "rewritten")
		w, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.WriteAt(other, 0); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		// Same inode and size; the modification time is set apart from
		// the open-time one explicitly, as a coarse clock might not.
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		later := st.ModTime().Add(time.Hour)
		if err := os.Chtimes(path, later, later); err != nil {
			t.Fatal(err)
		}
		failsWith(t, f, path, ErrChanged)
	})
	t.Run("removed", func(t *testing.T) {
		path, f := open(t, "removed")
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
		failsWith(t, f, path, os.ErrNotExist)
	})
	t.Run("closed", func(t *testing.T) {
		path, f := open(t, "closed")
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		if _, err := f.ReadAt(ctx, make([]byte, 8), 0); !errors.Is(err, os.ErrClosed) || !strings.Contains(err.Error(), path) {
			t.Fatalf("read after Close: %v", err)
		}
		if err := f.Close(); !errors.Is(err, os.ErrClosed) {
			t.Fatalf("second Close: %v", err)
		}
		// A File closed while its descriptor was evicted is not reopened.
		path, f = open(t, "closed-evicted")
		evictIdle()
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		if _, err := f.ReadAt(ctx, make([]byte, 8), 0); !errors.Is(err, os.ErrClosed) {
			t.Fatalf("%s: read after Close of an evicted File: %v", path, err)
		}
	})
}

// TestNewFileKeepsDescriptor checks that a File over the caller's own
// descriptor is neither counted nor evicted, and that Close closes it.
func TestNewFileKeepsDescriptor(t *testing.T) {
	setMaxOpen(t, 1)
	paths, datas := writeFiles(t, 4)
	osf, err := os.Open(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	own, err := NewFile(osf)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	var others []*File
	for i, p := range paths[1:] {
		f, err := OpenFile(p)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		others = append(others, f)
		if err := readCheck(rng, f, datas[i+1]); err != nil {
			t.Fatal(err)
		}
	}
	evictIdle()
	if err := os.Remove(paths[0]); err != nil {
		t.Fatal(err)
	}
	// still read through the caller's descriptor, removed or not
	for range 10 {
		if err := readCheck(rng, own, datas[0]); err != nil {
			t.Fatal(err)
		}
	}
	if n := cachedDescriptors(); n != 0 {
		t.Errorf("%d cached descriptors, want none (a NewFile is not counted)", n)
	}
	if err := own.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := osf.Stat(); !errors.Is(err, os.ErrClosed) {
		t.Errorf("the caller's file after Close: %v, want it closed", err)
	}
	if _, err := own.ReadAt(context.Background(), make([]byte, 4), 0); !errors.Is(err, os.ErrClosed) {
		t.Errorf("read after Close: %v", err)
	}
}

// TestSetMaxOpenFiles checks that lowering the bound closes idle
// descriptors at once, that n <= 0 restores the default, and the default
// itself.
func TestSetMaxOpenFiles(t *testing.T) {
	setMaxOpen(t, 8)
	paths, datas := writeFiles(t, 8)
	rng := rand.New(rand.NewPCG(9, 9))
	for i, p := range paths {
		f, err := OpenFile(p)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := readCheck(rng, f, datas[i]); err != nil {
			t.Fatal(err)
		}
	}
	if n := cachedDescriptors(); n != 8 {
		t.Fatalf("%d cached descriptors, want all 8", n)
	}
	if prev := SetMaxOpenFiles(3); prev != 8 {
		t.Errorf("SetMaxOpenFiles returned %d, want the previous bound 8", prev)
	}
	if n := cachedDescriptors(); n != 3 {
		t.Errorf("%d cached descriptors after lowering the bound to 3", n)
	}
	SetMaxOpenFiles(0)
	if got, want := SetMaxOpenFiles(8), defaultMaxOpenFiles(); got != want {
		t.Errorf("SetMaxOpenFiles(0) set %d, want the default %d", got, want)
	}
	for _, c := range []struct {
		soft uint64
		want int
	}{{0, 16}, {20, 16}, {64, 16}, {100, 25}, {1024, 256}, {4096, 1024}, {20000, 4096}, {1 << 62, 4096}, {^uint64(0), 4096}} {
		if got := maxOpenFor(c.soft); got != c.want {
			t.Errorf("maxOpenFor(%d) = %d, want %d", c.soft, got, c.want)
		}
	}
}

// BenchmarkFileReadAt reads 512 bytes at a time from a file whose
// descriptor stays cached, through iox.File opened by path, through a
// File over the caller's descriptor (no cache), and straight through
// os.File.ReadAt (what File.ReadAt did before the cache), serially and
// from all Ps at once. The empty reads make no system call (os.File.ReadAt
// returns at once for an empty buffer), so they measure what a read costs
// besides the pread: for OpenFile, the borrowing of the descriptor.
func BenchmarkFileReadAt(b *testing.B) {
	path := filepath.Join(b.TempDir(), "bench")
	data := bytes.Repeat([]byte("strata columnar"), 1<<16)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		b.Fatal(err)
	}
	byPath, err := OpenFile(path)
	if err != nil {
		b.Fatal(err)
	}
	defer byPath.Close()
	osf, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	own, err := NewFile(osf)
	if err != nil {
		b.Fatal(err)
	}
	defer own.Close()
	raw, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer raw.Close()
	const size = 512
	span := int64(len(data) - size)
	ctx := context.Background()
	for _, c := range []struct {
		name string
		read func(p []byte, off int64) (int, error)
	}{
		{"os.File", func(p []byte, off int64) (int, error) {
			if err := ctx.Err(); err != nil {
				return 0, err
			}
			return raw.ReadAt(p, off)
		}},
		{"NewFile", func(p []byte, off int64) (int, error) { return own.ReadAt(ctx, p, off) }},
		{"OpenFile", func(p []byte, off int64) (int, error) { return byPath.ReadAt(ctx, p, off) }},
	} {
		b.Run(c.name+"/empty", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.read(nil, 0); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			p := make([]byte, size)
			off := int64(0)
			for b.Loop() {
				if _, err := c.read(p, off); err != nil {
					b.Fatal(err)
				}
				off = (off + 4093) % span
			}
		})
		b.Run(c.name+"/parallel", func(b *testing.B) {
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				p := make([]byte, size)
				off := int64(0)
				for pb.Next() {
					if _, err := c.read(p, off); err != nil {
						b.Error(err)
						return
					}
					off = (off + 4093) % span
				}
			})
		})
	}
}

// TestFileCloseWhileReading closes files while goroutines read them and
// others, with the bound below the number of files so descriptors are
// evicted and reopened meanwhile: every read gives the file's bytes or an
// error wrapping os.ErrClosed, and the cache holds no descriptor of a
// closed File.
func TestFileCloseWhileReading(t *testing.T) {
	const nfiles, workers = 12, 4
	setMaxOpen(t, 3)
	paths, datas := writeFiles(t, nfiles)
	files := make([]*File, nfiles)
	for i, p := range paths {
		f, err := OpenFile(p)
		if err != nil {
			t.Fatal(err)
		}
		files[i] = f
	}
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 8))
			for range 500 {
				i := rng.IntN(nfiles)
				if err := readCheck(rng, files[i], datas[i]); err != nil && !errors.Is(err, os.ErrClosed) {
					errs <- err
					return
				}
			}
		}()
	}
	for _, i := range rand.New(rand.NewPCG(2, 2)).Perm(nfiles) {
		if err := files[i].Close(); err != nil {
			t.Errorf("closing %s: %v", paths[i], err)
		}
		runtime.Gosched()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	descriptors.mu.Lock()
	defer descriptors.mu.Unlock()
	if e := descriptors.hand; e != nil {
		for {
			for i, f := range files {
				if e == f {
					t.Errorf("the cache holds the descriptor of closed %s", paths[i])
				}
			}
			if e = e.next; e == descriptors.hand {
				break
			}
		}
	}
}
