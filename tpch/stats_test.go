package tpch

import (
	"fmt"
	"math"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// colStats summarizes one column: numeric min/max (for strings: lengths),
// string min/max, and the exact distinct count.
type colStats struct {
	name       string
	rows       int64
	min, max   int64 // value (numbers, dates) or length (strings)
	smin, smax string
	isString   bool
	seen       bool
	distinct   int
	leadSpace  int64 // strings starting with a space (comment shape)
	ints       map[int64]struct{}
	strs       map[string]struct{}
}

type tableStats struct {
	rows int64
	cols []*colStats
}

func newTableStats(s *arrow.Schema) *tableStats {
	t := &tableStats{}
	for _, f := range s.Fields() {
		c := &colStats{name: f.Name, min: math.MaxInt64, max: math.MinInt64}
		if f.Type.ID() == arrow.STRING {
			c.isString = true
			c.strs = map[string]struct{}{}
		} else {
			c.ints = map[int64]struct{}{}
		}
		t.cols = append(t.cols, c)
	}
	return t
}

func (c *colStats) addInt(v int64) {
	c.min = min(c.min, v)
	c.max = max(c.max, v)
	if c.ints != nil {
		c.ints[v] = struct{}{}
	}
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
				c.addInt(int64(len(s)))
				if len(s) > 0 && s[0] == ' ' {
					c.leadSpace++
				}
				if _, ok := c.strs[s]; !ok {
					c.strs[strings.Clone(s)] = struct{}{}
				}
			}
		default:
			panic(fmt.Sprintf("unexpected column type %T", col))
		}
	}
}

func (t *tableStats) finish() {
	for _, c := range t.cols {
		if c.isString {
			c.distinct = len(c.strs)
			c.strs = nil
		} else {
			c.distinct = len(c.ints)
		}
		c.ints = nil
	}
}
