package timeseries

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

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
		// Bars over buckets that hold whole units come from the index's
		// statistics (with first and last from the units' rows where the
		// index predates them), and must equal the fold of every row.
		sameBars(t, p, f, 20*60e6, cols)
	}
}

// sameBars checks that bars of cols (count, min, max, first, last) over
// buckets of every microseconds are the same folded from the index's
// statistics as from every row (NoStats).
func sameBars(t *testing.T, name string, f *File, every int64, cols []string) {
	t.Helper()
	funcs := []string{"count", "min", "max", "first", "last"}
	var recs [2]arrow.Record
	for i, noStats := range []bool{false, true} {
		rec, _, err := f.Aggregate(ctx, AggOptions{Every: every, Columns: cols, Funcs: funcs, NoStats: noStats})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		defer rec.Release()
		recs[i] = rec
	}
	a, b := recs[0], recs[1]
	if a.NumRows() != b.NumRows() || a.NumCols() != b.NumCols() || a.NumRows() == 0 {
		t.Fatalf("%s: bars of %dx%d from statistics, %dx%d from rows", name, a.NumRows(), a.NumCols(), b.NumRows(), b.NumCols())
	}
	for c := 0; c < int(a.NumCols()); c++ {
		for i := 0; i < int(a.NumRows()); i++ {
			if x, y := a.Column(c).ValueStr(i), b.Column(c).ValueStr(i); x != y {
				t.Fatalf("%s: bar %d, %s: %s from statistics, %s from rows", name, i, a.ColumnName(c), x, y)
			}
		}
	}
}
