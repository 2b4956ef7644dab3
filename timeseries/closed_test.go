package timeseries

import (
	"errors"
	"io"
	"math"
	"strconv"
	"testing"
	"time"

	"strata/encoding"
	"strata/iox"
	"strata/read"
)

// TestFileAfterClose: every query of a File after its Close fails with
// ErrClosed, though the index pages and decoders it used before are still
// in its caches (each query ran once before the Close).
func TestFileAfterClose(t *testing.T) {
	recs, _ := tsbsData(t, 4, time.Hour, false)
	data := writeFile(t, recs, tsbsModel, &WriterOptions{Sorted: true})
	f, err := OpenSource(ctx, iox.Bytes(data), nil)
	if err != nil {
		t.Fatal(err)
	}
	lo, hi := f.TimeRange()
	calls := map[string]func() error{
		"Query": func() error {
			rows, err := f.Query(ctx, QueryOptions{Limit: 3})
			if err != nil {
				return err
			}
			for {
				rec, err := rows.Next()
				if err != nil {
					break
				}
				rec.Release()
			}
			return nil
		},
		"Aggregate": func() error {
			rec, _, err := f.Aggregate(ctx, AggOptions{Every: hi - lo + 1, Funcs: []string{"first", "max"}})
			if err == nil {
				rec.Release()
			}
			return err
		},
		"Last": func() error {
			rec, _, err := f.Last(ctx, nil, nil)
			if err == nil {
				rec.Release()
			}
			return err
		},
		"Lookup": func() error { _, _, err := f.Lookup(ctx, "host_1"); return err },
		"Select": func() error { _, err := f.Select(ctx, Selector{"hostname": "host_2"}); return err },
		"DrawWindows": func() error {
			_, err := f.DrawWindows(ctx, SampleOptions{Windows: 2, Length: 5, Seed: 1})
			return err
		},
		"Sample": func() error {
			recs, _, err := f.Sample(ctx, SampleOptions{Windows: 2, Length: 5, Seed: 1})
			for _, r := range recs {
				r.Release()
			}
			return err
		},
		"ReadWindows": func() error {
			recs, _, err := f.ReadWindows(ctx, []Window{{Series: 0, Start: 2}}, SampleOptions{Length: 4})
			for _, r := range recs {
				r.Release()
			}
			return err
		},
		"QueryPaths": func() error {
			rec, _, err := f.QueryPaths(ctx, []string{"host_1.usage_user"}, nil)
			if err == nil {
				rec.Release()
			}
			return err
		},
	}
	for name, call := range calls {
		if err := call(); err != nil && name != "QueryPaths" && name != "Lookup" {
			t.Fatalf("%s before Close: %v", name, err)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	for name, call := range calls {
		if err := call(); !errors.Is(err, ErrClosed) || !errors.Is(err, read.ErrInvalidArgument) {
			t.Errorf("%s after Close: %v, want ErrClosed", name, err)
		}
	}
}

// TestSampleHugeWindowCount: a count of windows whose draw alone would
// pass the decode limits' allocation bound is refused with ErrLimit before
// anything is allocated, instead of exhausting memory or panicking.
func TestSampleHugeWindowCount(t *testing.T) {
	recs, _ := tsbsData(t, 2, time.Hour, false)
	data := writeFile(t, recs, tsbsModel, &WriterOptions{Sorted: true})
	f, err := OpenSource(ctx, iox.Bytes(data), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, n := range []int{math.MaxInt / 2, math.MaxInt} { // (past the limits with a 32-bit int too)
		if _, err := f.DrawWindows(ctx, SampleOptions{Windows: n, Length: 4}); !errors.Is(err, encoding.ErrLimit) {
			t.Errorf("DrawWindows of %d windows: %v, want ErrLimit", n, err)
		}
		if _, _, err := f.Sample(ctx, SampleOptions{Windows: n, Length: 4}); !errors.Is(err, encoding.ErrLimit) {
			t.Errorf("Sample of %d windows: %v, want ErrLimit", n, err)
		}
	}
	ws, err := f.DrawWindows(ctx, SampleOptions{Windows: 1000, Length: 4, Seed: 3})
	if err != nil || len(ws) != 1000 {
		t.Fatalf("1,000 windows: %d, %v", len(ws), err)
	}
}

// TestSampleValuesPastLimit: a sample whose windows × length values
// would not fit the decode limits is refused with ErrLimit before its
// buffers are allocated (10⁷ windows of 360 rows passed the count check
// and died allocating 28 GB), while a smaller one is still read.
func TestSampleValuesPastLimit(t *testing.T) {
	recs, _ := tsbsData(t, 2, time.Hour, false)
	data := writeFile(t, recs, tsbsModel, &WriterOptions{Sorted: true})
	dec := readDecodeOptions()
	dec.MaxBytes = 1 << 20 // 128 Ki values of a float64 column
	f, err := OpenSource(ctx, iox.Bytes(data), &Options{Read: read.Options{Decode: dec}})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	big := SampleOptions{Windows: 1000, Length: 200, Columns: []string{"usage_user"}}
	if _, _, err := f.Sample(ctx, big); !errors.Is(err, encoding.ErrLimit) {
		t.Errorf("Sample of 1,000 windows of 200 rows: %v, want ErrLimit", err)
	}
	ws := make([]Window, 1000)
	if _, _, err := f.ReadWindows(ctx, ws, big); !errors.Is(err, encoding.ErrLimit) {
		t.Errorf("ReadWindows of 1,000 windows of 200 rows: %v, want ErrLimit", err)
	}
	if err := f.checkWindowValues(math.MaxInt/2, 3, &projection{}); !errors.Is(err, encoding.ErrLimit) {
		t.Errorf("windows × length overflowing int: %v, want ErrLimit", err)
	}
	recs2, _, err := f.Sample(ctx, SampleOptions{Windows: 10, Length: 200, Columns: []string{"usage_user"}})
	if err != nil || len(recs2) != 10 {
		t.Fatalf("10 windows of 200 rows: %d records, %v", len(recs2), err)
	}
	for _, r := range recs2 {
		r.Release()
	}
}

// TestWriterSizesPastModel: chunk rows, block size and page bytes past
// what the model section's reader takes (math.MaxInt32) are refused when
// the writer starts, instead of writing a file that every open rejects as
// corrupt (or, for ChunkRows near math.MaxInt, panicking at Close); the
// largest accepted values write a file that opens.
func TestWriterSizesPastModel(t *testing.T) {
	if strconv.IntSize < 64 {
		t.Skip("an int cannot pass math.MaxInt32")
	}
	one := 1 // (not a constant: the 32-bit build compiles this test too)
	over := math.MaxInt32 + one
	recs, _ := tsbsData(t, 2, time.Hour, false)
	for _, o := range []WriterOptions{
		{ChunkRows: over}, {ChunkRows: math.MaxInt}, {BlockSize: over},
		{PageBytes: over}, {PageBytes: math.MaxInt},
	} {
		for _, sorted := range []bool{false, true} {
			o.Sorted = sorted
			_, err := NewWriter(io.Discard, recs[0].Schema(), tsbsModel, &o)
			if !errors.Is(err, read.ErrInvalidArgument) {
				t.Errorf("%+v: %v, want ErrInvalidArgument", o, err)
			}
		}
	}
	data := writeFile(t, recs, tsbsModel, &WriterOptions{ChunkRows: math.MaxInt32, BlockSize: math.MaxInt32, PageBytes: math.MaxInt32})
	f, err := OpenSource(ctx, iox.Bytes(data), nil)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
}
