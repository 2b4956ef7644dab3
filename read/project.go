package read

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"

	"strata/shred"
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

// Nested projections. A query that names fields nested in a column
// ("properties.mag", "properties.place") gets that column pruned to those
// fields (shred.Projection), and reads only the streams of the fields it
// keeps, not every stream of the column. Each distinct pruning a query asks
// for gets an index past the top-level columns, which every read path
// passes around like a column's: such a column is never row-aligned, so it
// is read by the paths that assemble nested columns (readColumn). The
// indexes of a file stay valid while it is open.
type virtCols struct {
	mu    sync.Mutex
	cols  []*virtCol
	byKey map[string]int
}

type virtCol struct {
	proj    *shred.Projection
	field   arrow.Field
	streams []int
}

// add returns the index of the projection of paths (all in one column),
// registering it the first time.
func (v *virtCols) add(f *File, paths []string) (int, error) {
	ps := slices.Clone(paths)
	slices.Sort(ps)
	ps = slices.Compact(ps)
	key := strings.Join(ps, "\x00")
	v.mu.Lock()
	defer v.mu.Unlock()
	if i, ok := v.byKey[key]; ok {
		return f.sch.NumColumns() + i, nil
	}
	p, err := shred.Project(f.sch, ps)
	if err != nil {
		return 0, fmt.Errorf("read: %w", err)
	}
	if v.byKey == nil {
		v.byKey = map[string]int{}
	}
	v.cols = append(v.cols, &virtCol{proj: p, field: p.Field(), streams: p.Streams()})
	v.byKey[key] = len(v.cols) - 1
	return f.sch.NumColumns() + len(v.cols) - 1, nil
}

// get returns the nested projection at column index col of f, nil for a
// top-level column.
func (v *virtCols) get(f *File, col int) *virtCol {
	i := col - f.sch.NumColumns()
	if i < 0 {
		return nil
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if i >= len(v.cols) {
		return nil
	}
	return v.cols[i]
}

// field returns the Arrow field of column index col (top-level or a nested
// projection).
func (f *File) field(col int) arrow.Field {
	if v := f.virt.get(f, col); v != nil {
		return v.field
	}
	return f.arrow.Field(col)
}

// columnStreams returns the streams column index col reads, ascending.
func (f *File) columnStreams(col int) []int {
	if v := f.virt.get(f, col); v != nil {
		return v.streams
	}
	return f.sch.ColumnStreams(col)
}
