package timeseries

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"time"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata/encoding"
	"strata/read"
	"strata/shred"
)

// The read path of sampled windows. Many short windows make per-window
// costs dominate: a cursor moved back to the chunk start and forward again
// for every window, buffers and records allocated per window and per
// unit. Here the windows are cut into pieces per unit, the pieces of a
// unit are decoded in row order with one cursor per column, and every
// piece is decoded into its place in one buffer per column.

// winPiece is the part of window w that lies in one unit: unit-relative
// rows [a, b), which are rows [at, at+b-a) of the window.
type winPiece struct {
	w    int
	at   int64
	a, b int64
}

// unitPiece is a piece of a window with the index of its unit in the
// read's units (planWindows).
type unitPiece struct {
	ui int32
	p  winPiece
}

// winUnit is a unit some windows fall in, with their pieces in row order.
type winUnit struct {
	t      *task // the unit's fetch task: rows [a, b) span every piece
	pieces []winPiece
	task   task // t's storage
}

// winRead is a planned read of windows and, once read, its buffers.
type winRead struct {
	ws      []Window
	length  int
	entries []*seriesEntry // per window
	units   []*winUnit
	vals    map[int]any    // per decoded column: Length values per window, window after window
	valid   map[int][]bool // per nullable decoded column
	// A binary column cannot be decoded into place: each unit's pieces
	// are decoded one after another into bin[c][unit], where piece k
	// starts at value binAt[c][unit][k], and gathered in window order.
	bin   map[int][]*encoding.Bytes
	binAt map[int][][]int
	// mem is the file's buffer pool; pooled holds the columns whose vals
	// came from it and are not yet owned by an Arrow array (free).
	mem    memory.Allocator
	pooled map[int]bool
}

// free returns the pooled buffers no array owns yet to the pool (a read
// that failed before its records were built).
func (wr *winRead) free() {
	for c := range wr.pooled {
		if b := valueBytes(wr.vals[c]); b != nil {
			wr.mem.Free(b)
		}
	}
	clear(wr.pooled)
}

// windowValues returns a buffer of n values of type t: from mem for the
// fixed-width types (pooled true), so that releasing the records returns
// it and the next read reuses it instead of zeroing fresh memory (every
// value is written by the read before the buffer is handed out), else a
// plain, zeroed one (binary values, none, or mem nil).
func windowValues(mem memory.Allocator, t encoding.Type, n int) (v any, pooled bool, err error) {
	if n == 0 || t == encoding.Binary || mem == nil {
		v, err = encoding.NewValues(t, n)
		return v, false, err
	}
	switch t {
	case encoding.Bool:
		v = pooledSlice[bool](mem, n)
	case encoding.Int8:
		v = pooledSlice[int8](mem, n)
	case encoding.Int16:
		v = pooledSlice[int16](mem, n)
	case encoding.Int32:
		v = pooledSlice[int32](mem, n)
	case encoding.Int64:
		v = pooledSlice[int64](mem, n)
	case encoding.Uint8:
		v = pooledSlice[uint8](mem, n)
	case encoding.Uint16:
		v = pooledSlice[uint16](mem, n)
	case encoding.Uint32:
		v = pooledSlice[uint32](mem, n)
	case encoding.Uint64:
		v = pooledSlice[uint64](mem, n)
	case encoding.Float32:
		v = pooledSlice[float32](mem, n)
	case encoding.Float64:
		v = pooledSlice[float64](mem, n)
	default:
		return nil, false, encoding.Unsupportedf("timeseries: values of type %v", t)
	}
	return v, true, nil
}

// pooledSlice views n values' worth of bytes from mem as a []T.
func pooledSlice[T any](mem memory.Allocator, n int) []T {
	var z T
	b := mem.Allocate(n * int(unsafe.Sizeof(z)))
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), n)
}

// valueBytes views a fixed-width buffer's memory as the bytes mem
// handed out (nil for other values).
func valueBytes(v any) []byte {
	switch x := v.(type) {
	case []bool:
		return bytesOf(x)
	case []int8:
		return bytesOf(x)
	case []int16:
		return bytesOf(x)
	case []int32:
		return bytesOf(x)
	case []int64:
		return bytesOf(x)
	case []uint8:
		return bytesOf(x)
	case []uint16:
		return bytesOf(x)
	case []uint32:
		return bytesOf(x)
	case []uint64:
		return bytesOf(x)
	case []float32:
		return bytesOf(x)
	case []float64:
		return bytesOf(x)
	}
	return nil
}

