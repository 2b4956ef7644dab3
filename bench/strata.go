//go:build !nostrata

package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/apache/arrow-go/v18/arrow"

	"strata"
	"strata/encoding"
	"strata/iox"
)

// strataSys is Strata through its public facade: strata.NewWriter/Write/Close
// to write, File.Scan with a Where filter for the scan and selective queries,
// File.Aggregate for q_agg and File.Take (one call per row) for take.
type strataSys struct {
	variant string
	cfg     config
	f       *strata.File
	last    strata.ScanStats
	// layouts (variant "layout") were captured from a file of the first
	// half of the rows of src, before the first, untimed write of it.
	layouts map[string]encoding.Layout
	src     *Source
}

func newStrataSys(variant string, cfg config) *strataSys {
	return &strataSys{variant: variant, cfg: cfg}
}

func (s *strataSys) Name() string    { return "strata" }
func (s *strataSys) Variant() string { return s.variant }

func (s *strataSys) Write(dir string, src *Source) (string, error) {
	// Written like the Parquet writers write: into a file the harness
	// creates, buffered, without fsync. strata.Create would also sync the
	// file and its directory and rename it into place, which none of the
	// peers' writers do.
	path := filepath.Join(dir, "data.strata")
	f, err := os.Create(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	buf := bufio.NewWriterSize(f, 1<<20)
	// the rows are known, as an importer knows them from a footer
	var rows int64
	for _, rec := range src.Records {
		rows += rec.NumRows()
	}
	opts := &strata.WriteOptions{NoZstd: s.variant == "no-zstd", Parallel: s.cfg.threads, RowsHint: rows, StripeRows: s.cfg.stripeRows}
	if s.variant == "layout" {
		if s.src != src {
			if s.layouts, err = firstHalfLayouts(src, rows, s.cfg.threads); err != nil {
				return "", err
			}
			s.src = src
		}
		opts.Layouts = s.layouts
	}
	w, err := strata.NewWriter(buf, src.Schema, opts)
	if err != nil {
		return "", err
	}
	for _, rec := range src.Records {
		if err := w.Write(rec); err != nil {
			w.Abort()
			return "", err
		}
	}
	if err := w.Close(); err != nil {
		return "", err
	}
	if err := buf.Flush(); err != nil {
		return "", err
	}
	return path, f.Close()
}

// firstHalfLayouts writes the first half of src's rows to memory and
// captures the layouts its writer chose: the variant "layout" writes the
// table as a later file of it would be written, replaying an earlier
// file's encodings (strata.WriteOptions.Layouts).
func firstHalfLayouts(src *Source, rows int64, threads int) (map[string]encoding.Layout, error) {
	var buf bytes.Buffer
	w, err := strata.NewWriter(&buf, src.Schema, &strata.WriteOptions{Parallel: threads})
	if err != nil {
		return nil, err
	}
	left := rows / 2
	for _, rec := range src.Records {
		if left <= 0 {
			break
		}
		n := min(rec.NumRows(), left)
		part := rec.NewSlice(0, n)
		err := w.Write(part)
		part.Release()
		if err != nil {
			w.Abort()
			return nil, err
		}
		left -= n
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	f, err := strata.OpenSource(iox.Bytes(buf.Bytes()))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.Layouts()
}

// Open opens the file with one query decoding on --threads goroutines.
func (s *strataSys) Open(path string) error {
	f, err := strata.OpenWith(context.Background(), path, strata.OpenOptions{Parallelism: s.cfg.threads})
	if err != nil {
		return err
	}
	s.f = f
	return nil
}

func (s *strataSys) Close() error {
	if s.f == nil {
		return nil
	}
	err := s.f.Close()
	s.f = nil
	return err
}

func (s *strataSys) scan(opts strata.ScanOptions, verify bool) (Out, error) {
	var out Out
	if verify {
		out.Sum = newChecksum()
	}
	sc, err := s.f.Scan(opts)
	if err != nil {
		return out, err
	}
	defer func() {
		s.last = sc.Stats()
		sc.Close()
	}()
	for {
		rec, err := sc.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return out, err
		}
		out.Rows += rec.NumRows()
		if verify {
			err = out.Sum.AddRecord(rec, nil)
		}
		rec.Release()
		if err != nil {
			return out, err
		}
	}
	return out, nil
}

func (s *strataSys) Scan(verify bool) (Out, error) {
	return s.scan(strata.ScanOptions{}, verify)
}

func (s *strataSys) QRange(w *Workload, verify bool) (Out, error) {
	return s.scan(strata.ScanOptions{Where: fmt.Sprintf("l_orderkey BETWEEN %d AND %d", w.RangeLo, w.RangeHi)}, verify)
}

func (s *strataSys) QMonth(w *Workload, verify bool) (Out, error) {
	return s.scan(strata.ScanOptions{Columns: monthCols, Where: monthWhere(w)}, verify)
}

// QAgg is count(*) and sum(l_quantity) with the filter of QMonth.
func (s *strataSys) QAgg(w *Workload) (Out, error) {
	vals, _, err := s.f.Aggregate(strata.AggregateOptions{
		Aggs:  []strata.Agg{strata.CountAll(), strata.Sum("l_quantity")},
		Where: monthWhere(w),
	})
	if err != nil {
		return Out{}, err
	}
	if len(vals) != 2 {
		return Out{}, fmt.Errorf("strata: Aggregate returned %d values", len(vals))
	}
	out := Out{AggCount: vals[0].Int()}
	if !vals[1].Null {
		out.AggSum = vals[1].Int()
	}
	out.Rows = out.AggCount
	return out, nil
}

func (s *strataSys) Take(rows []int64, verify bool) (Out, error) {
	var out Out
	if verify {
		out.Sum = newChecksum()
	}
	s.last = strata.ScanStats{}
	one := make([]int64, 1)
	for _, r := range rows {
		one[0] = r
		rec, st, err := s.f.TakeContext(context.Background(), one, strata.TakeOptions{})
		if err != nil {
			return out, err
		}
		s.last.Requests += st.Requests
		s.last.BytesRead += st.BytesRead
		if rec.NumRows() != 1 {
			rec.Release()
			return out, fmt.Errorf("strata: take row %d returned %d rows", r, rec.NumRows())
		}
		out.Rows++
		if verify {
			err = out.Sum.AddRecord(rec, nil)
		}
		rec.Release()
		if err != nil {
			return out, err
		}
	}
	return out, nil
}

// DropCaches forgets the decoders lookups keep opened (the metadata stays
// cached), so that take can be timed cold.
func (s *strataSys) DropCaches() { s.f.DropCaches() }

// LastIO reports the requests and bytes the last scan or aggregate read.
func (s *strataSys) LastIO() (int64, int64) { return s.last.Requests, s.last.BytesRead }

var _ arrow.Record
