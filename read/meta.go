package read

import (
	"container/list"
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"

	"strata/encoding"
	"strata/format"
	"strata/iox"
	"strata/meta"
	"strata/schema"
	"strata/shred"
	"strata/stats"
)

// fileMeta is everything the reader knows about a file apart from its data:
// the container's metadata, the schema, file and stripe statistics, and
// what queries derive from them once — decoded chunk statistics, cluster
// indexes, bloom filters. It holds no source, so Files opened on the same
// bytes share it through a MetaCache; the lazily filled parts are guarded.
type fileMeta struct {
	c      *format.Meta
	sch    *schema.Schema
	arrow  *arrow.Schema
	fstats map[int]stats.ColumnStats
	// sstats is the stats.stripe section, kept encoded (nil when the file
	// has none): a file of many small stripes would otherwise hold a
	// decoded map of statistics a stripe, over a kilobyte each. Queries
	// decode the statistics they prune with (File.stripeColumnStats).
	sstats *meta.StripeStatsSection
	user   map[string]string
	// aligned holds, per top-level column, the values stream of a
	// primitive column (one entry per row), or -1 (see File.rowAligned).
	aligned []int
	// bloomIdx locates each stripe's bloom filters in the stats.bloom
	// section (files written before it keep them inline in stats.stripe),
	// kept encoded as sstats is; bloomSec is that section.
	bloomIdx *meta.BloomIndex
	bloomSec format.SectionInfo
	// decoded counts the bytes of the sections decoded into Go values at
	// open (schema, file statistics, user metadata); the sections kept
	// encoded count for themselves (bytes).
	decoded int64
	// openBytes is what the first open read: postscript, footer, sections.
	openBytes int64

	mu       sync.RWMutex
	chunkSt  map[[2]int][]chunkStat // (stripe, stream) → each chunk's statistics
	clusters map[int]*clusterIndex  // values stream → index; nil: not sorted
	blooms   map[[2]int]*stats.Bloom
	// refs maps (stripe, stream) to the stream a Correlated chunk of it
	// was found to refer to, learned when such a chunk opens, so that
	// later plans fetch the reference chunks with the chunk instead of in
	// a round trip of their own (stripeIO.need).
	refs map[[2]int]int
	// derived counts the bytes of the decoded state above, for the cache.
	derived atomic.Int64
}

// chunkStat is the decoded statistics blob of one chunk; ok is false when
// the chunk has none (or they do not decode), and then it cannot be pruned.
type chunkStat struct {
	cs stats.ColumnStats
	ok bool
}

// readMeta reads and decodes the metadata of the container ff.
func readMeta(ctx context.Context, ff *format.File) (*fileMeta, error) {
	m := &fileMeta{c: ff.Meta, chunkSt: map[[2]int][]chunkStat{}, clusters: map[int]*clusterIndex{},
		blooms: map[[2]int]*stats.Bloom{}}
	sb, ok, err := ff.Section(ctx, "schema")
	if err != nil {
		return nil, fmt.Errorf("read: schema section: %w", err)
	}
	if !ok {
		return nil, fmt.Errorf("read: no schema section: %w", encoding.ErrCorrupt)
	}
	m.decoded += int64(len(sb))
	if m.sch, err = schema.Unmarshal(sb); err != nil {
		return nil, fmt.Errorf("read: schema section: %w", err)
	}
	m.arrow = shred.ToArrow(m.sch)
	m.aligned = make([]int, m.sch.NumColumns())
	for c := range m.aligned {
		ids := m.sch.ColumnStreams(c)
		m.aligned[c] = -1
		if len(ids) == 1 && m.sch.Column(c).Kind.IsLeaf() {
			m.aligned[c] = ids[0]
		}
	}
	if b, ok, err := ff.Section(ctx, "stats.file"); err != nil {
		return nil, fmt.Errorf("read: file stats section: %w", err)
	} else if ok {
		m.decoded += int64(len(b))
		if m.fstats, err = meta.UnmarshalFileStats(b); err != nil {
			return nil, fmt.Errorf("read: %w", err)
		}
	}
	if b, ok, err := ff.Section(ctx, "stats.stripe"); err != nil {
		return nil, fmt.Errorf("read: stripe stats section: %w", err)
	} else if ok {
		if m.sstats, err = meta.ParseStripeStats(b); err != nil {
			return nil, fmt.Errorf("read: %w", err)
		}
		if m.sstats.Len() != ff.NumStripes() {
			return nil, fmt.Errorf("read: stripe stats for %d stripes, file has %d: %w", m.sstats.Len(), ff.NumStripes(), encoding.ErrCorrupt)
		}
	}
	if sec, ok := ff.SectionInfo("stats.bloom"); ok {
		b, ok, err := ff.Section(ctx, "stats.bloom.index")
		if err != nil {
			return nil, fmt.Errorf("read: bloom index section: %w", err)
		}
		if ok {
			if m.bloomIdx, err = meta.ParseBloomIndex(b, sec.Size); err != nil {
				return nil, fmt.Errorf("read: %w", err)
			}
			if m.bloomIdx.Len() != ff.NumStripes() {
				return nil, fmt.Errorf("read: bloom index for %d stripes, file has %d: %w", m.bloomIdx.Len(), ff.NumStripes(), encoding.ErrCorrupt)
			}
			m.bloomSec = sec
		}
	}
	if b, ok, err := ff.Section(ctx, "user"); err == nil && ok {
		m.decoded += int64(len(b))
		m.user, _ = meta.UnmarshalKV(b)
	}
	return m, nil
}

