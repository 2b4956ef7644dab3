package read

import (
	"context"
	"fmt"
	"io"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"

	"strata/encoding"
	"strata/iox"
)

// ScanOptions select what a scan returns.
type ScanOptions struct {
	// Columns are the columns to return, all when empty: top-level
	// columns, or dotted paths of fields nested in them ("properties.mag").
	// The paths into one column return that column pruned to those fields
	// (structs keep only the named fields, lists and maps their shape),
	// reading only their streams; a column also named whole comes whole.
	Columns []string
	// Where is a filter in the SQL-like syntax of package filter.
	Where string
	// Offset skips this many rows (after filtering); Limit caps the rows
	// returned (0: no limit). Neither may be negative (ErrInvalidArgument).
	Offset, Limit int64
	// Split limits the scan to the stripes of one split (see File.Splits).
	Split *Split
	// Parallelism overrides the file's Options.Parallelism for this scan
	// (0 keeps it; negative is ErrInvalidArgument).
	Parallelism int
	// PrefetchBytes overrides the file's Options.PrefetchBytes (0 keeps
	// it; negative is ErrInvalidArgument).
	PrefetchBytes int64
}

// ScanStats counts what a scan did at each level.
type ScanStats struct {
	RowsScanned  int64 // rows in stripes that were not pruned
	RowsReturned int64
	Stripes      int // stripes in the scan's range (the split's, or the file's)
	// Pruned counts at each level.
	StripesPrunedIndex int // by the cluster index of a sorted column
	StripesPrunedStats int
	StripesPrunedBloom int
	StripesSkipped     int // by offset/limit
	ChunksPrunedStats  int
	ChunksAllMatch     int // chunks that passed on statistics without evaluating rows
	ChunksNoSurvivors  int // payload chunks not read because no row survived
	BlocksPruned       int // encoding blocks (or whole dictionary chunks) settled from headers inside decoders
	ChunksDecoded      int // chunks opened (fetched, unframed, decoders built)
	ChunksGathered     int
	// ChunksAggCompressed counts chunks an aggregate folded on their runs
	// or dictionary ids without materializing values.
	ChunksAggCompressed int
	// FilePruned is set when file statistics proved no row can match.
	FilePruned bool
	// Requests is the number of reads sent to the source (after
	// coalescing); BytesRead the bytes they read, holes included.
	// Metadata read at Open is not included (File.OpenBytes).
	Requests  int64
	BytesRead int64
	// PeakPrefetchBytes is the most the scan held ahead of its caller at
	// once: fetched chunk bytes plus decoded batches not yet returned.
	PeakPrefetchBytes int64
}

// add accumulates o into s.
func (s *ScanStats) add(o *ScanStats) {
	s.RowsScanned += o.RowsScanned
	s.RowsReturned += o.RowsReturned
	s.Stripes += o.Stripes
	s.StripesPrunedIndex += o.StripesPrunedIndex
	s.StripesPrunedStats += o.StripesPrunedStats
	s.StripesPrunedBloom += o.StripesPrunedBloom
	s.StripesSkipped += o.StripesSkipped
	s.ChunksPrunedStats += o.ChunksPrunedStats
	s.ChunksAllMatch += o.ChunksAllMatch
	s.ChunksNoSurvivors += o.ChunksNoSurvivors
	s.BlocksPruned += o.BlocksPruned
	s.ChunksDecoded += o.ChunksDecoded
	s.ChunksGathered += o.ChunksGathered
	s.ChunksAggCompressed += o.ChunksAggCompressed
	s.FilePruned = s.FilePruned || o.FilePruned
	s.Requests += o.Requests
	s.BytesRead += o.BytesRead
	s.PeakPrefetchBytes = max(s.PeakPrefetchBytes, o.PeakPrefetchBytes)
}

func (s *ScanStats) String() string {
	file := ""
	if s.FilePruned {
		file = "file pruned by statistics; "
	}
	agg := ""
	if s.ChunksAggCompressed > 0 {
		agg = fmt.Sprintf(", aggregated on runs/ids %d", s.ChunksAggCompressed)
	}
	return fmt.Sprintf("%srows scanned %d, returned %d; stripes %d (pruned by index %d, by stats %d, by bloom %d, skipped %d); chunks pruned by stats %d, all-match %d, no survivors %d, decoded %d, gathered %d%s; encoding blocks settled from headers %d; requests %d, bytes read %d",
		file, s.RowsScanned, s.RowsReturned, s.Stripes, s.StripesPrunedIndex, s.StripesPrunedStats, s.StripesPrunedBloom, s.StripesSkipped,
		s.ChunksPrunedStats, s.ChunksAllMatch, s.ChunksNoSurvivors, s.ChunksDecoded, s.ChunksGathered, agg, s.BlocksPruned, s.Requests, s.BytesRead)
}

