package read

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"strata/encoding"
	"strata/filter"
	"strata/schema"
	"strata/shred"
	"strata/stats"
)

// AggValue is the result of one aggregate.
//
// Semantics (the same as DuckDB's unless noted): count(*) counts rows,
// count(c) non-null values; sum, min and max ignore nulls and are NULL when
// no non-null value is selected. An integer sum is exact: it is computed in
// 128 bits (DuckDB's HUGEINT), I holds it when it fits in int64, and
// otherwise Wide is set and W holds it. A float sum is the correctly
// rounded sum of the values (see floatSum): independent of their order,
// where DuckDB adds in an unspecified order, so the two may differ in the
// last bits. min and max order NaN above every number (max is NaN when any
// selected value is NaN, min only when all are), as DuckDB does. min and
// max return a value the column holds, with -0 ordered below +0 (as
// math.Min and math.Max order them; DuckDB compares them equal and may
// return either). A decimal of precision above 18 (a wide decimal, stored
// as 16-byte binary) has min, max, sum and avg like a narrower one's,
// computed from its values as 128-bit integers, never from its statistics
// (bytewise bounds); its sum is exact, and one beyond 38 digits is
// ErrOverflow.
type AggValue struct {
	Name string
	// Column is the aggregated column's path: its top-level name, then
	// the names of the struct fields down to it (nil for count(*), for a
	// column under a list or map, and for the value of a FlatMap key).
	// Name writes it as a filter would,
	// quoted where needed so that it names the same column again:
	// sum("a.b") for a column "a.b", sum(a.b) for field b of a struct a,
	// or sum("a"."b") when the schema also has a column "a.b".
	Column []string
	Null   bool // no non-null input (min/max/sum of nothing)
	Float  bool // the value is a float
	I      int64
	F      float64
	// Wide reports an integer sum, or the min or max of a wide decimal,
	// beyond the int64 range; W holds it (unscaled, for a decimal).
	Wide bool
	W    Int128
	// Text is the value formatted for the column's logical type (a date,
	// a decimal, a string); empty when the plain number says it all. The
	// min or max of an unsigned column above math.MaxInt64 has its digits
	// here, I holding the uint64's bits.
	Text string
	// unsigned marks the min or max of an unsigned column: I holds the
	// bits of a uint64.
	unsigned bool
	// text marks the min or max of a string or binary column, whose value
	// is Text even when that is empty.
	text bool
}

// Int returns the value as an integer. A Wide sum, and the min or max of
// an unsigned column above math.MaxInt64, saturate to math.MinInt64 or
// math.MaxInt64; check Wide, or use Big, where that matters. A float is
// truncated toward zero, saturating likewise (NaN gives 0).
func (v AggValue) Int() int64 {
	switch {
	case v.Float:
		switch {
		case v.F != v.F:
			return 0
		case v.F >= math.MaxInt64: // 2^63, the nearest float64
			return math.MaxInt64
		case v.F <= math.MinInt64:
			return math.MinInt64
		}
		return int64(v.F)
	case v.Wide && v.W.Hi < 0:
		return math.MinInt64
	case v.Wide, v.unsigned && v.I < 0:
		return math.MaxInt64
	}
	return v.I
}

// Big returns an integer value exactly (nil for a float or NULL).
func (v AggValue) Big() *big.Int {
	switch {
	case v.Null || v.Float:
		return nil
	case v.Wide:
		return v.W.Big()
	case v.unsigned:
		return new(big.Int).SetUint64(uint64(v.I))
	}
	return big.NewInt(v.I)
}

func (v AggValue) String() string {
	switch {
	case v.Null:
		return "NULL"
	case v.Text != "" || v.text:
		return v.Text
	case v.Float:
		return fmt.Sprint(v.F)
	case v.Wide:
		return v.W.String()
	}
	return fmt.Sprint(v.I)
}

// ErrOverflow reports an aggregate whose exact result does not fit the
// type it is returned as: the sum of a decimal of precision above 18
// beyond the 38 digits of a decimal(38,s).
var ErrOverflow = errors.New("numeric overflow")

type aggSpec struct {
	fn string // count, sum, min, max (avg folds as sum, see avg)
	// avg: the result is the sum over the count of the values folded
	avg    bool
	col    int // the top-level column holding the leaf; -1 for count(*)
	node   *schema.Node
	stream int
	name   string
	// wide marks a decimal of precision above 18, stored as 16-byte
	// binary: its values fold as 128-bit integers (wmin, wmax, wsum of
	// aggState), and its bytewise chunk bounds answer nothing.
	wide bool
	// anc are the nulls streams of the leaf's nullable struct ancestors: a
	// row where one of them is null holds no value of the leaf, whatever
	// its own stream holds there. For the value of a FlatMap key they are
	// the structs from the key down, whose streams, like the leaf's, hold
	// one entry per row where the key is present.
	anc []int
	// inmap is the inmap stream of the FlatMap key the leaf is the value
	// of (or a field of), -1 for other columns: the leaf's values stream
	// then holds one entry per row where the key is present, and the
	// selected rows are mapped to those entries (flatEntries). path is
	// the leaf's path, top-level column first, for the result's name.
	inmap int
	path  []string
}

