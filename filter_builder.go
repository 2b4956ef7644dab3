package strata

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"

	"strata/filter"
)

// Filter is a row filter built in Go, the counterpart of a WHERE string:
//
//	strata.And(
//		strata.Col("l_shipdate").Between(time.Date(1994, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(1994, 12, 31, 0, 0, 0, 0, time.UTC)),
//		strata.Col("l_shipmode").In("AIR", "MAIL"),
//		strata.Not(strata.Col("l_comment").IsNull()),
//	)
//
// Literals are Go values: integers, floats, bools, strings, []byte,
// time.Time (a date or timestamp; midnight UTC is written as a DATE),
// time.Duration (a duration, or a time of day as the time since midnight),
// Decimal, *big.Int and *big.Rat (an exact decimal). Each is converted to the
// column's type when the filter is used, with the same rules and messages as
// the WHERE syntax (a literal of the wrong kind for its column is an error
// naming the column). The zero Filter filters nothing. And and Or splice
// arguments of their own kind, and Not of a Not is its argument, so a
// filter grown a condition at a time stays flat; a filter nesting more
// than 200 levels of And, Or and Not that alternate is refused, as in the
// WHERE syntax.
type Filter struct {
	e   filter.Expr
	err error
}

// Decimal is an exact decimal literal written in base 10: "12.34", "-0.05".
type Decimal string

// Column names a column in a Filter; nested fields are dotted paths
// ("address.city"). A column whose name is empty, begins or ends with a
// dot or holds ".." cannot be filtered on (docs/reading.md): the filter
// is refused when used.
type Column struct{ path string }

// Col starts a predicate on a column.
func Col(path string) Column { return Column{path: path} }

func (c Column) leaf(op filter.Op, vals ...any) Filter {
	if c.path == "" {
		return Filter{err: errors.New("strata: filter on a column with no name")}
	}
	l := &filter.Leaf{Path: c.path, Op: op}
	for _, v := range vals {
		lit, err := literalOf(v)
		if err != nil {
			return Filter{err: fmt.Errorf("strata: filter on %s: %w", c.path, err)}
		}
		l.Lits = append(l.Lits, lit)
	}
	return Filter{e: l}
}

// Eq is column = v.
func (c Column) Eq(v any) Filter { return c.leaf(filter.OpEq, v) }

// Ne is column != v.
func (c Column) Ne(v any) Filter { return c.leaf(filter.OpNe, v) }

// Lt is column < v.
func (c Column) Lt(v any) Filter { return c.leaf(filter.OpLt, v) }

// Le is column <= v.
func (c Column) Le(v any) Filter { return c.leaf(filter.OpLe, v) }

// Gt is column > v.
func (c Column) Gt(v any) Filter { return c.leaf(filter.OpGt, v) }

// Ge is column >= v.
func (c Column) Ge(v any) Filter { return c.leaf(filter.OpGe, v) }

// Between is lo <= column <= hi.
func (c Column) Between(lo, hi any) Filter { return c.leaf(filter.OpBetween, lo, hi) }

// In is column IN (vs...); it needs at least one value.
func (c Column) In(vs ...any) Filter {
	if len(vs) == 0 {
		return Filter{err: fmt.Errorf("strata: filter on %s: IN needs at least one value", c.path)}
	}
	return c.leaf(filter.OpIn, vs...)
}

// IsNull is column IS NULL.
func (c Column) IsNull() Filter { return c.leaf(filter.OpIsNull) }

// IsNotNull is column IS NOT NULL.
func (c Column) IsNotNull() Filter { return c.leaf(filter.OpIsNotNull) }

// Prefix is column LIKE 'prefix%' on a string column. The prefix may not
// contain % or _ (the WHERE syntax has no escape for them).
func (c Column) Prefix(prefix string) Filter {
	if strings.ContainsAny(prefix, "%_") {
		return Filter{err: fmt.Errorf("strata: filter on %s: prefix %q holds %% or _, which LIKE treats as wildcards", c.path, prefix)}
	}
	return c.leaf(filter.OpPrefix, prefix+"%")
}

// And is true where every filter is; zero filters among them are skipped.
func And(fs ...Filter) Filter { return combine(fs, true) }

// Or is true where any filter is; zero filters among them are skipped.
func Or(fs ...Filter) Filter { return combine(fs, false) }

// combine joins fs with AND (and) or OR. An argument that is itself an
// And (an Or) is spliced in rather than nested: AND and OR are
// associative, and a filter grown a condition at a time, f = And(f, c),
// must stay one flat conjunction, not a nest that the WHERE syntax the
// filter travels as refuses past 200 levels.
func combine(fs []Filter, and bool) Filter {
	var args []filter.Expr
	for _, f := range fs {
		if f.err != nil {
			return f
		}
		switch x := f.e.(type) {
		case nil:
		case *filter.And:
			if and {
				args = append(args, x.Args...)
			} else {
				args = append(args, x)
			}
		case *filter.Or:
			if !and {
				args = append(args, x.Args...)
			} else {
				args = append(args, x)
			}
		default:
			args = append(args, x)
		}
	}
	switch len(args) {
	case 0:
		return Filter{}
	case 1:
		return Filter{e: args[0]}
	}
	if and {
		return Filter{e: &filter.And{Args: args}}
	}
	return Filter{e: &filter.Or{Args: args}}
}

