package interop

import (
	"bufio"
	"bytes"
	stdcsv "encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/csv"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/decimal256"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata/encoding"
)

// csvNulls are the CSV field values read as null, NULL and null beside the
// empty field as many exporters write them. In a string column only an
// unquoted field is null: a quoted "" or "NULL" is that text
// (csvNullScan), as export writes such strings, so they survive a round
// trip; in other columns a null word or an empty field is null, quoted or
// not.
var csvNulls = []string{"", "NULL", "null"}

type csvReader struct {
	f    input
	cr   *countingReader
	size int64
	r    *csv.Reader
	sch  *arrow.Schema // authoritative: arrow-go renames fields after the header
	// times marks the columns of times of day and dates, which arrow-go's
	// reader does not parse (times) or parses slowly (dates, through
	// time.Parse): it reads them as text and Next converts them.
	times []bool
	mem   memory.Allocator
	types csvTypes
	// header: the file's first record is its header (valueError passes
	// over it)
	header bool
	// scan finds the nulls of string columns as the text is read (arrow-go
	// reads their fields as they are); rows is how many records the
	// batches so far hold
	scan *csvNullScan
	rows int
}

// csvReadSchema is sch with its times of day and dates, its decimals, and
// its floats when they are written with a decimal comma or must be held
// exactly (csvTypes.exactFloats), as strings, the schema arrow-go's reader
// parses into, and which columns those are (parseTimes converts them).
// arrow-go's reader rounds a decimal with more digits after the point
// than the column's scale.
func csvReadSchema(sch *arrow.Schema, t csvTypes) (*arrow.Schema, []bool) {
	fields := sch.Fields()
	times := make([]bool, len(fields))
	for i, f := range fields {
		id := f.Type.ID()
		if id == arrow.TIME32 || id == arrow.TIME64 || id == arrow.DATE32 || id == arrow.TIMESTAMP ||
			id == arrow.DECIMAL128 || id == arrow.DECIMAL256 ||
			t.decimal && (id == arrow.FLOAT64 || id == arrow.FLOAT32) || t.exactFloats() && id == arrow.FLOAT64 {
			times[i] = true
			fields[i].Type = arrow.BinaryTypes.String
		}
	}
	md := sch.Metadata()
	return arrow.NewSchema(fields, &md), times
}

// parseTimes converts a column of time-of-day or date text to type t
// (time32, time64, or date32 as parseDate32 reads it), of decimals to
// decimal128 or decimal256 exactly (parseDecimal128), or of floats to
// float64 or float32 (csvReadSchema: with a decimal comma, and when the
// type was inferred from a sample, refusing a value a float64 would round:
// floatExact); a value that does not parse is an error naming it. types is
// the file's.
func parseTimes(a *array.String, t arrow.DataType, types csvTypes, mem memory.Allocator) (arrow.Array, error) {
	nulls := types.nulls
	point := func(s string) string { return s }
	if types.decimal {
		point = decimalPoint
	}
	switch tt := t.(type) {
	case *arrow.Float64Type:
		exact := types.exactFloats()
		return parseInto(a, array.NewFloat64Builder(mem), tt, nulls, func(s string) (float64, error) {
			s = point(s)
			f, err := strconv.ParseFloat(s, 64)
			if err == nil && exact && !floatHeld(s, f) {
				err = errors.New("a float64 would round it (it has more digits than a float64 holds)")
			}
			return f, err
		})
	case *arrow.Float32Type:
		return parseInto(a, array.NewFloat32Builder(mem), tt, nulls, func(s string) (float32, error) {
			f, err := strconv.ParseFloat(point(s), 32)
			return float32(f), err
		})
	case *arrow.Decimal128Type:
		return parseInto(a, array.NewDecimal128Builder(mem, tt), tt, nulls, func(s string) (decimal128.Num, error) {
			return parseDecimal128(point(s), tt.Precision, tt.Scale)
		})
	case *arrow.Decimal256Type:
		return parseInto(a, array.NewDecimal256Builder(mem, tt), tt, nulls, func(s string) (decimal256.Num, error) {
			return parseDecimal256(point(s), tt.Precision, tt.Scale)
		})
	case *arrow.Time32Type:
		return parseInto(a, array.NewTime32Builder(mem, tt), tt, nulls, func(s string) (arrow.Time32, error) { return arrow.Time32FromString(s, tt.Unit) })
	case *arrow.Time64Type:
		return parseInto(a, array.NewTime64Builder(mem, tt), tt, nulls, func(s string) (arrow.Time64, error) { return arrow.Time64FromString(s, tt.Unit) })
	case *arrow.Date32Type:
		return parseInto(a, array.NewDate32Builder(mem), tt, nulls, parseDate32)
	case *arrow.TimestampType:
		loc, err := tt.GetZone()
		if err != nil {
			return nil, err
		}
		return parseInto(a, array.NewTimestampBuilder(mem, tt), tt, nulls, func(s string) (arrow.Timestamp, error) { return parseTimestamp(s, tt, loc) })
	}
	return nil, fmt.Errorf("%s is not a time of day, a date, a timestamp or a number: %w", t, encoding.ErrUnsupported)
}

// parseTimestamp reads a timestamp as arrow-go's CSV reader would
// (TimestampBuilder.AppendValueFromString: an integer as the raw count of
// units, else TimestampFromStringInLocation, with a zone offset required
// in a zoned column and refused in another), with a path of its own for
// the common forms, YYYY-MM-DD and YYYY-MM-DD[T ]HH:MM:SS[.fraction], with
// Z in a zoned column: time.Parse and the zone lookup per value were a
// third of the CPU of importing flights_3m's CSV. Anything else goes
// through arrow-go's parser, which accepts or refuses it as the reader
// does. loc is t's zone.
func parseTimestamp(s string, t *arrow.TimestampType, loc *time.Location) (arrow.Timestamp, error) {
	v := s
	zoned := t.TimeZone != ""
	if zoned {
		if len(v) > 11 && v[len(v)-1] == 'Z' {
			v = v[:len(v)-1]
		} else {
			v = "" // another zone form, none, or a date: arrow-go's parser says
		}
	}
	if ts, ok := fastTimestamp(v, t.Unit); ok {
		return ts, nil
	}
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return arrow.Timestamp(i), nil
	}
	ts, zone, err := arrow.TimestampFromStringInLocation(s, t.Unit, loc)
	if err != nil {
		return 0, err
	}
	if zone != zoned {
		if zoned {
			return 0, fmt.Errorf("%w: timestamp value %q for type %s must include a zone offset", arrow.ErrInvalid, s, t)
		}
		return 0, fmt.Errorf("%w: timestamp value %q for type %s must not include a zone offset", arrow.ErrInvalid, s, t)
	}
	return ts, nil
}

// fastTimestamp reads YYYY-MM-DD or YYYY-MM-DD[T ]HH:MM:SS[.fraction] (at
// most the unit's digits of fraction) as a count of units since the
// epoch; ok is false for anything else, and for values a nanosecond count
// cannot hold.
func fastTimestamp(s string, unit arrow.TimeUnit) (arrow.Timestamp, bool) {
	if len(s) < 10 || s[4] != '-' || s[7] != '-' {
		return 0, false
	}
	y, ok1 := decimal(s[0:4])
	m, ok2 := decimal(s[5:7])
	d, ok3 := decimal(s[8:10])
	if !ok1 || !ok2 || !ok3 || m < 1 || m > 12 || d < 1 || d > daysIn(m, y) {
		return 0, false
	}
	secs := int64(daysFromCivil(y, m, d)) * 86400
	var frac int64 // in nanoseconds
	if len(s) > 10 {
		if len(s) < 19 || s[10] != ' ' && s[10] != 'T' || s[13] != ':' || s[16] != ':' {
			return 0, false
		}
		hh, ok1 := decimal(s[11:13])
		mm, ok2 := decimal(s[14:16])
		ss, ok3 := decimal(s[17:19])
		if !ok1 || !ok2 || !ok3 || hh > 23 || mm > 59 || ss > 59 {
			return 0, false
		}
		secs += int64(hh*3600 + mm*60 + ss)
		if len(s) > 19 {
			digits := s[20:]
			if s[19] != '.' || len(digits) == 0 || len(digits) > unitDigits(unit) {
				return 0, false
			}
			f, ok := decimal(digits)
			if !ok {
				return 0, false
			}
			for range 9 - len(digits) {
				f *= 10
			}
			frac = int64(f)
		}
	}
	switch unit {
	case arrow.Second:
		return arrow.Timestamp(secs), true
	case arrow.Millisecond:
		return arrow.Timestamp(secs*1e3 + frac/1e6), true
	case arrow.Microsecond:
		return arrow.Timestamp(secs*1e6 + frac/1e3), true
	case arrow.Nanosecond:
		// int64 nanoseconds span 1677-09-21 to 2262-04-11
		if y < 1678 || y > 2261 {
			return 0, false
		}
		return arrow.Timestamp(secs*1e9 + frac), true
	}
	return 0, false
}

