package interop

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/extensions"
)

// JSON tables: a file of JSON objects, one a record, either one a line
// (JSON lines, .jsonl or .ndjson) or as the elements of one top-level
// array (.json, as many exports write it; a .json file of lines reads too).
//
// Types are inferred from the first JSONInferRows records: booleans,
// integers (int64), other numbers (float64, or decimal128 when one has
// more digits than a float64 holds and all are plain decimals of at most
// 38 digits: jtype.number), strings, objects (structs of
// every key seen, in order of first appearance) and arrays (lists of their
// elements' type). Strings that all read as dates (YYYY-MM-DD), timestamps
// (ISO 8601, with a zone offset in every value or in none) or times of day
// are stored as such, as CSV inference reads them. A key whose values disagree (a number here, a string
// there; an object and an array) becomes a JSON column (the arrow.json
// extension over strings) holding each value's JSON text, so nothing is
// lost (integers beside floats too, when float64 would round one); a key seen only with nulls is a string column. A later record
// whose value does not fit its inferred type fails the read naming the
// record and the key, with the hint to infer from every record.

// DefaultJSONInferRows is the records sampled to infer a JSON file's types
// when ReadOptions.JSONInferRows is 0 (DuckDB's read_json samples as many).
const DefaultJSONInferRows = 20480

// jtype is an inferred JSON type: a lattice from nothing seen (jNull) up
// to jText, which holds anything as JSON text.
type jtype struct {
	kind   jkind
	fields []jfield // jObject
	elem   *jtype   // jArray
	// temporal (jString): the kinds of CSV inference among dates,
	// timestamps and times of day that every string seen parses as.
	temporal int
	// wideInt: an integer seen that float64 would round (past 2^53): a
	// column of it and of floats is JSON text, not float64 (or decimal,
	// below).
	wideInt bool
	// Of the numbers seen: exact, one not an integer that float64 would
	// round (floatExact), so the column is decimal128(intDigits+scale,
	// scale) when every number is a plain decimal (not notPlain: no
	// exponent) and that is at most 38 digits, else JSON text; intDigits
	// and scale, the most digits before (past leading zeros) and after
	// the point.
	exact, notPlain  bool
	intDigits, scale int
}

// temporalKinds are the kinds a column of JSON strings may be stored as
// instead of text, as CSV inference reads them: dates, timestamps without
// and with zone offsets, times of day.
const temporalKinds = inferDate | inferTimestamp | inferTimestampTZ | inferTime

type jfield struct {
	name string
	t    *jtype
}

type jkind uint8

const (
	jNull jkind = iota
	jBool
	jInt
	jFloat
	jString
	jObject
	jArray
	jText
)

// merge widens t to hold v too.
func (t *jtype) merge(v any) {
	if v == nil || t.kind == jText {
		return
	}
	k := kindOf(v)
	if n, ok := v.(json.Number); ok && (k == jInt || k == jFloat) {
		t.number(string(n), k)
	}
	switch {
	case t.kind == jNull:
		t.kind = k
		if k == jString {
			t.temporal = narrowKinds(temporalKinds, v.(string))
		}
	case t.kind == k:
		if k == jString && t.temporal != 0 {
			t.temporal = narrowKinds(t.temporal, v.(string))
		}
	case t.kind == jInt && k == jFloat, t.kind == jFloat && k == jInt:
		t.kind = jFloat
	default:
		*t = jtype{kind: jText}
		return
	}
	switch x := v.(type) {
	case map[string]any:
		for _, kv := range orderedKeys(x) {
			f := t.field(kv)
			f.merge(x[kv])
		}
	case []any:
		if t.elem == nil {
			t.elem = &jtype{}
		}
		for _, e := range x {
			t.elem.merge(e)
		}
	}
}

// number notes what float64 cannot hold of n, a JSON number of kind k
// (jInt or jFloat): an integer it would round, a number with a fraction or
// an exponent it would round, and the digits of a plain decimal
// (floatHolds, floatExact, plainDecimal).
func (t *jtype) number(n string, k jkind) {
	if k == jInt && !floatHolds(n) {
		t.wideInt = true
	}
	if k == jFloat && !floatExact(n) {
		t.exact = true
	}
	if id, fd, ok := plainDecimal(n); ok {
		t.intDigits, t.scale = max(t.intDigits, id), max(t.scale, fd)
	} else {
		t.notPlain = true
	}
}

