package read_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"strata/encoding"
	"strata/format"
	"strata/iox"
	"strata/read"
	"strata/write"
)

// flatAggTarget is an aggregated FlatMap key value: column col, key key,
// and for a struct value its field ("x" or "y"); fns are the aggregates
// its type takes.
type flatAggTarget struct {
	col, key, field string
	fns             []string
}

// path writes the target as an aggregate names it (integer keys quoted).
func (g flatAggTarget) path() string {
	key := g.key
	if g.col == "fk" {
		key = `"` + key + `"`
	}
	p := g.col + "." + key
	if g.field != "" {
		p += "." + g.field
	}
	return p
}

// values returns the non-null values of the target in the rows sel takes:
// none where the map is null, lacks the key, or holds a null value (or a
// null field of a struct value).
func (g flatAggTarget) values(tb *flatTable, sel func(row int) bool) []any {
	var out []any
	for row, m := range tb.maps[g.col] {
		if !sel(row) {
			continue
		}
		c, ok := m[g.key]
		if m == nil || !ok || c.null {
			continue
		}
		v := c.v
		if p, ok := v.(flatPair); ok {
			if g.field == "y" {
				v = p.y
			} else if p.xNull {
				continue
			} else {
				v = p.x
			}
		}
		out = append(out, v)
	}
	return out
}

// flatAggWant checks one aggregate's value against a fold of vals.
func flatAggWant(fn string, vals []any, got read.AggValue) error {
	if fn == "count" {
		if got.Null || got.I != int64(len(vals)) {
			return fmt.Errorf("got %v, want %d", got, len(vals))
		}
		return nil
	}
	if len(vals) == 0 {
		if !got.Null {
			return fmt.Errorf("got %v, want NULL", got)
		}
		return nil
	}
	if got.Null {
		return fmt.Errorf("got NULL over %d values", len(vals))
	}
	switch vals[0].(type) {
	case float64:
		// NaN orders above every number; the sum of any NaN is NaN
		var sum float64
		nans := 0
		mn, mx := math.Inf(1), math.Inf(-1)
		for _, v := range vals {
			f := v.(float64)
			sum += f
			if f != f {
				nans++
				continue
			}
			mn, mx = min(mn, f), max(mx, f)
		}
		want := map[string]float64{"sum": sum, "avg": sum / float64(len(vals)), "min": mn, "max": mx}[fn]
		switch {
		case fn == "max" && nans > 0, fn == "min" && nans == len(vals):
			want = math.NaN()
		}
		if !got.Float || !(got.F == want || got.F != got.F && want != want) {
			return fmt.Errorf("got %v, want %v", got, want)
		}
	case string:
		s := make([]string, len(vals))
		for i, v := range vals {
			s[i] = v.(string)
		}
		want := slices.Min(s)
		if fn == "max" {
			want = slices.Max(s)
		}
		if got.Text != want {
			return fmt.Errorf("got %q, want %q", got.Text, want)
		}
	case bool:
		want := fn == "max" && slices.Contains(vals, any(true)) || fn == "min" && !slices.Contains(vals, any(false))
		if got.I != map[bool]int64{false: 0, true: 1}[want] {
			return fmt.Errorf("got %v, want %v", got, want)
		}
	default:
		n := make([]int64, len(vals))
		var sum int64
		for i, v := range vals {
			switch v := v.(type) {
			case int64:
				n[i] = v
			case int32:
				n[i] = int64(v)
			}
			sum += n[i]
		}
		switch fn {
		case "avg":
			if want := float64(sum) / float64(len(vals)); !got.Float || got.F != want {
				return fmt.Errorf("got %v, want %v", got, want)
			}
			return nil
		case "sum":
			if got.Float || got.Wide || got.I != sum {
				return fmt.Errorf("got %v, want %d", got, sum)
			}
			return nil
		}
		want := slices.Min(n)
		if fn == "max" {
			want = slices.Max(n)
		}
		if got.Float || got.I != want {
			return fmt.Errorf("got %v, want %d", got, want)
		}
	}
	return nil
}

