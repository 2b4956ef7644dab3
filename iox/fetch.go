package iox

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
)

// Fetcher defaults.
const (
	// DefaultGap is the largest hole between two wanted ranges that is read
	// through rather than split into two reads. 64 KiB costs far less than a
	// second request on object storage and little more than a seek on disk.
	DefaultGap = 64 << 10
	// DefaultMaxRead bounds a merged read so coalescing never turns many small
	// ranges spread over a huge file into one enormous buffer.
	DefaultMaxRead = 16 << 20
)

// FetcherOptions tune range coalescing. A field left at zero takes the
// source's Hints when it states them, else the default.
type FetcherOptions struct {
	// Gap is the largest distance between two ranges that are still merged
	// into one read. 0 means the source's hint or DefaultGap; a negative
	// value merges only overlapping or touching ranges.
	Gap int64
	// MaxRead is the largest merged read; a single range longer than it is
	// still read in one piece. 0 means the source's hint or DefaultMaxRead.
	MaxRead int64
	// Parallel is the number of merged reads one Fetch call may have in
	// flight at once; 0 means the source's hint, and 0 or 1 after that
	// reads them one after another.
	Parallel int
}

// Stats count the traffic a Fetcher sent to its source.
type Stats struct {
	Reads          int64 // ReadAt calls issued to the source
	BytesRead      int64 // bytes read from the source, including coalesced gaps
	Ranges         int64 // ranges requested through Fetch and ReadRange
	BytesRequested int64 // total length of the requested ranges
}

// Fetcher reads ranges of a Source, merging nearby ranges into single reads
// and counting the traffic. It is itself a Source (its ReadAt is counted), so
// metadata reads made through it show up in the same statistics.
// A Fetcher is safe for concurrent use by many goroutines.
type Fetcher struct {
	src                                 Source
	gap, maxRead                        int64
	parallel                            int
	reads, bytesRead, ranges, requested atomic.Int64
	// resident holds bytes of the source already in memory (Keep).
	resident atomic.Pointer[resident]
}

// resident is a run of the source's bytes held in memory, from off.
type resident struct {
	off int64
	b   []byte
}

// Keep tells the Fetcher that b holds the source's bytes from offset off,
// as the tail a file's open read does: a read that lies wholly inside
// them is copied from b instead of sent to the source, and counts no read.
// A file smaller than the tail an open reads is then read once in all,
// whatever is queried after (one request on an object store instead of
// one more per query), and a query of the last stripe of a larger one
// finds part of its chunks there. b must not change afterwards; a later
// Keep replaces an earlier one.
func (f *Fetcher) Keep(off int64, b []byte) {
	if off < 0 || len(b) == 0 {
		f.resident.Store(nil)
		return
	}
	f.resident.Store(&resident{off: off, b: b})
}

// residentHead returns how many leading bytes of the n at off the kept
// bytes leave to the source: 0 when they hold all of them, n when they do
// not hold their end (a read ending past them is read whole), else the
// bytes before them; and the kept bytes.
func (f *Fetcher) residentHead(off, n int64) (int64, *resident) {
	r := f.resident.Load()
	if r == nil {
		return n, nil
	}
	end, kend := off+n, r.off+int64(len(r.b))
	if end <= r.off || end > kend {
		return n, nil
	}
	return max(r.off-off, 0), r
}

// fromResident copies the bytes of p (at off) that the kept bytes hold,
// when they hold its end, and returns how many leading bytes of p remain
// to be read from the source (residentHead).
func (f *Fetcher) fromResident(p []byte, off int64) int {
	head, r := f.residentHead(off, int64(len(p)))
	if r != nil {
		copy(p[head:], r.b[off+head-r.off:off+int64(len(p))-r.off])
	}
	return int(head)
}

// Cost returns what reading r through the Fetcher sends to its source:
// one read of its bytes, one of fewer bytes when the bytes kept in memory
// (Keep) hold its end, or nothing when they hold all of it. A query
// counts its requests with it.
func (f *Fetcher) Cost(r Range) (reads, bytes int64) {
	if r.Len <= 0 {
		return 0, 0
	}
	head, _ := f.residentHead(r.Off, r.Len)
	if head == 0 {
		return 0, 0
	}
	return 1, head
}

