// Package bitpack packs unsigned integers of any bit width 0..64 into a
// continuous little-endian bitstream and unpacks them again.
//
// Value i of width w occupies bits [i*w, (i+1)*w) of the stream, least
// significant bit first, where bit k of the stream is bit k%8 of byte k/8.
// A stream of n values is Bytes(n, w) = ceil(n*w/8) bytes. Because 64 values
// of width w fill exactly w 64-bit words, the stream is processed in blocks
// of 64 values by generated, fully unrolled kernels (kernels_gen.go, written
// by ./gen); partial blocks go through a word-at-a-time path. On amd64 with
// AVX2, whole blocks of widths 1, 2, 4, 8 and 16 unpacked to 64 bits go
// through an assembly kernel instead (unpack_amd64.s), tested against the
// generated ones. UnpackRef is a bit-by-bit reference implementation the
// kernels are tested against.
package bitpack

//go:generate go run ./gen -o kernels_gen.go

import (
	"encoding/binary"
	"unsafe"
)

// Bytes returns the size in bytes of a stream of n values of width w.
func Bytes(n, w int) int { return int((uint64(n)*uint64(w) + 7) / 8) }

// maxLaneWidth is the widest stream the lane range kernels test (16-bit
// lanes with a guard bit); it matches the generator's.
const maxLaneWidth = 15

func mask(w int) uint64 {
	if w == 0 {
		return 0
	}
	return ^uint64(0) >> (64 - uint(w))
}

// Get returns value i of a stream of width w. buf must hold at least
// Bytes(i+1, w) bytes.
func Get(buf []byte, w, i int) uint64 {
	if w == 0 {
		return 0
	}
	bit := uint64(i) * uint64(w)
	b, sh := bit>>3, bit&7
	if b+8 <= uint64(len(buf)) {
		x := binary.LittleEndian.Uint64(buf[b:]) >> sh
		if sh+uint64(w) > 64 {
			x |= uint64(buf[b+8]) << (64 - sh)
		}
		return x & mask(w)
	}
	// Near the end of the buffer: gather the remaining bytes one at a time.
	var x uint64
	for k := uint64(0); b+k < uint64(len(buf)) && k < 8; k++ {
		x |= uint64(buf[b+k]) << (8 * k)
	}
	return x >> sh & mask(w)
}

// Unpack decodes values [start, start+len(dst)) of a stream of width w
// (0..64) into dst. src must hold Bytes(start+len(dst), w) bytes.
func Unpack(dst []uint64, src []byte, w, start int) { UnpackAdd(dst, src, w, start, 0) }

// UnpackAdd is Unpack adding base (wrapping) to every value, as
// frame-of-reference decoding needs, in the same pass.
func UnpackAdd(dst []uint64, src []byte, w, start int, base uint64) {
	if w == 0 {
		for i := range dst {
			dst[i] = base
		}
		return
	}
	k := unpack64Kernels[w]
	bb := 8 * w // bytes per group of 64 values
	i := 0
	// head: the rest of a group that starts before start
	if h := start & 63; h != 0 {
		i = min(64-h, len(dst))
		unpackEnd(dst[:i], src, w, start, base)
	}
	if full := (len(dst) - i) &^ 63; full > 0 {
		off := (start + i) / 64 * bb
		if !unpackFast(dst[i:i+full], src[off:off+full/64*bb], w, base) {
			d := unpackLanes(dst[i:i+full], src[off:], w, base)
			if d < full {
				k(src[off+d/64*bb:off+full/64*bb], dst[i+d:i+full], base)
			}
		}
		i += full
	}
	if i < len(dst) {
		unpackEnd(dst[i:], src, w, start+i, base)
	}
}

// unpackEnd is UnpackAdd for the part of one group at either end of a
// run. A part of minGroupPart values or more, of a width the octet
// kernels take, is unpacked through them from its first whole octet (the
// AVX2 kernels do eight values an instruction; eight values start on a
// byte boundary), with the few values before and after it taken one at a
// time. Otherwise, where every value's 8-byte load stays within src
// (w <= 56), each is taken with one load, which for a short part is
// cheaper than a kernel (runs of 100 values at 2 bits that start and end
// inside groups took 1.5x less time than through a whole group,
// BenchmarkUnpackPart); otherwise, near the end of a stream that holds no
// more bytes than its values need, the group goes through the kernel and
// a zero-padded copy.
func unpackEnd(dst []uint64, src []byte, w, start int, base uint64) {
	if len(dst) == 0 {
		return
	}
	if len(dst) >= minGroupPart {
		// the octets inside the part straight into dst, the values
		// before and after them one at a time
		a := (start + 7) &^ 7
		if off := a / 8 * w; off < len(src) {
			if d := unpackOctets(dst[a-start:], src[off:], w, base); d > 0 {
				if unpackEach(dst[:a-start], src, w, start, base) &&
					unpackEach(dst[a-start+d:], src, w, a+d, base) {
					return
				}
			}
		}
	}
	if unpackEach(dst, src, w, start, base) {
		return
	}
	var tmp [64]uint64
	var pad [8 * 64]byte
	bb := 8 * w
	unpack64Block(w, group(src, start/64*bb, bb, &pad), &tmp, base)
	copy(dst, tmp[start&63:])
}

