package read

import (
	"math/bits"
	"sync"
	"sync/atomic"
	"unsafe"
)

// Recycled chunk memory.
//
// A point lookup reads whole chunks and opens them, and the decoder cache
// keeps what it opened. Memory the process has not touched lately costs
// about three times as much to read into as memory it reuses (page faults
// of scavenged heap; docs/benchmarks.md, "lookups that read part of a
// chunk"); in a process that mostly looks rows up, a lookup into chunks
// nobody opened before spent about a fifth of its CPU time on fresh pages
// (in one whose heap other work has grown, freed memory is at hand and
// the cost does not arise). Lookups therefore read chunks, and inflate
// their zstd bodies, into leases: buffers that go back to a pool once
// nothing holds them — neither the query that read them nor any cached
// decoder that aliases them. A decoder evicted from the cache, or dropped
// by DropCaches, so hands its memory to the next lookup.
//
// Only a point lookup's gathers use leased memory, because they copy every
// value they return; the decoders opened over it are cached as leased and
// are seen only by point lookups, so no scan can return Arrow buffers that
// alias memory a later lookup reuses.

// lease is a pooled buffer with a count of its holders.
type lease struct {
	buf   []byte    // the whole buffer of its size class
	class int       // its size class; -1: not pooled
	pool  *freeList // where it goes when released (nil: nowhere)
	refs  atomic.Int32
}

// Size classes: four per power of two from 4 KiB (waste at most a
// quarter) to 32 MiB; larger buffers are not pooled.
const (
	leaseMinShift = 12
	leaseMaxShift = 24
	leaseClasses  = (leaseMaxShift-leaseMinShift+1)*4 + 1
)

// DefaultRecycledBytes bounds the released chunk memory the process-wide
// decoder cache keeps for later lookups (SetRecycledBytes changes it): half
// its budget, so that what lookups hold — cached decoders and free
// buffers — stays within one and a half times that budget. A decoder
// cache of a file's own (Options.DecoderCacheBytes, and strata's
// MaxMemory) keeps half of its own budget. A free list fills only when
// decoders leave the cache faster than lookups read (DropCaches); under a
// steady stream of lookups into a full cache each eviction's memory is
// taken again at once.
const DefaultRecycledBytes = DefaultDecoderCacheBytes / 2

// freeList keeps released buffers by size class (leaseClass), up to a byte
// budget. It is a free list rather than a sync.Pool because a sync.Pool is
// emptied by every second garbage collection: reads that come between other
// work would find it empty and read into fresh memory again. Chunk leases
// (a decoder cache's list) and large output buffers (recycledOutput) use it.
type freeList struct {
	mu     sync.Mutex
	free   [leaseClasses][][]byte
	bytes  int64
	budget int64
}

// SetRecycledBytes sets how many bytes of released chunk memory the
// process-wide decoder cache keeps for later point lookups (0: none;
// buffers beyond the budget are left to the garbage collector) and drops
// what exceeds it.
func SetRecycledBytes(n int64) { sharedDecoders.free.setBudget(n) }

func (fl *freeList) setBudget(n int64) {
	fl.mu.Lock()
	defer fl.mu.Unlock()
	fl.budget = max(n, 0)
	for c := range fl.free {
		for fl.bytes > fl.budget && len(fl.free[c]) > 0 {
			k := len(fl.free[c]) - 1
			fl.bytes -= int64(len(fl.free[c][k]))
			fl.free[c][k] = nil
			fl.free[c] = fl.free[c][:k]
		}
	}
}

// take returns a released buffer of class c (its whole class size), or nil.
func (fl *freeList) take(c int) []byte {
	fl.mu.Lock()
	defer fl.mu.Unlock()
	k := len(fl.free[c]) - 1
	if k < 0 {
		return nil
	}
	b := fl.free[c][k]
	fl.free[c][k] = nil
	fl.free[c] = fl.free[c][:k]
	fl.bytes -= int64(len(b))
	return b
}