// NewFetcher returns a Fetcher over src.
func NewFetcher(src Source, opts FetcherOptions) *Fetcher {
	h := HintsOf(src)
	if opts.Gap == 0 {
		opts.Gap = h.Gap
	}
	if opts.MaxRead == 0 {
		opts.MaxRead = h.MaxRead
	}
	if opts.Parallel == 0 {
		opts.Parallel = h.InFlight
	}
	f := &Fetcher{src: src, gap: opts.Gap, maxRead: opts.MaxRead, parallel: opts.Parallel}
	switch {
	case f.gap == 0:
		f.gap = DefaultGap
	case f.gap < 0:
		f.gap = 0
	}
	if f.maxRead <= 0 {
		f.maxRead = DefaultMaxRead
	}
	if f.parallel < 1 {
		f.parallel = 1
	}
	return f
}

// Source returns the underlying source.
func (f *Fetcher) Source() Source { return f.src }

// Size returns the size of the underlying source.
func (f *Fetcher) Size() int64 { return f.src.Size() }

// Hints returns the coalescing the Fetcher applies, so a Fetcher wrapped in
// another keeps its settings.
func (f *Fetcher) Hints() Hints {
	gap := f.gap
	if gap == 0 {
		gap = -1 // merging only touching ranges, as in FetcherOptions
	}
	return Hints{Gap: gap, MaxRead: f.maxRead, InFlight: f.parallel}
}

// ReadAt reads from the underlying source and counts one read. Bytes kept
// in memory (Keep) that end the range are copied from there, and only the
// bytes before them are read (none, and no read counted, when they hold
// the whole range).
func (f *Fetcher) ReadAt(ctx context.Context, p []byte, off int64) (int, error) {
	if len(p) > 0 {
		head := f.fromResident(p, off)
		if head == 0 {
			return len(p), nil
		}
		if head < len(p) {
			n, err := f.ReadAt(ctx, p[:head], off)
			if n < head {
				return n, err
			}
			return len(p), nil
		}
	}
	n, err := f.src.ReadAt(ctx, p, off)
	f.reads.Add(1)
	if n > 0 {
		f.bytesRead.Add(int64(n))
	}
	return n, err
}

// Stats returns the counters accumulated so far.
func (f *Fetcher) Stats() Stats {
	return Stats{Reads: f.reads.Load(), BytesRead: f.bytesRead.Load(),
		Ranges: f.ranges.Load(), BytesRequested: f.requested.Load()}
}

// ResetStats zeroes the counters.
func (f *Fetcher) ResetStats() {
	f.reads.Store(0)
	f.bytesRead.Store(0)
	f.ranges.Store(0)
	f.requested.Store(0)
}

// ReadRange reads one range without coalescing.
func (f *Fetcher) ReadRange(ctx context.Context, r Range) ([]byte, error) {
	f.ranges.Add(1)
	f.requested.Add(max(r.Len, 0))
	return ReadRange(ctx, f, r)
}

// Plan returns the reads Fetch would issue for ranges: sorted by offset,
// merged where the hole between them is at most the gap, each at most
// MaxRead long unless a single range is longer. Empty ranges need no read.
// Plan does not validate the ranges against the source.
func (f *Fetcher) Plan(ranges []Range) []Range {
	reads := make([]Range, 0, len(ranges)) // (at most a read a range)
	f.plan(ranges, func(int, int, int) {}, &reads)
	return reads
}

// plan groups ranges into reads; each range i with Len > 0 is reported as
// part(i, read, offset within read).
func (f *Fetcher) plan(ranges []Range, part func(i, read int, at int), reads *[]Range) {
	order := make([]int, 0, len(ranges))
	for i, r := range ranges {
		if r.Len > 0 {
			order = append(order, i)
		}
	}
	slices.SortFunc(order, func(a, b int) int {
		ra, rb := ranges[a], ranges[b]
		if ra.Off != rb.Off {
			if ra.Off < rb.Off {
				return -1
			}
			return 1
		}
		return 0
	})
	cur := -1
	for _, i := range order {
		r := ranges[i]
		if cur >= 0 {
			c := &(*reads)[cur]
			end := max(c.End(), r.End())
			// the hole (negative where they overlap) against the gap, not
			// the read's end plus the gap, which a gap near math.MaxInt64
			// (WithCoalesceGap's "always merge") overflows into "never"
			if r.Off-c.End() <= f.gap && (end-c.Off <= f.maxRead || r.End() <= c.End()) {
				c.Len = end - c.Off
				part(i, cur, int(r.Off-c.Off))
				continue
			}
		}
		*reads = append(*reads, r)
		cur = len(*reads) - 1
		part(i, cur, 0)
	}
}

