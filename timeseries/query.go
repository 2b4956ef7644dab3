package timeseries

import (
	"context"
	"fmt"
	"io"
	"math"
	"sort"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata/encoding"
	"strata/encoding/all"
	"strata/read"
	"strata/shred"
)

func readDecodeOptions() *encoding.Options { return all.Options() }

// TimeRange is the half-open interval [From, To) of time values, in the
// time column's unit. To == math.MaxInt64 leaves the range open above, so
// that a time of math.MaxInt64 itself is in it (no To could include it
// otherwise).
type TimeRange struct{ From, To int64 }

// AllTime covers every time value.
var AllTime = TimeRange{math.MinInt64, math.MaxInt64}

// before reports whether time t lies before the range's end.
func (r TimeRange) before(t int64) bool { return t < r.To || r.To == math.MaxInt64 }

// overlaps reports whether values in [lo, hi] may fall in r.
func (r TimeRange) overlaps(lo, hi int64) bool { return hi >= r.From && r.before(lo) }

// covers reports whether every value in [lo, hi] falls in r.
func (r TimeRange) covers(lo, hi int64) bool { return lo >= r.From && r.before(hi) }

// span returns the rows [lo, hi) of sorted times that fall in r.
func (r TimeRange) span(times []int64) (lo, hi int) {
	lo = sort.Search(len(times), func(i int) bool { return times[i] >= r.From })
	hi = lo + sort.Search(len(times)-lo, func(i int) bool { return !r.before(times[lo+i]) })
	return lo, hi
}

// QueryOptions select what a query returns.
type QueryOptions struct {
	// Series picks the series (all when empty).
	Series Selector
	// Time restricts rows to a time range (all when nil).
	Time *TimeRange
	// Columns are the columns returned, in the order given (all when
	// empty). Key columns cost nothing to return: their values come from
	// the directory.
	Columns []string
	// Offset skips this many rows of the result; Limit caps the rows
	// returned (0: no limit); neither may be negative
	// (read.ErrInvalidArgument). Rows are counted from the index where the
	// time filter settles a unit whole, without decoding.
	Offset, Limit int64
	// Threads decode columns in parallel after each read step (default:
	// the file's Options.Threads).
	Threads int
	// Eager turns late materialization off: value columns are decoded for
	// every row of the units read, then filtered by time (seed experiment
	// C's baseline).
	Eager bool
}

// Stats count what a read did at each level of filtering.
type Stats struct {
	SeriesMatched       int
	SeriesRejectedBloom int // lookups the bloom filter answered alone
	IndexPages          int // index pages read from the file (those in the tail opening read cost no read)
	IndexPageHits       int // index pages served by the metadata cache
	IndexBytes          int64
	UnitsTotal          int // units holding rows of the matched series
	UnitsPrunedTime     int // units whose time range missed the query
	UnitsRead           int
	BlocksTotal         int // time blocks of the rows of the units read
	BlocksSkipped       int // settled from their headers: no row matches
	BlocksAllMatch      int // settled from their headers: every row matches
	BlocksDecoded       int // decoded to find where the time range starts or ends
	RowsScanned         int64
	RowsReturned        int64
	ValuesReturned      int64 // rows returned × decoded columns (time and values)
	ValuesDecoded       int64 // values the decoders produced, time and values
	TimeDecoded         int64 // of which the time column
	BytesRead           int64 // data bytes read (chunks, coalescing holes included)
	ChunkBytes          int64 // bytes of the chunks holding the returned rows
	Reads               int
	ChunkReads          int           // column chunks the read needed
	DecoderHits         int           // of which served opened by the decoder cache
	Decode              time.Duration // time spent decoding (all threads)
}

// Amplification is values decoded per value returned (read amplification).
func (s *Stats) Amplification() float64 {
	if s.ValuesReturned == 0 {
		return 0
	}
	return float64(s.ValuesDecoded) / float64(s.ValuesReturned)
}

func (s *Stats) add(o *Stats) {
	s.SeriesMatched += o.SeriesMatched
	s.SeriesRejectedBloom += o.SeriesRejectedBloom
	s.IndexPages += o.IndexPages
	s.IndexPageHits += o.IndexPageHits
	s.IndexBytes += o.IndexBytes
	s.UnitsTotal += o.UnitsTotal
	s.UnitsPrunedTime += o.UnitsPrunedTime
	s.UnitsRead += o.UnitsRead
	s.BlocksTotal += o.BlocksTotal
	s.BlocksSkipped += o.BlocksSkipped
	s.BlocksAllMatch += o.BlocksAllMatch
	s.BlocksDecoded += o.BlocksDecoded
	s.RowsScanned += o.RowsScanned
	s.RowsReturned += o.RowsReturned
	s.ValuesReturned += o.ValuesReturned
	s.ValuesDecoded += o.ValuesDecoded
	s.TimeDecoded += o.TimeDecoded
	s.BytesRead += o.BytesRead
	s.ChunkBytes += o.ChunkBytes
	s.Reads += o.Reads
	s.ChunkReads += o.ChunkReads
	s.DecoderHits += o.DecoderHits
	s.Decode += o.Decode
}

