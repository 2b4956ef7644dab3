package timeseries

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata/read"
)

// The tree model of TsFile names one measurement of one device with a
// path, "device.measurement", where the device is the series key values
// joined by '.' (Series.Path). A tree query reads any set of paths and
// merges them by time. It is a view: the rows are the table's, found
// through the same index and read with the same time-first reads.

// pathCursor walks the rows one path returned.
type pathCursor struct {
	recs  []arrow.Record
	col   []arrow.Array // the measurement column of each record
	times [][]int64
	r, i  int // current record and row
}

func (c *pathCursor) done() bool { return c.r >= len(c.recs) }
func (c *pathCursor) time() int64 {
	return c.times[c.r][c.i]
}
func (c *pathCursor) advance() {
	c.i++
	for c.r < len(c.recs) && c.i >= len(c.times[c.r]) {
		c.r, c.i = c.r+1, 0
	}
}

// cursorHeap orders path cursors by their current time, then by path
// order, as TsFile's multi-way merge does with a time-keyed heap.
type cursorHeap struct {
	cs  []*pathCursor
	idx []int
}

func (h *cursorHeap) Len() int { return len(h.idx) }
func (h *cursorHeap) Less(a, b int) bool {
	x, y := h.cs[h.idx[a]], h.cs[h.idx[b]]
	if tx, ty := x.time(), y.time(); tx != ty {
		return tx < ty
	}
	return h.idx[a] < h.idx[b]
}
func (h *cursorHeap) Swap(a, b int) { h.idx[a], h.idx[b] = h.idx[b], h.idx[a] }
func (h *cursorHeap) Push(x any)    { h.idx = append(h.idx, x.(int)) }
func (h *cursorHeap) Pop() any {
	v := h.idx[len(h.idx)-1]
	h.idx = h.idx[:len(h.idx)-1]
	return v
}

// QueryPaths reads tree-model paths within a time range (all when nil)
// and merges them by time: the result has the time column and one column
// per path, named by the path, with a row for every time any path has a
// point at, and nulls where a path has none. Paths of one device are read
// together.
func (f *File) QueryPaths(ctx context.Context, paths []string, tr *TimeRange) (arrow.Record, Stats, error) {
	var st Stats
	if err := f.open("QueryPaths"); err != nil {
		return nil, st, err
	}
	if len(paths) == 0 {
		return nil, st, fmt.Errorf("timeseries: no paths: %w", read.ErrInvalidArgument)
	}
	type device struct {
		sel   Selector
		meas  []string
		paths []int
	}
	devs := map[string]*device{}
	var order []string
	meas := make([]int, len(paths)) // schema column of each path
	names := f.t.keyNames()
	for i, p := range paths {
		parts := splitPath(p)
		if len(parts) != len(names)+1 {
			return nil, st, fmt.Errorf("timeseries: path %q: want %d key values and a measurement: %w", p, len(names), read.ErrInvalidArgument)
		}
		m := parts[len(parts)-1]
		is := f.t.sch.FieldIndices(m)
		if len(is) == 0 || f.t.roles[is[0]] != roleMeasure {
			return nil, st, fmt.Errorf("timeseries: path %q: %q is not a measurement: %w", p, m, read.ErrInvalidArgument)
		}
		meas[i] = is[0]
		dk := ""
		if len(names) > 0 {
			dk = p[:len(p)-len(m)-1]
		}
		d := devs[dk]
		if d == nil {
			d = &device{sel: Selector{}}
			for k, n := range names {
				d.sel[n] = parts[k]
			}
			devs[dk] = d
			order = append(order, dk)
		}
		d.meas = append(d.meas, m)
		d.paths = append(d.paths, i)
	}
	curs := make([]*pathCursor, len(paths))
	for i := range curs {
		curs[i] = &pathCursor{}
	}
	defer func() {
		for _, c := range curs {
			for _, r := range c.recs {
				r.Release()
			}
		}
	}()
	timeName := f.t.sch.Field(f.t.time).Name
	for _, dk := range order {
		d := devs[dk]
		rows, err := f.Query(ctx, QueryOptions{Series: d.sel, Time: tr, Columns: append([]string{timeName}, d.meas...)})
		if err != nil {
			return nil, st, err
		}
		for {
			rec, err := rows.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				rows.Close()
				return nil, st, err
			}
			times, err := f.t.timesOf(rec.Column(0))
			if err != nil {
				rec.Release()
				return nil, st, err
			}
			for k, pi := range d.paths {
				c := curs[pi]
				rec.Retain()
				c.recs = append(c.recs, rec)
				c.col = append(c.col, rec.Column(1+k))
				c.times = append(c.times, times)
			}
			rec.Release()
		}
		s := rows.Stats()
		st.add(&s)
	}
	// merge
	fields := []arrow.Field{f.t.sch.Field(f.t.time)}
	for i, p := range paths {
		fields = append(fields, arrow.Field{Name: p, Type: f.t.sch.Field(meas[i]).Type, Nullable: true})
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema(fields, nil))
	defer b.Release()
	h := &cursorHeap{cs: curs}
	for i, c := range curs {
		for !c.done() && len(c.times[c.r]) == 0 {
			c.r++
		}
		if !c.done() {
			h.idx = append(h.idx, i)
		}
	}
	heap.Init(h)
	present := make([]bool, len(paths))
	for h.Len() > 0 {
		t := curs[h.idx[0]].time()
		appendInt(b.Field(0), t)
		clear(present)
		for h.Len() > 0 && curs[h.idx[0]].time() == t {
			i := heap.Pop(h).(int)
			c := curs[i]
			if present[i] {
				heap.Push(h, i) // a duplicate time: its next row goes to the next output row
				break
			}
			present[i] = true
			if err := appendFrom(b.Field(1+i), c.col[c.r], c.i); err != nil {
				return nil, st, err
			}
			c.advance()
			if !c.done() {
				heap.Push(h, i)
			}
		}
		for i, ok := range present {
			if !ok {
				b.Field(1 + i).AppendNull()
			}
		}
	}
	rec := b.NewRecord()
	st.RowsReturned = rec.NumRows()
	return rec, st, nil
}

// timesOf returns a time column's values as int64.
func (t *table) timesOf(a arrow.Array) ([]int64, error) {
	switch a := a.(type) {
	case *array.Timestamp:
		out := make([]int64, a.Len())
		for i := range out {
			out[i] = int64(a.Value(i))
		}
		return out, nil
	case *array.Int64:
		return a.Int64Values(), nil
	}
	return nil, fmt.Errorf("timeseries: time column of %T", a)
}