// unitDigits is how many digits of a second's fraction a unit holds.
func unitDigits(u arrow.TimeUnit) int {
	switch u {
	case arrow.Millisecond:
		return 3
	case arrow.Microsecond:
		return 6
	case arrow.Nanosecond:
		return 9
	}
	return 0
}

// parseDate32 reads a date written YYYY-MM-DD, as arrow-go's reader
// would (time.Parse with that layout), without time.Parse's generality
// for the dates that are well formed: most of the cost of reading a CSV
// column of dates was time.Parse. Anything else goes through time.Parse,
// which accepts or refuses it as arrow-go's reader does.
func parseDate32(s string) (arrow.Date32, error) {
	if len(s) == 10 && s[4] == '-' && s[7] == '-' {
		y, ok1 := decimal(s[0:4])
		m, ok2 := decimal(s[5:7])
		d, ok3 := decimal(s[8:10])
		if ok1 && ok2 && ok3 && m >= 1 && m <= 12 && d >= 1 && d <= daysIn(m, y) {
			return arrow.Date32(daysFromCivil(y, m, d)), nil
		}
	}
	t, err := time.Parse("2006-01-02", s)
	if err != nil {
		return 0, err
	}
	return arrow.Date32FromTime(t), nil
}

// decimal reads a run of ASCII digits.
func decimal(s string) (int, bool) {
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

// daysIn is the number of days of month m (1-12) of year y, proleptic
// Gregorian.
func daysIn(m, y int) int {
	switch m {
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// daysFromCivil is the number of days from 1970-01-01 to y-m-d, proleptic
// Gregorian (the usual era-based conversion: eras of 400 years, years
// counted from March so that leap days fall at the end).
func daysFromCivil(y, m, d int) int {
	if m <= 2 {
		y--
	}
	era := y
	if era < 0 {
		era -= 399
	}
	era /= 400
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

// parseInto appends every value of a, parsed, to b and returns the array;
// a value among nulls is null (arrow-go reads the text of the column
// whole: see csvNullScan).
func parseInto[T any, B interface {
	array.Builder
	Append(T)
}](a *array.String, b B, t arrow.DataType, nulls []string, parse func(string) (T, error)) (arrow.Array, error) {
	defer b.Release()
	b.Reserve(a.Len())
	for i := range a.Len() {
		if a.IsNull(i) || isCSVNull(a.Value(i), nulls) {
			b.AppendNull()
			continue
		}
		v, err := parse(a.Value(i))
		if err != nil {
			return nil, fmt.Errorf("%q is not a %s value: %w", a.Value(i), t, err)
		}
		b.Append(v)
	}
	return b.NewArray(), nil
}

// typedBatchRows sizes the batches of a table whose column types are known
// but not their widths in the file (CSV, JSON; see ReadOptions.BatchRows):
// a column takes its type's width in Arrow, any other (text, nested) 4
// bytes of offset and 16 of data, each a byte of validity.
func typedBatchRows(sch *arrow.Schema) int {
	perRow := 0.0
	for _, f := range sch.Fields() {
		w := 20.0
		if fw, ok := f.Type.(arrow.FixedWidthDataType); ok {
			w = max(float64(fw.BitWidth())/8, 1)
		}
		perRow += w + 1
	}
	return batchRowsFor(perRow)
}

func openCSV(path string, f input, size int64, opts ReadOptions) (_ RecordReader, err error) {
	defer func() {
		// arrow-go's csv.NewReader panics on a schema it cannot parse into.
		if r := recover(); r != nil {
			err = fmt.Errorf("interop: %s: %v", path, r)
		}
		if err != nil {
			f.Close()
		}
	}()
	// (a byte order mark is not part of the first column's name)
	if f, size, err = skipBOM(f, size); err != nil {
		return nil, err
	}
	sample, err := csvSample(f)
	if err != nil {
		return nil, fmt.Errorf("interop: %s: %w", path, err)
	}
	if err := checkLineBreaks(sample); err != nil {
		return nil, fmt.Errorf("interop: %s: %w", path, err)
	}
	comma, err := csvSeparator(path, sample, opts.CSVComma, opts.CSVLazyQuotes)
	if err != nil {
		return nil, err
	}
	nulls := append(slices.Clip(csvNulls), opts.CSVNulls...)
	sch := opts.CSVSchema
	inferred := 0 // records the types were inferred from (0: given)
	var kinds []int
	if sch == nil {
		rows := opts.CSVInferRows
		switch {
		case rows == 0:
			rows = DefaultCSVInferRows
		case rows < 0:
			rows = math.MaxInt
		}
		if sch, kinds, err = inferCSVSchema(f, csvDialect{comma, nulls, opts.CSVDecimalComma, opts.CSVLazyQuotes}, !opts.CSVNoHeader, rows); err != nil {
			return nil, fmt.Errorf("interop: %s: %w", path, err)
		}
		inferred = rows
		if _, err = f.Seek(0, io.SeekStart); err != nil {
			return nil, fmt.Errorf("interop: %w", err)
		}
	}
	if opts.autoBatch {
		opts.BatchRows = typedBatchRows(sch)
	}
	copts := []csv.Option{csv.WithChunk(opts.BatchRows),
		csv.WithAllocator(opts.Mem), csv.WithNullReader(false, nulls...), csv.WithComma(comma)}
	types := csvTypes{csvDialect: csvDialect{comma, nulls, opts.CSVDecimalComma, opts.CSVLazyQuotes}, inferred: inferred, kinds: kinds,
		sampled: kinds != nil && inferred != math.MaxInt || opts.CSVSchema != nil && opts.CSVSchemaSampled}
	rsch, times := csvReadSchema(sch, types)
	if opts.CSVLazyQuotes {
		copts = append(copts, csv.WithLazyQuotes(true))
	}
	if opts.Parallel && !opts.CSVLazyQuotes {
		// the pieces hold no header: the splitter skips it
		copts = append(copts, csv.WithHeader(false))
		return openCSVParallel(f, size, !opts.CSVNoHeader, sch, rsch, times, copts, opts.BatchRows, opts.Threads, opts.Mem, types), nil
	}
	copts = append(copts, csv.WithHeader(!opts.CSVNoHeader))
	cr := &countingReader{r: f}
	text := newQuotedCRLF(cr, comma)
	text.scan = newCSVNullScan(sch, comma, nulls, !opts.CSVNoHeader)
	return &csvReader{f: f, cr: cr, size: size, r: csv.NewReader(text, rsch, copts...), sch: sch, times: times, mem: opts.Mem, scan: text.scan,
		types: types, header: !opts.CSVNoHeader}, nil
}

// quotedCRLF passes CSV text on with one more \r before each \r\n that
// ends a physical line inside a quoted field. encoding/csv, which
// arrow-go's reader parses with, reads every \r\n as \n, inside quotes
// too, where a line break is data (RFC 4180): a value holding \r\n
// would lose its \r. It reads \r\r\n as \r\n, so the doubled \r
// gives the field its bytes back; a \r\n between records is passed on
// as it is, a record separator either way.
type quotedCRLF struct {
	br   *bufio.Reader
	q    csvQuotes
	out  []byte // the part of the current line not yet passed on
	more []byte // "\r\n" to pass on after out, or nothing
	err  error  // of the underlying reader, once out and more are passed on
	line []byte // a line longer than br's buffer, put together
	// scan, when set, finds the nulls of the string columns in the lines
	// passed on
	scan *csvNullScan
}

func newQuotedCRLF(r io.Reader, comma rune) *quotedCRLF {
	return &quotedCRLF{br: bufio.NewReaderSize(r, 64<<10), q: csvQuotes{comma: []byte(string(comma))}}
}

func (c *quotedCRLF) Read(p []byte) (int, error) {
	for len(c.out) == 0 && len(c.more) == 0 {
		if c.err != nil {
			return 0, c.err
		}
		c.next()
	}
	n := copy(p, c.out)
	c.out = c.out[n:]
	if len(c.out) == 0 {
		m := copy(p[n:], c.more)
		c.more = c.more[m:]
		n += m
	}
	return n, nil
}

// next reads the next physical line into out (and more), or the error
// that ends the text into err.
func (c *quotedCRLF) next() {
	l, err := c.br.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		// a line longer than the buffer: put it together (encoding/csv
		// holds a whole line too)
		c.line = append(c.line[:0], l...)
		for errors.Is(err, bufio.ErrBufferFull) {
			l, err = c.br.ReadSlice('\n')
			c.line = append(c.line, l...)
		}
		l = c.line
	}
	c.err = err
	if len(l) == 0 {
		return
	}
	if c.scan != nil {
		c.scan.line(l)
	}
	c.out = l
	if c.q.line(l) && bytes.HasSuffix(l, []byte("\r\n")) {
		c.out, c.more = l[:len(l)-1], []byte("\r\n")
	}
}

// csvQuotes follows CSV text a physical line at a time, as encoding/csv
// reads it, to tell whether a line break is inside a quoted field: a
// field is quoted when its first byte is a quote, and its quoted part
// ends at a quote followed by the separator or by the end of the line;
// two quotes are a quote, and a quote followed by anything else is a
// quote of the text under lazy quotes (an error otherwise, which ends the
// reading). An unquoted field ends at the separator or the line break.
type csvQuotes struct {
	comma  []byte // the separator, UTF-8
	quoted bool   // the previous line ended inside a quoted field
}

// line reads l, a physical line with its line break (none for the last
// line of the text), and reports whether l ends inside a quoted field.
func (q *csvQuotes) line(l []byte) bool {
	if bytes.IndexByte(l, '"') < 0 {
		return q.quoted // no field starts or ends quoted: most lines
	}
	quoted, i := q.quoted, 0
	for i < len(l) {
		if !quoted { // at the start of a field
			if l[i] == '"' {
				quoted = true
				i++
				continue
			}
			j := bytes.Index(l[i:], q.comma)
			if j < 0 {
				break // an unquoted field to the end of the line
			}
			i += j + len(q.comma)
			continue
		}
		j := bytes.IndexByte(l[i:], '"')
		if j < 0 {
			break // the line break is inside the quotes
		}
		i += j + 1
		switch rest := l[i:]; {
		case len(rest) > 0 && rest[0] == '"':
			i++ // an escaped quote
		case bytes.HasPrefix(rest, q.comma):
			quoted = false
			i += len(q.comma)
		case len(rest) == 0 || string(rest) == "\n" || string(rest) == "\r\n" || string(rest) == "\r":
			quoted = false // the record ends with the line
			i = len(l)
		}
	}
	q.quoted = quoted
	return quoted
}

// csvNullScan finds the nulls of the string columns of CSV text, which
// arrow-go's reader reads as they are (it reads fields through
// encoding/csv, which cannot tell a quoted field from an unquoted one):
// in a string column an unquoted field that is empty or one of the null
// words is null, and a quoted one, "" or "NULL", is the value it
// holds, as PostgreSQL and DuckDB read CSV and as export writes it, so
// that a CSV round trip keeps empty strings, nulls and the string NULL
// apart. (Columns of other types read a null word or an empty field as
// null, quoted or not.) It reads the text a physical line at a time, as
// encoding/csv does: a line with no field, an empty line, is no record.
type csvNullScan struct {
	comma   []byte   // the separator, UTF-8
	str     []bool   // per column: a string column
	last    int      // the last string column, +1: no later field is looked at
	nulls   []string // the null words
	longest int      // the length of the longest
	quoted  bool     // the previous line ended inside a quoted field
	field   int      // the field that line ended in, from 0
	record  int      // the record of that line, from 0 (the header is -1)
	found   []csvCell
}

// csvCell is a field of CSV text: its record, from 0, and its column.
type csvCell struct{ record, col int }

// newCSVNullScan returns a csvNullScan for a file of the columns of sch,
// fields separated by comma, nulls the null words; header: its first
// record is a header, whose fields are not looked at.
func newCSVNullScan(sch *arrow.Schema, comma rune, nulls []string, header bool) *csvNullScan {
	s := &csvNullScan{comma: []byte(string(comma)), str: make([]bool, sch.NumFields()), nulls: nulls}
	for i, f := range sch.Fields() {
		if id := f.Type.ID(); id == arrow.STRING || id == arrow.LARGE_STRING {
			s.str[i], s.last = true, i+1
		}
	}
	for _, n := range nulls {
		s.longest = max(s.longest, len(n))
	}
	if header {
		s.record = -1
	}
	return s
}

// isNull reports whether an unquoted field is a null word.
func (s *csvNullScan) isNull(v []byte) bool {
	for _, n := range s.nulls {
		if string(v) == n {
			return true
		}
	}
	return false
}

// lineBreak is the length of the line break that ends l: \n, \r\n, or a \r
// that ends the text (encoding/csv drops it), else 0.
func lineBreak(l []byte) int {
	switch {
	case bytes.HasSuffix(l, []byte("\r\n")):
		return 2
	case bytes.HasSuffix(l, []byte("\n")), bytes.HasSuffix(l, []byte("\r")):
		return 1
	}
	return 0
}

// line reads l, a physical line with its line break (none for the last
// line of the text), adding the null fields of string columns it holds
// to found.
func (s *csvNullScan) line(l []byte) {
	body := l[:len(l)-lineBreak(l)]
	if !s.quoted {
		if len(body) == 0 {
			return // an empty line: no record
		}
		s.field = 0
	}
	i := 0
	for i <= len(body) {
		if s.quoted {
			j := bytes.IndexByte(body[i:], '"')
			if j < 0 {
				return // the line break is inside the quotes: the record goes on
			}
			i += j + 1
			switch rest := body[i:]; {
			case len(rest) > 0 && rest[0] == '"':
				i++ // an escaped quote
			case bytes.HasPrefix(rest, s.comma):
				s.quoted = false
				i += len(s.comma)
				s.field++
			case len(rest) == 0:
				s.quoted = false
				i++ // the record ends with the line
			}
			// (a quote followed by anything else is a quote of the text
			// under lazy quotes, and an error otherwise)
			continue
		}
		// at the start of field s.field
		if s.field >= s.last && bytes.IndexByte(body[i:], '"') < 0 {
			break // no string column from here on, and the record ends with the line
		}
		rest := body[i:]
		if len(rest) > 0 && rest[0] == '"' {
			s.quoted = true
			i++
			continue
		}
		j := bytes.Index(rest, s.comma)
		if j < 0 {
			j = len(rest)
		}
		if s.record >= 0 && s.field < s.last && s.str[s.field] && j <= s.longest && s.isNull(rest[:j]) {
			s.found = append(s.found, csvCell{s.record, s.field})
		}
		i += j + len(s.comma)
		s.field++
	}
	s.record++
}

// take removes the cells found in records before end from found and
// returns them, their records counted from start.
func (s *csvNullScan) take(start, end int) []csvCell {
	n := 0
	for n < len(s.found) && s.found[n].record < end {
		n++
	}
	out := slices.Clone(s.found[:n])
	for k := range out {
		out[k].record -= start
	}
	s.found = slices.Delete(s.found, 0, n)
	return out
}

// text reads data, whole lines from the start of a record, as line reads
// each.
func (s *csvNullScan) text(data []byte) {
	for p := 0; p < len(data); {
		end := len(data)
		if j := bytes.IndexByte(data[p:], '\n'); j >= 0 {
			end = p + j + 1
		}
		s.line(data[p:end])
		p = end
	}
}

// Column kinds tried by inference, narrowest first; a column gets the
// first kind every sampled non-null value parses as, else string.
// inferDecimal is taken only when a value needs it (inferExact).
const (
	inferInt = 1 << iota
	inferFloat
	inferBool
	inferDate
	inferTimestamp   // no zone offset in any value
	inferTimestampTZ // a zone offset in every value
	inferTime        // HH:MM[:SS[.fff]], a time of day to the millisecond
	inferDecimal     // a plain decimal number (plainDecimal): no exponent
	inferAll         = inferInt | inferFloat | inferBool | inferDate | inferTimestamp | inferTimestampTZ | inferTime | inferDecimal
	kindBits         = 1<<8 - 1

	// Beside the kinds, what inference saw of a column's numbers: a
	// value that is not an integer and that a float64 would round
	// (floatExact), and the most digits before (past leading zeros) and
	// after the point of its plain decimals (7 bits each, at most 127):
	// such a column is decimal128 of those digits when every value is
	// a plain decimal and they fit 38 digits, else text.
	inferExact    = 1 << 8
	decIntShift   = 9
	decScaleShift = 16
	decDigitsMask = 1<<7 - 1
)

// decimalKinds returns set with the digits of a plain decimal of intDigits
// and fracDigits digits counted (the most of each seen).
func decimalKinds(set, intDigits, fracDigits int) int {
	i := max(set>>decIntShift&decDigitsMask, min(intDigits, decDigitsMask))
	f := max(set>>decScaleShift&decDigitsMask, min(fracDigits, decDigitsMask))
	return set&^(decDigitsMask<<decIntShift|decDigitsMask<<decScaleShift) | i<<decIntShift | f<<decScaleShift
}

// decimalOf is the decimal128 type inference gives a column of kinds set:
// ok when a value needs an exact type (inferExact), every value is a
// plain decimal (inferDecimal) and precision, the most integer digits
// plus the most fraction digits, is at most 38.
func decimalOf(set int) (*arrow.Decimal128Type, bool) {
	if set < 0 || set&(inferExact|inferDecimal) != inferExact|inferDecimal {
		return nil, false
	}
	i, f := set>>decIntShift&decDigitsMask, set>>decScaleShift&decDigitsMask
	if i+f > maxInferDecimal {
		return nil, false
	}
	return &arrow.Decimal128Type{Precision: int32(max(i+f, 1)), Scale: int32(f)}, true
}

// mergeKinds is the inference of two samples of a column taken together,
// a and b each -1 (no value) or what inferCSVSchema found: the kinds of
// both, a value needing an exact type in either, the most digits of each.
func mergeKinds(a, b int) int {
	switch {
	case a < 0:
		return b
	case b < 0:
		return a
	}
	out := a&b&kindBits | (a|b)&inferExact
	for _, k := range []int{a, b} {
		out = decimalKinds(out, k>>decIntShift&decDigitsMask, k>>decScaleShift&decDigitsMask)
	}
	return out
}

// numberKinds narrows set, the kinds of a column, by v, a value of it
// (narrowKinds has narrowed them already), for what a float64 cannot hold:
// a value that would round as a float (floatExact) rules out float64
// and, when it is not an integer, needs an exact type (inferExact: a
// decimal, or text); an integer past int64 (a float would round it too,
// and narrowKinds has ruled float64 out) stays text as before. The digits
// of a plain decimal are counted.
func numberKinds(set int, v string) int {
	if set&(inferFloat|inferDecimal) == 0 {
		return set
	}
	id, fd, plain := plainDecimal(v)
	if set&inferDecimal != 0 {
		if plain {
			set = decimalKinds(set, id, fd)
		} else {
			set &^= inferDecimal
		}
	}
	if !floatExact(v) {
		set &^= inferFloat
		if !plain || fd > 0 || strings.HasSuffix(v, ".") {
			set |= inferExact
		}
	}
	if plain && fd == 0 && !strings.HasSuffix(v, ".") && set&inferDecimal != 0 {
		if _, err := strconv.ParseInt(v, 10, 64); err != nil {
			// an integer past int64 keeps the column text, as
			// before (and in JSON)
			set &^= inferDecimal
		}
	}
	return set
}

// inferCSVSchema reads up to rows records and picks each column's type:
// int64, float64, decimal128 (plain decimals some of which a float64
// would round: numberKinds), bool, date32 (YYYY-MM-DD), timestamp[us]
// (ISO 8601 without zone offsets), timestamp[us, UTC] (ISO 8601, every
// value with a zone offset), time32[ms] (HH:MM, HH:MM:SS or HH:MM:SS.fff,
// as arrow-go's reader parses times) or, failing those, string. Columns that are
// null in every sampled row are strings. Unlike arrow-go's inferring
// reader, which looks at the first row only, every sampled row counts.
func inferCSVSchema(r io.Reader, d csvDialect, header bool, rows int) (*arrow.Schema, []int, error) {
	cr := stdcsv.NewReader(newQuotedCRLF(r, d.comma)) // names keep their \r\n
	cr.Comma = d.comma
	cr.LazyQuotes = d.lazy
	cr.ReuseRecord = true
	var names []string
	if header {
		rec, err := cr.Read()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil, nil, errors.New("csv: empty file, no header")
			}
			return nil, nil, fmt.Errorf("csv: header: %w", err)
		}
		names = csvNames(rec)
	}
	var kinds []int
	for n := 0; n < rows; n++ {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, nil, fmt.Errorf("csv: %w", err)
		}
		if names == nil {
			for i := range rec {
				names = append(names, "f"+strconv.Itoa(i))
			}
		}
		if kinds == nil {
			kinds = make([]int, len(names))
			for i := range kinds {
				kinds[i] = -1 // no value seen yet
			}
		}
		if len(rec) != len(names) {
			return nil, nil, fmt.Errorf("csv: record %d has %d fields, want %d", n+1, len(rec), len(names))
		}
		for i, v := range rec {
			if isCSVNull(v, d.nulls) {
				continue
			}
			if kinds[i] < 0 {
				kinds[i] = inferAll
			}
			if d.decimal {
				v = decimalPoint(v)
			}
			kinds[i] = numberKinds(narrowKinds(kinds[i], v), v)
		}
	}
	if kinds == nil {
		kinds = make([]int, len(names))
		for i := range kinds {
			kinds[i] = -1
		}
	}
	return kindsSchema(names, kinds), kinds, nil
}

