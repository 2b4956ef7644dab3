package duckstrata

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"strata"
	"strata/filter"
	"strata/interop"
)

// Pushed describes one reference to a Strata file in a query and the filter
// Pushdown gave its scan.
type Pushed struct {
	Table  string // the path or URL as written
	Filter string // Strata WHERE syntax; empty when nothing could be pushed
	// Kept counts the WHERE conjuncts that were not pushed (DuckDB applies
	// them, as it applies every conjunct).
	Kept int
	// Estimate is the fraction of rows the pushable conjuncts are
	// estimated to keep (see WithPushAll); when it is high nothing is
	// pushed.
	Estimate float64
}

// Pushdown rewrites query so that the scan of each Strata file it names gets
// the parts of the enclosing WHERE clause that Strata can evaluate itself,
// and returns the rewritten query with what was pushed where.
//
// DuckDB's C API gives a table function the columns a query needs but not
// its filters, so Pushdown reads the query with DuckDB's own parser
// (json_serialize_sql) and, for every SELECT whose FROM names a Strata file
// ('t.strata', or strata_scan('t.strata') without a filter argument),
// replaces that reference with strata_scan('t.strata', filter := '...')
// carrying the WHERE conjuncts that qualify. The rest of the query text is
// left as written.
//
// A conjunct (a term of the WHERE clause's top-level AND) is pushed when it
// is built only from these, over top-level columns of that file:
//
//   - column op constant, constant op column (=, <>, <, <=, >, >=);
//   - column [NOT] BETWEEN constant AND constant; column [NOT] IN (constants);
//   - column IS [NOT] NULL; column LIKE 'prefix%' (no other wildcard),
//     starts_with/prefix(column, 'prefix');
//   - a bare boolean column; AND, OR and NOT of the above.
//
// A constant is any expression without column references, parameters or
// subqueries whose functions are arithmetic, casts and interval
// constructors (so DATE '1998-12-01' - INTERVAL 90 DAY qualifies, random()
// and now() do not); DuckDB evaluates it once, before the query.
//
// Why this is exact: DuckDB still evaluates the whole WHERE clause on every
// row the scan returns, so pushing a conjunct can only be wrong if Strata
// drops a row whose conjunct DuckDB finds true. Each pushed comparison is
// therefore one whose result Strata computes exactly as DuckDB does, which
// Pushdown ensures by pushing only where the two agree on every value:
//
//   - integer and decimal columns compare with integer and decimal constants
//     (exact in both; a DOUBLE constant makes DuckDB compare in floating
//     point, so it is not pushed); decimals of 19 to 38 digits as well
//     (DuckDB's HUGEINT-backed DECIMAL, Strata's 16-byte values compared
//     as 128-bit integers), except against a constant with more
//     fractional digits than the column when DuckDB's comparison could
//     fail on a large value of the column, or against a constant too
//     large for the type DuckDB compares in, which fails as soon as a row
//     reaches the comparison (see wideLiteralOK);
//   - DOUBLE columns compare with the constant as DuckDB casts it to DOUBLE;
//     DuckDB orders NaN above every number and Strata follows IEEE 754, so
//     column > c and column >= c are pushed as NOT (column <= c) and NOT
//     (column < c), which agree on NaN; FLOAT columns are not pushed (their
//     constants are rounded differently);
//   - string columns compare with string constants byte-wise in both (DuckDB's
//     default binary collation); LIKE only as a plain prefix;
//   - date and timestamp columns (without time zone) compare with date and
//     timestamp constants, and with string literals cast to the column's
//     type as DuckDB casts them;
//   - time-of-day columns in seconds, milliseconds or microseconds compare
//     with TIME constants and string literals cast to TIME (exact in both,
//     sub-unit digits included); nanosecond ones are not pushed, since the
//     scan gives DuckDB them rounded to microseconds, and neither is
//     TIME '24:00:00', which DuckDB holds and Strata does not;
//   - NULL constants are never pushed; IS [NOT] NULL is pushed for any
//     column or field that is not itself a struct, list or map (Strata's
//     filters take primitive values only; DuckDB tests those itself).
//
// Only references whose rows reach the WHERE clause unchanged qualify: a
// file alone in its FROM, or joined by INNER or CROSS joins or as the
// preserved (left) side of a LEFT join, with columns then qualified by the
// reference's alias. A sampled reference (USING SAMPLE) is left alone. A
// query DuckDB cannot serialize (not a SELECT) is returned unchanged.
func Pushdown(ctx context.Context, conn *sql.Conn, query string, opts ...Option) (string, []Pushed, error) {
	p := &pusher{ctx: ctx, conn: conn, cfg: newConfig(opts), query: query, files: map[string]*strata.File{},
		unions: map[string]*arrow.Schema{}, listed: map[string][]string{}}
	defer func() {
		for _, f := range p.files {
			if f != nil {
				f.Close()
			}
		}
	}()
	var js string
	if err := conn.QueryRowContext(ctx, "SELECT json_serialize_sql($1::VARCHAR)::VARCHAR", query).Scan(&js); err != nil {
		return query, nil, fmt.Errorf("duckstrata: parsing the query: %w", err)
	}
	var root map[string]any
	dec := json.NewDecoder(strings.NewReader(js))
	dec.UseNumber()
	if err := dec.Decode(&root); err != nil {
		return query, nil, fmt.Errorf("duckstrata: reading the parsed query: %w", err)
	}
	if e, _ := root["error"].(bool); e {
		return query, nil, nil // not a SELECT, or not parsable: DuckDB reports
	}
	p.walk(root)
	if len(p.refs) == 0 {
		return query, nil, nil
	}
	// First pass: find what can be pushed and which constants it needs;
	// then evaluate the constants in one query; then build the filters.
	for _, r := range p.refs {
		p.convertRef(r)
	}
	if err := p.evalConsts(); err != nil {
		return query, nil, err
	}
	p.final = true
	var edits []edit
	var out []Pushed
	for _, r := range p.refs {
		exprs, kept := p.convertRef(r)
		pu := Pushed{Table: r.path, Kept: kept, Estimate: 1}
		key := r.path
		if r.union {
			key = "union:" + r.path
		}
		if f := p.files[key]; f != nil && !p.cfg.pushAll && len(exprs) > 0 {
			// Keep the conjuncts worth pushing (see estimate.go).
			var sel []filter.Expr
			keep, all := 1.0, 1.0
			for _, e := range exprs {
				k := keepEstimate(f, e)
				all *= k
				if k < maxConjunctKeep {
					sel = append(sel, e)
					keep *= k
				}
			}
			pu.Estimate = all
			if keep > maxKeep {
				sel = nil
			}
			pu.Kept += len(exprs) - len(sel)
			exprs = sel
		}
		// a pattern's files, listed here, go to the scan with the filter
		var tok string
		if paths, ok := p.listed[key]; ok {
			tok = keepListing(r.path, paths)
		}
		if len(exprs) > 0 {
			var e filter.Expr = exprs[0]
			if len(exprs) > 1 {
				e = &filter.And{Args: exprs}
			}
			pu.Filter = e.String()
		}
		if pu.Filter != "" || tok != "" {
			if ed, ok := p.editFor(r, pu.Filter, tok); ok {
				edits = append(edits, ed)
			} else if pu.Filter != "" {
				pu.Filter, pu.Kept = "", kept+len(exprs)
			}
		}
		out = append(out, pu)
	}
	return applyEdits(query, edits), out, nil
}

