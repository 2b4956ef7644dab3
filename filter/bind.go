package filter

import (
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"time"

	"strata/encoding"
	"strata/stats"
)

// Logical is the logical meaning of a column's physical values.
type Logical uint8

// Logical kinds.
const (
	LogicalNone      Logical = iota // plain numbers, bools or bytes
	LogicalString                   // Binary holding UTF-8 text
	LogicalDate                     // Int32 (or Int64) days since 1970-01-01
	LogicalTimestamp                // Int64 count of Unit since 1970-01-01T00:00:00Z
	LogicalDecimal                  // Int8..Int64 unscaled value; value = unscaled / 10^Scale
	LogicalTime                     // Int32 or Int64 count of Unit since midnight
	LogicalDuration                 // Int64 count of Unit
	// LogicalWideDecimal is a decimal of precision above MaxDecimalPrecision,
	// stored as Binary values of 16 bytes, the unscaled value in little
	// endian two's complement. Their byte order is not the numbers' order,
	// so comparisons bind to a WideDecimalPred, which compares signed
	// 128-bit integers, and the bytewise min/max statistics the writer
	// keeps for them settle nothing (see Leaf.prune).
	LogicalWideDecimal
)

// MaxDecimalPrecision is the widest decimal stored as an integer column
// (LogicalDecimal); wider ones are LogicalWideDecimal.
const MaxDecimalPrecision = 18

// TimeUnit is the unit of a timestamp, time or duration column.
type TimeUnit uint8

// Timestamp units.
const (
	Second TimeUnit = iota
	Milli
	Micro
	Nano
)

func (u TimeUnit) perSecond() int64 {
	switch u {
	case Milli:
		return 1e3
	case Micro:
		return 1e6
	case Nano:
		return 1e9
	}
	return 1
}

// ColumnInfo describes a column for binding.
type ColumnInfo struct {
	Type    encoding.Type
	Logical Logical
	Scale   int      // LogicalDecimal, LogicalWideDecimal: digits after the point (0..38)
	Unit    TimeUnit // LogicalTimestamp, LogicalTime, LogicalDuration
	// Precision is a LogicalWideDecimal's digits (for messages; literals
	// are bound to the range 16 bytes hold, as those of a narrower decimal
	// are bound to its integer type's range).
	Precision int
	// ID is not used by this package; it travels with bound leaves so the
	// caller can map them to its columns without another lookup.
	ID int
}

func (c *ColumnInfo) describe() string {
	switch c.Logical {
	case LogicalDate:
		return "a date"
	case LogicalTimestamp:
		return "a timestamp"
	case LogicalTime:
		return "a time of day"
	case LogicalDuration:
		return "a duration"
	case LogicalDecimal:
		return fmt.Sprintf("a decimal with scale %d", c.Scale)
	case LogicalWideDecimal:
		return fmt.Sprintf("a decimal(%d,%d)", c.Precision, c.Scale)
	case LogicalString:
		return "a string"
	}
	switch c.Type {
	case encoding.Bool:
		return "a bool"
	case encoding.Binary:
		return "binary"
	case encoding.Int8, encoding.Int16, encoding.Int32, encoding.Int64:
		return "an " + c.Type.String()
	}
	return "a " + c.Type.String()
}