// unpackEach is UnpackAdd one value at a time, each with one 8-byte load,
// when every load stays within src (w <= 56); it reports whether it could.
func unpackEach(dst []uint64, src []byte, w, start int, base uint64) bool {
	if len(dst) == 0 {
		return true
	}
	m := mask(w)
	bit := uint64(start) * uint64(w)
	uw := uint64(w)
	if last := (bit + uint64(len(dst)-1)*uw) >> 3; w > 56 || last+8 > uint64(len(src)) {
		return false
	}
	// every load lies within src (checked above), so each is taken
	// through an 8-byte array view without a bounds check of its own
	p := unsafe.Pointer(unsafe.SliceData(src))
	for i := range dst {
		word := binary.LittleEndian.Uint64((*[8]byte)(unsafe.Add(p, bit>>3))[:])
		dst[i] = word>>(bit&7)&m + base
		bit += uw
	}
	return true
}

// minGroupPart is the shortest part of a group that unpackEnd unpacks
// through the octet kernels rather than one value at a time
// (BenchmarkUnpackPart, runs of 100 values starting inside a group, at 2,
// 3 and 7 bits: 37-38 ns at 16, 39-41 ns at 12 and at 24).
const minGroupPart = 16

// group returns the bb bytes of the group of 64 values at off in src. A
// group at the end of a stream may be cut short (src holds only the bytes
// its values need); it is then copied into pad, zero-padded, so the group
// kernels serve heads and tails too.
func group(src []byte, off, bb int, pad *[8 * 64]byte) []byte {
	if off+bb <= len(src) {
		return src[off : off+bb]
	}
	clear(pad[:bb])
	copy(pad[:bb], src[off:])
	return pad[:bb]
}

// Unpack32 is Unpack for widths up to 32 into 32-bit values.
func Unpack32(dst []uint32, src []byte, w, start int) { Unpack32Add(dst, src, w, start, 0) }

// Unpack32Add is Unpack32 adding base (wrapping) to every value.
func Unpack32Add(dst []uint32, src []byte, w, start int, base uint32) {
	if w > 32 {
		panic("bitpack: Unpack32 of width > 32")
	}
	if w == 0 {
		for i := range dst {
			dst[i] = base
		}
		return
	}
	k := unpack32Kernels[w]
	bb := 8 * w
	i := 0
	if h := start & 63; h != 0 {
		var tmp [64]uint32
		var pad [8 * 64]byte
		unpack32Block(w, group(src, start/64*bb, bb, &pad), &tmp, base)
		i = copy(dst, tmp[h:])
	}
	if full := (len(dst) - i) &^ 63; full > 0 {
		off := (start + i) / 64 * bb
		d := unpack32Lanes(dst[i:i+full], src[off:], w, base)
		if d < full {
			k(src[off+d/64*bb:off+full/64*bb], dst[i+d:i+full], base)
		}
		i += full
	}
	if i < len(dst) {
		var tmp [64]uint32
		var pad [8 * 64]byte
		unpack32Block(w, group(src, (start+i)/64*bb, bb, &pad), &tmp, base)
		copy(dst[i:], tmp[:])
	}
}

