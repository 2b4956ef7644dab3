package lagdelta_test

import (
	"math/rand/v2"
	"testing"

	"strata/encoding/lagdelta"
)

// TestAddLag checks the kernel (the assembly form where the CPU has it,
// then the Go loop) against a value-by-value reference, for lags around
// the kernel's limits, lengths that are no multiple of 4 and wrapping sums.
func TestAddLag(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, asm := range []bool{true, false} {
		was := lagdelta.SetAsm(asm)
		for _, lag := range []int{1, 2, 3, 4, 5, 7, 8, 12, 15, 16, 17, 24, 80, 1000} {
			for _, n := range []int{0, 1, 3, 4, 5, 63, 64, 1001} {
				buf := make([]uint64, lag+n)
				for i := range buf {
					buf[i] = rng.Uint64() >> uint(rng.IntN(64))
				}
				want := append([]uint64(nil), buf...)
				for i := lag; i < len(want); i++ {
					want[i] += want[i-lag]
				}
				lagdelta.AddLag(buf[lag:], buf[:n], lag)
				for i := range buf {
					if buf[i] != want[i] {
						t.Fatalf("asm %v, lag %d, n %d: value %d = %d, want %d", asm, lag, n, i, buf[i], want[i])
					}
				}
			}
		}
		lagdelta.SetAsm(was)
	}
}