// aggLeaf points s at the column an aggregate names: a top-level primitive
// column, a primitive field of structs by its dotted path
// ("properties.mag"), whose nullable ancestors then gate its rows, or the
// value of a FlatMap key ("features.clicks", "tags.\"7\"") or a field of
// a struct value ("features.pos.x"), under structs only, which is NULL in
// the rows without the key. Other values inside lists and maps are not
// aggregated (they are not one a row). path is arg as a filter path (its
// parts as written, so that "a"."b" is field b of a and "a.b" the column
// "a.b", as in filters), or nil when arg is not one and names a column as
// it is.
func (f *File) aggLeaf(s *aggSpec, part, arg string, path []filter.PathPart) error {
	c := -1
	var n *schema.Node
	if path == nil {
		c = f.sch.ColumnIndex(arg)
	} else {
		names, whole := filter.PathNames(path)
		if x, err := f.sch.FindParts(names, whole); err == nil {
			if x.Parent() == f.sch.Root {
				c = f.sch.ColumnIndex(x.Name)
			}
			n = x
		}
	}
	if c >= 0 {
		s.col, s.node = c, f.sch.Column(c)
		if s.stream = f.rowAligned(c); s.stream < 0 {
			return fmt.Errorf("read: aggregate %q: %s is not a primitive column: %w", part, arg, ErrInvalidArgument)
		}
		return nil
	}
	if n == nil && path == nil {
		n, _ = f.sch.Find(arg)
	}
	if n == nil {
		return fmt.Errorf("aggregate %q: %w", part, f.unknownColumn(arg, true))
	}
	if !n.Kind.IsLeaf() {
		return fmt.Errorf("read: aggregate %q: %s is not a primitive column: %w", part, arg, ErrInvalidArgument)
	}
	// Walk up from the leaf: key is the FlatMap key the leaf is the value
	// of or lies below, once passed. Nullable structs above the FlatMap
	// need no check: a null slot of theirs is a null FlatMap slot, where
	// every key's inmap entry is false (docs/FORMAT.md, "Slots").
	top := n
	var key *schema.Node
	for c := n; c.Parent() != nil && c.Parent() != f.sch.Root; c = c.Parent() {
		p := c.Parent()
		switch {
		case p.Kind == schema.FlatMap && key == nil:
			key = c
		case p.Kind == schema.Struct:
			if p.Nullable && key == nil {
				if id := p.StreamID(schema.RoleNulls); id >= 0 {
					s.anc = append(s.anc, id)
				}
			}
		default:
			return fmt.Errorf("read: aggregate %q: %s lies inside a %s; values inside lists and maps (other than the values of a FlatMap's keys under structs, and their fields) cannot be aggregated: %w", part, arg, p.Kind, encoding.ErrUnsupported)
		}
		top = p
	}
	if key != nil {
		if s.inmap = key.StreamID(schema.RoleInMap); s.inmap < 0 {
			return encoding.Corruptf("aggregate %q: FlatMap key %q has no inmap stream", part, key.Name)
		}
		for c := n; c != f.sch.Root; c = c.Parent() {
			s.path = append(s.path, c.Name)
		}
		slices.Reverse(s.path)
	}
	s.node, s.col = n, f.sch.ColumnIndex(top.Name)
	if s.stream = n.StreamID(schema.RoleValues); s.stream < 0 || s.col < 0 {
		return encoding.Corruptf("aggregate %q: field %s has no values stream", part, arg)
	}
	return nil
}

