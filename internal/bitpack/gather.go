package bitpack

import "encoding/binary"

// Integer is the set of integer types Gather writes.
type Integer interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64
}

// Gather sets dst[i] to T(base + value rows[i]-off) of a stream of width w
// (0..64), for rows sorted in increasing order; src must hold the values
// of every row. Streams up to 56 bits wide, when the last row's value has
// eight bytes of src from its first byte on, are read with one unaligned
// 64-bit load per row and no branch, so that the loads of many rows are in
// flight at once; the rest go through Get.
func Gather[T Integer](dst []T, src []byte, w int, rows []int32, off int, base uint64) {
	if len(rows) == 0 {
		return
	}
	dst = dst[:len(rows)]
	if w == 0 {
		for i := range dst {
			dst[i] = T(base)
		}
		return
	}
	last := uint64(int(rows[len(rows)-1])-off) * uint64(w)
	if w <= 56 && last/8+8 <= uint64(len(src)) {
		m := mask(w)
		uw := uint64(w)
		for i, r := range rows {
			bit := uint64(int(r)-off) * uw
			x := binary.LittleEndian.Uint64(src[bit>>3:])
			dst[i] = T(x>>(bit&7)&m + base)
		}
		return
	}
	for i, r := range rows {
		dst[i] = T(Get(src, w, int(r)-off) + base)
	}
}
