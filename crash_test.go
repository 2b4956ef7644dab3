//go:build unix

package strata_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"strata"
	"strata/format"
	"strata/internal/randtable"
)

// Crash safety: a writer killed with SIGKILL at a random moment, in a child
// process, leaves the destination either as it was before (absent, or the
// previous complete file) or complete and verifiable; the temporary file it
// leaves is named <dest>.tmp-* and the next writer to the same path removes
// it. A writer whose disk fills (RLIMIT_FSIZE in a child: writes past the
// limit fail with EFBIG) returns an error and leaves no destination and no
// temporary file.

const (
	crashKills   = 100
	crashEnvPath = "STRATA_CRASH_CHILD"
	crashEnvSeed = "STRATA_CRASH_SEED"
	crashEnvFsz  = "STRATA_CRASH_FSIZE"
)

// crashTable is what a child writes for a seed: a few MB of nested data in
// many stripes, so a kill can land in any phase (stripes, groups, sections,
// footer, sync, rename).
func crashTable(seed uint64) (*arrow.Schema, []arrow.RecordBatch) {
	g := randtable.New(seed, randtable.Options{MaxDepth: 1})
	sch := g.Schema(6)
	var recs []arrow.RecordBatch
	for range 5 {
		recs = append(recs, g.Record(mem, sch, 2000))
	}
	return sch, recs
}

var crashOpts = strata.WriteOptions{StripeBytes: 64 << 10, ChunkValues: 1000, Parallel: 1}

// TestCrashChild is the child process: it writes the table of its seed to
// the path in STRATA_CRASH_CHILD and exits. It is skipped in a normal run.
func TestCrashChild(t *testing.T) {
	path := os.Getenv(crashEnvPath)
	if path == "" {
		t.Skip("child process of TestCrashKill and TestFullDisk")
	}
	var seed uint64
	fmt.Sscan(os.Getenv(crashEnvSeed), &seed)
	if fsz := os.Getenv(crashEnvFsz); fsz != "" {
		var lim uint64
		fmt.Sscan(fsz, &lim)
		signal.Ignore(syscall.SIGXFSZ) // a write past the limit fails with EFBIG instead
		if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: lim, Max: lim}); err != nil {
			t.Fatal(err)
		}
	}
	sch, recs := crashTable(seed)
	fmt.Println("READY") // the parent starts its clock at the write
	start := time.Now()
	w, err := strata.Create(path, sch, &crashOpts)
	if err != nil {
		fmt.Println("CREATE ERROR:", err)
		os.Exit(3)
	}
	for _, r := range recs {
		if err := w.Write(r); err != nil {
			fmt.Println("WRITE ERROR:", err)
			w.Abort()
			os.Exit(3)
		}
	}
	if err := w.Close(); err != nil {
		fmt.Println("CLOSE ERROR:", err)
		os.Exit(3)
	}
	fmt.Println("DONE", time.Since(start).Nanoseconds())
}

func crashChild(path string, seed uint64, fsize int64) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), crashEnvPath+"="+path, fmt.Sprintf("%s=%d", crashEnvSeed, seed))
	if fsize > 0 {
		cmd.Env = append(cmd.Env, fmt.Sprintf("%s=%d", crashEnvFsz, fsize))
	}
	return cmd
}

