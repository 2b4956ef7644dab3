package s3

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"strata/iox"
)

func init() {
	iox.RegisterCreate("s3", func(ctx context.Context, location string) (iox.Sink, error) {
		return Create(ctx, location, Config{})
	})
}

// DefaultPartSize is the size of the parts an Upload sends: S3 takes parts
// of 5 MiB to 5 GiB, at most 10,000 of them. Every 1,000 parts the size
// doubles, so an object of any size S3 accepts (5 TiB) fits.
const DefaultPartSize = 8 << 20

// minPartSize is S3's smallest part but the last.
const minPartSize = 5 << 20

// Upload writes one object, as an iox.Sink: what is written is buffered a
// part at a time and sent as the parts of a multipart upload, each part
// sent while the next one fills, so memory stays at two parts however
// large the object; an object smaller than one part is sent with a
// single PUT. The object appears under its key only
// when Commit succeeds (S3 replaces an existing object atomically); Abort,
// or a failure, aborts the multipart upload and leaves the key as it was.
// Every request is retried as reads are (Config.Retry).
//
// An upload abandoned without Abort (a crash) leaves its parts stored,
// and billed, until a bucket lifecycle rule that aborts incomplete
// multipart uploads removes them.
//
// An Upload is not safe for concurrent use, but for Abort, which another
// goroutine may call to interrupt one being written (on a signal): it
// cancels the part in flight (waiting a few seconds at most for the
// request starting the upload instead, whose answer names it) and aborts
// the multipart upload.
type Upload struct {
	c           *Client
	parent      context.Context // the caller's: bounds the upload's start (start)
	ctx         context.Context
	cancel      context.CancelFunc
	bucket, key string
	partSize    int
	buf         []byte
	parts       []types.CompletedPart
	sent        int64
	err         error
	done        bool          // committed, failed or aborted: no more writes
	spare       []byte        // the buffer of the part sent last, for the next one
	inflight    chan partDone // the part being sent, nil when none
	senders     sync.WaitGroup

	mu        sync.Mutex // guards id, aborted, committed and stopStart against a concurrent Abort
	id        string     // the multipart upload's id, once the first part is sent
	aborted   bool
	committed bool
	stopStart context.CancelFunc // cancels the upload's start (start), once begun
}

// startGrace is how long Abort waits for the answer to the request
// starting the upload before it cancels it: long enough for an answer on
// its way, short enough that an unresponsive store, retried, does not
// hold an interrupted command.
const startGrace = 5 * time.Second

