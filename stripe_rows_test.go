package strata_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"strata"
	"strata/encoding"
	"strata/internal/randtable"
	"strata/iox"
)

// TestStripeRows: WriteOptions.StripeRows ends a stripe after exactly that
// many rows whatever the batches (a batch crossing the bound is appended
// in pieces, the first, probed batch included), and writes the same bytes
// as a caller that flushes after every that many rows; StripeBytes still
// ends stripes earlier; every value reads back; a negative bound is
// refused.
func TestStripeRows(t *testing.T) {
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "i", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "l", Type: arrow.ListOf(arrow.PrimitiveTypes.Int32), Nullable: true},
	}, nil)
	g := randtable.New(7, randtable.Options{})
	var recs []arrow.RecordBatch
	for _, n := range []int{1, 2500, 700, 3, 1000, 999, 1, 1797} { // 7,001 rows
		recs = append(recs, g.Record(mem, sch, n))
	}
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	all, err := randtable.Concat(mem, sch, recs)
	if err != nil {
		t.Fatal(err)
	}
	defer all.Release()
	rows := all.NumRows()
	write := func(opts strata.WriteOptions, flushEvery int64) []byte {
		t.Helper()
		var buf bytes.Buffer
		w, err := strata.NewWriter(&buf, sch, &opts)
		if err != nil {
			t.Fatal(err)
		}
		if flushEvery == 0 {
			for _, rec := range recs {
				if err := w.Write(rec); err != nil {
					t.Fatal(err)
				}
			}
		} else {
			for lo := int64(0); lo < rows; lo += flushEvery {
				piece := all.NewSlice(lo, min(lo+flushEvery, rows))
				err := w.Write(piece)
				piece.Release()
				if err == nil {
					err = w.Flush()
				}
				if err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	stripes := func(b []byte) []int64 {
		t.Helper()
		f, err := strata.OpenSource(iox.Bytes(b))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		var out []int64
		for _, s := range f.Splits(0) {
			out = append(out, s.Rows)
		}
		got, err := scan(f, strata.ScanOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer got.Release()
		if !array.RecordEqual(got, all) {
			t.Error("the values read back differ from those written")
		}
		return out
	}
	for _, n := range []int64{1000, 333, 7001, 9000} {
		for _, par := range []int{1, 2} {
			got := write(strata.WriteOptions{StripeRows: n, Parallel: par}, 0)
			want := write(strata.WriteOptions{Parallel: par}, n)
			if !bytes.Equal(got, want) {
				t.Errorf("StripeRows %d, Parallel %d: %d bytes, flushing every %d rows %d bytes", n, par, len(got), n, len(want))
			}
			sr := stripes(got)
			for i, r := range sr {
				if i < len(sr)-1 && r != n || i == len(sr)-1 && r != (rows-1)%n+1 {
					t.Errorf("StripeRows %d: stripes of %v rows", n, sr)
					break
				}
			}
		}
	}
	// StripeBytes ends stripes earlier than a bound by rows it reaches first
	sr := stripes(write(strata.WriteOptions{StripeRows: 5000, StripeBytes: 16 << 10}, 0))
	if len(sr) < 3 {
		t.Errorf("StripeBytes 16 KiB under StripeRows 5000: stripes of %v rows", sr)
	}
	for _, r := range sr {
		if r > 5000 {
			t.Errorf("a stripe of %d rows past StripeRows 5000: %v", r, sr)
		}
	}
	var buf bytes.Buffer
	if _, err := strata.NewWriter(&buf, sch, &strata.WriteOptions{StripeRows: -1}); !errors.Is(err, encoding.ErrInvalidArgument) {
		t.Errorf("StripeRows -1: %v, want ErrInvalidArgument", err)
	}
}