func (f *File) parseAggs(exprs string) ([]aggSpec, error) {
	var out []aggSpec
	td := &textDecimals{f: f}
	for _, part := range splitAggs(exprs) {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		open := strings.IndexByte(part, '(')
		if open < 0 || !strings.HasSuffix(part, ")") {
			return nil, fmt.Errorf("read: aggregate %q: want fn(column), e.g. sum(l_quantity): %w", part, ErrInvalidArgument)
		}
		fn := strings.ToLower(strings.TrimSpace(part[:open]))
		arg := strings.TrimSpace(part[open+1 : len(part)-1])
		// The column as a filter names it: l_quantity, a.b, "a"."b",
		// "a.b" ("" is a quote); else the text as it is (a name a path
		// cannot write unquoted, such as one with a space).
		var path []filter.PathPart
		if arg != "*" {
			if p, pp, err := filter.ParsePath(arg); err == nil {
				arg, path = p, pp
			} else if len(arg) >= 2 && arg[0] == '"' && arg[len(arg)-1] == '"' {
				arg = strings.ReplaceAll(arg[1:len(arg)-1], `""`, `"`)
			}
		}
		switch fn {
		case "count", "sum", "min", "max", "avg":
		default:
			return nil, fmt.Errorf("read: aggregate %q: unknown function %q (count, sum, avg, min, max): %w", part, fn, ErrInvalidArgument)
		}
		s := aggSpec{fn: fn, col: -1, stream: -1, inmap: -1, name: fn + "(" + arg + ")"}
		if fn == "avg" {
			if arg == "*" {
				return nil, fmt.Errorf("read: aggregate %q: avg needs a column: %w", part, ErrInvalidArgument)
			}
			// folded as a sum, which also counts the values it adds
			s.fn, s.avg, fn = "sum", true, "sum"
		}
		if arg != "*" || fn != "count" {
			if err := f.aggLeaf(&s, part, arg, path); err != nil {
				return nil, err
			}
			t := f.sch.Stream(s.stream).Type
			// Messages name the column's type as cat and inspect show it
			// (date32, timestamp[us], utf8), and the column.
			verb := fn
			if s.avg {
				verb = "average"
			}
			if fn != "count" {
				// a decimal256 of over 38 digits, stored as its text,
				// would order as text (textdecimal.go)
				name := fn
				if s.avg {
					name = "avg"
				}
				if err := td.agg(part, name, arg, s.node); err != nil {
					return nil, err
				}
			}
			// Wide decimals are 16-byte little-endian values: their byte
			// order (and their byte statistics) is not their numeric
			// order, so they fold from their values as 128-bit integers.
			s.wide = s.node.Kind == schema.Decimal && t == encoding.Binary
			if fn == "sum" && !(t.IsInteger() || t.IsFloat() || s.wide) {
				return nil, fmt.Errorf("read: aggregate %q: cannot %s %s values (column %s): %w", part, verb, shred.DataType(s.node), arg, ErrInvalidArgument)
			}
			if k := s.node.Kind; fn == "sum" && (k == schema.Date || k == schema.Timestamp || k == schema.Time) {
				// As in SQL: a sum of dates, instants or times of day means
				// nothing (a sum of durations is one).
				return nil, fmt.Errorf("read: aggregate %q: cannot %s %s values (column %s): %w", part, verb, shred.DataType(s.node), arg, ErrInvalidArgument)
			}
			if s.avg && s.node.Kind == schema.Duration {
				return nil, fmt.Errorf("read: aggregate %q: avg of durations is not supported (sum is): %w", part, encoding.ErrUnsupported)
			}
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("read: no aggregates in %q: %w", exprs, ErrInvalidArgument)
	}
	return out, nil
}

type aggState struct {
	compressed int // chunks folded on runs or dictionary ids
	count      int64
	sumI       Int128   // integer columns: exact
	sumF       floatSum // float columns: exactly rounded
	have       bool
	nan        bool // a selected float value is NaN (min and max exclude it)
	min        stats.Value
	max        stats.Value
	// A wide decimal's values fold here instead of into min, max and
	// sumI: as 128-bit integers, whose stored bytes do not order like
	// them, and into a sum that cannot wrap (int192). wmin and wmax are
	// set when have is.
	wide       bool
	wmin, wmax Int128
	wsum       int192
}

// AggregateOptions select the rows an aggregate folds.
type AggregateOptions struct {
	// Where is a filter in the syntax of package filter ("" = every row).
	Where string
	// UnionByName makes AggregateFiles read its files by column name, as
	// a table whose files gained columns over time (UnionByName): an
	// aggregate of a column a file lacks folds none of that file's rows,
	// as over nulls, and each file's filter treats the columns it lacks
	// as null (filter.AssumeNull). A column must be in some file and of
	// one type in all that hold it, or of types that widen to one
	// (Promote), whose values fold into the same states.
	UnionByName bool
	// Split limits the aggregate to the stripes of one split.
	Split *Split
	// Parallelism overrides the file's Parallelism (0 keeps it; negative
	// is ErrInvalidArgument).
	Parallelism int
}

// Aggregate computes count/sum/avg/min/max over the rows matching where.
// Whole stripes and chunks that the filter accepts on statistics answer
// count, min and max from statistics; other chunks decode only the
// aggregated column's surviving rows. avg is the exact sum over the count
// of the non-null values, rounded once to a float64 (NULL over none).
func (f *File) Aggregate(exprs, where string) ([]AggValue, ScanStats, error) {
	return f.AggregateContext(context.Background(), exprs, AggregateOptions{Where: where})
}

// AggregateContext is Aggregate under a context and options. Stripes are
// folded in parallel (and the chunks within a stripe), each stripe's
// filter and aggregated chunks fetched in one call each.
func (f *File) AggregateContext(ctx context.Context, exprs string, opts AggregateOptions) ([]AggValue, ScanStats, error) {
	specs, total, st, err := f.aggregateStates(ctx, exprs, opts)
	if err != nil {
		return nil, st, err
	}
	vals, err := f.aggValues(specs, total)
	return vals, st, err
}

// AggregateFiles is AggregateContext over several files read as one table,
// such as the files a pattern names: every file folds its rows into the
// exact states one file does (integer sums in 128 bits, float sums
// correctly rounded, counts, minima and maxima), and the states of all
// files are merged before the values are formed, so the result is the one
// a single file holding all their rows would give. The aggregated columns
// must have the same types in every file; a Split, which names stripes of
// one file, is refused with more than one. Files written apart may know
// different FlatMap keys: a file whose schema lacks the key an aggregate
// names folds nothing into it, as over NULLs.
func AggregateFiles(ctx context.Context, files []*File, exprs string, opts AggregateOptions) ([]AggValue, ScanStats, error) {
	var st ScanStats
	switch {
	case len(files) == 0:
		return nil, st, fmt.Errorf("read: an aggregate over no file: %w", ErrInvalidArgument)
	case len(files) > 1 && opts.Split != nil:
		return nil, st, fmt.Errorf("read: a split names stripes of one file, not of %d: %w", len(files), ErrInvalidArgument)
	}
	if err := checkParallelism("aggregate", opts.Parallelism); err != nil {
		return nil, st, err
	}
	if opts.UnionByName && len(files) > 1 {
		return aggregateUnion(ctx, files, exprs, opts)
	}
	var parts []string
	for _, p := range splitAggs(exprs) {
		if p = strings.TrimSpace(p); p != "" {
			parts = append(parts, p)
		}
	}
	if len(parts) == 0 {
		return nil, st, fmt.Errorf("read: no aggregates in %q: %w", exprs, ErrInvalidArgument)
	}
	specs := make([]aggSpec, len(parts))
	total := make([]aggState, len(parts))
	owner := make([]*File, len(parts)) // the first file holding each aggregate's column
	wheres := keyWheres(files, opts.Where)
	for i, f := range files {
		fo := opts
		if wheres != nil {
			fo.Where = wheres[i]
		}
		// A FlatMap key this file's schema lacks (files written apart
		// know different keys) is NULL in all its rows: the file folds
		// nothing into that aggregate.
		var mine []int
		var sub []string
		for k, part := range parts {
			if len(files) == 1 || !f.lacksKey(part) {
				mine, sub = append(mine, k), append(sub, part)
			}
		}
		if len(sub) == 0 {
			continue
		}
		sp, states, fst, err := f.aggregateStates(ctx, strings.Join(sub, ", "), fo)
		st.add(&fst)
		if err != nil {
			return nil, st, fmt.Errorf("file %d of %d: %w", i+1, len(files), err)
		}
		for j, k := range mine {
			if owner[k] == nil {
				owner[k], specs[k], total[k] = f, sp[j], states[j]
				continue
			}
			if err := sameAgg(owner[k], &specs[k], f, &sp[j]); err != nil {
				return nil, st, fmt.Errorf("file %d of %d: %w", i+1, len(files), err)
			}
			total[k].merge(&states[j])
		}
	}
	out := make([]AggValue, len(parts))
	for k, part := range parts {
		if owner[k] == nil {
			// every file lacks the key: the first file says so
			_, err := files[0].parseAggs(part)
			if err == nil {
				err = fmt.Errorf("read: aggregate %q: no file holds its column: %w", part, ErrUnknownColumn)
			}
			return nil, st, fmt.Errorf("file 1 of %d: %w", len(files), err)
		}
		v, err := owner[k].aggValues(specs[k:k+1], total[k:k+1])
		if err != nil {
			return nil, st, err
		}
		out[k] = v[0]
	}
	return out, st, nil
}

// lacksKey reports whether the aggregate part names the value of a FlatMap
// key (or a field of it) that f's schema does not know, of a FlatMap f
// holds (lacks): another file of the same columns, written apart, may know
// the key.
func (f *File) lacksKey(part string) bool {
	open := strings.IndexByte(part, '(')
	if open < 0 || !strings.HasSuffix(part, ")") {
		return false
	}
	p, _, err := filter.ParsePath(strings.TrimSpace(part[open+1 : len(part)-1]))
	if err != nil || !HasColumn(f.Schema(), p) || !f.lacks(p) {
		return false
	}
	_, err = f.parseAggs(part)
	return errors.Is(err, ErrUnknownColumn)
}

// aggregateUnion is AggregateFiles by column name (UnionByName): each
// file folds the aggregates of the columns it holds, under the filter as
// it reads it, into the states of all files.
func aggregateUnion(ctx context.Context, files []*File, exprs string, opts AggregateOptions) ([]AggValue, ScanStats, error) {
	var st ScanStats
	var parts []string
	for _, p := range splitAggs(exprs) {
		if p = strings.TrimSpace(p); p != "" {
			parts = append(parts, p)
		}
	}
	var where filter.Expr
	if opts.Where != "" {
		var err error
		if where, err = filter.Parse(opts.Where); err != nil {
			return nil, st, err
		}
		for _, p := range filter.Columns(where) {
			if !slices.ContainsFunc(files, func(f *File) bool { return !f.lacks(p) }) {
				return nil, st, fmt.Errorf("read: filter: %w %q in none of the %d files", ErrUnknownColumn, p, len(files))
			}
		}
	}
	specs := make([]aggSpec, len(parts))
	owner := make([]*File, len(parts)) // the first file holding each aggregate's column
	total := make([]aggState, len(parts))
	for i, f := range files {
		var mine []int
		var sub []string
		for k, part := range parts {
			if _, err := f.parseAggs(part); errors.Is(err, ErrUnknownColumn) {
				continue
			} else if err != nil {
				return nil, st, fmt.Errorf("file %d of %d: %w", i+1, len(files), err)
			}
			mine, sub = append(mine, k), append(sub, part)
		}
		fo := opts
		w, none := whereForFile(opts.Where, where, f)
		if none {
			continue // no row of the file passes
		}
		fo.Where = w
		if len(sub) == 0 {
			continue
		}
		sp, states, fst, err := f.aggregateStates(ctx, strings.Join(sub, ", "), fo)
		st.add(&fst)
		if err != nil {
			return nil, st, fmt.Errorf("file %d of %d: %w", i+1, len(files), err)
		}
		for j, k := range mine {
			if owner[k] == nil {
				owner[k], specs[k] = f, sp[j]
			} else if err := sameAgg(owner[k], &specs[k], f, &sp[j]); err != nil {
				// a column of a narrower type in one file (Promote) folds
				// into the same states; the widest file forms the value
				wider, ok := promotedAgg(owner[k], &specs[k], f, &sp[j])
				if !ok {
					return nil, st, fmt.Errorf("file %d of %d: %w", i+1, len(files), err)
				}
				if wider {
					owner[k], specs[k] = f, sp[j]
				}
			}
			total[k].merge(&states[j])
		}
	}
	out := make([]AggValue, len(parts))
	for k, part := range parts {
		if owner[k] == nil {
			// no file that holds the column had rows passing the filter,
			// or none holds it (an error)
			sp, err := firstParse(files, part)
			if err != nil {
				return nil, st, err
			}
			owner[k], specs[k] = sp.f, sp.spec
		}
		v, err := owner[k].aggValues(specs[k:k+1], total[k:k+1])
		if err != nil {
			return nil, st, err
		}
		out[k] = v[0]
	}
	return out, st, nil
}

// parsedAgg is an aggregate as the first file holding its column parses it.
type parsedAgg struct {
	f    *File
	spec aggSpec
}

func firstParse(files []*File, part string) (parsedAgg, error) {
	var first error
	for _, f := range files {
		sp, err := f.parseAggs(part)
		if err == nil {
			return parsedAgg{f, sp[0]}, nil
		}
		first = cmp.Or(first, err)
	}
	return parsedAgg{}, first
}

// promotedAgg reports whether aggregates a of file f and b of file g fold
// top-level columns whose types promote to one (Promote), and whether b's
// is the wider.
func promotedAgg(f *File, a *aggSpec, g *File, b *aggSpec) (wider, ok bool) {
	if a.col < 0 || b.col < 0 || len(a.anc) > 0 || len(b.anc) > 0 ||
		a.node != f.sch.Column(a.col) || b.node != g.sch.Column(b.col) {
		return false, false
	}
	ta, tb := f.arrow.Field(a.col).Type, g.arrow.Field(b.col).Type
	t, ok := Promote(ta, tb)
	if !ok {
		return false, false
	}
	return !arrow.TypeEqual(t, ta), true
}

// sameAgg checks that aggregate b of file g folds a column of the type
// that aggregate a of file f folds, so that their states merge.
func sameAgg(f *File, a *aggSpec, g *File, b *aggSpec) error {
	if a.col < 0 && b.col < 0 {
		return nil
	}
	ta, tb := a.node.TypeString(), b.node.TypeString()
	if ta != tb || f.sch.Stream(a.stream).Type != g.sch.Stream(b.stream).Type {
		return fmt.Errorf("read: aggregate %s: the column is %s in the first file and %s here: %w", a.name, ta, tb, ErrInvalidArgument)
	}
	return nil
}

// aggregateStates folds the rows opts selects into one state per
// aggregate of exprs.
func (f *File) aggregateStates(ctx context.Context, exprs string, opts AggregateOptions) ([]aggSpec, []aggState, ScanStats, error) {
	var st ScanStats
	if err := checkParallelism("aggregate", opts.Parallelism); err != nil {
		return nil, nil, st, err
	}
	specs, err := f.parseAggs(exprs)
	if err != nil {
		return nil, nil, st, err
	}
	var q *query
	if opts.Where != "" {
		if q, err = f.compile(opts.Where); err != nil {
			return nil, nil, st, err
		}
	}
	x := f.newExec(ctx, opts.Parallelism)
	r, err := f.stripeRange(x.ctx, opts.Split, q, &st)
	if err != nil {
		return nil, nil, st, err
	}
	if x.par > 1 {
		x.w = newWorkers(x.par)
	}
	n := r.hi - r.lo
	states := make([][]aggState, n)
	stats := make([]ScanStats, n)
	run := func(x *exec, k int) error {
		i := r.lo + k
		lo, hi := r.rows(f, i)
		if lo >= hi {
			return nil
		}
		states[k] = make([]aggState, len(specs))
		return f.aggStripe(x, i, specs, q, int(lo), int(hi), states[k], &stats[k])
	}
	if x.w == nil || n <= 1 {
		for k := 0; k < n && err == nil; k++ {
			err = run(x, k)
		}
	} else {
		err = f.eachStripe(x, n, run)
	}
	if err != nil {
		return nil, nil, st, err
	}
	total := make([]aggState, len(specs))
	for k := range states {
		st.add(&stats[k])
		for j := range states[k] {
			total[j].merge(&states[k][j])
		}
	}
	return specs, total, st, nil
}

// eachStripe runs fn for k in [0, n), each on a goroutine of its own that
// holds a token; fn may use the tokens left for work within its stripe.
// The first error cancels the jobs not yet started and those running.
func (f *File) eachStripe(x *exec, n int, fn func(x *exec, k int) error) error {
	var (
		wg       sync.WaitGroup
		once     sync.Once
		firstErr error
	)
	ctx, cancel := context.WithCancel(x.ctx)
	defer cancel()
	x2 := &exec{ctx: ctx, w: x.w, par: x.par}
	for k := 0; k < n; k++ {
		if err := x.w.acquire(ctx); err != nil {
			once.Do(func() { firstErr = err })
			break
		}
		wg.Add(1)
		go func(k int) {
			defer func() {
				x.w.release()
				wg.Done()
			}()
			if err := fn(x2, k); err != nil {
				once.Do(func() { firstErr = err })
				cancel()
			}
		}(k)
	}
	wg.Wait()
	return firstErr
}

// aggStripe folds the selected rows [lo, hi) of one stripe into states.
func (f *File) aggStripe(x *exec, i int, specs []aggSpec, q *query, lo, hi int, states []aggState, st *ScanStats) error {
	io, err := f.newStripeIO(x.ctx, i)
	if err != nil {
		return err
	}
	defer io.flush(st)
	rows := int(f.f.Stripe(i).Rows)
	var sel encoding.Bitmap
	if q != nil {
		if sel, err = f.stripeSelection(x, io, q, lo, hi, st); err != nil || sel == nil {
			return err
		}
	} else {
		st.RowsScanned += int64(rows)
	}
	selected := rows
	if sel != nil {
		selected = sel.Count()
		if selected == rows {
			sel = nil // every row: the whole-chunk paths apply
		}
	}
	plans := make([][]aggChunk, len(specs))
	sels := make([]encoding.Bitmap, len(specs))
	for k, s := range specs {
		if s.col < 0 {
			continue
		}
		sels[k] = sel
		slots := rows
		if s.inmap >= 0 {
			// The value of a FlatMap key: its streams hold one entry per
			// row holding the key, and the selected rows select entries.
			// A stripe without the key's streams has no entry to fold.
			if len(io.stream(s.inmap).Chunks) == 0 {
				continue
			}
			if slots, sels[k], err = f.aggEntries(io, s, sel); err != nil {
				return err
			}
		}
		if len(s.anc) > 0 {
			if sels[k], err = f.ancestorsPresent(io, s.anc, sels[k], slots); err != nil {
				return fmt.Errorf("read: aggregate %s: %w", s.name, err)
			}
		}
		plans[k] = f.aggChunks(io, s, sels[k], st)
		for _, c := range plans[k] {
			if !c.fromStats {
				if err := io.need(s.stream, c.ci); err != nil {
					return err
				}
			}
		}
	}
	if err := io.fetch(); err != nil {
		return err
	}
	for k, s := range specs {
		if s.col < 0 {
			states[k].count += int64(selected)
			continue
		}
		if plans[k] == nil {
			continue // a FlatMap key the stripe does not hold, or no chunk to fold
		}
		if err := f.aggColumn(x, io, s, sels[k], plans[k], &states[k], st); err != nil {
			return err
		}
	}
	st.RowsReturned += int64(selected)
	return nil
}

// aggEntries returns how many entries the FlatMap key of s has in the
// stripe of io and which of them the selected rows sel (nil: every row)
// hold; nil when they are all selected, so that chunk statistics, which
// describe exactly the key's entries, answer whole chunks.
func (f *File) aggEntries(io *stripeIO, s aggSpec, sel encoding.Bitmap) (int, encoding.Bitmap, error) {
	n := 0
	for _, c := range io.stream(s.stream).Chunks {
		n += int(c.Rows)
	}
	if sel == nil {
		return n, nil, nil
	}
	e, err := f.flatEntries(io, s.inmap, s.stream, sel)
	if err != nil {
		return 0, nil, fmt.Errorf("read: aggregate %s: %w", s.name, err)
	}
	if e.present == nil {
		return n, encoding.NewBitmap(n, false), nil // no row selected
	}
	return e.n, e.sel, nil
}

// ancestorsPresent returns sel (nil: every row) narrowed to the rows where
// every stream of anc (struct nulls) says present. Chunk statistics, which
// describe the leaf's own stream, then answer only chunks whose rows are
// all still selected.
func (f *File) ancestorsPresent(io *stripeIO, anc []int, sel encoding.Bitmap, rows int) (encoding.Bitmap, error) {
	out := encoding.NewBitmap(rows, true)
	if sel != nil {
		copy(out, sel)
	}
	for _, id := range anc {
		present, err := f.readBools(io, id, rows)
		if err != nil {
			return nil, err
		}
		for i, ok := range present {
			if !ok {
				out.Clear(i)
			}
		}
	}
	return out, nil
}

// pathText writes the path of node (its names, col) as an aggregate
// writes it, in a form that names node again: the names quoted where they
// are not plain identifiers, and all of them when the plain form resolves
// to another column (a column "a.b" beside field b of a struct a), so
// that result names tell such columns apart and can be written back.
func (f *File) pathText(col []string, node *schema.Node) string {
	text := filter.PathText(col, false)
	if _, parts, err := filter.ParsePath(text); err == nil {
		names, whole := filter.PathNames(parts)
		if n, err := f.sch.FindParts(names, whole); err == nil && n == node {
			return text
		}
	}
	return filter.PathText(col, true)
}

// aggValues turns the folded states into results. The sum of a wide
// decimal beyond 38 digits is ErrOverflow.
func (f *File) aggValues(specs []aggSpec, states []aggState) ([]AggValue, error) {
	out := make([]AggValue, len(specs))
	for k, s := range specs {
		v := AggValue{Name: s.name, Column: structPath(s.node)}
		if v.Column != nil {
			v.Name = s.name[:strings.IndexByte(s.name, '(')+1] + f.pathText(v.Column, s.node) + ")"
		} else if s.path != nil {
			// the value of a FlatMap key, named so that it parses back
			// (tags."7", not tags.7)
			v.Name = s.name[:strings.IndexByte(s.name, '(')+1] + f.pathText(s.path, s.node) + ")"
		}
		a := &states[k]
		if s.wide && s.fn != "count" {
			if err := wideValue(&v, s, a); err != nil {
				return nil, err
			}
			out[k] = v
			continue
		}
		switch s.fn {
		case "count":
			v.I = a.count
		case "sum":
			t := f.sch.Stream(s.stream).Type
			switch {
			case !a.have || s.avg && a.count == 0:
				v.Null = true
			case s.avg:
				v.Float, v.F = true, avgOf(s.node, t, a)
			case t.IsFloat():
				v.Float, v.F = true, a.sumF.value()
			case a.sumI.IsInt64():
				v.I = int64(a.sumI.Lo)
			default:
				v.Wide, v.W = true, a.sumI
			}
		case "min", "max":
			x := a.min
			if s.fn == "max" {
				x = a.max
			}
			if a.nan && (s.fn == "max" || !x.Valid()) {
				// NaN orders above every number: it is the max whenever
				// present, and the min only of NaNs alone.
				v.Float, v.F = true, math.NaN()
				break
			}
			if !a.have || !x.Valid() {
				v.Null = true
				break
			}
			switch {
			case x.Type.IsFloat():
				v.Float, v.F = true, x.Float()
			case x.Type.IsSigned():
				v.I = x.Int()
			case x.Type == encoding.Binary:
				v.Text, v.text = string(x.Bytes()), true
			default:
				v.I, v.unsigned = int64(x.Uint()), true
				if v.I < 0 {
					v.Text = strconv.FormatUint(x.Uint(), 10)
				}
			}
		}
		if !v.Null && !v.Float && s.col >= 0 && s.fn != "count" {
			if v.Wide {
				v.Text = formatWide(s.node, v.W.Big())
			} else {
				v.Text = formatLogical(s.node, v.I, v.Text)
			}
		}
		out[k] = v
	}
	return out, nil
}

// wideValue forms the min, max, sum or avg of a wide decimal from its
// state: an unscaled 128-bit value in I (when it fits an int64) or W
// (Wide), and the decimal's text; avg a float. A sum beyond 38 digits,
// which no decimal(38,s) holds, is ErrOverflow rather than a value the
// column's type cannot carry.
func wideValue(v *AggValue, s aggSpec, a *aggState) error {
	if !a.have || s.avg && a.count == 0 {
		v.Null = true
		return nil
	}
	var x Int128
	switch {
	case s.avg:
		v.Float, v.F = true, meanOf(a.wsum.Big(), s.node.Scale, a.count)
		return nil
	case s.fn == "sum":
		b := a.wsum.Big()
		if new(big.Int).Abs(b).Cmp(maxDecimal38) > 0 {
			return fmt.Errorf("read: aggregate %s: the sum of %d values of decimal(%d,%d) is %s, beyond the 38 digits a decimal holds: %w",
				v.Name, a.count, s.node.Precision, s.node.Scale, formatWide(s.node, b), ErrOverflow)
		}
		x, _ = a.wsum.int128() // 38 digits fit in 128 bits
	case s.fn == "min":
		x = a.wmin
	default:
		x = a.wmax
	}
	if x.IsInt64() {
		v.I = int64(x.Lo)
	} else {
		v.Wide, v.W = true, x
	}
	v.Text = formatWide(s.node, x.Big())
	return nil
}

// avgOf is the mean of the values a sum folded: for integers and
// decimals their exact sum over their count (meanOf), for floats their
// correctly rounded sum over it.
func avgOf(n *schema.Node, t encoding.Type, a *aggState) float64 {
	if t.IsFloat() {
		return a.sumF.value() / float64(a.count)
	}
	scale := 0
	if n.Kind == schema.Decimal {
		scale = n.Scale
	}
	return meanOf(a.sumI.Big(), scale, a.count)
}

// meanOf is sum / 10^scale / count, the mean of count values of an
// integer or decimal column summing to sum (unscaled), rounded once to
// the nearest float64. Dividing step by step in floats rounds at each
// step and can miss it by one unit in the last place (six values summing
// to 0.0000000000991020 averaged 1.6516999999999998e-11).
func meanOf(sum *big.Int, scale int, count int64) float64 {
	num := sum
	den := big.NewInt(count)
	// A negative scale -s multiplies by 10^s (big.Int.Exp of a negative
	// exponent is 1, not a fraction).
	p := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(max(scale, -scale))), nil)
	if scale >= 0 {
		den.Mul(den, p)
	} else {
		num = new(big.Int).Mul(sum, p)
	}
	v, _ := new(big.Rat).SetFrac(num, den).Float64()
	return v
}

