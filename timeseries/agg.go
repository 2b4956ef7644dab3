package timeseries

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata/encoding"
	"strata/read"
	"strata/shred"
)

// AggOptions describe a time-bucket aggregate (downsampling).
type AggOptions struct {
	// Series picks the series (all when empty).
	Series Selector
	// Time restricts rows to a range (all when nil).
	Time *TimeRange
	// Every is the bucket width in the time column's unit; buckets start at
	// multiples of it (0: one bucket per series; negative: refused). The
	// bucket holding math.MinInt64 is reported as starting there when its
	// multiple lies below.
	Every int64
	// Columns are the numeric measurements aggregated (default: all).
	Columns []string
	// Funcs are among count, min, max, sum, avg, first, last (default:
	// count, min, max, avg). count counts non-null values. min and max
	// order NaN above every number, as strata agg and DuckDB do: max is NaN
	// when a bucket holds a NaN, min only when all its values are NaN; sum
	// and avg are NaN then. first and last are the non-null values of the
	// earliest and the latest time in the bucket (a bar's open and close);
	// which of several values of one time is taken is not defined. A unit
	// folded from its statistics reads them from its first and last rows
	// (where the column is null there, the unit is decoded whole).
	// Every result but count is a float64, summed in float64 as the
	// values come: integers beyond 2^53 and long sums lose their last
	// digits (the units' index statistics are float64 too). strata agg
	// (read.AggregateContext) sums integers exactly where that matters.
	Funcs []string
	// Keys are the key columns the result carries to name each series
	// (default: all of them).
	Keys []string
	// Threads decode in parallel (default: the file's Options.Threads).
	Threads int
	// NoStats decodes every row instead of answering buckets that cover
	// whole units from their statistics (for tests and experiments).
	NoStats bool
}

// AggStats extend Stats with what the aggregate answered without decoding.
type AggStats struct {
	Stats
	UnitsFromStats int // units folded from their statistics
	BlocksCounted  int // time blocks counted from their headers (count only)
}

// acc accumulates one column in one bucket.
type acc struct {
	count         int64
	min, max, sum float64
	// first and last are the values at times firstT and lastT, set (ends)
	// when the acc was folded from rows, not from a unit's statistics
	first, last   float64
	firstT, lastT int64
	ends          bool
}

// add adds value v of time t; values come in time order.
func (a *acc) add(v float64, t int64) {
	if a.count == 0 {
		a.min, a.max = v, v
		a.first, a.firstT, a.ends = v, t, true
	} else {
		a.min, a.max = minNaN(a.min, v), maxNaN(a.max, v)
	}
	a.last, a.lastT = v, t
	a.sum += v
	a.count++
}

// merge adds b, which holds rows stored after a's: of two ends of one
// time, first keeps a's and last takes b's.
func (a *acc) merge(b acc) {
	if b.count == 0 {
		return
	}
	if a.count == 0 {
		*a = b
		return
	}
	a.min, a.max = minNaN(a.min, b.min), maxNaN(a.max, b.max)
	a.sum += b.sum
	a.count += b.count
	if b.ends {
		if !a.ends || b.firstT < a.firstT {
			a.first, a.firstT = b.first, b.firstT
		}
		if !a.ends || b.lastT >= a.lastT {
			a.last, a.lastT = b.last, b.lastT
		}
		a.ends = true
	}
}

// minNaN and maxNaN order NaN above every number, as read's aggregates
// (strata agg) and DuckDB do: a NaN is the maximum whenever present and the
// minimum only of NaNs alone.
func minNaN(a, b float64) float64 {
	switch {
	case a != a:
		return b
	case b != b:
		return a
	}
	return math.Min(a, b)
}

func maxNaN(a, b float64) float64 {
	if a != a || b != b {
		return math.NaN()
	}
	return math.Max(a, b)
}

// bucket is one bucket of one series: its start and an accumulator per
// column.
type bucket struct {
	start int64
	accs  []acc
}

// bucketOf returns the start of the bucket holding t: the multiple of
// every at or below it, or math.MinInt64 for the one bucket whose multiple
// lies below math.MinInt64.
func bucketOf(t, every int64) int64 {
	if every <= 0 {
		return math.MinInt64
	}
	r := t % every
	if r < 0 {
		r += every
	}
	if uint64(t)+1<<63 < uint64(r) { // t - math.MinInt64 < r
		return math.MinInt64 // t - r would wrap
	}
	return t - r
}

