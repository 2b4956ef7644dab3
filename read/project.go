package read

import (
	"slices"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
)

// projCache remembers a File's recent projections: the column indexes of
// a list of names and the Arrow schema of a list of indexes. Point
// lookups and small batches repeat theirs, and resolving names through
// the schema's index and building a projected schema (its own name index)
// cost about a fifth of a warm one-row Take of two columns.
type projCache struct {
	mu      sync.Mutex
	names   [projSlots]namesEntry
	schemas [projSlots]schemaEntry
	nn, ns  int // next slot to replace
}

const projSlots = 8

type namesEntry struct {
	names []string
	cols  []int
}

type schemaEntry struct {
	cols []int
	sch  *arrow.Schema
}

// colsFor returns a copy of the indexes cached for names.
func (c *projCache) colsFor(names []string) ([]int, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := range c.names {
		if e := &c.names[i]; e.cols != nil && slices.Equal(e.names, names) {
			return slices.Clone(e.cols), true
		}
	}
	return nil, false
}

func (c *projCache) putCols(names []string, cols []int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.names[c.nn] = namesEntry{names: slices.Clone(names), cols: slices.Clone(cols)}
	c.nn = (c.nn + 1) % projSlots
}

// schemaFor returns the schema cached for cols.
func (c *projCache) schemaFor(cols []int) *arrow.Schema {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := range c.schemas {
		if e := &c.schemas[i]; e.sch != nil && slices.Equal(e.cols, cols) {
			return e.sch
		}
	}
	return nil
}

func (c *projCache) putSchema(cols []int, sch *arrow.Schema) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.schemas[c.ns] = schemaEntry{cols: slices.Clone(cols), sch: sch}
	c.ns = (c.ns + 1) % projSlots
}