// put keeps a released buffer of class c (its whole class size) if the
// budget has room.
func (fl *freeList) put(c int, b []byte) {
	fl.mu.Lock()
	defer fl.mu.Unlock()
	if fl.bytes+int64(len(b)) > fl.budget {
		return
	}
	fl.free[c] = append(fl.free[c], b)
	fl.bytes += int64(len(b))
}

// liveLeases counts leases not yet released; scribble, set by tests,
// overwrites a buffer when it is released, so that a reader still using
// it sees garbage rather than the old bytes.
var (
	liveLeases atomic.Int64
	scribble   bool
)

// leaseClass returns the size class of an n-byte buffer and its size, or
// -1 for a size too large to pool.
func leaseClass(n int) (int, int) {
	if n <= 1<<leaseMinShift {
		return 0, 1 << leaseMinShift
	}
	e := bits.Len(uint(n-1)) - 1 // 2^e < n <= 2^(e+1)
	if e > leaseMaxShift {
		return -1, n
	}
	step := 1 << (e - 2)
	j := (n - 1 - 1<<e) / step
	return (e-leaseMinShift)*4 + j + 1, 1<<e + (j+1)*step
}

// leaseClassSize is the size of the buffers of lease class c.
func leaseClassSize(c int) int {
	if c == 0 {
		return 1 << leaseMinShift
	}
	e := (c-1)/4 + leaseMinShift
	return 1<<e + ((c-1)%4+1)<<(e-2)
}

// newLease returns a buffer of at least n bytes held once (its contents
// are not zeroed), from pool's free buffers when it has one, and to be
// released to pool (nil: none).
func newLease(n int, pool *freeList) *lease {
	c, size := leaseClass(n)
	var buf []byte
	if c >= 0 && pool != nil {
		buf = pool.take(c)
	}
	if buf == nil {
		buf = make([]byte, size)
	}
	l := &lease{buf: buf, class: c, pool: pool}
	liveLeases.Add(1)
	l.refs.Store(1)
	return l
}

func (l *lease) retain() { l.refs.Add(1) }

// release drops one hold; the last returns the buffer to its pool.
func (l *lease) release() {
	switch n := l.refs.Add(-1); {
	case n == 0:
		liveLeases.Add(-1)
		if scribble {
			for i := range l.buf {
				l.buf[i] = 0xa5
			}
		}
		if l.class >= 0 && l.pool != nil {
			l.pool.put(l.class, l.buf)
		}
	case n < 0:
		// Releasing a lease twice would hand one buffer to two holders.
		panic("read: chunk buffer released more often than held")
	}
}

// holds reports whether b lies in the lease's buffer.
func (l *lease) holds(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	base := uintptr(unsafe.Pointer(unsafe.SliceData(l.buf)))
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	return p >= base && p-base < uintptr(len(l.buf))
}

// newLease returns a lease of n bytes that the stripeIO holds until close,
// recycled through the file's decoder cache.
func (s *stripeIO) newLease(n int) *lease {
	l := newLease(n, s.f.cache.freeList())
	s.leaseMu.Lock()
	s.leases = appendHinted(s.leases, l, 2*s.hint)
	s.leaseMu.Unlock()
	return l
}

// hold records a leased cache entry the query holds until close.
func (s *stripeIO) hold(e *cacheEntry) {
	if !e.leased() {
		return
	}
	s.leaseMu.Lock()
	s.held = appendHinted(s.held, e, s.hint)
	s.leaseMu.Unlock()
}

// close drops what the query holds of recycled memory: its leases and the
// leased cache entries it used. Nothing read through the stripeIO may be
// used after it.
func (s *stripeIO) close() {
	s.leaseMu.Lock()
	held, leases := s.held, s.leases
	s.held, s.leases = nil, nil
	s.leaseMu.Unlock()
	for _, e := range held {
		e.release()
	}
	for _, l := range leases {
		l.release()
	}
}
