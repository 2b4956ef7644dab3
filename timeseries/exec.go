package timeseries

import (
	"context"
	"fmt"
	"math"
	"sort"
	"sync"
	"time"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata/encoding"
	"strata/iox"
	"strata/shred"
)

// The read step every read shares: one fetch of the chunks a batch of
// tasks needs, time decoded and filtered unit by unit, then value columns
// decoded unit-column by unit-column, on up to Threads goroutines.

// execOpts say how exec decodes a batch.
type execOpts struct {
	cols     []int // columns to decode, the time column first
	tr       TimeRange
	wantTime bool // decode the times of the surviving rows
	eager    bool // decode every row of [a, b), then filter
	threads  int
	// pooled: the caller consumes the decoded times and values before its
	// next step and gives them back (freeTask), so they come from the
	// file's buffer pool instead of fresh memory. Not with eager, whose
	// values are cut from a larger buffer.
	pooled bool
}

// freeTask gives the pooled buffers of a task's decoded times and values
// back to the file's pool (buffers it did not hand out are left alone).
func (f *File) freeTask(t *task) {
	mem := f.rf.Allocator()
	if t.timesBuf != nil {
		mem.Free(bytesOf(t.timesBuf))
	}
	for _, s := range t.vals {
		if s != nil {
			mem.Free(valueBytes(s.Values))
			mem.Free(bytesOf(s.Valid))
		}
	}
	t.times, t.timesBuf, t.vals = nil, nil, nil
}

// timeBuf returns a buffer for n times: from the file's pool when pooled
// (recorded in t.timesBuf), else fresh.
func (f *File) timeBuf(t *task, n int64, pooled bool) []int64 {
	if !pooled || n == 0 {
		return make([]int64, n)
	}
	t.timesBuf = pooledSlice[int64](f.rf.Allocator(), int(n))
	return t.timesBuf
}

// exec runs one read step over a batch of tasks: one fetch of every chunk
// they need, then time decoded and filtered unit by unit, then (after
// trim, which may cut the surviving rows for offset and limit) the value
// columns of the surviving rows decoded unit-column by unit-column, on up
// to threads goroutines. Results are left in the tasks.
func (f *File) exec(ctx context.Context, ts []*task, o execOpts, st *Stats, trim func([]*task) []*task) error {
	units, err := f.fetchTasks(ctx, ts, o.cols, st, nil)
	if err != nil {
		return err
	}
	return f.decodeUnits(units, ts, o, st, trim)
}

// decodeUnits is exec after the fetch: the tasks ts of units, whose chunks
// are fetched, have their times decoded and filtered, then (after trim)
// their value columns decoded. A caller may fetch a step once and decode
// its units a few at a time (Aggregate), consuming each part before the
// next.
func (f *File) decodeUnits(units []*unitData, ts []*task, o execOpts, st *Stats, trim func([]*task) []*task) error {
	threads := max(1, o.threads)
	parallel(len(units), threads, func(i int) {
		ud := units[i]
		start := time.Now()
		for _, t := range ud.tasks {
			if ud.err = f.filterTime(t, o.tr, o.wantTime || o.eager, o.eager, o.pooled && !o.eager, &ud.st); ud.err != nil {
				break
			}
		}
		if rd := ud.reader(f.t.time); rd != nil {
			rd.release()
		}
		ud.st.Decode += time.Since(start)
	})
	for _, ud := range units {
		if ud.err != nil {
			return ud.err
		}
	}
	live := ts
	if trim != nil {
		live = trim(ts)
	}
	if o.eager {
		live = ts // values of every row read are decoded, survivors or not
	}
	ncols := len(f.t.roles)
	for _, t := range live {
		t.vals = make([]*shred.Stream, ncols)
	}
	type job struct {
		ud  *unitData
		c   int
		st  Stats
		err error
	}
	jobs := make([]job, 0, len(units)*(len(o.cols)-1))
	for _, ud := range units {
		for _, c := range o.cols[1:] {
			jobs = append(jobs, job{ud: ud, c: c})
		}
	}
	// Each job owns one unit-column: it writes its column's slot of the
	// tasks' vals, so jobs share no state.
	parallel(len(jobs), threads, func(i int) {
		j := &jobs[i]
		start := time.Now()
		for _, t := range j.ud.tasks {
			if t.vals == nil || (!o.eager && t.hi <= t.lo) {
				continue
			}
			var s *shred.Stream
			if s, j.err = f.decodeColumn(t, j.c, o.eager, o.pooled && !o.eager, &j.st); j.err != nil {
				break
			}
			t.vals[j.c] = s
		}
		j.ud.reader(j.c).release()
		j.st.Decode = time.Since(start)
	})
	var jobErr error
	for i := range jobs {
		st.add(&jobs[i].st)
		if jobs[i].err != nil && jobErr == nil {
			jobErr = jobs[i].err
		}
	}
	for _, ud := range units {
		st.add(&ud.st)
		ud.st = Stats{}
	}
	return jobErr
}

