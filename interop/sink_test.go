package interop_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata/interop"
)

// TestSinkReplacesOnlyWhenComplete checks that a file Create writes
// appears under its name only when Close succeeds, in every format: an
// aborted sink leaves no file, or the file it would have replaced
// untouched, and no temporary file; a completed one replaces the old file
// keeping its mode, and reads back.
func TestSinkReplacesOnlyWhenComplete(t *testing.T) {
	sch := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	b.Field(0).(*array.Int64Builder).AppendValues([]int64{1, 2, 3}, nil)
	rec := b.NewRecord()
	b.Release()
	defer rec.Release()
	for _, name := range []string{"t.parquet", "t.csv", "t.tsv", "t.json", "t.arrow", "t.arrows"} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, name)
			leftovers := func() {
				t.Helper()
				ents, err := os.ReadDir(dir)
				if err != nil {
					t.Fatal(err)
				}
				for _, e := range ents {
					if e.Name() != name {
						t.Errorf("%s left in the directory", e.Name())
					}
				}
			}
			// aborted with no file before: none after
			s, err := interop.Create(path, sch, interop.WriteOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Write(rec); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(path); !os.IsNotExist(err) {
				t.Fatalf("%s exists before Close (%v)", name, err)
			}
			s.Abort()
			if _, err := os.Stat(path); !os.IsNotExist(err) {
				t.Fatalf("%s exists after Abort (%v)", name, err)
			}
			leftovers()
			// aborted over an old file: the old file as it was
			const old = "old contents\n"
			if err := os.WriteFile(path, []byte(old), 0o640); err != nil {
				t.Fatal(err)
			}
			if s, err = interop.Create(path, sch, interop.WriteOptions{}); err != nil {
				t.Fatal(err)
			}
			if err := s.Write(rec); err != nil {
				t.Fatal(err)
			}
			s.Abort()
			s.Abort() // a second Abort does nothing
			if got, err := os.ReadFile(path); err != nil || string(got) != old {
				t.Fatalf("after Abort: %q, %v; want the old file", got, err)
			}
			leftovers()
			// completed: replaces the old file, with its mode
			if s, err = interop.Create(path, sch, interop.WriteOptions{}); err != nil {
				t.Fatal(err)
			}
			if err := s.Write(rec); err != nil {
				t.Fatal(err)
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			if err := s.Close(); err == nil || !strings.Contains(err.Error(), "already closed") {
				t.Errorf("second Close: %v", err)
			}
			s.Abort() // after Close: keeps the file
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if fi.Mode().Perm() != 0o640 {
				t.Errorf("mode %v, want the replaced file's 0640", fi.Mode().Perm())
			}
			leftovers()
			if name == "t.json" || name == "t.arrows" {
				return // (no reader of their own here)
			}
			r, err := interop.Open(path, interop.ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			got, err := r.Next()
			if err != nil {
				t.Fatal(err)
			}
			defer got.Release()
			if got.NumRows() != 3 {
				t.Fatalf("read back %d rows", got.NumRows())
			}
		})
	}
}
