//go:build amd64 && !purego

#include "textflag.h"

// lanes 0..3, shifted left by lg to give the lanes' first shifts (0, w, 2w, 3w)
DATA lanes<>+0(SB)/8, $0
DATA lanes<>+8(SB)/8, $1
DATA lanes<>+16(SB)/8, $2
DATA lanes<>+24(SB)/8, $3
GLOBL lanes<>(SB), RODATA|NOPTR, $32

// LANES8 puts the 8 values at R12 (bit offsets 0, w, ... 7w from a byte
// boundary, w <= 25) in the lanes of Y0 — the first four from the 16
// bytes at R12, the other four from the 16 at R12 + R9 (= 4w/8) —
// shifted and masked; R12 moves on by w bytes.
#define LANES8 \
	VMOVDQU     (R12), X0; \
	VINSERTI128 $1, (R12)(R9*1), Y0, Y0; \
	VPSHUFB     Y10, Y0, Y0; \
	VPSRLVD     Y11, Y0, Y0; \
	VPAND       Y12, Y0, Y0; \
	ADDQ        R8, R12

// NARROW_SETUP loads what the kernels of widths up to 25 share from their
// arguments (w+24, ctl+32, shifts+40, m+48): R8 = w, R9 = 4w/8, Y10 the
// shuffle control, Y11 the lane shifts, Y12 the mask.
#define NARROW_SETUP \
	MOVQ         w+24(FP), R8; \
	MOVQ         ctl+32(FP), AX; \
	MOVQ         shifts+40(FP), BX; \
	VMOVDQU      (AX), Y10; \
	VMOVDQU      (BX), Y11; \
	MOVL         m+48(FP), DX; \
	VMOVD        DX, X12; \
	VPBROADCASTD X12, Y12; \
	MOVQ         R8, R9; \
	SHRQ         $1, R9

// One step of rangeAVX2: a set bit of R11 (bits 8k..8k+7) for each of the
// 8 values at R12 with lo <= v <= lo+diff.
#define RANGE_STEP(k) \
	LANES8; \
	VPSUBD      Y13, Y0, Y0; \
	VPMINUD     Y14, Y0, Y1; \
	VPCMPEQD    Y1, Y0, Y0; \
	VMOVMSKPS   Y0, DX; \
	SHLQ        $(8*k), DX; \
	ORQ         DX, R11

// One step of the wide kernels: the 8 values at R12 (bit offsets 0, w,
// ... 7w, w 26..32) into the 64-bit lanes of Y0 (values 0-3, halves loaded
// from R12 and R12+R9) and Y1 (values 4-7, from R12+R13 and R12+R14),
// shifted and masked; R12 moves on by w bytes.
#define WIDE_LANES \
	VMOVDQU     (R12), X0; \
	VINSERTI128 $1, (R12)(R9*1), Y0, Y0; \
	VPSHUFB     Y10, Y0, Y0; \
	VPSRLVQ     Y11, Y0, Y0; \
	VPAND       Y12, Y0, Y0; \
	VMOVDQU     (R12)(R13*1), X1; \
	VINSERTI128 $1, (R12)(R14*1), Y1, Y1; \
	VPSHUFB     Y8, Y1, Y1; \
	VPSRLVQ     Y9, Y1, Y1; \
	VPAND       Y12, Y1, Y1; \
	ADDQ        R8, R12

// WIDE_SETUP loads a wideTable (t+24) for the wide kernels: Y10/Y11 the
// shuffle control and lane shifts of values 0-3, Y8/Y9 those of values
// 4-7, Y12 the mask, R8 = w, R9/R13/R14 the byte offsets of the other
// three halves.
#define WIDE_SETUP \
	MOVQ         t+24(FP), AX; \
	VMOVDQU      0(AX), Y10; \
	VMOVDQU      32(AX), Y11; \
	VMOVDQU      64(AX), Y8; \
	VMOVDQU      96(AX), Y9; \
	VPBROADCASTQ 128(AX), Y12; \
	MOVQ         136(AX), R8; \
	MOVQ         144(AX), R9; \
	MOVQ         152(AX), R13; \
	MOVQ         160(AX), R14