// aggChunk is one chunk an aggregate reads: its statistics answer it
// (fromStats: every row selected, count/min/max with exact bounds), or its
// values must be folded.
type aggChunk struct {
	ci        int
	fromStats bool
	stats     stats.ColumnStats
}

// aggChunks lists the chunks of a column holding selected rows; chunks
// without any are counted as ChunksNoSurvivors.
func (f *File) aggChunks(io *stripeIO, s aggSpec, sel encoding.Bitmap, st *ScanStats) []aggChunk {
	info := io.stream(s.stream)
	cstats, _ := f.chunkStats(io.ctx, io.stripe, s.stream)
	var out []aggChunk
	for ci, ch := range info.Chunks {
		lo, hi := int(ch.FirstRow), int(ch.FirstRow+ch.Rows)
		if sel != nil && !sel.AnyIn(lo, hi) {
			st.ChunksNoSurvivors++
			continue
		}
		whole := sel == nil || allIn(sel, lo, hi)
		if whole && s.fn != "sum" && ci < len(cstats) && cstats[ci].ok {
			// A wide decimal's bounds are bytewise (docs/FORMAT.md,
			// "Column statistics"): only its counts answer.
			if cs := cstats[ci].cs; s.fn == "count" || !s.wide && cs.HasMinMax && !cs.MinTruncated && !cs.MaxTruncated && !zeroBound(cs) {
				out = append(out, aggChunk{ci: ci, fromStats: true, stats: cs})
				continue
			}
		}
		out = append(out, aggChunk{ci: ci})
	}
	return out
}

