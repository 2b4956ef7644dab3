package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	pathpkg "path"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"strata"
	"strata/encoding"
	"strata/interop"
	"strata/iox"
	"strata/iox/remote"
	"strata/iox/s3"
	"strata/timeseries"
)

// storeFlags are the object-storage settings every reading command takes.
// Each defaults to the usual AWS environment variable.
type storeFlags struct {
	endpoint, region, accessKey, secretKey *string
	anonymous                              *bool
	attempts                               positiveInt
	requestTimeout                         positiveDuration
}

func addStoreFlags(fs *flag.FlagSet) *storeFlags {
	sf := &storeFlags{
		endpoint:  fs.String("endpoint", "", "S3-compatible endpoint URL for s3:// paths (default $AWS_ENDPOINT_URL_S3 or $AWS_ENDPOINT_URL; path-style addressing)"),
		region:    fs.String("region", "", "region for s3:// paths (default $AWS_REGION, else us-east-1)"),
		accessKey: fs.String("access-key", "", "access key id for s3:// paths (default $AWS_ACCESS_KEY_ID or the AWS config files)"),
		secretKey: fs.String("secret-key", "", "secret access key for s3:// paths (default $AWS_SECRET_ACCESS_KEY; prefer the environment, flags show in ps)"),
		anonymous: fs.Bool("anonymous", false, "send unsigned requests (public buckets)"),
	}
	fs.Var(&sf.attempts, "attempts", fmt.Sprintf("`n` tries of each s3:// or http(s) request, the first included (default $AWS_MAX_ATTEMPTS for s3://, else %d)", remote.DefaultAttempts))
	fs.Var(&sf.requestTimeout, "request-timeout", fmt.Sprintf("`duration` bounding one try of an s3:// or http(s) request, its response read whole, before it is retried (default %v; a try also fails after %v without a response's headers)", remote.DefaultAttemptTimeout, remote.DefaultHeaderTimeout))
	return sf
}

// retry is the retry policy the flags give (zero fields: the defaults).
func (sf *storeFlags) retry() remote.Retry {
	return remote.Retry{Attempts: int(sf.attempts), AttemptTimeout: time.Duration(sf.requestTimeout)}
}

// positiveInt is an int flag that must be at least 1 when given.
type positiveInt int

func (v *positiveInt) String() string { return strconv.Itoa(int(*v)) }

func (v *positiveInt) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return errors.New("want a whole number of at least 1")
	}
	*v = positiveInt(n)
	return nil
}

// positiveDuration is a duration flag that must be above zero when given.
type positiveDuration time.Duration

func (v *positiveDuration) String() string { return time.Duration(*v).String() }

func (v *positiveDuration) Set(s string) error {
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return errors.New("want a duration above zero, such as 30s or 2m")
	}
	*v = positiveDuration(d)
	return nil
}

// openSource opens a local path, an s3://bucket/key object or an http(s)
// URL. The caller closes the source when it is an io.Closer.
func openSource(ctx context.Context, path string, sf *storeFlags) (iox.Source, error) {
	switch iox.Scheme(path) {
	case "s3":
		return s3.Open(ctx, path, sf.s3Config())
	case "http", "https":
		return remote.OpenHTTP(ctx, path, remote.HTTPOptions{Retry: sf.retry()})
	}
	return iox.Open(ctx, path)
}

// globPaths expands a pattern of local files or s3:// objects (iox.Glob),
// listing buckets with the command's object-storage flags.
func globPaths(ctx context.Context, pattern string, sf *storeFlags) ([]string, error) {
	if iox.HasPattern(pattern) && iox.Scheme(pattern) == "s3" {
		return s3.Glob(ctx, pattern, sf.s3Config())
	}
	if iox.HasPattern(pattern) && iox.Scheme(pattern) == "" {
		// (a file that exists under the pattern's own name is read as
		// named; a path that names no file gets openFile's advice)
		if _, err := os.Stat(pattern); err == nil {
			return []string{pattern}, nil
		}
	}
	return iox.Glob(ctx, pattern)
}