// kindsSchema is the schema of columns of these names and inferred kinds.
func kindsSchema(names []string, kinds []int) *arrow.Schema {
	fields := make([]arrow.Field, len(names))
	for i, name := range names {
		fields[i] = arrow.Field{Name: name, Type: kindType(kinds[i]), Nullable: true}
	}
	return arrow.NewSchema(fields, nil)
}

// CSVInference is what type inference found in the sample of a CSV file:
// for each column, the kinds (int64, float64, plain decimal, bool, date,
// timestamp with or without zone, time of day) that every sampled value
// parses as, whether a value needs an exact decimal and the most digits
// of its decimals, or that no value was seen.
type CSVInference struct {
	names []string
	kinds []int // -1: no value
}

// InferredCSV returns the inference behind the column types of a CSV
// reader (Open, OpenReaderAt); ok is false for other readers and for a
// CSV file read under ReadOptions.CSVSchema.
func InferredCSV(r RecordReader) (inf CSVInference, ok bool) {
	if c, isCoerced := r.(*coercingReader); isCoerced {
		r = c.RecordReader
	}
	var t csvTypes
	switch c := r.(type) {
	case *csvReader:
		t = c.types
	case *csvParallel:
		t = c.types
	default:
		return CSVInference{}, false
	}
	if t.kinds == nil {
		return CSVInference{}, false
	}
	sch := r.Schema()
	names := make([]string, sch.NumFields())
	for i, f := range sch.Fields() {
		names[i] = f.Name
	}
	return CSVInference{names: names, kinds: t.kinds}, true
}

