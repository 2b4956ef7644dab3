package duckstrata_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata/sql/duckstrata"
	"strata/tpch"
)

// projected yields a generator's batches with only some columns, in the
// order given.
type projected struct {
	src  source
	cols []string
	sch  *arrow.Schema
}

func (p *projected) Next() (arrow.RecordBatch, error) {
	rec, err := p.src.Next()
	if err != nil {
		return nil, err
	}
	defer rec.Release()
	arrs := make([]arrow.Array, len(p.cols))
	for i, c := range p.cols {
		arrs[i] = rec.Column(rec.Schema().FieldIndices(c)[0])
		if arrow.TypeEqual(p.sch.Field(i).Type, arrow.PrimitiveTypes.Int64) && arrs[i].DataType().ID() == arrow.INT32 {
			// the column widened in this file
			b := array.NewInt64Builder(memory.DefaultAllocator)
			for j, v := range arrs[i].(*array.Int32).Int32Values() {
				if arrs[i].IsNull(j) {
					b.AppendNull()
				} else {
					b.Append(int64(v))
				}
			}
			arrs[i] = b.NewArray()
			b.Release()
			defer arrs[i].Release()
		}
	}
	return array.NewRecordBatch(p.sch, arrs, rec.NumRows()), nil
}

func projectSchema(cols []string) *arrow.Schema {
	full := tpch.Schema()
	fields := make([]arrow.Field, len(cols))
	for i, c := range cols {
		fields[i] = full.Field(full.FieldIndices(c)[0])
	}
	return arrow.NewSchema(fields, nil)
}

// TestPatternUnionByName reads three lineitem files whose columns were
// added, dropped, reordered and widened (l_orderkey int32 to int64) from
// one to the next as one table by column name, and compares every query with DuckDB's own
// read_parquet(..., union_by_name = true) of the same rows: aggregates
// over columns some files lack, filters pushed into the scan that name
// them, and every row both ways.
func TestPatternUnionByName(t *testing.T) {
	dir := t.TempDir()
	for i, cols := range [][]string{
		{"l_orderkey", "l_linenumber", "l_quantity", "l_shipdate"},
		{"l_linenumber", "l_orderkey", "l_comment", "l_quantity"},
		{"l_orderkey", "l_linenumber", "l_shipdate", "l_discount", "l_comment"},
	} {
		sch := projectSchema(cols)
		if i == 1 {
			// l_orderkey widened from int32 to int64 in this file
			fields := sch.Fields()
			fields[1].Type = arrow.PrimitiveTypes.Int64
			sch = arrow.NewSchema(fields, nil)
		}
		seed := uint64(31 + i)
		writeBoth(t, dir, fmt.Sprintf("part%d", i), sch, func() source {
			return &projected{src: tpch.NewLineitem(0.002, seed, 0), cols: cols, sch: sch}
		}, 64<<10)
	}
	_, conn := openDB(t)
	pattern := filepath.Join(dir, "part*.strata")
	st := func(filter string) string {
		if filter == "" {
			return "strata_scan('" + pattern + "', union_by_name := true)"
		}
		return "strata_scan('" + pattern + "', union_by_name := true, filter := '" + strings.ReplaceAll(filter, "'", "''") + "')"
	}
	pq := "read_parquet('" + filepath.Join(dir, "part*.parquet") + "', union_by_name = true)"
	all := "l_orderkey, l_linenumber, l_quantity, l_shipdate, l_comment, l_discount"
	for _, q := range []string{
		"SELECT count(*), sum(l_quantity), count(l_shipdate), min(l_comment), max(l_comment), sum(l_discount), count(l_discount) FROM %s",
		"SELECT count(*) FROM (SELECT " + all + " FROM %[1]s EXCEPT ALL SELECT " + all + " FROM " + pq + ")",
		"SELECT count(*) FROM (SELECT " + all + " FROM " + pq + " EXCEPT ALL SELECT " + all + " FROM %[1]s)",
		"SELECT l_linenumber, count(*), count(l_quantity) FROM %s WHERE l_shipdate IS NULL GROUP BY 1 ORDER BY 1",
		"SELECT count(*) FROM %s",
	} {
		got := rowsOf(t, conn, fmt.Sprintf(q, st("")))
		want := rowsOf(t, conn, fmt.Sprintf(q, pq))
		if strings.Contains(q, "EXCEPT") {
			want = [][]string{{"0"}}
		}
		sameRows(t, q, got, want)
	}
	// the schema DuckDB sees: the union, in the order columns are met
	got := rowsOf(t, conn, "SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM "+st("")+")")
	want := rowsOf(t, conn, "SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM "+pq+")")
	sameRows(t, "columns", got, want)
	// filters handed to the scan, against the same WHERE in DuckDB
	for _, f := range []string{
		"l_quantity < 1000",
		"l_shipdate IS NULL AND l_linenumber = 1",
		"NOT (l_discount > 0.05)",
		"l_comment LIKE 'a%' OR l_quantity > 4500",
		"l_discount IS NOT NULL OR l_shipdate < DATE '1993-01-01'",
		"NOT (l_comment IS NULL OR l_quantity < 2000)",
	} {
		q := "SELECT count(*), sum(l_orderkey), count(l_quantity), count(l_comment) FROM %s"
		got := rowsOf(t, conn, fmt.Sprintf(q, st(f)))
		want := rowsOf(t, conn, fmt.Sprintf(q, pq)+" WHERE "+f)
		if want[0][0] == "0" {
			t.Errorf("%s: the reference keeps no row", f)
		}
		sameRows(t, f, got, want)
	}
	// the same filters written in SQL and pushed into the scan: a column
	// only later files have is pushed too, and the rows are the same
	for _, f := range []string{
		"l_discount > 0.05 AND l_quantity < 3000",
		"l_shipdate IS NULL OR l_comment LIKE 'b%'",
	} {
		q := func(from string) string {
			return "SELECT count(*), sum(l_orderkey), count(l_quantity), count(l_comment) FROM " + from + " WHERE " + f
		}
		rewritten, pu, err := duckstrata.Pushdown(context.Background(), conn, q(st("")), duckstrata.WithPushAll())
		if err != nil {
			t.Fatal(err)
		}
		if len(pu) != 1 || pu[0].Filter == "" || pu[0].Kept != 0 {
			t.Errorf("%s: pushed %+v", f, pu)
		}
		sameRows(t, "pushed "+f, rowsOf(t, conn, rewritten), rowsOf(t, conn, q(pq)))
	}
	if _, err := tryRows(conn, "SELECT count(*) FROM "+st("nosuch = 1")); err == nil || !strings.Contains(err.Error(), "nosuch") {
		t.Errorf("a filter on a column no file has: %v", err)
	}
	if _, err := tryRows(conn, "SELECT count(*) FROM '"+pattern+"'"); err == nil || !strings.Contains(err.Error(), "union_by_name") {
		t.Errorf("files of different columns without union_by_name: %v", err)
	}
}
