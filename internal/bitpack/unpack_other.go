//go:build !amd64 || purego

package bitpack

// useAVX2 is false where the AVX2 kernel does not exist.
var (
	hasAVX2 = false
	useAVX2 = false
)

// unpackFast has no fast path here: the generated kernels do the work.
func unpackFast([]uint64, []byte, int, uint64) bool { return false }

// rangeFast has no fast path here: the lane kernels do the work.
func rangeFast([]byte, int, int, int, uint64, uint64, []uint64) int { return 0 }

// unpackLanes and unpack32Lanes have no fast path here.
func unpackLanes([]uint64, []byte, int, uint64) int   { return 0 }
func unpack32Lanes([]uint32, []byte, int, uint32) int { return 0 }

// unpackOctets has no fast path here.
func unpackOctets([]uint64, []byte, int, uint64) int { return 0 }