// parallel runs fn(0..n-1) on up to threads goroutines.
func parallel(n, threads int, fn func(i int)) {
	if threads <= 1 || n <= 1 {
		for i := 0; i < n; i++ {
			fn(i)
		}
		return
	}
	var wg sync.WaitGroup
	var next int64
	var mu sync.Mutex
	for g := 0; g < min(threads, n); g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				i := int(next)
				next++
				mu.Unlock()
				if i >= n {
					return
				}
				fn(i)
			}
		}()
	}
	wg.Wait()
}

// stepMem is the memory of a read step's units and their column readers,
// which a window read (thousands of units a call) takes from its File and
// gives back: as fresh memory each call it was megabytes of page faults.
type stepMem struct {
	store   []unitData
	readers []colReader
	jobs    []winJob
	// a window read's plan (planWindows)
	units  []winUnit
	flat   []unitPiece
	pieces []winPiece
	uptrs  []*winUnit
}

// maxStepMem bounds the bytes of step memory a File keeps between reads.
const maxStepMem = 16 << 20

// takeStepMem returns the File's step memory, or a new one when another
// read holds it.
func (f *File) takeStepMem() *stepMem {
	f.memMu.Lock()
	m := f.mem
	f.mem = nil
	f.memMu.Unlock()
	if m == nil {
		m = &stepMem{}
	}
	return m
}

// putStepMem gives step memory back, cleared of the pointers it holds, if
// it is small enough to keep. No unit or reader of the step may be used
// after.
func (f *File) putStepMem(m *stepMem) {
	size := cap(m.store)*int(unsafe.Sizeof(unitData{})) + cap(m.readers)*int(unsafe.Sizeof(colReader{})) +
		cap(m.jobs)*int(unsafe.Sizeof(winJob{})) + cap(m.units)*int(unsafe.Sizeof(winUnit{})) +
		cap(m.flat)*int(unsafe.Sizeof(unitPiece{})) + cap(m.pieces)*int(unsafe.Sizeof(winPiece{})) +
		cap(m.uptrs)*int(unsafe.Sizeof((*winUnit)(nil)))
	if size > maxStepMem {
		return
	}
	clear(m.store[:cap(m.store)])
	clear(m.readers[:cap(m.readers)])
	clear(m.jobs[:cap(m.jobs)])
	clear(m.units[:cap(m.units)])
	clear(m.uptrs[:cap(m.uptrs)])
	f.memMu.Lock()
	f.mem = m
	f.memMu.Unlock()
}

