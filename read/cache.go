package read

import (
	"sync"
	"sync/atomic"

	"strata/encoding"
)

// chunkKey names one chunk of a file: the file by its metadata, which
// Files opened on the same bytes share.
type chunkKey struct {
	m                     *fileMeta
	stripe, stream, chunk int
}

// DefaultDecoderCacheBytes is the budget of the process-wide decoder cache.
const DefaultDecoderCacheBytes = 256 << 20

// sharedDecoders is the decoder cache of every File opened without a
// budget of its own, so one budget bounds the process.
var sharedDecoders = newDecoderCache(DefaultDecoderCacheBytes)

// decoderCache keeps opened chunk decoders — with their zstd bodies
// inflated and dictionary alphabets decoded — so repeated point lookups
// and selective queries into the same chunks cost a gather, not a
// decompression. It is bounded by an estimate of the decoded bytes.
//
// It is segmented so that random lookups cannot flush what repeated
// queries use. A decoder that a point lookup opened enters a probationary
// segment; one that a scan, filter or aggregate opened, and any decoder
// found in the cache again, lives in the protected segment. When the
// budget is exceeded the probationary segment gives up its least recently
// used decoders first as long as it holds more than a quarter of the
// budget, then the protected one. A workload of lookups alone can thus
// fill the whole budget (and a lookup repeated into a chunk promotes it),
// while on a file whose lookups touch more chunks than the budget holds
// — lineitem at SF 1: 200 random rows open about 2,000 chunks of 64 Ki
// values — a stream of one-time lookups churns a quarter of the budget
// and leaves the chunks of the filters and payload columns that selective
// queries reread in place.
type decoderCache struct {
	mu    sync.Mutex
	limit int64
	// prob and prot are the segments' LRU lists (front = most recent) and
	// their costs.
	prob, prot         entryList
	probUsed, protUsed int64
	byKey              map[chunkKey]*cacheEntry
	// free keeps the chunk memory of lookups' decoders once released, for
	// the next lookups (lease.go), up to half the budget.
	free freeList
}

// freeList returns the cache's free list of chunk memory (nil for no
// cache: lookups then read into fresh memory).
func (c *decoderCache) freeList() *freeList {
	if c == nil || c.limit <= 0 {
		return nil
	}
	return &c.free
}

type cacheEntry struct {
	key  chunkKey
	cost int64
	prot bool // in the protected segment
	// prev and next link the entry into its segment's list (the entries
	// carry their links: a cold lookup caches a dozen decoders a row, and
	// a list element apiece was one more allocation each).
	prev, next *cacheEntry
	mu         sync.Mutex // held while a reader uses dec: decoders are not concurrent
	dec        encoding.Decoder
	// leases are the recycled buffers dec aliases (lease.go), each held
	// once by the entry; holders counts who holds the entry (the cache
	// while it is listed, and each query using it), and the last to let
	// go releases the leases. A leased entry is seen only by point
	// lookups (get).
	leases  []*lease
	holders atomic.Int32
}

func (e *cacheEntry) leased() bool { return len(e.leases) > 0 }

// release drops one hold of a leased entry.
func (e *cacheEntry) release() {
	if !e.leased() {
		return
	}
	switch n := e.holders.Add(-1); {
	case n == 0:
		for _, l := range e.leases {
			l.release()
		}
	case n < 0:
		panic("read: cached decoder released more often than held")
	}
}

func newDecoderCache(limit int64) *decoderCache {
	c := &decoderCache{limit: limit, byKey: map[chunkKey]*cacheEntry{}}
	c.free.budget = limit / 2
	return c
}