func (c *ColumnInfo) validate(path string) error {
	if !c.Type.Valid() {
		return fmt.Errorf("filter: column %s has invalid type %v", path, c.Type)
	}
	switch c.Logical {
	case LogicalNone:
	case LogicalString:
		if c.Type != encoding.Binary {
			return fmt.Errorf("filter: column %s: string stored as %v", path, c.Type)
		}
	case LogicalDate, LogicalTimestamp, LogicalDecimal, LogicalTime, LogicalDuration:
		if !c.Type.IsSigned() {
			return fmt.Errorf("filter: column %s: logical type stored as %v (signed integer needed): %w", path, c.Type, encoding.ErrUnsupported)
		}
		if c.Logical == LogicalDecimal && (c.Scale < 0 || c.Scale > 38) {
			return fmt.Errorf("filter: column %s: decimal scale %d: %w", path, c.Scale, encoding.ErrUnsupported)
		}
		if (c.Logical == LogicalTimestamp || c.Logical == LogicalTime || c.Logical == LogicalDuration) && c.Unit > Nano {
			return fmt.Errorf("filter: column %s: time unit %d: %w", path, c.Unit, encoding.ErrUnsupported)
		}
	case LogicalWideDecimal:
		if c.Type != encoding.Binary {
			return fmt.Errorf("filter: column %s: wide decimal stored as %v: %w", path, c.Type, encoding.ErrUnsupported)
		}
		if c.Scale < 0 || c.Scale > 38 {
			return fmt.Errorf("filter: column %s: decimal scale %d: %w", path, c.Scale, encoding.ErrUnsupported)
		}
	default:
		return fmt.Errorf("filter: column %s: logical kind %d: %w", path, c.Logical, encoding.ErrUnsupported)
	}
	return nil
}

// Bind resolves every column of e with lookup and converts literals into
// each column's physical domain: DATE → days, TIMESTAMP → the column's
// unit, decimals → unscaled integers, numbers on integer columns → that
// type. Literals that are not exactly representable are rounded the way
// that keeps the comparison's meaning (int32col < 5e9 matches every value,
// deccol(2) <= 0.055 becomes <= 5 cents, int32col = 2.5 matches none).
// Errors name the column and the offending literal.
//
// Bind returns a new tree (e is not modified), normalized: nested AND/OR
// flattened, TRUE/FALSE folded, and NOT pushed down to the leaves wherever
// that is exact under three-valued logic (De Morgan; NOT of a non-float
// comparison or IS [NOT] NULL becomes the opposite operator). NOT stays
// above float comparisons (NaN), IN and LIKE.
func Bind(e Expr, lookup func(path string) (ColumnInfo, bool)) (Expr, error) {
	return BindLeaves(e, func(l *Leaf) (ColumnInfo, bool) { return lookup(l.Path) })
}

// BindLeaves is Bind with a lookup given the whole leaf, so that it can
// resolve the path's parts as written (Leaf.Names, schema.FindParts)
// rather than Path, which joins them.
func BindLeaves(e Expr, lookup func(l *Leaf) (ColumnInfo, bool)) (Expr, error) {
	b, err := bind(e, lookup)
	if err != nil {
		return nil, err
	}
	return normalize(b, false), nil
}

func bind(e Expr, lookup func(*Leaf) (ColumnInfo, bool)) (Expr, error) {
	switch x := e.(type) {
	case *And:
		args, err := bindAll(x.Args, lookup)
		if err != nil {
			return nil, err
		}
		return &And{Args: args}, nil
	case *Or:
		args, err := bindAll(x.Args, lookup)
		if err != nil {
			return nil, err
		}
		return &Or{Args: args}, nil
	case *Not:
		y, err := bind(x.X, lookup)
		if err != nil {
			return nil, err
		}
		return &Not{X: y}, nil
	case *Const:
		return &Const{Value: x.Value}, nil
	case *Leaf:
		return bindLeaf(x, lookup)
	case nil:
		return nil, fmt.Errorf("filter: nil expression")
	}
	return nil, fmt.Errorf("filter: unknown expression %T", e)
}

func bindAll(args []Expr, lookup func(*Leaf) (ColumnInfo, bool)) ([]Expr, error) {
	if len(args) == 0 {
		return nil, fmt.Errorf("filter: AND/OR without arguments")
	}
	out := make([]Expr, len(args))
	for i, a := range args {
		b, err := bind(a, lookup)
		if err != nil {
			return nil, err
		}
		out[i] = b
	}
	return out, nil
}

// BindError reports a literal that does not fit its column.
type BindError struct {
	Path string
	Pos  int // 1-based column of the literal, 0 if unknown
	Msg  string
}

