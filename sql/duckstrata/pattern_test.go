package duckstrata_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata/internal/objtest"
	_ "strata/iox/s3"
	"strata/sql/duckstrata"
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
	comparePattern(t, conn, st, pq)
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
	if _, err := tryRows(conn, "SELECT count(*) FROM 'https://example.com/part*.strata'"); err == nil || !strings.Contains(err.Error(), "cannot be listed") {
		t.Errorf("a pattern in an https URL: %v", err)
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

// comparePattern runs queries over the table st names through strata_scan
// and over the same rows as Parquet (pq, a read_parquet call), and
// expects the same rows: aggregates, pushed filters, and every row both
// ways.
func comparePattern(t *testing.T, conn *sql.Conn, st, pq string) {
	t.Helper()
	for _, q := range []string{
		"SELECT count(*), sum(l_quantity), min(l_shipdate), max(l_comment) FROM %s",
		"SELECT count(*) FROM %s WHERE l_shipdate < DATE '1994-01-01'",
		"SELECT l_returnflag, l_linestatus, count(*), sum(l_extendedprice) FROM %s WHERE l_discount > 0.05 GROUP BY 1, 2 ORDER BY 1, 2",
		"SELECT l_orderkey, l_linenumber, l_comment FROM %s WHERE l_linenumber = 7 ORDER BY l_orderkey, l_linenumber, l_comment",
		"SELECT count(*) FROM (SELECT * FROM %[1]s EXCEPT ALL SELECT * FROM " + pq + ")",
		"SELECT count(*) FROM (SELECT * FROM " + pq + " EXCEPT ALL SELECT * FROM %[1]s)",
	} {
		got := rowsOf(t, conn, fmt.Sprintf(q, st))
		want := rowsOf(t, conn, fmt.Sprintf(q, pq))
		if strings.Contains(q, "EXCEPT") {
			want = [][]string{{"0"}}
		} else if len(want) == 0 || want[0][0] == "0" {
			t.Fatalf("%s: the reference has no rows", q)
		}
		sameRows(t, q, got, want)
	}
}

// TestPatternScanS3 reads lineitem parts stored in an S3-compatible server
// (versitygw, started by the test) through one s3:// pattern and compares
// every query with DuckDB reading the same rows from local Parquet files.
// Keys in a deeper folder or of another name under the same prefix are
// not matched.
func TestPatternScanS3(t *testing.T) {
	srv := objtest.Need(t)
	dir := t.TempDir()
	prefix := "sqlpattern/" + strings.ReplaceAll(t.Name(), "/", "_") + "/"
	put := func(local, key string) { putFile(t, srv, local, prefix+key) }
	for i, seed := range []uint64{21, 22, 23, 24} {
		st, _ := writeBoth(t, dir, fmt.Sprintf("part%d", i), tpch.Schema(), func() source { return tpch.NewLineitem(0.001, seed, 0) }, 32<<10)
		switch i {
		case 3: // same columns, outside the pattern
			put(st, "old/part3.strata")
			put(st, "other3.strata")
			os.Remove(st)
			os.Remove(strings.TrimSuffix(st, ".strata") + ".parquet")
		default:
			put(st, fmt.Sprintf("part%d.strata", i))
		}
	}
	proxy := useS3(t, srv, 0)
	_, conn := openDB(t)
	st := "'s3://strata-test/" + prefix + "part*.strata'"
	pq := "read_parquet('" + filepath.Join(dir, "part*.parquet") + "')"
	comparePattern(t, conn, st, pq)
	// A query rewritten by Pushdown lists the prefix once: its scan takes
	// the files Pushdown listed, with and without a filter pushed.
	for _, q := range []string{
		"SELECT count(*) FROM " + st + " WHERE l_shipdate < DATE '1993-01-01'",
		"SELECT count(*) FROM " + st + " WHERE l_quantity > 0",
	} {
		rewritten, _, err := duckstrata.Pushdown(context.Background(), conn, q)
		if err != nil {
			t.Fatal(err)
		}
		proxy.Reset()
		got := rowsOf(t, conn, rewritten)
		if lists := proxy.Counts().Lists; lists != 0 {
			t.Errorf("%s: the scan listed the prefix %d times after Pushdown had", rewritten, lists)
		}
		sameRows(t, q, got, rowsOf(t, conn, strings.Replace(q, st, pq, 1)))
		// run again, the token spent: the scan lists for itself
		proxy.Reset()
		rowsOf(t, conn, rewritten)
		if lists := proxy.Counts().Lists; lists != 1 {
			t.Errorf("%s run again: %d listings, want 1", rewritten, lists)
		}
	}
	// a token kept for one pattern does not serve another
	rewritten, _, err := duckstrata.Pushdown(context.Background(), conn, "SELECT count(*) FROM "+st+" WHERE l_quantity > 0")
	if err != nil {
		t.Fatal(err)
	}
	i := strings.Index(rewritten, "listing := ")
	if i < 0 {
		t.Fatalf("no listing token in %s", rewritten)
	}
	tok := rewritten[i : i+strings.Index(rewritten[i:], ")")]
	mixed := "SELECT count(*) FROM strata_scan(" + strings.Replace(st, "part*", "part[01]*", 1) + ", " + tok + ")"
	got := rowsOf(t, conn, mixed)
	want := rowsOf(t, conn, "SELECT count(*) FROM read_parquet(['"+filepath.Join(dir, "part0.parquet")+"', '"+filepath.Join(dir, "part1.parquet")+"'])")
	sameRows(t, mixed, got, want)
	if _, err := tryRows(conn, "SELECT count(*) FROM 's3://strata-test/"+prefix+"none*.strata'"); err == nil || !strings.Contains(err.Error(), "no file matches") {
		t.Errorf("an s3 pattern matching nothing: %v", err)
	}
}

// BenchmarkPatternS3 runs one aggregate over 32 small lineitem objects
// through an s3:// pattern, behind a proxy that adds 20 ms to every
// request, opening the objects one at a time and 16 at a time. It reports
// the requests a query makes.
//
//	go test -run '^$' -bench PatternS3 -benchtime 5x ./duckstrata
func BenchmarkPatternS3(b *testing.B) {
	srv := objtest.Need(b)
	dir := b.TempDir()
	prefix := "sqlbench/"
	for i := range 32 {
		st, _ := writeBoth(b, dir, fmt.Sprintf("part%02d", i), tpch.Schema(), func() source { return tpch.NewLineitem(0.0005, uint64(i+100), 0) }, 32<<10)
		putFile(b, srv, st, fmt.Sprintf("%spart%02d.strata", prefix, i))
	}
	p := useS3(b, srv, 20*time.Millisecond)
	_, conn := openDB(b)
	q := "SELECT count(*), sum(l_quantity) FROM 's3://strata-test/" + prefix + "part*.strata'"
	for _, c := range []struct {
		ahead     int
		handshake time.Duration
	}{{1, 0}, {16, 0}, {16, 40 * time.Millisecond}} {
		// handshake: added to a connection's first request, as TLS to an
		// object store costs about two round trips more
		b.Run(fmt.Sprintf("open-ahead=%d/handshake=%v", c.ahead, c.handshake), func(b *testing.B) {
			defer duckstrata.SetOpenAhead(c.ahead)()
			p.SetConnLatency(c.handshake)
			defer p.SetConnLatency(0)
			p.Reset()
			for b.Loop() {
				rowsOf(b, conn, q)
			}
			b.ReportMetric(float64(p.Counts().Requests)/float64(b.N), "requests/op")
			b.ReportMetric(float64(p.Counts().Conns)/float64(b.N), "conns/op")
		})
	}
}
