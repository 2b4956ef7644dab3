package read

import (
	"errors"
	"fmt"
	"math/bits"
	"sort"
	"sync"
	"time"

	"strata/encoding"
	"strata/filter"
	"strata/schema"
	"strata/stats"
)

// query is a bound filter ready to run against stripes.
type query struct {
	expr   filter.Expr
	stream map[*filter.Leaf]int // values stream of each leaf's column
	preds  map[*filter.Leaf]any // *encoding.Pred[T], *encoding.BytesPred or *filter.WideDecimalPred
	paths  map[string]int       // column path → values stream
	// anc lists, per leaf, the nulls streams of its nullable struct
	// ancestors: a field of a null struct is null whatever its own stream
	// holds. Statistics of such a field do not see those nulls, so the
	// expression-level pruning ignores them (noStats).
	anc     map[*filter.Leaf][]int
	noStats map[string]bool
	// nn holds, per leaf, the IS NOT NULL leaf on its column that NOT
	// evaluates to drop null rows (built at compile: a query is shared by
	// stripes evaluated in parallel and is read-only once compiled).
	nn map[*filter.Leaf]*filter.Leaf
	// ordered marks the leaves whose cost is measured: arguments of an AND
	// that orders its arguments by cost.
	ordered map[*filter.Leaf]bool
	// inmap holds, per leaf on the value of a FlatMap key (or on a field of
	// a struct value), the key's inmap stream: the leaf's values stream and
	// its anc streams then have one entry per row where the key is present,
	// not one per row, and the leaf is evaluated on those entries and
	// scattered to rows through the inmap stream (evalFlatLeaf). flat maps
	// such a leaf's path to the same stream, for pruning.
	inmap map[*filter.Leaf]int
	flat  map[string]int
}

// markOrdered marks the leaves under every AND of two or more arguments.
func markOrdered(e filter.Expr, m map[*filter.Leaf]bool) {
	switch e := e.(type) {
	case *filter.And:
		for _, a := range e.Args {
			if len(e.Args) > 1 {
				filter.Walk(a, func(l *filter.Leaf) { m[l] = true })
			}
			markOrdered(a, m)
		}
	case *filter.Or:
		for _, a := range e.Args {
			markOrdered(a, m)
		}
	case *filter.Not:
		markOrdered(e.X, m)
	}
}

// isFlat reports whether l is on the value of a FlatMap key.
func (q *query) isFlat(l *filter.Leaf) bool {
	_, ok := q.inmap[l]
	return ok
}

// notNull returns the IS NOT NULL leaf on l's column.
func (q *query) notNull(l *filter.Leaf) *filter.Leaf { return q.nn[l] }

// filterCost tracks, per leaf, time spent per row dropped; AND evaluates its
// cheapest-per-drop children first, and the order carries across stripes.
type filterCost struct {
	mu      sync.Mutex
	nanos   int64
	dropped int64
}

func (c *filterCost) score() float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.nanos == 0 {
		return 0
	}
	return float64(c.nanos) / float64(c.dropped+1)
}

