package bitpack

import (
	"encoding/binary"
	"math/bits"
)

// maxPlaneWidth is the widest stream Sum adds by bit planes; wider streams
// are unpacked 64 values at a time into a stack buffer and added.
const maxPlaneWidth = 4

// planeMasks[w][p][j], for widths 1..maxPlaneWidth, selects bit j of every
// value of width w in a 64-bit word of phase p (the word's index modulo w:
// 64 values of width w fill w words, so the layout repeats every w words).
var planeMasks = func() (m [maxPlaneWidth + 1][maxPlaneWidth][maxPlaneWidth]uint64) {
	for w := 1; w <= maxPlaneWidth; w++ {
		for bit := 0; bit < 64*w; bit++ {
			m[w][bit/64][bit%w] |= 1 << uint(bit%64)
		}
	}
	return m
}()

// Sum returns the sum, wrapping modulo 2^64, of values [start, start+n) of
// a stream of width w (0..64). src must hold Bytes(start+n, w) bytes.
//
// Nothing is stored per value. Streams up to 4 bits wide are added by bit
// planes: the sum is Σ_j 2^j·(number of values with bit j set), and each
// count is a population count of the stream's words under a mask that
// picks bit j of every value (w popcounts per word, so w²/64 per value: a
// 1-bit stream costs one popcount per 64 values); 2- and 4-bit streams,
// whose values lie within words, are added within each word instead
// (sumLanes). Wider streams unpack whole groups of 64 values into a stack
// buffer with the generated kernels and add them; partial groups at
// either end read values one at a time.
func Sum(src []byte, w, start, n int) uint64 {
	if w == 0 || n <= 0 {
		return 0
	}
	if w <= maxPlaneWidth {
		return sumPlanes(src, w, start, n)
	}
	var s uint64
	end := start + n
	i := start
	for ; i < end && i&63 != 0; i++ {
		s += Get(src, w, i)
	}
	if full := (end - i) &^ 63; full > 0 {
		bb := 8 * w
		var tmp [64]uint64
		for g := i / 64 * bb; i+64 <= end; g, i = g+bb, i+64 {
			unpack64Block(w, src[g:g+bb], &tmp, 0)
			s += sum64(&tmp)
		}
	}
	for ; i < end; i++ {
		s += Get(src, w, i)
	}
	return s
}

// sum64 adds 64 values with four independent accumulators.
func sum64(v *[64]uint64) uint64 {
	var a, b, c, d uint64
	for i := 0; i < 64; i += 4 {
		a += v[i]
		b += v[i+1]
		c += v[i+2]
		d += v[i+3]
	}
	return a + b + c + d
}

// sumPlanes is Sum for widths 1..maxPlaneWidth by population counts of bit
// planes over the words that hold bits [start·w, (start+n)·w): the first
// and last words masked to the range, the ones between loaded whole.
func sumPlanes(src []byte, w, start, n int) uint64 {
	lo, hi := uint64(start)*uint64(w), uint64(start+n)*uint64(w) // bit range
	first, last := lo/64, (hi-1)/64                              // word range
	head := word(src, first) & (^uint64(0) << (lo & 63))
	tail := ^uint64(0) >> (63 - (hi-1)&63)
	if w == 1 {
		if first == last {
			return uint64(bits.OnesCount64(head & tail))
		}
		c := bits.OnesCount64(head) + bits.OnesCount64(word(src, last)&tail)
		mid := src[8*(first+1) : 8*last]
		for len(mid) >= 8 {
			c += bits.OnesCount64(binary.LittleEndian.Uint64(mid))
			mid = mid[8:]
		}
		return uint64(c)
	}
	if w == 2 || w == 4 {
		return sumLanes(src, w, first, last, head, tail)
	}
	var cnt [maxPlaneWidth]int
	masks := &planeMasks[w]
	phase := int(first % uint64(w))
	add := func(x uint64) {
		m := &masks[phase]
		for j := 0; j < w; j++ {
			cnt[j] += bits.OnesCount64(x & m[j])
		}
		if phase++; phase == w {
			phase = 0
		}
	}
	if first == last {
		add(head & tail)
	} else {
		add(head)
		mid := src[8*(first+1) : 8*last]
		for len(mid) >= 8 {
			add(binary.LittleEndian.Uint64(mid))
			mid = mid[8:]
		}
		add(word(src, last) & tail)
	}
	var s uint64
	for j := 0; j < w; j++ {
		s += uint64(cnt[j]) << uint(j)
	}
	return s
}

