package tpch

import (
	"errors"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/csv"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// RecordSource is what the writers consume: *Generator implements it, and so
// can any other stream of batches with Schema().
type RecordSource interface {
	// Next returns the next batch or io.EOF.
	Next() (arrow.RecordBatch, error)
}

// ParquetOptions tune WriteParquet. The zero value gives the layout of the
// shared reference file: zstd (default level), dictionary encoding on, and
// row groups of DefaultRowGroupRows rows.
type ParquetOptions struct {
	// Compression is the page codec; the zero value means zstd. Use
	// compress.Codecs.Uncompressed explicitly via NoCompression.
	Compression compress.Compression
	// NoCompression writes uncompressed pages (overrides Compression).
	NoCompression bool
	// CompressionLevel is the codec level; 0 means the codec's default.
	CompressionLevel int
	// NoDictionary turns dictionary encoding off for all columns.
	NoDictionary bool
	// RowGroupRows caps the rows per row group; 0 means DefaultRowGroupRows.
	// A row group is buffered in memory (encoded and compressed) until full.
	RowGroupRows int64
}

// DefaultRowGroupRows is the default row-group size of WriteParquet: large
// enough that SF 0.1 fits one row group, small enough to bound memory.
const DefaultRowGroupRows = 1 << 20

func (o ParquetOptions) writerProperties() *parquet.WriterProperties {
	codec := o.Compression
	if codec == compress.Codecs.Uncompressed {
		codec = compress.Codecs.Zstd
	}
	if o.NoCompression {
		codec = compress.Codecs.Uncompressed
	}
	rg := o.RowGroupRows
	if rg <= 0 {
		rg = DefaultRowGroupRows
	}
	props := []parquet.WriterProperty{
		parquet.WithCompression(codec),
		parquet.WithDictionaryDefault(!o.NoDictionary),
		parquet.WithMaxRowGroupLength(rg),
	}
	if o.CompressionLevel != 0 {
		props = append(props, parquet.WithCompressionLevel(o.CompressionLevel))
	}
	return parquet.NewWriterProperties(props...)
}

// WriteParquet drains src into a Parquet file on w with arrow-go's pqarrow
// writer and returns the number of rows written. Memory is bounded by one
// batch plus one (compressed) row group.
func WriteParquet(w io.Writer, src RecordSource, opts ParquetOptions) (rows int64, err error) {
	src, stop := prefetch(src)
	defer stop()
	fw, err := pqarrow.NewFileWriter(Schema(), nopCloser{w}, opts.writerProperties(), pqarrow.DefaultWriterProps())
	if err != nil {
		return 0, fmt.Errorf("tpch: parquet writer: %w", err)
	}
	defer func() {
		if cerr := fw.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("tpch: closing parquet writer: %w", cerr)
		}
	}()
	for {
		rec, err := src.Next()
		if errors.Is(err, io.EOF) {
			return rows, nil
		}
		if err != nil {
			return rows, err
		}
		err = fw.WriteBuffered(rec)
		rows += rec.NumRows()
		rec.Release()
		if err != nil {
			return rows, fmt.Errorf("tpch: writing parquet row %d: %w", rows, err)
		}
	}
}

// WriteCSV drains src into comma-separated text on w with arrow-go's CSV
// writer: a header line with the column names, then one line per row. Values
// render the Arrow types as they are: the decimal columns as integer cents,
// dates as YYYY-MM-DD. Reading the text back with arrow-go's CSV reader and
// Schema() reproduces the batches exactly. Returns the number of rows written.
func WriteCSV(w io.Writer, src RecordSource) (rows int64, err error) {
	src, stop := prefetch(src)
	defer stop()
	cw := csv.NewWriter(w, Schema(), csv.WithHeader(true))
	for {
		rec, err := src.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return rows, err
		}
		err = cw.Write(rec)
		rows += rec.NumRows()
		rec.Release()
		if err != nil {
			return rows, fmt.Errorf("tpch: writing csv row %d: %w", rows, err)
		}
	}
	if err := cw.Flush(); err != nil {
		return rows, fmt.Errorf("tpch: flushing csv: %w", err)
	}
	return rows, cw.Error()
}

// prefetched runs the source's Next on its own goroutine, one batch ahead,
// so that generating batch i+1 overlaps encoding batch i (the writers are
// the slower side; on two cores this hides most of the generation time).
type prefetched struct {
	ch   chan result
	done chan struct{}
}

type result struct {
	rec arrow.RecordBatch
	err error
}

// prefetch starts the producer; stop must be called when the consumer is
// done (it releases any batch produced but not consumed and waits for the
// producer to exit, so src is no longer in use when stop returns).
func prefetch(src RecordSource) (RecordSource, func()) {
	p := &prefetched{ch: make(chan result, 1), done: make(chan struct{})}
	exited := make(chan struct{})
	go func() {
		defer close(exited)
		defer close(p.ch)
		for {
			rec, err := src.Next()
			select {
			case p.ch <- result{rec, err}:
			case <-p.done:
				if rec != nil {
					rec.Release()
				}
				return
			}
			if err != nil {
				return
			}
		}
	}()
	stop := func() {
		close(p.done)
		for r := range p.ch {
			if r.rec != nil {
				r.rec.Release()
			}
		}
		<-exited
	}
	return p, stop
}

// Next returns the producer's next batch; after the producer stopped it
// repeats io.EOF.
func (p *prefetched) Next() (arrow.RecordBatch, error) {
	r, ok := <-p.ch
	if !ok {
		return nil, io.EOF
	}
	return r.rec, r.err
}

// nopCloser keeps the Parquet writer from closing the caller's writer: the
// caller opened it, the caller closes it.
type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
