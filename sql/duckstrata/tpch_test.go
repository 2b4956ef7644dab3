package duckstrata_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"strata/internal/objtest"
	"strata/sql/duckstrata"
)

var tempDirs []string

func makeTempDir() (string, error) {
	d, err := os.MkdirTemp("", "duckstrata-test-")
	if err == nil {
		tempDirs = append(tempDirs, d)
	}
	return d, err
}

func TestMain(m *testing.M) {
	code := objtest.Main(m) // stops the S3 server if a test started it
	for _, d := range tempDirs {
		os.RemoveAll(d)
	}
	os.Exit(code)
}

func quoted(p string) string { return "'" + strings.ReplaceAll(p, "'", "''") + "'" }

// TestTPCH runs TPC-H Q1 and Q6 on lineitem SF 0.01 through strata_scan
// (with the WHERE clause pushed down, and without) and checks every value
// against DuckDB on the same rows as Parquet, with one and with four
// threads.
func TestTPCH(t *testing.T) {
	st, pq := lineitem(t, 0.01)
	_, conn := openDB(t)
	ctx := context.Background()
	for _, threads := range []int{1, 4} {
		if _, err := conn.ExecContext(ctx, fmt.Sprintf("SET threads = %d", threads)); err != nil {
			t.Fatal(err)
		}
		for name, q := range map[string]string{"Q1": duckstrata.TPCHQ1, "Q6": duckstrata.TPCHQ6} {
			want := rowsOf(t, conn, fmt.Sprintf(q, "read_parquet("+quoted(pq)+")"))
			if len(want) == 0 || want[0][0] == "NULL" {
				t.Fatalf("%s on Parquet returned %v", name, want)
			}
			plain := rowsOf(t, conn, fmt.Sprintf(q, quoted(st)))
			sameRows(t, name+" (no pushdown)", plain, want)
			for _, all := range []bool{false, true} {
				var opts []duckstrata.Option
				if all {
					opts = append(opts, duckstrata.WithPushAll())
				}
				pushed, pu, err := duckstrata.Pushdown(ctx, conn, fmt.Sprintf(q, quoted(st)), opts...)
				if err != nil {
					t.Fatal(err)
				}
				// Q1's one conjunct keeps ~98% of the rows: by default it
				// is not pushed. Q6's keep ~2%: they are.
				wantPushed := all || name == "Q6"
				if len(pu) != 1 || (pu[0].Filter != "") != wantPushed || wantPushed && pu[0].Kept != 0 {
					t.Fatalf("%s (push all %v): pushed %+v", name, all, pu)
				}
				got := rowsOf(t, conn, pushed)
				sameRows(t, name+" (pushdown: "+pu[0].Filter+")", got, want)
				t.Logf("threads %d: %s: %d rows agree; estimate %.3f, pushed %q", threads, name, len(got), pu[0].Estimate, pu[0].Filter)
			}
		}
	}
}