// tableRef is one reference to a Strata file whose rows reach a WHERE clause
// unchanged.
type tableRef struct {
	path   string
	alias  string // explicit alias, "" if none
	alone  bool   // the only relation of its FROM: unqualified columns are its own
	fn     bool   // written as strata_scan(...)
	union  bool   // strata_scan(..., union_by_name := true)
	loc    int    // byte offset of the reference in the query
	where  any    // the WHERE clause
	schema *arrow.Schema
	// textDec holds the paths of the columns and fields stored as
	// decimal text (textDecimals): DuckDB compares them as text, Strata
	// as numbers, so only IS [NOT] NULL is pushed for them.
	textDec map[string]bool
}

type edit struct {
	at, end int
	text    string
}

type pusher struct {
	ctx   context.Context
	conn  *sql.Conn
	cfg   *config
	query string
	refs  []*tableRef
	files map[string]*strata.File
	// unions holds the union schema of each union_by_name reference
	// (keyed as files is: "union:" and the path)
	unions map[string]*arrow.Schema
	// listed holds the files each pattern reference matched (keyed as
	// files is), handed to its scan (keepListing)
	listed map[string][]string
	// consts maps a constant's key (its JSON and the cast it needs) to its
	// value; in the first pass it collects what to evaluate.
	consts map[constKey]*constVal
	final  bool
}

type constKey struct {
	expr string // the expression's JSON
	cast string // DuckDB type to cast it to, or ""
}

type constVal struct {
	expr any
	text string // DuckDB's VARCHAR rendering
	typ  string // typeof(): INTEGER, DECIMAL(4,2), DATE, ...
	ok   bool
}

// walk visits every node of the parsed query and collects the Strata
// references of each SELECT.
func (p *pusher) walk(v any) {
	switch x := v.(type) {
	case map[string]any:
		if x["type"] == "SELECT_NODE" {
			p.selectNode(x)
		}
		for _, c := range x {
			p.walk(c)
		}
	case []any:
		for _, c := range x {
			p.walk(c)
		}
	}
}

func (p *pusher) selectNode(n map[string]any) {
	where := n["where_clause"]
	if where == nil {
		return
	}
	from, _ := n["from_table"].(map[string]any)
	if from == nil {
		return
	}
	var refs []*tableRef
	if from["type"] == "JOIN" {
		p.joinRefs(from, &refs)
	} else if r := p.ref(from); r != nil {
		r.alone = true
		refs = append(refs, r)
	}
	for _, r := range refs {
		r.where = where
		if !r.alone && r.alias == "" {
			continue // in a join, columns must be qualified by an alias
		}
		p.refs = append(p.refs, r)
	}
}

// joinRefs collects the Strata references of a join tree whose rows reach
// the WHERE clause unfiltered by the join's type: both sides of INNER and
// CROSS joins, the left side of LEFT joins.
func (p *pusher) joinRefs(n map[string]any, out *[]*tableRef) {
	side := func(k string) {
		c, _ := n[k].(map[string]any)
		if c == nil {
			return
		}
		if c["type"] == "JOIN" {
			p.joinRefs(c, out)
		} else if r := p.ref(c); r != nil {
			*out = append(*out, r)
		}
	}
	rt, _ := n["ref_type"].(string)
	if rt != "REGULAR" && rt != "CROSS" {
		return
	}
	switch n["join_type"] {
	case "INNER":
		side("left")
		side("right")
	case "LEFT":
		side("left")
	}
}

// ref recognizes a table reference naming a Strata file.
func (p *pusher) ref(n map[string]any) *tableRef {
	if n["sample"] != nil {
		return nil
	}
	alias, _ := n["alias"].(string)
	loc, ok := location(n)
	if !ok {
		return nil
	}
	switch n["type"] {
	case "BASE_TABLE":
		name, _ := n["table_name"].(string)
		if s, _ := n["schema_name"].(string); s != "" {
			return nil
		}
		if c, _ := n["catalog_name"].(string); c != "" {
			return nil
		}
		if !IsStrataPath(name) {
			return nil
		}
		return &tableRef{path: name, alias: alias, loc: loc}
	case "TABLE_FUNCTION":
		fn, _ := n["function"].(map[string]any)
		if fn == nil || !strings.EqualFold(str(fn["function_name"]), FunctionName) {
			return nil
		}
		args, _ := fn["children"].([]any)
		if len(args) == 0 {
			return nil
		}
		a, _ := args[0].(map[string]any)
		path, ok := constString(a)
		if !ok {
			return nil
		}
		union := false
		for _, x := range args[1:] {
			// union_by_name := <constant>; any other argument (a filter
			// of its own) leaves the reference alone
			n, _ := x.(map[string]any)
			b, ok := constBool(n)
			if !ok || !strings.EqualFold(str(n["alias"]), "union_by_name") {
				return nil
			}
			union = b
		}
		floc, ok := location(fn)
		if !ok {
			return nil
		}
		return &tableRef{path: path, alias: alias, loc: floc, fn: true, union: union}
	}
	return nil
}

func str(v any) string { s, _ := v.(string); return s }

func location(n map[string]any) (int, bool) {
	num, ok := n["query_location"].(json.Number)
	if !ok {
		return 0, false
	}
	v, err := strconv.ParseInt(string(num), 10, 64)
	if err != nil || v < 0 || v > math.MaxInt32 {
		return 0, false
	}
	return int(v), true
}

// constType returns the type id of a VALUE_CONSTANT.
func constType(n map[string]any) string {
	v, _ := n["value"].(map[string]any)
	t, _ := v["type"].(map[string]any)
	return str(t["id"])
}

func constString(n map[string]any) (string, bool) {
	if n == nil || n["type"] != "VALUE_CONSTANT" {
		return "", false
	}
	v, _ := n["value"].(map[string]any)
	t, _ := v["type"].(map[string]any)
	if t["id"] != "VARCHAR" || v["is_null"] == true {
		return "", false
	}
	s, ok := v["value"].(string)
	return s, ok
}

// constBool returns the value of a boolean constant, written as one or as
// a constant cast to BOOLEAN (DuckDB's form of `name := true`).
func constBool(n map[string]any) (bool, bool) {
	if n == nil {
		return false, false
	}
	if n["type"] == "OPERATOR_CAST" {
		ct, _ := n["cast_type"].(map[string]any)
		c, _ := n["child"].(map[string]any)
		if ct["id"] != "BOOLEAN" || c == nil || c["type"] != "VALUE_CONSTANT" {
			return false, false
		}
		n = c
	}
	if n["type"] != "VALUE_CONSTANT" {
		return false, false
	}
	v, _ := n["value"].(map[string]any)
	if v["is_null"] == true {
		return false, false
	}
	switch x := v["value"].(type) {
	case bool:
		return x, true
	case string:
		switch strings.ToLower(x) {
		case "t", "true":
			return true, true
		case "f", "false":
			return false, true
		}
	}
	return false, false
}

