package filter

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// SyntaxError reports a malformed filter: where (1-based byte column) and
// what was expected.
type SyntaxError struct {
	Pos int
	Msg string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("filter: at column %d: %s", e.Pos, e.Msg) }

// maxDepth bounds nesting (parentheses and NOT) so hostile input cannot
// exhaust the stack.
const maxDepth = 200

// maxExponent bounds the decimal exponent of a number literal: beyond it no
// physical type can tell the values apart, and exact arithmetic on them
// would be costly.
const maxExponent = 400

var keywords = map[string]bool{
	"AND": true, "OR": true, "NOT": true, "BETWEEN": true, "IN": true, "IS": true, "NULL": true,
	"LIKE": true, "TRUE": true, "FALSE": true, "DATE": true, "TIMESTAMP": true,
}

type tokKind uint8

const (
	tEOF tokKind = iota
	tIdent
	tQuotedIdent
	tKeyword
	tNumber
	tString
	tPunct
)

type token struct {
	kind tokKind
	text string // identifier/keyword (keywords upper-cased), number text, string value, punctuation
	pos  int    // 1-based
	raw  string // source text, for messages
}

func (t token) describe() string {
	switch t.kind {
	case tEOF:
		return "end of input"
	case tString:
		if len(t.raw) > 40 {
			return "string " + t.raw[:37] + "..."
		}
		return "string " + t.raw
	}
	r := t.raw
	if len(r) > 40 {
		r = r[:37] + "..."
	}
	return "'" + r + "'"
}

func lex(src string) ([]token, error) {
	var toks []token
	i := 0
	for i < len(src) {
		c := src[i]
		start := i
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
			continue
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			for i < len(src) && (src[i] == '_' || src[i] >= 'a' && src[i] <= 'z' || src[i] >= 'A' && src[i] <= 'Z' || src[i] >= '0' && src[i] <= '9') {
				i++
			}
			w := src[start:i]
			if up := strings.ToUpper(w); keywords[up] {
				toks = append(toks, token{tKeyword, up, start + 1, w})
			} else {
				toks = append(toks, token{tIdent, w, start + 1, w})
			}
			continue
		case c >= '0' && c <= '9' || c == '.' && i+1 < len(src) && src[i+1] >= '0' && src[i+1] <= '9':
			for i < len(src) && src[i] >= '0' && src[i] <= '9' {
				i++
			}
			if i < len(src) && src[i] == '.' {
				i++
				for i < len(src) && src[i] >= '0' && src[i] <= '9' {
					i++
				}
			}
			if i < len(src) && (src[i] == 'e' || src[i] == 'E') {
				j := i + 1
				if j < len(src) && (src[j] == '+' || src[j] == '-') {
					j++
				}
				ds := j
				for j < len(src) && src[j] >= '0' && src[j] <= '9' {
					j++
				}
				if j == ds {
					return nil, &SyntaxError{i + 1, "malformed number exponent in " + strconv.Quote(src[start:j])}
				}
				e, err := strconv.Atoi(src[i+1 : j])
				if err != nil || e > maxExponent || e < -maxExponent {
					return nil, &SyntaxError{start + 1, fmt.Sprintf("number %s: exponent out of range (at most %d)", src[start:j], maxExponent)}
				}
				i = j
			}
			if i < len(src) && (src[i] == '_' || src[i] >= 'a' && src[i] <= 'z' || src[i] >= 'A' && src[i] <= 'Z') {
				return nil, &SyntaxError{start + 1, fmt.Sprintf("malformed number %q", src[start:i+1])}
			}
			toks = append(toks, token{tNumber, src[start:i], start + 1, src[start:i]})
			continue
		case c == '\'' || c == '"':
			var b strings.Builder
			i++
			closed := false
			for i < len(src) {
				if src[i] == c {
					if i+1 < len(src) && src[i+1] == c {
						b.WriteByte(c)
						i += 2
						continue
					}
					i++
					closed = true
					break
				}
				b.WriteByte(src[i])
				i++
			}
			if !closed {
				what := "string"
				if c == '"' {
					what = "quoted identifier"
				}
				return nil, &SyntaxError{start + 1, "unterminated " + what}
			}
			k := tString
			if c == '"' {
				k = tQuotedIdent
				if b.Len() == 0 {
					return nil, &SyntaxError{start + 1, "empty quoted identifier"}
				}
				// A name may hold dots ("a.b"): it is one name, the
				// column "a.b" (schema.FindParts), while "a"."b" is
				// field b of a. A leaf's Path joins its parts by dots,
				// so no part may be empty.
				if n := b.String(); n[0] == '.' || n[len(n)-1] == '.' || strings.Contains(n, "..") {
					return nil, &SyntaxError{start + 1, "quoted identifier cannot begin or end with '.' or hold '..'"}
				}
			}
			toks = append(toks, token{k, b.String(), start + 1, src[start:i]})
			continue
		}
		// Punctuation.
		two := ""
		if i+1 < len(src) {
			two = src[i : i+2]
		}
		switch two {
		case "<=", ">=", "!=", "<>", "==":
			toks = append(toks, token{tPunct, two, start + 1, two})
			i += 2
			continue
		}
		switch c {
		case '(', ')', ',', '.', '=', '<', '>', '-', '+':
			toks = append(toks, token{tPunct, string(c), start + 1, string(c)})
			i++
			continue
		}
		r := src[i:]
		if len(r) > 4 {
			r = r[:4]
		}
		return nil, &SyntaxError{start + 1, fmt.Sprintf("unexpected character %q", []rune(r)[0])}
	}
	toks = append(toks, token{tEOF, "", len(src) + 1, ""})
	// DATE and TIMESTAMP introduce a literal only before a quoted value;
	// anywhere else they are names, as a column called "date" is.
	for i := range toks[:len(toks)-1] {
		if t := toks[i]; t.kind == tKeyword && (t.text == "DATE" || t.text == "TIMESTAMP") && toks[i+1].kind != tString {
			toks[i] = token{tIdent, t.raw, t.pos, t.raw}
		}
	}
	return toks, nil
}

