package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding"
)

// pqgoTS is parquet-go on Parquet sorted by (hostname, time), written with
// the page size the Parquet format documentation recommends (8 KiB data
// pages), row groups of about 1 Mi rows, zstd and the page index (column and
// offset index, parquet-go's default). host_hour narrows row groups and then
// pages with the column index of hostname and time and reads only those
// pages of the five columns through the offset index; windows seek every
// column's pages to the window's first row through the offset index;
// downsample and last read their columns whole.
type pqgoTS struct {
	cfg     tsConfig
	f       *os.File
	cnt     *countingReader
	pf      *parquet.File
	col     map[string]int
	rgStart []int64
	rgRows  []int64
	pages   map[[2]int]parquet.Pages // open page readers for windows
	rowsDec int64                    // rows of the pages decoded by the last query
	note    string
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.ReaderAt
	n atomic.Int64
}

func (c *countingReader) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(p, off)
	c.n.Add(int64(n))
	return n, err
}

func newPqgoTS(cfg tsConfig) *pqgoTS { return &pqgoTS{cfg: cfg} }

func (s *pqgoTS) Name() string { return "parquet-go" }
func (s *pqgoTS) Note() string { return s.note }

func tsPqNode(f arrow.Field) (parquet.Node, error) {
	if f.Type.ID() == arrow.TIMESTAMP {
		return parquet.Timestamp(parquet.Microsecond), nil
	}
	var leaves []*pqLeafPlan
	n, _, err := pqBuild(f.Type, f.Nullable, []string{f.Name}, f.Name, 0, &leaves)
	return n, err
}

func (s *pqgoTS) Write(dir string, src *Source, _ *tsWork) (string, error) {
	path := filepath.Join(dir, "data.parquet")
	group := parquet.Group{}
	for _, f := range src.Schema.Fields() {
		n, err := tsPqNode(f)
		if err != nil {
			return "", err
		}
		group[f.Name] = n
	}
	schema := parquet.NewSchema("schema", group)
	f, err := os.Create(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	w := parquet.NewWriter(f, schema, parquet.Compression(&parquet.Zstd), parquet.PageBufferSize(8<<10))
	cws := w.ColumnWriters()
	leaf := map[string]int{}
	for i, p := range schema.Columns() {
		leaf[p[0]] = i
	}
	var buf []parquet.Value
	var inGroup int64
	for _, rec := range src.Records {
		for i, fld := range src.Schema.Fields() {
			col := leaf[fld.Name]
			buf, err = tsAppendValues(buf[:0], rec.Column(i), col)
			if err != nil {
				return "", err
			}
			for off := 0; off < len(buf); off += pqgoWriteSlice {
				if _, err := cws[col].WriteRowValues(buf[off:min(off+pqgoWriteSlice, len(buf))]); err != nil {
					return "", err
				}
			}
		}
		if inGroup += rec.NumRows(); inGroup >= 1<<20 {
			if err := w.Flush(); err != nil {
				return "", err
			}
			inGroup = 0
		}
	}
	if err := w.Close(); err != nil {
		return "", err
	}
	return path, f.Close()
}

func tsAppendValues(dst []parquet.Value, a arrow.Array, col int) ([]parquet.Value, error) {
	if ts, ok := a.(interface{ Value(int) arrow.Timestamp }); ok && a.DataType().ID() == arrow.TIMESTAMP {
		for i := 0; i < a.Len(); i++ {
			dst = append(dst, parquet.Int64Value(int64(ts.Value(i))).Level(0, 0, col))
		}
		return dst, nil
	}
	// the ts tables' other columns are flat and hold no nulls
	for i := 0; i < a.Len(); i++ {
		if a.IsNull(i) {
			dst = append(dst, parquet.NullValue().Level(0, 0, col))
			continue
		}
		v, err := pqValueAt(a, i, 1)
		if err != nil {
			return nil, err
		}
		dst = append(dst, v.Level(0, 0, col))
	}
	return dst, nil
}

func (s *pqgoTS) Open(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return err
	}
	s.cnt = &countingReader{r: f}
	pf, err := parquet.OpenFile(s.cnt, st.Size())
	if err != nil {
		f.Close()
		return err
	}
	s.f, s.pf = f, pf
	s.col = map[string]int{}
	for i, c := range pf.Schema().Columns() {
		s.col[c[0]] = i
	}
	var n int64
	for _, rg := range pf.RowGroups() {
		s.rgStart = append(s.rgStart, n)
		s.rgRows = append(s.rgRows, rg.NumRows())
		n += rg.NumRows()
	}
	s.pages = map[[2]int]parquet.Pages{}
	return nil
}