// One range step of rangeWideAVX2: bits 8k..8k+7 of R11 set for the
// values v with 0 <= v-lo <= diff (64-bit lanes: v-lo cannot wrap).
#define WIDE_RANGE_STEP(k) \
	WIDE_LANES; \
	VPSUBQ    Y13, Y0, Y0; \
	VPSUBQ    Y13, Y1, Y1; \
	VPCMPGTQ  Y14, Y0, Y2; \
	VPCMPGTQ  Y0, Y15, Y3; \
	VPOR      Y3, Y2, Y2; \
	VPCMPGTQ  Y14, Y1, Y4; \
	VPCMPGTQ  Y1, Y15, Y5; \
	VPOR      Y5, Y4, Y4; \
	VMOVMSKPD Y2, DX; \
	VMOVMSKPD Y4, BX; \
	SHLQ      $4, BX; \
	ORQ       BX, DX; \
	XORQ      $0xff, DX; \
	SHLQ      $(8*k), DX; \
	ORQ       DX, R11

// func unpackPow2AVX2(in *byte, out *uint64, words, lg, perWord int, step, mask, base uint64)
TEXT ·unpackPow2AVX2(SB), NOSPLIT, $0-64
	MOVQ         in+0(FP), SI
	MOVQ         out+8(FP), DI
	MOVQ         words+16(FP), CX
	VMOVQ        lg+24(FP), X13
	MOVQ         perWord+32(FP), R8
	VPBROADCASTQ step+40(FP), Y11
	VPBROADCASTQ mask+48(FP), Y8
	VPBROADCASTQ base+56(FP), Y9
	VMOVDQU      lanes<>(SB), Y12
	VPSLLQ       X13, Y12, Y10
	TESTQ        CX, CX
	JZ           done
	PCALIGN      $64

word:
	VPBROADCASTQ (SI), Y0
	VMOVDQA      Y10, Y2
	MOVQ         R8, BX

vec:
	VPSRLVQ Y2, Y0, Y1
	VPAND   Y8, Y1, Y1
	VPADDQ  Y9, Y1, Y1
	VMOVDQU Y1, (DI)
	VPADDQ  Y11, Y2, Y2
	ADDQ    $32, DI
	DECQ    BX
	JNZ     vec
	ADDQ    $8, SI
	DECQ    CX
	JNZ     word

done:
	VZEROUPPER
	RET

// func rangeAVX2(in *byte, sel *uint64, groups, w int, ctl *[32]byte, shifts *[8]uint32, m, lo, diff uint32)
TEXT ·rangeAVX2(SB), NOSPLIT, $0-60
	MOVQ         in+0(FP), SI
	MOVQ         sel+8(FP), DI
	MOVQ         groups+16(FP), CX
	NARROW_SETUP
	MOVL         lo+52(FP), DX
	VMOVD        DX, X13
	VPBROADCASTD X13, Y13
	MOVL         diff+56(FP), DX
	VMOVD        DX, X14
	VPBROADCASTD X14, Y14
	TESTQ        CX, CX
	JZ           rdone

	PCALIGN $64

rgroup:
	MOVQ  (DI), R10
	TESTQ R10, R10
	JZ    rnext
	XORQ  R11, R11
	MOVQ  SI, R12
	RANGE_STEP(0)
	RANGE_STEP(1)
	RANGE_STEP(2)
	RANGE_STEP(3)
	RANGE_STEP(4)
	RANGE_STEP(5)
	RANGE_STEP(6)
	RANGE_STEP(7)
	ANDQ  R11, R10
	MOVQ  R10, (DI)

rnext:
	LEAQ (SI)(R8*8), SI
	ADDQ $8, DI
	DECQ CX
	JNZ  rgroup

rdone:
	VZEROUPPER
	RET

