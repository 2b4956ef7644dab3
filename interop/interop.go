// Package interop moves tables between Strata and the formats users already
// have: Parquet, CSV and Arrow IPC files, through arrow-go. Each source is a
// stream of Arrow record batches, so conversion memory stays bounded by a
// batch (Parquet: by a row group's worth of one batch).
package interop

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/extensions"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"strata/encoding"
	"strata/iox"
	"strata/schema"
)

// Format names a table file format.
type Format string

// Supported formats.
const (
	Parquet Format = "parquet"
	CSV     Format = "csv"
	Arrow   Format = "arrow"
	JSON    Format = "json" // JSON lines, or one array of objects (see json.go)
)

// ErrFormat reports a file name whose extension names no format Strata
// imports or exports.
var ErrFormat = errors.New("unknown file format")

// FormatOf infers a format from a file name's extension.
func FormatOf(path string) (Format, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".parquet", ".pq":
		return Parquet, nil
	case ".csv", ".tsv":
		return CSV, nil
	case ".arrow", ".ipc", ".feather", ".arrows":
		return Arrow, nil
	case ".json", ".jsonl", ".ndjson":
		return JSON, nil
	}
	return "", fmt.Errorf("interop: cannot tell the format of %q from its extension (want .parquet, .csv, .arrow or .jsonl): %w", path, ErrFormat)
}

// RecordReader is a stream of record batches with one schema.
type RecordReader interface {
	Schema() *arrow.Schema
	// Next returns the next batch, or io.EOF. The caller releases it.
	Next() (arrow.Record, error)
	Close() error
}

// ReadOptions tune reading source files.
type ReadOptions struct {
	// BatchRows is the number of rows per record batch (0: as many rows as
	// take about BatchBytes in Arrow, estimated from a Parquet file's
	// metadata or a CSV file's column types, within 1,024 and
	// DefaultBatchRows; Arrow IPC files keep their own batches).
	BatchRows int
	// CSVSchema, when set, is the schema of a CSV file; otherwise types are inferred.
	CSVSchema *arrow.Schema
	// CSVSchemaSampled tells that CSVSchema's types were inferred from
	// samples of the data (CSVInference.Schema or SchemaFor of files read
	// with CSVInferRows ≥ 0), not given: a float64 column then refuses a
	// value a float64 would round, as a type inferred from the file's own
	// sample does, instead of storing it rounded.
	CSVSchemaSampled bool
	// JSONInferRows is the number of records sampled to infer a JSON
	// table's types (0: DefaultJSONInferRows; negative: every record).
	JSONInferRows int
	// CSVInferRows is the number of records sampled to infer CSV column
	// types when CSVSchema is nil (0: DefaultCSVInferRows; negative: every
	// record, a first pass over the whole file). A later value that does
	// not parse as its column's inferred type fails the read, with its line
	// and column named when the file is read in Parallel.
	CSVInferRows int
	// CSVNoHeader tells that the CSV file has no header line (columns are
	// then named by CSVSchema, or f0, f1, ... when inferring).
	CSVNoHeader bool
	// CSVComma is the field separator of a CSV file. 0 takes a tab for a
	// .tsv file and otherwise sniffs the file's first records: of comma,
	// semicolon, tab and vertical bar, the one that splits them into the
	// same number of fields, the most fields winning and the comma a tie
	// (see sniffComma).
	CSVComma rune
	// CSVNulls are field values read as null besides the empty field,
	// NULL and null (csvNulls): "NA", "\N", "-" as some exporters write.
	// In a string column only an unquoted field is null: a quoted one
	// ("NA", "") is the text it holds, as PostgreSQL and DuckDB read it
	// and as export writes such strings; in columns of other types a
	// value in the list is null quoted or not.
	CSVNulls []string
	// CSVDecimalComma reads numbers written with a decimal comma ("2,5",
	// as European exports with a semicolon separator write them) as
	// float64: inference takes them for numbers, and float columns are
	// parsed with the comma as the point. Only a lone comma is one: a
	// value also holding a point ("1.234,5") is text.
	CSVDecimalComma bool
	// CSVLazyQuotes accepts quotes inside unquoted fields (12" pizza) and
	// lone quotes inside quoted ones as text, as encoding/csv's
	// LazyQuotes does, instead of refusing the file. Such a file is read
	// on one goroutine: the parallel reader cuts records at line breaks
	// outside quotes, which a stray quote would misplace.
	CSVLazyQuotes bool
	// KeepTypes passes batches through with their source types. By default
	// types Strata cannot store but can hold losslessly are converted (see
	// StorableType): extension types, float16, fixed_size_binary,
	// decimal256, intervals, dictionaries of values other than text,
	// run-end encoded columns, unions.
	KeepTypes bool
	// Parallel parses a CSV file, or a JSON-lines file, in pieces on
	// Threads goroutines (csvParallel, jsonParallel; a JSON file that is
	// one top-level array is read serially). A Parquet file is decoded on the calling goroutine
	// either way: arrow-go's parallel column decoding recovers no panic
	// in its goroutines, and a malformed file may make arrow-go panic,
	// which Next turns into an error only on its own goroutine.
	Parallel bool
	// Threads bounds the goroutines parsing a CSV or JSON-lines file with
	// Parallel (0: GOMAXPROCS; at most eight either way).
	Threads int
	// ParquetMaxPageBytes is the largest page, compressed or uncompressed,
	// a Parquet source may declare (0: arrow-go's limits, 64 MiB
	// compressed and 256 MiB uncompressed). A page is decompressed and
	// decoded whole, so its header decides what the reader allocates: a
	// few kilobytes of compressed bytes can claim gigabytes. arrow-go
	// and parquet-java cut pages at 1 MiB by default, so only a file of
	// huge single values nears the default; raise it to read one from a
	// trusted source (see ErrPageLimit).
	ParquetMaxPageBytes int64
	Mem                 memory.Allocator

	parquetBuffer int64 // bytes of a column chunk read at a time
	autoBatch     bool  // BatchRows was 0: size Parquet batches by bytes
}