// field returns t's field named name, adding it at the end if new.
func (t *jtype) field(name string) *jtype {
	for _, f := range t.fields {
		if f.name == name {
			return f.t
		}
	}
	f := &jtype{}
	t.fields = append(t.fields, jfield{name, f})
	return f
}

func kindOf(v any) jkind {
	switch x := v.(type) {
	case bool:
		return jBool
	case json.Number:
		if _, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return jInt
		}
		if !strings.ContainsAny(string(x), ".eE") {
			return jText // an integer past int64: as a float it would lose digits
		}
		if f, err := strconv.ParseFloat(string(x), 64); err == nil && !math.IsInf(f, 0) {
			return jFloat
		}
		return jText // a number past float64
	case string:
		return jString
	case map[string]any:
		return jObject
	case []any:
		return jArray
	}
	return jText
}

// floatHolds reports whether float64 holds the number s exactly when s is
// an integer (digits, a minus sign perhaps: JSON's and CSV's integers);
// true for other numbers, whose decimal fractions a float rounds as any
// reader of floats expects. An integer of up to 15 digits always fits;
// a longer one fits when the float, written back with all its digits, is
// s (2^60 fits, 2^53+1 does not).
func floatHolds(s string) bool {
	d := strings.TrimLeft(s, "+-")
	if len(d) <= 15 || strings.ContainsAny(d, ".eE") {
		return true
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return true // not a number float64 takes: its parser says
	}
	return strconv.FormatFloat(f, 'f', 0, 64) == strings.TrimPrefix(s, "+")
}

// arrowType is the Arrow type of t.
func (t *jtype) arrowType() arrow.DataType {
	switch t.kind {
	case jBool:
		return arrow.FixedWidthTypes.Boolean
	case jInt:
		return arrow.PrimitiveTypes.Int64
	case jFloat:
		switch {
		case t.exact && !t.notPlain && t.intDigits+t.scale <= maxInferDecimal:
			return &arrow.Decimal128Type{Precision: int32(max(t.intDigits+t.scale, 1)), Scale: int32(t.scale)}
		case t.exact || t.wideInt:
			// as float64 a number would lose digits: the numbers keep
			// their text, as an integer past int64 does
			return jsonTextType()
		}
		return arrow.PrimitiveTypes.Float64
	case jObject:
		fs := make([]arrow.Field, len(t.fields))
		for i, f := range t.fields {
			fs[i] = arrow.Field{Name: f.name, Type: f.t.arrowType(), Nullable: true}
		}
		if len(fs) == 0 {
			return jsonTextType()
		}
		return arrow.StructOf(fs...)
	case jArray:
		if t.elem == nil {
			return arrow.ListOf(arrow.BinaryTypes.String)
		}
		return arrow.ListOf(t.elem.arrowType())
	case jText:
		return jsonTextType()
	case jString:
		if t.temporal != 0 {
			return kindType(t.temporal)
		}
	}
	return arrow.BinaryTypes.String // jNull, jString
}

func jsonTextType() arrow.DataType {
	t, _ := extensions.NewJSONType(arrow.BinaryTypes.String)
	return t
}

// orderedKeys returns an object's keys in the order the file wrote them
// (decodeRecord keeps it beside the map).
func orderedKeys(m map[string]any) []string {
	if ks, ok := m[keyOrder].([]string); ok {
		return ks
	}
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// keyOrder is the map entry under which decodeValue keeps an object's key
// order; no JSON key can equal it (it is not valid UTF-8).
const keyOrder = "\xff"

// jsonRecords reads the records of a JSON table one at a time.
type jsonRecords struct {
	dec   *json.Decoder
	array bool // inside a top-level array
	n     int  // records read
	raw   json.RawMessage
	// lines, for nextRaw over a sequence of objects: records are read a
	// line at a time, each checked by json.Valid, until a line is not one
	// whole object; from there on dec reads.
	lines *bufio.Reader
}

// jsonByLine makes the reader take JSON lines a line at a time (tests
// turn it off to compare with the decoder alone).
var jsonByLine = true

// newJSONRecords reads the records of r. With byLine, nextRaw reads JSON
// lines a line at a time (one check of each line's syntax instead of the
// decoder's two passes and copies); next always uses the decoder.
func newJSONRecords(r io.Reader, byLine bool) (*jsonRecords, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	// a top-level array, or a sequence of objects
	for {
		c, err := br.ReadByte()
		if err == io.EOF {
			return &jsonRecords{dec: json.NewDecoder(br)}, nil
		}
		if err != nil {
			return nil, err
		}
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		}
		br.UnreadByte()
		if byLine && c != '[' {
			return &jsonRecords{lines: br}, nil
		}
		j := &jsonRecords{dec: json.NewDecoder(br), array: c == '['}
		j.dec.UseNumber()
		if j.array {
			j.dec.Token() // the '['
		}
		return j, nil
	}
}

