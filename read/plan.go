package read

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"sync"
	"sync/atomic"

	"strata/encoding"
	"strata/format"
	"strata/iox"
)

// The one way the reader reads chunks.
//
// Every query — scan, filtered scan, lookup, aggregate — works stripe by
// stripe (or a byte-bounded piece of one) through a stripeIO:
//
//  1. plan: the query declares every chunk it will need (need, needRange,
//     needAll), filter columns first; chunks whose statistics settle them,
//     and payload chunks without surviving rows, are never declared;
//  2. fetch: all declared chunks are read in one call to the Fetcher, which
//     coalesces them across streams and columns with the thresholds the
//     source prefers (small holes on a local disk, large ones on an object
//     store) and may keep several reads in flight;
//  3. open: each chunk is unframed, checked and opened once (openChunk) and
//     its decoder is shared by every consumer — filtering, gathering,
//     reading a range, aggregating — through use, which resets it first.
//
// A filtered scan plans and fetches twice per stripe: the filter columns,
// then the payload chunks that hold survivors. A consumer that uses a chunk
// nobody declared still works (it is fetched on its own, counted as one
// more request); tests hold the planners to their consumers by counting.

// onFetch and onOpen, when set (by this package's tests only), see every
// fetch call's chunks and every chunk opened.
var (
	onFetch func([]chunkKey)
	onOpen  func(chunkKey)
)

// chunk is one chunk of a stripe as a query sees it.
type chunk struct {
	key  chunkKey
	rows int
	rng  iox.Range
	// mu serializes the query's users of dec (decoders are cursors).
	mu  sync.Mutex
	raw []byte // fetched bytes, framing included; nil until fetched
	dec encoding.Decoder
	// payload is the unframed node dec reads, for the decoder cache's cost.
	payload []byte
	// alloc is what opening dec allocated from declared sizes (inflated
	// bodies, offsets, alphabets, reference chunks), for the cache's cost.
	alloc int64
	// entry is set when dec is shared through the decoder cache; users then
	// also hold entry.mu, since other queries may use it at the same time.
	entry *cacheEntry
	// queued is set while the chunk waits in the stripeIO's pending list.
	queued bool
	// readLen is the length of the coalesced read the chunk's bytes came
	// from, which stays alive as long as anything aliases them.
	readLen int64
	// leasable is set when every declaration of the chunk asked for it to
	// be read into recycled memory (needLeased); plain when any did not.
	leasable, plain bool
	// lease holds raw when it was read into recycled memory (lease.go);
	// leases are the recycled buffers dec aliases: lease, bodies opening
	// inflated, references' bytes.
	lease  *lease
	leases []*lease
}

// stripeIO plans, fetches and opens the chunks one query needs from one
// stripe. Declaring and fetching happen on one goroutine; use may be called
// from many (different or equal chunks) once the fetch is done.
type stripeIO struct {
	f      *File
	ctx    context.Context
	stripe int
	infos  []format.StreamInfo

	mu sync.Mutex
	// few lists the chunks registered while they are few (findChunk);
	// chunks indexes them once there are more.
	few     []*chunk
	chunks  map[chunkKey]*chunk
	slab    []chunk // where lookup places the next chunks (newChunk)
	pending []*chunk
	defs    []bool // per stream: its shared definitions are declared
	// hint is how many chunks the query declared it would use (reserve):
	// the capacity the lists below start with.
	hint int
	// lookup is set for a point lookup's stripeIO: the decoders it caches
	// enter the decoder cache's probationary segment (cache.go).
	pointLookup bool
	// recycle lets chunks declared with needLeased be read into recycled
	// memory, and lets the query use cached decoders that alias such
	// memory (lease.go). The query must close the stripeIO.
	recycle bool
	leaseMu sync.Mutex
	leases  []*lease      // held once each until close
	held    []*cacheEntry // leased cache entries held until close

	requests, bytes, opened atomic.Int64
}

func (f *File) newStripeIO(ctx context.Context, stripe int) (*stripeIO, error) {
	infos, err := f.f.Streams(ctx, stripe)
	if err != nil {
		return nil, err
	}
	return &stripeIO{f: f, ctx: ctx, stripe: stripe, infos: infos}, nil
}

// stream returns the chunk table of a stream (empty when the stripe does
// not hold it).
func (s *stripeIO) stream(id int) *format.StreamInfo {
	if id >= 0 && id < len(s.infos) {
		return &s.infos[id]
	}
	return &format.StreamInfo{}
}

