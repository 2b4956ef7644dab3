// Package filter parses, binds and evaluates row filters: a small SQL-like
// WHERE language (comparisons, BETWEEN, IN, IS [NOT] NULL, prefix LIKE,
// AND/OR/NOT) over column paths.
//
// The life of a filter:
//
//	e, err := filter.Parse("l_shipdate >= DATE '1994-01-01' AND l_discount BETWEEN 0.05 AND 0.07")
//	b, err := filter.Bind(e, lookup)     // literals → each column's physical domain
//	filter.Prune(b, statsOf)             // None / Some / All per chunk, stripe or file
//	filter.MayContain(b, bloomOf)        // bloom filters for = and IN
//	leaf.Pred()                          // *encoding.Pred[T] / *encoding.BytesPred / *filter.WideDecimalPred for decoders
//	filter.EvalRow(b, get)               // reference row evaluation and residual filters
//
// Semantics are SQL's three-valued logic: a comparison with a null value is
// unknown, NOT unknown is unknown, and a row passes only when the whole
// expression is true. Float comparisons follow IEEE 754 like encoding.Pred:
// NaN satisfies only != (so NOT (x < 5) holds for a NaN while x >= 5 does
// not; binding therefore never rewrites a negated float comparison).
package filter

import (
	"slices"
	"strconv"
	"strings"

	"strata/encoding"
	"strata/stats"
)

// Expr is a filter expression: *And, *Or, *Not, *Const or *Leaf.
type Expr interface {
	// String renders the expression in the WHERE syntax Parse accepts
	// (bound-only operators render as pseudo-SQL).
	String() string
	isExpr()
}

// And is true when every argument is true.
type And struct{ Args []Expr }

// Or is true when any argument is true.
type Or struct{ Args []Expr }

// Not negates its argument (unknown stays unknown).
type Not struct{ X Expr }

// Const is the literal TRUE or FALSE used as a predicate.
type Const struct{ Value bool }

func (*And) isExpr()   {}
func (*Or) isExpr()    {}
func (*Not) isExpr()   {}
func (*Const) isExpr() {}
func (*Leaf) isExpr()  {}

// Op is the operator of a Leaf. OpEq..OpPrefix have the numbering of
// encoding.Op.
type Op uint8

// Leaf operators.
const (
	OpEq        Op = iota + 1 // column = A
	OpNe                      // column != A
	OpLt                      // column < A
	OpLe                      // column <= A
	OpGt                      // column > A
	OpGe                      // column >= A
	OpBetween                 // A <= column <= B
	OpIn                      // column in Set (bound) / Lits (parsed)
	OpPrefix                  // column LIKE 'A%'
	OpIsNull                  // column IS NULL
	OpIsNotNull               // column IS NOT NULL
	// OpAll and OpNone appear only in bound leaves, when a literal lies
	// outside the column's domain: int32col < 5e9 is true for every non-null
	// value (OpAll), int32col = 5e9 for none (OpNone). Null rows stay
	// unknown, exactly as for the comparison they replace.
	OpAll
	OpNone
)

var opText = [...]string{"", "=", "!=", "<", "<=", ">", ">=", "BETWEEN", "IN", "LIKE",
	"IS NULL", "IS NOT NULL", "<any value>", "<no value>"}

func (o Op) String() string {
	if int(o) < len(opText) {
		return opText[o]
	}
	return "op(" + strconv.Itoa(int(o)) + ")"
}

// LitKind is the kind of a literal.
type LitKind uint8

// Literal kinds.
const (
	LitNumber    LitKind = iota + 1 // integer, decimal or float text: -12, 0.05, 5e9
	LitString                       // 'text' (Text holds the unescaped value)
	LitDate                         // DATE 'YYYY-MM-DD'
	LitTimestamp                    // TIMESTAMP 'YYYY-MM-DD HH:MM:SS[.fffffffff][Z|±HH:MM]'
	LitBool                         // TRUE / FALSE
)

// Literal is a constant as written in the filter; Bind converts it to the
// column's domain.
type Literal struct {
	Kind LitKind
	Text string // number text with sign, string value, or date/timestamp text
	Bool bool   // LitBool
	Pos  int    // 1-based column in the source, 0 if built by hand
}

