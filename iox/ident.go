package iox

import (
	"fmt"
	"path/filepath"
)

// Identifier is implemented by sources that can name the exact bytes they
// hold, so that caches may outlive one open of them: a local file by its
// path, size and modification time; an object in a store by its location
// and ETag. Identity returns "" when the source cannot tell.
type Identifier interface {
	Identity() string
}

// IdentityOf returns src's identity, or "" when it states none.
func IdentityOf(src Source) string {
	if id, ok := src.(Identifier); ok {
		return id.Identity()
	}
	return ""
}

// Identity names the file by absolute path, size and modification time: a
// file rewritten in place gets a new identity (its size or time differs).
func (f *File) Identity() string {
	st, err := f.f.Stat()
	if err != nil {
		return ""
	}
	abs, err := filepath.Abs(f.f.Name())
	if err != nil {
		return ""
	}
	return fmt.Sprintf("file:%s:%d:%d", abs, st.Size(), st.ModTime().UnixNano())
}

// Identity is the identity of the Fetcher's source.
func (f *Fetcher) Identity() string { return IdentityOf(f.src) }
