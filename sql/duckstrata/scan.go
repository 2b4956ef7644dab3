package duckstrata

/*
#include <stdint.h>
#include <stdlib.h>
void strataBind(void *);
void strataInit(void *);
void strataFunction(void *, void *);
void strataDelete(void *);
*/
import "C"

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"runtime/cgo"
	"sync"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/duckdb/duckdb-go/v2/mapping"

	"strata"
	"strata/iox"
	"strata/read"
)

// The table function is written against DuckDB's C API (through duckdb-go's
// mapping package) rather than duckdb-go's TableUDF layer, which sets one
// value per call: here a batch of a fixed-width column is one copy and a
// batch of strings one C call.
//
// Life of a query:
//   - bind (once per reference in a query): open the file, declare its
//     columns, remember the filter; the bind data lives until the query's
//     plan is destroyed.
//   - init (once per execution): read DuckDB's projection and cut the
//     file into stripe-aligned splits.
//   - local init (once per DuckDB thread): an empty cursor.
//   - function (repeatedly, from every thread): fill one DuckDB chunk of up
//     to 2048 rows.
//
// The threads share the work through the global state: a thread that needs
// rows carves the next up-to-2048 rows off a decoded batch waiting in the
// queue; only when the queue is empty does it decode, by taking an idle
// Strata scanner (or opening one on the next split) and calling its Next.
// So decoding is spread over the splits' scanners, and DuckDB's own work on
// the rows (filters, aggregates) over all threads even when the file has
// fewer stripes than DuckDB has threads.

// handle stores a cgo.Handle in C memory, where DuckDB keeps a pointer to
// it until it calls strataDelete.
func newHandle(v any) unsafe.Pointer {
	p := C.malloc(C.size_t(unsafe.Sizeof(cgo.Handle(0))))
	*(*cgo.Handle)(p) = cgo.NewHandle(v)
	return p
}

func handleValue(p unsafe.Pointer) any { return (*(*cgo.Handle)(p)).Value() }

//export strataDelete
func strataDelete(p unsafe.Pointer) {
	h := *(*cgo.Handle)(p)
	if c, ok := h.Value().(interface{ close() }); ok {
		c.close()
	}
	h.Delete()
	C.free(p)
}

// functionInfo is the table function's registration-time data.
type functionInfo struct {
	cfg *config
}

// bindData is one bound reference to a Strata file, or to the files a
// pattern matches (read as one table).
type bindData struct {
	path   string // as the query wrote it
	where  string
	files  []*strata.File
	paths  []string // files[i]'s path
	rows   int64    // of all the files
	cols   []column
	splits []fileSplit
	// union: the files are read by column name (union_by_name := true);
	// schema is the union of their columns.
	union  bool
	schema *arrow.Schema
	// fileWhere[i] is the filter as file i reads it where some file lacks
	// a column or FlatMap key it names (filter.AssumeNull's rewrite;
	// noRow: none of its rows passes); nil: every file reads where.
	fileWhere []string
}

// fileSplit is a split of one of a bound reference's files.
type fileSplit struct {
	file  int
	split strata.Split
}

func (b *bindData) close() {
	for _, f := range b.files {
		f.Close()
	}
	b.files = nil
}

//export strataBind
func strataBind(p unsafe.Pointer) {
	info := mapping.BindInfo{Ptr: p}
	fi := handleValue(mapping.BindGetExtraInfo(info)).(*functionInfo)
	b, err := bind(fi, info)
	if err != nil {
		mapping.BindSetError(info, err.Error())
		return
	}
	for _, c := range b.cols {
		lt := c.logical()
		mapping.BindAddResultColumn(info, c.duck, lt)
		mapping.DestroyLogicalType(&lt)
	}
	mapping.BindSetCardinality(info, mapping.IdxT(b.rows), b.where == "")
	mapping.BindSetBindData(info, newHandle(b), unsafe.Pointer(C.strataDelete))
}

