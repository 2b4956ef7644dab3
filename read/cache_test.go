package read

import (
	"testing"

	"strata/encoding"
	"strata/encoding/all"
)

// TestDecoderCacheSegments: decoders that lookups open churn a quarter of
// the budget and leave those that queries opened in place; a lookup's
// decoder used again is protected; alone, lookups fill the whole budget;
// the budget always holds.
func TestDecoderCacheSegments(t *testing.T) {
	m := &fileMeta{}
	key := func(i int) chunkKey { return chunkKey{m: m, chunk: i} }
	c := newDecoderCache(100)
	check := func(what string) {
		t.Helper()
		if c.probUsed+c.protUsed > c.limit || c.probUsed < 0 || c.protUsed < 0 {
			t.Fatalf("%s: probationary %d + protected %d bytes, limit %d", what, c.probUsed, c.protUsed, c.limit)
		}
		if n := c.prob.Len() + c.prot.Len(); n != len(c.byKey) {
			t.Fatalf("%s: %d entries listed, %d keyed", what, n, len(c.byKey))
		}
	}
	// Lookups alone may fill the budget.
	for i := range 10 {
		c.put(key(i), nil, 10, true, nil, false)
	}
	check("lookups")
	if len(c.byKey) != 10 {
		t.Fatalf("lookups alone: %d decoders cached, want 10", len(c.byKey))
	}
	// A query's decoders (60 bytes) push lookups out to their quarter.
	for i := 100; i < 106; i++ {
		c.put(key(i), nil, 10, false, nil, false)
	}
	check("queries")
	if c.protUsed != 60 || c.probUsed != 40 {
		t.Fatalf("after queries: protected %d, probationary %d bytes, want 60, 40", c.protUsed, c.probUsed)
	}
	// A stream of one-time lookups does not evict them.
	for i := 200; i < 300; i++ {
		c.put(key(i), nil, 10, true, nil, false)
		check("lookup stream")
	}
	for i := 100; i < 106; i++ {
		if c.get(key(i), false) == nil {
			t.Fatalf("query decoder %d evicted by one-time lookups", i)
		}
	}
	// A lookup decoder used again is promoted, and stays.
	if c.get(key(299), false) == nil {
		t.Fatal("latest lookup decoder not cached")
	}
	for i := 300; i < 400; i++ {
		c.put(key(i), nil, 10, true, nil, false)
	}
	check("promotion")
	if e := c.get(key(299), false); e == nil || !e.prot {
		t.Fatal("lookup decoder used twice was not kept in the protected segment")
	}
	// The protected segment is bounded by the budget too, evicting its
	// least recently used.
	for i := 500; i < 520; i++ {
		c.put(key(i), nil, 10, false, nil, false)
		check("protected overflow")
	}
	if c.get(key(100), false) != nil || c.get(key(519), false) == nil {
		t.Fatal("protected segment did not evict least recently used first")
	}
	// Too large for the cache: returned, not kept.
	if e := c.put(key(999), nil, 26, false, nil, false); e == nil || c.get(key(999), false) != nil {
		t.Fatal("a decoder above a quarter of the budget was cached")
	}
	c.dropFile(m)
	check("drop")
	if c.probUsed != 0 || c.protUsed != 0 || len(c.byKey) != 0 {
		t.Fatalf("after dropFile: %d + %d bytes, %d entries", c.probUsed, c.protUsed, len(c.byKey))
	}
}

// TestDecodedCost: a chunk's cost counts its bytes, what opening it
// allocated (an inflated zstd body), and its payload only when the payload
// is not a view of its bytes.
func TestDecodedCost(t *testing.T) {
	vals := make([]int64, 4096)
	for i := range vals {
		vals[i] = int64(i % 7)
	}
	p := all.Policy()
	p.Force = &encoding.Tree{Kind: encoding.KindTrivial}
	node, _, err := p.Encode(nil, vals)
	if err != nil {
		t.Fatal(err)
	}
	z, err := encoding.Compress(node, 0, all.Options())
	if err != nil {
		t.Fatal(err)
	}
	if len(z) >= len(node) {
		t.Fatalf("compressed node of %d bytes, plain %d", len(z), len(node))
	}
	var alloc int64
	o := *all.Options()
	o.Allocated = &alloc
	if _, err := encoding.Open(z, &o); err != nil {
		t.Fatal(err)
	}
	if alloc < 8*4096 || alloc > 8*4096+1024 {
		t.Fatalf("opening a zstd node of 4096 int64 counted %d bytes allocated", alloc)
	}
	raw := append(make([]byte, 9), z...)
	if got, want := decodedCost(raw, raw[9:], alloc), int64(len(raw))+alloc+decoderAllowance; got != want {
		t.Fatalf("payload in place: cost %d, want %d", got, want)
	}
	own := append([]byte(nil), z...)
	if got, want := decodedCost(raw, own, alloc), int64(len(raw)+len(own))+alloc+decoderAllowance; got != want {
		t.Fatalf("payload of its own: cost %d, want %d", got, want)
	}
}

// TestDecoderCacheLeases: a decoder over recycled memory is seen only by
// point lookups, each of which holds it; its memory returns when neither
// the cache nor any lookup holds it; a decoder opened by another query
// replaces it rather than being swapped for it.
func TestDecoderCacheLeases(t *testing.T) {
	m := &fileMeta{}
	k := chunkKey{m: m, chunk: 1}
	c := newDecoderCache(100)
	l := newLease(100, c.freeList())
	e := c.put(k, nil, 10, true, []*lease{l}, true)
	l.release() // the query that read it is done; the entry holds it
	if got := l.refs.Load(); got != 1 {
		t.Fatalf("lease held %d times by a cached entry, want 1", got)
	}
	if c.get(k, false) != nil {
		t.Fatal("a scan sees a decoder over recycled memory")
	}
	if got := c.get(k, true); got != e {
		t.Fatal("a lookup does not see the cached decoder")
	}
	if got := e.holders.Load(); got != 3 { // the cache, the put and the get
		t.Fatalf("entry held %d times, want 3", got)
	}
	e.release()
	e.release()
	c.dropFile(m)
	if got := l.refs.Load(); got != 0 {
		t.Fatalf("lease held %d times after every holder let go, want 0", got)
	}
	l2 := newLease(100, c.freeList())
	c.put(k, nil, 10, true, []*lease{l2}, true).release()
	l2.release()
	plain := c.put(k, nil, 10, false, nil, false)
	if plain.leased() || c.get(k, false) != plain || l2.refs.Load() != 0 {
		t.Fatalf("a scan's decoder did not replace a leased one (lease held %d times)", l2.refs.Load())
	}
}