// fetchTasks reads, in one step, the chunks of cols of every unit the
// tasks touch (once per unit), and checks and unframes them. The units
// and readers are carved from mem when it is not nil (the caller gives it
// back once done with them), else from fresh memory.
func (f *File) fetchTasks(ctx context.Context, ts []*task, cols []int, st *Stats, mem *stepMem) ([]*unitData, error) {
	// the units' data and their readers are carved from one slice each: a
	// window read touches thousands of units, and an object apiece was a
	// tenth of its time
	byUnit := make(map[int]*unitData, len(ts))
	var units []*unitData
	if mem == nil {
		mem = &stepMem{}
	}
	if cap(mem.store) < len(ts) {
		mem.store = make([]unitData, 0, len(ts))
	}
	store := mem.store[:0]
	for _, t := range ts {
		ud := byUnit[t.uo]
		if ud == nil {
			store = append(store, unitData{uo: t.uo, u: t.u}) // never grows: len(ts) is an upper bound
			ud = &store[len(store)-1]
			byUnit[t.uo] = ud
			units = append(units, ud)
		}
		ud.tasks = append(ud.tasks, t)
		t.ud = ud
	}
	var ranges []iox.Range
	type ref struct {
		ud   *unitData
		c, k int
	}
	var refs []ref
	// Every unit's readers sit in one slice in cols order, found by column
	// through one table for the step: a unit costs one allocation for its
	// readers however wide the table is.
	at := make([]int32, len(f.stypes))
	for c := range at {
		at[c] = -1
	}
	for i, c := range cols {
		at[c] = int32(i)
	}
	if cap(mem.readers) < len(units)*len(cols) {
		mem.readers = make([]colReader, len(units)*len(cols))
	}
	readers := mem.readers[:len(units)*len(cols)]
	for ui, ud := range units {
		st.UnitsRead++
		ud.readers, ud.at = readers[ui*len(cols):(ui+1)*len(cols):(ui+1)*len(cols)], at
		for i, c := range cols {
			cl := &ud.u.cols[c]
			rd := &ud.readers[i]
			f.initColReader(rd, ud, c)
			off := cl.off
			for k, s := range cl.sizes {
				if e := f.decs.get(off); e != nil {
					rd.ents[k] = e
					st.DecoderHits++
				} else {
					ranges = append(ranges, iox.Range{Off: off, Len: s})
					refs = append(refs, ref{ud, c, k})
				}
				st.ChunkReads++
				off += s
			}
		}
	}
	if len(ranges) == 0 {
		return units, nil
	}
	bufs, err := f.fetchRanges(ctx, ranges, st)
	if err != nil {
		return nil, err
	}
	for i, raw := range bufs {
		rf := refs[i]
		p, err := f.fc.DecodeChunkAt(rf.ud.u.stripe, f.streamOf(rf.c), -1, raw)
		if err != nil {
			// (the unit's own chunk number: the stripe's is not known here)
			return nil, fmt.Errorf("timeseries: unit %d, column %q, chunk %d of the unit: %w", rf.ud.uo, f.t.sch.Field(rf.c).Name, rf.k, err)
		}
		rf.ud.reader(rf.c).pay[rf.k] = p
	}
	return units, nil
}

// streamOf returns the values stream of a column.
func (f *File) streamOf(c int) int { return f.streams[c] }

// fetchRanges reads ranges (deduplicated, coalesced) and counts the
// bytes and reads in st.
func (f *File) fetchRanges(ctx context.Context, ranges []iox.Range, st *Stats) ([][]byte, error) {
	uniq := map[iox.Range]int{}
	var want []iox.Range
	idx := make([]int, len(ranges))
	for i, r := range ranges {
		j, ok := uniq[r]
		if !ok {
			j = len(want)
			uniq[r] = j
			want = append(want, r)
		}
		idx[i] = j
	}
	for _, r := range f.fetch.Plan(want) {
		n, b := f.fetch.Cost(r) // what goes to the source: not the tail opening read
		st.BytesRead += b
		st.Reads += int(n)
	}
	bufs, err := f.fetch.Fetch(ctx, want)
	if err != nil {
		return nil, fmt.Errorf("timeseries: %w", err)
	}
	out := make([][]byte, len(ranges))
	for i, j := range idx {
		out[i] = bufs[j]
	}
	return out, nil
}

// colReader reads rows of one column of a unit across its chunks. It is
// used by one goroutine at a time; count is where it adds the values it
// decodes.
type colReader struct {
	f      *File
	cl     *colLoc
	pay    [][]byte    // payloads read for this step (nil where cached)
	ents   []*decEntry // decoders, from the cache or opened here
	locked []bool      // entries whose mutex this reader holds
	spanHi []int64     // per chunk, end of the span readOn decoded (-1: not used yet)
	typ    encoding.Type
	count  *int64
	// The slices' storage for a column of one chunk in the unit (the
	// usual case): readers are made per unit and column of every query
	// and window read, and then need no allocation of their own.
	pay1    [1][]byte
	ent1    [1]*decEntry
	locked1 [1]bool
	spanHi1 [1]int64
}

