package s3_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"

	"strata/internal/objtest"
	"strata/iox"
	"strata/iox/remote"
	"strata/iox/s3"
)

// readObject returns the object's bytes, or nil and false when the key
// does not exist.
func readObject(t *testing.T, c *s3.Client, bucket, key string) ([]byte, bool) {
	t.Helper()
	ctx := context.Background()
	o, err := c.Open(ctx, bucket, key)
	if err != nil {
		var status interface{ HTTPStatusCode() int }
		if errors.As(err, &status) && status.HTTPStatusCode() == http.StatusNotFound {
			return nil, false
		}
		t.Fatalf("open s3://%s/%s: %v", bucket, key, err)
	}
	b, err := iox.ReadRange(ctx, o, iox.Range{Len: o.Size()})
	if err != nil {
		t.Fatal(err)
	}
	return b, true
}

// pendingUploads counts the bucket's multipart uploads in progress for key.
func pendingUploads(t *testing.T, c *s3.Client, bucket, key string) int {
	t.Helper()
	out, err := c.API().ListMultipartUploads(context.Background(), &awss3.ListMultipartUploadsInput{Bucket: &bucket, Prefix: &key})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, u := range out.Uploads {
		if aws.ToString(u.Key) == key {
			n++
		}
	}
	return n
}

// keptOld checks that key still holds old and no multipart upload of it
// is pending, as after a failed or aborted upload; what names the case.
func keptOld(t *testing.T, c *s3.Client, key string, old []byte, what string) {
	t.Helper()
	if got, ok := readObject(t, c, "strata-test", key); !ok || !bytes.Equal(got, old) {
		t.Fatalf("%s: the object holds %d bytes, want its %d old ones (found %v)", what, len(got), len(old), ok)
	}
	if pending := pendingUploads(t, c, "strata-test", key); pending != 0 {
		t.Errorf("%s: %d multipart uploads left pending", what, pending)
	}
}

// writeChunks writes data in pieces of odd sizes.
func writeChunks(t *testing.T, u *s3.Upload, data []byte) error {
	t.Helper()
	for i, step := 0, 1; i < len(data); step = step*3 + 7 {
		n := min(step%(1<<20)+1, len(data)-i)
		if _, err := u.Write(data[i : i+n]); err != nil {
			return err
		}
		i += n
	}
	return nil
}

// TestUpload: an object smaller than a part goes up in one PUT; a larger
// one as a multipart upload of parts of the set size, its last part
// shorter; both read back byte for byte, and an existing object is
// replaced only by Commit.
func TestUpload(t *testing.T) {
	_, p, c, key := setup(t, []byte("the previous version"), fast)
	ctx := context.Background()
	for _, n := range []int{0, 1, 300_000, 12<<20 + 12345} {
		data := randomBytes(n, uint64(n))
		p.Reset()
		u := c.Create(ctx, "strata-test", key)
		u.SetPartSize(5 << 20)
		if err := writeChunks(t, u, data); err != nil {
			t.Fatalf("%d bytes: %v", n, err)
		}
		if n < 5<<20 {
			if got, _ := readObject(t, c, "strata-test", key); n > 0 && bytes.Equal(got, data) {
				t.Fatalf("%d bytes: the object changed before Commit", n)
			}
		}
		puts := p.Counts().Requests
		if err := u.Commit(); err != nil {
			t.Fatalf("%d bytes: %v", n, err)
		}
		puts = p.Counts().Requests - puts
		if got, ok := readObject(t, c, "strata-test", key); !ok || !bytes.Equal(got, data) {
			t.Fatalf("%d bytes: read back %d bytes (found %v)", n, len(got), ok)
		}
		if n < 5<<20 && puts != 1 {
			t.Errorf("%d bytes: Commit sent %d requests, want one PUT", n, puts)
		}
		if n > 5<<20 {
			// create, 3 parts (two of them before Commit), complete
			if c := p.Counts().Requests; c < 5 {
				t.Errorf("%d bytes: %d requests in all, want a multipart upload", n, c)
			}
		}
		if _, err := u.Write([]byte("x")); err == nil {
			t.Errorf("%d bytes: Write after Commit succeeded", n)
		}
		if err := u.Commit(); err == nil {
			t.Errorf("%d bytes: a second Commit succeeded", n)
		}
	}
	if pending := pendingUploads(t, c, "strata-test", key); pending != 0 {
		t.Errorf("%d multipart uploads left pending", pending)
	}
}

