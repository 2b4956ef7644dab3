package duckstrata

import (
	"math"
	"strconv"
	"time"

	"strata"
	"strata/filter"
)

// Whether pushing pays. A pushed filter makes Strata evaluate it row by row
// and then gather the surviving rows of the other columns; without it Strata
// decodes whole batches and DuckDB filters. Gathering most rows costs more
// than decoding them all, so Pushdown estimates what fraction of rows the
// pushable conjuncts keep, from the file's statistics, the way a query
// optimizer does (values spread uniformly between a column's min and max;
// conjuncts independent), and pushes only when that is small:
//
//   - a conjunct estimated to keep at least maxConjunctKeep of the rows is
//     not pushed (it would cost evaluation and prune little);
//   - the rest are pushed only if together they keep at most maxKeep.
//
// DuckDB evaluates the whole WHERE clause either way, so the estimate
// decides speed, never the result. WithPushAll turns it off.
const (
	maxConjunctKeep = 0.9
	maxKeep         = 0.5
)

// keepEstimate estimates the fraction of rows for which e is true.
func keepEstimate(f *strata.File, e filter.Expr) float64 {
	switch x := e.(type) {
	case *filter.And:
		s := 1.0
		for _, a := range x.Args {
			s *= keepEstimate(f, a)
		}
		return s
	case *filter.Or:
		miss := 1.0
		for _, a := range x.Args {
			miss *= 1 - keepEstimate(f, a)
		}
		return 1 - miss
	case *filter.Not:
		return 1 - keepEstimate(f, x.X)
	case *filter.Leaf:
		return leafEstimate(f, x)
	}
	return 1
}

func leafEstimate(f *strata.File, l *filter.Leaf) float64 {
	lo, hi, nonNull, ok := columnRange(f, l.Path)
	if !ok {
		lo, hi, nonNull = math.NaN(), math.NaN(), 1
	}
	rng := func(a, b float64) float64 {
		if math.IsNaN(a) || math.IsNaN(b) || math.IsNaN(lo) || hi <= lo {
			return 0.3 * nonNull // no usable range: a typical guess
		}
		a, b = max(a, lo), min(b, hi)
		if b < a {
			return 0
		}
		return nonNull * min(1, (b-a)/(hi-lo))
	}
	lit := func(i int) float64 {
		if i < len(l.Lits) {
			return literalValue(l.Lits[i])
		}
		return math.NaN()
	}
	switch l.Op {
	case filter.OpIsNull:
		return 1 - nonNull
	case filter.OpIsNotNull:
		return nonNull
	case filter.OpEq:
		return 0.1 * nonNull
	case filter.OpNe:
		return 0.9 * nonNull
	case filter.OpIn:
		return min(1, 0.1*float64(len(l.Lits))) * nonNull
	case filter.OpPrefix:
		return 0.1 * nonNull
	case filter.OpLt, filter.OpLe:
		return rng(math.Inf(-1), lit(0))
	case filter.OpGt, filter.OpGe:
		return rng(lit(0), math.Inf(1))
	case filter.OpBetween:
		return rng(lit(0), lit(1))
	}
	return 1
}

// literalValue maps a literal to the scale columnRange uses: numbers as
// themselves, dates and timestamps as seconds since 1970, times of day as
// seconds since midnight.
func literalValue(l filter.Literal) float64 {
	switch l.Kind {
	case filter.LitNumber:
		v, err := strconv.ParseFloat(l.Text, 64)
		if err == nil {
			return v
		}
	case filter.LitDate:
		if t, err := time.Parse("2006-01-02", l.Text); err == nil {
			return float64(t.Unix())
		}
	case filter.LitTimestamp:
		if t, err := time.Parse("2006-01-02 15:04:05.999999999", l.Text); err == nil {
			return float64(t.UnixNano()) / 1e9
		}
	case filter.LitString:
		// A time of day, as Pushdown writes TIME constants; on a string
		// column it meets no range (statValue) and is not used.
		if t, err := time.Parse("15:04:05.999999999", l.Text); err == nil {
			return float64(t.Hour()*3600+t.Minute()*60+t.Second()) + float64(t.Nanosecond())/1e9
		}
	}
	return math.NaN()
}

// columnRange returns the file's min and max of a column on literalValue's
// scale and the fraction of its rows that are not null.
func columnRange(f *strata.File, name string) (lo, hi, nonNull float64, ok bool) {
	cs, ok := f.ColumnStats(name)
	if !ok || cs.Rows == 0 {
		return 0, 0, 0, false
	}
	nonNull = float64(cs.Rows-cs.Nulls) / float64(cs.Rows)
	lo, hi = math.NaN(), math.NaN()
	if cs.HasMinMax {
		lo, hi = statValue(cs.Min), statValue(cs.Max)
	}
	return lo, hi, nonNull, true
}

// statValue maps a statistics bound to literalValue's scale (NaN for
// strings, bools and bytes, which get no range estimate).
func statValue(v any) float64 {
	switch x := v.(type) {
	case int64:
		return float64(x)
	case uint64:
		return float64(x)
	case float64:
		return x
	case time.Time:
		return float64(x.UnixNano()) / 1e9
	case time.Duration: // a time of day (or a duration, whose literals take no range)
		return x.Seconds()
	case strata.Decimal:
		f, err := strconv.ParseFloat(string(x), 64)
		if err == nil {
			return f
		}
	}
	return math.NaN()
}
