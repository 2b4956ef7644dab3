// Package strata is a columnar storage format and selective reader: files
// of stripes, streams and chunks, each chunk stored as a cascading encoding
// tree chosen from its data, read back as Arrow record batches with filters
// pushed into the decoders.
//
// This package is the facade: Create writes a file; Open reads one and
// returns a File, which answers scans (with a filter written in SQL-like
// text or built in Go with Col, And, Or and Not), point lookups (Take),
// aggregates, statistics and splits, without exposing the container's
// internals. SQL over Strata files runs in DuckDB through the sql module
// (strata/sql/duckstrata).
package strata

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"

	"strata/format"
	"strata/iox"
	"strata/write"
)

// WriteOptions tune writing; the zero value gives the defaults.
type WriteOptions = write.Options

// Writer writes a Strata file. The file appears under its name only when
// Close succeeds; until then it is written under a temporary name. A
// Writer is not safe for concurrent use: one goroutine calls Write, Flush
// and Close in turn.
type Writer struct {
	w  *write.Writer
	fw *format.Writer
}

// Create starts a file at path holding batches of the given schema. A
// directory at path is refused at once. The path may also be a remote
// location, s3://bucket/key, when package strata/iox/s3 is linked in: the
// file is then uploaded as it is written (a part at a time, memory
// bounded by a part) and appears whole at Close or not at all.
//
// The file keeps the schema's column names, nullability and types, each
// stored as docs/interop.md's type mapping says (large, view and
// dictionary strings read back as string, fixed-size lists as lists, ...);
// the key/value metadata of the Arrow schema and of its fields are not
// stored. WriteOptions.Metadata is the file's own key/value metadata
// (File.Metadata), where interop.SourceMetadata keeps a source's Arrow
// schema for export to restore.
func Create(path string, sch *arrow.Schema, opts *WriteOptions) (*Writer, error) {
	return start(sch, opts, func(fo format.WriterOptions) (*format.Writer, error) {
		fw, err := format.Create(context.Background(), path, fo)
		if err != nil {
			return nil, fmt.Errorf("strata: %w", err)
		}
		return fw, nil
	})
}

// CreateSink starts a file written to s, a remote destination such as the
// upload s3.Create starts (for settings of its own, where Create uses the
// environment's): Close commits it, so the file appears whole, and Abort,
// or a Close that fails, abandons it. The schema is stored as by Create.
func CreateSink(s iox.Sink, sch *arrow.Schema, opts *WriteOptions) (*Writer, error) {
	if s == nil {
		return nil, errors.New("strata: CreateSink: nil sink")
	}
	return start(sch, opts, func(fo format.WriterOptions) (*format.Writer, error) {
		return format.CreateSink(s, fo), nil
	})
}

// NewWriter writes a Strata file to dst (no temporary-name protection).
// The schema is stored as by Create.
func NewWriter(dst io.Writer, sch *arrow.Schema, opts *WriteOptions) (*Writer, error) {
	if dst == nil {
		return nil, errors.New("strata: NewWriter: nil destination")
	}
	return start(sch, opts, func(fo format.WriterOptions) (*format.Writer, error) {
		return format.NewWriter(dst, fo), nil
	})
}

// start starts a file on the container writer open makes, abandoning it
// when the schema or options are refused.
func start(sch *arrow.Schema, opts *WriteOptions, open func(format.WriterOptions) (*format.Writer, error)) (*Writer, error) {
	var o WriteOptions
	if opts != nil {
		o = *opts
	}
	fw, err := open(format.WriterOptions{GroupSize: o.StripeGroup})
	if err != nil {
		return nil, err
	}
	w, err := write.New(fw, sch, o)
	if err != nil {
		fw.Abort()
		return nil, err
	}
	return &Writer{w: w, fw: fw}, nil
}

// Write appends a record batch, whose schema must be the writer's (the
// same columns in the same order, of the same types; a column the
// writer's schema declares nullable may be written from a required one).
// A record of another schema fails the file: every later call returns the
// error. Write after Close or Abort is an error and stores nothing.
func (w *Writer) Write(rec arrow.Record) error { return w.w.Write(rec) }

// Flush ends the current stripe after the rows written so far (a no-op
// when none is pending), as a Parquet writer ends a row group: a caller
// that receives rows in batches of its own (an hour, a partition) can keep
// them apart in stripes, which statistics then prune and Splits hand out
// whole. Without it stripes end at WriteOptions.StripeBytes.
func (w *Writer) Flush() error { return w.w.Flush() }

// Close finishes the file. Only the first call does: a second Close (or
// Write or Flush after Close) returns an error and leaves the file as the
// first Close left it.
func (w *Writer) Close() error {
	if err := w.w.Close(); err != nil {
		w.fw.Abort()
		return err
	}
	return nil
}

// Abort discards a file being written.
func (w *Writer) Abort() { w.w.Abort() }