// conjuncts flattens the top-level AND of a WHERE clause.
func conjuncts(e any, out []any) []any {
	if n, ok := e.(map[string]any); ok && n["type"] == "CONJUNCTION_AND" {
		for _, c := range n["children"].([]any) {
			out = conjuncts(c, out)
		}
		return out
	}
	return append(out, e)
}

// convertRef returns the pushable conjuncts of r's WHERE clause as Strata
// expressions, and how many were kept back.
func (p *pusher) convertRef(r *tableRef) ([]filter.Expr, int) {
	if r.schema == nil {
		key := r.path
		if r.union {
			key = "union:" + r.path
		}
		f, ok := p.files[key]
		if !ok {
			var err error
			// a pattern's first file stands for all (same columns;
			// its statistics estimate the filter for the others)
			var paths []string
			if r.union {
				f, p.unions[key], paths, err = p.cfg.openUnion(p.ctx, r.path)
			} else {
				f, paths, err = p.cfg.openFirst(p.ctx, r.path)
			}
			if err == nil && isPattern(r.path) {
				p.listed[key] = paths
			}
			if err != nil {
				f = nil // unreadable: DuckDB will say why
			}
			p.files[key] = f
		}
		if f == nil {
			return nil, 0
		}
		r.schema = f.Schema()
		if r.union {
			r.schema = p.unions[key]
		}
		r.textDec = textDecimals(f)
	}
	var out []filter.Expr
	kept := 0
	for _, c := range conjuncts(r.where, nil) {
		if e, ok := p.expr(r, c); ok {
			out = append(out, e)
		} else {
			kept++
		}
	}
	return out, kept
}

// textDecimals returns the paths (names joined by dots) of the columns
// and struct fields of f that import stored as their decimal text: Arrow
// decimal256 of more than 38 digits, whose source type the file's
// metadata keeps (interop.RestoreSchema). DuckDB reads them as VARCHAR and
// compares text; Strata's filters compare them as numbers or refuse to
// (strata.arrow.schema in docs/interop.md), so a pushed comparison would
// not be DuckDB's.
func textDecimals(f *strata.File) map[string]bool {
	src, changed, err := interop.RestoreSchema(f.Metadata(), f.Schema())
	if err != nil || !changed {
		return nil
	}
	out := map[string]bool{}
	var walk func(path string, stored, source arrow.DataType)
	walk = func(path string, stored, source arrow.DataType) {
		for {
			switch x := source.(type) {
			case arrow.ExtensionType:
				source = x.StorageType()
				continue
			case *arrow.DictionaryType:
				source = x.ValueType
				continue
			case *arrow.RunEndEncodedType:
				source = x.Encoded()
				continue
			}
			break
		}
		switch st := stored.(type) {
		case *arrow.StringType, *arrow.LargeStringType:
			if d, ok := source.(*arrow.Decimal256Type); ok && d.Precision > 38 {
				out[path] = true
			}
		case *arrow.StructType:
			so, ok := source.(*arrow.StructType)
			if !ok {
				return
			}
			for _, fd := range st.Fields() {
				if i, ok := so.FieldIdx(fd.Name); ok {
					walk(path+"."+fd.Name, fd.Type, so.Field(i).Type)
				}
			}
		}
	}
	stored := f.Schema()
	if stored.NumFields() != src.NumFields() {
		return nil
	}
	for i, fd := range stored.Fields() {
		walk(fd.Name, fd.Type, src.Field(i).Type)
	}
	return out
}

// colKind is what Pushdown knows of a column's type.
type colKind uint8

const (
	kNone colKind = iota // IS [NOT] NULL only
	kInt
	kDecimal
	// kWideDecimal is a decimal of precision 19-38, which Strata stores
	// as 16-byte binary and compares as 128-bit integers (filter's
	// LogicalWideDecimal); colInfo holds its precision and scale.
	kWideDecimal
	kDouble
	kString
	kBool
	kDate
	kTimestamp
	kTime // a time of day in seconds, milliseconds or microseconds
)

type colInfo struct {
	name string
	kind colKind
	duck string // DuckDB type name, for casts of string literals
	// nested: a struct, list or map (FlatMaps included), which Strata's
	// filters do not take, not even IS NULL.
	nested bool
	// prec and scale are a kWideDecimal's DECIMAL(prec,scale), which
	// decide which constants DuckDB compares with it without error
	// (wideLiteralOK).
	prec, scale int
	// cmpScale is, for a constant of an IN list or BETWEEN, the largest
	// scale among the other constants there: DuckDB compares the column
	// with all of them in one type, of at least that scale.
	cmpScale int
}

// infoOf describes the column or field name of type t.
func infoOf(name string, t arrow.DataType) colInfo {
	k, duck := kindOf(t)
	c := colInfo{name: name, kind: k, duck: duck, nested: isNested(t)}
	if d, ok := t.(*arrow.Decimal128Type); ok && k == kWideDecimal {
		c.prec, c.scale = int(d.Precision), int(d.Scale)
	}
	return c
}

// isNested reports whether t holds other values (struct, list, map), a
// type Strata's filters refuse: they test primitive columns and fields.
func isNested(t arrow.DataType) bool {
	_, ok := t.(arrow.NestedType)
	return ok
}

func kindOf(t arrow.DataType) (colKind, string) {
	switch t := t.(type) {
	case *arrow.Int8Type, *arrow.Int16Type, *arrow.Int32Type, *arrow.Int64Type,
		*arrow.Uint8Type, *arrow.Uint16Type, *arrow.Uint32Type, *arrow.Uint64Type:
		return kInt, ""
	case *arrow.Decimal128Type:
		switch {
		case t.Precision <= filter.MaxDecimalPrecision: // stored as integers
			return kDecimal, ""
		case t.Precision <= 38 && t.Scale >= 0 && t.Scale <= t.Precision:
			// stored as 16-byte binary; the scan gives DuckDB a
			// HUGEINT-backed DECIMAL(p,s) of the same unscaled values
			return kWideDecimal, ""
		}
	case *arrow.Float64Type:
		return kDouble, "DOUBLE"
	case *arrow.StringType:
		return kString, ""
	case *arrow.BooleanType:
		return kBool, ""
	case *arrow.Date32Type:
		return kDate, "DATE"
	case *arrow.TimestampType:
		if t.TimeZone == "" {
			return kTimestamp, map[arrow.TimeUnit]string{arrow.Second: "TIMESTAMP_S", arrow.Millisecond: "TIMESTAMP_MS",
				arrow.Microsecond: "TIMESTAMP", arrow.Nanosecond: "TIMESTAMP_NS"}[t.Unit]
		}
	case *arrow.Time32Type:
		return kTime, "TIME"
	case *arrow.Time64Type:
		// DuckDB's TIME holds microseconds, and the scan gives it a
		// nanosecond time rounded to them: a comparison DuckDB makes on
		// that value is not the one Strata would make on the stored
		// nanoseconds, so those stay with DuckDB.
		if t.Unit == arrow.Microsecond {
			return kTime, "TIME"
		}
	}
	return kNone, ""
}