func (s *Stats) String() string {
	return fmt.Sprintf("series %d (bloom rejected %d); index pages read %d (%d bytes), cached %d; "+
		"units %d (pruned by time %d, read %d); time blocks %d (skipped %d, all-match %d, decoded %d); "+
		"rows scanned %d, returned %d; values decoded %d (time %d), returned %d, amplification %.2f; "+
		"bytes read %d in %d reads, answer chunks %d bytes; chunks %d (decoders cached %d); decode %v",
		s.SeriesMatched, s.SeriesRejectedBloom, s.IndexPages, s.IndexBytes, s.IndexPageHits,
		s.UnitsTotal, s.UnitsPrunedTime, s.UnitsRead, s.BlocksTotal, s.BlocksSkipped, s.BlocksAllMatch, s.BlocksDecoded,
		s.RowsScanned, s.RowsReturned, s.ValuesDecoded, s.TimeDecoded, s.ValuesReturned, s.Amplification(),
		s.BytesRead, s.Reads, s.ChunkBytes, s.ChunkReads, s.DecoderHits, s.Decode.Round(time.Microsecond))
}

// projection is the resolved column list of a read.
type projection struct {
	cols     []int // schema columns, output order
	decoded  []int // columns read from chunks (time and measurements), schema order, time first
	wantTime bool  // the time column is returned
	fields   []arrow.Field
	sch      *arrow.Schema
}

func (f *File) project(names []string) (*projection, error) {
	p := &projection{}
	if len(names) == 0 {
		for i := range f.t.roles {
			p.cols = append(p.cols, i)
		}
	} else {
		for _, n := range names {
			is := f.t.sch.FieldIndices(n)
			if len(is) == 0 {
				return nil, fmt.Errorf("timeseries: %w %q", read.ErrUnknownColumn, n)
			}
			p.cols = append(p.cols, is[0])
		}
	}
	seen := map[int]bool{}
	for _, c := range p.cols {
		p.fields = append(p.fields, f.t.sch.Field(c))
		if f.t.roles[c] == roleTime {
			p.wantTime = true
		}
		if f.t.roles[c] == roleMeasure && !seen[c] {
			seen[c] = true
			p.decoded = append(p.decoded, c)
		}
	}
	sort.Ints(p.decoded)
	p.decoded = append([]int{f.t.time}, p.decoded...)
	p.sch = arrow.NewSchema(p.fields, nil)
	return p, nil
}

// task is the rows [a, b) of one series within one unit.
type task struct {
	e    *seriesEntry
	uo   int
	u    *unitRec
	a, b int64 // unit-relative rows of the series
	// settled: no row filtered out by time (counts known from the index)
	settled bool
	// results
	ud    *unitData
	lo    int64 // surviving rows [lo, hi), unit-relative
	hi    int64
	times []int64         // time values of [lo, hi), when returned
	vals  []*shred.Stream // decoded columns, by schema column
	skip  int64           // rows dropped from the front for Offset
	// timesBuf is the pooled buffer times lies in (execOpts.pooled).
	timesBuf []int64
}

// unitData is what a read step holds of one unit: its chunk payloads and,
// per column, a reader whose decoders the unit's tasks share (one
// goroutine at a time).
type unitData struct {
	uo      int
	u       *unitRec
	readers []colReader // the step's columns, in the order it reads them
	at      []int32     // column → index in readers, -1 where none (one table per step)
	tasks   []*task
	st      Stats
	err     error
}