func bytesOf[T any](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	var z T
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(z)))
}

// planWindows checks the windows against the index and cuts them into
// pieces per unit.
//
// The units and pieces are carved from mem, which the caller gives back
// once done with the read.
func (f *File) planWindows(ctx context.Context, ws []Window, length int, st *Stats, mem *stepMem) (*winRead, error) {
	wr := &winRead{ws: ws, length: length, entries: make([]*seriesEntry, len(ws))}
	type series struct {
		e      *seriesEntry
		starts []int64 // file row of each unit's first row
		units  []*unitRec
	}
	bySeries := map[int]*series{}
	// units in the order the windows first touch them, found by ordinal
	// through byUnit; flat lists every piece with its unit's index
	units := mem.units[:0]
	byUnit := map[int]int32{}
	flat := mem.flat[:0]
	L := int64(length)
	for i, w := range ws {
		s := bySeries[w.Series]
		if s == nil {
			if w.Series < 0 || w.Series >= int(f.meta.series) {
				return nil, fmt.Errorf("timeseries: window of series %d of %d: %w", w.Series, f.meta.series, read.ErrInvalidArgument)
			}
			e, err := f.entry(ctx, w.Series, st)
			if err != nil {
				return nil, err
			}
			s = &series{e: e}
			for uo := e.c0; uo < e.c1; uo++ {
				u, err := f.unit(ctx, uo, st)
				if err != nil {
					return nil, err
				}
				s.units = append(s.units, u)
				s.starts = append(s.starts, f.stripe[u.stripe]+u.row)
			}
			bySeries[w.Series] = s
		}
		e := s.e
		if w.Start < 0 || w.Start > e.rows-L { // w.Start+L may overflow
			return nil, fmt.Errorf("timeseries: window of %d rows from row %d of series %d with %d rows: %w", L, w.Start, w.Series, e.rows, read.ErrInvalidArgument)
		}
		wr.entries[i] = e
		g0, g1 := e.firstRow+w.Start, e.firstRow+w.Start+L
		var got int64
		k := sort.Search(len(s.starts), func(k int) bool { return s.starts[k] > g0 }) - 1
		for ; k >= 0 && k < len(s.units) && s.starts[k] < g1; k++ {
			u, s0 := s.units[k], s.starts[k]
			a, b := max(g0, s0)-s0, min(g1, s0+u.rows)-s0
			if a >= b {
				continue
			}
			uo := e.c0 + k
			ui, ok := byUnit[uo]
			if !ok {
				ui = int32(len(units))
				units = append(units, winUnit{task: task{e: e, uo: uo, u: u, a: a, b: b, settled: true}})
				byUnit[uo] = ui
			}
			t := &units[ui].task
			t.a, t.b = min(t.a, a), max(t.b, b)
			flat = append(flat, unitPiece{ui: ui, p: winPiece{w: i, at: max(g0, s0) - g0, a: a, b: b}})
			got += b - a
		}
		if got != L {
			return nil, fmt.Errorf("timeseries: window %d of series %d: units cover %d of %d rows", i, e.ord, got, L)
		}
	}
	// The pieces of every unit are placed together in one slice (counted,
	// then put at their unit's offset) instead of a growing slice apiece:
	// a draw of ten thousand windows touches thousands of units, and
	// their allocations were a tenth of the read.
	mem.units, mem.flat = units, flat
	off := make([]int32, len(units)+1)
	for _, fp := range flat {
		off[fp.ui+1]++
	}
	for i := range units {
		off[i+1] += off[i]
	}
	if cap(mem.pieces) < len(flat) {
		mem.pieces = make([]winPiece, len(flat))
	}
	pieces := mem.pieces[:len(flat)]
	next := append([]int32(nil), off[:len(units)]...)
	for _, fp := range flat {
		pieces[next[fp.ui]] = fp.p
		next[fp.ui]++
	}
	if cap(mem.uptrs) < len(units) {
		mem.uptrs = make([]*winUnit, len(units))
	}
	wr.units = mem.uptrs[:len(units)]
	for i := range units {
		wu := &units[i]
		wu.t, wu.pieces = &wu.task, pieces[off[i]:off[i+1]:off[i+1]]
		if len(wu.pieces) > 1 {
			slices.SortFunc(wu.pieces, func(x, y winPiece) int {
				if x.a != y.a {
					return int(x.a - y.a)
				}
				return int(x.b - y.b)
			})
		}
		wr.units[i] = wu
	}
	st.UnitsTotal = len(wr.units)
	return wr, nil
}

