package interop_test

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/float16"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata/encoding"
	"strata/interop"
)

// fixedListSample is a batch of fixed_size_list columns: embeddings of
// float32 (null rows when nulls is set), pairs of int16 with null
// elements, one inside a struct, one of fixed_size_lists, one of float16
// (a child interop converts).
func fixedListSample(t *testing.T, n int, nulls bool) arrow.Record {
	mem := memory.DefaultAllocator
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "emb", Type: arrow.FixedSizeListOf(4, arrow.PrimitiveTypes.Float32), Nullable: nulls},
		{Name: "pair", Type: arrow.FixedSizeListOfField(2, arrow.Field{Name: "item", Type: arrow.PrimitiveTypes.Int16, Nullable: true})},
		{Name: "st", Type: arrow.StructOf(
			arrow.Field{Name: "tags", Type: arrow.FixedSizeListOf(2, arrow.BinaryTypes.String), Nullable: nulls}), Nullable: nulls},
		{Name: "grid", Type: arrow.FixedSizeListOf(3, arrow.FixedSizeListOf(2, arrow.PrimitiveTypes.Int8)), Nullable: nulls},
		{Name: "half", Type: arrow.FixedSizeListOf(2, arrow.FixedWidthTypes.Float16), Nullable: nulls},
	}, nil)
	b := array.NewRecordBuilder(mem, sch)
	defer b.Release()
	for i := 0; i < n; i++ {
		null := nulls && i%5 == 2
		emb := b.Field(0).(*array.FixedSizeListBuilder)
		if null {
			emb.AppendNull()
		} else {
			emb.Append(true)
			for j := 0; j < 4; j++ {
				emb.ValueBuilder().(*array.Float32Builder).Append(float32(i)*0.25 + float32(j))
			}
		}
		pair := b.Field(1).(*array.FixedSizeListBuilder)
		pair.Append(true)
		for j := 0; j < 2; j++ {
			if (i+j)%3 == 0 {
				pair.ValueBuilder().AppendNull()
			} else {
				pair.ValueBuilder().(*array.Int16Builder).Append(int16(i*7 - j))
			}
		}
		st := b.Field(2).(*array.StructBuilder)
		tags := st.FieldBuilder(0).(*array.FixedSizeListBuilder)
		switch {
		case null:
			st.AppendNull()
		case nulls && i%5 == 4:
			st.Append(true)
			tags.AppendNull()
		default:
			st.Append(true)
			tags.Append(true)
			tags.ValueBuilder().(*array.StringBuilder).Append(strings.Repeat("t", i%4))
			tags.ValueBuilder().(*array.StringBuilder).Append("x")
		}
		grid := b.Field(3).(*array.FixedSizeListBuilder)
		if null {
			grid.AppendNull()
		} else {
			grid.Append(true)
			inner := grid.ValueBuilder().(*array.FixedSizeListBuilder)
			for j := 0; j < 3; j++ {
				inner.Append(true)
				inner.ValueBuilder().(*array.Int8Builder).Append(int8(i + j))
				inner.ValueBuilder().(*array.Int8Builder).Append(int8(-i - j))
			}
		}
		half := b.Field(4).(*array.FixedSizeListBuilder)
		if null {
			half.AppendNull()
		} else {
			half.Append(true)
			half.ValueBuilder().(*array.Float16Builder).Append(float16.New(float32(i) / 8))
			half.ValueBuilder().(*array.Float16Builder).Append(float16.New(-float32(i)))
		}
	}
	return b.NewRecord()
}

// sameColumns checks that got has exactly want's schema (types, names,
// nullability) and the same values, column by column.
func sameColumns(t *testing.T, what string, want []arrow.Record, wantSch *arrow.Schema, got []arrow.Record, gotSch *arrow.Schema) {
	t.Helper()
	if wantSch.NumFields() != gotSch.NumFields() {
		t.Fatalf("%s: %d columns, want %d", what, gotSch.NumFields(), wantSch.NumFields())
	}
	for i, wf := range wantSch.Fields() {
		gf := gotSch.Field(i)
		if gf.Name != wf.Name || gf.Nullable != wf.Nullable || !arrow.TypeEqual(gf.Type, wf.Type) {
			t.Errorf("%s: field %d is %s, want %s", what, i, gf, wf)
			continue
		}
		cw, err1 := canonColumn(want, i, wf.Type)
		cg, err2 := canonColumn(got, i, gf.Type)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if err := sameValues(cw, cg); err != nil {
			t.Errorf("%s: column %q: %v", what, wf.Name, err)
		}
		for _, a := range []arrow.Array{cw, cg} {
			a.Release()
		}
	}
}