// nextLine returns the next record of a JSON-lines file whose line holds
// exactly one object, valid until the next call; ok false (with no error)
// when the rest of the file must go to the decoder, which then starts at
// the line just read.
func (j *jsonRecords) nextLine() (rec []byte, ok bool, err error) {
	for {
		line, err := j.lines.ReadSlice('\n')
		if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
			return nil, false, err
		}
		rec := trimJSONSpace(line)
		if len(rec) == 0 && err == io.EOF {
			return nil, false, io.EOF
		}
		if len(rec) == 0 {
			continue
		}
		if err != bufio.ErrBufferFull && rec[0] == '{' && json.Valid(rec) {
			j.n++
			return rec, true, nil
		}
		// A line longer than the buffer, one that is not an object, holds
		// more than one value or is not valid JSON: the decoder reads on
		// from its start, and reports what is wrong as it always has.
		j.dec = json.NewDecoder(io.MultiReader(bytes.NewReader(bytes.Clone(line)), j.lines))
		j.lines = nil
		return nil, false, nil
	}
}

// trimJSONSpace trims JSON's whitespace (space, tab, CR, LF) from b.
func trimJSONSpace(b []byte) []byte {
	isSpace := func(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }
	for len(b) > 0 && isSpace(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && isSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}

// next returns the next record, or io.EOF.
func (j *jsonRecords) next() (map[string]any, error) {
	if j.array && !j.dec.More() {
		if _, err := j.dec.Token(); err != nil { // the ']'
			return nil, fmt.Errorf("record %d: %w", j.n+1, err)
		}
		if _, err := j.dec.Token(); err != io.EOF {
			return nil, fmt.Errorf("after the top-level array: unexpected data")
		}
		return nil, io.EOF
	}
	v, err := decodeValue(j.dec)
	if err == io.EOF && !j.array {
		return nil, io.EOF
	}
	if err != nil {
		return nil, fmt.Errorf("record %d: %w", j.n+1, err)
	}
	j.n++
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("record %d: a JSON object is a record, not %s", j.n, describeJSON(v))
	}
	return m, nil
}

// nextRaw returns the next record's text, or io.EOF. The decoder has
// checked that it is valid JSON, so its values are then found by
// splitObject, and only the values a column needs are parsed: faster than
// decoding it token by token (which inference does, to learn the keys'
// order) or into a map.
func (j *jsonRecords) nextRaw() (json.RawMessage, error) {
	if j.lines != nil {
		rec, ok, err := j.nextLine()
		if ok || err != nil {
			return rec, err
		}
	}
	if j.array && !j.dec.More() {
		if _, err := j.dec.Token(); err != nil { // the ']'
			return nil, fmt.Errorf("record %d: %w", j.n+1, unexpectedEOF(err))
		}
		if _, err := j.dec.Token(); err != io.EOF {
			return nil, fmt.Errorf("after the top-level array: unexpected data")
		}
		return nil, io.EOF
	}
	j.raw = j.raw[:0]
	if err := j.dec.Decode(&j.raw); err != nil {
		if err == io.EOF && !j.array {
			return nil, io.EOF
		}
		return nil, fmt.Errorf("record %d: %w", j.n+1, unexpectedEOF(err))
	}
	j.n++
	if len(j.raw) == 0 || j.raw[0] != '{' {
		return nil, fmt.Errorf("record %d: a JSON object is a record, not %s", j.n, describeRaw(j.raw))
	}
	return j.raw, nil
}