// column resolves a COLUMN_REF to a top-level column of r's file.
func (p *pusher) column(r *tableRef, e any) (colInfo, bool) {
	n, _ := e.(map[string]any)
	if n == nil || n["type"] != "COLUMN_REF" {
		return colInfo{}, false
	}
	parts, _ := n["column_names"].([]any)
	var name string
	switch {
	case len(parts) == 1 && r.alone:
		name = str(parts[0])
	case len(parts) == 2 && r.alias != "" && strings.EqualFold(str(parts[0]), r.alias):
		name = str(parts[1])
	case len(parts) >= 2 && r.alone && (r.alias == "" || !strings.EqualFold(str(parts[0]), r.alias)):
		return p.fieldPath(r, parts)
	default:
		return colInfo{}, false
	}
	if name == "" || strings.Contains(name, ".") {
		return colInfo{}, false
	}
	fields := r.schema.Fields()
	names := duckNames(fieldNames(fields))
	idx := duckIndex(names, name)
	if idx < 0 {
		return colInfo{}, false
	}
	if len(parts) == 2 {
		// "alias.x" where alias is also a column name could be a struct
		// field: leave it.
		for _, d := range names {
			if strings.EqualFold(d, r.alias) {
				return colInfo{}, false
			}
		}
	}
	return r.info(fields[idx].Name, fields[idx].Type), true
}

// info is infoOf for a column or field of r's file: one stored as decimal
// text (textDec) compares as nothing Pushdown pushes.
func (r *tableRef) info(name string, t arrow.DataType) colInfo {
	c := infoOf(name, t)
	if r.textDec[name] {
		c.kind = kNone
	}
	return c
}

// fieldPath resolves a COLUMN_REF of several names (properties.mag) to a
// primitive field reached through structs from a top-level column of r's
// file: DuckDB reads such a name as a field of the struct column named
// first when no table is named so. Names match as DuckDB binds them
// (fieldNamed).
func (p *pusher) fieldPath(r *tableRef, parts []any) (colInfo, bool) {
	fields := r.schema.Fields()
	path := make([]string, 0, len(parts))
	var t arrow.DataType
	for _, part := range parts {
		name := str(part)
		if name == "" || strings.Contains(name, ".") {
			return colInfo{}, false
		}
		f, ok := fieldNamed(fields, name)
		if !ok {
			return colInfo{}, false
		}
		path = append(path, f.Name)
		t = f.Type
		if st, ok := t.(*arrow.StructType); ok {
			fields = st.Fields()
		} else {
			fields = nil
		}
	}
	if fields != nil {
		return colInfo{}, false // a struct, not a value
	}
	return r.info(strings.Join(path, "."), t), true
}

// fieldNamed finds the field DuckDB calls name (see duckIndex).
func fieldNamed(fields []arrow.Field, name string) (arrow.Field, bool) {
	i := duckIndex(duckNames(fieldNames(fields)), name)
	if i < 0 {
		return arrow.Field{}, false
	}
	return fields[i], true
}

// duckIndex returns the index of the column (or field) a query's name
// binds to, among the names DuckDB gave the file's (duck, from duckNames:
// a name differing from an earlier one only by case is renamed there, so
// "X" beside "x" is DuckDB's X_1, and the query's X is x): exactly, or
// without case when only one matches, as DuckDB binds names; -1 for none.
func duckIndex(duck []string, name string) int {
	for i, d := range duck {
		if d == name {
			return i
		}
	}
	idx := -1
	for i, d := range duck {
		if strings.EqualFold(d, name) {
			if idx >= 0 {
				return -1 // ambiguous without case
			}
			idx = i
		}
	}
	return idx
}

var flipOp = map[string]string{
	"COMPARE_EQUAL": "COMPARE_EQUAL", "COMPARE_NOTEQUAL": "COMPARE_NOTEQUAL",
	"COMPARE_LESSTHAN": "COMPARE_GREATERTHAN", "COMPARE_GREATERTHAN": "COMPARE_LESSTHAN",
	"COMPARE_LESSTHANOREQUALTO": "COMPARE_GREATERTHANOREQUALTO", "COMPARE_GREATERTHANOREQUALTO": "COMPARE_LESSTHANOREQUALTO",
}

var compareOp = map[string]filter.Op{
	"COMPARE_EQUAL": filter.OpEq, "COMPARE_NOTEQUAL": filter.OpNe,
	"COMPARE_LESSTHAN": filter.OpLt, "COMPARE_GREATERTHAN": filter.OpGt,
	"COMPARE_LESSTHANOREQUALTO": filter.OpLe, "COMPARE_GREATERTHANOREQUALTO": filter.OpGe,
}

