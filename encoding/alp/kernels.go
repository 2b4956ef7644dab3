package alp

import (
	"math"
	"math/big"
)

// The conversion kernels turn a run of digits that share one (e, f) pair
// into floats. dst and src may be the same memory, and are in the decoder:
// the digits are decoded into the caller's float buffer, which has their
// width, and converted in place. The sum kernels first replace the digits
// by their running sum from a base (the digits child is Delta and left the
// sum to ALP, see encoding.DiffReader), so the digits are read from memory
// once; they return the last sum and may overwrite src.
//
// Each kernel has a pure-Go form, the reference, which is the format's
// formula (decodeDigit) written out: the integer to float64 conversion,
// the product by 10^f, the correctly rounded quotient by 10^e, and for
// narrow vectors the float32 rounding, the product by 10^k, the rounding
// to an integer and the correctly rounded quotient by 10^k. Running sums
// wrap as the integer types do.
//
// On amd64 with AVX2 and FMA an assembly form (kernels_amd64.s) does four
// values an instruction and gives the same bits. It does not divide: a
// division costs about as much as the rest of the kernel together, and the
// quotient x / 10^e is instead x × h + x × l, where h + l is 10^-e to about
// 106 bits (h = RN(10^-e), l = RN(10^-e - h)): t = RN(x × l), then one
// fused multiply-add RN(x × h + t). That sum is within 2^-105 |x/10^e| of
// the exact quotient. The quotient is correctly rounded unless a rounding
// boundary (a midpoint between two doubles) lies that close, and none
// does when x is an integer with |x| < 2^104:
//
//   - x / 10^e is never a midpoint itself: a midpoint m of the binade
//     [2^k, 2^(k+1)) is an odd 54-bit integer M times 2^(k-53), and
//     x = m × 10^e would have the odd factor M × 5^e of 54 bits or more,
//     which no double has.
//   - With s = k - 53 + e, x - m × 10^e = x - M × 5^e × 2^s. If s >= 0 it
//     is a nonzero integer, so |x/10^e - m| >= 10^-e, which exceeds
//     2^-105 |x/10^e| when |x| < 2^104. If s < 0 it is a nonzero multiple
//     of 2^s, so |x/10^e - m| >= 2^(k-53) / 5^e >= 2^(k-95) (5^18 < 2^42),
//     far above 2^-105 × 2^(k+1).
//
// The digits are integers and so is every x the kernels divide; the
// dispatchers below use the assembly only where |x| < 2^104 holds for any
// int64 digit: f <= maxAsmF (|d × 10^f| < 2^63 × 10^11 < 2^100) and, for
// the second quotient of narrow vectors, k <= maxAsmK (|x/10^e| <= |d| <
// 2^63 since f <= e, its float32 rounding times 10^12 < 2^103). Other pairs,
// which decimal data does not use, run the Go form. Narrow vectors are
// decoded in two passes, the quotients by 10^e and then the rounding
// (narrow), each in assembly where its bound allows. kernels_test.go checks
// both forms bit for bit over every pair, over the whole int64 range and
// next to midpoints.

// maxAsmF and maxAsmK bound the factor exponent and the narrow decimal
// count the assembly kernels take (see above).
const (
	maxAsmF = 11
	maxAsmK = 12
)

// recipHi[e] + recipLo[e] is 10^-e to about 106 bits: recipHi[e] is the
// double nearest 10^-e and recipLo[e] the double nearest the rest.
var recipHi, recipLo [len(pow10)]float64

func init() {
	for e := range pow10 {
		exact := new(big.Float).SetPrec(1024).Quo(big.NewFloat(1), new(big.Float).SetPrec(1024).SetFloat64(pow10[e]))
		hi, _ := exact.Float64()
		rest := new(big.Float).SetPrec(1024).Sub(exact, new(big.Float).SetPrec(1024).SetFloat64(hi))
		lo, _ := rest.Float64()
		recipHi[e], recipLo[e] = hi, lo
	}
}

// digitsF64Go is the reference of digitsF64.
func digitsF64Go(dst []float64, src []int64, a, b float64) {
	dst = dst[:len(src)]
	for i, d := range src {
		dst[i] = float64(float64(d)*a) / b
	}
}

// digitsF32Go is the reference of digitsF32: float32 nodes have int32
// digits and round the float64 quotient to float32.
func digitsF32Go(dst []float32, src []int32, a, b float64) {
	dst = dst[:len(src)]
	for i, d := range src {
		dst[i] = float32(float64(float64(d)*a) / b)
	}
}