func (e *BindError) Error() string {
	if e.Pos > 0 {
		return fmt.Sprintf("filter: at column %d: %s", e.Pos, e.Msg)
	}
	return "filter: " + e.Msg
}

func bindLeaf(l *Leaf, lookup func(*Leaf) (ColumnInfo, bool)) (Expr, error) {
	info, ok := lookup(l)
	if !ok {
		return nil, &BindError{Path: l.Path, Pos: l.Pos, Msg: fmt.Sprintf("unknown column %s", l.Path)}
	}
	if err := info.validate(l.Path); err != nil {
		return nil, err
	}
	out := &Leaf{Path: l.Path, Parts: l.Parts, Op: l.Op, Lits: l.Lits, Pos: l.Pos, Col: &info}
	want := map[Op]int{OpEq: 1, OpNe: 1, OpLt: 1, OpLe: 1, OpGt: 1, OpGe: 1, OpBetween: 2, OpPrefix: 1, OpIsNull: 0, OpIsNotNull: 0}
	if n, ok := want[l.Op]; ok && len(l.Lits) != n {
		return nil, &BindError{l.Path, l.Pos, fmt.Sprintf("%s %s needs %d literal(s), has %d", l.Path, l.Op, n, len(l.Lits))}
	}
	var err error
	switch l.Op {
	case OpIsNull, OpIsNotNull:
	case OpPrefix:
		err = bindPrefix(out)
	case OpEq, OpNe, OpLt, OpLe, OpGt, OpGe, OpBetween, OpIn:
		if l.Op == OpIn && len(l.Lits) == 0 {
			return nil, &BindError{l.Path, l.Pos, fmt.Sprintf("%s IN needs at least one literal", l.Path)}
		}
		if info.Logical == LogicalWideDecimal {
			err = bindWide(out)
		} else if info.Type == encoding.Binary {
			err = bindBinary(out)
		} else if info.Type.IsFloat() {
			err = bindFloat(out)
		} else {
			err = bindInteger(out)
		}
	default:
		return nil, &BindError{l.Path, l.Pos, fmt.Sprintf("%s: operator %v cannot be bound", l.Path, l.Op)}
	}
	if err != nil {
		return nil, err
	}
	out.pred = makePred(out)
	return out, nil
}

func (l *Leaf) litErr(lit Literal) error {
	return &BindError{l.Path, lit.Pos, fmt.Sprintf("%s is %s; cannot compare with %s%s", l.Path, l.Col.describe(), lit, l.Col.literalHint(lit))}
}

// literalHint shows how to write a literal of the column's type when the
// given one has the wrong kind, the commonest mistake in a WHERE string.
func (c *ColumnInfo) literalHint(lit Literal) string {
	switch {
	case c.Logical == LogicalString && lit.Kind != LitString:
		return fmt.Sprintf(" (text literals are quoted: %s)", quote(lit.Text))
	case c.Logical == LogicalDate && lit.Kind != LitDate:
		return " (write dates as DATE 'YYYY-MM-DD')"
	case c.Logical == LogicalTimestamp && lit.Kind != LitTimestamp && lit.Kind != LitDate:
		return " (write timestamps as TIMESTAMP 'YYYY-MM-DD HH:MM:SS')"
	case c.Logical == LogicalTime:
		return " (write times of day as 'HH:MM:SS[.fffffffff]')"
	case c.Logical == LogicalDuration:
		return " (write durations as a number in the column's unit or as '1h30m', '250ms')"
	case c.Type == encoding.Bool && lit.Kind != LitBool:
		return " (write TRUE or FALSE)"
	case lit.Kind == LitString && c.Logical != LogicalString && (c.Type != encoding.Binary || c.Logical == LogicalWideDecimal) && c.Type != encoding.Bool:
		// Only text that would be a number literal unquoted; there is
		// none for NaN or the infinities.
		if isNumberText(lit.Text) {
			return fmt.Sprintf(" (numbers are written without quotes: %s)", lit.Text)
		}
		if c.Type.IsFloat() && strings.EqualFold(strings.TrimLeft(lit.Text, "+-"), "nan") {
			return " (filters have no NaN literal; NaN satisfies no comparison but !=)"
		}
	}
	return ""
}