// bucketEnd returns the end (exclusive) of the bucket holding t, or
// math.MaxInt64 for the bucket whose end lies beyond it (a time of
// math.MaxInt64 then starts a piece of its own, merged by appendBucket).
func bucketEnd(t, every int64) int64 {
	r := t % every
	if r < 0 {
		r += every
	}
	if uint64(math.MaxInt64)-uint64(t) < uint64(every-r) {
		return math.MaxInt64
	}
	return t + (every - r)
}

// appendBucket adds (start, accs) to a series' ordered buckets, merging it
// into the last one when they share a start. A new bucket keeps accs: the
// caller hands it over.
func appendBucket(bs []bucket, start int64, accs []acc) []bucket {
	if n := len(bs); n > 0 && bs[n-1].start == start {
		for i := range accs {
			bs[n-1].accs[i].merge(accs[i])
		}
		return bs
	}
	return append(bs, bucket{start: start, accs: accs})
}

// aggUnits is how many units of a read step an aggregate decodes and
// folds at a time: enough for every thread to have work, few enough that
// their decoded buffers stay small and are reused by the next units.
const aggUnits = 16

var aggFuncs = map[string]bool{"count": true, "min": true, "max": true, "sum": true, "avg": true, "first": true, "last": true}

// Aggregate computes count/min/max/sum/avg/first/last per series and time
// bucket. A unit whose rows all fall in one bucket (and in the time range)
// is folded from its statistics in the index without reading it; first
// and last then read the unit's first and last rows of each column, not
// its times or the rows between (unitEnds); a count-only
// aggregate counts whole DeltaOfDelta blocks from their headers; the rest
// is decoded, time first, values only for the rows in range.
func (f *File) Aggregate(ctx context.Context, o AggOptions) (arrow.Record, AggStats, error) {
	var st AggStats
	if err := f.open("Aggregate"); err != nil {
		return nil, st, err
	}
	if o.Every < 0 {
		return nil, st, fmt.Errorf("timeseries: buckets of %d: %w (want 0 or more)", o.Every, read.ErrInvalidArgument)
	}
	tr := AllTime
	if o.Time != nil {
		tr = *o.Time
	}
	if o.Threads <= 0 {
		o.Threads = f.opts.Threads
	}
	funcs := o.Funcs
	if len(funcs) == 0 {
		funcs = []string{"count", "min", "max", "avg"}
	}
	countOnly, ends := true, false
	for _, fn := range funcs {
		if !aggFuncs[fn] {
			return nil, st, fmt.Errorf("timeseries: unknown aggregate %q (want count, min, max, sum, avg, first, last): %w", fn, read.ErrInvalidArgument)
		}
		countOnly = countOnly && fn == "count"
		ends = ends || fn == "first" || fn == "last"
	}
	// columns and their index among the numeric measurements (statistics order)
	var cols, statIdx []int
	numIdx := map[int]int{}
	k := 0
	for j, c := range f.t.measures {
		if f.t.classes[j].numeric() {
			numIdx[c] = k
			k++
		}
	}
	if len(o.Columns) == 0 {
		for _, c := range f.t.measures {
			if i, ok := numIdx[c]; ok {
				cols, statIdx = append(cols, c), append(statIdx, i)
			}
		}
	} else {
		for _, n := range o.Columns {
			is := f.t.sch.FieldIndices(n)
			if len(is) == 0 {
				return nil, st, fmt.Errorf("timeseries: %w %q", read.ErrUnknownColumn, n)
			}
			i, ok := numIdx[is[0]]
			if !ok {
				return nil, st, fmt.Errorf("timeseries: column %q is not a numeric measurement: %w", n, read.ErrInvalidArgument)
			}
			cols, statIdx = append(cols, is[0]), append(statIdx, i)
		}
	}
	if len(cols) == 0 {
		return nil, st, fmt.Errorf("timeseries: the table has no numeric measurement to aggregate: %w", read.ErrInvalidArgument)
	}
	es, err := f.selectEntries(ctx, o.Series, &st.Stats)
	if err != nil {
		return nil, st, err
	}
	st.SeriesMatched = len(es)
	tasks, _, err := f.plan(ctx, es, tr, 0, 0, &st.Stats)
	if err != nil {
		return nil, st, err
	}
	// per series, ordered buckets
	result := make(map[*seriesEntry][]bucket, len(es))
	parts := make([][]bucket, len(tasks)) // per task, in task order
	var decodeIdx, endsIdx []int
	for i, t := range tasks {
		if !o.NoStats && t.settled && t.u.nSeries == 1 && bucketOf(t.u.tmin, o.Every) == bucketOf(t.u.tmax, o.Every) {
			us, err := f.unitStats(ctx, t.uo, &st.Stats)
			if err != nil {
				return nil, st, err
			}
			accs := make([]acc, len(cols))
			exact, indexEnds := true, true
			for j := range cols {
				if statIdx[j] >= len(us) {
					return nil, st, fmt.Errorf("timeseries: unit %d has %d statistics: %w", t.uo, len(us), encoding.ErrCorrupt)
				}
				s := us[statIdx[j]]
				if s.count > t.u.rows {
					return nil, st, fmt.Errorf("timeseries: unit %d: statistics count %d values of column %q in %d rows: %w",
						t.uo, s.count, f.t.sch.Field(cols[j]).Name, t.u.rows, encoding.ErrCorrupt)
				}
				accs[j] = acc{count: s.count, min: s.min, max: s.max, sum: s.sum}
				if s.ends && s.count > 0 {
					// The unit's first and last values in row order, which
					// are what the row-by-row fold keeps: rows are in time
					// order, and of rows of one time first keeps the
					// earliest stored and last the latest. Their times
					// are taken as the unit's ends: buckets merge in row
					// order, where those compare as the rows' own would.
					a := &accs[j]
					a.first, a.firstT, a.last, a.lastT, a.ends = s.first, t.u.tmin, s.last, t.u.tmax, true
				}
				indexEnds = indexEnds && s.ends
				// A NaN among the values makes the index's minimum NaN,
				// and the minimum of the other values takes a decode. But
				// the index folds with math.Min and math.Max, where an
				// infinity wins over a NaN: a NaN after a -Inf leaves the
				// minimum -Inf, and one before a +Inf leaves the maximum
				// +Inf, where the fold's maximum is NaN. So a unit whose
				// minimum is -Inf and maximum +Inf may hide a NaN and is
				// decoded too. (With a NaN present and the minimum -Inf,
				// a NaN maximum is the fold's answer.)
				exact = exact && s.min == s.min && !(math.IsInf(s.min, -1) && math.IsInf(s.max, 1))
			}
			if exact {
				parts[i] = []bucket{{start: bucketOf(t.u.tmin, o.Every), accs: accs}}
				if ends && !indexEnds {
					endsIdx = append(endsIdx, i) // first and last: from the unit's first and last rows (index version 1)
				} else {
					st.UnitsFromStats++
				}
				continue
			}
		}
		decodeIdx = append(decodeIdx, i)
	}
	if len(endsIdx) > 0 {
		back, err := f.unitEnds(ctx, tasks, endsIdx, cols, parts, o.Threads, &st)
		if err != nil {
			return nil, st, err
		}
		if len(back) > 0 {
			decodeIdx = append(decodeIdx, back...)
			sort.Ints(decodeIdx)
		}
	}
	// A count-only aggregate counts rows from time block headers in units
	// whose statistics show no nulls in the aggregated columns.
	var counted, full []int
	for _, i := range decodeIdx {
		t := tasks[i]
		if countOnly && !o.NoStats && o.Every > 0 {
			us, err := f.unitStats(ctx, t.uo, &st.Stats)
			if err != nil {
				return nil, st, err
			}
			dense := true
			for _, j := range statIdx {
				dense = dense && j < len(us) && us[j].count == t.u.rows
			}
			if dense {
				counted = append(counted, i)
				continue
			}
		}
		full = append(full, i)
	}
	// A column named twice is decoded once: each decode job owns one
	// column of a unit, and two jobs of one column would share its
	// reader and decoders.
	dcols := append([]int{f.t.time}, distinct(cols)...)
	for _, group := range []struct {
		idx   []int
		count bool
	}{{counted, true}, {full, false}} {
		// Each step's times and values are folded before the next step
		// and given back, so the steps decode into the same memory.
		eo := execOpts{cols: dcols, tr: tr, wantTime: true, threads: o.Threads, pooled: true}
		if group.count {
			eo.cols, eo.wantTime = dcols[:1], false
		}
		proj := &projection{decoded: eo.cols}
		// read steps of bounded size
		for lo := 0; lo < len(group.idx); {
			ts, pos, hi := f.aggStep(tasks, group.idx, lo, proj)
			units, err := f.fetchTasks(ctx, ts, eo.cols, &st.Stats, nil)
			if err != nil {
				return nil, st, err
			}
			// The step's chunks are fetched at once; its units are decoded
			// and folded a few at a time, so that only their buffers are
			// live and the next part reuses them.
			for a := 0; a < len(units); a += aggUnits {
				part := units[a:min(a+aggUnits, len(units))]
				var pts []*task
				for _, ud := range part {
					pts = append(pts, ud.tasks...)
				}
				fail := func(err error) (arrow.Record, AggStats, error) {
					for _, t := range pts {
						f.freeTask(t) // the pool must not keep buffers it never gets back
					}
					return nil, st, err
				}
				if err := f.decodeUnits(part, pts, eo, &st.Stats, nil); err != nil {
					return fail(err)
				}
				for _, t := range pts {
					var b []bucket
					var err error
					if group.count {
						b, err = f.countBlocks(t, o.Every, len(cols), &st)
					} else {
						b, err = foldTask(t, cols, o.Every)
					}
					if err != nil {
						return fail(err)
					}
					parts[pos[t]] = b
					f.freeTask(t)
					t.ud = nil
				}
			}
			lo = hi
		}
	}
	buckets := make(map[*seriesEntry]int, len(es))
	for i, t := range tasks {
		buckets[t.e] += len(parts[i])
	}
	for i, t := range tasks {
		r := result[t.e]
		if r == nil {
			r = make([]bucket, 0, buckets[t.e])
		}
		for _, b := range parts[i] {
			r = appendBucket(r, b.start, b.accs)
		}
		result[t.e] = r
	}
	keys := make([]int, 0, len(f.t.keys))
	if len(o.Keys) == 0 {
		for i := range f.t.keys {
			keys = append(keys, i)
		}
	} else {
		names := f.t.keyNames()
		for _, k := range o.Keys {
			i := indexOf(names, k)
			if i < 0 {
				return nil, st, fmt.Errorf("timeseries: %q is not a series key column: %w", k, read.ErrInvalidArgument)
			}
			keys = append(keys, i)
		}
	}
	rec, err := f.aggRecord(es, result, keys, cols, funcs, o.Every)
	if err == nil {
		st.RowsReturned = rec.NumRows()
	}
	return rec, st, err
}