// createSink starts the upload of a remote destination (s3://, with the
// command's object-storage flags, or the environment's when sf is nil),
// or returns nil for a local path, which the writers create themselves
// under a temporary name. The upload is aborted if the process is
// interrupted before it completes (abortUploads).
func createSink(ctx context.Context, path string, sf *storeFlags) (iox.Sink, error) {
	switch iox.Scheme(path) {
	case "", "file":
		return nil, nil
	case "s3":
		if sf == nil {
			sf = addStoreFlags(flag.NewFlagSet("", flag.ContinueOnError))
		}
		u, err := s3.Create(ctx, path, sf.s3Config())
		if err != nil {
			return nil, err
		}
		uploadsMu.Lock()
		uploads = append(uploads, u)
		uploadsMu.Unlock()
		return u, nil
	}
	return iox.Create(ctx, path) // (says which schemes are read only)
}

// uploads are the uploads the command started; abortUploads aborts those
// not completed, so that an interrupted command leaves no multipart upload
// whose parts the store keeps (and bills) until a lifecycle rule ends it.
var (
	uploadsMu sync.Mutex
	uploads   []*s3.Upload
)

func abortUploads() {
	uploadsMu.Lock()
	defer uploadsMu.Unlock()
	for _, u := range uploads {
		u.Abort() // (a completed upload is left alone)
	}
}

// createTimeSeries starts a time-series table at a local path or a remote
// location.
func createTimeSeries(ctx context.Context, path string, sf *storeFlags, sch *arrow.Schema, m timeseries.Model, opts *timeseries.WriterOptions) (*timeseries.Writer, error) {
	sink, err := createSink(ctx, path, sf)
	if err != nil {
		return nil, err
	}
	if sink == nil {
		return timeseries.Create(path, sch, m, opts)
	}
	return timeseries.CreateSink(sink, sch, m, opts)
}

// createStrata starts a Strata file at a local path or a remote location.
func createStrata(ctx context.Context, path string, sf *storeFlags, sch *arrow.Schema, opts *strata.WriteOptions) (*strata.Writer, error) {
	sink, err := createSink(ctx, path, sf)
	if err != nil {
		return nil, err
	}
	if sink == nil {
		return strata.Create(path, sch, opts)
	}
	return strata.CreateSink(sink, sch, opts)
}

// createExport starts a file of path's format at a local path or a remote
// location.
func createExport(ctx context.Context, path string, sf *storeFlags, sch *arrow.Schema, opts interop.WriteOptions) (interop.Sink, error) {
	if _, err := interop.FormatOf(path); err != nil {
		return nil, err
	}
	sink, err := createSink(ctx, path, sf)
	if err != nil {
		return nil, err
	}
	if sink == nil {
		return interop.Create(path, sch, opts)
	}
	return interop.CreateSink(sink, path, sch, opts)
}

// s3Config is the S3 configuration the flags give.
func (sf *storeFlags) s3Config() s3.Config {
	cfg := s3.Config{Endpoint: *sf.endpoint, Region: *sf.region, Anonymous: *sf.anonymous,
		AccessKeyID: *sf.accessKey, SecretAccessKey: *sf.secretKey, Retry: sf.retry()}
	if cfg.AccessKeyID == "" && cfg.SecretAccessKey != "" || cfg.AccessKeyID != "" && cfg.SecretAccessKey == "" {
		// One from a flag, the other from the environment.
		cfg.AccessKeyID = firstSet(cfg.AccessKeyID, os.Getenv("AWS_ACCESS_KEY_ID"))
		cfg.SecretAccessKey = firstSet(cfg.SecretAccessKey, os.Getenv("AWS_SECRET_ACCESS_KEY"))
	}
	return cfg
}

