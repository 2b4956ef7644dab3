package timeseries

import (
	"io"
	"math"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata/iox"
)

// point is one row of the small tables these tests write: a string key,
// an int64 time and a nullable float64 value.
type point struct {
	k    string
	t    int64
	v    float64
	null bool
}

var pointSchema = arrow.NewSchema([]arrow.Field{
	{Name: "k", Type: arrow.BinaryTypes.String},
	{Name: "t", Type: arrow.PrimitiveTypes.Int64},
	{Name: "v", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
}, nil)

var pointModel = Model{Keys: []string{"k"}, Time: "t"}

// pointFile writes points (in any order) as a time-series table and opens it.
func pointFile(t *testing.T, pts []point, o *WriterOptions) *File {
	t.Helper()
	b := array.NewRecordBuilder(memory.DefaultAllocator, pointSchema)
	defer b.Release()
	for _, p := range pts {
		b.Field(0).(*array.StringBuilder).Append(p.k)
		b.Field(1).(*array.Int64Builder).Append(p.t)
		if p.null {
			b.Field(2).AppendNull()
		} else {
			b.Field(2).(*array.Float64Builder).Append(p.v)
		}
	}
	rec := b.NewRecord()
	defer rec.Release()
	f, err := OpenSource(ctx, iox.Bytes(writeFile(t, []arrow.Record{rec}, pointModel, o)), nil)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	return f
}

// queryPoints runs a query of every column and returns its rows.
func queryPoints(t *testing.T, f *File, o QueryOptions) []point {
	t.Helper()
	rows, err := f.Query(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []point
	for {
		rec, err := rows.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < int(rec.NumRows()); i++ {
			p := point{k: rec.Column(0).(*array.String).Value(i), t: rec.Column(1).(*array.Int64).Value(i), null: rec.Column(2).IsNull(i)}
			if !p.null {
				p.v = rec.Column(2).(*array.Float64).Value(i)
			}
			out = append(out, p)
		}
		rec.Release()
	}
}

// samePoints compares rows with the reference value by value.
func samePoints(t *testing.T, what string, got, want []point) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d rows, want %d: %v", what, len(got), len(want), got)
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.k != w.k || g.t != w.t || g.null != w.null || !w.null && math.Float64bits(g.v) != math.Float64bits(w.v) {
			t.Fatalf("%s: row %d is %+v, want %+v", what, i, g, w)
		}
	}
}

// TestWideTimeSpans: a series or unit whose times span more than
// math.MaxInt64 units (int64 times at both extremes, or nanosecond times
// from 1700 to 2200) is a valid table. The index stores the span as an
// unsigned number; the reader once refused spans past math.MaxInt64 and
// called the file the writer had just made corrupt. A latest value far
// before the series' last time (its latest point null) reads back too.
func TestWideTimeSpans(t *testing.T) {
	const ns1700, ns2200 = -8520336000 * 1e9, 7258118400 * 1e9
	pts := []point{
		{k: "a", t: math.MinInt64, v: 1},
		{k: "a", t: -1, v: 2},
		{k: "a", t: math.MaxInt64 - 1, null: true},
		{k: "b", t: ns1700, v: 3},
		{k: "b", t: ns2200, null: true},
		{k: "c", t: 5, v: 4},
	}
	for _, o := range []*WriterOptions{nil, {ChunkRows: 1, MinChunkRows: 1}} {
		f := pointFile(t, pts, o)
		samePoints(t, "every row", queryPoints(t, f, QueryOptions{}), pts)
		samePoints(t, "series b", queryPoints(t, f, QueryOptions{Series: Selector{"k": "b"}}), pts[3:5])
		rec, _, err := f.Last(ctx, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		// each series' last time, and its latest non-null value
		want := []point{{k: "a", t: math.MaxInt64 - 1, v: 2}, {k: "b", t: ns2200, v: 3}, {k: "c", t: 5, v: 4}}
		if int(rec.NumRows()) != len(want) {
			t.Fatalf("last: %d rows, want %d", rec.NumRows(), len(want))
		}
		for i, w := range want {
			if k, tm, v := rec.Column(0).(*array.String).Value(i), rec.Column(1).(*array.Int64).Value(i), rec.Column(2).(*array.Float64).Value(i); k != w.k || tm != w.t || v != w.v {
				t.Fatalf("last row %d: %s %d %v, want %+v", i, k, tm, v, w)
			}
		}
		rec.Release()
		if lo, hi := f.TimeRange(); lo != math.MinInt64 || hi != math.MaxInt64-1 {
			t.Fatalf("time range [%d, %d]", lo, hi)
		}
	}
}
