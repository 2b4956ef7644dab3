//go:build !amd64 || purego

package lagdelta

// Without the assembly kernel (another architecture or the purego build
// tag) addLag always runs the Go loop, and the stub is never called.
var hasAsm, useAsm = false, false

func addLag64AVX2(out, prev *uint64, n int) { panic("lagdelta: no assembly kernel") }
