package tpch

import (
	"fmt"
	"hash/maphash"
	"math"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// colStats summarizes one column: numeric min/max (for strings: lengths),
// string min/max, and the distinct count (exact for numbers; for strings
// counted on 64-bit hashes, where a collision among a million values has
// probability ~1e-8).
type colStats struct {
	name       string
	rows       int64
	min, max   int64 // value (numbers, dates) or length (strings)
	smin, smax string
	isString   bool
	seen       bool
	distinct   int
	leadSpace  int64    // strings starting with a space (comment shape)
	vals       []uint64 // values or string hashes, for the distinct count
}

type tableStats struct {
	rows int64
	cols []*colStats
}

var statsSeed = maphash.MakeSeed()

func newTableStats(s *arrow.Schema) *tableStats {
	t := &tableStats{}
	for _, f := range s.Fields() {
		t.cols = append(t.cols, &colStats{name: f.Name, min: math.MaxInt64, max: math.MinInt64,
			isString: f.Type.ID() == arrow.STRING})
	}
	return t
}

func (c *colStats) addInt(v int64) {
	c.min = min(c.min, v)
	c.max = max(c.max, v)
	c.vals = append(c.vals, uint64(v))
}

func (t *tableStats) add(rec arrow.RecordBatch) {
	t.rows += rec.NumRows()
	for i, col := range rec.Columns() {
		c := t.cols[i]
		c.rows += int64(col.Len())
		switch a := col.(type) {
		case *array.Int32:
			for _, v := range a.Int32Values() {
				c.addInt(int64(v))
			}
		case *array.Int64:
			for _, v := range a.Int64Values() {
				c.addInt(v)
			}
		case *array.Date32:
			for _, v := range a.Date32Values() {
				c.addInt(int64(v))
			}
		case *array.String:
			for j := 0; j < a.Len(); j++ {
				s := a.Value(j)
				if !c.seen || s < c.smin {
					c.smin = strings.Clone(s)
					c.seen = true
				}
				if s > c.smax {
					c.smax = strings.Clone(s)
				}
				c.min = min(c.min, int64(len(s)))
				c.max = max(c.max, int64(len(s)))
				if len(s) > 0 && s[0] == ' ' {
					c.leadSpace++
				}
				c.vals = append(c.vals, maphash.String(statsSeed, s))
			}
		default:
			panic(fmt.Sprintf("unexpected column type %T", col))
		}
	}
}

func (t *tableStats) finish() {
	for _, c := range t.cols {
		slices.Sort(c.vals)
		c.distinct = len(slices.Compact(c.vals))
		c.vals = nil
	}
}
