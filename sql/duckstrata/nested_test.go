package duckstrata_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata"
	"strata/sql/duckstrata"
)

// TestNestedTypes: struct columns reach DuckDB as STRUCTs, so SQL reaches
// their fields (s.a, s.inner.b), and a comparison on a field is pushed into
// the scan with the result unchanged; lists, and lists inside structs,
// are JSON text; the flat columns beside them are themselves, and
// count(*) with no column projected counts every row.
func TestNestedTypes(t *testing.T) {
	inner := arrow.StructOf(arrow.Field{Name: "b", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		arrow.Field{Name: "xs", Type: arrow.ListOf(arrow.PrimitiveTypes.Int32), Nullable: true})
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int32},
		{Name: "l", Type: arrow.ListOf(arrow.PrimitiveTypes.Int64), Nullable: true},
		{Name: "s", Type: arrow.StructOf(arrow.Field{Name: "a", Type: arrow.BinaryTypes.String, Nullable: true},
			arrow.Field{Name: "inner", Type: inner, Nullable: true}), Nullable: true},
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
		ib := sb.FieldBuilder(1).(*array.StructBuilder)
		if i%5 == 4 {
			sb.AppendNull() // (nulls in every field below too)
			continue
		}
		sb.Append(true)
		if i%7 == 6 {
			sb.FieldBuilder(0).AppendNull()
		} else {
			sb.FieldBuilder(0).(*array.StringBuilder).Append(fmt.Sprint("x", i%3))
		}
		if i%11 == 10 {
			ib.AppendNull()
			continue
		}
		ib.Append(true)
		ib.FieldBuilder(0).(*array.Int64Builder).Append(int64(i * 10))
		xb := ib.FieldBuilder(1).(*array.ListBuilder)
		xb.Append(true)
		xb.ValueBuilder().(*array.Int32Builder).Append(int32(i))
	}
	rec := b.NewRecord()
	defer rec.Release()
	p := writeRecord(t, filepath.Join(t.TempDir(), "n.strata"), rec)
	_, conn := openDB(t)
	got := rowsOf(t, conn, "SELECT id, l, s.a, s.inner.b, s.inner.xs, s IS NULL FROM "+quoted(p)+" WHERE id IN (0, 2, 3, 4, 6, 10, 4001) ORDER BY id")
	want := [][]string{
		{"0", "[]", "x0", "0", "[0]", "false"},
		{"2", "[2,3]", "x2", "20", "[2]", "false"},
		{"3", "NULL", "x0", "30", "[3]", "false"},
		{"4", "[4]", "NULL", "NULL", "NULL", "true"},
		{"6", "[]", "NULL", "60", "[6]", "false"},
		{"10", "[10]", "x1", "NULL", "NULL", "false"},
		{"4001", "[4001,4002]", "x2", "40010", "[4001]", "false"},
	}
	sameRows(t, "nested types", got, want)
	types := rowsOf(t, conn, "SELECT column_type FROM (DESCRIBE SELECT * FROM "+quoted(p)+")")
	if types[1][0] != "VARCHAR" || types[2][0] != `STRUCT(a VARCHAR, "inner" STRUCT(b BIGINT, xs VARCHAR))` {
		t.Errorf("types %v", types)
	}
	// a comparison on a field is pushed, and answers what DuckDB does
	q := "SELECT count(*), sum(s.inner.b) FROM " + quoted(p) + " WHERE s.inner.b > 30000 AND s.a = 'x1'"
	out, pu, err := duckstrata.Pushdown(context.Background(), conn, q, duckstrata.WithPushAll())
	if err != nil {
		t.Fatal(err)
	}
	if len(pu) != 1 || pu[0].Filter != "s.inner.b > 30000 AND s.a = 'x1'" {
		t.Errorf("pushed %+v", pu)
	}
	var n, sum int64
	for i := range 5000 {
		if i%5 != 4 && i%11 != 10 && i%7 != 6 && i*10 > 30000 && i%3 == 1 {
			n++
			sum += int64(i * 10)
		}
	}
	sameRows(t, "pushed field filter", rowsOf(t, conn, out), [][]string{{fmt.Sprint(n), fmt.Sprint(sum)}})
	if n := rowsOf(t, conn, "SELECT count(*) FROM "+quoted(p)); n[0][0] != "5000" {
		t.Errorf("count(*) = %v", n)
	}
	if n := rowsOf(t, conn, "SELECT count(*) FROM strata_scan("+quoted(p)+", filter := 'id < 100')"); n[0][0] != "100" {
		t.Errorf("count(*) with a filter = %v", n)
	}
}

