package duckstrata_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata/tpch"
)

// TestPatternScan reads three lineitem files through one pattern and
// compares every query with DuckDB's own reading of the same rows written
// as Parquet files, through the same pattern.
func TestPatternScan(t *testing.T) {
	dir := t.TempDir()
	for i, seed := range []uint64{11, 12, 13} {
		writeBoth(t, dir, fmt.Sprintf("part%d", i), tpch.Schema(), func() source { return tpch.NewLineitem(0.002, seed, 0) }, 64<<10)
	}
	_, conn := openDB(t)
	st := "'" + filepath.Join(dir, "part*.strata") + "'"
	pq := "read_parquet('" + filepath.Join(dir, "part*.parquet") + "')"
	queries := []string{
		"SELECT count(*), sum(l_quantity), min(l_shipdate), max(l_comment) FROM %s",
		"SELECT count(*) FROM %s WHERE l_shipdate < DATE '1994-01-01'",
		"SELECT l_returnflag, l_linestatus, count(*), sum(l_extendedprice) FROM %s WHERE l_discount > 0.05 GROUP BY 1, 2 ORDER BY 1, 2",
		"SELECT l_orderkey, l_linenumber, l_comment FROM %s WHERE l_linenumber = 7 ORDER BY l_orderkey, l_linenumber, l_comment",
		// every row, every column, both ways
		"SELECT count(*) FROM (SELECT * FROM %[1]s EXCEPT ALL SELECT * FROM " + pq + ")",
		"SELECT count(*) FROM (SELECT * FROM " + pq + " EXCEPT ALL SELECT * FROM %[1]s)",
	}
	for _, q := range queries {
		got := rowsOf(t, conn, fmt.Sprintf(q, st))
		want := rowsOf(t, conn, fmt.Sprintf(q, pq))
		if strings.Contains(q, "EXCEPT") {
			want = [][]string{{"0"}}
		} else if len(want) == 0 || want[0][0] == "0" {
			t.Fatalf("%s: the reference has no rows", q)
		}
		sameRows(t, q, got, want)
	}
	// the whole pattern is three files' rows, not one file's
	one := rowsOf(t, conn, "SELECT count(*) FROM '"+filepath.Join(dir, "part0.strata")+"'")
	all := rowsOf(t, conn, "SELECT count(*) FROM "+st)
	if one[0][0] == all[0][0] {
		t.Fatalf("the pattern read %s rows, as many as one file", all[0][0])
	}

	// a file of other columns among those the pattern matches
	mem := memory.DefaultAllocator
	b := array.NewInt64Builder(mem)
	b.AppendValues([]int64{1, 2, 3}, nil)
	col := b.NewArray()
	rec := array.NewRecord(arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64}}, nil), []arrow.Array{col}, 3)
	odd := writeRecord(t, filepath.Join(dir, "part9.strata"), rec)
	rec.Release()
	col.Release()
	if _, err := tryRows(conn, "SELECT count(*) FROM "+st); err == nil || !strings.Contains(err.Error(), "differ") {
		t.Errorf("files of different columns: %v", err)
	}
	os.Remove(odd)
	if _, err := tryRows(conn, "SELECT count(*) FROM '"+filepath.Join(dir, "none*.strata")+"'"); err == nil || !strings.Contains(err.Error(), "no file matches") {
		t.Errorf("a pattern matching nothing: %v", err)
	}
	if _, err := tryRows(conn, "SELECT count(*) FROM 's3://bucket/part*.strata'"); err == nil || !strings.Contains(err.Error(), "local files only") {
		t.Errorf("a pattern in a URL: %v", err)
	}
	// a file whose own name holds a pattern character is read as named
	lit := filepath.Join(dir, "p[1].strata")
	if err := os.Link(filepath.Join(dir, "part1.strata"), lit); err != nil {
		t.Fatal(err)
	}
	got := rowsOf(t, conn, "SELECT count(*) FROM '"+lit+"'")
	want := rowsOf(t, conn, "SELECT count(*) FROM '"+filepath.Join(dir, "part1.strata")+"'")
	sameRows(t, "a file named with brackets", got, want)
}
