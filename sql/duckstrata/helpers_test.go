package duckstrata_test

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"strata"
	"strata/internal/objtest"
	"strata/interop"
	"strata/sql/duckstrata"
	"strata/tpch"
)

// source yields record batches (tpch.Generator, or a slice).
type source interface {
	Next() (arrow.RecordBatch, error)
}

type recSlice struct {
	recs []arrow.Record
	i    int
}

func (s *recSlice) Next() (arrow.RecordBatch, error) {
	if s.i >= len(s.recs) {
		return nil, io.EOF
	}
	s.i++
	return s.recs[s.i-1], nil
}

// writeBoth writes the same batches as a Strata file (small stripes, so the
// scan has several splits) and a Parquet file.
func writeBoth(t testing.TB, dir, name string, sch *arrow.Schema, mk func() source, stripeBytes int) (st, pq string) {
	t.Helper()
	st = filepath.Join(dir, name+".strata")
	pq = filepath.Join(dir, name+".parquet")
	w, err := strata.Create(st, sch, &strata.WriteOptions{StripeBytes: stripeBytes})
	if err != nil {
		t.Fatal(err)
	}
	ps, err := interop.Create(pq, sch, interop.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	src := mk()
	for {
		rec, err := src.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
		if err := ps.Write(rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := ps.Close(); err != nil {
		t.Fatal(err)
	}
	return st, pq
}

var lineitemCache = map[float64][2]string{}

// writeRecord writes rec as a Strata file at path, with the default
// options, and returns path.
func writeRecord(t testing.TB, path string, rec arrow.RecordBatch) string {
	t.Helper()
	return writeRecordWith(t, path, rec, nil)
}

// writeRecordWith is writeRecord with write options (nil: the defaults).
func writeRecordWith(t testing.TB, path string, rec arrow.RecordBatch, opts *strata.WriteOptions) string {
	t.Helper()
	w, err := strata.Create(path, rec.Schema(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// lineitem writes TPC-H lineitem at scale factor sf once per test binary.
func lineitem(t testing.TB, sf float64) (st, pq string) {
	t.Helper()
	if p, ok := lineitemCache[sf]; ok {
		return p[0], p[1]
	}
	dir, err := makeTempDir()
	if err != nil {
		t.Fatal(err)
	}
	st, pq = writeBoth(t, dir, "lineitem", tpch.Schema(), func() source { return tpch.NewLineitem(sf, 1, 0) }, 1<<20)
	lineitemCache[sf] = [2]string{st, pq}
	return st, pq
}

func openDB(t testing.TB) (*sql.DB, *sql.Conn) {
	t.Helper()
	db, err := duckstrata.Open("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return db, conn
}

// rowsOf runs q and renders every value canonically: floats by their bits'
// shortest text (so -0 and NaN are told apart), times in UTC.
func rowsOf(t testing.TB, conn *sql.Conn, q string) [][]string {
	t.Helper()
	out, err := tryRows(conn, q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return out
}

// tryRows runs q and renders every value canonically: floats by their
// shortest text (so -0 and NaN are told apart), times in UTC.
func tryRows(conn *sql.Conn, q string) ([][]string, error) {
	rows, err := conn.QueryContext(context.Background(), q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out [][]string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		row := make([]string, len(cols))
		for i, v := range vals {
			row[i] = render(v)
		}
		out = append(out, row)
	}
	return out, rows.Err()
}

func render(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case float64:
		if math.IsNaN(x) {
			return "NaN"
		}
		return strconv.FormatFloat(x, 'g', -1, 64)
	case float32:
		return render(float64(x))
	case time.Time:
		return x.UTC().Format(time.RFC3339Nano)
	case []byte:
		return fmt.Sprintf("%x", x)
	}
	return fmt.Sprint(v)
}

func sameRows(t testing.TB, what string, got, want [][]string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d rows, want %d", what, len(got), len(want))
	}
	for i := range got {
		if strings.Join(got[i], "|") != strings.Join(want[i], "|") {
			t.Fatalf("%s: row %d:\n got %v\nwant %v", what, i, got[i], want[i])
		}
	}
}

// putFile stores the local file at path under key in the test server's
// bucket strata-test and returns its size.
func putFile(tb testing.TB, srv *objtest.Server, path, key string) int {
	tb.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	if err := srv.Put(context.Background(), "strata-test", key, data); err != nil {
		tb.Fatal(err)
	}
	return len(data)
}

// useS3 points the process's AWS settings at the test server, through a
// proxy adding latency to every request and counting them, and returns
// the proxy, closed when the test ends.
func useS3(tb testing.TB, srv *objtest.Server, latency time.Duration) *objtest.Proxy {
	tb.Helper()
	p, err := objtest.NewProxy(srv.Endpoint)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(p.Close)
	p.SetLatency(latency)
	for _, kv := range srv.Env(p.URL) {
		k, v, _ := strings.Cut(kv, "=")
		tb.Setenv(k, v)
	}
	return p
}
