package read_test

import (
	"context"
	"errors"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata/read"
)

// TestUnionByName checks the union's columns, order and nullability, and
// the conflict of a column of two types.
func TestUnionByName(t *testing.T) {
	id := arrow.Field{Name: "id", Type: arrow.PrimitiveTypes.Int64}
	name := arrow.Field{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true}
	score := arrow.Field{Name: "score", Type: arrow.PrimitiveTypes.Float64}
	a := arrow.NewSchema([]arrow.Field{id, name}, nil)
	b := arrow.NewSchema([]arrow.Field{score, id}, nil)
	c := arrow.NewSchema([]arrow.Field{name, id}, nil)
	u, err := read.UnionByName(a, b, c)
	if err != nil {
		t.Fatal(err)
	}
	want := []arrow.Field{id, name, {Name: "score", Type: arrow.PrimitiveTypes.Float64, Nullable: true}}
	if u.NumFields() != len(want) {
		t.Fatalf("union %v, want %v", u, want)
	}
	for i, f := range want {
		g := u.Field(i)
		if g.Name != f.Name || !arrow.TypeEqual(g.Type, f.Type) || g.Nullable != f.Nullable {
			t.Errorf("column %d: %v, want %v", i, g, f)
		}
	}
	// one schema is its own union; id, in every schema and never null,
	// stays non-nullable above
	if u, err := read.UnionByName(b); err != nil || !u.Equal(b) {
		t.Errorf("union of one schema: %v, %v", u, err)
	}
	bad := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.BinaryTypes.String}}, nil)
	_, err = read.UnionByName(a, b, bad)
	var tc *read.TypeConflict
	if !errors.As(err, &tc) || tc.Column != "id" || tc.First != 0 || tc.Other != 2 || !errors.Is(err, read.ErrInvalidArgument) {
		t.Errorf("conflicting id: %v", err)
	}
	if _, err := read.UnionByName(); !errors.Is(err, read.ErrInvalidArgument) {
		t.Errorf("no schema: %v", err)
	}
}

// TestConform reads a record into a union value by value: columns
// reordered, missing ones all null, extra ones dropped.
func TestConform(t *testing.T) {
	mem := memory.DefaultAllocator
	src := arrow.NewSchema([]arrow.Field{
		{Name: "score", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "extra", Type: arrow.PrimitiveTypes.Int8},
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
	}, nil)
	bld := array.NewRecordBuilder(mem, src)
	defer bld.Release()
	bld.Field(0).(*array.Float64Builder).AppendValues([]float64{1.5, 0, 3.5}, []bool{true, false, true})
	bld.Field(1).(*array.Int8Builder).AppendValues([]int8{1, 2, 3}, nil)
	bld.Field(2).(*array.Int64Builder).AppendValues([]int64{10, 20, 30}, nil)
	rec := bld.NewRecordBatch()
	defer rec.Release()
	target := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "score", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	}, nil)
	out, err := read.Conform(rec, target)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Release()
	if !out.Schema().Equal(target) || out.NumRows() != 3 {
		t.Fatalf("conformed to %v, %d rows", out.Schema(), out.NumRows())
	}
	ids := out.Column(0).(*array.Int64)
	names := out.Column(1).(*array.String)
	scores := out.Column(2).(*array.Float64)
	for i, w := range []struct {
		id    int64
		score float64
		valid bool
	}{{10, 1.5, true}, {20, 0, false}, {30, 3.5, true}} {
		if ids.Value(i) != w.id || !names.IsNull(i) || scores.IsValid(i) != w.valid || (w.valid && scores.Value(i) != w.score) {
			t.Errorf("row %d: id %d, name null %v, score %v (valid %v); want %+v", i, ids.Value(i), names.IsNull(i),
				scores.Value(i), scores.IsValid(i), w)
		}
	}
	// a column of another type, or a missing one that may not be null
	for _, f := range []arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int32},
		{Name: "gone", Type: arrow.PrimitiveTypes.Int32},
	} {
		if _, err := read.Conform(rec, arrow.NewSchema([]arrow.Field{f}, nil)); !errors.Is(err, read.ErrInvalidArgument) {
			t.Errorf("conform to %v: %v", f, err)
		}
	}
}

// TestTakeUnion looks rows up in three files of different columns by
// column name and compares every column, value by value, with the same
// lookups in one file of the rows nulled where a file lacked a column.
func TestTakeUnion(t *testing.T) {
	const n = 3000
	rec := aggRecord(n, 11)
	defer rec.Release()
	parts, whole := unionParts(t, rec, []cut{
		{0, 900, []string{"id", "big", "name"}},
		{900, 1000, []string{"name", "f", "id"}},
		{1000, n, []string{"f", "s", "id", "day"}},
	})
	ctx := context.Background()
	for _, c := range []struct {
		rows []int64
		cols []string
	}{
		{[]int64{0, 899, 900, 999, 1000, 2999}, nil},
		{[]int64{2500, 5, 950, 5, 1200}, nil},
		{[]int64{950, 951}, []string{"big", "day"}}, // columns the rows' file lacks
		{[]int64{10, 2000}, []string{"s", "id"}},
		{nil, nil},
	} {
		want, _, err := whole.TakeContext(ctx, c.rows, read.TakeOptions{Columns: c.cols})
		if err != nil {
			t.Fatal(err)
		}
		got, _, err := read.TakeFiles(ctx, parts, c.rows, read.TakeOptions{Columns: c.cols, UnionByName: true})
		if err != nil {
			t.Fatalf("rows %v columns %v: %v", c.rows, c.cols, err)
		}
		if got.NumCols() != want.NumCols() || got.NumRows() != want.NumRows() {
			t.Fatalf("rows %v columns %v: %d columns × %d rows, want %d × %d", c.rows, c.cols, got.NumCols(), got.NumRows(), want.NumCols(), want.NumRows())
		}
		for j := range want.Columns() {
			if got.Schema().Field(j).Name != want.Schema().Field(j).Name || !array.Equal(got.Column(j), want.Column(j)) {
				t.Errorf("rows %v column %s: %v, want %v", c.rows, want.Schema().Field(j).Name, got.Column(j), want.Column(j))
			}
		}
		got.Release()
		want.Release()
	}
	if _, _, err := read.TakeFiles(ctx, parts, []int64{1}, read.TakeOptions{Columns: []string{"nosuch"}, UnionByName: true}); !errors.Is(err, read.ErrUnknownColumn) {
		t.Errorf("a column no file has: %v", err)
	}
}
