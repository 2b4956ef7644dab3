package timeseries

import (
	"container/list"
	"sync"
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

// CacheStats reports the metadata cache's use.
type CacheStats struct {
	Pages        int
	Bytes, Limit int64
	Hits, Misses int64
}

func (c *pageCache) stats() CacheStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return CacheStats{Pages: len(c.byOff), Bytes: c.used, Limit: c.limit, Hits: c.hits, Misses: c.misses}
}
