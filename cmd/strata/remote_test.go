package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"strata/internal/objtest"
	"strata/iox"
)

func TestMain(m *testing.M) {
	if os.Getenv("STRATA_TEST_AS_CLI") == "1" {
		// the test binary as the strata command (tests that signal a
		// process run it so): the arguments after "--"
		for i, a := range os.Args {
			if a == "--" {
				os.Args = append(os.Args[:1], os.Args[i+1:]...)
				break
			}
		}
		main()
		os.Exit(0)
	}
	os.Exit(objtest.Main(m))
}

// capture runs a command in-process and returns what it printed on stdout
// and stderr.
func capture(t *testing.T, cmd string, args ...string) (string, string, error) {
	t.Helper()
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, stderr := os.Stdout, os.Stderr
	os.Stdout, os.Stderr = outW, errW
	var outB, errB bytes.Buffer
	done := make(chan struct{}, 2)
	go func() { io.Copy(&outB, outR); done <- struct{}{} }()
	go func() { io.Copy(&errB, errR); done <- struct{}{} }()
	runErr := run(cmd, args)
	os.Stdout, os.Stderr = stdout, stderr
	outW.Close()
	errW.Close()
	<-done
	<-done
	return outB.String(), errB.String(), runErr
}

// TestReadCommandsRemote runs every command that reads a Strata file on a
// local path, on an s3:// object (configured by the environment, then by
// flags) and on an http:// URL, and expects the same output.
func TestReadCommandsRemote(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "li.strata")
	if _, _, err := capture(t, "gen", "tpch", "--sf", "0.002", path); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	srv := objtest.Need(t)
	if err := srv.Put(context.Background(), "cli", "dir/li.strata", data); err != nil {
		t.Fatal(err)
	}
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", `"li"`)
		http.ServeContent(w, r, "", time.Unix(1700000000, 0), bytes.NewReader(data))
	}))
	defer web.Close()

	commands := [][]string{
		{"cat", "--limit", "5", "--format", "csv"},
		{"scan", "--where", "l_shipdate BETWEEN DATE '1995-01-01' AND DATE '1995-01-31'", "--columns", "l_orderkey,l_extendedprice", "--format", "json"},
		{"take", "3", "1000", "--format", "csv"},
		{"agg", "count(*), sum(l_quantity)", "--where", "l_quantity < 10"},
		{"inspect", "--json"},
		{"export"}, // to a CSV file, compared below
	}
	output := func(t *testing.T, location string, extra []string, c []string) string {
		t.Helper()
		args := append([]string{location}, c[1:]...)
		if c[0] == "export" {
			out := filepath.Join(t.TempDir(), "out.csv")
			args = append(args, out)
			if _, stderr, err := capture(t, c[0], append(args, extra...)...); err != nil {
				t.Fatalf("%s %v: %v\n%s", c[0], args, err, stderr)
			}
			b, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			return string(b)
		}
		stdout, stderr, err := capture(t, c[0], append(args, extra...)...)
		if err != nil {
			t.Fatalf("%s %v: %v\n%s", c[0], args, err, stderr)
		}
		return stdout
	}
	want := map[string]string{}
	for _, c := range commands {
		want[c[0]] = output(t, path, nil, c)
		if len(want[c[0]]) < 20 {
			t.Fatalf("%s printed %q", c[0], want[c[0]])
		}
	}
	check := func(name, location string, extra ...string) {
		for _, c := range commands {
			if got := output(t, location, extra, c); got != want[c[0]] {
				t.Errorf("%s: %s differs from the local file's:\n%s\nwant:\n%s", name, c[0], got, want[c[0]])
			}
		}
	}
	for _, kv := range srv.Env("") {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	check("s3 from the environment", "s3://cli/dir/li.strata")
	check("http", web.URL+"/li.strata")
	// Flags instead of the environment: endpoint, region and keys.
	for _, k := range []string{"AWS_ENDPOINT_URL", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_REGION"} {
		t.Setenv(k, "")
	}
	check("s3 from flags", "s3://cli/dir/li.strata", "--endpoint", srv.Endpoint, "--region", srv.Region,
		"--access-key", srv.AccessKey, "--secret-key", srv.SecretKey)

	// import reads a Parquet file from S3 as from disk.
	pq := filepath.Join(dir, "li.parquet")
	if _, stderr, err := capture(t, "export", path, pq); err != nil {
		t.Fatalf("export: %v\n%s", err, stderr)
	}
	pqData, err := os.ReadFile(pq)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Put(context.Background(), "cli", "li.parquet", pqData); err != nil {
		t.Fatal(err)
	}
	fromDisk, fromS3 := filepath.Join(dir, "disk.strata"), filepath.Join(dir, "s3.strata")
	if _, stderr, err := capture(t, "import", pq, fromDisk); err != nil {
		t.Fatalf("import: %v\n%s", err, stderr)
	}
	if _, stderr, err := capture(t, "import", "s3://cli/li.parquet", fromS3, "--endpoint", srv.Endpoint,
		"--access-key", srv.AccessKey, "--secret-key", srv.SecretKey); err != nil {
		t.Fatalf("import from S3: %v\n%s", err, stderr)
	}
	a, _, _ := capture(t, "cat", fromDisk, "--format", "csv")
	b, _, _ := capture(t, "cat", fromS3, "--format", "csv")
	if a != b || len(a) < 1000 {
		t.Fatalf("import from S3 differs from import from disk (%d vs %d bytes of CSV)", len(b), len(a))
	}

	// --stats reports the requests a remote read made.
	_, stderr, err := capture(t, "scan", "s3://cli/dir/li.strata", "--where", "l_quantity < 2", "--stats", "--format", "csv",
		"--endpoint", srv.Endpoint, "--access-key", srv.AccessKey, "--secret-key", srv.SecretKey)
	if err != nil || !strings.Contains(stderr, "requests ") {
		t.Fatalf("scan --stats: %v\n%s", err, stderr)
	}
	// Errors name what failed.
	_, _, err = capture(t, "cat", "s3://cli/dir/missing.strata", "--endpoint", srv.Endpoint,
		"--access-key", srv.AccessKey, "--secret-key", srv.SecretKey)
	if err == nil || !strings.Contains(err.Error(), "s3://cli/dir/missing.strata") {
		t.Fatalf("missing object: %v", err)
	}
	_, _, err = capture(t, "cat", "s3://cli/dir/li.strata", "--endpoint", srv.Endpoint,
		"--access-key", srv.AccessKey, "--secret-key", "wrong")
	if err == nil || !strings.Contains(err.Error(), "403") {
		t.Fatalf("wrong secret: %v", err)
	}
}

