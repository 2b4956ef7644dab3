package node

import (
	"encoding/binary"
	"fmt"
	"math/bits"
)

// Bit-packed streams (FORMAT.md, "Bit-packed streams"): n values of width w
// form one little-endian bitstream; value i occupies stream bits
// [i·w, (i+1)·w), least significant bit first, and stream bit k is bit
// k mod 8 of byte ⌊k/8⌋. The stream is ⌈n·w/8⌉ bytes; unused high bits of
// the last byte are ignored. Width 0 is an empty stream of zeros.

// maxPackedWidth is the widest bit-packed value (FORMAT.md: 0 ≤ w ≤ 64).
const maxPackedWidth = 64

// packedLen returns ⌈n·w/8⌉, the byte size of a stream of n values of
// width w, or an error when w is outside [0, 64], n is negative, or the
// size overflows an int.
func packedLen(n, w int) (int, error) {
	if w < 0 || w > maxPackedWidth {
		return 0, fmt.Errorf("bit width %d outside [0, 64]: %w", w, ErrCorrupt)
	}
	if n < 0 {
		return 0, fmt.Errorf("negative bit-packed count %d: %w", n, ErrCorrupt)
	}
	bits := uint64(n) * uint64(w) // n < 2^63 and w ≤ 64 do not overflow for any count a decoder accepts
	if n != 0 && bits/uint64(n) != uint64(w) {
		return 0, fmt.Errorf("bit-packed stream of %d values of %d bits overflows: %w", n, w, ErrCorrupt)
	}
	size := (bits + 7) / 8
	if size > uint64(int(^uint(0)>>1)) {
		return 0, fmt.Errorf("bit-packed stream of %d values of %d bits overflows: %w", n, w, ErrCorrupt)
	}
	return int(size), nil
}

// unpack decodes n values of width w from the bit-packed stream src. src
// must hold at least ⌈n·w/8⌉ bytes; bytes beyond are not read (callers that
// need an exact size compare len(src) with packedLen themselves). The
// length is checked before the result is allocated.
func unpack(src []byte, w, n int) ([]uint64, error) {
	size, err := packedLen(n, w)
	if err != nil {
		return nil, err
	}
	if len(src) < size {
		return nil, fmt.Errorf("bit-packed stream of %d values of %d bits needs %d bytes, has %d: %w", n, w, size, len(src), ErrCorrupt)
	}
	out := make([]uint64, n)
	unpackInto(out, src[:size], w)
	return out, nil
}

// unpackInto decodes len(dst) values of width w (0 ≤ w ≤ 64) from src,
// which the caller has checked holds ⌈len(dst)·w/8⌉ bytes.
func unpackInto(dst []uint64, src []byte, w int) {
	if w == 0 {
		clear(dst)
		return
	}
	for i := range dst {
		dst[i] = bitsAt(src, w, i)
	}
}

// bitsAt returns value i of width w (1 ≤ w ≤ 64) of the bit-packed stream
// src, which must hold the value's bits.
func bitsAt(src []byte, w, i int) uint64 {
	bit := uint64(i) * uint64(w)
	byteOff := int(bit / 8)
	shift := uint(bit % 8)
	var word uint64
	if byteOff+8 <= len(src) {
		word = binary.LittleEndian.Uint64(src[byteOff:])
	} else {
		// Near the end: load the remaining bytes (the value lies within them).
		var buf [8]byte
		copy(buf[:], src[byteOff:])
		word = binary.LittleEndian.Uint64(buf[:])
	}
	v := word >> shift
	if int(shift)+w > 64 {
		// The value spans a ninth byte: its top bits come from there.
		v |= uint64(src[byteOff+8]) << (64 - shift)
	}
	if w < 64 {
		v &= 1<<uint(w) - 1
	}
	return v
}

// bitLen is the number of bits needed to write x (0 for 0), the document's
// bitlen.
func bitLen(x uint64) int { return bits.Len64(x) }