// foldTask aggregates the decoded rows of a task into buckets.
func foldTask(t *task, cols []int, every int64) ([]bucket, error) {
	n := int(t.hi - t.lo)
	if len(t.times) != n {
		return nil, fmt.Errorf("timeseries: %d times for %d rows", len(t.times), n)
	}
	// The buckets and their accumulators are carved from slices sized for
	// the buckets the task's time span covers (times are sorted).
	nb := 1
	if every > 0 && n > 0 {
		span := uint64(t.times[n-1]) - uint64(t.times[0]) // sorted; wraps only on a corrupt unit
		nb = int(min(uint64(n), span/uint64(every)+2))
	}
	out := make([]bucket, 0, nb)
	backing := make([]acc, 0, nb*len(cols))
	for i := 0; i < n; {
		start := bucketOf(t.times[i], every)
		j := i + 1
		if every > 0 {
			end := bucketEnd(t.times[i], every)
			for j < n && t.times[j] < end {
				j++
			}
		} else {
			j = n
		}
		if len(backing)+len(cols) > cap(backing) {
			backing = make([]acc, 0, max(cap(backing), len(cols)))
		}
		at := len(backing)
		backing = backing[:at+len(cols)]
		accs := backing[at : at+len(cols) : at+len(cols)]
		for k, c := range cols {
			accs[k] = acc{}
			if err := foldRange(&accs[k], t.vals[c], t.times, i, j); err != nil {
				return nil, err
			}
		}
		out = appendBucket(out, start, accs)
		i = j
	}
	return out, nil
}

