// Package interop moves tables between Strata and the formats users already
// have: Parquet, CSV and Arrow IPC files, through arrow-go. Each source is a
// stream of Arrow record batches, so conversion memory stays bounded by a
// batch (Parquet: by a row group's worth of one batch).
package interop

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/csv"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// Format names a table file format.
type Format string

// Supported formats.
const (
	Parquet Format = "parquet"
	CSV     Format = "csv"
	Arrow   Format = "arrow"
)

// FormatOf infers a format from a file name's extension.
func FormatOf(path string) (Format, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".parquet", ".pq":
		return Parquet, nil
	case ".csv", ".tsv":
		return CSV, nil
	case ".arrow", ".ipc", ".feather", ".arrows":
		return Arrow, nil
	}
	return "", fmt.Errorf("interop: cannot tell the format of %q from its extension (want .parquet, .csv or .arrow)", path)
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
	// BatchRows is the number of rows per record batch.
	BatchRows int
	// CSVSchema, when set, is the schema of a CSV file; otherwise types are inferred.
	CSVSchema *arrow.Schema
	// CSVHeader tells whether the CSV file starts with a header (default true).
	CSVNoHeader bool
	Mem         memory.Allocator
}

// Open opens a Parquet, CSV or Arrow IPC file as a record stream.
func Open(path string, opts ReadOptions) (RecordReader, error) {
	f, err := FormatOf(path)
	if err != nil {
		return nil, err
	}
	if opts.BatchRows <= 0 {
		opts.BatchRows = 64 << 10
	}
	if opts.Mem == nil {
		opts.Mem = memory.DefaultAllocator
	}
	switch f {
	case Parquet:
		return openParquet(path, opts)
	case CSV:
		return openCSV(path, opts)
	default:
		return openIPC(path, opts)
	}
}

type parquetReader struct {
	f  *os.File
	pf *file.Reader
	rr pqarrow.RecordReader
}

func openParquet(path string, opts ReadOptions) (RecordReader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	pf, err := file.NewParquetReader(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("interop: %s: %w", path, err)
	}
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: int64(opts.BatchRows), Parallel: false}, opts.Mem)
	if err != nil {
		pf.Close()
		f.Close()
		return nil, fmt.Errorf("interop: %s: %w", path, err)
	}
	rr, err := fr.GetRecordReader(context.Background(), nil, nil)
	if err != nil {
		pf.Close()
		f.Close()
		return nil, fmt.Errorf("interop: %s: %w", path, err)
	}
	return &parquetReader{f: f, pf: pf, rr: rr}, nil
}

func (p *parquetReader) Schema() *arrow.Schema { return p.rr.Schema() }

func (p *parquetReader) Next() (rec arrow.Record, err error) {
	defer func() {
		// arrow-go can panic on some malformed files; report it as an error.
		if r := recover(); r != nil {
			rec, err = nil, fmt.Errorf("interop: parquet: %v", r)
		}
	}()
	rec, err = p.rr.Read()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, io.EOF
		}
		return nil, fmt.Errorf("interop: parquet: %w", err)
	}
	rec.Retain()
	return rec, nil
}

func (p *parquetReader) Close() error {
	p.rr.Release()
	p.pf.Close()
	return p.f.Close()
}

type csvReader struct {
	f *os.File
	r *csv.Reader
}

func openCSV(path string, opts ReadOptions) (RecordReader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	copts := []csv.Option{csv.WithChunk(opts.BatchRows), csv.WithHeader(!opts.CSVNoHeader),
		csv.WithAllocator(opts.Mem), csv.WithNullReader(true, "", "NULL", "null")}
	if strings.EqualFold(filepath.Ext(path), ".tsv") {
		copts = append(copts, csv.WithComma('\t'))
	}
	var r *csv.Reader
	if opts.CSVSchema != nil {
		r = csv.NewReader(f, opts.CSVSchema, copts...)
	} else {
		r = csv.NewInferringReader(f, copts...)
	}
	return &csvReader{f: f, r: r}, nil
}

