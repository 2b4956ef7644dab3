package encoding

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"sync"
	"unsafe"

	"github.com/zeebo/xxh3"
)

// A stream is often selected more than once on the same values: the
// writer's size estimate of a stream (Policy.EstimateSize) runs the trials
// that the stream's selection runs next, a chunk that gives up a shared
// alphabet is selected again without it, and a chunk whose replayed
// layout drifted is selected afresh. Each of those selections trial-encodes
// every candidate on the same sample, and encodes its yardstick and
// finalists whole again. A TrialCache remembers the trial encodes and the
// ranking whole encodes of the top-level selections (Ctx.choose outside
// any trial) by the content of the values, the candidate and every
// setting such an encode depends on, so a repeated one costs a hash
// instead of an encode and its children's selections, and selection
// chooses exactly what it chose without the cache. The writer keeps one
// per file (Policy.Trials).
//
// A trial does not depend on the policy's shared alphabet unless the
// candidate is one that encodes against it (Codec.NeedsShared), whose
// trials are not cached; nor on the whole sequence (Ctx.Whole) unless its
// encoder asks for it, and those trials are not cached either.
type TrialCache struct {
	mu      sync.Mutex
	entries map[trialKey]trialEntry
	bytes   int
	// seed keys the content hashes of this cache's keys (contentHash): a
	// hit is taken on the hash alone, so it must not be one that values
	// can be made to collide in. Unseeded xxh3 is: two sequences of int64
	// that differ by 2^32 in two values a stripe apart, whose low halves
	// match the default secret there, hash alike (the lanes' multiplies
	// are zero and the differences cancel in one accumulator), and a
	// column of such values was stored with another column's cached node
	// or packed with its statistics (review58_collide_test.go). A random
	// seed of each cache keeps its secret unknown to whoever chose the
	// values.
	seed uint64
	// stats holds the statistics selection computed, by the content of
	// the values (Ctx.stats).
	stats map[statsKey]Stats
}

// Selection computes the statistics of the same values many times: a
// stream's before its size estimate and again before its selection, a
// binary sequence's lengths in the trial of each candidate that stores
// them and again in the winner's encode. A TrialCache remembers them by
// the values' content, as it does trials, so a repeated sequence costs a
// hash (a fraction of a statistics pass) instead of a pass; a third to
// two fifths of the integer values whose statistics a small write
// computes are repeats.

// statsKey names the statistics of one sequence: its content hash, type
// and length, and whether the distinct count was skipped.
type statsKey struct {
	lo, hi uint64
	n      int
	typ    Type
	bare   bool
}

// statsCacheLen bounds the statistics a cache holds, about 300 bytes
// each with their map slot; past it they are dropped. The repeats come
// close together (the selections of one stream).
const statsCacheLen = 1 << 12

// stats returns ComputeStats(vals), or ComputeStatsNoDistinct(vals) when
// withDistinct is false, through the policy's TrialCache when it has one.
// The caller gets a copy of its own.
func (c *Ctx) stats(vals any, withDistinct bool) *Stats {
	tc := c.p.Trials
	if tc == nil {
		return computeStats(vals, withDistinct)
	}
	lo, hi, ok := contentHash(vals, tc.seed)
	if !ok {
		return computeStats(vals, withDistinct)
	}
	k := statsKey{lo: lo, hi: hi, n: LenOf(vals), typ: TypeOf(vals), bare: !withDistinct}
	tc.mu.Lock()
	st, hit := tc.stats[k]
	tc.mu.Unlock()
	if hit {
		return &st
	}
	sp := computeStats(vals, withDistinct)
	tc.mu.Lock()
	if tc.stats == nil || len(tc.stats) >= statsCacheLen {
		tc.stats = map[statsKey]Stats{}
	}
	tc.stats[k] = *sp
	tc.mu.Unlock()
	return sp
}

