//go:build !unix

package iox

// defaultMaxOpenFiles is a fixed bound where there is no RLIMIT_NOFILE to
// derive one from.
func defaultMaxOpenFiles() int { return otherMaxOpen }

// tooManyOpen reports whether err is the process being out of descriptors;
// without RLIMIT_NOFILE it is never taken to be.
func tooManyOpen(error) bool { return false }