// lookup returns the chunk, registering it (and finding it in the decoder
// cache) on first sight. The caller holds s.mu.
func (s *stripeIO) lookup(stream, c int) (*chunk, error) {
	k := chunkKey{s.f.m, s.stripe, stream, c}
	if ch := s.findChunk(k); ch != nil {
		return ch, nil
	}
	info := s.stream(stream)
	if c < 0 || c >= len(info.Chunks) {
		return nil, inStripe(s.stripe, fmt.Sprintf("stream %d, chunk %d of %d", stream, c, len(info.Chunks)), format.ErrIndex)
	}
	ci := &info.Chunks[c]
	ch := s.newChunk()
	ch.key, ch.rows, ch.rng = k, int(ci.Rows), iox.Range{Off: ci.Offset, Len: ci.Size}
	if e := s.f.cache.get(k, s.recycle); e != nil {
		ch.entry, ch.dec = e, e.dec
		s.hold(e)
	}
	s.addChunk(ch)
	return ch, nil
}

// fewChunks is how many chunks a stripeIO finds by a linear search before
// it indexes them in a map: a lookup declares a chunk or two a column, and
// comparing their keys costs less than hashing them (and building the map).
const fewChunks = 24

// findChunk returns the registered chunk of key k, or nil. The caller
// holds s.mu.
func (s *stripeIO) findChunk(k chunkKey) *chunk {
	if s.chunks != nil {
		return s.chunks[k]
	}
	for _, ch := range s.few {
		// (every chunk of the stripeIO has its file and stripe)
		if ch.key.chunk == k.chunk && ch.key.stream == k.stream {
			return ch
		}
	}
	return nil
}

// addChunk registers a chunk. The caller holds s.mu.
func (s *stripeIO) addChunk(ch *chunk) {
	if s.chunks == nil && len(s.few) < fewChunks {
		s.few = appendHinted(s.few, ch, min(s.hint, fewChunks))
		return
	}
	if s.chunks == nil {
		s.chunks = make(map[chunkKey]*chunk, 2*fewChunks)
		for _, c := range s.few {
			s.chunks[c.key] = c
		}
		s.few = nil
	}
	s.chunks[ch.key] = ch
}

// reserve sizes the stripeIO for about n chunks, which a query that knows
// how many it will declare (a lookup: a chunk a column, and a shared
// definition or reference for some) states before declaring them.
func (s *stripeIO) reserve(n int) {
	s.slab = make([]chunk, n)
	s.hint = n
}

// newChunk returns a zero chunk from the slab, which it refills eight at a
// time: a lookup's chunks cost one allocation rather than one each. The
// caller holds s.mu.
func (s *stripeIO) newChunk() *chunk {
	if len(s.slab) == 0 {
		s.slab = make([]chunk, 8)
	}
	ch := &s.slab[0]
	s.slab = s.slab[1:]
	return ch
}

// appendHinted appends x to list, giving a list that has no room the
// capacity of hint more (a query's declared chunk count) at once instead of
// growing it step by step.
func appendHinted[T any](list []T, x T, hint int) []T {
	if len(list) == cap(list) && hint > 0 {
		list = slices.Grow(list, hint)
	}
	return append(list, x)
}

// allOpen reports whether every chunk of rows declared so far has its
// decoder open (from the decoder cache or this query), so that using them
// costs no fetch and no decoding of whole chunks.
func (s *stripeIO) allOpen() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, ch := range s.few {
		if ch.rows > 0 && ch.dec == nil {
			return false
		}
	}
	for _, ch := range s.chunks {
		if ch.rows > 0 && ch.dec == nil {
			return false
		}
	}
	return true
}

// need declares that the query will use chunk c of a stream.
func (s *stripeIO) need(stream, c int) error {
	return s.declare(stream, c, false)
}

// needLeased declares a chunk the query only gathers values from, copying
// them: in a stripeIO that recycles, it may be read into recycled memory.
func (s *stripeIO) needLeased(stream, c int) error {
	return s.declare(stream, c, s.recycle)
}

