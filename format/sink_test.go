package format

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"strata/iox"
)

// recSink records what a Writer made by CreateSink does with its sink.
type recSink struct {
	bytes.Buffer
	commits, aborts int
	commitErr       error
}

func (s *recSink) Commit() error { s.commits++; return s.commitErr }
func (s *recSink) Abort()        { s.aborts++ }

// TestCreateSink: a Writer on a sink commits it when Close succeeds (the
// bytes a plain Writer writes), aborts it when Close fails or on Abort,
// and returns a failing commit's error.
func TestCreateSink(t *testing.T) {
	write := func(w *Writer) {
		t.Helper()
		if err := w.WriteChunk(0, []byte("abc"), 3, nil); err != nil {
			t.Fatal(err)
		}
		if err := w.FinishStripe(3); err != nil {
			t.Fatal(err)
		}
	}
	var plain bytes.Buffer
	pw := NewWriter(&plain, WriterOptions{})
	write(pw)
	if err := pw.Close(); err != nil {
		t.Fatal(err)
	}

	s := &recSink{}
	w := CreateSink(s, WriterOptions{})
	write(w)
	if err := w.Close(); err != nil || s.commits != 1 || s.aborts != 0 || !bytes.Equal(s.Bytes(), plain.Bytes()) {
		t.Fatalf("close: %v, %d commits, %d aborts, %d bytes (want %d)", err, s.commits, s.aborts, s.Len(), plain.Len())
	}
	if f, err := Open(context.Background(), iox.Bytes(s.Bytes()), ReaderOptions{}); err != nil || f.NumRows() != 3 {
		t.Fatalf("the committed bytes do not open: %v", err)
	}

	s = &recSink{}
	w = CreateSink(s, WriterOptions{})
	write(w)
	w.Abort()
	if s.commits != 0 || s.aborts != 1 {
		t.Fatalf("abort: %d commits, %d aborts", s.commits, s.aborts)
	}

	// Close with chunks after the last FinishStripe fails: aborted
	s = &recSink{}
	w = CreateSink(s, WriterOptions{})
	if err := w.WriteChunk(0, []byte("abc"), 3, nil); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err == nil || s.commits != 0 || s.aborts != 1 {
		t.Fatalf("failing close: %v, %d commits, %d aborts", err, s.commits, s.aborts)
	}

	s = &recSink{commitErr: errors.New("the store said no")}
	w = CreateSink(s, WriterOptions{})
	write(w)
	if err := w.Close(); !errors.Is(err, s.commitErr) {
		t.Fatalf("failing commit: %v", err)
	}
}

// TestCreateFileMode: a new file gets the mode os.Create gives (0666 less
// the umask), as other writers' files do, not the private 0600 of its
// temporary name; a file replaced keeps its mode.
func TestCreateFileMode(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no Unix modes")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "t.strata")
	write := func() {
		t.Helper()
		w, err := CreateFile(path, WriterOptions{})
		if err != nil {
			t.Fatal(err)
		}
		w.WriteChunk(0, []byte("abc"), 3, nil)
		w.FinishStripe(3)
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	plain, err := os.Create(filepath.Join(dir, "plain"))
	if err != nil {
		t.Fatal(err)
	}
	plain.Close()
	pfi, err := os.Stat(plain.Name())
	if err != nil {
		t.Fatal(err)
	}
	write()
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != pfi.Mode().Perm() {
		t.Fatalf("new file: mode %v, %v; want %v as os.Create gives", fi.Mode().Perm(), err, pfi.Mode().Perm())
	}
	if err := os.Chmod(path, 0o640); err != nil {
		t.Fatal(err)
	}
	write()
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o640 {
		t.Fatalf("replaced file: mode %v, %v; want 0640 kept", fi.Mode().Perm(), err)
	}
}