// foldRange adds values [i, j) of a decoded stream, of times times, to a.
func foldRange(a *acc, s *shred.Stream, times []int64, i, j int) error {
	if s == nil {
		return fmt.Errorf("timeseries: column not decoded")
	}
	var valid []bool
	if s.Valid != nil {
		valid = s.Valid[i:j]
	}
	switch v := s.Values.(type) {
	case []float64:
		foldT(a, v[i:j], times[i:j], valid)
	case []float32:
		foldT(a, v[i:j], times[i:j], valid)
	case []int64:
		foldT(a, v[i:j], times[i:j], valid)
	case []int32:
		foldT(a, v[i:j], times[i:j], valid)
	case []int16:
		foldT(a, v[i:j], times[i:j], valid)
	case []int8:
		foldT(a, v[i:j], times[i:j], valid)
	case []uint64:
		foldT(a, v[i:j], times[i:j], valid)
	case []uint32:
		foldT(a, v[i:j], times[i:j], valid)
	case []uint16:
		foldT(a, v[i:j], times[i:j], valid)
	case []uint8:
		foldT(a, v[i:j], times[i:j], valid)
	default:
		return fmt.Errorf("timeseries: cannot aggregate %T", s.Values)
	}
	return nil
}

func foldT[T encoding.Number](a *acc, v []T, times []int64, valid []bool) {
	if len(v) == 0 {
		return
	}
	if valid == nil {
		// Plain comparisons, which a NaN never wins; NaN then orders
		// above every number as in minNaN and maxNaN (what the
		// row-at-a-time path uses). Of the two zeros, which compare
		// equal, -0 is the minimum and +0 the maximum, as math.Min and
		// math.Max (the row-at-a-time path and the index statistics)
		// have them.
		mn, mx := math.Inf(1), math.Inf(-1)
		var sum float64
		nans := 0
		for _, x := range v {
			f := float64(x)
			if f < mn || f == 0 && mn == 0 && math.Signbit(f) {
				mn = f
			}
			if f > mx || f == 0 && mx == 0 && !math.Signbit(f) {
				mx = f
			}
			if f != f {
				nans++
			}
			sum += f
		}
		switch {
		case nans == len(v):
			mn, mx = math.NaN(), math.NaN()
		case nans > 0:
			mx = math.NaN()
		}
		n := len(v)
		a.merge(acc{count: int64(n), min: mn, max: mx, sum: sum,
			first: float64(v[0]), firstT: times[0], last: float64(v[n-1]), lastT: times[n-1], ends: true})
		return
	}
	var b acc
	for i, x := range v {
		if valid[i] {
			b.add(float64(x), times[i])
		}
	}
	a.merge(b)
}

