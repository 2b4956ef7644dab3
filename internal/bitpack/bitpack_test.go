package bitpack

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
	"unsafe"
)

func randVals(r *rand.Rand, n, w int) []uint64 {
	v := make([]uint64, n)
	for i := range v {
		v[i] = r.Uint64() & mask(w)
		if r.IntN(8) == 0 { // extremes
			v[i] = mask(w) * uint64(r.IntN(2))
		}
	}
	return v
}

// TestDifferential checks Pack, Unpack, Unpack32 and Get against the
// bit-by-bit references at every width and many alignments.
func TestDifferential(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for w := 0; w <= 64; w++ {
		for _, n := range []int{0, 1, 7, 63, 64, 65, 127, 128, 200, 1000} {
			vals := randVals(r, n, w)
			// garbage above w must be ignored by Pack
			dirty := make([]uint64, n)
			for i, v := range vals {
				dirty[i] = v
				if w < 64 {
					dirty[i] |= r.Uint64() << uint(w)
				}
			}
			prefix := []byte{0xAA}
			got := Pack(append([]byte(nil), prefix...), dirty, w)
			want := PackRef(append([]byte(nil), prefix...), vals, w)
			if !bytes.Equal(got, want) {
				t.Fatalf("w=%d n=%d: Pack differs from PackRef", w, n)
			}
			src := got[1:]
			if len(src) != Bytes(n, w) {
				t.Fatalf("w=%d n=%d: %d bytes, want %d", w, n, len(src), Bytes(n, w))
			}
			for trial := 0; trial < 20 && n > 0; trial++ {
				start := r.IntN(n)
				k := r.IntN(n - start + 1)
				if trial == 0 {
					start, k = 0, n
				}
				out := make([]uint64, k)
				ref := make([]uint64, k)
				Unpack(out, src, w, start)
				UnpackRef(ref, src, w, start)
				for i := range out {
					if out[i] != ref[i] || ref[i] != vals[start+i] {
						t.Fatalf("w=%d n=%d start=%d: value %d = %#x, ref %#x, want %#x", w, n, start, start+i, out[i], ref[i], vals[start+i])
					}
				}
				if w <= 32 {
					out32 := make([]uint32, k)
					Unpack32(out32, src, w, start)
					for i := range out32 {
						if uint64(out32[i]) != vals[start+i] {
							t.Fatalf("w=%d Unpack32 start=%d: value %d = %#x, want %#x", w, start, start+i, out32[i], vals[start+i])
						}
					}
				}
				i := start + r.IntN(max(k, 1))
				if i < n {
					if g := Get(src, w, i); g != vals[i] {
						t.Fatalf("w=%d Get(%d) = %#x, want %#x", w, i, g, vals[i])
					}
				}
			}
		}
	}
}

func TestKernelsAgainstRef(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for w := 1; w <= 64; w++ {
		vals := (*[64]uint64)(randVals(r, 64, w))
		buf := make([]byte, 8*w)
		pack64Kernels[w](vals, buf)
		if ref := PackRef(nil, vals[:], w); !bytes.Equal(buf, ref) {
			t.Fatalf("pack kernel w=%d differs", w)
		}
		var out [64]uint64
		unpack64Kernels[w](buf, out[:], 0)
		if out != *vals {
			t.Fatalf("unpack kernel w=%d differs", w)
		}
	}
}

// TestUnpackAdd checks the base is added (wrapping) to every value on the
// kernel, head, tail and width-0 paths.
func TestUnpackAdd(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for w := 0; w <= 64; w++ {
		n := 300
		vals := randVals(r, n, w)
		src := Pack(nil, vals, w)
		base := r.Uint64()
		for _, start := range []int{0, 1, 63, 64, 100} {
			for _, k := range []int{0, 1, 5, 64, 130, n - start} {
				if start+k > n {
					continue
				}
				out := make([]uint64, k)
				UnpackAdd(out, src, w, start, base)
				for i := range out {
					if out[i] != vals[start+i]+base {
						t.Fatalf("w=%d UnpackAdd start=%d: value %d = %#x, want %#x", w, start, start+i, out[i], vals[start+i]+base)
					}
				}
				if w <= 32 {
					out32 := make([]uint32, k)
					Unpack32Add(out32, src, w, start, uint32(base))
					for i := range out32 {
						if out32[i] != uint32(vals[start+i])+uint32(base) {
							t.Fatalf("w=%d Unpack32Add start=%d: value %d = %#x", w, start, start+i, out32[i])
						}
					}
				}
			}
		}
	}
}

