package write_test

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
	"strata/write"
)

// TestLargeBatchPieces checks that a batch holding many stripes' worth of
// values is cut into stripes near the target, the last within four times it (a wide table's batches must
// not make stripes, the memory the writer holds, several times larger),
// that every row reads back in order, and that batches which keep the
// stripe within four times its target still end stripes only at batch
// boundaries.
func TestLargeBatchPieces(t *testing.T) {
	sch, recs := wideningTable(t, 2, 12000)
	// one batch of all rows
	big := arrow.NewSchema(sch.Fields(), nil)
	cols := make([]arrow.Array, sch.NumFields())
	for i := range cols {
		c, err := array.Concatenate([]arrow.Array{recs[0].Column(i), recs[1].Column(i)}, memory.DefaultAllocator)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Release()
		cols[i] = c
	}
	all := array.NewRecord(big, cols, 24000)
	defer all.Release()

	const stripe = 64 << 10
	write1 := func(batches ...arrow.Record) []byte {
		var buf bytes.Buffer
		w, err := write.New(format.NewWriter(&buf, format.WriterOptions{}), sch, write.Options{StripeBytes: stripe, Parallel: 1})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range batches {
			if err := w.Write(r); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}

	file := write1(all)
	f, err := format.Open(context.Background(), iox.Bytes(file), format.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// the batch's raw bytes, from a file written with one stripe
	rawPerRow := rawBytesPerRow(t, sch, all)
	maxRows := int64(1.5*stripe/rawPerRow) + 1
	if f.NumStripes() < 4 {
		t.Fatalf("a batch of about %.0f KiB in %d stripes of a %d KiB target", rawPerRow*24000/1024, f.NumStripes(), stripe>>10)
	}
	// the pieces fill stripes to the target; the batch's end, once it fits
	// four stripes, is taken whole
	for i := range f.NumStripes() - 1 {
		if r := f.Stripe(i).Rows; r > maxRows {
			t.Errorf("stripe %d holds %d rows, over half again the target (%d rows)", i, r, maxRows)
		}
	}
	if r := f.Stripe(f.NumStripes() - 1).Rows; r > int64(4.2*stripe/rawPerRow) {
		t.Errorf("the last stripe holds %d rows, over four times the target", r)
	}
	checkRows(t, file, 24000)

	// batches of 300 rows (well within the target) and of 2,400 (about
	// one and a half stripes, within four): stripes end at batch
	// boundaries
	for _, rows := range []int64{300, int64(1.5 * stripe / rawPerRow)} {
		var batches []arrow.Record
		for off := int64(0); off < 24000; off += rows {
			s := all.NewSlice(off, min(off+rows, 24000))
			defer s.Release()
			batches = append(batches, s)
		}
		file = write1(batches...)
		f, err = format.Open(context.Background(), iox.Bytes(file), format.ReaderOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if f.NumStripes() < 4 {
			t.Fatalf("batches of %d rows: %d stripes", rows, f.NumStripes())
		}
		for i := range f.NumStripes() {
			if st := f.Stripe(i); st.FirstRow%rows != 0 {
				t.Errorf("batches of %d rows: stripe %d starts at row %d, inside a batch", rows, i, st.FirstRow)
			}
		}
		checkRows(t, file, 24000)
	}
}

// rawBytesPerRow buffers rec in a writer whose stripe it fits and
// returns the raw bytes a row took (the writer's own measure).
func rawBytesPerRow(t *testing.T, sch *arrow.Schema, rec arrow.Record) float64 {
	t.Helper()
	var buf bytes.Buffer
	w, err := write.New(format.NewWriter(&buf, format.WriterOptions{}), sch, write.Options{StripeBytes: 1 << 30, Parallel: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	raw := w.BufferedBytes()
	w.Abort()
	return float64(raw) / float64(rec.NumRows())
}

// checkRows reads the file back and checks the id column counts 0..n-1
// in order (wideningTable's first column).
func checkRows(t *testing.T, file []byte, n int) {
	t.Helper()
	rf, err := read.Open(context.Background(), iox.Bytes(file), read.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sc, err := rf.Scan(read.ScanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	row := 0
	for {
		rec, err := sc.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		ids := rec.Column(0).(*array.Int64)
		for i := 0; i < ids.Len(); i, row = i+1, row+1 {
			if ids.Value(i) != int64(row) {
				t.Fatalf("row %d holds id %d", row, ids.Value(i))
			}
		}
		rec.Release()
	}
	if row != n {
		t.Fatalf("%d rows read back, want %d", row, n)
	}
}