// readWindows fetches the units' chunks in one step and decodes every
// piece into the window buffers, one job per unit and column on up to
// threads goroutines.
func (f *File) readWindows(ctx context.Context, wr *winRead, p *projection, threads int, st *Stats, mem *stepMem) error {
	cols := p.decoded
	if !p.wantTime {
		cols = cols[1:]
	}
	ts := make([]*task, len(wr.units))
	for i, wu := range wr.units {
		ts[i] = wu.t
	}
	if _, err := f.fetchTasks(ctx, ts, cols, st, mem); err != nil {
		return err
	}
	n := len(wr.ws) * wr.length
	wr.vals, wr.valid = map[int]any{}, map[int][]bool{}
	wr.bin, wr.binAt = map[int][]*encoding.Bytes{}, map[int][][]int{}
	wr.mem, wr.pooled = f.rf.Allocator(), map[int]bool{}
	for _, c := range cols {
		if f.stypes[c] == encoding.Binary {
			wr.bin[c], wr.binAt[c] = make([]*encoding.Bytes, len(wr.units)), make([][]int, len(wr.units))
		} else {
			// A nullable column's buffer is a zeroed one: decoders may
			// leave a null's slot as they found it.
			mem := wr.mem
			if f.t.sch.Field(c).Nullable {
				mem = nil
			}
			v, pooled, err := windowValues(mem, f.stypes[c], n)
			if err != nil {
				wr.free()
				return err
			}
			wr.vals[c] = v
			if pooled {
				wr.pooled[c] = true
			}
		}
		if f.t.sch.Field(c).Nullable {
			wr.valid[c] = make([]bool, n)
		}
	}
	if cap(mem.jobs) < len(wr.units)*len(cols) {
		mem.jobs = make([]winJob, 0, len(wr.units)*len(cols))
	}
	jobs := mem.jobs[:0]
	for ui, wu := range wr.units {
		st.RowsScanned += wu.t.b - wu.t.a
		for _, c := range cols {
			jobs = append(jobs, winJob{wu: wu, ui: ui, c: c})
		}
	}
	L := int64(wr.length)
	parallel(len(jobs), max(1, threads), func(i int) {
		j := &jobs[i]
		start := time.Now()
		rd := j.wu.t.ud.reader(j.c)
		rd.count = &j.count
		vals, valid := wr.vals[j.c], wr.valid[j.c]
		var bin *encoding.Bytes
		var binAt []int
		if _, ok := wr.bin[j.c]; ok {
			bin = &encoding.Bytes{Offsets: make([]int32, 1, 1+j.wu.t.b-j.wu.t.a)}
			binAt = make([]int, len(j.wu.pieces))
			wr.bin[j.c][j.ui], wr.binAt[j.c][j.ui] = bin, binAt
			vals = bin
		}
		var prev winPiece
		for k, pc := range j.wu.pieces {
			out := int64(pc.w)*L + pc.at
			x := pc.a
			if bin != nil {
				binAt[k] = bin.Len()
			}
			if k > 0 && x >= prev.a && x < prev.b {
				// shared with the previous piece: already decoded there
				m := min(pc.b, prev.b) - x
				src := int64(prev.w)*L + prev.at + (x - prev.a)
				if bin != nil {
					from := binAt[k-1] + int(x-prev.a)
					for i := range int(m) {
						bin.Append(bin.Value(from + i))
					}
				} else {
					copyValues(vals, int(out), int(src), int(m))
				}
				if valid != nil {
					copy(valid[out:out+m], valid[src:src+m])
				}
				x, out = x+m, out+m
			}
			if x < pc.b {
				if j.err = rd.readOn(x, pc.b, vals, valid, int(out)); j.err != nil {
					j.err = fmt.Errorf("timeseries: unit %d, column %q: %w", j.wu.t.uo, f.t.sch.Field(j.c).Name, j.err)
					break
				}
			}
			prev = pc
		}
		rd.release()
		j.decode = time.Since(start)
	})
	var err error
	for i := range jobs {
		j := &jobs[i]
		st.ValuesDecoded += j.count
		if j.c == f.t.time {
			st.TimeDecoded += j.count
		}
		st.Decode += j.decode
		if j.err != nil && err == nil {
			err = j.err
		}
	}
	for _, wu := range wr.units {
		wu.t.ud = nil
	}
	if err == nil {
		wr.gatherBinary()
	} else {
		wr.free()
	}
	return err
}