// compile parses and binds a WHERE string against the file's schema.
func (f *File) compile(where string) (*query, error) {
	e, err := filter.Parse(where)
	if err != nil {
		return nil, err
	}
	// decimals of over 38 digits stored as text: equality exact, order
	// refused (textdecimal.go)
	if err := f.textDecimalFilter(e); err != nil {
		return nil, err
	}
	missing := map[string]bool{}
	nested := map[string]*schema.Node{} // paths naming a struct, list or map
	e, err = filter.BindLeaves(e, func(l *filter.Leaf) (filter.ColumnInfo, bool) {
		n, err := f.findLeaf(l)
		if err != nil || !n.Kind.IsLeaf() {
			missing[l.Path] = true
			if err == nil {
				nested[l.Path] = n
			}
			return filter.ColumnInfo{}, false
		}
		return columnInfo(n), true
	})
	var be *filter.BindError
	if errors.As(err, &be) && missing[be.Path] {
		if n := nested[be.Path]; n != nil {
			// The column exists: say why it cannot be filtered on rather
			// than call it unknown.
			msg := fmt.Sprintf("%s is a %s: filters compare primitive columns, fields of structs and the values of FlatMap keys", be.Path, n.TypeString())
			switch n.Kind {
			case schema.Struct:
				msg += f.columnHint(be.Path+".", true)
			case schema.FlatMap:
				msg += fmt.Sprintf(" (name a key: %s.<key>)", be.Path) + f.columnHint(be.Path+".", true)
			default:
				msg += " (values inside lists and maps cannot be filtered yet)"
			}
			return nil, &filter.BindError{Path: be.Path, Pos: be.Pos, Msg: msg}
		}
		return nil, &hintedError{msg: err.Error() + f.columnHint(be.Path, true), errs: []error{err, ErrUnknownColumn}}
	}
	if err != nil {
		return nil, err
	}
	q := &query{expr: e, stream: map[*filter.Leaf]int{}, preds: map[*filter.Leaf]any{}, paths: map[string]int{},
		anc: map[*filter.Leaf][]int{}, noStats: map[string]bool{}}
	q.inmap, q.flat = map[*filter.Leaf]int{}, map[string]int{}
	var werr error
	filter.Walk(e, func(l *filter.Leaf) {
		n, err := f.findLeaf(l)
		if err != nil {
			werr = err
			return
		}
		// Walk up from the leaf: key is the FlatMap key the leaf is the
		// value of or lies below, once passed. Nullable structs below the
		// key are the leaf's ancestors on the key's entries; those above a
		// FlatMap need no check, since a null slot of theirs is a null
		// FlatMap slot, where every key's inmap entry is false (a writer
		// guarantee, docs/FORMAT.md "Slots"), as is a null map's.
		var key *schema.Node
		for c := n; c.Parent() != nil; c = c.Parent() {
			p := c.Parent()
			if p.Kind == schema.List || p.Kind == schema.Map || key != nil && p.Kind == schema.FlatMap {
				werr = fmt.Errorf("read: filter on %s: columns inside lists and maps (other than the values of a FlatMap's keys) cannot be filtered yet", l.Path)
				return
			}
			if p.Kind == schema.FlatMap {
				key = c
				continue
			}
			if p.Nullable && key == nil {
				if id := p.StreamID(schema.RoleNulls); id >= 0 {
					q.anc[l] = append(q.anc[l], id)
					q.noStats[l.Key()] = true
				}
			}
		}
		if key != nil {
			id := key.StreamID(schema.RoleInMap)
			if id < 0 {
				werr = fmt.Errorf("read: filter on %s: FlatMap key %q has no inmap stream", l.Path, key.Name)
				return
			}
			q.inmap[l] = id
			q.flat[l.Key()] = id
		}
		id := n.StreamID(schema.RoleValues)
		if id < 0 {
			werr = fmt.Errorf("read: filter on %s: no values stream", l.Path)
			return
		}
		q.stream[l] = id
		q.paths[l.Key()] = id
		if l.Op != filter.OpIsNull && l.Op != filter.OpIsNotNull {
			p, err := leafPred(l, f.sch.Stream(id).Type)
			if err != nil {
				werr = err
				return
			}
			q.preds[l] = p
		}
	})
	if werr != nil {
		return nil, werr
	}
	q.ordered = map[*filter.Leaf]bool{}
	markOrdered(e, q.ordered)
	q.nn = map[*filter.Leaf]*filter.Leaf{}
	filter.Walk(e, func(l *filter.Leaf) {
		nn := &filter.Leaf{Path: l.Path, Parts: l.Parts, Op: filter.OpIsNotNull, Col: l.Col}
		q.stream[nn], q.anc[nn] = q.stream[l], q.anc[l]
		if id, ok := q.inmap[l]; ok {
			q.inmap[nn] = id
		}
		q.nn[l] = nn
	})
	return q, nil
}

// findLeaf resolves the column path of a filter leaf, its parts as written
// (a quoted part is one name: "a"."b" is field b of a, "a.b" the column
// "a.b").
func (f *File) findLeaf(l *filter.Leaf) (*schema.Node, error) {
	names, whole := l.Names()
	return f.sch.FindParts(names, whole)
}

// leafPred returns the typed predicate decoders evaluate for a bound leaf.
// Bool columns, which encoding predicates do not cover, compare as 0/1.
func leafPred(l *filter.Leaf, t encoding.Type) (any, error) {
	if t != encoding.Bool {
		if p := l.Pred(); p != nil {
			return p, nil
		}
		return nil, fmt.Errorf("read: filter %s: no predicate for %v values", l, t)
	}
	switch t {
	case encoding.Int8:
		return numPred[int8](l, func(v stats.Value) int8 { return int8(v.Int()) }), nil
	case encoding.Int16:
		return numPred[int16](l, func(v stats.Value) int16 { return int16(v.Int()) }), nil
	case encoding.Int32:
		return numPred[int32](l, func(v stats.Value) int32 { return int32(v.Int()) }), nil
	case encoding.Int64:
		return numPred[int64](l, func(v stats.Value) int64 { return v.Int() }), nil
	case encoding.Uint8:
		return numPred[uint8](l, func(v stats.Value) uint8 { return uint8(v.Uint()) }), nil
	case encoding.Uint16:
		return numPred[uint16](l, func(v stats.Value) uint16 { return uint16(v.Uint()) }), nil
	case encoding.Uint32:
		return numPred[uint32](l, func(v stats.Value) uint32 { return uint32(v.Uint()) }), nil
	case encoding.Uint64:
		return numPred[uint64](l, func(v stats.Value) uint64 { return v.Uint() }), nil
	case encoding.Float32:
		return numPred[float32](l, func(v stats.Value) float32 { return float32(v.Float()) }), nil
	case encoding.Float64:
		return numPred[float64](l, func(v stats.Value) float64 { return v.Float() }), nil
	case encoding.Binary:
		p := &encoding.BytesPred{Op: encoding.Op(l.Op), A: l.A.Bytes(), B: l.B.Bytes()}
		for _, s := range l.Set {
			p.Set = append(p.Set, s.Bytes())
		}
		return p, nil
	case encoding.Bool:
		// bools compare as 0/1 bytes. A range comparison that Bind found
		// true for every value (b <= TRUE, b >= FALSE) or none (b > TRUE)
		// arrives as OpAll / OpNone, which have no encoding operator.
		switch l.Op {
		case filter.OpAll:
			return &encoding.Pred[uint8]{Op: encoding.OpGe}, nil
		case filter.OpNone:
			return &encoding.Pred[uint8]{Op: encoding.OpIn}, nil
		}
		return numPred[uint8](l, func(v stats.Value) uint8 {
			if v.Bool() {
				return 1
			}
			return 0
		}), nil
	}
	return nil, fmt.Errorf("read: cannot filter %v values", t)
}

