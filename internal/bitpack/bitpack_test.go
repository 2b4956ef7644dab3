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

// bothKernels runs a test with the Go kernels alone and, where the CPU
// has AVX2, with the AVX2 kernels.
func bothKernels(t *testing.T, test func(t *testing.T)) {
	defer func() { useAVX2 = hasAVX2 }()
	for _, fast := range []bool{false, hasAVX2} {
		useAVX2 = fast
		test(t)
	}
}

// TestDifferential checks Pack, Unpack, Unpack32 and Get against the
// bit-by-bit references at every width and many alignments, with and
// without the AVX2 kernels.
func TestDifferential(t *testing.T) { bothKernels(t, testDifferential) }

func testDifferential(t *testing.T) {
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
// kernel, head, tail and width-0 paths, with and without the AVX2 kernels.
func TestUnpackAdd(t *testing.T) { bothKernels(t, testUnpackAdd) }

func testUnpackAdd(t *testing.T) {
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
// tails and words already deselected; with the AVX2 kernel where the CPU
// has it and without.
func TestRangeMask(t *testing.T) { bothKernels(t, testRangeMask) }

func testRangeMask(t *testing.T) {
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
						t.Fatalf("avx2=%v w=%d n=%d start=%d [%d,+%d]: word %d = %#x, want %#x", useAVX2, w, n, start, lo, span, i, sel[i], want[i])
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
	for _, w := range []int{2, 4, 7, 12, 15, 20, 28, 32} {
		vals := randVals(r, benchN, w)
		src := Pack(nil, vals, w)
		sel := make([]uint64, benchN/64)
		lo, span := mask(w)/4, mask(w)/8
		for _, fast := range []bool{false, hasAVX2} {
			b.Run(fmt.Sprintf("fused/w=%d/avx2=%v", w, fast), func(b *testing.B) {
				useAVX2 = fast
				defer func() { useAVX2 = hasAVX2 }()
				b.SetBytes(benchN * 8)
				for b.Loop() {
					for i := range sel {
						sel[i] = ^uint64(0)
					}
					RangeMask(src, w, 0, benchN, lo, span, sel)
				}
			})
		}
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

// TestSum checks Sum against SumRef and the packed values at every width,
// over ranges of every alignment, including ones ending in a stream cut
// short at its last byte.
func TestSum(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for w := 0; w <= 64; w++ {
		for _, n := range []int{1, 3, 63, 64, 65, 130, 700} {
			vals := randVals(r, n, w)
			src := Pack(nil, vals, w)
			for trial := 0; trial < 40; trial++ {
				start := r.IntN(n)
				k := r.IntN(n - start + 1)
				switch trial {
				case 0:
					start, k = 0, n
				case 1:
					k = n - start
				}
				var want uint64
				for _, v := range vals[start : start+k] {
					want += v
				}
				if got := Sum(src, w, start, k); got != want {
					t.Fatalf("w=%d n=%d: Sum(%d, %d) = %d, want %d", w, n, start, k, got, want)
				}
				if ref := SumRef(src, w, start, k); ref != want {
					t.Fatalf("w=%d n=%d: SumRef(%d, %d) = %d, want %d", w, n, start, k, ref, want)
				}
			}
		}
	}
}

// TestSumSaturated sums long streams of the largest value of every width
// up to 8 (where sums of lanes within words would overflow first) over
// ranges of every alignment, against the exact total.
func TestSumSaturated(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for w := 1; w <= 8; w++ {
		const n = 3000
		vals := make([]uint64, n)
		for i := range vals {
			vals[i] = 1<<w - 1
		}
		src := Pack(nil, vals, w)
		for trial := 0; trial < 200; trial++ {
			start := r.IntN(n)
			k := r.IntN(n - start + 1)
			if trial < 2 {
				start, k = trial, n-trial
			}
			if got, want := Sum(src, w, start, k), uint64(k)*(1<<w-1); got != want {
				t.Fatalf("w=%d: Sum(%d, %d) = %d, want %d", w, start, k, got, want)
			}
		}
	}
}

// FuzzSum holds Sum to the value-by-value sum on arbitrary streams.
func FuzzSum(f *testing.F) {
	f.Add([]byte{0xff, 0x0f, 0x33, 0x81, 0x00, 0x7e, 0x11, 0x22, 0x9a}, uint8(3), uint16(1), uint16(17))
	f.Fuzz(func(t *testing.T, src []byte, w8 uint8, start, n uint16) {
		w := int(w8 % 65)
		if w == 0 {
			return
		}
		total := len(src) * 8 / w
		s, k := int(start)%(total+1), int(n)
		k = min(k, total-s)
		if got, want := Sum(src, w, s, k), SumRef(src, w, s, k); got != want {
			t.Fatalf("w=%d Sum(%d, %d) = %d, ref %d", w, s, k, got, want)
		}
	})
}

func BenchmarkSum(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	const n = 1 << 16
	for _, w := range benchWidths() {
		src := Pack(nil, randVals(r, n, w), w)
		b.Run(fmt.Sprintf("w%d", w), func(b *testing.B) {
			b.SetBytes(n * 8)
			for i := 0; i < b.N; i++ {
				Sum(src, w, 0, n)
			}
		})
	}
}

// TestGather checks Gather against Get at every width, with row offsets,
// rows up to the stream's last value and narrow output types.
func TestGather(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for w := 0; w <= 64; w++ {
		for _, n := range []int{1, 5, 64, 300} {
			vals := randVals(r, n, w)
			off := r.IntN(n)
			var rows []int32
			for i := off; i < n; i += 1 + r.IntN(9) {
				rows = append(rows, int32(i))
			}
			if rows[len(rows)-1] != int32(n-1) && r.IntN(2) == 0 {
				rows = append(rows, int32(n-1))
			}
			base := r.Uint64()
			got := make([]uint64, len(rows))
			got8 := make([]int8, len(rows))
			// the stream as seen from value off on, rows relative to it
			sub := Pack(nil, vals[off:], w)
			Gather(got, sub, w, rows, off, base)
			Gather(got8, sub, w, rows, off, base)
			for i, row := range rows {
				want := vals[row] + base
				if got[i] != want || got8[i] != int8(want) {
					t.Fatalf("w=%d n=%d off=%d: row %d = %#x / %d, want %#x", w, n, off, row, got[i], got8[i], want)
				}
			}
		}
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

// TestUnpackParts checks runs that start and end inside groups of 64,
// the parts unpackEnd takes either one value at a time or, from
// minGroupPart values on, through the octet kernels from the part's first
// whole octet (at every width they take, narrow and wide): every
// start within two groups and lengths around minGroupPart, at the widths
// the AVX2 kernel takes and a few it does not, with the stream cut right
// after its values (the last group is then short and must not be loaded
// whole) and followed by more bytes.
func TestUnpackParts(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for _, w := range []int{1, 2, 3, 4, 8, 16, 17, 25, 26, 31, 32, 33} {
		n := 64*4 + 9
		vals := randVals(r, n, w)
		exact := Pack(nil, vals, w)
		padded := append(append([]byte(nil), exact...), make([]byte, 64)...)
		base := r.Uint64()
		for _, src := range [][]byte{exact, padded} {
			for start := 0; start < 128; start++ {
				for _, k := range []int{1, minGroupPart - 1, minGroupPart, minGroupPart + 1, 40, 63, 64, 65, 130, n - start} {
					if k <= 0 || start+k > n {
						continue
					}
					for _, at := range []int{start, n - k} {
						got := make([]uint64, k)
						UnpackAdd(got, src, w, at, base)
						for i, v := range got {
							if v != vals[at+i]+base {
								t.Fatalf("w=%d start=%d k=%d (%d bytes): value %d = %#x, want %#x", w, at, k, len(src), i, v, vals[at+i]+base)
							}
						}
					}
				}
			}
		}
	}
}

// FuzzKernels checks UnpackAdd, Unpack32Add and RangeMask against the
// bit-by-bit reference on streams of any length, with and without the
// AVX2 kernels, which read past their last group only where src holds
// the bytes.
func FuzzKernels(f *testing.F) {
	f.Add([]byte{0xff, 0x0f, 0x33, 0x81, 0x00, 0x7e, 0x11, 0x22, 0x9a}, uint8(3), uint16(1), uint16(17), uint64(2), uint64(3), uint64(9))
	f.Fuzz(func(t *testing.T, src []byte, w8 uint8, start, n uint16, lo, span, base uint64) {
		w := int(w8%64) + 1
		total := len(src) * 8 / w
		s, k := int(start)%(total+1), int(n)
		k = min(k, total-s)
		ref := make([]uint64, k)
		UnpackRef(ref, src, w, s)
		defer func() { useAVX2 = hasAVX2 }()
		for _, fast := range []bool{false, hasAVX2} {
			useAVX2 = fast
			got := make([]uint64, k)
			UnpackAdd(got, src, w, s, base)
			for i := range got {
				if got[i] != ref[i]+base {
					t.Fatalf("avx2=%v w=%d UnpackAdd(%d, %d): value %d = %#x, want %#x", fast, w, s, k, i, got[i], ref[i]+base)
				}
			}
			if w <= 32 {
				got32 := make([]uint32, k)
				Unpack32Add(got32, src, w, s, uint32(base))
				for i := range got32 {
					if got32[i] != uint32(ref[i])+uint32(base) {
						t.Fatalf("avx2=%v w=%d Unpack32Add(%d, %d): value %d = %#x", fast, w, s, k, i, got32[i])
					}
				}
			}
			// RangeMask starts at a multiple of 64
			rs := s &^ 63
			rk := min(k+s-rs, total-rs)
			sel := make([]uint64, (rk+63)/64)
			for i := range sel {
				sel[i] = ^uint64(0)
			}
			RangeMask(src, w, rs, rk, lo, span, sel)
			for i := 0; i < rk; i++ {
				in := Get(src, w, rs+i)-lo <= span
				if got := sel[i>>6]>>(i&63)&1 == 1; got != in {
					t.Fatalf("avx2=%v w=%d RangeMask(%d, %d, [%d,+%d]): value %d in range %v, want %v", fast, w, rs, rk, lo, span, i, got, in)
				}
			}
		}
	})
}