// zeroBound reports float statistics with a zero bound: the writer widens
// a zero min to -0 and a zero max to +0 so that they bound either zero
// (stats.ColumnStats), so such a bound does not say which zero the chunk
// holds, and min or max must read its values.
func zeroBound(cs stats.ColumnStats) bool {
	return cs.Min.Type.IsFloat() && (cs.Min.Float() == 0 || cs.Max.Float() == 0)
}

// aggColumn folds one stripe's selected rows of a column into a: chunks
// answered by statistics first, then the others decoded in parallel into
// partial states merged in chunk order.
func (f *File) aggColumn(x *exec, io *stripeIO, s aggSpec, sel encoding.Bitmap, plan []aggChunk, a *aggState, st *ScanStats) error {
	info := io.stream(s.stream)
	var todo []aggChunk
	for _, c := range plan {
		if c.fromStats {
			st.ChunksAllMatch++
			a.count += c.stats.Rows - c.stats.Nulls
			if c.stats.HasMinMax && !s.wide {
				a.fold(c.stats.Min, c.stats.Max)
			}
			if c.stats.NaNs > 0 {
				a.nan, a.have = true, true
			}
			continue
		}
		todo = append(todo, c)
	}
	parts := make([]aggState, len(todo))
	err := x.w.each(x.ctx, len(todo), func(k int) error {
		ci := todo[k].ci
		ch := info.Chunks[ci]
		lo, hi := int(ch.FirstRow), int(ch.FirstRow+ch.Rows)
		var sub encoding.Bitmap
		if sel != nil && !allIn(sel, lo, hi) {
			sub = extractBits(sel, lo, hi)
		}
		// Few selected rows: keep the opened decoder cached, as point
		// lookups and sparse payload reads do.
		sparse := sub != nil && countRange(sel, lo, hi) < int(ch.Rows)/4
		return io.use(s.stream, ci, sparse, func(d encoding.Decoder) error {
			return f.aggDecoder(d, int(ch.Rows), sub, s, &parts[k])
		})
	})
	if err != nil {
		return err
	}
	for k := range parts {
		st.ChunksAggCompressed += parts[k].compressed
		a.merge(&parts[k])
	}
	return nil
}

