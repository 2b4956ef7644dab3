package encoding

import (
	"math/rand/v2"
	"testing"
)

// checkDistinctInts compares distinctInts with distinct given the same
// keys through a call per value, the way every type was counted before.
func checkDistinctInts[T Integer](t *testing.T, v []T) {
	t.Helper()
	var got, want Stats
	distinctInts(&got, v)
	distinct(&want, len(v), func(i int) uint64 { return uint64(int64(v[i])) })
	if got != want {
		t.Errorf("%T of %d values: distinctInts gives %+v, distinct %+v", v, len(v), got, want)
	}
}

// TestDistinctInts checks the integer distinct count, below and past
// DistinctCap, signed values negative, against the generic one.
func TestDistinctInts(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{0, 1, 2, 63, 64, 1000, 5000, 70000} {
		for _, card := range []int{1, 7, 300, n + 1} {
			v := make([]int64, n)
			for i := range v {
				v[i] = rng.Int64N(int64(card)) - int64(card/2)
				if card > n {
					v[i] = int64(rng.Uint64())
				}
			}
			checkDistinctInts(t, v)
			i8, i32, u8, u32, u64 := make([]int8, n), make([]int32, n), make([]uint8, n), make([]uint32, n), make([]uint64, n)
			for i, x := range v {
				i8[i], i32[i], u8[i], u32[i], u64[i] = int8(x), int32(x), uint8(x), uint32(x), uint64(x)
			}
			checkDistinctInts(t, i8)
			checkDistinctInts(t, i32)
			checkDistinctInts(t, u8)
			checkDistinctInts(t, u32)
			checkDistinctInts(t, u64)
		}
	}
}
