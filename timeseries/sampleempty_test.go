package timeseries

import (
	"testing"
)

// TestSampleNoWindows: a stacked Sample of 0 windows returns one record
// of no rows whose schema is a stacked sample's (the window column, then
// the chosen columns, a key column among them), as its doc says, where it
// returned no record; an unstacked one returns no record.
func TestSampleNoWindows(t *testing.T) {
	var pts []point
	for k := range 2 {
		for i := range 30 {
			pts = append(pts, point{k: string(rune('a' + k)), t: int64(i), v: float64(i)})
		}
	}
	f := pointFile(t, pts, nil)
	defer f.Close()
	for _, cols := range [][]string{nil, {"k", "v"}} {
		o := SampleOptions{Windows: 2, Length: 5, Columns: cols, Stacked: true}
		some, _, err := f.Sample(t.Context(), o)
		if err != nil || len(some) != 1 {
			t.Fatalf("columns %v, 2 windows stacked: %d records, %v", cols, len(some), err)
		}
		o.Windows = 0
		none, _, err := f.Sample(t.Context(), o)
		if err != nil || len(none) != 1 {
			t.Fatalf("columns %v, 0 windows stacked: %d records, %v; want one", cols, len(none), err)
		}
		if none[0].NumRows() != 0 || !none[0].Schema().Equal(some[0].Schema()) {
			t.Errorf("columns %v, 0 windows stacked: %d rows of %s; want none of %s", cols, none[0].NumRows(), none[0].Schema(), some[0].Schema())
		}
		for c := range int(none[0].NumCols()) {
			if n := none[0].Column(c).Len(); n != 0 {
				t.Errorf("columns %v: column %d holds %d values", cols, c, n)
			}
		}
		some[0].Release()
		none[0].Release()
		o.Stacked = false
		if recs, _, err := f.Sample(t.Context(), o); err != nil || len(recs) != 0 {
			t.Errorf("columns %v, 0 windows: %d records, %v; want none", cols, len(recs), err)
		}
	}
}
