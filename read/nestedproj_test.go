package read_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata/format"
	"strata/internal/randtable"
	"strata/iox"
	"strata/read"
	"strata/schema"
	"strata/shred"
	"strata/write"
)

// prunedEqual compares got[j], a value of a column pruned to some nested
// fields, with want[i], the same value read whole: nulls alike, a struct's
// kept fields matched by name, lists and maps entry by entry.
func prunedEqual(want arrow.Array, i int, got arrow.Array, j int) error {
	if want.IsNull(i) != got.IsNull(j) {
		return fmt.Errorf("null=%v, want null=%v", got.IsNull(j), want.IsNull(i))
	}
	if got.IsNull(j) {
		return nil
	}
	switch g := got.(type) {
	case *array.Struct:
		w := want.(*array.Struct)
		wt := w.DataType().(*arrow.StructType)
		gt := g.DataType().(*arrow.StructType)
		if gt.NumFields() == 0 || gt.NumFields() > wt.NumFields() {
			return fmt.Errorf("struct of %d fields from one of %d", gt.NumFields(), wt.NumFields())
		}
		for k := range gt.NumFields() {
			name := gt.Field(k).Name
			wi, ok := wt.FieldIdx(name)
			if !ok {
				return fmt.Errorf("field %q not in %s", name, wt)
			}
			if err := prunedEqual(w.Field(wi), i, g.Field(k), j); err != nil {
				return fmt.Errorf(".%s: %w", name, err)
			}
		}
		return nil
	case *array.Map:
		w := want.(*array.Map)
		wlo, whi := w.ValueOffsets(i)
		glo, ghi := g.ValueOffsets(j)
		if whi-wlo != ghi-glo {
			return fmt.Errorf("map of %d entries, want %d", ghi-glo, whi-wlo)
		}
		for k := range whi - wlo {
			if !randtable.LeafEqual(w.Keys(), int(wlo+k), g.Keys(), int(glo+k)) {
				return fmt.Errorf("key %d differs", k)
			}
			if err := prunedEqual(w.Items(), int(wlo+k), g.Items(), int(glo+k)); err != nil {
				return fmt.Errorf("[%d]: %w", k, err)
			}
		}
		return nil
	case *array.List:
		w := want.(*array.List)
		wlo, whi := w.ValueOffsets(i)
		glo, ghi := g.ValueOffsets(j)
		if whi-wlo != ghi-glo {
			return fmt.Errorf("list of %d, want %d", ghi-glo, whi-wlo)
		}
		for k := range whi - wlo {
			if err := prunedEqual(w.ListValues(), int(wlo+k), g.ListValues(), int(glo+k)); err != nil {
				return fmt.Errorf("[%d]: %w", k, err)
			}
		}
		return nil
	}
	if !arrow.TypeEqual(want.DataType(), got.DataType()) {
		return fmt.Errorf("type %s, want %s", got.DataType(), want.DataType())
	}
	if !randtable.LeafEqual(want, i, got, j) {
		return fmt.Errorf("got %s, want %s", got.ValueStr(j), want.ValueStr(i))
	}
	return nil
}

// typeHas reports whether type dt holds the field reached by names (the
// path below its column), its kept fields navigated by name.
func typeHas(dt arrow.DataType, names []string) bool {
	if len(names) == 0 {
		return true
	}
	switch t := dt.(type) {
	case *arrow.StructType:
		k, ok := t.FieldIdx(names[0])
		return ok && typeHas(t.Field(k).Type, names[1:])
	case *arrow.MapType:
		switch names[0] {
		case t.KeyField().Name:
			return typeHas(t.KeyType(), names[1:])
		case t.ItemField().Name:
			return typeHas(t.ItemType(), names[1:])
		}
		return false
	case *arrow.ListType:
		return names[0] == t.ElemField().Name && typeHas(t.Elem(), names[1:])
	}
	return false
}

