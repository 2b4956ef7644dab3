package filter

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"strata/encoding"
	"strata/stats"
)

func TestParseValid(t *testing.T) {
	cases := []struct{ in, want string }{
		{"a = 1", "a = 1"},
		{"a == 1", "a = 1"},
		{"a<>1", "a != 1"},
		{"a != -1.5e3", "a != -1.5e3"},
		{"a >= +7", "a >= 7"},
		{"l_shipdate <= date '1998-09-02'", "l_shipdate <= DATE '1998-09-02'"},
		{"t > TIMESTAMP '2020-01-02 03:04:05.123'", "t > TIMESTAMP '2020-01-02 03:04:05.123'"},
		{"s = 'it''s'", "s = 'it''s'"},
		{"x BETWEEN 0.05 AND 0.07", "x BETWEEN 0.05 AND 0.07"},
		{"x not between 1 and 2", "NOT x BETWEEN 1 AND 2"},
		{"x IN (1, 2,3)", "x IN (1, 2, 3)"},
		{"x NOT IN ('a')", "NOT x IN ('a')"},
		{"x is null", "x IS NULL"},
		{"x IS NOT NULL", "x IS NOT NULL"},
		{"name LIKE 'PROMO%'", "name LIKE 'PROMO%'"},
		{"name LIKE 'exact'", "name = 'exact'"},
		{"name NOT LIKE 'a%'", "NOT name LIKE 'a%'"},
		{"a.b.c > 3", "a.b.c > 3"},
		// a name holding dots is one name; quoted parts stay quoted in a
		// path of several, where quoting decides what the path names
		{`"a.b" = 1`, `"a.b" = 1`}, {`"x.y".z = 1`, `"x.y".z = 1`},
		{`"a"."b" = 1`, `"a"."b" = 1`}, {`a."b" = 1`, `a."b" = 1`}, {`"a" = 1`, `a = 1`},
		// DATE and TIMESTAMP name columns unless a quoted value follows
		{"date BETWEEN TIMESTAMP '2001-03-01 00:00:00' AND TIMESTAMP '2001-03-01 01:00:00'",
			`"date" BETWEEN TIMESTAMP '2001-03-01 00:00:00' AND TIMESTAMP '2001-03-01 01:00:00'`},
		{"date = DATE '2001-03-01'", `"date" = DATE '2001-03-01'`},
		{"Timestamp IS NULL AND date IN (1, 2)", `"Timestamp" IS NULL AND "date" IN (1, 2)`},
		{"s.date > 3", `s.date > 3`}, {`s."date" > 3`, `s."date" > 3`},
		{"DATE '2001-03-01' < date", `"date" > DATE '2001-03-01'`},
		{`"and".x = 1`, `"and".x = 1`}, {`"select".x = 1`, `"select".x = 1`},
		{`"we""ird col" = 1`, `"we""ird col" = 1`},
		{"a = 1 AND b = 2 OR c = 3", "(a = 1 AND b = 2) OR c = 3"},
		{"a = 1 AND (b = 2 OR c = 3)", "a = 1 AND (b = 2 OR c = 3)"},
		{"NOT NOT a = 1", "NOT NOT a = 1"},
		{"not (a = 1 or b = 2)", "NOT (a = 1 OR b = 2)"},
		{"5 < x", "x > 5"},
		{"DATE '2000-01-01' >= d", "d <= DATE '2000-01-01'"},
		{"flag", "flag = TRUE"},
		{"flag AND NOT other", "flag = TRUE AND NOT other = TRUE"},
		{"TRUE", "TRUE"},
		{"false OR a = 1", "FALSE OR a = 1"},
		{"b = true", "b = TRUE"},
		{"x = .5", "x = .5"},
		{"x = 1.", "x = 1."},
		{"  ((a = 1))  ", "a = 1"},
	}
	for _, c := range cases {
		e, err := Parse(c.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", c.in, err)
			continue
		}
		if got := e.String(); got != c.want {
			t.Errorf("Parse(%q) = %q, want %q", c.in, got, c.want)
		}
		again, err := Parse(e.String())
		if err != nil || again.String() != e.String() {
			t.Errorf("re-parse of %q: %v %v", e.String(), again, err)
		}
	}
}

