package duckstrata

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// TestFoldGo checks the constants Pushdown evaluates itself against DuckDB
// evaluating the same expressions.
func TestFoldGo(t *testing.T) {
	db, err := Open("")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, e := range []string{
		"5", "-5", "3000000000", "170141183460469231731687303715884105727", "-170141183460469231731687303715884105728",
		"2.50", "-0.005", "12345678901234567890.123456789", "0.0", "6 - 1", "6 + 1", "-(7)", "3 * -4", "2147483647 * 3",
		"'abc'", "''", "true", "false", "DATE '1994-01-01'", "TIMESTAMP '1994-01-01 12:34:56'", "TIMESTAMP '1994-01-01 12:34:56.123456'",
		"DATE '1994-01-01' + INTERVAL 1 YEAR", "DATE '1998-12-01' - INTERVAL 90 DAY", "DATE '2024-01-31' + INTERVAL 1 MONTH",
		"DATE '2023-03-31' - INTERVAL 1 MONTH", "DATE '2024-02-29' + INTERVAL 1 YEAR", "DATE '2000-01-01' + INTERVAL '3' MONTH",
		"DATE '1999-12-31' + INTERVAL 400 DAY", "DATE '2001-05-31' - INTERVAL 15 MONTH", "DATE '1994-01-01' + INTERVAL (2) DAY",
	} {
		var js string
		if err := conn.QueryRowContext(ctx, "SELECT json_serialize_sql($1::VARCHAR)::VARCHAR", "SELECT "+e).Scan(&js); err != nil {
			t.Fatal(err)
		}
		var root map[string]any
		dec := json.NewDecoder(strings.NewReader(js))
		dec.UseNumber()
		if err := dec.Decode(&root); err != nil {
			t.Fatal(err)
		}
		expr := asMap(asMap(root["statements"].([]any)[0])["node"])["select_list"].([]any)[0]
		typ, text, ok := foldGo(expr)
		if !ok {
			t.Errorf("%s: not folded", e)
			continue
		}
		var wantText, wantType string
		if err := conn.QueryRowContext(ctx, "SELECT CAST(("+e+") AS VARCHAR), typeof("+e+")").Scan(&wantText, &wantType); err != nil {
			// DuckDB fails on it (an overflow): folding must not matter,
			// since the query would fail the same way.
			t.Logf("%s: DuckDB: %v", e, err)
			continue
		}
		if text != wantText {
			t.Errorf("%s: folded to %q, DuckDB says %q", e, text, wantText)
		}
		if isIntType(typ) != isIntType(wantType) || strings.HasPrefix(typ, "DECIMAL") != strings.HasPrefix(wantType, "DECIMAL") ||
			(!isIntType(typ) && !strings.HasPrefix(typ, "DECIMAL") && typ != wantType) {
			t.Errorf("%s: folded type %s, DuckDB %s", e, typ, wantType)
		}
	}
}