var sink []byte

func benchWidths() []int { return []int{1, 2, 3, 4, 5, 7, 8, 11, 12, 16, 17, 20, 24, 31, 32} }

const benchN = 64 * 1024

// BenchmarkUnpack64 measures unpacking into []uint64 (reported bytes are
// output bytes); compare with BenchmarkMemcpy64, a copy of the same output size.
func BenchmarkUnpack64(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, w := range append(benchWidths(), 48, 64) {
		src := Pack(nil, randVals(r, benchN, w), w)
		dst := make([]uint64, benchN)
		b.Run(fmt.Sprintf("w=%d", w), func(b *testing.B) {
			b.SetBytes(benchN * 8)
			for b.Loop() {
				Unpack(dst, src, w, 0)
			}
		})
	}
}

// BenchmarkUnpack32 measures unpacking into []uint32.
func BenchmarkUnpack32(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, w := range benchWidths() {
		src := Pack(nil, randVals(r, benchN, w), w)
		dst := make([]uint32, benchN)
		b.Run(fmt.Sprintf("w=%d", w), func(b *testing.B) {
			b.SetBytes(benchN * 4)
			for b.Loop() {
				Unpack32(dst, src, w, 0)
			}
		})
	}
}

func BenchmarkPack(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, w := range benchWidths() {
		vals := randVals(r, benchN, w)
		dst := make([]byte, 0, Bytes(benchN, w))
		b.Run(fmt.Sprintf("w=%d", w), func(b *testing.B) {
			b.SetBytes(benchN * 8)
			for b.Loop() {
				dst = Pack(dst[:0], vals, w)
			}
		})
	}
}

// BenchmarkMemcpy64 copies the output size of BenchmarkUnpack64 (64 Ki
// uint64 values); BenchmarkMemcpy32 that of BenchmarkUnpack32.
func BenchmarkMemcpy64(b *testing.B) {
	src := make([]uint64, benchN)
	dst := make([]uint64, benchN)
	b.SetBytes(benchN * 8)
	for b.Loop() {
		copy(dst, src)
	}
}

func BenchmarkMemcpy32(b *testing.B) {
	src := make([]uint32, benchN)
	dst := make([]uint32, benchN)
	b.SetBytes(benchN * 4)
	for b.Loop() {
		copy(dst, src)
	}
	sink = unsafe.Slice((*byte)(unsafe.Pointer(&dst[0])), 1)
}

// TestRangeMask checks the fused kernels against unpacking and comparing,
// for every width, ranges inside, across and outside the values, partial
// tails and words already deselected.
func TestRangeMask(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for w := 1; w <= 64; w++ {
		for _, n := range []int{0, 1, 63, 64, 65, 200, 1000} {
			vals := randVals(r, n+64, w)
			src := Pack(nil, vals, w)
			for trial := 0; trial < 6; trial++ {
				start := 64 * r.IntN(2)
				var lo, span uint64
				switch trial {
				case 0:
					lo, span = 0, ^uint64(0)
				case 1:
					lo, span = mask(w), 0
				default:
					a, b := vals[r.IntN(len(vals))], vals[r.IntN(len(vals))]
					lo, span = min(a, b), max(a, b)-min(a, b)
				}
				sel := make([]uint64, (n+63)/64)
				for i := range sel {
					sel[i] = r.Uint64() | 1
				}
				if len(sel) > 1 {
					sel[1] = 0
				}
				want := append([]uint64(nil), sel...)
				for i := 0; i < n; i++ {
					if vals[start+i]-lo > span {
						want[i>>6] &^= 1 << uint(i&63)
					}
				}
				RangeMask(src, w, start, n, lo, span, sel)
				for i := range sel {
					if sel[i] != want[i] {
						t.Fatalf("w=%d n=%d start=%d [%d,+%d]: word %d = %#x, want %#x", w, n, start, lo, span, i, sel[i], want[i])
					}
				}
			}
		}
	}
}