func (s *stripeIO) declare(stream, c int, leased bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	ch, err := s.lookup(stream, c)
	if err != nil {
		return err
	}
	mark(ch, leased)
	s.queue(ch)
	if ch.rows > 0 && ch.dec == nil {
		if ref, ok := s.f.m.refOf(s.stripe, stream); ok && ref != stream {
			// A chunk of this stream was stored relative to ref: the
			// chunks of ref under this chunk's rows come with the plan
			// (their decoders, if cached, are not what a reference
			// reads: it reads their bytes).
			info := s.stream(stream).Chunks[c]
			rinfo := s.stream(ref)
			for k := rinfo.ChunkForRow(info.FirstRow); k >= 0 && k < len(rinfo.Chunks) && rinfo.Chunks[k].FirstRow < info.FirstRow+info.Rows; k++ {
				if rinfo.Chunks[k].Rows == 0 {
					continue
				}
				rch, err := s.lookup(ref, k)
				if err != nil {
					return err
				}
				mark(rch, leased)
				if rch.raw == nil && rch.payload == nil && !rch.queued {
					rch.queued = true
					s.pending = appendHinted(s.pending, rch, s.hint)
				}
			}
		}
	}
	if ch.rows > 0 && ch.dec == nil && (stream >= len(s.defs) || !s.defs[stream]) {
		// Chunks of no rows define what the stream's chunks share (a
		// stripe's dictionary alphabet): a chunk that refers to one reads
		// it when it opens, so it is fetched with the plan — unless the
		// chunk is opened already (its decoder holds what it refers to)
		// or the definition's built object is in the file's shared cache.
		if stream >= len(s.defs) {
			// (lookup checked the stream is one of the stripe's)
			s.defs = append(s.defs, make([]bool, len(s.infos)-len(s.defs))...)
		}
		s.defs[stream] = true
		for k, ci := range s.stream(stream).Chunks {
			if ci.Rows == 0 {
				def, err := s.lookup(stream, k)
				if err != nil {
					return err
				}
				if _, ok := s.f.shared.get(def.key); !ok {
					s.queue(def)
				}
			}
		}
	}
	return nil
}

// leasedRead reports whether the chunk is to be read into recycled memory.
func (ch *chunk) leasedRead() bool { return ch.leasable && !ch.plain && ch.rows > 0 }

// mark records how a chunk was declared.
func mark(ch *chunk, leased bool) {
	if leased {
		ch.leasable = true
	} else {
		ch.plain = true
	}
}

// queue adds a chunk to the pending fetch unless it is fetched, opened or
// queued already. The caller holds s.mu.
func (s *stripeIO) queue(ch *chunk) {
	if ch.dec == nil && ch.raw == nil && !ch.queued {
		ch.queued = true
		s.pending = appendHinted(s.pending, ch, s.hint)
	}
}

// needRange declares the chunks of a stream that overlap its rows [lo, hi).
func (s *stripeIO) needRange(stream int, lo, hi int64) error {
	info := s.stream(stream)
	if lo >= hi {
		return nil
	}
	c := info.ChunkForRow(lo)
	if c < 0 {
		return nil
	}
	for ; c < len(info.Chunks) && info.Chunks[c].FirstRow < hi; c++ {
		if err := s.need(stream, c); err != nil {
			return err
		}
	}
	return nil
}

// needAll declares every chunk of a stream.
func (s *stripeIO) needAll(stream int) error {
	for c := range s.stream(stream).Chunks {
		if err := s.need(stream, c); err != nil {
			return err
		}
	}
	return nil
}

// fetch reads every declared chunk not yet fetched, in one coalesced call.
func (s *stripeIO) fetch() error {
	s.mu.Lock()
	todo := s.pending
	s.pending = nil
	for _, ch := range todo {
		ch.queued = false
	}
	s.mu.Unlock()
	return s.fetchChunks(todo)
}

