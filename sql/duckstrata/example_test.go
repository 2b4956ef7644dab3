package duckstrata_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata"
	"strata/sql/duckstrata"
)

// SQL over a Strata file: Open gives a DuckDB database with strata_scan
// and the replacement scan registered; Query passes the WHERE conjuncts
// Strata can evaluate to the scan.
func ExampleOpen() {
	ctx := context.Background()
	path := writeCities()
	defer os.RemoveAll(filepath.Dir(path))

	db, err := duckstrata.Open("") // "": an in-memory DuckDB database
	if err != nil {
		fmt.Println(err)
		return
	}
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer conn.Close()
	q := "SELECT city, count(*) AS n, sum(pop) AS pop FROM '" + path + "' WHERE pop >= 1000 GROUP BY city ORDER BY city"
	rows, err := duckstrata.Query(ctx, conn, q)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer rows.Close()
	for rows.Next() {
		var city string
		var n, pop int64
		if err := rows.Scan(&city, &n, &pop); err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(city, n, pop)
	}
	// Output:
	// Lyon 2 3000
	// Oslo 1 5000
}

func writeCities() string {
	dir, _ := os.MkdirTemp("", "duckstrata-example")
	path := filepath.Join(dir, "cities.strata")
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "city", Type: arrow.BinaryTypes.String},
		{Name: "pop", Type: arrow.PrimitiveTypes.Int64},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	for i, c := range []string{"Lyon", "Lyon", "Oslo", "Porto", "Lyon"} {
		b.Field(0).(*array.StringBuilder).Append(c)
		b.Field(1).(*array.Int64Builder).Append([]int64{1000, 2000, 5000, 500, 10}[i])
	}
	rec := b.NewRecord()
	defer rec.Release()
	w, err := strata.Create(path, schema, nil)
	if err != nil {
		panic(err)
	}
	if err := w.Write(rec); err != nil {
		panic(err)
	}
	if err := w.Close(); err != nil {
		panic(err)
	}
	return path
}
