package interop

import (
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestReadParquetSizes writes a Parquet file with a flat and a nested
// column and checks that their column chunk bytes are attributed to the
// right top-level names, add up to less than the file, and that a column
// of random values takes more bytes than a constant one.
func TestReadParquetSizes(t *testing.T) {
	mem := memory.NewGoAllocator()
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "a.b", Type: arrow.PrimitiveTypes.Int64},
		{Name: "s", Type: arrow.StructOf(
			arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Int64},
			arrow.Field{Name: "y", Type: arrow.BinaryTypes.String})},
		{Name: "k", Type: arrow.PrimitiveTypes.Int64},
	}, nil)
	b := array.NewRecordBuilder(mem, sch)
	defer b.Release()
	const n = 5000
	x := uint64(88172645463325252)
	for i := 0; i < n; i++ {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		b.Field(0).(*array.Int64Builder).Append(int64(x))
		sb := b.Field(1).(*array.StructBuilder)
		sb.Append(true)
		sb.FieldBuilder(0).(*array.Int64Builder).Append(int64(x >> 3))
		sb.FieldBuilder(1).(*array.StringBuilder).Append("v")
		b.Field(2).(*array.Int64Builder).Append(7)
	}
	rec := b.NewRecord()
	defer rec.Release()
	path := filepath.Join(t.TempDir(), "t.parquet")
	sink, err := Create(path, sch, WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := sink.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := sink.Close(); err != nil {
		t.Fatal(err)
	}
	ps, err := ReadParquetSizes(path)
	if err != nil {
		t.Fatal(err)
	}
	if ps.Rows != n {
		t.Errorf("rows %d, want %d", ps.Rows, n)
	}
	if want := []string{"a.b", "s", "k"}; len(ps.Order) != 3 || ps.Order[0] != want[0] || ps.Order[1] != want[1] || ps.Order[2] != want[2] {
		t.Errorf("order %q, want %q", ps.Order, want)
	}
	var sum int64
	for _, name := range ps.Order {
		if ps.Columns[name] <= 0 {
			t.Errorf("column %q has %d bytes", name, ps.Columns[name])
		}
		sum += ps.Columns[name]
	}
	if sum >= ps.File {
		t.Errorf("columns add up to %d bytes, not less than the %d-byte file", sum, ps.File)
	}
	if ps.Columns["a.b"] < 8*n/2 || ps.Columns["k"] >= ps.Columns["a.b"]/10 {
		t.Errorf("random column %d bytes, constant column %d bytes", ps.Columns["a.b"], ps.Columns["k"])
	}
	if _, err := ReadParquetSizes(filepath.Join(t.TempDir(), "missing.parquet")); err == nil {
		t.Error("a missing file gave no error")
	}
}
