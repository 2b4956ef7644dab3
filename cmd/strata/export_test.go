package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExportFailsWhole exports a pattern whose second file is damaged in
// its data (it opens, its rows fail their checksum): the export fails
// naming that file, and the file it would have replaced is left as it was,
// with no partial file beside it. The same export without the damaged
// file replaces it.
func TestExportFailsWhole(t *testing.T) {
	dir := t.TempDir()
	for i, seed := range []string{"1", "2"} {
		path := filepath.Join(dir, "part"+seed+".strata")
		if _, _, err := capture(t, "gen", "tpch", "--sf", "0.002", "--seed", seed, path); err != nil {
			t.Fatal(err)
		}
		if i == 1 {
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			b[len(b)/3] ^= 0xff // inside the stripes, far from the footer
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, ext := range []string{".csv", ".parquet"} {
		out := filepath.Join(dir, "out"+ext)
		const old = "the previous export\n"
		if err := os.WriteFile(out, []byte(old), 0o644); err != nil {
			t.Fatal(err)
		}
		_, _, err := capture(t, "export", filepath.Join(dir, "part*.strata"), out)
		if err == nil || !strings.Contains(err.Error(), "part2.strata") {
			t.Fatalf("export over a damaged file: %v, want an error naming part2.strata", err)
		}
		if got, err := os.ReadFile(out); err != nil || string(got) != old {
			t.Fatalf("%s after the failed export: %.40q, %v; want it untouched", out, got, err)
		}
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			if strings.Contains(e.Name(), ".partial-") {
				t.Errorf("%s left behind", e.Name())
			}
		}
		if _, stderr, err := capture(t, "export", filepath.Join(dir, "part1.strata"), out); err != nil {
			t.Fatalf("%v\n%s", err, stderr)
		}
		if got, _ := os.ReadFile(out); string(got) == old {
			t.Fatalf("%s not replaced by a complete export", out)
		}
	}
}