// winJob is the decoding of one unit-column of a window read. It is kept
// small: there is one per unit and column, and a Stats in each made the
// slice megabytes of fresh memory a call.
type winJob struct {
	wu     *winUnit
	ui     int
	c      int
	count  int64 // values decoded (colReader.count)
	decode time.Duration
	err    error
}

// gatherBinary puts the values of the binary columns in window order.
func (wr *winRead) gatherBinary() {
	if len(wr.bin) == 0 {
		return
	}
	type ref struct {
		at     int64
		ui, k  int
		length int
	}
	byWin := make([][]ref, len(wr.ws))
	for ui, wu := range wr.units {
		for k, pc := range wu.pieces {
			byWin[pc.w] = append(byWin[pc.w], ref{at: pc.at, ui: ui, k: k, length: int(pc.b - pc.a)})
		}
	}
	for _, rs := range byWin {
		slices.SortFunc(rs, func(x, y ref) int { return int(x.at - y.at) })
	}
	for c, units := range wr.bin {
		out := &encoding.Bytes{Offsets: make([]int32, 1, len(wr.ws)*wr.length+1)}
		for _, rs := range byWin {
			for _, r := range rs {
				b, at := units[r.ui], wr.binAt[c][r.ui][r.k]
				for i := range r.length {
					out.Append(b.Value(at + i))
				}
			}
		}
		wr.vals[c] = out
	}
}

// readOn decodes rows [x, y) into vals[at:] (and valid) like read, but
// moves each chunk's cursor forward from where the previous call of this
// step left it when that is at or before x; a chunk is reset only on its
// first use in the step or when asked for rows behind its cursor. The
// values counted are those DecodeSpan says a fresh cursor decodes, less
// the part of the span an earlier call of the step already decoded.
func (r *colReader) readOn(x, y int64, vals any, valid []bool, at int) error {
	if r.spanHi == nil {
		if len(r.cl.rows) == 1 {
			r.spanHi = r.spanHi1[:]
		} else {
			r.spanHi = make([]int64, len(r.cl.rows))
		}
		for k := range r.spanHi {
			r.spanHi[k] = -1 // not used in this step yet
		}
	}
	var base int64
	for k, n := range r.cl.rows {
		lo, hi := max(x, base), min(y, base+n)
		if lo < hi {
			d, err := r.chunk(k)
			if err != nil {
				return err
			}
			l, h := lo-base, hi-base
			pos := int64(d.Pos())
			if r.spanHi[k] < 0 || pos > l {
				d.Reset()
				pos, r.spanHi[k] = 0, 0
			}
			if l > pos {
				if err := d.Skip(int(l - pos)); err != nil {
					return err
				}
			}
			m := int(h - l)
			if err := readSpan(d, vals, at, m, valid); err != nil {
				return err
			}
			s0, s1 := encoding.DecodeSpan(d, int(l), int(h))
			*r.count += max(0, int64(s1)-max(int64(s0), r.spanHi[k]))
			r.spanHi[k] = max(r.spanHi[k], int64(s1))
			at += m
		}
		base += n
	}
	return nil
}

// copyValues copies m values of a window buffer from position src to dst.
func copyValues(vals any, dst, src, m int) {
	switch v := vals.(type) {
	case []bool:
		copy(v[dst:dst+m], v[src:src+m])
	case []int8:
		copy(v[dst:dst+m], v[src:src+m])
	case []int16:
		copy(v[dst:dst+m], v[src:src+m])
	case []int32:
		copy(v[dst:dst+m], v[src:src+m])
	case []int64:
		copy(v[dst:dst+m], v[src:src+m])
	case []uint8:
		copy(v[dst:dst+m], v[src:src+m])
	case []uint16:
		copy(v[dst:dst+m], v[src:src+m])
	case []uint32:
		copy(v[dst:dst+m], v[src:src+m])
	case []uint64:
		copy(v[dst:dst+m], v[src:src+m])
	case []float32:
		copy(v[dst:dst+m], v[src:src+m])
	case []float64:
		copy(v[dst:dst+m], v[src:src+m])
	}
}