// TestRemoteOddKeysAndNoMatch reads objects whose keys hold characters a
// URL parser takes for an escape, a query or a fragment (named directly,
// and found by a pattern), expecting the local file's rows, and expects a
// pattern of s3:// objects that matches nothing to fail as a local one
// does (it once panicked, indexing an empty list of files).
func TestRemoteOddKeysAndNoMatch(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "li.strata")
	data := genTiny(t, path)
	srv := objtest.Need(t)
	keys := []string{"odd/p%20c.strata", "odd/q?x.strata", "odd/h#x.strata", "odd/pct%.strata", "odd/a b+ü.strata"}
	for _, k := range keys {
		if err := srv.Put(context.Background(), "cli", k, data); err != nil {
			t.Fatal(err)
		}
	}
	for _, kv := range srv.Env("") {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	want, _, err := capture(t, "cat", path, "--format", "csv")
	if err != nil || len(want) < 100 {
		t.Fatalf("local cat: %v", err)
	}
	for _, k := range keys {
		got, stderr, err := capture(t, "cat", "s3://cli/"+k, "--format", "csv")
		if err != nil || got != want {
			t.Errorf("cat s3://cli/%s: %v %s; %d bytes, want the local file's %d", k, err, stderr, len(got), len(want))
		}
	}
	// Every key, through a listing: the local rows once per object.
	got, stderr, err := capture(t, "cat", "s3://cli/odd/*.strata", "--format", "csv")
	header, _, _ := strings.Cut(want, "\n")
	if wantAll := header + "\n" + strings.Repeat(strings.TrimPrefix(want, header+"\n"), len(keys)); err != nil || got != wantAll {
		t.Errorf("cat of the pattern: %v %s; %d bytes, want %d", err, stderr, len(got), len(wantAll))
	}
	for _, cmd := range [][]string{{"cat"}, {"scan"}, {"agg", "count(*)"}, {"take", "1"}, {"verify"}, {"export", filepath.Join(dir, "out.csv")}} {
		pattern := "s3://cli/odd/none*.strata"
		args := append([]string{pattern}, cmd[1:]...)
		if cmd[0] == "take" || cmd[0] == "agg" {
			args = []string{pattern, cmd[1]}
		}
		stdout, _, err := capture(t, cmd[0], args...)
		if cmd[0] == "verify" {
			// (verify reports each argument on a line of its own)
			if err == nil || exitCode(err) != exitFailed || !strings.Contains(stdout, iox.ErrNoMatch.Error()) {
				t.Errorf("verify of a pattern matching nothing: %v (exit %d), printed %q", err, exitCode(err), stdout)
			}
			continue
		}
		if err == nil || !errors.Is(err, iox.ErrNoMatch) || exitCode(err) != exitFailed {
			t.Errorf("%s of a pattern matching nothing: %v (exit %d), want iox.ErrNoMatch (exit %d)", cmd[0], err, exitCode(err), exitFailed)
		}
	}
}