func varcharParam(v mapping.Value) (string, bool) {
	if v.Ptr == nil || mapping.IsNullValue(v) {
		return "", false
	}
	return mapping.GetVarchar(v), true
}

func bind(fi *functionInfo, info mapping.BindInfo) (*bindData, error) {
	v := mapping.BindGetParameter(info, 0)
	path, ok := varcharParam(v)
	mapping.DestroyValue(&v)
	if !ok || path == "" {
		return nil, errors.New("strata_scan: the first argument is the file's path or URL, or a pattern of local files")
	}
	b := &bindData{path: path}
	v = mapping.BindGetNamedParameter(info, "filter")
	b.where, _ = varcharParam(v)
	mapping.DestroyValue(&v)
	v = mapping.BindGetNamedParameter(info, "union_by_name")
	b.union = v.Ptr != nil && !mapping.IsNullValue(v) && mapping.GetBool(v)
	mapping.DestroyValue(&v)
	// the files Pushdown listed for this query, else a listing of our own
	v = mapping.BindGetNamedParameter(info, "listing")
	tok, _ := varcharParam(v)
	mapping.DestroyValue(&v)
	paths, ok := takeListing(tok, path)
	if !ok {
		var err error
		if paths, err = expandPaths(context.Background(), path); err != nil {
			return nil, err
		}
	}
	if err := b.open(fi.cfg, paths); err != nil {
		b.close()
		return nil, err
	}
	return b, nil
}

// openAhead is how many files of a pattern bind opens at once: opening an
// object costs a round trip, which a pattern over hundreds of objects
// would otherwise pay one after another.
var openAhead = 16

// open opens every file of the reference, checks that they hold the same
// columns, compiles the filter and cuts the files into splits.
func (b *bindData) open(cfg *config, paths []string) error {
	files := make([]*strata.File, len(paths))
	errs := make([]error, len(paths))
	var wg sync.WaitGroup
	sem := make(chan struct{}, openAhead)
	for i, p := range paths {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			files[i], errs[i] = cfg.open(context.Background(), p)
			<-sem
		}()
	}
	wg.Wait()
	var openErr error
	for i, f := range files {
		if errs[i] != nil {
			openErr = cmp.Or(openErr, errs[i])
			continue
		}
		// (every file opened is kept, so close releases them all)
		b.files = append(b.files, f)
		b.paths = append(b.paths, paths[i])
		b.rows += f.NumRows()
	}
	if openErr != nil {
		return openErr
	}
	first := b.files[0].Schema()
	if b.union {
		if err := b.unite(); err != nil {
			return err
		}
		first = b.schema
	}
	duck := duckNames(fieldNames(first.Fields()))
	for i, fl := range first.Fields() {
		c, err := columnOf(fl)
		if err != nil {
			return fmt.Errorf("strata_scan %s: %w", b.paths[0], err)
		}
		c.duck = duck[i]
		b.cols = append(b.cols, c)
	}
	for i, f := range b.files[1:] {
		if b.union {
			break
		}
		if err := sameColumns(first, f.Schema()); err != nil {
			return fmt.Errorf("strata_scan %s: %s and %s differ: %w (union_by_name := true reads them by column name)",
				b.path, b.paths[0], b.paths[i+1], err)
		}
	}
	if err := b.fileWheres(); err != nil {
		return err
	}
	if b.where != "" && !b.union {
		// Compile the filter now, so a wrong one fails the query at bind
		// time with the file's message (unknown column, bad literal). The
		// files hold the same columns, so one file tells for all: the
		// first whose rows the filter may pass, as that file reads it
		// (its FlatMap keys may be others').
		for i, f := range b.files {
			where := b.where
			if b.fileWhere != nil {
				where = b.fileWhere[i]
			}
			if where == noRow {
				continue
			}
			sc, err := f.Scan(strata.ScanOptions{Columns: []string{b.cols[0].name}, Where: where, Limit: 1})
			if err != nil {
				return fmt.Errorf("strata_scan %s: filter %q: %w", b.paths[i], b.where, err)
			}
			sc.Close()
			break
		}
	}
	for i, f := range b.files {
		if b.skipped(i) {
			continue // no row of it can pass the filter
		}
		for _, sp := range f.Splits(cfg.splitBytes) {
			b.splits = append(b.splits, fileSplit{file: i, split: sp})
		}
	}
	return nil
}

