package filter

import (
	"math"

	"strata/encoding"
	"strata/stats"
)

// Pred returns the leaf as a decoder predicate on the column's Go type:
// *encoding.Pred[T] (int32 for Int32 columns, float64 for Float64, ...),
// *encoding.BytesPred for Binary, or *WideDecimalPred for a wide decimal
// (Binary whose bytes must not be compared as bytes). Literals have
// already been converted and clamped by Bind: OpAll becomes a predicate every value satisfies (>= the
// type's minimum) and OpNone one none does (IN with an empty set). Pred
// returns nil for IS NULL / IS NOT NULL (a validity question, not a value
// one), for Bool columns (no encoding predicate exists; use Match) and for
// unbound leaves. A predicate never matches a null row: callers AND its
// result with validity.
func (l *Leaf) Pred() any {
	if l.Col == nil || l.Col.Type == encoding.Bool {
		return nil
	}
	return l.pred
}

func conv[T encoding.Number](v stats.Value) T {
	switch {
	case v.Type.IsFloat():
		return T(v.Float())
	case v.Type.IsSigned():
		return T(v.Int())
	case v.Type == encoding.Bool:
		if v.Bool() {
			return 1
		}
		return 0
	}
	return T(v.Uint())
}

func numPred[T encoding.Number](l *Leaf, minT T) *encoding.Pred[T] {
	p := &encoding.Pred[T]{}
	switch l.Op {
	case OpEq, OpNe, OpLt, OpLe, OpGt, OpGe:
		p.Op, p.A = encoding.Op(l.Op), conv[T](l.A)
	case OpBetween:
		p.Op, p.A, p.B = encoding.OpBetween, conv[T](l.A), conv[T](l.B)
	case OpIn:
		p.Op = encoding.OpIn
		p.Set = make([]T, len(l.Set))
		for i, v := range l.Set {
			p.Set[i] = conv[T](v)
		}
	case OpAll:
		if l.Col.Type.IsFloat() {
			p.Op, p.A = encoding.OpNe, T(math.NaN()) // every value, NaN included, is != NaN
		} else {
			p.Op, p.A = encoding.OpGe, minT
		}
	case OpNone:
		p.Op, p.Set = encoding.OpIn, []T{}
	default:
		return nil
	}
	return p
}

func bytesPred(l *Leaf) *encoding.BytesPred {
	p := &encoding.BytesPred{}
	switch l.Op {
	case OpEq, OpNe, OpLt, OpLe, OpGt, OpGe, OpPrefix:
		p.Op, p.A = encoding.Op(l.Op), l.A.Bytes()
	case OpBetween:
		p.Op, p.A, p.B = encoding.OpBetween, l.A.Bytes(), l.B.Bytes()
	case OpIn:
		p.Op = encoding.OpIn
		p.Set = make([][]byte, len(l.Set))
		for i, v := range l.Set {
			p.Set[i] = v.Bytes()
		}
	case OpAll:
		p.Op, p.A = encoding.OpGe, []byte{}
	case OpNone:
		p.Op, p.Set = encoding.OpIn, [][]byte{}
	default:
		return nil
	}
	return p
}

// makePred builds the cached predicate of a bound leaf. Bool columns use a
// Pred[uint8] on 0/1 internally.
func makePred(l *Leaf) any {
	if l.Col == nil || l.Op == OpIsNull || l.Op == OpIsNotNull {
		return nil
	}
	switch l.Col.Type {
	case encoding.Bool:
		return nilIfNil(numPred[uint8](l, 0))
	case encoding.Int8:
		return nilIfNil(numPred[int8](l, math.MinInt8))
	case encoding.Int16:
		return nilIfNil(numPred[int16](l, math.MinInt16))
	case encoding.Int32:
		return nilIfNil(numPred[int32](l, math.MinInt32))
	case encoding.Int64:
		return nilIfNil(numPred[int64](l, math.MinInt64))
	case encoding.Uint8:
		return nilIfNil(numPred[uint8](l, 0))
	case encoding.Uint16:
		return nilIfNil(numPred[uint16](l, 0))
	case encoding.Uint32:
		return nilIfNil(numPred[uint32](l, 0))
	case encoding.Uint64:
		return nilIfNil(numPred[uint64](l, 0))
	case encoding.Float32:
		return nilIfNil(numPred[float32](l, 0))
	case encoding.Float64:
		return nilIfNil(numPred[float64](l, 0))
	case encoding.Binary:
		if l.Col.Logical == LogicalWideDecimal {
			if p := widePred(l); p != nil {
				return p
			}
			return nil
		}
		if p := bytesPred(l); p != nil {
			return p
		}
	}
	return nil
}