// reader returns the reader of column c, nil when the step reads none.
func (ud *unitData) reader(c int) *colReader {
	if c >= 0 && c < len(ud.at) {
		if i := ud.at[c]; i >= 0 {
			return &ud.readers[i]
		}
	}
	return nil
}

// initColReader sets r up to read column c of the unit ud.
func (f *File) initColReader(r *colReader, ud *unitData, c int) {
	n := len(ud.u.cols[c].sizes)
	*r = colReader{f: f, cl: &ud.u.cols[c], typ: f.stypes[c]}
	if n == 1 {
		r.pay, r.ents, r.locked = r.pay1[:], r.ent1[:], r.locked1[:]
	} else {
		r.pay, r.ents, r.locked = make([][]byte, n), make([]*decEntry, n), make([]bool, n)
	}
}

// release unlocks the decoders this reader holds.
func (r *colReader) release() {
	for k, l := range r.locked {
		if l {
			r.ents[k].mu.Unlock()
			r.locked[k] = false
		}
	}
}

// chunkOff returns the file offset of chunk k.
func (r *colReader) chunkOff(k int) int64 {
	o := r.cl.off
	for _, s := range r.cl.sizes[:k] {
		o += s
	}
	return o
}

// chunk returns the decoder of chunk k, opened on first use.
func (r *colReader) chunk(k int) (encoding.Decoder, error) {
	if e := r.ents[k]; e != nil {
		if !r.locked[k] {
			e.mu.Lock()
			r.locked[k] = true
		}
		return e.dec, nil
	}
	if r.pay[k] == nil {
		return nil, fmt.Errorf("timeseries: chunk %d not read", k)
	}
	d, err := encoding.Open(r.pay[k], r.f.dec)
	if err != nil {
		return nil, err
	}
	if int64(d.Len()) != r.cl.rows[k] {
		return nil, encoding.Corruptf("chunk holds %d rows, index says %d", d.Len(), r.cl.rows[k])
	}
	r.ents[k] = r.f.decs.put(r.chunkOff(k), d, decoderCost(r.pay[k], d))
	r.locked[k] = true
	r.pay[k] = nil
	return d, nil
}

// decoderCost estimates the memory an opened decoder holds: its payload,
// what it inflated or decoded up front (a dictionary's alphabet), and
// scratch buffers of a block or two.
func decoderCost(payload []byte, d encoding.Decoder) int64 {
	return 3*int64(len(payload)) + 1024
}

// read decodes rows [x, y) into vals[at:] (and valid, when not nil).
func (r *colReader) read(x, y int64, vals any, valid []bool, at int) error {
	var base int64
	for k, n := range r.cl.rows {
		lo, hi := max(x, base), min(y, base+n)
		if lo < hi {
			d, err := r.chunk(k)
			if err != nil {
				return err
			}
			d.Reset()
			if lo > base {
				if err := d.Skip(int(lo - base)); err != nil {
					return err
				}
			}
			m := int(hi - lo)
			if err := readSpan(d, vals, at, m, valid); err != nil {
				return err
			}
			*r.count += decodedRows(d, lo-base, hi-base)
			at += m
		}
		base += n
	}
	return nil
}

