package timeseries

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"strata/encoding"
	"strata/format"
	"strata/iox"
	"strata/read"
)

// TestTableVerifyReadsTheSource opens a small time-series file (all of it
// within the tail opening reads) through a metadata cache, changes a byte
// of its data on disk keeping size and modification time, and opens it
// again from the cache: Table().Verify must find the damage. Its reads go
// through the File's Fetcher, which keeps the tail the first open read,
// so they found the old bytes there.
func TestTableVerifyReadsTheSource(t *testing.T) {
	recs, _ := tsbsData(t, 2, 20*time.Minute, false)
	data := writeFile(t, recs, tsbsModel, &WriterOptions{Sorted: true, ChunkRows: 50})
	if len(data) > format.DefaultTailSize {
		t.Fatalf("%d bytes: want a file within the tail opening reads", len(data))
	}
	path := filepath.Join(t.TempDir(), "ts.strata")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	mc := read.NewMetaCache(1 << 20)
	open := func() *File {
		src, err := iox.OpenFile(path)
		if err != nil {
			t.Fatal(err)
		}
		f, err := OpenSource(ctx, src, &Options{Read: read.Options{MetaCache: mc}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close(); src.Close() })
		return f
	}
	if err := open().Table().Verify(ctx); err != nil {
		t.Fatal(err)
	}
	bad := append([]byte(nil), data...)
	bad[len(data)/3] ^= 0x10
	if err := os.WriteFile(path, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	f := open()
	if f.Table().OpenBytes() != 0 {
		t.Fatalf("the second open read %d bytes: want the metadata from the cache", f.Table().OpenBytes())
	}
	if err := f.Table().Verify(ctx); !errors.Is(err, encoding.ErrCorrupt) {
		t.Errorf("Verify of a file changed on disk: %v, want corruption", err)
	}
}
