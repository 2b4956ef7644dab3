package remote

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	"strata/iox"
)

func init() {
	open := func(ctx context.Context, location string) (iox.Source, error) {
		return OpenHTTP(ctx, location, HTTPOptions{})
	}
	iox.Register("http", open)
	iox.Register("https", open)
}

// HTTPOptions configure an HTTP source; the zero value is ready to use.
type HTTPOptions struct {
	// Client sends the requests; nil means a client of this package's own
	// whose transport keeps as many idle connections per host as reads may
	// be in flight.
	Client *http.Client
	// Header is added to every request (an Authorization header, say).
	Header http.Header
	// Retry is the retry policy.
	Retry Retry
	// Hints override ObjectHints field by field where set.
	Hints iox.Hints
	// OpenTail is how many bytes from the end opening reads (0 means
	// DefaultOpenTail; negative opens with HEAD).
	OpenTail int64
	// Known, with a size and an ETag, opens without any request.
	Known *Known
}

// HTTP is a source over an HTTP(S) URL read with range requests. It learns
// the size and validators (ETag, Last-Modified) with one HEAD request when
// opened and sends the ETag as If-Match with every read, so an object
// replaced under the same URL fails with ErrChanged instead of mixing old
// and new bytes. It is safe for concurrent use.
type HTTP struct {
	url     string
	client  *http.Client
	header  http.Header
	retry   Retry
	hints   iox.Hints
	size    int64
	etag    string // strong ETag, or ""
	lastMod string
	tail    *Tail // the object's end, read when it was opened
	count   Counters
}

// Known is what a caller may already know of an object (from a listing, a
// serialized split, an earlier open): with both its size and its ETag,
// opening the object costs no request, and reads still fail with
// ErrChanged if the object is no longer that version.
type Known struct {
	Size int64
	ETag string
}

// OpenHTTP opens url, which must name an object of known length on a
// server that honours range requests. Unless opts.Known gives the size and
// ETag, it asks for the last opts.OpenTail bytes (DefaultOpenTail), which
// tells the size and validators and answers later reads of those bytes; a
// server that does not take suffix ranges is asked with HEAD instead.
func OpenHTTP(ctx context.Context, url string, opts HTTPOptions) (*HTTP, error) {
	h := &HTTP{url: url, client: opts.Client, header: opts.Header, retry: opts.Retry, hints: mergeHints(opts.Hints)}
	if h.client == nil {
		h.client = sharedClient(h.hints.InFlight)
	}
	if k := opts.Known; k != nil && k.ETag != "" && k.Size >= 0 {
		h.size, h.etag = k.Size, k.ETag
		return h, nil
	}
	tail := opts.OpenTail
	if tail == 0 {
		tail = DefaultOpenTail
	}
	var err error
	if tail > 0 {
		err = h.openTail(ctx, tail)
	}
	if tail < 0 || errors.Is(err, errNoSuffix) {
		err = h.openHead(ctx)
	}
	if err != nil {
		h.Close()
		return nil, err
	}
	return h, nil
}

// errNoSuffix reports a server that answers a suffix range with something
// else than the bytes asked for; the open falls back to HEAD.
var errNoSuffix = errors.New("no suffix range")

// openTail learns the size and validators from a GET of the last n bytes
// and keeps them.
func (h *HTTP) openTail(ctx context.Context, n int64) error {
	tries := 0
	attempts, err := h.retry.Do(ctx, func(ctx context.Context) error {
		req, err := h.request(ctx, http.MethodGet)
		if err != nil {
			return err
		}
		req.Header.Set("Range", SuffixHeader(n))
		tries++
		h.count.Request(tries > 1)
		resp, err := h.client.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		switch resp.StatusCode {
		case http.StatusPartialContent:
		case http.StatusOK, http.StatusRequestedRangeNotSatisfiable:
			return errNoSuffix // an empty object, or no range support
		default:
			return statusError(resp)
		}
		size, err := CheckSuffix(resp.Header.Get("Content-Range"), resp.ContentLength, n)
		if err != nil {
			return errNoSuffix
		}
		data := make([]byte, min(n, size))
		if _, err := io.ReadFull(resp.Body, data); err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return fmt.Errorf("response body cut short: %w", err)
		}
		h.setValidators(resp)
		h.size, h.tail = size, &Tail{Off: size - int64(len(data)), Data: data}
		return nil
	})
	if err != nil && !errors.Is(err, errNoSuffix) {
		return fmt.Errorf("%s: opening (GET of the last %d bytes) failed after %d attempt(s): %w", h.url, n, attempts, err)
	}
	return err
}

// openHead learns the size and validators with a HEAD request.
func (h *HTTP) openHead(ctx context.Context) error {
	var resp *http.Response
	tries := 0
	attempts, err := h.retry.Do(ctx, func(ctx context.Context) error {
		req, err := h.request(ctx, http.MethodHead)
		if err != nil {
			return err
		}
		tries++
		h.count.Request(tries > 1)
		r, err := h.client.Do(req)
		if err != nil {
			return err
		}
		defer r.Body.Close()
		if r.StatusCode != http.StatusOK {
			return statusError(r)
		}
		resp = r
		return nil
	})
	if err != nil {
		return fmt.Errorf("%s: HEAD failed after %d attempt(s): %w", h.url, attempts, err)
	}
	if resp.ContentLength < 0 {
		return fmt.Errorf("%s: the server gives no Content-Length: %w", h.url, ErrBadResponse)
	}
	if ar := resp.Header.Get("Accept-Ranges"); strings.EqualFold(ar, "none") {
		return fmt.Errorf("%s: the server refuses range requests (Accept-Ranges: none): %w", h.url, ErrBadResponse)
	}
	h.size = resp.ContentLength
	h.setValidators(resp)
	return nil
}

