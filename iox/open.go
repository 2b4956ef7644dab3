package iox

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
)

// Identifier is implemented by sources that can name the exact bytes they
// serve, for caches that outlive one open: two sources with the same
// non-empty identity serve the same bytes. A local file names itself by
// path, size and modification time; an object by its location, size and
// ETag. An empty identity means the source cannot tell, and nothing read
// from it may be cached under its name.
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

// Identity names the file by absolute path, size and modification time
// (all taken when it was opened), so a rewritten file gets a new identity.
// It needs no descriptor.
func (f *File) Identity() string {
	return fmt.Sprintf("file://%s size=%d mtime=%d", f.path, f.size, f.mtime.UnixNano())
}

// An Opener opens the source at a location of its scheme, such as
// "https://host/file.strata" or "s3://bucket/key".
type Opener func(ctx context.Context, location string) (Source, error)

var (
	openersMu sync.RWMutex
	openers   = map[string]Opener{}
)

// Register makes Open hand locations of scheme ("https", "s3") to open.
// Packages that reach remote storage register themselves when imported, so
// programs that only read local files do not link network clients.
func Register(scheme string, open Opener) {
	openersMu.Lock()
	defer openersMu.Unlock()
	openers[strings.ToLower(scheme)] = open
}

// Scheme returns the lower-cased scheme of a location written as
// "scheme://...", or "" for a plain file path.
func Scheme(location string) string {
	i := strings.Index(location, "://")
	if i <= 0 {
		return ""
	}
	s := location[:i]
	for j, c := range s {
		alpha := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !alpha && (j == 0 || !(c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return ""
		}
	}
	return strings.ToLower(s)
}

// Open opens a location: a local path (or a file:// URL) as a File, any
// other scheme through the Opener registered for it. The caller closes the
// source when it is an io.Closer.
func Open(ctx context.Context, location string) (Source, error) {
	scheme := Scheme(location)
	switch scheme {
	case "":
		return OpenFile(location)
	case "file":
		return OpenFile(LocalPath(location))
	}
	openersMu.RLock()
	open := openers[scheme]
	openersMu.RUnlock()
	if open == nil {
		return nil, fmt.Errorf("iox: no source registered for %s:// locations (registered: %s); import the package that reads them, such as strata/iox/s3 or strata/iox/remote", scheme, registered())
	}
	return open(ctx, location)
}

func registered() string {
	openersMu.RLock()
	defer openersMu.RUnlock()
	names := []string{"file"}
	for s := range openers {
		names = append(names, s)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}
