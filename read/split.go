package read

import (
	"context"
	"encoding/json"
	"fmt"
)

// Split is a stripe-aligned piece of a file that one worker scans: stripes
// [FirstStripe, FirstStripe+Stripes), holding Rows rows from FirstRow and
// Bytes bytes of stripe data. It serializes to JSON, so a planner can hand
// it to another process or machine that knows only where the file is:
// that process opens the file (its metadata comes from the file itself, or
// the metadata cache) and scans with ScanOptions.Split set. FileSize ties a
// split to the file it was cut from: a split of a file since rewritten is
// refused (ErrInvalidArgument) rather than read against different stripes.
type Split struct {
	// Location is where the file lives (a path or URL), for the planner's
	// convenience; the reader does not use it.
	Location    string `json:"location,omitempty"`
	FileSize    int64  `json:"file_size"`
	FirstStripe int    `json:"first_stripe"`
	Stripes     int    `json:"stripes"`
	FirstRow    int64  `json:"first_row"`
	Rows        int64  `json:"rows"`
	Bytes       int64  `json:"bytes"`
}

// Splits cuts the file into stripe-aligned pieces of about targetBytes of
// stripe data each (at least one stripe per piece; targetBytes ≤ 0 gives
// one piece per stripe). The pieces cover every stripe once, in order.
func (f *File) Splits(targetBytes int64) []Split {
	var out []Split
	n := f.f.NumStripes()
	for i := 0; i < n; {
		sp := Split{FileSize: f.f.Size(), FirstStripe: i, FirstRow: f.f.Stripe(i).FirstRow}
		for i < n {
			st := f.f.Stripe(i)
			if sp.Stripes > 0 && (targetBytes <= 0 || sp.Bytes+st.Size > targetBytes) {
				break
			}
			sp.Stripes++
			sp.Rows += st.Rows
			sp.Bytes += st.Size
			i++
		}
		out = append(out, sp)
	}
	return out
}

// ParseSplit decodes a split from its JSON form.
func ParseSplit(b []byte) (*Split, error) {
	var s Split
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("read: split: %w", err)
	}
	return &s, nil
}

// checkSplit verifies that a split belongs to this file.
func (f *File) checkSplit(s *Split) error {
	n := f.f.NumStripes()
	if s.FileSize != f.f.Size() {
		return fmt.Errorf("read: split of a %d-byte file, this file has %d bytes: %w", s.FileSize, f.f.Size(), ErrInvalidArgument)
	}
	if s.FirstStripe < 0 || s.Stripes < 0 || s.FirstStripe > n || s.Stripes > n-s.FirstStripe {
		return fmt.Errorf("read: split stripes [%d,+%d) outside the file's %d: %w", s.FirstStripe, s.Stripes, n, ErrInvalidArgument)
	}
	if s.Stripes == 0 && s.Rows != 0 {
		return fmt.Errorf("read: split of no stripe holds %d rows: %w", s.Rows, ErrInvalidArgument)
	}
	if s.Stripes > 0 {
		first := f.f.Stripe(s.FirstStripe).FirstRow
		last := f.f.Stripe(s.FirstStripe + s.Stripes - 1)
		if s.FirstRow != first || s.Rows != last.FirstRow+last.Rows-first {
			return fmt.Errorf("read: split rows [%d,+%d) do not match its stripes [%d,+%d): %w", s.FirstRow, s.Rows, first, last.FirstRow+last.Rows-first, ErrInvalidArgument)
		}
	}
	return nil
}

// scanRange is the part of a file a query visits: stripes [lo, hi), and
// within them the file rows [rowLo, rowHi) that cluster indexes allow.
type scanRange struct {
	lo, hi       int
	rowLo, rowHi int64
}

// rows returns the stripe-relative rows of stripe i inside the range.
func (r scanRange) rows(f *File, i int) (lo, hi int64) {
	s := f.f.Stripe(i)
	lo = max(r.rowLo-s.FirstRow, 0)
	hi = min(r.rowHi-s.FirstRow, s.Rows)
	if hi < lo {
		hi = lo
	}
	return lo, hi
}

// stripeRange resolves the stripes a query visits: the split's (all when
// nil), less those file statistics or cluster indexes rule out. Planning
// costs O(log chunks) of a sorted column once its index is built.
func (f *File) stripeRange(ctx context.Context, sp *Split, q *query, st *ScanStats) (scanRange, error) {
	r := scanRange{hi: f.f.NumStripes(), rowHi: f.NumRows()}
	if sp != nil {
		if err := f.checkSplit(sp); err != nil {
			return r, err
		}
		r.lo, r.hi = sp.FirstStripe, sp.FirstStripe+sp.Stripes
		r.rowLo, r.rowHi = sp.FirstRow, sp.FirstRow+sp.Rows
	}
	st.Stripes += r.hi - r.lo
	if q == nil {
		return r, nil
	}
	if f.filePruned(q) {
		st.FilePruned = true
		r.hi = r.lo
		return r, nil
	}
	lo, hi, ok := f.indexRows(ctx, q)
	if !ok {
		return r, nil
	}
	r.rowLo, r.rowHi = max(r.rowLo, lo), min(r.rowHi, hi)
	n := r.hi - r.lo
	if r.rowLo >= r.rowHi {
		r.hi = r.lo
	} else {
		r.lo = max(r.lo, f.f.StripeForRow(r.rowLo))
		r.hi = min(r.hi, f.f.StripeForRow(r.rowHi-1)+1)
	}
	st.StripesPrunedIndex += n - (r.hi - r.lo)
	return r, nil
}