// merge folds the partial state o into a. Sums stay exact (integers in
// 128 bits, floats correctly rounded), so the result does not depend on
// how stripes and chunks were split among goroutines.
func (a *aggState) merge(o *aggState) {
	a.count += o.count
	a.sumI.add(o.sumI)
	a.sumF.merge(&o.sumF)
	a.wsum.add(o.wsum)
	a.nan = a.nan || o.nan
	if !o.have {
		return
	}
	if o.wide {
		a.foldWide(o.wmin, o.wmax)
		return
	}
	if o.min.Valid() {
		a.fold(o.min, o.max)
	} else {
		a.have = true
	}
}

func allIn(sel encoding.Bitmap, lo, hi int) bool {
	if sel == nil {
		return true
	}
	for i := lo; i < hi; i++ {
		if i&63 == 0 && hi-i >= 64 {
			if sel[i>>6] != ^uint64(0) {
				return false
			}
			i += 63
			continue
		}
		if !sel.Get(i) {
			return false
		}
	}
	return true
}

func (a *aggState) fold(mn, mx stats.Value) {
	if !a.have || !a.min.Valid() || mn.Compare(a.min) < 0 || signedZeroBelow(mn, a.min) {
		a.min = mn.Clone()
	}
	if !a.have || !a.max.Valid() || mx.Compare(a.max) > 0 || signedZeroBelow(a.max, mx) {
		a.max = mx.Clone()
	}
	a.have = true
}

