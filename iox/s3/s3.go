// Package s3 reads objects of Amazon S3 and S3-compatible stores (MinIO,
// versitygw, SeaweedFS, ...) as iox sources, through the AWS SDK for Go v2.
//
// Credentials, region and endpoint come from the usual AWS configuration
// (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, AWS_REGION,
// AWS_PROFILE, AWS_ENDPOINT_URL / AWS_ENDPOINT_URL_S3, the shared config
// files), each overridable in Config. With an endpoint set the client uses
// path-style addressing (http://host/bucket/key), which S3-compatible
// servers expect, and it computes request checksums only when an operation
// requires them, which such servers may not support otherwise.
//
// Importing the package registers the s3 scheme with iox.Open (and, through
// package remote, http and https), so strata.Open accepts "s3://bucket/key".
package s3

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"

	"strata/iox"
	"strata/iox/remote"
)

func init() {
	iox.Register("s3", func(ctx context.Context, location string) (iox.Source, error) {
		return Open(ctx, location, Config{})
	})
	iox.RegisterGlob("s3", func(ctx context.Context, pattern string) ([]string, error) {
		return Glob(ctx, pattern, Config{})
	})
}

// Config overrides the ambient AWS configuration; zero fields keep it.
type Config struct {
	// Endpoint is the base URL of an S3-compatible server, such as
	// "http://127.0.0.1:7070". Empty means AWS_ENDPOINT_URL_S3, then
	// AWS_ENDPOINT_URL, then Amazon S3 itself.
	Endpoint string
	// Region; empty means AWS_REGION or the shared config, else us-east-1
	// (S3-compatible servers accept any region).
	Region string
	// AccessKeyID and SecretAccessKey (with SessionToken for temporary
	// credentials) replace the credential chain when both are set.
	AccessKeyID, SecretAccessKey, SessionToken string
	// Anonymous sends unsigned requests, for public buckets.
	Anonymous bool
	// HTTPClient sends the requests; nil means one whose transport keeps
	// as many idle connections per host as reads may be in flight.
	HTTPClient *http.Client
	// Retry is the retry policy (the SDK's own retries are turned off so
	// that a read cut short mid-body is retried like any other failure).
	// Attempts 0 means AWS_MAX_ATTEMPTS when it is a whole number of at
	// least 1, as the AWS SDKs read it, else remote.DefaultAttempts.
	Retry remote.Retry
	// Hints override remote.ObjectHints field by field where set.
	Hints iox.Hints
	// OpenTail is how many bytes from the end opening an object reads (0
	// means remote.DefaultOpenTail; negative opens with HEAD).
	OpenTail int64
}

// EndpointFromEnv returns the endpoint the environment names for S3:
// AWS_ENDPOINT_URL_S3, else AWS_ENDPOINT_URL, else "".
func EndpointFromEnv() string {
	if ep := os.Getenv("AWS_ENDPOINT_URL_S3"); ep != "" {
		return ep
	}
	return os.Getenv("AWS_ENDPOINT_URL")
}

// Client opens objects of one S3 service. It is safe for concurrent use
// and meant to be shared by every object read from that service.
type Client struct {
	api      *awss3.Client
	endpoint string // "" for Amazon S3
	retry    remote.Retry
	hints    iox.Hints
	openTail int64
	http     *http.Client
	// closeIdle releases the idle connections of a client NewClient made.
	closeIdle func()
}