// TestUploadAbort: Abort, after parts were sent or before, leaves the key
// as it was and no upload pending; a Write after it fails.
func TestUploadAbort(t *testing.T) {
	old := []byte("the previous version")
	_, _, c, key := setup(t, old, fast)
	ctx := context.Background()
	for _, n := range []int{1000, 11 << 20} {
		u := c.Create(ctx, "strata-test", key)
		u.SetPartSize(5 << 20)
		if err := writeChunks(t, u, randomBytes(n, 7)); err != nil {
			t.Fatal(err)
		}
		u.Abort()
		u.Abort()
		if _, err := u.Write([]byte("x")); err == nil {
			t.Errorf("%d bytes: Write after Abort succeeded", n)
		}
		if err := u.Commit(); err == nil {
			t.Errorf("%d bytes: Commit after Abort succeeded", n)
		}
		keptOld(t, c, key, old, fmt.Sprintf("%d bytes, aborted", n))
	}
	// a new key stays absent
	u := c.Create(ctx, "strata-test", key+".new")
	u.Write([]byte("abc"))
	u.Abort()
	if _, ok := readObject(t, c, "strata-test", key+".new"); ok {
		t.Error("an aborted upload created its key")
	}
}

// TestUploadFaults: failed requests are retried (a part, the completion,
// a single PUT); a part that keeps failing fails the upload with an error
// naming the object and part, leaves the key as it was and aborts the
// multipart upload.
func TestUploadFaults(t *testing.T) {
	old := []byte("the previous version")
	srv, p, c, key := setup(t, old, remote.Retry{Attempts: 3, BaseDelay: fast.BaseDelay, MaxDelay: fast.MaxDelay})
	ctx := context.Background()
	data := randomBytes(11<<20, 9)

	p.Inject("PUT", objtest.ServerError, objtest.SlowDown, objtest.Pass, objtest.Reset)
	p.Inject("POST", objtest.TooMany) // the upload's start, then its completion
	u := c.Create(ctx, "strata-test", key)
	u.SetPartSize(5 << 20)
	if err := writeChunks(t, u, data); err != nil {
		t.Fatal(err)
	}
	if err := u.Commit(); err != nil {
		t.Fatal(err)
	}
	if got, _ := readObject(t, c, "strata-test", key); !bytes.Equal(got, data) {
		t.Fatalf("read back %d bytes, want the %d written", len(got), len(data))
	}
	if n, f := p.Pending(), p.Counts().Faults; n != 0 || f != 4 {
		t.Fatalf("%d faults left, %d answered; want every one of the 4 spent on the upload", n, f)
	}
	p.ClearFaults()

	if err := srv.Put(ctx, "strata-test", key, old); err != nil {
		t.Fatal(err)
	}
	p.Inject("PUT", objtest.Pass, objtest.ServerError, objtest.ServerError, objtest.ServerError)
	u = c.Create(ctx, "strata-test", key)
	u.SetPartSize(5 << 20)
	err := writeChunks(t, u, data)
	if err == nil {
		err = u.Commit()
	}
	if err == nil || !strings.Contains(err.Error(), "s3://strata-test/"+key) || !strings.Contains(err.Error(), "part 2") {
		t.Fatalf("a part failing 3 times: %v, want an error naming the object and part 2", err)
	}
	keptOld(t, c, key, old, "a failed upload")
}

// TestUploadAbortConcurrent: Abort from another goroutine interrupts an
// upload whose part is in flight (held by the proxy): the writer's call
// returns an error, the key keeps its old bytes and no upload is left
// pending.
func TestUploadAbortConcurrent(t *testing.T) {
	old := []byte("the previous version")
	_, p, c, key := setup(t, old, fast)
	ctx := context.Background()
	u := c.Create(ctx, "strata-test", key)
	u.SetPartSize(5 << 20)
	data := randomBytes(11<<20, 3)
	if _, err := u.Write(data[:6<<20]); err != nil { // the first part goes
		t.Fatal(err)
	}
	p.Inject("PUT", objtest.Stall) // the second part hangs until cancelled
	done := make(chan error, 1)
	go func() {
		_, err := u.Write(data[6<<20:])
		if err == nil {
			err = u.Commit()
		}
		done <- err
	}()
	for p.Pending() > 0 {
		time.Sleep(time.Millisecond) // until the stalled request arrived
	}
	u.Abort()
	if err := <-done; err == nil {
		t.Fatal("an upload aborted mid-part committed")
	}
	keptOld(t, c, key, old, "aborted mid-part")
}

// TestCreateLocation: a location that names no object is refused before
// anything is written.
func TestCreateLocation(t *testing.T) {
	for _, loc := range []string{"s3://b", "s3://b/", "s3://b/dir/", "http://b/k"} {
		if u, err := s3.Create(context.Background(), loc, s3.Config{Region: "us-east-1", Anonymous: true}); err == nil {
			u.Abort()
			t.Errorf("%s: accepted", loc)
		}
	}
}