// Scanner streams the batches of a scan, in row order: for a scan of
// row-aligned columns without a filter, one batch per chunk of the first
// column (about 8 Ki rows); otherwise one per stripe with surviving rows.
//
// With a parallelism above one, a producer goroutine walks the scan's jobs
// in order — batches, or stripes — fetching ahead within the prefetch
// window and decoding up to the parallelism of them at once; Next returns
// their results in order. Close a Scanner that is not read to its end.
type Scanner struct {
	f      *File
	cols   []int
	opts   ScanOptions
	q      *query
	x      *exec
	cancel context.CancelFunc
	gen    *jobGen
	win    *window
	// out carries the jobs in scan order (parallel scans only).
	out   chan *job
	stats ScanStats
	// skip and left apply Offset and Limit to filtered scans, whose row
	// counts are known only once their batches are.
	skip, left int64
	done       bool
	err        error
}

// Scan starts a scan.
func (f *File) Scan(opts ScanOptions) (*Scanner, error) {
	return f.ScanContext(context.Background(), opts)
}

// ScanContext starts a scan under ctx: cancelling it stops the scan's reads
// and decoding, and Next returns the context's error.
func (f *File) ScanContext(ctx context.Context, opts ScanOptions) (*Scanner, error) {
	if opts.Offset < 0 || opts.Limit < 0 {
		return nil, fmt.Errorf("read: scan with offset %d and limit %d: %w (neither may be negative)", opts.Offset, opts.Limit, ErrInvalidArgument)
	}
	if opts.PrefetchBytes < 0 {
		return nil, fmt.Errorf("read: scan with PrefetchBytes %d: %w (a budget may not be negative; 0 keeps the file's)", opts.PrefetchBytes, ErrInvalidArgument)
	}
	if err := checkParallelism("scan", opts.Parallelism); err != nil {
		return nil, err
	}
	cols, err := f.columnIndexes(opts.Columns)
	if err != nil {
		return nil, err
	}
	s := &Scanner{f: f, cols: cols, opts: opts, left: -1}
	if opts.Where != "" {
		if s.q, err = f.compile(opts.Where); err != nil {
			return nil, err
		}
	}
	x := f.newExec(ctx, opts.Parallelism)
	r, err := f.stripeRange(x.ctx, opts.Split, s.q, &s.stats)
	if err != nil {
		return nil, err
	}
	ctx, s.cancel = context.WithCancel(x.ctx)
	x.ctx = ctx
	s.x = x
	budget := opts.PrefetchBytes
	if budget <= 0 {
		budget = f.opts.PrefetchBytes
	}
	s.win = newWindow(budget)
	g := &jobGen{f: f, s: s, r: r, stripe: r.lo, skip: opts.Offset, left: -1, flat: s.q == nil && f.flatColumns(cols),
		target: f.unitTarget(budget, x.par), ratio: 4}
	if opts.Limit > 0 {
		g.left = opts.Limit
	}
	if s.q != nil {
		// Offset and limit count rows after filtering: Next applies them.
		g.skip, g.left = 0, -1
		s.skip = opts.Offset
		if opts.Limit > 0 {
			s.left = opts.Limit
		}
	}
	s.gen = g
	if x.par > 1 {
		x.w = newWorkers(x.par)
		// A filtered scan left with one stripe is one job: it runs on the
		// caller's goroutine (its filter and columns still in parallel),
		// since a producer and a job goroutine would only add two hand-offs
		// to what is often a sub-millisecond query.
		if s.q == nil || r.hi-r.lo > 1 {
			s.out = make(chan *job, 4*x.par+4)
			go s.produce()
		}
	}
	return s, nil
}

// Schema returns the schema of the batches the scan returns: the projected
// columns, nested ones pruned to the fields named.
func (s *Scanner) Schema() *arrow.Schema { return s.f.projectedSchema(s.cols) }

// Stats returns what the scan has done so far.
func (s *Scanner) Stats() ScanStats {
	st := s.stats
	st.PeakPrefetchBytes = s.win.peakBytes()
	return st
}

// Close ends the scan, stopping its reads and waiting for its goroutines.
func (s *Scanner) Close() error {
	s.stop()
	return nil
}