// splitObject calls fn with each key (unquoted, as raw bytes) and raw value
// of obj, a valid JSON object (as json.Decoder returns it), stopping at
// fn's first error. It never reads past obj, whatever obj holds.
func splitObject(obj []byte, fn func(key, val []byte) error) error {
	i := skipSpace(obj, 1)
	for i < len(obj) && obj[i] != '}' {
		ks := i
		i = skipString(obj, i)
		key := obj[min(ks+1, i):max(ks+1, i-1)]
		i = skipSpace(obj, i)
		if i < len(obj) && obj[i] == ':' {
			i++
		}
		i = skipSpace(obj, i)
		vs := i
		i = skipValue(obj, i)
		if err := fn(key, obj[vs:i]); err != nil {
			return err
		}
		i = skipSpace(obj, i)
		if i < len(obj) && obj[i] == ',' {
			i = skipSpace(obj, i+1)
		}
		if i == vs {
			break // no progress: not the object the decoder checked
		}
	}
	return nil
}

// splitArray calls fn with each raw element of arr, a valid JSON array.
func splitArray(arr []byte, fn func(val []byte) error) error {
	i := skipSpace(arr, 1)
	for i < len(arr) && arr[i] != ']' {
		vs := i
		i = skipValue(arr, i)
		if err := fn(arr[vs:i]); err != nil {
			return err
		}
		i = skipSpace(arr, i)
		if i < len(arr) && arr[i] == ',' {
			i = skipSpace(arr, i+1)
		}
		if i == vs {
			break
		}
	}
	return nil
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index past the string starting at b[i] ('"').
func skipString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(b)
}

// skipValue returns the index past the value starting at b[i].
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return len(b)
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				i = skipString(b, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return len(b)
	}
	for i < len(b) {
		switch b[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i
		}
		i++
	}
	return i
}

// keyText returns a raw key as a string: its bytes when they need no
// unescaping and are UTF-8, else what a JSON decoder makes of them.
func keyText(key []byte) string {
	if bytes.IndexByte(key, '\\') < 0 && utf8.Valid(key) {
		return string(key)
	}
	var s string
	q := make([]byte, 0, len(key)+2)
	q = append(append(append(q, '"'), key...), '"')
	if json.Unmarshal(q, &s) != nil {
		return string(key)
	}
	return s
}

// describeRaw names the kind of a raw JSON value, for errors.
func describeRaw(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

func describeJSON(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case []any:
		return "an array"
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "a boolean"
	}
	return fmt.Sprintf("%T", v)
}

// maxJSONDepth bounds the nesting decodeValue follows (a hostile file of
// many '[' would otherwise recurse without end).
const maxJSONDepth = 200

// decodeValue reads one JSON value token by token, keeping each object's
// key order (under keyOrder).
func decodeValue(dec *json.Decoder) (any, error) {
	return decodeDepth(dec, 0)
}

func decodeDepth(dec *json.Decoder, depth int) (v any, err error) {
	if depth > maxJSONDepth {
		return nil, fmt.Errorf("values nested deeper than %d", maxJSONDepth)
	}
	if depth > 0 {
		// the end of the input inside a value is a truncated record
		defer func() {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
		}()
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch x := tok.(type) {
	case json.Delim:
		switch x {
		case '{':
			m := map[string]any{}
			var order []string
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, unexpectedEOF(err)
				}
				k, _ := kt.(string)
				v, err := decodeDepth(dec, depth+1)
				if err != nil {
					return nil, unexpectedEOF(err)
				}
				if _, dup := m[k]; !dup {
					order = append(order, k)
				}
				m[k] = v
			}
			if _, err := dec.Token(); err != nil {
				return nil, unexpectedEOF(err)
			}
			m[keyOrder] = order
			return m, nil
		case '[':
			var a []any
			for dec.More() {
				v, err := decodeDepth(dec, depth+1)
				if err != nil {
					return nil, unexpectedEOF(err)
				}
				a = append(a, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, unexpectedEOF(err)
			}
			if a == nil {
				a = []any{}
			}
			return a, nil
		}
		return nil, fmt.Errorf("unexpected %q", x)
	}
	return tok, nil
}

