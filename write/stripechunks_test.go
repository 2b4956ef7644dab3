package write

import (
	"bytes"
	"context"
	"io"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata/format"
	"strata/iox"
	"strata/read"
)

// TestStripeChunkBound writes one-value chunks (ChunkValues 1) of rows
// that StripeBytes would keep in one stripe, in one batch: stripes must
// end once their chunks could reach maxStripeChunks (lowered here to
// 1,000 from MaxStripeChunks), the batch cut in pieces that fill them,
// and every value must read back. Before the bound a 64 MiB stripe of
// one-value chunks held a chunk per value in memory until written, and a
// stream of over format.DefaultMaxChunks chunks readers refuse.
func TestStripeChunkBound(t *testing.T) {
	defer func(m int) { maxStripeChunks = m }(maxStripeChunks)
	maxStripeChunks = 1000
	const rows = 6000
	sch := arrow.NewSchema([]arrow.Field{{Name: "b", Type: arrow.PrimitiveTypes.Int8}}, nil)
	bld := array.NewInt8Builder(memory.DefaultAllocator)
	for r := range rows {
		bld.Append(int8(r % 127))
	}
	col := bld.NewArray()
	bld.Release()
	rec := array.NewRecordBatch(sch, []arrow.Array{col}, rows)
	col.Release()
	defer rec.Release()
	f := writeOpen(t, rec, Options{ChunkValues: 1})
	// chunkEstimate counts two chunks a value of this stream, and two
	// more: stripes of at most 499 rows, but for the first, the probe of
	// probeRows rows appended before a row's chunks are known
	stripes := f.Container().NumStripes()
	if least := 1 + (rows-probeRows+498)/499; stripes < least {
		t.Errorf("%d stripes, want at least %d", stripes, least)
	}
	sc, err := f.Scan(read.ScanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	at := 0
	for {
		r, err := sc.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range r.Column(0).(*array.Int8).Int8Values() {
			if v != int8(at%127) {
				t.Fatalf("row %d: %d, want %d", at, v, at%127)
			}
			at++
		}
		r.Release()
	}
	if at != rows {
		t.Fatalf("%d rows read, want %d", at, rows)
	}
}

// TestStripeChunkBoundNotEarly writes chunks of a thousand values, a
// setting a table read by point lookups may take: the bound must not end
// its stripes early. The estimate once took every stream's chunks at the
// smallest size class (ChunkValues>>minChunkShift, 15 values here) and
// ended such stripes at a sixtieth of the rows StripeBytes gives them;
// with the bound lowered to 2,000 chunks, 100,000 rows of four columns
// (about 400 chunks) must stay one stripe, and read back.
func TestStripeChunkBoundNotEarly(t *testing.T) {
	defer func(m int) { maxStripeChunks = m }(maxStripeChunks)
	maxStripeChunks = 2000
	const rows = 100000
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "a", Type: arrow.PrimitiveTypes.Int64},
		{Name: "b", Type: arrow.PrimitiveTypes.Int64},
		{Name: "c", Type: arrow.PrimitiveTypes.Float64},
		{Name: "s", Type: arrow.BinaryTypes.String},
	}, nil)
	bld := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	defer bld.Release()
	x := uint64(1)
	for r := range rows {
		x = x*6364136223846793005 + 1442695040888963407
		bld.Field(0).(*array.Int64Builder).Append(int64(x >> 1))
		bld.Field(1).(*array.Int64Builder).Append(int64(r))
		bld.Field(2).(*array.Float64Builder).Append(float64(x>>11) / (1 << 53))
		bld.Field(3).(*array.StringBuilder).Append("value-" + string(rune('a'+x>>60)))
	}
	rec := bld.NewRecordBatch()
	defer rec.Release()
	f := writeOpen(t, rec, Options{ChunkValues: 1000})
	if n := f.Container().NumStripes(); n != 1 {
		t.Errorf("%d stripes, want 1: the chunk bound ended the stripe early", n)
	}
	sc, err := f.Scan(read.ScanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	at := 0
	for {
		got, err := sc.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		for c := 0; c < int(got.NumCols()); c++ {
			exp := array.NewSlice(rec.Column(c), int64(at), int64(at)+got.NumRows())
			if !array.Equal(exp, got.Column(c)) {
				t.Fatalf("rows %d..: column %s differs", at, sch.Field(c).Name)
			}
			exp.Release()
		}
		at += int(got.NumRows())
		got.Release()
	}
	if at != rows {
		t.Fatalf("%d rows read, want %d", at, rows)
	}
}

// writeOpen writes rec as a file with opts and opens it: the tests of the
// stripe chunk bound, inside the package to lower maxStripeChunks, each
// need one.
func writeOpen(t *testing.T, rec arrow.Record, opts Options) *read.File {
	t.Helper()
	var buf bytes.Buffer
	w, err := New(format.NewWriter(&buf, format.WriterOptions{}), rec.Schema(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := read.Open(context.Background(), iox.Bytes(buf.Bytes()), read.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return f
}