// isNumberText reports whether s, written unquoted, is a number literal of
// the filter syntax: [+|-] digits [. digits] [e [+|-] digits].
func isNumberText(s string) bool {
	toks, err := lex(s)
	if err != nil {
		return false
	}
	if len(toks) == 3 && toks[0].kind == tPunct && (toks[0].text == "-" || toks[0].text == "+") {
		toks = toks[1:]
	}
	return len(toks) == 2 && toks[0].kind == tNumber && toks[1].kind == tEOF
}

func bindPrefix(l *Leaf) error {
	lit := l.Lits[0]
	if l.Col.Type != encoding.Binary || l.Col.Logical == LogicalWideDecimal {
		return &BindError{l.Path, l.Pos, fmt.Sprintf("LIKE needs a string column; %s is %s", l.Path, l.Col.describe())}
	}
	if lit.Kind != LitString {
		return l.litErr(lit)
	}
	l.A = stats.Bytes([]byte(strings.TrimSuffix(lit.Text, "%")))
	return nil
}

func bindBinary(l *Leaf) error {
	vals := make([]stats.Value, len(l.Lits))
	for i, lit := range l.Lits {
		if lit.Kind != LitString {
			return l.litErr(lit)
		}
		vals[i] = stats.Bytes([]byte(lit.Text))
	}
	if l.Op == OpIn {
		l.Set = sortedSet(vals)
		return nil
	}
	l.A = vals[0]
	if l.Op == OpBetween {
		l.B = vals[1]
	}
	return nil
}

func sortedSet(vals []stats.Value) []stats.Value {
	slices.SortFunc(vals, func(a, b stats.Value) int { return a.Compare(b) })
	return slices.CompactFunc(vals, func(a, b stats.Value) bool { return a.Equal(b) })
}

func bindFloat(l *Leaf) error {
	vals := make([]stats.Value, len(l.Lits))
	for i, lit := range l.Lits {
		if lit.Kind != LitNumber {
			return l.litErr(lit)
		}
		f, err := strconv.ParseFloat(lit.Text, 64)
		if err != nil && !isRangeErr(err) {
			return l.litErr(lit)
		}
		if l.Col.Type == encoding.Float32 {
			f = float64(float32(f))
		}
		vals[i] = stats.Float(l.Col.Type, f)
	}
	if l.Op == OpIn {
		l.Set = sortedSet(vals)
		return nil
	}
	l.A = vals[0]
	if l.Op == OpBetween {
		l.B = vals[1]
	}
	return nil
}

