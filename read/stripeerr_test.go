package read_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata/encoding"
	"strata/format"
	"strata/iox"
	"strata/read"
	"strata/write"
)

// TestCorruptChunkNamesStripeOnce: a damaged chunk's error names its
// stripe once, with the column, stream and chunk, on every read path. The
// column level and the chunk level each added "read: stripe N", so a scan
// failed with "read: stripe 1, column "a": read: stripe 1, stream 0,
// chunk 0: ..." and a take with "read: stripe 1: read: stripe 1, ...".
func TestCorruptChunkNamesStripeOnce(t *testing.T) {
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "a", Type: arrow.PrimitiveTypes.Int64},
		{Name: "b", Type: arrow.BinaryTypes.String},
	}, nil)
	const rows = 20000
	r := rand.New(rand.NewPCG(7, 7))
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	defer b.Release()
	for i := range rows {
		b.Field(0).(*array.Int64Builder).Append(r.Int64N(1 << 40))
		b.Field(1).(*array.StringBuilder).Append(string(rune('a' + i%26)))
	}
	rec := b.NewRecord()
	defer rec.Release()
	var buf bytes.Buffer
	w, err := write.New(format.NewWriter(&buf, format.WriterOptions{}), sch, write.Options{StripeBytes: 32 << 10})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	ctx := context.Background()
	ff, err := format.Open(ctx, iox.Bytes(data), format.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ff.NumStripes() < 2 {
		t.Fatalf("%d stripes, want 2 or more", ff.NumStripes())
	}
	clean := bytes.Clone(data)
	// column a's values are stream 0; damage the middle of its first chunk
	// in stripe 1
	c, err := ff.Chunk(ctx, 1, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	data[c.Offset+c.Size/2] ^= 0x5a
	first := ff.Stripe(1).FirstRow
	f, err := read.Open(ctx, iox.Bytes(data), read.Options{})
	if err != nil {
		t.Fatal(err)
	}
	scan := func(o read.ScanOptions) error {
		sc, err := f.Scan(o)
		if err != nil {
			return err
		}
		defer sc.Close()
		for {
			rec, err := sc.Next()
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return err
			}
			rec.Release()
		}
	}
	for what, err := range map[string]error{
		"scan":        scan(read.ScanOptions{}),
		"scan of a":   scan(read.ScanOptions{Columns: []string{"a"}}),
		"filter on a": scan(read.ScanOptions{Where: "a >= 0"}),
		"filter on b": scan(read.ScanOptions{Where: "b = 'c'", Columns: []string{"a"}}),
		"take": func() error {
			_, err := f.Take([]int64{first, first + 1}, nil)
			return err
		}(),
		"aggregate": func() error {
			_, _, err := f.Aggregate("sum(a)", "")
			return err
		}(),
		"inspect": func() error {
			_, err := f.Inspect()
			return err
		}(),
	} {
		if err == nil {
			t.Errorf("%s: no error", what)
			continue
		}
		msg := err.Error()
		if !errors.Is(err, encoding.ErrCorrupt) || strings.Count(msg, "stripe") != 1 || !strings.HasPrefix(msg, "read: stripe 1, ") ||
			strings.Count(msg, "stream 0, chunk 0: ") != 1 || strings.Count(msg, "read:") != 1 {
			t.Errorf("%s: %q, want ErrCorrupt naming stripe 1 once, then stream 0, chunk 0", what, msg)
		}
	}
	// A damaged stripe group (the chunk tables, after the stripes): Take
	// added "read: stripe 1" to format's "stripe 1: stripe group 0: ...".
	last := ff.Stripe(ff.NumStripes() - 1)
	found := false
	for off := last.Offset + last.Size; off < int64(len(clean)) && !found; off++ {
		d := bytes.Clone(clean)
		d[off] ^= 0x5a
		f, err := read.Open(ctx, iox.Bytes(d), read.Options{})
		if err != nil {
			continue // (the footer)
		}
		_, err = f.Take([]int64{first}, nil)
		if err == nil || !strings.Contains(err.Error(), "stripe group") {
			continue
		}
		found = true
		if !errors.Is(err, encoding.ErrCorrupt) || strings.Count(err.Error(), "stripe 1") != 1 {
			t.Errorf("take, byte %d damaged: %q, want ErrCorrupt naming stripe 1 once", off, err)
		}
	}
	if !found {
		t.Error("no damaged byte after the stripes made Take fail on the stripe group")
	}
}
