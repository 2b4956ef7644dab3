package write

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestDiffBits: the width of the differences is that of their whole range
// when they are spread evenly, and the band around their median when a
// few (up to one in a hundred) lie far off.
func TestDiffBits(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	ref := make([]int64, 4096)
	vals := make([]int64, len(ref))
	for i := range ref {
		ref[i] = r.Int64N(1 << 40)
		vals[i] = ref[i] + r.Int64N(30)
	}
	if got := diffBits(vals, ref); got != 5 {
		t.Errorf("differences in [0, 30): %d bits, want 5", got)
	}
	for i := 0; i < len(vals); i += 128 { // 32 far-off values, under 1 %
		vals[i] = r.Int64N(1 << 40)
	}
	if got := diffBits(vals, ref); got > 6 {
		t.Errorf("with 32 far-off values: %d bits, want at most 6", got)
	}
	for i := 0; i < len(vals); i += 16 { // 256: too many to set aside
		vals[i] = r.Int64N(1 << 40)
	}
	if got := diffBits(vals, ref); got < 40 {
		t.Errorf("with 256 far-off values: %d bits, want the whole range", got)
	}
	// narrow types wrap as the encoding stores them
	if got := diffBits([]uint8{0, 255, 1}, []uint8{255, 0, 0}); got != 2 {
		t.Errorf("uint8 differences 1, -1, 1: %d bits, want 2", got)
	}
}

// TestDiffBitsWholeRange: differences at both ends of the int64 range are
// far from their median, not wrapped close to it.
func TestDiffBitsWholeRange(t *testing.T) {
	vals := make([]int64, 1000)
	ref := make([]int64, len(vals))
	for i := range vals {
		vals[i] = math.MaxInt64 - int64(i%3) // differences near MaxInt64
		if i%2 == 0 {
			vals[i] = math.MinInt64 + int64(i%3) // and near MinInt64
		}
	}
	if got := diffBits(vals, ref); got != 64 {
		t.Errorf("%d bits, want 64", got)
	}
}