// flatAggTargets lists every key of every FlatMap column of the table, with
// the aggregates its value's type takes.
func flatAggTargets() []flatAggTarget {
	num := []string{"count", "sum", "avg", "min", "max"}
	ordered := []string{"count", "min", "max"}
	keys := []string{"a", "b", "late", "early"}
	var out []flatAggTarget
	for _, c := range []struct {
		col, field string
		fns        []string
	}{
		{"fi", "", num}, {"ff", "", num}, {"fs", "", ordered}, {"fb", "", ordered},
		{"fd", "", ordered}, {"ft", "", ordered}, {"fv", "x", num}, {"fv", "y", ordered},
		{"s.m", "", num},
	} {
		for _, k := range keys {
			out = append(out, flatAggTarget{c.col, k, c.field, c.fns})
		}
	}
	for _, k := range []string{"7", "42", "-3"} {
		out = append(out, flatAggTarget{"fk", k, "", num})
	}
	return out
}

// TestFlatMapAggregate aggregates the value of every FlatMap key of the
// filter tests' table — integers, floats with NaN and infinities, strings,
// bools, dates, timestamps, fields of struct values (one nullable), integer
// keys, a FlatMap inside a nullable struct, keys only in later or earlier
// stripes — in streams of several chunks, with and without filters (on the
// aggregated key, on other keys, on ordinary columns), one goroutine and
// several, and compares every value with a fold of the Go-side data.
func TestFlatMapAggregate(t *testing.T) {
	tb := makeFlatTable(23)
	var flats []string
	for _, c := range flatCols {
		flats = append(flats, c.name)
	}
	data := writeFlatTable(t, tb, write.Options{FlatMap: flats, StripeRows: flatStripe, ChunkValues: 40})
	f, err := read.Open(context.Background(), iox.Bytes(data), read.Options{})
	if err != nil {
		t.Fatal(err)
	}
	targets := flatAggTargets()
	var exprs []string
	for _, g := range targets {
		for _, fn := range g.fns {
			exprs = append(exprs, fn+"("+g.path()+")")
		}
	}
	all := strings.Join(exprs, ", ")
	conds := []flatCond{{"", func(int) tri { return triTrue }}}
	for i, c := range flatLeaves(tb) {
		if i%3 == 0 {
			conds = append(conds, c)
		}
	}
	fiA := func(row int) (int64, bool) {
		m := tb.maps["fi"][row]
		c, ok := m["a"]
		if m == nil || !ok || c.null {
			return 0, false
		}
		return c.v.(int64), true
	}
	conds = append(conds,
		flatCond{"fi.a > 100", func(row int) tri {
			v, ok := fiA(row)
			return map[bool]tri{false: triNull, true: triOf(v > 100)}[ok]
		}},
		flatCond{"fi.a IS NULL AND g < 60", func(row int) tri {
			if _, ok := fiA(row); ok || tb.gNull[row] || tb.g[row] >= 60 {
				return triFalse
			}
			return triTrue
		}},
		flatCond{"id >= 1950", func(row int) tri { return triOf(row >= 1950) }},
		flatCond{"id < 700", func(row int) tri { return triOf(row < 700) }},
		flatCond{"id < 0", func(int) tri { return triFalse }},
	)
	if len(conds) < 10 {
		t.Fatalf("%d conditions", len(conds))
	}
	for _, c := range conds {
		sel := func(row int) bool { return c.eval(row) == triTrue }
		for _, par := range []int{1, 3} {
			got, _, err := f.AggregateContext(context.Background(), all, read.AggregateOptions{Where: c.where, Parallelism: par})
			if err != nil {
				t.Fatalf("where %q (parallelism %d): %v", c.where, par, err)
			}
			k := 0
			for _, g := range targets {
				vals := g.values(tb, sel)
				if c.where == "" && len(vals) < 10 {
					t.Fatalf("%s has %d values in the table, want more", g.path(), len(vals))
				}
				for _, fn := range g.fns {
					if err := flatAggWant(fn, vals, got[k]); err != nil {
						t.Errorf("%s where %q (parallelism %d): %v", exprs[k], c.where, par, err)
					}
					k++
				}
			}
		}
	}
	// The results are named as the aggregates wrote them, in a form that
	// parses back (an integer key quoted).
	v, st, err := f.Aggregate(`sum(fk."7"), min(fd.a), max(ft.late), count(fv.b.x)`, "")
	if err != nil {
		t.Fatal(err)
	}
	// Without a filter, chunk statistics (which describe exactly the
	// key's entries) answer min, max and count.
	if st.ChunksAllMatch == 0 {
		t.Errorf("no chunk answered from statistics: %+v", st)
	}
	for i, want := range []string{`sum(fk."7")`, "min(fd.a)", "max(ft.late)", "count(fv.b.x)"} {
		if v[i].Name != want {
			t.Errorf("aggregate %d is named %s, want %s", i, v[i].Name, want)
		}
	}
	if v[1].Text == "" || v[2].Text == "" {
		t.Errorf("date and timestamp are not formatted: %q, %q", v[1].Text, v[2].Text)
	}
}

