package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// arrowSys is Parquet through arrow-go's pqarrow: written with default writer
// properties (dictionary on, one row group per 64Mi rows, 1 MiB pages, no page
// index) plus, for the zstd variant, zstd compression. Reads go through
// pqarrow.FileReader into Arrow records; selective queries read the filter
// column first, then seek (SeekToRow) to the first match and read the output
// columns up to the last match; take seeks a one-row-batch reader to each row.
type arrowSys struct {
	variant string
	cfg     config
	pf      *file.Reader
	fr      *pqarrow.FileReader
	take    *pqarrow.FileReader
	takeRR  pqarrow.RecordReader
	pfTake  *file.Reader
}

func newArrowSys(variant string, cfg config) *arrowSys { return &arrowSys{variant: variant, cfg: cfg} }

func (s *arrowSys) Name() string    { return "arrow-go" }
func (s *arrowSys) Variant() string { return s.variant }

func (s *arrowSys) Write(dir string, src *Source) (string, error) {
	path := filepath.Join(dir, "data.parquet")
	f, err := os.Create(path)
	if err != nil {
		return "", err
	}
	var opts []parquet.WriterProperty
	if s.variant == "zstd" {
		opts = append(opts, parquet.WithCompression(compress.Codecs.Zstd))
	}
	if s.cfg.stripeRows > 0 {
		// WriteBuffered ends a row group at exactly this many rows
		opts = append(opts, parquet.WithMaxRowGroupLength(s.cfg.stripeRows))
	}
	w, err := pqarrow.NewFileWriter(src.Schema, f, parquet.NewWriterProperties(opts...), pqarrow.DefaultWriterProps())
	if err != nil {
		f.Close()
		return "", err
	}
	for _, rec := range src.Records {
		if err := w.WriteBuffered(rec); err != nil {
			w.Close()
			return "", err
		}
	}
	if err := w.Close(); err != nil { // closes f too
		return "", err
	}
	return path, nil
}

func (s *arrowSys) Open(path string) error {
	var err error
	if s.pf, err = file.OpenParquetFile(path, false); err != nil {
		return err
	}
	props := pqarrow.ArrowReadProperties{Parallel: s.cfg.threads > 1, BatchSize: 64 << 10}
	if s.fr, err = pqarrow.NewFileReader(s.pf, props, memory.DefaultAllocator); err != nil {
		return err
	}
	if s.pfTake, err = file.OpenParquetFile(path, false); err != nil {
		return err
	}
	props.BatchSize = 1
	if s.take, err = pqarrow.NewFileReader(s.pfTake, props, memory.DefaultAllocator); err != nil {
		return err
	}
	return nil
}

func (s *arrowSys) Close() error {
	if s.takeRR != nil {
		s.takeRR.Release()
		s.takeRR = nil
	}
	if s.pfTake != nil {
		s.pfTake.Close()
		s.pfTake = nil
	}
	if s.pf != nil {
		err := s.pf.Close()
		s.pf = nil
		return err
	}
	return nil
}

func (s *arrowSys) Scan(verify bool) (Out, error) {
	rr, err := s.fr.GetRecordReader(context.Background(), nil, nil)
	if err != nil {
		return Out{}, err
	}
	defer rr.Release()
	var out Out
	if verify {
		out.Sum = newChecksum()
	}
	for rr.Next() {
		rec := rr.Record()
		out.Rows += rec.NumRows()
		if verify {
			if err := out.Sum.AddRecord(rec, nil); err != nil {
				return out, err
			}
		}
	}
	if err := rr.Err(); err != nil && err != io.EOF {
		return out, err
	}
	return out, nil
}

func (s *arrowSys) colIndex(name string) (int, error) {
	sch, err := s.fr.Schema()
	if err != nil {
		return 0, err
	}
	idx := sch.FieldIndices(name)
	if len(idx) == 0 {
		return 0, fmt.Errorf("no column %q", name)
	}
	// Top-level flat columns: the leaf index equals the field index.
	return s.pf.MetaData().Schema.ColumnIndexByName(name), nil
}

// rgMayMatch consults the row group's column statistics.
func (s *arrowSys) rgMayMatch(rg, col int, p Pred) bool {
	cc, err := s.pf.MetaData().RowGroup(rg).ColumnChunk(col)
	if err != nil {
		return true
	}
	st, err := cc.Statistics()
	if err != nil || st == nil || !st.HasMinMax() {
		return true
	}
	switch st := st.(type) {
	case *metadata.Int32Statistics:
		return int64(st.Max()) >= p.Lo && int64(st.Min()) <= p.Hi
	case *metadata.Int64Statistics:
		return st.Max() >= p.Lo && st.Min() <= p.Hi
	}
	return true
}

