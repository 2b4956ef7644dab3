package remote

import (
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"

	"strata/iox"
)

// Error is a read of a range of a remote object that failed for good:
// after its retries, or at once for an error no retry can mend. It names
// the object and the range so the failure can be traced to one request.
type Error struct {
	Object   string    // the location, such as "s3://bucket/key"
	Range    iox.Range // the bytes asked for
	Attempts int       // requests made
	Err      error
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s: reading bytes %d-%d (%d bytes) failed after %d attempt(s): %v",
		e.Object, e.Range.Off, e.Range.End()-1, e.Range.Len, e.Attempts, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// ContentRange parses an HTTP Content-Range value "bytes first-last/total"
// ("*" for an unknown total gives total -1).
func ContentRange(v string) (first, last, total int64, err error) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(v), "bytes ")
	span, tot, ok2 := strings.Cut(rest, "/")
	a, b, ok3 := strings.Cut(span, "-")
	if !ok || !ok2 || !ok3 {
		return 0, 0, 0, fmt.Errorf("Content-Range %q: %w", v, ErrBadResponse)
	}
	first, err = digits(a)
	if err == nil {
		last, err = digits(b)
	}
	if err == nil {
		total = -1
		if tot != "*" {
			total, err = digits(tot)
		}
	}
	if err != nil || last < first || (total >= 0 && last >= total) {
		return 0, 0, 0, fmt.Errorf("Content-Range %q: %w", v, ErrBadResponse)
	}
	return first, last, total, nil
}

// digits parses a non-negative decimal number written with digits only.
func digits(s string) (int64, error) {
	if s == "" || strings.TrimLeft(s, "0123456789") != "" {
		return 0, ErrBadResponse
	}
	return strconv.ParseInt(s, 10, 64)
}

// CheckPartial checks the headers of a 206 response to a request for r of an
// object of size bytes: the Content-Range must name exactly r, with the
// object's size as total, and the Content-Length (when known, ≥ 0) must be
// r.Len. A different total means the object changed (ErrChanged); any other
// mismatch is ErrBadResponse.
func CheckPartial(contentRange string, contentLength int64, r iox.Range, size int64) error {
	if r.Off < 0 || r.Len <= 0 || r.Off > size-r.Len {
		return fmt.Errorf("range %v of a %d-byte object: %w", r, size, iox.ErrOutOfRange)
	}
	first, last, total, err := ContentRange(contentRange)
	if err != nil {
		return err
	}
	if total >= 0 && total != size {
		return fmt.Errorf("object is now %d bytes, was %d when opened: %w", total, size, ErrChanged)
	}
	if first != r.Off || last != r.End()-1 {
		return fmt.Errorf("asked for bytes %d-%d, got %d-%d: %w", r.Off, r.End()-1, first, last, ErrBadResponse)
	}
	if contentLength >= 0 && contentLength != r.Len {
		return fmt.Errorf("asked for %d bytes, Content-Length %d: %w", r.Len, contentLength, ErrBadResponse)
	}
	return nil
}

// RangeHeader returns the HTTP Range value asking for r (r.Len > 0).
func RangeHeader(r iox.Range) string {
	return "bytes=" + strconv.FormatInt(r.Off, 10) + "-" + strconv.FormatInt(r.End()-1, 10)
}

// Stats count the requests a remote source made.
type Stats struct {
	Requests  int64 // requests sent, retries and metadata requests included
	Retries   int64 // requests that repeated a failed one
	BytesRead int64 // response body bytes delivered to readers
}

// Counters accumulate Stats; safe for concurrent use.
type Counters struct {
	requests, retries, bytes atomic.Int64
}

// Request counts one request; retry says it repeats a failed one.
func (c *Counters) Request(retry bool) {
	c.requests.Add(1)
	if retry {
		c.retries.Add(1)
	}
}

// Bytes counts n bytes delivered.
func (c *Counters) Bytes(n int64) { c.bytes.Add(n) }

// Stats returns the counts so far.
func (c *Counters) Stats() Stats {
	return Stats{Requests: c.requests.Load(), Retries: c.retries.Load(), BytesRead: c.bytes.Load()}
}

// ObjectHints are the read shape that suits object stores and HTTP servers
// far away: a round trip costs tens of milliseconds, so holes of up to
// 1 MiB are read through, one request may carry 16 MiB and 64 may be in
// flight. Vortex coalesces object-store reads within 1 MiB up to 16 MiB
// (CoalesceConfig::object_storage); Lance caps a request at 16 MiB and runs
// 64 cloud requests at once (DEFAULT_MAX_IOP_SIZE,
// DEFAULT_CLOUD_IO_PARALLELISM).
var ObjectHints = iox.Hints{Gap: 1 << 20, MaxRead: 16 << 20, InFlight: 64}

// DefaultOpenTail is how many bytes from an object's end a source reads
// when it opens the object, in place of a HEAD request: the suffix GET
// tells the size and ETag as a HEAD would, and its bytes answer the
// reader's first read (the container's tail, format.DefaultTailSize) at no
// further cost, so opening a Strata file takes one round trip, not two.
const DefaultOpenTail = 64 << 10

// SuffixHeader returns the HTTP Range value asking for the last n bytes.
func SuffixHeader(n int64) string { return "bytes=-" + strconv.FormatInt(n, 10) }

// CheckSuffix checks the headers of a 206 response to a request for the
// last n bytes and returns the object's size: the Content-Range must end
// at the object's last byte and start n bytes before it (at 0 for a
// shorter object), and the Content-Length (when known, ≥ 0) must match.
func CheckSuffix(contentRange string, contentLength, n int64) (size int64, err error) {
	if n <= 0 {
		return 0, fmt.Errorf("a suffix of %d bytes: %w", n, iox.ErrOutOfRange)
	}
	first, last, total, err := ContentRange(contentRange)
	if err != nil {
		return 0, err
	}
	if total < 0 || last != total-1 || first != max(total-n, 0) {
		return 0, fmt.Errorf("asked for the last %d bytes, got %q: %w", n, contentRange, ErrBadResponse)
	}
	if contentLength >= 0 && contentLength != last-first+1 {
		return 0, fmt.Errorf("Content-Range %q with Content-Length %d: %w", contentRange, contentLength, ErrBadResponse)
	}
	return total, nil
}

// Tail is the end of an object, read when it was opened.
type Tail struct {
	Off  int64
	Data []byte
}

// Serve fills p from the tail when [off, off+len(p)) lies inside it.
func (t *Tail) Serve(p []byte, off int64) bool {
	if t == nil || len(t.Data) == 0 || off < t.Off || off-t.Off > int64(len(t.Data)) || int64(len(p)) > int64(len(t.Data))-(off-t.Off) {
		return false
	}
	copy(p, t.Data[off-t.Off:])
	return true
}
