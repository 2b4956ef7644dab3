package duckstrata_test

import (
	"context"
	"strings"
	"testing"

	"strata/sql/duckstrata"
)

// TestPushdownRewrite: which references get which filter, and the query
// text around them untouched.
func TestPushdownRewrite(t *testing.T) {
	st, _ := lineitem(t, 0.001)
	_, conn := openDB(t)
	ctx := context.Background()
	L := quoted(st)
	for _, c := range []struct {
		q    string
		want []string // filters, in order of the references
	}{
		{"SELECT count(*) FROM " + L + " WHERE l_quantity < 500", []string{"l_quantity < 500"}},
		{"SELECT count(*) FROM strata_scan(" + L + ") /* ( */ WHERE l_quantity < 500 -- )", []string{"l_quantity < 500"}},
		{"SELECT count(*) FROM " + L + " x, (SELECT 1 AS l_tax) y WHERE x.l_quantity < 500 AND y.l_tax = 1", []string{"l_quantity < 500"}},
		{"SELECT count(*) FROM " + L + " a JOIN " + L + " b USING (l_orderkey) WHERE a.l_quantity < 500 AND b.l_linenumber = 7", []string{"l_quantity < 500", "l_linenumber = 7"}},
		{"SELECT count(*) FROM " + L + " a LEFT JOIN " + L + " b ON a.l_orderkey = b.l_orderkey WHERE a.l_quantity < 500 AND b.l_linenumber IS NULL", []string{"l_quantity < 500"}}, // the null-extended side is no candidate
		{"SELECT count(*) FROM " + L + " TABLESAMPLE 10 ROWS WHERE l_quantity < 500", nil},
		{"WITH c AS (SELECT * FROM " + L + " WHERE l_linenumber = 7) SELECT count(*) FROM c, c AS d WHERE c.l_orderkey = d.l_orderkey", []string{"l_linenumber = 7"}},
		{"SELECT (SELECT max(l_tax) FROM " + L + " WHERE l_linenumber = 7) FROM " + L + " WHERE l_quantity < 500", []string{"l_quantity < 500", "l_linenumber = 7"}},
		{"SELECT count(*) FROM " + L + " WHERE l_quantity < random() * 100", []string{""}},
		{"SELECT count(*) FROM strata_scan(" + L + ", filter := 'l_tax = 1') WHERE l_quantity < 500", nil},
		{"CREATE TABLE t AS SELECT * FROM " + L + " WHERE l_quantity < 500", nil},
	} {
		out, pu, err := duckstrata.Pushdown(ctx, conn, c.q, duckstrata.WithPushAll())
		if err != nil {
			t.Fatalf("%s: %v", c.q, err)
		}
		var got []string
		for _, p := range pu {
			got = append(got, p.Filter)
		}
		if strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("%s\npushed %q, want %q", c.q, got, c.want)
		}
		// The rewritten query runs and returns what the original does
		// (a sample draws other rows on every run).
		if !strings.HasPrefix(c.q, "CREATE") && !strings.Contains(c.q, "SAMPLE") {
			sameRows(t, c.q, rowsOf(t, conn, out), rowsOf(t, conn, c.q))
		}
	}
	// Errors: a missing file and a wrong filter argument are DuckDB errors
	// naming the file.
	if _, err := tryRows(conn, "SELECT * FROM 'nope.strata'"); err == nil || !strings.Contains(err.Error(), "nope.strata") {
		t.Errorf("missing file: %v", err)
	}
	if _, err := tryRows(conn, "SELECT * FROM strata_scan("+L+", filter := 'l_nope = 1')"); err == nil || !strings.Contains(err.Error(), "l_nope") {
		t.Errorf("bad filter: %v", err)
	}
	if _, err := tryRows(conn, "SELECT * FROM 'nope.csv.gz'"); err == nil {
		t.Errorf("missing non-Strata table accepted")
	}
}