// expr converts one WHERE term into a Strata expression equal to it on
// every row, or reports false.
func (p *pusher) expr(r *tableRef, e any) (filter.Expr, bool) {
	n, _ := e.(map[string]any)
	if n == nil {
		return nil, false
	}
	typ, _ := n["type"].(string)
	switch typ {
	case "CONJUNCTION_AND", "CONJUNCTION_OR":
		kids, _ := n["children"].([]any)
		args := make([]filter.Expr, 0, len(kids))
		for _, k := range kids {
			a, ok := p.expr(r, k)
			if !ok {
				return nil, false
			}
			args = append(args, a)
		}
		if len(args) == 0 {
			return nil, false
		}
		if typ == "CONJUNCTION_AND" {
			return &filter.And{Args: args}, true
		}
		return &filter.Or{Args: args}, true
	case "OPERATOR_NOT":
		kids, _ := n["children"].([]any)
		if len(kids) != 1 {
			return nil, false
		}
		a, ok := p.expr(r, kids[0])
		if !ok {
			return nil, false
		}
		return &filter.Not{X: a}, true
	case "OPERATOR_IS_NULL", "OPERATOR_IS_NOT_NULL":
		kids, _ := n["children"].([]any)
		if len(kids) != 1 {
			return nil, false
		}
		c, ok := p.column(r, kids[0])
		if !ok || c.nested {
			return nil, false
		}
		op := filter.OpIsNull
		if typ == "OPERATOR_IS_NOT_NULL" {
			op = filter.OpIsNotNull
		}
		return &filter.Leaf{Path: c.name, Op: op}, true
	case "COLUMN_REF":
		c, ok := p.column(r, n)
		if !ok || c.kind != kBool {
			return nil, false
		}
		return &filter.Leaf{Path: c.name, Op: filter.OpEq, Lits: []filter.Literal{{Kind: filter.LitBool, Bool: true}}}, true
	case "COMPARE_EQUAL", "COMPARE_NOTEQUAL", "COMPARE_LESSTHAN", "COMPARE_GREATERTHAN",
		"COMPARE_LESSTHANOREQUALTO", "COMPARE_GREATERTHANOREQUALTO":
		col, lit := n["left"], n["right"]
		c, ok := p.column(r, col)
		if !ok {
			col, lit = lit, col
			if c, ok = p.column(r, col); !ok {
				return nil, false
			}
			typ = flipOp[typ]
		}
		l, ok := p.literal(c, lit)
		if !ok {
			return nil, false
		}
		op := compareOp[typ]
		if c.kind == kDouble && (op == filter.OpGt || op == filter.OpGe) {
			// DuckDB: NaN > every number; IEEE: NaN > nothing. NOT (x <= c)
			// is true for NaN in Strata, as x > c is in DuckDB.
			inv := filter.OpLe
			if op == filter.OpGe {
				inv = filter.OpLt
			}
			return &filter.Not{X: &filter.Leaf{Path: c.name, Op: inv, Lits: []filter.Literal{l}}}, true
		}
		return &filter.Leaf{Path: c.name, Op: op, Lits: []filter.Literal{l}}, true
	case "COMPARE_BETWEEN":
		c, ok := p.column(r, n["input"])
		if !ok {
			return nil, false
		}
		lo, ok1 := p.literal(c, n["lower"])
		hi, ok2 := p.literal(c, n["upper"])
		if !ok1 || !ok2 {
			return nil, false
		}
		if c.kind == kWideDecimal {
			// one comparison type for both bounds (wideLiteralOK)
			c.cmpScale = max(fracDigits(lo.Text), fracDigits(hi.Text))
			lo, ok1 = p.literal(c, n["lower"])
			hi, ok2 = p.literal(c, n["upper"])
			if !ok1 || !ok2 {
				return nil, false
			}
		}
		return &filter.Leaf{Path: c.name, Op: filter.OpBetween, Lits: []filter.Literal{lo, hi}}, true
	case "COMPARE_IN", "COMPARE_NOT_IN":
		kids, _ := n["children"].([]any)
		if len(kids) < 2 {
			return nil, false
		}
		c, ok := p.column(r, kids[0])
		if !ok {
			return nil, false
		}
		var lits []filter.Literal
		for _, k := range kids[1:] {
			l, ok := p.literal(c, k)
			if !ok {
				return nil, false
			}
			lits = append(lits, l)
		}
		if c.kind == kWideDecimal {
			// one comparison type for the whole list (wideLiteralOK)
			for _, l := range lits {
				c.cmpScale = max(c.cmpScale, fracDigits(l.Text))
			}
			for i, k := range kids[1:] {
				l, ok := p.literal(c, k)
				if !ok {
					return nil, false
				}
				lits[i] = l
			}
		}
		var out filter.Expr = &filter.Leaf{Path: c.name, Op: filter.OpIn, Lits: lits}
		if typ == "COMPARE_NOT_IN" {
			out = &filter.Not{X: out}
		}
		return out, true
	case "FUNCTION":
		name := strings.ToLower(str(n["function_name"]))
		kids, _ := n["children"].([]any)
		if len(kids) != 2 || str(n["schema"]) != "" {
			return nil, false
		}
		c, ok := p.column(r, kids[0])
		if !ok || c.kind != kString {
			return nil, false
		}
		pat, ok := constString(asMap(kids[1]))
		if !ok {
			return nil, false
		}
		var prefix string
		switch name {
		case "~~": // LIKE
			if fl, _ := n["is_operator"].(bool); !fl {
				return nil, false
			}
			if !strings.HasSuffix(pat, "%") {
				return nil, false
			}
			prefix = strings.TrimSuffix(pat, "%")
		case "starts_with", "prefix":
			prefix = pat
		default:
			return nil, false
		}
		// Strata's LIKE takes a literal prefix and a final %: a prefix
		// holding a wildcard character cannot be written in it.
		if prefix == "" || strings.ContainsAny(prefix, "%_") {
			return nil, false
		}
		return &filter.Leaf{Path: c.name, Op: filter.OpPrefix, Lits: []filter.Literal{{Kind: filter.LitString, Text: prefix + "%"}}}, true
	}
	return nil, false
}

func asMap(v any) map[string]any { m, _ := v.(map[string]any); return m }

// foldable are the functions a constant may use: deterministic arithmetic
// and the constructors DuckDB's parser emits for interval literals.
var foldable = map[string]bool{
	"+": true, "-": true, "*": true, "/": true, "//": true, "%": true,
	"to_years": true, "to_months": true, "to_weeks": true, "to_days": true, "to_hours": true,
	"to_minutes": true, "to_seconds": true, "to_milliseconds": true, "to_microseconds": true,
	"trunc": true,
}

// isConst reports whether e is an expression DuckDB can evaluate once,
// before the query, to the value it has on every row.
func isConst(e any) bool {
	n, _ := e.(map[string]any)
	if n == nil {
		return false
	}
	switch n["type"] {
	case "VALUE_CONSTANT":
		// json_deserialize_sql writes a DOUBLE constant as digits, which
		// DuckDB reads back as a DECIMAL: an expression holding one would be
		// evaluated with other types than the query's. (A DOUBLE constant on
		// its own is read directly; see literal.)
		switch constType(n) {
		case "DOUBLE", "FLOAT":
			return false
		}
		return true
	case "OPERATOR_CAST":
		return !(n["try_cast"] == true) && isConst(n["child"])
	case "FUNCTION":
		if str(n["schema"]) != "" || n["filter"] != nil || n["distinct"] == true {
			return false
		}
		if !foldable[strings.ToLower(str(n["function_name"]))] {
			return false
		}
		kids, _ := n["children"].([]any)
		for _, k := range kids {
			if !isConst(k) {
				return false
			}
		}
		return len(kids) > 0
	}
	return false
}

// literal turns a constant compared with column c into a Strata literal
// with the same meaning, or reports false.
func (p *pusher) literal(c colInfo, e any) (filter.Literal, bool) {
	if c.kind == kNone {
		return filter.Literal{}, false
	}
	if n := asMap(e); n["type"] == "VALUE_CONSTANT" && constType(n) == "DOUBLE" {
		v, _ := n["value"].(map[string]any)
		num, ok := v["value"].(json.Number)
		if !ok || v["is_null"] == true || c.kind != kDouble {
			return filter.Literal{}, false
		}
		return literalOf(c, "DOUBLE", string(num))
	}
	if !isConst(e) {
		return filter.Literal{}, false
	}
	cast := ""
	switch c.kind {
	case kDouble:
		cast = "DOUBLE" // the constant as DuckDB compares it
	case kDate, kTimestamp, kTime:
		if n := asMap(e); n["type"] == "VALUE_CONSTANT" {
			if _, ok := constString(n); ok {
				cast = c.duck // a string literal takes the column's type
			}
		}
	}
	if typ, text, ok := foldGo(e); ok {
		switch {
		case cast == "":
			return literalOf(c, typ, text)
		case c.kind == kDouble && isIntType(typ):
			// Integers within 2^53 convert to DOUBLE exactly.
			if v, ok := new(big.Int).SetString(text, 10); ok && v.IsInt64() && v.Int64() <= 1<<53 && v.Int64() >= -(1<<53) {
				return literalOf(c, "DOUBLE", strconv.FormatFloat(float64(v.Int64()), 'e', -1, 64))
			}
		case typ == "VARCHAR" && plainDate(text) && validDate(text):
			// A string literal compared with a date or timestamp column:
			// DuckDB casts it to the column's type, midnight of that day.
			return literalOf(c, "DATE", text)
		case typ == "VARCHAR" && c.kind == kTimestamp && plainTimestamp(text) && len(text) == 19 && validDate(text[:10]):
			return literalOf(c, "TIMESTAMP", text)
		case typ == "VARCHAR" && c.kind == kTime && plainTime(text) && len(text) == 8:
			// A string literal compared with a time column: DuckDB casts
			// it to TIME.
			return literalOf(c, "TIME", text)
		}
	}
	b, err := json.Marshal(e)
	if err != nil {
		return filter.Literal{}, false
	}
	k := constKey{expr: string(b), cast: cast}
	if p.consts == nil {
		p.consts = map[constKey]*constVal{}
	}
	v, ok := p.consts[k]
	if !ok {
		p.consts[k] = &constVal{expr: e}
		return filter.Literal{}, !p.final
	}
	if !p.final {
		return filter.Literal{}, true
	}
	if !v.ok {
		return filter.Literal{}, false
	}
	return literalOf(c, v.typ, v.text)
}

