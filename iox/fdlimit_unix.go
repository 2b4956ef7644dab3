//go:build unix

package iox

import (
	"errors"
	"syscall"
)

// defaultMaxOpenFiles derives the descriptor cache's bound from the soft
// RLIMIT_NOFILE (which Go raises to the hard limit at start-up).
func defaultMaxOpenFiles() int {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		return otherMaxOpen
	}
	return maxOpenFor(uint64(rl.Cur))
}

// tooManyOpen reports whether err is the process (EMFILE) or the system
// (ENFILE) being out of descriptors.
func tooManyOpen(err error) bool {
	return errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE)
}
