package objtest

import (
	"os/exec"
	"runtime"
	"syscall"
)

// startChild starts cmd so that the kernel kills it when the test process
// dies without stopping it (a panic, a timeout): a server must not outlive
// the tests that started it. The parent-death signal follows the thread
// that forked, so the fork happens on a locked thread, which Go keeps.
func startChild(cmd *exec.Cmd) error {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	return cmd.Start()
}
