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
	var buf bytes.Buffer
	w, err := New(format.NewWriter(&buf, format.WriterOptions{}), sch, Options{ChunkValues: 1})
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