// remote reports whether any of the table's files is read from a URL
// (object storage, HTTP) rather than a local path.
func (b *bindData) remote() bool {
	if prefetchLocal {
		return true
	}
	for _, p := range b.paths {
		if sc := iox.Scheme(p); sc != "" && sc != "file" {
			return true
		}
	}
	return false
}

// sameColumns reports how b's columns differ from a's, if they do: their
// number, a name or a type (nullability aside: a column may hold no null
// in one file and some in another).
func sameColumns(a, b *arrow.Schema) error {
	if a.NumFields() != b.NumFields() {
		return fmt.Errorf("%d columns against %d", a.NumFields(), b.NumFields())
	}
	for i, fa := range a.Fields() {
		fb := b.Field(i)
		if fa.Name != fb.Name || !arrow.TypeEqual(fa.Type, fb.Type) {
			return fmt.Errorf("column %d is %s %s against %s %s", i+1, fa.Name, fa.Type, fb.Name, fb.Type)
		}
	}
	return nil
}

// rowIDColumn is the index DuckDB passes for its virtual rowid column.
const rowIDColumn = ^uint64(0)

// scanState is the state of one execution of a bound scan, shared by the
// threads.
type scanState struct {
	b *bindData
	// out[i] is the position, in the records the scanners return, of
	// DuckDB's output column i, or -1 for a column the file does not have.
	out []int
	// cols are the file's column numbers for out's positions.
	cols  []int
	names []string
	// countOnly: DuckDB needs rows but no columns (count(*) without a
	// filter): rows are counted from the file's metadata.
	countOnly bool
	nested    bool
	// target: with union_by_name, the schema of the records handed out
	// (names' columns of the union), which each file's are conformed to.
	target *arrow.Schema

	mu      sync.Mutex
	cond    sync.Cond
	next    int // next split to open
	idle    []splitScanner
	busy    int // scanners being read by a thread or a prefetcher
	queue   []arrow.Record
	queued  int64 // bytes of the records in queue
	headOff int64 // rows of queue[0] already handed out
	left    int64 // countOnly: rows still to emit
	err     error
	closed  bool
	// prefetchers read splits ahead of DuckDB's threads (remote files).
	prefetchers sync.WaitGroup
}

// Over object storage a split's read is a round trip of tens of
// milliseconds, and DuckDB's threads (one per core) would have only as
// many in flight as there are cores. So for tables whose files are not
// local, prefetchSplits goroutines read whole splits ahead of the
// threads, holding at most prefetchBytes of decoded records.
const prefetchBytes = 256 << 20

var (
	prefetchSplits = 8
	// prefetchLocal makes scans of local files read ahead too (tests).
	prefetchLocal bool
)

// splitScanner is a scanner of one split, and the file it reads.
type splitScanner struct {
	*strata.Scanner
	file int
}