func TestParseErrors(t *testing.T) {
	cases := []struct {
		in   string
		pos  int
		frag string
	}{
		{"x BETWEEN 1 AND )", 17, "expected a literal after BETWEEN ... AND, found ')'"},
		{"(x BETWEEN 1 AND )", 18, "expected a literal after BETWEEN ... AND, found ')'"},
		{"x BETWEEN 1 OR 2", 13, "expected AND after BETWEEN 1"},
		{"", 1, "empty filter"},
		{"x =", 4, "expected a literal after =, found end of input"},
		{"x = y", 5, "expected a literal after =, found 'y'"},
		{"x = NULL", 5, "use IS NULL"},
		{"x IN ()", 7, "expected a literal in IN list"},
		{"x IN (1 2)", 9, "expected ',' or ')'"},
		{"x IN 1", 6, "expected '(' after IN"},
		{"x IS 3", 6, "expected NULL after IS"},
		{"x LIKE '%abc'", 8, "only prefix patterns supported"},
		{"x LIKE 'a_c%'", 8, "only prefix patterns supported"},
		{"x LIKE 'a%c'", 8, "only prefix patterns supported"},
		{"x LIKE 3", 8, "expected a string pattern"},
		{"x NOT = 3", 7, "expected BETWEEN, IN or LIKE"},
		{"x 3", 3, "expected a comparison operator, BETWEEN, IN, LIKE or IS after x"},
		{"(x = 1", 7, "expected ')' to close '(' at column 1"},
		{"x = 1)", 6, "unbalanced ')'"},
		{"x = 1 y = 2", 7, "expected AND, OR or end of input"},
		{"x = 'abc", 5, "unterminated string"},
		{`"abc = 1`, 1, "unterminated quoted identifier"},
		{"x = 1 AND", 10, "expected a column, a literal, NOT or '('"},
		{"x = DATE '1998-02-30'", 10, "no such date"},
		{"x = DATE 5", 10, "expected a quoted value after DATE"},
		{"x = TIMESTAMP '2020-01-01 25:00'", 15, "TIMESTAMP"},
		{"x = 1e99999", 5, "exponent out of range"},
		{"x = 1e", 6, "malformed number exponent"},
		{"x = 12abc", 5, "malformed number"},
		{"x = - 'a'", 7, "expected a number after '-'"},
		{"x # 1", 3, "unexpected character '#'"},
		{"a. = 1", 4, "expected a field name after '.'"},
		{`".a" = 1`, 1, "cannot begin or end with '.'"},
		{`"a..b" = 1`, 1, "hold '..'"},
		{"5 < 6", 5, "expected a column after 5 <"},
		{"5 x", 3, "expected a comparison operator after literal 5"},
		{"NULL", 1, "NULL is not a predicate"},
		{"x IN (1, NULL)", 10, "use IS NULL"},
		{strings.Repeat("(", 300) + "x = 1" + strings.Repeat(")", 300), 202, "nested deeper"},
		{strings.Repeat("NOT ", 300) + "x = 1", 805, "nested deeper"},
	}
	for _, c := range cases {
		_, err := Parse(c.in)
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("Parse(%q): want SyntaxError, got %v", c.in, err)
			continue
		}
		if se.Pos != c.pos || !strings.Contains(err.Error(), c.frag) {
			t.Errorf("Parse(%q) = %q (pos %d), want pos %d containing %q", c.in, err, se.Pos, c.pos, c.frag)
		}
		if !strings.HasPrefix(err.Error(), "filter: at column ") {
			t.Errorf("error %q lacks prefix", err)
		}
	}
}

func TestParseExactMessage(t *testing.T) {
	_, err := Parse("x BETWEEN 1 AND)")
	const want = "filter: at column 16: expected a literal after BETWEEN ... AND, found ')'"
	if err == nil || err.Error() != want {
		t.Fatalf("got %v, want %s", err, want)
	}
}

func TestTimestampParse(t *testing.T) {
	cases := []struct {
		in        string
		sec, nsec int64
	}{
		{"1970-01-01", 0, 0},
		{"1970-01-01 00:00:01", 1, 0},
		{"1970-01-01T00:01", 60, 0},
		{"1969-12-31 23:59:59.5", -1, 5e8},
		{"2000-03-01 12:00:00.000000001Z", 951912000, 1},
		{"2000-03-01 12:00:00+01:00", 951912000 - 3600, 0},
		{"2000-03-01 12:00:00-02:30", 951912000 + 9000, 0},
	}
	for _, c := range cases {
		s, ns, err := parseTimestamp(c.in)
		if err != nil || s != c.sec || ns != c.nsec {
			t.Errorf("%q: got %d %d %v, want %d %d", c.in, s, ns, err, c.sec, c.nsec)
		}
	}
	for _, bad := range []string{"2000-03-01 12", "2000-03-01 12:00:00.", "2000-03-01 12:00:00.1234567890", "2000-03-01 12:00:61", "2000-03-01X12:00", "2000-03-01 12:00+1"} {
		if _, _, err := parseTimestamp(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
	if d, err := parseDate("1998-09-02"); err != nil || d != 10471 {
		t.Errorf("1998-09-02 = %d %v", d, err)
	}
	if d, _ := parseDate("1969-12-31"); d != -1 {
		t.Errorf("1969-12-31 = %d", d)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"a = 1 AND b BETWEEN 0.05 AND 0.07 OR NOT c IN ('x', 'y''z')",
		"l_shipdate <= DATE '1998-09-02' AND t > TIMESTAMP '2020-01-01 00:00:00.5+01:00'",
		"name LIKE 'PROMO%' AND x IS NOT NULL AND \"q\".r.s < -1e-3",
		"5 < x OR flag", "((a = 1))", "x BETWEEN 1 AND )",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e, err := Parse(s)
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) || se.Pos < 1 || se.Pos > len(s)+1 {
				t.Fatalf("bad error %v", err)
			}
			return
		}
		out := e.String()
		again, err := Parse(out)
		if err != nil {
			t.Fatalf("re-parse %q (from %q): %v", out, s, err)
		}
		if again.String() != out {
			t.Fatalf("re-parse %q gave %q", out, again.String())
		}
		// Binding against an arbitrary schema must not panic either.
		_, _ = Bind(e, fuzzLookup)
		// The rewrite for files lacking the columns that start with z
		// names none of them and parses again (or is a constant).
		absent := func(p string) bool { return strings.HasPrefix(p, "z") }
		r := AssumeNull(e, absent)
		for _, c := range Columns(r) {
			if absent(c) {
				t.Fatalf("AssumeNull(%q) = %q names %s", s, r, c)
			}
		}
		if _, ok := r.(*Const); !ok {
			if _, err := Parse(r.String()); err != nil {
				t.Fatalf("AssumeNull(%q) = %q does not parse: %v", s, r, err)
			}
		}
	})
}

