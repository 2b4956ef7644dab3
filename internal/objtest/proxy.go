package objtest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Fault is what the proxy does to one request instead of passing it on.
type Fault int

const (
	// Pass forwards the request untouched.
	Pass Fault = iota
	// ServerError answers 500 InternalError without asking the server.
	ServerError
	// SlowDown answers 503 SlowDown, S3's throttling reply.
	SlowDown
	// TooMany answers 429 Too Many Requests with Retry-After: 0.
	TooMany
	// Truncate forwards the request and passes on the headers and half the
	// body, then drops the connection.
	Truncate
	// Reset drops the connection without an answer.
	Reset
	// Stall holds the request without answering until the client gives up
	// or the proxy closes.
	Stall
	// WrongRange forwards the request and rewrites the answer's
	// Content-Range to start one byte later, as a confused server might.
	WrongRange
	// WholeObject forwards the request and answers with status 200 and no
	// Content-Range, as a server that ignores Range would (the body is
	// still the range asked for: the client must not take its length for
	// the object's).
	WholeObject
	// Corrupt forwards the request and flips one bit in the body's middle,
	// headers untouched: only checksums above the transport can notice.
	Corrupt
	// Gone answers 412 Precondition Failed, as when the object changed.
	Gone
)

var faultNames = [...]string{"pass", "500", "503 SlowDown", "429", "truncate", "reset", "stall", "wrong Content-Range", "whole object", "corrupt", "412"}

func (f Fault) String() string {
	if int(f) < len(faultNames) {
		return faultNames[f]
	}
	return "fault " + strconv.Itoa(int(f))
}

// Counts are what the proxy saw.
type Counts struct {
	Requests int64 // all requests
	Gets     int64 // GET requests
	Heads    int64 // HEAD requests
	Lists    int64 // GET requests listing a bucket's keys (ListObjectsV2)
	Faults   int64 // requests answered with an injected fault
	Bytes    int64 // response body bytes sent to clients
	Conns    int64 // connections clients opened
}

// Proxy is a fault-injecting HTTP proxy in front of one server, listening
// on 127.0.0.1. It keeps the client's Host header, so signed S3 requests
// stay valid. Latency is added to every request; faults queued with Inject
// are spent one per request in arrival order, on requests of the given
// method. It counts every request.
type Proxy struct {
	URL                                     string // "http://127.0.0.1:port"
	target                                  *url.URL
	srv                                     *httptest.Server
	client                                  *http.Client
	latency                                 atomic.Int64
	connLatency                             atomic.Int64
	conns                                   atomic.Int64
	mu                                      sync.Mutex
	queue                                   []queued
	closing                                 chan struct{}
	reqs, gets, heads, lists, faults, bytes atomic.Int64
}

type queued struct {
	method string
	fault  Fault
}

// NewProxy starts a proxy in front of the server at target ("http://host:port").
func NewProxy(target string) (*Proxy, error) {
	u, err := url.Parse(target)
	if err != nil {
		return nil, err
	}
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = 256
	t.MaxIdleConns = 256
	t.DisableCompression = true
	p := &Proxy{target: u, client: &http.Client{Transport: t}, closing: make(chan struct{})}
	p.srv = httptest.NewUnstartedServer(http.HandlerFunc(p.serve))
	p.srv.Config.ConnContext = func(ctx context.Context, c net.Conn) context.Context {
		p.conns.Add(1)
		return context.WithValue(ctx, newConnKey{}, &atomic.Bool{})
	}
	p.srv.Start()
	p.URL = p.srv.URL
	return p, nil
}

// newConnKey marks a request's connection context with whether a request
// was served on it before (the first waits the connection latency).
type newConnKey struct{}

// SetConnLatency sets the delay added before the first request of every
// new connection is handled, on top of SetLatency's: the handshakes of a
// TLS connection to an object store (TCP and TLS, about two round trips)
// that the proxy's plain HTTP does not have.
func (p *Proxy) SetConnLatency(d time.Duration) { p.connLatency.Store(int64(d)) }

// Close stops the proxy, releasing stalled requests.
func (p *Proxy) Close() {
	select {
	case <-p.closing:
	default:
		close(p.closing)
	}
	p.srv.CloseClientConnections()
	p.srv.Close()
	p.client.CloseIdleConnections()
}

// SetLatency sets the delay added before every request is handled.
func (p *Proxy) SetLatency(d time.Duration) { p.latency.Store(int64(d)) }

// Inject queues faults for the next requests of method ("GET", "HEAD", or
// "" for any).
func (p *Proxy) Inject(method string, faults ...Fault) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, f := range faults {
		p.queue = append(p.queue, queued{method, f})
	}
}

// Pending returns how many queued faults are not spent yet.
func (p *Proxy) Pending() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.queue)
}

