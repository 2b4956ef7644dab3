package blockfor

import (
	"math/rand/v2"
	"testing"

	"strata/internal/bitpack"
)

// TestUnpackExceptions compares the one-loop unpacking of a block's
// exception positions and values with bitpack's and its position check
// with a plain loop, on random sections at every bit alignment, up to the
// very end of the data (where the last loads take fewer than 8 bytes) and
// with positions that repeat, decrease or pass the block's rows.
func TestUnpackExceptions(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for iter := 0; iter < 4000; iter++ {
		ne := 1 + r.IntN(40)
		rows := ne + r.IntN(200)
		pw := bitsLen(rows - 1)
		ew := r.IntN(57)
		// increasing positions below rows, then maybe spoiled
		pos := make([]uint64, ne)
		perm := r.Perm(rows)[:ne]
		for i, p := range perm {
			pos[i] = uint64(p)
		}
		sortU64(pos)
		switch r.IntN(4) {
		case 0:
			pos[r.IntN(ne)] = uint64(r.IntN(1 << pw)) // may repeat, decrease or pass rows
		case 1:
			if ne > 1 {
				j := 1 + r.IntN(ne-1)
				pos[j] = pos[j-1]
			}
		}
		vals := make([]uint64, ne)
		for i := range vals {
			vals[i] = r.Uint64() & (1<<ew - 1)
		}
		// data: a random lead, the positions, the values, a random tail
		lead := r.IntN(9)
		data := make([]byte, lead)
		for i := range data {
			data[i] = byte(r.Uint32())
		}
		bl := &block{min: r.Uint64(), rows: int32(rows), nexc: int32(ne), pw: uint8(pw), ew: uint8(ew)}
		bl.pos = len(data)
		data = bitpack.Pack(data, pos, pw)
		bl.exc = len(data)
		data = bitpack.Pack(data, vals, ew)
		for range r.IntN(12) {
			data = append(data, byte(r.Uint32()))
		}
		ps, vs := make([]uint64, ne), make([]uint64, ne)
		unpacked, valid := unpackExceptions(ps, vs, data, bl)
		wantValid := true
		for j, p := range pos {
			if p >= uint64(rows) || (j > 0 && p <= pos[j-1]) {
				wantValid = false
			}
		}
		if !unpacked {
			// widths up to 56 bits are always unpacked here, the last
			// exceptions before the end of the data included
			t.Fatalf("iter %d: left to bitpack (widths %d and %d, %d bytes after the values)", iter, pw, ew, len(data)-bl.exc-bitpack.Bytes(ne, ew))
		}
		if valid != wantValid {
			t.Fatalf("iter %d: valid %v, want %v (positions %v, %d rows)", iter, valid, wantValid, pos, rows)
		}
		wp, wv := make([]uint64, ne), make([]uint64, ne)
		bitpack.Unpack(wp, data[bl.pos:], pw, 0)
		bitpack.UnpackAdd(wv, data[bl.exc:], ew, 0, bl.min)
		for j := range ps {
			if ps[j] != wp[j] || vs[j] != wv[j] {
				t.Fatalf("iter %d, exception %d: (%d, %#x), want (%d, %#x)", iter, j, ps[j], vs[j], wp[j], wv[j])
			}
		}
	}
}

func bitsLen(x int) int {
	n := 0
	for ; x > 0; x >>= 1 {
		n++
	}
	return n
}

func sortU64(s []uint64) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}