// input is a table file opened for reading: a local file, or an object
// read through an io.ReaderAt.
type input interface {
	io.Reader
	io.ReaderAt
	io.Seeker
	io.Closer
}

// sectionInput reads an io.ReaderAt as an input.
type sectionInput struct {
	*io.SectionReader
	c io.Closer
}

func (s sectionInput) Close() error {
	if s.c != nil {
		return s.c.Close()
	}
	return nil
}

// skipBOM returns f without the UTF-8 byte order mark it starts with, if
// any (spreadsheets and some JSON writers put one before CSV or JSON text),
// positioned at its start, and its size.
func skipBOM(f input, size int64) (input, int64, error) {
	var bom [3]byte
	if n, _ := f.ReadAt(bom[:], 0); n < 3 || bom != [3]byte{0xef, 0xbb, 0xbf} {
		return f, size, nil
	}
	s := sectionInput{io.NewSectionReader(f, 3, size-3), f}
	if _, err := s.Seek(0, io.SeekStart); err != nil {
		return f, size, fmt.Errorf("interop: %w", err) // f, for the caller to close
	}
	return s, size - 3, nil
}

// Open opens a Parquet, CSV or Arrow IPC file as a record stream.
func Open(path string, opts ReadOptions) (RecordReader, error) {
	if _, err := FormatOf(path); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("interop: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("interop: %w", err)
	}
	return openInput(path, f, st.Size(), opts)
}

// OpenReaderAt opens a Parquet, CSV or Arrow IPC table of size bytes read
// through r (an object in remote storage, say); name, whose extension tells
// the format, is used in errors. Closing the reader closes c, if not nil.
func OpenReaderAt(name string, r io.ReaderAt, size int64, c io.Closer, opts ReadOptions) (RecordReader, error) {
	if _, err := FormatOf(name); err != nil {
		return nil, err
	}
	if opts.parquetBuffer == 0 {
		// one request per buffer: larger reads for an object store
		opts.parquetBuffer = remoteParquetBuffer
	}
	return openInput(name, sectionInput{io.NewSectionReader(r, 0, size), c}, size, opts)
}

// How much of a Parquet column chunk a read fetches at a time: a whole
// column chunk of every column would otherwise be held in memory, which
// for a file written as one large row group is the whole file.
const (
	localParquetBuffer  = 1 << 20
	remoteParquetBuffer = 8 << 20
)

// openInput reads in as a record stream; it owns in (closing it on error).
func openInput(path string, in input, size int64, opts ReadOptions) (RecordReader, error) {
	f, err := FormatOf(path)
	if err != nil {
		in.Close()
		return nil, err
	}
	if opts.BatchRows <= 0 {
		opts.BatchRows = DefaultBatchRows
		opts.autoBatch = true
	}
	if opts.Mem == nil {
		opts.Mem = memory.DefaultAllocator
	}
	var r RecordReader
	switch f {
	case Parquet:
		r, err = openParquet(path, in, opts)
	case CSV:
		r, err = openCSV(path, in, size, opts)
	case JSON:
		r, err = openJSON(path, in, size, opts)
	default:
		r, err = openIPC(path, in, size, opts)
	}
	if err != nil {
		return nil, err
	}
	if !opts.KeepTypes {
		r = coerce(r, opts.Mem)
	}
	return r, nil
}

// DefaultBatchRows is the rows of a record batch read from a source, at
// most (see ReadOptions.BatchRows).
const DefaultBatchRows = 64 << 10

// BatchBytes is the Arrow bytes a batch read from Parquet is sized to when
// ReadOptions.BatchRows is 0. A Parquet reader holds a batch's values and
// levels for every column at once (and reserves up to twice that), so a
// batch of 64 Ki rows of a table of 1,000 int64 columns took over 1 GB.
const BatchBytes = 16 << 20