func firstSet(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// openTable opens a Parquet, CSV or Arrow IPC table at a local path or an
// s3:// or http(s) URL; sf nil means the environment's settings.
func openTable(ctx context.Context, path string, sf *storeFlags, ro interop.ReadOptions) (interop.RecordReader, error) {
	if strings.EqualFold(pathpkg.Ext(path), ".strata") {
		return openStrataTable(ctx, path, sf, ro.Threads)
	}
	if iox.Scheme(path) == "" {
		return interop.Open(path, ro)
	}
	if sf == nil {
		sf = addStoreFlags(flag.NewFlagSet("", flag.ContinueOnError))
	}
	src, err := openSource(ctx, path, sf)
	if err != nil {
		return nil, err
	}
	c, _ := src.(io.Closer)
	rr, err := interop.OpenReaderAt(path, iox.ReaderAt(ctx, src), src.Size(), c, ro)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return rr, nil
}

// openedFile is a Strata file with the remote source it reads from (nil
// for a local file, which the File closes itself).
type openedFile struct {
	*strata.File
	src iox.Source
}

// openStrata opens a Strata file at a local path (with openFile's advice
// on errors) or a URL.
func openStrata(ctx context.Context, path string, sf *storeFlags) (*openedFile, error) {
	return openStrataWith(ctx, path, sf, strata.OpenOptions{})
}

// openStrataWith is openStrata with options (--threads).
func openStrataWith(ctx context.Context, path string, sf *storeFlags, opts strata.OpenOptions) (*openedFile, error) {
	if iox.Scheme(path) == "" {
		f, err := openFileWith(path, opts)
		if err != nil {
			return nil, err
		}
		return &openedFile{File: f}, nil
	}
	src, err := openSource(ctx, path, sf)
	if err != nil {
		return nil, err
	}
	f, err := strata.OpenSourceWith(src, opts)
	if err != nil {
		// (the advice openFile gives for a local Parquet or Arrow file)
		var kind string
		if errors.Is(err, encoding.ErrCorrupt) {
			kind = sniffSource(ctx, src)
		}
		closeSource(src)
		if kind != "" {
			return nil, &adviceError{msg: fmt.Sprintf("%s is %s, not a Strata file; convert it first with: strata import %s OUT.strata", path, kind, path), err: err}
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &openedFile{File: f, src: src}, nil
}

func (f *openedFile) Close() error {
	err := f.File.Close()
	if f.src != nil {
		return closeSource(f.src)
	}
	return err
}

// Size returns the file's size in bytes.
func (f *openedFile) Size() int64 { return f.File.Size() }

// requestLine describes the requests a remote source made ("" for a
// local file). Opening is a GET of the object's tail (a HEAD only where
// that cannot be used), and remote.Stats counts the bytes reads took
// from responses, not the opening's, so the line says both as they are.
func (f *openedFile) requestLine() string {
	s, ok := f.src.(interface{ Stats() remote.Stats })
	if !ok {
		return ""
	}
	st := s.Stats()
	return fmt.Sprintf("requests %d (retries %d, the opening request included), bytes read by requests after it %d", st.Requests, st.Retries, st.BytesRead)
}

func closeSource(src iox.Source) error {
	if c, ok := src.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// strataTable reads a Strata file as an import source: its rows in
// order, every column, so that import can rewrite files (many small
// ones compacted into one, or with other options).
type strataTable struct {
	f   *openedFile
	sc  *strata.Scanner
	sch *arrow.Schema
	n   int64
}

func openStrataTable(ctx context.Context, path string, sf *storeFlags, threads int) (*strataTable, error) {
	f, err := openStrataWith(ctx, path, sf, strata.OpenOptions{Parallelism: threads})
	if err != nil {
		return nil, err
	}
	sc, err := f.Scan(strata.ScanOptions{})
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &strataTable{f: f, sc: sc, sch: sc.Schema()}, nil
}

func (t *strataTable) Schema() *arrow.Schema { return t.sch }

func (t *strataTable) Next() (arrow.Record, error) {
	rec, err := t.sc.Next()
	if err == nil {
		t.n += rec.NumRows()
	}
	return rec, err
}

func (t *strataTable) Close() error {
	t.sc.Close()
	return t.f.Close()
}

// Extent reports the rows read against the file's (interop.ExtentOf).
func (t *strataTable) Extent() (int64, int64, string) { return t.n, t.f.NumRows(), "rows" }

// sourceMetadata is the metadata an import of rr keeps for export: for a
// Strata source its own (the types its source had), else what
// interop.SourceMetadata finds.
func sourceMetadata(rr interop.RecordReader) (map[string]string, error) {
	if t, ok := rr.(*strataTable); ok {
		return t.f.Metadata(), nil
	}
	return interop.SourceMetadata(rr)
}
