package timeseries

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"strata/iox"
	"strata/tsbs"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// TestGolden pins the bytes of a small time-series file: its table, its
// series index sections and their pages. A change to the writer or to the
// index layout fails here; keep the previous file under a new name (it must
// stay readable) before regenerating with -update.
func TestGolden(t *testing.T) {
	recs, r := tsbsData(t, 4, 40*time.Minute, false)
	data := writeFile(t, recs, tsbsModel, &WriterOptions{Sorted: true, ChunkRows: 100, MinChunkRows: 50, PageBytes: 512})
	path := filepath.Join("testdata", "golden", "tsbs-4x40m.strata")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update ./timeseries to create it)", err)
	}
	if !bytes.Equal(data, want) {
		t.Fatalf("writing gives %d bytes differing from %s (%d bytes); if the change is intended keep the old file and regenerate with -update", len(data), path, len(want))
	}
	// Every golden file stays readable, with the values it was written from.
	files, _ := filepath.Glob(filepath.Join("testdata", "golden", "tsbs-4x40m*.strata"))
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		f, err := OpenSource(ctx, iox.Bytes(b), nil)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		t0 := tsbs.Start.UnixMicro()
		rows, err := f.Query(ctx, QueryOptions{Time: &TimeRange{t0 + 600e6, t0 + 1800e6}, Columns: []string{"hostname", "time", "usage_user", "usage_system", "usage_idle"}})
		if err != nil {
			t.Fatal(err)
		}
		cols := []string{"usage_user", "usage_system", "usage_idle"}
		sameRows(t, p, collect(t, rows, cols), r.expect(r.order, t0+600e6, t0+1800e6, cols))
	}
}
