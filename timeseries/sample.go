package timeseries

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"

	"strata/encoding"
	"strata/read"
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
	// a leading int32 "window" column, instead of one record per window;
	// for 0 windows it is a record of no rows with those columns (and an
	// unstacked sample of 0 windows is no record).
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
	if err := f.open("DrawWindows"); err != nil {
		return nil, err
	}
	var st Stats
	_, ws, err := f.draw(ctx, o, &st)
	return ws, err
}

func (f *File) draw(ctx context.Context, o SampleOptions, st *Stats) ([]*seriesEntry, []Window, error) {
	if o.Windows < 0 || o.Length <= 0 {
		return nil, nil, fmt.Errorf("timeseries: %d windows of %d rows: %w", o.Windows, o.Length, read.ErrInvalidArgument)
	}
	es, err := f.selectEntries(ctx, o.Series, st)
	if err != nil {
		return nil, nil, err
	}
	st.SeriesMatched = len(es)
	var elig []*seriesEntry
	var cum []int64 // cumulative start positions
	var total, longest int64
	for _, e := range es {
		longest = max(longest, e.rows)
		if e.rows >= int64(o.Length) {
			elig = append(elig, e)
			total += e.rows - int64(o.Length) + 1
			cum = append(cum, total)
		}
	}
	if o.Windows > 0 && total == 0 {
		return nil, nil, fmt.Errorf("timeseries: windows of %d rows: no selected series has that many (%d series selected, the longest of %d rows): %w",
			o.Length, len(es), longest, read.ErrInvalidArgument)
	}
	// The draw is held whole: a count of windows past the decode limits'
	// allocation bound is refused (ErrLimit) rather than allocated.
	lim := *f.dec
	lim.Allocated = nil
	if err := lim.CheckAlloc(o.Windows, int(unsafe.Sizeof(Window{})), "timeseries: sample windows"); err != nil {
		return nil, nil, err
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
	if err := f.open("Sample"); err != nil {
		return nil, st, err
	}
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
// Epoch and Windows are not used). The windows' bytes are read in one step;
// then, per unit and column, the windows that fall in the unit are decoded
// in row order with one cursor, so a window continues from where the
// previous one left off (a skip within a block instead of one from the
// chunk start) and the part it shares with the previous window is copied
// rather than decoded again. Every window is decoded straight into its
// place in one buffer per column; the records (one per window, or one
// stacked record, of no rows for no windows) are views of those buffers. Stats report values decoded
// and returned, so read amplification is Stats.Amplification().
func (f *File) ReadWindows(ctx context.Context, ws []Window, o SampleOptions) ([]arrow.Record, Stats, error) {
	var st Stats
	if err := f.open("ReadWindows"); err != nil {
		return nil, st, err
	}
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
		return nil, st, fmt.Errorf("timeseries: windows of %d rows: %w", o.Length, read.ErrInvalidArgument)
	}
	if err := f.checkWindowValues(len(ws), o.Length, proj); err != nil {
		return nil, st, err
	}
	mem := f.takeStepMem()
	defer f.putStepMem(mem)
	wr, err := f.planWindows(ctx, ws, o.Length, &st, mem)
	if err != nil {
		return nil, st, err
	}
	if err := f.readWindows(ctx, wr, proj, o.Threads, &st, mem); err != nil {
		return nil, st, err
	}
	n := int64(len(ws)) * int64(o.Length)
	st.RowsReturned += n
	st.ValuesReturned += n * int64(len(proj.decoded)-boolToInt(!proj.wantTime))
	recs, err := wr.records(f, proj, o.Stacked)
	return recs, st, err
}

// checkWindowValues refuses (ErrLimit) windows whose values would not fit
// the decode limits' allocation bound: the windows are decoded into one
// buffer per column of windows × length values, allocated before anything
// is read.
func (f *File) checkWindowValues(windows, length int, p *projection) error {
	if length > 0 && windows > math.MaxInt/length {
		return encoding.Limitf("timeseries: sample of %d windows of %d rows", windows, length)
	}
	lim := *f.dec
	lim.Allocated = nil
	for _, c := range p.decoded {
		if err := lim.CheckAlloc(windows*length, max(f.stypes[c].Size(), 4), "timeseries: sample values"); err != nil {
			return err
		}
	}
	return nil
}
