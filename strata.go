// Package strata is a columnar storage format and selective reader: files
// of stripes, streams and chunks, each chunk stored as a cascading encoding
// tree chosen from its data, read back as Arrow record batches with filters
// pushed into the decoders.
//
// This package is the facade: Create writes a file, Open reads one.
package strata

import (
	"context"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"

	"strata/encoding/all"
	"strata/format"
	"strata/iox"
	"strata/read"
	"strata/write"
)

// WriteOptions tune writing; the zero value gives the defaults.
type WriteOptions = write.Options

// Writer writes a Strata file. The file appears under its name only when
// Close succeeds; until then it is written under a temporary name.
type Writer struct {
	w  *write.Writer
	fw *format.Writer
}

// Create starts a file at path holding batches of the given schema.
func Create(path string, sch *arrow.Schema, opts *WriteOptions) (*Writer, error) {
	var o WriteOptions
	if opts != nil {
		o = *opts
	}
	fw, err := format.CreateFile(path, format.WriterOptions{GroupSize: o.StripeGroup})
	if err != nil {
		return nil, fmt.Errorf("strata: %w", err)
	}
	w, err := write.New(fw, sch, o)
	if err != nil {
		fw.Abort()
		return nil, err
	}
	return &Writer{w: w, fw: fw}, nil
}

// NewWriter writes a Strata file to dst (no temporary-name protection).
func NewWriter(dst io.Writer, sch *arrow.Schema, opts *WriteOptions) (*Writer, error) {
	var o WriteOptions
	if opts != nil {
		o = *opts
	}
	fw := format.NewWriter(dst, format.WriterOptions{GroupSize: o.StripeGroup})
	w, err := write.New(fw, sch, o)
	if err != nil {
		return nil, err
	}
	return &Writer{w: w, fw: fw}, nil
}

// Write appends a record batch.
func (w *Writer) Write(rec arrow.Record) error { return w.w.Write(rec) }

// Close finishes the file.
func (w *Writer) Close() error {
	if err := w.w.Close(); err != nil {
		w.fw.Abort()
		return err
	}
	return nil
}

// Abort discards a file being written.
func (w *Writer) Abort() { w.fw.Abort() }

// File is an open Strata file, safe for concurrent use.
type File struct {
	*read.File
	closer io.Closer
}

// ScanOptions select columns, rows and a filter for File.Scan.
type ScanOptions = read.ScanOptions

// Scanner streams the record batches of a scan.
type Scanner = read.Scanner

// ScanStats counts what a scan read and pruned.
type ScanStats = read.ScanStats

// AggValue is one aggregate result.
type AggValue = read.AggValue

// TakeOptions select the columns of File.TakeContext.
type TakeOptions = read.TakeOptions

// AggregateOptions select the rows of File.AggregateContext.
type AggregateOptions = read.AggregateOptions

// Split is a stripe-aligned piece of a file for one worker of a
// distributed scan (File.Splits, ScanOptions.Split).
type Split = read.Split

// ParseSplit decodes a Split from its JSON form.
func ParseSplit(b []byte) (*Split, error) { return read.ParseSplit(b) }

// OpenOptions tune Open; the zero value gives the defaults.
type OpenOptions struct {
	// Verify reads the whole file on open and checks its checksum, so a
	// corrupt byte anywhere is an error before any data is returned
	// (File.Verify also locates it). Without it every read checks the
	// checksums of what it loads.
	Verify bool
	// MaxMemory bounds every buffer the reader sizes from what the file
	// declares (the footer, each section and stripe group, each chunk,
	// each decoded buffer, the rows of a stripe: at most MaxMemory/32
	// rows), the counts of stripes, streams and chunks, and the decoder
	// cache (a quarter of it). A file that declares more is refused with
	// an error wrapping encoding.ErrLimit. A read holds a few such buffers
	// at once, about one per column it decodes, so its peak is a small
	// multiple of the limit per projected column. Zero keeps the defaults
	// (about 1-2 GiB per buffer).
	MaxMemory int64
	// Parallelism is how many goroutines a query decodes on: 0 means all
	// cores, 1 the calling goroutine only (ScanOptions can override it).
	Parallelism int
	// PrefetchBytes bounds what a parallel scan holds ahead of its caller
	// (fetched bytes and decoded batches not yet returned); 0 means
	// read.DefaultPrefetchBytes.
	PrefetchBytes int64
}

// readOptions turns OpenOptions into the reader's limits.
func (o OpenOptions) readOptions() read.Options {
	ro := read.Options{Verify: o.Verify, Parallelism: o.Parallelism, PrefetchBytes: o.PrefetchBytes}
	if m := o.MaxMemory; m > 0 {
		lim := int(min(m, 1<<40))
		dec := *all.Options()
		dec.MaxBytes = lim
		dec.MaxRows = max(lim/32, 1) // a stripe of int64 values and a child of as many fit in half the limit
		ro.Decode = &dec
		// Directory entries cost a few dozen bytes each once parsed.
		entries := max(lim/64, 1)
		ro.Format = format.ReaderOptions{MaxFooterSize: lim, MaxSectionSize: lim, MaxGroupSize: lim, MaxChunkSize: lim,
			MaxStripes: entries, MaxStreams: entries, MaxChunks: entries, MaxSections: entries}
		ro.DecoderCacheBytes = max(m/4, 1)
	}
	return ro
}

// Open opens a Strata file: a local path, or a URL whose scheme a source
// package has registered with iox (import strata/iox/s3 for s3:// and
// https:// URLs, strata/iox/remote for https:// alone).
// Queries decode on all cores by default, and the file's metadata stays
// in the process-wide cache (read.DefaultMetaCache): opening the same file
// again reads nothing until it changes.
func Open(path string) (*File, error) { return OpenContext(context.Background(), path) }

// OpenContext is Open whose reading of the file's metadata (and, for a
// remote object, its first request) stops when ctx ends.
func OpenContext(ctx context.Context, path string) (*File, error) {
	return OpenWith(ctx, path, OpenOptions{})
}

// OpenWith opens a Strata file with options.
func OpenWith(ctx context.Context, path string, opts OpenOptions) (*File, error) {
	src, err := iox.Open(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("strata: %w", err)
	}
	f, err := read.Open(ctx, src, opts.readOptions())
	if err != nil {
		if c, ok := src.(io.Closer); ok {
			c.Close()
		}
		return nil, fmt.Errorf("strata: %s: %w", path, err)
	}
	f2 := &File{File: f}
	if c, ok := src.(io.Closer); ok {
		f2.closer = c
	}
	return f2, nil
}

// OpenSource opens a Strata file from any range-readable source, such as
// an object opened with strata/iox/s3. The caller keeps ownership of src.
func OpenSource(src iox.Source) (*File, error) { return OpenSourceWith(src, OpenOptions{}) }

// OpenSourceWith opens a Strata file from any range-readable source with options.
func OpenSourceWith(src iox.Source, opts OpenOptions) (*File, error) {
	f, err := read.Open(context.Background(), src, opts.readOptions())
	if err != nil {
		return nil, fmt.Errorf("strata: %w", err)
	}
	return &File{File: f}, nil
}

// Close releases the file.
func (f *File) Close() error {
	if f.closer != nil {
		return f.closer.Close()
	}
	return nil
}
