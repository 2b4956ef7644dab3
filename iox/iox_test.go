package iox

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestBytesReadAt(t *testing.T) {
	ctx := context.Background()
	b := Bytes("hello world")
	p := make([]byte, 5)
	if n, err := b.ReadAt(ctx, p, 6); n != 5 || err != nil || string(p) != "world" {
		t.Fatalf("ReadAt = %d %v %q", n, err, p)
	}
	if n, err := b.ReadAt(ctx, p, 8); n != 3 || err != io.EOF {
		t.Fatalf("short ReadAt = %d %v", n, err)
	}
	if _, err := b.ReadAt(ctx, p, -1); !errors.Is(err, ErrOutOfRange) {
		t.Fatalf("negative offset: %v", err)
	}
	if _, err := b.ReadAt(ctx, p, 11); err != io.EOF {
		t.Fatalf("at end: %v", err)
	}
}

func TestReadRange(t *testing.T) {
	b := Bytes("0123456789")
	for _, r := range []Range{{-1, 1}, {0, -1}, {0, 11}, {11, 0}, {5, 6}, {1 << 62, 1 << 62}} {
		if _, err := ReadRange(context.Background(), b, r); !errors.Is(err, ErrOutOfRange) {
			t.Errorf("%v: %v, want ErrOutOfRange", r, err)
		}
	}
	for _, r := range []Range{{0, 0}, {10, 0}, {0, 10}, {3, 4}} {
		p, err := ReadRange(context.Background(), b, r)
		if err != nil || string(p) != string(b[r.Off:r.End()]) {
			t.Errorf("%v: %q %v", r, p, err)
		}
	}
}

// choppy returns at most 3 bytes per ReadAt, and fails past a cut.
type choppy struct {
	b   []byte
	cut int64
}

func (c choppy) ReadAt(_ context.Context, p []byte, off int64) (int, error) {
	if off >= c.cut {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), 3)], c.b[off:min(c.cut, int64(len(c.b)))])
	return n, nil
}
func (c choppy) Size() int64 { return int64(len(c.b)) }

func TestReadFullShortReads(t *testing.T) {
	data := []byte("abcdefghijklmnopqrstuvwxyz")
	p, err := ReadRange(context.Background(), choppy{data, 100}, Range{2, 20})
	if err != nil || string(p) != string(data[2:22]) {
		t.Fatalf("%q %v", p, err)
	}
	// A source shorter than it claims fails cleanly.
	if _, err := ReadRange(context.Background(), choppy{data, 10}, Range{2, 20}); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("truncated source: %v", err)
	}
}

func TestFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x")
	data := bytes.Repeat([]byte("strata"), 1000)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.Size() != int64(len(data)) {
		t.Fatalf("size %d", f.Size())
	}
	p, err := ReadRange(context.Background(), f, Range{5990, 10})
	if err != nil || !bytes.Equal(p, data[5990:]) {
		t.Fatalf("%q %v", p, err)
	}
	if _, err := OpenFile(path + ".missing"); err == nil {
		t.Fatal("missing file opened")
	}
}

func TestPlan(t *testing.T) {
	f := NewFetcher(Bytes(make([]byte, 1<<20)), FetcherOptions{Gap: 10, MaxRead: 100})
	got := f.Plan([]Range{{50, 5}, {0, 10}, {20, 5}, {14, 2}, {200, 0}, {300, 10}, {305, 2}, {400, 90}, {495, 20}})
	want := []Range{{0, 25}, {50, 5}, {300, 10}, {400, 90}, {495, 20}}
	if len(got) != len(want) {
		t.Fatalf("plan %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("plan %v, want %v", got, want)
		}
	}
	// Negative gap merges only touching or overlapping ranges.
	f = NewFetcher(Bytes(make([]byte, 100)), FetcherOptions{Gap: -1})
	got = f.Plan([]Range{{0, 10}, {10, 5}, {16, 1}, {12, 10}})
	if len(got) != 1 || got[0] != (Range{0, 22}) {
		t.Fatalf("touching plan %v", got)
	}
	got = f.Plan([]Range{{0, 10}, {11, 5}})
	if len(got) != 2 {
		t.Fatalf("gap plan %v", got)
	}
	// A single range longer than MaxRead is still one read.
	f = NewFetcher(Bytes(make([]byte, 1000)), FetcherOptions{MaxRead: 10})
	if got = f.Plan([]Range{{0, 500}, {10, 20}}); len(got) != 1 || got[0] != (Range{0, 500}) {
		t.Fatalf("long plan %v", got)
	}
}

func TestFetchRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	data := make([]byte, 1<<18)
	for i := range data {
		data[i] = byte(rng.Uint32())
	}
	for iter := range 200 {
		opts := FetcherOptions{Gap: int64(rng.IntN(5000)) - 100, MaxRead: int64(rng.IntN(1 << 16)), Parallel: rng.IntN(4)}
		var src Source = Bytes(data)
		if iter%2 == 0 {
			src = noSlice{src} // the copying path
		}
		f := NewFetcher(src, opts)
		rs := make([]Range, rng.IntN(40))
		var want int64
		for i := range rs {
			off := rng.Int64N(int64(len(data)))
			l := rng.Int64N(min(int64(len(data))-off, 3000) + 1)
			rs[i] = Range{off, l}
			want += l
		}
		plan := f.Plan(rs)
		var out [][]byte
		var err error
		given := make([][]byte, len(plan))
		if iter%4 == 0 {
			// Buffers from the caller, one per read of the plan, larger
			// than asked and dirty.
			var mu sync.Mutex
			out, err = f.FetchInto(context.Background(), rs, func(k, n int) []byte {
				if n != int(plan[k].Len) {
					t.Errorf("read %d: asked for %d bytes, plan says %d", k, n, plan[k].Len)
				}
				b := bytes.Repeat([]byte{0xee}, n+17)[:n]
				mu.Lock()
				given[k] = b
				mu.Unlock()
				return b
			})
		} else {
			out, err = f.Fetch(context.Background(), rs)
		}
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range rs {
			if !bytes.Equal(out[i], data[r.Off:r.End()]) || out[i] == nil || cap(out[i]) != len(out[i]) {
				t.Fatalf("iter %d range %d %v: wrong bytes", iter, i, r)
			}
			if iter%4 == 0 && r.Len > 0 {
				// The result lies in the buffer of a read that holds it
				// (reads may overlap when a range overlaps a full one).
				found := false
				for k, p := range plan {
					if p.Off <= r.Off && r.End() <= p.End() && &out[i][0] == &given[k][r.Off-p.Off] {
						found = true
					}
				}
				if !found {
					t.Fatalf("iter %d range %d: not in the buffer given for a read holding it", iter, i)
				}
			}
		}
		st := f.Stats()
		var planned int64
		for _, p := range plan {
			planned += p.Len
		}
		if st.Reads != int64(len(plan)) || st.BytesRead != planned || st.Ranges != int64(len(rs)) || st.BytesRequested != want {
			t.Fatalf("iter %d: stats %+v, plan %d reads / %d bytes, want %d bytes", iter, st, len(plan), planned, want)
		}
	}
}

func TestFetchErrors(t *testing.T) {
	f := NewFetcher(Bytes(make([]byte, 100)), FetcherOptions{})
	if _, err := f.Fetch(context.Background(), []Range{{0, 10}, {95, 10}}); !errors.Is(err, ErrOutOfRange) {
		t.Fatalf("out of range: %v", err)
	}
	if st := f.Stats(); st.Reads != 0 {
		t.Fatalf("read before validating: %+v", st)
	}
	// A source that lies about its size fails with ErrUnexpectedEOF.
	for _, par := range []int{1, 4} {
		f = NewFetcher(choppy{make([]byte, 1000), 500}, FetcherOptions{Gap: -1, Parallel: par})
		if _, err := f.Fetch(context.Background(), []Range{{0, 10}, {100, 10}, {600, 10}, {900, 10}}); !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Fatalf("parallel %d: %v", par, err)
		}
	}
	f.ResetStats()
	if f.Stats() != (Stats{}) {
		t.Fatal("ResetStats")
	}
}