// parquetBatchRows returns the rows of about BatchBytes of Arrow data of
// the file: each column's width (its physical one, or the uncompressed
// bytes a row takes in the first row group, whichever is more, with 4
// bytes of offsets for byte arrays and 2 of levels for a nullable or
// repeated column), within 1,024 and DefaultBatchRows rows.
func parquetBatchRows(md *metadata.FileMetaData) int {
	if md.NumRowGroups() == 0 {
		return DefaultBatchRows
	}
	rg := md.RowGroup(0)
	rows := rg.NumRows()
	if rows <= 0 {
		return DefaultBatchRows
	}
	perRow := 0.0
	sc := md.Schema
	for i := 0; i < sc.NumColumns(); i++ {
		col := sc.Column(i)
		w := 0.0
		switch col.PhysicalType() {
		case parquet.Types.Boolean:
			w = 1
		case parquet.Types.Int32, parquet.Types.Float:
			w = 4
		case parquet.Types.Int64, parquet.Types.Double, parquet.Types.Int96:
			w = 8
		case parquet.Types.FixedLenByteArray:
			w = float64(col.TypeLength())
		case parquet.Types.ByteArray:
			w = 4
		}
		if cc, err := rg.ColumnChunk(i); err == nil {
			w = max(w, float64(cc.TotalUncompressedSize())/float64(rows))
		}
		if col.MaxDefinitionLevel() > 0 || col.MaxRepetitionLevel() > 0 {
			w += 2
		}
		perRow += w
	}
	return batchRowsFor(perRow)
}

// batchRowsFor returns the rows of about BatchBytes at perRow bytes a row,
// within 1,024 and DefaultBatchRows.
func batchRowsFor(perRow float64) int {
	if perRow <= 0 {
		return DefaultBatchRows
	}
	return int(min(max(BatchBytes/perRow, 1024), DefaultBatchRows))
}

type parquetReader struct {
	pf   *file.Reader // owns the os.File
	rr   pqarrow.RecordReader
	done int64  // rows returned
	path string // for errors
	// With INT96 columns read as timestamp[us] (int96.go): those
	// columns' readers by field position (nil for the fields rr reads,
	// and rr nil when it reads none), the whole schema, and the rows of
	// a batch when rr does not size it.
	micros    []*int96Column
	sch       *arrow.Schema
	batchRows int64
}

// ErrPageLimit reports a Parquet page larger than
// ReadOptions.ParquetMaxPageBytes allows.
var ErrPageLimit = errors.New("Parquet page over the size limit")

// pageLimitError explains arrow-go's refusal of a page over its size
// limit, or returns nil for other errors.
func pageLimitError(path string, err error) error {
	if err == nil || !strings.Contains(err.Error(), "page size") || !strings.Contains(err.Error(), "exceeds configured limit") {
		return nil
	}
	return fmt.Errorf("interop: %s: %w: %v; a reader decodes a page whole, so this limit keeps a small file from making it allocate gigabytes; "+
		"if the file is trusted and memory allows, raise the limit (ReadOptions.ParquetMaxPageBytes, strata import --max-page-bytes)", path, ErrPageLimit, err)
}

func openParquet(path string, f input, opts ReadOptions) (_ RecordReader, err error) {
	var pf *file.Reader
	defer func() {
		// arrow-go panics on some malformed footers and schemas; report
		// those as errors (a logical type it does not know is read as
		// its physical type instead: openParquetFile).
		if r := recover(); r != nil {
			err = fmt.Errorf("interop: %s: malformed parquet file: %v", path, r)
		}
		if err != nil {
			f.Close()
		}
	}()
	// Stream each column chunk a buffer at a time: by default arrow-go
	// reads a whole column chunk of every column of a row group before
	// the first batch, which for a file written as one large row group
	// is the whole file in memory.
	props := parquet.NewReaderProperties(opts.Mem)
	props.BufferedStreamEnabled = true
	props.BufferSize = opts.parquetBuffer
	if props.BufferSize <= 0 {
		props.BufferSize = localParquetBuffer
	}
	if opts.ParquetMaxPageBytes > 0 {
		props.MaxCompressedPageSize = opts.ParquetMaxPageBytes
		props.MaxUncompressedPageSize = opts.ParquetMaxPageBytes
	}
	pf, err = openParquetFile(f, props)
	if err != nil {
		return nil, fmt.Errorf("interop: %s: %w", path, err)
	}
	if opts.autoBatch {
		opts.BatchRows = parquetBatchRows(pf.MetaData())
	}
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: int64(opts.BatchRows)}, opts.Mem)
	if err != nil {
		return nil, fmt.Errorf("interop: %s: %w", path, err)
	}
	// INT96 columns beyond timestamp[ns] are read as timestamp[us], by
	// interop rather than arrow-go (int96.go).
	micros, err := int96MicroColumns(pf, fr.Manifest)
	if err != nil {
		return nil, fmt.Errorf("interop: %s: %w", path, err)
	}
	var rr pqarrow.RecordReader
	if cols := otherLeaves(fr.Manifest, micros); len(micros) == 0 || len(cols) > 0 {
		if len(micros) == 0 {
			cols = nil // every column
		}
		if rr, err = fr.GetRecordReader(context.Background(), cols, nil); err != nil {
			return nil, fmt.Errorf("interop: %s: %w", path, err)
		}
	}
	pr := &parquetReader{pf: pf, rr: rr, path: path}
	if len(micros) > 0 {
		fsch, err := fr.Schema()
		if err != nil {
			pr.release()
			return nil, fmt.Errorf("interop: %s: %w", path, err)
		}
		pr.useMicros(fsch, fr.Manifest, micros, opts.BatchRows, opts.Mem)
	}
	sch, changed, err := parquetLogicalTypes(fr, pr.Schema())
	if err != nil {
		pr.release()
		return nil, fmt.Errorf("interop: %s: %w", path, err)
	}
	if changed && len(micros) > 0 { // (parquetLogicalTypes gives them arrow-go's type)
		fields := sch.Fields()
		for i := range micros {
			fields[i].Type = arrow.FixedWidthTypes.Timestamp_us
		}
		md := sch.Metadata()
		sch = arrow.NewSchema(fields, &md)
	}
	if changed {
		return &retypingReader{RecordReader: pr, sch: sch, mem: opts.Mem}, nil
	}
	return pr, nil
}