// stop cancels the scan and releases what it produced and nobody took.
func (s *Scanner) stop() {
	if s.done {
		return
	}
	s.done = true
	s.cancel()
	if s.out != nil {
		for j := range s.out {
			<-j.done
			if j.rec != nil {
				j.rec.Release()
			}
		}
	}
	s.stats.add(&s.gen.st)
	s.gen.st = ScanStats{}
}

// Next returns the next batch or io.EOF.
func (s *Scanner) Next() (arrow.Record, error) {
	for {
		if s.done {
			if s.err != nil {
				return nil, s.err
			}
			return nil, io.EOF
		}
		if s.left == 0 {
			s.stop()
			continue
		}
		var j *job
		if s.out != nil {
			var ok bool
			if j, ok = <-s.out; !ok {
				// Only the caller's context ends the producer early.
				err := s.x.ctx.Err()
				s.stop()
				if err != nil && s.err == nil {
					s.err = err
				}
				continue
			}
			<-j.done
		} else {
			var err error
			if j, err = s.gen.next(); err != nil {
				j = &job{err: err}
			} else if j == nil {
				s.stop()
				continue
			} else {
				s.win.adjust(j.reserve)
				s.runJob(j)
			}
		}
		s.stats.add(&j.st)
		s.win.adjust(-j.held)
		if j.err != nil {
			if j.rec != nil {
				j.rec.Release()
			}
			s.err = j.err
			s.stop()
			continue
		}
		rec := j.rec
		if rec == nil {
			continue
		}
		if s.q != nil {
			if rec.NumRows() <= s.skip {
				s.skip -= rec.NumRows()
				rec.Release()
				continue
			}
			rec = s.window(rec)
		} else {
			s.stats.RowsReturned += rec.NumRows()
		}
		return rec, nil
	}
}

// window applies the remaining offset and limit to a filtered batch.
func (s *Scanner) window(rec arrow.Record) arrow.Record {
	lo, hi := s.skip, rec.NumRows()
	s.skip = 0
	if s.left >= 0 && hi-lo > s.left {
		hi = lo + s.left
	}
	if s.left >= 0 {
		s.left -= hi - lo
	}
	s.stats.RowsReturned += hi - lo
	if lo == 0 && hi == rec.NumRows() {
		return rec
	}
	out := rec.NewSlice(lo, hi)
	rec.Release()
	return out
}

// produce runs in its own goroutine for parallel scans: it reserves each
// job's bytes in the prefetch window, starts it on a worker token and hands
// it to Next in order.
func (s *Scanner) produce() {
	defer close(s.out)
	ctx := s.x.ctx
	for {
		j, err := s.gen.next()
		if err != nil {
			j = &job{err: err, done: make(chan struct{})}
			close(j.done)
			s.out <- j
			return
		}
		if j == nil {
			return
		}
		if err := s.win.reserve(ctx, j.reserve, j.pinned); err != nil {
			s.gen.abandon(j)
			return
		}
		if j.unit != nil {
			// Fetch the unit here, before taking a token: its reads overlap
			// the decoding of the units before it, and no worker waits for
			// them. A failed fetch surfaces through the unit's batches.
			j.unit.ready()
		}
		if err := s.x.w.acquire(ctx); err != nil {
			s.win.adjust(-j.reserve)
			s.gen.abandon(j)
			return
		}
		j.done = make(chan struct{})
		go func() {
			defer close(j.done)
			defer s.x.w.release()
			s.runJob(j)
		}()
		s.out <- j // buffered beyond what the window lets run
	}
}

// jobKind says what a job reads.
type jobKind uint8

const (
	jobBatch  jobKind = iota // rows [lo, hi) of row-aligned columns, part of a unit
	jobStripe                // whole projected columns of a stripe, trimmed
	jobFilter                // a filtered stripe
)

// job is one batch's worth of work of a scan.
type job struct {
	kind     jobKind
	stripe   int
	lo, hi   int64 // stripe rows
	skip     int64 // jobStripe: rows to drop at the front (offset)
	unit     *unit
	reserve  int64 // window bytes reserved when the job was started
	estimate int64 // the part of reserve that is the decoded batch's estimate
	// binStored and fixed (jobBatch) are the stored bytes of the batch's
	// binary chunks and the exact decoded size of its fixed-width columns.
	binStored, fixed int64
	held             int64 // window bytes the finished job still holds (its batch)
	// pinned is the part of the window held for the job until it runs:
	// its unit's fetched bytes, which the unit's first job reserved and
	// its last to run releases.
	pinned int64

	done chan struct{}
	rec  arrow.Record
	err  error
	st   ScanStats
}

