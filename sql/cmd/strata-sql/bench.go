package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"strata"
	"strata/sql/duckstrata"
	"strata/tpch"
)

// runBench times TPC-H Q1 and Q6 in one DuckDB process on the same rows
// three ways: through strata_scan (with and without pushdown), on DuckDB's
// own zstd Parquet file, and on a native DuckDB table. Every run checks that
// all systems return the same rows.
func runBench(args []string) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	sf := fs.Float64("sf", 0.1, "TPC-H scale factor of the generated lineitem")
	runs := fs.Int("runs", 7, "timed runs per query and system (after one warm-up)")
	threads := fs.Int("threads", 0, "DuckDB threads (0: one per core)")
	dir := fs.String("dir", "", "directory for the files (default: a temporary one, removed after)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *runs < 1 {
		return fmt.Errorf("--runs must be at least 1")
	}
	work := *dir
	if work == "" {
		d, err := os.MkdirTemp("", "strata-sql-bench-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		work = d
	}
	ctx := context.Background()
	stPath := filepath.Join(work, "lineitem.strata")
	pqPath := filepath.Join(work, "lineitem.parquet")
	natPath := filepath.Join(work, "lineitem.duckdb")

	fmt.Fprintf(os.Stderr, "generating lineitem SF %g ...\n", *sf)
	g := tpch.NewLineitem(*sf, 1, 0)
	w, err := strata.Create(stPath, g.Schema(), nil)
	if err != nil {
		return err
	}
	for {
		rec, err := g.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			w.Abort()
			return err
		}
		if err := w.Write(rec); err != nil {
			w.Abort()
			return err
		}
	}
	if err := w.Close(); err != nil {
		return err
	}
	db, err := duckstrata.Open("")
	if err != nil {
		return err
	}
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	os.Remove(natPath)
	os.Remove(natPath + ".wal")
	for _, q := range []string{
		// DuckDB writes the Parquet file and the native table from the
		// same rows, read from the Strata file.
		"COPY (SELECT * FROM " + sqlQuote(stPath) + ") TO " + sqlQuote(pqPath) + " (FORMAT parquet, COMPRESSION zstd)",
		"ATTACH " + sqlQuote(natPath) + " AS nat",
		"CREATE TABLE nat.lineitem AS SELECT * FROM " + sqlQuote(stPath),
		"DETACH nat",
		"ATTACH " + sqlQuote(natPath) + " AS nat (READ_ONLY)",
	} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	if *threads > 0 {
		if _, err := conn.ExecContext(ctx, fmt.Sprintf("SET threads = %d", *threads)); err != nil {
			return err
		}
	}
	var nThreads int64
	conn.QueryRowContext(ctx, "SELECT current_setting('threads')").Scan(&nThreads)
	size := func(p string) int64 {
		st, err := os.Stat(p)
		if err != nil {
			return 0
		}
		return st.Size()
	}

	type system struct {
		name  string
		table string
		push  []duckstrata.Option // nil: no pushdown
	}
	systems := []system{
		{"duckdb/parquet-zstd", "read_parquet(" + sqlQuote(pqPath) + ")", nil},
		{"duckdb/native", "nat.lineitem", nil},
		{"strata (duckstrata)", sqlQuote(stPath), []duckstrata.Option{}},
		{"strata, push all", sqlQuote(stPath), []duckstrata.Option{duckstrata.WithPushAll()}},
		{"strata, no pushdown", sqlQuote(stPath), nil},
	}
	queries := []struct{ name, sql string }{{"Q1", duckstrata.TPCHQ1}, {"Q6", duckstrata.TPCHQ6}}
	times := make([][][]time.Duration, len(systems))
	for i := range times {
		times[i] = make([][]time.Duration, len(queries))
	}
	for qi, q := range queries {
		var ref string
		for r := 0; r <= *runs; r++ {
			for k := range systems {
				// Rotate the order so no system always runs first.
				si := (k + r) % len(systems)
				s := systems[si]
				start := time.Now()
				text := fmt.Sprintf(q.sql, s.table)
				if s.push != nil {
					if text, _, err = duckstrata.Pushdown(ctx, conn, text, s.push...); err != nil {
						return err
					}
				}
				got, err := result(ctx, conn, text)
				el := time.Since(start)
				if err != nil {
					return fmt.Errorf("%s %s: %w", s.name, q.name, err)
				}
				if ref == "" {
					ref = got
				} else if got != ref {
					return fmt.Errorf("%s %s returned\n%s\nother systems\n%s", s.name, q.name, got, ref)
				}
				if r > 0 {
					times[si][qi] = append(times[si][qi], el)
				}
			}
		}
	}
	rows, _ := (&strataRows{path: stPath}).count()
	fmt.Printf("TPC-H lineitem SF %g (%d rows), DuckDB %d threads; median of %d runs in ms (ratio to DuckDB on zstd Parquet), min-max\n",
		*sf, rows, nThreads, *runs)
	fmt.Printf("files: strata %d B, parquet-zstd %d B, duckdb native %d B; all systems returned the same rows\n\n",
		size(stPath), size(pqPath), size(natPath))
	fmt.Printf("%-22s", "system")
	for _, q := range queries {
		fmt.Printf("  %-28s", q.name+" ms")
	}
	fmt.Println()
	for si, s := range systems {
		fmt.Printf("%-22s", s.name)
		for qi := range queries {
			med := median(times[si][qi])
			base := median(times[0][qi])
			mn, mx := slices.Min(times[si][qi]), slices.Max(times[si][qi])
			fmt.Printf("  %-28s", fmt.Sprintf("%.2f (%.2f×) %.2f-%.2f", ms(med), float64(med)/float64(base), ms(mn), ms(mx)))
		}
		fmt.Println()
	}
	return nil
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func sqlQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// result runs q and renders its rows as text, for the cross-check.
func result(ctx context.Context, conn *sql.Conn, q string) (string, error) {
	rows, err := conn.QueryContext(ctx, q)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	var b strings.Builder
	if _, err := printRows(rows, "csv", nil, &b); err != nil {
		return "", err
	}
	return b.String(), nil
}

type strataRows struct{ path string }

func (s *strataRows) count() (int64, error) {
	f, err := strata.Open(s.path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	return f.NumRows(), nil
}
