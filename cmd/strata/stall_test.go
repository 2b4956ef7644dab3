package main

import (
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"strata/iox/remote"
)

// stalledServer accepts connections and never answers, as a store behind a
// hung proxy does. It counts the connections it took: each try of a
// request that times out is made on a new one.
type stalledServer struct {
	ln    net.Listener
	conns atomic.Int64
	mu    sync.Mutex
	held  []net.Conn
}

func newStalledServer(t *testing.T) *stalledServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &stalledServer{ln: ln}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.conns.Add(1)
			s.mu.Lock()
			s.held = append(s.held, c)
			s.mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		s.mu.Lock()
		for _, c := range s.held {
			c.Close()
		}
		s.mu.Unlock()
	})
	return s
}

func (s *stalledServer) url() string { return "http://" + s.ln.Addr().String() }

// TestRemoteStalledServer checks that a store that accepts connections and
// never answers fails a command after --attempts tries bounded by
// --request-timeout (or AWS_MAX_ATTEMPTS tries for s3://), with an error
// that says so, instead of holding the command for minutes.
func TestRemoteStalledServer(t *testing.T) {
	t.Setenv("AWS_ACCESS_KEY_ID", "ak")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "sk")
	t.Setenv("AWS_REGION", "us-east-1")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	t.Setenv("AWS_MAX_ATTEMPTS", "")
	for _, c := range []struct {
		name     string
		maxEnv   string
		args     func(url string) []string
		attempts int
	}{
		{"http", "", func(u string) []string {
			return []string{"inspect", u + "/x.strata", "--attempts", "2", "--request-timeout", "200ms"}
		}, 2},
		{"s3 flags", "", func(u string) []string {
			return []string{"cat", "s3://b/x.strata", "--endpoint", u, "--attempts", "3", "--request-timeout", "200ms"}
		}, 3},
		{"s3 AWS_MAX_ATTEMPTS", "2", func(u string) []string {
			return []string{"scan", "s3://b/x.strata", "--endpoint", u, "--request-timeout", "200ms"}
		}, 2},
		{"s3 flag over AWS_MAX_ATTEMPTS", "4", func(u string) []string {
			return []string{"agg", "s3://b/x.strata", "count(*)", "--endpoint", u, "--attempts", "1", "--request-timeout", "200ms"}
		}, 1},
		// (no --attempts: the flag would win over the variable anyway)
		{"http ignores AWS_MAX_ATTEMPTS", "1", func(u string) []string {
			return []string{"verify", u + "/x.strata", "--request-timeout", "200ms"}
		}, remote.DefaultAttempts},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("AWS_MAX_ATTEMPTS", c.maxEnv)
			srv := newStalledServer(t)
			args := c.args(srv.url())
			stdout, stderr, err := capture(t, args[0], args[1:]...)
			if err == nil {
				t.Fatalf("strata %s: no error", strings.Join(args, " "))
			}
			// (verify reports each file on stdout and a summary as the error)
			msg := err.Error() + "\n" + stdout + stderr
			if code := exitCode(err); code != exitFailed {
				t.Errorf("exit %d, want %d: %s", code, exitFailed, msg)
			}
			for _, want := range []string{"timed out after 200ms", "attempt(s)"} {
				if !strings.Contains(msg, want) {
					t.Errorf("error %q lacks %q", msg, want)
				}
			}
			if got := srv.conns.Load(); got != int64(c.attempts) {
				t.Errorf("the server took %d connections, want %d (one a try)", got, c.attempts)
			}
		})
	}
}

// TestStoreFlagsRefuseNonPositive checks that --attempts and
// --request-timeout refuse values that would mean no try or no time.
func TestStoreFlagsRefuseNonPositive(t *testing.T) {
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"cat", "x.strata", "--attempts", "0"}, `invalid value "0" for flag -attempts`},
		{[]string{"cat", "x.strata", "--attempts", "-2"}, `invalid value "-2" for flag -attempts`},
		{[]string{"scan", "x.strata", "--attempts", "many"}, `invalid value "many" for flag -attempts`},
		{[]string{"inspect", "x.strata", "--request-timeout", "0s"}, `invalid value "0s" for flag -request-timeout`},
		{[]string{"import", "--request-timeout", "-1s", "a.csv", "b.strata"}, `invalid value "-1s" for flag -request-timeout`},
		{[]string{"export", "x.strata", "y.csv", "--request-timeout", "soon"}, `invalid value "soon" for flag -request-timeout`},
	} {
		_, _, err := capture(t, c.args[0], c.args[1:]...)
		if code := exitCode(err); code != exitUsage {
			t.Errorf("strata %s: exit %d (%v), want %d", strings.Join(c.args, " "), code, err, exitUsage)
		}
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("strata %s: error %v, want %q", strings.Join(c.args, " "), err, c.msg)
		}
	}
}
