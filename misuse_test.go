package strata_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata"
	"strata/encoding"
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