func numPred[T encoding.Number](l *filter.Leaf, conv func(stats.Value) T) *encoding.Pred[T] {
	p := &encoding.Pred[T]{Op: encoding.Op(l.Op)}
	if l.A.Valid() {
		p.A = conv(l.A)
	}
	if l.B.Valid() {
		p.B = conv(l.B)
	}
	for _, s := range l.Set {
		p.Set = append(p.Set, conv(s))
	}
	sort.Slice(p.Set, func(i, j int) bool { return p.Set[i] < p.Set[j] })
	return p
}

// prune evaluates e on statistics per column stream, three-valued, over a
// scope (a stripe, the file) of slots rows. The statistics of a FlatMap
// key's values describe its entries only, one per row where the key is
// present: the rows without it are NULL for the key, so they are added as
// nulls (a null map's inmap entry is false, so its rows are among them).
// absent reports a key whose streams the scope does not hold: all its rows
// are NULL.
func (q *query) prune(e filter.Expr, slots int64, statsOf func(stream int) (stats.ColumnStats, bool), absent func(inmap int) bool) filter.Tri {
	return filter.Prune(e, func(path string) (stats.ColumnStats, bool) {
		id, ok := q.paths[path]
		if !ok || q.noStats[path] {
			return stats.ColumnStats{}, false
		}
		inmap, isFlat := q.flat[path]
		if !isFlat {
			return statsOf(id)
		}
		if absent(inmap) {
			return stats.ColumnStats{Rows: slots, Nulls: slots}, true
		}
		cs, ok := statsOf(id)
		if !ok || cs.Rows > slots || cs.Nulls > cs.Rows {
			return stats.ColumnStats{}, false
		}
		cs.Nulls += slots - cs.Rows
		cs.Rows = slots
		return cs, true
	})
}

// bloomRejects reports whether a stripe's bloom filters prove that no row
// can match (an equality or IN conjunct whose values are all absent).
func (q *query) bloomRejects(e filter.Expr, bloomOf func(stream int) *stats.Bloom) bool {
	return !filter.MayContain(e, func(path string) (*stats.Bloom, bool) {
		id, ok := q.paths[path]
		if !ok {
			return nil, false
		}
		b := bloomOf(id)
		return b, b != nil
	})
}

// evalExpr narrows sel (rows of the stripe of io) to rows matching e.
func (f *File) evalExpr(x *exec, io *stripeIO, q *query, e filter.Expr, sel encoding.Bitmap, st *ScanStats) error {
	switch e := e.(type) {
	case *filter.Const:
		if !e.Value {
			clear(sel)
		}
		return nil
	case *filter.And:
		args := append([]filter.Expr(nil), e.Args...)
		sort.SliceStable(args, func(i, j int) bool { return f.cost(args[i]) < f.cost(args[j]) })
		for _, a := range args {
			if err := f.evalExpr(x, io, q, a, sel, st); err != nil {
				return err
			}
			if !anySet(sel) {
				return nil
			}
		}
		return nil
	case *filter.Or:
		acc := make(encoding.Bitmap, len(sel))
		for _, a := range e.Args {
			// Rows already accepted need not be tested again.
			cur := make(encoding.Bitmap, len(sel))
			for i := range cur {
				cur[i] = sel[i] &^ acc[i]
			}
			if err := f.evalExpr(x, io, q, a, cur, st); err != nil {
				return err
			}
			for i := range acc {
				acc[i] |= cur[i]
			}
		}
		copy(sel, acc)
		return nil
	case *filter.Not:
		cur := append(encoding.Bitmap(nil), sel...)
		if err := f.evalExpr(x, io, q, e.X, cur, st); err != nil {
			return err
		}
		for i := range sel {
			sel[i] &^= cur[i]
		}
		// NOT over a comparison must not select nulls: re-check null rows.
		return f.dropNulls(x, io, q, e.X, sel, st)
	case *filter.Leaf:
		if !q.ordered[e] {
			return f.evalLeaf(x, io, q, e, sel, st)
		}
		start := time.Now()
		before := selCount(sel)
		err := f.evalLeaf(x, io, q, e, sel, st)
		c := f.costOf(e.String())
		c.mu.Lock()
		c.nanos += time.Since(start).Nanoseconds()
		c.dropped += int64(before - selCount(sel))
		c.mu.Unlock()
		return err
	}
	return fmt.Errorf("read: unknown filter node %T", e)
}