// Masks of the low 2 bits of each nibble, of the low nibble of each byte
// and of the low byte of each 16-bit lane.
const (
	low2s = 0x3333333333333333
	low4s = 0x0F0F0F0F0F0F0F0F
	low8s = 0x00FF00FF00FF00FF
)

// sumLanes is sumPlanes for widths 2 and 4, whose values never straddle
// two words: each word's values are added within it (SWAR), pairs of
// 2-bit values into nibbles, then nibbles into bytes (at most 30 each),
// and the byte sums of up to 8 words (at most 240 each) folded into the
// total. A word of 4-bit values costs five operations where bit planes
// took four population counts.
func sumLanes(src []byte, w int, first, last, head, tail uint64) uint64 {
	if first == last {
		return sumBytes(laneBytes(head&tail, w))
	}
	s := sumBytes(laneBytes(head, w) + laneBytes(word(src, last)&tail, w))
	mid := src[8*(first+1) : 8*last]
	for len(mid) >= 64 {
		acc := laneBytes(binary.LittleEndian.Uint64(mid), w) +
			laneBytes(binary.LittleEndian.Uint64(mid[8:]), w) +
			laneBytes(binary.LittleEndian.Uint64(mid[16:]), w) +
			laneBytes(binary.LittleEndian.Uint64(mid[24:]), w) +
			laneBytes(binary.LittleEndian.Uint64(mid[32:]), w) +
			laneBytes(binary.LittleEndian.Uint64(mid[40:]), w) +
			laneBytes(binary.LittleEndian.Uint64(mid[48:]), w) +
			laneBytes(binary.LittleEndian.Uint64(mid[56:]), w)
		s += sumBytes(acc)
		mid = mid[64:]
	}
	var acc uint64
	for len(mid) >= 8 {
		acc += laneBytes(binary.LittleEndian.Uint64(mid), w)
		mid = mid[8:]
	}
	return s + sumBytes(acc)
}

// laneBytes returns, in each byte, the sum of the values of width w (2
// or 4) that x holds in that byte: at most 30.
func laneBytes(x uint64, w int) uint64 {
	if w == 2 {
		x = x&low2s + x>>2&low2s // nibbles of at most 6
	}
	return x&low4s + x>>4&low4s
}

// sumBytes returns the sum of the eight bytes of x: pairs into 16-bit
// lanes (at most 510 each), whose sum (at most 2040) the multiplication
// gathers in the top lane without a carry between lanes.
func sumBytes(x uint64) uint64 {
	x = x&low8s + x>>8&low8s
	return x * 0x0001000100010001 >> 48
}

// word returns 64-bit word k of the stream, zero-padded past its end.
func word(src []byte, k uint64) uint64 {
	b := 8 * k
	if b+8 <= uint64(len(src)) {
		return binary.LittleEndian.Uint64(src[b:])
	}
	var x uint64
	for i := uint64(0); b+i < uint64(len(src)) && i < 8; i++ {
		x |= uint64(src[b+i]) << (8 * i)
	}
	return x
}

// SumRef is the value-by-value reference for Sum.
func SumRef(src []byte, w, start, n int) uint64 {
	var s uint64
	for i := start; i < start+n; i++ {
		s += Get(src, w, i)
	}
	return s
}
