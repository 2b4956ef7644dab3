package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"strata/internal/objtest"
)

// TestWriteCommandsRemote writes every kind of output a command makes to
// s3:// locations — import, export, ts import, gen — configured by the
// environment and by flags, and expects the bytes (or the rows) the same
// command writes to a local path. A write that fails midway leaves the
// object it would have replaced as it was, and an https:// destination
// is refused as read only.
func TestWriteCommandsRemote(t *testing.T) {
	dir := t.TempDir()
	srv := objtest.Need(t)
	ctx := context.Background()
	if err := srv.Put(ctx, "cliw", "placeholder", []byte("x")); err != nil { // (creates the bucket)
		t.Fatal(err)
	}
	object := func(key string) []byte {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(srv.Dir, "cliw", key))
		if err != nil {
			t.Fatalf("s3://cliw/%s: %v", key, err)
		}
		return b
	}
	local := func(name string) []byte {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	run := func(args ...string) string {
		t.Helper()
		stdout, stderr, err := capture(t, args[0], args[1:]...)
		if err != nil {
			t.Fatalf("%v: %v\n%s", args, err, stderr)
		}
		return stdout + stderr
	}
	for _, kv := range srv.Env("") {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	// gen, the source of the rest: the same bytes locally and in the store
	run("gen", "tpch", "--sf", "0.002", filepath.Join(dir, "li.strata"))
	run("gen", "tpch", "--sf", "0.002", "s3://cliw/gen/li.strata")
	if string(object("gen/li.strata")) != string(local("li.strata")) {
		t.Fatal("gen to S3 wrote other bytes than gen to a file")
	}
	// export to each format, from the file and from the object
	for _, ext := range []string{"parquet", "csv", "arrow", "jsonl"} {
		run("export", filepath.Join(dir, "li.strata"), filepath.Join(dir, "li."+ext))
		run("export", "s3://cliw/gen/li.strata", "s3://cliw/exp/li."+ext)
		if string(object("exp/li."+ext)) != string(local("li."+ext)) {
			t.Errorf("export to S3 as .%s wrote other bytes than to a file", ext)
		}
	}
	// import from the store to the store, settings from flags only
	localOut := run("import", filepath.Join(dir, "li.parquet"), filepath.Join(dir, "back.strata"))
	for _, k := range []string{"AWS_ENDPOINT_URL", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_REGION"} {
		t.Setenv(k, "")
	}
	flags := []string{"--endpoint", srv.Endpoint, "--region", srv.Region, "--access-key", srv.AccessKey, "--secret-key", srv.SecretKey}
	out := run(append([]string{"import", "s3://cliw/exp/li.parquet", "s3://cliw/imp/back.strata"}, flags...)...)
	if string(object("imp/back.strata")) != string(local("back.strata")) {
		t.Error("import to S3 wrote other bytes than import to a file")
	}
	// (the summary's bytes are the object's, as the store has it)
	if want := strings.Replace(localOut, filepath.Join(dir, "back.strata"), "s3://cliw/imp/back.strata", 1); out != want || !strings.Contains(out, fmt.Sprintf(" %d bytes", len(local("back.strata")))) {
		t.Errorf("import to S3 printed %q, want %q", out, want)
	}
	// ts import: the same rows as a local table's
	tsArgs := []string{"--series", "l_returnflag,l_linestatus", "--time", "l_shipdate"}
	run(append([]string{"ts", "import", filepath.Join(dir, "li.parquet"), filepath.Join(dir, "ts.strata")}, tsArgs...)...)
	run(append(append([]string{"ts", "import", "s3://cliw/exp/li.parquet", "s3://cliw/ts/ts.strata"}, tsArgs...), flags...)...)
	if string(object("ts/ts.strata")) != string(local("ts.strata")) {
		t.Error("ts import to S3 wrote other bytes than to a file")
	}

	// A CSV whose last row does not parse as its column's type fails the
	// import after rows were written: the object keeps its old bytes.
	var csv strings.Builder
	csv.WriteString("n\n")
	for i := range 5000 {
		fmt.Fprintf(&csv, "%d\n", i)
	}
	csv.WriteString("not a number\n")
	bad := filepath.Join(dir, "bad.csv")
	if err := os.WriteFile(bad, []byte(csv.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	before := object("imp/back.strata")
	if _, _, err := capture(t, "import", append([]string{bad, "s3://cliw/imp/back.strata"}, flags...)...); err == nil {
		t.Fatal("import of a CSV that fails midway succeeded")
	}
	if string(object("imp/back.strata")) != string(before) {
		t.Error("a failed import changed the object it would have replaced")
	}
	// read-only destinations are refused, naming the scheme
	if _, _, err := capture(t, "export", filepath.Join(dir, "li.strata"), "https://127.0.0.1:1/x.csv"); err == nil || !strings.Contains(err.Error(), "read only") {
		t.Errorf("export to https://: %v, want a read-only error", err)
	}
}

// TestInterruptAbortsUpload interrupts (SIGINT) a command uploading its
// output in parts: it dies of the signal having aborted the multipart
// upload, so the store keeps no part and no object. Before, the process
// died at the signal and the store kept the parts sent; then it exited
// with status 130, which a shell running it in a loop takes for a command
// that handled the interrupt, going on to the next one.
func TestInterruptAbortsUpload(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGINT to send")
	}
	srv := objtest.Need(t)
	ctx := context.Background()
	if err := srv.Put(ctx, "clisig", "placeholder", []byte("x")); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "--", "gen", "tpch", "--sf", "0.5", "s3://clisig/big.strata")
	cmd.Env = append(append(os.Environ(), "STRATA_TEST_AS_CLI=1"), srv.Env("")...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// wait for a part to be stored
	parts := filepath.Join(srv.Dir, "clisig", ".sgwtmp", "multipart")
	deadline := time.Now().Add(2 * time.Minute)
	for countFiles(parts) == 0 {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("no part uploaded in 2 minutes")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	var ee *exec.ExitError
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !errors.As(err, &ee) || !ok || !ws.Signaled() || ws.Signal() != syscall.SIGINT {
		t.Fatalf("exit: %v, want death by SIGINT\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "strata gen: interrupt") {
		t.Errorf("stderr %q does not say the command was interrupted", stderr.String())
	}
	if n := countFiles(parts); n != 0 {
		t.Errorf("%d part files left in the store after the interrupt", n)
	}
	if _, err := os.Stat(filepath.Join(srv.Dir, "clisig", "big.strata")); err == nil {
		t.Error("the interrupted upload created its object")
	}
}

// countFiles counts the regular files below dir.
func countFiles(dir string) int {
	n := 0
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			n++
		}
		return nil
	})
	return n
}
