//go:build !nostrata

package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"

	"github.com/apache/arrow-go/v18/arrow"

	"strata"
)

// strataSys is Strata through its public facade: strata.NewWriter/Write/Close
// to write, File.Scan with a Where filter for the scan and selective queries,
// File.Aggregate for q_agg and File.Take (one call per row) for take.
type strataSys struct {
	variant string
	cfg     config
	f       *strata.File
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
	opts := &strata.WriteOptions{NoZstd: s.variant == "no-zstd", Parallel: s.cfg.threads}
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

func (s *strataSys) Open(path string) error {
	f, err := strata.Open(path)
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
	defer sc.Close()
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

// QAgg calls File.Aggregate through reflection so that the harness keeps
// building whichever of the facade's signatures is current
// (([]AggValue, error) or ([]AggValue, ScanStats, error)), and reports the
// query as unsupported if the method is missing.
func (s *strataSys) QAgg(w *Workload) (Out, error) {
	m := reflect.ValueOf(s.f).MethodByName("Aggregate")
	if !m.IsValid() {
		return Out{}, fmt.Errorf("strata: File.Aggregate missing: %w", errUnsupported)
	}
	res := m.Call([]reflect.Value{reflect.ValueOf("count(*), sum(l_quantity)"), reflect.ValueOf(monthWhere(w))})
	if e := res[len(res)-1]; !e.IsNil() {
		return Out{}, e.Interface().(error)
	}
	vals, ok := res[0].Interface().([]strata.AggValue)
	if !ok || len(vals) != 2 {
		return Out{}, fmt.Errorf("strata: Aggregate returned %v", res[0].Interface())
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
	one := make([]int64, 1)
	for _, r := range rows {
		one[0] = r
		rec, err := s.f.Take(one, nil)
		if err != nil {
			return out, err
		}
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

var _ arrow.Record
