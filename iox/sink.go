package iox

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// A Sink is a destination written once, from its first byte to its last,
// such as an object being uploaded to object storage. What is written
// appears at the destination only when Commit succeeds, whole; Abort, or
// a Commit that fails, leaves the destination as it was (absent, or the
// previous version). Writers of Strata files, exports and imports write
// remote destinations through a Sink.
type Sink interface {
	io.Writer
	// Commit completes the destination. It is called once; Write after it
	// fails.
	Commit() error
	// Abort discards what was written. It may be called after a failed
	// Write or Commit, and more than once.
	Abort()
}

// A Creator creates the sink for a location of its scheme.
type Creator func(ctx context.Context, location string) (Sink, error)

var (
	creatorsMu sync.RWMutex
	creators   = map[string]Creator{}
)

// RegisterCreate makes Create hand locations of scheme ("s3") to create.
// Packages that write remote storage register themselves when imported.
func RegisterCreate(scheme string, create Creator) {
	creatorsMu.Lock()
	defer creatorsMu.Unlock()
	creators[strings.ToLower(scheme)] = create
}

// IsRemote reports whether a location names remote storage ("s3://...",
// "https://...") rather than a local path or a file:// URL.
func IsRemote(location string) bool {
	s := Scheme(location)
	return s != "" && s != "file"
}

// LocalPath returns the file path a local location names: the location
// itself, or a file:// URL's path.
func LocalPath(location string) string {
	if Scheme(location) == "file" {
		return location[len("file://"):]
	}
	return location
}

// Create creates the sink for a remote location through the Creator
// registered for its scheme. Local paths are not created here: the
// writers of each format write them under a temporary name and rename it
// into place.
func Create(ctx context.Context, location string) (Sink, error) {
	scheme := Scheme(location)
	if !IsRemote(location) {
		return nil, fmt.Errorf("iox: %s is a local path, not a remote location", location)
	}
	creatorsMu.RLock()
	create := creators[scheme]
	creatorsMu.RUnlock()
	if create == nil {
		if scheme == "http" || scheme == "https" {
			return nil, fmt.Errorf("iox: cannot write %s: %s:// locations are read only; write to a local path or s3:// location", location, scheme)
		}
		return nil, fmt.Errorf("iox: cannot write %s: no writer for %s:// locations (import the package that writes them, such as strata/iox/s3)", location, scheme)
	}
	return create(ctx, location)
}

// CreateTemp creates a new file in dir named pattern with its last "*"
// replaced by random digits, as os.CreateTemp does, but with permissions
// perm less the process's umask (os.CreateTemp's are always 0600): a
// file written under a temporary name and renamed into place then gets
// the mode any other new file of the process would.
func CreateTemp(dir, pattern string, perm os.FileMode) (*os.File, error) {
	prefix, suffix := pattern, ""
	if i := strings.LastIndexByte(pattern, '*'); i >= 0 {
		prefix, suffix = pattern[:i], pattern[i+1:]
	}
	for try := 0; ; try++ {
		name := filepath.Join(dir, prefix+strconv.FormatUint(uint64(rand.Uint32()), 10)+suffix)
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
		if os.IsExist(err) && try < 10000 {
			continue
		}
		return f, err
	}
}