// foldWide folds the least and greatest of some wide decimals into a.
func (a *aggState) foldWide(mn, mx Int128) {
	if !a.have || !a.wide || mn.cmp(a.wmin) < 0 {
		a.wmin = mn
	}
	if !a.have || !a.wide || mx.cmp(a.wmax) > 0 {
		a.wmax = mx
	}
	a.have, a.wide = true, true
}

// signedZeroBelow reports float zeros x = -0 and y = +0, which compare
// equal but order -0 first for min and max, as math.Min and math.Max do.
func signedZeroBelow(x, y stats.Value) bool {
	return x.Type.IsFloat() && y.Type.IsFloat() && x.Float() == 0 && y.Float() == 0 &&
		math.Signbit(x.Float()) && !math.Signbit(y.Float())
}

// aggDecoder folds the selected rows of an opened chunk decoder into a.
func (f *File) aggDecoder(d encoding.Decoder, n int, sel encoding.Bitmap, s aggSpec, a *aggState) error {
	if s.wide {
		return foldWide(d, n, sel, s, a)
	}
	if d.Kind() != encoding.KindNullable {
		done, err := aggCompressed(d, n, sel, a)
		if err != nil || done {
			if done {
				a.compressed++
			}
			return err
		}
		if done, err := aggGathered(d, n, sel, a); err != nil || done {
			return err
		}
	}
	buf, err := encoding.NewValues(d.Type(), n)
	if err != nil {
		return err
	}
	valid := make([]bool, n)
	if bb, ok := buf.(*encoding.Bytes); ok {
		if err := encoding.ReadBinaryNullable(d.(encoding.BinaryReader), bb, valid, n); err != nil {
			return err
		}
		for i := 0; i < n; i++ {
			if (sel == nil || sel.Get(i)) && valid[i] {
				a.count++
				v := stats.Bytes(bb.Value(i))
				a.fold(v, v)
			}
		}
		return nil
	}
	if err := encoding.ReadPart(d, buf, 0, n, valid, true); err != nil {
		return err
	}
	switch b := buf.(type) {
	case []int8:
		foldInts(a, b, valid, sel)
	case []int16:
		foldInts(a, b, valid, sel)
	case []int32:
		foldInts(a, b, valid, sel)
	case []int64:
		foldInts(a, b, valid, sel)
	case []uint8:
		foldUints(a, b, valid, sel)
	case []uint16:
		foldUints(a, b, valid, sel)
	case []uint32:
		foldUints(a, b, valid, sel)
	case []uint64:
		foldUints(a, b, valid, sel)
	case []float32:
		foldFloats(a, b, valid, sel)
	case []float64:
		foldFloats(a, b, valid, sel)
	case []bool:
		for i, v := range b {
			if (sel == nil || sel.Get(i)) && valid[i] {
				a.count++
				x := stats.Bool(v)
				a.fold(x, x)
			}
		}
	}
	return nil
}

