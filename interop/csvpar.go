package interop

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/csv"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// csvParallel reads a CSV file on several goroutines (ReadOptions.Parallel):
// one goroutine cuts the text into pieces of BatchRows records, following
// quotes so that a newline inside a quoted field does not end a record,
// and the others parse the pieces, which Next returns in file order. Each
// piece holds the records one batch of the serial reader holds, so the
// batches are the same; parsing text into numbers, dates and times, the
// costly part of reading a CSV file, runs in parallel.
type csvParallel struct {
	f     input
	cr    *countingReader
	size  int64
	sch   *arrow.Schema
	order chan *csvPiece // pieces in file order, bounded
	stop  chan struct{}  // closed by Close
	once  sync.Once
	wg    sync.WaitGroup
	err   error // sticky: the first error Next returned
	types csvTypes
}

// csvPiece is a run of whole records of the file and, once done is
// closed, its batch or the error parsing it.
type csvPiece struct {
	line int64 // the file line the piece starts on (1-based)
	data []byte
	done chan struct{}
	rec  arrow.Record
	err  error
}

func openCSVParallel(f input, size int64, header bool, sch, rsch *arrow.Schema, times []bool, copts []csv.Option, batchRows, threads int, mem memory.Allocator, types csvTypes) *csvParallel {
	// Each goroutine holds a piece as text and as a batch, and as many
	// wait in order: memory grows with the goroutines, so at most eight.
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	workers := min(max(1, threads), 8)
	c := &csvParallel{f: f, cr: &countingReader{r: f}, size: size, sch: sch,
		order: make(chan *csvPiece, workers), stop: make(chan struct{}), types: types}
	work := make(chan *csvPiece)
	c.wg.Add(1 + workers)
	go func() {
		defer c.wg.Done()
		defer close(work)
		defer close(c.order)
		c.split(header, batchRows, work)
	}()
	for range workers {
		go func() {
			defer c.wg.Done()
			for p := range work {
				scan := newCSVNullScan(sch, types.comma, types.nulls, false)
				scan.text(p.data)
				p.rec, p.err = parseCSVPiece(p.data, sch, rsch, times, types, scan.found, copts, mem)
				if p.err != nil {
					if at, ok := types.locate(bytes.NewReader(p.data), p.line, 0, sch); ok {
						p.err = fmt.Errorf("interop: csv: %s: %w%s", at, p.err, types.hint())
					} else {
						p.err = fmt.Errorf("interop: csv: in the records from line %d: %w%s", p.line, p.err, types.hint())
					}
				}
				p.data = nil
				close(p.done)
			}
		}()
	}
	return c
}

