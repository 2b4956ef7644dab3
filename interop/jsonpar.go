package interop

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// jsonParallel reads a JSON-lines file on several goroutines: one cuts the
// file into pieces of whole lines, a batch's worth each, and the others
// check and parse the pieces into batches, which Next returns in file
// order. Checking each line (json.Valid) and appending its values, the
// costly part of reading JSON, so runs in parallel.
//
// The records and errors are the serial reader's (jsonReader): a line
// that is not exactly one JSON object (an object across lines, two on a
// line, a line longer than the splitter's buffer, anything malformed)
// ends the parallel reading at that line, and a serial reader in decoder
// mode reads the rest of the file from its first byte, as jsonRecords'
// own fallback does, reporting what is wrong as it always has.
type jsonParallel struct {
	jsonColumns
	f       input
	size    int64
	sch     *arrow.Schema
	rows    int
	mem     memory.Allocator
	order   chan *jsonPiece // pieces in file order, bounded
	stop    chan struct{}   // closed to stop the splitter and workers
	stopped sync.Once
	once    sync.Once
	wg      sync.WaitGroup
	read    atomic.Int64 // bytes the splitter has consumed
	err     error        // sticky: the first error Next returned
	serial  *jsonReader  // after a fallback, the rest of the file
}

// jsonPiece is a run of whole lines of the file, each holding something
// other than whitespace, and once done is closed, its batch (the lines
// before a fallback, if any) or an error.
type jsonPiece struct {
	off   int64   // file offset of data[0]
	rec0  int     // records before the piece
	data  []byte  // the lines
	lines []int32 // where each line starts in data; the last entry is len(data)
	// tail is set on the last piece when the splitter met a line it
	// cannot cut (longer than its buffer) at file offset tailOff.
	tail    bool
	tailOff int64
	done    chan struct{}
	rec     arrow.Record
	err     error
	// fallback is the index of the first line that is not exactly one
	// object (-1: none); the serial reader starts there.
	fallback int
}

// jsonSplitBuffer bounds the line the splitter cuts; a longer one ends
// the parallel reading there (a variable for tests).
var jsonSplitBuffer = 1 << 20

func openJSONParallel(f input, size int64, sch *arrow.Schema, infer, rows, threads int, mem memory.Allocator) *jsonParallel {
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	workers := min(max(1, threads), 8)
	j := &jsonParallel{jsonColumns: newJSONColumns(sch, infer), f: f, size: size, sch: sch, rows: rows, mem: mem,
		order: make(chan *jsonPiece, workers), stop: make(chan struct{})}
	work := make(chan *jsonPiece)
	j.wg.Add(1 + workers)
	go func() {
		defer j.wg.Done()
		defer close(work)
		defer close(j.order)
		j.split(work)
	}()
	for range workers {
		go func() {
			defer j.wg.Done()
			b := array.NewRecordBuilder(mem, sch)
			defer b.Release()
			vals := make([]json.RawMessage, len(j.fields))
			for p := range work {
				j.parse(p, b, vals)
				p.data = nil
				close(p.done)
			}
		}()
	}
	return j
}

// split cuts the file into pieces of up to rows non-blank lines.
func (j *jsonParallel) split(work chan<- *jsonPiece) {
	br := bufio.NewReaderSize(io.NewSectionReader(j.f, 0, j.size), jsonSplitBuffer)
	var off int64 // file offset of the next line
	p := &jsonPiece{off: 0, fallback: -1}
	emit := func(q *jsonPiece) bool {
		q.lines = append(q.lines, int32(len(q.data)))
		q.done = make(chan struct{})
		select {
		case j.order <- q:
		case <-j.stop:
			return false
		}
		select {
		case work <- q:
			return true
		case <-j.stop:
			q.err = errors.New("interop: json: reader closed")
			close(q.done)
			return false
		}
	}
	records := 0
	for {
		line, err := br.ReadSlice('\n')
		j.read.Store(off + int64(len(line)))
		if err == bufio.ErrBufferFull {
			// a line the pieces cannot hold: the serial reader takes the
			// file from there
			p.tail, p.tailOff = true, off
			emit(p)
			return
		}
		if err != nil && err != io.EOF {
			p.err = fmt.Errorf("interop: json: %w", err)
			emit(p)
			return
		}
		// A piece starts at its first record's line and holds every line
		// from there, blank ones too, so that a line's offset in the file
		// is off plus its offset in data.
		switch {
		case len(trimJSONSpace(line)) > 0:
			if len(p.lines) == 0 {
				p.off = off
			}
			p.lines = append(p.lines, int32(len(p.data)))
			p.data = append(p.data, line...)
			records++
		case len(p.lines) > 0:
			p.data = append(p.data, line...)
		}
		off += int64(len(line))
		if len(p.lines) == j.rows || (err == io.EOF && len(p.lines) > 0) {
			next := &jsonPiece{off: off, rec0: records, fallback: -1, data: make([]byte, 0, len(p.data)+len(p.data)/8)}
			if !emit(p) {
				return
			}
			p = next
		}
		if err == io.EOF {
			return
		}
	}
}

