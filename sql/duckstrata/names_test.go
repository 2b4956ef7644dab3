package duckstrata_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata/sql/duckstrata"
)

// TestNamesDifferingInCase: columns (and struct fields) whose names differ
// only by case, which Strata stores and DuckDB refused as duplicates ("x"
// and "X": no query of the file ran), get the names DuckDB's Parquet reader
// gives them (X_1, and X_1_1 past a column already called X_1), and filters
// on them are pushed to the column each name binds to in DuckDB. Every
// result is DuckDB's over the same rows read from Parquet.
func TestNamesDifferingInCase(t *testing.T) {
	i64 := arrow.PrimitiveTypes.Int64
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "x", Type: i64}, {Name: "X", Type: i64}, {Name: "X_1", Type: i64}, {Name: "Id", Type: i64},
		{Name: "s", Type: arrow.StructOf(arrow.Field{Name: "b", Type: i64}, arrow.Field{Name: "B", Type: i64}, arrow.Field{Name: "c", Type: i64})},
		{Name: "S", Type: i64},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	defer b.Release()
	for i := range 3000 {
		for k, v := range []int{i, 3000 - i, i % 7, i} {
			b.Field(k).(*array.Int64Builder).Append(int64(v))
		}
		sb := b.Field(4).(*array.StructBuilder)
		sb.Append(true)
		sb.FieldBuilder(0).(*array.Int64Builder).Append(int64(i % 100))
		sb.FieldBuilder(1).(*array.Int64Builder).Append(int64(-i))
		sb.FieldBuilder(2).(*array.Int64Builder).Append(int64(i % 3))
		b.Field(5).(*array.Int64Builder).Append(int64(i % 11))
	}
	rec := b.NewRecord()
	defer rec.Release()
	st, pq := writeBoth(t, t.TempDir(), "case", sch, func() source { return &recSlice{recs: []arrow.Record{rec}} }, 8<<10)
	_, conn := openDB(t)
	ref := "read_parquet(" + quoted(pq) + ")"
	sameRows(t, "names and types", rowsOf(t, conn, "SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM "+quoted(st)+")"),
		rowsOf(t, conn, "SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM "+ref+")"))
	for _, where := range []string{
		"x < 10", "X < 10", "X_1 < 10", "x_1 < 10", "X_1_1 = 3", "\"X\" < 10", "id < 5", "ID BETWEEN 7 AND 9",
		"s.b = 5", "s.B = 5", "s.B_1 = -5", "s.b_1 > -3", "S.c = 1 AND x < 30", "S_1 = 4 AND x < 100", "s_1 < 2",
	} {
		q := "SELECT * FROM %s WHERE " + where + " ORDER BY x"
		want := rowsOf(t, conn, fmt.Sprintf(q, ref))
		for _, opts := range [][]duckstrata.Option{nil, {duckstrata.WithPushAll()}} {
			out, _, err := duckstrata.Pushdown(context.Background(), conn, fmt.Sprintf(q, quoted(st)), opts...)
			if err != nil {
				t.Fatal(err)
			}
			sameRows(t, out, rowsOf(t, conn, out), want)
		}
	}
}
