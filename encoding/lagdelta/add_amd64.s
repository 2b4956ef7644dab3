//go:build amd64 && !purego

#include "textflag.h"

// func addLag64AVX2(out, prev *uint64, n int)
//
// out[i] += prev[i], four lanes at a time. prev is out's buffer lag values
// earlier (lag >= 4), so the four values an iteration loads from prev were
// stored by an earlier iteration or precede out.
TEXT ·addLag64AVX2(SB), NOSPLIT, $0-24
	MOVQ out+0(FP), DI
	MOVQ prev+8(FP), SI
	MOVQ n+16(FP), CX
	SHRQ $2, CX
	JZ   done

loop:
	VMOVDQU (SI), Y0
	VPADDQ  (DI), Y0, Y0
	VMOVDQU Y0, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DI
	DECQ    CX
	JNZ     loop

done:
	VZEROUPPER
	RET