func (s *stripeIO) fetchChunks(todo []*chunk) error {
	if len(todo) == 0 {
		return nil
	}
	if err := s.ctx.Err(); err != nil {
		return err
	}
	ranges := make([]iox.Range, len(todo))
	for i, ch := range todo {
		ranges[i] = ch.rng
	}
	if onFetch != nil {
		keys := make([]chunkKey, len(todo))
		for i, ch := range todo {
			keys[i] = ch.key
		}
		onFetch(keys)
	}
	reads := s.f.fetch.Plan(ranges)
	// Reads are sorted and disjoint: find the one holding each chunk.
	readOf := make([]int, len(todo))
	for i, ch := range todo {
		readOf[i] = sort.Search(len(reads), func(k int) bool { return reads[k].End() > ch.rng.Off })
	}
	// Reads that hold a chunk declared for recycled memory go into leases
	// (lease.go); other chunks they hold are copied out of them.
	var want []bool // per read: it holds a chunk declared for recycled memory
	if s.recycle {
		for i, ch := range todo {
			if ch.leasedRead() && readOf[i] < len(reads) {
				if want == nil {
					want = make([]bool, len(reads))
				}
				want[readOf[i]] = true
			}
		}
	}
	var (
		bufs   [][]byte
		err    error
		leased []*lease // per read, set by alloc (a Slicer source calls none)
	)
	if want != nil {
		pool := s.f.cache.freeList()
		leased = make([]*lease, len(reads))
		bufs, err = s.f.fetch.FetchInto(s.ctx, ranges, func(k, n int) []byte {
			if !want[k] {
				return make([]byte, n)
			}
			l := newLease(n, pool)
			leased[k] = l
			return l.buf[:n]
		})
		s.leaseMu.Lock()
		for _, l := range leased {
			if l != nil {
				s.leases = appendHinted(s.leases, l, 2*s.hint)
			}
		}
		s.leaseMu.Unlock()
	} else {
		bufs, err = s.f.fetchRanges(s.ctx, ranges)
	}
	if err != nil {
		return inStripe(s.stripe, "", err)
	}
	// what the reads sent to the source: none for the bytes opening read
	// and the Fetcher keeps (Fetcher.Keep)
	var nreads, n int64
	for _, r := range reads {
		k, b := s.f.fetch.Cost(r)
		nreads, n = nreads+k, n+b
	}
	s.requests.Add(nreads)
	s.bytes.Add(n)
	for i, ch := range todo {
		ch.raw = bufs[i]
		if k := readOf[i]; k < len(reads) {
			ch.readLen = reads[k].Len
		}
		if leased == nil {
			continue
		}
		// Found by address: reads may overlap (a range that overlaps a
		// read already at its largest starts one of its own).
		for _, l := range leased {
			if l != nil && l.holds(ch.raw) {
				if ch.leasedRead() {
					ch.lease = l
				} else {
					ch.raw = append([]byte(nil), ch.raw...)
				}
				break
			}
		}
	}
	return nil
}

// use opens chunk c of a stream if needed (fetching it on its own when no
// plan declared it), resets its decoder and calls fn with it. cache asks
// for the opened decoder to be kept in the decoder cache, for chunks read
// sparsely (gathers, lookups), where reopening would cost more than the
// rows read.
func (s *stripeIO) use(stream, c int, cache bool, fn func(encoding.Decoder) error) error {
	s.mu.Lock()
	ch, err := s.lookup(stream, c)
	s.mu.Unlock()
	if err != nil {
		return err
	}
	ch.mu.Lock()
	defer ch.mu.Unlock()
	keep := cache && ch.entry == nil && s.f.cache != nil
	if ch.dec == nil {
		if ch.raw == nil {
			if err := s.fetchChunks([]*chunk{ch}); err != nil {
				return err
			}
		}
		if keep && ch.readLen > 4*ch.rng.Len && ch.readLen > 1<<20 {
			// The decoder will be cached, and a decoder may alias the
			// bytes it was opened on, which here are part of a read much
			// larger than the chunk (an object store's coalesced read):
			// the cache would keep that read alive without counting it.
			// Open the decoder over a copy of the chunk's own bytes, once.
			ch.raw = append([]byte(nil), ch.raw...)
			ch.readLen = int64(len(ch.raw))
			ch.lease = nil
		}
		p, err := s.decodeChunk(stream, c, ch.raw)
		if err != nil {
			return err
		}
		// A chunk declared for recycled memory opens into it even when its
		// bytes are not (a source in memory hands out slices of itself):
		// what opening inflates is as short-lived as recycled bytes would be.
		d, alloc, leases, err := s.openChunk(stream, c, p, ch.rows, ch.lease != nil || (s.recycle && ch.leasedRead()))
		if err != nil {
			return inStripe(s.stripe, chunkWhere(stream, c), err)
		}
		if ch.lease != nil {
			leases = append(leases, ch.lease)
		}
		ch.dec, ch.payload, ch.alloc, ch.leases = d, p, alloc, leases
		s.opened.Add(1)
		if onOpen != nil {
			onOpen(ch.key)
		}
	}
	if keep {
		if ch.readLen > 4*ch.rng.Len && ch.readLen > 1<<20 {
			// A decoder opened earlier in this query (by a consumer that
			// did not cache it) aliases a read much larger than its
			// chunk: cache a decoder over a copy of the chunk's own bytes
			// instead.
			own := append([]byte(nil), ch.raw...)
			p, err := s.decodeChunk(stream, c, own)
			if err != nil {
				return err
			}
			d, alloc, _, err := s.openChunk(stream, c, p, ch.rows, false)
			if err != nil {
				return inStripe(s.stripe, chunkWhere(stream, c), err)
			}
			ch.dec, ch.payload, ch.raw, ch.readLen, ch.alloc = d, p, own, int64(len(own)), alloc
			ch.lease, ch.leases = nil, nil
			s.opened.Add(1)
			if onOpen != nil {
				onOpen(ch.key)
			}
		}
		ch.entry = s.f.cache.put(ch.key, ch.dec, decodedCost(ch.raw, ch.payload, ch.alloc), s.pointLookup, ch.leases, s.recycle)
		ch.dec = ch.entry.dec
		s.hold(ch.entry)
	}
	if ch.entry != nil {
		ch.entry.mu.Lock()
		defer ch.entry.mu.Unlock()
	}
	ch.dec.Reset()
	if err := fn(ch.dec); err != nil {
		return inStripe(s.stripe, chunkWhere(stream, c), err)
	}
	return nil
}

