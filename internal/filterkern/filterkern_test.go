package filterkern

import (
	"math/rand/v2"
	"testing"

	"strata/encoding"
)

func TestUint64RangeMatchesNaive(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	for _, n := range []int{0, 1, 63, 64, 65, 1000, 1024} {
		vals := make([]uint64, n)
		for i := range vals {
			vals[i] = r.Uint64N(100)
		}
		for trial := 0; trial < 20; trial++ {
			lo, hi := r.Uint64N(100), r.Uint64N(100)
			sel := encoding.NewBitmap(n, true)
			for i := 0; i < n; i++ {
				if r.IntN(4) == 0 {
					sel.Clear(i)
				}
			}
			in := append(encoding.Bitmap(nil), sel...)
			Uint64Range(vals, lo, hi, sel)
			for i, v := range vals {
				want := in.Get(i) && v-lo <= hi-lo
				if sel.Get(i) != want {
					t.Fatalf("n=%d [%d,%d] row %d value %d: got %v want %v", n, lo, hi, i, v, sel.Get(i), want)
				}
			}
		}
	}
}

func BenchmarkUint64Range(b *testing.B) {
	vals := make([]uint64, 1024)
	r := rand.New(rand.NewPCG(1, 1))
	for i := range vals {
		vals[i] = r.Uint64N(2500)
	}
	sel := encoding.NewBitmap(1024, true)
	b.SetBytes(8 * 1024)
	for b.Loop() {
		sel.SetAll(1024)
		Uint64Range(vals, 1000, 1030, sel)
	}
}
