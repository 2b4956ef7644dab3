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
