package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Machine-made data shapes for size checks beyond the real sets: the
// columns data lakes fill from logs, events and services (paths and URLs
// holding ids, JSON payloads, hashes, UUIDs, nanosecond times, decimals,
// mostly-null and constant columns), which the vega and Debian sets hold
// little of. DuckDB generates them from its hash function (deterministic
// for a DuckDB version, unlike random() or uuid()) and writes each as a
// zstd Parquet file, as the real sets were written, so `strata sizes DIR`
// compares Strata with the same writer. Their values are drawn at random,
// not in periods: a generator that repeats a pattern every few thousand
// rows rewards whichever format keeps the largest zstd window, which real
// logs do not.
//
// Every shape is a SELECT over t(i), i in [0, rows), where h(k) stands for
// a hash of i and the constant k in [0, 1e9).
var shapes = map[string]string{
	"weblog": `SELECT TIMESTAMP '2024-01-01' + to_microseconds(i * 86000 + h(1) % 86000) AS ts,
		'10.' || (c % 4)::VARCHAR || '.' || (c // 4 % 256)::VARCHAR || '.' || (c // 1024 % 256)::VARCHAR AS ip,
		['GET', 'GET', 'GET', 'POST', 'PUT', 'DELETE'][1 + h(2) % 6] AS method,
		'/api/v' || (1 + h(3) % 3)::VARCHAR || '/' || ['users', 'orders', 'items', 'search', 'login'][1 + h(4) % 5] || '/' || (h(5) % 100000)::VARCHAR AS path,
		[200, 200, 200, 200, 304, 404, 500][1 + h(6) % 7] AS status,
		(h(7) % 50000)::INTEGER AS bytes,
		'Mozilla/5.0 (' || ['Windows NT 10.0; Win64; x64', 'Macintosh; Intel Mac OS X 10_15_7', 'X11; Linux x86_64', 'iPhone; CPU iPhone OS 17_0 like Mac OS X'][1 + h(8) % 4] || ') AppleWebKit/537.36 Chrome/' || (100 + h(9) % 20)::VARCHAR || '.0' AS ua
		FROM (SELECT i, floor(pow(h(10) / 1e9, 3) * 60000)::BIGINT AS c FROM t)`,
	"events_json": `SELECT '{"user":' || (h(1) % 50000)::VARCHAR || ',"action":"' || ['click', 'view', 'buy', 'scroll'][1 + h(2) % 4] ||
		'","value":' || (h(3) % 1000)::VARCHAR || ',"ok":' || CASE WHEN h(4) % 10 = 0 THEN 'false' ELSE 'true' END || '}' AS payload FROM t`,
	"urls": `SELECT 'https://www.example.com/products/' || (h(1) % 50000)::VARCHAR || '?ref=' || ['home', 'search', 'ad', 'mail'][1 + h(2) % 4] AS url,
		lower(['john', 'mary', 'alex', 'sam', 'kim', 'lee', 'pat', 'chris'][1 + h(3) % 8] || '.' || ['smith', 'jones', 'brown', 'lee', 'garcia', 'miller'][1 + h(4) % 6] ||
		(h(5) % 997)::VARCHAR || '@' || ['gmail.com', 'yahoo.com', 'example.org', 'corp.net'][1 + h(6) % 4]) AS email FROM t`,
	"ids": `SELECT substr(m, 1, 8) || '-' || substr(m, 9, 4) || '-4' || substr(m, 14, 3) || '-a' || substr(m, 18, 3) || '-' || substr(m, 21, 12) AS uuid,
		md5(i::VARCHAR || 'x') AS md5, sha256(i::VARCHAR) AS sha256 FROM (SELECT i, md5(i::VARCHAR) AS m FROM t)`,
	"hex_text": `SELECT printf('00:1B:21:%02X:%02X:%02X', h(1) % 256, h(2) % 256, h(3) % 256) AS mac,
		strftime(TIMESTAMP '2024-01-01' + to_seconds(i * 37 + h(4) % 30), '%Y-%m-%dT%H:%M:%SZ') AS ts_text,
		printf('%016x', (h(5) * 1000000007 + h(6))::UBIGINT) AS trace_id FROM t`,
	"sensors_ns": `SELECT (1700000000000000000 + i * 1000000 + h(1) % 1000)::BIGINT AS t_ns, (i % 97)::INTEGER AS sensor,
		round(20 + 5 * sin(i / 1000.0) + (h(2) % 100) / 100.0, 2) AS temp, h(3) % 1000 < 3 AS alarm,
		h(4) / 1e9 AS noise FROM t`,
	"money": `SELECT ((h(1) % 10000000) / 100.0)::DECIMAL(12, 2) AS price, ((h(2) % 100) / 100.0)::DECIMAL(5, 2) AS rate,
		DATE '2020-01-01' + (i // 300)::INTEGER AS day, (h(3) % 1000000) / 1e6 * 1e3 AS amount FROM t`,
	"sparse": `SELECT CASE WHEN h(1) % 50 = 0 THEN (h(2) % 100000)::INTEGER END AS a,
		CASE WHEN h(3) % 7 = 0 THEN 'note ' || (h(4) % 300)::VARCHAR END AS b,
		CASE WHEN h(5) % 1000 = 0 THEN h(6) / 1e9 END AS c, i AS id,
		'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36' AS agent, 'production' AS env FROM t`,
}

// shapeSQL is the statement that writes shape q of rows rows to path.
func shapeSQL(q string, rows int, path string) string {
	// h(k): a hash of (i, k) in [0, 1e9)
	for k := 10; k >= 1; k-- { // h(10) before h(1)
		q = strings.ReplaceAll(q, fmt.Sprintf("h(%d)", k), fmt.Sprintf("(hash(i, %d) %% 1000000000)::BIGINT", k))
	}
	q = strings.Replace(q, "FROM t", fmt.Sprintf("FROM range(%d) t(i)", rows), 1)
	return fmt.Sprintf("COPY (%s) TO '%s' (FORMAT parquet, COMPRESSION zstd)", q, strings.ReplaceAll(path, "'", "''"))
}

// runShapes is `bench shapes DIR`: it writes every shape into DIR.
func runShapes(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("bench shapes", flag.ContinueOnError)
	fs.SetOutput(stderr)
	rows := fs.Int("rows", 300000, "rows per shape")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: bench shapes [--rows N] DIR  (then: strata sizes DIR)")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 1 || *rows < 1 {
		fs.Usage()
		return 2
	}
	dir := fs.Arg(0)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintln(stderr, "bench shapes:", err)
		return 1
	}
	db, err := openDuck("", 1)
	if err != nil {
		fmt.Fprintln(stderr, "bench shapes:", err)
		return 1
	}
	defer db.close()
	names := make([]string, 0, len(shapes))
	for name := range shapes {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		path := filepath.Join(dir, name+".parquet")
		if err := db.exec(shapeSQL(shapes[name], *rows, path)); err != nil {
			fmt.Fprintf(stderr, "bench shapes: %s: %v\n", name, err)
			return 1
		}
		fmt.Fprintln(stdout, path)
	}
	return 0
}