// ClearFaults drops the queued faults.
func (p *Proxy) ClearFaults() {
	p.mu.Lock()
	p.queue = nil
	p.mu.Unlock()
}

// Counts returns what the proxy saw since the last Reset.
func (p *Proxy) Counts() Counts {
	return Counts{Requests: p.reqs.Load(), Gets: p.gets.Load(), Heads: p.heads.Load(), Lists: p.lists.Load(),
		Faults: p.faults.Load(), Bytes: p.bytes.Load(), Conns: p.conns.Load()}
}

// Reset zeroes the counts.
func (p *Proxy) Reset() {
	p.reqs.Store(0)
	p.gets.Store(0)
	p.heads.Store(0)
	p.lists.Store(0)
	p.faults.Store(0)
	p.bytes.Store(0)
	p.conns.Store(0)
}

// next takes the fault for a request of method.
func (p *Proxy) next(method string) Fault {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i, q := range p.queue {
		if q.method == "" || q.method == method {
			p.queue = append(p.queue[:i], p.queue[i+1:]...)
			return q.fault
		}
	}
	return Pass
}

func (p *Proxy) serve(w http.ResponseWriter, r *http.Request) {
	p.reqs.Add(1)
	switch r.Method {
	case http.MethodGet:
		p.gets.Add(1)
		if r.URL.Query().Has("list-type") {
			p.lists.Add(1)
		}
	case http.MethodHead:
		p.heads.Add(1)
	}
	d := time.Duration(p.latency.Load())
	if served, ok := r.Context().Value(newConnKey{}).(*atomic.Bool); ok && !served.Swap(true) {
		d += time.Duration(p.connLatency.Load())
	}
	if d > 0 {
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return
		}
	}
	fault := p.next(r.Method)
	if fault != Pass {
		p.faults.Add(1)
	}
	switch fault {
	case ServerError:
		s3Error(w, http.StatusInternalServerError, "InternalError", "")
		return
	case SlowDown:
		s3Error(w, http.StatusServiceUnavailable, "SlowDown", "")
		return
	case TooMany:
		s3Error(w, http.StatusTooManyRequests, "TooManyRequests", "0")
		return
	case Gone:
		s3Error(w, http.StatusPreconditionFailed, "PreconditionFailed", "")
		return
	case Reset:
		if hj, ok := w.(http.Hijacker); ok {
			if c, _, err := hj.Hijack(); err == nil {
				if tc, ok := c.(*net.TCPConn); ok {
					tc.SetLinger(0) // a reset, not an orderly close
				}
				c.Close()
				return
			}
		}
		panic(http.ErrAbortHandler)
	case Stall:
		select {
		case <-r.Context().Done():
		case <-p.closing:
		}
		return
	}
	p.forward(w, r, fault)
}

// s3Error writes an S3-style XML error.
func s3Error(w http.ResponseWriter, status int, code, retryAfter string) {
	w.Header().Set("Content-Type", "application/xml")
	if retryAfter != "" {
		w.Header().Set("Retry-After", retryAfter)
	}
	w.WriteHeader(status)
	fmt.Fprintf(w, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>%s</Code><Message>injected by the test proxy</Message></Error>", code)
}

// forward passes r to the server and its answer back, applying the
// response faults.
func (p *Proxy) forward(w http.ResponseWriter, r *http.Request, fault Fault) {
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	out := r.Clone(ctx)
	out.RequestURI = ""
	out.URL.Scheme = p.target.Scheme
	out.URL.Host = p.target.Host
	out.Host = r.Host // the client signed this host
	resp, err := p.client.Do(out)
	if err != nil {
		http.Error(w, "proxy: "+err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	h := w.Header()
	for k, vs := range resp.Header {
		h[k] = append([]string(nil), vs...)
	}
	status := resp.StatusCode
	body := io.Reader(resp.Body)
	n := resp.ContentLength
	switch fault {
	case WrongRange:
		if cr := resp.Header.Get("Content-Range"); cr != "" {
			var first, last, total int64
			if _, err := fmt.Sscanf(cr, "bytes %d-%d/%d", &first, &last, &total); err == nil {
				h.Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", first+1, last+1, total))
			}
		}
	case WholeObject:
		if status == http.StatusPartialContent {
			status = http.StatusOK
			h.Del("Content-Range")
		}
	case Corrupt:
		if n > 0 {
			b, err := io.ReadAll(resp.Body)
			if err != nil {
				panic(http.ErrAbortHandler)
			}
			b[len(b)/2] ^= 0x10
			body = bytes.NewReader(b)
		}
	}
	w.WriteHeader(status)
	if fault == Truncate && n > 0 {
		m, _ := io.CopyN(w, body, n/2)
		p.bytes.Add(m)
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
		panic(http.ErrAbortHandler) // drops the connection mid-body
	}
	m, _ := io.Copy(w, body)
	p.bytes.Add(m)
}