func tempFiles(t *testing.T, path string) []string {
	m, err := filepath.Glob(path + format.TempSuffix + "*")
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// checkComplete opens path verifying its checksum and compares it with the
// table of seed.
func checkComplete(t *testing.T, path string, seed uint64) error {
	f, err := strata.OpenWith(context.Background(), path, strata.OpenOptions{Verify: true})
	if err != nil {
		return err
	}
	defer f.Close()
	if err := f.Verify(context.Background()); err != nil {
		return err
	}
	sch, recs := crashTable(seed)
	want, err := randtable.Concat(mem, sch, recs)
	if err != nil {
		return err
	}
	defer want.Release()
	got := readAllRecords(t, f)
	defer got.Release()
	return randtable.Compare{}.Records(want, got)
}

func TestCrashKill(t *testing.T) {
	if raceEnabled {
		t.Skip("single-goroutine sweep; runs without -race")
	}
	if testing.Short() {
		t.Skip("spawns 100 writer processes")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "t.strata")
	// Time one uninterrupted write, to spread the kills over it.
	out, err := crashChild(path, 1, 0).CombinedOutput()
	var nanos int64
	if i := strings.Index(string(out), "DONE "); err != nil || i < 0 {
		t.Fatalf("uninterrupted child: %v\n%s", err, out)
	} else {
		fmt.Sscan(string(out[i+5:]), &nanos)
	}
	full := time.Duration(nanos)
	if err := checkComplete(t, path, 1); err != nil {
		t.Fatalf("uninterrupted write: %v", err)
	}
	previous, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(12, 12))
	var absent, old, complete, leftovers int
	for k := 0; k < crashKills; k++ {
		// Half the kills overwrite a previous complete file (seed 1).
		overwrite := k%2 == 1
		os.Remove(path)
		if overwrite {
			if err := os.WriteFile(path, previous, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		seed := uint64(100 + k)
		cmd := crashChild(path, seed, 0)
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Kill at a random moment of the write, or after it (a write
		// under load takes longer than the timed one).
		ready := make([]byte, 6)
		if _, err := io.ReadFull(stdout, ready); err != nil || string(ready) != "READY\n" {
			t.Fatalf("child: %q %v", ready, err)
		}
		delay := time.Duration(r.Int64N(int64(full) * 2))
		time.Sleep(delay)
		cmd.Process.Signal(syscall.SIGKILL)
		go io.Copy(io.Discard, stdout)
		cmd.Wait()
		_, statErr := os.Stat(path)
		switch {
		case errors.Is(statErr, os.ErrNotExist):
			if overwrite {
				t.Fatalf("kill %d after %v: the previous file is gone", k, delay)
			}
			absent++
		case statErr != nil:
			t.Fatal(statErr)
		case checkComplete(t, path, seed) == nil:
			complete++
		case overwrite && checkComplete(t, path, 1) == nil:
			old++
		default:
			t.Fatalf("kill %d after %v: destination is neither absent, the previous file nor the complete new one: %v",
				k, delay, checkComplete(t, path, seed))
		}
		if tmp := tempFiles(t, path); len(tmp) > 0 {
			leftovers++
			for _, p := range tmp {
				if !strings.HasPrefix(filepath.Base(p), "t.strata"+format.TempSuffix) {
					t.Fatalf("unexpected temporary name %s", p)
				}
			}
			// The next writer to the path removes them.
			sch, recs := crashTable(7)
			w, err := strata.Create(path+".other-dest-check", sch, nil)
			if err != nil {
				t.Fatal(err)
			}
			w.Abort()
			if len(tempFiles(t, path)) == 0 {
				t.Fatalf("a writer to another path removed %s's temporary files", path)
			}
			w, err = strata.Create(path, sch, &crashOpts)
			if err != nil {
				t.Fatal(err)
			}
			if left := tempFiles(t, path); len(left) != 1 { // its own
				t.Fatalf("kill %d: the next writer left %v", k, left)
			}
			w.Write(recs[0])
			w.Abort()
			if left := tempFiles(t, path); len(left) != 0 {
				t.Fatalf("kill %d: after the next writer: %v", k, left)
			}
		}
	}
	t.Logf("%d kills over 0..%v (one write takes %v): %d left no file, %d the previous file, %d the complete new file; 0 partial; %d left a temporary file, each removed by the next writer",
		crashKills, full*2, full, absent, old, complete, leftovers)
}

// TestFullDisk writes under a file size limit far below the table's size:
// the writer fails with an error naming the cause and leaves neither the
// destination nor a temporary file.
func TestFullDisk(t *testing.T) {
	if raceEnabled {
		t.Skip("single-goroutine sweep; runs without -race")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "t.strata")
	if out, err := crashChild(path, 5, 0).CombinedOutput(); err != nil {
		t.Fatalf("unlimited write: %v\n%s", err, out)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(path)
	size := fi.Size()
	for _, lim := range []int64{1, 4 << 10, size / 2, size - 30, size - 1} {
		out, err := crashChild(path, 5, lim).CombinedOutput()
		if err == nil || strings.Contains(string(out), "DONE") {
			t.Fatalf("limit %d: the write succeeded:\n%s", lim, out)
		}
		if !strings.Contains(string(out), "file too large") {
			t.Errorf("limit %d: error does not name the cause:\n%s", lim, out)
		}
		if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("limit %d: destination exists after a failed write (%v)", lim, err)
		}
		if tmp := tempFiles(t, path); len(tmp) > 0 {
			t.Errorf("limit %d: temporary files left: %v", lim, tmp)
		}
		t.Logf("limit %d of %d bytes: %s", lim, size, firstLine(string(out)))
	}
}

func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, "ERROR") {
			return l
		}
	}
	return s
}

// readAllRecords scans every row of f into one record.
func readAllRecords(t *testing.T, f *strata.File) arrow.RecordBatch {
	t.Helper()
	sc, err := f.Scan(strata.ScanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var recs []arrow.RecordBatch
	for {
		rec, err := sc.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, rec)
	}
	all, err := randtable.Concat(mem, f.Schema(), recs)
	for _, r := range recs {
		r.Release()
	}
	if err != nil {
		t.Fatal(err)
	}
	return all
}
