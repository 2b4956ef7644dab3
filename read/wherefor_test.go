package read_test

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata/filter"
	"strata/format"
	"strata/read"
	"strata/write"
)

// flatKeyFile writes one row {id: 1, m: keys} with m stored as a FlatMap,
// so the file's schema knows exactly keys.
func flatKeyFile(t *testing.T, keys ...string) *read.File {
	t.Helper()
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int32},
		{Name: "m", Type: arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64), Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	defer b.Release()
	b.Field(0).(*array.Int32Builder).Append(1)
	mb := b.Field(1).(*array.MapBuilder)
	mb.Append(true)
	for i, k := range keys {
		mb.KeyBuilder().(*array.StringBuilder).Append(k)
		mb.ItemBuilder().(*array.Int64Builder).Append(int64(i))
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	return writeOpen(t, rec, format.WriterOptions{}, write.Options{FlatMap: []string{"m"}})
}

// TestWhereForFile checks the exported rewrite of a filter for a file that
// lacks a FlatMap key: WhereFor, on the Arrow schema (which lists no keys),
// keeps m.b, while WhereForFile and Lacks take it as NULL in a file whose
// maps hold only a, and leave the filter alone in a file that knows b.
func TestWhereForFile(t *testing.T) {
	onlyA, withB := flatKeyFile(t, "a"), flatKeyFile(t, "a", "b")
	for _, c := range []struct {
		path      string
		lacksA    bool // in the file of key a only
		lacksBoth bool // in the file of keys a and b
	}{
		{"id", false, false},
		{"m", false, false},
		{"m.a", false, false},
		{"m.b", true, false},
		{"m.zz", true, true},
		{"nosuch", true, true},
	} {
		if got := onlyA.Lacks(c.path); got != c.lacksA {
			t.Errorf("file of a: Lacks(%s) = %v, want %v", c.path, got, c.lacksA)
		}
		if got := withB.Lacks(c.path); got != c.lacksBoth {
			t.Errorf("file of a, b: Lacks(%s) = %v, want %v", c.path, got, c.lacksBoth)
		}
	}
	for _, c := range []struct {
		where string
		w     string // as the file of key a only reads it
		none  bool
	}{
		{"m.b >= 140", "", true},
		{"m.b IS NULL", "", false},
		{"m.a < 3", "m.a < 3", false},
	} {
		e, err := filter.Parse(c.where)
		if err != nil {
			t.Fatal(err)
		}
		w, none := read.WhereForFile(c.where, e, onlyA)
		if none != c.none || (!none && w != c.w) {
			t.Errorf("%s in the file of a: %q, none %v; want %q, none %v", c.where, w, none, c.w, c.none)
		}
		if w, none := read.WhereForFile(c.where, e, withB); w != c.where || none {
			t.Errorf("%s in the file of a, b: %q, none %v; want it unchanged", c.where, w, none)
		}
		// the Arrow schema does not list keys: WhereFor leaves m.b in
		if w, none := read.WhereFor(c.where, e, onlyA.Schema()); w != c.where || none {
			t.Errorf("WhereFor(%s) on the Arrow schema: %q, none %v; want it unchanged", c.where, w, none)
		}
	}
	// a filter mixing a known key with one the file lacks keeps the known
	e, err := filter.Parse("m.a < 3 OR m.b = 180")
	if err != nil {
		t.Fatal(err)
	}
	w, none := read.WhereForFile("m.a < 3 OR m.b = 180", e, onlyA)
	if none || w == "" || w == "m.a < 3 OR m.b = 180" {
		t.Errorf("m.a < 3 OR m.b = 180 in the file of a: %q, none %v; want m.b dropped", w, none)
	}
	e2, err := filter.Parse(w)
	if err != nil {
		t.Fatalf("the rewrite %q does not parse: %v", w, err)
	}
	if cols := filter.Columns(e2); len(cols) != 1 || cols[0] != "m.a" {
		t.Errorf("m.a < 3 OR m.b = 180 in the file of a: %q names %v, want m.a only", w, cols)
	}
}
