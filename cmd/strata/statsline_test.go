package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// checkBytesRead checks the bytes-read lines of --stats output for a file
// of size bytes, smaller than the tail opening reads: the bytes opening
// read and those after add up to the total, and no share of the file
// passes 100 %. (The total, once given as a share of the file, came to
// nearly 200 %: opening took all of the file and the scan read its chunks
// again.) Opening's read holds every chunk, which later reads take from
// memory: the file is read once.
func checkBytesRead(t *testing.T, stderr string, size int64) {
	t.Helper()
	m := regexp.MustCompile(`bytes read in all, metadata included: (\d+)(?: in \d+ reads)? \((\d+) opening, (\d+) after\)`).FindStringSubmatch(stderr)
	if m == nil {
		t.Fatalf("no bytes-read line in\n%s", stderr)
	}
	n := make([]int64, 3)
	for i := range n {
		n[i], _ = strconv.ParseInt(m[i+1], 10, 64)
	}
	if n[0] != n[1]+n[2] {
		t.Errorf("bytes read %d in all, %d opening, %d after: want the sum of the parts", n[0], n[1], n[2])
	}
	if n[1] != size || n[2] != 0 {
		t.Errorf("bytes read %d opening and %d after of a %d-byte file: want it all read once, opening", n[1], n[2], size)
	}
	for _, p := range regexp.MustCompile(`([0-9.]+)%`).FindAllStringSubmatch(stderr, -1) {
		if f, _ := strconv.ParseFloat(p[1], 64); f > 100 {
			t.Errorf("a share of %s%% of the file in\n%s", p[1], stderr)
		}
	}
	want := "bytes read after opening: " + m[3] + ", "
	if !strings.Contains(stderr, want) || !strings.Contains(stderr, "of the file's "+strconv.FormatInt(size, 10)+" bytes") {
		t.Errorf("want a line %q... of the file's %d bytes in\n%s", want, size, stderr)
	}
}

// TestStatsBytesRead scans a small table and a small time-series table
// with --stats: the bytes read are given as those opening read and those
// after, and the share of the file is that of the reads after opening,
// never above 100 %.
func TestStatsBytesRead(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "small.strata")
	sch := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	defer b.Release()
	for i := range 5000 {
		b.Field(0).(*array.Int64Builder).Append(int64(i*i) ^ 0x5bd1e995)
	}
	rec := b.NewRecord()
	defer rec.Release()
	writeStrata(t, path, rec)
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	_, stderr, err := capture(t, "scan", path, "--stats", "--format", "csv")
	if err != nil {
		t.Fatalf("scan: %v\n%s", err, stderr)
	}
	checkBytesRead(t, stderr, st.Size())

	tsPath := filepath.Join(dir, "ts.strata")
	var pts []tsPoint
	for i := range 3000 {
		pts = append(pts, tsPoint{k: "s" + strconv.Itoa(i%3), t: int64(i), v: int64(i*i) ^ 0x5bd1e995})
	}
	writeTSFile(t, tsPath, nil, pts)
	if st, err = os.Stat(tsPath); err != nil {
		t.Fatal(err)
	}
	_, stderr, err = capture(t, "ts", "query", tsPath, "--stats", "--format", "none")
	if err != nil {
		t.Fatalf("ts query: %v\n%s", err, stderr)
	}
	checkBytesRead(t, stderr, st.Size())
}
