// Package iox holds the byte sources the reader pulls file bytes from and a
// fetcher that turns many small wanted ranges into few reads.
//
// The reader is sans-IO: it computes the byte ranges it needs and hands them
// to a Fetcher, so the same reader works on local files, memory and object
// storage (the sources of iox/remote and iox/s3, which register their URL
// schemes with Open). Every type here is safe for concurrent use.
//
// A local file opened by path (OpenFile, or Open on a path) does not own an
// operating-system descriptor: each read borrows one from a process-wide
// cache, as a database engine's table cache keeps open files. The cache is
// bounded by SetMaxOpenFiles (by default a quarter of the process's
// descriptor limit, between 16 and 4096); when it is full it closes the
// least recently used idle descriptor (as a clock approximates it), and
// when the process runs out of descriptors it closes every idle one. So a
// program can hold open more Strata files than it may have descriptors, as
// a pattern over a table of many small files does. A read whose descriptor
// was closed opens the path again and checks that it names the same file
// (the same device and inode on Unix, size and modification time) as when
// the File was opened: a file replaced, rewritten or removed since then
// fails the read with an error naming the path, and never gives other
// bytes. While its descriptor is cached, a File reads the file it was
// opened on even if another has been renamed over its path. A File made by
// NewFile keeps its caller's descriptor and is outside the cache.
package iox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"
)

// Source is a random-access, fixed-size byte source. ReadAt follows the
// io.ReaderAt contract, must be safe for concurrent calls, and gives up
// with the context's error once ctx is done (a source over memory or a
// local file may finish a read it has started).
type Source interface {
	ReadAt(ctx context.Context, p []byte, off int64) (int, error)
	Size() int64
}

// Hints describe how a source prefers to be read. A local file is cheap to
// seek, so small holes between wanted ranges are better skipped; an object
// store charges a round trip per request, so holes up to about a megabyte
// are better read through, requests may be large and many may be in flight.
// A zero field means no preference.
type Hints struct {
	// Gap is the largest hole between two ranges worth reading through;
	// negative means none (only touching ranges are merged).
	Gap int64
	// MaxRead is the largest single read worth issuing.
	MaxRead int64
	// InFlight is how many reads are worth having in flight at once.
	InFlight int
}

// Hinter is implemented by sources that state their preferred read shape;
// NewFetcher uses it for the options its caller leaves at zero.
type Hinter interface {
	Hints() Hints
}

// HintsOf returns src's hints, or zero Hints when it states none.
func HintsOf(src Source) Hints {
	if h, ok := src.(Hinter); ok {
		return h.Hints()
	}
	return Hints{}
}

// ErrOutOfRange reports a read outside [0, Size()) of its source.
var ErrOutOfRange = errors.New("iox: range outside source")

// Range is a byte range [Off, Off+Len) of a source.
type Range struct {
	Off, Len int64
}

// End returns the offset one past the last byte of r.
func (r Range) End() int64 { return r.Off + r.Len }

func (r Range) String() string { return fmt.Sprintf("[%d,+%d)", r.Off, r.Len) }

// check reports whether r lies inside a source of the given size.
func (r Range) check(size int64) error {
	if r.Off < 0 || r.Len < 0 || r.Off > size || r.Len > size-r.Off {
		return fmt.Errorf("%v of a %d-byte source: %w", r, size, ErrOutOfRange)
	}
	return nil
}

// ReadRange reads exactly r from src into a new buffer. A range beyond the
// source's size fails with ErrOutOfRange before anything is allocated; a
// short read fails with an error wrapping io.ErrUnexpectedEOF.
func ReadRange(ctx context.Context, src Source, r Range) ([]byte, error) {
	if err := r.check(src.Size()); err != nil {
		return nil, err
	}
	p := make([]byte, r.Len)
	if err := ReadFull(ctx, src, p, r.Off); err != nil {
		return nil, err
	}
	return p, nil
}

// ReadFull fills p from src at off, retrying short reads; a read that ends
// early fails with an error wrapping io.ErrUnexpectedEOF.
func ReadFull(ctx context.Context, src Source, p []byte, off int64) error {
	for len(p) > 0 {
		n, err := src.ReadAt(ctx, p, off)
		if n == len(p) {
			return nil // io.ReaderAt may return io.EOF with a full read.
		}
		if n < 0 || n > len(p) {
			return fmt.Errorf("iox: ReadAt returned %d for %d bytes", n, len(p))
		}
		if err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return fmt.Errorf("iox: read %d bytes at %d: %w", len(p), off, err)
		}
		if n == 0 {
			return fmt.Errorf("iox: read %d bytes at %d: no progress: %w", len(p), off, io.ErrUnexpectedEOF)
		}
		p, off = p[n:], off+int64(n)
	}
	return nil
}

// Bytes is an in-memory Source.
type Bytes []byte