// BenchmarkRangeMask compares the fused kernels with unpacking then
// comparing (reported bytes are values × 8).
func BenchmarkRangeMask(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, w := range []int{4, 12, 20} {
		vals := randVals(r, benchN, w)
		src := Pack(nil, vals, w)
		sel := make([]uint64, benchN/64)
		lo, span := mask(w)/4, mask(w)/8
		b.Run(fmt.Sprintf("fused/w=%d", w), func(b *testing.B) {
			b.SetBytes(benchN * 8)
			for b.Loop() {
				for i := range sel {
					sel[i] = ^uint64(0)
				}
				RangeMask(src, w, 0, benchN, lo, span, sel)
			}
		})
		buf := make([]uint64, 1024)
		b.Run(fmt.Sprintf("unpack+compare/w=%d", w), func(b *testing.B) {
			b.SetBytes(benchN * 8)
			for b.Loop() {
				for i := range sel {
					sel[i] = ^uint64(0)
				}
				for i := 0; i < benchN; i += 1024 {
					Unpack(buf, src, w, i)
					for j, v := range buf {
						if v-lo > span {
							sel[(i+j)>>6] &^= 1 << uint(j&63)
						}
					}
				}
			}
		})
	}
}

// TestSum checks Sum against the values it adds up at every width and
// many alignments, ends of the stream included.
func TestSum(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for w := 0; w <= 64; w++ {
		for _, n := range []int{1, 7, 63, 64, 65, 127, 128, 200, 1000} {
			vals := randVals(r, n, w)
			src := Pack(nil, vals, w)
			for trial := 0; trial < 40; trial++ {
				start := r.IntN(n)
				k := r.IntN(n - start + 1)
				switch trial {
				case 0:
					start, k = 0, n
				case 1:
					start, k = n-1, 1
				}
				var want uint64
				for _, v := range vals[start : start+k] {
					want += v
				}
				if got := Sum(src, w, start, k); got != want {
					t.Fatalf("w=%d n=%d: Sum(%d, %d) = %d, want %d", w, n, start, k, got, want)
				}
			}
		}
	}
}

func BenchmarkSum(b *testing.B) {
	for _, w := range []int{2, 3, 5, 8, 12} {
		r := rand.New(rand.NewPCG(1, 2))
		src := Pack(nil, randVals(r, 1024, w), w)
		b.Run(fmt.Sprintf("w%d/sum", w), func(b *testing.B) {
			var s uint64
			for i := 0; i < b.N; i++ {
				s += Sum(src, w, 3, 1000)
			}
			b.SetBytes(1000 * 8)
			_ = s
		})
		b.Run(fmt.Sprintf("w%d/unpack", w), func(b *testing.B) {
			dst := make([]uint64, 1000)
			var s uint64
			for i := 0; i < b.N; i++ {
				Unpack(dst, src, w, 3)
				for _, v := range dst {
					s += v
				}
			}
			b.SetBytes(1000 * 8)
			_ = s
		})
	}
}

// BenchmarkUnpackPart unpacks short runs that start and end inside groups
// of 64 (a window of rows read from the middle of a block).
func BenchmarkUnpackPart(b *testing.B) {
	for _, w := range []int{2, 3, 7} {
		r := rand.New(rand.NewPCG(1, 2))
		src := Pack(nil, randVals(r, 1024, w), w)
		dst := make([]uint64, 100)
		b.Run(fmt.Sprintf("w%d", w), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				UnpackAdd(dst, src, w, 37+i%8, 5)
			}
		})
	}
}
