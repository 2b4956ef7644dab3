package main

import (
	"database/sql"
	"fmt"
	"os"
	"strings"

	_ "github.com/duckdb/duckdb-go/v2"
)

func types(db *sql.DB, f string) string {
	rows, err := db.Query(fmt.Sprintf("describe select * from '%s'", f))
	if err != nil {
		return err.Error()
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var a, b string
		var c, d, e, g sql.NullString
		rows.Scan(&a, &b, &c, &d, &e, &g)
		out = append(out, a+" "+b)
	}
	return strings.Join(out, ", ")
}

func main() {
	db, _ := sql.Open("duckdb", "")
	for _, n := range os.Args[1:] {
		a, b := n+".parquet", n+".back.parquet"
		ta, tb := types(db, a), types(db, b)
		var diff int
		err := db.QueryRow(fmt.Sprintf("select count(*) from ((select * from '%s' except all select * from '%s') union all (select * from '%s' except all select * from '%s'))", a, b, b, a)).Scan(&diff)
		fmt.Printf("%s: same types %v (%s | %s); rows differing %d %v\n", n, ta == tb, ta, tb, diff, err)
	}
}
