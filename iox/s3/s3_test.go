package s3_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	"strata/internal/objtest"
	"strata/iox"
	"strata/iox/remote"
	"strata/iox/s3"
)

func TestMain(m *testing.M) { os.Exit(objtest.Main(m)) }

func TestParseURL(t *testing.T) {
	for _, c := range []struct{ in, bucket, key string }{
		{"s3://b/k", "b", "k"},
		{"s3://my-bucket/dir/file.strata", "my-bucket", "dir/file.strata"},
		// Keys are taken literally, as the AWS CLI takes them.
		{"s3://b/a%20b", "b", "a%20b"},
		{"s3://b/k?x=1", "b", "k?x=1"},
		{"s3://b/h#x", "b", "h#x"},
		{"s3://b/pct%.strata", "b", "pct%.strata"},
		{"S3://b/d/../k", "b", "d/../k"},
	} {
		b, k, err := s3.ParseURL(c.in)
		if err != nil || b != c.bucket || k != c.key {
			t.Errorf("%q: %q %q %v", c.in, b, k, err)
		}
	}
	for _, bad := range []string{"s3://", "s3://b", "s3://b/", "http://b/k", "s3:///k", "b/k"} {
		if _, _, err := s3.ParseURL(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

func randomBytes(n int, seed uint64) []byte {
	rng := rand.New(rand.NewPCG(seed, 1))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return b
}

// setup stores data under a fresh key and returns a proxy in front of the
// server and a client that goes through it.
func setup(t *testing.T, data []byte, retry remote.Retry) (*objtest.Server, *objtest.Proxy, *s3.Client, string) {
	t.Helper()
	srv := objtest.Need(t)
	ctx := context.Background()
	key := strings.ReplaceAll(t.Name(), "/", "_") + ".bin"
	if err := srv.Put(ctx, "strata-test", key, data); err != nil {
		t.Fatal(err)
	}
	p, err := objtest.NewProxy(srv.Endpoint)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	cfg := srv.Config(p.URL)
	cfg.Retry = retry
	c, err := s3.NewClient(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return srv, p, c, key
}

var fast = remote.Retry{BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond}

func TestObjectReads(t *testing.T) {
	data := randomBytes(300_000, 1)
	_, p, c, key := setup(t, data, fast)
	ctx := context.Background()
	o, err := c.Open(ctx, "strata-test", key)
	if err != nil {
		t.Fatal(err)
	}
	if o.Size() != int64(len(data)) || o.ETag() == "" || o.Name() != "s3://strata-test/"+key {
		t.Fatalf("size %d etag %q name %s", o.Size(), o.ETag(), o.Name())
	}
	if id := o.Identity(); !strings.Contains(id, o.Name()) || !strings.Contains(id, o.ETag()) || !strings.Contains(id, p.URL) {
		t.Fatalf("identity %q", id)
	}
	if h := o.Hints(); h != remote.ObjectHints {
		t.Fatalf("hints %+v", h)
	}
	if c := p.Counts(); c.Requests != 1 || c.Gets != 1 {
		t.Fatalf("open: %+v, want one GET of the tail", c)
	}
	tailOff := int64(len(data)) - remote.DefaultOpenTail
	wantReqs := int64(1)
	rng := rand.New(rand.NewPCG(2, 3))
	for i := range 40 {
		off := rng.Int64N(int64(len(data)))
		buf := make([]byte, rng.IntN(70_000)+1)
		if i%4 == 0 {
			off = tailOff + rng.Int64N(remote.DefaultOpenTail)
			buf = buf[:min(int64(len(buf)), int64(len(data))-off)]
		}
		if off < tailOff {
			wantReqs++
		}
		n, err := o.ReadAt(ctx, buf, off)
		want := data[off:min(off+int64(len(buf)), int64(len(data)))]
		if n != len(want) || !bytes.Equal(buf[:n], want) {
			t.Fatalf("ReadAt(%d, %d) = %d bytes, want %d", off, len(buf), n, len(want))
		}
		if (n < len(buf)) != (err == io.EOF) || err != nil && err != io.EOF {
			t.Fatalf("ReadAt(%d, %d): n %d err %v", off, len(buf), n, err)
		}
	}
	if st, cnt := o.Stats(), p.Counts(); st.Requests != wantReqs || cnt.Requests != wantReqs || st.Retries != 0 {
		t.Fatalf("stats %+v, proxy %+v, want %d requests (reads inside the tail read at open cost none)", st, cnt, wantReqs)
	}
	// Opened with HEAD, or with the size and ETag known: the same object.
	c2, err := s3.NewClient(ctx, s3.Config{Endpoint: p.URL, Region: "us-east-1", OpenTail: -1,
		AccessKeyID: objtest.Need(t).AccessKey, SecretAccessKey: objtest.Need(t).SecretKey})
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	p.Reset()
	oh, err := c2.Open(ctx, "strata-test", key)
	if err != nil || oh.Identity() != o.Identity() || oh.Size() != o.Size() {
		t.Fatalf("HEAD open: %v", err)
	}
	if cnt := p.Counts(); cnt.Heads != 1 || cnt.Requests != 1 {
		t.Fatalf("HEAD open: %+v", cnt)
	}
	p.Reset()
	ok := c.OpenKnown("strata-test", key, remote.Known{Size: o.Size(), ETag: o.ETag()})
	if ok.Identity() != o.Identity() || p.Counts().Requests != 0 {
		t.Fatalf("known open: %s, %+v", ok.Identity(), p.Counts())
	}
	if got, err := iox.ReadRange(ctx, ok, iox.Range{Off: 5, Len: 10}); err != nil || !bytes.Equal(got, data[5:15]) {
		t.Fatalf("known open read: %v", err)
	}
	stale := c.OpenKnown("strata-test", key, remote.Known{Size: o.Size(), ETag: `"not-it"`})
	if _, err := iox.ReadRange(ctx, stale, iox.Range{Off: 5, Len: 10}); !errors.Is(err, remote.ErrChanged) {
		t.Fatalf("known open of another version: %v", err)
	}
	// A server answering the suffix range without a Content-Range is asked
	// again with HEAD.
	p.Reset()
	p.Inject("GET", objtest.WholeObject)
	ow, err := c.Open(ctx, "strata-test", key)
	if err != nil || ow.Size() != o.Size() || ow.ETag() != o.ETag() || p.Counts().Requests != 2 || p.Counts().Heads != 1 {
		t.Fatalf("whole-object answer at open: %v %+v", err, p.Counts())
	}
	// The whole object in one read, and a Fetcher coalescing within 1 MiB.
	got, err := iox.ReadRange(ctx, o, iox.Range{Off: 0, Len: o.Size()})
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("whole object: %v", err)
	}
	p.Reset()
	f := iox.NewFetcher(o, iox.FetcherOptions{})
	rs := []iox.Range{{Off: 10, Len: 100}, {Off: 500_000 % int64(len(data)), Len: 1000}, {Off: 299_000, Len: 1000}}
	bufs, err := f.Fetch(ctx, rs)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range rs {
		if !bytes.Equal(bufs[i], data[r.Off:r.End()]) {
			t.Fatalf("fetched range %d wrong", i)
		}
	}
	if cnt := p.Counts(); cnt.Gets != 1 {
		t.Fatalf("object-store hints should coalesce these ranges into one GET, proxy saw %+v", cnt)
	}
}

func TestObjectFaults(t *testing.T) {
	data := randomBytes(100_000, 4)
	_, p, c, key := setup(t, data, fast)
	ctx := context.Background()
	p.Inject("GET", objtest.ServerError, objtest.Truncate)
	o, err := c.Open(ctx, "strata-test", key)
	if err != nil {
		t.Fatalf("open after a 500 and a truncated answer: %v", err)
	}
	r := iox.Range{Off: 5000, Len: 40_000}
	for _, f := range []objtest.Fault{objtest.ServerError, objtest.SlowDown, objtest.TooMany, objtest.Truncate, objtest.Reset} {
		p.Reset()
		p.Inject("GET", f)
		got, err := iox.ReadRange(ctx, o, r)
		if err != nil || !bytes.Equal(got, data[r.Off:r.End()]) {
			t.Fatalf("%v: %v", f, err)
		}
		if cnt := p.Counts(); cnt.Gets != 2 || cnt.Faults != 1 {
			t.Fatalf("%v: proxy %+v", f, cnt)
		}
	}
	for _, c := range []struct {
		f    objtest.Fault
		want error
	}{{objtest.WrongRange, remote.ErrBadResponse}, {objtest.WholeObject, remote.ErrBadResponse}, {objtest.Gone, remote.ErrChanged}} {
		p.Reset()
		p.Inject("GET", c.f)
		_, err := iox.ReadRange(ctx, o, r)
		var re *remote.Error
		if !errors.As(err, &re) || !errors.Is(err, c.want) || re.Object != o.Name() || re.Range != r || re.Attempts != 1 {
			t.Fatalf("%v: %v", c.f, err)
		}
		if !strings.Contains(err.Error(), "s3://strata-test/"+key) || !strings.Contains(err.Error(), "bytes 5000-44999") {
			t.Fatalf("%v: message %q does not name the object and range", c.f, err)
		}
	}
	// Throttled beyond the budget.
	p.Reset()
	for range remote.DefaultAttempts {
		p.Inject("GET", objtest.SlowDown)
	}
	_, err = iox.ReadRange(ctx, o, r)
	var re *remote.Error
	if !errors.As(err, &re) || re.Attempts != remote.DefaultAttempts || !strings.Contains(err.Error(), "SlowDown") {
		t.Fatalf("throttled: %v", err)
	}
	if cnt := p.Counts(); cnt.Gets != remote.DefaultAttempts {
		t.Fatalf("throttled: proxy %+v", cnt)
	}
	// A missing key fails at Open, without retries.
	p.Reset()
	if _, err := c.Open(ctx, "strata-test", "no-such-key"); err == nil {
		t.Fatal("opened a missing key")
	}
	if cnt := p.Counts(); cnt.Requests != 1 {
		t.Fatalf("404 retried: %+v", cnt)
	}
}

func TestObjectChanged(t *testing.T) {
	data := randomBytes(200_000, 5)
	srv, _, c, key := setup(t, data, fast)
	ctx := context.Background()
	o, err := c.Open(ctx, "strata-test", key)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Put(ctx, "strata-test", key, randomBytes(200_000, 6)); err != nil {
		t.Fatal(err)
	}
	if _, err := iox.ReadRange(ctx, o, iox.Range{Off: 0, Len: 100}); !errors.Is(err, remote.ErrChanged) {
		t.Fatalf("read of a replaced object: %v", err)
	}
}

func TestObjectCancel(t *testing.T) {
	data := randomBytes(200_000, 7)
	_, p, c, key := setup(t, data, fast)
	o, err := c.Open(context.Background(), "strata-test", key)
	if err != nil {
		t.Fatal(err)
	}
	p.Inject("GET", objtest.Stall)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	if _, err := iox.ReadRange(ctx, o, iox.Range{Off: 0, Len: 100}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled read: %v", err)
	}
	if el := time.Since(start); el > 10*time.Second {
		t.Fatalf("cancelled read returned after %v", el)
	}
}

func TestOpenFromEnv(t *testing.T) {
	data := randomBytes(1000, 8)
	srv, _, _, key := setup(t, data, fast)
	for _, kv := range srv.Env("") {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	ctx := context.Background()
	src, err := iox.Open(ctx, "s3://strata-test/"+key)
	if err != nil {
		t.Fatal(err)
	}
	defer src.(io.Closer).Close()
	got, err := iox.ReadRange(ctx, src, iox.Range{Off: 1, Len: 998})
	if err != nil || !bytes.Equal(got, data[1:999]) {
		t.Fatalf("read through the environment's configuration: %v", err)
	}
	// Wrong credentials fail clearly, without retries.
	t.Setenv("AWS_SECRET_ACCESS_KEY", "wrong")
	if _, err := iox.Open(ctx, "s3://strata-test/"+key); err == nil || !strings.Contains(err.Error(), "403") {
		t.Fatalf("wrong secret: %v", err)
	}
}

// BenchmarkRangeGet reads a 16 MiB object in ranged GETs of 1 MiB and
// 16 MiB, one at a time, through the test proxy (no added latency) and
// straight from the server: what one request costs and how fast bytes
// move, apart from any reader.
func BenchmarkRangeGet(b *testing.B) {
	const size = 16 << 20
	data := randomBytes(size, 9)
	srv := objtest.Need(b)
	ctx := context.Background()
	if err := srv.Put(ctx, "strata-test", "bench-16m", data); err != nil {
		b.Fatal(err)
	}
	p, err := objtest.NewProxy(srv.Endpoint)
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	for _, via := range []struct{ name, endpoint string }{{"proxy", p.URL}, {"direct", srv.Endpoint}} {
		c, err := s3.NewClient(ctx, srv.Config(via.endpoint))
		if err != nil {
			b.Fatal(err)
		}
		o, err := c.Open(ctx, "strata-test", "bench-16m")
		if err != nil {
			b.Fatal(err)
		}
		for _, req := range []int64{1 << 20, 16 << 20} {
			b.Run(fmt.Sprintf("%s/%dMiB", via.name, req>>20), func(b *testing.B) {
				b.SetBytes(size)
				buf := make([]byte, req)
				for b.Loop() {
					for off := int64(0); off < size; off += req {
						if err := iox.ReadFull(ctx, o, buf, off); err != nil {
							b.Fatal(err)
						}
					}
				}
			})
		}
		c.Close()
	}
}

// TestNoCredentials expects a read with no credentials anywhere in the
// chain to fail at once, with one attempt, with ErrNoCredentials saying
// what to set; it once said only "no EC2 IMDS role found", the chain's
// last provider's failure, which names nothing a user outside a cloud
// has. Anonymous requests are not asked for credentials.
func TestNoCredentials(t *testing.T) {
	srv := objtest.Need(t)
	ctx := context.Background()
	if err := srv.Put(ctx, "strata-test", "nocreds.bin", []byte("x")); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	for _, k := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE", "AWS_DEFAULT_PROFILE", "AWS_ROLE_ARN", "AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_CONTAINER_CREDENTIALS_FULL_URI", "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI"} {
		t.Setenv(k, "")
	}
	t.Setenv("HOME", home)
	t.Setenv("AWS_CONFIG_FILE", home+"/config")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", home+"/credentials")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	c, err := s3.NewClient(ctx, s3.Config{Endpoint: srv.Endpoint, Region: srv.Region})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, err = c.Open(ctx, "strata-test", "nocreds.bin")
	if !errors.Is(err, s3.ErrNoCredentials) || !strings.Contains(err.Error(), "AWS_ACCESS_KEY_ID") || !strings.Contains(err.Error(), "after 1 attempt(s)") {
		t.Errorf("open without credentials: %v", err)
	}
	if _, err := c.Glob(ctx, "strata-test", "nocreds*"); !errors.Is(err, s3.ErrNoCredentials) {
		t.Errorf("listing without credentials: %v", err)
	}
	// Unsigned: the server refuses it (the bucket is private), and the
	// refusal is the server's 403, not a credentials error.
	anon, err := s3.NewClient(ctx, s3.Config{Endpoint: srv.Endpoint, Region: srv.Region, Anonymous: true})
	if err != nil {
		t.Fatal(err)
	}
	defer anon.Close()
	if _, err := anon.Open(ctx, "strata-test", "nocreds.bin"); err == nil || errors.Is(err, s3.ErrNoCredentials) || !strings.Contains(err.Error(), "403") {
		t.Errorf("anonymous open of a private bucket: %v", err)
	}
}
