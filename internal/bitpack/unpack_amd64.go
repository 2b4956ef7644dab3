//go:build amd64 && !purego

package bitpack

import "golang.org/x/sys/cpu"

// useAVX2 selects the AVX2 kernel of unpackFast (tests turn it off to run
// the generated Go kernels). The purego build tag, another architecture or
// a CPU without AVX2 keeps the Go kernels.
var (
	hasAVX2 = cpu.X86.HasAVX2
	useAVX2 = hasAVX2
)

// unpackPow2AVX2 unpacks words 64-bit words of a stream whose width
// w = 1<<lg is 1, 2, 4, 8 or 16, adding base: each word is broadcast to
// four lanes, shifted right by (0, w, 2w, 3w) plus step = 4w per vector,
// masked and offset, perWord = 16/w vectors a word.
//
//go:noescape
func unpackPow2AVX2(in *byte, out *uint64, words, lg, perWord int, step, mask, base uint64)

// unpackFast unpacks whole groups of 64 values (src holds them, dst their
// len(dst) = 64·k values) through the AVX2 kernel when the width divides
// 64 into at least four values a word, and reports whether it did. The
// generated kernels do one shift, mask and add a value; this does them for
// four values an instruction, which on the narrow widths that differences
// and small ids take (2-4 bits) was 2-3x faster (BenchmarkUnpack64).
func unpackFast(dst []uint64, src []byte, w int, base uint64) bool {
	if !useAVX2 || len(dst) == 0 {
		return false
	}
	lg := 0
	switch w {
	case 1:
	case 2:
		lg = 1
	case 4:
		lg = 2
	case 8:
		lg = 3
	case 16:
		lg = 4
	default:
		return false
	}
	words := len(dst) / 64 * w
	if len(src) < 8*words {
		return false
	}
	unpackPow2AVX2(&src[0], &dst[0], words, lg, 16/w, uint64(4*w), mask(w), base)
	return true
}

// unpack32AVX2 and unpack64AVX2 unpack octets runs of eight values of
// width w (1..25) at in into out, adding base, eight values a vector as
// rangeAVX2 gathers them; eight values start on a byte boundary, so a run
// may start at any multiple of eight values, not only at a group of 64.
// They read up to 16 bytes past the last octet.
//
//go:noescape
func unpack32AVX2(in *byte, out *uint32, octets, w int, ctl *[32]byte, shifts *[8]uint32, m, base uint32)

//go:noescape
func unpack64AVX2(in *byte, out *uint64, octets, w int, ctl *[32]byte, shifts *[8]uint32, m uint32, base uint64)

// safeGroups returns how many of groups whole groups of width w starting
// at byte 0 of src a kernel that reads 16 bytes past its last group may
// take.
func safeGroups(src []byte, w, groups int) int {
	if len(src) < 16 {
		return 0
	}
	return max(0, min(groups, (len(src)-16)/(8*w)))
}

// unpackLanes unpacks the leading whole groups of dst (64·k values) from
// src, which begins at the first of them, through the 8-lane AVX2 kernel
// when the width is one it takes and the CPU has AVX2, adding base; it
// returns how many values it did (the caller does the rest). At widths
// that are not powers of two the generated kernels do one value at a
// time; this does eight (BenchmarkUnpackFast).
func unpackLanes(dst []uint64, src []byte, w int, base uint64) int {
	if !useAVX2 || w < 1 || w > maxWideWidth {
		return 0
	}
	g := safeGroups(src, w, len(dst)/64)
	if g == 0 {
		return 0
	}
	if w >= minWideWidth {
		unpackWideAVX2(&src[0], &dst[0], 8*g, &wideTables[w], base)
		return 64 * g
	}
	t := &rangeTables[w]
	unpack64AVX2(&src[0], &dst[0], 8*g, w, &t.ctl, &t.shifts, uint32(mask(w)), base)
	return 64 * g
}

// unpackOctets unpacks the leading whole octets (runs of eight values,
// which start on a byte boundary) of dst from src, which begins at the
// first of them, through the 8-lane AVX2 kernels, adding base, as many as
// the kernels may read safely (16 bytes past the last); it returns how
// many values it did. It serves the parts of a group at either end of a
// run, which otherwise go through a whole group unpacked into scratch.
func unpackOctets(dst []uint64, src []byte, w int, base uint64) int {
	if !useAVX2 || w < 1 || w > maxWideWidth || len(src) < 16 {
		return 0
	}
	o := min(len(dst)/8, (len(src)-16)/w)
	if o <= 0 {
		return 0
	}
	if w >= minWideWidth {
		unpackWideAVX2(&src[0], &dst[0], o, &wideTables[w], base)
		return 8 * o
	}
	t := &rangeTables[w]
	unpack64AVX2(&src[0], &dst[0], o, w, &t.ctl, &t.shifts, uint32(mask(w)), base)
	return 8 * o
}