// unit is the shared fetch of consecutive flat batches of a stripe: their
// chunks are declared together and read in one coalesced call by the
// first batch that runs, so each stream is read in few large pieces.
type unit struct {
	io    *stripeIO
	once  sync.Once
	err   error
	bytes int64 // fetched bytes reserved in the window
	left  atomic.Int32
}

func (u *unit) ready() error {
	u.once.Do(func() { u.err = u.io.fetch() })
	return u.err
}

// runJob does a job's work on the calling goroutine.
func (s *Scanner) runJob(j *job) {
	f, x := s.f, s.x
	switch j.kind {
	case jobBatch:
		if err := j.unit.ready(); err != nil {
			j.err = err
		} else {
			j.rec, j.err = f.readRange(x, j.unit.io, s.cols, j.lo, j.hi)
			j.st.RowsScanned += j.hi - j.lo
		}
		j.unit.io.flush(&j.st)
	case jobStripe:
		j.rec, j.err = s.readStripe(j)
	case jobFilter:
		io, err := f.newStripeIO(x.ctx, j.stripe)
		if err != nil {
			j.err = err
			break
		}
		j.rec, j.err = f.scanStripe(x, io, s.cols, s.q, int(j.lo), int(j.hi), &j.st)
		io.flush(&j.st)
	}
	if j.err != nil && j.rec != nil {
		j.rec.Release()
		j.rec = nil
	}
	if j.rec != nil {
		j.held = RecordBytes(j.rec)
	}
	// The decoded estimate becomes the batch's real size.
	s.win.adjust(j.held - j.estimate)
	if j.unit != nil && j.err == nil {
		s.gen.observe(j.binStored, j.held-j.fixed)
	}
	if j.unit != nil && j.unit.left.Add(-1) == 0 {
		s.win.adjust(-j.unit.bytes)
		j.unit.io = nil // drop the fetched bytes
	} else if j.unit == nil {
		s.win.adjust(-(j.reserve - j.estimate))
	}
}

// readStripe reads whole projected columns of a stripe, trimmed to the
// job's rows.
func (s *Scanner) readStripe(j *job) (arrow.Record, error) {
	f := s.f
	io, err := f.newStripeIO(s.x.ctx, j.stripe)
	if err != nil {
		return nil, err
	}
	defer io.flush(&j.st)
	for _, c := range s.cols {
		if err := f.needColumn(io, c); err != nil {
			return nil, err
		}
	}
	if err := io.fetch(); err != nil {
		return nil, err
	}
	rec, err := f.readColumns(s.x, io, s.cols)
	if err != nil {
		return nil, err
	}
	rows := f.f.Stripe(j.stripe).Rows
	j.st.RowsScanned += rows
	if j.skip == 0 && j.hi-j.lo == rows {
		return rec, nil
	}
	out := rec.NewSlice(j.skip, j.skip+j.hi-j.lo)
	rec.Release()
	return out, nil
}

// jobGen lists a scan's jobs in order. It applies Offset and Limit to
// unfiltered scans, whose row counts it knows, skipping whole stripes and
// batches without reading them.
type jobGen struct {
	f          *File
	s          *Scanner
	r          scanRange
	stripe     int
	pos        int64 // next row of the current stripe (flat scans)
	skip, left int64
	flat       bool
	queue      []*job
	st         ScanStats // counted while generating (stripes skipped)
	// target is the fetched bytes a unit aims for; ratio estimates the
	// decoded bytes of binary columns from their stored bytes (updated as
	// batches end; fixed-width columns are sized exactly).
	target int64
	mu     sync.Mutex
	ratio  float64
}

// next returns the next job, nil at the end.
func (g *jobGen) next() (*job, error) {
	for len(g.queue) == 0 {
		if g.stripe >= g.r.hi || g.left == 0 {
			return nil, nil
		}
		if err := g.fill(); err != nil {
			return nil, err
		}
	}
	j := g.queue[0]
	g.queue = g.queue[1:]
	return j, nil
}

// abandon drops the jobs the producer will not start (the scan is ending).
func (g *jobGen) abandon(*job) { g.queue = nil }

// observe records the decoded bytes of a batch's binary columns against
// their stored bytes, refining the estimate later batches reserve.
func (g *jobGen) observe(stored, decoded int64) {
	if stored <= 0 {
		return
	}
	g.mu.Lock()
	g.ratio = 0.75*g.ratio + 0.25*float64(decoded)/float64(stored)
	g.mu.Unlock()
}

