package blockfor

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"
)

// bruteForce evaluates every width: the reference for plan's bisection.
func bruteForce(vals []int64) (w, nexc int, base uint64) {
	offs := make([]uint64, len(vals))
	mn := slices.Min(vals)
	for i, v := range vals {
		offs[i] = uint64(v - mn)
	}
	slices.Sort(offs)
	n := len(vals)
	rangeBits := bits.Len64(offs[n-1])
	excBits := bits.Len(uint(n-1)) + rangeBits
	best, bw, bn, bb := n*rangeBits, rangeBits, 0, uint64(mn)
	for w := rangeBits - 1; w >= 0; w-- {
		cnt, at := 0, 0
		for i := range offs {
			j := i
			for j < n && offs[j]-offs[i] <= uint64(1)<<uint(w)-1 {
				j++
			}
			if j-i > cnt {
				cnt, at = j-i, i
			}
		}
		if cost := n*w + (n-cnt)*excBits; cost < best {
			best, bw, bn, bb = cost, w, n-cnt, uint64(mn)+offs[at]
		}
	}
	return bw, bn, bb
}

func TestPlanMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := 0; trial < 300; trial++ {
		n := 8 + rng.IntN(300)
		vals := make([]int64, n)
		width := 1 + rng.IntN(20)
		for i := range vals {
			vals[i] = int64(rng.Uint64N(1 << uint(width)))
			if trial%3 == 0 { // few distinct values: windows over repeats
				vals[i] = int64(rng.IntN(6)) * int64(1+width)
			}
			switch rng.IntN(40) {
			case 0:
				vals[i] = int64(rng.Uint64())
			case 1:
				vals[i] = -int64(rng.Uint64N(1 << 40))
			}
		}
		p := plan(vals, newPlanScratch(n))
		w, nexc, base := bruteForce(vals)
		if p.w != w || p.nexc != nexc || p.base != base {
			t.Fatalf("trial %d: plan w=%d nexc=%d base=%d, brute force w=%d nexc=%d base=%d", trial, p.w, p.nexc, p.base, w, nexc, base)
		}
	}
}

// TestPlanSpreadBlocks checks plan against the brute force on full-size
// blocks whose values spread over their range, where the counts by parts of the range
// let plan skip its search, and on the same blocks with a few outliers or
// a cluster added, where a narrower width may pay and the search must run.
func TestPlanSpreadBlocks(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	skipped := 0
	for trial := 0; trial < 60; trial++ {
		n := DefaultBlockSize - rng.IntN(3)*400
		width := 1 + rng.IntN(20)
		vals := make([]int64, n)
		for i := range vals {
			vals[i] = int64(rng.Uint64N(1 << uint(width)))
		}
		switch trial % 4 {
		case 1: // a few far outliers: a narrower width with exceptions pays
			for k := 0; k < 1+rng.IntN(8); k++ {
				vals[rng.IntN(n)] = int64(1) << uint(width+4+rng.IntN(8))
			}
		case 2: // most values in one corner of the range
			for i := range vals {
				if rng.IntN(10) > 0 {
					vals[i] &= 1<<uint(width/2) - 1
				}
			}
		case 3: // exactly at the bound: half the values at each end
			for i := range vals {
				vals[i] = int64(i%2) << uint(width-1)
			}
		}
		mn := slices.Min(vals)
		rangeBits := bits.Len64(uint64(slices.Max(vals) - mn))
		k := min(rangeBits, maxPartBits)
		parts := make([]int32, 1<<k)
		for _, v := range vals {
			parts[uint64(v-mn)>>uint(rangeBits-k)]++
		}
		if !narrowerMayPay(parts, n, bits.Len(uint(n-1))+rangeBits, rangeBits, k) {
			skipped++
		}
		p := plan(vals, newPlanScratch(n))
		w, nexc, base := bruteForce(vals)
		if p.w != w || p.nexc != nexc || p.base != base {
			t.Fatalf("trial %d: plan w=%d nexc=%d base=%d, brute force w=%d nexc=%d base=%d", trial, p.w, p.nexc, p.base, w, nexc, base)
		}
	}
	if skipped == 0 || skipped == 60 {
		t.Fatalf("%d of 60 blocks skipped the search: the test must cover both paths", skipped)
	}
}

// TestSortOffsets checks the radix sort against slices.Sort on widths that
// need one to eight byte passes, on sorted, reversed and constant-byte input.
func TestSortOffsets(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for trial := 0; trial < 400; trial++ {
		n := 1 + rng.IntN(1500)
		bitsN := rng.IntN(65)
		offs := make([]uint64, n)
		for i := range offs {
			if bitsN > 0 {
				offs[i] = rng.Uint64() >> uint(64-bitsN)
			}
			if trial%5 == 1 { // a byte all values share
				offs[i] = offs[i]&^0xff00 | 0x3300
			}
		}
		switch trial % 5 {
		case 2:
			slices.Sort(offs)
		case 3:
			slices.Sort(offs)
			slices.Reverse(offs)
		}
		rangeBits := 0
		for _, v := range offs {
			rangeBits = max(rangeBits, bits.Len64(v))
		}
		want := slices.Clone(offs)
		slices.Sort(want)
		sortOffsets(offs, make([]uint64, n), rangeBits)
		if !slices.Equal(offs, want) {
			t.Fatalf("trial %d (n=%d, %d bits): radix sort differs from slices.Sort", trial, n, rangeBits)
		}
	}
}

// BenchmarkPlan plans blocks of 1024 random values of a few widths.
func BenchmarkPlan(b *testing.B) {
	for _, w := range []int{8, 20, 40, 63} {
		b.Run(fmt.Sprintf("bits%d", w), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			blk := make([]int64, 1024)
			for i := range blk {
				blk[i] = int64(rng.Uint64() >> uint(64-w))
			}
			sc := newPlanScratch(len(blk))
			for b.Loop() {
				plan(blk, sc)
			}
		})
	}
}