// parse appends the records of p's lines to b and makes p's batch,
// stopping at the first line that is not exactly one object.
func (j *jsonParallel) parse(p *jsonPiece, b *array.RecordBuilder, vals []json.RawMessage) {
	if p.err != nil {
		return
	}
	n := 0
	for i := 0; i+1 < len(p.lines); i++ {
		rec := trimJSONSpace(p.data[p.lines[i]:p.lines[i+1]])
		if rec[0] != '{' || !json.Valid(rec) {
			p.fallback = i
			break
		}
		if err := j.appendRecord(b, vals, rec, p.rec0+i+1); err != nil {
			p.err = err
			b.NewRecord().Release() // drop the partial batch
			return
		}
		n++
	}
	if n > 0 {
		p.rec = b.NewRecord()
	}
}

func (j *jsonParallel) Schema() *arrow.Schema { return j.sch }

// Next returns the batches in file order.
func (j *jsonParallel) Next() (arrow.Record, error) {
	if j.err != nil {
		return nil, j.err
	}
	if j.serial != nil {
		rec, err := j.serial.Next()
		if err != nil {
			j.err = err
		}
		return rec, err
	}
	for {
		p, ok := <-j.order
		if !ok {
			j.err = io.EOF
			return nil, io.EOF
		}
		<-p.done
		if p.err != nil {
			j.err = p.err
			return nil, p.err
		}
		if p.fallback >= 0 || p.tail {
			// the serial reader takes the rest of the file
			from, rec0 := p.tailOff, p.rec0+len(p.lines)-1
			if p.fallback >= 0 {
				from, rec0 = p.off+int64(p.lines[p.fallback]), p.rec0+p.fallback
			}
			j.halt()
			dec := json.NewDecoder(bufio.NewReaderSize(io.NewSectionReader(j.f, from, j.size-from), 1<<16))
			j.serial = &jsonReader{jsonColumns: j.jsonColumns, f: j.f, recs: &jsonRecords{dec: dec, n: rec0}, sch: j.sch,
				b: array.NewRecordBuilder(j.mem, j.sch), rows: j.rows, vals: make([]json.RawMessage, len(j.fields))}
			if p.rec != nil {
				return p.rec, nil
			}
			return j.Next()
		}
		if p.rec == nil {
			continue
		}
		return p.rec, nil
	}
}

// halt stops the splitter and the workers and releases the batches not
// returned.
func (j *jsonParallel) halt() {
	j.stopped.Do(func() {
		close(j.stop)
		for p := range j.order {
			<-p.done
			if p.rec != nil {
				p.rec.Release()
			}
		}
		j.wg.Wait()
	})
}

// Extent counts the bytes the splitter has consumed against the file size.
func (j *jsonParallel) Extent() (int64, int64, string) {
	return j.read.Load(), j.size, "bytes"
}

// Close stops the goroutines and releases what was not returned.
func (j *jsonParallel) Close() error {
	err := errors.New("interop: json: closed twice")
	j.once.Do(func() {
		j.halt()
		if j.serial != nil {
			j.serial.b.Release()
		}
		err = j.f.Close()
	})
	return err
}