// Not negates a filter (SQL's three-valued logic: NOT of unknown is
// unknown, so a null row passes neither f nor Not(f)). Not of the zero
// Filter is the zero Filter: an absent filter stays absent, as And and Or
// skip it.
func Not(f Filter) Filter {
	if f.err != nil || f.e == nil {
		return f
	}
	// NOT NOT x is x, also for unknown, so negations do not nest either.
	if n, ok := f.e.(*filter.Not); ok {
		return Filter{e: n.X}
	}
	return Filter{e: &filter.Not{X: f.e}}
}

// IsZero reports whether f filters nothing.
func (f Filter) IsZero() bool { return f.e == nil && f.err == nil }

// Err returns the error of a filter built from a value that is not a
// literal (it is also returned by the scan or aggregate that uses it).
func (f Filter) Err() error { return f.err }

// String renders the filter in the WHERE syntax (strata scan --where).
func (f Filter) String() string {
	if f.e == nil {
		return ""
	}
	return f.e.String()
}

// where combines a WHERE string and a Filter into one WHERE string. The
// WHERE string is parsed on its own first: text that is no expression by
// itself, such as "a < 0) OR (TRUE", would otherwise close the parentheses
// it is wrapped in and reach around the Filter (rows passing the text
// alone would pass without the Filter), where it must be an error.
func where(w string, f Filter) (string, error) {
	if f.err != nil {
		return "", f.err
	}
	switch {
	case f.e == nil:
		return w, nil
	case strings.TrimSpace(w) == "":
		return f.e.String(), nil
	}
	if _, err := filter.Parse(w); err != nil {
		return "", err
	}
	return "(" + w + ") AND (" + f.e.String() + ")", nil
}

// literalOf converts a Go value into a filter literal.
func literalOf(v any) (filter.Literal, error) {
	num := func(s string) (filter.Literal, error) { return filter.Literal{Kind: filter.LitNumber, Text: s}, nil }
	switch x := v.(type) {
	case int:
		return num(strconv.FormatInt(int64(x), 10))
	case int8:
		return num(strconv.FormatInt(int64(x), 10))
	case int16:
		return num(strconv.FormatInt(int64(x), 10))
	case int32:
		return num(strconv.FormatInt(int64(x), 10))
	case int64:
		return num(strconv.FormatInt(x, 10))
	case uint:
		return num(strconv.FormatUint(uint64(x), 10))
	case uint8:
		return num(strconv.FormatUint(uint64(x), 10))
	case uint16:
		return num(strconv.FormatUint(uint64(x), 10))
	case uint32:
		return num(strconv.FormatUint(uint64(x), 10))
	case uint64:
		return num(strconv.FormatUint(x, 10))
	case float32:
		return floatLit(float64(x), 32)
	case float64:
		return floatLit(x, 64)
	case bool:
		return filter.Literal{Kind: filter.LitBool, Bool: x}, nil
	case string:
		return filter.Literal{Kind: filter.LitString, Text: x}, nil
	case []byte:
		return filter.Literal{Kind: filter.LitString, Text: string(x)}, nil
	case Decimal:
		if !decimalText(string(x)) {
			return filter.Literal{}, fmt.Errorf("decimal %q: want digits with an optional sign and point", string(x))
		}
		return num(string(x))
	case *big.Int:
		if x == nil {
			break
		}
		return num(x.String())
	case *big.Rat:
		if x == nil {
			break
		}
		// Exact only when the denominator divides a power of ten.
		for prec := 0; prec <= 40; prec++ {
			s := x.FloatString(prec)
			if r, ok := new(big.Rat).SetString(s); ok && r.Cmp(x) == 0 {
				return num(s)
			}
		}
		return filter.Literal{}, fmt.Errorf("%v has no exact decimal form", x)
	case time.Time:
		t := x.UTC()
		if t.Year() < 1 || t.Year() > 9999 {
			return filter.Literal{}, fmt.Errorf("time %v: year outside 1-9999", x)
		}
		if t.Hour() == 0 && t.Minute() == 0 && t.Second() == 0 && t.Nanosecond() == 0 {
			return filter.Literal{Kind: filter.LitDate, Text: t.Format("2006-01-02")}, nil
		}
		return filter.Literal{Kind: filter.LitTimestamp, Text: t.Format("2006-01-02 15:04:05.999999999")}, nil
	case time.Duration:
		return filter.Literal{Kind: filter.LitString, Text: x.String()}, nil
	}
	return filter.Literal{}, fmt.Errorf("%v (%T) is not a filter literal (integers, floats, bools, strings, []byte, time.Time, time.Duration, strata.Decimal, *big.Int, *big.Rat)", v, v)
}

func floatLit(f float64, bits int) (filter.Literal, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return filter.Literal{}, fmt.Errorf("%v is not a filter literal (filters compare finite numbers only)", f)
	}
	return filter.Literal{Kind: filter.LitNumber, Text: strconv.FormatFloat(f, 'g', -1, bits)}, nil
}

func decimalText(s string) bool {
	s = strings.TrimPrefix(strings.TrimPrefix(s, "-"), "+")
	ip, fp, dot := strings.Cut(s, ".")
	digits := func(t string) bool {
		for i := 0; i < len(t); i++ {
			if t[i] < '0' || t[i] > '9' {
				return false
			}
		}
		return true
	}
	return ip+fp != "" && digits(ip) && digits(fp) && (!dot || fp != "" || ip != "")
}