func (c *csvReader) Schema() *arrow.Schema { return c.r.Schema() }

func (c *csvReader) Next() (arrow.Record, error) {
	if !c.r.Next() {
		if err := c.r.Err(); err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("interop: csv: %w", err)
		}
		return nil, io.EOF
	}
	rec := c.r.Record()
	rec.Retain()
	return rec, nil
}

func (c *csvReader) Close() error { c.r.Release(); return c.f.Close() }

type ipcReader struct {
	f  *os.File
	fr *ipc.FileReader
	sr *ipc.Reader
	i  int
}

func openIPC(path string, opts ReadOptions) (RecordReader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	if fr, err := ipc.NewFileReader(f, ipc.WithAllocator(opts.Mem)); err == nil {
		return &ipcReader{f: f, fr: fr}, nil
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		f.Close()
		return nil, err
	}
	sr, err := ipc.NewReader(f, ipc.WithAllocator(opts.Mem))
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

func (r *ipcReader) Next() (arrow.Record, error) {
	if r.fr != nil {
		if r.i >= r.fr.NumRecords() {
			return nil, io.EOF
		}
		rec, err := r.fr.Record(r.i)
		if err != nil {
			return nil, fmt.Errorf("interop: arrow: %w", err)
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
	rec := r.sr.Record()
	rec.Retain()
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
	Close() error
}

// WriteOptions tune writing files.
type WriteOptions struct {
	// ParquetCompression is the Parquet codec (default zstd).
	ParquetCompression compress.Compression
	// ParquetNoDictionary disables Parquet dictionary encoding.
	ParquetNoDictionary bool
	Mem                 memory.Allocator
}

// Create writes a file of the format given by path's extension.
func Create(path string, sch *arrow.Schema, opts WriteOptions) (Sink, error) {
	fm, err := FormatOf(path)
	if err != nil {
		return nil, err
	}
	if opts.Mem == nil {
		opts.Mem = memory.DefaultAllocator
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	var s Sink
	switch fm {
	case Parquet:
		s, err = newParquetSink(f, sch, opts)
	case CSV:
		s = &csvSink{f: f, w: csv.NewWriter(f, sch, csv.WithHeader(true), csv.WithNullWriter(""))}
	default:
		var w *ipc.FileWriter
		w, err = ipc.NewFileWriter(f, ipc.WithSchema(sch), ipc.WithAllocator(opts.Mem))
		s = &ipcSink{f: f, w: w}
	}
	if err != nil {
		f.Close()
		os.Remove(path)
		return nil, fmt.Errorf("interop: %s: %w", path, err)
	}
	return s, nil
}

type parquetSink struct {
	f *os.File
	w *pqarrow.FileWriter
}

func newParquetSink(f *os.File, sch *arrow.Schema, opts WriteOptions) (Sink, error) {
	codec := opts.ParquetCompression
	if codec == compress.Codecs.Uncompressed {
		codec = compress.Codecs.Zstd
	}
	props := parquet.NewWriterProperties(parquet.WithCompression(codec),
		parquet.WithDictionaryDefault(!opts.ParquetNoDictionary), parquet.WithStats(true))
	w, err := pqarrow.NewFileWriter(sch, f, props, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	if err != nil {
		return nil, err
	}
	return &parquetSink{f: f, w: w}, nil
}

func (p *parquetSink) Write(rec arrow.Record) error { return p.w.WriteBuffered(rec) }
func (p *parquetSink) Close() error {
	if err := p.w.Close(); err != nil {
		return err
	}
	return nil
}

type csvSink struct {
	f *os.File
	w *csv.Writer
}

func (c *csvSink) Write(rec arrow.Record) error { return c.w.Write(rec) }
func (c *csvSink) Close() error {
	c.w.Flush()
	if err := c.w.Error(); err != nil {
		c.f.Close()
		return err
	}
	return c.f.Close()
}

type ipcSink struct {
	f *os.File
	w *ipc.FileWriter
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

var _ = array.NewRecord
