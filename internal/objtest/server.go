// Package objtest runs a real S3-compatible object store for tests and
// benchmarks, and a fault-injecting HTTP proxy to put in front of it.
//
// The store is versitygw (a Go S3 gateway) over its POSIX backend in a
// temporary directory, listening on 127.0.0.1. Its binary is found, in
// order, at $STRATA_VERSITYGW, in the tools cache ($STRATA_TOOLS_DIR, else
// the user cache directory under strata-tools/), or built there once with
// `go install` from the Go module proxy. When it can be neither found nor
// built, tests that need it fail, unless STRATA_S3_TESTS=skip, which turns
// the failure into a skip for machines without network access.
package objtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"

	"strata/iox/s3"
)

// Version is the versitygw release the tests run.
const Version = "v1.8.0"

// Module is the Go package path of the versitygw command.
const Module = "github.com/versity/versitygw/cmd/versitygw"

// Server is a running versitygw.
type Server struct {
	Endpoint  string // "http://127.0.0.1:port"
	AccessKey string
	SecretKey string
	Region    string
	Dir       string // the POSIX backend's root: one directory per bucket
	cmd       *exec.Cmd
	done      chan struct{}
	logs      *bytes.Buffer
}

// ToolsDir returns the directory where built tools are cached.
func ToolsDir() (string, error) {
	if d := os.Getenv("STRATA_TOOLS_DIR"); d != "" {
		return d, nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "strata-tools"), nil
}

// Binary returns the path of the versitygw binary, building it into the
// tools cache on first use. logf, if not nil, hears about a build.
func Binary(logf func(string, ...any)) (string, error) {
	if p := os.Getenv("STRATA_VERSITYGW"); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("STRATA_VERSITYGW: %w", err)
		}
		return p, nil
	}
	tools, err := ToolsDir()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(tools, "versitygw-"+Version)
	bin := filepath.Join(dir, "versitygw")
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	// Build into a private directory, then rename: concurrent test
	// processes may race to build, and the rename is atomic.
	tmp, err := os.MkdirTemp(dir, "build-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	if logf != nil {
		logf("building versitygw %s with go install (once; cached in %s)", Version, dir)
	}
	gobin := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(gobin); err != nil {
		gobin = "go"
	}
	cmd := exec.Command(gobin, "install", Module+"@"+Version)
	cmd.Env = append(os.Environ(), "GOBIN="+tmp, "GOFLAGS=", "CGO_ENABLED=0")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go install %s@%s: %v\n%s", Module, Version, err, out)
	}
	if err := os.Rename(filepath.Join(tmp, "versitygw"), bin); err != nil {
		if _, serr := os.Stat(bin); serr != nil {
			return "", err
		}
	}
	return bin, nil
}

