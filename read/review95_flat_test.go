package read_test

import (
	"context"
	"testing"

	"strata/iox"
	"strata/read"
	"strata/write"

	"github.com/apache/arrow-go/v18/arrow/array"
)

// TestReview95FlatFilterLayouts runs the FlatMap filter leaves, their
// negations and pairs of them on files laid out differently from
// TestFlatMapFilter's: chunks of a few values (inmap and value chunks cut
// at other rows), bloom filters on every key filtered by equality, the
// decoder cache on, and splits of one stripe each.
func TestReview95FlatFilterLayouts(t *testing.T) {
	tb := makeFlatTable(23)
	var flats []string
	for _, c := range flatCols {
		flats = append(flats, c.name)
	}
	for _, opts := range []write.Options{
		{FlatMap: flats, StripeRows: flatStripe, ChunkValues: 3,
			Bloom: []string{"fi.a", "fi.b", "fs.a", "fs.late", "fk.7", "fb.a", "ff.a", "fd.a", "fv.a.x", "s.m.a"}},
		{FlatMap: flats, StripeRows: 250, ChunkValues: 64, Bloom: []string{"fi.b", "fk.-3", "fk.42"}, Parallel: 2},
	} {
		data := writeFlatTable(t, tb, opts)
		f, err := read.Open(context.Background(), iox.Bytes(data), read.Options{})
		if err != nil {
			t.Fatal(err)
		}
		leaves := flatLeaves(tb)
		extra := []flatCond{
			{`fk."7" = 3`, func(row int) tri { return eqFlat(tb, "fk", "7", int32(3), row) }},
			{`fk."42" = 5`, func(row int) tri { return eqFlat(tb, "fk", "42", int32(5), row) }},
			{`fk."-3" IN (1, 2, 3)`, func(row int) tri {
				return max(eqFlat(tb, "fk", "-3", int32(1), row), eqFlat(tb, "fk", "-3", int32(2), row), eqFlat(tb, "fk", "-3", int32(3), row))
			}},
			{`fi.a = 100`, func(row int) tri { return eqFlat(tb, "fi", "a", int64(100), row) }},
			{`s.m.a = 7`, func(row int) tri { return eqFlat(tb, "s.m", "a", int32(7), row) }},
		}
		leaves = append(leaves, extra...)
		conds := append([]flatCond(nil), leaves...)
		for _, l := range leaves {
			conds = append(conds, flatCond{"NOT (" + l.where + ")", func(row int) tri { return 2 - l.eval(row) }})
			conds = append(conds, flatCond{l.where + " OR " + l.where[:0] + "fk.\"7\" IS NULL", func(row int) tri {
				v, ok := tb.maps["fk"][row]["7"]
				n := triOf(tb.maps["fk"][row] == nil || !ok || v.null)
				return max(l.eval(row), n)
			}})
		}
		splits := f.Splits(0)
		bloomed := 0
		for i, c := range conds {
			var want []int
			for row := 0; row < flatRows; row++ {
				if c.eval(row) == triTrue {
					want = append(want, row)
				}
			}
			got, st := scanAll(t, f, read.ScanOptions{Where: c.where, Columns: []string{"id"}, Parallelism: 1 + i%2})
			bloomed += st.StripesPrunedBloom
			var ids []int
			if got != nil {
				for k := 0; k < int(got.NumRows()); k++ {
					ids = append(ids, int(got.Column(0).(*array.Int32).Value(k)))
				}
				got.Release()
			}
			if len(ids) != len(want) {
				t.Fatalf("%+v: %s: %d rows, want %d (%s)", opts.Bloom, c.where, len(ids), len(want), st.String())
			}
			for k := range ids {
				if ids[k] != want[k] {
					t.Fatalf("%s: row %d is %d, want %d", c.where, k, ids[k], want[k])
				}
			}
			var n int64
			for _, sp := range splits {
				sp := sp
				aggs, _, err := f.AggregateContext(context.Background(), "count(*)", read.AggregateOptions{Where: c.where, Split: &sp})
				if err != nil {
					t.Fatalf("%s: %v", c.where, err)
				}
				n += aggs[0].I
			}
			if n != int64(len(want)) {
				t.Fatalf("%s: count(*) over splits %d, want %d", c.where, n, len(want))
			}
		}
		t.Logf("bloom %v: %d stripes pruned by bloom filters", opts.Bloom, bloomed)
	}
}

// eqFlat is col.key = v on row, three-valued.
func eqFlat(tb *flatTable, col, key string, v any, row int) tri {
	m := tb.maps[col][row]
	c, ok := m[key]
	if m == nil || !ok || c.null {
		return triNull
	}
	return triOf(c.v == v)
}