type parser struct {
	toks  []token
	p     int
	depth int
}

func (p *parser) peek() token { return p.toks[p.p] }
func (p *parser) next() token {
	t := p.toks[p.p]
	if t.kind != tEOF {
		p.p++
	}
	return t
}

func (p *parser) isKw(kw string) bool { t := p.peek(); return t.kind == tKeyword && t.text == kw }
func (p *parser) isPunct(s string) bool {
	t := p.peek()
	return t.kind == tPunct && t.text == s
}

func (p *parser) errf(t token, format string, args ...any) error {
	return &SyntaxError{t.pos, fmt.Sprintf(format, args...) + ", found " + t.describe()}
}

// Parse parses a WHERE clause (without the WHERE keyword). Keywords are
// case-insensitive; identifiers are [A-Za-z_][A-Za-z0-9_]* or "double
// quoted" ("" escapes a quote), joined by dots for nested paths. A quoted
// name may hold dots ("a.b", a column of flattened JSON) and is one name:
// "a.b" is the column "a.b" and "a"."b" field b of a, while unquoted a.b
// is the longest name a schema has, the column "a.b" before field b of a
// (schema.FindParts; a quoted path the schema does not have falls back to
// that rule). Strings are
// single-quoted with ” as the escape. Errors are *SyntaxError values that
// give the column and what was expected.
//
//	expr      := or
//	or        := and { OR and }
//	and       := not { AND not }
//	not       := NOT not | primary
//	primary   := '(' expr ')' | TRUE | FALSE | column [tail] | literal cmp column
//	tail      := cmp literal | [NOT] BETWEEN literal AND literal
//	           | [NOT] IN '(' literal {',' literal} ')' | [NOT] LIKE string | IS [NOT] NULL
//	cmp       := = | == | != | <> | < | <= | > | >=
//	literal   := [+|-] number | string | DATE string | TIMESTAMP string | TRUE | FALSE
//
// A bare column (flag AND ...) means column = TRUE. A time-of-day column
// compares with 'HH:MM[:SS[.fffffffff]]' and a duration column with Go
// duration text ('1h30m', '-250ms'); on either a number is a count of the
// column's unit.
func Parse(where string) (Expr, error) {
	toks, err := lex(where)
	if err != nil {
		return nil, err
	}
	p := &parser{toks: toks}
	if p.peek().kind == tEOF {
		return nil, &SyntaxError{1, "empty filter"}
	}
	e, err := p.parseOr()
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind != tEOF {
		if t.kind == tPunct && t.text == ")" {
			return nil, p.errf(t, "unbalanced ')'")
		}
		return nil, p.errf(t, "expected AND, OR or end of input")
	}
	return e, nil
}