// RangeMask tests values [start, start+n) of a stream of width w (1..64)
// against the closed range [lo, lo+span], computed as v-lo <= span in
// wrapping arithmetic, and clears bit i of sel for each value start+i out
// of range. start must be a multiple of 64 and sel must hold (n+63)/64
// words; bits already clear are left clear and their words skipped. Whole
// blocks are tested by kernels that never store the values: with a range
// that does not wrap, streams up to 32 bits wide by AVX2 kernels that
// test 8 values at a time where the CPU has AVX2 (3-8x faster than the Go
// kernels, BenchmarkRangeMask), else up to 15 bits by generated lane kernels
// that compare 4 or 8 values per 64-bit operation (SWAR); wider ones a
// value at a time.
func RangeMask(src []byte, w, start, n int, lo, span uint64, sel []uint64) {
	if start&63 != 0 {
		panic("bitpack: RangeMask start not a multiple of 64")
	}
	bb := 8 * w
	full := n &^ 63
	i0 := 0
	noWrap := w <= 64 && lo <= mask(w) && span <= ^uint64(0)-lo
	if noWrap {
		// Whole groups through the AVX2 kernel where it takes the width.
		i0 = 64 * rangeFast(src, w, start/64, full/64, lo, min(lo+span, mask(w)), sel)
	}
	if w <= maxLaneWidth && noWrap {
		// The range, cut to the values the width holds, in every lane.
		hi := min(lo+span, mask(w))
		rep := uint64(0x0001000100010001)
		if w <= 7 {
			rep = 0x0101010101010101
		}
		k := laneRangeKernels[w]
		for i := i0; i < full; i += 64 {
			wi := i >> 6
			if sel[wi] == 0 {
				continue
			}
			off := (start + i) / 64 * bb
			sel[wi] &= k(src[off:off+bb], lo*rep, hi*rep)
		}
	} else {
		k := rangeKernels[w]
		for i := i0; i < full; i += 64 {
			wi := i >> 6
			if sel[wi] == 0 {
				continue
			}
			off := (start + i) / 64 * bb
			sel[wi] &= k(src[off:off+bb], lo, span)
		}
	}
	if full < n && sel[full>>6] != 0 {
		var m uint64
		for j := 0; j < n-full; j++ {
			m |= b2u(Get(src, w, start+full+j)-lo <= span) << uint(j)
		}
		tail := uint64(1)<<uint(n-full) - 1
		sel[full>>6] &= m | ^tail
	}
}

// b2u converts a comparison result to 0 or 1 without a branch.
func b2u(b bool) uint64 {
	var u uint64
	if b {
		u = 1
	}
	return u
}

// UnpackRef is the bit-by-bit reference for Unpack. It is slow and exists to
// test the kernels against.
func UnpackRef(dst []uint64, src []byte, w, start int) {
	for i := range dst {
		var v uint64
		for j := 0; j < w; j++ {
			bit := (start+i)*w + j
			v |= uint64(src[bit>>3]>>(bit&7)&1) << j
		}
		dst[i] = v
	}
}

// Pack appends the stream of src at width w to dst. Bits of a value above
// w are ignored.
func Pack(dst []byte, src []uint64, w int) []byte {
	if w == 0 || len(src) == 0 {
		return dst
	}
	start := len(dst)
	total := Bytes(len(src), w)
	dst = grow(dst, total)
	out := dst[start : start+total]
	k := pack64Kernels[w]
	bb := 8 * w
	i := 0
	for ; i+64 <= len(src); i += 64 {
		k((*[64]uint64)(src[i:i+64]), out[i/64*bb:])
	}
	if i < len(src) {
		packTail(out[i/64*bb:], src[i:], w)
	}
	return dst
}

// PackRef is the bit-by-bit reference for Pack.
func PackRef(dst []byte, src []uint64, w int) []byte {
	start := len(dst)
	dst = grow(dst, Bytes(len(src), w))
	out := dst[start:]
	clear(out)
	for i, v := range src {
		for j := 0; j < w; j++ {
			bit := i*w + j
			out[bit>>3] |= byte(v>>j&1) << (bit & 7)
		}
	}
	return dst
}

// packTail packs fewer than 64 values with a 64-bit accumulator, writing
// exactly Bytes(len(src), w) bytes.
func packTail(out []byte, src []uint64, w int) {
	m := mask(w)
	var acc uint64
	nb := 0 // bits in acc
	o := 0
	for _, v := range src {
		v &= m
		acc |= v << uint(nb)
		nb += w
		if nb >= 64 {
			binary.LittleEndian.PutUint64(out[o:], acc)
			o += 8
			nb -= 64
			// the bits of v that did not fit; a shift by 64 yields 0
			acc = v >> uint(w-nb)
			if nb == 0 {
				acc = 0
			}
		}
	}
	for ; nb > 0; nb -= 8 {
		out[o] = byte(acc)
		acc >>= 8
		o++
	}
}

// grow extends dst by n bytes (contents of the new bytes unspecified).
func grow(dst []byte, n int) []byte {
	if cap(dst)-len(dst) >= n {
		return dst[:len(dst)+n]
	}
	nd := make([]byte, len(dst)+n, 2*len(dst)+n)
	copy(nd, dst)
	return nd
}