// TestRemoteNotStrataAdvice expects a Parquet file read from S3 where a
// Strata file belongs to get the advice a local one gets (import it
// first), with the exit status of a file that is not Strata; it once got
// only "not a Strata file: trailing magic". A text object keeps the plain
// message, with the same status.
func TestRemoteNotStrataAdvice(t *testing.T) {
	dir := t.TempDir()
	st := filepath.Join(dir, "t.strata")
	pq := filepath.Join(dir, "t.parquet")
	if _, _, err := capture(t, "gen", "tpch", "--sf", "0.001", st); err != nil {
		t.Fatal(err)
	}
	if _, stderr, err := capture(t, "export", st, pq); err != nil {
		t.Fatalf("export: %v\n%s", err, stderr)
	}
	data, err := os.ReadFile(pq)
	if err != nil {
		t.Fatal(err)
	}
	srv := objtest.Need(t)
	ctx := context.Background()
	if err := srv.Put(ctx, "cli", "advice/t.parquet", data); err != nil {
		t.Fatal(err)
	}
	if err := srv.Put(ctx, "cli", "advice/t.txt", []byte("hello\n")); err != nil {
		t.Fatal(err)
	}
	for _, kv := range srv.Env("") {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	const loc = "s3://cli/advice/t.parquet"
	for _, cmd := range []string{"cat", "inspect", "scan"} {
		_, _, err := capture(t, cmd, loc)
		want := loc + " is a Parquet file, not a Strata file; convert it first with: strata import " + loc + " OUT.strata"
		if err == nil || err.Error() != want || exitCode(err) != exitCorrupt {
			t.Errorf("%s of a Parquet object: %v (exit %d), want %q (exit %d)", cmd, err, exitCode(err), want, exitCorrupt)
		}
	}
	_, _, err = capture(t, "cat", "s3://cli/advice/t.txt")
	if err == nil || !strings.Contains(err.Error(), "not a Strata file") || exitCode(err) != exitCorrupt {
		t.Errorf("cat of a text object: %v (exit %d), want not a Strata file (exit %d)", err, exitCode(err), exitCorrupt)
	}
}

// TestRemoteURLWithQuery reads a Strata file from an http:// URL that
// carries a query, as a presigned URL does, and from one without it on a
// server that demands it, expecting the local file's rows and a 403. The
// query's ? was once taken for a pattern and the URL refused as one.
func TestRemoteURLWithQuery(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "t.strata")
	data := genTiny(t, path)
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("X-Amz-Signature") != "s1g" {
			http.Error(w, "signature required", http.StatusForbidden)
			return
		}
		w.Header().Set("ETag", `"t"`)
		http.ServeContent(w, r, "", time.Unix(1700000000, 0), bytes.NewReader(data))
	}))
	defer web.Close()
	want, _, err := capture(t, "cat", path, "--format", "csv")
	if err != nil || len(want) < 100 {
		t.Fatalf("local cat: %v", err)
	}
	got, stderr, err := capture(t, "cat", web.URL+"/t.strata?X-Amz-Expires=60&X-Amz-Signature=s1g", "--format", "csv")
	if err != nil || got != want {
		t.Errorf("cat of a URL with a query: %v %s; %d bytes, want the local file's %d", err, stderr, len(got), len(want))
	}
	if _, _, err := capture(t, "cat", web.URL+"/t.strata"); err == nil || !strings.Contains(err.Error(), "403") || exitCode(err) != exitFailed {
		t.Errorf("cat without the signature: %v (exit %d), want a 403 (exit %d)", err, exitCode(err), exitFailed)
	}
}

// TestRemoteStatsLine expects scan --stats on an s3:// object to count
// its requests as they were: the opening GET of the tail and one ranged
// GET of the stripe, and no HEAD, which the line once claimed it
// included.
func TestRemoteStatsLine(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "t.strata")
	data := genTiny(t, path)
	srv := objtest.Need(t)
	if err := srv.Put(context.Background(), "cli", "stats/t.strata", data); err != nil {
		t.Fatal(err)
	}
	for _, kv := range srv.Env("") {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	_, stderr, err := capture(t, "scan", "s3://cli/stats/t.strata", "--stats", "--format", "csv")
	if err != nil {
		t.Fatal(err)
	}
	const want = "requests 2 (retries 0, the opening request included)"
	if !strings.Contains(stderr, want) || strings.Contains(stderr, "HEAD") {
		t.Errorf("--stats printed %q, want a line with %q and no HEAD", stderr, want)
	}
}

// genTiny writes TPC-H lineitem at scale 0.001 to path, as gen does, and
// returns the file's bytes, for tests that serve them from elsewhere.
func genTiny(t *testing.T, path string) []byte {
	t.Helper()
	if _, _, err := capture(t, "gen", "tpch", "--sf", "0.001", path); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
