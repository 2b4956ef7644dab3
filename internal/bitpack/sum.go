package bitpack

import (
	"encoding/binary"
	"math/bits"
)

// maxPlaneWidth is the widest stream Sum adds up by bit planes. A group
// of 64 values of width w costs w*w popcounts that way against 64
// extractions when unpacking: 5x faster at 2 bits, 1.3x at 5, slower
// from about 6 bits on (BenchmarkSum).
const maxPlaneWidth = 5

// planes[w][(t%w)*w+j] selects the bits of 64-bit word t of a stream of
// width w that are bit j of their value: stream bit p belongs to bit p%w
// of value p/w, and 64*t is a multiple of w every w words, so the
// pattern repeats with period w.
var planes = func() [maxPlaneWidth + 1][]uint64 {
	var p [maxPlaneWidth + 1][]uint64
	for w := 1; w <= maxPlaneWidth; w++ {
		p[w] = make([]uint64, w*w)
		for t := 0; t < w; t++ {
			for b := 0; b < 64; b++ {
				j := (64*t + b) % w
				p[w][t*w+j] |= 1 << b
			}
		}
	}
	return p
}()

// Sum returns the sum (wrapping) of values [start, start+n) of a stream
// of width w (0..64) without unpacking them where the width is narrow:
// the bits of each plane (bit j of every value) are counted with popcount
// and weighted by 2^j. Readers that need only a running total over rows
// they skip (Delta moving inside a block) use it. src must hold
// Bytes(start+n, w) bytes.
func Sum(src []byte, w, start, n int) uint64 {
	if w == 0 || n <= 0 {
		return 0
	}
	if w > maxPlaneWidth {
		var tmp [64]uint64
		var s uint64
		// the first piece ends at a group boundary, so the others are
		// whole groups for the unrolled kernels
		for i, m := 0, min(n, 64-start%64); i < n; i, m = i+m, min(64, n-i-m) {
			Unpack(tmp[:m], src, w, start+i)
			for _, v := range tmp[:m] {
				s += v
			}
		}
		return s
	}
	pl := planes[w]
	lo, hi := uint64(start)*uint64(w), uint64(start+n)*uint64(w) // stream bits [lo, hi)
	t0, t1 := lo/64, (hi-1)/64
	tm := int(t0 % uint64(w)) // t mod w
	var s uint64
	for t := t0; t <= t1; t++ {
		var x uint64
		if o := t * 8; o+8 <= uint64(len(src)) {
			x = binary.LittleEndian.Uint64(src[o:])
		} else {
			for k := uint64(0); o+k < uint64(len(src)) && k < 8; k++ {
				x |= uint64(src[o+k]) << (8 * k)
			}
		}
		if t == t0 {
			x &= ^uint64(0) << (lo % 64)
		}
		if t == t1 && hi%64 != 0 {
			x &= ^uint64(0) >> (64 - hi%64)
		}
		m := pl[tm*w : tm*w+w]
		for j, mk := range m {
			s += uint64(bits.OnesCount64(x&mk)) << j
		}
		if tm++; tm == w {
			tm = 0
		}
	}
	return s
}