// Merge returns the inference of a's and b's samples taken together, as
// if one file held both: each column gets the kinds every value of both
// parses as (a column no value of which was seen in one takes the
// other's). The files must have the same columns, by name and in order.
func (a CSVInference) Merge(b CSVInference) (CSVInference, error) {
	if len(a.names) != len(b.names) {
		return CSVInference{}, fmt.Errorf("%d columns against %d", len(a.names), len(b.names))
	}
	out := CSVInference{names: a.names, kinds: make([]int, len(a.kinds))}
	for i, ka := range a.kinds {
		if a.names[i] != b.names[i] {
			return CSVInference{}, fmt.Errorf("column %d is %s against %s", i+1, a.names[i], b.names[i])
		}
		out.kinds[i] = mergeKinds(ka, b.kinds[i]) // no kind left: string
	}
	return out, nil
}

// MergeByName is Merge for files whose columns differ, read by column
// name: the result has every column of either, in the order first met
// (a's, then b's new ones), each with the kinds every value of both
// parses as.
func (a CSVInference) MergeByName(b CSVInference) CSVInference {
	out := CSVInference{names: slices.Clone(a.names), kinds: slices.Clone(a.kinds)}
	for i, name := range b.names {
		j := slices.Index(out.names, name)
		if j < 0 {
			out.names = append(out.names, name)
			out.kinds = append(out.kinds, b.kinds[i])
			continue
		}
		out.kinds[j] = mergeKinds(out.kinds[j], b.kinds[i]) // no kind left: string
	}
	return out
}

