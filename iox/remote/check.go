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
	if first, err = strconv.ParseInt(a, 10, 64); err == nil {
		last, err = strconv.ParseInt(b, 10, 64)
	}
	if err == nil {
		total = -1
		if tot != "*" {
			total, err = strconv.ParseInt(tot, 10, 64)
		}
	}
	if err != nil || first < 0 || last < first || (total >= 0 && last >= total) {
		return 0, 0, 0, fmt.Errorf("Content-Range %q: %w", v, ErrBadResponse)
	}
	return first, last, total, nil
}

// CheckPartial checks the headers of a 206 response to a request for r of an
// object of size bytes: the Content-Range must name exactly r, with the
// object's size as total, and the Content-Length (when known, ≥ 0) must be
// r.Len. A different total means the object changed (ErrChanged); any other
// mismatch is ErrBadResponse.
func CheckPartial(contentRange string, contentLength int64, r iox.Range, size int64) error {
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
