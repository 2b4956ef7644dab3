package strata_test

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata"
)

// TestDottedNames checks filters, projections and aggregates on columns
// whose names hold dots, as flattened JSON has ("a.b"), beside a struct
// whose path reads the same: the longest name wins ("a.b" is the column
// "a.b", not field b of a), and a struct named with a dot reaches its
// fields ("x.y".z).
func TestDottedNames(t *testing.T) {
	const n = 600
	inner := arrow.StructOf(arrow.Field{Name: "b", Type: arrow.PrimitiveTypes.Int64}, arrow.Field{Name: "c", Type: arrow.PrimitiveTypes.Int64})
	xy := arrow.StructOf(arrow.Field{Name: "z", Type: arrow.PrimitiveTypes.Int64})
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "a.b", Type: arrow.PrimitiveTypes.Int64},
		{Name: "a", Type: inner},
		{Name: "x.y", Type: xy},
	}, nil)
	bld := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	defer bld.Release()
	for i := range n {
		bld.Field(0).(*array.Int64Builder).Append(int64(i))
		bld.Field(1).(*array.Int64Builder).Append(int64(i % 3))
		sa := bld.Field(2).(*array.StructBuilder)
		sa.Append(true)
		sa.FieldBuilder(0).(*array.Int64Builder).Append(int64(i % 5))
		sa.FieldBuilder(1).(*array.Int64Builder).Append(int64(i % 7))
		sx := bld.Field(3).(*array.StructBuilder)
		sx.Append(true)
		sx.FieldBuilder(0).(*array.Int64Builder).Append(int64(i % 11))
	}
	rec := bld.NewRecord()
	defer rec.Release()
	path := filepath.Join(t.TempDir(), "dots.strata")
	w, err := strata.Create(path, sch, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := strata.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()

	ids := func(where string) []int64 {
		t.Helper()
		sc, err := f.Scan(strata.ScanOptions{Columns: []string{"id"}, Where: where})
		if err != nil {
			t.Fatalf("%s: %v", where, err)
		}
		defer sc.Close()
		var out []int64
		for {
			r, err := sc.Next()
			if err == io.EOF {
				return out
			}
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, r.Column(0).(*array.Int64).Int64Values()...)
			r.Release()
		}
	}
	want := func(keep func(i int) bool) []int64 {
		var out []int64
		for i := range n {
			if keep(i) {
				out = append(out, int64(i))
			}
		}
		return out
	}
	for _, c := range []struct {
		where string
		keep  func(i int) bool
	}{
		{`"a.b" = 1`, func(i int) bool { return i%3 == 1 }},
		{`a.b = 1`, func(i int) bool { return i%3 == 1 }}, // the column "a.b" wins
		{`a.c = 2`, func(i int) bool { return i%7 == 2 }},
		{`"x.y".z = 3`, func(i int) bool { return i%11 == 3 }},
		{`x.y.z = 3 AND "a.b" = 0`, func(i int) bool { return i%11 == 3 && i%3 == 0 }},
	} {
		if got, w := ids(c.where), want(c.keep); !slices.Equal(got, w) {
			t.Errorf("%s: %d rows, want %d", c.where, len(got), len(w))
		}
	}

	// projections and aggregates name the same columns
	sc, err := f.Scan(strata.ScanOptions{Columns: []string{"a.b", "x.y.z"}, Limit: 4})
	if err != nil {
		t.Fatal(err)
	}
	r, err := sc.Next()
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprintf("%s %s", r.Schema().Field(0).Name, r.Schema().Field(1).Type); got != "a.b struct<z: int64>" {
		t.Errorf("projection of a.b and x.y.z: %s", got)
	}
	r.Release()
	sc.Close()
	res, _, err := f.Aggregate(strata.AggregateOptions{Aggs: []strata.Agg{strata.Sum("a.b"), strata.Sum("x.y.z")}, Where: `"a.b" = 2`})
	if err != nil {
		t.Fatal(err)
	}
	var ab, z int64
	for i := range n {
		if i%3 == 2 {
			ab += int64(i % 3)
			z += int64(i % 11)
		}
	}
	if len(res) != 2 || res[0].Int() != ab || res[1].Int() != z {
		t.Errorf("sum(a.b), sum(x.y.z) where \"a.b\" = 2: %v, want %d %d", res, ab, z)
	}
}
