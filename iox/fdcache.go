package iox

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
)

// The descriptor cache. A File opened by path does not own a descriptor:
// it borrows one from a process-wide cache for each read, so a program may
// hold open more files than the operating system lets it keep descriptors
// for (a pattern over thousands of small files, each opened up front). The
// cache keeps at most max descriptors; past that it closes the least
// recently used idle one, and that File's next read opens its path again
// and checks that it still names the same bytes.
//
// A read in progress pins its descriptor by a count in the File's state
// word, taken and dropped with atomic operations, so a cached read takes no
// lock and allocates nothing, and a descriptor is never closed under a
// concurrent pread. Recency is kept as a clock (a reference bit a read sets,
// which the eviction hand clears before it evicts: the second-chance
// approximation of LRU) rather than as a list a read would have to relink
// under a process-wide lock. Only idle descriptors are evicted: while every
// cached descriptor is in use the cache holds more than its bound, by at
// most the number of reads in progress, and trims itself when they end.

const (
	// fdGone is the state bit of a File that holds no descriptor: evicted,
	// or closed.
	fdGone = 1
	// fdRef is what one read in progress adds to the state.
	fdRef = 2
)

// Bounds of the default limit on cached descriptors.
const (
	minMaxOpen = 16
	maxMaxOpen = 4096
	// otherMaxOpen is the bound where the limit cannot be read.
	otherMaxOpen = 1024
)

// fdCache is the set of descriptors Files opened by path hold, kept as a
// ring the clock hand sweeps.
type fdCache struct {
	mu   sync.Mutex
	hand *File // the entry the clock looks at next; nil when the ring is empty
	open int   // descriptors in the ring
	max  int   // the bound on open
	// over is open > max as the last trim left it, so the end of a read
	// trims again only when an earlier trim found every descriptor in use.
	over atomic.Bool
}

var descriptors = fdCache{max: defaultMaxOpenFiles()}

// maxOpenFor is the default bound for a process allowed soft descriptors:
// a quarter of them, leaving the rest to the program and to files opened
// while a read needs more, and at least 16 and at most 4096.
func maxOpenFor(soft uint64) int {
	return int(min(max(soft/4, minMaxOpen), maxMaxOpen))
}

// SetMaxOpenFiles bounds the descriptors that Files opened by path keep
// open between reads, process-wide, and returns the previous bound; n <= 0
// restores the default, a quarter of the process's soft RLIMIT_NOFILE as
// it was at start-up (between 16 and 4096; 1024 where there is no such
// limit). Lowering the bound closes idle descriptors at once. Files made by
// NewFile keep their caller's descriptor and are not counted.
func SetMaxOpenFiles(n int) int {
	if n <= 0 {
		n = defaultMaxOpenFiles()
	}
	c := &descriptors
	c.mu.Lock()
	defer c.mu.Unlock()
	prev := c.max
	c.max = n
	c.trimLocked(n)
	return prev
}

// insertLocked adds f, which holds a descriptor, to the ring just behind
// the hand, where the clock looks last.
func (c *fdCache) insertLocked(f *File) {
	if c.hand == nil {
		f.prev, f.next = f, f
		c.hand = f
	} else {
		f.next, f.prev = c.hand, c.hand.prev
		c.hand.prev.next = f
		c.hand.prev = f
	}
	c.open++
}

// removeLocked takes f out of the ring.
func (c *fdCache) removeLocked(f *File) {
	if f.next == f {
		c.hand = nil
	} else {
		f.prev.next, f.next.prev = f.next, f.prev
		if c.hand == f {
			c.hand = f.next
		}
	}
	f.prev, f.next = nil, nil
	c.open--
}

// trimLocked closes idle descriptors until at most limit are open or none
// is idle. Two turns of the hand are enough: the first clears the
// reference bits, the second finds every idle descriptor unreferenced
// unless a read touched it meanwhile.
func (c *fdCache) trimLocked(limit int) {
	for steps := 2 * c.open; c.open > limit && steps > 0; steps-- {
		f := c.hand
		c.hand = f.next
		if f.used.Load() {
			f.used.Store(false)
			continue
		}
		// Only an idle descriptor moves to gone; a read in progress holds
		// a count, and a read that starts now finds it gone and reopens.
		if !f.state.CompareAndSwap(0, fdGone) {
			continue
		}
		c.removeLocked(f)
		f.fd.Close() // read-only: nothing to flush, no error worth keeping
		f.fd = nil
	}
	c.over.Store(c.open > c.max)
}

