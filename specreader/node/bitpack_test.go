package node

import (
	"math/rand/v2"
	"testing"
)

// TestUnpackDocExample decodes the bit-packing example of FORMAT.md
// ("Bit-packed streams"): w = 3, values 1, 0, 2, 6 are bytes 0x81 0x0c.
func TestUnpackDocExample(t *testing.T) {
	got, err := unpack([]byte{0x81, 0x0c}, 3, 4)
	if err != nil {
		t.Fatal(err)
	}
	if want := []uint64{1, 0, 2, 6}; len(got) != 4 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] || got[3] != want[3] {
		t.Fatalf("got %v, want %v", got, want)
	}
}

// TestUnpackReference compares unpack with a bit-by-bit reference packer
// at every width from 0 to 64, for counts that end inside and on word
// boundaries.
func TestUnpackReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for w := 0; w <= 64; w++ {
		for _, n := range []int{0, 1, 2, 7, 8, 63, 64, 65, 200} {
			vals := make([]uint64, n)
			for i := range vals {
				vals[i] = rng.Uint64()
				if w < 64 {
					vals[i] &= 1<<uint(w) - 1
				}
			}
			size, err := packedLen(n, w)
			if err != nil {
				t.Fatal(err)
			}
			buf := make([]byte, size)
			for i, v := range vals {
				for k := 0; k < w; k++ {
					if v>>uint(k)&1 != 0 {
						bit := i*w + k
						buf[bit/8] |= 1 << uint(bit%8)
					}
				}
			}
			got, err := unpack(buf, w, n)
			if err != nil {
				t.Fatalf("w %d n %d: %v", w, n, err)
			}
			for i := range vals {
				if got[i] != vals[i] {
					t.Fatalf("w %d n %d: value %d is %#x, want %#x", w, n, i, got[i], vals[i])
				}
			}
			if size > 0 {
				if _, err := unpack(buf[:size-1], w, n); err == nil {
					t.Errorf("w %d n %d: short stream accepted", w, n)
				}
			}
		}
	}
	for _, w := range []int{-1, 65, 255} {
		if _, err := unpack(make([]byte, 100), w, 1); err == nil {
			t.Errorf("width %d accepted", w)
		}
	}
}
