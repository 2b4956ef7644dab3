package iox

import (
	"context"
	"fmt"
	"io"
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
