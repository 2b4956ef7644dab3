package lagdelta

// AddLag and SetAsm expose the kernel and its switch to the tests.
func AddLag(out, prev []uint64, lag int) { addLag(out, prev, lag) }

// SetAsm turns the assembly kernel on or off (where the CPU has it) and
// returns the previous setting.
func SetAsm(on bool) bool {
	was := useAsm
	useAsm = on && hasAsm
	return was
}
