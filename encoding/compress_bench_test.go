package encoding

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkZstdParallel compresses 32 KiB bodies of small-range integers
// from as many goroutines as -cpu says, as a parallel write does: the
// figure per operation falls with the goroutines only if they do not wait
// for one another's encoder.
func BenchmarkZstdParallel(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	src := make([]byte, 32<<10)
	for i := range src {
		src[i] = byte(rng.IntN(16))
	}
	b.SetBytes(int64(len(src)))
	b.RunParallel(func(pb *testing.PB) {
		var dst []byte
		for pb.Next() {
			dst = zstdAppend(dst[:0], src, levelBetter)
		}
	})
}