func (f *File) costOf(key string) *filterCost {
	f.adaptMu.Lock()
	defer f.adaptMu.Unlock()
	c := f.adapt[key]
	if c == nil {
		c = &filterCost{}
		f.adapt[key] = c
	}
	return c
}

func (f *File) cost(e filter.Expr) float64 {
	switch x := e.(type) {
	case *filter.Leaf:
		return f.costOf(x.String()).score()
	case *filter.And:
		s := 0.0
		for _, a := range x.Args {
			s += f.cost(a)
		}
		return s
	case *filter.Or:
		s := 0.0
		for _, a := range x.Args {
			s += f.cost(a)
		}
		return s
	case *filter.Not:
		return f.cost(x.X)
	}
	return 0
}

// dropNulls clears rows where a column under a negated comparison is null
// (SQL: NOT (x < 5) is unknown for a null x).
func (f *File) dropNulls(x *exec, io *stripeIO, q *query, e filter.Expr, sel encoding.Bitmap, st *ScanStats) error {
	var err error
	filter.Walk(e, func(l *filter.Leaf) {
		if err != nil || l.Op == filter.OpIsNull || l.Op == filter.OpIsNotNull {
			return
		}
		err = f.evalLeaf(x, io, q, q.notNull(l), sel, st)
	})
	return err
}

func anySet(b encoding.Bitmap) bool {
	for _, w := range b {
		if w != 0 {
			return true
		}
	}
	return false
}

// evalLeaf narrows sel by one single-column predicate, then accounts for
// the nulls of the column's struct ancestors.
func (f *File) evalLeaf(x *exec, io *stripeIO, q *query, l *filter.Leaf, sel encoding.Bitmap, st *ScanStats) error {
	if _, ok := q.inmap[l]; ok {
		return f.evalFlatLeaf(x, io, q, l, sel, st)
	}
	return f.evalSlots(x, io, q, l, sel, int(f.f.Stripe(io.stripe).Rows), st)
}

// evalSlots narrows sel, a bitmap over the slots of the leaf's column in the
// stripe (rows, or a FlatMap key's entries), by the leaf's predicate, then
// accounts for the nulls of its struct ancestors, whose nulls streams hold
// one entry per such slot (slots of them).
func (f *File) evalSlots(x *exec, io *stripeIO, q *query, l *filter.Leaf, sel encoding.Bitmap, slots int, st *ScanStats) error {
	anc := q.anc[l]
	if len(anc) == 0 {
		return f.evalLeafOwn(x, io, q, l, sel, st)
	}
	if l.Op == filter.OpIsNull {
		// null when the field or any ancestor is null
		own := append(encoding.Bitmap(nil), sel...)
		if err := f.evalLeafOwn(x, io, q, l, own, st); err != nil {
			return err
		}
		ancNull := make(encoding.Bitmap, len(sel))
		for _, id := range anc {
			present, err := f.readBools(io, id, slots)
			if err != nil {
				return err
			}
			for i, ok := range present {
				if !ok && i < len(sel)*64 {
					ancNull.Set(i)
				}
			}
		}
		for i := range sel {
			sel[i] &= own[i] | ancNull[i]
		}
		return nil
	}
	if err := f.evalLeafOwn(x, io, q, l, sel, st); err != nil {
		return err
	}
	for _, id := range anc {
		if !anySet(sel) {
			return nil
		}
		present, err := f.readBools(io, id, slots)
		if err != nil {
			return err
		}
		for i, ok := range present {
			if !ok && i < len(sel)*64 {
				sel.Clear(i)
			}
		}
	}
	return nil
}

// readBools reads a whole bool stream (a struct's nulls, a FlatMap key's
// inmap) of a stripe, which must hold slots entries.
func (f *File) readBools(io *stripeIO, stream, slots int) ([]bool, error) {
	s, err := f.readStream(io, stream)
	if err != nil {
		return nil, err
	}
	v, ok := s.Values.([]bool)
	if !ok {
		return nil, encoding.Corruptf("stream %d holds %v, want bool", stream, s.Type)
	}
	if s.Len != slots {
		return nil, encoding.Corruptf("%s stream %d holds %d entries for %d slots", f.sch.Stream(stream).Role, stream, s.Len, slots)
	}
	return v, nil
}