// unexpectedEOF turns the end of the input, met inside a value, into
// io.ErrUnexpectedEOF.
func unexpectedEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// inferJSONSchema reads up to rows records of r.
func inferJSONSchema(r io.Reader, rows int) (*arrow.Schema, error) {
	recs, err := newJSONRecords(r, false)
	if err != nil {
		return nil, err
	}
	top := &jtype{kind: jObject}
	for range rows {
		m, err := recs.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		top.merge(m)
	}
	if len(top.fields) == 0 {
		return nil, errors.New("no record holds a key")
	}
	fs := make([]arrow.Field, len(top.fields))
	for i, f := range top.fields {
		fs[i] = arrow.Field{Name: f.name, Type: f.t.arrowType(), Nullable: true}
	}
	return arrow.NewSchema(fs, nil), nil
}

// jsonReader reads a JSON table as record batches of a given schema.
type jsonReader struct {
	jsonColumns
	f    input
	recs *jsonRecords
	sch  *arrow.Schema
	b    *array.RecordBuilder
	rows int
	done bool
	vals []json.RawMessage // a record's values by column (nil: missing)
}

// jsonColumns are a JSON table's columns, which records are appended to.
type jsonColumns struct {
	fields []arrow.Field  // the schema's fields (Schema.Fields copies them)
	col    map[string]int // column of a top-level key
	infer  int            // records the types came from
}

func newJSONColumns(sch *arrow.Schema, infer int) jsonColumns {
	c := jsonColumns{fields: sch.Fields(), col: make(map[string]int, sch.NumFields()), infer: infer}
	for i, fl := range c.fields {
		c.col[fl.Name] = i
	}
	return c
}

// appendRecord appends record k (from 1), raw, to b's columns; vals is
// scratch of one entry a column.
func (c *jsonColumns) appendRecord(b *array.RecordBuilder, vals []json.RawMessage, raw []byte, k int) error {
	clear(vals)
	err := splitObject(raw, func(key, val []byte) error {
		i, ok := c.col[string(key)]
		if !ok {
			kt := keyText(key)
			if i, ok = c.col[kt]; !ok {
				return fmt.Errorf("key %q is not in the first %d records the types were inferred from; ReadOptions.JSONInferRows = -1 (strata import --infer-rows -1) infers them from every record", kt, c.infer)
			}
		}
		vals[i] = val // a repeated key: the last wins, as for a JSON decoder
		return nil
	})
	if err != nil {
		return fmt.Errorf("interop: json: record %d: %w", k, err)
	}
	for i, f := range c.fields {
		if err := appendRaw(b.Field(i), f.Type, vals[i]); err != nil {
			hint := ""
			if c.infer != math.MaxInt {
				hint = fmt.Sprintf(" (types were inferred from the first %d records; ReadOptions.JSONInferRows = -1, or strata import --infer-rows -1, infers them from every record)", c.infer)
			}
			return fmt.Errorf("interop: json: record %d, key %q: %w%s", k, f.Name, err, hint)
		}
	}
	return nil
}

