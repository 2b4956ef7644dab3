package read

import (
	"container/list"
	"sync"

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
// into the same chunks cost a gather, not a decompression. It is bounded by
// an estimate of the decoded bytes and evicts least recently used chunks.
type decoderCache struct {
	mu    sync.Mutex
	limit int64
	used  int64
	lru   *list.List // of *cacheEntry, front = most recent
	byKey map[chunkKey]*list.Element
}

type cacheEntry struct {
	key  chunkKey
	cost int64
	mu   sync.Mutex // held while a reader uses dec: decoders are not concurrent
	dec  encoding.Decoder
}

func newDecoderCache(limit int64) *decoderCache {
	return &decoderCache{limit: limit, lru: list.New(), byKey: map[chunkKey]*list.Element{}}
}

func (c *decoderCache) get(k chunkKey) *cacheEntry {
	if c == nil || c.limit <= 0 {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.byKey[k]; ok {
		c.lru.MoveToFront(el)
		return el.Value.(*cacheEntry)
	}
	return nil
}

func (c *decoderCache) put(k chunkKey, dec encoding.Decoder, cost int64) *cacheEntry {
	e := &cacheEntry{key: k, cost: cost, dec: dec}
	if c == nil || c.limit <= 0 || cost > c.limit/4 {
		return e
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.byKey[k]; ok {
		c.lru.MoveToFront(el)
		return el.Value.(*cacheEntry)
	}
	c.byKey[k] = c.lru.PushFront(e)
	c.used += cost
	for c.used > c.limit {
		el := c.lru.Back()
		old := el.Value.(*cacheEntry)
		c.lru.Remove(el)
		delete(c.byKey, old.key)
		c.used -= old.cost
	}
	return e
}

// dropFile removes every decoder of one file.
func (c *decoderCache) dropFile(m *fileMeta) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for el := c.lru.Front(); el != nil; {
		next := el.Next()
		if e := el.Value.(*cacheEntry); e.key.m == m {
			c.lru.Remove(el)
			delete(c.byKey, e.key)
			c.used -= e.cost
		}
		el = next
	}
}

// decodedCost estimates the memory an opened decoder holds: the payload,
// plus the inflated size of a compressed body (or, for binary, the value
// offsets and bytes), plus per-row buffers.
func decodedCost(payload []byte, rows int, t encoding.Type) int64 {
	cost := int64(len(payload))
	if len(payload) > 2 && payload[2]&encoding.FlagZstd != 0 || t == encoding.Binary {
		cost += 4 * int64(len(payload))
	}
	size := t.Size()
	if size == 0 {
		size = 4 // binary offsets
	}
	return cost + int64(rows*size)
}