// keyEntries maps the selected rows of a stripe onto the entries of a
// FlatMap key's values stream, which holds one entry per row where the
// key is present (its inmap entry is true): the entry of row r is the
// number of true inmap entries before r. Filters (evalFlatLeaf) and
// aggregates (aggStripe) both select entries this way.
type keyEntries struct {
	present []bool          // the key's inmap stream, one entry per row
	lo, hi  int             // the first and one past the last selected row
	before  int             // entries of the rows before lo
	n       int             // entries in the stripe
	sel     encoding.Bitmap // over the n entries: those of selected rows
}

// flatEntries reads the inmap stream of a FlatMap key in the stripe of io
// and maps sel (rows of the stripe, at least one set) onto the entries of
// the key's values stream. It checks that the stream holds one entry per
// row where the key is present. The caller checks that the stripe holds
// the key's streams (a key first seen in a later stripe has none).
func (f *File) flatEntries(io *stripeIO, inmap, values int, sel encoding.Bitmap) (keyEntries, error) {
	var e keyEntries
	lo, hi, ok := selBounds(sel)
	if !ok {
		return e, nil
	}
	e.lo, e.hi = lo, hi
	present, err := f.readBools(io, inmap, int(f.f.Stripe(io.stripe).Rows))
	if err != nil {
		return e, err
	}
	e.present = present
	for _, c := range io.stream(values).Chunks {
		e.n += int(c.Rows)
	}
	total := 0
	for r, in := range present {
		if in {
			if r < lo {
				e.before++
			}
			total++
		}
	}
	if total != e.n {
		return e, encoding.Corruptf("stripe %d: the key is present in %d rows, its values stream holds %d entries", io.stripe, total, e.n)
	}
	e.sel = encoding.NewBitmap(e.n, false)
	k := e.before
	for r := lo; r < hi; r++ {
		if present[r] {
			if sel.Get(r) {
				e.sel.Set(k)
			}
			k++
		}
	}
	return e, nil
}

// evalFlatLeaf narrows sel (rows of the stripe) by a leaf on the value of
// a FlatMap key: the rows of sel where the key is present become a bitmap
// over the key's entries (flatEntries), the leaf is evaluated on that as
// on any column, and the result is scattered back to the rows. A row
// without the key (a null map included) has a NULL value: it matches IS
// NULL and nothing else. A stripe without the key's streams (a key first
// seen in a later stripe) has the key in no row.
func (f *File) evalFlatLeaf(x *exec, io *stripeIO, q *query, l *filter.Leaf, sel encoding.Bitmap, st *ScanStats) error {
	absentMatches := l.Op == filter.OpIsNull
	inmap := q.inmap[l]
	if len(io.stream(inmap).Chunks) == 0 {
		if !absentMatches {
			clear(sel)
		}
		return nil
	}
	e, err := f.flatEntries(io, inmap, q.stream[l], sel)
	if err != nil {
		return fmt.Errorf("read: filter on %s: %w", l.Path, err)
	}
	if e.present == nil {
		return nil // no row selected
	}
	if anySet(e.sel) {
		if err := f.evalSlots(x, io, q, l, e.sel, e.n, st); err != nil {
			return fmt.Errorf("read: filter on %s: %w", l.Path, err)
		}
	}
	k := e.before
	for r := e.lo; r < e.hi; r++ {
		if e.present[r] {
			if !e.sel.Get(k) {
				sel.Clear(r)
			}
			k++
		} else if !absentMatches {
			sel.Clear(r)
		}
	}
	return nil
}

// leafChunks returns the chunks of a leaf's stream that hold selected rows
// and that the chunk statistics cannot settle; chunks they settle as
// matching no row are cleared from sel here.
func (f *File) leafChunks(io *stripeIO, q *query, l *filter.Leaf, sel encoding.Bitmap, st *ScanStats) ([]int, error) {
	stream := q.stream[l]
	info := io.stream(stream)
	cstats, err := f.chunkStats(io.ctx, io.stripe, stream)
	if err != nil {
		return nil, err
	}
	useStats := !q.noStats[l.Key()]
	lo, hi, ok := selBounds(sel)
	if !ok {
		return nil, nil
	}
	var todo []int
	for ci := info.ChunkForRow(int64(lo)); ci >= 0 && ci < len(info.Chunks); ci++ {
		ch := info.Chunks[ci]
		clo, chi := int(ch.FirstRow), int(ch.FirstRow+ch.Rows)
		if clo >= hi {
			break
		}
		if !sel.AnyIn(clo, chi) {
			continue
		}
		if useStats && ci < len(cstats) && cstats[ci].ok {
			cs := cstats[ci].cs
			switch filter.Prune(l, func(string) (stats.ColumnStats, bool) { return cs, true }) {
			case filter.None:
				sel.ClearRange(clo, chi)
				st.ChunksPrunedStats++
				continue
			case filter.All:
				st.ChunksAllMatch++
				continue
			}
		}
		todo = append(todo, ci)
	}
	return todo, nil
}

