package fieldtext

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"
)

// TestDigits checks digits and the eight-digit printer against strconv
// around every power of ten and on random values.
func TestDigits(t *testing.T) {
	check := func(v uint64) {
		s := strconv.FormatUint(v, 10)
		if d := digits(v); d != len(s) {
			t.Fatalf("digits(%d) = %d, want %d", v, d, len(s))
		}
		for w := len(s); w <= maxWidth; w++ {
			want := fmt.Sprintf("%0*d", w, v)
			var got []byte
			if w <= 8 {
				got = binary.LittleEndian.AppendUint64(nil, ascii8(v)>>(64-8*w))[:w]
			} else {
				got = make([]byte, w)
				putDigits(got, v)
			}
			if string(got) != want {
				t.Fatalf("%d in %d digits: %q, want %q", v, w, got, want)
			}
		}
	}
	check(0)
	check(^uint64(0))
	p := uint64(1)
	for range 20 {
		check(p - 1)
		check(p)
		check(p + 1)
		p *= 10
	}
	for l := 1; l < 64; l++ {
		check(1<<l - 1)
		check(1 << l)
	}
	for v := uint64(0); v < 200000; v++ {
		check(v)
	}
	r := rand.New(rand.NewPCG(5, 6))
	for range 200000 {
		check(r.Uint64N(100000000))
		check(r.Uint64() >> r.IntN(64))
	}
}
