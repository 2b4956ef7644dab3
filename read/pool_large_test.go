package read

import (
	"testing"
	"unsafe"
)

// TestLeaseClassSize checks that the size of every class is the size
// leaseClass gives its largest member.
func TestLeaseClassSize(t *testing.T) {
	for n := 1; n <= 1<<25; n += n/7 + 1 {
		c, size := leaseClass(n)
		if c < 0 {
			continue
		}
		if got := leaseClassSize(c); got != size {
			t.Fatalf("n=%d: class %d size %d, leaseClassSize %d", n, c, size, got)
		}
	}
}

// TestLargeOutputRecycled checks that a released large buffer is handed
// out again, whole, to the next request of its class, and that the budget
// holds.
func TestLargeOutputRecycled(t *testing.T) {
	defer SetRecycledOutputBytes(DefaultRecycledOutputBytes)
	SetRecycledOutputBytes(DefaultRecycledOutputBytes)
	p := newBufferPool()
	a := p.Allocate(3 << 20)
	pa := unsafe.SliceData(a)
	p.Free(a[:10])                // a buffer is returned by its first byte, whatever its length
	b := p.Allocate(3<<20 - 1000) // same class (2.5 MiB to 3 MiB)
	if unsafe.SliceData(b) != pa {
		t.Fatalf("released buffer not reused")
	}
	if len(b) != 3<<20-1000 {
		t.Fatalf("len %d", len(b))
	}
	for i := range b[:cap(b)] { // the whole class is usable
		b[:cap(b)][i] = 1
	}
	p.Free(b)
	SetRecycledOutputBytes(1 << 20) // below one buffer: nothing kept
	if recycledOutput.bytes != 0 {
		t.Fatalf("%d bytes kept over a budget of 1 MiB", recycledOutput.bytes)
	}
	c := p.Allocate(3 << 20)
	p.Free(c)
	if recycledOutput.bytes != 0 {
		t.Fatalf("%d bytes kept over a budget of 1 MiB", recycledOutput.bytes)
	}
}