func (p *parquetReader) Schema() *arrow.Schema {
	if p.sch != nil {
		return p.sch
	}
	return p.rr.Schema()
}

func (p *parquetReader) Next() (rec arrow.Record, err error) {
	defer func() {
		// arrow-go can panic on some malformed files; report it as an error.
		if r := recover(); r != nil {
			rec, err = nil, fmt.Errorf("interop: parquet: %v", r)
		}
	}()
	if p.micros != nil {
		rec, err = p.nextWithMicros() // a batch of the caller's
	} else {
		rec, err = p.rr.Read()
	}
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, io.EOF
		}
		if perr := pageLimitError(p.path, err); perr != nil {
			return nil, perr
		}
		return nil, fmt.Errorf("interop: parquet: %w", err)
	}
	if p.micros == nil {
		rec.Retain() // (arrow-go's reader releases its batch on the next Read)
	}
	p.done += rec.NumRows()
	return rec, nil
}

// release releases arrow-go's record reader, if p has one.
func (p *parquetReader) release() {
	if p.rr != nil {
		p.rr.Release()
	}
}

func (p *parquetReader) Close() error {
	p.release()
	return p.pf.Close()
}

var errIPCFileMagic = errors.New("starts with the Arrow IPC file magic")

// checkIPCStreamStart vets the first message header of an IPC stream
// before arrow-go sizes a buffer from it: read as a stream, a file's
// "ARROW1" magic or random bytes give lengths of up to 2 GiB, which
// arrow-go would allocate before failing. It leaves f at offset 0.
func checkIPCStreamStart(f input, fileSize int64) error {
	var hdr [8]byte
	n, err := f.ReadAt(hdr[:], 0)
	if n < 4 {
		return fmt.Errorf("not an Arrow IPC file or stream (%d bytes): %w", n, err)
	}
	if string(hdr[:6]) == "ARROW1" {
		return errIPCFileMagic
	}
	size := uint64(binary.LittleEndian.Uint32(hdr[:4]))
	if size == 0xFFFFFFFF { // continuation marker, then the length
		if n < 8 {
			return errors.New("not an Arrow IPC stream: truncated first message")
		}
		size = uint64(binary.LittleEndian.Uint32(hdr[4:8]))
	}
	if size > uint64(fileSize) {
		return fmt.Errorf("not an Arrow IPC stream: first message of %d bytes in a %d-byte file", size, fileSize)
	}
	_, err = f.Seek(0, io.SeekStart)
	return err
}

type ipcReader struct {
	f       input
	held    *ipcBlocks // what fr reads through
	fr      *ipc.FileReader
	sr      *ipc.Reader
	i       int
	batches int // batches read from a stream
}

func openIPC(path string, f input, size int64, opts ReadOptions) (_ RecordReader, err error) {
	defer func() {
		if r := recover(); r != nil {
			f.Close()
			err = fmt.Errorf("interop: %s: malformed Arrow IPC data: %v", path, r)
		}
	}()
	// The metadata is checked first (ipcverify.go), so arrow-go's limits
	// on a message's size can be the file's own.
	blocks, err := verifyIPCFile(f, size)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("interop: %s: corrupt Arrow IPC file: %w", path, err)
	}
	limits := []ipc.Option{ipc.WithAllocator(opts.Mem), ipc.WithMetadataSizeLimit(size), ipc.WithBodySizeLimit(size)}
	held := &ipcBlocks{input: f, blocks: blocks}
	fr, ferr := ipc.NewFileReader(held, limits...)
	if ferr == nil {
		return &ipcReader{f: f, fr: fr, held: held}, nil
	}
	if err := checkIPCStreamStart(f, size); err != nil {
		f.Close()
		if errors.Is(err, errIPCFileMagic) {
			return nil, fmt.Errorf("interop: %s: truncated or corrupt Arrow IPC file: %w", path, ferr)
		}
		return nil, fmt.Errorf("interop: %s: %w", path, err)
	}
	sr, err := ipc.NewReaderFromMessageReader(newIPCMessages(f, size, opts.Mem), limits...)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("interop: %s is neither an Arrow IPC file nor stream: %w", path, err)
	}
	return &ipcReader{f: f, sr: sr}, nil
}

func (r *ipcReader) Schema() *arrow.Schema {
	if r.fr != nil {
		return r.fr.Schema()
	}
	return r.sr.Schema()
}