func (p *parser) parseOr() (Expr, error) {
	e, err := p.parseAnd()
	if err != nil {
		return nil, err
	}
	if !p.isKw("OR") {
		return e, nil
	}
	or := &Or{Args: []Expr{e}}
	for p.isKw("OR") {
		p.next()
		x, err := p.parseAnd()
		if err != nil {
			return nil, err
		}
		or.Args = append(or.Args, x)
	}
	return or, nil
}

func (p *parser) parseAnd() (Expr, error) {
	e, err := p.parseNot()
	if err != nil {
		return nil, err
	}
	if !p.isKw("AND") {
		return e, nil
	}
	and := &And{Args: []Expr{e}}
	for p.isKw("AND") {
		p.next()
		x, err := p.parseNot()
		if err != nil {
			return nil, err
		}
		and.Args = append(and.Args, x)
	}
	return and, nil
}

func (p *parser) enter() error {
	p.depth++
	if p.depth > maxDepth {
		return &SyntaxError{p.peek().pos, fmt.Sprintf("expression nested deeper than %d", maxDepth)}
	}
	return nil
}

func (p *parser) parseNot() (Expr, error) {
	if !p.isKw("NOT") {
		return p.parsePrimary()
	}
	p.next()
	if err := p.enter(); err != nil {
		return nil, err
	}
	x, err := p.parseNot()
	p.depth--
	if err != nil {
		return nil, err
	}
	return &Not{X: x}, nil
}

func isCmp(t token) (Op, bool) {
	if t.kind != tPunct {
		return 0, false
	}
	switch t.text {
	case "=", "==":
		return OpEq, true
	case "!=", "<>":
		return OpNe, true
	case "<":
		return OpLt, true
	case "<=":
		return OpLe, true
	case ">":
		return OpGt, true
	case ">=":
		return OpGe, true
	}
	return 0, false
}

func (p *parser) parsePrimary() (Expr, error) {
	t := p.peek()
	switch {
	case t.kind == tPunct && t.text == "(":
		p.next()
		if err := p.enter(); err != nil {
			return nil, err
		}
		e, err := p.parseOr()
		p.depth--
		if err != nil {
			return nil, err
		}
		if !p.isPunct(")") {
			return nil, p.errf(p.peek(), "expected ')' to close '(' at column %d", t.pos)
		}
		p.next()
		return e, nil
	case t.kind == tIdent || t.kind == tQuotedIdent:
		parts, pos, err := p.parsePath()
		if err != nil {
			return nil, err
		}
		return p.parseTail(parts, pos)
	case t.kind == tKeyword && (t.text == "TRUE" || t.text == "FALSE"):
		if _, ok := isCmp(p.toks[p.p+1]); !ok {
			p.next()
			return &Const{Value: t.text == "TRUE"}, nil
		}
		return p.parseReversed()
	case t.kind == tNumber || t.kind == tString || t.kind == tPunct && (t.text == "-" || t.text == "+") ||
		t.kind == tKeyword && (t.text == "DATE" || t.text == "TIMESTAMP"):
		return p.parseReversed()
	case t.kind == tKeyword && t.text == "NULL":
		return nil, p.errf(t, "expected a column, a literal, NOT or '(' (NULL is not a predicate; use column IS NULL)")
	}
	return nil, p.errf(t, "expected a column, a literal, NOT or '('")
}