// records turns the window buffers into Arrow: one stacked record with a
// leading int32 "window" column, or one record per window viewing its
// rows of the stacked arrays.
func (wr *winRead) records(f *File, p *projection, stacked bool) ([]arrow.Record, error) {
	// (no windows: no per-window records, or one stacked record of no
	// rows, so that a caller sees the columns either way)
	if stacked && len(wr.ws) == 0 {
		return []arrow.Record{emptyStacked(p.sch)}, nil
	}
	mem := memory.DefaultAllocator
	ssch := f.rf.StrataSchema()
	L := wr.length
	n := len(wr.ws) * L
	arrs := make([]arrow.Array, len(p.cols)) // whole columns; nil for keys
	release := func(as []arrow.Array) {
		for _, a := range as {
			if a != nil {
				a.Release()
			}
		}
	}
	defer release(arrs)
	built := map[int]arrow.Array{}
	for i, c := range p.cols {
		if f.t.roles[c] == roleKey {
			continue
		}
		if a, ok := built[c]; ok {
			a.Retain()
			arrs[i] = a
			continue
		}
		vals := wr.vals[c]
		st := &shred.Stream{ID: f.streamOf(c), Type: f.stypes[c], Values: vals, Valid: wr.valid[c], Len: n}
		if wr.pooled[c] {
			st.Owner = wr.mem // the array owns the buffer from here on
		}
		a, err := shred.AssembleLeaf(ssch, c, n, st, mem)
		if err != nil {
			wr.free()
			return nil, fmt.Errorf("timeseries: column %q: %w", f.t.sch.Field(c).Name, err)
		}
		delete(wr.pooled, c)
		arrs[i], built[c] = a, a
	}
	// keyOf builds the key column c of window w (Length copies).
	keyOf := func(c, w int) (arrow.Array, error) {
		return f.keyArray(c, wr.entries[w].key, L)
	}
	if stacked {
		out := make([]arrow.Array, 0, len(arrs)+1)
		defer func() { release(out) }()
		// the window column comes from the file's pool like the value
		// columns, so that released records hand it to the next call
		var win []int32
		var wb *memory.Buffer
		if wr.mem != nil {
			win = pooledSlice[int32](wr.mem, n)
			wb = memory.NewBufferWithAllocator(bytesOf(win), wr.mem)
		} else {
			win = make([]int32, n)
			wb = memory.NewBufferBytes(bytesOf(win))
		}
		for w := range wr.ws {
			// a slice per window, so the fill loop needs no bounds checks
			s := win[w*L : (w+1)*L]
			for i := range s {
				s[i] = int32(w)
			}
		}
		wd := array.NewData(arrow.PrimitiveTypes.Int32, n, []*memory.Buffer{nil, wb}, nil, 0, 0)
		out = append(out, array.NewInt32Data(wd))
		wd.Release() // the array holds the data, the data the buffer
		wb.Release()
		for i, c := range p.cols {
			if arrs[i] != nil {
				arrs[i].Retain()
				out = append(out, arrs[i])
				continue
			}
			parts := make([]arrow.Array, len(wr.ws))
			for w := range wr.ws {
				a, err := keyOf(c, w)
				if err != nil {
					release(parts)
					return nil, err
				}
				parts[w] = a
			}
			a, err := array.Concatenate(parts, mem)
			release(parts)
			if err != nil {
				return nil, err
			}
			out = append(out, a)
		}
		fields := append([]arrow.Field{{Name: "window", Type: arrow.PrimitiveTypes.Int32}}, p.sch.Fields()...)
		return []arrow.Record{array.NewRecord(arrow.NewSchema(fields, nil), out, int64(n))}, nil
	}
	recs := make([]arrow.Record, 0, len(wr.ws))
	part := make([]arrow.Array, len(arrs))
	for w := range wr.ws {
		for i, c := range p.cols {
			var err error
			if arrs[i] != nil {
				part[i] = array.NewSlice(arrs[i], int64(w*L), int64((w+1)*L))
			} else if part[i], err = keyOf(c, w); err != nil {
				release(part[:i])
				for _, r := range recs {
					r.Release()
				}
				return nil, err
			}
		}
		recs = append(recs, array.NewRecord(p.sch, part, int64(L)))
		release(part)
	}
	return recs, nil
}

// emptyStacked is the stacked record of no windows: the window column and
// the columns of sch, of no rows.
func emptyStacked(sch *arrow.Schema) arrow.Record {
	fields := append([]arrow.Field{{Name: "window", Type: arrow.PrimitiveTypes.Int32}}, sch.Fields()...)
	cols := make([]arrow.Array, len(fields))
	for i, fd := range fields {
		cols[i] = array.MakeArrayOfNull(memory.DefaultAllocator, fd.Type, 0)
	}
	rec := array.NewRecord(arrow.NewSchema(fields, nil), cols, 0)
	for _, c := range cols {
		c.Release()
	}
	return rec
}