func (r *ipcReader) Next() (rec arrow.Record, err error) {
	defer func() {
		// Malformed IPC buffers can make arrow-go index out of range.
		if p := recover(); p != nil {
			rec, err = nil, fmt.Errorf("interop: arrow: malformed batch: %v", p)
		}
	}()
	if r.fr != nil {
		if r.i >= r.fr.NumRecords() {
			return nil, io.EOF
		}
		if err := r.held.load(r.i); err != nil {
			return nil, fmt.Errorf("interop: arrow: record batch %d: %w", r.i, err)
		}
		rec, err = r.fr.Record(r.i)
		r.held.held = nil
		if err != nil {
			return nil, fmt.Errorf("interop: arrow: %w", err)
		}
		if err := validateBatch(rec); err != nil {
			return nil, fmt.Errorf("interop: arrow: corrupt record batch %d: %w", r.i, err)
		}
		r.i++
		rec.Retain()
		return rec, nil
	}
	if !r.sr.Next() {
		if err := r.sr.Err(); err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("interop: arrow: %w", err)
		}
		return nil, io.EOF
	}
	rec = r.sr.Record()
	if err := validateBatch(rec); err != nil {
		return nil, fmt.Errorf("interop: arrow: corrupt record batch %d: %w", r.batches, err)
	}
	rec.Retain()
	r.batches++
	return rec, nil
}

func (r *ipcReader) Close() error {
	if r.fr != nil {
		r.fr.Close()
	} else {
		r.sr.Release()
	}
	return r.f.Close()
}

// Sink writes record batches to a file of some format.
type Sink interface {
	Write(rec arrow.Record) error
	// Close completes the file; a file Create made appears under its
	// name only then.
	Close() error
	// Abort discards what was written (after a failed Write, or instead
	// of Close): a file Create made is removed, and one it replaces is
	// left as it was.
	Abort()
}

// formatSink is what each format's writer implements: a Sink without
// Abort, which fileSink adds.
type formatSink interface {
	Write(rec arrow.Record) error
	Close() error
}

// fileSink writes a format's file under a temporary name in its
// directory and renames it to its own name when Close succeeds, so that
// an export that fails midway (a source that turns out corrupt, a full
// disk, a cancelled command) leaves no partial file where a complete one
// was expected, nor destroys the file it would have replaced. The file is
// synced before the rename and the directory after it, so that a crash
// of the machine leaves the old file or the whole new one.
type fileSink struct {
	formatSink
	tmp, path string
	done      bool
}

// Close completes the format's file and moves it into place.
func (s *fileSink) Close() error {
	if s.done {
		return fmt.Errorf("interop: %s: sink already closed", s.path)
	}
	s.done = true
	err := s.formatSink.Close()
	if err == nil {
		err = syncFile(s.tmp) // (the format's writer closed its descriptor)
	}
	if err == nil {
		err = os.Rename(s.tmp, s.path)
	}
	if err != nil {
		os.Remove(s.tmp)
		return fmt.Errorf("interop: %s: %w", s.path, err)
	}
	if d, derr := os.Open(filepath.Dir(s.path)); derr == nil { // persist the rename
		d.Sync()
		d.Close()
	}
	return nil
}

// syncFile flushes a closed file's data to its device: fsync acts on the
// file, whichever descriptor asks.
func syncFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Abort closes the format's writer and removes the temporary file.
func (s *fileSink) Abort() {
	if s.done {
		return
	}
	s.done = true
	s.formatSink.Close() // the file is discarded: its error does not matter
	os.Remove(s.tmp)
}

// directSink writes where a temporary name cannot stand in for the
// destination (a device or a pipe): Abort only closes it.
type directSink struct{ formatSink }

func (s directSink) Abort() { s.formatSink.Close() }

// createTemp creates the file a sink writes for path: a temporary file
// beside it (tmp is its name), or path itself when it exists and is not
// a regular file. The temporary file gets the mode of the file it will
// replace, or 0666 less the umask, as any new file.
func createTemp(path string) (f *os.File, tmp string, err error) {
	var mode os.FileMode
	replaces := false
	if fi, err := os.Stat(path); err == nil {
		if !fi.Mode().IsRegular() {
			f, err := os.OpenFile(path, os.O_WRONLY, 0)
			return f, "", err
		}
		mode, replaces = fi.Mode().Perm(), true
	}
	f, err = iox.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".partial-*", 0o666)
	if err != nil {
		return nil, "", err
	}
	if replaces {
		if err := f.Chmod(mode); err != nil {
			f.Close()
			os.Remove(f.Name())
			return nil, "", err
		}
	}
	return f, f.Name(), nil
}

