package read

import "sync"

// LiveBuffers returns how many buffers of f's pool are handed out and not
// yet returned, for tests that check released batches give them back.
func LiveBuffers(f *File) int {
	f.pool.mu.Lock()
	defer f.pool.mu.Unlock()
	return len(f.pool.live)
}

// ChunkEvents records, while set, every fetch call (the chunks it read, as
// stripe/stream/chunk) and every chunk opened; the returned function stops
// recording. Tests use it one at a time.
func ChunkEvents() (fetches *[][][3]int, opens *[][3]int, stop func()) {
	var mu sync.Mutex
	fetches, opens = &[][][3]int{}, &[][3]int{}
	onFetch = func(keys []chunkKey) {
		mu.Lock()
		defer mu.Unlock()
		var call [][3]int
		for _, k := range keys {
			call = append(call, [3]int{k.stripe, k.stream, k.chunk})
		}
		*fetches = append(*fetches, call)
	}
	onOpen = func(k chunkKey) {
		mu.Lock()
		defer mu.Unlock()
		*opens = append(*opens, [3]int{k.stripe, k.stream, k.chunk})
	}
	return fetches, opens, func() { onFetch, onOpen = nil, nil }
}

// LiveLeases returns how many buffers of recycled chunk memory are held.
func LiveLeases() int64 { return liveLeases.Load() }

// ScribbleReleased makes released chunk memory be overwritten, so that a
// use after release reads garbage; it returns a function that restores
// the default.
func ScribbleReleased() (restore func()) {
	scribble = true
	return func() { scribble = false }
}

// LeaseClass exposes the size classes of recycled chunk memory.
func LeaseClass(n int) (class, size int) { return leaseClass(n) }

// RecycledBytes returns the bytes of released chunk memory the decoder
// cache of f keeps.
func RecycledBytes(f *File) int64 {
	fl := f.cache.freeList()
	if fl == nil {
		return 0
	}
	fl.mu.Lock()
	defer fl.mu.Unlock()
	return fl.bytes
}