// plan lists the tasks of a query in output order, pruning units by the
// time range. Offset and limit are applied here while the time range
// settles units whole, so their counts come from the index without
// decoding; it returns the part of offset still to skip.
func (f *File) plan(ctx context.Context, es []*seriesEntry, tr TimeRange, offset, limit int64, st *Stats) ([]*task, int64, error) {
	var out []*task
	skip, left := offset, limit
	if left <= 0 {
		left = -1
	}
	counting, frozen := true, false
	for _, e := range es {
		if !tr.overlaps(e.tmin, e.tmax) {
			st.UnitsTotal += e.c1 - e.c0
			st.UnitsPrunedTime += e.c1 - e.c0
			continue
		}
		for uo := e.c0; uo < e.c1; uo++ {
			st.UnitsTotal++
			u, err := f.unit(ctx, uo, st)
			if err != nil {
				return nil, 0, err
			}
			start := f.stripe[u.stripe] + u.row
			a := max(e.firstRow, start) - start
			b := min(e.firstRow+e.rows, start+u.rows) - start
			if a >= b {
				return nil, 0, fmt.Errorf("timeseries: series %d does not overlap its unit %d: %w", e.ord, uo, encoding.ErrCorrupt)
			}
			if !tr.overlaps(u.tmin, u.tmax) {
				st.UnitsPrunedTime++
				continue
			}
			t := &task{e: e, uo: uo, u: u, a: a, b: b, settled: tr.covers(u.tmin, u.tmax)}
			if counting && t.settled {
				n := b - a
				if !frozen && skip >= n {
					skip -= n // skipped from the index counts alone
					continue
				}
				out = append(out, t)
				if !frozen {
					n -= skip // the runtime skips these rows of this first unit
					frozen = true
				}
				if left >= 0 {
					if n >= left {
						return out, skip, nil
					}
					left -= n
				}
				continue
			}
			// counts beyond this unit are known only once its time is decoded
			counting, frozen = false, true
			out = append(out, t)
		}
	}
	return out, skip, nil
}

// Rows iterates the record batches of a query: one per series and unit
// with surviving rows.
type Rows struct {
	ctx     context.Context
	f       *File
	opts    QueryOptions
	proj    *projection
	tr      TimeRange
	tasks   []*task
	next    int
	out     []arrow.Record
	skip    int64
	left    int64
	st      Stats
	err     error
	closed  bool
	counted map[int]bool
}

// Query runs a time-range query. Series are located through the index
// (bloom filter, then the directory), units pruned by their time range,
// the bytes of the remaining units' time and projected columns read in one
// step per batch, time decoded and filtered first — whole DeltaOfDelta
// blocks settled from their headers — and value columns decoded only for
// the rows that survive.
func (f *File) Query(ctx context.Context, opts QueryOptions) (*Rows, error) {
	if err := f.open("Query"); err != nil {
		return nil, err
	}
	if opts.Offset < 0 || opts.Limit < 0 {
		return nil, fmt.Errorf("timeseries: query with offset %d and limit %d: %w (neither may be negative)", opts.Offset, opts.Limit, read.ErrInvalidArgument)
	}
	proj, err := f.project(opts.Columns)
	if err != nil {
		return nil, err
	}
	r := &Rows{ctx: ctx, f: f, opts: opts, proj: proj, tr: AllTime, skip: opts.Offset, left: opts.Limit}
	if opts.Time != nil {
		r.tr = *opts.Time
	}
	if r.left <= 0 {
		r.left = -1
	}
	if opts.Threads <= 0 {
		r.opts.Threads = f.opts.Threads
	}
	es, err := f.selectEntries(ctx, opts.Series, &r.st)
	if err != nil {
		return nil, err
	}
	r.st.SeriesMatched = len(es)
	if r.tasks, r.skip, err = f.plan(ctx, es, r.tr, opts.Offset, opts.Limit, &r.st); err != nil {
		return nil, err
	}
	return r, nil
}

// Stats returns what the query has done so far.
func (r *Rows) Stats() Stats { return r.st }

// Schema returns the schema of the batches.
func (r *Rows) Schema() *arrow.Schema { return r.proj.sch }

// Close ends the query, releasing batches not yet returned.
func (r *Rows) Close() {
	r.closed = true
	for _, rec := range r.out {
		rec.Release()
	}
	r.out = nil
}

// batchBytes bounds the chunk bytes one read step fetches.
const batchBytes = 32 << 20

// Next returns the next batch, or io.EOF.
func (r *Rows) Next() (arrow.Record, error) {
	for len(r.out) == 0 {
		if r.err != nil {
			return nil, r.err
		}
		if r.closed || r.next >= len(r.tasks) || r.left == 0 {
			return nil, io.EOF
		}
		// one read step: tasks up to batchBytes of chunks
		lo := r.next
		var size int64
		for r.next < len(r.tasks) && (r.next == lo || size < batchBytes) {
			size += r.f.taskBytes(r.tasks[r.next], r.proj)
			r.next++
		}
		if err := r.run(r.tasks[lo:r.next]); err != nil {
			r.err = err
			return nil, err
		}
	}
	rec := r.out[0]
	r.out = r.out[1:]
	return rec, nil
}

