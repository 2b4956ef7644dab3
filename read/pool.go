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
//
// Buffers of a MiB and more return to a process-wide free list with a byte
// budget (SetRecycledOutputBytes) instead of a sync.Pool: every second
// garbage collection empties a sync.Pool, and a read that allocates tens of
// MiB a call (a stacked record of windows, the batches of a wide scan)
// collects often enough that its buffers never came back, so every call
// faulted in and cleared fresh memory.
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
	if size >= largeOutput {
		if c, n := leaseClass(size); c >= 0 {
			b := recycledOutput.take(c)
			if b == nil {
				b = make([]byte, n)
			}
			p.mu.Lock()
			p.live[unsafe.Pointer(unsafe.SliceData(b))] = largeTag + c
			p.mu.Unlock()
			return b[:size]
		}
	}
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
	switch {
	case ok && c >= largeTag:
		recycledOutput.put(c-largeTag, unsafe.Slice((*byte)(ptr), leaseClassSize(c-largeTag)))
	case ok:
		p.classes[c-minClass].Put(ptr)
	}
}

// largeOutput is the size from which output buffers go to recycledOutput;
// largeTag marks their classes (leaseClass) in a pool's live map.
const (
	largeOutput = 1 << 20
	largeTag    = 1 << 10
)

// DefaultRecycledOutputBytes bounds the released output buffers of a MiB
// and more that the process keeps for later reads.
const DefaultRecycledOutputBytes = 128 << 20

// recycledOutput is the process-wide free list of large output buffers,
// by leaseClass (four classes per power of two, so at most a quarter of a
// buffer is waste).
var recycledOutput = &freeList{budget: DefaultRecycledOutputBytes}

// SetRecycledOutputBytes sets how many bytes of released output buffers
// (Arrow buffers of a MiB and more that a File's records held, returned
// when the caller released them) the process keeps for later reads, and
// drops what exceeds it (0: none; buffers beyond the budget are left to the
// garbage collector).
func SetRecycledOutputBytes(n int64) { recycledOutput.setBudget(n) }

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
