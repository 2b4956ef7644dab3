package main

import (
	"database/sql"
	"fmt"
	"os"

	_ "github.com/duckdb/duckdb-go/v2"
)

func main() {
	db, err := sql.Open("duckdb", "")
	if err != nil {
		panic(err)
	}
	dir := os.Args[1]
	q := map[string]string{
		"uuid":     "select uuid() as u, i from range(1000) t(i)",
		"time":     "select make_time(i % 24, i % 60, (i % 60)::double) as t, i from range(1000) t(i)",
		"interval": "select to_seconds(i) as iv, i from range(1000) t(i)",
		"null":     "select null as n, i from range(1000) t(i)",
		"blob":     "select ('x' || i)::blob as b, i from range(1000) t(i)",
		"tstz":     "select now() + to_seconds(i) as ts, i from range(1000) t(i)",
		"hugeint":  "select i::hugeint * 1000000000000000000000 as h, i from range(1000) t(i)",
		"utiny":    "select i::utinyint as u8, i::usmallint as u16, i::uinteger as u32, i::ubigint u64 from range(200) t(i)",
		"dec":      "select (i / 7)::decimal(38,10) as d, (i/3)::decimal(4,2) as d2 from range(1000) t(i)",
		"enum":     "select (['a','b','c'][i%3+1])::enum('a','b','c') as e from range(1000) t(i)",
		"struct":   "select {'a': i, 'b': [i, i+1], 'c': map([i::varchar], [i])} as s from range(1000) t(i)",
		"array":    "select [i, i+1, i+2]::integer[3] as a from range(1000) t(i)",
		"float":    "select i::float as f, i::double as d from range(1000) t(i)",
		"bit":      "select '0101'::bit as b from range(10) t(i)",
		"date":     "select '2020-01-01'::date + i::integer as d, ('2020-01-01'::timestamp_ns) + to_seconds(i) as tns from range(1000) t(i)",
		"json":     "select ('{\"a\":' || i || '}')::json as j from range(1000) t(i)",
		"union":    "select union_value(num := i) as u from range(10) t(i)",
		"timetz":   "select '12:00:00+01'::timetz as t from range(10) t(i)",
		"varint":   "select i::varint as v from range(10) t(i)",
	}
	for name, sel := range q {
		_, err := db.Exec(fmt.Sprintf("copy (%s) to '%s/%s.parquet' (format parquet, compression zstd)", sel, dir, name))
		if err != nil {
			fmt.Println(name, "duckdb:", err)
		}
	}
}
