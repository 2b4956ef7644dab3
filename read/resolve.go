package read

import (
	"bytes"
	"fmt"
	"sync"

	"strata/encoding"
	"strata/schema"
)

// chunkOptions returns the decode options of chunk c of a stream in the
// stripe io reads: a resolver bound to the chunk, through which
// SharedDictionary nodes find their stripe's alphabet and Correlated nodes
// their reference rows. refs tells whether Correlated nodes may resolve
// references (false for the chunks of a reference: references do not
// chain).
func (s *stripeIO) chunkOptions(stream, c int, refs bool) *encoding.Options {
	// One allocation for the options, their resolver and its count: a cold
	// lookup opens a dozen chunks a row, each with options of its own
	// (decoders keep them).
	co := &chunkOpen{o: *s.f.dec}
	r := &co.r
	*r = chunkResolver{io: s, stream: stream, chunk: c, refs: refs}
	co.o.Resolver = r
	if refs {
		// Set by openChunk: the resolver adds a reference's cost to it.
		r.alloc = &co.alloc
		co.o.Allocated = r.alloc
	}
	return &co.o
}

// chunkOpen holds what chunkOptions returns and what it points to.
type chunkOpen struct {
	o     encoding.Options
	r     chunkResolver
	alloc int64
}

// chunkResolver resolves what the nodes of one chunk refer to.
type chunkResolver struct {
	io            *stripeIO
	stream, chunk int
	refs          bool
	alloc         *int64 // the opening chunk's allocation count (see openChunk)
	// leased is set when the opening chunk lies in recycled memory; leases
	// collects the recycled buffers its decoder aliases besides it (in
	// leaseBuf while they are few). opened is set once the chunk's decoder
	// is open: what it allocates later is its own (openChunk).
	leased, opened bool
	leases         []*lease
	leaseBuf       [3]*lease
}

// allocLeased is the Alloc of a leased chunk's options (openChunk): until
// the decoder is open, buffers come from recycled memory, held by the
// stripeIO and collected for the cache entry.
func (r *chunkResolver) allocLeased(n int) []byte {
	if r.opened {
		return make([]byte, n)
	}
	l := r.io.newLease(n)
	if r.leases == nil {
		r.leases = r.leaseBuf[:0]
	}
	r.leases = append(r.leases, l)
	return l.buf[:n]
}

// Shared implements encoding.Resolver: the built object of chunk k of the
// same stream, cached per file (see sharedCache).
func (r *chunkResolver) Shared(k int, build func([]byte) (any, error)) (any, error) {
	s := r.io
	info := s.stream(r.stream)
	switch {
	case k < 0 || k >= len(info.Chunks):
		return nil, encoding.Corruptf("chunk %d refers to chunk %d of %d", r.chunk, k, len(info.Chunks))
	case k == r.chunk:
		return nil, encoding.Corruptf("chunk %d refers to itself", k)
	case info.Chunks[k].Rows != 0:
		return nil, encoding.Corruptf("chunk %d refers to chunk %d, which holds %d rows, not a shared definition", r.chunk, k, info.Chunks[k].Rows)
	}
	key := chunkKey{s.f.m, s.stripe, r.stream, k}
	if v, ok := s.f.shared.get(key); ok {
		return v, nil
	}
	p, err := s.refPayload(r.stream, k, nil)
	if err != nil {
		return nil, err
	}
	v, err := build(p)
	if err != nil {
		return nil, fmt.Errorf("chunk %d: %w", k, err)
	}
	s.f.shared.put(key, v, int64(len(p)))
	return v, nil
}