// Start starts versitygw with its POSIX backend rooted in dir, on a free
// port of 127.0.0.1, and waits until it answers.
func Start(bin, dir string) (*Server, error) {
	root := filepath.Join(dir, "root")
	side := filepath.Join(dir, "meta")
	for _, d := range []string{root, side} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	s := &Server{AccessKey: "strata-test-access", SecretKey: "strata-test-secret-key", Region: "us-east-1",
		Dir: root, done: make(chan struct{}), logs: &bytes.Buffer{}}
	var lastErr error
	for try := 0; try < 5; try++ {
		port, err := freePort()
		if err != nil {
			return nil, err
		}
		addr := fmt.Sprintf("127.0.0.1:%d", port)
		s.Endpoint = "http://" + addr
		s.logs.Reset()
		// Metadata (ETags among it) goes to a sidecar directory, so the
		// backend does not depend on extended attributes of the file system.
		s.cmd = exec.Command(bin, "--access", s.AccessKey, "--secret", s.SecretKey, "--region", s.Region,
			"--port", addr, "--quiet", "posix", "--sidecar", side, root)
		s.cmd.Stdout, s.cmd.Stderr = s.logs, s.logs
		s.cmd.Env = append(os.Environ(), "VGW_QUIET=true")
		if err := startChild(s.cmd); err != nil {
			return nil, fmt.Errorf("starting versitygw: %w", err)
		}
		s.done = make(chan struct{})
		go func(cmd *exec.Cmd, done chan struct{}) { cmd.Wait(); close(done) }(s.cmd, s.done)
		if lastErr = s.waitReady(20 * time.Second); lastErr == nil {
			return s, nil
		}
		s.Stop()
	}
	return nil, lastErr
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func (s *Server) waitReady(limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		select {
		case <-s.done:
			return fmt.Errorf("versitygw exited at start: %s", strings.TrimSpace(s.logs.String()))
		default:
		}
		resp, err := http.Get(s.Endpoint + "/")
		if err == nil {
			resp.Body.Close()
			return nil // any HTTP answer (403 without credentials) means it is up
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("versitygw did not answer on %s within %v: %s", s.Endpoint, limit, s.logs.String())
}

// Stop ends the server process (the one this Server started) and waits
// for it.
func (s *Server) Stop() {
	if s.cmd == nil || s.cmd.Process == nil {
		return
	}
	select {
	case <-s.done:
		return
	default:
	}
	s.cmd.Process.Signal(os.Interrupt)
	select {
	case <-s.done:
	case <-time.After(5 * time.Second):
		s.cmd.Process.Kill()
		<-s.done
	}
}

// Config returns an s3.Config that reaches the server at endpoint (the
// server's own, or a proxy's in front of it) with the server's
// credentials.
func (s *Server) Config(endpoint string) s3.Config {
	if endpoint == "" {
		endpoint = s.Endpoint
	}
	return s3.Config{Endpoint: endpoint, Region: s.Region, AccessKeyID: s.AccessKey, SecretAccessKey: s.SecretKey}
}

// Env returns environment assignments that point AWS clients (the strata
// CLI among them) at endpoint with the server's credentials.
func (s *Server) Env(endpoint string) []string {
	if endpoint == "" {
		endpoint = s.Endpoint
	}
	return []string{"AWS_ENDPOINT_URL=" + endpoint, "AWS_ACCESS_KEY_ID=" + s.AccessKey,
		"AWS_SECRET_ACCESS_KEY=" + s.SecretKey, "AWS_REGION=" + s.Region,
		"AWS_EC2_METADATA_DISABLED=true", "AWS_CONFIG_FILE=" + os.DevNull, "AWS_SHARED_CREDENTIALS_FILE=" + os.DevNull}
}

// Put creates bucket if needed and stores data under key.
func (s *Server) Put(ctx context.Context, bucket, key string, data []byte) error {
	c, err := s3.NewClient(ctx, s.Config(""))
	if err != nil {
		return err
	}
	defer c.Close()
	api := c.API()
	if _, err := api.CreateBucket(ctx, &awss3.CreateBucketInput{Bucket: &bucket}); err != nil {
		var owned interface{ ErrorCode() string }
		if !errors.As(err, &owned) || (owned.ErrorCode() != "BucketAlreadyOwnedByYou" && owned.ErrorCode() != "BucketAlreadyExists") {
			return fmt.Errorf("create bucket %s: %w", bucket, err)
		}
	}
	_, err = api.PutObject(ctx, &awss3.PutObjectInput{Bucket: &bucket, Key: &key, Body: bytes.NewReader(data),
		ContentLength: aws.Int64(int64(len(data)))})
	if err != nil {
		return fmt.Errorf("put s3://%s/%s: %w", bucket, key, err)
	}
	return nil
}

var (
	sharedOnce sync.Once
	shared     *Server
	sharedErr  error
	sharedDir  string
)

// Need returns the package's shared server, starting it on first use. It
// fails the test when the server cannot run, or skips it when
// STRATA_S3_TESTS=skip. Call Main from TestMain so the server stops.
func Need(t testing.TB) *Server {
	t.Helper()
	sharedOnce.Do(func() {
		bin, err := Binary(func(f string, a ...any) { t.Logf(f, a...) })
		if err != nil {
			sharedErr = err
			return
		}
		sharedDir, err = os.MkdirTemp("", "strata-s3-")
		if err != nil {
			sharedErr = err
			return
		}
		shared, sharedErr = Start(bin, sharedDir)
	})
	if sharedErr != nil {
		if os.Getenv("STRATA_S3_TESTS") == "skip" {
			t.Skipf("no S3 server (STRATA_S3_TESTS=skip): %v", sharedErr)
		}
		t.Fatalf("cannot run the versitygw S3 server the object-storage tests need: %v\n"+
			"(set STRATA_VERSITYGW to a binary, or STRATA_S3_TESTS=skip to skip these tests on a machine that cannot build it)", sharedErr)
	}
	return shared
}

// Main runs the tests and stops the shared server afterwards.
func Main(m *testing.M) int {
	code := m.Run()
	if shared != nil {
		shared.Stop()
	}
	if sharedDir != "" {
		os.RemoveAll(sharedDir)
	}
	return code
}
