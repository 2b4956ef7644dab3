package timeseries

import (
	"container/list"
	"sync"

	"strata/encoding"
)

// pageCache is the metadata cache of an open file: decoded index pages
// (directory, unit, statistics and bloom pages) keyed by their offset,
// bounded by an estimate of their decoded size, least recently used
// evicted first. Queries on the same File share it, so the index pages a
// training loop touches are read once across epochs (TsFile's metadata LRU).
type pageCache struct {
	mu     sync.Mutex
	limit  int64
	used   int64
	lru    *list.List // of *cacheItem, front = most recent
	byOff  map[int64]*list.Element
	hits   int64
	misses int64
}

type cacheItem struct {
	off  int64
	cost int64
	val  any
}

func newPageCache(limit int64) *pageCache {
	return &pageCache{limit: limit, lru: list.New(), byOff: map[int64]*list.Element{}}
}

func (c *pageCache) get(off int64) (any, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.byOff[off]; ok {
		c.lru.MoveToFront(el)
		c.hits++
		return el.Value.(*cacheItem).val, true
	}
	c.misses++
	return nil, false
}

func (c *pageCache) put(off, cost int64, v any) {
	if c.limit <= 0 || cost > c.limit {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.byOff[off]; ok {
		c.lru.MoveToFront(el)
		return
	}
	c.byOff[off] = c.lru.PushFront(&cacheItem{off: off, cost: cost, val: v})
	c.used += cost
	for c.used > c.limit {
		el := c.lru.Back()
		it := el.Value.(*cacheItem)
		c.lru.Remove(el)
		delete(c.byOff, it.off)
		c.used -= it.cost
	}
}

// CacheStats reports the caches' use: the metadata cache of index pages
// and the cache of opened chunk decoders.
type CacheStats struct {
	Pages        int
	Bytes, Limit int64
	Hits, Misses int64
	// Decoders, DecoderBytes, DecoderHits and DecoderMisses describe the
	// decoder cache.
	Decoders                   int
	DecoderBytes               int64
	DecoderHits, DecoderMisses int64
}

func (c *pageCache) stats() CacheStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return CacheStats{Pages: len(c.byOff), Bytes: c.used, Limit: c.limit, Hits: c.hits, Misses: c.misses}
}

// decCache keeps opened chunk decoders — their payload checked, a
// dictionary's alphabet decoded, a zstd body inflated — so reads that come
// back to a chunk (windows of the next epoch, repeated queries) skip the
// read, the checksum and the opening. It is bounded by an estimate of the
// memory the decoders hold and evicts least recently used chunks. A
// decoder is used by one goroutine at a time: its entry's mutex is held
// while a read uses it.
type decCache struct {
	mu     sync.Mutex
	limit  int64
	used   int64
	lru    *list.List // of *decEntry, front = most recent
	byOff  map[int64]*list.Element
	hits   int64
	misses int64
}

type decEntry struct {
	mu   sync.Mutex
	off  int64
	cost int64
	dec  encoding.Decoder
}

func newDecCache(limit int64) *decCache {
	return &decCache{limit: limit, lru: list.New(), byOff: map[int64]*list.Element{}}
}

// get returns the entry of the chunk at off, or nil.
func (c *decCache) get(off int64) *decEntry {
	if c.limit <= 0 {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.byOff[off]; ok {
		c.lru.MoveToFront(el)
		c.hits++
		return el.Value.(*decEntry)
	}
	c.misses++
	return nil
}

// put caches a decoder the caller just opened and returns its entry,
// locked for the caller. When the chunk is already cached (another read
// opened it meanwhile) or does not fit, the entry is the caller's alone.
func (c *decCache) put(off int64, d encoding.Decoder, cost int64) *decEntry {
	e := &decEntry{off: off, cost: cost, dec: d}
	e.mu.Lock()
	if c.limit <= 0 || cost > c.limit/4 {
		return e
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.byOff[off]; ok {
		return e
	}
	c.byOff[off] = c.lru.PushFront(e)
	c.used += cost
	for c.used > c.limit {
		el := c.lru.Back()
		old := el.Value.(*decEntry)
		c.lru.Remove(el)
		delete(c.byOff, old.off)
		c.used -= old.cost
	}
	return e
}