// foldWide folds the selected values of a wide decimal's chunk into a as
// 128-bit integers (count, min, max and an exact sum). It decodes the
// values rather than fold dictionary ids or runs, whose order and bounds
// are the bytes'. A non-null value that is not 16 bytes long is corrupt.
func foldWide(d encoding.Decoder, n int, sel encoding.Bitmap, s aggSpec, a *aggState) error {
	r, ok := d.(encoding.BinaryReader)
	if !ok {
		return encoding.Corruptf("%v node of wide decimal %s is not binary", d.Kind(), s.name)
	}
	var b encoding.Bytes
	valid := make([]bool, n)
	if err := encoding.ReadBinaryNullable(r, &b, valid, n); err != nil {
		return err
	}
	var sum int192
	var mn, mx Int128
	var cnt int64
	for i := 0; i < n; i++ {
		if !valid[i] || sel != nil && !sel.Get(i) {
			continue
		}
		x, ok := wideInt(b.Value(i))
		if !ok {
			return encoding.Corruptf("%s: a wide decimal of %d bytes, not %d", s.name, len(b.Value(i)), wideDecimalBytes)
		}
		sum.add128(x)
		if cnt == 0 || x.cmp(mn) < 0 {
			mn = x
		}
		if cnt == 0 || x.cmp(mx) > 0 {
			mx = x
		}
		cnt++
	}
	if cnt == 0 {
		return nil
	}
	a.count += cnt
	a.wsum.add(sum)
	a.foldWide(mn, mx)
	return nil
}

func foldInts[T int8 | int16 | int32 | int64](a *aggState, v []T, valid []bool, sel encoding.Bitmap) {
	var sum Int128
	var cnt int64
	mn, mx := T(0), T(0)
	first := true
	for i, x := range v {
		if !valid[i] || (sel != nil && !sel.Get(i)) {
			continue
		}
		sum.addInt(int64(x))
		cnt++
		if first || x < mn {
			mn = x
		}
		if first || x > mx {
			mx = x
		}
		first = false
	}
	if cnt == 0 {
		return
	}
	a.count += cnt
	a.sumI.add(sum)
	a.fold(stats.Of(mn), stats.Of(mx))
}

func foldUints[T uint8 | uint16 | uint32 | uint64](a *aggState, v []T, valid []bool, sel encoding.Bitmap) {
	var sum Int128
	var cnt int64
	mn, mx := T(0), T(0)
	first := true
	for i, x := range v {
		if !valid[i] || (sel != nil && !sel.Get(i)) {
			continue
		}
		sum.addUint(uint64(x))
		cnt++
		if first || x < mn {
			mn = x
		}
		if first || x > mx {
			mx = x
		}
		first = false
	}
	if cnt == 0 {
		return
	}
	a.count += cnt
	a.sumI.add(sum)
	a.fold(stats.Of(mn), stats.Of(mx))
}

func foldFloats[T float32 | float64](a *aggState, v []T, valid []bool, sel encoding.Bitmap) {
	var cnt, ordered int64
	mn, mx := math.Inf(1), math.Inf(-1)
	for i, x := range v {
		if !valid[i] || (sel != nil && !sel.Get(i)) {
			continue
		}
		f := float64(x)
		a.sumF.add(f)
		cnt++
		if f != f {
			a.nan = true
			continue
		}
		ordered++
		// -0 orders below +0 (math.Min, math.Max)
		if f < mn || f == 0 && mn == 0 && math.Signbit(f) {
			mn = f
		}
		if f > mx || f == 0 && mx == 0 && !math.Signbit(f) {
			mx = f
		}
	}
	if cnt == 0 {
		return
	}
	a.count += cnt
	t := encoding.TypeFor[T]()
	if ordered > 0 {
		a.fold(stats.Float(t, mn), stats.Float(t, mx))
	} else {
		a.have = true
	}
}

// formatWide renders an integer sum beyond int64 in the column's logical
// type (a decimal keeps its scale; one of negative scale -s is its
// unscaled value with s zeros after it, as Arrow writes it).
func formatWide(n *schema.Node, v *big.Int) string {
	if n.Kind != schema.Decimal || n.Scale <= 0 {
		if n.Kind == schema.Decimal && n.Scale < 0 && v.Sign() != 0 {
			return v.String() + strings.Repeat("0", -n.Scale)
		}
		return v.String()
	}
	digits := new(big.Int).Abs(v).String()
	if len(digits) <= n.Scale {
		digits = strings.Repeat("0", n.Scale-len(digits)+1) + digits
	}
	s := digits[:len(digits)-n.Scale] + "." + digits[len(digits)-n.Scale:]
	if v.Sign() < 0 {
		s = "-" + s
	}
	return s
}

// FormatDecimal renders the unscaled value v of the decimal column n in
// the column's units, as its aggregates are rendered: scale digits after
// the point, or for a negative scale -s the value followed by s zeros.
func FormatDecimal(n *schema.Node, v int64) string { return formatLogical(n, v, "") }

// formatLogical renders an integer aggregate in the column's logical type.
func formatLogical(n *schema.Node, v int64, text string) string {
	switch n.Kind {
	case schema.Date:
		return time.Unix(v*86400, 0).UTC().Format("2006-01-02")
	case schema.Decimal:
		if n.Scale <= 0 {
			if n.Scale < 0 && v != 0 {
				return fmt.Sprint(v) + strings.Repeat("0", -n.Scale)
			}
			return fmt.Sprint(v)
		}
		neg := v < 0
		u := uint64(v)
		if neg {
			u = uint64(-v)
		}
		p := uint64(1)
		for i := 0; i < n.Scale; i++ {
			p *= 10
		}
		s := fmt.Sprintf("%d.%0*d", u/p, n.Scale, u%p)
		if neg {
			s = "-" + s
		}
		return s
	case schema.Timestamp:
		var t time.Time
		switch n.Unit {
		case schema.Second:
			t = time.Unix(v, 0)
		case schema.Millisecond:
			t = time.UnixMilli(v)
		case schema.Microsecond:
			t = time.UnixMicro(v)
		default:
			t = time.Unix(0, v)
		}
		return t.UTC().Format(time.RFC3339Nano)
	case schema.Time:
		return schema.FormatTimeOfDay(v, n.Unit)
	case schema.Duration:
		return schema.FormatDuration(v, n.Unit)
	}
	return text
}

// splitAggs splits an aggregate list at the commas that are outside
// parentheses and double-quoted column names.
func splitAggs(s string) []string {
	var out []string
	depth, quoted, start := 0, false, 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"':
			quoted = !quoted
		case quoted:
		case c == '(':
			depth++
		case c == ')':
			depth--
		case c == ',' && depth == 0:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// structPath is the names from the top-level column down to n when every
// node between is a struct; nil for no node and under a list or map.
func structPath(n *schema.Node) []string {
	var path []string
	for ; n != nil && n.Parent() != nil; n = n.Parent() {
		if p := n.Parent(); p.Parent() != nil && p.Kind != schema.Struct {
			return nil
		}
		path = append(path, n.Name)
	}
	if n == nil || len(path) == 0 {
		return nil
	}
	slices.Reverse(path)
	return path
}