// Schema is the schema the inference gives a file: the column types a CSV
// file of these samples would be read with.
func (a CSVInference) Schema() *arrow.Schema { return kindsSchema(a.names, a.kinds) }

// SchemaFor is the schema of a file holding the columns names (in its
// order) under the inference's types (from MergeByName), for
// ReadOptions.CSVSchema; a name the inference lacks is an error.
func (a CSVInference) SchemaFor(names []string) (*arrow.Schema, error) {
	kinds := make([]int, len(names))
	for i, name := range names {
		j := slices.Index(a.names, name)
		if j < 0 {
			return nil, fmt.Errorf("interop: column %q is not in the merged CSV inference: %w", name, ErrFormat)
		}
		kinds[i] = a.kinds[j]
	}
	return kindsSchema(names, kinds), nil
}

// csvNames returns a CSV header's names as columns can hold them: an empty
// name is f<i> (as the columns of a file without a header), and a name
// met again gets _2, _3, ... (as a header written by hand often repeats
// one), so that the file imports instead of failing on its header.
func csvNames(header []string) []string {
	names := make([]string, len(header))
	taken := make(map[string]bool, len(header))
	for _, h := range header {
		taken[h] = true
	}
	seen := make(map[string]bool, len(header))
	for i, h := range header {
		name := h
		if name == "" {
			name = "f" + strconv.Itoa(i)
		}
		for k := 2; seen[name] || (name != h && taken[name]); k++ {
			name = h + "_" + strconv.Itoa(k)
			if h == "" {
				name = "f" + strconv.Itoa(i) + "_" + strconv.Itoa(k)
			}
		}
		seen[name] = true
		names[i] = name
	}
	return names
}

// decimalPoint is v with its comma made a point when it holds one comma
// and no point ("2,5" → "2.5"), as a number written with a decimal comma.
func decimalPoint(v string) string {
	if i := strings.IndexByte(v, ','); i >= 0 && strings.IndexByte(v[i+1:], ',') < 0 && strings.IndexByte(v, '.') < 0 {
		return v[:i] + "." + v[i+1:]
	}
	return v
}

func isCSVNull(v string, nulls []string) bool {
	for _, n := range nulls {
		if v == n {
			return true
		}
	}
	return false
}

// narrowKinds drops from set the kinds v does not parse as, using the same
// parsers as arrow-go's CSV reader.
func narrowKinds(set int, v string) int {
	if leadingZero(v) {
		// Codes such as zip codes or ids ("00501") are text: a number
		// would drop the zeros.
		set &^= inferInt | inferFloat | inferDecimal
	}
	if set&inferInt != 0 {
		if _, err := strconv.ParseInt(v, 10, 64); err != nil {
			set &^= inferInt
			if errors.Is(err, strconv.ErrRange) {
				// an integer past int64: as a float it would be
				// rounded (and every other value of the column
				// with it), so the column is text, as JSON import
				// keeps such numbers
				set &^= inferFloat
			}
		}
	}
	if set&inferFloat != 0 {
		if _, err := strconv.ParseFloat(v, 64); err != nil {
			set &^= inferFloat
		}
	}
	if set&inferDecimal != 0 {
		if _, _, ok := plainDecimal(v); !ok {
			set &^= inferDecimal
		}
	}
	if set&inferBool != 0 && !boolWord(v) {
		set &^= inferBool
	}
	if set&inferDate != 0 {
		if _, err := time.Parse("2006-01-02", v); err != nil {
			set &^= inferDate
		}
	}
	if set&(inferTimestamp|inferTimestampTZ) != 0 {
		// arrow-go wants a zone offset in every value of a zoned
		// timestamp column and in none of a zoneless one.
		_, zone, err := arrow.TimestampFromStringInLocation(v, arrow.Microsecond, time.UTC)
		switch {
		case err != nil:
			set &^= inferTimestamp | inferTimestampTZ
		case zone:
			set &^= inferTimestamp
		default:
			set &^= inferTimestampTZ
		}
	}
	if set&inferTime != 0 {
		if _, err := arrow.Time32FromString(v, arrow.Millisecond); err != nil || len(v) < 5 || v[2] != ':' {
			set &^= inferTime
		}
	}
	return set
}

// leadingZero reports whether v is a number written with a leading zero
// ("007", "-01"), which a numeric type would not keep; "0" and "0.5" are fine.
// boolWord reports whether v is a boolean as inference takes one: true or
// false in lower, upper or title case, or 1 or 0 (which alone infer as
// integers first, and beside true and false as booleans): spellings
// strconv.ParseBool, which arrow-go's reader parses with, reads. ParseBool
// also takes t and f, so a column of single letters (the F of a sex
// column that holds only F) would have become false.
func boolWord(v string) bool {
	switch v {
	case "true", "True", "TRUE", "false", "False", "FALSE", "1", "0":
		return true
	}
	return false
}

func leadingZero(v string) bool {
	v = strings.TrimPrefix(strings.TrimPrefix(v, "-"), "+")
	return len(v) > 1 && v[0] == '0' && v[1] >= '0' && v[1] <= '9'
}

func kindType(set int) arrow.DataType {
	switch {
	case set < 0:
		return arrow.BinaryTypes.String
	case set&inferInt != 0:
		return arrow.PrimitiveTypes.Int64
	case set&inferFloat != 0:
		return arrow.PrimitiveTypes.Float64
	}
	if d, ok := decimalOf(set); ok {
		return d
	}
	switch {
	case set&inferBool != 0:
		return arrow.FixedWidthTypes.Boolean
	case set&inferDate != 0:
		return arrow.FixedWidthTypes.Date32
	case set&inferTimestamp != 0:
		return &arrow.TimestampType{Unit: arrow.Microsecond}
	case set&inferTimestampTZ != 0:
		return &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}
	case set&inferTime != 0:
		return arrow.FixedWidthTypes.Time32ms
	}
	return arrow.BinaryTypes.String
}

func (c *csvReader) Schema() *arrow.Schema { return c.sch }

func (c *csvReader) Next() (rec arrow.Record, err error) {
	defer func() {
		if r := recover(); r != nil {
			rec, err = nil, fmt.Errorf("interop: csv: %v", r)
		}
	}()
	if !c.r.Next() {
		if err := c.r.Err(); err != nil && !errors.Is(err, io.EOF) {
			return nil, c.valueError(err)
		}
		return nil, io.EOF
	}
	got := c.r.Record()
	n := int(got.NumRows())
	cells := c.scan.take(c.rows, c.rows+n)
	c.rows += n
	rec, err = csvBatch(got, c.sch, c.times, c.types, cells, c.mem)
	if err != nil {
		return nil, c.valueError(err)
	}
	return rec, nil
}

// locateLimit bounds the bytes the serial CSV reader reads again to find
// the line and column of a value that does not parse (a file read from
// remote storage is fetched again).
const locateLimit = 1 << 30