// trim closes idle descriptors down to the bound.
func (c *fdCache) trim() {
	c.mu.Lock()
	c.trimLocked(c.max)
	c.mu.Unlock()
}

// openPath opens path for reading. When the process is out of descriptors
// it closes every idle cached one and tries once more, so the cache never
// holds descriptors the rest of the program needs.
func openPath(path string) (*os.File, error) {
	fd, err := os.Open(path)
	if err != nil && tooManyOpen(err) {
		c := &descriptors
		c.mu.Lock()
		c.trimLocked(0)
		c.mu.Unlock()
		fd, err = os.Open(path)
	}
	return fd, err
}

// ErrChanged reports a read of a File whose path, when it had to be opened
// again, named other bytes than when the File was opened: another file
// renamed over it, or the file truncated or rewritten.
var ErrChanged = errors.New("file changed since it was opened")

// acquire returns f's descriptor with a read counted on it; release drops
// the count.
func (f *File) acquire() (*os.File, error) {
	for {
		s := f.state.Load()
		if s&fdGone != 0 {
			return f.reopen()
		}
		if f.state.CompareAndSwap(s, s+fdRef) {
			if !f.used.Load() {
				f.used.Store(true)
			}
			return f.fd, nil
		}
	}
}

// release ends a read acquire began, and trims the cache if it was left
// over its bound because every descriptor was in use.
func (f *File) release() {
	f.state.Add(-fdRef)
	if descriptors.over.Load() {
		descriptors.trim()
	}
}

// reopen gives f a descriptor again after the cache closed it, with a read
// counted on it, once the path is checked to name the file f was opened on.
// One goroutine reopens a File at a time; the others wait and share its
// descriptor.
func (f *File) reopen() (*os.File, error) {
	f.reopenMu.Lock()
	defer f.reopenMu.Unlock()
	c := &descriptors
	c.mu.Lock()
	if f.closed {
		c.mu.Unlock()
		return nil, f.errClosed()
	}
	if f.state.Load()&fdGone == 0 {
		// Reopened while this goroutine waited. Only trimLocked, which
		// needs c.mu, sets fdGone on an open File, so the count is safe
		// to add without a compare-and-swap.
		f.state.Add(fdRef)
		f.used.Store(true)
		fd := f.fd
		c.mu.Unlock()
		return fd, nil
	}
	c.mu.Unlock()

	fd, err := f.openSame()
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if f.closed {
		fd.Close()
		return nil, f.errClosed()
	}
	// f is gone with no read counted (trimLocked evicts only at zero, and
	// only this goroutine clears fdGone), so the state is set outright.
	f.fd = fd
	f.used.Store(true)
	f.state.Store(fdRef)
	c.insertLocked(f)
	if c.open > c.max {
		c.trimLocked(c.max)
	}
	return fd, nil
}

// openSame opens f's path and checks that it is still the file f was
// opened on: the same file (device and inode on Unix), the same size and
// the same modification time. Strata files are written once, so any
// difference means the bytes under the path are not the ones the reader
// planned from.
func (f *File) openSame() (*os.File, error) {
	fd, err := openPath(f.path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("iox: read %s: the file was removed since it was opened: %w", f.name, err)
		}
		return nil, fmt.Errorf("iox: read %s: reopening it: %w", f.name, err)
	}
	st, err := fd.Stat()
	if err != nil {
		fd.Close()
		return nil, fmt.Errorf("iox: read %s: reopening it: %w", f.name, err)
	}
	var why string
	switch {
	case !os.SameFile(f.info, st):
		why = "the path now names another file"
	case st.Size() != f.size:
		why = fmt.Sprintf("its size went from %d to %d bytes", f.size, st.Size())
	case !st.ModTime().Equal(f.mtime):
		why = "its modification time changed"
	default:
		return fd, nil
	}
	fd.Close()
	return nil, fmt.Errorf("iox: read %s: %s: %w", f.name, why, ErrChanged)
}

// errClosed is the error of a read after Close.
func (f *File) errClosed() error {
	return fmt.Errorf("iox: read %s: %w", f.name, os.ErrClosed)
}