// nilIfNil keeps a typed nil pointer from becoming a non-nil interface.
func nilIfNil[T encoding.Number](p *encoding.Pred[T]) any {
	if p == nil {
		return nil
	}
	return p
}

// Match reports whether a non-null value v (in the column's domain, as
// stats.Of would build it) satisfies the bound leaf. IS NULL and IS NOT NULL
// leaves answer for a non-null value (false and true).
func (l *Leaf) Match(v stats.Value) bool {
	switch l.Op {
	case OpIsNull:
		return false
	case OpIsNotNull:
		return true
	}
	switch p := l.pred.(type) {
	case *encoding.Pred[int8]:
		return p.Match(conv[int8](v))
	case *encoding.Pred[int16]:
		return p.Match(conv[int16](v))
	case *encoding.Pred[int32]:
		return p.Match(conv[int32](v))
	case *encoding.Pred[int64]:
		return p.Match(conv[int64](v))
	case *encoding.Pred[uint8]:
		return p.Match(conv[uint8](v))
	case *encoding.Pred[uint16]:
		return p.Match(conv[uint16](v))
	case *encoding.Pred[uint32]:
		return p.Match(conv[uint32](v))
	case *encoding.Pred[uint64]:
		return p.Match(conv[uint64](v))
	case *encoding.Pred[float32]:
		return p.Match(conv[float32](v))
	case *encoding.Pred[float64]:
		return p.Match(conv[float64](v))
	case *encoding.BytesPred:
		return p.Match(v.Bytes())
	case *WideDecimalPred:
		return p.Match(v.Bytes())
	}
	return false
}

func ranges[T encoding.Number](p *encoding.Pred[T], lo, hi stats.Value) (may, all bool) {
	a, b := conv[T](lo), conv[T](hi)
	return p.MayMatchRange(a, b), p.AllMatchRange(a, b)
}

// rangeMatch reports whether some / every value in [lo, hi] satisfies the
// leaf (conservatively: may is true when unsure, all false).
func (l *Leaf) rangeMatch(lo, hi stats.Value) (may, all bool) {
	switch p := l.pred.(type) {
	case *encoding.Pred[int8]:
		return ranges(p, lo, hi)
	case *encoding.Pred[int16]:
		return ranges(p, lo, hi)
	case *encoding.Pred[int32]:
		return ranges(p, lo, hi)
	case *encoding.Pred[int64]:
		return ranges(p, lo, hi)
	case *encoding.Pred[uint8]:
		return ranges(p, lo, hi)
	case *encoding.Pred[uint16]:
		return ranges(p, lo, hi)
	case *encoding.Pred[uint32]:
		return ranges(p, lo, hi)
	case *encoding.Pred[uint64]:
		return ranges(p, lo, hi)
	case *encoding.Pred[float32]:
		return ranges(p, lo, hi)
	case *encoding.Pred[float64]:
		return ranges(p, lo, hi)
	case *encoding.BytesPred:
		return p.MayMatchRange(lo.Bytes(), hi.Bytes()), p.AllMatchRange(lo.Bytes(), hi.Bytes())
	}
	// *WideDecimalPred among others: bounds that settle nothing.
	return true, false
}