// trialCacheBytes bounds the bytes a cache holds, each entry counted as
// its node's bytes plus trialEntryBytes; past it the cache is emptied, so
// it stays small whatever is written. Nodes over trialCacheMaxNode bytes
// are not kept.
//
// trialEntryBytes is about what an entry takes beside its node: its map
// slot, key and encoding tree. Counting the nodes alone let a writer of
// tiny chunks (ChunkValues 1: nodes of a few bytes) keep a million
// entries, some 100 MB for 8 MiB of nodes.
const (
	trialCacheBytes   = 8 << 20
	trialCacheMaxNode = 1 << 20
	trialEntryBytes   = 384
)

type trialKey struct {
	lo, hi uint64 // 128-bit hash of the sample's values
	policy uint64 // the policy settings a trial depends on
	ctx    uint64 // kind, type, length, depth, parent, nest, whole, rank
	scale  float64
}

type trialEntry struct {
	node []byte
	tree *Tree
	err  error
}

// NewTrialCache returns an empty cache, its content hashes keyed by a
// seed of its own (TrialCache.seed).
func NewTrialCache() *TrialCache {
	return &TrialCache{entries: map[trialKey]trialEntry{}, seed: rand.Uint64()}
}

// Reset empties the cache, releasing its memory.
func (tc *TrialCache) Reset() {
	if tc == nil {
		return
	}
	tc.mu.Lock()
	tc.entries = map[trialKey]trialEntry{}
	tc.bytes = 0
	tc.stats = nil
	tc.mu.Unlock()
}

// Len returns the number of trials the cache holds.
func (tc *TrialCache) Len() int {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	return len(tc.entries)
}

func (tc *TrialCache) get(k trialKey) (trialEntry, bool) {
	tc.mu.Lock()
	e, ok := tc.entries[k]
	tc.mu.Unlock()
	return e, ok
}

func (tc *TrialCache) put(k trialKey, node []byte, tree *Tree, err error) {
	if len(node) > trialCacheMaxNode {
		return
	}
	e := trialEntry{node: append([]byte(nil), node...), tree: tree, err: err}
	tc.mu.Lock()
	if tc.bytes+len(e.node)+trialEntryBytes > trialCacheBytes {
		// a fresh map: clear keeps the buckets of every entry it held
		tc.entries = map[trialKey]trialEntry{}
		tc.bytes = 0
	}
	if old, ok := tc.entries[k]; ok {
		tc.bytes -= len(old.node) + trialEntryBytes
	}
	tc.entries[k] = e
	tc.bytes += len(e.node) + trialEntryBytes
	tc.mu.Unlock()
}

// trialSig is what identifies the trials of one selection in a
// TrialCache: the sample's content and the settings of the policy that a
// trial depends on. ok is false when the values cannot be hashed.
type trialSig struct {
	lo, hi, policy uint64
	ok             bool
}

// trialSig hashes a selection's sample for the policy's trial cache.
func (c *Ctx) trialSig(sample any) trialSig {
	lo, hi, ok := contentHash(sample, c.p.Trials.seed)
	if !ok {
		return trialSig{}
	}
	return trialSig{lo: lo, hi: hi, policy: c.p.trialHash(), ok: true}
}

// key returns the cache key of the encode of cd on values of statistics
// st at the context tc.
func (s trialSig) key(cd *Codec, st *Stats, tc *Ctx) trialKey {
	ctx := uint64(cd.Kind) | uint64(st.Type)<<8 | uint64(tc.depth)<<16 | uint64(tc.parent)<<24 |
		uint64(tc.nest)<<32 | uint64(uint32(st.N))<<40 ^ uint64(st.N)>>24<<60
	if tc.whole {
		ctx ^= 1 << 38
	}
	if tc.rank {
		ctx ^= 1 << 39
	}
	return trialKey{lo: s.lo, hi: s.hi, policy: s.policy, ctx: ctx, scale: tc.scale}
}

