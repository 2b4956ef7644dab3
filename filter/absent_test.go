package filter

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"strata/encoding"
	"strata/stats"
)

// randomWhere builds a filter over i32 (present) and i64 and s (absent in
// the rewritten files) of up to depth levels.
func randomWhere(r *rand.Rand, depth int) string {
	if depth == 0 || r.IntN(3) == 0 {
		col := []string{"i32", "i64", "s"}[r.IntN(3)]
		lit := func() string {
			if col == "s" {
				return fmt.Sprintf("'%c'", 'a'+r.IntN(3))
			}
			return fmt.Sprint(r.IntN(5) - 2)
		}
		switch r.IntN(7) {
		case 0:
			return col + " IS NULL"
		case 1:
			return col + " IS NOT NULL"
		case 2:
			return col + " IN (" + lit() + ", " + lit() + ")"
		case 3:
			return col + " BETWEEN " + lit() + " AND " + lit()
		case 4:
			if col == "s" {
				return "s LIKE 'a%'"
			}
		case 5:
			return []string{"TRUE", "FALSE"}[r.IntN(2)]
		}
		return col + " " + []string{"=", "!=", "<", "<=", ">", ">="}[r.IntN(6)] + " " + lit()
	}
	switch r.IntN(3) {
	case 0:
		return "NOT (" + randomWhere(r, depth-1) + ")"
	case 1:
		return "(" + randomWhere(r, depth-1) + ") AND (" + randomWhere(r, depth-1) + ")"
	}
	return "(" + randomWhere(r, depth-1) + ") OR (" + randomWhere(r, depth-1) + ")"
}

// TestAssumeNull checks, on random filters and rows, that the rewritten
// filter keeps exactly the rows the original keeps when i64 and s are
// NULL, names neither, and survives a round trip through its text.
func TestAssumeNull(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	absent := func(p string) bool { return p == "i64" || p == "s" }
	for range 3000 {
		where := randomWhere(r, 4)
		orig := mustBind(t, where)
		parsed, err := Parse(where)
		if err != nil {
			t.Fatal(err)
		}
		got := AssumeNull(parsed, absent)
		for _, c := range Columns(got) {
			if absent(c) {
				t.Fatalf("%s: rewritten %s still names %s", where, got, c)
			}
		}
		var rewritten Expr
		if c, ok := got.(*Const); ok {
			rewritten = c
		} else {
			// the text is what a reader of another file is handed
			p, err := Parse(got.String())
			if err != nil {
				t.Fatalf("%s: rewritten %q does not parse: %v", where, got, err)
			}
			if rewritten, err = Bind(p, func(path string) (ColumnInfo, bool) {
				if absent(path) {
					return ColumnInfo{}, false
				}
				return lookup(path)
			}); err != nil {
				t.Fatalf("%s: rewritten %q does not bind: %v", where, got, err)
			}
		}
		for v := int64(-3); v <= 3; v++ {
			null := v == 3
			get := func(p string) (stats.Value, bool) {
				if p == "i32" && !null {
					return stats.Int(encoding.Int32, v), false
				}
				return stats.Value{}, true
			}
			if want, have := EvalRow(orig, get), EvalRow(rewritten, get); want != have {
				t.Fatalf("%s with i32 = %d (null %v), i64 and s NULL: original %v, rewritten %s %v",
					where, v, null, want, got, have)
			}
		}
	}
}

func TestAssumeNullExamples(t *testing.T) {
	absent := func(p string) bool { return p == "gone" }
	for _, c := range []struct{ where, want string }{
		{"gone = 1", "FALSE"},
		{"gone IS NULL", "TRUE"},
		{"gone IS NOT NULL OR i32 > 2", "i32 > 2"},
		{"gone = 1 OR i32 > 2", "i32 > 2"},
		{"NOT (gone = 1 OR i32 > 2)", "FALSE"},
		{"NOT (gone = 1) AND i32 = 1", "FALSE"},
		{"gone IS NULL AND i32 = 1", "i32 = 1"},
		{"NOT (gone IS NOT NULL AND i32 = 1)", "TRUE"},
		{"NOT (gone IS NULL AND i32 = 1)", "NOT i32 = 1"},
		{"i32 = 1 AND i64 = 2", "i32 = 1 AND i64 = 2"},
	} {
		e, err := Parse(c.where)
		if err != nil {
			t.Fatal(err)
		}
		if got := AssumeNull(e, absent).String(); !strings.EqualFold(got, c.want) {
			t.Errorf("AssumeNull(%s) = %s, want %s", c.where, got, c.want)
		}
	}
}
