package cascade

import (
	"math/rand/v2"
	"slices"
	"testing"

	"strata/encoding"
)

func TestClearRange(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 5000; trial++ {
		n := 1 + r.IntN(300)
		a := encoding.NewBitmap(n, false)
		for i := range a {
			a[i] = r.Uint64()
		}
		b := slices.Clone(a)
		lo := r.IntN(n + 1)
		hi := lo + r.IntN(n-lo+1)
		a.ClearRange(lo, hi)
		ClearRange(b, lo, hi)
		if !slices.Equal(a, b) {
			t.Fatalf("ClearRange(%d, %d) of %d rows differs", lo, hi, n)
		}
	}
}

func TestFill(t *testing.T) {
	for n := 0; n < 200; n++ {
		d := make([]int16, n)
		Fill(d, 7)
		for i, v := range d {
			if v != 7 {
				t.Fatalf("n=%d: d[%d] = %d", n, i, v)
			}
		}
	}
}

func TestPositions(t *testing.T) {
	if err := CheckPositions([]uint32{0, 3, 9}, 10, "p"); err != nil {
		t.Fatal(err)
	}
	for _, bad := range [][]uint32{{3, 3}, {4, 2}, {10}} {
		if err := CheckPositions(bad, 10, "p"); err == nil {
			t.Fatalf("%v accepted", bad)
		}
	}
}