// ReadAt copies from b; it never blocks, so it ignores ctx.
func (b Bytes) ReadAt(_ context.Context, p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, fmt.Errorf("iox: negative offset %d: %w", off, ErrOutOfRange)
	}
	if off >= int64(len(b)) {
		if len(p) == 0 {
			return 0, nil
		}
		return 0, io.EOF
	}
	n := copy(p, b[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// Size returns len(b).
func (b Bytes) Size() int64 { return int64(len(b)) }

// Slicer is implemented by in-memory sources that can hand out their bytes
// without copying. r is always inside the source.
type Slicer interface {
	Slice(r Range) []byte
}

// Slice returns b[r.Off:r.End()], capacity-limited.
func (b Bytes) Slice(r Range) []byte { return b[r.Off:r.End():r.End()] }

// File is a Source over an operating-system file. Its size is taken once,
// when it is opened: Strata files are immutable once written.
//
// A File opened by path (OpenFile, Open) holds a descriptor only while the
// process-wide cache keeps it (see SetMaxOpenFiles), and opens the path
// again for a read after the cache closed it, checking that the path still
// names the file it was opened on; a File made by NewFile keeps its
// caller's descriptor until Close.
type File struct {
	name  string      // as given, for errors and Name
	path  string      // absolute when it could be made so: what a read reopens
	info  os.FileInfo // at open, for os.SameFile
	size  int64
	mtime time.Time

	// own is the caller's descriptor of a File made by NewFile, nil for
	// one opened by path.
	own *os.File

	// The rest belongs to a File opened by path. state is fdGone when it
	// holds no descriptor, plus fdRef for each read in progress; fd is set
	// while fdGone is clear and only changes under descriptors.mu with no
	// read in progress. used is the clock's reference bit.
	state    atomic.Int64
	used     atomic.Bool
	fd       *os.File
	reopenMu sync.Mutex // one reopen at a time
	// Under descriptors.mu: the ring links, and closed, set by Close.
	prev, next *File
	closed     bool
}

// OpenFile opens the named file for reading. Its descriptor goes into the
// process-wide cache, which may close it between reads; the path is kept
// as an absolute path, so the File reads the same file after the working
// directory changes.
func OpenFile(path string) (*File, error) {
	fd, err := openPath(path)
	if err != nil {
		return nil, err
	}
	st, err := fd.Stat()
	if err != nil {
		fd.Close()
		return nil, err
	}
	f := &File{name: path, path: absPath(path), info: st, size: st.Size(), mtime: st.ModTime(), fd: fd}
	f.used.Store(true)
	c := &descriptors
	c.mu.Lock()
	c.insertLocked(f)
	if c.open > c.max {
		c.trimLocked(c.max)
	}
	c.mu.Unlock()
	return f, nil
}

// NewFile wraps an open file. The File reads through f for as long as it
// is open (it has no path it could trust to reopen, so the descriptor
// cache never closes it), and closing the File closes f.
func NewFile(f *os.File) (*File, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	return &File{name: f.Name(), path: absPath(f.Name()), info: st, size: st.Size(), mtime: st.ModTime(), own: f}, nil
}

// absPath is path made absolute, or path itself if the working directory
// cannot be had.
func absPath(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		return abs
	}
	return path
}

// ReadAt reads with pread (os.File.ReadAt is safe for concurrent use). A
// local read is not interruptible once started, so ctx is only checked
// before it. A read whose descriptor the cache closed opens the path again
// and fails, rather than read other bytes, when the path no longer names
// the file the File was opened on: with an error wrapping ErrChanged when
// another file was renamed over it or it was truncated or rewritten, and
// one wrapping os.ErrNotExist when it was removed. A read after Close fails
// with an error wrapping os.ErrClosed.
func (f *File) ReadAt(ctx context.Context, p []byte, off int64) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if f.own != nil {
		return f.own.ReadAt(p, off)
	}
	fd, err := f.acquire()
	if err != nil {
		return 0, err
	}
	n, err := fd.ReadAt(p, off)
	f.release()
	return n, err
}

// Size returns the file size at open time.
func (f *File) Size() int64 { return f.size }

// Name returns the file name as it was given.
func (f *File) Name() string { return f.name }

// Close closes the file's descriptor. Reads after it fail; a read already
// in progress may finish or fail.
func (f *File) Close() error {
	if f.own != nil {
		return f.own.Close()
	}
	c := &descriptors
	c.mu.Lock()
	if f.closed {
		c.mu.Unlock()
		return fmt.Errorf("iox: close %s: %w", f.name, os.ErrClosed)
	}
	f.closed = true
	var fd *os.File
	if f.state.Or(fdGone)&fdGone == 0 {
		// A read in progress may still be using fd; os.File defers the
		// descriptor's release until it ends, and the read fails or
		// finishes. fd is left set for it.
		fd = f.fd
		c.removeLocked(f)
	}
	c.mu.Unlock()
	if fd != nil {
		return fd.Close()
	}
	return nil
}

// ReaderAt adapts a Source to io.ReaderAt for libraries that take one,
// reading under ctx.
func ReaderAt(ctx context.Context, src Source) io.ReaderAt { return readerAt{ctx, src} }

type readerAt struct {
	ctx context.Context
	src Source
}

func (r readerAt) ReadAt(p []byte, off int64) (int, error) { return r.src.ReadAt(r.ctx, p, off) }
