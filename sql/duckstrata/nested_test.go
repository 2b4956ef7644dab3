package duckstrata_test

import (
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestNestedAsJSON: struct and list columns reach DuckDB as JSON text, the
// flat columns beside them as themselves, and count(*) with no column
// projected counts every row.
func TestNestedAsJSON(t *testing.T) {
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int32},
		{Name: "l", Type: arrow.ListOf(arrow.PrimitiveTypes.Int64), Nullable: true},
		{Name: "s", Type: arrow.StructOf(arrow.Field{Name: "a", Type: arrow.BinaryTypes.String, Nullable: true}), Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	defer b.Release()
	for i := range 5000 {
		b.Field(0).(*array.Int32Builder).Append(int32(i))
		lb := b.Field(1).(*array.ListBuilder)
		if i%4 == 3 {
			lb.AppendNull()
		} else {
			lb.Append(true)
			for k := range i % 3 {
				lb.ValueBuilder().(*array.Int64Builder).Append(int64(i + k))
			}
		}
		sb := b.Field(2).(*array.StructBuilder)
		if i%5 == 4 {
			sb.AppendNull()
		} else {
			sb.Append(true)
			sb.FieldBuilder(0).(*array.StringBuilder).Append("x")
		}
	}
	rec := b.NewRecord()
	defer rec.Release()
	p := writeRecord(t, filepath.Join(t.TempDir(), "n.strata"), rec)
	_, conn := openDB(t)
	got := rowsOf(t, conn, "SELECT id, l, s FROM "+quoted(p)+" WHERE id IN (0, 2, 3, 4, 4001) ORDER BY id")
	want := [][]string{{"0", "[]", `{"a":"x"}`}, {"2", "[2,3]", `{"a":"x"}`}, {"3", "NULL", `{"a":"x"}`}, {"4", "[4]", "NULL"}, {"4001", "[4001,4002]", `{"a":"x"}`}}
	sameRows(t, "nested as JSON", got, want)
	types := rowsOf(t, conn, "SELECT column_type FROM (DESCRIBE SELECT * FROM "+quoted(p)+")")
	if types[1][0] != "VARCHAR" || types[2][0] != "VARCHAR" {
		t.Errorf("types %v", types)
	}
	if n := rowsOf(t, conn, "SELECT count(*) FROM "+quoted(p)); n[0][0] != "5000" {
		t.Errorf("count(*) = %v", n)
	}
	if n := rowsOf(t, conn, "SELECT count(*) FROM strata_scan("+quoted(p)+", filter := 'id < 100')"); n[0][0] != "100" {
		t.Errorf("count(*) with a filter = %v", n)
	}
}
