package encoding

import (
	"encoding/binary"
	"testing"
)

// review58Pair returns two sequences of n uint64 that differ in two values
// and hash alike under unseeded 128-bit xxh3 (see TrialCache.seed).
func review58Pair(n int) (a, b []uint64) {
	a = make([]uint64, n)
	for i := range a {
		a[i] = uint64(i % 50)
	}
	a[0], a[8] = 0x396cfeb8, 0x2c81017c
	b = append([]uint64(nil), a...)
	b[0] += 1 << 32
	b[8] -= 1 << 32
	return a, b
}

// TestReview58StatsCacheKeepsCollidingSequencesApart: statistics cached
// by content were returned for another sequence whose unseeded hash
// matched, its bounds too narrow for its values (an encoder packing it
// with them truncates). The pair hashes alike without a seed, as int64,
// as uint64 and as binary values of 8 bytes, so the cache must key them
// apart.
func TestReview58StatsCacheKeepsCollidingSequencesApart(t *testing.T) {
	a, b := review58Pair(100)
	if la, ha, _ := contentHash(a, 0); true {
		if lb, hb, _ := contentHash(b, 0); la != lb || ha != hb {
			t.Fatalf("the pair does not collide unseeded: the test no longer shows what it was written for")
		}
	}
	ai, bi := make([]int64, len(a)), make([]int64, len(b))
	var as, bs Bytes
	for i := range a {
		ai[i], bi[i] = int64(a[i]), int64(b[i])
		as.Append(binary.LittleEndian.AppendUint64(nil, a[i]))
		bs.Append(binary.LittleEndian.AppendUint64(nil, b[i]))
	}
	for _, pair := range [][2]any{{a, b}, {ai, bi}, {as, bs}} {
		c := &Ctx{p: &Policy{Trials: NewTrialCache()}, scale: 1}
		for _, withDistinct := range []bool{true, false} {
			c.stats(pair[0], withDistinct)
			got, want := c.stats(pair[1], withDistinct), computeStats(pair[1], withDistinct)
			if *got != *want {
				t.Errorf("%T (distinct %v): cached statistics %+v, want %+v", pair[1], withDistinct, *got, *want)
			}
		}
	}
}

// TestReview58TrialCacheSeeded: two caches key the same values apart
// (each has a seed of its own), and one cache keys them alike.
func TestReview58TrialCacheSeeded(t *testing.T) {
	a, _ := review58Pair(100)
	t1, t2 := NewTrialCache(), NewTrialCache()
	l1, h1, _ := contentHash(a, t1.seed)
	l2, h2, _ := contentHash(a, t2.seed)
	if l1 == l2 && h1 == h2 {
		t.Errorf("two caches hash the same values alike: seeds %x %x", t1.seed, t2.seed)
	}
	if l, h, _ := contentHash(a, t1.seed); l != l1 || h != h1 {
		t.Errorf("one cache hashes the same values apart")
	}
}

// TestReview58BytesHashFraming: binary values hash by their bytes and
// where each ends (ffad902 hashes the two apart, in place): values cut in
// other places, empty values moved, and one more empty value all hash
// apart, and values hash alike wherever they lie in a longer sequence.
func TestReview58BytesHashFraming(t *testing.T) {
	of := func(vs ...string) Bytes {
		var b Bytes
		for _, v := range vs {
			b.Append([]byte(v))
		}
		return b
	}
	seed := NewTrialCache().seed
	hash := func(b Bytes) [2]uint64 {
		lo, hi, _ := contentHash(b, seed)
		return [2]uint64{lo, hi}
	}
	apart := [][2]Bytes{
		{of("ab", "c"), of("a", "bc")},
		{of("", "x"), of("x", "")},
		{of(""), of("", "")},
		{of("abc"), of("ab", "c")},
		{of("a", "", "b"), of("a", "b", "")},
	}
	for _, p := range apart {
		if hash(p[0]) == hash(p[1]) {
			t.Errorf("%q and %q hash alike", p[0].Data, p[1].Data)
		}
	}
	long := of("zz", "ab", "c", "")
	mid := Bytes{Offsets: long.Offsets[1:4], Data: long.Data}
	if hash(mid) != hash(of("ab", "c")) {
		t.Errorf("values in the middle of a sequence hash apart from the same values alone")
	}
}
