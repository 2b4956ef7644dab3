package write

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata/format"
	"strata/iox"
	"strata/read"
)

// wholeBatchText is the text of row r in the batches of TestWholeBatches.
func wholeBatchText(r int) string { return strings.Repeat("x", r%13) + strconv.Itoa(r) }

// TestWholeBatches writes batches of 1 to 2,000 rows (the first larger
// than the probe) with bounds that cut them by default: StripeBytes of
// 1 and 1,000 bytes (batches past four times the stripe), StripeRows, and
// the chunk bound (maxStripeChunks lowered to 1,000, one-value chunks).
// With WholeBatches every stripe starts at a batch boundary, there is
// more than one, every stripe but the last reached StripeBytes or
// StripeRows (where those are the bound), and every value reads back;
// without it, some stripe starts inside a batch. Batches no bound cuts
// make the same bytes with WholeBatches as without.
func TestWholeBatches(t *testing.T) {
	defer func(m int) { maxStripeChunks = m }(maxStripeChunks)
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "s", Type: arrow.BinaryTypes.String},
	}, nil)
	sizes := []int{2000, 1, 300, 7, 1500, 50, 2, 999}
	var batches []arrow.Record
	starts := []int64{} // first row of each batch
	rows := 0
	for _, n := range sizes {
		b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
		for r := rows; r < rows+n; r++ {
			b.Field(0).(*array.Int64Builder).Append(int64(r))
			b.Field(1).(*array.StringBuilder).Append(wholeBatchText(r))
		}
		batches = append(batches, b.NewRecord())
		b.Release()
		starts = append(starts, int64(rows))
		rows += n
	}
	defer func() {
		for _, r := range batches {
			r.Release()
		}
	}()
	write1 := func(o Options, recs []arrow.Record) []byte {
		t.Helper()
		var buf bytes.Buffer
		w, err := New(format.NewWriter(&buf, format.WriterOptions{}), sch, o)
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
	// rawBytes is the writer's measure of rows [lo, hi) against StripeBytes
	rawBytes := func(lo, hi int64) int {
		w, err := New(format.NewWriter(&bytes.Buffer{}, format.WriterOptions{}), sch, Options{StripeBytes: 1 << 30})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Abort()
		for i, r := range batches {
			a, b := max(lo, starts[i]), min(hi, starts[i]+r.NumRows())
			if a >= b {
				continue
			}
			s := r.NewSlice(a-starts[i], b-starts[i])
			err := w.Write(s)
			s.Release()
			if err != nil {
				t.Fatal(err)
			}
		}
		return w.BufferedBytes()
	}
	for _, c := range []struct {
		name   string
		o      Options
		chunks int // maxStripeChunks, when lowered
	}{
		{"StripeBytes 1", Options{StripeBytes: 1, Parallel: 1}, 0},
		{"StripeBytes 1000", Options{StripeBytes: 1000}, 0},
		{"StripeRows 100", Options{StripeRows: 100, Parallel: 1}, 0},
		{"chunk bound 1000", Options{ChunkValues: 1, Parallel: 1}, 1000},
	} {
		maxStripeChunks = MaxStripeChunks
		if c.chunks > 0 {
			maxStripeChunks = c.chunks
		}
		for _, whole := range []bool{false, true} {
			what := fmt.Sprintf("%s, WholeBatches %v", c.name, whole)
			o := c.o
			o.WholeBatches = whole
			data := write1(o, batches)
			f, err := read.Open(context.Background(), iox.Bytes(data), read.Options{})
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			fc := f.Container()
			inside := 0 // stripes starting inside a batch
			for s := range fc.NumStripes() {
				st := fc.Stripe(s)
				if _, ok := slices.BinarySearch(starts, st.FirstRow); !ok {
					inside++
					continue
				}
				if !whole || s == fc.NumStripes()-1 {
					continue
				}
				if o.StripeRows > 0 && st.Rows < o.StripeRows {
					t.Errorf("%s: stripe %d ends at %d rows, before StripeRows", what, s, st.Rows)
				}
				if o.StripeBytes > 0 && o.StripeRows == 0 && c.chunks == 0 {
					if raw := rawBytes(st.FirstRow, st.FirstRow+st.Rows); raw < o.StripeBytes {
						t.Errorf("%s: stripe %d ends at %d raw bytes, before StripeBytes", what, s, raw)
					}
				}
			}
			if whole && inside > 0 {
				t.Errorf("%s: %d of %d stripes start inside a batch", what, inside, fc.NumStripes())
			}
			if !whole && inside == 0 {
				t.Errorf("%s: no stripe of %d starts inside a batch: the bound does not cut these batches", what, fc.NumStripes())
			}
			if fc.NumStripes() < 2 {
				t.Errorf("%s: %d stripe", what, fc.NumStripes())
			}
			sc, err := f.Scan(read.ScanOptions{})
			if err != nil {
				t.Fatal(err)
			}
			at := 0
			for {
				r, err := sc.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				ids, ss := r.Column(0).(*array.Int64), r.Column(1).(*array.String)
				for i := range ids.Len() {
					if ids.Value(i) != int64(at) || ss.Value(i) != wholeBatchText(at) {
						t.Fatalf("%s: row %d holds %d %q", what, at, ids.Value(i), ss.Value(i))
					}
					at++
				}
				r.Release()
			}
			sc.Close()
			if at != rows {
				t.Fatalf("%s: %d rows read back, want %d", what, at, rows)
			}
		}
	}

	// batches that no bound cuts (the first appended a probe at a time,
	// stripes ending after the batch that reaches StripeBytes): the same
	// file either way
	maxStripeChunks = MaxStripeChunks
	o := Options{StripeBytes: 64 << 10}
	plain := write1(o, batches)
	o.WholeBatches = true
	if whole := write1(o, batches); !bytes.Equal(plain, whole) {
		t.Errorf("batches no bound cuts: %d bytes with WholeBatches, %d without, or other bytes", len(whole), len(plain))
	}
	f, err := format.Open(context.Background(), iox.Bytes(plain), format.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if f.NumStripes() < 2 {
		t.Errorf("batches no bound cuts: %d stripe", f.NumStripes())
	}
}