// randomFile writes batches of rows rows of a random table of ncols
// columns from g, over several stripes, and opens it.
func randomFile(t *testing.T, g *randtable.Gen, ncols, batches, rows int) *read.File {
	t.Helper()
	sch := g.Schema(ncols)
	var buf bytes.Buffer
	w, err := write.New(format.NewWriter(&buf, format.WriterOptions{GroupSize: 2}), sch,
		write.Options{StripeBytes: 48 << 10, ChunkValues: 700, Parallel: 1})
	if err != nil {
		t.Fatal(err)
	}
	for range batches {
		rec := g.Record(memory.DefaultAllocator, sch, rows)
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
		rec.Release()
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := read.Open(context.Background(), iox.Bytes(buf.Bytes()), read.Options{Parallelism: 2})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// nestedPaths returns, per top-level column, the paths of the nodes below
// it (FlatMap keys aside), and the paths of leaves reached through structs
// only, which filters accept.
func nestedPaths(sch *schema.Schema) (byCol map[string][]string, structLeaves []string) {
	byCol = map[string][]string{}
	var walk func(n *schema.Node, col string, structsOnly bool)
	walk = func(n *schema.Node, col string, structsOnly bool) {
		for _, c := range n.Children {
			if n.Kind == schema.FlatMap {
				continue
			}
			byCol[col] = append(byCol[col], c.Path())
			if c.Kind.IsLeaf() && structsOnly && n.Kind == schema.Struct {
				structLeaves = append(structLeaves, c.Path())
			}
			walk(c, col, structsOnly && n.Kind == schema.Struct)
		}
	}
	for _, c := range sch.Root.Children {
		walk(c, c.Name, true)
	}
	return byCol, structLeaves
}

// TestNestedProjection: scans (whole, with offset and limit, filtered) and
// lookups that name fields nested in columns return each such column
// pruned to the named fields, equal value by value to the same rows read
// whole, on random nested tables over several stripes; a column named
// whole and through a field is returned whole, and an unknown path is an
// unknown column.
func TestNestedProjection(t *testing.T) {
	tried, deep := 0, 0
	for seed := uint64(1); seed <= 6; seed++ {
		f := randomFile(t, randtable.New(seed, randtable.Options{MaxDepth: 3}), 5, 4, 900)
		full, _ := scanAll(t, f, read.ScanOptions{})
		byCol, structLeaves := nestedPaths(f.StrataSchema())
		r := rand.New(rand.NewPCG(seed, 77))
		var cols []string
		for c := range byCol {
			cols = append(cols, c)
		}
		slices.Sort(cols) // a seed draws the same projections every run
		if len(cols) == 0 {
			full.Release()
			continue
		}
		for trial := range 12 {
			// one or two columns pruned to one to three of their fields,
			// and sometimes a top-level column beside them
			var names []string
			for range 1 + r.IntN(2) {
				c := cols[r.IntN(len(cols))]
				ps := byCol[c]
				for range 1 + r.IntN(3) {
					names = append(names, ps[r.IntN(len(ps))])
				}
			}
			for _, n := range names {
				if nd, err := f.StrataSchema().Find(n); err == nil {
					for p := nd.Parent(); p != nil; p = p.Parent() {
						if p.Kind == schema.List || p.Kind == schema.Map {
							deep++
							break
						}
					}
				}
			}
			if trial%3 == 0 {
				names = append(names, full.ColumnName(r.IntN(int(full.NumCols()))))
			}
			check := func(what string, got arrow.Record, rows []int64) {
				t.Helper()
				if got == nil {
					if len(rows) > 0 {
						t.Fatalf("seed %d %s %q: no rows, want %d", seed, what, names, len(rows))
					}
					return
				}
				if int(got.NumRows()) != len(rows) {
					t.Fatalf("seed %d %s %q: %d rows, want %d", seed, what, names, got.NumRows(), len(rows))
				}
				for k := range int(got.NumCols()) {
					name := got.ColumnName(k)
					wi := full.Schema().FieldIndices(name)
					if len(wi) == 0 {
						t.Fatalf("seed %d %s %q: column %q not in the file", seed, what, names, name)
					}
					wantCol := full.Column(wi[0])
					whole := false
					for _, n := range names {
						whole = whole || n == name
					}
					if whole && !arrow.TypeEqual(got.Column(k).DataType(), wantCol.DataType()) {
						t.Fatalf("seed %d %s %q: %q named whole came back as %s", seed, what, names, name, got.Column(k).DataType())
					}
					for _, n := range names {
						if parts := strings.Split(n, "."); parts[0] == name && !typeHas(got.Column(k).DataType(), parts[1:]) {
							t.Fatalf("seed %d %s %q: column %q (%s) lacks %s", seed, what, names, name, got.Column(k).DataType(), n)
						}
					}
					for j, row := range rows {
						if err := prunedEqual(wantCol, int(row), got.Column(k), j); err != nil {
							t.Fatalf("seed %d %s %q: column %q row %d: %v", seed, what, names, name, row, err)
						}
					}
				}
				got.Release()
			}
			all := make([]int64, full.NumRows())
			for i := range all {
				all[i] = int64(i)
			}
			got, _ := scanAll(t, f, read.ScanOptions{Columns: names})
			check("scan", got, all)
			off, lim := int64(r.IntN(2000)), int64(1+r.IntN(800))
			got, _ = scanAll(t, f, read.ScanOptions{Columns: names, Offset: off, Limit: lim})
			check("scan offset/limit", got, all[min(off, int64(len(all))):min(off+lim, int64(len(all)))])
			take := make([]int64, 1+r.IntN(40))
			for i := range take {
				take[i] = r.Int64N(full.NumRows())
			}
			trec, err := f.Take(take, names)
			if err != nil {
				t.Fatalf("seed %d take %q: %v", seed, names, err)
			}
			check("take", trec, take)
			if len(structLeaves) > 0 {
				leaf := structLeaves[r.IntN(len(structLeaves))]
				got, _ = scanAll(t, f, read.ScanOptions{Columns: names, Where: leaf + " IS NOT NULL"})
				// the rows the filter keeps, from the whole read
				ref, _ := scanAll(t, f, read.ScanOptions{Columns: []string{leaf}, Where: leaf + " IS NOT NULL"})
				var keep []int64
				lv, err := leafOf(full, leaf)
				if err != nil {
					t.Fatal(err)
				}
				for i := range lv.Len() {
					if !lv.IsNull(i) {
						keep = append(keep, int64(i))
					}
				}
				if ref != nil {
					ref.Release()
				}
				check("filtered scan "+leaf, got, keep)
			}
			tried++
		}
		// an unknown nested path names the error
		if _, err := f.Scan(read.ScanOptions{Columns: []string{cols[0] + ".no_such_field"}}); !errors.Is(err, read.ErrUnknownColumn) {
			t.Errorf("seed %d: unknown path: %v, want ErrUnknownColumn", seed, err)
		}
		full.Release()
		_ = f
	}
	if tried == 0 {
		t.Fatal("no table had nested columns")
	}
	t.Logf("%d projections; %d of the paths they name lie inside lists or maps", tried, deep)
}

// leafOf returns the values of a leaf reached through structs, null where
// it or any struct above it is null.
func leafOf(rec arrow.Record, path string) (arrow.Array, error) {
	names := strings.Split(path, ".")
	idx := rec.Schema().FieldIndices(names[0])
	if len(idx) == 0 {
		return nil, fmt.Errorf("no column %q", names[0])
	}
	a := rec.Column(idx[0])
	valid := make([]bool, a.Len())
	for i := range valid {
		valid[i] = a.IsValid(i)
	}
	for _, n := range names[1:] {
		s, ok := a.(*array.Struct)
		if !ok {
			return nil, fmt.Errorf("%q: %s is not a struct", path, a.DataType())
		}
		k, ok := s.DataType().(*arrow.StructType).FieldIdx(n)
		if !ok {
			return nil, fmt.Errorf("%q: no field %q", path, n)
		}
		a = s.Field(k)
		for i := range valid {
			valid[i] = valid[i] && a.IsValid(i)
		}
	}
	b := array.NewBooleanBuilder(memory.DefaultAllocator)
	defer b.Release()
	b.AppendValues(valid, valid)
	return b.NewArray(), nil
}

// TestNestedProjectionReadsLess: a field of a struct is read without the
// streams of its siblings.
func TestNestedProjectionReadsLess(t *testing.T) {
	data, _ := writeFile(t, 3, 20000, write.Options{})
	bytesFor := func(cols []string) int64 {
		// (a tail read of the footer alone, so that no stream's bytes
		// come from the tail opening read and every one counts)
		f, err := read.Open(context.Background(), iox.Bytes(data), read.Options{Parallelism: 1, Format: format.ReaderOptions{TailSize: 1}})
		if err != nil {
			t.Fatal(err)
		}

		rec, st := scanAll(t, f, read.ScanOptions{Columns: cols})
		if rec.NumRows() != 20000 {
			t.Fatalf("%q: %d rows", cols, rec.NumRows())
		}
		rec.Release()
		return st.BytesRead
	}
	whole, part := bytesFor([]string{"s"}), bytesFor([]string{"s.a"})
	if part >= whole {
		t.Errorf("s.a read %d bytes, s whole %d: want fewer", part, whole)
	}
	t.Logf("s: %d bytes, s.a: %d", whole, part)
}

// TestNestedProjectionFlatMapKeys: naming keys of a FlatMap column returns
// a map holding only those keys, row by row as in the map read whole.
func TestNestedProjectionFlatMapKeys(t *testing.T) {
	checked := 0
	for seed := uint64(1); seed <= 80 && checked < 3; seed++ {
		f := randomFile(t, randtable.New(seed, randtable.Options{MaxDepth: 2, FlatMapKey: shred.FlatMapMetadataKey}), 6, 3, 800)
		full, _ := scanAll(t, f, read.ScanOptions{})
		for ci, col := range f.StrataSchema().Root.Children {
			if col.Kind != schema.FlatMap || len(col.Children) < 2 {
				continue
			}
			keys := map[string]bool{col.Children[0].Name: true, col.Children[len(col.Children)-1].Name: true}
			names := []string{col.Path() + "." + col.Children[0].Name, col.Path() + "." + col.Children[len(col.Children)-1].Name}
			got, _ := scanAll(t, f, read.ScanOptions{Columns: names})
			want := full.Column(ci).(*array.Map)
			gm, ok := got.Column(0).(*array.Map)
			if !ok || got.NumCols() != 1 {
				t.Fatalf("seed %d %q: got %s", seed, names, got.Schema())
			}
			for i := range want.Len() {
				if want.IsNull(i) != gm.IsNull(i) {
					t.Fatalf("seed %d %q row %d: null %v, want %v", seed, names, i, gm.IsNull(i), want.IsNull(i))
				}
				var wantEntries []int
				lo, hi := want.ValueOffsets(i)
				for j := lo; j < hi; j++ {
					if keys[string(randtable.KeyBytes(want.Keys(), int(j)))] || keys[want.Keys().ValueStr(int(j))] {
						wantEntries = append(wantEntries, int(j))
					}
				}
				glo, ghi := gm.ValueOffsets(i)
				if int(ghi-glo) != len(wantEntries) {
					t.Fatalf("seed %d %q row %d: %d entries, want %d", seed, names, i, ghi-glo, len(wantEntries))
				}
				for k, j := range wantEntries {
					gj := int(glo) + k
					// entries may come in another key order: find the key
					found := false
					for x := int(glo); x < int(ghi); x++ {
						if randtable.LeafEqual(want.Keys(), j, gm.Keys(), x) {
							found = true
							if err := prunedEqual(want.Items(), j, gm.Items(), x); err != nil {
								t.Fatalf("seed %d %q row %d key %s: %v", seed, names, i, want.Keys().ValueStr(j), err)
							}
						}
					}
					if !found {
						t.Fatalf("seed %d %q row %d: key %s missing (entry %d)", seed, names, i, want.Keys().ValueStr(j), gj)
					}
				}
			}
			got.Release()
			checked++
		}
		full.Release()
	}
	if checked == 0 {
		t.Fatal("no FlatMap column with two keys was generated")
	}
	t.Logf("%d FlatMap columns projected to two of their keys", checked)
}

// wideStruct writes rows rows of an id and a struct of 16 fields (integers,
// floats and strings) as Strata in memory.
func wideStruct(b testing.TB, rows int) []byte {
	var fs []arrow.Field
	for k := range 16 {
		t := []arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Float64, arrow.BinaryTypes.String}[k%3]
		fs = append(fs, arrow.Field{Name: fmt.Sprintf("f%d", k), Type: t, Nullable: true})
	}
	sch := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}, {Name: "s", Type: arrow.StructOf(fs...), Nullable: true}}, nil)
	var buf bytes.Buffer
	w, err := write.New(format.NewWriter(&buf, format.WriterOptions{}), sch, write.Options{})
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	bld := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	defer bld.Release()
	sb := bld.Field(1).(*array.StructBuilder)
	for i := range rows {
		bld.Field(0).(*array.Int64Builder).Append(int64(i))
		sb.Append(true)
		for k := range 16 {
			switch k % 3 {
			case 0:
				sb.FieldBuilder(k).(*array.Int64Builder).Append(r.Int64N(1 << 40))
			case 1:
				sb.FieldBuilder(k).(*array.Float64Builder).Append(r.Float64() * 1000)
			default:
				sb.FieldBuilder(k).(*array.StringBuilder).Append(fmt.Sprintf("value-%d-%d", k, r.IntN(100000)))
			}
		}
	}
	rec := bld.NewRecord()
	defer rec.Release()
	if err := w.Write(rec); err != nil {
		b.Fatal(err)
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}