// filtered evaluates p row group by row group and calls fn with each batch of
// the output columns and the selection of its rows.
func (s *arrowSys) filtered(p Pred, outCols []string, fn func(rec arrow.Record, sel []bool) error) error {
	ctx := context.Background()
	fcol, err := s.colIndex(p.Col)
	if err != nil {
		return err
	}
	var outIdx []int
	if outCols != nil {
		for _, c := range outCols {
			i, err := s.colIndex(c)
			if err != nil {
				return err
			}
			outIdx = append(outIdx, i)
		}
	}
	md := s.pf.MetaData()
	for rg := 0; rg < md.NumRowGroups(); rg++ {
		if !s.rgMayMatch(rg, fcol, p) {
			continue
		}
		n := md.RowGroup(rg).NumRows()
		sel := make([]bool, n)
		first, last := int64(-1), int64(-1)
		rr, err := s.fr.GetRecordReader(ctx, []int{fcol}, []int{rg})
		if err != nil {
			return err
		}
		var pos int64
		for rr.Next() {
			vals, err := intValues(rr.Record().Column(0))
			if err != nil {
				rr.Release()
				return err
			}
			for i, v := range vals {
				if p.match(v) {
					sel[pos+int64(i)] = true
					if first < 0 {
						first = pos + int64(i)
					}
					last = pos + int64(i)
				}
			}
			pos += int64(len(vals))
		}
		err = rr.Err()
		rr.Release()
		if err != nil && err != io.EOF {
			return err
		}
		if first < 0 {
			continue
		}
		rr, err = s.fr.GetRecordReader(ctx, outIdx, []int{rg})
		if err != nil {
			return err
		}
		if first > 0 {
			if err := rr.SeekToRow(first); err != nil {
				rr.Release()
				return err
			}
		}
		pos = first
		for pos <= last && rr.Next() {
			rec := rr.Record()
			k := rec.NumRows()
			if pos+k > n {
				k = n - pos
			}
			if err := fn(rec, sel[pos:pos+k]); err != nil {
				rr.Release()
				return err
			}
			pos += rec.NumRows()
		}
		err = rr.Err()
		rr.Release()
		if err != nil && err != io.EOF {
			return err
		}
	}
	return nil
}

func countSel(sel []bool) int64 {
	var n int64
	for _, b := range sel {
		if b {
			n++
		}
	}
	return n
}

func (s *arrowSys) query(p Pred, cols []string, verify bool) (Out, error) {
	var out Out
	if verify {
		out.Sum = newChecksum()
	}
	err := s.filtered(p, cols, func(rec arrow.Record, sel []bool) error {
		if verify {
			return out.Sum.AddRecord(rec, sel)
		}
		out.Rows += countSel(sel)
		return nil
	})
	if verify {
		out.Rows = out.Sum.Rows
	}
	return out, err
}

func (s *arrowSys) QRange(w *Workload, verify bool) (Out, error) {
	return s.query(w.rangePred(), nil, verify)
}

func (s *arrowSys) QMonth(w *Workload, verify bool) (Out, error) {
	return s.query(w.monthPred(), monthCols, verify)
}

func (s *arrowSys) QAgg(w *Workload) (Out, error) {
	var out Out
	err := s.filtered(w.monthPred(), []string{"l_quantity"}, func(rec arrow.Record, sel []bool) error {
		vals, err := intValues(rec.Column(0))
		if err != nil {
			return err
		}
		for i, b := range sel {
			if b {
				out.AggCount++
				out.AggSum += vals[i]
			}
		}
		return nil
	})
	out.Rows = out.AggCount
	return out, err
}

func (s *arrowSys) Take(rows []int64, verify bool) (Out, error) {
	var out Out
	if verify {
		out.Sum = newChecksum()
	}
	if s.takeRR == nil {
		rr, err := s.take.GetRecordReader(context.Background(), nil, nil)
		if err != nil {
			return out, err
		}
		s.takeRR = rr
	}
	for _, r := range rows {
		if err := s.takeRR.SeekToRow(r); err != nil {
			return out, fmt.Errorf("seek to row %d: %w", r, err)
		}
		if !s.takeRR.Next() {
			return out, fmt.Errorf("row %d: %v", r, s.takeRR.Err())
		}
		rec := s.takeRR.Record()
		if rec.NumRows() < 1 {
			return out, fmt.Errorf("row %d: empty batch", r)
		}
		out.Rows++
		if verify {
			one := rec.NewSlice(0, 1)
			err := out.Sum.AddRecord(one, nil)
			one.Release()
			if err != nil {
				return out, err
			}
		}
	}
	return out, nil
}