// NewClient builds a client from the ambient AWS configuration and cfg.
func NewClient(ctx context.Context, cfg Config) (*Client, error) {
	c := &Client{endpoint: cfg.Endpoint, retry: cfg.Retry, hints: mergeHints(cfg.Hints), http: cfg.HTTPClient, openTail: cfg.OpenTail}
	if c.openTail == 0 {
		c.openTail = remote.DefaultOpenTail
	}
	if c.retry.Attempts == 0 {
		if n, err := strconv.Atoi(os.Getenv("AWS_MAX_ATTEMPTS")); err == nil && n > 0 {
			c.retry.Attempts = n
		}
	}
	if c.endpoint == "" {
		c.endpoint = EndpointFromEnv()
	}
	var httpClient config.HTTPClient = c.http
	if c.http == nil {
		// The SDK's buildable client, so that AWS_CA_BUNDLE still applies,
		// keeping as many idle connections per host as reads in flight
		// (net/http keeps 2, so parallel reads would reconnect each time).
		conns := max(c.hints.InFlight, 2)
		var mu sync.Mutex
		var built []*http.Transport
		httpClient = awshttp.NewBuildableClient().WithTransportOptions(func(t *http.Transport) {
			t.MaxIdleConnsPerHost = conns
			t.MaxIdleConns = max(t.MaxIdleConns, conns)
			t.ResponseHeaderTimeout = remote.DefaultHeaderTimeout
			mu.Lock()
			built = append(built, t)
			mu.Unlock()
		})
		c.closeIdle = func() {
			mu.Lock()
			defer mu.Unlock()
			for _, t := range built {
				t.CloseIdleConnections()
			}
		}
	}
	opts := []func(*config.LoadOptions) error{
		config.WithHTTPClient(httpClient),
		config.WithRetryer(func() aws.Retryer { return aws.NopRetryer{} }),
		config.WithRequestChecksumCalculation(aws.RequestChecksumCalculationWhenRequired),
		config.WithResponseChecksumValidation(aws.ResponseChecksumValidationWhenRequired),
	}
	if cfg.Region != "" {
		opts = append(opts, config.WithRegion(cfg.Region))
	}
	switch {
	case cfg.Anonymous:
		opts = append(opts, config.WithCredentialsProvider(aws.AnonymousCredentials{}))
	case cfg.AccessKeyID != "" && cfg.SecretAccessKey != "":
		opts = append(opts, config.WithCredentialsProvider(
			credentials.NewStaticCredentialsProvider(cfg.AccessKeyID, cfg.SecretAccessKey, cfg.SessionToken)))
	case cfg.AccessKeyID != "" || cfg.SecretAccessKey != "":
		return nil, errors.New("s3: an access key id needs its secret access key, and the other way round")
	}
	awsCfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("s3: loading the AWS configuration: %w", err)
	}
	if awsCfg.Region == "" {
		awsCfg.Region = "us-east-1"
	}
	if awsCfg.Credentials != nil && !cfg.Anonymous {
		awsCfg.Credentials = adviseCredentials{awsCfg.Credentials}
	}
	c.api = awss3.NewFromConfig(awsCfg, func(o *awss3.Options) {
		if c.endpoint != "" {
			o.BaseEndpoint = aws.String(c.endpoint)
			o.UsePathStyle = true
		}
		// Ranged reads carry no whole-object checksum to validate; say so
		// quietly rather than log a warning per read.
		o.DisableLogOutputChecksumValidationSkipped = true
	})
	return c, nil
}

// ErrNoCredentials is wrapped by the error of a request that could not be
// signed because the credential chain found no credentials (or could not
// reach the source it names: the instance metadata service, an SSO
// cache, a credential process).
var ErrNoCredentials = errors.New("no AWS credentials found: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE, or give keys in the Config (the strata CLI: --access-key and --secret-key); a public bucket reads unsigned with Anonymous (--anonymous)")

// adviseCredentials wraps the credential chain so that its failure, which
// the SDK reports as the last provider's (on a machine outside a cloud,
// "no EC2 IMDS role found"), says what is missing and how to give it.
type adviseCredentials struct{ aws.CredentialsProvider }

func (a adviseCredentials) Retrieve(ctx context.Context) (aws.Credentials, error) {
	creds, err := a.CredentialsProvider.Retrieve(ctx)
	if err != nil {
		return creds, fmt.Errorf("%w (%w)", ErrNoCredentials, err)
	}
	return creds, nil
}

func mergeHints(h iox.Hints) iox.Hints {
	if h.Gap == 0 {
		h.Gap = remote.ObjectHints.Gap
	}
	if h.MaxRead == 0 {
		h.MaxRead = remote.ObjectHints.MaxRead
	}
	if h.InFlight == 0 {
		h.InFlight = remote.ObjectHints.InFlight
	}
	return h
}