// TestPathParts: a path keeps its parts as written, so binding can tell
// "a"."b" (field b of a) from "a.b" and a.b (the longest name); Key, which
// Prune, MayContain and EvalRow look columns up by, tells them apart.
func TestPathParts(t *testing.T) {
	e, err := Parse(`"a"."b" = 1 AND "a.b" = 2 AND a.b = 3 AND a."b" = 4 AND x = 5`)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	Walk(e, func(l *Leaf) {
		names, whole := l.Names()
		got = append(got, fmt.Sprintf("%s|%s|%q|%v", l.Path, l.Key(), names, whole))
	})
	want := []string{
		`a.b|"a"."b"|["a" "b"]|[true true]`,
		`a.b|a.b|["a.b"]|[true]`,
		`a.b|a.b|["a" "b"]|[false false]`,
		`a.b|a."b"|["a" "b"]|[false true]`,
		`x|x|["x"]|[false]`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("leaves:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// Binding sees the parts and keeps them; Prune looks statistics up by
	// Key, so the two columns named a.b keep theirs apart.
	b, err := BindLeaves(e, func(l *Leaf) (ColumnInfo, bool) { return ColumnInfo{Type: encoding.Int64}, true })
	if err != nil {
		t.Fatal(err)
	}
	Walk(b, func(l *Leaf) {
		if l.Path == "a.b" && l.Parts == nil {
			t.Errorf("bound leaf %s lost its parts", l)
		}
	})
	st := map[string]stats.ColumnStats{
		`"a"."b"`: {Type: encoding.Int64, Rows: 1, Min: stats.Of(int64(1)), Max: stats.Of(int64(1)), HasMinMax: true},
		`a.b`:     {Type: encoding.Int64, Rows: 1, Min: stats.Of(int64(2)), Max: stats.Of(int64(3)), HasMinMax: true},
		`a."b"`:   {Type: encoding.Int64, Rows: 1, Min: stats.Of(int64(4)), Max: stats.Of(int64(4)), HasMinMax: true},
		`x`:       {Type: encoding.Int64, Rows: 1, Min: stats.Of(int64(5)), Max: stats.Of(int64(5)), HasMinMax: true},
	}
	statsOf := func(k string) (stats.ColumnStats, bool) { s, ok := st[k]; return s, ok }
	if got := Prune(b, statsOf); got == None {
		t.Errorf("Prune: None, though every leaf holds on its own column's statistics")
	}
	st[`"a"."b"`] = st[`x`]
	if got := Prune(b, statsOf); got != None {
		t.Errorf(`Prune with "a"."b" = 5 only: %v, want None`, got)
	}

	// The rendering parses back to the same parts.
	again, err := Parse(e.String())
	if err != nil || again.String() != e.String() {
		t.Fatalf("re-parse of %s: %v %v", e, again, err)
	}

	for _, c := range []struct{ in, path, key string }{
		{`l_quantity`, "l_quantity", "l_quantity"},
		{` "a"."b" `, "a.b", `"a"."b"`},
		{`"a.b"`, "a.b", "a.b"},
		{`x.y.z`, "x.y.z", "x.y.z"},
		{`"we""ird".date`, `we"ird.date`, `"we""ird".date`},
	} {
		path, parts, err := ParsePath(c.in)
		if err != nil || path != c.path || (&Leaf{Path: path, Parts: parts}).Key() != c.key {
			t.Errorf("ParsePath(%q) = %q %v %v, want %q keyed %q", c.in, path, parts, err, c.path, c.key)
		}
	}
	for _, bad := range []string{"", "*", "a.", "a b", "sum(a)", "'a'", `"a"..b`} {
		if _, _, err := ParsePath(bad); err == nil {
			t.Errorf("ParsePath(%q) accepted", bad)
		}
	}
}
