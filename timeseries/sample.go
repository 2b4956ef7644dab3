package timeseries

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// SampleOptions describe random windows for training.
type SampleOptions struct {
	// Series restricts windows to the series it picks (all when empty);
	// picking one series gives per-series windows.
	Series Selector
	// Windows is the number of windows, Length the rows of each: Length
	// consecutive rows of one series (a window never crosses series).
	Windows, Length int
	// Columns are the columns of every window (default: the time column
	// and every measurement).
	Columns []string
	// Seed and Epoch make the draw reproducible: the same seed and epoch
	// give the same windows; each epoch draws new ones.
	Seed  uint64
	Epoch int
	// Stacked returns one record of all windows, one after another, with
	// a leading int32 "window" column, instead of one record per window.
	Stacked bool
	// Threads decode in parallel (default: the file's Options.Threads).
	Threads int
}

// Window is where one sampled window lies.
type Window struct {
	Series int   // ordinal of the series in key order
	Start  int64 // first row within the series
}

// DrawWindows draws the windows of a sample without reading data: every
// start position of every eligible series (at least Length rows) is
// equally likely.
func (f *File) DrawWindows(ctx context.Context, o SampleOptions) ([]Window, error) {
	var st Stats
	_, ws, err := f.draw(ctx, o, &st)
	return ws, err
}

func (f *File) draw(ctx context.Context, o SampleOptions, st *Stats) ([]*seriesEntry, []Window, error) {
	if o.Windows < 0 || o.Length <= 0 {
		return nil, nil, fmt.Errorf("timeseries: %d windows of %d rows", o.Windows, o.Length)
	}
	es, err := f.selectEntries(ctx, o.Series, st)
	if err != nil {
		return nil, nil, err
	}
	st.SeriesMatched = len(es)
	var elig []*seriesEntry
	var cum []int64 // cumulative start positions
	var total int64
	for _, e := range es {
		if e.rows >= int64(o.Length) {
			elig = append(elig, e)
			total += e.rows - int64(o.Length) + 1
			cum = append(cum, total)
		}
	}
	if o.Windows > 0 && total == 0 {
		return nil, nil, fmt.Errorf("timeseries: no selected series has %d rows", o.Length)
	}
	rng := rand.New(rand.NewPCG(o.Seed, uint64(o.Epoch)))
	ws := make([]Window, o.Windows)
	for i := range ws {
		u := rng.Int64N(total)
		k := sort.Search(len(cum), func(k int) bool { return cum[k] > u })
		prev := int64(0)
		if k > 0 {
			prev = cum[k-1]
		}
		ws[i] = Window{Series: elig[k].ord, Start: u - prev}
	}
	return elig, ws, nil
}

// Sample reads random windows of consecutive rows, projected to the chosen
// columns, as Arrow records: DrawWindows, then ReadWindows.
func (f *File) Sample(ctx context.Context, o SampleOptions) ([]arrow.Record, Stats, error) {
	var st Stats
	_, ws, err := f.draw(ctx, o, &st)
	if err != nil {
		return nil, st, err
	}
	recs, rst, err := f.ReadWindows(ctx, ws, o)
	rst.SeriesMatched, rst.IndexPages, rst.IndexBytes, rst.IndexPageHits =
		st.SeriesMatched, rst.IndexPages+st.IndexPages, rst.IndexBytes+st.IndexBytes, rst.IndexPageHits+st.IndexPageHits
	return recs, rst, err
}

