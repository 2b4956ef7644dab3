package duckstrata_test

import (
	"context"
	"fmt"
	"testing"

	"strata/sql/duckstrata"
)

// BenchmarkTPCH times Q1 and Q6 through strata_scan with pushdown on
// lineitem SF 0.01 (strata-sql bench compares with DuckDB's own readers).
func BenchmarkTPCH(b *testing.B) {
	st, _ := lineitem(b, 0.01)
	_, conn := openDB(b)
	ctx := context.Background()
	for name, q := range map[string]string{"Q1": duckstrata.TPCHQ1, "Q6": duckstrata.TPCHQ6} {
		for _, push := range []bool{true, false} {
			b.Run(fmt.Sprintf("%s/pushdown=%v", name, push), func(b *testing.B) {
				for b.Loop() {
					text := fmt.Sprintf(q, quoted(st))
					if push {
						var err error
						if text, _, err = duckstrata.Pushdown(ctx, conn, text); err != nil {
							b.Fatal(err)
						}
					}
					if len(rowsOf(b, conn, text)) == 0 {
						b.Fatal("no rows")
					}
				}
			})
		}
	}
}

// BenchmarkPushdown times the rewrite alone (parse, constants, schema).
func BenchmarkPushdown(b *testing.B) {
	st, _ := lineitem(b, 0.01)
	_, conn := openDB(b)
	ctx := context.Background()
	text := fmt.Sprintf(duckstrata.TPCHQ6, quoted(st))
	for b.Loop() {
		if _, _, err := duckstrata.Pushdown(ctx, conn, text); err != nil {
			b.Fatal(err)
		}
	}
}
