//go:build amd64 && !purego

package bitpack

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestUnpackFast checks the AVX2 kernel against the generated Go kernels
// on every width it takes, over runs of groups of several lengths and
// starts, with bases that wrap; and that it declines the other widths.
func TestUnpackFast(t *testing.T) {
	if !hasAVX2 {
		t.Skip("no AVX2 on this machine: the Go kernels run everywhere")
	}
	r := rand.New(rand.NewPCG(11, 12))
	for w := 0; w <= 64; w++ {
		n := 64*9 + 17
		vals := randVals(r, n, w)
		src := Pack(nil, vals, w)
		base := r.Uint64()
		for _, start := range []int{0, 1, 64, 127} {
			for _, k := range []int{64, 128, 200, n - start} {
				if start+k > n {
					continue
				}
				want := make([]uint64, k)
				useAVX2 = false
				UnpackAdd(want, src, w, start, base)
				useAVX2 = true
				got := make([]uint64, k)
				UnpackAdd(got, src, w, start, base)
				for i := range got {
					if got[i] != want[i] || got[i] != vals[start+i]+base {
						t.Fatalf("w=%d start=%d k=%d: value %d = %#x, Go kernel %#x, want %#x", w, start, k, i, got[i], want[i], vals[start+i]+base)
					}
				}
			}
		}
		fast := unpackFast(make([]uint64, 64), src, w, 0)
		if want := w == 1 || w == 2 || w == 4 || w == 8 || w == 16; fast != want {
			t.Errorf("w=%d: unpackFast took it: %v, want %v", w, fast, want)
		}
	}
}

// BenchmarkUnpackFast times UnpackAdd with the AVX2 kernel and with the
// generated Go kernels in the same run, on the widths the kernel takes:
//
//	go test -run '^$' -bench UnpackFast ./internal/bitpack
func BenchmarkUnpackFast(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, w := range []int{1, 2, 4, 8, 16} {
		src := Pack(nil, randVals(r, benchN, w), w)
		dst := make([]uint64, benchN)
		for _, asm := range []bool{false, true} {
			b.Run(fmt.Sprintf("w=%d/avx2=%v", w, asm), func(b *testing.B) {
				useAVX2 = asm && hasAVX2
				defer func() { useAVX2 = hasAVX2 }()
				b.SetBytes(benchN * 8)
				for b.Loop() {
					UnpackAdd(dst, src, w, 0, 7)
				}
			})
		}
	}
}