func (s *pqgoTS) Close() error {
	for _, p := range s.pages {
		p.Close()
	}
	s.pages = nil
	if s.f != nil {
		return s.f.Close()
	}
	return nil
}

// readRows calls fn with the decoded pages covering rows [a, b) of column
// col of row group rg, each with the rows of the page that fall in [a, b).
func (s *pqgoTS) readRows(pages parquet.Pages, a, b int64, fn func(p parquet.Page, lo, hi int) error) error {
	if err := pages.SeekToRow(a); err != nil {
		return err
	}
	for at := a; at < b; {
		p, err := pages.ReadPage()
		if err != nil {
			return err
		}
		n := p.NumRows()
		s.rowsDec += n
		hi := min(n, b-at)
		if err := fn(p, 0, int(hi)); err != nil {
			parquet.Release(p)
			return err
		}
		parquet.Release(p)
		at += hi
	}
	return nil
}

// pageRanges returns the row ranges of the pages of a column chunk whose
// min/max may hold values accepted by keep.
func pageRanges(cc parquet.ColumnChunk, rows int64, keep func(min, max parquet.Value) bool) ([][2]int64, error) {
	ci, err := cc.ColumnIndex()
	if err != nil {
		return nil, err
	}
	oi, err := cc.OffsetIndex()
	if err != nil {
		return nil, err
	}
	var out [][2]int64
	for p := 0; p < oi.NumPages(); p++ {
		if !keep(ci.MinValue(p), ci.MaxValue(p)) {
			continue
		}
		lo, hi := oi.FirstRowIndex(p), rows
		if p+1 < oi.NumPages() {
			hi = oi.FirstRowIndex(p + 1)
		}
		if n := len(out); n > 0 && out[n-1][1] == lo {
			out[n-1][1] = hi
		} else {
			out = append(out, [2]int64{lo, hi})
		}
	}
	return out, nil
}

func intersect(a, b [][2]int64) [][2]int64 {
	var out [][2]int64
	for i, j := 0, 0; i < len(a) && j < len(b); {
		lo, hi := max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
		if lo < hi {
			out = append(out, [2]int64{lo, hi})
		}
		if a[i][1] < b[j][1] {
			i++
		} else {
			j++
		}
	}
	return out
}