// literalOf maps DuckDB's rendering of a constant of type typ to a Strata
// literal for column c (see Pushdown for why these pairs).
func literalOf(c colInfo, typ, text string) (filter.Literal, bool) {
	k := c.kind
	isInt := func() bool {
		switch typ {
		case "TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT",
			"UTINYINT", "USMALLINT", "UINTEGER", "UBIGINT", "UHUGEINT":
			return true
		}
		return false
	}
	isDecimal := strings.HasPrefix(typ, "DECIMAL(")
	num := filter.Literal{Kind: filter.LitNumber, Text: text}
	switch k {
	case kInt, kDecimal:
		if isInt() || isDecimal {
			return num, validNumber(text)
		}
	case kWideDecimal:
		if isInt() || isDecimal {
			return num, validNumber(text) && wideLiteralOK(c, typ, text)
		}
	case kDouble:
		if typ == "DOUBLE" {
			f, err := strconv.ParseFloat(text, 64)
			if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
				return filter.Literal{}, false
			}
			// Shortest text that reads back as the same double.
			return filter.Literal{Kind: filter.LitNumber, Text: strconv.FormatFloat(f, 'e', -1, 64)}, true
		}
	case kString:
		if typ == "VARCHAR" {
			return filter.Literal{Kind: filter.LitString, Text: text}, true
		}
	case kBool:
		if typ == "BOOLEAN" {
			return filter.Literal{Kind: filter.LitBool, Bool: text == "true"}, text == "true" || text == "false"
		}
	case kDate, kTimestamp:
		switch typ {
		case "DATE":
			return filter.Literal{Kind: filter.LitDate, Text: text}, plainDate(text)
		case "TIMESTAMP", "TIMESTAMP_S", "TIMESTAMP_MS", "TIMESTAMP_NS":
			return filter.Literal{Kind: filter.LitTimestamp, Text: text}, plainTimestamp(text)
		}
	case kTime:
		if typ == "TIME" {
			// Strata compares a time of day with 'HH:MM:SS[.f]' exactly,
			// at any unit, as DuckDB compares the column's microseconds.
			return filter.Literal{Kind: filter.LitString, Text: text}, plainTime(text)
		}
	}
	return filter.Literal{}, false
}

// wideLiteralOK reports whether DuckDB compares a wide decimal column c
// with the constant text of type typ (an integer or DECIMAL type) without a
// runtime error, so that a Strata filter computing the same comparison
// exactly (filter's bindWide scales the literal's text to the column's
// scale, rounding only where that keeps every answer) gives the rows
// DuckDB would.
//
// DuckDB compares DECIMAL(p,s) with DECIMAL(w,ls) (an integer type is
// DECIMAL(w,0): HUGEINT is DECIMAL(38,0)) in DECIMAL(min(38, max(p-s,
// w-ls) + max(s,ls)), max(s,ls)), exactly, casting both sides to it; an IN
// list or BETWEEN casts the column and all its constants to one such type,
// of scale S = max(s, every constant's scale) (c.cmpScale holds the
// others'). Where the sum exceeds 38 the type is DECIMAL(38,S), and a cast
// to it fails at run time, but only for the rows that reach the
// comparison:
//
//   - the column's, when S > s and p-s+S > 38 ("DECIMAL(38,2) < 1.005"
//     fails on 10^36-1);
//   - the constant's, when its integer digits and S exceed 38
//     (DECIMAL(20,4) = 10^35 fails on any row, as does DECIMAL(30,0) IN
//     (0.001, 10^35)).
//
// A pushed filter could drop those rows before DuckDB sees them and turn
// the error into a result, so those comparisons stay with DuckDB.
func wideLiteralOK(c colInfo, typ, text string) bool {
	ls := 0
	if strings.HasPrefix(typ, "DECIMAL(") {
		var w int
		if _, err := fmt.Sscanf(typ, "DECIMAL(%d,%d)", &w, &ls); err != nil {
			return false
		}
	}
	S := max(c.scale, ls, c.cmpScale)
	return (S <= c.scale || c.prec-c.scale+S <= 38) && intDigits(text)+S <= 38
}

// intDigits counts the digits of a number's integer part, leading zeros
// not counted (0.5 has none).
func intDigits(num string) int {
	ip, _, _ := strings.Cut(strings.TrimPrefix(num, "-"), ".")
	return len(strings.TrimLeft(ip, "0"))
}

// fracDigits counts the digits after a number's point: the scale of
// DuckDB's rendering of a DECIMAL (0 for an integer).
func fracDigits(num string) int {
	_, fp, _ := strings.Cut(num, ".")
	return len(fp)
}

// validNumber accepts DuckDB's rendering of an integer or decimal:
// an optional minus, digits, an optional fraction.
func validNumber(s string) bool {
	s = strings.TrimPrefix(s, "-")
	ip, fp, dot := strings.Cut(s, ".")
	return digits(ip) && (!dot || digits(fp))
}

func digits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// plainDate accepts YYYY-MM-DD (years 0001-9999; DuckDB writes other years
// with a sign or an era, which are not pushed).
func plainDate(s string) bool {
	return len(s) == 10 && digits(s[:4]) && s[4] == '-' && digits(s[5:7]) && s[7] == '-' && digits(s[8:])
}

// plainTime accepts HH:MM:SS[.fraction] before 24:00:00 (DuckDB's TIME
// also holds 24:00:00, which Strata's times of day do not: not pushed).
func plainTime(t string) bool {
	return clockText(t) && t[:2] <= "23" && t[3:5] <= "59" && t[6:8] <= "59"
}

// plainTimestamp accepts YYYY-MM-DD HH:MM:SS[.fraction].
func plainTimestamp(s string) bool {
	return len(s) >= 19 && plainDate(s[:10]) && s[10] == ' ' && clockText(s[11:])
}

// clockText accepts the shape HH:MM:SS[.fraction], digits only, without
// checking the fields' ranges.
func clockText(t string) bool {
	if len(t) < 8 || !(digits(t[:2]) && t[2] == ':' && digits(t[3:5]) && t[5] == ':' && digits(t[6:8])) {
		return false
	}
	return len(t) == 8 || t[8] == '.' && digits(t[9:])
}

// evalConsts has DuckDB evaluate every constant collected in the first pass,
// in one query when they all evaluate, else one at a time.
func (p *pusher) evalConsts() error {
	if len(p.consts) == 0 {
		return nil
	}
	keys := make([]constKey, 0, len(p.consts))
	for k := range p.consts {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b constKey) int { return strings.Compare(a.expr+a.cast, b.expr+b.cast) })
	if err := p.evalBatch(keys); err == nil {
		return nil
	} else if p.ctx.Err() != nil {
		return err
	}
	for _, k := range keys {
		if err := p.evalBatch([]constKey{k}); err != nil && p.ctx.Err() != nil {
			return err
		}
	}
	return nil
}