// WriteOptions tune writing files.
type WriteOptions struct {
	// ParquetCompression is the Parquet codec (default zstd).
	ParquetCompression compress.Compression
	// ParquetNoDictionary disables Parquet dictionary encoding.
	ParquetNoDictionary bool
	// ParquetRowGroupRows and ParquetRowGroupBytes end a Parquet row group
	// at this many rows or once its compressed pages take this many
	// bytes, whichever comes first (defaults: arrow-go's 64 Mi rows, and
	// 64 MiB). The Parquet writer holds a row group in memory until it
	// ends, so the byte limit is what bounds the memory of an export,
	// whatever the size of the table. Smaller groups cost bytes, since
	// arrow-go keeps dictionary encoding for a nearly unique column whose
	// group's dictionary fits its 1 MiB page: lineitem SF 1 exported to
	// 144.6 MB in one group (820 MB resident), 148.2 MB in groups of
	// 64 MiB (650 MB), 154.2 MB in groups of 32 MiB (585 MB) and 158.3 MB
	// in groups of 1 Mi rows.
	ParquetRowGroupRows  int64
	ParquetRowGroupBytes int64
	// Threads bounds the goroutines formatting the record batches of a
	// CSV file as text (0: GOMAXPROCS, at most eight; 1: the calling
	// goroutine). The file's bytes are the same whatever the number.
	Threads int
	// CSVNulls are null words of the file's reader (ReadOptions.CSVNulls
	// of an import that reads it back, DuckDB's nullstr): a null is
	// written as the first, bare, and a string equal to any of them quoted
	// (see NewCSVWriterNulls). Empty: nulls are empty fields.
	CSVNulls []string
	Mem      memory.Allocator
}

// Row group limits of exported Parquet files (WriteOptions).
const (
	DefaultParquetRowGroupRows  = 64 << 20
	DefaultParquetRowGroupBytes = 64 << 20
)

// Create writes a file of the format given by path's extension. The path
// may be a remote location, s3://bucket/key, when the package writing its
// scheme is linked in (strata/iox/s3): the file is uploaded as it is
// written and appears whole at Close, or not at all.
func Create(path string, sch *arrow.Schema, opts WriteOptions) (Sink, error) {
	if _, err := FormatOf(path); err != nil {
		return nil, err
	}
	var obj iox.Sink
	switch {
	case iox.IsRemote(path):
		var err error
		if obj, err = iox.Create(context.Background(), path); err != nil {
			return nil, fmt.Errorf("interop: %w", err)
		}
	default:
		path = iox.LocalPath(path)
	}
	return create(path, obj, sch, opts)
}

// CreateSink writes a file of the format name's extension gives to obj, a
// remote destination such as the upload s3.Create starts: Close commits
// it, so the file appears whole, and Abort, or a Close that fails,
// abandons it.
func CreateSink(obj iox.Sink, name string, sch *arrow.Schema, opts WriteOptions) (Sink, error) {
	if obj == nil {
		return nil, errors.New("interop: CreateSink: nil sink")
	}
	return create(name, obj, sch, opts)
}

// create writes path's format to obj, or to a local file at path when obj
// is nil.
func create(path string, obj iox.Sink, sch *arrow.Schema, opts WriteOptions) (Sink, error) {
	fm, err := FormatOf(path)
	if err != nil {
		if obj != nil {
			obj.Abort()
		}
		return nil, err
	}
	if opts.Mem == nil {
		opts.Mem = memory.DefaultAllocator
	}
	var f io.WriteCloser
	var tmp string
	if obj != nil {
		f = sinkFile{obj}
	} else {
		file, name, err := createTemp(path)
		if err != nil {
			return nil, fmt.Errorf("interop: %w", err)
		}
		f, tmp = file, name
	}
	var s formatSink
	switch fm {
	case Parquet:
		s, err = newParquetSink(f, sch, opts)
	case CSV:
		flat, text := csvSchema(sch)
		// a .tsv file is tab-separated, as import reads it
		comma := csvComma(path)
		if err = checkCSVNullWords(opts.CSVNulls, comma); err != nil {
			break
		}
		nulls := newCSVNullOut(flat, opts.CSVNulls)
		if opts.Threads != 1 {
			s = newCSVParallelSink(f, flat, text, comma, nulls, opts.Threads, opts.Mem)
			break
		}
		s = &csvSink{f: f, w: &CSVWriter{w: f, sch: flat, comma: comma, nulls: nulls, header: true}, sch: flat, text: text, mem: opts.Mem}
	case JSON:
		s = &jsonSink{f: f, w: bufio.NewWriterSize(f, 1<<16)}
	default:
		if strings.EqualFold(filepath.Ext(path), ".arrows") {
			// .arrows is the conventional name of the IPC stream format.
			s = &ipcSink{f: f, w: ipc.NewWriter(f, ipc.WithSchema(sch), ipc.WithAllocator(opts.Mem))}
			break
		}
		var w *ipc.FileWriter
		w, err = ipc.NewFileWriter(f, ipc.WithSchema(sch), ipc.WithAllocator(opts.Mem))
		s = &ipcSink{f: f, w: w}
	}
	if err != nil {
		f.Close()
		if tmp != "" {
			os.Remove(tmp)
		}
		if obj != nil {
			obj.Abort()
		}
		return nil, fmt.Errorf("interop: %s: %w", path, err)
	}
	if obj != nil {
		return &objectSink{formatSink: s, obj: obj, path: path}, nil
	}
	if tmp == "" {
		return directSink{s}, nil
	}
	return &fileSink{formatSink: s, tmp: tmp, path: path}, nil
}