func openJSON(path string, f input, size int64, opts ReadOptions) (_ RecordReader, err error) {
	defer func() {
		if err != nil {
			f.Close()
		}
	}()
	if f, size, err = skipBOM(f, size); err != nil {
		return nil, err
	}
	rows := opts.JSONInferRows
	switch {
	case rows == 0:
		rows = DefaultJSONInferRows
	case rows < 0:
		rows = math.MaxInt
	}
	sch, err := inferJSONSchema(f, rows)
	if err != nil {
		return nil, fmt.Errorf("interop: %s: %w", path, err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("interop: %w", err)
	}
	recs, err := newJSONRecords(f, jsonByLine)
	if err != nil {
		return nil, fmt.Errorf("interop: %s: %w", path, err)
	}
	batch := opts.BatchRows
	if opts.autoBatch {
		batch = typedBatchRows(sch)
	}
	if recs.lines != nil && opts.Parallel {
		// JSON lines: parsed in pieces on several goroutines
		return openJSONParallel(f, size, sch, rows, batch, opts.Threads, opts.Mem), nil
	}
	return &jsonReader{jsonColumns: newJSONColumns(sch, rows), f: f, recs: recs, sch: sch, b: array.NewRecordBuilder(opts.Mem, sch),
		rows: batch, vals: make([]json.RawMessage, sch.NumFields())}, nil
}

func (r *jsonReader) Schema() *arrow.Schema { return r.sch }

func (r *jsonReader) Next() (arrow.Record, error) {
	if r.done {
		return nil, io.EOF
	}
	n := 0
	for n < r.rows {
		raw, err := r.recs.nextRaw()
		if err == io.EOF {
			r.done = true
			break
		}
		if err != nil {
			return nil, fmt.Errorf("interop: json: %w", err)
		}
		if err := r.appendRecord(r.b, r.vals, raw, r.recs.n); err != nil {
			return nil, err
		}
		n++
	}
	if n == 0 {
		return nil, io.EOF
	}
	return r.b.NewRecord(), nil
}

func (r *jsonReader) Close() error {
	r.b.Release()
	return r.f.Close()
}

// appendTemporal appends a JSON string holding a date, a timestamp or a
// time of day to its builder, parsed as CSV import parses them.
func appendTemporal(b array.Builder, t arrow.DataType, raw json.RawMessage) error {
	if raw[0] != '"' {
		return fmt.Errorf("%s is not a string", describeRaw(raw))
	}
	var s string
	if bytes.IndexByte(raw, '\\') < 0 {
		s = string(raw[1 : len(raw)-1])
	} else if err := json.Unmarshal(raw, &s); err != nil {
		return err
	}
	var err error
	switch b := b.(type) {
	case *array.Date32Builder:
		var d arrow.Date32
		if d, err = parseDate32(s); err == nil {
			b.Append(d)
		}
	case *array.TimestampBuilder:
		tt := t.(*arrow.TimestampType)
		loc := time.UTC
		if tt.TimeZone != "" && tt.TimeZone != "UTC" {
			if loc, err = tt.GetZone(); err != nil {
				return err
			}
		}
		var ts arrow.Timestamp
		if ts, err = parseTimestamp(s, tt, loc); err == nil {
			b.Append(ts)
		}
	case *array.Time32Builder:
		var v arrow.Time32
		if v, err = arrow.Time32FromString(s, t.(*arrow.Time32Type).Unit); err == nil {
			b.Append(v)
		}
	}
	if err != nil {
		return fmt.Errorf("%q is not a %s value: %w", s, t, err)
	}
	return nil
}

// appendRaw appends a record's raw value (nil when the key is missing) to
// b, a builder of type t.
func appendRaw(b array.Builder, t arrow.DataType, raw json.RawMessage) error {
	if len(raw) == 0 || raw[0] == 'n' {
		if len(raw) != 0 && string(raw) != "null" {
			return fmt.Errorf("%s is not JSON", raw)
		}
		b.AppendNull()
		return nil
	}
	if _, ok := t.(*extensions.JSONType); ok {
		// the value's own text, as the file wrote it (bytes that are not
		// UTF-8, which JSON text must be, as U+FFFD, as a JSON decoder
		// reads them)
		text := string(raw)
		if !utf8.Valid(raw) {
			text = strings.ToValidUTF8(text, "\uFFFD")
		}
		b.(*array.ExtensionBuilder).Builder.(*array.StringBuilder).Append(text)
		return nil
	}
	switch b := b.(type) {
	case *array.BooleanBuilder:
		switch string(raw) {
		case "true":
			b.Append(true)
		case "false":
			b.Append(false)
		default:
			return fmt.Errorf("%s is not a boolean", describeRaw(raw))
		}
	case *array.Int64Builder:
		i, err := strconv.ParseInt(string(raw), 10, 64)
		if err != nil {
			if raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9' {
				return fmt.Errorf("%s is not an int64", raw)
			}
			return fmt.Errorf("%s is not an integer", describeRaw(raw))
		}
		b.Append(i)
	case *array.Float64Builder:
		if raw[0] != '-' && (raw[0] < '0' || raw[0] > '9') {
			return fmt.Errorf("%s is not a number", describeRaw(raw))
		}
		f, err := strconv.ParseFloat(string(raw), 64)
		if err != nil {
			return fmt.Errorf("%s is not a float64", raw)
		}
		if !floatHolds(string(raw)) {
			return fmt.Errorf("%s is an integer a float64 would round", raw)
		}
		if !floatExact(string(raw)) {
			return fmt.Errorf("%s is a number a float64 would round (it has more digits than a float64 holds)", raw)
		}
		b.Append(f)
	case *array.Decimal128Builder:
		if raw[0] != '-' && (raw[0] < '0' || raw[0] > '9') {
			return fmt.Errorf("%s is not a number", describeRaw(raw))
		}
		dt := t.(*arrow.Decimal128Type)
		n, err := parseDecimal128(string(raw), dt.Precision, dt.Scale)
		if err != nil {
			return fmt.Errorf("%s is not a %s value: %w", raw, dt, err)
		}
		b.Append(n)
	case *array.Date32Builder, *array.TimestampBuilder, *array.Time32Builder:
		return appendTemporal(b, t, raw)
	case *array.StringBuilder:
		if raw[0] != '"' {
			return fmt.Errorf("%s is not a string", describeRaw(raw))
		}
		if bytes.IndexByte(raw, '\\') < 0 && utf8.Valid(raw) {
			b.Append(string(raw[1 : len(raw)-1]))
			break
		}
		var x string
		if err := json.Unmarshal(raw, &x); err != nil {
			return err
		}
		b.Append(x)
	case *array.StructBuilder:
		if raw[0] != '{' {
			return fmt.Errorf("%s is not an object", describeRaw(raw))
		}
		st := t.(*arrow.StructType)
		vals := make([]json.RawMessage, st.NumFields())
		err := splitObject(raw, func(key, val []byte) error {
			k := keyText(key)
			i, ok := st.FieldIdx(k)
			if !ok {
				return fmt.Errorf("key %q is not in the records the types were inferred from", k)
			}
			vals[i] = val
			return nil
		})
		if err != nil {
			return err
		}
		b.Append(true)
		for i := range st.NumFields() {
			f := st.Field(i) // (Fields would copy them, once a value)
			if err := appendRaw(b.FieldBuilder(i), f.Type, vals[i]); err != nil {
				return fmt.Errorf("%s: %w", f.Name, err)
			}
		}
	case *array.ListBuilder:
		if raw[0] != '[' {
			return fmt.Errorf("%s is not an array", describeRaw(raw))
		}
		et := t.(*arrow.ListType).Elem()
		b.Append(true)
		k := 0
		return splitArray(raw, func(e []byte) error {
			if err := appendRaw(b.ValueBuilder(), et, e); err != nil {
				return fmt.Errorf("element %d: %w", k, err)
			}
			k++
			return nil
		})
	default:
		return fmt.Errorf("no JSON reading into %s", t)
	}
	return nil
}

