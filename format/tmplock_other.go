//go:build !unix

package format

import "os"

// lockTemp is a no-op where advisory locks are not available: without a
// lock no writer can tell an abandoned temporary file from a live one, so
// removeIfAbandoned leaves them all alone.
func lockTemp(*os.File) error { return nil }

func removeIfAbandoned(string) {}

// renameOpen is false: Windows does not rename an open file.
const renameOpen = false