// filterTime finds the rows of t that fall in tr and decodes their times
// when they are returned (or all of [a, b) in eager mode).
func (f *File) filterTime(t *task, tr TimeRange, want, eager, pooled bool, st *Stats) error {
	rd := t.ud.reader(f.t.time)
	before := st.TimeDecoded
	rd.count = &st.TimeDecoded
	defer func() { st.ValuesDecoded += st.TimeDecoded - before }()
	st.RowsScanned += t.b - t.a
	if eager || t.settled || len(rd.cl.sizes) != 1 {
		// every row of [a, b) is decoded (or settled from the unit's range)
		if t.settled && !eager {
			t.lo, t.hi = t.a, t.b
			if d, err := rd.chunk(0); err == nil {
				if bb, ok := d.(encoding.BlockBounder[int64]); ok {
					n := blocksIn(bb, t.a, t.b)
					st.BlocksTotal += n
					st.BlocksAllMatch += n
				}
			}
			if want {
				t.times = f.timeBuf(t, t.hi-t.lo, pooled)
				return rd.read(t.lo, t.hi, t.times, nil, 0)
			}
			return nil
		}
		all := f.timeBuf(t, t.b-t.a, pooled)
		if err := rd.read(t.a, t.b, all, nil, 0); err != nil {
			return fmt.Errorf("timeseries: unit %d, time: %w", t.uo, err)
		}
		lo, hi := tr.span(all)
		t.lo, t.hi = t.a+int64(lo), t.a+int64(hi)
		t.times = all[lo:hi]
		return nil
	}
	d, err := rd.chunk(0)
	if err != nil {
		return fmt.Errorf("timeseries: unit %d, time: %w", t.uo, err)
	}
	bb, ok := d.(encoding.BlockBounder[int64])
	r, isR := d.(encoding.Reader[int64])
	if !isR {
		return fmt.Errorf("timeseries: unit %d: time chunk holds %v: %w", t.uo, d.Type(), encoding.ErrCorrupt)
	}
	var lo, hi int64
	if !ok {
		all := make([]int64, t.b-t.a)
		if err := rd.read(t.a, t.b, all, nil, 0); err != nil {
			return err
		}
		l, h := tr.span(all)
		lo, hi = t.a+int64(l), t.a+int64(h)
	} else {
		// Settle blocks from their headers; decode only the (at most two)
		// blocks where the range starts and ends.
		var buf []int64
		decoded := map[int]bool{}
		bound := func(x int64) (int64, error) { // first row in [a, b) with time >= x
			for b := 0; b < bb.Blocks(); b++ {
				first, rows, _, bhi := bb.BlockBounds(b)
				s, e := max(int64(first), t.a), min(int64(first+rows), t.b)
				if s >= e {
					continue
				}
				if bhi < x {
					continue
				}
				_, _, blo, _ := bb.BlockBounds(b)
				if blo >= x {
					return s, nil
				}
				if !decoded[b] {
					decoded[b] = true
					st.BlocksDecoded++
				}
				if cap(buf) < int(e-s) {
					buf = make([]int64, e-s)
				}
				v := buf[:e-s]
				d.Reset()
				if err := d.Skip(int(s)); err != nil {
					return 0, err
				}
				if err := r.Read(v); err != nil {
					return 0, err
				}
				st.TimeDecoded += decodedRows(d, s, e)
				// A block shared with a neighbouring series has bounds
				// that may come from the neighbour's rows: when none of
				// this series' rows reach x, the next block decides.
				if i := sort.Search(len(v), func(i int) bool { return v[i] >= x }); i < len(v) {
					return s + int64(i), nil
				}
			}
			return t.b, nil
		}
		if lo, err = bound(tr.From); err != nil {
			return fmt.Errorf("timeseries: unit %d, time: %w", t.uo, err)
		}
		hi = t.b // an open range keeps the rows at math.MaxInt64
		if tr.To != math.MaxInt64 {
			if hi, err = bound(tr.To); err != nil {
				return fmt.Errorf("timeseries: unit %d, time: %w", t.uo, err)
			}
		}
		hi = max(lo, hi)
		// Account for every block of [a, b).
		for b := 0; b < bb.Blocks(); b++ {
			first, rows, _, _ := bb.BlockBounds(b)
			s, e := max(int64(first), t.a), min(int64(first+rows), t.b)
			if s >= e {
				continue
			}
			st.BlocksTotal++
			switch {
			case decoded[b]:
			case e <= lo || s >= hi:
				st.BlocksSkipped++
			default:
				st.BlocksAllMatch++
			}
		}
	}
	t.lo, t.hi = lo, hi
	if want && hi > lo {
		// Decoded again for the output: the boundary blocks count twice,
		// which keeps the figure an upper bound.
		t.times = f.timeBuf(t, hi-lo, pooled)
		if err := rd.read(lo, hi, t.times, nil, 0); err != nil {
			return fmt.Errorf("timeseries: unit %d, time: %w", t.uo, err)
		}
	}
	return nil
}

