package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"strata/iox"
)

// TestPatternManyFiles reads a pattern over more files than Strata may
// keep descriptors for (the bound set to 4, and where the process's
// descriptor limit can be lowered, lowered to well under the number of
// files): cat, agg and take open every file up front and read them all,
// and give the rows, counts, sums and looked-up rows the files hold.
func TestPatternManyFiles(t *testing.T) {
	const nfiles = 60
	dir := t.TempDir()
	var rows []string // "a,b" of every row, in the files' name order
	var sum int64
	var maxB string
	for i := range nfiles {
		csv := filepath.Join(dir, fmt.Sprintf("p%02d.csv", i))
		lines := []string{"a,b"}
		for j := range 1 + i%3 {
			a := int64(i*10 + j)
			row := fmt.Sprintf("%d,r%d_%d", a, i, j)
			lines = append(lines, row)
			rows = append(rows, row)
			sum += a
			maxB = max(maxB, fmt.Sprintf("r%d_%d", i, j))
		}
		if err := os.WriteFile(csv, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, stderr, err := capture(t, "import", csv, filepath.Join(dir, fmt.Sprintf("p%02d.strata", i))); err != nil {
			t.Fatalf("import %s: %v\n%s", csv, err, stderr)
		}
	}
	prev := iox.SetMaxOpenFiles(4)
	t.Cleanup(func() { iox.SetMaxOpenFiles(prev) })
	// Without the cache the commands below would need a descriptor per
	// file; leave room for the cache, the 16 files openAll opens at once
	// and a few more, but not for 60.
	limitDescriptors(t, 30)
	pattern := filepath.Join(dir, "p*.strata")

	out, stderr, err := capture(t, "cat", pattern, "--format", "csv")
	if err != nil {
		t.Fatalf("cat: %v\n%s", err, stderr)
	}
	if want := "a,b\n" + strings.Join(rows, "\n") + "\n"; out != want {
		t.Errorf("cat printed\n%s\nwant\n%s", out, want)
	}

	out, stderr, err = capture(t, "agg", pattern, "count(*), sum(a), max(b)", "--format", "csv")
	if err != nil {
		t.Fatalf("agg: %v\n%s", err, stderr)
	}
	if want := fmt.Sprintf("count(*),sum(a),max(b)\n%d,%d,%s\n", len(rows), sum, maxB); out != want {
		t.Errorf("agg printed %q, want %q", out, want)
	}

	take := []int{len(rows) - 1, 0, 57, 3, 57, len(rows) / 2}
	args := []string{pattern}
	want := []string{"a,b"}
	for _, r := range take {
		args = append(args, fmt.Sprint(r))
		want = append(want, rows[r])
	}
	out, stderr, err = capture(t, "take", append(args, "--format", "csv")...)
	if err != nil {
		t.Fatalf("take: %v\n%s", err, stderr)
	}
	if want := strings.Join(want, "\n") + "\n"; out != want {
		t.Errorf("take %v printed\n%s\nwant\n%s", take, out, want)
	}
}
