package format

import (
	"bytes"
	"context"
	"errors"
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
