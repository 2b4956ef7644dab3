package interop_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"

	"strata/interop"
)

// closeCounter counts Close calls.
type closeCounter struct{ n int }

func (c *closeCounter) Close() error { c.n++; return nil }

// TestOpenReaderAt reads the same table from a file and through an
// io.ReaderAt (as from object storage) in each format and expects the same
// batches, value by value.
func TestOpenReaderAt(t *testing.T) {
	dir := t.TempDir()
	csvPath := filepath.Join(dir, "in.csv")
	writeFile(t, csvPath, sampleCSV)
	recs, sch := readAll(t, csvPath, interop.ReadOptions{})
	defer release(recs)
	for _, ext := range []string{".csv", ".parquet", ".arrow"} {
		path := filepath.Join(dir, "t"+ext)
		if ext != ".csv" {
			if err := exportFile(path, sch, recs); err != nil {
				t.Fatal(err)
			}
		} else {
			path = csvPath
		}
		want, _ := readAll(t, path, interop.ReadOptions{BatchRows: 2})
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var cc closeCounter
		r, err := interop.OpenReaderAt("obj/t"+ext, bytes.NewReader(data), int64(len(data)), &cc, interop.ReadOptions{BatchRows: 2})
		if err != nil {
			t.Fatalf("%s: %v", ext, err)
		}
		got, err := drain(r.Next)
		if err != nil {
			t.Fatalf("%s: %v", ext, err)
		}
		if len(got) != len(want) {
			t.Fatalf("%s: %d batches, want %d", ext, len(got), len(want))
		}
		for i := range got {
			// Exactly equal, NaN matching NaN.
			if !array.RecordApproxEqual(got[i], want[i], array.WithNaNsEqual(true), array.WithAbsTolerance(0)) {
				t.Fatalf("%s: batch %d differs", ext, i)
			}
		}
		if err := r.Close(); err != nil || cc.n != 1 {
			t.Fatalf("%s: Close %v, closer called %d times", ext, err, cc.n)
		}
		release(got)
		release(want)
		// Cut short: an error, and the closer still called.
		cc.n = 0
		if r, err := interop.OpenReaderAt("obj/t"+ext, bytes.NewReader(data[:len(data)/3]), int64(len(data)/3), &cc, interop.ReadOptions{}); err == nil {
			_, err = drain(r.Next)
			r.Close()
			if err == nil && ext != ".csv" {
				t.Fatalf("%s: a third of the file read without error", ext)
			}
		} else if cc.n != 1 {
			t.Fatalf("%s: failed open did not close its input (%d)", ext, cc.n)
		}
	}
	if _, err := interop.OpenReaderAt("obj/t.txt", bytes.NewReader(nil), 0, nil, interop.ReadOptions{}); err == nil || errors.Is(err, os.ErrNotExist) {
		t.Fatalf("unknown extension: %v", err)
	}
}
