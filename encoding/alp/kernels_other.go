//go:build !amd64 || purego

package alp

// Without the assembly kernels (another architecture or the purego build
// tag) the dispatchers of kernels.go always run the pure-Go ones, and the
// stubs below are never called.
var hasAssembly, useAsm = false, false

func digitsF64AVX2(dst *float64, src *int64, n int, a, hi, lo float64) {
	panic("alp: no assembly kernels")
}

func digitsF32AVX2(dst *float32, src *int32, n int, a, hi, lo float64) {
	panic("alp: no assembly kernels")
}

func sumF64AVX2(dst *float64, src *int64, n int, base int64, a, hi, lo float64) int64 {
	panic("alp: no assembly kernels")
}

func sumF32AVX2(dst *float32, src *int32, n int, base int32, a, hi, lo float64) int32 {
	panic("alp: no assembly kernels")
}

func narrowAVX2(dst *float64, n int, pk, pkhi, pklo float64) {
	panic("alp: no assembly kernels")
}