//export strataInit
func strataInit(p unsafe.Pointer) {
	info := mapping.InitInfo{Ptr: p}
	b := handleValue(mapping.InitGetBindData(info)).(*bindData)
	s := &scanState{b: b}
	s.cond.L = &s.mu
	n := int(mapping.InitGetColumnCount(info))
	seen := map[int]int{}
	for i := range n {
		src := uint64(mapping.InitGetColumnIndex(info, mapping.IdxT(i)))
		if src >= uint64(len(b.cols)) {
			s.out = append(s.out, -1) // rowid or another virtual column
			continue
		}
		c := int(src)
		if at, ok := seen[c]; ok {
			s.out = append(s.out, at)
			continue
		}
		seen[c] = len(s.cols)
		s.out = append(s.out, len(s.cols))
		s.cols = append(s.cols, c)
		s.names = append(s.names, b.cols[c].name)
		s.nested = s.nested || b.cols[c].nested
	}
	if len(s.cols) == 0 {
		if b.where == "" {
			s.countOnly = true
			s.left = b.rows
		} else {
			// Rows that pass the filter are counted on the cheapest
			// column to read: the first fixed-width one.
			c := cheapestColumn(b.cols)
			s.cols, s.names = []int{c}, []string{b.cols[c].name}
		}
	}
	if b.union && !s.countOnly {
		fields := make([]arrow.Field, len(s.cols))
		for i, c := range s.cols {
			fields[i] = b.schema.Field(c)
		}
		s.target = arrow.NewSchema(fields, nil)
	}
	if !s.countOnly && b.remote() {
		for range min(prefetchSplits, len(b.splits)) {
			s.prefetchers.Add(1)
			go s.prefetch()
		}
	}
	threads := max(len(b.splits), runtime.NumCPU())
	mapping.InitSetMaxThreads(info, mapping.IdxT(threads))
	mapping.InitSetInitData(info, newHandle(s), unsafe.Pointer(C.strataDelete))
}

func cheapestColumn(cols []column) int {
	for i, c := range cols {
		switch c.arrow.ID() {
		case arrow.STRING, arrow.BINARY, arrow.LARGE_STRING, arrow.LARGE_BINARY:
			continue
		}
		if !c.nested {
			return i
		}
	}
	return 0
}

func (s *scanState) close() {
	s.mu.Lock()
	s.closed = true
	s.cond.Broadcast()
	s.mu.Unlock()
	s.prefetchers.Wait() // each stops after the batch it is reading
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, sc := range s.idle {
		sc.Close()
	}
	s.idle = nil
	for _, r := range s.queue {
		r.Release()
	}
	s.queue = nil
}

// piece is rows [lo, hi) of a record handed to one thread.
type piece struct {
	rec    arrow.Record
	lo, hi int64
}

// take returns the next piece of at most max rows, or io.EOF.
func (s *scanState) take(max int64) (piece, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for {
		if s.err != nil {
			return piece{}, s.err
		}
		if s.countOnly {
			if s.left == 0 {
				return piece{}, io.EOF
			}
			n := min(s.left, max)
			s.left -= n
			return piece{hi: n}, nil
		}
		if len(s.queue) > 0 {
			r := s.queue[0]
			lo := s.headOff
			hi := min(lo+max, r.NumRows())
			r.Retain()
			if hi == r.NumRows() {
				s.queued -= read.RecordBytes(r)
				r.Release()
				s.queue = s.queue[1:]
				s.headOff = 0
				s.cond.Broadcast() // room for the prefetchers
			} else {
				s.headOff = hi
			}
			return piece{rec: r, lo: lo, hi: hi}, nil
		}
		var sc splitScanner
		switch {
		case len(s.idle) > 0:
			sc = s.idle[len(s.idle)-1]
			s.idle = s.idle[:len(s.idle)-1]
		case s.next < len(s.b.splits):
			sp := &s.b.splits[s.next]
			s.next++
			var err error
			sc.file = sp.file
			sc.Scanner, err = s.b.files[sp.file].Scan(s.options(sp))
			if err != nil {
				s.err = fmt.Errorf("strata_scan %s: %w", s.b.paths[sp.file], err)
				return piece{}, s.err
			}
		case s.busy > 0:
			s.cond.Wait()
			continue
		default:
			return piece{}, io.EOF
		}
		s.busy++
		s.mu.Unlock()
		rec, err := sc.Next()
		if err == nil && s.b.union {
			rec, err = s.conform(rec)
		}
		if err == nil && s.nested {
			var conv arrow.Record
			conv, err = duckRecord(rec, memory.DefaultAllocator)
			rec.Release()
			rec = conv
		}
		s.mu.Lock()
		s.busy--
		s.cond.Broadcast()
		switch {
		case err == io.EOF:
			sc.Close()
		case err != nil:
			sc.Close()
			s.err = fmt.Errorf("strata_scan %s: %w", s.b.paths[sc.file], err)
		case s.closed:
			sc.Close()
			rec.Release()
		default:
			s.idle = append(s.idle, sc)
			s.enqueue(rec)
		}
	}
}