// valueError is err, met reading a batch, naming the line and the column
// of the value that does not parse, as the parallel reader's errors do:
// arrow-go's errors name neither, and a file of millions of lines gives no
// way to find the value otherwise. The file is read again from its start
// up to where reading got (the error ends the reading; at most
// locateLimit bytes). A syntax error (a stray quote, a record of the
// wrong count of fields) names its line already.
func (c *csvReader) valueError(err error) error {
	var perr *stdcsv.ParseError
	if errors.As(err, &perr) {
		return fmt.Errorf("interop: csv: %w%s", err, c.types.hint())
	}
	if n := c.cr.n.Load(); n <= locateLimit {
		skip := 0
		if c.header {
			skip = 1
		}
		if at, ok := c.types.locate(newQuotedCRLF(io.NewSectionReader(c.f, 0, n), c.types.comma), 1, skip, c.sch); ok {
			return fmt.Errorf("interop: csv: %s: %w%s", at, err, c.types.hint())
		}
	}
	return fmt.Errorf("interop: csv: %w%s", err, c.types.hint())
}

// csvComma is the separator of a CSV file by its name: a tab for .tsv, a
// comma otherwise (export writes with it).
func csvComma(path string) rune {
	if strings.EqualFold(filepath.Ext(path), ".tsv") {
		return '\t'
	}
	return ','
}

// csvSeparator is the field separator a CSV file is read with: comma when
// the caller gave one (checked), a tab for .tsv, else sniffComma's.
func csvSeparator(path string, sample []byte, comma rune, lazy bool) (rune, error) {
	switch {
	case comma != 0:
		if !ValidCSVComma(comma) {
			return 0, fmt.Errorf("interop: %s: %q cannot separate CSV fields", path, comma)
		}
		return comma, nil
	case strings.EqualFold(filepath.Ext(path), ".tsv"):
		return '\t', nil
	}
	return sniffComma(sample, lazy), nil
}

// ValidCSVComma reports whether c can separate CSV fields: one character,
// not a quote, a line break or the Unicode replacement character (what
// encoding/csv accepts).
func ValidCSVComma(c rune) bool {
	return c != 0 && c != '"' && c != '\r' && c != '\n' && c != utf8.RuneError && utf8.ValidRune(c)
}

// Sniffing reads at most sniffBytes from the start of a file (csvSample)
// and parses at most sniffRecords records with each candidate separator.
const (
	sniffBytes   = 64 << 10
	sniffRecords = 50
)

// sniffComma picks the separator of a CSV file from its first records:
// the first of comma, semicolon, tab and vertical bar that splits them
// into the same number of fields, more than one; a comma when none does
// (a file of one column). A comma wins whenever it parses, so a file that
// read before reads the same; a European export (`1;2,5;x`), which split
// on commas has a varying count of fields, reads as three columns instead
// of failing on its second record. The sample is cut after its last
// line break, and a record the cut leaves inside quotes does not count
// against a separator. sample is csvSample's.
func sniffComma(sample []byte, lazy bool) rune {
	buf := sample
	cut := len(buf) == sniffBytes
	if cut {
		buf = buf[:bytes.LastIndexByte(buf, '\n')+1]
	}
	for _, c := range []rune{',', ';', '\t', '|'} {
		r := stdcsv.NewReader(bytes.NewReader(buf))
		r.Comma = c
		r.ReuseRecord = true
		r.LazyQuotes = lazy
		fields, recs := 0, 0
		ok := true
		for recs < sniffRecords {
			rec, err := r.Read()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				ok = cut && recs >= 2 && !errors.Is(err, stdcsv.ErrFieldCount)
				break
			}
			fields = len(rec)
			recs++
		}
		if ok && recs > 0 && fields > 1 {
			return c
		}
	}
	return ','
}

// csvSample is the first sniffBytes of a CSV file, or all of a shorter
// one, which the separator and the line breaks are told from.
func csvSample(f io.ReaderAt) ([]byte, error) {
	buf := make([]byte, sniffBytes)
	n, err := f.ReadAt(buf, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("csv: reading the first %d bytes: %w", sniffBytes, err)
	}
	return buf[:n], nil
}

// checkLineBreaks refuses a CSV file whose lines break at a lone \r (as
// classic Mac OS, and Excel's "CSV (Macintosh)" export, write them):
// encoding/csv, which reads CSV here, breaks lines at \n only, so the
// whole file would be one record, a header of run-together names and no
// rows, imported without a word. It looks at the first line of the first
// of sample (csvSample's): a \r outside quotes there followed by anything
// but \n (a \r at the very end of the file ends its last line, as a
// reader takes it).
func checkLineBreaks(sample []byte) error {
	quoted := false
	for i, c := range sample {
		switch {
		case c == '"':
			quoted = !quoted
		case quoted:
		case c == '\n':
			return nil
		case c == '\r' && i+1 < len(sample) && sample[i+1] != '\n':
			return errors.New("csv: line 1 breaks at a lone \\r, not \\n or \\r\\n (classic Mac OS line breaks): CSV import would read the file as one line; convert its line breaks to \\n or \\r\\n")
		}
	}
	return nil
}

// DefaultCSVInferRows is how many records CSV import samples to infer
// column types (ReadOptions.CSVInferRows).
const DefaultCSVInferRows = 1000

// csvDialect is how a CSV file is written: its separator, the values
// that are null, whether numbers have a decimal comma and quotes may stray
// (ReadOptions).
type csvDialect struct {
	comma   rune
	nulls   []string
	decimal bool
	lazy    bool
}

// csvTypes is what a CSV reader knows of its column types, for its errors:
// the file's dialect, and how many records the types were inferred from
// (0: they were given).
type csvTypes struct {
	csvDialect
	inferred int
	kinds    []int // what inference found (CSVInference); nil: given
	// sampled: the types were inferred from a sample of the records, the
	// file's own or of several files (ReadOptions.CSVSchemaSampled)
	sampled bool
}

// hint tells how to get past a value that does not parse as its column's
// type, when that type was inferred from a sample.
func (t csvTypes) hint() string {
	if t.sampled && t.inferred == 0 {
		return " (column types were inferred from samples of the files: infer them from every record with ReadOptions.CSVInferRows = -1, strata import --infer-rows -1, or give ReadOptions.CSVSchema)"
	}
	if t.inferred <= 0 || t.inferred == math.MaxInt {
		return ""
	}
	return fmt.Sprintf(" (column types were inferred from the first %d records: infer them from every record with ReadOptions.CSVInferRows = -1, strata import --infer-rows -1, or give ReadOptions.CSVSchema)", t.inferred)
}

// locate finds, in r (whole records starting on file line line, the
// first skip of them passed over: a header), the first value that does
// not parse as its column's type in sch, and describes it: line 20002,
// column "a": "oops" does not parse as int64.
func (t csvTypes) locate(r io.Reader, line int64, skip int, sch *arrow.Schema) (string, bool) {
	cr := stdcsv.NewReader(r)
	cr.Comma = t.comma
	cr.LazyQuotes = t.lazy
	cr.FieldsPerRecord = -1
	for range skip {
		if _, err := cr.Read(); err != nil {
			return "", false
		}
	}
	for {
		rec, err := cr.Read()
		if err != nil {
			return "", false
		}
		for i, v := range rec {
			if i >= sch.NumFields() || isCSVNull(v, t.nulls) {
				continue
			}
			p := v
			if t.decimal {
				p = decimalPoint(v)
			}
			if !t.parses(sch.Field(i).Type, p) {
				at, _ := cr.FieldPos(i)
				return fmt.Sprintf("line %d, column %q: %q does not parse as %s", line+int64(at)-1, sch.Field(i).Name, v, sch.Field(i).Type), true
			}
		}
	}
}