// ReadWindows reads the given windows (o.Length rows each; o.Series, Seed,
// Epoch and Windows are not used). The windows' bytes are read in one step
// and each window decodes only its own rows of each column, from the
// nearest block start of encodings that decode in blocks. Stats report
// values decoded and returned, so read amplification is
// Stats.Amplification().
func (f *File) ReadWindows(ctx context.Context, ws []Window, o SampleOptions) ([]arrow.Record, Stats, error) {
	var st Stats
	if o.Threads <= 0 {
		o.Threads = f.opts.Threads
	}
	cols := o.Columns
	if len(cols) == 0 {
		cols = append(cols, f.t.sch.Field(f.t.time).Name)
		for _, c := range f.t.measures {
			cols = append(cols, f.t.sch.Field(c).Name)
		}
	}
	proj, err := f.project(cols)
	if err != nil {
		return nil, st, err
	}
	if o.Length <= 0 {
		return nil, st, fmt.Errorf("timeseries: windows of %d rows", o.Length)
	}
	byOrd := map[int]*seriesEntry{}
	for _, w := range ws {
		if _, ok := byOrd[w.Series]; ok {
			continue
		}
		if w.Series < 0 || w.Series >= int(f.meta.series) {
			return nil, st, fmt.Errorf("timeseries: window of series %d of %d", w.Series, f.meta.series)
		}
		e, err := f.entry(ctx, w.Series, &st)
		if err != nil {
			return nil, st, err
		}
		if w.Start < 0 || w.Start+int64(o.Length) > e.rows {
			return nil, st, fmt.Errorf("timeseries: window [%d, %d) of series %d with %d rows", w.Start, w.Start+int64(o.Length), w.Series, e.rows)
		}
		byOrd[w.Series] = e
	}
	// unit start rows per series, built as windows need them
	starts := map[int][]int64{}
	units := map[int][]*unitRec{}
	tasksOf := make([][]*task, len(ws))
	var all []*task
	for i, w := range ws {
		e := byOrd[w.Series]
		us, ok := units[e.ord]
		if !ok {
			for uo := e.c0; uo < e.c1; uo++ {
				u, err := f.unit(ctx, uo, &st)
				if err != nil {
					return nil, st, err
				}
				us = append(us, u)
				starts[e.ord] = append(starts[e.ord], f.stripe[u.stripe]+u.row)
			}
			units[e.ord] = us
		}
		ss := starts[e.ord]
		g0, g1 := e.firstRow+w.Start, e.firstRow+w.Start+int64(o.Length)
		k := sort.Search(len(ss), func(k int) bool { return ss[k] > g0 }) - 1
		for ; k < len(us) && k >= 0 && ss[k] < g1; k++ {
			u, s0 := us[k], ss[k]
			a, b := max(g0, s0)-s0, min(g1, s0+u.rows)-s0
			if a >= b {
				continue
			}
			t := &task{e: e, uo: e.c0 + k, u: u, a: a, b: b, settled: true}
			tasksOf[i] = append(tasksOf[i], t)
			all = append(all, t)
		}
		var got int64
		for _, t := range tasksOf[i] {
			got += t.b - t.a
		}
		if got != int64(o.Length) {
			return nil, st, fmt.Errorf("timeseries: window %d of series %d: units cover %d of %d rows", i, e.ord, got, o.Length)
		}
	}
	st.UnitsTotal = len(all)
	eo := execOpts{cols: proj.decoded, tr: AllTime, wantTime: proj.wantTime, threads: o.Threads}
	if err := f.exec(ctx, all, eo, &st, nil); err != nil {
		return nil, st, err
	}
	recs := make([]arrow.Record, 0, len(ws))
	release := func() {
		for _, r := range recs {
			r.Release()
		}
	}
	for i := range ws {
		var parts []arrow.Record
		for _, t := range tasksOf[i] {
			r, err := f.assemble(t, proj)
			if err != nil {
				release()
				return nil, st, err
			}
			parts = append(parts, r)
			t.ud, t.vals, t.times = nil, nil, nil
		}
		rec := parts[0]
		if len(parts) > 1 {
			rec, err = concat(proj.sch, parts, memory.DefaultAllocator)
			for _, p := range parts {
				p.Release()
			}
			if err != nil {
				release()
				return nil, st, err
			}
		}
		recs = append(recs, rec)
		st.RowsReturned += rec.NumRows()
		st.ValuesReturned += rec.NumRows() * int64(len(proj.decoded)-boolToInt(!proj.wantTime))
	}
	if !o.Stacked || len(recs) == 0 {
		return recs, st, nil
	}
	defer release()
	rec, err := stack(proj.sch, recs)
	if err != nil {
		return nil, st, err
	}
	return []arrow.Record{rec}, st, nil
}

// stack concatenates window records behind a leading "window" column.
func stack(sch *arrow.Schema, recs []arrow.Record) (arrow.Record, error) {
	mem := memory.DefaultAllocator
	wb := array.NewInt32Builder(mem)
	defer wb.Release()
	var n int64
	for i, r := range recs {
		for range r.NumRows() {
			wb.Append(int32(i))
		}
		n += r.NumRows()
	}
	body, err := concat(sch, recs, mem)
	if err != nil {
		return nil, err
	}
	defer body.Release()
	wa := wb.NewArray()
	defer wa.Release()
	fields := append([]arrow.Field{{Name: "window", Type: arrow.PrimitiveTypes.Int32}}, sch.Fields()...)
	cols := append([]arrow.Array{wa}, body.Columns()...)
	return array.NewRecord(arrow.NewSchema(fields, nil), cols, n), nil
}