// matchesNaN reports whether a NaN value satisfies the leaf: only != (IEEE)
// and OpAll do.
func (l *Leaf) matchesNaN() bool { return l.Op == OpNe || l.Op == OpAll }

// Tri is the outcome of pruning: how many rows of a chunk (stripe, file)
// may satisfy a filter.
type Tri uint8

// Pruning outcomes.
const (
	None Tri = iota // no row satisfies the filter: skip
	Some            // some rows may: read and filter
	All             // every row satisfies it: read without filtering
)

func (t Tri) String() string {
	switch t {
	case None:
		return "none"
	case Some:
		return "some"
	case All:
		return "all"
	}
	return "tri?"
}

// triPair describes the rows where an expression is TRUE and where it is
// FALSE; the rest are unknown (null). Tracking both makes NOT exact under
// three-valued logic: the rows where NOT e is true are those where e is false.
type triPair struct{ t, f Tri }

func andTri(a, b Tri) Tri {
	switch {
	case a == None || b == None:
		return None
	case a == All && b == All:
		return All
	}
	return Some
}

func orTri(a, b Tri) Tri {
	switch {
	case a == All || b == All:
		return All
	case a == None && b == None:
		return None
	}
	return Some
}

func countTri(k, n int64) Tri {
	switch {
	case k <= 0:
		return None
	case k >= n:
		return All
	}
	return Some
}

// Prune decides from column statistics whether no row (None), possibly some
// rows (Some) or every row (All) of the described chunk, stripe or file
// satisfies the bound expression e. statsOf is given a leaf's Key (its
// Path unless quoting makes it ambiguous). A column for which statsOf reports
// nothing is treated as unknown. The answer is never wrong: None means no
// row passes EvalRow, All means every row does; Some promises nothing.
// Statistics of the columns must describe the same rows.
func Prune(e Expr, statsOf func(path string) (stats.ColumnStats, bool)) Tri {
	return prune(e, statsOf).t
}

func prune(e Expr, statsOf func(string) (stats.ColumnStats, bool)) triPair {
	switch x := e.(type) {
	case *And:
		r := triPair{All, None}
		for _, a := range x.Args {
			s := prune(a, statsOf)
			r.t, r.f = andTri(r.t, s.t), orTri(r.f, s.f)
		}
		return r
	case *Or:
		r := triPair{None, All}
		for _, a := range x.Args {
			s := prune(a, statsOf)
			r.t, r.f = orTri(r.t, s.t), andTri(r.f, s.f)
		}
		return r
	case *Not:
		s := prune(x.X, statsOf)
		return triPair{s.f, s.t}
	case *Const:
		if x.Value {
			return triPair{All, None}
		}
		return triPair{None, All}
	case *Leaf:
		if x.Col == nil {
			return triPair{Some, Some}
		}
		s, ok := statsOf(x.Key())
		if !ok {
			return triPair{Some, Some}
		}
		return x.prune(&s)
	}
	return triPair{Some, Some}
}

func (l *Leaf) prune(s *stats.ColumnStats) triPair {
	if s.Rows <= 0 {
		return triPair{None, None}
	}
	nonNull := s.Rows - s.Nulls
	switch l.Op {
	case OpIsNull:
		return triPair{countTri(s.Nulls, s.Rows), countTri(nonNull, s.Rows)}
	case OpIsNotNull:
		return triPair{countTri(nonNull, s.Rows), countTri(s.Nulls, s.Rows)}
	}
	if nonNull <= 0 {
		return triPair{None, None} // every comparison is unknown
	}
	if l.Col.Logical == LogicalWideDecimal {
		// The writer's bounds of a wide decimal are the least and greatest
		// 16-byte encodings bytewise (docs/FORMAT.md, "Column
		// statistics"), not the least and greatest numbers: -1 (ff…ff) is
		// the greatest encoding, 256 (00 01 00…) sorts below 1. They can
		// neither rule a chunk out nor accept it whole; only the counts
		// above (nulls, rows) settle anything.
		return triPair{Some, Some}
	}
	anyMatch, allMatch := false, true // over the non-null values
	if s.Ordered() > 0 {
		if !s.HasMinMax {
			return triPair{Some, Some}
		}
		anyMatch, allMatch = l.rangeMatch(s.Min, s.Max)
	}
	if s.NaNs > 0 {
		nan := l.matchesNaN()
		anyMatch = anyMatch || nan
		allMatch = allMatch && nan
	}
	r := triPair{Some, Some}
	switch {
	case !anyMatch:
		r.t = None
	case allMatch && s.Nulls == 0:
		r.t = All
	}
	switch {
	case allMatch:
		r.f = None
	case !anyMatch && s.Nulls == 0:
		r.f = All
	}
	return r
}