// parses reports whether v (its decimal comma made a point) is a value of
// a column of type typ as the reader reads it: a number a decimal column
// holds exactly, one a float64 holds when float columns take only those
// (exactFloats), what narrowKinds takes for an inferred type; any text
// for other types.
func (t csvTypes) parses(typ arrow.DataType, v string) bool {
	switch tt := typ.(type) {
	case *arrow.Decimal128Type:
		_, _, err := exactUnscaled(v, tt.Precision, tt.Scale)
		return err == nil
	case *arrow.Decimal256Type:
		_, _, err := exactUnscaled(v, tt.Precision, tt.Scale)
		return err == nil
	case *arrow.Float64Type:
		if t.exactFloats() && !floatExact(v) {
			return false
		}
	}
	k, ok := typeKind(typ)
	return !ok || narrowKinds(k, v) != 0
}

// exactFloats reports whether a float64 column takes only the values a
// float64 holds (floatExact), failing the read on another: when its type
// was inferred from a sample of the file, or of several files
// (ReadOptions.CSVSchemaSampled), which had no such value (else inference
// would have made the column decimal or text). A type given, or inferred
// from every record, takes any float.
func (t csvTypes) exactFloats() bool { return t.sampled }

// typeKind is the inference kind a column type was inferred as (false for
// strings, which take any text, and for types inference never picks).
func typeKind(t arrow.DataType) (int, bool) {
	switch t := t.(type) {
	case *arrow.Int64Type:
		return inferInt, true
	case *arrow.Float64Type:
		return inferFloat, true
	case *arrow.BooleanType:
		return inferBool, true
	case *arrow.Date32Type:
		return inferDate, true
	case *arrow.TimestampType:
		if t.TimeZone != "" {
			return inferTimestampTZ, true
		}
		return inferTimestamp, true
	case *arrow.Time32Type:
		return inferTime, true
	}
	return 0, false
}

// csvBatch returns a batch arrow-go's reader parsed (into the schema of
// csvReadSchema) as a batch of sch: the same columns, its times of day,
// dates and the numbers csvReadSchema reads as text converted from their
// text (a null word null), the fields of string columns at cells
// (csvNullScan: rows of the batch) null. types is the file's.
func csvBatch(got arrow.Record, sch *arrow.Schema, times []bool, types csvTypes, cells []csvCell, mem memory.Allocator) (arrow.Record, error) {
	if int(got.NumCols()) != sch.NumFields() {
		return nil, fmt.Errorf("batch has %d columns, schema %d", got.NumCols(), sch.NumFields())
	}
	cols := got.Columns()
	if slices.Contains(times, true) || len(cells) > 0 {
		cols = slices.Clone(cols)
		if mem == nil {
			mem = memory.DefaultAllocator
		}
	}
	for i, isTime := range times {
		if !isTime {
			continue
		}
		a, err := parseTimes(cols[i].(*array.String), sch.Field(i).Type, types, mem)
		if err != nil {
			return nil, fmt.Errorf("column %q: %w", sch.Field(i).Name, err)
		}
		defer a.Release()
		cols[i] = a
	}
	if len(cells) > 0 {
		rows := make([][]int, len(cols))
		for _, c := range cells {
			if c.record >= int(got.NumRows()) {
				return nil, fmt.Errorf("a null of record %d past the batch's %d (a bug)", c.record, got.NumRows())
			}
			rows[c.col] = append(rows[c.col], c.record)
		}
		for i, r := range rows {
			if r == nil {
				continue
			}
			a := withNulls(cols[i], r, mem)
			defer a.Release()
			cols[i] = a
		}
	}
	return array.NewRecord(sch, cols, got.NumRows()), nil
}

// withNulls is a with the values at rows (distinct) null too: the same
// buffers under a new validity bitmap.
func withNulls(a arrow.Array, rows []int, mem memory.Allocator) arrow.Array {
	d := a.Data()
	off, n := d.Offset(), d.Len()
	bits := memory.NewResizableBuffer(mem)
	bits.Resize(int(bitutil.BytesForBits(int64(off + n))))
	defer bits.Release()
	if old := d.Buffers()[0]; old != nil && d.NullN() > 0 {
		copy(bits.Bytes(), old.Bytes())
	} else {
		bitutil.SetBitsTo(bits.Bytes(), int64(off), int64(n), true)
	}
	for _, r := range rows {
		if bitutil.BitIsSet(bits.Bytes(), off+r) {
			bitutil.ClearBit(bits.Bytes(), off+r)
		}
	}
	nulls := n - bitutil.CountSetBits(bits.Bytes(), off, n)
	bufs := slices.Clone(d.Buffers())
	bufs[0] = bits
	nd := array.NewData(d.DataType(), n, bufs, d.Children(), nulls, off)
	defer nd.Release()
	return array.MakeFromData(nd)
}

func (c *csvReader) Close() error { c.r.Release(); return c.f.Close() }

// Exact numbers. A number whose digits a float64 cannot hold (more
// significant digits than a float64's 15 to 17, or past its range) would
// be rounded as a float: CSV and JSON import give a column of such numbers
// with fractions an exact decimal type, or keep their text, and refuse
// such a value met after the inference sample in a float64 column.

// maxInferDecimal is the widest decimal inference picks: decimal128's 38
// digits.
const maxInferDecimal = 38

// plainDecimal reports whether v is a plain decimal number: an optional
// sign, digits, and optionally a point and more digits (".5" and "5."
// too, as float parsers read them), no exponent; intDigits is the count of
// its integer digits past leading zeros (0 for "0.5"), fracDigits the
// count of digits after the point, trailing zeros included (the scale it
// is written with: 1.10 has 2).
func plainDecimal(v string) (intDigits, fracDigits int, ok bool) {
	if len(v) > 0 && (v[0] == '-' || v[0] == '+') {
		v = v[1:]
	}
	i := 0
	for i < len(v) && v[i] >= '0' && v[i] <= '9' {
		i++
	}
	ip := strings.TrimLeft(v[:i], "0")
	digits := i
	if i < len(v) {
		if v[i] != '.' {
			return 0, 0, false
		}
		j := i + 1
		for j < len(v) && v[j] >= '0' && v[j] <= '9' {
			j++
		}
		if j < len(v) {
			return 0, 0, false
		}
		fracDigits = j - i - 1
		digits += fracDigits
	}
	if digits == 0 {
		return 0, 0, false
	}
	return len(ip), fracDigits, true
}

// decimalParts reads a decimal number, [sign] digits [. digits]
// [e|E [sign] digits], as its significant digits (no leading or trailing
// zeros; none for zero), appended to dst, and the power of ten they are
// scaled by: the number is ±digits × 10^exp. ok is false for text of any
// other form (NaN, Inf, hexadecimal floats). An exponent past a billion
// is taken as a billion.
func decimalParts[S string | []byte](dst []byte, v S) (neg bool, digits []byte, exp int, ok bool) {
	if len(v) > 0 && (v[0] == '-' || v[0] == '+') {
		neg = v[0] == '-'
		v = v[1:]
	}
	digits = dst[:0]
	n, frac := 0, 0 // digits read, of them after the point
	point := false
	i := 0
	for ; i < len(v); i++ {
		c := v[i]
		if c >= '0' && c <= '9' {
			if c != '0' || len(digits) > 0 {
				digits = append(digits, c)
			}
			n++
			if point {
				frac++
			}
			continue
		}
		if c == '.' && !point {
			point = true
			continue
		}
		break
	}
	if n == 0 {
		return false, nil, 0, false
	}
	if i < len(v) {
		if v[i] != 'e' && v[i] != 'E' {
			return false, nil, 0, false
		}
		i++
		eneg := false
		if i < len(v) && (v[i] == '-' || v[i] == '+') {
			eneg = v[i] == '-'
			i++
		}
		if i == len(v) {
			return false, nil, 0, false
		}
		for ; i < len(v); i++ {
			c := v[i]
			if c < '0' || c > '9' {
				return false, nil, 0, false
			}
			// an exponent past a billion is kept as a billion, past
			// every float's and decimal's range; exp*10 stays below
			// 2^31 so a 32-bit int does not wrap
			if exp < 1e8 {
				exp = exp*10 + int(c-'0')
			} else {
				exp = 1e9
			}
		}
		if eneg {
			exp = -exp
		}
	}
	exp -= frac
	for len(digits) > 0 && digits[len(digits)-1] == '0' {
		digits = digits[:len(digits)-1]
		exp++
	}
	if len(digits) == 0 {
		return false, digits, 0, true // zero, of either sign
	}
	return neg, digits, exp, true
}