// String renders the literal in WHERE syntax.
func (l Literal) String() string {
	switch l.Kind {
	case LitNumber:
		return l.Text
	case LitString:
		return quote(l.Text)
	case LitDate:
		return "DATE " + quote(l.Text)
	case LitTimestamp:
		return "TIMESTAMP " + quote(l.Text)
	case LitBool:
		if l.Bool {
			return "TRUE"
		}
		return "FALSE"
	}
	return "?"
}

func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// Leaf is a predicate on one column.
//
// Parse fills Path, Op, Lits and Pos. Bind returns copies with Col set and
// the literals converted into the column's physical domain: A (and B for
// BETWEEN) or the sorted, de-duplicated Set for IN. A bound IN whose
// literals all fall outside the domain becomes OpNone.
type Leaf struct {
	Path string // column path: "l_shipdate" or "a.b.c", its parts joined by dots
	// Parts are the parts of the path as written, which Parse fills: a
	// quoted part ("a"."b", "a.b") is one name as it is, never joined with
	// its neighbours when the path is resolved (schema.FindParts), so
	// "a"."b" is field b of a even beside a column "a.b". A leaf built with
	// Path alone has none: its path resolves as schema.Find resolves Path.
	Parts []PathPart
	Op    Op
	Lits  []Literal
	Pos   int // 1-based column of the path in the source

	Col  *ColumnInfo // nil until bound
	A, B stats.Value
	Set  []stats.Value

	pred any // cached encoding predicate (see Pred)
}

// PathPart is one dot-separated part of a column path as a filter writes it.
type PathPart struct {
	Name   string
	Quoted bool // written "quoted": one name, dots included, never joined with its neighbours
}

// Bound reports whether Bind has resolved the leaf.
func (l *Leaf) Bound() bool { return l.Col != nil }

// Names returns the names of the leaf's path and which of them are whole
// (quoted), as schema.FindParts takes them: its Parts, or Path split at
// its dots when it has none.
func (l *Leaf) Names() (names []string, whole []bool) {
	if l.Parts == nil {
		return strings.Split(l.Path, "."), nil
	}
	return PathNames(l.Parts)
}

// PathNames returns the names of a path's parts and which of them are
// whole (quoted), as schema.FindParts takes them.
func PathNames(parts []PathPart) (names []string, whole []bool) {
	names, whole = make([]string, len(parts)), make([]bool, len(parts))
	for i, p := range parts {
		names[i], whole[i] = p.Name, p.Quoted
	}
	return names, whole
}

// Key identifies the column the leaf names, for maps from columns to their
// statistics (Prune and MayContain pass it): its Path, unless the path has
// several parts and some of them are quoted, which can make it name
// another column than the same names unquoted ("a"."b" beside a.b and
// "a.b"); then the path as written.
func (l *Leaf) Key() string {
	if len(l.Parts) > 1 {
		for _, p := range l.Parts {
			if p.Quoted {
				return l.pathSQL()
			}
		}
	}
	return l.Path
}

func (e *And) String() string { return join(e.Args, " AND ") }
func (e *Or) String() string  { return join(e.Args, " OR ") }
func (e *Not) String() string { return "NOT " + paren(e.X) }
func (e *Const) String() string {
	if e.Value {
		return "TRUE"
	}
	return "FALSE"
}

func paren(e Expr) string {
	switch e.(type) {
	case *And, *Or:
		return "(" + e.String() + ")"
	}
	return e.String()
}

func join(args []Expr, sep string) string {
	var b strings.Builder
	for i, a := range args {
		if i > 0 {
			b.WriteString(sep)
		}
		b.WriteString(paren(a))
	}
	return b.String()
}

// String renders the leaf with its original literals, or with its bound
// values when it was built without literals.
func (l *Leaf) String() string {
	col := l.pathSQL()
	lit := func(i int, v stats.Value) string {
		if i < len(l.Lits) {
			return l.Lits[i].String()
		}
		return l.valueSQL(v)
	}
	switch l.Op {
	case OpEq, OpNe, OpLt, OpLe, OpGt, OpGe:
		return col + " " + l.Op.String() + " " + lit(0, l.A)
	case OpBetween:
		return col + " BETWEEN " + lit(0, l.A) + " AND " + lit(1, l.B)
	case OpIn:
		var parts []string
		if len(l.Lits) > 0 {
			for _, x := range l.Lits {
				parts = append(parts, x.String())
			}
		} else {
			for _, v := range l.Set {
				parts = append(parts, l.valueSQL(v))
			}
		}
		return col + " IN (" + strings.Join(parts, ", ") + ")"
	case OpPrefix:
		if len(l.Lits) > 0 {
			return col + " LIKE " + l.Lits[0].String()
		}
		return col + " LIKE " + quote(string(l.A.Bytes())+"%")
	case OpIsNull, OpIsNotNull, OpAll, OpNone:
		return col + " " + l.Op.String()
	}
	return col + " " + l.Op.String()
}