// jsonSink writes JSON lines: an object a row, its keys the columns in
// schema order, nulls as null, nested values as JSON.
type jsonSink struct {
	f io.WriteCloser
	w *bufio.Writer
}

func (s *jsonSink) Write(rec arrow.Record) error { return WriteJSONRows(s.w, rec) }

// WriteJSONRows writes each row of rec to w as one line of JSON: an object
// whose keys are the columns in order (see JSONValue for the values).
func WriteJSONRows(w io.Writer, rec arrow.Record) error {
	names := make([]string, rec.NumCols())
	for c := range names {
		names[c], _ = JSONText(rec.ColumnName(c))
	}
	var buf bytes.Buffer
	for i := 0; i < int(rec.NumRows()); i++ {
		buf.Reset()
		buf.WriteByte('{')
		for c, col := range rec.Columns() {
			if c > 0 {
				buf.WriteByte(',')
			}
			buf.WriteString(names[c])
			buf.WriteByte(':')
			t, err := JSONText(JSONValue(col, i))
			if err != nil {
				return fmt.Errorf("interop: json: column %s, row %d: %w", rec.ColumnName(c), i, err)
			}
			buf.WriteString(t)
		}
		buf.WriteString("}\n")
		if _, err := w.Write(buf.Bytes()); err != nil {
			return err
		}
	}
	return nil
}

func (s *jsonSink) Close() error {
	err := s.w.Flush()
	if cerr := s.f.Close(); err == nil {
		err = cerr
	}
	return err
}