// bytes estimates the memory m holds, for the metadata cache's budget.
func (m *fileMeta) bytes() int64 {
	// Decoded sections take a few times their encoded size (maps, values);
	// the stripe statistics and bloom index are held as their bytes.
	n := m.c.Bytes() + 4*m.decoded + m.derived.Load()
	if m.sstats != nil {
		n += m.sstats.Bytes()
	}
	if m.bloomIdx != nil {
		n += m.bloomIdx.Bytes()
	}
	return n
}

// stripeColumnStats returns the statistics of a stream in a stripe, decoded
// from the stripe statistics section for the query that asks; ok is false
// when the file or stripe has none for the stream. A blob that does not
// decode is an error naming the stripe and stream: the section's framing
// was checked at open, its blobs are checked here.
func (f *File) stripeColumnStats(stripe, stream int) (cs stats.ColumnStats, ok bool, err error) {
	if f.m.sstats == nil || stripe >= f.m.sstats.Len() {
		return cs, false, nil
	}
	if cs, ok, err = f.m.sstats.Column(stripe, stream); err != nil {
		return cs, false, fmt.Errorf("read: %w", err)
	}
	return cs, ok, nil
}

// chunkStats returns the decoded statistics of every chunk of a stream in
// a stripe, decoding them on first use: a query plans from them without
// decoding statistics again.
func (f *File) chunkStats(ctx context.Context, stripe, stream int) ([]chunkStat, error) {
	k := [2]int{stripe, stream}
	f.m.mu.RLock()
	cs, ok := f.m.chunkSt[k]
	f.m.mu.RUnlock()
	if ok {
		return cs, nil
	}
	info, err := f.f.Stream(ctx, stripe, stream)
	if err != nil {
		return nil, err
	}
	cs = make([]chunkStat, len(info.Chunks))
	size := int64(len(cs)) * 96
	for i, ch := range info.Chunks {
		if len(ch.Stats) == 0 {
			continue
		}
		if s, err := meta.DecodeStats(ch.Stats); err == nil {
			cs[i] = chunkStat{cs: s, ok: true}
			size += int64(len(s.Min.Bytes()) + len(s.Max.Bytes()))
		}
	}
	f.m.mu.Lock()
	if prev, ok := f.m.chunkSt[k]; ok {
		cs = prev
	} else {
		f.m.chunkSt[k] = cs
		f.m.derived.Add(size)
	}
	f.m.mu.Unlock()
	return cs, nil
}

// bloom returns the decoded bloom filter of a stream in a stripe, or nil,
// reading it on first use: a file's filters are not read when it is
// opened, only those of the stripes a predicate asks about. The read is
// counted in st. A filter that cannot be read or decoded is treated as
// absent (it only ever prunes).
func (f *File) bloom(ctx context.Context, stripe, stream int, st *ScanStats) *stats.Bloom {
	key := [2]int{stripe, stream}
	f.m.mu.RLock()
	b, ok := f.m.blooms[key]
	f.m.mu.RUnlock()
	if ok {
		return b
	}
	var raw []byte
	if f.m.sstats != nil && stripe < f.m.sstats.Len() {
		raw, _, _ = f.m.sstats.Bloom(stripe, stream) // files that keep them inline
	}
	if raw == nil && f.m.bloomIdx != nil && stripe < f.m.bloomIdx.Len() {
		if ref, ok := f.m.bloomIdx.Ref(stripe, stream); ok {
			if f.m.bloomSec.Compression == format.CompressionNone {
				bufs, err := f.fetchRanges(ctx, []iox.Range{{Off: f.m.bloomSec.Offset + ref.Off, Len: ref.Len}})
				if err != nil {
					return nil
				}
				st.Requests++
				st.BytesRead += ref.Len
				raw = bufs[0]
			} else if sec, ok, err := f.f.Section(ctx, "stats.bloom"); err == nil && ok && ref.Off+ref.Len <= int64(len(sec)) {
				// Another writer compressed the section: read it whole.
				st.Requests++
				st.BytesRead += f.m.bloomSec.Size
				raw = sec[ref.Off : ref.Off+ref.Len]
			}
			if raw != nil && format.Checksum32(raw) != ref.Sum {
				raw = nil
			}
		}
	}
	if raw != nil {
		if bl, _, err := stats.DecodeBloom(raw); err == nil {
			b = bl
		}
	}
	f.m.mu.Lock()
	if prev, ok := f.m.blooms[key]; ok {
		b = prev
	} else {
		f.m.blooms[key] = b
		if b != nil {
			f.m.derived.Add(int64(len(raw)))
		}
	}
	f.m.mu.Unlock()
	return b
}

