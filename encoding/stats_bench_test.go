package encoding

import (
	"math/rand"
	"testing"
)

// Statistics are computed on every node's input at write time, replayed
// trees included, so their per-value cost is paid several times a value.
//
//	go test -run '^$' -bench StatsNoDistinct ./encoding
func BenchmarkStatsNoDistinct(b *testing.B) {
	rng := rand.New(rand.NewSource(1))
	i64 := make([]int64, 64<<10)
	u32 := make([]uint32, 64<<10)
	for i := range i64 {
		i64[i] = rng.Int63n(1 << 20)
		u32[i] = uint32(rng.Intn(300))
	}
	b.Run("int64", func(b *testing.B) {
		b.SetBytes(int64(len(i64) * 8))
		for i := 0; i < b.N; i++ {
			ComputeStatsNoDistinct(i64)
		}
	})
	sorted := make([]int64, len(i64))
	for i := range sorted {
		sorted[i] = int64(i * 3)
	}
	b.Run("int64-sorted", func(b *testing.B) {
		b.SetBytes(int64(len(sorted) * 8))
		for i := 0; i < b.N; i++ {
			ComputeStatsNoDistinct(sorted)
		}
	})
	b.Run("uint32", func(b *testing.B) {
		b.SetBytes(int64(len(u32) * 4))
		for i := 0; i < b.N; i++ {
			ComputeStatsNoDistinct(u32)
		}
	})
}
