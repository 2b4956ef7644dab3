package encoding

import (
	"bytes"
	"unsafe"

	"github.com/zeebo/xxh3"
)

// Parameter searches remembered per file. Selection encodes the same
// sequence several times: a candidate's trial and its whole encode, a
// finalist ranked with the trial encoder's zstd and then encoded again at
// the real level, and each of those selects the children again (ALP's
// digits are the same integers every time ALP encodes the same floats).
// An encoder whose parameter is an expensive pure function of its input
// (LagDelta's lag search, ALP's exponent search) asks Ctx.Memo for it, so
// the search runs once per distinct input and file. Entries are keyed by
// the input's bytes, compared in full, so a hit returns exactly what the
// search would: the encoded bytes are the same with or without the cache.
// Like the zstd frames, the entries live in the file's ZstdCache, so
// writing the same data twice costs what writing it once does.

// memoKey names one remembered search: the encoder's tag and a hash of its
// input.
type memoKey struct {
	tag  string
	hash uint64
}

type memoEntry struct {
	src []byte
	val any
}

// Bounds of the remembered searches: inputs above memoMaxInput bytes are
// not kept (their searches are negligible beside their encodes), and the
// entries are dropped when their inputs pass memoBytes.
const (
	memoMaxInput = 1 << 20
	memoBytes    = 8 << 20
)

// Memo returns compute(), remembered in the file's cache (Policy.ZstdCache)
// under tag for the input whose bytes are src: a later call with the same
// tag and the same bytes returns the remembered value without computing
// it. compute must be a pure function of src, and the value it returns
// must not be modified by callers. Without a cache it just computes.
func (c *Ctx) Memo(tag string, src []byte, compute func() any) any {
	zc := c.p.ZstdCache
	if zc == nil || len(src) > memoMaxInput {
		return compute()
	}
	key := memoKey{tag: tag, hash: xxh3.Hash(src)}
	zc.mu.Lock()
	e, ok := zc.memo[key]
	zc.mu.Unlock()
	if ok && bytes.Equal(e.src, src) {
		return e.val
	}
	v := compute()
	zc.mu.Lock()
	if zc.memo == nil || zc.memoBytes+len(src) > memoBytes {
		zc.memo, zc.memoBytes = map[memoKey]memoEntry{}, 0
	}
	if old, ok := zc.memo[key]; ok {
		zc.memoBytes -= len(old.src)
	}
	zc.memo[key] = memoEntry{src: append([]byte(nil), src...), val: v}
	zc.memoBytes += len(src)
	zc.mu.Unlock()
	return v
}

// BytesOf returns the memory of a slice of fixed-size values as bytes, the
// input Memo keys a search of them by. The bytes alias vals.
func BytesOf[T Integer | ~float32 | ~float64](vals []T) []byte {
	if len(vals) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&vals[0])), len(vals)*int(unsafe.Sizeof(vals[0])))
}