// MetaCache keeps the metadata of files across Open calls — postscript,
// footer, stripe groups, schema, statistics, and what queries decoded from
// them — so that reopening a file costs no read. Entries are keyed by the
// source's identity (iox.Identifier: path, size and modification time, or
// an object's ETag); sources without one are not cached. It evicts least
// recently opened files beyond its byte budget. It is safe for concurrent use.
type MetaCache struct {
	mu    sync.Mutex
	limit int64
	lru   *list.List // of *metaEntry, front = most recent
	byKey map[string]*list.Element
}

type metaEntry struct {
	key string
	m   *fileMeta
}

// DefaultMetaCacheBytes is the budget of the process-wide metadata cache.
const DefaultMetaCacheBytes = 64 << 20

var defaultMetaCache = NewMetaCache(DefaultMetaCacheBytes)

// NewMetaCache returns a cache holding at most about limit bytes of
// metadata, but for the file opened last, which it keeps whatever its
// size, so a limit below one file's metadata (0 or negative included)
// caches that one file; Options.NoMetaCache caches none.
func NewMetaCache(limit int64) *MetaCache {
	return &MetaCache{limit: limit, lru: list.New(), byKey: map[string]*list.Element{}}
}

// DefaultMetaCache returns the process-wide cache Open uses by default.
func DefaultMetaCache() *MetaCache { return defaultMetaCache }

func (c *MetaCache) get(key string) *fileMeta {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.byKey[key]; ok {
		c.lru.MoveToFront(el)
		return el.Value.(*metaEntry).m
	}
	return nil
}

// put adds m under key (keeping an entry already there) and evicts beyond
// the budget. Sizes are re-read at every put: entries grow as queries load
// stripe groups and decode statistics.
func (c *MetaCache) put(key string, m *fileMeta) *fileMeta {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.byKey[key]; ok {
		c.lru.MoveToFront(el)
		return el.Value.(*metaEntry).m
	}
	c.byKey[key] = c.lru.PushFront(&metaEntry{key: key, m: m})
	c.evict()
	return m
}

func (c *MetaCache) evict() {
	var used int64
	for el := c.lru.Front(); el != nil; {
		next := el.Next()
		e := el.Value.(*metaEntry)
		used += e.m.bytes()
		if used > c.limit && el != c.lru.Front() {
			c.lru.Remove(el)
			delete(c.byKey, e.key)
			used -= e.m.bytes()
		}
		el = next
	}
}

// Len returns the number of files cached.
func (c *MetaCache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.byKey)
}

// Bytes returns the estimated bytes the cached metadata holds.
func (c *MetaCache) Bytes() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	var n int64
	for el := c.lru.Front(); el != nil; el = el.Next() {
		n += el.Value.(*metaEntry).m.bytes()
	}
	return n
}

// Clear drops every entry.
func (c *MetaCache) Clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lru.Init()
	clear(c.byKey)
}

// learnRef records that a chunk of stream in stripe refers to stream ref.
func (m *fileMeta) learnRef(stripe, stream, ref int) {
	k := [2]int{stripe, stream}
	m.mu.RLock()
	r, ok := m.refs[k]
	m.mu.RUnlock()
	if ok && r == ref {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.refs == nil {
		m.refs = map[[2]int]int{}
	}
	if _, ok := m.refs[k]; !ok {
		m.derived.Add(48) // a map entry, for the metadata cache's budget
	}
	m.refs[k] = ref
}

// refOf returns the stream the chunks of stream in stripe were last found
// to refer to.
func (m *fileMeta) refOf(stripe, stream int) (int, bool) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	r, ok := m.refs[[2]int{stripe, stream}]
	return r, ok
}