// evalBatch turns the constants back into SQL with json_deserialize_sql (so
// they mean exactly what DuckDB parsed) and selects each one's text and type.
func (p *pusher) evalBatch(keys []constKey) error {
	list := make([]any, len(keys))
	for i, k := range keys {
		e := map[string]any{}
		for kk, vv := range asMap(p.consts[k].expr) {
			e[kk] = vv
		}
		e["alias"] = fmt.Sprintf("v%d", i)
		list[i] = e
	}
	stmt := map[string]any{"error": false, "statements": []any{map[string]any{
		"node": map[string]any{
			"type": "SELECT_NODE", "modifiers": []any{}, "cte_map": map[string]any{"map": []any{}},
			"select_list": list, "from_table": map[string]any{"type": "EMPTY", "alias": "", "sample": nil, "query_location": json.Number("18446744073709551615")},
			"where_clause": nil, "group_expressions": []any{}, "group_sets": []any{}, "aggregate_handling": "STANDARD_HANDLING",
			"having": nil, "sample": nil, "qualify": nil,
		},
		"named_param_map": []any{},
	}}}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(stmt); err != nil {
		return err
	}
	var inner string
	if err := p.conn.QueryRowContext(p.ctx, "SELECT json_deserialize_sql($1::JSON)", buf.String()).Scan(&inner); err != nil {
		return err
	}
	var cols []string
	for i, k := range keys {
		v := fmt.Sprintf("v%d", i)
		if k.cast != "" {
			v = fmt.Sprintf("TRY_CAST(v%d AS %s)", i, k.cast)
		}
		cols = append(cols, fmt.Sprintf("CAST(%s AS VARCHAR), typeof(%s)", v, v))
	}
	q := "SELECT " + strings.Join(cols, ", ") + " FROM (" + inner + ")"
	vals := make([]sql.NullString, 2*len(keys))
	ptrs := make([]any, len(vals))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	if err := p.conn.QueryRowContext(p.ctx, q).Scan(ptrs...); err != nil {
		return err
	}
	for i, k := range keys {
		c := p.consts[k]
		c.text, c.typ = vals[2*i].String, vals[2*i+1].String
		c.ok = vals[2*i].Valid && vals[2*i+1].Valid
	}
	return nil
}

// editFor builds the replacement of r's reference with a strata_scan call
// carrying filter and the token of its files' listing (each when not
// empty), checking that the text at the reference is what the parser saw.
func (p *pusher) editFor(r *tableRef, where, listing string) (edit, bool) {
	q := p.query
	if r.loc >= len(q) {
		return edit{}, false
	}
	var args []string
	if where != "" {
		args = append(args, "filter := "+sqlString(where))
	}
	if listing != "" {
		args = append(args, "listing := "+sqlString(listing))
	}
	arg := strings.Join(args, ", ")
	if !r.fn {
		end, val, ok := quotedToken(q, r.loc)
		if !ok || val != r.path {
			return edit{}, false
		}
		return edit{at: r.loc, end: end, text: FunctionName + "(" + sqlString(r.path) + ", " + arg + ")"}, true
	}
	// strata_scan( ... ): insert the argument before the closing parenthesis.
	i := r.loc
	for i < len(q) && (q[i] == '_' || q[i] >= 'a' && q[i] <= 'z' || q[i] >= 'A' && q[i] <= 'Z' || q[i] >= '0' && q[i] <= '9' || q[i] == '"' || q[i] == '.') {
		i++
	}
	for i < len(q) && (q[i] == ' ' || q[i] == '\t' || q[i] == '\n' || q[i] == '\r') {
		i++
	}
	if i >= len(q) || q[i] != '(' {
		return edit{}, false
	}
	end, ok := closingParen(q, i)
	if !ok {
		return edit{}, false
	}
	return edit{at: end, end: end, text: ", " + arg}, true
}

func sqlString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// quotedToken reads a '...' or "..." token at i (doubled quotes escape),
// returning its end and unescaped value.
func quotedToken(q string, i int) (int, string, bool) {
	if i >= len(q) || q[i] != '\'' && q[i] != '"' {
		return 0, "", false
	}
	quote := q[i]
	var b strings.Builder
	for j := i + 1; j < len(q); j++ {
		if q[j] == quote {
			if j+1 < len(q) && q[j+1] == quote {
				b.WriteByte(quote)
				j++
				continue
			}
			return j + 1, b.String(), true
		}
		b.WriteByte(q[j])
	}
	return 0, "", false
}

// closingParen finds the parenthesis closing the one at i, skipping quoted
// text and comments.
func closingParen(q string, i int) (int, bool) {
	depth := 0
	for j := i; j < len(q); j++ {
		switch c := q[j]; {
		case c == '\'' || c == '"':
			end, _, ok := quotedToken(q, j)
			if !ok {
				return 0, false
			}
			j = end - 1
		case c == '-' && j+1 < len(q) && q[j+1] == '-':
			k := strings.IndexByte(q[j:], '\n')
			if k < 0 {
				return 0, false
			}
			j += k
		case c == '/' && j+1 < len(q) && q[j+1] == '*':
			k := strings.Index(q[j+2:], "*/")
			if k < 0 {
				return 0, false
			}
			j += k + 3
		case c == '(':
			depth++
		case c == ')':
			depth--
			if depth == 0 {
				return j, true
			}
		}
	}
	return 0, false
}

func applyEdits(q string, edits []edit) string {
	slices.SortFunc(edits, func(a, b edit) int { return b.at - a.at })
	for _, e := range edits {
		q = q[:e.at] + e.text + q[e.end:]
	}
	return q
}

// Query runs query on conn after Pushdown.
func Query(ctx context.Context, conn *sql.Conn, query string, args ...any) (*sql.Rows, error) {
	q, _, err := Pushdown(ctx, conn, query)
	if err != nil {
		return nil, err
	}
	return conn.QueryContext(ctx, q, args...)
}

func isIntType(typ string) bool {
	switch typ {
	case "TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT",
		"UTINYINT", "USMALLINT", "UINTEGER", "UBIGINT", "UHUGEINT":
		return true
	}
	return false
}

func validDate(s string) bool {
	_, err := time.Parse("2006-01-02", s)
	return err == nil
}

