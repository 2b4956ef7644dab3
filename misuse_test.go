package strata_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata"
	"strata/encoding"
	"strata/format"
	"strata/iox"
)

// TestAPIMisuse: nil arguments and records of another schema get errors,
// never a panic; a nil record leaves the writer usable, a record of another
// schema fails the file, and the writer says so on every call after it.
func TestAPIMisuse(t *testing.T) {
	sch := arrow.NewSchema([]arrow.Field{{Name: "a", Type: arrow.PrimitiveTypes.Int64}}, nil)
	if _, err := strata.NewWriter(&bytes.Buffer{}, nil, nil); err == nil {
		t.Error("NewWriter with no schema: no error")
	}
	if _, err := strata.NewWriter(nil, sch, nil); err == nil {
		t.Error("NewWriter with no destination: no error")
	}
	if _, err := strata.OpenSource(nil); err == nil {
		t.Error("OpenSource(nil): no error")
	}
	dup := arrow.NewSchema([]arrow.Field{{Name: "a", Type: arrow.PrimitiveTypes.Int64}, {Name: "a", Type: arrow.PrimitiveTypes.Int64}}, nil)
	if _, err := strata.NewWriter(&bytes.Buffer{}, dup, nil); !errors.Is(err, encoding.ErrInvalidArgument) || errors.Is(err, encoding.ErrCorrupt) ||
		!strings.Contains(err.Error(), `two columns named "a"`) {
		t.Errorf("two fields of one name: %v, want an invalid argument naming them, not corrupt data", err)
	}
	inner := arrow.StructOf(arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Int64}, arrow.Field{Name: "x", Type: arrow.BinaryTypes.String})
	deep := arrow.NewSchema([]arrow.Field{{Name: "l", Type: arrow.ListOf(arrow.StructOf(arrow.Field{Name: "s", Type: inner}))}}, nil)
	if _, err := strata.NewWriter(&bytes.Buffer{}, deep, nil); !errors.Is(err, encoding.ErrInvalidArgument) ||
		!strings.Contains(err.Error(), `struct "l.s" has two fields named "x"`) {
		t.Errorf("two fields of one name in a struct in a list: %v", err)
	}

	var buf bytes.Buffer
	w, err := strata.NewWriter(&buf, sch, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(nil); err == nil {
		t.Error("Write(nil): no error")
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	b.Field(0).(*array.Int64Builder).AppendValues([]int64{1, 2, 3}, nil)
	rec := b.NewRecord()
	defer rec.Release()
	if err := w.Write(rec); err != nil {
		t.Fatalf("Write after Write(nil): %v", err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := strata.OpenSource(iox.Bytes(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if f.NumRows() != 3 {
		t.Errorf("%d rows, want 3", f.NumRows())
	}
	f.Close()

	other := arrow.NewSchema([]arrow.Field{{Name: "b", Type: arrow.BinaryTypes.String}}, nil)
	ob := array.NewRecordBuilder(memory.DefaultAllocator, other)
	ob.Field(0).(*array.StringBuilder).Append("x")
	orec := ob.NewRecord()
	defer orec.Release()
	w, err = strata.NewWriter(&bytes.Buffer{}, sch, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(orec); err == nil {
		t.Fatal("record of another schema: no error")
	}
	if err := w.Write(rec); err == nil {
		t.Error("Write after a failed Write: no error")
	}
	if err := w.Close(); err == nil {
		t.Error("Close after a failed Write: no error")
	}
}

// TestWriterAfterClose: Write and Flush after Close, and a second Close,
// fail with an error wrapping format.ErrClosed instead of returning nil as
// if the rows had been stored, and leave the file the first Close wrote
// (bytes unchanged, on disk still in place after Abort).
func TestWriterAfterClose(t *testing.T) {
	sch := arrow.NewSchema([]arrow.Field{{Name: "a", Type: arrow.PrimitiveTypes.Int64}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	defer b.Release()
	b.Field(0).(*array.Int64Builder).AppendValues([]int64{1, 2, 3}, nil)
	rec := b.NewRecord()
	defer rec.Release()
	check := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, format.ErrClosed) || !errors.Is(err, encoding.ErrInvalidArgument) {
			t.Errorf("%s: %v, want an error wrapping format.ErrClosed and ErrInvalidArgument", what, err)
		}
	}
	readBack := func(f *strata.File) []int64 {
		t.Helper()
		sc, err := f.Scan(strata.ScanOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer sc.Close()
		var got []int64
		for {
			r, err := sc.Next()
			if err == io.EOF {
				return got
			}
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, r.Column(0).(*array.Int64).Int64Values()...)
			r.Release()
		}
	}
	want := []int64{1, 2, 3}

	var buf bytes.Buffer
	w, err := strata.NewWriter(&buf, sch, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	closed := bytes.Clone(buf.Bytes())
	check("Write after Close", w.Write(rec))
	check("Flush after Close", w.Flush())
	check("second Close", w.Close())
	if !bytes.Equal(buf.Bytes(), closed) {
		t.Errorf("calls after Close changed the output: %d bytes, %d after Close", buf.Len(), len(closed))
	}
	f, err := strata.OpenSource(iox.Bytes(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if got := readBack(f); !slices.Equal(got, want) {
		t.Errorf("read %v, want %v", got, want)
	}
	f.Close()

	path := filepath.Join(t.TempDir(), "t.strata")
	cw, err := strata.Create(path, sch, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := cw.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := cw.Close(); err != nil {
		t.Fatal(err)
	}
	check("Write after Close (Create)", cw.Write(rec))
	check("second Close (Create)", cw.Close())
	cw.Abort()
	f, err = strata.Open(path)
	if err != nil {
		t.Fatalf("the file Close wrote is gone after calls on the closed writer: %v", err)
	}
	defer f.Close()
	if got := readBack(f); !slices.Equal(got, want) {
		t.Errorf("read %v, want %v", got, want)
	}

	aw, err := strata.NewWriter(&bytes.Buffer{}, sch, nil)
	if err != nil {
		t.Fatal(err)
	}
	aw.Abort()
	check("Write after Abort", aw.Write(rec))
}

// TestWriteOptionsRefused: options the writer would otherwise ignore
// without a word are invalid arguments naming what is wrong: an Optimize
// value that is none of the three, and a Bloom path naming no leaf column
// (a typo, a struct, a column of another table), which left the file
// without the bloom filter asked for. Bloom paths of leaf columns, nested
// ones included, and of keys under a FlatMap column are accepted, and the
// filter is written.
func TestWriteOptionsRefused(t *testing.T) {
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "a", Type: arrow.PrimitiveTypes.Int64},
		{Name: "s", Type: arrow.StructOf(arrow.Field{Name: "x", Type: arrow.BinaryTypes.String})},
		{Name: "m", Type: arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64), Nullable: true},
	}, nil)
	for _, c := range []struct {
		opts strata.WriteOptions
		msg  string
	}{
		{strata.WriteOptions{Optimize: encoding.OptimizeSpeed + 1}, "Optimize optimize(3) is none of balanced, size and speed"},
		{strata.WriteOptions{Optimize: 200}, "Optimize optimize(200) is none"},
		{strata.WriteOptions{Bloom: []string{"b"}}, `bloom filter for "b": no such leaf column`},
		{strata.WriteOptions{Bloom: []string{"a", "s"}}, `bloom filter for "s": no such leaf column`},
		{strata.WriteOptions{Bloom: []string{"s.y"}}, `bloom filter for "s.y": no such leaf column`},
		{strata.WriteOptions{Bloom: []string{""}}, `bloom filter for "": no such leaf column`},
	} {
		_, err := strata.NewWriter(&bytes.Buffer{}, sch, &c.opts)
		if !errors.Is(err, encoding.ErrInvalidArgument) || err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("Optimize %v, Bloom %q: %v, want an invalid argument saying %q", c.opts.Optimize, c.opts.Bloom, err, c.msg)
		}
	}

	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	defer b.Release()
	for i := range 100 {
		b.Field(0).(*array.Int64Builder).Append(int64(2 * i))
		sb := b.Field(1).(*array.StructBuilder)
		sb.Append(true)
		sb.FieldBuilder(0).(*array.StringBuilder).Append(string(rune('a' + i%26)))
		mb := b.Field(2).(*array.MapBuilder)
		mb.Append(true)
		mb.KeyBuilder().(*array.StringBuilder).Append("k")
		mb.ItemBuilder().(*array.Int64Builder).Append(int64(2 * i))
	}
	rec := b.NewRecord()
	defer rec.Release()
	for _, o := range []strata.WriteOptions{
		{Optimize: encoding.OptimizeSize, Bloom: []string{"a", "s.x"}},
		{Bloom: []string{"m.k"}, FlatMap: []string{"m"}},
	} {
		var buf bytes.Buffer
		w, err := strata.NewWriter(&buf, sch, &o)
		if err != nil {
			t.Fatalf("%+v: %v", o, err)
		}
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		f, err := strata.OpenSource(iox.Bytes(buf.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		// a value the stripe lacks, inside its statistics' bounds: only
		// its bloom filter prunes it
		// (filters do not reach into maps yet: m.k is only accepted)
		for _, bl := range o.Bloom {
			where := map[string]string{"a": "a = 51", "s.x": "s.x = 'bb'"}[bl]
			if where == "" {
				continue
			}
			sc, err := f.Scan(strata.ScanOptions{Where: where})
			if err != nil {
				t.Fatal(err)
			}
			if r, err := sc.Next(); err != io.EOF {
				t.Errorf("%s: %v %v, want no rows", where, r, err)
			}
			if st := sc.Stats(); st.StripesPrunedBloom != 1 {
				t.Errorf("Bloom %q, %s: %d stripes pruned by a bloom filter, want 1 (%v)", bl, where, st.StripesPrunedBloom, st)
			}
			sc.Close()
		}
		f.Close()
	}
}

// TestCreateOverDirectory: Create on the path of a directory is refused at
// once, naming it, where it used to succeed and fail only at Close (the
// rename of the finished temporary file), after every row was written;
// nothing is left beside the directory.
func TestCreateOverDirectory(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "t.strata")
	if err := os.Mkdir(target, 0o755); err != nil {
		t.Fatal(err)
	}
	sch := arrow.NewSchema([]arrow.Field{{Name: "a", Type: arrow.PrimitiveTypes.Int64}}, nil)
	for _, p := range []string{target, dir} {
		w, err := strata.Create(p, sch, nil)
		if err == nil {
			w.Abort()
			t.Errorf("Create(%s), a directory: no error", p)
			continue
		}
		if !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "is a directory") {
			t.Errorf("Create(%s): %v, want an error saying it is a directory", p, err)
		}
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != 1 || ents[0].Name() != "t.strata" || !ents[0].IsDir() {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("left %v beside the directory", names)
	}
}

// TestWriteNestedFieldNames: a record whose struct fields, at any depth,
// are named otherwise than the writer's schema's (renamed, or two of one
// type swapped) is refused naming the field, as a record whose top-level
// columns differ is. Such records used to be written by position: a
// swapped pair stored each field's values under the other's name. A record
// of the writer's own schema reads back value by value.
func TestWriteNestedFieldNames(t *testing.T) {
	mem := memory.DefaultAllocator
	pair := func(a, b string) arrow.DataType {
		return arrow.StructOf(arrow.Field{Name: a, Type: arrow.PrimitiveTypes.Int64}, arrow.Field{Name: b, Type: arrow.PrimitiveTypes.Int64})
	}
	inList := func(st arrow.DataType) *arrow.Schema {
		return arrow.NewSchema([]arrow.Field{{Name: "l", Type: arrow.ListOf(st), Nullable: true}}, nil)
	}
	top := func(st arrow.DataType) *arrow.Schema {
		return arrow.NewSchema([]arrow.Field{{Name: "s", Type: st}}, nil)
	}
	// fill appends rows of x = i, y = 100+i to the struct builder under b.
	fill := func(b array.Builder, rows int) {
		sb, ok := b.(*array.StructBuilder)
		if !ok {
			lb := b.(*array.ListBuilder)
			lb.Append(true)
			sb = lb.ValueBuilder().(*array.StructBuilder)
		}
		for i := range rows {
			sb.Append(true)
			sb.FieldBuilder(0).(*array.Int64Builder).Append(int64(i))
			sb.FieldBuilder(1).(*array.Int64Builder).Append(int64(100 + i))
		}
	}
	for _, c := range []struct {
		name       string
		want, have *arrow.Schema
		msg        string
	}{
		{"swapped in a list", inList(pair("x", "y")), inList(pair("y", "x")), `struct "item": field 0 is "y", schema has "x"`},
		{"renamed in a list", inList(pair("x", "y")), inList(pair("x", "z")), `struct "item": field 1 is "z", schema has "y"`},
		{"swapped at the top", top(pair("x", "y")), top(pair("y", "x")), `struct "s": field 0 is "y", schema has "x"`},
	} {
		b := array.NewRecordBuilder(mem, c.have)
		fill(b.Field(0), 3)
		rec := b.NewRecord()
		b.Release()
		w, err := strata.NewWriter(&bytes.Buffer{}, c.want, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write(rec); err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: Write: %v, want an error saying %s", c.name, err, c.msg)
		}
		if err := w.Close(); err == nil {
			t.Errorf("%s: Close after the refused record: no error", c.name)
		}
		rec.Release()
	}

	sch := inList(pair("x", "y"))
	b := array.NewRecordBuilder(mem, sch)
	fill(b.Field(0), 3)
	rec := b.NewRecord()
	b.Release()
	defer rec.Release()
	var buf bytes.Buffer
	w, err := strata.NewWriter(&buf, sch, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := strata.OpenSource(iox.Bytes(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got, err := f.Take([]int64{0}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer got.Release()
	st := got.Column(0).(*array.List).ListValues().(*array.Struct)
	xs, ys := st.Field(0).(*array.Int64).Int64Values(), st.Field(1).(*array.Int64).Int64Values()
	if !slices.Equal(xs, []int64{0, 1, 2}) || !slices.Equal(ys, []int64{100, 101, 102}) {
		t.Errorf("read x %v, y %v; want [0 1 2], [100 101 102]", xs, ys)
	}
}

// TestFileAfterClose: every query of a File after its Close fails with
// ErrClosed, also a lookup the decoder cache could still answer (the
// rows were looked up before the Close), and on the helpers over several
// files.
func TestFileAfterClose(t *testing.T) {
	sch := arrow.NewSchema([]arrow.Field{{Name: "a", Type: arrow.PrimitiveTypes.Int64}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	b.Field(0).(*array.Int64Builder).AppendValues([]int64{10, 20, 30}, nil)
	rec := b.NewRecord()
	defer rec.Release()
	path := filepath.Join(t.TempDir(), "c.strata")
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
	got, err := f.Take([]int64{2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if v := got.Column(0).(*array.Int64).Value(0); v != 30 {
		t.Fatalf("Take before Close: %d, want 30", v)
	}
	got.Release()
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	files := []*strata.File{f}
	for name, call := range map[string]func() error{
		"Scan": func() error { _, err := f.Scan(strata.ScanOptions{}); return err },
		"Take": func() error { _, err := f.Take([]int64{2}, nil); return err },
		"TakeContext": func() error {
			_, _, err := f.TakeContext(t.Context(), []int64{2}, strata.TakeOptions{})
			return err
		},
		"Aggregate": func() error {
			_, _, err := f.Aggregate(strata.AggregateOptions{Aggs: []strata.Agg{strata.CountAll()}})
			return err
		},
		"Verify":    func() error { return f.Verify(t.Context()) },
		"Inspect":   func() error { _, err := f.Inspect(); return err },
		"Layouts":   func() error { _, err := f.Layouts(); return err },
		"ScanFiles": func() error { _, err := strata.ScanFiles(t.Context(), files, strata.ScanOptions{}); return err },
		"TakeFiles": func() error {
			_, _, err := strata.TakeFiles(t.Context(), files, []int64{1}, strata.TakeOptions{})
			return err
		},
		"AggregateFiles": func() error {
			_, _, err := strata.AggregateFiles(t.Context(), files, strata.AggregateOptions{Aggs: []strata.Agg{strata.CountAll()}})
			return err
		},
	} {
		err := call()
		if !errors.Is(err, strata.ErrClosed) || !errors.Is(err, encoding.ErrInvalidArgument) {
			t.Errorf("%s after Close: %v, want ErrClosed", name, err)
		}
	}
}