func isRangeErr(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

// rat converts a literal into an exact rational in the column's domain
// units (before rounding to an integer).
func (l *Leaf) rat(lit Literal) (*big.Rat, error) {
	c := l.Col
	switch c.Logical {
	case LogicalDate, LogicalTimestamp:
		var sec, nsec int64
		switch lit.Kind {
		case LitDate:
			d, err := parseDate(lit.Text)
			if err != nil {
				return nil, l.litErr(lit)
			}
			sec = d * 86400
		case LitTimestamp, LitString:
			s, ns, err := parseTimestamp(lit.Text)
			if err != nil {
				return nil, l.litErr(lit)
			}
			sec, nsec = s, ns
		default:
			return nil, l.litErr(lit)
		}
		r := new(big.Rat).SetFrac(
			new(big.Int).Add(new(big.Int).Mul(big.NewInt(sec), big.NewInt(1e9)), big.NewInt(nsec)),
			big.NewInt(1e9))
		if c.Logical == LogicalDate {
			return r.Quo(r, big.NewRat(86400, 1)), nil
		}
		return r.Mul(r, big.NewRat(c.Unit.perSecond(), 1)), nil
	case LogicalTime, LogicalDuration:
		// A number is a count of the column's unit; text is a time of day
		// (HH:MM:SS) or a Go duration ("1h30m", since midnight for a time
		// of day), converted exactly.
		switch lit.Kind {
		case LitNumber:
			return parseRat(lit, l)
		case LitString:
			var ns int64
			var err error
			if c.Logical == LogicalTime && strings.Contains(lit.Text, ":") {
				ns, err = parseTimeOfDay(lit.Text)
			} else {
				var d time.Duration
				d, err = time.ParseDuration(lit.Text)
				ns = int64(d)
			}
			if err != nil {
				return nil, l.litErr(lit)
			}
			return new(big.Rat).SetFrac(new(big.Int).Mul(big.NewInt(ns), big.NewInt(c.Unit.perSecond())), big.NewInt(1e9)), nil
		}
		return nil, l.litErr(lit)
	case LogicalDecimal, LogicalWideDecimal:
		if lit.Kind != LitNumber {
			return nil, l.litErr(lit)
		}
		r, err := parseRat(lit, l)
		if err != nil {
			return nil, err
		}
		scale := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(c.Scale)), nil)
		return r.Mul(r, new(big.Rat).SetInt(scale)), nil
	}
	if c.Type == encoding.Bool {
		if lit.Kind != LitBool {
			return nil, l.litErr(lit)
		}
		if lit.Bool {
			return big.NewRat(1, 1), nil
		}
		return new(big.Rat), nil
	}
	if lit.Kind != LitNumber {
		return nil, l.litErr(lit)
	}
	return parseRat(lit, l)
}

// parseRat parses decimal number text ([+-]digits[.digits][e[+-]digits])
// exactly. Hand-built literals are held to what the lexer accepts, so no
// other big.Rat syntax (fractions, hex, huge exponents) gets through.
func parseRat(lit Literal, l *Leaf) (*big.Rat, error) {
	t := strings.TrimLeft(lit.Text, "+-")
	if len(lit.Text)-len(t) > 1 || t == "" {
		return nil, l.litErr(lit)
	}
	mant, exp, hasExp := strings.Cut(strings.ToLower(t), "e")
	if hasExp {
		e, err := strconv.Atoi(exp)
		if err != nil || e > maxExponent || e < -maxExponent {
			return nil, l.litErr(lit)
		}
	}
	digits := 0
	for i, dot := 0, false; i < len(mant); i++ {
		switch c := mant[i]; {
		case c >= '0' && c <= '9':
			digits++
		case c == '.' && !dot:
			dot = true
		default:
			return nil, l.litErr(lit)
		}
	}
	if digits == 0 {
		return nil, l.litErr(lit)
	}
	r, ok := new(big.Rat).SetString(lit.Text)
	if !ok {
		return nil, l.litErr(lit)
	}
	return r, nil
}

// domain returns the integer range of the column's physical type.
func domain(t encoding.Type) (lo, hi *big.Int) {
	switch t {
	case encoding.Bool:
		return big.NewInt(0), big.NewInt(1)
	case encoding.Int8:
		return big.NewInt(math.MinInt8), big.NewInt(math.MaxInt8)
	case encoding.Int16:
		return big.NewInt(math.MinInt16), big.NewInt(math.MaxInt16)
	case encoding.Int32:
		return big.NewInt(math.MinInt32), big.NewInt(math.MaxInt32)
	case encoding.Int64:
		return big.NewInt(math.MinInt64), big.NewInt(math.MaxInt64)
	case encoding.Uint8:
		return new(big.Int), big.NewInt(math.MaxUint8)
	case encoding.Uint16:
		return new(big.Int), big.NewInt(math.MaxUint16)
	case encoding.Uint32:
		return new(big.Int), big.NewInt(math.MaxUint32)
	}
	return new(big.Int), new(big.Int).SetUint64(math.MaxUint64)
}

