package read_test

import (
	"context"
	"errors"
	"io"
	"math/rand/v2"
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
	// no record, or no target: an invalid argument, where both panicked
	// on a nil pointer
	if _, err := read.Conform(nil, target); !errors.Is(err, read.ErrInvalidArgument) {
		t.Errorf("conform of a nil record: %v", err)
	}
	if _, err := read.Conform(rec, nil); !errors.Is(err, read.ErrInvalidArgument) {
		t.Errorf("conform to a nil schema: %v", err)
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

// promoteRecord is a record of n rows: id (int32) and v and w in the types
// given, v small integers (a tenth null), w floats exact in float32.
func promoteRecord(n int, seed uint64, first int32, vt, wt arrow.DataType) arrow.Record {
	r := rand.New(rand.NewPCG(seed, seed))
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int32},
		{Name: "v", Type: vt, Nullable: true},
		{Name: "w", Type: wt, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	defer b.Release()
	for i := range n {
		b.Field(0).(*array.Int32Builder).Append(first + int32(i))
		v := int64(r.IntN(200) - 100)
		if i%10 == 3 {
			b.Field(1).AppendNull()
		} else {
			switch fb := b.Field(1).(type) {
			case *array.Int8Builder:
				fb.Append(int8(v))
			case *array.Int16Builder:
				fb.Append(int16(v))
			case *array.Int64Builder:
				fb.Append(v * 1e12) // beyond the narrower types
			}
		}
		w := float32(r.IntN(1000)) / 8
		switch fb := b.Field(2).(type) {
		case *array.Float32Builder:
			fb.Append(w)
		case *array.Float64Builder:
			fb.Append(float64(w) + 1e-9) // not a float32
		}
	}
	return b.NewRecordBatch()
}

// TestUnionPromote reads files whose columns widened over time (int8,
// int16 and int64; float32 and float64) by column name: the union takes
// the widest type, and scans, lookups and aggregates give exactly what
// one file of the widened rows gives.
func TestUnionPromote(t *testing.T) {
	i8, i16, i64 := arrow.PrimitiveTypes.Int8, arrow.PrimitiveTypes.Int16, arrow.PrimitiveTypes.Int64
	f32, f64 := arrow.PrimitiveTypes.Float32, arrow.PrimitiveTypes.Float64
	recs := []arrow.Record{
		promoteRecord(500, 1, 0, i8, f32),
		promoteRecord(700, 2, 500, i64, f64),
		promoteRecord(300, 3, 1200, i16, f32),
	}
	var parts []*read.File
	var schemas []*arrow.Schema
	for _, r := range recs {
		defer r.Release()
		parts, schemas = append(parts, aggFile(t, r)), append(schemas, r.Schema())
	}
	u, err := read.UnionByName(schemas...)
	if err != nil {
		t.Fatal(err)
	}
	if !arrow.TypeEqual(u.Field(1).Type, i64) || !arrow.TypeEqual(u.Field(2).Type, f64) {
		t.Fatalf("union %v: want v int64 and w float64", u)
	}
	whole := unionFile(t, recs)
	ctx := context.Background()
	exprs := "count(*), count(v), sum(v), min(v), max(v), avg(v), sum(w), min(w), max(w), avg(w)"
	for _, where := range []string{"", "v > 10", "w < 50 AND id > 300", "v IS NULL OR w > 100"} {
		want, _, err := whole.AggregateContext(ctx, exprs, read.AggregateOptions{Where: where})
		if err != nil {
			t.Fatal(err)
		}
		got, _, err := read.AggregateFiles(ctx, parts, exprs, read.AggregateOptions{Where: where, UnionByName: true})
		if err != nil {
			t.Fatalf("%q: %v", where, err)
		}
		for k := range want {
			if got[k].String() != want[k].String() || got[k].Null != want[k].Null {
				t.Errorf("%q: %s = %v over the parts, %v over one file", where, want[k].Name, got[k], want[k])
			}
		}
	}
	rows := []int64{0, 499, 500, 1199, 1200, 1499, 7}
	want, _, err := whole.TakeContext(ctx, rows, read.TakeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer want.Release()
	got, _, err := read.TakeFiles(ctx, parts, rows, read.TakeOptions{UnionByName: true})
	if err != nil {
		t.Fatal(err)
	}
	defer got.Release()
	for j := range want.Columns() {
		if !arrow.TypeEqual(got.Column(j).DataType(), want.Column(j).DataType()) || !array.Equal(got.Column(j), want.Column(j)) {
			t.Errorf("take column %s: %v, want %v", want.Schema().Field(j).Name, got.Column(j), want.Column(j))
		}
	}
	// signed with unsigned, and integers with floats, do not promote
	for _, c := range [][2]arrow.DataType{{i64, arrow.PrimitiveTypes.Uint8}, {i16, f32}, {f64, arrow.BinaryTypes.String}} {
		if _, ok := read.Promote(c[0], c[1]); ok {
			t.Errorf("%s and %s promote", c[0], c[1])
		}
	}
}

// scanRecords returns every record of a scan, concatenated column by column.
func scanRecords(t *testing.T, next func() (arrow.Record, error), sch *arrow.Schema) arrow.Record {
	t.Helper()
	var recs []arrow.Record
	for {
		rec, err := next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		defer rec.Release()
		recs = append(recs, rec)
	}
	cols := make([]arrow.Array, sch.NumFields())
	var n int64
	for _, r := range recs {
		n += r.NumRows()
	}
	for j := range cols {
		var pieces []arrow.Array
		for _, r := range recs {
			pieces = append(pieces, r.Column(j))
		}
		if len(pieces) == 0 {
			cols[j] = array.MakeArrayOfNull(memory.DefaultAllocator, sch.Field(j).Type, 0)
			continue
		}
		var err error
		if cols[j], err = array.Concatenate(pieces, memory.DefaultAllocator); err != nil {
			t.Fatal(err)
		}
	}
	out := array.NewRecordBatch(sch, cols, n)
	for _, c := range cols {
		c.Release()
	}
	return out
}

// TestScanFiles scans tables cut into files, by position (the same
// columns) and by name (different columns), and compares every column of
// every row with the scan of one file of the same rows (nulls where a
// file lacked a column): projections, filters, offsets and limits across
// the files.
func TestScanFiles(t *testing.T) {
	const n = 3000
	rec := aggRecord(n, 13)
	defer rec.Release()
	same := cutFiles(t, rec, 700, 700, 2400) // one empty
	whole := aggFile(t, rec)
	byName, ref := unionParts(t, rec, []cut{
		{0, 700, []string{"id", "big", "f", "name"}},
		{700, 2400, []string{"name", "id", "dec", "s", "day"}},
		{2400, n, []string{"id", "big", "f", "s"}},
	})
	ctx := context.Background()
	for _, c := range []read.ScanOptions{
		{},
		{Columns: []string{"name", "id"}},
		{Where: "id >= 650 AND id < 2450"},
		{Where: "f > 0 OR name IS NULL", Columns: []string{"f", "id"}},
		{Offset: 690, Limit: 20},
		{Offset: 2390, Limit: 100, Columns: []string{"id", "big"}},
		{Where: "big IS NULL", Offset: 3, Limit: 40},
		{Where: "id < 0"},
		{Offset: 5000},
	} {
		for _, k := range []struct {
			name   string
			files  []*read.File
			whole  *read.File
			byName bool
		}{{"same columns", same, whole, false}, {"by name", byName, ref, true}} {
			if !k.byName && c.Where == "f > 0 OR name IS NULL" {
				c.Where = "f > 0"
			}
			if !k.byName && c.Where == "big IS NULL" {
				c.Where = "name IS NULL"
			}
			one, err := k.whole.ScanContext(ctx, c)
			if err != nil {
				t.Fatal(err)
			}
			want := scanRecords(t, one.Next, one.Schema())
			one.Close()
			fs, err := read.ScanFiles(ctx, k.files, c, k.byName)
			if err != nil {
				t.Fatalf("%s %+v: %v", k.name, c, err)
			}
			got := scanRecords(t, fs.Next, fs.Schema())
			fs.Close()
			if got.NumRows() != want.NumRows() || got.NumCols() != want.NumCols() {
				t.Fatalf("%s %+v: %d rows × %d columns, want %d × %d", k.name, c, got.NumRows(), got.NumCols(), want.NumRows(), want.NumCols())
			}
			for j := range want.Columns() {
				if got.Schema().Field(j).Name != want.Schema().Field(j).Name || !array.Equal(got.Column(j), want.Column(j)) {
					t.Errorf("%s %+v: column %s differs", k.name, c, want.Schema().Field(j).Name)
				}
			}
			got.Release()
			want.Release()
		}
	}
	if _, err := read.ScanFiles(ctx, []*read.File{same[0], byName[1]}, read.ScanOptions{}, false); !errors.Is(err, read.ErrInvalidArgument) {
		t.Errorf("files of other columns by position: %v", err)
	}
	if _, err := read.ScanFiles(ctx, byName, read.ScanOptions{Where: "nosuch = 1"}, true); !errors.Is(err, read.ErrUnknownColumn) {
		t.Errorf("a filter on a column no file has: %v", err)
	}
	if _, err := read.ScanFiles(ctx, same, read.ScanOptions{Split: &same[0].Splits(0)[0]}, false); !errors.Is(err, read.ErrInvalidArgument) {
		t.Errorf("a split over several files: %v", err)
	}
}