// countBlocks counts the rows of a task per bucket from the time column's
// block headers, decoding only blocks that straddle a bucket boundary or
// the edges of the surviving rows. Counts are of rows, which equal
// non-null counts only for columns without nulls, so callers use it for
// count-only aggregates of columns without nulls.
func (f *File) countBlocks(t *task, every int64, ncols int, st *AggStats) ([]bucket, error) {
	rd := t.ud.reader(f.t.time)
	defer rd.release()
	var dummy int64
	rd.count = &dummy
	d, err := rd.chunk(0)
	if err != nil {
		return nil, err
	}
	bb, ok := d.(encoding.BlockBounder[int64])
	var out []bucket
	add := func(start, n int64) {
		accs := make([]acc, ncols)
		for i := range accs {
			accs[i].count = n
		}
		out = appendBucket(out, start, accs)
	}
	if !ok || len(rd.cl.sizes) != 1 {
		times := make([]int64, t.hi-t.lo)
		if err := rd.read(t.lo, t.hi, times, nil, 0); err != nil {
			return nil, err
		}
		st.TimeDecoded += dummy
		st.ValuesDecoded += dummy
		for _, v := range times {
			add(bucketOf(v, every), 1)
		}
		return out, nil
	}
	var buf []int64
	for b := 0; b < bb.Blocks(); b++ {
		first, rows, lo, hi := bb.BlockBounds(b)
		s, e := max(int64(first), t.lo), min(int64(first+rows), t.hi)
		if s >= e {
			continue
		}
		if s == int64(first) && e == int64(first+rows) && bucketOf(lo, every) == bucketOf(hi, every) {
			add(bucketOf(lo, every), e-s)
			st.BlocksCounted++
			continue
		}
		if cap(buf) < int(e-s) {
			buf = make([]int64, e-s)
		}
		v := buf[:e-s]
		if err := rd.read(s, e, v, nil, 0); err != nil {
			return nil, err
		}
		for _, x := range v {
			add(bucketOf(x, every), 1)
		}
	}
	st.TimeDecoded += dummy
	st.ValuesDecoded += dummy
	return out, nil
}