func (s *pqgoTS) HostHour(w *tsWork, verify bool) (tsOut, error) {
	var out tsOut
	if verify {
		out.Sum = newChecksum()
	}
	s.rowsDec = 0
	before := s.cnt.n.Load()
	host := []byte(w.host)
	hc, tc := s.col["hostname"], s.col["time"]
	for g, rg := range s.pf.RowGroups() {
		ccs := rg.ColumnChunks()
		hr, err := pageRanges(ccs[hc], s.rgRows[g], func(mn, mx parquet.Value) bool {
			return bytes.Compare(mn.ByteArray(), host) <= 0 && bytes.Compare(host, mx.ByteArray()) <= 0
		})
		if err != nil {
			return out, err
		}
		if len(hr) == 0 {
			continue
		}
		tr, err := pageRanges(ccs[tc], s.rgRows[g], func(mn, mx parquet.Value) bool {
			return mx.Int64() >= w.from && mn.Int64() < w.to
		})
		if err != nil {
			return out, err
		}
		for _, r := range intersect(hr, tr) {
			n := int(r[1] - r[0])
			sel := make([]bool, n)
			hosts := make([][]byte, 0, n)
			pg := ccs[hc].Pages()
			err := s.readRows(pg, r[0], r[1], func(p parquet.Page, lo, hi int) error {
				vals := make([]parquet.Value, p.NumValues())
				m, _ := p.Values().ReadValues(vals)
				for _, v := range vals[lo:min(hi, m)] {
					hosts = append(hosts, v.ByteArray())
				}
				return nil
			})
			pg.Close()
			if err != nil {
				return out, err
			}
			times := make([]int64, 0, n)
			pg = ccs[tc].Pages()
			err = s.readRows(pg, r[0], r[1], func(p parquet.Page, lo, hi int) error {
				times = append(times, pageInt64(p)[lo:hi]...)
				return nil
			})
			pg.Close()
			if err != nil {
				return out, err
			}
			cnt := int64(0)
			for i := range sel {
				sel[i] = bytes.Equal(hosts[i], host) && times[i] >= w.from && times[i] < w.to
				if sel[i] {
					cnt++
					if verify {
						out.Sum.Cols["time"] += hashTS(times[i], 1e6) // microseconds, hashed as instants like Arrow timestamps
					}
				}
			}
			if cnt == 0 {
				continue
			}
			out.Rows += cnt
			for _, name := range w.hhCols {
				pg := ccs[s.col[name]].Pages()
				k := 0
				err := s.readRows(pg, r[0], r[1], func(p parquet.Page, lo, hi int) error {
					for _, v := range pageDouble(p)[lo:hi] {
						if sel[k] && verify {
							out.Sum.Cols[name] += hashFloat(v)
						}
						k++
					}
					return nil
				})
				pg.Close()
				if err != nil {
					return out, err
				}
			}
		}
	}
	if verify {
		out.Sum.Rows = out.Rows
	}
	s.note = fmt.Sprintf("bytes read %d (page index included), rows of pages decoded %d for %d rows returned", s.cnt.n.Load()-before, s.rowsDec, out.Rows)
	return out, nil
}

func (s *pqgoTS) rgOf(row int64) int {
	return sort.Search(len(s.rgStart), func(i int) bool { return s.rgStart[i] > row }) - 1
}

func (s *pqgoTS) Windows(w *tsWork, wins []tsWin, verify bool) (tsOut, error) {
	var out tsOut
	if verify {
		out.Sum = newChecksum()
	}
	s.rowsDec = 0
	before := s.cnt.n.Load()
	order := make([]int, len(wins))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return wins[order[a]].row < wins[order[b]].row })
	L := int64(w.length)
	for _, i := range order {
		x := wins[i]
		g := s.rgOf(x.row)
		if g < 0 || x.row+L > s.rgStart[g]+s.rgRows[g] {
			// a window across row groups: read each part
		}
		for _, name := range w.winCols {
			c := s.col[name]
			for a := x.row; a < x.row+L; {
				g := s.rgOf(a)
				end := min(x.row+L, s.rgStart[g]+s.rgRows[g])
				key := [2]int{g, c}
				pg, ok := s.pages[key]
				if !ok {
					cc := s.pf.RowGroups()[g].ColumnChunks()[c]
					if _, err := cc.OffsetIndex(); err != nil {
						return out, err
					}
					pg = cc.Pages()
					s.pages[key] = pg
				}
				err := s.readRows(pg, a-s.rgStart[g], end-s.rgStart[g], func(p parquet.Page, lo, hi int) error {
					if verify {
						for _, v := range pageDouble(p)[lo:hi] {
							out.Sum.Cols[name] += hashFloat(v)
						}
					}
					return nil
				})
				if err != nil {
					return out, err
				}
				a = end
			}
		}
		out.Rows += L
	}
	if verify {
		out.Sum.Rows = out.Rows
	}
	s.note = fmt.Sprintf("bytes read %d, rows of pages decoded %d for %d values returned (read amplification %.1f)",
		s.cnt.n.Load()-before, s.rowsDec, out.Rows*int64(len(w.winCols)), float64(s.rowsDec)/float64(max(1, out.Rows*int64(len(w.winCols)))))
	return out, nil
}