// MayContain consults bloom filters for = and IN leaves of the bound
// expression e: false means no row can satisfy e (some conjunct's values
// are certainly absent, or it is a leaf that matches no value). Leaves
// without a filter, other operators and NOT answer true. bloomOf is given
// a leaf's Key.
func MayContain(e Expr, bloomOf func(path string) (*stats.Bloom, bool)) bool {
	switch x := e.(type) {
	case *And:
		for _, a := range x.Args {
			if !MayContain(a, bloomOf) {
				return false
			}
		}
		return true
	case *Or:
		for _, a := range x.Args {
			if MayContain(a, bloomOf) {
				return true
			}
		}
		return false
	case *Const:
		return x.Value
	case *Leaf:
		if x.Col == nil {
			return true
		}
		switch x.Op {
		case OpNone:
			return false
		case OpEq, OpIn:
		default:
			return true
		}
		f, ok := bloomOf(x.Key())
		if !ok || f == nil {
			return true
		}
		// A wide decimal's bound values are its stored 16-byte encodings,
		// one per number, so their hashes are those of equal stored values.
		if x.Op == OpEq {
			return f.MayContain(x.A.Hash())
		}
		for _, v := range x.Set {
			if f.MayContain(v.Hash()) {
				return true
			}
		}
		return false
	}
	return true
}

// truth is a three-valued logic value.
type truth uint8

const (
	tFalse truth = iota
	tTrue
	tUnknown
)

// EvalRow evaluates the bound expression e on one row under SQL
// three-valued logic and reports whether it is true. get returns the value
// of the column of a leaf's Key (in the column's domain) or isNull. It is the reference the
// selective reader is tested against and a fallback for residual filters.
// An unbound leaf evaluates to unknown.
func EvalRow(e Expr, get func(path string) (v stats.Value, isNull bool)) bool {
	return eval(e, get) == tTrue
}

func eval(e Expr, get func(string) (stats.Value, bool)) truth {
	switch x := e.(type) {
	case *And:
		r := tTrue
		for _, a := range x.Args {
			switch eval(a, get) {
			case tFalse:
				return tFalse
			case tUnknown:
				r = tUnknown
			}
		}
		return r
	case *Or:
		r := tFalse
		for _, a := range x.Args {
			switch eval(a, get) {
			case tTrue:
				return tTrue
			case tUnknown:
				r = tUnknown
			}
		}
		return r
	case *Not:
		switch eval(x.X, get) {
		case tTrue:
			return tFalse
		case tFalse:
			return tTrue
		}
		return tUnknown
	case *Const:
		if x.Value {
			return tTrue
		}
		return tFalse
	case *Leaf:
		if x.Col == nil {
			return tUnknown
		}
		v, isNull := get(x.Key())
		switch x.Op {
		case OpIsNull:
			return truthOf(isNull)
		case OpIsNotNull:
			return truthOf(!isNull)
		}
		if isNull {
			return tUnknown
		}
		return truthOf(x.Match(v))
	}
	return tUnknown
}

func truthOf(b bool) truth {
	if b {
		return tTrue
	}
	return tFalse
}