// TestFlatMapAggregateRefusals: a key the schema does not know is an
// unknown column, the FlatMap itself is no primitive column, and values
// of a FlatMap inside a list are still refused.
func TestFlatMapAggregateRefusals(t *testing.T) {
	tb := makeFlatTable(5)
	f, err := read.Open(context.Background(), iox.Bytes(writeFlatTable(t, tb, write.Options{FlatMap: []string{"fi", "fs"}, StripeRows: flatStripe})), read.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		expr string
		want error
	}{
		{"sum(fi.zz)", read.ErrUnknownColumn},
		{"sum(fi)", read.ErrInvalidArgument},
		{"sum(fs.a)", read.ErrInvalidArgument},
		{"sum(ff.value)", encoding.ErrUnsupported}, // ff is an ordinary map here
	} {
		if _, _, err := f.Aggregate(c.expr, ""); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.expr, err, c.want)
		}
	}
}

// TestFlatMapAggregateFiles aggregates a FlatMap key over files that know
// different keys, by name and one after another: a file lacking the key
// folds nothing into it, as over NULLs.
func TestFlatMapAggregateFiles(t *testing.T) {
	files := twoKeyFiles(t, flatAggFile)
	ctx := context.Background()
	for _, c := range []struct {
		where string
		want  []int64 // count(m.b), sum(m.b), min(m.b), max(m.b), sum(m.a), count(*)
		null  bool    // m.b has no value
	}{
		{"", []int64{5, 700, 100, 180, 175, 20}, false},
		{"id >= 13", []int64{3, 480, 140, 180, 97, 7}, false},
		{"m.b > 120", []int64{3, 480, 140, 180, 48, 3}, false},
		{"m.b IS NULL", []int64{0, 0, 0, 0, 45 + 11 + 13 + 17 + 19, 15}, true},
		{"m.a < 10", []int64{0, 0, 0, 0, 45, 10}, true},
	} {
		for _, byName := range []bool{true, false} {
			v, _, err := read.AggregateFiles(ctx, files, "count(m.b), sum(m.b), min(m.b), max(m.b), sum(m.a), count(*)",
				read.AggregateOptions{Where: c.where, UnionByName: byName, Parallelism: 2})
			if err != nil {
				t.Fatalf("where %q (by name %v): %v", c.where, byName, err)
			}
			for i, want := range c.want {
				null := c.null && i >= 1 && i <= 3
				if v[i].Null != null || !null && v[i].I != want {
					t.Errorf("%s where %q (by name %v): %v, want %d (null %v)", v[i].Name, c.where, byName, v[i], want, null)
				}
			}
		}
	}
	for _, byName := range []bool{true, false} {
		if _, _, err := read.AggregateFiles(ctx, files, "sum(m.zz)", read.AggregateOptions{UnionByName: byName}); !errors.Is(err, read.ErrUnknownColumn) {
			t.Errorf("sum of a key no file knows (by name %v): %v", byName, err)
		}
	}
}

// flatAggFile writes rec with its map column m as a FlatMap, in stripes
// of a few rows and chunks of fewer.
func flatAggFile(t *testing.T, rec arrow.Record) *read.File {
	t.Helper()
	return writeOpen(t, rec, format.WriterOptions{GroupSize: 2}, write.Options{FlatMap: []string{"m"}, StripeRows: 6, ChunkValues: 2})
}