// unpack32Lanes is unpackLanes for 32-bit values.
func unpack32Lanes(dst []uint32, src []byte, w int, base uint32) int {
	if !useAVX2 || w < 1 || w > maxRangeWidth {
		return 0
	}
	g := safeGroups(src, w, len(dst)/64)
	if g == 0 {
		return 0
	}
	t := &rangeTables[w]
	unpack32AVX2(&src[0], &dst[0], 8*g, w, &t.ctl, &t.shifts, uint32(mask(w)), base)
	return 64 * g
}

// rangeAVX2 tests groups groups of 64 values of width w (1..25) at in,
// 8w bytes each, against lo <= v <= lo+diff, clearing the bits of sel (a
// word a group) of values out of range and skipping groups whose word is
// already zero. Eight values go through one vector: each lane's four bytes
// gathered by a shuffle (ctl), shifted right by its bit offset (shifts)
// and masked (m). It reads up to 16 bytes past the last group.
//
//go:noescape
func rangeAVX2(in *byte, sel *uint64, groups, w int, ctl *[32]byte, shifts *[8]uint32, m, lo, diff uint32)

// rangeTables holds rangeAVX2's shuffle control and lane shifts per width:
// value j of eight starts at bit j·w, in byte j·w/8 (the high four lanes
// counted from byte 4w/8, where the kernel loads their half) at bit j·w%8.
var rangeTables = func() (t [maxRangeWidth + 1]struct {
	ctl    [32]byte
	shifts [8]uint32
}) {
	for w := 1; w <= maxRangeWidth; w++ {
		for j := 0; j < 8; j++ {
			b := j * w / 8
			half := 0
			if j >= 4 {
				b -= 4 * w / 8
				half = 16
			}
			for k := 0; k < 4; k++ {
				t[w].ctl[half+(j%4)*4+k] = byte(b + k)
			}
			t[w].shifts[j] = uint32(j * w % 8)
		}
	}
	return t
}()

// maxRangeWidth is the widest stream rangeAVX2 takes: a lane holds its
// value with up to 7 bits before it (w + 7 <= 32), and every lane's four
// bytes lie in the 16 loaded for its half.
const maxRangeWidth = 25

// rangeFast tests whole groups g0, g0+1, ... of a stream of width w
// against [lo, hi] (hi <= mask(w)) through the AVX2 kernel, as many as it
// can read safely (the kernel reads 16 bytes past a group), clearing the
// bits of sel[0:] out of range, and returns how many groups it did.
func rangeFast(src []byte, w, g0, groups int, lo, hi uint64, sel []uint64) int {
	if !useAVX2 || w > maxWideWidth || w < 1 || groups == 0 {
		return 0
	}
	bb := 8 * w
	if g0*bb >= len(src) {
		return 0
	}
	groups = min(safeGroups(src[g0*bb:], w, groups), len(sel))
	if groups == 0 {
		return 0
	}
	if w >= minWideWidth {
		rangeWideAVX2(&src[g0*bb], &sel[0], groups, &wideTables[w], lo, hi-lo)
		return groups
	}
	t := &rangeTables[w]
	rangeAVX2(&src[g0*bb], &sel[0], groups, w, &t.ctl, &t.shifts, uint32(mask(w)), uint32(lo), uint32(hi-lo))
	return groups
}

// wideTable is what the wide kernels (widths 26..32, where a value may
// span five bytes) need per width: eight values in two vectors of four
// 64-bit lanes, each half loaded from its own byte offset. Its layout is
// read by the assembly: keep it.
type wideTable struct {
	ctlA, shA  [32]byte // values 0-3: shuffle control, lane shifts (4 × uint64)
	ctlB, shB  [32]byte // values 4-7
	mask       uint64
	w          int64 // bytes per eight values
	a1, b0, b1 int64 // byte offsets of the halves of values 2-3, 4-5, 6-7
}

const minWideWidth, maxWideWidth = maxRangeWidth + 1, 32

var wideTables = func() (t [maxWideWidth + 1]wideTable) {
	for w := minWideWidth; w <= maxWideWidth; w++ {
		x := &t[w]
		x.mask, x.w = mask(w), int64(w)
		// the byte each half loads from: values 0, 2, 4, 6 start them
		halves := [4]int{0, 2 * w / 8, 4 * w / 8, 6 * w / 8}
		x.a1, x.b0, x.b1 = int64(halves[1]), int64(halves[2]), int64(halves[3])
		for j := 0; j < 8; j++ {
			b := j*w/8 - halves[j/2]
			ctl, sh := &x.ctlA, &x.shA
			if j >= 4 {
				ctl, sh = &x.ctlB, &x.shB
			}
			lane := j % 4 // lanes 0-1 in the low half, 2-3 in the high one
			for k := 0; k < 8; k++ {
				ctl[lane*8+k] = byte(b + k)
			}
			sh[lane*8] = byte(j * w % 8)
		}
	}
	return t
}()

// rangeWideAVX2 is rangeAVX2 for widths 26..32; unpackWideAVX2 unpacks
// octets runs of eight such values into 64-bit values adding base. Both
// read up to 16 bytes past the last group or octet.
//
//go:noescape
func rangeWideAVX2(in *byte, sel *uint64, groups int, t *wideTable, lo, diff uint64)

//go:noescape
func unpackWideAVX2(in *byte, out *uint64, octets int, t *wideTable, base uint64)