// selCount counts the set rows of sel, looking only between the first and
// the last set word (a narrow selection in a large stripe is cheap).
func selCount(sel encoding.Bitmap) int {
	lo, hi, ok := selBounds(sel)
	if !ok {
		return 0
	}
	return countRange(sel, lo, hi)
}

// selRows lists the set rows of sel, sized in advance.
func selRows(sel encoding.Bitmap) []int32 {
	lo, hi, ok := selBounds(sel)
	if !ok {
		return nil
	}
	out := make([]int32, countRange(sel, lo, hi))
	n := 0
	for wi := lo >> 6; wi <= (hi-1)>>6 && n < len(out); wi++ {
		base := int32(wi * 64)
		for w := sel[wi]; w != 0 && n < len(out); w &= w - 1 {
			out[n] = base + int32(bits.TrailingZeros64(w))
			n++
		}
	}
	return out
}

// selBounds returns the first and one past the last set row of sel.
func selBounds(sel encoding.Bitmap) (lo, hi int, ok bool) {
	i := 0
	for i < len(sel) && sel[i] == 0 {
		i++
	}
	if i == len(sel) {
		return 0, 0, false
	}
	j := len(sel) - 1
	for sel[j] == 0 {
		j--
	}
	return i*64 + bits.TrailingZeros64(sel[i]), j*64 + 64 - bits.LeadingZeros64(sel[j]), true
}

// evalLeafOwn narrows sel by one single-column predicate, chunk by chunk:
// chunk statistics decide none/all without decoding; the rest run the
// predicate inside the decoder on the encoded form, chunks in parallel.
func (f *File) evalLeafOwn(x *exec, io *stripeIO, q *query, l *filter.Leaf, sel encoding.Bitmap, st *ScanStats) error {
	todo, err := f.leafChunks(io, q, l, sel, st)
	if err != nil || len(todo) == 0 {
		return err
	}
	stream := q.stream[l]
	info := io.stream(stream)
	pred := q.preds[l]
	subs := make([]encoding.Bitmap, len(todo))
	blocks := make([]int, len(todo))
	for k, ci := range todo {
		ch := info.Chunks[ci]
		subs[k] = extractBits(sel, int(ch.FirstRow), int(ch.FirstRow+ch.Rows))
	}
	err = x.w.each(x.ctx, len(todo), func(k int) error {
		ci := todo[k]
		n := int(info.Chunks[ci].Rows)
		// Filter decoders stay in the decoder cache, as a database keeps the
		// pages its filters scan in its buffer pool: a repeated selective
		// query then neither reads nor reopens its filter column.
		return io.use(stream, ci, true, func(d encoding.Decoder) error {
			var before int
			sc, counts := d.(encoding.SkipCounter)
			if counts {
				before = sc.Skipped()
			}
			err := filterChunk(d, l, pred, subs[k], n)
			if counts {
				blocks[k] = sc.Skipped() - before
			}
			return err
		})
	})
	if err != nil {
		return err
	}
	for k, ci := range todo {
		ch := info.Chunks[ci]
		storeBits(sel, subs[k], int(ch.FirstRow), int(ch.FirstRow+ch.Rows))
		st.BlocksPruned += blocks[k]
	}
	return nil
}

// planFilter declares the filter chunks a stripe's evaluation will read:
// for every leaf, the chunks holding rows of sel that the chunk statistics
// cannot settle, and the nulls streams of nullable struct ancestors. First,
// for each leaf that is a conjunct of the filter, the chunks its statistics
// rule out are cleared from sel, so that no leaf reads rows another has
// already excluded.
func (f *File) planFilter(io *stripeIO, q *query, sel encoding.Bitmap, st *ScanStats) error {
	var conj []filter.Expr
	switch e := q.expr.(type) {
	case *filter.And:
		conj = e.Args
	default:
		conj = []filter.Expr{e}
	}
	var scratch ScanStats
	for _, c := range conj {
		if l, ok := c.(*filter.Leaf); ok && len(q.anc[l]) == 0 && !q.isFlat(l) {
			if _, err := f.leafChunks(io, q, l, sel, &scratch); err != nil {
				return err
			}
		}
	}
	st.ChunksPrunedStats += scratch.ChunksPrunedStats
	return f.planLeaves(io, q, q.expr, false, sel)
}

