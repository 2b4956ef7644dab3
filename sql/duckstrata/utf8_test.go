package duckstrata_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata/sql/duckstrata"
)

// TestInvalidUTF8: a string that is not UTF-8 (Strata stores any bytes)
// fails the query that reads it, naming the column (and the field of a
// struct) and the value, as DuckDB's Parquet reader fails on the same rows;
// DuckDB's VARCHAR made it NULL, so count(s) and s IS NULL gave other
// answers than the file holds, and a pushed s IS NULL other answers again.
// A pushed filter that leaves such values out of the scan answers.
func TestInvalidUTF8(t *testing.T) {
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "st", Type: arrow.StructOf(arrow.Field{Name: "t", Type: arrow.BinaryTypes.String, Nullable: true}), Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	defer b.Release()
	for i := range 3000 {
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		switch {
		case i%500 == 307:
			b.Field(1).(*array.StringBuilder).Append("\xff\xfe" + strings.Repeat("x", 40))
		case i%10 == 3:
			b.Field(1).AppendNull()
		default:
			b.Field(1).(*array.StringBuilder).Append(fmt.Sprint("v", i))
		}
		sb := b.Field(2).(*array.StructBuilder)
		sb.Append(true)
		if i == 2500 {
			sb.FieldBuilder(0).(*array.StringBuilder).Append("a\xc3")
		} else {
			sb.FieldBuilder(0).(*array.StringBuilder).Append("é")
		}
	}
	rec := b.NewRecord()
	defer rec.Release()
	st, pq := writeBoth(t, t.TempDir(), "u", sch, func() source { return &recSlice{recs: []arrow.Record{rec}} }, 8<<10)
	_, conn := openDB(t)
	ctx := context.Background()
	// Reading the values fails on both sides.
	for _, c := range []struct{ q, msg string }{
		{"SELECT count(s) FROM %s", `column "s": value "\xff\xfexxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"... is not valid UTF-8`},
		{"SELECT count(*) FROM %s WHERE s IS NULL", `column "s": value`},
		{"SELECT max(st.t) FROM %s WHERE id > 2000", `column "st": field "t": value "a\xc3" is not valid UTF-8`},
	} {
		if _, err := tryRows(conn, fmt.Sprintf(c.q, "read_parquet("+quoted(pq)+")")); err == nil {
			t.Fatalf("%s: Parquet read without an error", c.q)
		}
		q := fmt.Sprintf(c.q, "strata_scan("+quoted(st)+")")
		got, err := tryRows(conn, q)
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: %v, %v; want an error holding %s", q, got, err, c.msg)
		}
	}
	// A pushed s IS NULL reads only the null rows, which it counts.
	out, pu, err := duckstrata.Pushdown(ctx, conn, "SELECT count(*), sum(id) FROM "+quoted(st)+" WHERE s IS NULL", duckstrata.WithPushAll())
	if err != nil {
		t.Fatal(err)
	}
	if len(pu) != 1 || pu[0].Filter != "s IS NULL" {
		t.Errorf("pushed %+v", pu)
	}
	sameRows(t, out, rowsOf(t, conn, out), [][]string{{"300", fmt.Sprint(300 * (3 + 2993) / 2)}})
	// Rows without such values come back as they are (DuckDB's Parquet
	// reader fails on any query reading s, so they are checked against
	// the rows written), pushed or not.
	var want [][]string
	for i := range 321 {
		if i >= 300 && i < 308 {
			continue
		}
		v := fmt.Sprint("v", i)
		if i%10 == 3 {
			v = "NULL"
		}
		want = append(want, []string{fmt.Sprint(i), v, "é"})
	}
	for _, opts := range [][]duckstrata.Option{nil, {duckstrata.WithPushAll()}} {
		q := "SELECT id, s, st.t FROM " + quoted(st) + " WHERE id < 300 OR id BETWEEN 308 AND 320 ORDER BY id"
		out, _, err := duckstrata.Pushdown(ctx, conn, q, opts...)
		if err != nil {
			t.Fatal(err)
		}
		sameRows(t, out, rowsOf(t, conn, out), want)
	}
	sameRows(t, "count(*)", rowsOf(t, conn, "SELECT count(*) FROM "+quoted(st)), rowsOf(t, conn, "SELECT count(*) FROM "+quoted(pq)))
}
