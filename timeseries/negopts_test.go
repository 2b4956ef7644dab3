package timeseries

import (
	"errors"
	"math"
	"strings"
	"testing"

	"strata/read"
	"strata/write"
)

// TestNegativeWriterOptions: a negative ChunkRows, MinChunkRows,
// BlockSize or PageBytes, or a negative size of the table writer's
// options, is refused when the writer starts, naming the option, where it
// took the default without a word; 0 takes the default, and small
// positive sizes write files whose rows read back.
func TestNegativeWriterOptions(t *testing.T) {
	cases := []struct {
		name string
		set  func(*WriterOptions, int)
	}{
		{"WriterOptions.ChunkRows", func(o *WriterOptions, v int) { o.ChunkRows = v }},
		{"WriterOptions.MinChunkRows", func(o *WriterOptions, v int) { o.MinChunkRows = v }},
		{"WriterOptions.BlockSize", func(o *WriterOptions, v int) { o.BlockSize = v }},
		{"WriterOptions.PageBytes", func(o *WriterOptions, v int) { o.PageBytes = v }},
		{"Options.StripeBytes", func(o *WriterOptions, v int) { o.Table.StripeBytes = v }},
		{"Options.Parallel", func(o *WriterOptions, v int) { o.Table.Parallel = v }},
		{"Options.StripeGroup", func(o *WriterOptions, v int) { o.Table.StripeGroup = v }},
	}
	var pts []point
	for k := range 3 {
		for i := range 40 {
			pts = append(pts, point{k: string(rune('a' + k)), t: int64(i), v: float64(k*100 + i)})
		}
	}
	for _, c := range cases {
		for _, v := range []int{-1, math.MinInt} {
			var o WriterOptions
			c.set(&o, v)
			_, err := NewWriter(&strings.Builder{}, pointSchema, pointModel, &o)
			if !errors.Is(err, read.ErrInvalidArgument) || !strings.Contains(err.Error(), c.name+" is -") {
				t.Errorf("%s %d: %v, want an invalid argument naming it", c.name, v, err)
			}
		}
		for _, v := range []int{0, 1, 3} {
			var o WriterOptions
			c.set(&o, v)
			f := pointFile(t, pts, &o)
			samePoints(t, c.name, queryPoints(t, f, QueryOptions{}), pts)
			f.Close()
		}
	}
	// a negative ChunkTarget keeps its meaning: every chunk cut at
	// ChunkRows
	f := pointFile(t, pts, &WriterOptions{ChunkRows: 16, Table: write.Options{ChunkTarget: -1}})
	samePoints(t, "ChunkTarget -1", queryPoints(t, f, QueryOptions{}), pts)
	f.Close()
}
