package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding"
)

// pqgoSys is Parquet through parquet-go: written column by column
// (ColumnWriter.WriteRowValues) with zstd and parquet-go's defaults (PLAIN
// encoding, page index written). Reads work on decoded pages: selective
// queries use the column index (page min/max) of the filter column to read
// only candidate pages, then the offset index to read only the output pages
// holding matches; take seeks every column to the row through the offset index.
type pqgoSys struct {
	cfg   config
	f     *os.File
	pf    *parquet.File
	names []string // leaf column checksum names in file order
	// leaves describes every leaf column, in file order.
	leaves []pqLeaf
	// tsDiv: timestamp[s] leaves (by name) written as milliseconds.
	tsDiv   map[string]int64
	rgStart []int64
	// takePages holds one open page reader per row group and column for take.
	takePages [][]parquet.Pages
}

// pqgoWriteSlice is the number of values per WriteRowValues call.
const pqgoWriteSlice = 1024

func newParquetGoSys(cfg config) *pqgoSys { return &pqgoSys{cfg: cfg} }

func (s *pqgoSys) Name() string    { return "parquet-go" }
func (s *pqgoSys) Variant() string { return "zstd" }

func (s *pqgoSys) Write(dir string, src *Source) (string, error) {
	path := filepath.Join(dir, "data.parquet")
	group := parquet.Group{}
	shapes := make([]*pqShape, len(src.Schema.Fields()))
	var leaves []*pqLeafPlan
	for i, f := range src.Schema.Fields() {
		n, sh, err := pqBuild(f.Type, f.Nullable, []string{f.Name}, f.Name, 0, &leaves)
		if err != nil {
			return "", err
		}
		group[f.Name], shapes[i] = n, sh
	}
	schema := parquet.NewSchema("schema", group)
	for _, l := range leaves {
		lc, ok := schema.Lookup(l.path...)
		if !ok {
			return "", fmt.Errorf("parquet-go: no column %v in the schema built", l.path)
		}
		l.col = lc.ColumnIndex
	}
	f, err := os.Create(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	w := parquet.NewWriter(f, schema, parquet.Compression(&parquet.Zstd))
	cws := w.ColumnWriters()
	// Hand values over in small slices of whole rows so that the writer's
	// page buffer (parquet-go's default 256 KiB), not our batch size, decides
	// where pages end: a single call becomes a single page.
	flush := func(l *pqLeafPlan) error {
		if _, err := cws[l.col].WriteRowValues(l.vals); err != nil {
			return err
		}
		l.vals = l.vals[:0]
		return nil
	}
	for _, rec := range src.Records {
		nrows := int(rec.NumRows())
		for i, fld := range src.Schema.Fields() {
			a, sh := rec.Column(i), shapes[i]
			if sh.kind == 'l' { // flat: one value per row
				l := leaves[sh.leaf]
				def := 0
				if fld.Nullable {
					def = 1
				}
				for off := 0; off < nrows; off += pqgoWriteSlice {
					for r := off; r < min(off+pqgoWriteSlice, nrows); r++ {
						if a.IsNull(r) {
							l.vals = append(l.vals, parquet.NullValue().Level(0, 0, l.col))
							continue
						}
						v, err := pqValueAt(a, r, l.tsMul)
						if err != nil {
							return "", err
						}
						l.vals = append(l.vals, v.Level(0, def, l.col))
					}
					if err := flush(l); err != nil {
						return "", err
					}
				}
				continue
			}
			for off := 0; off < nrows; off += pqgoWriteSlice {
				for r := off; r < min(off+pqgoWriteSlice, nrows); r++ {
					if err := sh.shred(a, r, 0, 0, leaves); err != nil {
						return "", err
					}
				}
				for _, l := range leaves[sh.first:sh.end] {
					if err := flush(l); err != nil {
						return "", err
					}
				}
			}
		}
	}
	if err := w.Close(); err != nil {
		return "", err
	}
	return path, f.Close()
}

func (s *pqgoSys) Open(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return err
	}
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		f.Close()
		return err
	}
	s.f, s.pf = f, pf
	s.leaves, err = pqLeaves(pf.Schema())
	if err != nil {
		f.Close()
		return err
	}
	s.names = nil
	for _, l := range s.leaves {
		s.names = append(s.names, l.name)
	}
	s.rgStart = nil
	var n int64
	for _, rg := range pf.RowGroups() {
		s.rgStart = append(s.rgStart, n)
		n += rg.NumRows()
	}
	return nil
}