func (f *File) taskBytes(t *task, p *projection) int64 {
	var n int64
	for _, c := range p.decoded {
		for _, s := range t.u.cols[c].sizes {
			n += s
		}
	}
	return n
}

// run reads and decodes a batch of tasks and turns them into records.
func (r *Rows) run(ts []*task) error {
	f, ctx := r.f, r.ctx
	o := execOpts{cols: r.proj.decoded, tr: r.tr, wantTime: r.proj.wantTime, eager: r.opts.Eager, threads: r.opts.Threads}
	err := f.exec(ctx, ts, o, &r.st, func(ts []*task) []*task {
		// Offset and limit, now that every count is known.
		var live []*task
		for _, t := range ts {
			n := t.hi - t.lo
			if r.skip >= n {
				r.skip -= n
				t.hi = t.lo
			} else {
				t.skip = r.skip
				r.skip = 0
				if r.left >= 0 && n-t.skip > r.left {
					t.hi = t.lo + t.skip + r.left
				}
				if r.left >= 0 {
					r.left -= t.hi - t.lo - t.skip
				}
			}
			if t.hi > t.lo {
				live = append(live, t)
			}
			if r.left == 0 {
				r.next = len(r.tasks)
			}
		}
		return live
	})
	if err != nil {
		return err
	}
	for _, t := range ts {
		if t.hi <= t.lo || t.vals == nil {
			continue
		}
		rec, err := f.assemble(t, r.proj)
		if err != nil {
			return err
		}
		r.st.RowsReturned += rec.NumRows()
		r.st.ValuesReturned += rec.NumRows() * int64(len(r.proj.decoded)-boolToInt(!r.proj.wantTime))
		r.countChunks(t)
		r.out = append(r.out, rec)
		t.ud, t.vals, t.times = nil, nil, nil
	}
	return nil
}

// countChunks adds the bytes of a unit's chunks of the decoded columns to
// ChunkBytes once per unit.
func (r *Rows) countChunks(t *task) {
	if r.counted == nil {
		r.counted = map[int]bool{}
	}
	if r.counted[t.uo] {
		return
	}
	r.counted[t.uo] = true
	for _, c := range r.proj.decoded {
		for _, s := range t.u.cols[c].sizes {
			r.st.ChunkBytes += s
		}
	}
}

func boolToInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// assemble builds the record of a task.
func (f *File) assemble(t *task, p *projection) (arrow.Record, error) {
	n := int(t.hi - t.lo - t.skip)
	mem := memory.DefaultAllocator
	ssch := f.rf.StrataSchema()
	arrs := make([]arrow.Array, len(p.cols))
	defer func() {
		for _, a := range arrs {
			if a != nil {
				a.Release()
			}
		}
	}()
	for i, c := range p.cols {
		var err error
		switch f.t.roles[c] {
		case roleKey:
			arrs[i], err = f.keyArray(c, t.e.key, n)
		case roleTime:
			times := t.times
			if int64(len(times)) >= t.skip+int64(n) {
				times = times[t.skip : t.skip+int64(n)]
			}
			if len(times) != n {
				return nil, fmt.Errorf("timeseries: %d times for %d rows", len(times), n)
			}
			arrs[i], err = shred.AssembleLeaf(ssch, c, n, &shred.Stream{ID: f.streamOf(c), Type: encoding.Int64, Values: times, Len: n}, mem)
		default:
			s := t.vals[c]
			if s == nil {
				return nil, fmt.Errorf("timeseries: column %q not decoded", f.t.sch.Field(c).Name)
			}
			arrs[i], err = shred.AssembleLeaf(ssch, c, n, s, mem)
		}
		if err != nil {
			return nil, fmt.Errorf("timeseries: column %q: %w", f.t.sch.Field(c).Name, err)
		}
	}
	return array.NewRecord(p.sch, arrs, int64(n)), nil
}

// keyArray builds a column of n copies of a key value.
func (f *File) keyArray(c int, key Key, n int) (arrow.Array, error) {
	ki := indexOf(f.t.keyNames(), f.t.sch.Field(c).Name)
	v := key[ki]
	b := array.NewBuilder(memory.DefaultAllocator, f.t.sch.Field(c).Type)
	defer b.Release()
	b.Reserve(n)
	switch bb := b.(type) {
	case *array.StringBuilder:
		bb.ReserveData(n * len(v))
		for range n {
			bb.Append(v)
		}
	case *array.BinaryBuilder:
		for range n {
			bb.Append([]byte(v))
		}
	default:
		txt := f.t.render(ki, v)
		for range n {
			if err := b.AppendValueFromString(txt); err != nil {
				return nil, err
			}
		}
	}
	return b.NewArray(), nil
}