func (h *HTTP) setValidators(resp *http.Response) {
	if et := resp.Header.Get("ETag"); et != "" && !strings.HasPrefix(et, "W/") {
		h.etag = et // weak ETags never match If-Match
	}
	h.lastMod = resp.Header.Get("Last-Modified")
}

// mergeHints fills the unset fields of h from ObjectHints.
func mergeHints(h iox.Hints) iox.Hints {
	if h.Gap == 0 {
		h.Gap = ObjectHints.Gap
	}
	if h.MaxRead == 0 {
		h.MaxRead = ObjectHints.MaxRead
	}
	if h.InFlight == 0 {
		h.InFlight = ObjectHints.InFlight
	}
	return h
}

// newClient returns a client whose transport keeps conns idle connections
// per host (net/http keeps 2, so parallel reads would reconnect each time).
// sharedClient returns the process's client for sources that keep up to
// conns connections to a host: every URL opened without a Client of its
// own shares it, so reopening a file (each query of a program that opens
// it per query) or reading several from one server reuses connections
// instead of making a TLS connection per open.
func sharedClient(conns int) *http.Client {
	sharedMu.Lock()
	defer sharedMu.Unlock()
	c, ok := sharedClients[conns]
	if !ok {
		c = newClient(conns)
		sharedClients[conns] = c
	}
	return c
}

var (
	sharedMu      sync.Mutex
	sharedClients = map[int]*http.Client{}
)

func newClient(conns int) *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = max(conns, 2)
	t.MaxIdleConns = max(t.MaxIdleConns, t.MaxIdleConnsPerHost)
	t.ResponseHeaderTimeout = DefaultHeaderTimeout
	return &http.Client{Transport: t}
}

func (h *HTTP) request(ctx context.Context, method string) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, method, h.url, nil)
	if err != nil {
		return nil, err
	}
	for k, vs := range h.header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	return req, nil
}

// Size returns the object's length when it was opened.
func (h *HTTP) Size() int64 { return h.size }

// Hints returns the source's read shape (ObjectHints unless overridden).
func (h *HTTP) Hints() iox.Hints { return h.hints }

// Identity names the URL with its ETag (or Last-Modified) and size; it is
// empty when the server gives neither validator, as such a URL may serve
// other bytes tomorrow.
func (h *HTTP) Identity() string {
	switch {
	case h.etag != "":
		return fmt.Sprintf("%s etag=%s size=%d", h.url, h.etag, h.size)
	case h.lastMod != "":
		return fmt.Sprintf("%s modified=%s size=%d", h.url, h.lastMod, h.size)
	}
	return ""
}

// ETag returns the object's strong ETag, or "".
func (h *HTTP) ETag() string { return h.etag }

// Stats returns the requests made so far.
func (h *HTTP) Stats() Stats { return h.count.Stats() }

// Close does nothing: the source's connections belong to its client,
// the caller's or the one shared by the sources opened without one.
func (h *HTTP) Close() error { return nil }

// ReadAt reads len(p) bytes at off with one range request (more when a
// request fails and is retried). A read reaching past the end returns the
// bytes up to it with io.EOF. A failure is an *Error naming the URL and
// range; the bytes in p are then unspecified.
func (h *HTTP) ReadAt(ctx context.Context, p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, fmt.Errorf("%s: negative offset %d: %w", h.url, off, iox.ErrOutOfRange)
	}
	if len(p) == 0 {
		return 0, nil
	}
	if off >= h.size {
		return 0, io.EOF
	}
	r := iox.Range{Off: off, Len: min(int64(len(p)), h.size-off)}
	buf := p[:r.Len]
	if !h.tail.Serve(buf, off) {
		tries := 0
		attempts, err := h.retry.Do(ctx, func(ctx context.Context) error {
			tries++
			return h.get(ctx, r, buf, tries > 1)
		})
		if err != nil {
			return 0, &Error{Object: h.url, Range: r, Attempts: attempts, Err: err}
		}
		h.count.Bytes(r.Len)
	}
	if r.Len < int64(len(p)) {
		return int(r.Len), io.EOF
	}
	return int(r.Len), nil
}

// get makes one range request for r into buf.
func (h *HTTP) get(ctx context.Context, r iox.Range, buf []byte, retry bool) error {
	req, err := h.request(ctx, http.MethodGet)
	if err != nil {
		return err
	}
	req.Header.Set("Range", RangeHeader(r))
	if h.etag != "" {
		req.Header.Set("If-Match", h.etag)
	} else if h.lastMod != "" {
		req.Header.Set("If-Unmodified-Since", h.lastMod)
	}
	h.count.Request(retry)
	resp, err := h.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusPartialContent:
		if err := CheckPartial(resp.Header.Get("Content-Range"), resp.ContentLength, r, h.size); err != nil {
			return err
		}
	case http.StatusOK:
		// A server that ignores Range sends the whole object: usable only
		// when the whole object is what was asked for.
		if r.Off != 0 || r.Len != h.size || resp.ContentLength != h.size {
			return fmt.Errorf("the server does not support Range requests (it sent the whole object, %d bytes, with status 200), and a remote file is read by byte ranges: %w", resp.ContentLength, ErrBadResponse)
		}
	case http.StatusPreconditionFailed:
		return fmt.Errorf("%w (HTTP %s)", ErrChanged, resp.Status)
	default:
		return statusError(resp)
	}
	if _, err := io.ReadFull(resp.Body, buf); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return fmt.Errorf("response body cut short: %w", err)
	}
	return nil
}
