package read_test

import (
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata/read"
)

// TestQuotedPathParts: beside a top-level column "a.b", field b of the
// struct a is reached by quoting its parts apart ("a"."b"), in filters and
// in aggregates, while "a.b" and unquoted a.b name the column. The two
// columns hold values of disjoint ranges in chunks small enough to be
// settled from statistics, so a filter naming both would lose its rows if
// their statistics were looked up by the same key.
func TestQuotedPathParts(t *testing.T) {
	const n = 1000
	ab := arrow.StructOf(arrow.Field{Name: "b", Type: arrow.PrimitiveTypes.Int64})
	sx := arrow.StructOf(arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Int64})
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "a", Type: ab},
		{Name: "a.b", Type: arrow.PrimitiveTypes.Int64},
		{Name: "s", Type: sx},
	}, nil)
	bld := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	defer bld.Release()
	var sumStruct, sumCol, sumX int64
	for i := range n {
		bld.Field(0).(*array.Int64Builder).Append(int64(i))
		sa := bld.Field(1).(*array.StructBuilder)
		sa.Append(true)
		sa.FieldBuilder(0).(*array.Int64Builder).Append(int64(i / 200)) // 0..4, in runs
		bld.Field(2).(*array.Int64Builder).Append(int64(100 + i/250))   // 100..103
		ss := bld.Field(3).(*array.StructBuilder)
		ss.Append(true)
		ss.FieldBuilder(0).(*array.Int64Builder).Append(int64(i % 7))
		sumStruct += int64(i / 200)
		sumCol += int64(100 + i/250)
		sumX += int64(i % 7)
	}
	rec := bld.NewRecord()
	defer rec.Release()
	f := aggFile(t, rec)

	ids := func(where string) []int64 {
		t.Helper()
		got, _ := scanAll(t, f, read.ScanOptions{Columns: []string{"id"}, Where: where})
		if got == nil {
			return nil
		}
		defer got.Release()
		return slices.Clone(got.Column(0).(*array.Int64).Int64Values())
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
		{`"a"."b" = 1`, func(i int) bool { return i/200 == 1 }},
		{`"a".b = 1`, func(i int) bool { return i/200 == 1 }},
		{`a."b" = 1`, func(i int) bool { return i/200 == 1 }},
		{`"a"."b" = 101`, func(i int) bool { return false }},
		{`"a.b" = 101`, func(i int) bool { return i/250 == 1 }},
		{`a.b = 101`, func(i int) bool { return i/250 == 1 }}, // the longest name
		{`"a.b" = 1`, func(i int) bool { return false }},
		{`"a"."b" = 1 AND "a.b" = 100`, func(i int) bool { return i/200 == 1 && i/250 == 0 }},
		{`"a"."b" >= 3 AND a.b = 103`, func(i int) bool { return i/200 >= 3 && i/250 == 3 }},
		{`"a"."b" = 4 OR "a.b" = 100`, func(i int) bool { return i/200 == 4 || i/250 == 0 }},
		{`"s"."x" = 2`, func(i int) bool { return i%7 == 2 }},
		{`"a"."b" IS NULL`, func(i int) bool { return false }},
	} {
		if got, w := ids(c.where), want(c.keep); !slices.Equal(got, w) {
			t.Errorf("%s: %d rows, want %d", c.where, len(got), len(w))
		}
	}

	// Each result is named so that it names its column again: the
	// field b of a quoted part by part (a.b would be the column), the
	// column "a.b" as one quoted name, s.x as it is.
	for _, c := range []struct {
		agg  string
		want int64
		name string
	}{
		{`sum("a"."b")`, sumStruct, `sum("a"."b")`},
		{`sum("a".b)`, sumStruct, `sum("a"."b")`},
		{`sum("a.b")`, sumCol, `sum("a.b")`},
		{`sum(a.b)`, sumCol, `sum("a.b")`},
		{`sum("s"."x")`, sumX, `sum(s.x)`},
		{`sum(s.x)`, sumX, `sum(s.x)`},
		{`max("a"."b")`, 4, `max("a"."b")`},
		{`max("a.b")`, 103, `max("a.b")`},
		{`AVG("a"."b")`, 0, `avg("a"."b")`},
	} {
		got, _, err := f.Aggregate(c.agg, "")
		if err != nil || len(got) != 1 || !got[0].Float && got[0].I != c.want {
			t.Errorf("%s = %v, %v; want %d", c.agg, got, err, c.want)
			continue
		}
		if got[0].Name != c.name {
			t.Errorf("%s is named %s, want %s", c.agg, got[0].Name, c.name)
		}
		if again, _, err := f.Aggregate(got[0].Name, ""); err != nil || again[0].String() != got[0].String() {
			t.Errorf("%s written back as %s: %v, %v; want %v", c.agg, got[0].Name, again, err, got[0])
		}
	}
	got, _, err := f.Aggregate(`count(*), sum("a"."b")`, `"a.b" = 103`)
	if err != nil || got[0].I != 250 || got[1].I != 3*50+4*200 {
		t.Errorf(`count(*), sum("a"."b") where "a.b" = 103: %v, %v`, got, err)
	}
}
