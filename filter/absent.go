package filter

// AssumeNull rewrites the parsed (unbound) expression e for rows in which
// every column that absent reports holds NULL, as when a file of a table
// read by column name lacks a column other files have. The result keeps the
// rows e keeps under SQL three-valued logic: a comparison, IN or LIKE on
// an absent column is unknown, IS NULL on it is true, IS NOT NULL false, and
// the unknowns are carried through AND, OR and NOT before they are folded
// away. It names only present columns, or is a *Const (FALSE: no row can
// pass; TRUE: every row does). e itself is not modified.
func AssumeNull(e Expr, absent func(path string) bool) Expr {
	return fold(nullTruths(e, absent).t)
}

// truths holds the condition for e to be TRUE and the condition for it to
// be FALSE; rows meeting neither are unknown.
type truths struct{ t, f Expr }

var (
	exprTrue  = &Const{Value: true}
	exprFalse = &Const{Value: false}
)

func nullTruths(e Expr, absent func(string) bool) truths {
	switch x := e.(type) {
	case *And:
		ts := make([]Expr, len(x.Args))
		fs := make([]Expr, len(x.Args))
		for i, a := range x.Args {
			r := nullTruths(a, absent)
			ts[i], fs[i] = r.t, r.f
		}
		return truths{&And{Args: ts}, &Or{Args: fs}}
	case *Or:
		ts := make([]Expr, len(x.Args))
		fs := make([]Expr, len(x.Args))
		for i, a := range x.Args {
			r := nullTruths(a, absent)
			ts[i], fs[i] = r.t, r.f
		}
		return truths{&Or{Args: ts}, &And{Args: fs}}
	case *Not:
		r := nullTruths(x.X, absent)
		return truths{r.f, r.t}
	case *Const:
		if x.Value {
			return truths{exprTrue, exprFalse}
		}
		return truths{exprFalse, exprTrue}
	case *Leaf:
		if !absent(x.Path) {
			// the reader's NOT is exact under three-valued logic: NOT l
			// is true exactly where l is false
			return truths{x, &Not{X: x}}
		}
		switch x.Op {
		case OpIsNull:
			return truths{exprTrue, exprFalse}
		case OpIsNotNull:
			return truths{exprFalse, exprTrue}
		}
		return truths{exprFalse, exprFalse} // unknown on every row
	}
	return truths{e, &Not{X: e}}
}

// fold simplifies the constants out of e: TRUE and FALSE arguments of AND
// and OR, NOT of a constant, and operators left with one argument.
func fold(e Expr) Expr {
	switch x := e.(type) {
	case *Not:
		y := fold(x.X)
		if c, ok := y.(*Const); ok {
			return &Const{Value: !c.Value}
		}
		if n, ok := y.(*Not); ok {
			return n.X
		}
		return &Not{X: y}
	case *And, *Or:
		var args []Expr
		isAnd := false
		if a, ok := x.(*And); ok {
			args, isAnd = a.Args, true
		} else {
			args = x.(*Or).Args
		}
		var kept []Expr
		for _, a := range args {
			y := fold(a)
			if c, ok := y.(*Const); ok {
				if c.Value != isAnd {
					return &Const{Value: c.Value} // FALSE in an AND, TRUE in an OR
				}
				continue // TRUE in an AND, FALSE in an OR: no effect
			}
			kept = append(kept, y)
		}
		switch {
		case len(kept) == 0:
			return &Const{Value: isAnd}
		case len(kept) == 1:
			return kept[0]
		case isAnd:
			return &And{Args: kept}
		}
		return &Or{Args: kept}
	}
	return e
}