// aggRecord builds the result: keys, bucket start, then func(column) for
// each column and function.
func (f *File) aggRecord(es []*seriesEntry, result map[*seriesEntry][]bucket, keys, cols []int, funcs []string, every int64) (arrow.Record, error) {
	mem := memory.DefaultAllocator
	var fields []arrow.Field
	for _, k := range keys {
		fields = append(fields, f.t.sch.Field(f.t.keys[k]))
	}
	tf := f.t.sch.Field(f.t.time)
	fields = append(fields, arrow.Field{Name: "bucket", Type: tf.Type})
	for _, c := range cols {
		for _, fn := range funcs {
			name := fmt.Sprintf("%s(%s)", fn, f.t.sch.Field(c).Name)
			if fn == "count" {
				fields = append(fields, arrow.Field{Name: name, Type: arrow.PrimitiveTypes.Int64})
			} else {
				fields = append(fields, arrow.Field{Name: name, Type: arrow.PrimitiveTypes.Float64, Nullable: true})
			}
		}
	}
	sch := arrow.NewSchema(fields, nil)
	b := array.NewRecordBuilder(mem, sch)
	defer b.Release()
	n := 0
	for _, e := range es {
		n += len(result[e])
	}
	for i := range fields {
		b.Field(i).Reserve(n)
	}
	for _, e := range es {
		bs := result[e]
		for i, k := range keys {
			for range bs {
				if err := appendKeyValue(b.Field(i), f.t.keyKinds[k], e.key[k], f.t.render(k, e.key[k])); err != nil {
					return nil, err
				}
			}
		}
		for _, bk := range bs {
			start := bk.start
			if every <= 0 {
				start = e.tmin
			}
			switch tb := b.Field(len(keys)).(type) {
			case *array.TimestampBuilder:
				tb.Append(arrow.Timestamp(start))
			case *array.Int64Builder:
				tb.Append(start)
			}
			fi := len(keys) + 1
			for j := range cols {
				a := bk.accs[j]
				for _, fn := range funcs {
					fb := b.Field(fi)
					fi++
					if fn == "count" {
						fb.(*array.Int64Builder).Append(a.count)
						continue
					}
					if a.count == 0 {
						fb.AppendNull()
						continue
					}
					var v float64
					switch fn {
					case "min":
						v = a.min
					case "max":
						v = a.max
					case "sum":
						v = a.sum
					case "first":
						v = a.first
					case "last":
						v = a.last
					default:
						v = a.sum / float64(a.count)
					}
					fb.(*array.Float64Builder).Append(v)
				}
			}
		}
	}
	return b.NewRecord(), nil
}

// appendKeyValue appends a key value to a builder of the key column's type.
func appendKeyValue(b array.Builder, kk keyKind, v, text string) error {
	switch bb := b.(type) {
	case *array.StringBuilder:
		bb.Append(v)
	case *array.LargeStringBuilder:
		bb.Append(v)
	case *array.BinaryBuilder:
		bb.Append([]byte(v))
	default:
		if err := b.AppendValueFromString(text); err != nil {
			return err
		}
	}
	return nil
}

