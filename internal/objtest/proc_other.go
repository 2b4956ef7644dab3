//go:build !linux

package objtest

import "os/exec"

// startChild starts cmd; elsewhere than Linux a server left by a crashed
// test process has to be stopped by hand.
func startChild(cmd *exec.Cmd) error { return cmd.Start() }