// parseReversed parses "literal cmp column" and flips it.
func (p *parser) parseReversed() (Expr, error) {
	lit, err := p.parseLiteral("")
	if err != nil {
		return nil, err
	}
	op, ok := isCmp(p.peek())
	if !ok {
		return nil, p.errf(p.peek(), "expected a comparison operator after literal %s", lit)
	}
	p.next()
	t := p.peek()
	if t.kind != tIdent && t.kind != tQuotedIdent {
		return nil, p.errf(t, "expected a column after %s %s (comparing two literals is not supported)", lit, op)
	}
	parts, pos, err := p.parsePath()
	if err != nil {
		return nil, err
	}
	switch op {
	case OpLt:
		op = OpGt
	case OpLe:
		op = OpGe
	case OpGt:
		op = OpLt
	case OpGe:
		op = OpLe
	}
	return &Leaf{Path: joinParts(parts), Parts: parts, Op: op, Lits: []Literal{lit}, Pos: pos}, nil
}

// parsePath parses a column path; a quoted part keeps its dots and is
// marked Quoted, so that binding can tell "a"."b" from "a.b" and a.b.
func (p *parser) parsePath() ([]PathPart, int, error) {
	t := p.next()
	parts := []PathPart{{t.text, t.kind == tQuotedIdent}}
	for p.isPunct(".") {
		p.next()
		n := p.next()
		if n.kind != tIdent && n.kind != tQuotedIdent {
			return nil, 0, p.errf(n, "expected a field name after '.'")
		}
		parts = append(parts, PathPart{n.text, n.kind == tQuotedIdent})
	}
	return parts, t.pos, nil
}

func joinParts(parts []PathPart) string {
	if len(parts) == 1 {
		return parts[0].Name
	}
	names := make([]string, len(parts))
	for i, p := range parts {
		names[i] = p.Name
	}
	return strings.Join(names, ".")
}

// ParsePath parses a column path as a filter writes one (l_quantity,
// a.b.c, "a"."b", "a.b"), for arguments that name a column the way
// filters do, such as an aggregate's. It returns the path as a Leaf's
// Path and Parts hold it; resolve it with PathNames and schema.FindParts.
func ParsePath(s string) (path string, parts []PathPart, err error) {
	toks, err := lex(s)
	if err != nil {
		return "", nil, err
	}
	p := &parser{toks: toks}
	if t := p.peek(); t.kind != tIdent && t.kind != tQuotedIdent {
		return "", nil, p.errf(t, "expected a column")
	}
	parts, _, err = p.parsePath()
	if err != nil {
		return "", nil, err
	}
	if t := p.peek(); t.kind != tEOF {
		return "", nil, p.errf(t, "expected '.' or the end of the column path")
	}
	return joinParts(parts), parts, nil
}

func (p *parser) parseTail(parts []PathPart, pos int) (Expr, error) {
	path := joinParts(parts)
	leaf := &Leaf{Path: path, Parts: parts, Pos: pos}
	t := p.peek()
	if op, ok := isCmp(t); ok {
		p.next()
		lit, err := p.parseLiteral(" after " + t.text)
		if err != nil {
			return nil, err
		}
		leaf.Op, leaf.Lits = op, []Literal{lit}
		return leaf, nil
	}
	if t.kind == tKeyword && t.text == "IS" {
		p.next()
		leaf.Op = OpIsNull
		if p.isKw("NOT") {
			p.next()
			leaf.Op = OpIsNotNull
		}
		if !p.isKw("NULL") {
			return nil, p.errf(p.peek(), "expected NULL after IS")
		}
		p.next()
		return leaf, nil
	}
	negate := false
	if t.kind == tKeyword && t.text == "NOT" {
		p.next()
		negate = true
		t = p.peek()
		if !(t.kind == tKeyword && (t.text == "BETWEEN" || t.text == "IN" || t.text == "LIKE")) {
			return nil, p.errf(t, "expected BETWEEN, IN or LIKE after %s NOT", path)
		}
	}
	var err error
	switch {
	case t.kind == tKeyword && t.text == "BETWEEN":
		err = p.parseBetween(leaf)
	case t.kind == tKeyword && t.text == "IN":
		err = p.parseIn(leaf)
	case t.kind == tKeyword && t.text == "LIKE":
		err = p.parseLike(leaf)
	case t.kind == tEOF || t.kind == tKeyword && (t.text == "AND" || t.text == "OR") || t.kind == tPunct && t.text == ")":
		// A bare boolean column.
		leaf.Op = OpEq
		leaf.Lits = []Literal{{Kind: LitBool, Bool: true}}
		return leaf, nil
	default:
		return nil, p.errf(t, "expected a comparison operator, BETWEEN, IN, LIKE or IS after %s", path)
	}
	if err != nil {
		return nil, err
	}
	if negate {
		return &Not{X: leaf}, nil
	}
	return leaf, nil
}