func floorRat(r *big.Rat) *big.Int {
	// Euclidean division by a positive denominator is the floor.
	q := new(big.Int)
	q.Div(r.Num(), r.Denom())
	return q
}

func ceilRat(r *big.Rat) *big.Int {
	q := floorRat(new(big.Rat).Neg(r))
	return q.Neg(q)
}

// intValue converts an in-range integer to a Value of type t.
func intValue(t encoding.Type, v *big.Int) stats.Value {
	switch {
	case t == encoding.Bool:
		return stats.Bool(v.Sign() != 0)
	case t.IsSigned():
		return stats.Int(t, v.Int64())
	}
	return stats.Uint(t, v.Uint64())
}

func bindInteger(l *Leaf) error {
	t := l.Col.Type
	lo, hi := domain(t)
	return bindIntegers(l, lo, hi, func(v *big.Int) stats.Value { return intValue(t, v) })
}

// bindWide binds a comparison on a wide decimal: its literals are scaled
// and rounded exactly as a narrower decimal's are (bindInteger), against
// the range of a signed 128-bit integer, the values 16 bytes can hold
// (every decimal of up to 38 digits, and whatever else a file stores), so
// that a literal beyond it matches every value or none. The bound values
// are stored encodings (wideValue); WideDecimalPred compares them.
func bindWide(l *Leaf) error {
	if err := bindIntegers(l, minInt128, maxInt128, wideValue); err != nil {
		return err
	}
	// The set in the numbers' order (sortedSet ordered the encodings by
	// their bytes), so that its ends bound it as for other columns.
	slices.SortFunc(l.Set, func(a, b stats.Value) int { return wideBig(a.Bytes()).Cmp(wideBig(b.Bytes())) })
	return nil
}

// bindIntegers converts the literals of a comparison on an integer domain
// [lo, hi] (the column's values) into values made by mk: to the nearest
// integers that keep the comparison's meaning, or to OpAll or OpNone when
// the literal lies outside the domain.
func bindIntegers(l *Leaf, lo, hi *big.Int, mk func(*big.Int) stats.Value) error {
	rs := make([]*big.Rat, len(l.Lits))
	for i, lit := range l.Lits {
		r, err := l.rat(lit)
		if err != nil {
			return err
		}
		rs[i] = r
	}
	set := func(op Op, v *big.Int) {
		l.Op = op
		if v != nil {
			l.A = mk(v)
		}
	}
	switch l.Op {
	case OpEq, OpNe:
		r := rs[0]
		exact := r.IsInt() && r.Num().Cmp(lo) >= 0 && r.Num().Cmp(hi) <= 0
		switch {
		case exact:
			set(l.Op, r.Num())
		case l.Op == OpEq:
			set(OpNone, nil)
		default:
			set(OpAll, nil)
		}
	case OpLt, OpGe:
		// x < r ⇔ x < ceil(r); x >= r ⇔ x >= ceil(r).
		c := ceilRat(rs[0])
		below := c.Cmp(lo) <= 0 // every x >= c
		above := c.Cmp(hi) > 0  // every x < c
		switch {
		case below && l.Op == OpLt, above && l.Op == OpGe:
			set(OpNone, nil)
		case below, above:
			set(OpAll, nil)
		default:
			set(l.Op, c)
		}
	case OpLe, OpGt:
		// x <= r ⇔ x <= floor(r); x > r ⇔ x > floor(r).
		f := floorRat(rs[0])
		below := f.Cmp(lo) < 0  // every x > f
		above := f.Cmp(hi) >= 0 // every x <= f
		switch {
		case below && l.Op == OpLe, above && l.Op == OpGt:
			set(OpNone, nil)
		case below, above:
			set(OpAll, nil)
		default:
			set(l.Op, f)
		}
	case OpBetween:
		a, b := ceilRat(rs[0]), floorRat(rs[1])
		if a.Cmp(lo) < 0 {
			a = lo
		}
		if b.Cmp(hi) > 0 {
			b = hi
		}
		switch {
		case a.Cmp(b) > 0:
			set(OpNone, nil)
		case a.Cmp(lo) == 0 && b.Cmp(hi) == 0:
			set(OpAll, nil)
		default:
			l.A, l.B = mk(a), mk(b)
		}
	case OpIn:
		var vals []stats.Value
		for _, r := range rs {
			if r.IsInt() && r.Num().Cmp(lo) >= 0 && r.Num().Cmp(hi) <= 0 {
				vals = append(vals, mk(r.Num()))
			}
		}
		if len(vals) == 0 {
			set(OpNone, nil)
		} else {
			l.Set = sortedSet(vals)
		}
	}
	return nil
}