// Reference implements encoding.Resolver: the rows of stream ref that the
// chunk covers, read from the chunks of ref that hold them.
func (r *chunkResolver) Reference(ref int, typ encoding.Type) (encoding.Decoder, error) {
	s := r.io
	sch := s.f.sch
	where := fmt.Sprintf("reference stream %d", ref)
	if !r.refs {
		return nil, encoding.Corruptf("%s: the chunk is itself read as a reference; references do not chain", where)
	}
	if ref == r.stream {
		return nil, encoding.Corruptf("%s: a stream cannot refer to itself", where)
	}
	if ref < 0 || ref >= sch.NumStreams() || !rowAlignedStream(sch, ref) || !rowAlignedStream(sch, r.stream) {
		return nil, encoding.Corruptf("%s: not a stream with one entry per row", where)
	}
	if t := sch.Stream(ref).Type; t != typ {
		return nil, encoding.Corruptf("%s holds %v, the chunk %v", where, t, typ)
	}
	own, info := s.stream(r.stream), s.stream(ref)
	if info.Rows != own.Rows || r.chunk >= len(own.Chunks) {
		return nil, encoding.Corruptf("%s is absent or holds other rows than the chunk's stream", where)
	}
	s.f.m.learnRef(s.stripe, r.stream, ref)
	ch := own.Chunks[r.chunk]
	first := info.ChunkForRow(ch.FirstRow)
	if ch.Rows == 0 || first < 0 {
		return nil, encoding.Corruptf("%s: no rows at %d", where, ch.FirstRow)
	}
	var decs []encoding.Decoder
	for c := first; c < len(info.Chunks) && info.Chunks[c].FirstRow < ch.FirstRow+ch.Rows; c++ {
		if info.Chunks[c].Rows == 0 {
			continue
		}
		var leases *[]*lease
		if r.leased {
			leases = &r.leases
		}
		p, err := s.refPayload(ref, c, leases)
		if err != nil {
			return nil, err
		}
		o := s.chunkOptions(ref, c, false)
		if r.alloc != nil {
			// The reference's decoders and bytes live as long as the
			// chunk's: they count in its cost.
			o.Allocated = r.alloc
			*r.alloc += int64(len(p))
		}
		d, err := encoding.Open(p, o)
		if err != nil {
			return nil, fmt.Errorf("%s, chunk %d: %w", where, c, err)
		}
		if int64(d.Len()) != info.Chunks[c].Rows {
			return nil, encoding.Corruptf("%s, chunk %d holds %d rows, index says %d", where, c, d.Len(), info.Chunks[c].Rows)
		}
		decs = append(decs, d)
	}
	return encoding.Concat(decs, int(ch.FirstRow-info.Chunks[first].FirstRow), int(ch.Rows))
}

// refPayload returns the unframed node of a chunk another chunk's decoder
// refers to. It reuses the chunk's fetched bytes when the query declared it
// and nobody holds it, and otherwise reads it on its own: a resolver runs
// while its own chunk is locked, so waiting for another chunk's lock could
// deadlock on a file whose chunks refer to each other. When the referring
// decoder is leased, leases gets the recycled buffer the bytes lie in;
// when it is not (leases nil), bytes in recycled memory are not used, so
// that only leased decoders alias recycled memory.
func (s *stripeIO) refPayload(stream, c int, leases *[]*lease) ([]byte, error) {
	s.mu.Lock()
	ch, err := s.lookup(stream, c)
	s.mu.Unlock()
	if err != nil {
		return nil, err
	}
	if ch.mu.TryLock() {
		defer ch.mu.Unlock()
		if ch.raw == nil && ch.payload == nil {
			if err := s.fetchChunks([]*chunk{ch}); err != nil {
				return nil, err
			}
		}
		p := ch.payload
		if p == nil {
			var err error
			if p, err = s.decodeChunk(stream, c, ch.raw); err != nil {
				return nil, err
			}
		}
		switch {
		case ch.lease == nil:
			return p, nil
		case leases != nil:
			*leases = append(*leases, ch.lease)
			return p, nil
		default:
			// The bytes lie in recycled memory the decoder may not keep
			// (it was opened without a lease, or resolves its reference
			// after opening): a copy of its own, rather than a request.
			return bytes.Clone(p), nil
		}
	}
	own := &chunk{key: ch.key, rows: ch.rows, rng: ch.rng}
	if err := s.fetchChunks([]*chunk{own}); err != nil {
		return nil, err
	}
	p, err := s.decodeChunk(stream, c, own.raw)
	if err != nil {
		return nil, err
	}
	return p, nil
}

// rowAlignedStream reports whether a stream holds one entry per row: the
// values or nulls of a node with no list, map or FlatMap above it.
func rowAlignedStream(s *schema.Schema, id int) bool {
	n := s.Stream(id).Node
	for p := n; p != nil; p = p.Parent() {
		if p.Kind == schema.List || p.Kind == schema.Map || p.Kind == schema.FlatMap {
			return false
		}
	}
	return true
}

// sharedCache keeps the objects built from shared chunks (decoded shared
// alphabets), bounded by an estimate of their bytes; when full it starts
// over, which only costs decoding an alphabet again.
type sharedCache struct {
	mu    sync.Mutex
	limit int64
	used  int64
	m     map[chunkKey]any
}

func (c *sharedCache) get(k chunkKey) (any, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[k]
	return v, ok
}

func (c *sharedCache) put(k chunkKey, v any, payload int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	cost := 8 * payload // decoded entries, padding and lengths
	if c.m == nil || c.used+cost > c.limit {
		c.m, c.used = map[chunkKey]any{}, 0
	}
	if _, ok := c.m[k]; !ok {
		c.m[k] = v
		c.used += cost
	}
}