func (f *File) planLeaves(io *stripeIO, q *query, e filter.Expr, negated bool, sel encoding.Bitmap) error {
	switch e := e.(type) {
	case *filter.And:
		for _, a := range e.Args {
			if err := f.planLeaves(io, q, a, negated, sel); err != nil {
				return err
			}
		}
	case *filter.Or:
		for _, a := range e.Args {
			if err := f.planLeaves(io, q, a, negated, sel); err != nil {
				return err
			}
		}
	case *filter.Not:
		return f.planLeaves(io, q, e.X, !negated, sel)
	case *filter.Leaf:
		leaves := []*filter.Leaf{e}
		if negated {
			leaves = append(leaves, q.notNull(e))
		}
		var scratch ScanStats
		for _, l := range leaves {
			lsel := sel
			if inmap, ok := q.inmap[l]; ok {
				// The key's entries are known once its inmap stream is
				// read: plan every entry, the inmap stream whole.
				if err := io.needAll(inmap); err != nil {
					return err
				}
				entries := int64(0)
				for _, c := range io.stream(q.stream[l]).Chunks {
					entries += c.Rows
				}
				lsel = encoding.NewBitmap(int(entries), true)
			}
			todo, err := f.leafChunks(io, q, l, append(encoding.Bitmap(nil), lsel...), &scratch)
			if err != nil {
				return err
			}
			for _, ci := range todo {
				if err := io.need(q.stream[l], ci); err != nil {
					return err
				}
			}
			for _, id := range q.anc[l] {
				if err := io.needAll(id); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// filterChunk evaluates a leaf on one chunk's opened decoder.
func filterChunk(d encoding.Decoder, l *filter.Leaf, pred any, sel encoding.Bitmap, n int) error {
	if l.Op == filter.OpIsNull || l.Op == filter.OpIsNotNull {
		valid, err := readValidity(d, n)
		if err != nil {
			return err
		}
		want := l.Op == filter.OpIsNotNull
		for i := 0; i < n; i++ {
			if valid[i] != want {
				sel.Clear(i)
			}
		}
		return nil
	}
	switch p := pred.(type) {
	case *encoding.Pred[int8]:
		return filterTyped(d, p, sel, n)
	case *encoding.Pred[int16]:
		return filterTyped(d, p, sel, n)
	case *encoding.Pred[int32]:
		return filterTyped(d, p, sel, n)
	case *encoding.Pred[int64]:
		return filterTyped(d, p, sel, n)
	case *encoding.Pred[uint8]:
		if d.Type() == encoding.Bool {
			return filterBool(d, p, sel, n)
		}
		return filterTyped(d, p, sel, n)
	case *encoding.Pred[uint16]:
		return filterTyped(d, p, sel, n)
	case *encoding.Pred[uint32]:
		return filterTyped(d, p, sel, n)
	case *encoding.Pred[uint64]:
		return filterTyped(d, p, sel, n)
	case *encoding.Pred[float32]:
		return filterTyped(d, p, sel, n)
	case *encoding.Pred[float64]:
		return filterTyped(d, p, sel, n)
	case *encoding.BytesPred:
		r, ok := d.(encoding.BinaryReader)
		if !ok {
			return encoding.Corruptf("%v node is not binary", d.Kind())
		}
		if bf, ok := d.(encoding.BinaryFilterer); ok {
			return bf.FilterBinary(p, n, sel)
		}
		var b encoding.Bytes
		valid := make([]bool, n)
		if err := encoding.ReadBinaryNullable(r, &b, valid, n); err != nil {
			return err
		}
		for i := 0; i < n; i++ {
			if sel.Get(i) && (!valid[i] || !p.Match(b.Value(i))) {
				sel.Clear(i)
			}
		}
		return nil
	case *filter.WideDecimalPred:
		return filterWide(d, l, p, sel, n)
	}
	return fmt.Errorf("read: no predicate for %s", l.Path)
}

// filterWide evaluates a comparison on a wide decimal: the chunk's values
// are decoded and compared as signed 128-bit integers. It deliberately
// skips BinaryFilterer, whose implementations compare bytes (dictionary id
// ranges, sorted alphabets, front-coded prefixes): the bytes of these
// values do not order like the numbers. A non-null value that is not 16
// bytes long is corrupt.
func filterWide(d encoding.Decoder, l *filter.Leaf, p *filter.WideDecimalPred, sel encoding.Bitmap, n int) error {
	r, ok := d.(encoding.BinaryReader)
	if !ok {
		return encoding.Corruptf("%v node of wide decimal %s is not binary", d.Kind(), l.Path)
	}
	var b encoding.Bytes
	valid := make([]bool, n)
	if err := encoding.ReadBinaryNullable(r, &b, valid, n); err != nil {
		return err
	}
	for i := 0; i < n; i++ {
		if !sel.Get(i) {
			continue
		}
		if !valid[i] {
			sel.Clear(i)
			continue
		}
		v := b.Value(i)
		if len(v) != filter.WideDecimalBytes {
			return encoding.Corruptf("wide decimal %s: a value of %d bytes, not %d", l.Path, len(v), filter.WideDecimalBytes)
		}
		if !p.Match(v) {
			sel.Clear(i)
		}
	}
	return nil
}

func filterTyped[T encoding.Number](d encoding.Decoder, p *encoding.Pred[T], sel encoding.Bitmap, n int) error {
	if fl, ok := d.(encoding.Filterer[T]); ok {
		return fl.Filter(p, n, sel)
	}
	r, ok := d.(encoding.Reader[T])
	if !ok {
		return encoding.Corruptf("%v node holds %v, predicate wants %v", d.Kind(), d.Type(), encoding.TypeFor[T]())
	}
	vals := make([]T, n)
	valid := make([]bool, n)
	if err := encoding.ReadNullable(r, vals, valid); err != nil {
		return err
	}
	for i, v := range vals {
		if !valid[i] || !p.Match(v) {
			sel.Clear(i)
		}
	}
	return nil
}

func filterBool(d encoding.Decoder, p *encoding.Pred[uint8], sel encoding.Bitmap, n int) error {
	r, ok := d.(encoding.Reader[bool])
	if !ok {
		return encoding.Corruptf("%v node is not bool", d.Kind())
	}
	vals := make([]bool, n)
	valid := make([]bool, n)
	if err := encoding.ReadNullable(r, vals, valid); err != nil {
		return err
	}
	for i, v := range vals {
		x := uint8(0)
		if v {
			x = 1
		}
		if !valid[i] || !p.Match(x) {
			sel.Clear(i)
		}
	}
	return nil
}

// readValidity returns which of a chunk's n values are non-null.
func readValidity(d encoding.Decoder, n int) ([]bool, error) {
	valid := make([]bool, n)
	if d.Kind() != encoding.KindNullable {
		for i := range valid {
			valid[i] = true
		}
		return valid, nil
	}
	buf, err := encoding.NewValues(d.Type(), n)
	if err != nil {
		return nil, err
	}
	return valid, encoding.ReadPart(d, buf, 0, n, valid, true)
}

// extractBits copies rows [lo, hi) of b into a new bitmap starting at bit 0.
func extractBits(b encoding.Bitmap, lo, hi int) encoding.Bitmap {
	n := hi - lo
	out := make(encoding.Bitmap, (n+63)/64)
	sh := uint(lo & 63)
	w := lo >> 6
	for i := range out {
		v := b[w+i] >> sh
		if sh != 0 && w+i+1 < len(b) {
			v |= b[w+i+1] << (64 - sh)
		}
		out[i] = v
	}
	if n%64 != 0 {
		out[len(out)-1] &= (1 << uint(n%64)) - 1
	}
	return out
}

// storeBits writes sub back into rows [lo, hi) of b.
func storeBits(b, sub encoding.Bitmap, lo, hi int) {
	for i := lo; i < hi; {
		if i&63 == 0 && hi-i >= 64 {
			b[i>>6] = sub[(i-lo)>>6] >> uint((i-lo)&63)
			if (i-lo)&63 != 0 && ((i-lo)>>6)+1 < len(sub) {
				b[i>>6] |= sub[((i-lo)>>6)+1] << (64 - uint((i-lo)&63))
			}
			i += 64
			continue
		}
		if sub.Get(i - lo) {
			b.Set(i)
		} else {
			b.Clear(i)
		}
		i++
	}
}

// columnInfo describes a schema leaf to the filter binder.
func columnInfo(n *schema.Node) filter.ColumnInfo {
	ci := filter.ColumnInfo{Type: n.PhysicalType()}
	switch n.Kind {
	case schema.String:
		ci.Logical = filter.LogicalString
	case schema.Date:
		ci.Logical = filter.LogicalDate
	case schema.Timestamp, schema.Time, schema.Duration:
		switch n.Kind {
		case schema.Timestamp:
			ci.Logical = filter.LogicalTimestamp
		case schema.Time:
			ci.Logical = filter.LogicalTime
		default:
			ci.Logical = filter.LogicalDuration
		}
		ci.Unit = filter.TimeUnit(n.Unit) // both number units as Arrow does; the schema checked it
	case schema.Decimal:
		if ci.Type != encoding.Binary {
			ci.Logical = filter.LogicalDecimal
			ci.Scale = n.Scale
		}
		// Decimals wider than 18 digits are stored as 16-byte binary,
		// compared as the 128-bit integers they hold (never as bytes).
		if ci.Type == encoding.Binary {
			ci.Logical, ci.Precision, ci.Scale = filter.LogicalWideDecimal, n.Precision, n.Scale
		}
	}
	return ci
}
