package duckstrata_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata"
)

// TestPatternFlatMapKey filters on a FlatMap key over a pattern whose
// files were written apart and know different keys: the first file's maps
// never hold the key b, so its schema does not know it, and its rows are
// NULL for b, as read.ScanFiles reads them, whether the files are read by
// column name or one after another (their columns are the same). Before,
// the filter reached the first file unchanged and the query failed with
// "unknown column m.b". A key no file knows stays an error.
func TestPatternFlatMapKey(t *testing.T) {
	dir := t.TempDir()
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int32},
		{Name: "m", Type: arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64), Nullable: true},
	}, nil)
	// part0: rows 0..9 with key a only; part1: rows 10..19 with a, and
	// b = 10·id in the even rows; row 15's map is null
	for i, r := range [][2]int{{0, 10}, {10, 20}} {
		b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
		for id := r[0]; id < r[1]; id++ {
			b.Field(0).(*array.Int32Builder).Append(int32(id))
			mb := b.Field(1).(*array.MapBuilder)
			if id == 15 {
				mb.AppendNull()
				continue
			}
			mb.Append(true)
			mb.KeyBuilder().(*array.StringBuilder).Append("a")
			mb.ItemBuilder().(*array.Int64Builder).Append(int64(id))
			if id >= 10 && id%2 == 0 {
				mb.KeyBuilder().(*array.StringBuilder).Append("b")
				mb.ItemBuilder().(*array.Int64Builder).Append(int64(10 * id))
			}
		}
		rec := b.NewRecordBatch()
		b.Release()
		writeRecordWith(t, filepath.Join(dir, fmt.Sprintf("part%d.strata", i)), rec, &strata.WriteOptions{FlatMap: []string{"m"}})
		rec.Release()
	}
	pattern := filepath.Join(dir, "part*.strata")
	_, conn := openDB(t)
	scan := func(filter string, byName bool) string {
		return fmt.Sprintf("strata_scan('%s', union_by_name := %v, filter := '%s')",
			pattern, byName, strings.ReplaceAll(filter, "'", "''"))
	}
	for _, c := range []struct {
		filter string
		want   string // the ids, in order
	}{
		{"m.b >= 140", "14 16 18"},
		{"m.b IS NOT NULL", "10 12 14 16 18"},
		{"m.b IS NULL", "0 1 2 3 4 5 6 7 8 9 11 13 15 17 19"},
		{"NOT (m.b > 150)", "10 12 14"},
		{"m.b = 120 OR id < 2", "0 1 12"},
		{"m.a < 3 OR m.b = 180", "0 1 2 18"},
		{"m.b < 0", ""},
	} {
		for _, byName := range []bool{true, false} {
			what := fmt.Sprintf("%s (union_by_name %v)", c.filter, byName)
			rows, err := tryRows(conn, "SELECT id FROM "+scan(c.filter, byName)+" ORDER BY id")
			if err != nil {
				t.Errorf("%s: %v", what, err)
				continue
			}
			ids := make([]string, len(rows))
			for i, r := range rows {
				ids[i] = r[0]
			}
			if got := strings.Join(ids, " "); got != c.want {
				t.Errorf("%s: ids %q, want %q", what, got, c.want)
			}
			n := rowsOf(t, conn, "SELECT count(*) FROM "+scan(c.filter, byName))
			if want := fmt.Sprint(len(strings.Fields(c.want))); n[0][0] != want {
				t.Errorf("%s: count(*) %s, want %s", what, n[0][0], want)
			}
		}
	}
	for _, byName := range []bool{true, false} {
		_, err := tryRows(conn, "SELECT id FROM "+scan("m.zz = 1", byName))
		if err == nil || !strings.Contains(err.Error(), "m.zz") {
			t.Errorf("a key no file knows (union_by_name %v): %v", byName, err)
		}
	}
}