// get returns the cached decoder of k, promoting it to the protected
// segment: it has been used again. A decoder in recycled memory is
// returned only to a query that recycles (and only gathers), held for it
// until it releases it.
func (c *decoderCache) get(k chunkKey, recycle bool) *cacheEntry {
	if c == nil || c.limit <= 0 {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.byKey[k]
	if !ok {
		return nil
	}
	if e.leased() {
		if !recycle {
			return nil
		}
		e.holders.Add(1)
	}
	if e.prot {
		c.prot.moveToFront(e)
		return e
	}
	c.prob.remove(e)
	c.probUsed -= e.cost
	e.prot = true
	c.prot.pushFront(e)
	c.protUsed += e.cost
	c.evict()
	return e
}

// put caches an opened decoder of k and returns its entry (the one already
// cached, if another query put it first). lookup says a point lookup
// opened it: it enters the probationary segment. leases are the recycled
// buffers dec aliases; the entry is returned held for the caller, who
// releases it, and recycle says the caller may use a leased entry
// already cached (one that does not replaces it).
func (c *decoderCache) put(k chunkKey, dec encoding.Decoder, cost int64, lookup bool, leases []*lease, recycle bool) *cacheEntry {
	e := &cacheEntry{key: k, cost: cost, dec: dec, prot: !lookup, leases: leases}
	for _, l := range leases {
		l.retain()
	}
	e.holders.Store(1)
	if c == nil || c.limit <= 0 || cost > c.limit/4 {
		return e
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.byKey[k]; ok {
		if !old.leased() || recycle {
			if old.prot {
				c.prot.moveToFront(old)
			} else {
				c.prob.moveToFront(old)
			}
			if old.leased() {
				old.holders.Add(1)
			}
			e.release()
			return old
		}
		c.remove(old)
	}
	if e.leased() {
		e.holders.Add(1) // the cache's hold
	}
	c.byKey[k] = e
	if e.prot {
		c.prot.pushFront(e)
		c.protUsed += cost
	} else {
		c.prob.pushFront(e)
		c.probUsed += cost
	}
	c.evict()
	return e
}

// evict drops least recently used decoders until the budget holds: the
// probationary segment's while it holds more than a quarter of the budget
// (or the protected segment is empty), else the protected segment's.
// The caller holds c.mu.
func (c *decoderCache) evict() {
	for c.probUsed+c.protUsed > c.limit {
		l := &c.prot
		if c.probUsed > c.limit/4 || c.prot.Len() == 0 {
			l = &c.prob
		}
		c.remove(l.tail)
	}
}

// remove unlists an entry and drops the cache's hold of it. The caller
// holds c.mu.
func (c *decoderCache) remove(e *cacheEntry) {
	delete(c.byKey, e.key)
	if e.prot {
		c.prot.remove(e)
		c.protUsed -= e.cost
	} else {
		c.prob.remove(e)
		c.probUsed -= e.cost
	}
	e.release()
}

// entryList is a doubly linked list of cache entries through their own
// links (head = most recent).
type entryList struct {
	head, tail *cacheEntry
	n          int
}

// Len returns the number of entries listed.
func (l *entryList) Len() int { return l.n }

func (l *entryList) pushFront(e *cacheEntry) {
	e.prev, e.next = nil, l.head
	if l.head != nil {
		l.head.prev = e
	} else {
		l.tail = e
	}
	l.head = e
	l.n++
}

func (l *entryList) remove(e *cacheEntry) {
	if e.prev != nil {
		e.prev.next = e.next
	} else {
		l.head = e.next
	}
	if e.next != nil {
		e.next.prev = e.prev
	} else {
		l.tail = e.prev
	}
	e.prev, e.next = nil, nil
	l.n--
}

func (l *entryList) moveToFront(e *cacheEntry) {
	if l.head == e {
		return
	}
	l.remove(e)
	l.pushFront(e)
}

// dropFile removes every decoder of one file.
func (c *decoderCache) dropFile(m *fileMeta) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, l := range []*entryList{&c.prob, &c.prot} {
		for e := l.head; e != nil; {
			next := e.next
			if e.key.m == m {
				c.remove(e)
			}
			e = next
		}
	}
}

// decodedCost is the memory an opened decoder holds: the chunk's fetched
// bytes (which decoders of plain or bit-packed nodes read in place), its
// payload when the container decompressed it into a buffer of its own,
// what opening allocated from the sizes its nodes declare (inflated zstd
// bodies, value offsets, decoded alphabets, reference chunks), and a fixed
// allowance for the decoder objects and the scratch buffers their reads
// allocate (decoderAllowance). (An earlier estimate charged every
// decoder its payload plus 4x for zstd or binary plus 4-8 bytes per row:
// on lineitem SF 1 it counted 118 MB for the 643 decoders of q_month, whose
// heap was 36 MB, so the 256 MiB budget held a quarter of what it allowed.)
// decoderAllowance is the per-decoder part of decodedCost. On lineitem SF 1
// the heap held by the cache exceeded the other parts by 12-13 KiB per
// decoder (643 decoders of q_month: 36 MB held, 28 MB counted; 308 of
// lookups: 19 MB held, 15 MB counted).
const decoderAllowance = 16 << 10

func decodedCost(raw, payload []byte, alloc int64) int64 {
	cost := int64(len(raw)) + alloc + decoderAllowance
	if k := len(raw) - len(payload); len(payload) > 0 && (k < 0 || &payload[0] != &raw[k]) {
		cost += int64(len(payload)) // not the tail of raw: a buffer of its own
	}
	return cost
}