func (p *parser) parseBetween(leaf *Leaf) error {
	p.next()
	lo, err := p.parseLiteral(" after BETWEEN")
	if err != nil {
		return err
	}
	if !p.isKw("AND") {
		return p.errf(p.peek(), "expected AND after BETWEEN %s", lo)
	}
	p.next()
	hi, err := p.parseLiteral(" after BETWEEN ... AND")
	if err != nil {
		return err
	}
	leaf.Op, leaf.Lits = OpBetween, []Literal{lo, hi}
	return nil
}

func (p *parser) parseIn(leaf *Leaf) error {
	p.next()
	if !p.isPunct("(") {
		return p.errf(p.peek(), "expected '(' after IN")
	}
	p.next()
	leaf.Op = OpIn
	for {
		lit, err := p.parseLiteral(" in IN list")
		if err != nil {
			return err
		}
		leaf.Lits = append(leaf.Lits, lit)
		if p.isPunct(",") {
			p.next()
			continue
		}
		if p.isPunct(")") {
			p.next()
			return nil
		}
		return p.errf(p.peek(), "expected ',' or ')' in IN list")
	}
}

func (p *parser) parseLike(leaf *Leaf) error {
	p.next()
	t := p.peek()
	if t.kind != tString {
		return p.errf(t, "expected a string pattern after LIKE")
	}
	p.next()
	pat := t.text
	body, isPrefix := strings.CutSuffix(pat, "%")
	if strings.ContainsAny(body, "%_") {
		return &SyntaxError{t.pos, fmt.Sprintf("LIKE %s: only prefix patterns supported ('abc%%'; no '_' and no '%%' except at the end)", t.raw)}
	}
	lit := Literal{Kind: LitString, Text: body, Pos: t.pos}
	if isPrefix {
		leaf.Op = OpPrefix
		lit.Text = pat // keep the pattern so String round-trips
	} else {
		leaf.Op = OpEq
	}
	leaf.Lits = []Literal{lit}
	return nil
}

// parseLiteral parses one literal; ctx completes "expected a literal<ctx>".
func (p *parser) parseLiteral(ctx string) (Literal, error) {
	t := p.next()
	switch t.kind {
	case tNumber:
		return Literal{Kind: LitNumber, Text: t.text, Pos: t.pos}, nil
	case tString:
		return Literal{Kind: LitString, Text: t.text, Pos: t.pos}, nil
	case tPunct:
		if t.text == "-" || t.text == "+" {
			n := p.peek()
			if n.kind != tNumber {
				return Literal{}, p.errf(n, "expected a number after '%s'", t.text)
			}
			p.next()
			text := n.text
			if t.text == "-" {
				text = "-" + text
			}
			return Literal{Kind: LitNumber, Text: text, Pos: t.pos}, nil
		}
	case tIdent:
		if up := strings.ToUpper(t.text); up == "DATE" || up == "TIMESTAMP" {
			// a literal's keyword without its quoted value (the lexer
			// made it a name)
			return Literal{}, p.errf(p.peek(), "expected a quoted value after %s", up)
		}
	case tKeyword:
		switch t.text {
		case "TRUE", "FALSE":
			return Literal{Kind: LitBool, Bool: t.text == "TRUE", Pos: t.pos}, nil
		case "DATE", "TIMESTAMP":
			s := p.peek()
			if s.kind != tString {
				return Literal{}, p.errf(s, "expected a quoted value after %s", t.text)
			}
			p.next()
			if t.text == "DATE" {
				if _, err := parseDate(s.text); err != nil {
					return Literal{}, &SyntaxError{s.pos, fmt.Sprintf("DATE %s: %v", s.raw, err)}
				}
				return Literal{Kind: LitDate, Text: s.text, Pos: t.pos}, nil
			}
			if _, _, err := parseTimestamp(s.text); err != nil {
				return Literal{}, &SyntaxError{s.pos, fmt.Sprintf("TIMESTAMP %s: %v", s.raw, err)}
			}
			return Literal{Kind: LitTimestamp, Text: s.text, Pos: t.pos}, nil
		case "NULL":
			return Literal{}, &SyntaxError{t.pos, "NULL is not a comparable value (comparisons with NULL are never true); use IS NULL or IS NOT NULL"}
		}
	}
	return Literal{}, p.errf(t, "expected a literal%s", ctx)
}