// Batch reads the windows in row order like Windows, converting each
// metric into its place in dst as float32 (seed experiment E).
func (s *pqgoTS) Batch(w *tsWork, wins []tsWin, dst []float32) error {
	order := make([]int, len(wins))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return wins[order[a]].row < wins[order[b]].row })
	L := int64(w.length)
	C := len(w.winCols)
	for _, i := range order {
		x := wins[i]
		for ci, name := range w.winCols {
			c := s.col[name]
			for a := x.row; a < x.row+L; {
				g := s.rgOf(a)
				end := min(x.row+L, s.rgStart[g]+s.rgRows[g])
				key := [2]int{g, c}
				pg, ok := s.pages[key]
				if !ok {
					cc := s.pf.RowGroups()[g].ColumnChunks()[c]
					if _, err := cc.OffsetIndex(); err != nil {
						return err
					}
					pg = cc.Pages()
					s.pages[key] = pg
				}
				at := a
				err := s.readRows(pg, a-s.rgStart[g], end-s.rgStart[g], func(p parquet.Page, lo, hi int) error {
					for _, v := range pageDouble(p)[lo:hi] {
						dst[(int64(i)*L+at-x.row)*int64(C)+int64(ci)] = float32(v)
						at++
					}
					return nil
				})
				if err != nil {
					return err
				}
				a = end
			}
		}
	}
	return nil
}

// columnInts and friends read a whole column chunk.
func (s *pqgoTS) readChunk(cc parquet.ColumnChunk, fn func(p parquet.Page) error) error {
	pages := cc.Pages()
	defer pages.Close()
	for {
		p, err := pages.ReadPage()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		err = fn(p)
		parquet.Release(p)
		if err != nil {
			return err
		}
	}
}

func pageStrings(p parquet.Page, dst [][]byte) [][]byte {
	if p.Dictionary() == nil {
		d := p.Data()
		if d.Kind() == encoding.ByteArray {
			data, off := d.ByteArray()
			for i := 0; i+1 < len(off); i++ {
				dst = append(dst, bytes.Clone(data[off[i]:off[i+1]]))
			}
			return dst
		}
	}
	vals := make([]parquet.Value, p.NumValues())
	n, _ := p.Values().ReadValues(vals)
	for _, v := range vals[:n] {
		dst = append(dst, bytes.Clone(v.ByteArray()))
	}
	return dst
}

func (s *pqgoTS) Downsample(w *tsWork, verify bool) (tsOut, error) {
	var out tsOut
	if verify {
		out.Sum = newChecksum()
	}
	agg := newStreamAgg(w.every, verify, &out)
	for _, rg := range s.pf.RowGroups() {
		ccs := rg.ColumnChunks()
		var hosts [][]byte
		var times []int64
		var vals []float64
		if err := s.readChunk(ccs[s.col["hostname"]], func(p parquet.Page) error { hosts = pageStrings(p, hosts); return nil }); err != nil {
			return out, err
		}
		if err := s.readChunk(ccs[s.col["time"]], func(p parquet.Page) error { times = append(times, pageInt64(p)...); return nil }); err != nil {
			return out, err
		}
		if err := s.readChunk(ccs[s.col[w.aggCol]], func(p parquet.Page) error { vals = append(vals, pageDouble(p)...); return nil }); err != nil {
			return out, err
		}
		for i := range times {
			agg.add(hosts[i], times[i], vals[i])
		}
	}
	agg.flush()
	s.note = ""
	return out, nil
}

