//go:build unix

package format

import (
	"os"
	"syscall"
)

// lockTemp takes an exclusive advisory lock on a writer's temporary file
// for as long as the file stays open. The kernel drops it when the process
// dies, however it dies, which is how the next writer tells an abandoned
// temporary file from one still being written.
func lockTemp(f *os.File) error {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
}

// removeIfAbandoned removes the temporary file at path if no live writer
// holds its lock.
func removeIfAbandoned(path string) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return
	}
	defer f.Close()
	if lockTemp(f) == nil { // else a live writer holds it
		os.Remove(path)
	}
}

// renameOpen is true where a file can be renamed while open: the writer
// renames its temporary file before closing it, so its lock covers the
// rename too.
const renameOpen = true