// parseTimeOfDay parses HH:MM[:SS[.fffffffff]] into nanoseconds since
// midnight.
func parseTimeOfDay(s string) (int64, error) {
	// The time part of a timestamp on the epoch's day is the time of day.
	if len(s) < 5 || s[2] != ':' {
		return 0, fmt.Errorf("want HH:MM:SS[.fffffffff]")
	}
	sec, nsec, err := parseTimestamp("1970-01-01 " + s)
	if err != nil || strings.ContainsAny(s, "Z+-") {
		return 0, fmt.Errorf("want HH:MM:SS[.fffffffff]")
	}
	return sec*1e9 + nsec, nil
}

// parseDate parses YYYY-MM-DD into days since 1970-01-01.
func parseDate(s string) (int64, error) {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return 0, fmt.Errorf("want YYYY-MM-DD")
	}
	y, ok1 := digits(s[0:4])
	m, ok2 := digits(s[5:7])
	d, ok3 := digits(s[8:10])
	if !ok1 || !ok2 || !ok3 {
		return 0, fmt.Errorf("want YYYY-MM-DD")
	}
	if m < 1 || m > 12 || d < 1 || d > daysIn(y, m) {
		return 0, fmt.Errorf("no such date")
	}
	return time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC).Unix() / 86400, nil
}

func daysIn(y, m int) int {
	return time.Date(y, time.Month(m)+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

func digits(s string) (int, bool) {
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, len(s) > 0
}

// parseTimestamp parses 'YYYY-MM-DD[( |T)HH:MM[:SS[.f{1,9}]]][Z|±HH:MM]'
// into seconds since the epoch (UTC) and nanoseconds.
func parseTimestamp(s string) (sec int64, nsec int64, err error) {
	bad := fmt.Errorf("want YYYY-MM-DD HH:MM:SS[.fffffffff][Z|+HH:MM]")
	if len(s) < 10 {
		return 0, 0, bad
	}
	days, err := parseDate(s[:10])
	if err != nil {
		return 0, 0, err
	}
	sec = days * 86400
	r := s[10:]
	if r == "" {
		return sec, 0, nil
	}
	if r[0] != ' ' && r[0] != 'T' || len(r) < 6 || r[3] != ':' {
		return 0, 0, bad
	}
	hh, ok1 := digits(r[1:3])
	mm, ok2 := digits(r[4:6])
	if !ok1 || !ok2 || hh > 23 || mm > 59 {
		return 0, 0, bad
	}
	sec += int64(hh*3600 + mm*60)
	r = r[6:]
	if len(r) >= 3 && r[0] == ':' {
		ss, ok := digits(r[1:3])
		if !ok || ss > 59 {
			return 0, 0, bad
		}
		sec += int64(ss)
		r = r[3:]
		if len(r) > 0 && r[0] == '.' {
			j := 1
			for j < len(r) && r[j] >= '0' && r[j] <= '9' {
				j++
			}
			frac := r[1:j]
			if len(frac) == 0 || len(frac) > 9 {
				return 0, 0, bad
			}
			f, _ := digits(frac)
			for k := len(frac); k < 9; k++ {
				f *= 10
			}
			nsec = int64(f)
			r = r[j:]
		}
	}
	switch {
	case r == "" || r == "Z":
	case len(r) == 6 && (r[0] == '+' || r[0] == '-') && r[3] == ':':
		oh, ok1 := digits(r[1:3])
		om, ok2 := digits(r[4:6])
		if !ok1 || !ok2 || oh > 23 || om > 59 {
			return 0, 0, bad
		}
		off := int64(oh*3600 + om*60)
		if r[0] == '+' {
			sec -= off
		} else {
			sec += off
		}
	default:
		return 0, 0, bad
	}
	return sec, nsec, nil
}
