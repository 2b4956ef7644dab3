package timeseries

import (
	"errors"
	"math"
	"testing"
	"time"

	"strata/encoding"
	"strata/iox"
)

// TestStatsPageOfOtherVersion reads every statistics page of a version 1
// index with version 2's layout (a version byte of 2 over a version 1
// body) and the reverse: each must fail as corrupt. Records 16 bytes
// shorter or longer than read mostly run off the page, but one page of
// this file parsed whole as version 2, its first unit's first value
// 8.6e9 where its values lie in [38, 40]: a record whose first or last
// lies outside its minimum and maximum is now refused.
func TestStatsPageOfOtherVersion(t *testing.T) {
	recs, _ := tsbsData(t, 12, 2*time.Hour, false)
	for _, version := range []int{1, 2} {
		data := writeFile(t, recs, tsbsModel, &WriterOptions{Sorted: true, ChunkRows: 10, PageBytes: 256, indexVersion: version})
		f, err := OpenSource(ctx, iox.Bytes(data), nil)
		if err != nil {
			t.Fatal(err)
		}
		_, pages := indexPages(t, data)
		own, other := *f.l, *f.l
		other.ends = !own.ends
		n := 0
		for _, p := range pages {
			if p[0] != pageStats {
				continue
			}
			n++
			if _, err := decodeStats(p, &own); err != nil {
				t.Fatalf("version %d page read as written: %v", version, err)
			}
			if sp, err := decodeStats(p, &other); !errors.Is(err, encoding.ErrCorrupt) {
				t.Fatalf("version %d page of units from %d read with the other layout: %v, err %v", version, sp.first, sp.stats, err)
			}
		}
		if n < 100 {
			t.Fatalf("version %d: %d statistics pages", version, n)
		}
		f.Close()
	}
}

// TestStatsRecordPlausible checks which records decodeStats takes: those
// the writer can write (NaN, infinities standing in for a NaN, zeros of
// either sign) and not a minimum above the maximum or a first or last
// outside them.
func TestStatsRecordPlausible(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	negZero := math.Copysign(0, -1)
	l := &layout{nnum: 1, ends: true}
	for _, c := range []struct {
		s  unitStats
		ok bool
	}{
		{unitStats{count: 2, min: 1, max: 2, sum: 3, first: 1, last: 2}, true},
		{unitStats{count: 2, min: negZero, max: 0, first: 0, last: negZero}, true},
		{unitStats{count: 2, min: nan, max: nan, sum: nan, first: 7, last: nan}, true},
		{unitStats{count: 3, min: -inf, max: inf, sum: nan, first: nan, last: 1}, true},
		{unitStats{count: 2, min: -inf, max: nan, sum: nan, first: -inf, last: nan}, true},
		{unitStats{count: 2, min: 2, max: 1, sum: 3, first: 2, last: 1}, false},
		{unitStats{count: 2, min: 1, max: 2, sum: 3, first: 5, last: 2}, false},
		{unitStats{count: 2, min: 1, max: 2, sum: 3, first: 1, last: -1}, false},
	} {
		c.s.ends = true
		p := appendStats(nil, 0, [][]unitStats{{c.s}}, true)
		sp, err := decodeStats(p, l)
		if c.ok && (err != nil || len(sp.stats) != 1) {
			t.Errorf("%+v: %v", c.s, err)
		}
		if !c.ok && !errors.Is(err, encoding.ErrCorrupt) {
			t.Errorf("%+v: err %v, want corrupt", c.s, err)
		}
	}
}
