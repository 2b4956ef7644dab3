package stats

import (
	"math/rand/v2"
	"testing"
)

// TestBloomBlocks checks that probing a filter through its separately
// stored blocks answers exactly as the filter does.
func TestBloomBlocks(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	f := NewBloom(1000, 0.01)
	var in []uint64
	for range 1000 {
		h := r.Uint64()
		in = append(in, h)
		f.Insert(h)
	}
	blocks := make([][]byte, f.NumBlocks())
	for i := range blocks {
		blocks[i] = f.AppendBlock(nil, i)
	}
	probe := func(h uint64) bool { return BloomBlockMayContain(blocks[BloomBlockIndex(h, len(blocks))], h) }
	for _, h := range in {
		if !probe(h) {
			t.Fatalf("inserted hash %#x rejected", h)
		}
	}
	for range 10000 {
		h := r.Uint64()
		if probe(h) != f.MayContain(h) {
			t.Fatalf("hash %#x: blocks say %v, filter %v", h, probe(h), f.MayContain(h))
		}
	}
	if BloomBlockMayContain(blocks[0][:31], in[0]) {
		t.Fatal("short block accepted")
	}
}
