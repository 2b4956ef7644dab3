package alp

// SetAssembly turns the assembly kernels on or off (on only takes effect
// where they exist) and returns the previous setting, so tests can run the
// decoder through the pure-Go kernels on a machine that has AVX2.
func SetAssembly(on bool) (was bool) {
	was = useAsm
	useAsm = on && hasAssembly
	return was
}