// foldGo evaluates the commonest constants without a round trip to DuckDB:
// literals, DATE/TIMESTAMP/BOOLEAN literals, integer + - *, and a date plus
// or minus a whole number of days, months or years. It returns DuckDB's
// type name and rendering (the same evalBatch would get), or false for
// anything else, which DuckDB then evaluates.
func foldGo(e any) (typ, text string, ok bool) {
	n := asMap(e)
	if n == nil {
		return "", "", false
	}
	switch n["type"] {
	case "VALUE_CONSTANT":
		v := asMap(n["value"])
		if v == nil || v["is_null"] == true {
			return "", "", false
		}
		id := constType(n)
		switch {
		case id == "VARCHAR":
			s, ok := v["value"].(string)
			return id, s, ok
		case id == "BOOLEAN":
			b, ok := v["value"].(bool)
			return id, strconv.FormatBool(b), ok
		case isIntType(id):
			x, ok := bigOf(v["value"], id == "HUGEINT")
			if !ok {
				return "", "", false
			}
			return id, x.String(), true
		case id == "DECIMAL":
			t := asMap(asMap(v["type"])["type_info"])
			w, ok1 := intOf(t["width"])
			sc, ok2 := intOf(t["scale"])
			x, ok3 := bigOf(v["value"], true)
			if !ok1 || !ok2 || !ok3 || sc < 0 || sc > 38 {
				return "", "", false
			}
			return fmt.Sprintf("DECIMAL(%d,%d)", w, sc), decimalText(x, int(sc)), true
		}
	case "OPERATOR_CAST":
		if n["try_cast"] == true {
			return "", "", false
		}
		ct, ok := asMap(n["cast_type"])["id"].(string)
		if !ok {
			return "", "", false
		}
		typ, text, ok := foldGo(n["child"])
		if !ok || typ != "VARCHAR" {
			return "", "", false
		}
		switch ct {
		case "DATE":
			if plainDate(text) && validDate(text) {
				return "DATE", text, true
			}
		case "TIMESTAMP":
			if plainTimestamp(text) && len(text) <= 26 && validDate(text[:10]) {
				return "TIMESTAMP", text, true
			}
		case "TIME":
			if plainTime(text) && len(text) <= 15 {
				return "TIME", text, true
			}
		case "BOOLEAN":
			switch strings.ToLower(text) {
			case "t", "true":
				return "BOOLEAN", "true", true
			case "f", "false":
				return "BOOLEAN", "false", true
			}
		}
	case "FUNCTION":
		if str(n["schema"]) != "" {
			return "", "", false
		}
		kids, _ := n["children"].([]any)
		name := str(n["function_name"])
		if name == "-" && len(kids) == 1 {
			typ, text, ok := foldGo(kids[0])
			if ok && isIntType(typ) {
				x, _ := new(big.Int).SetString(text, 10)
				return "HUGEINT", x.Neg(x).String(), true
			}
			return "", "", false
		}
		if len(kids) != 2 || (name != "+" && name != "-" && name != "*") {
			return "", "", false
		}
		lt, ltext, ok1 := foldGo(kids[0])
		if !ok1 {
			return "", "", false
		}
		if isIntType(lt) {
			rt, rtext, ok := foldGo(kids[1])
			if !ok || !isIntType(rt) {
				return "", "", false
			}
			a, _ := new(big.Int).SetString(ltext, 10)
			b, _ := new(big.Int).SetString(rtext, 10)
			switch name {
			case "+":
				a.Add(a, b)
			case "-":
				a.Sub(a, b)
			default:
				a.Mul(a, b)
			}
			return "HUGEINT", a.String(), true
		}
		if lt == "DATE" && name != "*" {
			unit, k, ok := intervalOf(kids[1])
			if !ok {
				return "", "", false
			}
			if name == "-" {
				k = -k
			}
			d, _ := time.Parse("2006-01-02", ltext)
			switch unit {
			case "days":
				d = d.AddDate(0, 0, k)
			default:
				if unit == "years" {
					k *= 12
				}
				d = addMonths(d, k)
			}
			if d.Year() < 1 || d.Year() > 9999 {
				return "", "", false
			}
			// DATE + INTERVAL is a TIMESTAMP in DuckDB.
			return "TIMESTAMP", d.Format("2006-01-02 15:04:05"), true
		}
	}
	return "", "", false
}

// addMonths adds k months the way DuckDB does: the day is kept, or clamped
// to the last day of a shorter month.
func addMonths(d time.Time, k int) time.Time {
	m := int(d.Month()) - 1 + k
	y := d.Year() + m/12
	m %= 12
	if m < 0 {
		m += 12
		y--
	}
	last := time.Date(y, time.Month(m+2), 0, 0, 0, 0, 0, time.UTC).Day()
	return time.Date(y, time.Month(m+1), min(d.Day(), last), 0, 0, 0, 0, time.UTC)
}

// intervalOf recognizes INTERVAL n DAY|MONTH|YEAR as DuckDB's parser
// writes it: to_days(CAST(trunc(CAST(n AS DOUBLE)) AS INTEGER)), n an
// integer or a string of one.
func intervalOf(e any) (unit string, k int, ok bool) {
	n := asMap(e)
	if n == nil || n["type"] != "FUNCTION" || str(n["schema"]) != "" {
		return "", 0, false
	}
	switch str(n["function_name"]) {
	case "to_days":
		unit = "days"
	case "to_months":
		unit = "months"
	case "to_years":
		unit = "years"
	default:
		return "", 0, false
	}
	kids, _ := n["children"].([]any)
	if len(kids) != 1 {
		return "", 0, false
	}
	x := asMap(kids[0])
	// Unwrap CAST(trunc(CAST(v AS DOUBLE)) AS INTEGER).
	if x["type"] == "OPERATOR_CAST" {
		x = asMap(x["child"])
		if x["type"] != "FUNCTION" || str(x["function_name"]) != "trunc" {
			return "", 0, false
		}
		tk, _ := x["children"].([]any)
		if len(tk) != 1 {
			return "", 0, false
		}
		x = asMap(tk[0])
		if x["type"] != "OPERATOR_CAST" {
			return "", 0, false
		}
		x = asMap(x["child"])
	}
	typ, text, ok := foldGo(x)
	if !ok || !(isIntType(typ) || typ == "VARCHAR") {
		return "", 0, false
	}
	v, err := strconv.Atoi(strings.TrimSpace(text))
	if err != nil || v > 1e6 || v < -1e6 {
		return "", 0, false
	}
	return unit, v, true
}

// bigOf reads an integer JSON value: a number, or {upper, lower} halves of
// a 128-bit value (upper signed when signed is set).
func bigOf(v any, signed bool) (*big.Int, bool) {
	switch x := v.(type) {
	case json.Number:
		b, ok := new(big.Int).SetString(string(x), 10)
		return b, ok
	case map[string]any:
		up, ok1 := x["upper"].(json.Number)
		lo, ok2 := x["lower"].(json.Number)
		if !ok1 || !ok2 {
			return nil, false
		}
		u, ok1 := new(big.Int).SetString(string(up), 10)
		l, ok2 := new(big.Int).SetString(string(lo), 10)
		if !ok1 || !ok2 {
			return nil, false
		}
		if !signed && u.Sign() < 0 {
			return nil, false
		}
		return u.Lsh(u, 64).Add(u, l), true
	}
	return nil, false
}

func intOf(v any) (int64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	i, err := n.Int64()
	return i, err == nil
}

// decimalText writes an unscaled value with scale digits after the point.
func decimalText(x *big.Int, scale int) string {
	neg := x.Sign() < 0
	d := new(big.Int).Abs(x).String()
	if scale > 0 {
		if len(d) <= scale {
			d = strings.Repeat("0", scale-len(d)+1) + d
		}
		d = d[:len(d)-scale] + "." + d[len(d)-scale:]
	}
	if neg {
		d = "-" + d
	}
	return d
}
