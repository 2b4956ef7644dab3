package interop

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/csv"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// csvParallelSink writes CSV as csvSink does, with the text of each
// record batch formatted on one of several goroutines: turning values
// into text (numbers, times, JSON of nested values) is what a CSV export
// spends its time on, and batches format independently. The texts are
// written in the order the batches came, so the file is byte for byte the
// serial sink's. At most one batch more than there are goroutines is held
// at a time, so memory does not grow with the table.
type csvParallelSink struct {
	f     io.WriteCloser
	sch   *arrow.Schema
	text  []csvText
	null  string
	comma rune
	mem   memory.Allocator

	work    chan csvJob
	order   chan chan csvOut // results in the order of the batches
	wg      sync.WaitGroup   // the formatters
	written chan struct{}    // closed when the writer goroutine ends
	seq     int
	closed  bool

	mu  sync.Mutex
	err error // the first error of a formatter or of the file
}

// csvOut is a formatted batch: its text, or why it has none.
type csvOut struct {
	b   []byte
	err error
}

type csvJob struct {
	rec    arrow.Record
	header bool
	out    chan csvOut
}

var errCSVClosed = errors.New("interop: csv: sink already closed")

// maxCSVWriters bounds the formatting goroutines of a CSV export.
const maxCSVWriters = 8

func newCSVParallelSink(f io.WriteCloser, sch *arrow.Schema, text []csvText, null string, comma rune, threads int, mem memory.Allocator) *csvParallelSink {
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	threads = min(threads, maxCSVWriters)
	s := &csvParallelSink{f: f, sch: sch, text: text, null: null, comma: comma, mem: mem,
		work: make(chan csvJob), order: make(chan chan csvOut, threads+1), written: make(chan struct{})}
	for range threads {
		s.wg.Add(1)
		go s.format()
	}
	go s.write()
	return s
}

// format turns batches into CSV text until the work runs out.
func (s *csvParallelSink) format() {
	defer s.wg.Done()
	var buf bytes.Buffer
	for j := range s.work {
		b, err := s.formatOne(&buf, j)
		j.rec.Release()
		j.out <- csvOut{b, err}
	}
}

func (s *csvParallelSink) formatOne(buf *bytes.Buffer, j csvJob) (b []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("interop: csv: formatting a batch: %v", r)
		}
	}()
	out, err := csvRecord(j.rec, s.sch, s.text, s.mem)
	if err != nil {
		return nil, err
	}
	defer out.Release()
	buf.Reset()
	w := csv.NewWriter(csvOutput(buf, s.sch), s.sch, csv.WithHeader(j.header), csv.WithNullWriter(s.null), csv.WithComma(s.comma))
	if err := w.Write(out); err != nil {
		return nil, err
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return nil, err
	}
	return bytes.Clone(buf.Bytes()), nil
}

// write writes the formatted batches in order; after an error it drains
// the rest without writing.
func (s *csvParallelSink) write() {
	defer close(s.written)
	for out := range s.order {
		r := <-out
		if s.failed() != nil {
			continue
		}
		if r.err == nil {
			_, r.err = s.f.Write(r.b)
		}
		if r.err != nil {
			s.fail(r.err)
		}
	}
}

func (s *csvParallelSink) fail(err error) {
	s.mu.Lock()
	if s.err == nil {
		s.err = err
	}
	s.mu.Unlock()
}

func (s *csvParallelSink) failed() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Write queues rec for formatting; it returns the first error of an
// earlier batch, if any.
func (s *csvParallelSink) Write(rec arrow.Record) error {
	if s.closed {
		return errCSVClosed
	}
	if err := s.failed(); err != nil {
		return err
	}
	rec.Retain()
	out := make(chan csvOut, 1)
	s.order <- out // blocks while threads+1 batches are in flight
	s.work <- csvJob{rec: rec, header: s.seq == 0, out: out}
	s.seq++
	return nil
}

// Close waits for every batch to be written and closes the file. A table
// of no rows still gets its header.
func (s *csvParallelSink) Close() error {
	if s.closed {
		return errCSVClosed
	}
	if s.seq == 0 {
		rec := emptyRecord(s.sch, s.mem)
		err := s.Write(rec)
		rec.Release()
		if err != nil {
			s.fail(err)
		}
	}
	s.closed = true
	close(s.work)
	s.wg.Wait()
	close(s.order)
	<-s.written
	if err := s.failed(); err != nil {
		s.f.Close()
		return err
	}
	return s.f.Close()
}

// emptyRecord is a record of sch with no rows.
func emptyRecord(sch *arrow.Schema, mem memory.Allocator) arrow.Record {
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	cols := make([]arrow.Array, sch.NumFields())
	for i, f := range sch.Fields() {
		cols[i] = array.MakeArrayOfNull(mem, f.Type, 0)
		defer cols[i].Release()
	}
	return array.NewRecord(sch, cols, 0)
}

// NewCSVWriter returns arrow-go's CSV writer for records of sch (the
// string columns CSVRecord returns) set as export writes a file: a header,
// nulls as empty fields, and in a table of one column nulls as NULL and
// empty strings as "", so that no row becomes an empty line, which CSV
// readers skip.
func NewCSVWriter(w io.Writer, sch *arrow.Schema, comma rune) *csv.Writer {
	return csv.NewWriter(csvOutput(w, sch), sch, csv.WithHeader(true), csv.WithNullWriter(csvNull(sch)), csv.WithComma(comma))
}

// csvNull is how a CSV file of sch writes a null: an empty field, or NULL
// in a file of one column, where an empty field is an empty line (read
// back as null: csvNulls).
func csvNull(sch *arrow.Schema) string {
	if sch.NumFields() == 1 {
		return "NULL"
	}
	return ""
}

// csvOutput is where a CSV writer of sch writes for w: w itself, or for a
// table of one column an emptyRecords over it.
func csvOutput(w io.Writer, sch *arrow.Schema) io.Writer {
	if sch.NumFields() == 1 {
		return &emptyRecords{w: w, start: true}
	}
	return w
}

// emptyRecords passes CSV text on to w with every empty record written as
// "". In a file of one column an empty string is an empty line, which CSV
// readers skip (a null is written NULL there, see Create), so the row would
// be lost; encoding/csv quotes no empty field. Quotes are followed so that
// empty lines inside a quoted value stay as they are.
type emptyRecords struct {
	w             io.Writer
	start, quoted bool // at the start of a record; inside quotes
	out           []byte
}

func (e *emptyRecords) Write(p []byte) (int, error) {
	e.out = e.out[:0]
	for _, c := range p {
		switch {
		case c == '"':
			e.quoted = !e.quoted
		case c == '\n' && !e.quoted && e.start:
			e.out = append(e.out, '"', '"')
		}
		e.out = append(e.out, c)
		e.start = c == '\n' && !e.quoted
	}
	if _, err := e.w.Write(e.out); err != nil {
		return 0, err
	}
	return len(p), nil
}