// Create starts an upload to an s3://bucket/key location with the
// process's client for cfg (as Open). Nothing is sent until a part is
// full or Commit is called.
func Create(ctx context.Context, location string, cfg Config) (*Upload, error) {
	bucket, key, err := ParseURL(location)
	if err != nil {
		return nil, err
	}
	if strings.HasSuffix(key, "/") {
		// (an S3 console folder: a file written there would be unreachable
		// by the name a user gave it in a listing)
		return nil, fmt.Errorf("s3: %s names a folder, not an object: add the file's name", location)
	}
	c, err := sharedClient(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return c.Create(ctx, bucket, key), nil
}

// Create starts an upload of bucket/key. ctx bounds every request the
// upload sends, Commit's included.
func (c *Client) Create(ctx context.Context, bucket, key string) *Upload {
	uctx, cancel := context.WithCancel(ctx)
	return &Upload{c: c, parent: ctx, ctx: uctx, cancel: cancel, bucket: bucket, key: key, partSize: DefaultPartSize}
}

// SetPartSize sets the size of the parts not yet sent (at least 5 MiB;
// smaller values are raised to it). For tests and tuning.
func (u *Upload) SetPartSize(n int) { u.partSize = max(n, minPartSize) }

// Name returns the upload's s3://bucket/key location.
func (u *Upload) Name() string { return "s3://" + u.bucket + "/" + u.key }

// Write buffers p, sending each part as it fills.
func (u *Upload) Write(p []byte) (int, error) {
	if u.err != nil {
		return 0, u.err
	}
	if u.done || u.isAborted() {
		return 0, fmt.Errorf("s3: %s: write after the upload ended", u.Name())
	}
	n := 0
	for len(p) > 0 {
		size := u.size()
		if u.buf == nil {
			u.buf = make([]byte, 0, size)
		}
		k := min(size-len(u.buf), len(p))
		u.buf = append(u.buf, p[:k]...)
		p, n = p[k:], n+k
		if len(u.buf) >= size {
			if err := u.sendPart(); err != nil {
				return n, err
			}
		}
	}
	return n, nil
}

// size is the size of the part being filled: partSize, doubled every
// 1,000 parts.
func (u *Upload) size() int {
	return u.partSize << min(len(u.parts)/1000, 10)
}

// partDone is what sending one part came to.
type partDone struct {
	part types.CompletedPart
	body []byte
	off  int64 // its offset in the object
	err  error
	n    int // attempts
}

// sendPart starts sending the buffered bytes as the next part, starting
// the multipart upload first if need be, once the part sent before it is
// done; the part goes on a goroutine of its own while the caller fills
// the next.
func (u *Upload) sendPart() error {
	if n := len(u.parts); n >= 10000 || n >= 9999 && u.inflight != nil {
		return u.fail(fmt.Errorf("s3: %s: more than 10,000 parts", u.Name()))
	}
	if u.uploadID() == "" {
		if err := u.start(); err != nil {
			return err
		}
	}
	if err := u.wait(); err != nil {
		return err
	}
	num := int32(len(u.parts) + 1)
	body, off := u.buf, u.sent
	u.buf, u.spare = u.spare[:0], nil
	u.mu.Lock()
	if u.aborted {
		u.mu.Unlock()
		return u.fail(fmt.Errorf("s3: %s: the upload was aborted", u.Name()))
	}
	u.senders.Add(1) // (under mu: Abort waits for the senders only once none can start)
	u.mu.Unlock()
	done := make(chan partDone, 1)
	u.inflight = done
	go func() {
		defer u.senders.Done()
		r := partDone{body: body, off: off}
		r.n, r.err = u.c.retry.Do(u.ctx, func(ctx context.Context) error {
			out, err := u.c.api.UploadPart(ctx, &awss3.UploadPartInput{Bucket: &u.bucket, Key: &u.key, UploadId: &u.id,
				PartNumber: aws.Int32(num), Body: bytes.NewReader(body), ContentLength: aws.Int64(int64(len(body)))})
			if err != nil {
				return err
			}
			r.part = types.CompletedPart{PartNumber: aws.Int32(num), ETag: out.ETag}
			return nil
		})
		done <- r
	}()
	return nil
}

// start starts the multipart upload. Abort does not cancel the request at
// once (startGrace): the server may have started the upload already, and
// only the answer names it. Abort waits for the request as for a part
// being sent, and aborts the upload it started.
func (u *Upload) start() error {
	u.mu.Lock()
	if u.aborted {
		u.mu.Unlock()
		return u.fail(fmt.Errorf("s3: %s: the upload was aborted", u.Name()))
	}
	u.senders.Add(1)
	sctx, stop := context.WithCancel(u.parent)
	defer stop()
	u.stopStart = stop
	u.mu.Unlock()
	var out *awss3.CreateMultipartUploadOutput
	attempts, err := u.c.retry.Do(sctx, func(ctx context.Context) error {
		var err error
		out, err = u.c.api.CreateMultipartUpload(ctx, &awss3.CreateMultipartUploadInput{Bucket: &u.bucket, Key: &u.key})
		return err
	})
	u.mu.Lock()
	if err == nil {
		u.id = aws.ToString(out.UploadId)
	}
	id, aborted := u.id, u.aborted
	u.mu.Unlock()
	u.senders.Done() // (before fail, whose Abort waits for the senders)
	switch {
	case err != nil:
		return u.fail(fmt.Errorf("s3: %s: starting the upload failed after %d attempt(s): %w", u.Name(), attempts, err))
	case id == "":
		return u.fail(fmt.Errorf("s3: %s: the server started an upload without an id", u.Name()))
	case aborted:
		// (the Abort that waited for this aborts the upload)
		return u.fail(fmt.Errorf("s3: %s: the upload was aborted", u.Name()))
	}
	return nil
}

// wait waits for the part being sent, if any, and records it.
func (u *Upload) wait() error {
	if u.inflight == nil {
		return nil
	}
	r := <-u.inflight
	u.inflight = nil
	if r.err != nil {
		return u.fail(fmt.Errorf("s3: %s: part %d (%d bytes at %d) failed after %d attempt(s): %w", u.Name(), len(u.parts)+1, len(r.body), r.off, r.n, r.err))
	}
	u.parts = append(u.parts, r.part)
	u.sent += int64(len(r.body))
	u.spare = r.body
	return nil
}

// Commit sends what is buffered and completes the object.
func (u *Upload) Commit() error {
	if u.err != nil {
		return u.err
	}
	if u.done || u.isAborted() {
		return fmt.Errorf("s3: %s: the upload already ended", u.Name())
	}
	if u.uploadID() == "" {
		// one PUT: the object fits in a part
		attempts, err := u.c.retry.Do(u.ctx, func(ctx context.Context) error {
			_, err := u.c.api.PutObject(ctx, &awss3.PutObjectInput{Bucket: &u.bucket, Key: &u.key,
				Body: bytes.NewReader(u.buf), ContentLength: aws.Int64(int64(len(u.buf)))})
			return err
		})
		if err != nil {
			return u.fail(fmt.Errorf("s3: %s: PUT of %d bytes failed after %d attempt(s): %w", u.Name(), len(u.buf), attempts, err))
		}
		u.commitDone()
		return nil
	}
	if len(u.buf) > 0 {
		if err := u.sendPart(); err != nil {
			return err
		}
	}
	if err := u.wait(); err != nil {
		return err
	}
	sort.Slice(u.parts, func(i, j int) bool { return *u.parts[i].PartNumber < *u.parts[j].PartNumber })
	tries := 0
	attempts, err := u.c.retry.Do(u.ctx, func(ctx context.Context) error {
		tries++
		_, err := u.c.api.CompleteMultipartUpload(ctx, &awss3.CompleteMultipartUploadInput{Bucket: &u.bucket, Key: &u.key,
			UploadId: &u.id, MultipartUpload: &types.CompletedMultipartUpload{Parts: u.parts}})
		return err
	})
	if err != nil {
		var gone *types.NoSuchUpload
		if tries > 1 && errors.As(err, &gone) {
			// an earlier attempt may have completed it, its answer lost
			u.err = fmt.Errorf("s3: %s: completing the upload: the upload is gone after %d attempts; an earlier attempt may have completed it, so check the object: %w", u.Name(), attempts, err)
			u.commitDone() // (nothing left to abort)
			return u.err
		}
		return u.fail(fmt.Errorf("s3: %s: completing the upload of %d parts failed after %d attempt(s): %w", u.Name(), len(u.parts), attempts, err))
	}
	u.commitDone()
	return nil
}

// commitDone records a completed object and releases the upload's
// context, which would otherwise stay registered with its parent (a
// long-lived one keeps every committed upload's) until the parent ends.
func (u *Upload) commitDone() {
	u.done, u.buf = true, nil
	u.mu.Lock()
	u.committed = true
	u.mu.Unlock()
	u.cancel()
}

// fail records err, aborts the upload and returns err.
func (u *Upload) fail(err error) error {
	u.err, u.done, u.buf, u.spare = err, true, nil, nil
	u.Abort()
	if u.inflight != nil {
		<-u.inflight // (cancelled by Abort)
		u.inflight = nil
	}
	return err
}

func (u *Upload) uploadID() string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.id
}

