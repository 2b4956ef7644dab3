package duckstrata_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"strata"
	"strata/internal/objtest"
	"strata/sql/duckstrata"
)

// TestScanPrefetch runs the TPC-H, nested-type and pattern tests with
// splits read ahead of DuckDB's threads, as scans of remote files read
// them, over local files, and queries whose LIMIT ends the scan while
// splits are being read ahead. scripts/test.sh runs it under the race
// detector.
func TestScanPrefetch(t *testing.T) {
	defer duckstrata.SetPrefetchLocal(true)()
	t.Run("tpch", TestTPCH)
	t.Run("nested", TestNestedTypes)
	t.Run("pattern", TestPatternScan)
	st, _ := lineitem(t, 0.01)
	_, conn := openDB(t)
	for _, threads := range []int{1, 4} {
		if _, err := conn.ExecContext(context.Background(), fmt.Sprintf("SET threads = %d", threads)); err != nil {
			t.Fatal(err)
		}
		for i := range 10 {
			q := fmt.Sprintf("SELECT l_orderkey, l_comment FROM %s LIMIT %d", quoted(st), 1+i*700)
			if got := rowsOf(t, conn, q); len(got) != 1+i*700 {
				t.Fatalf("%s: %d rows", q, len(got))
			}
		}
	}
}

// TestScanS3 runs TPC-H Q1 and Q6 on one lineitem object through an
// S3-compatible server and a proxy adding latency, against DuckDB on the
// same rows as local Parquet, then makes reads fail past their retries:
// the query fails naming the object.
func TestScanS3(t *testing.T) {
	srv := objtest.Need(t)
	st, pq := lineitem(t, 0.01)
	putFile(t, srv, st, "scans3/lineitem.strata")
	p := useS3(t, srv, 2*time.Millisecond)
	_, conn := openDB(t)
	obj := "'s3://strata-test/scans3/lineitem.strata'"
	for name, q := range map[string]string{"Q1": duckstrata.TPCHQ1, "Q6": duckstrata.TPCHQ6} {
		want := rowsOf(t, conn, fmt.Sprintf(q, "read_parquet("+quoted(pq)+")"))
		sameRows(t, name, rowsOf(t, conn, fmt.Sprintf(q, obj)), want)
	}
	if got := rowsOf(t, conn, "SELECT l_comment FROM "+obj+" LIMIT 3"); len(got) != 3 {
		t.Fatalf("LIMIT 3: %d rows", len(got))
	}
	// Every GET after the opening one fails: the scan's reads give up
	// after their retries and the query reports the object.
	p.Inject("GET", objtest.Pass)
	for range 200 {
		p.Inject("GET", objtest.ServerError)
	}
	_, err := tryRows(conn, "SELECT sum(l_quantity), max(l_comment) FROM "+obj)
	p.ClearFaults()
	if err == nil || !strings.Contains(err.Error(), "strata_scan s3://strata-test/scans3/lineitem.strata") {
		t.Fatalf("failed reads: %v", err)
	}
	t.Logf("failed reads: %v", err)
}

// BenchmarkScanS3 runs TPC-H Q1 and Q6 on lineitem SF 0.05 (stripes of
// 1 MiB before encoding, one split each) as a local file and as one object behind a
// proxy adding 20 ms to every request, with two DuckDB threads; over S3
// with splits read ahead (the default) and without. It reports the
// requests a query makes.
//
//	go test -run '^$' -bench ScanS3 -benchtime 5x ./duckstrata
func BenchmarkScanS3(b *testing.B) {
	srv := objtest.Need(b)
	ctx := context.Background()
	st, _ := lineitem(b, 0.05)
	size := putFile(b, srv, st, "scanbench/lineitem.strata")
	if f, err := strata.Open(st); err == nil {
		b.Logf("lineitem: %d bytes, %d stripes", size, f.NumStripes())
		f.Close()
	}
	p := useS3(b, srv, 20*time.Millisecond)
	_, conn := openDB(b)
	if _, err := conn.ExecContext(ctx, "SET threads = 2"); err != nil {
		b.Fatal(err)
	}
	for _, q := range []struct{ name, sql string }{{"Q1", duckstrata.TPCHQ1}, {"Q6", duckstrata.TPCHQ6}} {
		for _, c := range []struct {
			name, path string
			ahead      int
		}{{"local", quoted(st), 8}, {"s3", "'s3://strata-test/scanbench/lineitem.strata'", 8}, {"s3-no-read-ahead", "'s3://strata-test/scanbench/lineitem.strata'", 0}} {
			b.Run(q.name+"/"+c.name, func(b *testing.B) {
				defer duckstrata.SetPrefetchSplits(c.ahead)()
				p.Reset()
				for b.Loop() {
					rowsOf(b, conn, fmt.Sprintf(q.sql, c.path))
				}
				b.ReportMetric(float64(p.Counts().Requests)/float64(b.N), "requests/op")
			})
		}
	}
}