// sinkFile is what a format's writer writes a remote object through: its
// Close is the format's end, not the object's (objectSink commits it).
type sinkFile struct{ iox.Sink }

func (sinkFile) Close() error { return nil }

// objectSink writes a format's file to a remote object, committed when
// Close succeeds and aborted otherwise, so a failed export leaves no
// partial object and the previous version in place.
type objectSink struct {
	formatSink
	obj  iox.Sink
	path string
	done bool
}

func (s *objectSink) Close() error {
	if s.done {
		return fmt.Errorf("interop: %s: sink already closed", s.path)
	}
	s.done = true
	err := s.formatSink.Close()
	if err == nil {
		err = s.obj.Commit()
	} else {
		s.obj.Abort()
	}
	if err != nil {
		return fmt.Errorf("interop: %s: %w", s.path, err)
	}
	return nil
}

func (s *objectSink) Abort() {
	if s.done {
		return
	}
	s.done = true
	s.formatSink.Close() // the object is discarded: its error does not matter
	s.obj.Abort()
}

// findType returns the dotted path of the first field of type id in f,
// nested fields included.
func findType(f arrow.Field, path string, id arrow.Type) (string, bool) {
	if f.Type.ID() == id {
		return path, true
	}
	if nt, ok := f.Type.(arrow.NestedType); ok {
		for _, c := range nt.Fields() {
			if p, ok := findType(c, path+"."+c.Name, id); ok {
				return p, true
			}
		}
	}
	return "", false
}

type parquetSink struct {
	f        io.WriteCloser
	w        *pqarrow.FileWriter
	maxBytes int64
}