// digitsNarrowGo is the reference of digitsNarrow: decodeDigit of a narrow
// pair written out (pk is 10^k).
func digitsNarrowGo(dst []float64, src []int64, a, b, pk float64) {
	dst = dst[:len(src)]
	for i, d := range src {
		t := float64(float64(float32(float64(float64(d)*a)/b)) * pk)
		if t > -(1<<51) && t < 1<<51 {
			t = float64(t+magic) - magic
		} else {
			t = math.RoundToEven(t)
		}
		dst[i] = t / pk
	}
}

// prefixSum replaces src[i] by base + src[0] + ... + src[i], wrapping,
// and returns the last sum (base when src is empty).
func prefixSum[I int32 | int64](src []I, base I) I {
	for i, x := range src {
		base += x
		src[i] = base
	}
	return base
}

// sumF64Go is the reference of sumF64.
func sumF64Go(dst []float64, src []int64, base int64, a, b float64) int64 {
	last := prefixSum(src, base)
	digitsF64Go(dst, src, a, b)
	return last
}

// sumF32Go is the reference of sumF32.
func sumF32Go(dst []float32, src []int32, base int32, a, b float64) int32 {
	last := prefixSum(src, base)
	digitsF32Go(dst, src, a, b)
	return last
}

// sumNarrowGo is the reference of sumNarrow.
func sumNarrowGo(dst []float64, src []int64, base int64, a, b, pk float64) int64 {
	last := prefixSum(src, base)
	digitsNarrowGo(dst, src, a, b, pk)
	return last
}

// The dispatchers run the assembly kernels on the multiple of four values
// where the pair allows (see above) and the Go ones on the rest. e, f and
// k index pow10.

// asmPair reports whether the assembly kernels take pair (e, f).
func asmPair(f int) bool { return useAsm && f <= maxAsmF }

// digitsF64 sets dst[i] = float64(src[i]) × 10^f / 10^e, each step rounded
// to float64.
func digitsF64(dst []float64, src []int64, e, f int) {
	n := 0
	if asmPair(f) {
		if n = len(src) &^ 3; n > 0 {
			digitsF64AVX2(&dst[0], &src[0], n, pow10[f], recipHi[e], recipLo[e])
		}
	}
	digitsF64Go(dst[n:], src[n:], pow10[f], pow10[e])
}

// digitsF32 sets dst[i] = float32(float64(src[i]) × 10^f / 10^e). int32
// digits times 10^10 stay below 2^65, so every float32 pair is taken.
func digitsF32(dst []float32, src []int32, e, f int) {
	n := 0
	if useAsm {
		if n = len(src) &^ 3; n > 0 {
			digitsF32AVX2(&dst[0], &src[0], n, pow10[f], recipHi[e], recipLo[e])
		}
	}
	digitsF32Go(dst[n:], src[n:], pow10[f], pow10[e])
}

// digitsNarrow decodes digits of a narrow pair: the quotients of
// digitsF64, then the narrow pass.
func digitsNarrow(dst []float64, src []int64, e, f, k int) {
	digitsF64(dst, src, e, f)
	narrow(dst[:len(src)], k)
}

// narrow rounds the quotients of dst in place as narrow vectors do: to
// float32, then to k decimals (roundTo).
func narrow(dst []float64, k int) {
	n := 0
	if useAsm && k <= maxAsmK {
		if n = len(dst) &^ 3; n > 0 {
			narrowAVX2(&dst[0], n, pow10[k], recipHi[k], recipLo[k])
		}
	}
	for i, q := range dst[n:] {
		dst[n+i] = roundTo(float64(float32(q)), uint8(k))
	}
}

// sumF64 is digitsF64 of the running sums of src from base.
func sumF64(dst []float64, src []int64, base int64, e, f int) int64 {
	n := 0
	if asmPair(f) {
		if n = len(src) &^ 3; n > 0 {
			base = sumF64AVX2(&dst[0], &src[0], n, base, pow10[f], recipHi[e], recipLo[e])
		}
	}
	return sumF64Go(dst[n:], src[n:], base, pow10[f], pow10[e])
}

// sumF32 is digitsF32 of the running sums of src from base.
func sumF32(dst []float32, src []int32, base int32, e, f int) int32 {
	n := 0
	if useAsm {
		if n = len(src) &^ 3; n > 0 {
			base = sumF32AVX2(&dst[0], &src[0], n, base, pow10[f], recipHi[e], recipLo[e])
		}
	}
	return sumF32Go(dst[n:], src[n:], base, pow10[f], pow10[e])
}

// sumNarrow is digitsNarrow of the running sums of src from base.
func sumNarrow(dst []float64, src []int64, base int64, e, f, k int) int64 {
	last := sumF64(dst, src, base, e, f)
	narrow(dst[:len(src)], k)
	return last
}
