package remote_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"strata/internal/objtest"
	"strata/iox"
	"strata/iox/remote"
)

func TestContentRange(t *testing.T) {
	for _, c := range []struct {
		in                 string
		first, last, total int64
		ok                 bool
	}{
		{"bytes 0-9/100", 0, 9, 100, true},
		{"bytes 5-5/6", 5, 5, 6, true},
		{"bytes 7-8/*", 7, 8, -1, true},
		{"bytes 5-4/10", 0, 0, 0, false},
		{"bytes 5-10/10", 0, 0, 0, false},
		{"bytes -1-4/10", 0, 0, 0, false},
		{"items 0-1/2", 0, 0, 0, false},
		{"bytes 0-1", 0, 0, 0, false},
		{"bytes a-1/2", 0, 0, 0, false},
		{"", 0, 0, 0, false},
	} {
		f, l, tot, err := remote.ContentRange(c.in)
		if (err == nil) != c.ok || c.ok && (f != c.first || l != c.last || tot != c.total) {
			t.Errorf("%q: %d %d %d %v", c.in, f, l, tot, err)
		}
		if err != nil && !errors.Is(err, remote.ErrBadResponse) {
			t.Errorf("%q: %v is not ErrBadResponse", c.in, err)
		}
	}
	r := iox.Range{Off: 10, Len: 5}
	if err := remote.CheckPartial("bytes 10-14/100", 5, r, 100); err != nil {
		t.Fatal(err)
	}
	if err := remote.CheckPartial("bytes 10-14/101", 5, r, 100); !errors.Is(err, remote.ErrChanged) {
		t.Fatalf("other total: %v", err)
	}
	if err := remote.CheckPartial("bytes 11-15/100", 5, r, 100); !errors.Is(err, remote.ErrBadResponse) {
		t.Fatalf("other range: %v", err)
	}
	if err := remote.CheckPartial("bytes 10-14/100", 6, r, 100); !errors.Is(err, remote.ErrBadResponse) {
		t.Fatalf("other length: %v", err)
	}
	for _, c := range []struct {
		cr     string
		length int64
		n      int64
		size   int64
	}{{"bytes 90-99/100", 10, 10, 100}, {"bytes 0-4/5", 5, 10, 5}, {"bytes 0-4/5", -1, 5, 5}} {
		if size, err := remote.CheckSuffix(c.cr, c.length, c.n); err != nil || size != c.size {
			t.Errorf("CheckSuffix(%q, %d, %d) = %d %v", c.cr, c.length, c.n, size, err)
		}
	}
	for _, c := range []struct {
		cr        string
		length, n int64
	}{{"bytes 89-98/100", 10, 10}, {"bytes 91-99/100", 9, 10}, {"bytes 90-99/*", 10, 10}, {"bytes 90-99/100", 11, 10}, {"bytes 1-4/5", 4, 10}} {
		if _, err := remote.CheckSuffix(c.cr, c.length, c.n); !errors.Is(err, remote.ErrBadResponse) {
			t.Errorf("CheckSuffix(%q, %d, %d): %v", c.cr, c.length, c.n, err)
		}
	}
	tail := &remote.Tail{Off: 100, Data: []byte("abcdef")}
	for _, c := range []struct {
		off, n int64
		ok     bool
	}{{100, 6, true}, {102, 2, true}, {106, 0, true}, {99, 2, false}, {103, 4, false}, {107, 0, false}} {
		p := make([]byte, c.n)
		if got := tail.Serve(p, c.off); got != c.ok || got && string(p) != "abcdef"[c.off-100:c.off-100+c.n] {
			t.Errorf("Serve(%d, %d) = %v %q", c.off, c.n, got, p)
		}
	}
}

// object is a mutable file served over HTTP with ETag and range support.
type object struct {
	mu   sync.Mutex
	data []byte
	etag string
	gets atomic.Int64
}

func (o *object) set(data []byte, etag string) {
	o.mu.Lock()
	o.data, o.etag = data, etag
	o.mu.Unlock()
}