// TestPushdownNestedIsNull: IS [NOT] NULL on a column or field that is
// itself a struct, list, map or FlatMap stays with DuckDB (Strata's filters
// test primitive values only, and refused the pushed filter, failing the
// query); beside it, the same test on a primitive field is still pushed.
// Every count is DuckDB's over the same rows read from Parquet.
func TestPushdownNestedIsNull(t *testing.T) {
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "l", Type: arrow.ListOf(arrow.PrimitiveTypes.Int32), Nullable: true},
		{Name: "m", Type: arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64), Nullable: true},
		{Name: "fm", Type: arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64), Nullable: true},
		{Name: "s", Type: arrow.StructOf(
			arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
			arrow.Field{Name: "xs", Type: arrow.ListOf(arrow.PrimitiveTypes.Int32), Nullable: true},
			arrow.Field{Name: "in", Type: arrow.StructOf(arrow.Field{Name: "b", Type: arrow.PrimitiveTypes.Int64, Nullable: true}), Nullable: true},
		), Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	defer b.Release()
	for i := range 4000 {
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		lb := b.Field(1).(*array.ListBuilder)
		if i%7 == 3 {
			lb.AppendNull()
		} else {
			lb.Append(true)
			lb.ValueBuilder().(*array.Int32Builder).Append(int32(i))
		}
		for k, mod := range []int{5, 9} {
			mb := b.Field(2 + k).(*array.MapBuilder)
			if i%mod == 1 {
				mb.AppendNull()
				continue
			}
			mb.Append(true)
			for j := range i % 3 {
				mb.KeyBuilder().(*array.StringBuilder).Append(fmt.Sprint("k", j))
				mb.ItemBuilder().(*array.Int64Builder).Append(int64(i + j))
			}
		}
		sb := b.Field(4).(*array.StructBuilder)
		if i%6 == 0 {
			sb.AppendNull()
			continue
		}
		sb.Append(true)
		if i%4 == 0 {
			sb.FieldBuilder(0).AppendNull()
		} else {
			sb.FieldBuilder(0).(*array.Int32Builder).Append(int32(i))
		}
		xb := sb.FieldBuilder(1).(*array.ListBuilder)
		if i%11 == 0 {
			xb.AppendNull()
		} else {
			xb.Append(true)
		}
		ib := sb.FieldBuilder(2).(*array.StructBuilder)
		if i%13 == 0 {
			ib.AppendNull()
		} else {
			ib.Append(true)
			ib.FieldBuilder(0).(*array.Int64Builder).Append(int64(i))
		}
	}
	rec := b.NewRecord()
	defer rec.Release()
	dir := t.TempDir()
	_, pq := writeBoth(t, dir, "n", sch, func() source { return &recSlice{recs: []arrow.Record{rec}} }, 16<<10)
	st := filepath.Join(dir, "fm.strata") // fm stored as a FlatMap
	w, err := strata.Create(st, sch, &strata.WriteOptions{FlatMap: []string{"fm"}, StripeBytes: 16 << 10})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	_, conn := openDB(t)
	ctx := context.Background()
	for _, c := range []struct{ where, filter string }{
		{"l IS NULL", ""},
		{"m IS NOT NULL", ""},
		{"fm IS NULL", ""},
		{"s IS NULL", ""},
		{"s.in IS NULL", ""},
		{"s.xs IS NOT NULL", ""},
		{"NOT (l IS NOT NULL) AND id < 3000", "id < 3000"},
		{"(fm IS NULL OR id > 10) AND s.a IS NULL", "s.a IS NULL"},
		{"s.in.b IS NULL AND s IS NOT NULL", `"s.in.b" IS NULL`},
	} {
		q := "SELECT count(*), sum(id) FROM %s WHERE " + c.where
		want := rowsOf(t, conn, fmt.Sprintf(q, "read_parquet("+quoted(pq)+")"))
		for _, opts := range [][]duckstrata.Option{nil, {duckstrata.WithPushAll()}} {
			out, pu, err := duckstrata.Pushdown(ctx, conn, fmt.Sprintf(q, quoted(st)), opts...)
			if err != nil {
				t.Fatal(err)
			}
			got, err := tryRows(conn, out)
			if err != nil {
				t.Fatalf("%s\n=> %s: %v", c.where, out, err)
			}
			sameRows(t, out, got, want)
			if len(opts) > 0 && (len(pu) != 1 || pu[0].Filter != c.filter) {
				t.Errorf("%s: pushed %+v, want %q", c.where, pu, c.filter)
			}
		}
	}
}