func blocksIn(bb encoding.BlockBounder[int64], a, b int64) int {
	n := 0
	for i := 0; i < bb.Blocks(); i++ {
		first, rows, _, _ := bb.BlockBounds(i)
		if int64(first) < b && int64(first+rows) > a {
			n++
		}
	}
	return n
}

// decodeColumn decodes column c over the surviving rows of t (in eager
// mode over every row of [a, b), then cut to the survivors).
func (f *File) decodeColumn(t *task, c int, eager, pooled bool, st *Stats) (*shred.Stream, error) {
	var count int64
	rd := t.ud.reader(c)
	rd.count = &count
	x, y := t.lo+t.skip, t.hi
	if eager {
		x, y = t.a, t.b
	}
	n := int(y - x)
	var mem memory.Allocator
	if pooled {
		mem = f.rf.Allocator() // every value and validity is written by the read
	}
	vals, _, err := windowValues(mem, rd.typ, n)
	if err != nil {
		return nil, err
	}
	var valid []bool
	if f.t.sch.Field(c).Nullable {
		if pooled && n > 0 {
			valid = pooledSlice[bool](mem, n)
		} else {
			valid = make([]bool, n)
		}
	}
	if err := rd.read(x, y, vals, valid, 0); err != nil {
		if pooled {
			mem.Free(valueBytes(vals))
			mem.Free(bytesOf(valid))
		}
		return nil, fmt.Errorf("timeseries: unit %d, column %q: %w", t.uo, f.t.sch.Field(c).Name, err)
	}
	st.ValuesDecoded += count
	if eager {
		lo, hi := int(t.lo+t.skip-t.a), int(t.hi-t.a)
		vals = sliceValues(vals, lo, hi)
		if valid != nil {
			valid = valid[lo:hi]
		}
		n = hi - lo
	}
	return &shred.Stream{ID: f.streamOf(c), Type: rd.typ, Values: vals, Valid: valid, Len: n}, nil
}

// decodedRows returns the values a decoder decodes to deliver rows
// [x, y) of a chunk from a fresh cursor (encoding.DecodeSpan): y-x, plus
// the rows before x it passes to reach them (block encodings decode from
// their block start; a decoder that does not say counts from the chunk
// start) and those after y a block decoded whole runs on to.
func decodedRows(d encoding.Decoder, x, y int64) int64 {
	lo, hi := encoding.DecodeSpan(d, int(x), int(y))
	return int64(hi - lo)
}

// sliceValues returns values [i, j) of a buffer.
func sliceValues(vals any, i, j int) any {
	switch v := vals.(type) {
	case []bool:
		return v[i:j]
	case []int8:
		return v[i:j]
	case []int16:
		return v[i:j]
	case []int32:
		return v[i:j]
	case []int64:
		return v[i:j]
	case []uint8:
		return v[i:j]
	case []uint16:
		return v[i:j]
	case []uint32:
		return v[i:j]
	case []uint64:
		return v[i:j]
	case []float32:
		return v[i:j]
	case []float64:
		return v[i:j]
	case *encoding.Bytes:
		b := v.Slice(i, j)
		return &b
	}
	return vals
}

// readSpan reads the next m values of d into vals from position at. Rows
// of a decoder without a null layer of its own (not Nullable) are all
// marked valid.
func readSpan(d encoding.Decoder, vals any, at, m int, valid []bool) error {
	nullable := d.Kind() == encoding.KindNullable
	if err := encoding.ReadPart(d, vals, at, m, valid, nullable); err != nil {
		return err
	}
	if valid != nil && !nullable {
		for i := at; i < at+m; i++ {
			valid[i] = true
		}
	}
	return nil
}