// API returns the SDK client, for operations this package does not wrap
// (writing objects, listing buckets).
func (c *Client) API() *awss3.Client { return c.api }

// Close releases idle connections of an HTTP client the Client made itself.
func (c *Client) Close() error {
	if c.closeIdle != nil {
		c.closeIdle()
	}
	return nil
}

// ParseURL splits "s3://bucket/key" into bucket and key. The key is
// everything after the bucket's slash, taken literally as the AWS CLI
// takes it: "s3://b/a%20b" names the key "a%20b", and ?, # and % are
// characters of the key, not a query, a fragment or an escape. A URL
// parser would decode or cut such keys, so the locations Glob returns for
// keys holding them would not open.
func ParseURL(location string) (bucket, key string, err error) {
	const scheme = "s3://"
	if len(location) < len(scheme) || !strings.EqualFold(location[:len(scheme)], scheme) {
		return "", "", fmt.Errorf("s3: %q is not of the form s3://bucket/key", location)
	}
	bucket, key, ok := strings.Cut(location[len(scheme):], "/")
	if !ok || bucket == "" || key == "" {
		return "", "", fmt.Errorf("s3: %q is not of the form s3://bucket/key", location)
	}
	return bucket, key, nil
}

// Glob returns the s3://bucket/key locations of the objects whose keys
// match an s3://bucket/pattern location (iox.Glob: * and ? stay within one
// segment of the key, never crossing a /), sorted, with the process's
// client for cfg (see Open). The bucket must be named literally. A
// pattern that matches nothing fails with iox.ErrNoMatch.
func Glob(ctx context.Context, pattern string, cfg Config) ([]string, error) {
	// (not ParseURL: a URL parser takes the pattern's ? for a query)
	const scheme = "s3://"
	if len(pattern) < len(scheme) || !strings.EqualFold(pattern[:len(scheme)], scheme) {
		return nil, fmt.Errorf("s3: %q is not of the form s3://bucket/pattern", pattern)
	}
	bucket, keyPattern, ok := strings.Cut(pattern[len(scheme):], "/")
	if !ok || bucket == "" || keyPattern == "" {
		return nil, fmt.Errorf("s3: %q is not of the form s3://bucket/pattern", pattern)
	}
	c, err := sharedClient(ctx, cfg)
	if err != nil {
		return nil, err
	}
	keys, err := c.Glob(ctx, bucket, keyPattern)
	if err != nil {
		return nil, err
	}
	if len(keys) == 0 {
		// as iox.Glob says it, so that a caller (the CLI calls this
		// directly, for its flags) never takes an empty list for a table
		return nil, fmt.Errorf("%q: %w", pattern, iox.ErrNoMatch)
	}
	for i, k := range keys {
		keys[i] = "s3://" + bucket + "/" + k
	}
	return keys, nil
}

// listPageSize, when positive, is the most keys a listing page asks for
// (the server's own limit otherwise, 1,000 on S3); tests make it small to
// reach the continuation of a listing.
var listPageSize int32

