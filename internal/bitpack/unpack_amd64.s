//go:build amd64 && !purego

#include "textflag.h"

// lanes 0..3, shifted left by lg to give the lanes' first shifts (0, w, 2w, 3w)
DATA lanes<>+0(SB)/8, $0
DATA lanes<>+8(SB)/8, $1
DATA lanes<>+16(SB)/8, $2
DATA lanes<>+24(SB)/8, $3
GLOBL lanes<>(SB), RODATA|NOPTR, $32

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
