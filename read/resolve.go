package read

import (
	"context"
	"fmt"
	"sync"

	"strata/encoding"
	"strata/schema"
)

// openChunk opens the decoder of one chunk's payload. It is the one place
// chunk decoders are opened: the decode options carry a resolver bound to
// the chunk, through which SharedDictionary nodes find their stripe's
// alphabet and Correlated nodes their reference rows.
func (f *File) openChunk(ctx context.Context, stripe, stream, chunk int, payload []byte, st *ScanStats) (encoding.Decoder, error) {
	return encoding.Open(payload, f.chunkOptions(ctx, stripe, stream, chunk, st, true))
}

// chunkOptions returns the decode options of one chunk; refs tells whether
// its Correlated nodes may resolve references.
func (f *File) chunkOptions(ctx context.Context, stripe, stream, chunk int, st *ScanStats, refs bool) *encoding.Options {
	o := *f.dec
	o.Resolver = &chunkResolver{ctx: ctx, f: f, stripe: stripe, stream: stream, chunk: chunk, st: st, refs: refs}
	return &o
}

// chunkResolver resolves what the nodes of one chunk refer to.
type chunkResolver struct {
	ctx                   context.Context
	f                     *File
	stripe, stream, chunk int
	st                    *ScanStats
	refs                  bool // false for the chunks of a reference: references do not chain
}

// Shared implements encoding.Resolver: the built object of chunk k of the
// same stream, cached per file (see sharedCache).
func (r *chunkResolver) Shared(k int, build func([]byte) (any, error)) (any, error) {
	info, err := r.f.f.Stream(r.ctx, r.stripe, r.stream)
	if err != nil {
		return nil, err
	}
	switch {
	case k < 0 || k >= len(info.Chunks):
		return nil, encoding.Corruptf("chunk %d refers to chunk %d of %d", r.chunk, k, len(info.Chunks))
	case k == r.chunk:
		return nil, encoding.Corruptf("chunk %d refers to itself", k)
	case info.Chunks[k].Rows != 0:
		return nil, encoding.Corruptf("chunk %d refers to chunk %d, which holds %d rows, not a shared definition", r.chunk, k, info.Chunks[k].Rows)
	}
	key := chunkKey{r.stripe, r.stream, k}
	if v, ok := r.f.shared.get(key); ok {
		return v, nil
	}
	payloads, err := r.f.fetchChunks(r.ctx, r.stripe, r.stream, []int{k}, r.st)
	if err != nil {
		return nil, err
	}
	v, err := build(payloads[0])
	if err != nil {
		return nil, fmt.Errorf("chunk %d: %w", k, err)
	}
	r.f.shared.put(key, v, int64(len(payloads[0])))
	return v, nil
}

// Reference implements encoding.Resolver: the rows of stream ref that the
// chunk covers, read from the chunks of ref that hold them.
func (r *chunkResolver) Reference(ref int, typ encoding.Type) (encoding.Decoder, error) {
	where := fmt.Sprintf("reference stream %d", ref)
	if !r.refs {
		return nil, encoding.Corruptf("%s: the chunk is itself read as a reference; references do not chain", where)
	}
	if ref == r.stream {
		return nil, encoding.Corruptf("%s: a stream cannot refer to itself", where)
	}
	if ref < 0 || ref >= r.f.sch.NumStreams() || !rowAlignedStream(r.f.sch, ref) || !rowAlignedStream(r.f.sch, r.stream) {
		return nil, encoding.Corruptf("%s: not a stream with one entry per row", where)
	}
	if t := r.f.sch.Stream(ref).Type; t != typ {
		return nil, encoding.Corruptf("%s holds %v, the chunk %v", where, t, typ)
	}
	streams, err := r.f.f.Streams(r.ctx, r.stripe)
	if err != nil {
		return nil, err
	}
	own := streams[r.stream]
	if ref >= len(streams) || streams[ref].Rows != own.Rows {
		return nil, encoding.Corruptf("%s is absent or holds other rows than the chunk's stream", where)
	}
	ch := own.Chunks[r.chunk]
	info := streams[ref]
	first := info.ChunkForRow(ch.FirstRow)
	if ch.Rows == 0 || first < 0 {
		return nil, encoding.Corruptf("%s: no rows at %d", where, ch.FirstRow)
	}
	var idx []int
	for c := first; c < len(info.Chunks) && info.Chunks[c].FirstRow < ch.FirstRow+ch.Rows; c++ {
		if info.Chunks[c].Rows > 0 {
			idx = append(idx, c)
		}
	}
	payloads, err := r.f.fetchChunks(r.ctx, r.stripe, ref, idx, r.st)
	if err != nil {
		return nil, err
	}
	decs := make([]encoding.Decoder, len(idx))
	for i, c := range idx {
		d, err := encoding.Open(payloads[i], r.f.chunkOptions(r.ctx, r.stripe, ref, c, r.st, false))
		if err != nil {
			return nil, fmt.Errorf("%s, chunk %d: %w", where, c, err)
		}
		if int64(d.Len()) != info.Chunks[c].Rows {
			return nil, encoding.Corruptf("%s, chunk %d holds %d rows, index says %d", where, c, d.Len(), info.Chunks[c].Rows)
		}
		decs[i] = d
	}
	return encoding.Concat(decs, int(ch.FirstRow-info.Chunks[first].FirstRow), int(ch.Rows))
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