// Glob returns the keys of bucket that match pattern (path.Match), sorted.
// It lists the keys that start with the pattern's literal prefix, a page
// of up to 1,000 a request, each page retried as reads are.
func (c *Client) Glob(ctx context.Context, bucket, pattern string) ([]string, error) {
	if iox.HasPattern(bucket) {
		return nil, fmt.Errorf("s3: bucket %q: a pattern may not name the bucket", bucket)
	}
	if _, err := iox.MatchKey(pattern, ""); err != nil {
		return nil, fmt.Errorf("s3: %w", err)
	}
	prefix := iox.PatternPrefix(pattern)
	in := &awss3.ListObjectsV2Input{Bucket: &bucket, Prefix: &prefix}
	if listPageSize > 0 {
		in.MaxKeys = aws.Int32(listPageSize)
	}
	var keys []string
	for {
		var out *awss3.ListObjectsV2Output
		attempts, err := c.retry.Do(ctx, func(ctx context.Context) error {
			var err error
			out, err = c.api.ListObjectsV2(ctx, in)
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("s3: listing s3://%s/%s failed after %d attempt(s): %w", bucket, prefix, attempts, err)
		}
		for _, o := range out.Contents {
			k := aws.ToString(o.Key)
			if ok, _ := path.Match(pattern, k); ok { // (the pattern is checked above)
				keys = append(keys, k)
			}
		}
		if !aws.ToBool(out.IsTruncated) {
			break
		}
		next := aws.ToString(out.NextContinuationToken)
		if next == "" || next == aws.ToString(in.ContinuationToken) {
			return nil, fmt.Errorf("s3: listing s3://%s/%s: a truncated page without a new continuation token: %w", bucket, prefix, remote.ErrBadResponse)
		}
		in.ContinuationToken = out.NextContinuationToken
	}
	sort.Strings(keys)
	return keys, nil
}

// Open opens the object at an s3://bucket/key location with the process's
// client for cfg (sharedClient), so that the objects of a pattern, and the
// listing that found them, reuse its connections and credentials.
func Open(ctx context.Context, location string, cfg Config) (*Object, error) {
	bucket, key, err := ParseURL(location)
	if err != nil {
		return nil, err
	}
	c, err := sharedClient(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return c.Open(ctx, bucket, key)
}

// Clients shared by Open and Glob. A Client built per object paid, per
// object, for loading the AWS configuration (the credential chain, which
// on a cloud machine asks the instance metadata service), and for a new
// connection: over TLS, two round trips before the first byte of the
// object, and a pattern of hundreds of objects opens hundreds.
//
// A client is shared by the calls whose Config is the same and that see
// the same AWS_* environment variables (which NewClient reads), so a
// program that changes its endpoint or credentials through the
// environment gets a new client. At most maxSharedClients are kept; the
// least recently used one beyond that has its idle connections closed.
var (
	sharedMu      sync.Mutex
	sharedClients = map[sharedKey]*sharedEntry{}
	sharedTick    int64
)

type sharedKey struct {
	cfg Config
	env string // the AWS_* environment, sorted
}

type sharedEntry struct {
	c    *Client
	used int64
}

const maxSharedClients = 16

// sharedClient returns the process's client for cfg and the current AWS
// environment, building it the first time.
func sharedClient(ctx context.Context, cfg Config) (*Client, error) {
	k := sharedKey{cfg: cfg, env: awsEnv()}
	sharedMu.Lock()
	defer sharedMu.Unlock()
	sharedTick++
	if e, ok := sharedClients[k]; ok {
		e.used = sharedTick
		return e.c, nil
	}
	c, err := NewClient(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if len(sharedClients) >= maxSharedClients {
		var oldest sharedKey
		var at int64 = -1
		for key, e := range sharedClients {
			if at < 0 || e.used < at {
				oldest, at = key, e.used
			}
		}
		sharedClients[oldest].c.Close() // its objects still read, reconnecting as needed
		delete(sharedClients, oldest)
	}
	sharedClients[k] = &sharedEntry{c: c, used: sharedTick}
	return c, nil
}

// awsEnv returns the process's AWS_* environment variables, sorted, as
// one string.
func awsEnv() string {
	var vs []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "AWS_") {
			vs = append(vs, kv)
		}
	}
	sort.Strings(vs)
	return strings.Join(vs, "\x00")
}

// Object is an S3 object read as an iox.Source with ranged GETs. Opening it
// costs one request (see Client.Open), which fixes its size and ETag; every
// read sends the ETag as If-Match, so an object overwritten under the same key fails
// with remote.ErrChanged instead of mixing old and new bytes. It is safe
// for concurrent use.
type Object struct {
	c           *Client
	bucket, key string
	size        int64
	etag        string
	modified    time.Time
	tail        *remote.Tail // the object's end, read when it was opened
	count       remote.Counters
}

// Open opens an object with one request: a GET of its last OpenTail bytes
// (remote.DefaultOpenTail), which tells its size and ETag as a HEAD would
// and whose bytes answer later reads of that range (a Strata file's footer)
// without another request. With OpenTail negative it sends a HEAD.
func (c *Client) Open(ctx context.Context, bucket, key string) (*Object, error) {
	o := &Object{c: c, bucket: bucket, key: key}
	var err error
	if c.openTail > 0 {
		err = o.openTail(ctx, c.openTail)
	}
	if c.openTail <= 0 || errors.Is(err, errNoSuffix) {
		err = o.openHead(ctx)
	}
	if err != nil {
		return nil, err
	}
	return o, nil
}

// OpenKnown opens an object whose size and ETag the caller already knows
// (from a listing, a serialized split, an earlier open) without any
// request. Reads still send the ETag, so they fail with remote.ErrChanged
// if the object is no longer that version.
func (c *Client) OpenKnown(bucket, key string, k remote.Known) *Object {
	return &Object{c: c, bucket: bucket, key: key, size: k.Size, etag: k.ETag}
}

var errNoSuffix = errors.New("no suffix range")

// openTail learns the size and ETag from a GET of the last n bytes, keeping
// the bytes.
func (o *Object) openTail(ctx context.Context, n int64) error {
	tries := 0
	attempts, err := o.c.retry.Do(ctx, func(ctx context.Context) error {
		tries++
		o.count.Request(tries > 1)
		out, err := o.c.api.GetObject(ctx, &awss3.GetObjectInput{Bucket: &o.bucket, Key: &o.key,
			Range: aws.String(remote.SuffixHeader(n))})
		if err != nil {
			var status interface{ HTTPStatusCode() int }
			if errors.As(err, &status) && status.HTTPStatusCode() == http.StatusRequestedRangeNotSatisfiable {
				return errNoSuffix // an empty object
			}
			return err
		}
		defer out.Body.Close()
		length := int64(-1)
		if out.ContentLength != nil {
			length = *out.ContentLength
		}
		if out.ContentRange == nil {
			// A server that ignored the range: its answer's length cannot
			// be trusted as the size (a proxy may have cut it); ask HEAD.
			return errNoSuffix
		}
		size, err := remote.CheckSuffix(*out.ContentRange, length, n)
		if err != nil {
			return err
		}
		data := make([]byte, min(n, size))
		if _, err := io.ReadFull(out.Body, data); err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return fmt.Errorf("response body cut short: %w", err)
		}
		o.size = size
		o.tail = &remote.Tail{Off: size - int64(len(data)), Data: data}
		o.setMeta(out.ETag, out.LastModified)
		return nil
	})
	if err != nil && !errors.Is(err, errNoSuffix) {
		return fmt.Errorf("s3: %s: opening (GET of the last %d bytes) failed after %d attempt(s): %w", o.Name(), n, attempts, err)
	}
	return err
}

