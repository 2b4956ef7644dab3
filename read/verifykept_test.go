package read_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"strata/encoding"
	"strata/format"
	"strata/iox"
	"strata/read"
	"strata/write"
)

// TestVerifyReadsTheSourceNotTheKeptTail opens a file through a metadata
// cache, changes a byte of its footer on disk behind the cache's back (a
// bit flip, which leaves size and modification time alone, so the file
// keeps its identity), and opens it again: the metadata comes from the
// cache, with the tail the first open read. Verify, and Options.Verify at
// open, must read every byte from the file and find the damage, as they
// did before the Fetcher kept the tail: taken from the kept tail, the
// footer's bytes were those of the first open and the file checksum
// matched. So must Verify of a file kept open while its footer changes.
func TestVerifyReadsTheSourceNotTheKeptTail(t *testing.T) {
	ctx := context.Background()
	data, _ := writeFile(t, 21, 3000, write.Options{})
	if len(data) > format.DefaultTailSize {
		t.Fatalf("%d bytes: want a file within the tail opening reads", len(data))
	}
	path := filepath.Join(t.TempDir(), "f.strata")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	mc := read.NewMetaCache(1 << 20)
	open := func(verify bool) (*read.File, *iox.File, error) {
		src, err := iox.OpenFile(path)
		if err != nil {
			t.Fatal(err)
		}
		f, err := read.Open(ctx, src, read.Options{MetaCache: mc, Verify: verify})
		if err != nil {
			src.Close()
			return nil, nil, err
		}
		return f, src, nil
	}
	f, src, err := open(false)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Verify(ctx); err != nil {
		t.Fatal(err)
	}
	src.Close()

	bad := append([]byte(nil), data...)
	bad[len(bad)-format.PostscriptSize-1] ^= 0x40 // the footer's last byte
	if err := os.WriteFile(path, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	f, src, err = open(false)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	if f.OpenBytes() != 0 {
		t.Fatalf("the second open read %d bytes: want the metadata from the cache", f.OpenBytes())
	}
	if err := f.Verify(ctx); !errors.Is(err, encoding.ErrCorrupt) {
		t.Errorf("Verify of a file whose footer changed on disk: %v, want corruption", err)
	}
	if _, _, err := open(true); !errors.Is(err, encoding.ErrCorrupt) {
		t.Errorf("Open with Verify of a file whose footer changed on disk: %v, want corruption", err)
	}

	// Without a cache: a file kept open while its footer changes on disk
	// (the Fetcher keeps the tail this open read).
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	src2, err := iox.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer src2.Close()
	f, err = read.Open(ctx, src2, read.Options{NoMetaCache: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Verify(ctx); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := f.Verify(ctx); !errors.Is(err, encoding.ErrCorrupt) {
		t.Errorf("Verify of an open file whose footer changed on disk since: %v, want corruption", err)
	}
}
