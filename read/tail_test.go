package read_test

import (
	"context"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"

	"strata/format"
	"strata/iox"
	"strata/read"
	"strata/write"
)

// rangeLog is a source that records the ranges read from it; it is no
// Slicer, so reads are copied as from a file.
type rangeLog struct {
	src   iox.Source
	mu    sync.Mutex
	reads []iox.Range
}

func (r *rangeLog) Size() int64 { return r.src.Size() }

func (r *rangeLog) ReadAt(ctx context.Context, p []byte, off int64) (int, error) {
	r.mu.Lock()
	r.reads = append(r.reads, iox.Range{Off: off, Len: int64(len(p))})
	r.mu.Unlock()
	return r.src.ReadAt(ctx, p, off)
}

func (r *rangeLog) log() []iox.Range {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]iox.Range(nil), r.reads...)
}

// TestTailServesReads checks that the reads after opening take what the
// tail opening read holds from it: a file smaller than the tail is read
// once, whatever is queried after, and in a larger one no read after
// opening reaches into the tail. Values are checked against the rows
// written.
func TestTailServesReads(t *testing.T) {
	for _, tc := range []struct {
		name  string
		rows  int
		small bool
	}{{"small", 3000, true}, {"large", 60000, false}} {
		t.Run(tc.name, func(t *testing.T) {
			data, recs := writeFile(t, 21, tc.rows, write.Options{StripeBytes: 256 << 10})
			if small := len(data) <= format.DefaultTailSize; small != tc.small {
				t.Fatalf("%d bytes: want a file %s than the %d-byte tail", len(data), map[bool]string{true: "smaller", false: "larger"}[tc.small], format.DefaultTailSize)
			}
			all := concat(t, recs)
			defer all.Release()
			src := &rangeLog{src: iox.Bytes(data)}
			f, err := read.Open(context.Background(), src, read.Options{NoMetaCache: true, Parallelism: 1})
			if err != nil {
				t.Fatal(err)
			}
			opened := len(src.log())
			tailOff := int64(len(data)) - min(int64(len(data)), format.DefaultTailSize)
			got, st := scanAll(t, f, read.ScanOptions{})
			defer got.Release()
			// The scan's own figures count what its chunk reads sent to
			// the source (stripe groups loaded on the way are not theirs).
			scanned := int64(len(src.log()[opened:]))
			if tc.small && (st.Requests != 0 || st.BytesRead != 0 || scanned != 0) || !tc.small && (st.Requests == 0 || st.Requests > scanned) {
				t.Fatalf("scan counted %d requests (%d bytes), the source saw %d", st.Requests, st.BytesRead, scanned)
			}
			if !array.RecordApproxEqual(got, all, array.WithNaNsEqual(true)) {
				t.Fatal("scan differs from the rows written")
			}
			rows := []int64{0, int64(tc.rows) / 2, int64(tc.rows) - 1}
			tk, err := f.Take(rows, nil)
			if err != nil {
				t.Fatal(err)
			}
			for c := 0; c < int(all.NumCols()); c++ {
				for i, r := range rows {
					if w, g := all.Column(c).ValueStr(int(r)), tk.Column(c).ValueStr(i); w != g {
						t.Fatalf("take row %d column %s: %s, want %s", r, all.ColumnName(c), g, w)
					}
				}
			}
			tk.Release()
			after := src.log()[opened:]
			if tc.small && len(after) != 0 {
				t.Fatalf("a %d-byte file: %d reads after opening (%v), want none", len(data), len(after), after)
			}
			if !tc.small && len(after) == 0 {
				t.Fatal("a file larger than the tail: no read after opening")
			}
			for _, r := range after {
				if r.End() > tailOff {
					t.Fatalf("read %v after opening reaches into the tail opening read from %d", r, tailOff)
				}
			}
		})
	}
}
