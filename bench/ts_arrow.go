package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// arrowTS is arrow-go (pqarrow) on Parquet sorted by (hostname, time),
// written with arrow-go's default 1 MiB data pages and dictionary encoding,
// row groups of 1 Mi rows, zstd and the page index enabled. pqarrow has no
// predicate pushdown, so host_hour prunes row groups on column statistics
// and pages with the page index (hostname and time), then reads each
// remaining row range through a record reader positioned with SeekToRow;
// windows seek a record reader per row group to each window; downsample and
// last read their columns whole.
type arrowTS struct {
	cfg   tsConfig
	pf    *file.Reader
	fr    *pqarrow.FileReader
	col   map[string]int
	rgRow []int64
	rgLen []int64
	note  string
}

func newArrowTS(cfg tsConfig) *arrowTS { return &arrowTS{cfg: cfg} }

func (s *arrowTS) Name() string { return "arrow-go" }
func (s *arrowTS) Note() string { return s.note }

func (s *arrowTS) Write(dir string, src *Source, _ *tsWork) (string, error) {
	path := filepath.Join(dir, "data.parquet")
	f, err := os.Create(path)
	if err != nil {
		return "", err
	}
	props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Zstd),
		parquet.WithMaxRowGroupLength(1<<20), parquet.WithPageIndexEnabled(true), parquet.WithStats(true))
	w, err := pqarrow.NewFileWriter(src.Schema, f, props, pqarrow.DefaultWriterProps())
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
	return path, w.Close()
}

func (s *arrowTS) Open(path string) error {
	var err error
	if s.pf, err = file.OpenParquetFile(path, false); err != nil {
		return err
	}
	if s.fr, err = pqarrow.NewFileReader(s.pf, pqarrow.ArrowReadProperties{BatchSize: 64 << 10}, memory.DefaultAllocator); err != nil {
		return err
	}
	s.col = map[string]int{}
	md := s.pf.MetaData()
	for i := 0; i < md.Schema.NumColumns(); i++ {
		s.col[md.Schema.Column(i).Name()] = i
	}
	var n int64
	for g := 0; g < s.pf.NumRowGroups(); g++ {
		s.rgRow = append(s.rgRow, n)
		l := md.RowGroup(g).NumRows()
		s.rgLen = append(s.rgLen, l)
		n += l
	}
	return nil
}

func (s *arrowTS) Close() error {
	if s.pf != nil {
		return s.pf.Close()
	}
	return nil
}

// pageRows returns the row ranges of pages of column col in row group g
// whose page-index min/max pass keep.
func (s *arrowTS) pageRows(g, col int, keep func(min, max []byte) bool) ([][2]int64, error) {
	rg, err := s.pf.GetPageIndexReader().RowGroup(g)
	if err != nil {
		return nil, err
	}
	ci, err := rg.GetColumnIndex(col)
	if err != nil {
		return nil, err
	}
	oi, err := rg.GetOffsetIndex(col)
	if err != nil {
		return nil, err
	}
	locs := oi.GetPageLocations()
	mins, maxs := ci.GetMinValues(), ci.GetMaxValues()
	var out [][2]int64
	for p := range locs {
		if !keep(mins[p], maxs[p]) {
			continue
		}
		lo, hi := locs[p].FirstRowIndex, s.rgLen[g]
		if p+1 < len(locs) {
			hi = locs[p+1].FirstRowIndex
		}
		if n := len(out); n > 0 && out[n-1][1] == lo {
			out[n-1][1] = hi
		} else {
			out = append(out, [2]int64{lo, hi})
		}
	}
	return out, nil
}

func le64(b []byte) int64 {
	var v int64
	for i := 7; i >= 0; i-- {
		v = v<<8 | int64(b[i])
	}
	return v
}

// readRange reads rows [a, b) of row group g, columns cols.
func (s *arrowTS) readRange(g int, cols []int, a, b int64) (arrow.Record, error) {
	fr, err := pqarrow.NewFileReader(s.pf, pqarrow.ArrowReadProperties{BatchSize: b - a}, memory.DefaultAllocator)
	if err != nil {
		return nil, err
	}
	rr, err := fr.GetRecordReader(context.Background(), cols, []int{g})
	if err != nil {
		return nil, err
	}
	defer rr.Release()
	if a > 0 {
		if err := rr.SeekToRow(a); err != nil {
			return nil, err
		}
	}
	if !rr.Next() {
		if err := rr.Err(); err != nil && err != io.EOF {
			return nil, err
		}
		return nil, fmt.Errorf("arrow-go: no rows at %d of row group %d", a, g)
	}
	rec := rr.Record()
	rec.Retain()
	return rec, nil
}

