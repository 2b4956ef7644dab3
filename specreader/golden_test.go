package specreader

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGolden reads every golden file of testdata/golden and compares it,
// value by value, with its Arrow sibling (or, with none, decodes it whole).
func TestGolden(t *testing.T) {
	dir := filepath.Join("..", "testdata", "golden")
	paths, err := filepath.Glob(filepath.Join(dir, "*.strata"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no golden files in %s (%v)", dir, err)
	}
	for _, p := range paths {
		name := strings.TrimSuffix(filepath.Base(p), ".strata")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			f, err := Open(data)
			if err != nil {
				t.Fatalf("open: %v", err)
			}
			if err := f.VerifyFileChecksum(); err != nil {
				t.Errorf("file checksum: %v", err)
			}
			cols, err := f.ReadAll()
			addKinds(f.Kinds)
			if err != nil {
				t.Fatalf("read: %v", err)
			}
			rep, err := f.VerifyStats()
			if err != nil {
				t.Errorf("stats: %v", err)
			}
			t.Logf("stats checked: %+v", rep)
			sib := strings.TrimSuffix(p, ".strata") + ".arrow"
			if _, err := os.Stat(sib); err != nil {
				t.Logf("no Arrow sibling: decoded %d columns without comparison", len(cols))
				return
			}
			sch, recs := readArrow(t, sib)
			compareTable(t, name, cols, sch, recs)
			rows := 0
			if len(cols) > 0 {
				rows = len(cols[0].Values)
			}
			t.Logf("%d stripes, %d groups, %d columns, %d rows", len(f.Stripes), len(f.Groups), len(cols), rows)
		})
	}
}
