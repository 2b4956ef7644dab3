//go:build amd64 && !purego

#include "textflag.h"

// AVX2 and FMA forms of the kernels of kernels.go, four values an
// iteration. The conversion, the products and the roundings are the IEEE
// operations the Go reference performs, in the same order; each quotient
// by a power of ten is the correctly rounded one, computed without a
// division as kernels.go explains (QUOT). kernels_test.go checks the
// results bit for bit against the Go forms.
//
// Registers: Y8 = 10^f, Y7 and Y6 = the two parts of 10^-e; in the narrow
// pass Y9 = 10^k, Y10 and Y11 = the two parts of 10^-k. Y4, Y5, Y12 are
// the conversion constants; Y14 is zero (sum and narrow kernels) and Y15
// the running sum (sum kernels). Y0-Y2 are scratch.

// CONSTS loads the constants of the exact int64 to float64 conversion:
// Y4 flips the sign bit of a high half and gives it the exponent of 2^84,
// Y5 gives a low half the exponent of 2^52, Y12 is 2^84 + 2^63 + 2^52.
// The moves into X registers are the VEX forms (VMOVQ): the kernels have
// already written 256-bit registers by then, and a legacy SSE MOVQ with the
// upper halves dirty cost about 140 ns each on the machine of
// docs/benchmarks.md (a 128-value call took 500 ns instead of 80).
#define CONSTS \
	MOVQ $0x4530000080000000, AX \
	VMOVQ AX, X4 \
	VPBROADCASTQ X4, Y4 \
	MOVQ $0x4330000000000000, AX \
	VMOVQ AX, X5 \
	VPBROADCASTQ X5, Y5 \
	MOVQ $0x4530000080100000, AX \
	VMOVQ AX, X12 \
	VPBROADCASTQ X12, Y12

// I64TOF64 converts the four int64 of Y0 to float64 in Y1, rounded to
// nearest as CVTSQ2SD does. With x = h·2^32 + l (h signed, l unsigned):
// the double with exponent 2^84 and mantissa h+2^31 is 2^84 + (h+2^31)·2^32;
// subtracting 2^84 + 2^63 + 2^52 leaves h·2^32 - 2^52, exactly (it has at
// most 33 significant bits); the double with exponent 2^52 and mantissa l
// is 2^52 + l, exactly; their sum is x, rounded once. Clobbers Y2.
#define I64TOF64 \
	VPSRLQ $32, Y0, Y1 \
	VPXOR Y4, Y1, Y1 \
	VPBLENDD $0xAA, Y5, Y0, Y2 \
	VSUBPD Y12, Y1, Y1 \
	VADDPD Y2, Y1, Y1

// MULA multiplies Y1 by 10^f (Y8) unless f is 0 (R9 zero), as the
// product by 1 changes nothing. The branch is the same every iteration.
#define MULA \
	TESTQ R9, R9 \
	JZ    2(PC) \
	VMULPD Y8, Y1, Y1

// QUOT divides the integers x of Y1 by 10^e: Y1 = RN(x × hi + RN(x × lo))
// with hi = Y7, lo = Y6 (one product, one fused multiply-add). Clobbers Y2.
#define QUOT \
	VMULPD Y6, Y1, Y2 \
	VFMADD213PD Y2, Y7, Y1

// NARROW takes the quotients of Y1 to float32 and back, multiplies them by
// 10^k, rounds to an integer and divides by 10^k as QUOT does (Y10, Y11).
// The reference rounds by adding and subtracting magic below 2^51 and
// with round-half-even above; VROUNDPD rounds half-even everywhere, and
// adding +0 (Y14) turns the -0 it leaves for small negatives into the +0
// magic leaves, changing nothing else. Clobbers Y2.
#define NARROW \
	VCVTPD2PSY Y1, X1 \
	VCVTPS2PD X1, Y1 \
	VMULPD Y9, Y1, Y1 \
	VROUNDPD $0, Y1, Y1 \
	VADDPD Y14, Y1, Y1 \
	VMULPD Y11, Y1, Y2 \
	VFMADD213PD Y2, Y10, Y1

// PREFIX4 replaces the four int64 of Y0 by their running sums plus Y15
// (the sum so far, in every lane), wrapping, and adds their total to Y15.
// The sums within the four lanes do not depend on Y15, so the only chain
// from one iteration to the next is the last addition. Y14 must be zero.
// Clobbers Y1.
#define PREFIX4 \
	VPERMQ $0x90, Y0, Y1 \
	VPBLENDD $0x03, Y14, Y1, Y1 \
	VPADDQ Y1, Y0, Y0 \
	VINSERTI128 $1, X0, Y14, Y1 \
	VPADDQ Y1, Y0, Y0 \
	VPERMQ $0xFF, Y0, Y1 \
	VPADDQ Y15, Y0, Y0 \
	VPADDQ Y1, Y15, Y15

// PREFIX4D is PREFIX4 for four int32 in X0, with the sum so far in X15.
#define PREFIX4D \
	VPSLLDQ $4, X0, X1 \
	VPADDD X1, X0, X0 \
	VPSLLDQ $8, X0, X1 \
	VPADDD X1, X0, X0 \
	VPSHUFD $0xFF, X0, X1 \
	VPADDD X15, X0, X0 \
	VPADDD X1, X15, X15