// JSONValue is value i of a as a Go value JSON marshals as a JSON reader
// expects: null, booleans and numbers as such, times as their text, a JSON
// column as its text, nested values as JSON; a NaN or infinite float as
// null, which is all JSON can hold of it.
func JSONValue(a arrow.Array, i int) any {
	if a.IsNull(i) {
		return nil
	}
	if s, ok := TimeText(a, i); ok {
		return s
	}
	if s, ok := ExtendedYearText(a, i, 'T'); ok {
		// (not arrow-go's raw integer)
		return s
	}
	switch v := a.(type) {
	case *array.Boolean:
		return v.Value(i)
	case *array.Int8:
		return v.Value(i)
	case *array.Int16:
		return v.Value(i)
	case *array.Int32:
		return v.Value(i)
	case *array.Int64:
		return v.Value(i)
	case *array.Uint8:
		return v.Value(i)
	case *array.Uint16:
		return v.Value(i)
	case *array.Uint32:
		return v.Value(i)
	case *array.Uint64:
		return v.Value(i)
	case *array.Float16:
		// (as float32 and float64: NaN and ±Inf were the strings "NaN"
		// and "+Inf" that arrow-go marshals them as)
		f := v.Value(i).Float32()
		return jsonFloat(float64(f), f)
	case *array.Float32:
		return jsonFloat(float64(v.Value(i)), v.Value(i))
	case *array.Float64:
		return jsonFloat(v.Value(i), v.Value(i))
	case *array.String:
		return v.Value(i)
	case *array.Decimal32, *array.Decimal64, *array.Decimal128, *array.Decimal256:
		// the number's digits, its scale kept (1.00, not arrow-go's "1"
		// string, nor 1e-05 for 0.00001)
		s, _ := DecimalText(a, i)
		return json.RawMessage(s)
	case array.ExtensionArray:
		if _, ok := v.DataType().(*extensions.JSONType); ok {
			if s, ok := v.Storage().(*array.String); ok {
				return json.RawMessage(s.Value(i))
			}
		}
	}
	switch v := a.(type) {
	case *array.Struct, *array.List:
		var buf bytes.Buffer
		if err := writeArrowJSON(&buf, v, i); err == nil {
			return json.RawMessage(buf.Bytes())
		}
	}
	b, err := JSONText(a.GetOneForMarshal(i))
	if err != nil {
		return a.ValueStr(i)
	}
	return json.RawMessage(b)
}

// DecimalText renders value i of a decimal array exactly, with as many
// digits after the point as its scale (1.00 for 100 at scale 2), as
// Parquet readers and CSV export write decimals; ok is false for arrays of
// other types. (arrow-go's ValueStr goes through a binary float and drops
// trailing zeros: "1" for 1.00, "1e-05" for 0.00001.)
func DecimalText(a arrow.Array, i int) (s string, ok bool) {
	switch v := a.(type) {
	case *array.Decimal32:
		return v.Value(i).ToString(v.DataType().(arrow.DecimalType).GetScale()), true
	case *array.Decimal64:
		return v.Value(i).ToString(v.DataType().(arrow.DecimalType).GetScale()), true
	case *array.Decimal128:
		return v.Value(i).ToString(v.DataType().(arrow.DecimalType).GetScale()), true
	case *array.Decimal256:
		return v.Value(i).ToString(v.DataType().(arrow.DecimalType).GetScale()), true
	}
	return "", false
}

// jsonFloat is v as JSONValue returns it: nil for NaN and the infinities,
// which JSON cannot write, as JavaScript's JSON.stringify and pandas
// write them (null); else the value, of its own type.
func jsonFloat[F float32 | float64](f float64, v F) any {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil
	}
	return v
}

// writeArrowJSON writes value i of a as JSON, a struct's keys in the order
// of its fields (arrow-go's marshalling sorts them).
func writeArrowJSON(buf *bytes.Buffer, a arrow.Array, i int) error {
	switch v := a.(type) {
	case *array.Struct:
		if v.IsNull(i) {
			buf.WriteString("null")
			return nil
		}
		st := v.DataType().(*arrow.StructType)
		buf.WriteByte('{')
		for k, f := range st.Fields() {
			if k > 0 {
				buf.WriteByte(',')
			}
			name, _ := JSONText(f.Name)
			buf.WriteString(name)
			buf.WriteByte(':')
			if err := writeArrowJSON(buf, v.Field(k), i); err != nil {
				return err
			}
		}
		buf.WriteByte('}')
		return nil
	case *array.List:
		if v.IsNull(i) {
			buf.WriteString("null")
			return nil
		}
		lo, hi := v.ValueOffsets(i)
		buf.WriteByte('[')
		for j := lo; j < hi; j++ {
			if j > lo {
				buf.WriteByte(',')
			}
			if err := writeArrowJSON(buf, v.ListValues(), int(j)); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
		return nil
	}
	s, err := JSONText(JSONValue(a, i))
	if err != nil {
		return err
	}
	buf.WriteString(s)
	return nil
}