// fill queues the jobs of the next stripe or unit.
func (g *jobGen) fill() error {
	f, i := g.f, g.stripe
	info := f.f.Stripe(i)
	rows := info.Rows
	switch {
	case g.s.q != nil:
		g.stripe++
		lo, hi := g.r.rows(f, i)
		if lo >= hi {
			return nil
		}
		est, err := f.stripeBytes(g.s.x.ctx, i, g.s.cols, g.s.q)
		if err != nil {
			return err
		}
		g.queue = append(g.queue, &job{kind: jobFilter, stripe: i, lo: lo, hi: hi, reserve: est, estimate: 0})
		return nil
	case !g.flat:
		g.stripe++
		if g.skip >= rows {
			g.skip -= rows
			g.st.StripesSkipped++
			return nil
		}
		keep := rows - g.skip
		if g.left >= 0 && keep > g.left {
			keep = g.left
		}
		if g.left >= 0 {
			g.left -= keep
		}
		est, err := f.stripeBytes(g.s.x.ctx, i, g.s.cols, nil)
		if err != nil {
			return err
		}
		j := &job{kind: jobStripe, stripe: i, skip: g.skip, lo: 0, hi: keep, reserve: est}
		g.skip = 0
		g.queue = append(g.queue, j)
		return nil
	}
	if g.pos == 0 && g.skip >= rows {
		g.skip -= rows
		g.st.StripesSkipped++
		g.stripe++
		return nil
	}
	if g.pos >= rows {
		g.stripe++
		g.pos = 0
		return nil
	}
	return g.fillUnit(i, rows)
}

// fillUnit queues the flat batches of stripe i from g.pos whose chunks
// add up to about the unit target, sharing one fetch.
func (g *jobGen) fillUnit(i int, rows int64) error {
	f, cols := g.f, g.s.cols
	io, err := f.newStripeIO(g.s.x.ctx, i)
	if err != nil {
		return err
	}
	u := &unit{io: io}
	var jobs []*job
	var fetched int64
	for g.pos < rows && g.left != 0 {
		lo := g.pos
		hi, err := f.batchEnd(io.infos, i, cols, lo)
		if err != nil {
			return err
		}
		if hi <= lo || hi > rows {
			return fmt.Errorf("read: stripe %d: bad chunk boundary %d after row %d: %w", i, hi, lo, encoding.ErrCorrupt)
		}
		if g.skip >= hi-lo {
			g.skip -= hi - lo
			g.pos = hi
			continue
		}
		blo, bhi := lo+g.skip, hi
		if g.left >= 0 && bhi-blo > g.left {
			bhi = blo + g.left
		}
		size, binStored := f.rangeBytes(io, cols, blo, bhi)
		if len(jobs) > 0 && fetched+size > g.target {
			break
		}
		g.skip = 0
		g.pos = hi
		if g.left >= 0 {
			g.left -= bhi - blo
		}
		if err := f.needRows(io, cols, blo, bhi); err != nil {
			return err
		}
		fetched += size
		fixed := f.fixedBytes(cols, bhi-blo)
		est := fixed + int64(float64(binStored)*g.estimateRatio())
		jobs = append(jobs, &job{kind: jobBatch, stripe: i, lo: blo, hi: bhi, unit: u, binStored: binStored, fixed: fixed, reserve: est, estimate: est})
	}
	if len(jobs) == 0 {
		return nil
	}
	u.bytes = fetched
	u.left.Store(int32(len(jobs)))
	jobs[0].reserve += fetched
	for _, j := range jobs[1:] {
		j.pinned = fetched
	}
	g.queue = append(g.queue, jobs...)
	return nil
}

func (g *jobGen) estimateRatio() float64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.ratio
}

// rangeBytes sums the stored bytes of the chunks of cols that hold stripe
// rows [lo, hi), and separately those of binary columns.
func (f *File) rangeBytes(io *stripeIO, cols []int, lo, hi int64) (all, binary int64) {
	for _, c := range cols {
		id := f.rowAligned(c)
		info := io.stream(id)
		var n int64
		for ci := info.ChunkForRow(lo); ci >= 0 && ci < len(info.Chunks) && info.Chunks[ci].FirstRow < hi; ci++ {
			n += info.Chunks[ci].Size
		}
		all += n
		if f.sch.Stream(id).Type == encoding.Binary {
			binary += n
		}
	}
	return all, binary
}