// openHead learns the size and ETag with a HEAD request.
func (o *Object) openHead(ctx context.Context) error {
	var head *awss3.HeadObjectOutput
	tries := 0
	attempts, err := o.c.retry.Do(ctx, func(ctx context.Context) error {
		tries++
		o.count.Request(tries > 1)
		out, err := o.c.api.HeadObject(ctx, &awss3.HeadObjectInput{Bucket: &o.bucket, Key: &o.key})
		if err != nil {
			return err
		}
		head = out
		return nil
	})
	if err != nil {
		return fmt.Errorf("s3: %s: HEAD failed after %d attempt(s): %w", o.Name(), attempts, err)
	}
	if head.ContentLength == nil || *head.ContentLength < 0 {
		return fmt.Errorf("s3: %s: HEAD gave no length: %w", o.Name(), remote.ErrBadResponse)
	}
	o.size = *head.ContentLength
	o.setMeta(head.ETag, head.LastModified)
	return nil
}

func (o *Object) setMeta(etag *string, modified *time.Time) {
	if etag != nil && !strings.HasPrefix(*etag, "W/") {
		o.etag = *etag
	}
	if modified != nil {
		o.modified = *modified
	}
}

// Name returns the object's location, "s3://bucket/key".
func (o *Object) Name() string { return "s3://" + o.bucket + "/" + o.key }