func (o *object) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/data.strata" {
		http.NotFound(w, r)
		return
	}
	o.mu.Lock()
	data, etag := o.data, o.etag
	o.mu.Unlock()
	if r.Method == http.MethodGet {
		o.gets.Add(1)
	}
	if etag != "" {
		w.Header().Set("ETag", etag)
	}
	http.ServeContent(w, r, "", time.Unix(1700000000, 0), bytes.NewReader(data))
}

func randomBytes(n int, seed uint64) []byte {
	rng := rand.New(rand.NewPCG(seed, 1))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return b
}

// fast retries quickly so fault tests take milliseconds.
var fast = remote.Retry{BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond}

// serve starts an HTTP server for obj behind a fault proxy.
func serve(t *testing.T, obj *object) (*objtest.Proxy, string) {
	t.Helper()
	srv := httptest.NewServer(obj)
	t.Cleanup(srv.Close)
	p, err := objtest.NewProxy(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p, p.URL + "/data.strata"
}

func TestHTTPReads(t *testing.T) {
	data := randomBytes(1_000_000, 1)
	obj := &object{data: data, etag: `"v1"`}
	p, url := serve(t, obj)
	ctx := context.Background()
	src, err := remote.OpenHTTP(ctx, url, remote.HTTPOptions{Retry: fast})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	if src.Size() != int64(len(data)) || src.ETag() != `"v1"` {
		t.Fatalf("size %d etag %s", src.Size(), src.ETag())
	}
	if id := src.Identity(); !strings.Contains(id, url) || !strings.Contains(id, `"v1"`) {
		t.Fatalf("identity %q", id)
	}
	if h := src.Hints(); h != remote.ObjectHints {
		t.Fatalf("hints %+v", h)
	}
	if c := p.Counts(); c.Requests != 1 || c.Gets != 1 {
		t.Fatalf("open: %+v, want one GET of the tail", c)
	}
	tailOff := int64(len(data)) - remote.DefaultOpenTail
	wantReqs := int64(1)
	rng := rand.New(rand.NewPCG(2, 3))
	for i := range 50 {
		off := rng.Int64N(int64(len(data)))
		if i%3 == 0 {
			off = tailOff + rng.Int64N(remote.DefaultOpenTail)
		}
		p := make([]byte, rng.IntN(5000)+1)
		if off < tailOff {
			wantReqs++
		}
		n, err := src.ReadAt(ctx, p, off)
		want := data[off:min(off+int64(len(p)), int64(len(data)))]
		if n != len(want) || !bytes.Equal(p[:n], want) {
			t.Fatalf("ReadAt(%d, %d) = %d bytes, want %d", off, len(p), n, len(want))
		}
		if (n < len(p)) != (err == io.EOF) || err != nil && err != io.EOF {
			t.Fatalf("ReadAt(%d, %d): n %d err %v", off, len(p), n, err)
		}
	}
	if n, err := src.ReadAt(ctx, make([]byte, 3), int64(len(data))); n != 0 || err != io.EOF {
		t.Fatalf("at end: %d %v", n, err)
	}
	if _, err := src.ReadAt(ctx, make([]byte, 3), -1); !errors.Is(err, iox.ErrOutOfRange) {
		t.Fatalf("negative offset: %v", err)
	}
	st := src.Stats()
	if c := p.Counts(); st.Requests != c.Requests || st.Requests != wantReqs || st.Retries != 0 {
		t.Fatalf("stats %+v, proxy %+v, want %d requests (reads inside the tail read at open cost none)", st, c, wantReqs)
	}
	// Opening with HEAD, and opening with a known size and ETag.
	p.Reset()
	hs, err := remote.OpenHTTP(ctx, url, remote.HTTPOptions{OpenTail: -1})
	if err != nil || hs.Size() != int64(len(data)) || hs.ETag() != `"v1"` || hs.Identity() != src.Identity() {
		t.Fatalf("HEAD open: %v", err)
	}
	if c := p.Counts(); c.Heads != 1 || c.Gets != 0 {
		t.Fatalf("HEAD open: %+v", c)
	}
	p.Reset()
	ks, err := remote.OpenHTTP(ctx, url, remote.HTTPOptions{Known: &remote.Known{Size: int64(len(data)), ETag: `"v1"`}})
	if err != nil || ks.Identity() != src.Identity() || p.Counts().Requests != 0 {
		t.Fatalf("known open: %v %+v", err, p.Counts())
	}
	if got, err := iox.ReadRange(ctx, ks, iox.Range{Off: 999_990, Len: 10}); err != nil || !bytes.Equal(got, data[999_990:]) {
		t.Fatalf("known open read: %v", err)
	}
	ks2, _ := remote.OpenHTTP(ctx, url, remote.HTTPOptions{Known: &remote.Known{Size: int64(len(data)), ETag: `"v0"`}})
	if _, err := iox.ReadRange(ctx, ks2, iox.Range{Off: 0, Len: 10}); !errors.Is(err, remote.ErrChanged) {
		t.Fatalf("known open of another version: %v", err)
	}
	// Opened through the registry as iox.Open would for strata.Open.
	s2, err := iox.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := iox.ReadRange(ctx, s2, iox.Range{Off: 7, Len: 9}); err != nil || !bytes.Equal(got, data[7:16]) {
		t.Fatalf("registered opener: %v", err)
	}
}

// TestHTTPRetries passes every transient fault once and expects the right
// bytes after one retry.
func TestHTTPRetries(t *testing.T) {
	data := randomBytes(300_000, 4)
	p, url := serve(t, &object{data: data, etag: `"e"`})
	ctx := context.Background()
	src, err := remote.OpenHTTP(ctx, url, remote.HTTPOptions{Retry: fast})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []objtest.Fault{objtest.ServerError, objtest.SlowDown, objtest.TooMany, objtest.Truncate, objtest.Reset} {
		p.Reset()
		before := src.Stats()
		p.Inject("GET", f)
		got, err := iox.ReadRange(ctx, src, iox.Range{Off: 1000, Len: 20_000})
		if err != nil || !bytes.Equal(got, data[1000:21000]) {
			t.Fatalf("%v: %v", f, err)
		}
		st := src.Stats()
		if f == objtest.Reset && st.Retries == before.Retries {
			// net/http itself resends an idempotent request whose reused
			// connection closed before any answer; the proxy sees both.
			before.Retries--
			before.Requests--
		}
		if c := p.Counts(); c.Gets != 2 || c.Faults != 1 || st.Retries-before.Retries != 1 || st.Requests-before.Requests != 2 {
			t.Fatalf("%v: proxy %+v, stats %+v (before %+v)", f, c, st, before)
		}
	}
	// Opening requests that fail once are retried too.
	p.Inject("GET", objtest.Truncate)
	if _, err := remote.OpenHTTP(ctx, url, remote.HTTPOptions{Retry: fast}); err != nil {
		t.Fatalf("open retry: %v", err)
	}
	p.Inject("HEAD", objtest.SlowDown)
	if _, err := remote.OpenHTTP(ctx, url, remote.HTTPOptions{Retry: fast, OpenTail: -1}); err != nil {
		t.Fatalf("HEAD retry: %v", err)
	}
	// A server answering the suffix range with the whole object: HEAD.
	p.Reset()
	p.Inject("GET", objtest.WholeObject)
	ws, err := remote.OpenHTTP(ctx, url, remote.HTTPOptions{Retry: fast})
	if err != nil || ws.Size() != int64(len(data)) {
		t.Fatalf("open without suffix ranges: %v", err)
	}
	if c := p.Counts(); c.Gets != 1 || c.Heads != 1 {
		t.Fatalf("open without suffix ranges: %+v", c)
	}
	// A read of part of the object then fails, saying why: the server
	// does not support ranges, which a remote file is read by.
	p.Inject("GET", objtest.WholeObject)
	_, err = iox.ReadRange(ctx, ws, iox.Range{Off: 10, Len: 100})
	if !errors.Is(err, remote.ErrBadResponse) || !strings.Contains(err.Error(), "does not support Range requests") {
		t.Errorf("a ranged read answered with the whole object: %v", err)
	}
}

// TestHTTPErrors checks that failures no retry can mend, and failures that
// outlast the retries, surface as errors naming the URL and the range.
func TestHTTPErrors(t *testing.T) {
	data := randomBytes(300_000, 5)
	obj := &object{data: data, etag: `"e"`}
	p, url := serve(t, obj)
	ctx := context.Background()
	src, err := remote.OpenHTTP(ctx, url, remote.HTTPOptions{Retry: remote.Retry{Attempts: 3, BaseDelay: time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	check := func(what string, err error, sentinel error, attempts int) {
		t.Helper()
		var re *remote.Error
		if !errors.As(err, &re) {
			t.Fatalf("%s: %v is not a *remote.Error", what, err)
		}
		if re.Object != url || re.Range != (iox.Range{Off: 100, Len: 50}) || re.Attempts != attempts {
			t.Fatalf("%s: %+v", what, re)
		}
		if !strings.Contains(err.Error(), url) || !strings.Contains(err.Error(), "bytes 100-149") {
			t.Fatalf("%s: message %q does not name the object and range", what, err)
		}
		if sentinel != nil && !errors.Is(err, sentinel) {
			t.Fatalf("%s: %v is not %v", what, err, sentinel)
		}
	}
	for _, c := range []struct {
		fault    objtest.Fault
		sentinel error
	}{{objtest.WrongRange, remote.ErrBadResponse}, {objtest.WholeObject, remote.ErrBadResponse}, {objtest.Gone, remote.ErrChanged}} {
		p.Reset()
		p.Inject("GET", c.fault)
		_, err := iox.ReadRange(ctx, src, iox.Range{Off: 100, Len: 50})
		check(c.fault.String(), err, c.sentinel, 1)
		if n := p.Counts().Gets; n != 1 {
			t.Fatalf("%v retried: %d GETs", c.fault, n)
		}
	}
	// Throttled past the retry budget: three attempts, then an error that
	// says what the server said.
	p.Reset()
	p.Inject("GET", objtest.SlowDown, objtest.SlowDown, objtest.SlowDown, objtest.SlowDown)
	_, err = iox.ReadRange(ctx, src, iox.Range{Off: 100, Len: 50})
	check("throttled", err, nil, 3)
	var se *remote.StatusError
	if !errors.As(err, &se) || se.StatusCode != 503 || se.Code != "SlowDown" {
		t.Fatalf("throttled: %v", err)
	}
	if c := p.Counts(); c.Gets != 3 {
		t.Fatalf("throttled: %d GETs, want 3", c.Gets)
	}
	p.ClearFaults()
	// A missing object is not retried.
	p.Reset()
	if _, err := remote.OpenHTTP(ctx, strings.Replace(url, "data.strata", "nothing-here", 1), remote.HTTPOptions{Retry: fast}); err == nil || !strings.Contains(err.Error(), "404") {
		t.Fatalf("opened a missing object: %v", err)
	}
	if c := p.Counts(); c.Requests != 1 {
		t.Fatalf("a 404 was retried: %+v", c)
	}
	// The object replaced after opening: If-Match fails, never mixed bytes.
	obj.set(randomBytes(300_000, 6), `"e2"`)
	_, err = iox.ReadRange(ctx, src, iox.Range{Off: 100, Len: 50})
	check("replaced", err, remote.ErrChanged, 1)
}

// TestHTTPCancel checks that cancelling the context ends a read stuck on a
// server that does not answer, and that a stalled attempt times out and is
// retried.
func TestHTTPCancel(t *testing.T) {
	data := randomBytes(200_000, 7)
	p, url := serve(t, &object{data: data, etag: `"e"`})
	src, err := remote.OpenHTTP(context.Background(), url, remote.HTTPOptions{Retry: fast})
	if err != nil {
		t.Fatal(err)
	}
	p.Inject("GET", objtest.Stall)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	_, err = iox.ReadRange(ctx, src, iox.Range{Off: 0, Len: 100})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled read: %v", err)
	}
	if el := time.Since(start); el > 10*time.Second {
		t.Fatalf("cancelled read returned after %v", el)
	}
	// A stalled attempt is abandoned after AttemptTimeout and retried.
	src2, err := remote.OpenHTTP(context.Background(), url, remote.HTTPOptions{
		Retry: remote.Retry{BaseDelay: time.Millisecond, AttemptTimeout: 200 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	p.Inject("GET", objtest.Stall)
	got, err := iox.ReadRange(context.Background(), src2, iox.Range{Off: 10, Len: 100})
	if err != nil || !bytes.Equal(got, data[10:110]) {
		t.Fatalf("after a stalled attempt: %v", err)
	}
	if st := src2.Stats(); st.Retries != 1 {
		t.Fatalf("stats %+v", st)
	}
	// Parallel reads through a Fetcher: the first failure cancels the rest.
	p.Inject("GET", objtest.Gone)
	for range 8 {
		p.Inject("GET", objtest.Stall)
	}
	f := iox.NewFetcher(src, iox.FetcherOptions{Gap: -1, Parallel: 9})
	rs := make([]iox.Range, 9)
	for i := range rs {
		rs[i] = iox.Range{Off: int64(i) * 1000, Len: 10}
	}
	start = time.Now()
	if _, err := f.Fetch(context.Background(), rs); !errors.Is(err, remote.ErrChanged) {
		t.Fatalf("fetch with a failing read: %v", err)
	}
	if el := time.Since(start); el > 10*time.Second {
		t.Fatalf("stalled reads outlived the failure by %v", el)
	}
	p.ClearFaults()
}

func TestRetryable(t *testing.T) {
	for _, c := range []struct {
		err  error
		want bool
	}{
		{&remote.StatusError{StatusCode: 503}, true},
		{&remote.StatusError{StatusCode: 500}, true},
		{&remote.StatusError{StatusCode: 429}, true},
		{&remote.StatusError{StatusCode: 404}, false},
		{&remote.StatusError{StatusCode: 403}, false},
		{&remote.StatusError{StatusCode: 400, Code: "RequestTimeout"}, true},
		{io.ErrUnexpectedEOF, true},
		{context.DeadlineExceeded, true},
		{context.Canceled, false},
		{remote.ErrChanged, false},
		{remote.ErrBadResponse, false},
		{errors.New("read tcp 127.0.0.1:1->127.0.0.1:2: read: connection reset by peer"), true},
		{errors.New("no such host"), false},
	} {
		if got, _ := remote.Retryable(c.err); got != c.want {
			t.Errorf("Retryable(%v) = %v", c.err, got)
		}
	}
	// Do waits at most MaxDelay between attempts and honours Retry-After.
	start := time.Now()
	n, err := remote.Retry{Attempts: 3, BaseDelay: time.Millisecond, MaxDelay: 30 * time.Millisecond}.Do(context.Background(),
		func(context.Context) error { return &remote.StatusError{StatusCode: 503, RetryAfter: time.Second} })
	if n != 3 || err == nil || time.Since(start) < 60*time.Millisecond {
		t.Fatalf("Do: %d %v after %v", n, err, time.Since(start))
	}
}

// TestHTTPSharedClient opens one URL eight times, reading each time, as a
// program that opens a file per query does: the opens share one client
// and so one connection (a client per open made a connection each).
func TestHTTPSharedClient(t *testing.T) {
	data := randomBytes(50_000, 4)
	p, url := serve(t, &object{data: data, etag: `"s1"`})
	ctx := context.Background()
	for range 8 {
		src, err := remote.OpenHTTP(ctx, url, remote.HTTPOptions{Retry: fast})
		if err != nil {
			t.Fatal(err)
		}
		got, err := iox.ReadRange(ctx, src, iox.Range{Off: 0, Len: src.Size()})
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("read: %v", err)
		}
		src.Close()
	}
	if c := p.Counts(); c.Conns != 1 {
		t.Errorf("8 opens and reads: %d connections, want 1", c.Conns)
	}
}