// floatExact reports whether a float64 holds the number v exactly as far
// as its text goes (floatHeld); text a float parser does not read counts
// as held, its parser decides.
func floatExact(v string) bool {
	f, err := strconv.ParseFloat(v, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return true
	}
	return floatHeld(v, f)
}

// floatHeld reports whether f, v parsed as a float64, holds the number v
// exactly as far as its text goes: f written back in its shortest form is
// the same number as v (1.10 and 1.1, Python's 0.30000000000000004, 1e-05
// are; 999999999999999999999999999999999999.99, which is 1e+36 as a
// float, 0.99999999999999999999999999999999999999, which is 1, and
// 1e-400, which is 0, are not); or v is f written with as many
// significant digits as v has, correctly rounded, as C's %.17g and
// NumPy's savetxt (%.18e) write floats (0.10000000000000001,
// 1.000000000000000056e-01, 4.9406564584124654e-324): the digits past
// the 17th of such text are the float's own; or v is f's exact value
// (2^60, 1152921504606846976, whose shortest form is
// 1.152921504606847e+18). A hexadecimal float (0x1.8p1) is held when f
// is its value exactly, and not when a float64 rounds it: its mantissa
// has more significant bits than a float64's 53 (0x1.fffffffffffff8p0,
// which is 2 as a float), or its exponent takes it past float64's range
// or below its least subnormal (hexHeld). A number of at most 15 digits
// is always held, and so is text read as no number in either notation
// (NaN, Inf).
func floatHeld(v string, f float64) bool {
	n := 0
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c >= '0' && c <= '9':
			n++
		case c == '-' || c == '+' || c == '.':
		default:
			n = 99 // an exponent or other text: look closer
		}
	}
	if n <= 15 || math.IsNaN(f) {
		return true
	}
	var tbuf [32]byte
	if n < 99 && len(v) < len(tbuf) && !math.IsInf(f, 0) {
		// the float's shortest text itself, as Python and Go write
		// floats: most such values
		if string(strconv.AppendFloat(tbuf[:0], f, 'f', -1, 64)) == strings.TrimPrefix(v, "+") {
			return true
		}
	}
	var vbuf, fbuf [40]byte
	neg, digits, exp, ok := decimalParts(vbuf[:0], v)
	if !ok {
		if held, hex := hexHeld(v, f); hex {
			return held
		}
		return true // a word for NaN or infinity
	}
	if math.IsInf(f, 0) {
		return false // past float64's range
	}
	same := func(text []byte) bool {
		fneg, fdigits, fexp, _ := decimalParts(fbuf[:0], text)
		return string(digits) == string(fdigits) && exp == fexp && (len(digits) == 0 || neg == fneg)
	}
	if same(strconv.AppendFloat(tbuf[:0], f, 'g', -1, 64)) || len(digits) > 0 && same(strconv.AppendFloat(tbuf[:0], f, 'e', len(digits)-1, 64)) {
		return true
	}
	if f == 0 || exp < -1100 || exp > 400 {
		return false // (a float's exact value has no digit past 10^-1075)
	}
	r, ok := new(big.Rat).SetString(v)
	return ok && r.Cmp(new(big.Rat).SetFloat64(f)) == 0
}

// hexHeld reports, for v a hexadecimal float as Go and C write them
// ([sign] 0x mantissa p [sign] exponent, the mantissa's hex digits with
// an optional point, underscores between digits as Go allows) and f its
// value parsed as a float64, whether f is v's value exactly; hex is false
// when v is not of that form. v's value is its mantissa's digits as an
// integer times two to the exponent less four a digit after the point,
// computed exactly (an exponent past a billion is taken as a billion, as
// decimalParts does, which no float64 reaches either way).
func hexHeld(v string, f float64) (held, hex bool) {
	neg := false
	if len(v) > 0 && (v[0] == '-' || v[0] == '+') {
		neg = v[0] == '-'
		v = v[1:]
	}
	if len(v) < 2 || v[0] != '0' || v[1] != 'x' && v[1] != 'X' {
		return false, false
	}
	v = v[2:]
	var digits []byte // the mantissa's hex digits, no leading zeros
	n, frac := 0, 0   // digits read, of them after the point
	point := false
	i := 0
mantissa:
	for ; i < len(v); i++ {
		c := v[i]
		switch {
		case c == '_':
		case c == '.' && !point:
			point = true
		case '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F':
			if c != '0' || len(digits) > 0 {
				digits = append(digits, c)
			}
			n++
			if point {
				frac++
			}
		default:
			break mantissa
		}
	}
	if n == 0 || i == len(v) || v[i] != 'p' && v[i] != 'P' {
		return false, false
	}
	i++
	eneg := false
	if i < len(v) && (v[i] == '-' || v[i] == '+') {
		eneg = v[i] == '-'
		i++
	}
	exp, edigits := 0, 0
	for ; i < len(v); i++ {
		c := v[i]
		if c == '_' {
			continue
		}
		if c < '0' || c > '9' {
			return false, false
		}
		if exp < 1e8 {
			exp = exp*10 + int(c-'0')
		} else {
			exp = 1e9 // (no overflow of a 32-bit int)
		}
		edigits++
	}
	if edigits == 0 {
		return false, false
	}
	if eneg {
		exp = -exp
	}
	if len(digits) == 0 {
		return f == 0, true // zero, of either sign
	}
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return false, true
	}
	m, ok := new(big.Int).SetString(string(digits), 16)
	if !ok {
		return false, false
	}
	x := new(big.Float).SetInt(m) // exact: its precision is m's bits
	x.SetMantExp(x, exp-4*frac)
	if neg {
		x.Neg(x)
	}
	return x.Cmp(new(big.Float).SetFloat64(f)) == 0, true
}

// exactUnscaled is the number v as the unscaled value of a decimal of
// precision prec and scale scale: its digits (no leading zeros, "" for
// zero) and sign; an error when the decimal would round it (digits after
// the point past the scale other than zeros) or cannot hold it (more
// digits than prec). arrow-go's CSV reader rounds the first
// (decimal128.FromString: 1.235 in decimal(10,2) is 1.24).
func exactUnscaled(v string, prec, scale int32) (digits string, neg bool, err error) {
	neg, db, exp, ok := decimalParts(nil, v)
	if !ok {
		return "", false, fmt.Errorf("not a decimal number")
	}
	if len(db) == 0 {
		return "", false, nil
	}
	d := string(db)
	shift := exp + int(scale)
	if shift < 0 {
		return "", false, fmt.Errorf("more digits after the point than decimal(%d,%d) holds: it would be rounded", prec, scale)
	}
	if len(d)+shift > int(prec) {
		return "", false, fmt.Errorf("more digits than decimal(%d,%d) holds", prec, scale)
	}
	return d + strings.Repeat("0", shift), neg, nil
}

// parseDecimal128 reads v exactly as a decimal128 of precision prec and
// scale scale (exactUnscaled).
func parseDecimal128(v string, prec, scale int32) (decimal128.Num, error) {
	d, neg, err := exactUnscaled(v, prec, scale)
	if err != nil {
		return decimal128.Num{}, err
	}
	var n decimal128.Num
	if len(d) <= 18 {
		u, _ := strconv.ParseUint("0"+d, 10, 64)
		n = decimal128.FromU64(u)
	} else {
		b, _ := new(big.Int).SetString(d, 10)
		n = decimal128.FromBigInt(b)
	}
	if neg {
		n = n.Negate()
	}
	return n, nil
}

// parseDecimal256 reads v exactly as a decimal256 of precision prec and
// scale scale (exactUnscaled).
func parseDecimal256(v string, prec, scale int32) (decimal256.Num, error) {
	d, neg, err := exactUnscaled(v, prec, scale)
	if err != nil {
		return decimal256.Num{}, err
	}
	var n decimal256.Num
	if len(d) <= 18 {
		u, _ := strconv.ParseUint("0"+d, 10, 64)
		n = decimal256.FromU64(u)
	} else {
		b, _ := new(big.Int).SetString(d, 10)
		n = decimal256.FromBigInt(b)
	}
	if neg {
		n = n.Negate()
	}
	return n, nil
}
