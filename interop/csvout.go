package interop

import (
	"bytes"
	"encoding/base64"
	stdcsv "encoding/csv"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

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
	comma rune
	nulls *csvNullOut
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

func newCSVParallelSink(f io.WriteCloser, sch *arrow.Schema, text []csvText, comma rune, nulls *csvNullOut, threads int, mem memory.Allocator) *csvParallelSink {
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	threads = min(threads, maxCSVWriters)
	s := &csvParallelSink{f: f, sch: sch, text: text, comma: comma, nulls: nulls, mem: mem,
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
	if err := formatCSV(buf, out, s.sch, s.comma, s.nulls, j.header); err != nil {
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

// CSVWriter writes records as CSV export writes a file: a header, then a
// line per row, a null as an empty unquoted field and an empty string (or
// empty binary value) as "", the way DuckDB and PostgreSQL write them, and
// a string that is a null word of import (NULL, null) quoted, "NULL", so
// that import reads each back as what it was (csvNullScan). In a table
// of one column a null is NULL instead, as an empty field there is an
// empty line, which CSV readers skip. NewCSVWriterNulls adds null words
// of the caller's. Records are of the schema CSVRecord returns.
type CSVWriter struct {
	w      io.Writer
	sch    *arrow.Schema
	comma  rune
	nulls  *csvNullOut
	header bool // the header is still to be written
	buf    bytes.Buffer
	err    error // sticky: the first error
}

// NewCSVWriter returns a CSVWriter of records of sch writing to w, fields
// separated by comma.
func NewCSVWriter(w io.Writer, sch *arrow.Schema, comma rune) *CSVWriter {
	return &CSVWriter{w: w, sch: sch, comma: comma, nulls: newCSVNullOut(sch, nil), header: true}
}

// NewCSVWriterNulls is NewCSVWriter for a file read back with null words
// of its own (import's ReadOptions.CSVNulls, DuckDB's nullstr, R's NA):
// a null is written as the first of words, bare, and a string equal to
// any of them quoted, as the standard null words are, so that an
// importer given the same words reads a null back as null and the string
// as text. A value of a column of another type whose text is one of the
// words (a float NaN with the word NaN) fails the Write: an importer
// reads it as null quoted or not; so does a string, or a time of day,
// equal to a word that reads as a value (a number, date, time), since
// import types a column of such strings. With no words it is
// NewCSVWriter. A word holding a quote, comma or line break cannot be
// written bare and is refused, as is a first word CSV quotes on its own
// (beginning with a space, or \.).
func NewCSVWriterNulls(w io.Writer, sch *arrow.Schema, comma rune, words []string) (*CSVWriter, error) {
	if err := checkCSVNullWords(words, comma); err != nil {
		return nil, err
	}
	return &CSVWriter{w: w, sch: sch, comma: comma, nulls: newCSVNullOut(sch, words), header: true}, nil
}

// Write writes rec's rows (after the header, on the first call); each call
// writes its text to the underlying writer before it returns.
func (c *CSVWriter) Write(rec arrow.Record) error {
	if c.err != nil {
		return c.err
	}
	c.buf.Reset()
	if err := formatCSV(&c.buf, rec, c.sch, c.comma, c.nulls, c.header); err != nil {
		c.err = err
		return err
	}
	c.header = false
	if _, err := c.w.Write(c.buf.Bytes()); err != nil {
		c.err = fmt.Errorf("interop: csv: %w", err)
	}
	return c.err
}

// Flush returns the first error of a Write: each Write writes its text
// through, so there is nothing to flush (the method matches arrow-go's
// CSV writer, which this type replaces).
func (c *CSVWriter) Flush() error { return c.err }

// Error returns the first error of a Write.
func (c *CSVWriter) Error() error { return c.err }

// csvNullOut is how a CSV writer writes nulls and which strings it
// quotes so that they do not read back as nulls.
type csvNullOut struct {
	null   string   // a null's field text
	words  []string // the null words of the reader: csvNulls and custom
	custom []string // the caller's words (checked in columns of other types)
	// typed are the words of custom that import's inference reads as a
	// value (a number, boolean, date, time or timestamp): in a column of
	// strings that all read so, import types the column, and the word is
	// null there quoted or not (checkTyped).
	typed  []string
	maxLen int // the length of the longest of words
}

// newCSVNullOut is how a CSV file of sch writes nulls when its reader
// takes custom (nil: none) for null besides csvNulls: as the first of
// custom, else as an empty field, or NULL in a file of one column, where
// an empty field is an empty line (read back as null: csvNulls).
func newCSVNullOut(sch *arrow.Schema, custom []string) *csvNullOut {
	n := &csvNullOut{words: append(slices.Clip(csvNulls), custom...), custom: custom}
	for _, w := range n.words {
		n.maxLen = max(n.maxLen, len(w))
	}
	for _, w := range custom {
		if w != "" && narrowKinds(inferAll, w) != 0 {
			n.typed = append(n.typed, w)
		}
	}
	switch {
	case len(custom) > 0 && custom[0] != "":
		n.null = custom[0]
	case sch.NumFields() == 1:
		n.null = "NULL"
	}
	return n
}

// checkCSVNullWords returns an error for a null word a CSV file separated
// by comma cannot hold as a bare field: one holding a quote, the
// separator or a line break; and for a first word, the one nulls are
// written as, that encoding/csv quotes on its own (one beginning with a
// space, or \.): quoted, a reader takes it for a string.
func checkCSVNullWords(words []string, comma rune) error {
	for _, w := range words {
		if strings.ContainsAny(w, "\"\r\n"+string(comma)) {
			return fmt.Errorf("interop: csv: null word %q: a null word may not hold a quote, the separator %q or a line break", w, comma)
		}
	}
	if len(words) > 0 && csvQuotesAlone(words[0]) {
		return fmt.Errorf("interop: csv: first null word %q: nulls are written as the first word, and CSV writes one beginning with a space, or \\., quoted, which reads back as a string (put another word first)", words[0])
	}
	return nil
}

// csvQuotesAlone reports whether encoding/csv writes s quoted though it
// holds no quote, separator or line break: s is \. (a PostgreSQL end of
// data marker) or begins with a Unicode space.
func csvQuotesAlone(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return s == `\.` || s != "" && unicode.IsSpace(r)
}

// formatCSV appends rec's rows as CSV text to dst, after the header when
// header is set. arrow-go's writer formats the values; it writes an empty
// string as an empty field, as a null, and NULL unquoted, as a null of a
// table of one column, since encoding/csv quotes neither, so the fields of
// those values are then quoted (see quoteCells). An empty column name is
// written "" too.
func formatCSV(dst *bytes.Buffer, rec arrow.Record, sch *arrow.Schema, comma rune, nulls *csvNullOut, header bool) error {
	if header {
		names := make([]string, sch.NumFields())
		for i, f := range sch.Fields() {
			names[i] = f.Name
		}
		if err := csvHeader(dst, names, comma); err != nil {
			return err
		}
	}
	// (a timestamp or date of a year past 9999 or before 0 as text with
	// a signed year, not arrow-go's raw integer)
	rec, sch = csvFarYears(rec, sch, memory.DefaultAllocator)
	defer rec.Release()
	quote, rows, err := quotedCells(rec, nulls)
	if err != nil {
		return err
	}
	if rows == nil {
		return csvRows(dst, rec, sch, comma, nulls.null)
	}
	var text bytes.Buffer
	if err := csvRows(&text, rec, sch, comma, nulls.null); err != nil {
		return err
	}
	return quoteCells(dst, text.Bytes(), quote, rows, []byte(string(comma)))
}

// csvHeader appends the header line of names to dst, an empty name as "".
func csvHeader(dst *bytes.Buffer, names []string, comma rune) error {
	var line bytes.Buffer
	w := stdcsv.NewWriter(&line)
	w.Comma = comma
	if err := w.Write(names); err != nil {
		return fmt.Errorf("interop: csv: header: %w", err)
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return fmt.Errorf("interop: csv: header: %w", err)
	}
	empty := make([]func(int) bool, len(names))
	some := false
	for i, name := range names {
		if name == "" {
			empty[i], some = func(int) bool { return true }, true
		}
	}
	if !some {
		dst.Write(line.Bytes())
		return nil
	}
	return quoteCells(dst, line.Bytes(), empty, []bool{true}, []byte(string(comma)))
}

// csvRows appends rec's rows, formatted by arrow-go's writer (no header,
// nulls as null), to dst.
func csvRows(dst *bytes.Buffer, rec arrow.Record, sch *arrow.Schema, comma rune, null string) error {
	w := csv.NewWriter(dst, sch, csv.WithHeader(false), csv.WithNullWriter(null), csv.WithComma(comma))
	if err := w.Write(rec); err != nil {
		return fmt.Errorf("interop: csv: %w", err)
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("interop: csv: %w", err)
	}
	return nil
}

// quotedCells finds rec's values that CSV must write quoted to tell them
// from nulls: those whose text is empty (empty strings and binary values,
// values of extension types of empty text) or one of the null words of
// the reader (nulls.words: csvNulls and the caller's), binary values in
// the base64 CSV writes them in. It returns per
// column a test of a row, nil for columns of none, and which rows hold
// any (nil when none does). A value of another type whose text is one of
// the caller's words is an error: quoted or not, it reads back as null;
// so is a string equal to one of them that reads as a value (checkTyped).
func quotedCells(rec arrow.Record, nulls *csvNullOut) (quote []func(int) bool, rows []bool, err error) {
	n := int(rec.NumRows())
	quote = make([]func(int) bool, rec.NumCols())
	for c, a := range rec.Columns() {
		var f func(int) bool
		switch a := a.(type) {
		case *array.String:
			if err := nulls.checkTyped(a, a.Value, rec.ColumnName(c)); err != nil {
				return nil, nil, err
			}
			f = func(i int) bool { return a.IsValid(i) && nulls.isNullText(a.ValueLen(i), a.Value, i) }
		case *array.LargeString:
			if err := nulls.checkTyped(a, a.Value, rec.ColumnName(c)); err != nil {
				return nil, nil, err
			}
			f = func(i int) bool { return a.IsValid(i) && nulls.isNullText(a.ValueLen(i), a.Value, i) }
		case *array.Binary:
			f = func(i int) bool { return a.IsValid(i) && nulls.isBase64Null(a.Value(i)) }
		case *array.LargeBinary:
			f = func(i int) bool { return a.IsValid(i) && nulls.isBase64Null(a.Value(i)) }
		case array.ExtensionArray:
			f = func(i int) bool { return a.IsValid(i) && isCSVNull(a.ValueStr(i), nulls.words) }
		default:
			if err := nulls.checkValues(a, rec.ColumnName(c)); err != nil {
				return nil, nil, err
			}
			continue
		}
		for i := range n {
			if f(i) {
				if rows == nil {
					rows = make([]bool, n)
				}
				rows[i] = true
				quote[c] = f
			}
		}
	}
	return quote, rows, nil
}

// isNullText reports whether value i of a string array, of length n, is
// empty or a null word of the reader (nulls.words); value is read only
// when its length is at most a null word's.
func (nulls *csvNullOut) isNullText(n int, value func(int) string, i int) bool {
	if n == 0 {
		return true
	}
	if n > nulls.maxLen {
		return false
	}
	return isCSVNull(value(i), nulls.words)
}

// wordsFor returns the caller's words that a value of type t may be
// written as, those checkValues must look for: numbers, dates and
// timestamps are written with digits, booleans as true or false, floats
// also as NaN or ±Inf. Null words such as NA or \N then cost nothing in
// those columns, whose every value checkValues would otherwise format.
func (nulls *csvNullOut) wordsFor(t arrow.DataType) []string {
	var keep func(w string) bool
	switch t.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64,
		arrow.DECIMAL128, arrow.DECIMAL256, arrow.DATE32, arrow.DATE64, arrow.TIMESTAMP:
		keep = hasDigit
	case arrow.FLOAT16, arrow.FLOAT32, arrow.FLOAT64:
		keep = func(w string) bool {
			_, err := strconv.ParseFloat(w, 64)
			return hasDigit(w) || err == nil
		}
	case arrow.BOOL:
		keep = func(w string) bool { return w == "true" || w == "false" }
	default:
		return nulls.custom
	}
	var out []string
	for _, w := range nulls.custom {
		if keep(w) {
			out = append(out, w)
		}
	}
	return out
}

// hasDigit reports whether s holds an ASCII digit.
func hasDigit(s string) bool { return strings.ContainsAny(s, "0123456789") }

// checkTyped returns an error for the first string of a, a text column
// (strings, or times and durations as CSV writes them), equal to one of
// the caller's words that reads as a value (nulls.typed). Quoting it
// would not keep it: import types a column whose values all read as
// numbers, times or the like, and reads a null word there as null,
// quoted or not (a time 12:00:00 with the null word 12:00:00 came back
// null).
func (nulls *csvNullOut) checkTyped(a arrow.Array, value func(int) string, name string) error {
	if len(nulls.typed) == 0 {
		return nil
	}
	for i := range a.Len() {
		if a.IsValid(i) {
			if s := value(i); isCSVNull(s, nulls.typed) {
				return fmt.Errorf("interop: csv: column %q: value %s is a null word that reads as a value; import may type the column and read it back as null, quoted or not (choose another null word)", name, s)
			}
		}
	}
	return nil
}

// isBase64Null reports whether binary value v, which CSV writes in
// base64, is written as empty or as a null word.
func (nulls *csvNullOut) isBase64Null(v []byte) bool {
	if len(v) == 0 {
		return true
	}
	if base64.StdEncoding.EncodedLen(len(v)) > nulls.maxLen {
		return false
	}
	return isCSVNull(base64.StdEncoding.EncodeToString(v), nulls.words)
}

// checkValues returns an error for the first value of a, a column of a
// type CSV does not quote (numbers, times, booleans), whose text is one
// of the caller's null words: an importer reads such a field as null,
// quoted or not. Without custom words there is nothing to check (no
// value of those types has the text of a standard null word).
func (nulls *csvNullOut) checkValues(a arrow.Array, name string) error {
	words := nulls.wordsFor(a.DataType())
	if len(words) == 0 {
		return nil
	}
	text := a.ValueStr
	if ts, ok := a.(*array.Timestamp); ok {
		// as arrow-go's CSV writer writes it, a space before the time
		// and no Z in a timestamp without a zone; ValueStr differs
		text = func(i int) string {
			if t, ok := calendarTime(ts, i); ok {
				return calendarText(ts, t, ' ')
			}
			return ts.ValueStr(i)
		}
	}
	for i := range a.Len() {
		if a.IsValid(i) {
			if s := text(i); isCSVNull(s, words) {
				return fmt.Errorf("interop: csv: column %q: value %s is a null word; it would read back as null (choose another null word)", name, s)
			}
		}
	}
	return nil
}

// quoteCells appends text, CSV records as encoding/csv writes them (a
// record a row, each ending with \n, a field quoted when it holds a
// quote, the separator or a line break), to dst with the field of each
// value quote marks quoted: quote[c](r) reports whether row r's value in
// column c is one (nil: none in column c), and rows[r] whether row r
// holds any; encoding/csv wrote those fields unquoted (empty, NULL,
// null). Rows of none are copied whole: a \n ends a record when the
// quotes before it in the record are even in number.
func quoteCells(dst *bytes.Buffer, text []byte, quote []func(int) bool, rows []bool, comma []byte) error {
	bad := func(r int) error {
		return fmt.Errorf("interop: csv: the text of row %d does not have the fields of its %d columns (a bug)", r, len(quote))
	}
	p := 0
	for r, some := range rows {
		if !some {
			start := p
			for {
				j := bytes.IndexByte(text[p:], '\n')
				if j < 0 {
					return bad(r)
				}
				p += j + 1
				if bytes.Count(text[start:p], []byte{'"'})%2 == 0 {
					break
				}
			}
			dst.Write(text[start:p])
			continue
		}
		for c, f := range quote {
			if c > 0 {
				if !bytes.HasPrefix(text[p:], comma) {
					return bad(r)
				}
				dst.Write(comma)
				p += len(comma)
			}
			start := p
			marked := f != nil && f(r)
			// encoding/csv quoted the field already (a quote begins no
			// bare field): a marked one beginning with a space or equal
			// to \. is quoted once, as it is
			quoted := p < len(text) && text[p] == '"'
			if quoted {
				// to the closing quote: one not doubled
				p++
				for {
					j := bytes.IndexByte(text[p:], '"')
					if j < 0 {
						return bad(r)
					}
					p += j + 1
					if p < len(text) && text[p] == '"' {
						p++
						continue
					}
					break
				}
			} else {
				// to the separator or the line break, neither of which an
				// unquoted field holds
				end := bytes.IndexByte(text[p:], '\n')
				if j := bytes.Index(text[p:], comma); j >= 0 && (end < 0 || j < end) {
					end = j
				}
				if end < 0 {
					return bad(r)
				}
				p += end
			}
			if marked && !quoted {
				dst.WriteByte('"')
				dst.Write(text[start:p])
				dst.WriteByte('"')
				continue
			}
			dst.Write(text[start:p])
		}
		if p >= len(text) || text[p] != '\n' {
			return bad(r)
		}
		dst.WriteByte('\n')
		p++
	}
	if p != len(text) {
		return fmt.Errorf("interop: csv: %d bytes of text past the last of %d rows (a bug)", len(text)-p, len(rows))
	}
	return nil
}