// streamAgg computes per (host, bucket) min/max/avg over rows sorted by
// (host, time), emitting each group's hashes when it ends.
type streamAgg struct {
	every       int64
	verify      bool
	out         *tsOut
	host        []byte
	bucket      int64
	n           int64
	mn, mx, sum float64
	started     bool
}

func newStreamAgg(every int64, verify bool, out *tsOut) *streamAgg {
	return &streamAgg{every: every, verify: verify, out: out}
}

func (a *streamAgg) add(host []byte, t int64, v float64) {
	b := t / a.every * a.every
	if !a.started || b != a.bucket || !bytes.Equal(host, a.host) {
		a.flush()
		a.started, a.host, a.bucket, a.n, a.mn, a.mx, a.sum = true, host, b, 0, v, v, 0
	}
	a.n++
	a.mn, a.mx, a.sum = min(a.mn, v), max(a.mx, v), a.sum+v
}

func (a *streamAgg) flush() {
	if !a.started || a.n == 0 {
		return
	}
	a.out.Rows++
	if a.verify {
		a.out.Sum.Rows++
		c := a.out.Sum.Cols
		c["host"] += hashBytes(a.host)
		c["bucket"] += hashTS(a.bucket, 1e6)
		c["min"] += hashFloat(a.mn)
		c["max"] += hashFloat(a.mx)
		c["avg"] += hashFloat(a.sum / float64(a.n))
	}
	a.n = 0
}

// lastRows hashes the last row of each host in rows sorted by (host, time).
type lastRows struct {
	verify bool
	out    *tsOut
	host   []byte
	t      int64
	vals   []float64
	names  []string
}

func (l *lastRows) add(host []byte, t int64, vals []float64) {
	if l.host != nil && !bytes.Equal(host, l.host) {
		l.flush()
	}
	l.host, l.t, l.vals = host, t, vals
}

func (l *lastRows) flush() {
	if l.host == nil {
		return
	}
	l.out.Rows++
	if l.verify {
		l.out.Sum.Rows++
		c := l.out.Sum.Cols
		c["host"] += hashBytes(l.host)
		c["time"] += hashTS(l.t, 1e6)
		for i, n := range l.names {
			c[n] += hashFloat(l.vals[i])
		}
	}
	l.host = nil
}

func (s *pqgoTS) Last(w *tsWork, verify bool) (tsOut, error) {
	var out tsOut
	if verify {
		out.Sum = newChecksum()
	}
	lr := &lastRows{verify: verify, out: &out, names: tsMetricNames()}
	for _, rg := range s.pf.RowGroups() {
		ccs := rg.ColumnChunks()
		var hosts [][]byte
		var times []int64
		if err := s.readChunk(ccs[s.col["hostname"]], func(p parquet.Page) error { hosts = pageStrings(p, hosts); return nil }); err != nil {
			return out, err
		}
		if err := s.readChunk(ccs[s.col["time"]], func(p parquet.Page) error { times = append(times, pageInt64(p)...); return nil }); err != nil {
			return out, err
		}
		cols := make([][]float64, len(lr.names))
		for k, n := range lr.names {
			if err := s.readChunk(ccs[s.col[n]], func(p parquet.Page) error { cols[k] = append(cols[k], pageDouble(p)...); return nil }); err != nil {
				return out, err
			}
		}
		for i := range times {
			if i+1 < len(times) && bytes.Equal(hosts[i], hosts[i+1]) {
				continue
			}
			vals := make([]float64, len(cols))
			for k := range cols {
				vals[k] = cols[k][i]
			}
			lr.add(hosts[i], times[i], vals)
		}
	}
	lr.flush()
	s.note = ""
	return out, nil
}

func pageInt64(p parquet.Page) []int64 {
	d := p.Data()
	return d.Int64()
}

func pageDouble(p parquet.Page) []float64 {
	d := p.Data()
	return d.Double()
}
