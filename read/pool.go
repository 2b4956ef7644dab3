package read

import (
	"math/bits"
	"sync"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// bufferPool is the default Arrow allocator of a File: output buffers of
// scans come from it and return to it when the caller releases the record,
// so a scan reuses the memory of the batches before it instead of
// allocating (and zeroing) fresh buffers for every batch. Buffers it did
// not hand out are left to the garbage collector.
type bufferPool struct {
	classes [maxClass - minClass + 1]sync.Pool
	mu      sync.Mutex
	live    map[unsafe.Pointer]int // base address → class, for buffers handed out
}

// Size classes are powers of two from 4 KiB to 64 MiB; other sizes are
// plain allocations.
const (
	minClass = 12
	maxClass = 26
)

func newBufferPool() *bufferPool {
	return &bufferPool{live: map[unsafe.Pointer]int{}}
}

func classOf(size int) int {
	if size <= 1<<minClass {
		return minClass
	}
	c := bits.Len(uint(size - 1))
	if c > maxClass {
		return -1
	}
	return c
}

// Allocate returns size bytes; the contents are not zeroed when reused.
func (p *bufferPool) Allocate(size int) []byte {
	c := classOf(size)
	if c < 0 || size == 0 {
		return make([]byte, size)
	}
	var b []byte
	if v := p.classes[c-minClass].Get(); v != nil {
		b = unsafe.Slice((*byte)(v.(unsafe.Pointer)), 1<<c)
	} else {
		b = make([]byte, 1<<c)
	}
	p.mu.Lock()
	p.live[unsafe.Pointer(unsafe.SliceData(b))] = c
	p.mu.Unlock()
	return b[:size]
}

// Reallocate grows or shrinks b, keeping its contents.
func (p *bufferPool) Reallocate(size int, b []byte) []byte {
	if size <= cap(b) {
		return b[:size]
	}
	nb := p.Allocate(size)
	copy(nb, b)
	p.Free(b)
	return nb
}

// Free returns a buffer handed out by Allocate to its class.
func (p *bufferPool) Free(b []byte) {
	if cap(b) == 0 {
		return
	}
	ptr := unsafe.Pointer(unsafe.SliceData(b))
	p.mu.Lock()
	c, ok := p.live[ptr]
	if ok {
		delete(p.live, ptr)
	}
	p.mu.Unlock()
	if ok {
		p.classes[c-minClass].Put(ptr)
	}
}

var _ memory.Allocator = (*bufferPool)(nil)

// pooledBuf allocates a typed buffer of n values from the pool; Release of
// the Arrow buffer that wraps it (shred.Stream.Owned) returns it.
func pooledBuf[T any](p *bufferPool, n int) []T {
	var z T
	size := int(unsafe.Sizeof(z))
	if n == 0 {
		return nil
	}
	b := p.Allocate(n * size)
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), n)
}