func (s *arrowTS) HostHour(w *tsWork, verify bool) (tsOut, error) {
	var out tsOut
	if verify {
		out.Sum = newChecksum()
	}
	host := []byte(w.host)
	hc, tc := s.col["hostname"], s.col["time"]
	cols := []int{hc, tc}
	for _, n := range w.hhCols {
		cols = append(cols, s.col[n])
	}
	md := s.pf.MetaData()
	for g := 0; g < s.pf.NumRowGroups(); g++ {
		cc, err := md.RowGroup(g).ColumnChunk(hc)
		if err != nil {
			return out, err
		}
		if st, err := cc.Statistics(); err == nil && st != nil && st.HasMinMax() {
			bs := st.(*metadata.ByteArrayStatistics)
			if bytes.Compare(host, bs.Min()) < 0 || bytes.Compare(host, bs.Max()) > 0 {
				continue
			}
		}
		hr, err := s.pageRows(g, hc, func(mn, mx []byte) bool { return bytes.Compare(mn, host) <= 0 && bytes.Compare(host, mx) <= 0 })
		if err != nil {
			return out, err
		}
		tr, err := s.pageRows(g, tc, func(mn, mx []byte) bool { return le64(mx) >= w.from && le64(mn) < w.to })
		if err != nil {
			return out, err
		}
		for _, r := range intersect(hr, tr) {
			rec, err := s.readRange(g, cols, r[0], r[1])
			if err != nil {
				return out, err
			}
			h := rec.Column(0).(*array.String)
			t := rec.Column(1).(*array.Timestamp)
			sel := make([]bool, rec.NumRows())
			for i := range sel {
				v := int64(t.Value(i))
				sel[i] = h.Value(i) == w.host && v >= w.from && v < w.to
				if sel[i] {
					out.Rows++
				}
			}
			if verify {
				sub := array.NewRecord(arrow.NewSchema(rec.Schema().Fields()[1:], nil), rec.Columns()[1:], rec.NumRows())
				err = out.Sum.AddRecord(sub, sel)
				sub.Release()
			}
			rec.Release()
			if err != nil {
				return out, err
			}
		}
	}
	return out, nil
}

func (s *arrowTS) Windows(w *tsWork, wins []tsWin, verify bool) (tsOut, error) {
	var out tsOut
	if verify {
		out.Sum = newChecksum()
	}
	var cols []int
	for _, n := range w.winCols {
		cols = append(cols, s.col[n])
	}
	order := make([]int, len(wins))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return wins[order[a]].row < wins[order[b]].row })
	L := int64(w.length)
	fr, err := pqarrow.NewFileReader(s.pf, pqarrow.ArrowReadProperties{BatchSize: L}, memory.DefaultAllocator)
	if err != nil {
		return out, err
	}
	readers := map[int]pqarrow.RecordReader{}
	defer func() {
		for _, r := range readers {
			r.Release()
		}
	}()
	for _, i := range order {
		x := wins[i]
		for a := x.row; a < x.row+L; {
			g := sort.Search(len(s.rgRow), func(i int) bool { return s.rgRow[i] > a }) - 1
			end := min(x.row+L, s.rgRow[g]+s.rgLen[g])
			rr, ok := readers[g]
			if !ok {
				if rr, err = fr.GetRecordReader(context.Background(), cols, []int{g}); err != nil {
					return out, err
				}
				readers[g] = rr
			}
			if err := rr.SeekToRow(a - s.rgRow[g]); err != nil {
				return out, err
			}
			if !rr.Next() {
				return out, fmt.Errorf("arrow-go: no rows at %d", a)
			}
			rec := rr.Record()
			n := end - a
			if rec.NumRows() < n {
				return out, fmt.Errorf("arrow-go: %d rows at %d, want %d", rec.NumRows(), a, n)
			}
			if verify {
				sub := rec.NewSlice(0, n)
				err := out.Sum.AddRecord(sub, nil)
				sub.Release()
				if err != nil {
					return out, err
				}
			}
			out.Rows += n
			a = end
		}
	}
	return out, nil
}

// scan reads columns of every row group and calls fn per record.
func (s *arrowTS) scan(names []string, fn func(rec arrow.Record) error) error {
	var cols []int
	for _, n := range names {
		cols = append(cols, s.col[n])
	}
	rr, err := s.fr.GetRecordReader(context.Background(), cols, nil)
	if err != nil {
		return err
	}
	defer rr.Release()
	for rr.Next() {
		if err := fn(rr.Record()); err != nil {
			return err
		}
	}
	if err := rr.Err(); err != nil && err != io.EOF {
		return err
	}
	return nil
}

func (s *arrowTS) Downsample(w *tsWork, verify bool) (tsOut, error) {
	var out tsOut
	if verify {
		out.Sum = newChecksum()
	}
	agg := newStreamAgg(w.every, verify, &out)
	err := s.scan([]string{"hostname", "time", w.aggCol}, func(rec arrow.Record) error {
		h := rec.Column(0).(*array.String)
		t := rec.Column(1).(*array.Timestamp).TimestampValues()
		v := rec.Column(2).(*array.Float64).Float64Values()
		for i := range t {
			agg.add([]byte(h.Value(i)), int64(t[i]), v[i])
		}
		return nil
	})
	agg.flush()
	return out, err
}

func (s *arrowTS) Last(w *tsWork, verify bool) (tsOut, error) {
	var out tsOut
	if verify {
		out.Sum = newChecksum()
	}
	lr := &lastRows{verify: verify, out: &out, names: tsMetricNames()}
	err := s.scan(append([]string{"hostname", "time"}, lr.names...), func(rec arrow.Record) error {
		h := rec.Column(0).(*array.String)
		t := rec.Column(1).(*array.Timestamp).TimestampValues()
		for i := range t {
			if i+1 < len(t) && h.Value(i) == h.Value(i+1) {
				continue
			}
			vals := make([]float64, len(lr.names))
			for k := range vals {
				vals[k] = rec.Column(2 + k).(*array.Float64).Value(i)
			}
			lr.add([]byte(h.Value(i)), int64(t[i]), vals)
		}
		return nil
	})
	lr.flush()
	return out, err
}