func (u *Upload) isAborted() bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.aborted
}

// Abort discards the upload: the part in flight is cancelled (the request
// starting the upload is waited for, startGrace at most), the parts sent
// are deleted, and the key is left as it was. It may be called
// more than once, and from another goroutine than the one writing. An
// Upload already committed is left alone.
func (u *Upload) Abort() {
	u.mu.Lock()
	if u.aborted || u.committed {
		u.mu.Unlock()
		return
	}
	u.aborted = true
	stopStart := u.stopStart
	u.mu.Unlock()
	u.cancel()
	if stopStart != nil {
		t := time.AfterFunc(startGrace, stopStart)
		defer t.Stop()
	}
	// a part still being sent when the upload is aborted could be stored
	// after the abort: wait for the sender, cancelled above (and for the
	// upload's start, not cancelled, which names the upload to abort)
	u.senders.Wait()
	if id := u.uploadID(); id != "" {
		u.abortID(id)
	}
}

// abortID aborts the multipart upload id, deleting its parts.
func (u *Upload) abortID(id string) {
	// (not bounded by u.ctx, cancelled by now)
	ctx, cancel := context.WithTimeout(context.WithoutCancel(u.ctx), 30*time.Second)
	defer cancel()
	u.c.retry.Do(ctx, func(ctx context.Context) error {
		_, err := u.c.api.AbortMultipartUpload(ctx, &awss3.AbortMultipartUploadInput{Bucket: &u.bucket, Key: &u.key, UploadId: &id})
		var gone *types.NoSuchUpload
		if errors.As(err, &gone) {
			return nil
		}
		return err
	})
}