// split cuts the file into pieces of batchRows records and hands each to
// the workers and, in order, to Next. A record ends at a newline outside
// quotes; empty lines are not records, as the CSV parser skips them.
func (c *csvParallel) split(header bool, batchRows int, work chan<- *csvPiece) {
	br := bufio.NewReaderSize(c.cr, 1<<20)
	var (
		buf     []byte
		records int
		line    int64 = 1 // of the next physical line
		start   int64 = 1 // line the current piece starts on
		inQuote bool
	)
	emit := func(p *csvPiece) bool {
		select {
		case c.order <- p:
		case <-c.stop:
			return false
		}
		if p.data == nil {
			return true // an error, already done
		}
		select {
		case work <- p:
			return true
		case <-c.stop:
			p.err = errors.New("interop: csv: reader closed")
			close(p.done)
			return false
		}
	}
	fail := func(err error) {
		p := &csvPiece{line: start, done: make(chan struct{}), err: fmt.Errorf("interop: csv: %w", err)}
		close(p.done)
		emit(p)
	}
	skipHeader := header
	for {
		chunk, err := br.ReadSlice('\n')
		if len(chunk) > 0 {
			// a physical line may span several reads when longer than the
			// buffer: quotes are counted as it comes
			whole := err == nil || errors.Is(err, io.EOF)
			if inQuote || !isEmptyLine(chunk, whole) {
				buf = append(buf, chunk...)
				if bytes.Count(chunk, []byte{'"'})%2 == 1 {
					inQuote = !inQuote
				}
				if whole && inQuote && bytes.HasSuffix(buf, []byte("\r\n")) {
					// a \r\n inside quotes is data, which encoding/csv
					// would read as \n: see quotedCRLF
					buf = append(buf[:len(buf)-1], '\r', '\n')
				}
				if whole && !inQuote {
					if skipHeader { // the header ends here: drop it
						buf, skipHeader, start = buf[:0], false, line+1
					} else {
						records++
					}
				}
			}
			if whole {
				line++
			}
			if records == batchRows {
				if !emit(&csvPiece{line: start, data: buf, done: make(chan struct{})}) {
					return
				}
				// The next piece starts at the size of this one: grown by
				// appends from nothing, copying its bytes as it doubled
				// took an eighth of an import's CPU, on the goroutine every
				// parser waits for.
				buf, records, start = make([]byte, 0, len(buf)+len(buf)/8), 0, line
			}
		}
		switch {
		case err == nil, errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			if len(buf) > 0 {
				emit(&csvPiece{line: start, data: buf, done: make(chan struct{})})
			}
			return
		default:
			fail(err)
			return
		}
	}
}

// isEmptyLine reports whether a whole physical line holds nothing but its
// line ending.
func isEmptyLine(l []byte, whole bool) bool {
	if !whole {
		return false
	}
	return len(l) == 1 && l[0] == '\n' || len(l) == 2 && l[0] == '\r' && l[1] == '\n'
}

// parseCSVPiece parses whole records into one batch of schema sch
// (arrow-go parses into rsch, whose times of day are text), the fields of
// string columns at cells null (csvNullScan).
func parseCSVPiece(data []byte, sch, rsch *arrow.Schema, times []bool, types csvTypes, cells []csvCell, copts []csv.Option, mem memory.Allocator) (rec arrow.Record, err error) {
	defer func() {
		// arrow-go's reader panics on some malformed input
		if r := recover(); r != nil {
			rec, err = nil, fmt.Errorf("%v", r)
		}
	}()
	r := csv.NewReader(bytes.NewReader(data), rsch, copts...)
	defer r.Release()
	var out arrow.Record
	for r.Next() {
		got := r.Record()
		if out != nil {
			// a piece holds at most one batch of records
			out.Release()
			return nil, fmt.Errorf("more records than a batch")
		}
		if out, err = csvBatch(got, sch, times, types, cells, mem); err != nil {
			return nil, err
		}
	}
	if err := r.Err(); err != nil && !errors.Is(err, io.EOF) {
		if out != nil {
			out.Release()
		}
		return nil, err
	}
	return out, nil
}

func (c *csvParallel) Schema() *arrow.Schema { return c.sch }

// Next returns the batches in file order.
func (c *csvParallel) Next() (arrow.Record, error) {
	if c.err != nil {
		return nil, c.err
	}
	for {
		p, ok := <-c.order
		if !ok {
			c.err = io.EOF
			return nil, io.EOF
		}
		<-p.done
		if p.err != nil {
			c.err = p.err
			return nil, p.err
		}
		if p.rec == nil {
			continue // a piece of empty lines only
		}
		return p.rec, nil
	}
}

// Extent counts the bytes the splitter has consumed against the file size.
func (c *csvParallel) Extent() (int64, int64, string) {
	return c.cr.n.Load(), c.size, "bytes"
}

// Close stops the goroutines and releases the batches not returned.
func (c *csvParallel) Close() error {
	err := errors.New("interop: csv: closed twice")
	c.once.Do(func() {
		close(c.stop)
		for p := range c.order {
			<-p.done
			if p.rec != nil {
				p.rec.Release()
			}
		}
		c.wg.Wait()
		err = c.f.Close()
	})
	return err
}