// roundTripStandIn writes rec as an Arrow IPC file of two batches (cut
// at row cut), imports it, compares what Strata returns with rec's
// canonical form and hands it to check (if not nil), then restores the
// source types and compares types and values, and exports the restored
// batches to each file named in outs and compares what is read back.
func roundTripStandIn(t *testing.T, rec arrow.Record, cut int64, check func(got []arrow.Record), outs ...string) {
	t.Helper()
	dir := t.TempDir()
	sch := rec.Schema()
	src := filepath.Join(dir, "in.arrow")
	s1, s2 := rec.NewSlice(0, cut), rec.NewSlice(cut, rec.NumRows())
	err := exportFile(src, sch, []arrow.Record{s1, s2})
	s1.Release()
	s2.Release()
	if err != nil {
		t.Fatal(err)
	}
	want := []arrow.Record{rec}
	st := filepath.Join(dir, "t.strata")
	if err := importFile(src, st, interop.ReadOptions{}); err != nil {
		t.Fatalf("import: %v", err)
	}
	got, gotSch, err := scanAll(st)
	if err != nil {
		t.Fatal(err)
	}
	if err := compareTables(want, sch, got, gotSch); err != nil {
		t.Errorf("as stored: %v", err)
	}
	if check != nil {
		check(got)
	}
	release(got)
	restored, restoredSch, err := scanRestored(st)
	if err != nil {
		t.Fatalf("restore: %v", err)
	}
	defer release(restored)
	sameColumns(t, "restored", want, sch, restored, restoredSch)
	for _, o := range outs {
		out := filepath.Join(dir, o)
		if err := exportFile(out, restoredSch, restored); err != nil {
			t.Fatalf("export %s: %v", o, err)
		}
		back, backSch := readAll(t, out, interop.ReadOptions{KeepTypes: true})
		sameColumns(t, "exported to "+o, want, sch, back, backSch)
		release(back)
	}
}

// canonColumn is column col of recs in its canonical form, made batch by
// batch (arrow-go concatenates no unions).
func canonColumn(recs []arrow.Record, col int, dt arrow.DataType) (arrow.Array, error) {
	if len(recs) == 0 {
		return array.MakeArrayOfNull(memory.DefaultAllocator, canonType(dt), 0), nil
	}
	parts := make([]arrow.Array, 0, len(recs))
	defer func() {
		for _, p := range parts {
			p.Release()
		}
	}()
	for _, r := range recs {
		c, err := canonArray(r.Column(col))
		if err != nil {
			return nil, err
		}
		parts = append(parts, c)
	}
	return array.Concatenate(parts, memory.DefaultAllocator)
}