// Size returns the object's length when it was opened.
func (o *Object) Size() int64 { return o.size }

// ETag returns the object's ETag when it was opened ("" if the server gave
// none).
func (o *Object) ETag() string { return o.etag }

// Hints returns the object's read shape (remote.ObjectHints unless the
// client's Config overrides them).
func (o *Object) Hints() iox.Hints { return o.c.hints }

// Identity names the object by endpoint, location, size and ETag; it is
// empty when the server gave no ETag.
func (o *Object) Identity() string {
	if o.etag == "" {
		return ""
	}
	ep := o.c.endpoint
	if ep == "" {
		ep = "aws"
	}
	return fmt.Sprintf("%s endpoint=%s etag=%s size=%d", o.Name(), ep, o.etag, o.size)
}

// Stats returns the requests made for this object so far, the opening
// request included.
func (o *Object) Stats() remote.Stats { return o.count.Stats() }

// Close does nothing: an object holds no resource of its own (its client's
// connections are the client's, shared with the other objects it opened).
// It lets an Object be closed as the sources of other schemes are.
func (o *Object) Close() error { return nil }

// ReadAt reads len(p) bytes at off with one ranged GET (more when one
// fails and is retried). A read reaching past the end returns the bytes up
// to it with io.EOF. A failure is a *remote.Error naming the object and
// range; the bytes in p are then unspecified.
func (o *Object) ReadAt(ctx context.Context, p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, fmt.Errorf("%s: negative offset %d: %w", o.Name(), off, iox.ErrOutOfRange)
	}
	if len(p) == 0 {
		return 0, nil
	}
	if off >= o.size {
		return 0, io.EOF
	}
	r := iox.Range{Off: off, Len: min(int64(len(p)), o.size-off)}
	buf := p[:r.Len]
	if !o.tail.Serve(buf, off) {
		tries := 0
		attempts, err := o.c.retry.Do(ctx, func(ctx context.Context) error {
			tries++
			return o.get(ctx, r, buf, tries > 1)
		})
		if err != nil {
			return 0, &remote.Error{Object: o.Name(), Range: r, Attempts: attempts, Err: err}
		}
		o.count.Bytes(r.Len)
	}
	if r.Len < int64(len(p)) {
		return int(r.Len), io.EOF
	}
	return int(r.Len), nil
}

// get makes one ranged GET for r into buf and checks that the response
// carries exactly r.
func (o *Object) get(ctx context.Context, r iox.Range, buf []byte, retry bool) error {
	in := &awss3.GetObjectInput{Bucket: &o.bucket, Key: &o.key, Range: aws.String(remote.RangeHeader(r))}
	if o.etag != "" {
		in.IfMatch = &o.etag
	}
	o.count.Request(retry)
	out, err := o.c.api.GetObject(ctx, in)
	if err != nil {
		var status interface{ HTTPStatusCode() int }
		if errors.As(err, &status) && status.HTTPStatusCode() == http.StatusPreconditionFailed {
			return fmt.Errorf("%w: %v", remote.ErrChanged, err)
		}
		return err
	}
	defer out.Body.Close()
	if out.ContentRange == nil {
		// The server sent the whole object: usable only if that was asked.
		if r.Off != 0 || r.Len != o.size || aws.ToInt64(out.ContentLength) != o.size {
			return fmt.Errorf("the server ignored the Range request (no Content-Range, %d bytes): %w",
				aws.ToInt64(out.ContentLength), remote.ErrBadResponse)
		}
	} else {
		length := int64(-1)
		if out.ContentLength != nil {
			length = *out.ContentLength
		}
		if err := remote.CheckPartial(*out.ContentRange, length, r, o.size); err != nil {
			return err
		}
	}
	if o.etag != "" && out.ETag != nil && *out.ETag != o.etag {
		return fmt.Errorf("ETag %s, was %s when opened: %w", *out.ETag, o.etag, remote.ErrChanged)
	}
	if _, err := io.ReadFull(out.Body, buf); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return fmt.Errorf("response body cut short: %w", err)
	}
	return nil
}