// valueSQL renders a bound value of the leaf's column as a literal: a
// wide decimal's stored bytes as the number they hold.
func (l *Leaf) valueSQL(v stats.Value) string {
	switch {
	case !v.Valid():
		return "?"
	case l.Col != nil && l.Col.Logical == LogicalWideDecimal && v.Type == encoding.Binary:
		return wideText(v.Bytes(), l.Col.Scale)
	case v.Type == encoding.Binary:
		return quote(string(v.Bytes()))
	case v.Type == encoding.Bool:
		return strings.ToUpper(v.String())
	}
	return v.String()
}

// pathSQL renders the leaf's path so that Parse reads it back as the same
// path. A path of one part is quoted when it is not a plain identifier or
// is a keyword. In a path of several parts, quoted parts stay quoted and
// the others, identifiers as the lexer read them, stay as they are. A
// path built without Parts is dotted identifiers when every part is one,
// else one quoted name, which resolves as Path does (schema.Find).
func (l *Leaf) pathSQL() string {
	if len(l.Parts) == 0 {
		if parts := strings.Split(l.Path, "."); !slices.ContainsFunc(parts, func(s string) bool { return !isPlainIdent(s) }) {
			return l.Path
		}
		return quoteIdent(l.Path)
	}
	if len(l.Parts) == 1 {
		if n := l.Parts[0].Name; !isPlainIdent(n) {
			return quoteIdent(n)
		}
		return l.Parts[0].Name
	}
	var b strings.Builder
	for i, p := range l.Parts {
		if i > 0 {
			b.WriteByte('.')
		}
		if p.Quoted || !isIdent(p.Name) {
			b.WriteString(quoteIdent(p.Name))
		} else {
			b.WriteString(p.Name)
		}
	}
	return b.String()
}

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// PathText writes a column path given as its names (a top-level column,
// then struct fields) the way a filter or aggregate writes it, so that
// ParsePath reads it back as those names: each name quoted when it is not a
// plain identifier (it holds a dot, a space, a quote, or is a keyword), or
// every name quoted when all is set. A caller that knows its schema sets
// all where the plain form would name another column (a column "a.b"
// beside field b of a struct a: a.b resolves to the column, "a"."b" to the
// field).
func PathText(names []string, all bool) string {
	var b strings.Builder
	for i, n := range names {
		if i > 0 {
			b.WriteByte('.')
		}
		if all || !isPlainIdent(n) {
			b.WriteString(quoteIdent(n))
		} else {
			b.WriteString(n)
		}
	}
	return b.String()
}

// isIdent reports whether s lexes as one name: an identifier that is not a
// keyword, or DATE or TIMESTAMP, which name columns where no quoted value
// follows (and none follows a path).
func isIdent(s string) bool {
	switch strings.ToUpper(s) {
	case "DATE", "TIMESTAMP":
		return true
	}
	return isPlainIdent(s)
}

func isPlainIdent(s string) bool {
	if s == "" || keywords[strings.ToUpper(s)] {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// Columns returns the distinct column paths e refers to, in order of first
// appearance.
func Columns(e Expr) []string {
	var out []string
	seen := map[string]bool{}
	Walk(e, func(l *Leaf) {
		if !seen[l.Path] {
			seen[l.Path] = true
			out = append(out, l.Path)
		}
	})
	return out
}

// Walk calls fn for every leaf of e, left to right.
func Walk(e Expr, fn func(*Leaf)) {
	switch x := e.(type) {
	case *And:
		for _, a := range x.Args {
			Walk(a, fn)
		}
	case *Or:
		for _, a := range x.Args {
			Walk(a, fn)
		}
	case *Not:
		Walk(x.X, fn)
	case *Leaf:
		fn(x)
	}
}