// TestFixedSizeList: fixed_size_list columns (embeddings and the like)
// import from Arrow IPC and Parquet, read back from Strata as lists of the
// same values, and export as the fixed_size_lists they were, null slots
// included.
func TestFixedSizeList(t *testing.T) {
	for _, nulls := range []bool{true, false} {
		dir := t.TempDir()
		rec := fixedListSample(t, 300, nulls)
		defer rec.Release()
		want := []arrow.Record{rec}
		srcs := []string{filepath.Join(dir, "in.arrow")}
		// Two batches, the second a slice, so conversions meet offsets.
		s1, s2 := rec.NewSlice(0, 120), rec.NewSlice(120, rec.NumRows())
		if err := exportFile(srcs[0], rec.Schema(), []arrow.Record{s1, s2}); err != nil {
			t.Fatal(err)
		}
		s1.Release()
		s2.Release()
		if !nulls {
			// arrow-go writes no fixed_size_list with null slots to Parquet
			// ("non-zero length null components").
			srcs = append(srcs, filepath.Join(dir, "in.parquet"))
			if err := exportFile(srcs[1], rec.Schema(), want); err != nil {
				t.Fatal(err)
			}
		}
		for _, src := range srcs {
			name := filepath.Base(src)
			if nulls {
				name += " with nulls"
			}
			st := filepath.Join(dir, filepath.Base(src)+".strata")
			if err := importFile(src, st, interop.ReadOptions{}); err != nil {
				t.Fatalf("%s: import: %v", name, err)
			}
			got, gotSch, err := scanAll(st)
			if err != nil {
				t.Fatalf("%s: scan: %v", name, err)
			}
			if err := compareTables(want, rec.Schema(), got, gotSch); err != nil {
				t.Errorf("%s: stored as lists: %v", name, err)
			}
			release(got)
			restored, restoredSch, err := scanRestored(st)
			if err != nil {
				t.Fatalf("%s: restore: %v", name, err)
			}
			sameColumns(t, name+", restored", want, rec.Schema(), restored, restoredSch)
			outs := []string{"out.arrow"}
			if !nulls {
				outs = append(outs, "out.parquet")
			}
			for _, o := range outs {
				out := filepath.Join(dir, o)
				if err := exportFile(out, restoredSch, restored); err != nil {
					t.Fatalf("%s: export %s: %v", name, o, err)
				}
				back, backSch := readAll(t, out, interop.ReadOptions{KeepTypes: true})
				sameColumns(t, name+" → "+o, want, rec.Schema(), back, backSch)
				release(back)
			}
			release(restored)
		}
	}
}

// A stored list whose entries do not hold the fixed_size_list's length is
// a corrupt file (or a schema that is not this column's), reported as
// such, not a panic or a short list.
func TestRestoreFixedSizeListCorrupt(t *testing.T) {
	mem := memory.DefaultAllocator
	for _, vals := range []string{`[[1, 2], [3]]`, `[[1, 2], [3, 4, 5]]`, `[[1, 2], []]`} {
		arr, _, err := array.FromJSON(mem, arrow.ListOf(arrow.PrimitiveTypes.Int32), strings.NewReader(vals))
		if err != nil {
			t.Fatal(err)
		}
		stored := arrow.NewSchema([]arrow.Field{{Name: "v", Type: arr.DataType(), Nullable: true}}, nil)
		rec := array.NewRecord(stored, []arrow.Array{arr}, int64(arr.Len()))
		arr.Release()
		to := arrow.NewSchema([]arrow.Field{{Name: "v", Type: arrow.FixedSizeListOf(2, arrow.PrimitiveTypes.Int32), Nullable: true}}, nil)
		out, err := interop.RestoreRecord(mem, rec, to)
		rec.Release()
		if err == nil {
			out.Release()
			t.Fatalf("%s restored as fixed_size_list<2>", vals)
		}
		if !errors.Is(err, encoding.ErrCorrupt) || !strings.Contains(err.Error(), `"v"`) {
			t.Errorf("%s: %v, want a corruption error naming the column", vals, err)
		}
	}
	// A null entry stored empty restores as a null slot of two values.
	arr, _, err := array.FromJSON(mem, arrow.ListOf(arrow.PrimitiveTypes.Int32), strings.NewReader(`[null, [1, 2], null, null]`))
	if err != nil {
		t.Fatal(err)
	}
	defer arr.Release()
	stored := arrow.NewSchema([]arrow.Field{{Name: "v", Type: arr.DataType(), Nullable: true}}, nil)
	rec := array.NewRecord(stored, []arrow.Array{arr}, int64(arr.Len()))
	defer rec.Release()
	to := arrow.NewSchema([]arrow.Field{{Name: "v", Type: arrow.FixedSizeListOf(2, arrow.PrimitiveTypes.Int32), Nullable: true}}, nil)
	out, err := interop.RestoreRecord(mem, rec, to)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Release()
	fl := out.Column(0).(*array.FixedSizeList)
	if fl.Len() != 4 || fl.NullN() != 3 || !fl.IsValid(1) || fl.ListValues().Len() != 8 {
		t.Fatalf("restored %v (nulls %d, values %d)", fl, fl.NullN(), fl.ListValues().Len())
	}
	if v := fl.ListValues().(*array.Int32); v.Value(2) != 1 || v.Value(3) != 2 {
		t.Fatalf("restored values %v", v)
	}
	if err := fl.ValidateFull(); err != nil {
		t.Fatal(err)
	}
}
