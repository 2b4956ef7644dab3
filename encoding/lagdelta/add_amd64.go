//go:build amd64 && !purego

package lagdelta

import "golang.org/x/sys/cpu"

// useAsm selects the AVX2 form of addLag64 (tests turn it off to run the
// pure-Go one). The purego build tag, another architecture or a CPU
// without AVX2 keeps the Go loop.
var (
	hasAsm = cpu.X86.HasAVX2
	useAsm = hasAsm
)

// addLag64AVX2 adds prev[i] to out[i] for i < n, n a multiple of 4, four
// values an instruction; out lies at least 4 values after prev.
//
//go:noescape
func addLag64AVX2(out, prev *uint64, n int)