// payload returns the unframed, checked node of a chunk without opening
// it (for tools that walk encoding trees).
func (s *stripeIO) payload(stream, c int) ([]byte, error) {
	s.mu.Lock()
	ch, err := s.lookup(stream, c)
	s.mu.Unlock()
	if err != nil {
		return nil, err
	}
	ch.mu.Lock()
	defer ch.mu.Unlock()
	if ch.payload != nil {
		return ch.payload, nil
	}
	if ch.raw == nil {
		if err := s.fetchChunks([]*chunk{ch}); err != nil {
			return nil, err
		}
	}
	p, err := s.decodeChunk(stream, c, ch.raw)
	if err != nil {
		return nil, err
	}
	return p, nil
}

// decodeChunk unframes and checks chunk c of a stream from its bytes.
func (s *stripeIO) decodeChunk(stream, c int, raw []byte) ([]byte, error) {
	p, err := s.f.f.DecodeChunk(raw)
	if err != nil {
		return nil, inStripe(s.stripe, chunkWhere(stream, c), err)
	}
	return p, nil
}

// flush adds the stripeIO's traffic to st.
func (s *stripeIO) flush(st *ScanStats) {
	st.Requests += s.requests.Swap(0)
	st.BytesRead += s.bytes.Swap(0)
	st.ChunksDecoded += int(s.opened.Swap(0))
}

// openChunk opens the decoder of chunk c of a stream from its payload and
// checks its row count. It also returns what opening allocated from the
// sizes the nodes declare (encoding.Options.Allocated) and, when leased
// (the chunk was declared for recycled memory: its bytes lie in it, or in
// a source's own memory), the recycled buffers the decoder aliases
// besides them (inflated bodies, references' bytes). Every chunk any query reads is opened here, with a
// resolver (resolve.go) that gives the decoder what lies outside its own
// bytes: a dictionary shared between the stream's chunks, the column it is
// stored relative to.
func (s *stripeIO) openChunk(stream, c int, payload []byte, rows int, leased bool) (encoding.Decoder, int64, []*lease, error) {
	o := s.chunkOptions(stream, c, true)
	r := o.Resolver.(*chunkResolver)
	// Only what opening allocates is leased: the cache entry holds the
	// leases openChunk returns, and the query the rest until it ends. A
	// decoder that allocates later (Delta's gathers open their differences
	// again, inflating a zstd body) outlives the query in the cache, so
	// from then on its buffers and references' bytes are its own.
	if leased {
		r.leased = true
		r.leases = r.leaseBuf[:0] // (and the chunk's own lease, which use adds)
		o.Alloc = r.allocLeased
	}
	d, err := encoding.Open(payload, o)
	r.opened, r.leased = true, false
	if err != nil {
		return nil, 0, nil, err
	}
	if d.Len() != rows {
		return nil, 0, nil, encoding.Corruptf("chunk holds %d rows, index says %d", d.Len(), rows)
	}
	return d, *o.Allocated, r.leases, nil
}

// fetchRanges reads ranges through the file's Fetcher under ctx.
func (f *File) fetchRanges(ctx context.Context, ranges []iox.Range) ([][]byte, error) {
	return f.fetch.Fetch(ctx, ranges)
}
