package write_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
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

// edgeRows writes n rows of ("a" int64 i, "s" string "v<i>") with opts,
// calling Cut after the rows in cuts, and checks that the file reads back
// every value, one by one, against what was written.
func edgeRows(t *testing.T, opts write.Options, n int, cuts ...int) {
	t.Helper()
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "a", Type: arrow.PrimitiveTypes.Int64},
		{Name: "s", Type: arrow.BinaryTypes.String},
	}, nil)
	wantA := make([]int64, n)
	wantS := make([]string, n)
	for i := range n {
		wantA[i], wantS[i] = int64(i), fmt.Sprintf("v%d", i)
	}
	var buf bytes.Buffer
	w, err := write.New(format.NewWriter(&buf, format.WriterOptions{}), sch, opts)
	if err != nil {
		t.Fatal(err)
	}
	at := 0
	for _, end := range append(cuts, n) {
		b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
		b.Field(0).(*array.Int64Builder).AppendValues(wantA[at:end], nil)
		b.Field(1).(*array.StringBuilder).AppendValues(wantS[at:end], nil)
		rec := b.NewRecord()
		b.Release()
		err := w.Write(rec)
		rec.Release()
		if err != nil {
			t.Fatalf("Write: %v", err)
		}
		w.Cut()
		at = end
	}
	if err := w.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	f, err := read.Open(context.Background(), iox.Bytes(buf.Bytes()), read.Options{NoMetaCache: true})
	if err != nil {
		t.Fatal(err)
	}
	sc, err := f.Scan(read.ScanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	i := 0
	for {
		rec, err := sc.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		as, ss := rec.Column(0).(*array.Int64), rec.Column(1).(*array.String)
		for j := 0; j < int(rec.NumRows()); j++ {
			if i >= n || as.Value(j) != wantA[i] || ss.Value(j) != wantS[i] {
				t.Fatalf("row %d: (%d, %q), want (%d, %q)", i, as.Value(j), ss.Value(j), wantA[min(i, n-1)], wantS[min(i, n-1)])
			}
			i++
		}
		rec.Release()
	}
	if i != n {
		t.Fatalf("read %d rows, want %d", i, n)
	}
}

// TestChunkValuesMaxInt: a ChunkValues of math.MaxInt ("no count limit")
// with chunks cut by count (a negative ChunkTarget) writes a readable
// file when a chunk ends early, at ChunkBytes or at a Cut, where the end
// of the next chunk (its start plus ChunkValues) used to overflow into a
// negative index and fail Close with an encoder panic.
func TestChunkValuesMaxInt(t *testing.T) {
	for _, c := range []struct {
		name string
		opts write.Options
		cuts []int
	}{
		{"ChunkBytes", write.Options{ChunkValues: math.MaxInt, ChunkTarget: -1, ChunkBytes: 1000}, nil},
		{"Cut", write.Options{ChunkValues: math.MaxInt, ChunkTarget: -1}, []int{30, 31, 1000}},
		{"byte target", write.Options{ChunkValues: math.MaxInt, ChunkBytes: 1000}, []int{30}},
		{"MaxInt-1", write.Options{ChunkValues: math.MaxInt - 1, ChunkTarget: -1, ChunkBytes: 1000}, []int{7}},
	} {
		t.Run(c.name, func(t *testing.T) { edgeRows(t, c.opts, 5000, c.cuts...) })
	}
}

// TestNaNOptions: a NaN in a float option is an invalid argument naming
// the option, where it used to act as another value without a word (a
// NaN BloomFPP sized every filter for a rate of 1e-6); infinities and
// values out of range keep their documented meaning and write a file that
// reads back.
func TestNaNOptions(t *testing.T) {
	sch := arrow.NewSchema([]arrow.Field{{Name: "a", Type: arrow.PrimitiveTypes.Int64}}, nil)
	nan := math.NaN()
	for name, o := range map[string]write.Options{
		"BloomFPP":             {Bloom: []string{"a"}, BloomFPP: nan},
		"MinSaving":            {MinSaving: nan},
		"CorrelationRefWeight": {CorrelationRefWeight: nan},
		"ForceYield":           {ForceYield: nan},
	} {
		_, err := write.New(format.NewWriter(io.Discard, format.WriterOptions{}), sch, o)
		if !errors.Is(err, encoding.ErrInvalidArgument) || !strings.Contains(err.Error(), name+" is NaN") {
			t.Errorf("%s NaN: %v, want an invalid argument naming it", name, err)
		}
	}
	inf := math.Inf(1)
	for _, o := range []write.Options{
		{Bloom: []string{"s"}, BloomFPP: inf}, {Bloom: []string{"s"}, BloomFPP: -inf}, {Bloom: []string{"s"}, BloomFPP: 1e-300},
		{MinSaving: inf}, {MinSaving: 2}, {CorrelationRefWeight: inf}, {CorrelationRefWeight: -inf}, {ForceYield: inf},
	} {
		edgeRows(t, o, 3000)
	}
}

// TestRowsHintHugeStripe: a RowsHint far above the rows written, with a
// StripeBytes of math.MaxInt ("one stripe") or of 512 MiB, reserves at
// most a default stripe's buffers at the first record, where it reserved
// the hinted rows' (a record of 1,001 rows and a hint of math.MaxInt64
// asked for an impossible slice; a hint of 2^40 with 512 MiB stripes
// reserved 512 MiB for 1,000 rows); the rows read back as written.
func TestRowsHintHugeStripe(t *testing.T) {
	for _, c := range []struct {
		stripe int
		hint   int64
		rows   int
	}{
		{math.MaxInt, math.MaxInt64, 1001},
		{math.MaxInt, 1 << 40, 1001},
		{512 << 20, 1 << 40, 1000},
	} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		edgeRows(t, write.Options{StripeBytes: c.stripe, RowsHint: c.hint}, c.rows)
		runtime.ReadMemStats(&after)
		if got := after.TotalAlloc - before.TotalAlloc; got > 2*write.DefaultStripeBytes {
			t.Errorf("StripeBytes %d, RowsHint %d: writing %d rows allocated %d MiB", c.stripe, c.hint, c.rows, got>>20)
		}
	}
}