func newParquetSink(f io.WriteCloser, sch *arrow.Schema, opts WriteOptions) (formatSink, error) {
	codec := opts.ParquetCompression
	if codec == compress.Codecs.Uncompressed {
		codec = compress.Codecs.Zstd
	}
	rows, bytes := opts.ParquetRowGroupRows, opts.ParquetRowGroupBytes
	if rows <= 0 {
		rows = DefaultParquetRowGroupRows
	}
	if bytes <= 0 {
		bytes = DefaultParquetRowGroupBytes
	}
	// The byte limit is checked against the pages a group holds; a
	// column's pending page and its dictionary are not counted until they
	// are cut, so both stay under a sixteenth of the limit (arrow-go's
	// 1 MiB at the default).
	page := min(int64(parquet.DefaultDataPageSize), max(bytes/16, 4<<10))
	props := parquet.NewWriterProperties(parquet.WithCompression(codec),
		parquet.WithDictionaryDefault(!opts.ParquetNoDictionary), parquet.WithStats(true),
		parquet.WithMaxRowGroupLength(rows), parquet.WithDataPageSize(page),
		parquet.WithDictionaryPageSizeLimit(page))
	for _, fl := range sch.Fields() {
		if p, ok := findType(fl, fl.Name, arrow.DURATION); ok {
			return nil, fmt.Errorf("column %q: arrow-go writes no Parquet type for a duration (export to .arrow or .csv keeps it): %w", p, encoding.ErrUnsupported)
		}
	}
	w, err := pqarrow.NewFileWriter(sch, f, props, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	if err != nil {
		return nil, err
	}
	return &parquetSink{f: f, w: w, maxBytes: bytes}, nil
}

// Write adds rec to the current row group (WriteBuffered starts a new
// one at the row limit) and ends the group once its column chunks reach
// the byte limit.
func (p *parquetSink) Write(rec arrow.Record) error {
	if err := p.w.WriteBuffered(rec); err != nil {
		return err
	}
	if p.w.RowGroupTotalBytesWritten() >= p.maxBytes { // its pages, compressed
		return p.w.NewBufferedRowGroupChecked()
	}
	return nil
}

// Close writes the footer; the Parquet writer closes the file.
func (p *parquetSink) Close() error {
	if err := p.w.Close(); err != nil {
		p.f.Close() // may already be closed; the write error is what matters
		return fmt.Errorf("interop: parquet: %w", err)
	}
	return nil
}

type csvSink struct {
	f    io.WriteCloser
	w    *CSVWriter
	sch  *arrow.Schema // the columns CSV cannot hold as strings
	text []csvText     // per column: how it becomes text, nil if it need not
	mem  memory.Allocator
	// wrote: a batch was written (else Close writes the header alone)
	wrote bool
}

// TimeText renders value i of a time-of-day array as HH:MM:SS[.fraction]
// and of a duration array as Go duration text ("1h30m0s"), as CSV export
// writes them; ok is false for arrays of other types.
func TimeText(a arrow.Array, i int) (s string, ok bool) {
	switch v := a.(type) {
	case *array.Time32:
		return schema.FormatTimeOfDay(int64(v.Value(i)), schema.TimeUnit(v.DataType().(*arrow.Time32Type).Unit)), true
	case *array.Time64:
		return schema.FormatTimeOfDay(int64(v.Value(i)), schema.TimeUnit(v.DataType().(*arrow.Time64Type).Unit)), true
	case *array.Duration:
		return schema.FormatDuration(int64(v.Value(i)), schema.TimeUnit(v.DataType().(*arrow.DurationType).Unit)), true
	}
	return "", false
}

// JSONText is the JSON text of v without HTML escaping: "&" stays "&"
// rather than "\u0026", as DuckDB and Spark write it.
func JSONText(v any) (string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

// csvText renders every value of an array as text; nulls stay null.
type csvText func(a arrow.Array, i int) (string, error)

// csvSchema returns the schema CSV export writes. Columns the CSV writer
// cannot hold become string columns: nested ones (struct, list, map, ...)
// hold each value's JSON text, as DuckDB and Spark export them; times of
// day are written HH:MM:SS[.fraction] and durations as Go duration text
// ("1h30m0s").
func csvSchema(sch *arrow.Schema) (*arrow.Schema, []csvText) {
	fields := sch.Fields()
	text := make([]csvText, len(fields))
	for i, f := range fields {
		switch f.Type.(type) {
		case *extensions.JSONType:
			// the stored text as it is (marshalled again it would lose its
			// spacing; arrow-go would also escape & < > as \u0026...).
			// (before NestedType, which extension types satisfy)
			text[i] = func(a arrow.Array, i int) (string, error) {
				return a.(array.ExtensionArray).Storage().(*array.String).Value(i), nil
			}
		case arrow.NestedType:
			text[i] = func(a arrow.Array, i int) (string, error) {
				return JSONText(a.GetOneForMarshal(i))
			}
		case *arrow.Time32Type, *arrow.Time64Type, *arrow.DurationType:
			text[i] = func(a arrow.Array, i int) (string, error) {
				s, _ := TimeText(a, i)
				return s, nil
			}
		default:
			continue
		}
		fields[i] = arrow.Field{Name: f.Name, Type: arrow.BinaryTypes.String, Nullable: f.Nullable, Metadata: f.Metadata}
	}
	md := sch.Metadata()
	return arrow.NewSchema(fields, &md), text
}

func (c *csvSink) Write(rec arrow.Record) error {
	c.wrote = true
	out, err := csvRecord(rec, c.sch, c.text, c.mem)
	if err != nil {
		return err
	}
	defer out.Release()
	return c.w.Write(out)
}

// CSVRecord returns rec as CSV export writes it (see csvSchema): nested
// columns become string columns of each value's JSON text, times and
// durations string columns of their text. The caller releases the result
// (rec itself, retained, when no column changes).
func CSVRecord(rec arrow.Record, mem memory.Allocator) (arrow.Record, error) {
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	sch, text := csvSchema(rec.Schema())
	return csvRecord(rec, sch, text, mem)
}

func csvRecord(rec arrow.Record, sch *arrow.Schema, text []csvText, mem memory.Allocator) (arrow.Record, error) {
	if !slices.ContainsFunc(text, func(t csvText) bool { return t != nil }) {
		rec.Retain()
		return rec, nil
	}
	cols := make([]arrow.Array, rec.NumCols())
	defer func() {
		for i, a := range cols {
			if a != nil && text[i] != nil {
				a.Release()
			}
		}
	}()
	for i := range cols {
		if text[i] == nil {
			cols[i] = rec.Column(i)
			continue
		}
		a, err := textColumn(rec.Column(i), text[i], mem)
		if err != nil {
			return nil, fmt.Errorf("interop: csv: column %q: %w", rec.ColumnName(i), err)
		}
		cols[i] = a
	}
	return array.NewRecord(sch, cols, rec.NumRows()), nil
}

// textColumn renders every value of an array with text; nulls stay null.
func textColumn(a arrow.Array, text csvText, mem memory.Allocator) (arrow.Array, error) {
	b := array.NewStringBuilder(mem)
	defer b.Release()
	b.Reserve(a.Len())
	for i := 0; i < a.Len(); i++ {
		if a.IsNull(i) {
			b.AppendNull()
			continue
		}
		s, err := text(a, i)
		if err != nil {
			return nil, err
		}
		b.Append(s)
	}
	return b.NewArray(), nil
}

// Close flushes and closes the file; a table of no rows still gets its
// header.
func (c *csvSink) Close() error {
	if !c.wrote {
		rec := emptyRecord(c.sch, c.mem)
		err := c.w.Write(rec)
		rec.Release()
		if err != nil {
			c.f.Close()
			return err
		}
	}
	c.w.Flush()
	if err := c.w.Error(); err != nil {
		c.f.Close()
		return err
	}
	return c.f.Close()
}

type ipcSink struct {
	f io.WriteCloser
	w interface {
		Write(arrow.Record) error
		Close() error
	}
}

func (s *ipcSink) Write(rec arrow.Record) error { return s.w.Write(rec) }
func (s *ipcSink) Close() error {
	if err := s.w.Close(); err != nil {
		s.f.Close()
		return err
	}
	return s.f.Close()
}

// Copy writes every batch of r to s and returns the rows copied.
func Copy(s Sink, r RecordReader) (int64, error) {
	var n int64
	for {
		rec, err := r.Next()
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		n += rec.NumRows()
		err = s.Write(rec)
		rec.Release()
		if err != nil {
			return n, err
		}
	}
}
