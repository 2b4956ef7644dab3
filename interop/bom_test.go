package interop

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
)

// TestCSVByteOrderMark checks that a UTF-8 byte order mark before a CSV
// header (spreadsheets write one) is not read into the first column's
// name, by the serial and the parallel reader, with and without a header.
func TestCSVByteOrderMark(t *testing.T) {
	dir := t.TempDir()
	for _, header := range []bool{true, false} {
		text := "id,name\n1,a\n2,\"b\nc\"\n"
		if !header {
			text = "1,a\n2,\"b\nc\"\n"
		}
		path := filepath.Join(dir, "bom.csv")
		if err := os.WriteFile(path, append([]byte{0xef, 0xbb, 0xbf}, text...), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, par := range []bool{false, true} {
			r, err := Open(path, ReadOptions{Parallel: par, CSVNoHeader: !header})
			if err != nil {
				t.Fatal(err)
			}
			if header && r.Schema().Field(0).Name != "id" {
				t.Errorf("parallel %v: first column named %q", par, r.Schema().Field(0).Name)
			}
			var ids []int64
			var names []string
			for {
				rec, err := r.Next()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatalf("header %v, parallel %v: %v", header, par, err)
				}
				for i := range int(rec.NumRows()) {
					ids = append(ids, rec.Column(0).(*array.Int64).Value(i))
					names = append(names, rec.Column(1).(*array.String).Value(i))
				}
				rec.Release()
			}
			r.Close()
			if len(ids) != 2 || ids[0] != 1 || ids[1] != 2 || names[0] != "a" || names[1] != "b\nc" {
				t.Errorf("header %v, parallel %v: read %v %q", header, par, ids, names)
			}
		}
	}
}
