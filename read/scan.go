package read

import (
	"context"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"

	"strata/encoding"
)

// ScanOptions select what a scan returns.
type ScanOptions struct {
	// Columns are the top-level columns to return, all when empty.
	Columns []string
	// Where is a filter in the SQL-like syntax of package filter.
	Where string
	// Offset skips this many rows (after filtering); Limit caps the rows
	// returned (0: no limit).
	Offset, Limit int64
}

// ScanStats counts what a scan did at each level.
type ScanStats struct {
	RowsScanned  int64 // rows in stripes that were not pruned
	RowsReturned int64
	Stripes      int
	// Pruned counts at each level.
	StripesPrunedStats int
	StripesPrunedBloom int
	StripesSkipped     int // by offset/limit
	ChunksPrunedStats  int
	ChunksAllMatch     int // chunks that passed on statistics without evaluating rows
	ChunksNoSurvivors  int // payload chunks not read because no row survived
	BlocksPruned       int // encoding blocks (or whole dictionary chunks) settled from headers inside decoders
	ChunksDecoded      int
	ChunksGathered     int
	// ChunksAggCompressed counts chunks an aggregate folded on their runs
	// or dictionary ids without materializing values.
	ChunksAggCompressed int
	// FilePruned is set when file statistics proved no row can match.
	FilePruned bool
	BytesRead  int64
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
	return fmt.Sprintf("%srows scanned %d, returned %d; stripes %d (pruned by stats %d, by bloom %d, skipped %d); chunks pruned by stats %d, all-match %d, no survivors %d, decoded %d, gathered %d%s; encoding blocks settled from headers %d; bytes read %d",
		file, s.RowsScanned, s.RowsReturned, s.Stripes, s.StripesPrunedStats, s.StripesPrunedBloom, s.StripesSkipped,
		s.ChunksPrunedStats, s.ChunksAllMatch, s.ChunksNoSurvivors, s.ChunksDecoded, s.ChunksGathered, agg, s.BlocksPruned, s.BytesRead)
}

// Scanner streams the batches of a scan, one per stripe with surviving rows.
type Scanner struct {
	ctx    context.Context // the reads of the scan run under it
	f      *File
	cols   []int
	opts   ScanOptions
	q      *query
	stripe int
	skip   int64 // rows still to skip for Offset
	left   int64 // rows still to return for Limit (-1: unlimited)
	stats  ScanStats
	done   bool
	flat   bool  // every projected column is row-aligned: chunk-sized batches
	pos    int64 // next row within the current stripe (flat scans)
}

// nextFlat returns the next chunk-sized batch of a flat scan without a
// filter, or nil when the current stripe is done (the caller moves on).
func (s *Scanner) nextFlat() (arrow.Record, error) {
	ctx := s.ctx
	i := s.stripe
	rows := s.f.f.Stripe(i).Rows
	if s.pos == 0 {
		s.stats.Stripes++
		if s.skip >= rows {
			s.skip -= rows
			s.stats.StripesSkipped++
			s.stripe++
			return nil, nil
		}
	}
	for s.pos < rows {
		lo := s.pos
		hi, err := s.f.batchEnd(ctx, i, s.cols[0], lo)
		if err != nil {
			return nil, err
		}
		if hi <= lo || hi > rows {
			return nil, fmt.Errorf("read: stripe %d: bad chunk boundary %d after row %d: %w", i, hi, lo, encoding.ErrCorrupt)
		}
		s.pos = hi
		if s.skip >= hi-lo {
			s.skip -= hi - lo
			continue
		}
		lo += s.skip
		s.skip = 0
		if s.left >= 0 && hi-lo > s.left {
			hi = lo + s.left
		}
		rec, err := s.f.readRange(ctx, i, s.cols, lo, hi, &s.stats)
		if err != nil {
			return nil, err
		}
		s.stats.RowsScanned += hi - lo
		if s.left >= 0 {
			s.left -= hi - lo
		}
		s.stats.RowsReturned += hi - lo
		return rec, nil
	}
	s.stripe++
	s.pos = 0
	return nil, nil
}

// Scan starts a scan.
func (f *File) Scan(opts ScanOptions) (*Scanner, error) {
	cols, err := f.columnIndexes(opts.Columns)
	if err != nil {
		return nil, err
	}
	s := &Scanner{ctx: context.Background(), f: f, cols: cols, opts: opts, skip: opts.Offset, left: -1, flat: f.flatColumns(cols)}
	if opts.Limit > 0 {
		s.left = opts.Limit
	}
	if opts.Where != "" {
		q, err := f.compile(opts.Where)
		if err != nil {
			return nil, err
		}
		s.q = q
		if f.filePruned(q) {
			s.stats.FilePruned = true
			s.done = true
		}
	}
	return s, nil
}

// Stats returns what the scan has done so far.
func (s *Scanner) Stats() ScanStats { return s.stats }

// Close ends the scan.
func (s *Scanner) Close() error { s.done = true; return nil }

// Next returns the next batch or io.EOF.
func (s *Scanner) Next() (arrow.Record, error) {
	ctx := s.ctx
	for !s.done && s.stripe < s.f.f.NumStripes() {
		if s.left == 0 {
			s.done = true
			break
		}
		if s.q == nil && s.flat {
			rec, err := s.nextFlat()
			if err != nil || rec != nil {
				return rec, err
			}
			continue
		}
		i := s.stripe
		s.stripe++
		rows := s.f.f.Stripe(i).Rows
		s.stats.Stripes++
		if s.q == nil {
			if s.skip >= rows {
				s.skip -= rows
				s.stats.StripesSkipped++
				continue
			}
			s.stats.RowsScanned += rows
			rec, err := s.f.ReadStripe(ctx, i, s.cols, &s.stats)
			if err != nil {
				return nil, err
			}
			return s.window(rec), nil
		}
		rec, err := s.f.scanStripe(ctx, i, s.cols, s.q, &s.stats)
		if err != nil {
			return nil, err
		}
		if rec == nil {
			continue
		}
		if rec.NumRows() <= s.skip {
			s.skip -= rec.NumRows()
			rec.Release()
			continue
		}
		return s.window(rec), nil
	}
	return nil, io.EOF
}

// window applies the remaining offset and limit to a batch.
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
