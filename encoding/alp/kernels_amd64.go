//go:build amd64 && !purego

package alp

import "golang.org/x/sys/cpu"

// hasAssembly reports whether the assembly kernels can run here (they use
// AVX2 and FMA); useAsm selects them (tests turn it off to run the pure-Go
// kernels). The purego build tag, another architecture or a CPU without
// AVX2 or FMA keeps the pure-Go ones.
var (
	hasAssembly = cpu.X86.HasAVX2 && cpu.X86.HasFMA
	useAsm      = hasAssembly
)

// The assembly kernels work on n values, n a multiple of 4; hi and lo are
// recipHi[e] and recipLo[e], pkhi and pklo recipHi[k] and recipLo[k]. The
// sum kernels write src only where it is dst. narrowAVX2 rounds quotients
// in place as narrow vectors do (see digitsNarrow).

//go:noescape
func digitsF64AVX2(dst *float64, src *int64, n int, a, hi, lo float64)

//go:noescape
func digitsF32AVX2(dst *float32, src *int32, n int, a, hi, lo float64)

//go:noescape
func sumF64AVX2(dst *float64, src *int64, n int, base int64, a, hi, lo float64) int64

//go:noescape
func sumF32AVX2(dst *float32, src *int32, n int, base int32, a, hi, lo float64) int32

//go:noescape
func narrowAVX2(dst *float64, n int, pk, pkhi, pklo float64)