// enqueue adds a record to the queue (s.mu held), dropping an empty one.
func (s *scanState) enqueue(rec arrow.Record) {
	if rec.NumRows() == 0 {
		rec.Release()
		return
	}
	s.queue = append(s.queue, rec)
	s.queued += read.RecordBytes(rec)
	s.cond.Broadcast()
}

// prefetch reads whole splits into the queue, the next unclaimed one each
// time, while the queue holds less than prefetchBytes, until none is left
// or the scan ends.
func (s *scanState) prefetch() {
	defer s.prefetchers.Done()
	s.mu.Lock()
	defer s.mu.Unlock()
	for {
		for !s.closed && s.err == nil && s.next < len(s.b.splits) && s.queued >= prefetchBytes {
			s.cond.Wait()
		}
		if s.closed || s.err != nil || s.next >= len(s.b.splits) {
			return
		}
		sp := &s.b.splits[s.next]
		s.next++
		s.busy++
		s.mu.Unlock()
		err := s.readSplit(sp)
		s.mu.Lock()
		s.busy--
		s.cond.Broadcast()
		if err != nil && s.err == nil && !s.closed {
			s.err = fmt.Errorf("strata_scan %s: %w", s.b.paths[sp.file], err)
		}
	}
}

// readSplit reads every batch of one split into the queue, stopping early
// when the scan is closed or failed.
func (s *scanState) readSplit(sp *fileSplit) error {
	sc, err := s.b.files[sp.file].Scan(s.options(sp))
	if err != nil {
		return err
	}
	defer sc.Close()
	for {
		rec, err := sc.Next()
		if err == io.EOF {
			return nil
		}
		if err == nil && s.b.union {
			rec, err = s.conform(rec)
		}
		if err == nil && s.nested {
			var conv arrow.Record
			conv, err = duckRecord(rec, memory.DefaultAllocator)
			rec.Release()
			rec = conv
		}
		if err != nil {
			return err
		}
		s.mu.Lock()
		stop := s.closed || s.err != nil
		if stop {
			rec.Release()
		} else {
			s.enqueue(rec)
		}
		s.mu.Unlock()
		if stop {
			return nil
		}
	}
}

//export strataFunction
func strataFunction(infoPtr, chunkPtr unsafe.Pointer) {
	info := mapping.FunctionInfo{Ptr: infoPtr}
	chunk := mapping.DataChunk{Ptr: chunkPtr}
	s := handleValue(mapping.FunctionGetInitData(info)).(*scanState)
	pc, err := s.take(int64(mapping.VectorSize()))
	if err == io.EOF {
		mapping.DataChunkSetSize(chunk, 0)
		return
	}
	if err != nil {
		mapping.FunctionSetError(info, err.Error())
		return
	}
	n := int(pc.hi - pc.lo)
	for i, at := range s.out {
		vec := mapping.DataChunkGetVector(chunk, mapping.IdxT(i))
		if at < 0 || pc.rec == nil {
			fillNull(vec, n)
			continue
		}
		a := pc.rec.Column(at)
		c := &s.b.cols[s.cols[at]]
		fillValidity(vec, a, int(pc.lo), n)
		if err := c.fill(vec, a, int(pc.lo), n); err != nil {
			pc.rec.Release()
			mapping.FunctionSetError(info, fmt.Sprintf("strata_scan %s: column %s: %v", s.b.path, quoteIdent(c.name), err))
			return
		}
	}
	if pc.rec != nil {
		pc.rec.Release()
	}
	mapping.DataChunkSetSize(chunk, mapping.IdxT(n))
}