// func unpack32AVX2(in *byte, out *uint32, octets, w int, ctl *[32]byte, shifts *[8]uint32, m, base uint32)
TEXT ·unpack32AVX2(SB), NOSPLIT, $0-56
	MOVQ         in+0(FP), R12
	MOVQ         out+8(FP), DI
	MOVQ         octets+16(FP), CX
	NARROW_SETUP
	MOVL         base+52(FP), DX
	VMOVD        DX, X13
	VPBROADCASTD X13, Y13
	TESTQ        CX, CX
	JZ           u32done

	PCALIGN $64

u32vec:
	LANES8
	VPADDD  Y13, Y0, Y0
	VMOVDQU Y0, (DI)
	ADDQ    $32, DI
	DECQ    CX
	JNZ     u32vec

u32done:
	VZEROUPPER
	RET

// func unpack64AVX2(in *byte, out *uint64, octets, w int, ctl *[32]byte, shifts *[8]uint32, m uint32, base uint64)
TEXT ·unpack64AVX2(SB), NOSPLIT, $0-64
	MOVQ         in+0(FP), R12
	MOVQ         out+8(FP), DI
	MOVQ         octets+16(FP), CX
	NARROW_SETUP
	VPBROADCASTQ base+56(FP), Y13
	TESTQ        CX, CX
	JZ           u64done

	PCALIGN $64

u64vec:
	LANES8
	VEXTRACTI128 $1, Y0, X2
	VPMOVZXDQ    X0, Y1
	VPMOVZXDQ    X2, Y2
	VPADDQ       Y13, Y1, Y1
	VPADDQ       Y13, Y2, Y2
	VMOVDQU      Y1, (DI)
	VMOVDQU      Y2, 32(DI)
	ADDQ         $64, DI
	DECQ         CX
	JNZ          u64vec

u64done:
	VZEROUPPER
	RET

// func rangeWideAVX2(in *byte, sel *uint64, groups int, t *wideTable, lo, diff uint64)
TEXT ·rangeWideAVX2(SB), NOSPLIT, $0-48
	MOVQ         in+0(FP), SI
	MOVQ         sel+8(FP), DI
	MOVQ         groups+16(FP), CX
	WIDE_SETUP
	VPBROADCASTQ lo+32(FP), Y13
	VPBROADCASTQ diff+40(FP), Y14
	VPXOR        Y15, Y15, Y15
	TESTQ        CX, CX
	JZ           wrdone
	PCALIGN      $64

wrgroup:
	MOVQ  (DI), R10
	TESTQ R10, R10
	JZ    wrnext
	XORQ  R11, R11
	MOVQ  SI, R12
	WIDE_RANGE_STEP(0)
	WIDE_RANGE_STEP(1)
	WIDE_RANGE_STEP(2)
	WIDE_RANGE_STEP(3)
	WIDE_RANGE_STEP(4)
	WIDE_RANGE_STEP(5)
	WIDE_RANGE_STEP(6)
	WIDE_RANGE_STEP(7)
	ANDQ  R11, R10
	MOVQ  R10, (DI)

wrnext:
	LEAQ (SI)(R8*8), SI
	ADDQ $8, DI
	DECQ CX
	JNZ  wrgroup

wrdone:
	VZEROUPPER
	RET

// func unpackWideAVX2(in *byte, out *uint64, octets int, t *wideTable, base uint64)
TEXT ·unpackWideAVX2(SB), NOSPLIT, $0-40
	MOVQ         in+0(FP), R12
	MOVQ         out+8(FP), DI
	MOVQ         octets+16(FP), CX
	WIDE_SETUP
	VPBROADCASTQ base+32(FP), Y13
	TESTQ        CX, CX
	JZ           uwdone
	PCALIGN      $64

uwvec:
	WIDE_LANES
	VPADDQ  Y13, Y0, Y0
	VPADDQ  Y13, Y1, Y1
	VMOVDQU Y0, (DI)
	VMOVDQU Y1, 32(DI)
	ADDQ    $64, DI
	DECQ    CX
	JNZ     uwvec

uwdone:
	VZEROUPPER
	RET