// TestUploadReleasesContext: an upload that ends — committed, aborted or
// failed — stops watching the context it was created with. Before, a
// committed one stayed registered with its parent until the parent ended,
// so a process creating uploads under one long-lived context kept every
// committed upload's context (and, for a context of its own type, a
// goroutine each).
func TestUploadReleasesContext(t *testing.T) {
	_, p, c, key := setup(t, []byte("old"), remote.Retry{Attempts: 1})
	parent := &watchedContext{Context: context.Background(), done: make(chan struct{})}
	for _, tc := range []struct {
		name string
		n    int
		end  func(u *s3.Upload) error
	}{
		{"committed PUT", 10, (*s3.Upload).Commit},
		{"committed parts", 11 << 20, (*s3.Upload).Commit},
		{"aborted", 10, func(u *s3.Upload) error { u.Abort(); return nil }},
		{"failed", 10, func(u *s3.Upload) error {
			p.Inject("PUT", objtest.ServerError)
			if u.Commit() == nil {
				return errors.New("a failing PUT committed")
			}
			return nil
		}},
	} {
		u := c.Create(parent, "strata-test", key)
		u.SetPartSize(5 << 20)
		if err := writeChunks(t, u, randomBytes(tc.n, 1)); err != nil {
			t.Fatal(err)
		}
		if err := tc.end(u); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if n := parent.watchers.Load(); n != 0 {
			t.Errorf("%s: the parent context still has %d watcher(s)", tc.name, n)
		}
	}
}

// watchedContext counts the contexts derived from it that watch it
// (context.WithCancel registers through AfterFunc and stops when
// cancelled).
type watchedContext struct {
	context.Context
	done     chan struct{}
	watchers atomic.Int64
}

func (c *watchedContext) Done() <-chan struct{} { return c.done }

func (c *watchedContext) AfterFunc(func()) func() bool {
	c.watchers.Add(1)
	var once sync.Once
	return func() bool {
		once.Do(func() { c.watchers.Add(-1) })
		return true
	}
}

// TestUploadAbortWhileStarting: Abort while the request starting the
// multipart upload is answered (the server has started it; its answer,
// which alone names it, is held back) aborts the upload the server
// started once that answer arrives: when Abort returns, no upload is left
// pending. Before, Abort returned at once and cancelled the request, so
// the upload's id was never learned and its parts' upload stayed pending
// (the CLI exits as soon as Abort returns).
func TestUploadAbortWhileStarting(t *testing.T) {
	srv := objtest.Need(t)
	ctx := context.Background()
	key := "abort-while-starting.bin"
	if err := srv.Put(ctx, "strata-test", key, []byte("old")); err != nil {
		t.Fatal(err)
	}
	target, err := url.Parse(srv.Endpoint)
	if err != nil {
		t.Fatal(err)
	}
	started := make(chan struct{}) // the server has answered the start
	release := make(chan struct{}) // its answer may go on
	rp := httputil.NewSingleHostReverseProxy(target)
	rp.ModifyResponse = func(r *http.Response) error {
		if r.Request.Method == http.MethodPost && r.Request.URL.Query().Has("uploads") {
			close(started)
			<-release
		}
		return nil
	}
	hold := httptest.NewServer(rp)
	t.Cleanup(hold.Close)
	cfg := srv.Config(hold.URL)
	cfg.Retry = fast
	c, err := s3.NewClient(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })

	u := c.Create(ctx, "strata-test", key)
	u.SetPartSize(5 << 20)
	done := make(chan error, 1)
	go func() {
		_, err := u.Write(randomBytes(5<<20, 4)) // a full part: the upload starts
		done <- err
	}()
	<-started
	time.AfterFunc(50*time.Millisecond, func() { close(release) })
	u.Abort()
	if pending := pendingUploads(t, c, "strata-test", key); pending != 0 {
		t.Errorf("%d multipart uploads pending when Abort returned", pending)
	}
	if err := <-done; err == nil {
		t.Error("a Write that an Abort interrupted succeeded")
	}
	if got, _ := readObject(t, c, "strata-test", key); string(got) != "old" {
		t.Errorf("after Abort the object holds %q", got)
	}
}

// TestUploadAbortStalledStart: Abort while the request starting the upload
// gets no answer at all (a store that stopped responding, retried without
// a bound) returns after a few seconds, not when the retries give up.
func TestUploadAbortStalledStart(t *testing.T) {
	_, p, c, key := setup(t, []byte("old"), remote.Retry{BaseDelay: fast.BaseDelay, MaxDelay: fast.MaxDelay, AttemptTimeout: -1})
	u := c.Create(context.Background(), "strata-test", key)
	u.SetPartSize(5 << 20)
	p.Inject("POST", objtest.Stall)
	done := make(chan error, 1)
	go func() {
		_, err := u.Write(randomBytes(5<<20, 4))
		done <- err
	}()
	for p.Pending() > 0 {
		time.Sleep(time.Millisecond) // until the stalled request arrived
	}
	start := time.Now()
	u.Abort()
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("Abort took %v", d)
	}
	if err := <-done; err == nil {
		t.Error("a Write that an Abort interrupted succeeded")
	}
}