// BenchmarkNestedProjection scans one field of a 16-field struct (s.f3,
// integers), the struct whole, and two fields, on one goroutine: what a
// nested projection saves over reading the column. No decoder cache, so
// every scan decodes what it reads.
func BenchmarkNestedProjection(b *testing.B) {
	data := wideStruct(b, 1<<18)
	for _, cols := range [][]string{{"s.f3"}, {"s"}, {"s.f3", "s.f5"}} {
		b.Run(strings.Join(cols, "+"), func(b *testing.B) {
			f, err := read.Open(context.Background(), iox.Bytes(data), read.Options{Parallelism: 1, DecoderCacheBytes: -1})
			if err != nil {
				b.Fatal(err)
			}
			var bytesRead int64
			for range b.N {
				rec, st := scanAll(b, f, read.ScanOptions{Columns: cols})
				if rec.NumRows() != 1<<18 {
					b.Fatalf("%d rows", rec.NumRows())
				}
				rec.Release()
				bytesRead = st.BytesRead
			}
			b.ReportMetric(float64(bytesRead), "bytes/scan")
		})
	}
}

// TestScannerSchema: a scan reports the schema of its batches, nested
// columns pruned, also when the filter keeps no row.
func TestScannerSchema(t *testing.T) {
	data, _ := writeFile(t, 4, 500, write.Options{})
	f, err := read.Open(context.Background(), iox.Bytes(data), read.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sc, err := f.Scan(read.ScanOptions{Columns: []string{"id", "s.a"}, Where: "id < 0"})
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	if rec, err := sc.Next(); err != io.EOF {
		t.Fatalf("Next: %v, %v; want no rows", rec, err)
	}
	want := "schema:\n  fields: 2\n    - id: type=int32\n    - s: type=struct<a: int32 nullable>, nullable"
	if got := sc.Schema().String(); got != want {
		t.Errorf("schema\n%s\nwant\n%s", got, want)
	}
}
