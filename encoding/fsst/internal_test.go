package fsst

import (
	"math/rand/v2"
	"testing"

	"strata/encoding"
)

func textChunk() encoding.Bytes {
	// word-like text resembling TPC-H comments
	words := []string{"furiously", "carefully", "quickly", "blithely", "regular", "final", "ironic", "pending", "express", "packages", "deposits", "accounts", "requests", "theodolites", "instructions", "sleep", "haggle", "nag", "cajole", "among", "the", "about", "above", "slyly"}
	rng := rand.New(rand.NewPCG(1, 8192))
	var b encoding.Bytes
	for i := 0; i < 8192; i++ {
		v := make([]byte, rng.IntN(40), 42)
		for k := range v {
			v[k] = byte('a' + rng.IntN(26))
		}
		v = append(v, 'x', 'y')
		var s []byte
		for j := 0; j < 1+len(v)%6; j++ {
			if j > 0 {
				s = append(s, ' ')
			}
			s = append(s, words[(int(v[0])*7+j*int(v[len(v)/2]))%len(words)]...)
		}
		b.Append(s)
	}
	return b
}

func BenchmarkBuild(b *testing.B) {
	c := textChunk()
	bd := builders.Get().(*builder)
	b.SetBytes(int64(len(c.Data)))
	for b.Loop() {
		bd.build(&c)
	}
}

func BenchmarkEncodeAll(b *testing.B) {
	c := textChunk()
	bd := builders.Get().(*builder)
	bd.build(&c)
	lens := make([]uint32, c.Len())
	b.SetBytes(int64(len(c.Data)))
	for b.Loop() {
		bd.encodeAll(&c, lens)
	}
}

func BenchmarkKernelLong(b *testing.B) {
	c := textChunk()
	bd := builders.Get().(*builder)
	bd.build(&c)
	lens := make([]uint32, c.Len())
	codes := append([]byte(nil), bd.encodeAll(&c, lens)...)
	node := bd.appendTable(nil)
	tb, _, err := parseTable(node)
	if err != nil {
		b.Fatal(err)
	}
	out := make([]byte, bound(len(codes)))
	b.SetBytes(int64(len(c.Data)))
	for b.Loop() {
		w, ok := decodeSlow(out, 0, codes, tb)
		if !ok || w != len(c.Data) {
			b.Fatal(w, ok)
		}
	}
}

// TestOverN checks the 8-codes-at-once validity test against a plain
// comparison for every symbol count, every code in every byte position,
// and random words.
func TestOverN(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for n := 0; n <= maxSymbols; n++ {
		var table [8]byte
		body := table[:]
		// n symbols of length 1 (bytes need not be distinct for decoding)
		table[0] = byte(n)
		body = append(body, make([]byte, n)...)
		tb, _, err := parseTable(body)
		if err != nil {
			t.Fatal(err)
		}
		naive := func(x uint64) bool {
			for j := 0; j < 8; j++ {
				if int(byte(x>>(8*j))) >= n {
					return true
				}
			}
			return false
		}
		for c := 0; c < escape; c++ {
			for j := 0; j < 8; j++ {
				x := uint64(c) << (8 * j)
				if got := tb.overN(x) != 0; got != naive(x) {
					t.Fatalf("n=%d code %d at byte %d: overN %v", n, c, j, got)
				}
			}
		}
		for i := 0; i < 2000; i++ {
			var x uint64
			for j := 0; j < 8; j++ {
				x |= uint64(r.IntN(255)) << (8 * j) // no escape bytes
			}
			if got := tb.overN(x) != 0; got != naive(x) {
				t.Fatalf("n=%d word %016x: overN %v", n, x, got)
			}
		}
	}
}
