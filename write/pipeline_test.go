package write_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata/format"
	"strata/iox"
	"strata/write"
)

// wideningTable returns batches of rows of a table with nulls, text
// whose rows widen from one batch to the next (so a first record
// underestimates the later ones), and a list column (streams longer than
// the rows).
func wideningTable(t *testing.T, batches, batchRows int) (*arrow.Schema, []arrow.Record) {
	t.Helper()
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "v", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String},
		{Name: "l", Type: arrow.ListOf(arrow.PrimitiveTypes.Int32)},
	}, nil)
	var recs []arrow.Record
	for b := range batches {
		bld := array.NewRecordBuilder(memory.DefaultAllocator, sch)
		for i := b * batchRows; i < (b+1)*batchRows; i++ {
			bld.Field(0).(*array.Int64Builder).Append(int64(i))
			if i%5 == 1 {
				bld.Field(1).AppendNull()
			} else {
				bld.Field(1).(*array.Float64Builder).Append(float64(i%97) / 4)
			}
			bld.Field(2).(*array.StringBuilder).Append(fmt.Sprintf("row-%d-%s", i%300, bytes.Repeat([]byte{'x'}, b)))
			lb := bld.Field(3).(*array.ListBuilder)
			lb.Append(true)
			for k := range i % 4 {
				lb.ValueBuilder().(*array.Int32Builder).Append(int32(i + k))
			}
		}
		recs = append(recs, bld.NewRecord())
		bld.Release()
	}
	t.Cleanup(func() {
		for _, r := range recs {
			r.Release()
		}
	})
	return sch, recs
}

// TestPipelineSameBytes checks that encoding a stripe in the background
// while the next one is shredded changes nothing in the file: the same
// bytes as the stripe-at-a-time writer, with chunk cuts (Cut) falling in
// stripes that are encoded while later cuts are recorded, and with Flush
// between background stripes.
func TestPipelineSameBytes(t *testing.T) {
	sch, recs := wideningTable(t, 14, 2500)
	write1 := func(opts write.Options, flushAt int) []byte {
		var buf bytes.Buffer
		opts.StripeBytes = 256 << 10
		opts.ChunkTarget = 4 << 10
		w, err := write.New(format.NewWriter(&buf, format.WriterOptions{}), sch, opts)
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range recs {
			if err := w.Write(r); err != nil {
				t.Fatal(err)
			}
			if i%3 == 1 {
				w.Cut()
			}
			if i == flushAt {
				if err := w.Flush(); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	for _, flushAt := range []int{-1, 4} {
		want := write1(write.Options{Parallel: 1}, flushAt)
		bounds := chunkBounds(t, want)
		if len(bounds) < 4 {
			t.Fatalf("%d stripes: the test needs several", len(bounds))
		}
		// every Cut inside a stripe ends a chunk of the id column
		for i := range recs {
			if i%3 != 1 {
				continue
			}
			cut := int64(i+1) * 2500
			for _, b := range bounds {
				if cut > b[0] && cut < b[len(b)-1] && !slices.Contains(b, cut) {
					t.Errorf("Flush after batch %d: no chunk ends at the Cut after row %d (chunk bounds %v)", flushAt, cut, b)
				}
			}
		}
		for _, o := range []write.Options{{Parallel: 2}, {Parallel: 3}, {Parallel: 2, NoPipeline: true}} {
			if got := write1(o, flushAt); !bytes.Equal(got, want) {
				t.Errorf("Parallel %d, NoPipeline %v, Flush after batch %d: %d bytes differ from the %d written one stripe at a time",
					o.Parallel, o.NoPipeline, flushAt, len(got), len(want))
			}
		}
	}
}

// writeFile writes recs as one file and returns its bytes.
func writeFile(t *testing.T, sch *arrow.Schema, recs []arrow.Record, opts write.Options) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := write.New(format.NewWriter(&buf, format.WriterOptions{}), sch, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// chunkBounds returns, per stripe of a file, the file rows at which the
// chunks of stream 0 start, and the stripe's end.
func chunkBounds(t *testing.T, file []byte) [][]int64 {
	t.Helper()
	ctx := context.Background()
	f, err := format.Open(ctx, iox.Bytes(file), format.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out [][]int64
	for i := range f.NumStripes() {
		st := f.Stripe(i)
		s, err := f.Stream(ctx, i, 0)
		if err != nil {
			t.Fatal(err)
		}
		var b []int64
		for _, c := range s.Chunks {
			b = append(b, st.FirstRow+c.FirstRow)
		}
		out = append(out, append(b, st.FirstRow+st.Rows))
	}
	return out
}

// failAfter is a destination that fails once it has taken n bytes, and
// then closes failed (when not nil).
type failAfter struct {
	n      int
	failed chan struct{}
}

var errFull = errors.New("destination full")

func (f *failAfter) Write(p []byte) (int, error) {
	if len(p) > f.n {
		n := f.n
		f.n = 0
		if f.failed != nil {
			close(f.failed)
			f.failed = nil
		}
		return n, errFull
	}
	f.n -= len(p)
	return len(p), nil
}

// TestPipelineErrors checks that a stripe failing in the background is
// not lost: a later Write, or Close, returns its error, and so does every
// call after it; and that Abort waits for a stripe in flight.
func TestPipelineErrors(t *testing.T) {
	sch, recs := wideningTable(t, 14, 2500)
	whole := len(writeFile(t, sch, recs, write.Options{StripeBytes: 48 << 10, Parallel: 2}))
	var w *write.Writer
	var err error
	for _, limit := range []int{0, whole / 4, whole / 2, whole - 1} {
		w, err := write.New(format.NewWriter(&failAfter{n: limit}, format.WriterOptions{}), sch,
			write.Options{StripeBytes: 48 << 10, Parallel: 2})
		if err != nil {
			t.Fatal(err)
		}
		var first error
		for _, r := range recs {
			if err := w.Write(r); err != nil {
				first = err
				break
			}
		}
		if first == nil {
			first = w.Close()
		} else if err := w.Close(); !errors.Is(err, errFull) {
			t.Errorf("limit %d: Close after a failed Write returned %v", limit, err)
		}
		if !errors.Is(first, errFull) {
			t.Errorf("limit %d: the destination's error was lost: %v", limit, first)
		}
	}
	// A stripe that failed in the background stops the next Write, even
	// one far from filling a stripe.
	dst := &failAfter{failed: make(chan struct{})}
	failed := dst.failed
	w, err = write.New(format.NewWriter(dst, format.WriterOptions{}), sch,
		write.Options{StripeBytes: 48 << 10, Parallel: 2})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(recs[0]); err != nil { // fills a stripe: encoded in the background
		t.Fatal(err)
	}
	select {
	case <-failed:
	case <-time.After(30 * time.Second):
		t.Fatal("the stripe handed to the background never reached the destination")
	}
	tiny := recs[1].NewSlice(0, 1)
	defer tiny.Release()
	var stopped error
	for range 200 {
		if stopped = w.Write(tiny); stopped != nil {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	if !errors.Is(stopped, errFull) {
		t.Errorf("Writes after the background stripe failed returned %v", stopped)
	}
	w.Abort()

	// Abort with a stripe in flight (the race detector checks that it
	// waits for it)
	w, err = write.New(format.NewWriter(&bytes.Buffer{}, format.WriterOptions{}), sch,
		write.Options{StripeBytes: 48 << 10, Parallel: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs[:5] {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	w.Abort()
}
