package alprd

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestTopLefts checks topLefts against a stable sort of all runs by count,
// on sorted left parts of few and many distinct values.
func TestTopLefts(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 9))
	for iter := range 2000 {
		n := 1 + rng.IntN(300)
		spread := 1 + rng.IntN(1+iter%40)
		lefts := make([]uint16, n)
		for i := range lefts {
			lefts[i] = uint16(rng.IntN(spread))
		}
		slices.Sort(lefts)
		type run struct {
			v uint16
			n int
		}
		var runs []run
		for i := 0; i < n; {
			j := i
			for j < n && lefts[j] == lefts[i] {
				j++
			}
			runs = append(runs, run{lefts[i], j - i})
			i = j
		}
		slices.SortStableFunc(runs, func(a, b run) int { return b.n - a.n })
		runs = runs[:min(len(runs), MaxDict)]
		want, wantCovered := make([]uint16, len(runs)), 0
		for i, r := range runs {
			want[i] = r.v
			wantCovered += r.n
		}
		got, covered := topLefts(lefts)
		if !slices.Equal(got, want) || covered != wantCovered {
			t.Fatalf("lefts %v: got %v (%d), want %v (%d)", lefts, got, covered, want, wantCovered)
		}
	}
}