// parseFuncs splits "min,max,avg".
func parseFuncs(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(strings.ToLower(p)); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// unitEnds completes the buckets of units folded from their statistics
// (tasks idx, each one whole unit of one series in one bucket, parts[i]
// its one bucket) with first and last. A unit's rows are in time order,
// so its first row holds its earliest time (tmin, and the first row of
// that time, which is the one first keeps) and its last row its latest
// (tmax, the last row of that time, which last keeps): where both rows of
// a column hold a value, those are its first and last, read without the
// time column or the rows between. Where one is null (the column's first
// or last value lies inside the unit), the unit is given back to be
// decoded and folded whole. It returns the tasks given back.
func (f *File) unitEnds(ctx context.Context, tasks []*task, idx, cols []int, parts [][]bucket, threads int, st *AggStats) ([]int, error) {
	fcols := distinct(cols) // (a column named twice is read once)
	proj := &projection{decoded: fcols}
	var back []int
	for lo := 0; lo < len(idx); {
		ts, pos, hi := f.aggStep(tasks, idx, lo, proj)
		units, err := f.fetchTasks(ctx, ts, fcols, &st.Stats, nil)
		if err != nil {
			return nil, err
		}
		type job struct {
			ud   *unitData
			st   Stats
			back []*task
			err  error
		}
		jobs := make([]job, len(units))
		parallel(len(units), max(1, threads), func(i int) {
			j := &jobs[i]
			j.ud = units[i]
			start := time.Now()
			for _, t := range j.ud.tasks {
				ok, err := f.readEnds(t, cols, parts[pos[t]], &j.st)
				if err != nil {
					j.err = err
					break
				}
				if !ok {
					j.back = append(j.back, t)
				}
			}
			for _, c := range fcols {
				j.ud.reader(c).release()
			}
			j.st.Decode = time.Since(start)
		})
		for i := range jobs {
			st.Stats.add(&jobs[i].st)
			if jobs[i].err != nil {
				return nil, jobs[i].err
			}
			for _, t := range jobs[i].back {
				back = append(back, pos[t])
			}
		}
		for _, t := range ts {
			t.ud = nil
		}
		lo = hi
	}
	st.UnitsFromStats += len(idx) - len(back)
	return back, nil
}

// aggStep returns the next read step of an aggregate from position lo of
// idx (task numbers): tasks up to batchBytes of proj's chunks, with the
// number of each, and the position after them.
func (f *File) aggStep(tasks []*task, idx []int, lo int, proj *projection) ([]*task, map[*task]int, int) {
	hi := lo
	var size int64
	for hi < len(idx) && (hi == lo || size < batchBytes) {
		size += f.taskBytes(tasks[idx[hi]], proj)
		hi++
	}
	ts := make([]*task, hi-lo)
	pos := make(map[*task]int, hi-lo)
	for k := range ts {
		ts[k] = tasks[idx[lo+k]]
		pos[ts[k]] = idx[lo+k]
	}
	return ts, pos, hi
}

// readEnds sets the first and last of task t's bucket b (its only one)
// from the unit's first and last rows of each column, and reports false
// when a column with values has a null in one of them (the unit is then
// folded whole).
func (f *File) readEnds(t *task, cols []int, b []bucket, st *Stats) (bool, error) {
	if len(b) != 1 {
		return false, fmt.Errorf("timeseries: unit %d: %d buckets from its statistics, want 1", t.uo, len(b))
	}
	accs := b[0].accs
	var count int64
	for j, c := range cols {
		a := &accs[j]
		if a.count == 0 {
			continue // no value in the unit: no first or last either
		}
		if a.count > t.u.rows {
			return false, encoding.Corruptf("timeseries: unit %d: statistics count %d values of column %q in %d rows", t.uo, a.count, f.t.sch.Field(c).Name, t.u.rows)
		}
		rd := t.ud.reader(c)
		rd.count = &count
		buf, err := encoding.NewValues(rd.typ, 1)
		if err != nil {
			return false, err
		}
		valid := []bool{false}
		var ends [2]float64
		for e, row := range [2]int64{0, t.u.rows - 1} {
			if err := rd.read(row, row+1, buf, valid, 0); err != nil {
				return false, fmt.Errorf("timeseries: unit %d, column %q: %w", t.uo, f.t.sch.Field(c).Name, err)
			}
			if !valid[0] {
				return false, nil
			}
			if ends[e], err = numberAt(buf); err != nil {
				return false, err
			}
		}
		// One column's decoders at a time: another read may hold this
		// unit's columns in another order (unitEnds releases the rest).
		rd.release()
		a.first, a.firstT, a.last, a.lastT, a.ends = ends[0], t.u.tmin, ends[1], t.u.tmax, true
	}
	st.ValuesDecoded += count
	return true, nil
}

// distinct returns cols without repeats, in the order first named.
func distinct(cols []int) []int {
	out := make([]int, 0, len(cols))
	for _, c := range cols {
		if !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out
}

// numberAt returns the first value of a one-value buffer as a float64.
func numberAt(vals any) (float64, error) {
	switch v := vals.(type) {
	case []float64:
		return v[0], nil
	case []float32:
		return float64(v[0]), nil
	case []int64:
		return float64(v[0]), nil
	case []int32:
		return float64(v[0]), nil
	case []int16:
		return float64(v[0]), nil
	case []int8:
		return float64(v[0]), nil
	case []uint64:
		return float64(v[0]), nil
	case []uint32:
		return float64(v[0]), nil
	case []uint16:
		return float64(v[0]), nil
	case []uint8:
		return float64(v[0]), nil
	}
	return 0, fmt.Errorf("timeseries: cannot aggregate %T", vals)
}