// fixedBytes is the decoded size of rows of the fixed-width columns among
// cols: values (as Arrow lays them out) and a validity bitmap.
func (f *File) fixedBytes(cols []int, rows int64) int64 {
	var n int64
	for _, c := range cols {
		if fw, ok := f.field(c).Type.(arrow.FixedWidthDataType); ok {
			n += (rows*int64(fw.BitWidth())+7)/8 + (rows+7)/8
		}
	}
	return n
}

// stripeBytes bounds what reading a stripe's projected columns (and the
// filter's, when q is set) fetches: the sizes of their streams.
func (f *File) stripeBytes(ctx context.Context, i int, cols []int, q *query) (int64, error) {
	infos, err := f.f.Streams(ctx, i)
	if err != nil {
		return 0, err
	}
	seen := map[int]bool{}
	var n int64
	add := func(id int) {
		if !seen[id] && id >= 0 && id < len(infos) {
			seen[id] = true
			n += infos[id].Size
		}
	}
	for _, c := range cols {
		for _, id := range f.columnStreams(c) {
			add(id)
		}
	}
	if q != nil {
		for _, id := range q.stream {
			add(id)
		}
		for _, id := range q.inmap {
			add(id)
		}
		for _, ids := range q.anc {
			for _, id := range ids {
				add(id)
			}
		}
	}
	return n, nil
}

// unitTarget is the fetched bytes a flat scan's unit aims for: large enough
// that each stream is read in few pieces, small enough that the window
// holds a unit per worker and their batches. A local file gains little
// from large reads, so units stay near the processor caches' size there.
func (f *File) unitTarget(budget int64, par int) int64 {
	t := budget / int64(3*(par+1))
	return max(min(t, f.maxUnit()), 64<<10)
}

// maxUnit is the largest unit worth reading for the file's source. A
// source that prefers long reads (one that reads through holes of more
// than the local default, as object stores do) gets units of its largest
// read times the reads it keeps in flight; a local file or memory gets
// 1 MiB, which keeps a unit's bytes near the processor caches until its
// batches decode them.
func (f *File) maxUnit() int64 {
	h := f.fetch.Hints()
	if h.Gap > iox.DefaultGap && h.MaxRead > 0 {
		return h.MaxRead * int64(max(h.InFlight, 1))
	}
	return 1 << 20
}

// RecordBytes is the memory a record's arrays hold: the bytes of their
// buffers, children's and dictionaries' included. Readers that queue
// batches (a scan's prefetch window, an engine's read-ahead) bound their
// queues by it.
func RecordBytes(rec arrow.Record) int64 {
	var n int64
	for _, c := range rec.Columns() {
		n += dataBytes(c.Data())
	}
	return n
}

func dataBytes(d arrow.ArrayData) int64 {
	var n int64
	for _, b := range d.Buffers() {
		if b != nil {
			n += int64(b.Len())
		}
	}
	for _, c := range d.Children() {
		n += dataBytes(c)
	}
	if d.DataType().ID() == arrow.DICTIONARY {
		n += dataBytes(d.Dictionary())
	}
	return n
}

// window is a scan's prefetch budget: bytes fetched ahead and batches
// decoded but not yet returned. reserve waits while the budget is used up,
// except when nothing is held but the bytes pinned for the job itself (its
// unit's fetch, released only once the job has run), so a job larger than
// the budget still runs (alone).
type window struct {
	mu    sync.Mutex
	cond  *sync.Cond
	limit int64
	used  int64
	peak  int64
}

func newWindow(limit int64) *window {
	w := &window{limit: limit}
	w.cond = sync.NewCond(&w.mu)
	return w
}

func (w *window) reserve(ctx context.Context, n, pinned int64) error {
	stop := context.AfterFunc(ctx, func() {
		w.mu.Lock()
		w.cond.Broadcast()
		w.mu.Unlock()
	})
	defer stop()
	w.mu.Lock()
	defer w.mu.Unlock()
	for w.used > pinned && w.used+n > w.limit {
		if err := ctx.Err(); err != nil {
			return err
		}
		w.cond.Wait()
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	w.used += n
	w.peak = max(w.peak, w.used)
	return nil
}

func (w *window) adjust(d int64) {
	if d == 0 {
		return
	}
	w.mu.Lock()
	w.used += d
	w.peak = max(w.peak, w.used)
	w.mu.Unlock()
	if d < 0 {
		w.cond.Broadcast()
	}
}

func (w *window) peakBytes() int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.peak
}