// normalize flattens AND/OR, folds constants and pushes NOT down (neg is
// true when an odd number of NOTs sits above e).
func normalize(e Expr, neg bool) Expr {
	switch x := e.(type) {
	case *Not:
		return normalize(x.X, !neg)
	case *Const:
		return &Const{Value: x.Value != neg}
	case *And, *Or:
		var args []Expr
		isAnd := false
		if a, ok := x.(*And); ok {
			args, isAnd = a.Args, true
		} else {
			args = x.(*Or).Args
		}
		if neg {
			isAnd = !isAnd // De Morgan
		}
		var out []Expr
		for _, a := range args {
			n := normalize(a, neg)
			if c, ok := n.(*Const); ok {
				if c.Value == isAnd {
					continue // TRUE in AND, FALSE in OR
				}
				return &Const{Value: c.Value} // FALSE in AND, TRUE in OR
			}
			// Flatten nested operators of the same kind.
			if na, ok := n.(*And); ok && isAnd {
				out = append(out, na.Args...)
				continue
			}
			if no, ok := n.(*Or); ok && !isAnd {
				out = append(out, no.Args...)
				continue
			}
			out = append(out, n)
		}
		switch len(out) {
		case 0:
			return &Const{Value: isAnd}
		case 1:
			return out[0]
		}
		if isAnd {
			return &And{Args: out}
		}
		return &Or{Args: out}
	case *Leaf:
		if !neg {
			return x
		}
		if n := negateLeaf(x); n != nil {
			return n
		}
		return &Not{X: x}
	}
	return e
}

// negateLeaf returns a bound expression equal to NOT l under three-valued
// logic, or nil when there is none without NOT.
func negateLeaf(l *Leaf) Expr {
	if !l.Bound() {
		return nil
	}
	flip := map[Op]Op{OpIsNull: OpIsNotNull, OpIsNotNull: OpIsNull, OpAll: OpNone, OpNone: OpAll,
		OpEq: OpNe, OpNe: OpEq, OpLt: OpGe, OpGe: OpLt, OpLe: OpGt, OpGt: OpLe}
	if l.Col.Type.IsFloat() && l.Op != OpIsNull && l.Op != OpIsNotNull {
		return nil // NaN: NOT (x < a) holds for NaN, x >= a does not
	}
	if op, ok := flip[l.Op]; ok {
		n := *l
		n.Op = op
		n.pred = makePred(&n)
		return &n
	}
	if l.Op == OpBetween {
		lt := &Leaf{Path: l.Path, Parts: l.Parts, Op: OpLt, Pos: l.Pos, Col: l.Col, A: l.A}
		gt := &Leaf{Path: l.Path, Parts: l.Parts, Op: OpGt, Pos: l.Pos, Col: l.Col, A: l.B}
		if len(l.Lits) == 2 {
			// x < lit ⇔ x < A and x > lit ⇔ x > B, even where Bind rounded.
			lt.Lits, gt.Lits = l.Lits[:1], l.Lits[1:]
		}
		lt.pred, gt.pred = makePred(lt), makePred(gt)
		return &Or{Args: []Expr{lt, gt}}
	}
	return nil
}