// func digitsF64AVX2(dst *float64, src *int64, n int, a, hi, lo float64)
TEXT ·digitsF64AVX2(SB), NOSPLIT, $0-48
	MOVQ         dst+0(FP), DI
	MOVQ         src+8(FP), SI
	MOVQ         n+16(FP), CX
	VBROADCASTSD a+24(FP), Y8
	MOVQ         a+24(FP), R9
	MOVQ         $0x3ff0000000000000, AX
	XORQ         AX, R9
	VBROADCASTSD hi+32(FP), Y7
	VBROADCASTSD lo+40(FP), Y6
	CONSTS
	SHRQ         $2, CX
	JZ           done

loop:
	VMOVDQU (SI), Y0
	I64TOF64
	MULA
	QUOT
	VMOVUPD Y1, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DI
	DECQ    CX
	JNZ     loop

done:
	VZEROUPPER
	RET

// func sumF64AVX2(dst *float64, src *int64, n int, base int64, a, hi, lo float64) int64
TEXT ·sumF64AVX2(SB), NOSPLIT, $0-64
	MOVQ         dst+0(FP), DI
	MOVQ         src+8(FP), SI
	MOVQ         n+16(FP), CX
	VPBROADCASTQ base+24(FP), Y15
	VBROADCASTSD a+32(FP), Y8
	MOVQ         a+32(FP), R9
	MOVQ         $0x3ff0000000000000, AX
	XORQ         AX, R9
	VBROADCASTSD hi+40(FP), Y7
	VBROADCASTSD lo+48(FP), Y6
	VPXOR        Y14, Y14, Y14
	CONSTS
	SHRQ         $2, CX
	JZ           done

loop:
	VMOVDQU (SI), Y0
	PREFIX4
	I64TOF64
	MULA
	QUOT
	VMOVUPD Y1, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DI
	DECQ    CX
	JNZ     loop

done:
	VMOVQ      X15, AX
	MOVQ       AX, ret+56(FP)
	VZEROUPPER
	RET

// func digitsF32AVX2(dst *float32, src *int32, n int, a, hi, lo float64)
TEXT ·digitsF32AVX2(SB), NOSPLIT, $0-48
	MOVQ         dst+0(FP), DI
	MOVQ         src+8(FP), SI
	MOVQ         n+16(FP), CX
	VBROADCASTSD a+24(FP), Y8
	MOVQ         a+24(FP), R9
	MOVQ         $0x3ff0000000000000, AX
	XORQ         AX, R9
	VBROADCASTSD hi+32(FP), Y7
	VBROADCASTSD lo+40(FP), Y6
	SHRQ         $2, CX
	JZ           done

loop:
	VCVTDQ2PD  (SI), Y1
	MULA
	QUOT
	VCVTPD2PSY Y1, X1
	VMOVUPS    X1, (DI)
	ADDQ       $16, SI
	ADDQ       $16, DI
	DECQ       CX
	JNZ        loop

done:
	VZEROUPPER
	RET

// func sumF32AVX2(dst *float32, src *int32, n int, base int32, a, hi, lo float64) int32
TEXT ·sumF32AVX2(SB), NOSPLIT, $0-60
	MOVQ         dst+0(FP), DI
	MOVQ         src+8(FP), SI
	MOVQ         n+16(FP), CX
	MOVL         base+24(FP), AX
	VMOVD        AX, X15
	VPBROADCASTD X15, X15
	VBROADCASTSD a+32(FP), Y8
	MOVQ         a+32(FP), R9
	MOVQ         $0x3ff0000000000000, AX
	XORQ         AX, R9
	VBROADCASTSD hi+40(FP), Y7
	VBROADCASTSD lo+48(FP), Y6
	SHRQ         $2, CX
	JZ           done

loop:
	VMOVDQU    (SI), X0
	PREFIX4D
	VCVTDQ2PD  X0, Y1
	MULA
	QUOT
	VCVTPD2PSY Y1, X1
	VMOVUPS    X1, (DI)
	ADDQ       $16, SI
	ADDQ       $16, DI
	DECQ       CX
	JNZ        loop

done:
	VMOVD      X15, AX
	MOVL       AX, ret+56(FP)
	VZEROUPPER
	RET

// func narrowAVX2(dst *float64, n int, pk, pkhi, pklo float64)
//
// The narrow pass, in place over quotients the other kernels wrote. (One
// pass after the quotients measured 5-7 % faster than folding NARROW into
// their loop: each iteration's dependency chain is shorter, so more of them
// overlap.)
TEXT ·narrowAVX2(SB), NOSPLIT, $0-40
	MOVQ         dst+0(FP), DI
	MOVQ         n+8(FP), CX
	VBROADCASTSD pk+16(FP), Y9
	VBROADCASTSD pkhi+24(FP), Y10
	VBROADCASTSD pklo+32(FP), Y11
	VPXOR        Y14, Y14, Y14
	SHRQ         $2, CX
	JZ           done

loop:
	VMOVUPD (DI), Y1
	NARROW
	VMOVUPD Y1, (DI)
	ADDQ    $32, DI
	DECQ    CX
	JNZ     loop

done:
	VZEROUPPER
	RET