// trialHash hashes the policy settings that trial encodes depend on
// (Finalists and FinalistWindow do not: trials encode nothing whole), the
// bound of balanced selection included (the whole encodes that rank
// candidates select their children under it).
func (p *Policy) trialHash() uint64 {
	var b [108]byte
	binary.LittleEndian.PutUint64(b[0:], uint64(uintptr(unsafe.Pointer(p.Registry))))
	binary.LittleEndian.PutUint64(b[8:], uint64(p.MaxDepth))
	binary.LittleEndian.PutUint64(b[16:], math.Float64bits(p.MinSaving))
	binary.LittleEndian.PutUint64(b[24:], math.Float64bits(p.ZstdDecode.PerFrame))
	binary.LittleEndian.PutUint64(b[32:], math.Float64bits(p.ZstdDecode.PerByte))
	binary.LittleEndian.PutUint64(b[40:], uint64(p.SampleRuns))
	binary.LittleEndian.PutUint64(b[48:], uint64(p.SampleLen))
	binary.LittleEndian.PutUint64(b[56:], uint64(p.ExactBelow))
	b[64] = byte(p.Optimize)
	if p.Zstd {
		b[65] = 1
	}
	if p.Allow != nil {
		b[66] = 1
		for k, ok := range p.Allow {
			if ok {
				b[68+int(k)/8] |= 1 << (k % 8)
			}
		}
	}
	binary.LittleEndian.PutUint64(b[100:], math.Float64bits(p.BalancedLarger))
	return xxh3.Hash(b[:])
}

// contentHash returns a 128-bit hash of the values of a sequence, keyed
// by seed (TrialCache.seed).
func contentHash(vals any, seed uint64) (lo, hi uint64, ok bool) {
	var raw []byte
	switch v := vals.(type) {
	case []bool:
		raw = rawOf(v, 1)
	case []int8:
		raw = rawOf(v, 1)
	case []uint8:
		raw = v
	case []int16:
		raw = rawOf(v, 2)
	case []uint16:
		raw = rawOf(v, 2)
	case []int32:
		raw = rawOf(v, 4)
	case []uint32:
		raw = rawOf(v, 4)
	case []float32:
		raw = rawOf(v, 4)
	case []int64:
		raw = rawOf(v, 8)
	case []uint64:
		raw = rawOf(v, 8)
	case []float64:
		raw = rawOf(v, 8)
	case Bytes:
		return bytesHash(&v, seed)
	case *Bytes:
		return bytesHash(v, seed)
	default:
		return 0, 0, false
	}
	h := xxh3.Hash128Seed(raw, seed)
	return h.Lo, h.Hi ^ uint64(len(raw)), true
}

// rawOf views a slice of fixed-width values as its bytes.
func rawOf[T any](v []T, size int) []byte {
	if len(v) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(v))), len(v)*size)
}

// bytesHash hashes binary values: their bytes, and their ends relative
// to the first value's start, which the lengths determine. The two are
// hashed where they lie, the ends through a pooled scratch only when the
// values are a slice of a longer sequence, rather than copied together
// into a fresh buffer: the copy was 3 % of the bytes a small write
// allocated. Both are keyed by seed (the ends through the bytes' hash).
func bytesHash(b *Bytes, seed uint64) (lo, hi uint64, ok bool) {
	n := b.Len()
	if n == 0 {
		return 0, 0, true
	}
	base := b.Offsets[0]
	d := xxh3.Hash128Seed(b.Data[base:b.Offsets[n]], seed)
	ends := b.Offsets[1 : n+1]
	var sc *[]int32
	if base != 0 {
		sc = endsPool.Get().(*[]int32)
		rebased := (*sc)[:0]
		for _, o := range ends {
			rebased = append(rebased, o-base)
		}
		*sc, ends = rebased, rebased
	}
	h := xxh3.Hash128Seed(rawOf(ends, 4), d.Lo)
	if sc != nil {
		endsPool.Put(sc)
	}
	return h.Lo, h.Hi ^ d.Hi, true
}

// endsPool holds the scratch bytesHash rebases values' ends in.
var endsPool = sync.Pool{New: func() any { return new([]int32) }}