// Fetch reads every range and returns their bytes in the order of ranges.
// Ranges may overlap and come in any order; nearby ranges share one read and
// their results are sub-slices of one buffer (capacity-limited, so appending
// to one never overwrites another). An empty range yields an empty slice.
// Treat the results as read-only: for an in-memory source (a Slicer) they
// alias the source's memory instead of being copied, and the statistics
// count the reads a file source would have needed.
// Any range outside the source fails the whole call with ErrOutOfRange
// before anything is read.
func (f *Fetcher) Fetch(ctx context.Context, ranges []Range) ([][]byte, error) {
	return f.FetchInto(ctx, ranges, nil)
}

// FetchInto is Fetch with the buffers of the reads from alloc, which is
// given each read's index in the order of Plan(ranges) and its length, and
// must return a slice of exactly that length (nil alloc: fresh buffers).
// alloc may be called from several goroutines at once. A Slicer source
// calls no alloc: its results alias its memory as with Fetch.
func (f *Fetcher) FetchInto(ctx context.Context, ranges []Range, alloc func(read, n int) []byte) ([][]byte, error) {
	size := f.src.Size()
	var want int64
	for i, r := range ranges {
		if err := r.check(size); err != nil {
			return nil, fmt.Errorf("iox: range %d: %w", i, err)
		}
		want += r.Len
	}
	f.ranges.Add(int64(len(ranges)))
	f.requested.Add(want)

	type slot struct{ read, at int }
	slots := make([]slot, len(ranges))
	reads := make([]Range, 0, len(ranges))
	f.plan(ranges, func(i, read, at int) { slots[i] = slot{read, at} }, &reads)

	bufs := make([][]byte, len(reads))
	if sl, ok := f.src.(Slicer); ok {
		for k, r := range reads {
			bufs[k] = sl.Slice(r)
			n, b := f.Cost(r) // what a file source would have read
			f.reads.Add(n)
			f.bytesRead.Add(b)
		}
	} else if err := f.readAll(ctx, reads, bufs, alloc); err != nil {
		return nil, err
	}
	out := make([][]byte, len(ranges))
	for i, r := range ranges {
		if r.Len == 0 {
			out[i] = []byte{}
			continue
		}
		s := slots[i]
		end := s.at + int(r.Len)
		out[i] = bufs[s.read][s.at:end:end]
	}
	return out, nil
}

// readAll performs the merged reads, in parallel when configured.
func (f *Fetcher) readAll(ctx context.Context, reads []Range, bufs [][]byte, alloc func(read, n int) []byte) error {
	one := func(k int) error {
		var b []byte
		if alloc != nil {
			b = alloc(k, int(reads[k].Len))
		} else {
			b = make([]byte, reads[k].Len)
		}
		if err := ReadFull(ctx, f, b, reads[k].Off); err != nil {
			return err
		}
		bufs[k] = b
		return nil
	}
	if f.parallel <= 1 || len(reads) <= 1 {
		for k := range reads {
			if err := one(k); err != nil {
				return err
			}
		}
		return nil
	}
	// The first failure cancels the reads still in flight: their bytes
	// would be thrown away, and on a network source they may take long.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg       sync.WaitGroup
		next     atomic.Int64
		errOnce  sync.Once
		firstErr error
		failed   atomic.Bool
	)
	workers := min(f.parallel, len(reads))
	for range workers {
		wg.Go(func() {
			for !failed.Load() {
				k := int(next.Add(1) - 1)
				if k >= len(reads) {
					return
				}
				if err := one(k); err != nil {
					errOnce.Do(func() { firstErr = err; cancel() })
					failed.Store(true)
					return
				}
			}
		})
	}
	wg.Wait()
	return firstErr
}
