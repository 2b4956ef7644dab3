package read

import (
	"context"
	"sort"

	"strata/encoding"
	"strata/filter"
	"strata/stats"
)

// clusterIndex maps values to rows for a column whose chunks are sorted
// across the whole file — every chunk's maximum at most the next chunk's
// minimum, as for a table clustered on a key. It lists the file rows and
// bounds of each chunk that has values, so a key range becomes a row range
// by two binary searches instead of a pass over every chunk's statistics.
// It is built from the chunk statistics on the first query that can use it
// and kept with the file's metadata.
type clusterIndex struct {
	first, end []int64 // file rows [first, end) of each chunk with bounds
	min, max   []stats.Value
}

// cluster returns the index of a row-aligned values stream, building it on
// first use, or nil when the stream's chunks are not sorted (or their
// statistics do not say).
func (f *File) cluster(ctx context.Context, stream int) *clusterIndex {
	f.m.mu.RLock()
	ci, ok := f.m.clusters[stream]
	f.m.mu.RUnlock()
	if ok {
		return ci
	}
	ci = f.buildCluster(ctx, stream)
	f.m.mu.Lock()
	if prev, ok := f.m.clusters[stream]; ok {
		ci = prev
	} else {
		f.m.clusters[stream] = ci
		if ci != nil {
			f.m.derived.Add(int64(len(ci.first)) * 80)
		}
	}
	f.m.mu.Unlock()
	return ci
}

func (f *File) buildCluster(ctx context.Context, stream int) *clusterIndex {
	// Integers and binary only: their statistics order exactly like the
	// predicates compare (floats have NaN and signed zeros to reason about).
	if t := f.sch.Stream(stream).Type; !t.IsInteger() && t != encoding.Binary {
		return nil
	}
	ci := &clusterIndex{}
	for s := 0; s < f.f.NumStripes(); s++ {
		info, err := f.f.Stream(ctx, s, stream)
		if err != nil {
			return nil
		}
		cs, err := f.chunkStats(ctx, s, stream)
		if err != nil {
			return nil
		}
		base := f.f.Stripe(s).FirstRow
		for i, ch := range info.Chunks {
			st := cs[i]
			if !st.ok || st.cs.Rows != ch.Rows {
				return nil
			}
			if !st.cs.HasMinMax {
				if st.cs.Ordered() == 0 {
					continue // only nulls: no comparison matches it
				}
				return nil
			}
			if n := len(ci.max); n > 0 && ci.max[n-1].Compare(st.cs.Min) > 0 {
				return nil
			}
			ci.first = append(ci.first, base+ch.FirstRow)
			ci.end = append(ci.end, base+ch.FirstRow+ch.Rows)
			ci.min = append(ci.min, st.cs.Min)
			ci.max = append(ci.max, st.cs.Max)
		}
	}
	return ci
}

// rows returns the file rows [lo, hi) outside which no value lies in the
// closed interval [a, b]; hasA and hasB false mean unbounded below, above.
func (ci *clusterIndex) rows(a, b stats.Value, hasA, hasB bool) (lo, hi int64) {
	i, j := 0, len(ci.min) // candidate chunks [i, j)
	if hasA {
		i = sort.Search(len(ci.max), func(k int) bool { return ci.max[k].Compare(a) >= 0 })
	}
	if hasB {
		j = sort.Search(len(ci.min), func(k int) bool { return ci.min[k].Compare(b) > 0 })
	}
	if i >= j {
		return 0, 0
	}
	return ci.first[i], ci.end[j-1]
}

// leafInterval returns the closed interval of values a leaf can match, for
// the operators that have one.
func leafInterval(l *filter.Leaf) (a, b stats.Value, hasA, hasB, ok bool) {
	switch l.Op {
	case filter.OpEq:
		return l.A, l.A, true, true, true
	case filter.OpLt, filter.OpLe:
		return stats.Value{}, l.A, false, true, true
	case filter.OpGt, filter.OpGe:
		return l.A, stats.Value{}, true, false, true
	case filter.OpBetween:
		return l.A, l.B, true, true, true
	case filter.OpIn:
		if len(l.Set) == 0 {
			return
		}
		return l.Set[0], l.Set[len(l.Set)-1], true, true, true
	}
	return
}

// indexRows returns the file rows [lo, hi) a filter can match according to
// the cluster indexes of its columns: for a leaf on a sorted column, or an
// AND of conjuncts some of which are such leaves, the intersection of
// their row ranges. ok is false when no index applies.
func (f *File) indexRows(ctx context.Context, q *query) (lo, hi int64, ok bool) {
	lo, hi = 0, f.NumRows()
	one := func(e filter.Expr) {
		l, isLeaf := e.(*filter.Leaf)
		if !isLeaf || l.Col == nil || len(q.anc[l]) > 0 {
			return
		}
		if l.Op == filter.OpNone {
			lo, hi, ok = 0, 0, true
			return
		}
		if l.Col.Logical == filter.LogicalWideDecimal {
			// Its chunk bounds are bytewise (docs/FORMAT.md, "Column
			// statistics"), not numeric: chunks that look sorted by them
			// are not sorted by value, and a bound value's bytes do not
			// order like its number. No row range follows from them.
			return
		}
		a, b, hasA, hasB, has := leafInterval(l)
		if !has || !f.streamRowAligned(q.stream[l]) {
			return
		}
		ci := f.cluster(ctx, q.stream[l])
		if ci == nil {
			return
		}
		if hasA && a.Type != f.sch.Stream(q.stream[l]).Type || hasB && b.Type != f.sch.Stream(q.stream[l]).Type {
			return
		}
		l2, h2 := ci.rows(a, b, hasA, hasB)
		lo, hi, ok = max(lo, l2), min(hi, h2), true
		if hi < lo {
			hi = lo
		}
	}
	switch x := q.expr.(type) {
	case *filter.Leaf:
		one(x)
	case *filter.And:
		for _, a := range x.Args {
			one(a)
		}
	}
	return lo, hi, ok
}

// streamRowAligned reports whether a stream is the values stream of a
// top-level primitive column, one entry per row.
func (f *File) streamRowAligned(stream int) bool {
	for _, id := range f.m.aligned {
		if id == stream {
			return true
		}
	}
	return false
}