// noSlice hides a source's Slicer method.
type noSlice struct{ Source }

func TestFetchConcurrent(t *testing.T) {
	data := make([]byte, 1<<16)
	for i := range data {
		data[i] = byte(i * 7)
	}
	f := NewFetcher(noSlice{Bytes(data)}, FetcherOptions{Gap: 100, Parallel: 3})
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(g), 9))
			for range 100 {
				rs := []Range{{rng.Int64N(60000), 100}, {rng.Int64N(60000), 1000}}
				out, err := f.Fetch(context.Background(), rs)
				if err != nil {
					t.Error(err)
					return
				}
				for i, r := range rs {
					if !bytes.Equal(out[i], data[r.Off:r.End()]) {
						t.Error("wrong bytes")
						return
					}
				}
			}
		})
	}
	wg.Wait()
	if st := f.Stats(); st.Ranges != 8*100*2 {
		t.Fatalf("stats %+v", st)
	}
}

// BenchmarkFetch fetches 1000 ranges of 4 KB, 8 KB apart (coalesced into
// one 8 MB read) through the copying path; BenchmarkMemcpy copies the
// requested bytes for comparison.
func BenchmarkFetch(b *testing.B) {
	data := make([]byte, 8<<20)
	rs := make([]Range, 1000)
	for i := range rs {
		rs[i] = Range{int64(i) * 8000, 4000}
	}
	f := NewFetcher(noSlice{Bytes(data)}, FetcherOptions{})
	b.SetBytes(4000 * 1000)
	for b.Loop() {
		if _, err := f.Fetch(context.Background(), rs); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMemcpy(b *testing.B) {
	src := make([]byte, 4000*1000)
	dst := make([]byte, len(src))
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		copy(dst, src)
	}
}

// hinted is a source stating its preferred read shape.
type hinted struct {
	Source
	h Hints
}

func (s hinted) Hints() Hints { return s.h }

func TestFetcherHints(t *testing.T) {
	data := make([]byte, 1000)
	src := hinted{noSlice{Bytes(data)}, Hints{Gap: 300, MaxRead: 400, InFlight: 3}}
	f := NewFetcher(src, FetcherOptions{})
	if got := f.Hints(); got != (Hints{Gap: 300, MaxRead: 400, InFlight: 3}) {
		t.Fatalf("hints taken: %+v", got)
	}
	if got := f.Plan([]Range{{0, 10}, {250, 10}, {500, 10}}); len(got) != 2 || got[0] != (Range{0, 260}) {
		t.Fatalf("plan with source gap: %v", got)
	}
	// Options given explicitly win over the source's hints.
	f = NewFetcher(src, FetcherOptions{Gap: -1, MaxRead: 50, Parallel: 1})
	if got := f.Hints(); got != (Hints{Gap: -1, MaxRead: 50, InFlight: 1}) {
		t.Fatalf("explicit options: %+v", got)
	}
	// A Fetcher over a Fetcher keeps the inner one's settings.
	if got := NewFetcher(f, FetcherOptions{}).Hints(); got != f.Hints() {
		t.Fatalf("nested: %+v, want %+v", got, f.Hints())
	}
	if got := HintsOf(Bytes(data)); got != (Hints{}) {
		t.Fatalf("Bytes states hints %+v", got)
	}
}

func TestReaderAtAndCancel(t *testing.T) {
	data := []byte("0123456789")
	r := ReaderAt(context.Background(), Bytes(data))
	p := make([]byte, 4)
	if n, err := r.ReadAt(p, 3); n != 4 || err != nil || string(p) != "3456" {
		t.Fatalf("ReaderAt = %d %v %q", n, err, p)
	}
	path := filepath.Join(t.TempDir(), "x")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ReadRange(ctx, f, Range{0, 4}); !errors.Is(err, context.Canceled) {
		t.Fatalf("read under a cancelled context: %v", err)
	}
}

func TestOpenRegistry(t *testing.T) {
	for _, c := range []struct{ in, scheme string }{
		{"s3://b/k", "s3"}, {"HTTPS://x/y", "https"}, {"file:///tmp/x", "file"}, {"/tmp/x", ""},
		{"rel/path", ""}, {"c:/x", ""}, {"a b://x", ""}, {"://x", ""}, {"x+y.z-1://q", "x+y.z-1"}, {"1x://q", ""},
	} {
		if got := Scheme(c.in); got != c.scheme {
			t.Errorf("Scheme(%q) = %q, want %q", c.in, got, c.scheme)
		}
	}
	path := filepath.Join(t.TempDir(), "x")
	if err := os.WriteFile(path, []byte("abcdef"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, loc := range []string{path, "file://" + path} {
		src, err := Open(ctx, loc)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := ReadRange(ctx, src, Range{1, 3}); err != nil || string(got) != "bcd" {
			t.Fatalf("%s: %q %v", loc, got, err)
		}
		id := IdentityOf(src)
		if !strings.Contains(id, path) || !strings.Contains(id, "size=6") {
			t.Fatalf("identity %q", id)
		}
		src.(*File).Close()
	}
	if _, err := Open(ctx, "zz-test://b/k"); err == nil || !strings.Contains(err.Error(), "zz-test://") {
		t.Fatalf("unregistered scheme: %v", err)
	}
	Register("zz-test", func(_ context.Context, loc string) (Source, error) { return Bytes(loc), nil })
	src, err := Open(ctx, "zz-test://b/k")
	if err != nil || src.Size() != int64(len("zz-test://b/k")) {
		t.Fatalf("registered scheme: %v", err)
	}
	if IdentityOf(Bytes("x")) != "" {
		t.Fatal("Bytes has an identity")
	}
	// A rewritten file gets another identity.
	f1, _ := OpenFile(path)
	defer f1.Close()
	time.Sleep(10 * time.Millisecond)
	if err := os.WriteFile(path, []byte("abcdefg"), 0o644); err != nil {
		t.Fatal(err)
	}
	f2, _ := OpenFile(path)
	defer f2.Close()
	if f1.Identity() == f2.Identity() {
		t.Fatalf("same identity after a rewrite: %s", f1.Identity())
	}
}

func TestLocalPath(t *testing.T) {
	for in, want := range map[string]string{"a/b.strata": "a/b.strata", "file:///tmp/x": "/tmp/x", "FILE:///tmp/x": "/tmp/x", "s3://b/k": "s3://b/k"} {
		if got := LocalPath(in); got != want {
			t.Errorf("LocalPath(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestPlanHugeGap: a gap near math.MaxInt64 merges every range within
// MaxRead, as any gap larger than the holes does, where the read's end
// plus the gap overflowed and merged none.
func TestPlanHugeGap(t *testing.T) {
	ranges := []Range{{0, 10}, {20, 10}, {1000, 10}, {5000, 1}}
	want := []Range{{0, 1010}, {5000, 1}} // MaxRead 2000 keeps the last apart
	for _, gap := range []int64{1 << 40, math.MaxInt64 - 1000, math.MaxInt64} {
		f := NewFetcher(Bytes(make([]byte, 1<<14)), FetcherOptions{Gap: gap, MaxRead: 2000})
		got := f.Plan(ranges)
		if !slices.Equal(got, want) {
			t.Errorf("gap %d: plan %v, want %v", gap, got, want)
		}
	}
}

// countingSource records the ranges read from the source it wraps.
type countingSource struct {
	Source
	mu    sync.Mutex
	reads []Range
}

func (c *countingSource) ReadAt(ctx context.Context, p []byte, off int64) (int, error) {
	c.mu.Lock()
	c.reads = append(c.reads, Range{off, int64(len(p))})
	c.mu.Unlock()
	return c.Source.ReadAt(ctx, p, off)
}

// TestFetchKeep checks that reads lying wholly inside the bytes a Fetcher
// keeps (a file's tail) are copied from them and not sent to the source,
// that a read ending inside them sends only its bytes before them, and
// that the bytes are right either way.
func TestFetchKeep(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	data := make([]byte, 1<<18)
	for i := range data {
		data[i] = byte(rng.Uint32())
	}
	const keepOff = 200_000
	for iter := range 200 {
		src := &countingSource{Source: noSlice{Bytes(data)}}
		f := NewFetcher(src, FetcherOptions{Gap: int64(rng.IntN(3000)) - 100, Parallel: rng.IntN(3)})
		f.Keep(keepOff, data[keepOff:])
		rs := make([]Range, 1+rng.IntN(20))
		for i := range rs {
			// half the ranges near or inside the kept bytes
			lo := int64(0)
			if i%2 == 0 {
				lo = keepOff - 4000
			}
			off := lo + rng.Int64N(int64(len(data))-lo)
			rs[i] = Range{off, rng.Int64N(min(int64(len(data))-off, 5000) + 1)}
		}
		out, err := f.Fetch(context.Background(), rs)
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range rs {
			if !bytes.Equal(out[i], data[r.Off:r.End()]) {
				t.Fatalf("iter %d range %d %v: wrong bytes", iter, i, r)
			}
		}
		var sent int
		var sentBytes int64
		for _, p := range f.Plan(rs) {
			if p.Off < keepOff {
				sent++
				sentBytes += min(p.End(), keepOff) - p.Off
			}
		}
		var costReads, costBytes int64
		for _, p := range f.Plan(rs) {
			n, b := f.Cost(p)
			costReads, costBytes = costReads+n, costBytes+b
		}
		if costReads != int64(sent) || costBytes != sentBytes || f.Stats().BytesRead != sentBytes {
			t.Fatalf("iter %d: Cost says %d reads of %d bytes, %d bytes counted; the source got %d reads of %d bytes", iter, costReads, costBytes, f.Stats().BytesRead, sent, sentBytes)
		}
		for _, r := range src.reads {
			if r.End() > keepOff {
				t.Fatalf("iter %d: read %v sent to the source, into the kept bytes from %d", iter, r, keepOff)
			}
		}
		if len(src.reads) != sent || f.Stats().Reads != int64(sent) {
			t.Fatalf("iter %d: %d reads sent (%d counted), want %d: the reads of the plan not wholly kept", iter, len(src.reads), f.Stats().Reads, sent)
		}
	}
	// ReadRange, and Keep of nothing, which keeps nothing.
	src := &countingSource{Source: noSlice{Bytes(data)}}
	f := NewFetcher(src, FetcherOptions{})
	f.Keep(keepOff, data[keepOff:])
	if b, err := f.ReadRange(context.Background(), Range{keepOff + 10, 100}); err != nil || !bytes.Equal(b, data[keepOff+10:keepOff+110]) || len(src.reads) != 0 {
		t.Fatalf("ReadRange inside the kept bytes: %v, %d source reads", err, len(src.reads))
	}
	if b, err := f.ReadRange(context.Background(), Range{keepOff - 1, 100}); err != nil || !bytes.Equal(b, data[keepOff-1:keepOff+99]) ||
		len(src.reads) != 1 || src.reads[0] != (Range{keepOff - 1, 1}) || f.Stats().BytesRead != 1 {
		t.Fatalf("ReadRange across the kept bytes' start: %v, source reads %v, %d bytes counted, want the one byte before them",
			err, src.reads, f.Stats().BytesRead)
	}
	f.Keep(0, nil)
	if _, err := f.ReadRange(context.Background(), Range{keepOff + 10, 100}); err != nil || len(src.reads) != 2 {
		t.Fatalf("after Keep of nothing: %v, %d source reads, want 2", err, len(src.reads))
	}
}