func (s *pqgoSys) Close() error {
	for _, rg := range s.takePages {
		for _, p := range rg {
			if p != nil {
				p.Close()
			}
		}
	}
	s.takePages = nil
	if s.f != nil {
		return s.f.Close()
	}
	return nil
}

func (s *pqgoSys) col(name string) (int, error) {
	for i, n := range s.names {
		if n == name {
			return i, nil
		}
	}
	return 0, fmt.Errorf("no column %q", name)
}

// pageHasher folds selected rows of decoded pages into a checksum, an
// aggregate or a plain count.
type pageHasher struct {
	vals []parquet.Value
}

// rowValues returns the page's values one per row (flat columns), using the
// generic value reader.
func (h *pageHasher) rowValues(p parquet.Page) ([]parquet.Value, error) {
	n := int(p.NumValues())
	if cap(h.vals) < n {
		h.vals = make([]parquet.Value, n)
	}
	vals := h.vals[:n]
	r := p.Values()
	got := 0
	for got < n {
		k, err := r.ReadValues(vals[got:])
		got += k
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	return vals[:got], nil
}

func hashValue(v parquet.Value, unsigned bool) uint64 {
	if v.IsNull() {
		return nullHash
	}
	switch v.Kind() {
	case parquet.Boolean:
		return hashInt(b2i(v.Boolean()))
	case parquet.Int32:
		if unsigned {
			return hashInt(int64(v.Uint32()))
		}
		return hashInt(int64(v.Int32()))
	case parquet.Int64:
		return hashInt(v.Int64())
	case parquet.Float:
		return hashFloat(float64(v.Float()))
	case parquet.Double:
		return hashFloat(v.Double())
	default:
		return hashBytes(v.ByteArray())
	}
}

// hashPage sums the hashes of the page rows with sel[i] true (all if sel is
// nil) and returns the sum and the number of rows hashed.
func (h *pageHasher) hashPage(p parquet.Page, sel []bool, l *pqLeaf) (uint64, int64, error) {
	var s uint64
	var n int64
	use := func(i int) bool { return sel == nil || sel[i] }
	if l.maxRep > 0 {
		return h.hashLevels(p, sel, l)
	}
	if p.Dictionary() == nil && p.NumNulls() == 0 && l.plain() {
		d := p.Data()
		switch d.Kind() {
		case encoding.Int32:
			for i, v := range d.Int32() {
				if use(i) {
					s += hashInt(int64(v))
					n++
				}
			}
			return s, n, nil
		case encoding.Int64:
			for i, v := range d.Int64() {
				if use(i) {
					s += hashInt(v)
					n++
				}
			}
			return s, n, nil
		case encoding.Float:
			for i, v := range d.Float() {
				if use(i) {
					s += hashFloat(float64(v))
					n++
				}
			}
			return s, n, nil
		case encoding.Double:
			for i, v := range d.Double() {
				if use(i) {
					s += hashFloat(v)
					n++
				}
			}
			return s, n, nil
		case encoding.ByteArray:
			data, off := d.ByteArray()
			for i := 0; i+1 < len(off); i++ {
				if use(i) {
					s += hashBytes(data[off[i]:off[i+1]])
					n++
				}
			}
			return s, n, nil
		}
	}
	vals, err := h.rowValues(p)
	if err != nil {
		return 0, 0, err
	}
	for i, v := range vals {
		if use(i) {
			if v.IsNull() {
				s += nullHash
			} else {
				s += hashPQValue(v, l)
			}
			n++
		}
	}
	return s, n, nil
}

// hashLevels checksums a page of a nested leaf column (nested.go): one term
// per value, the rows being where the repetition level is 0.
func (h *pageHasher) hashLevels(p parquet.Page, sel []bool, l *pqLeaf) (uint64, int64, error) {
	vals, err := h.rowValues(p)
	if err != nil {
		return 0, 0, err
	}
	var s uint64
	row, pos := int64(-1), int64(0)
	for _, v := range vals {
		r := v.RepetitionLevel()
		if r == 0 {
			row++
		}
		if r < l.maxRep {
			pos = 0
		} else {
			pos++
		}
		if sel != nil && !sel[row] {
			continue
		}
		d := v.DefinitionLevel()
		switch {
		case d == l.maxDef:
			s += mixPos(hashPQValue(v, l), pos)
		case l.empty&(1<<d) != 0:
			s += emptyHash
		default:
			s += nullHash
		}
	}
	var n int64
	for i := int64(0); i <= row; i++ {
		if sel == nil || sel[i] {
			n++
		}
	}
	return s, n, nil
}

// intPage returns the page's values widened to int64 (flat, non-null).
func (h *pageHasher) intPage(p parquet.Page, dst []int64) ([]int64, error) {
	dst = dst[:0]
	if p.Dictionary() == nil && p.NumNulls() == 0 {
		d := p.Data()
		switch d.Kind() {
		case encoding.Int32:
			for _, v := range d.Int32() {
				dst = append(dst, int64(v))
			}
			return dst, nil
		case encoding.Int64:
			return append(dst, d.Int64()...), nil
		}
	}
	vals, err := h.rowValues(p)
	if err != nil {
		return nil, err
	}
	for _, v := range vals {
		switch v.Kind() {
		case parquet.Int32:
			dst = append(dst, int64(v.Int32()))
		case parquet.Int64:
			dst = append(dst, v.Int64())
		default:
			return nil, fmt.Errorf("not an integer column (%v)", v.Kind())
		}
	}
	return dst, nil
}

func (s *pqgoSys) Scan(verify bool) (Out, error) {
	var out Out
	var h pageHasher
	if verify {
		out.Sum = newChecksum()
	}
	for _, rg := range s.pf.RowGroups() {
		out.Rows += rg.NumRows()
		for ci, cc := range rg.ColumnChunks() {
			pages := cc.Pages()
			for {
				p, err := pages.ReadPage()
				if err == io.EOF {
					break
				}
				if err != nil {
					pages.Close()
					return out, err
				}
				if verify {
					sum, _, err := h.hashPage(p, nil, &s.leaves[ci])
					if err != nil {
						pages.Close()
						return out, err
					}
					out.Sum.Cols[s.names[ci]] += sum
				}
				parquet.Release(p)
			}
			pages.Close()
		}
	}
	if verify {
		out.Sum.Rows = out.Rows
	}
	return out, nil
}

// pageBounds returns the first row of each page of a column chunk and the
// chunk's row count as the final entry.
func pageBounds(cc parquet.ColumnChunk, rows int64) ([]int64, error) {
	oi, err := cc.OffsetIndex()
	if err != nil {
		return nil, err
	}
	b := make([]int64, 0, oi.NumPages()+1)
	for i := 0; i < oi.NumPages(); i++ {
		b = append(b, oi.FirstRowIndex(i))
	}
	return append(b, rows), nil
}

func valueInt(v parquet.Value) (int64, bool) {
	switch v.Kind() {
	case parquet.Int32:
		return int64(v.Int32()), true
	case parquet.Int64:
		return v.Int64(), true
	}
	return 0, false
}

// filtered evaluates p with page skipping and calls fn for every output
// column page that holds a selected row.
func (s *pqgoSys) filtered(p Pred, outCols []int, fn func(col int, page parquet.Page, sel []bool) error) error {
	fcol, err := s.col(p.Col)
	if err != nil {
		return err
	}
	var h pageHasher
	var ints []int64
	for _, rg := range s.pf.RowGroups() {
		n := rg.NumRows()
		cc := rg.ColumnChunks()[fcol]
		bounds, err := pageBounds(cc, n)
		if err != nil {
			return err
		}
		ci, err := cc.ColumnIndex()
		if err != nil {
			return err
		}
		sel := make([]bool, n)
		any := false
		pages := cc.Pages()
		for pg := 0; pg+1 < len(bounds); pg++ {
			lo, lok := valueInt(ci.MinValue(pg))
			hi, hok := valueInt(ci.MaxValue(pg))
			if lok && hok && (hi < p.Lo || lo > p.Hi) {
				continue
			}
			if err := pages.SeekToRow(bounds[pg]); err != nil {
				pages.Close()
				return err
			}
			page, err := pages.ReadPage()
			if err != nil {
				pages.Close()
				return err
			}
			ints, err = h.intPage(page, ints)
			if err != nil {
				pages.Close()
				return err
			}
			for i, v := range ints {
				if p.match(v) {
					sel[bounds[pg]+int64(i)] = true
					any = true
				}
			}
			parquet.Release(page)
		}
		pages.Close()
		if !any {
			continue
		}
		for _, oc := range outCols {
			occ := rg.ColumnChunks()[oc]
			ob, err := pageBounds(occ, n)
			if err != nil {
				return err
			}
			pages := occ.Pages()
			for pg := 0; pg+1 < len(ob); pg++ {
				psel := sel[ob[pg]:ob[pg+1]]
				if countSel(psel) == 0 {
					continue
				}
				if err := pages.SeekToRow(ob[pg]); err != nil {
					pages.Close()
					return err
				}
				page, err := pages.ReadPage()
				if err != nil {
					pages.Close()
					return err
				}
				if int64(len(psel)) > page.NumRows() {
					psel = psel[:page.NumRows()]
				}
				if err := fn(oc, page, psel); err != nil {
					pages.Close()
					return err
				}
				parquet.Release(page)
			}
			pages.Close()
		}
	}
	return nil
}

func (s *pqgoSys) query(p Pred, cols []string, verify bool) (Out, error) {
	var out Out
	var out0 int
	var idx []int
	if cols == nil {
		for i := range s.names {
			idx = append(idx, i)
		}
	} else {
		for _, c := range cols {
			i, err := s.col(c)
			if err != nil {
				return out, err
			}
			idx = append(idx, i)
		}
	}
	out0 = idx[0]
	if verify {
		out.Sum = newChecksum()
	}
	var h pageHasher
	err := s.filtered(p, idx, func(col int, page parquet.Page, sel []bool) error {
		if !verify {
			if col == out0 {
				out.Rows += countSel(sel)
			}
			return nil
		}
		sum, n, err := h.hashPage(page, sel, &s.leaves[col])
		if err != nil {
			return err
		}
		out.Sum.Cols[s.names[col]] += sum
		if col == out0 {
			out.Rows += n
		}
		return nil
	})
	if verify {
		out.Sum.Rows = out.Rows
	}
	return out, err
}

func (s *pqgoSys) QRange(w *Workload, verify bool) (Out, error) {
	return s.query(w.rangePred(), nil, verify)
}

func (s *pqgoSys) QMonth(w *Workload, verify bool) (Out, error) {
	return s.query(w.monthPred(), monthCols, verify)
}

func (s *pqgoSys) QAgg(w *Workload) (Out, error) {
	var out Out
	q, err := s.col("l_quantity")
	if err != nil {
		return out, err
	}
	var h pageHasher
	var ints []int64
	err = s.filtered(w.monthPred(), []int{q}, func(_ int, page parquet.Page, sel []bool) error {
		ints, err = h.intPage(page, ints)
		if err != nil {
			return err
		}
		for i, b := range sel {
			if b {
				out.AggCount++
				out.AggSum += ints[i]
			}
		}
		return nil
	})
	out.Rows = out.AggCount
	return out, err
}

func (s *pqgoSys) Take(rows []int64, verify bool) (Out, error) {
	var out Out
	if verify {
		out.Sum = newChecksum()
	}
	rgs := s.pf.RowGroups()
	if s.takePages == nil {
		s.takePages = make([][]parquet.Pages, len(rgs))
	}
	var h pageHasher
	for _, r := range rows {
		g := len(s.rgStart) - 1
		for g > 0 && s.rgStart[g] > r {
			g--
		}
		if g < 0 || r-s.rgStart[g] >= rgs[g].NumRows() {
			return out, fmt.Errorf("row %d out of range", r)
		}
		if s.takePages[g] == nil {
			for _, cc := range rgs[g].ColumnChunks() {
				// Load the offset index first: parquet-go reads it lazily, and
				// a page reader without it seeks by decoding from the start.
				if _, err := cc.OffsetIndex(); err != nil {
					return out, fmt.Errorf("offset index: %w", err)
				}
				s.takePages[g] = append(s.takePages[g], cc.Pages())
			}
		}
		for ci, pages := range s.takePages[g] {
			if err := pages.SeekToRow(r - s.rgStart[g]); err != nil {
				return out, fmt.Errorf("row %d column %s: %w", r, s.names[ci], err)
			}
			page, err := pages.ReadPage()
			if err != nil {
				return out, fmt.Errorf("row %d column %s: %w", r, s.names[ci], err)
			}
			if page.NumRows() < 1 {
				return out, errors.New("empty page after seek")
			}
			if verify {
				sum, _, err := h.hashPage(page.Slice(0, 1), nil, &s.leaves[ci])
				if err != nil {
					return out, err
				}
				out.Sum.Cols[s.names[ci]] += sum
			}
		}
		out.Rows++
	}
	if verify {
		out.Sum.Rows = out.Rows
	}
	return out, nil
}
