package difftest

import (
	"encoding/hex"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// Query is one random query, in Strata's terms and in SQL.
type Query struct {
	Kind    string   // "scan", "take" or "agg"
	Columns []string // projected top-level columns (nil: all)
	Where   string   // Strata filter syntax ("" for none)
	SQL     string   // the same filter in DuckDB SQL ("" for none)
	Offset  int64
	Limit   int64
	Rows    []int64 // take
	Aggs    []Agg   // agg
	// FlatKeys counts the comparisons of Where on the values of FlatMap
	// keys (FlatMapFilterSeeds).
	FlatKeys int
}

// Agg is one aggregate of an agg query.
type Agg struct {
	Fn  string // count, sum, avg, min, max
	Col int    // top-level column, -1 for count(*) or a Path
	// Path names a primitive field reached through structs (or a top-level
	// primitive column): tables from NestedAggSeeds on draw aggregates over
	// these.
	Path string
}

// NestedAggSeeds is the first seed whose aggregates also name fields inside
// structs by their dotted paths; seeds below it draw the aggregates they
// always did, so the kept regressions still name the same cases.
const NestedAggSeeds = 10_000_000

// AvgSeeds is the first seed whose aggregates also draw avg over integer
// and decimal columns and fields (float means are checked against exact
// references in package read's tests: DuckDB's float sums are rounded in
// its own order); seeds below it draw what they always did.
const AvgSeeds = 11_000_000

// FlatMapFilterSeeds is the first seed whose filters also compare the
// values of FlatMap keys (m.key3, m."-3", m.key3.value_0 for a field of a
// struct value), against DuckDB's map_extract_value on the Parquet map:
// NULL where the key is absent, the map null or the value null
// (Table.flatLeaves). Seeds below it draw the filters they always did, so
// the kept regressions name the same cases.
const FlatMapFilterSeeds = 26_010_000

// WideDecimalSeeds is the first seed whose filters compare decimals of
// precision above 18 (stored as 16-byte binary) and whose aggregates draw
// their min and max, and sum and avg where no sum can pass 38 digits
// (see summable); its tables also draw such decimals more often (NewTable).
// Below it such a decimal is only tested for IS [NOT] NULL and counted, as
// before, so the kept regressions name the same cases.
const WideDecimalSeeds = 26_000_000

func (q *Query) String() string {
	switch q.Kind {
	case "take":
		return fmt.Sprintf("take rows %v columns %v", q.Rows, q.Columns)
	case "agg":
		return fmt.Sprintf("aggregate %v where [%s] (SQL: %s)", q.Aggs, q.Where, q.SQL)
	}
	return fmt.Sprintf("scan columns %v where [%s] (SQL: %s) offset %d limit %d", q.Columns, q.Where, q.SQL, q.Offset, q.Limit)
}

// leafCol is a column a filter can name: a primitive top-level column, a
// primitive field reached through structs only, or (Table.flatLeaves) the
// value of a FlatMap key or a primitive field of a struct value, whose
// values are then one per row, null where the row lacks the key.
type leafCol struct {
	path string // Strata path, "c0.c0_1"
	sql  string // DuckDB expression
	f    arrow.Field
	vals arrow.Array   // its values (nulls of enclosing structs not applied)
	anc  []arrow.Array // the structs enclosing it, outermost first
}

// isNull reports whether row i of the leaf is null, itself or through an
// enclosing struct.
func (c leafCol) isNull(i int) bool {
	if c.vals.IsNull(i) {
		return true
	}
	for _, a := range c.anc {
		if a.IsNull(i) {
			return true
		}
	}
	return false
}

func leafCols(rec arrow.RecordBatch) []leafCol {
	var out []leafCol
	for i, f := range rec.Schema().Fields() {
		out = walkLeaves(out, f.Name, quoteIdent(f.Name), f, rec.Column(i), nil)
	}
	return out
}

// walkLeaves appends to out the primitive leaves of field f (values a,
// enclosed by the structs anc) reached through structs only.
func walkLeaves(out []leafCol, path, sql string, f arrow.Field, a arrow.Array, anc []arrow.Array) []leafCol {
	switch f.Type.ID() {
	case arrow.STRUCT:
		st := f.Type.(*arrow.StructType)
		inner := append(anc[:len(anc):len(anc)], a)
		for k, cf := range st.Fields() {
			out = walkLeaves(out, path+"."+cf.Name, "struct_extract("+sql+", '"+cf.Name+"')", cf, a.(*array.Struct).Field(k), inner)
		}
	case arrow.LIST, arrow.MAP:
	default:
		out = append(out, leafCol{path: path, sql: sql, f: f, vals: a, anc: anc})
	}
	return out
}

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// NewQuery draws query qi of table t; it depends only on (t.Seed, qi).
func NewQuery(t *Table, qi int) *Query {
	r := rand.New(rand.NewPCG(t.Seed, uint64(qi)+0x9e3779b97f4a7c15))
	g := &qgen{r: r, t: t, leaves: leafCols(t.Rec)}
	if t.Seed >= FlatMapFilterSeeds {
		g.flat = t.flatLeaves()
	}
	q := &Query{}
	switch k := r.IntN(10); {
	case k < 5:
		q.Kind = "scan"
		q.Columns = g.columns()
		g.where(q)
		if r.IntN(3) == 0 {
			n := t.Rec.NumRows()
			q.Offset = r.Int64N(n + 2)
			q.Limit = r.Int64N(n+2) + 1
			if r.IntN(3) == 0 {
				q.Limit = 0 // offset only
			}
		}
	case k < 7:
		q.Kind = "take"
		q.Columns = g.columns()
		n := t.Rec.NumRows()
		if n > 0 {
			for range 1 + r.IntN(12) {
				q.Rows = append(q.Rows, r.Int64N(n))
			}
		}
	default:
		q.Kind = "agg"
		g.where(q)
		q.Aggs = g.aggs()
	}
	return q
}

type qgen struct {
	r      *rand.Rand
	t      *Table
	leaves []leafCol // primitive columns and struct fields: aggregates' and filters' columns
	// flat are the values of FlatMap keys, which filters also compare from
	// FlatMapFilterSeeds on (Table.flatLeaves); empty below it
	flat  []leafCol
	nflat int // comparisons drawn on flat
}

// columns draws a projection: all columns (nil), or a random subset in a
// random order.
func (g *qgen) columns() []string {
	fs := g.t.Rec.Schema().Fields()
	if g.r.IntN(3) == 0 {
		return nil
	}
	var out []string
	for _, i := range g.r.Perm(len(fs))[:1+g.r.IntN(len(fs))] {
		out = append(out, fs[i].Name)
	}
	return out
}

func (g *qgen) where(q *Query) {
	if len(g.leaves)+len(g.flat) == 0 || g.r.IntN(5) == 0 {
		return
	}
	q.Where, q.SQL = g.expr(3)
	q.FlatKeys = g.nflat
}

// expr draws a filter of at most depth levels of AND/OR/NOT.
func (g *qgen) expr(depth int) (string, string) {
	r := g.r
	if depth == 0 || r.IntN(5) < 2 {
		return g.leaf()
	}
	switch r.IntN(5) {
	case 0:
		s, q := g.expr(depth - 1)
		return "NOT (" + s + ")", "NOT (" + q + ")"
	case 1:
		return g.join(depth, " AND ")
	}
	return g.join(depth, " OR ") // more ORs than ANDs keeps answers non-empty

}

func (g *qgen) join(depth int, op string) (string, string) {
	n := 2 + g.r.IntN(2)
	ss, qs := make([]string, n), make([]string, n)
	for i := range ss {
		s, q := g.expr(depth - 1)
		ss[i], qs[i] = "("+s+")", "("+q+")"
	}
	return strings.Join(ss, op), strings.Join(qs, op)
}

// leaf draws one comparison on a random filterable column.
func (g *qgen) leaf() (string, string) {
	r := g.r
	pool := g.leaves
	if len(g.flat) > 0 && (len(pool) == 0 || r.IntN(3) == 0) {
		// a third of the comparisons on FlatMap keys, which are few
		// beside a table's columns (no draw without them, so seeds
		// below FlatMapFilterSeeds keep their queries)
		pool = g.flat
		g.nflat++
	}
	c := pool[r.IntN(len(pool))]
	col, sqlCol := filterPath(c.path), c.sql
	if r.IntN(8) == 0 || !g.comparable(c.f.Type) {
		if r.IntN(2) == 0 {
			return col + " IS NULL", sqlCol + " IS NULL"
		}
		return col + " IS NOT NULL", sqlCol + " IS NOT NULL"
	}
	ops := []string{"=", "!=", "<", "<=", ">", ">=", "BETWEEN", "IN"}
	if c.f.Type.ID() == arrow.BOOL {
		ops = []string{"=", "!=", "IN"}
	}
	if c.f.Type.ID() == arrow.STRING && r.IntN(5) == 0 {
		s, q := g.literal(c)
		// a prefix of a value: cut the literal at a rune boundary
		s, q = prefixOf(s), prefixOf(q)
		return col + " LIKE " + strings.TrimSuffix(s, "'") + "%'", sqlCol + " LIKE " + strings.TrimSuffix(q, "'") + "%'"
	}
	op := ops[r.IntN(len(ops))]
	var s, q string
	switch op {
	case "BETWEEN":
		a, aq := g.literal(c)
		b, bq := g.literal(c)
		s, q = col+" BETWEEN "+a+" AND "+b, sqlCol+" BETWEEN "+aq+" AND "+bq
	case "IN":
		n := 1 + r.IntN(4)
		ls, lq := make([]string, n), make([]string, n)
		for i := range ls {
			ls[i], lq[i] = g.literal(c)
		}
		s, q = col+" IN ("+strings.Join(ls, ", ")+")", sqlCol+" IN ("+strings.Join(lq, ", ")+")"
	default:
		a, aq := g.literal(c)
		s, q = col+" "+op+" "+a, sqlCol+" "+op+" "+aq
	}
	if isFloat(c.f.Type) {
		// Strata compares floats as IEEE 754 does (NaN satisfies only !=);
		// DuckDB orders NaN above every number and equal to itself.
		if op == "!=" {
			q = "(" + q + " OR isnan(" + sqlCol + "))"
		} else {
			q = "(" + q + " AND NOT isnan(" + sqlCol + "))"
		}
	}
	return s, q
}

// filterPath quotes each part of a path for the filter syntax.
func filterPath(p string) string {
	parts := strings.Split(p, ".")
	for i, s := range parts {
		parts[i] = `"` + s + `"`
	}
	return strings.Join(parts, ".")
}

// prefixOf cuts a quoted string literal to a prefix (whole runes, and
// never inside a doubled quote).
func prefixOf(lit string) string {
	body := []rune(strings.TrimSuffix(strings.TrimPrefix(lit, "'"), "'"))
	n := len(body) / 2
	for n > 0 && body[n-1] == '\'' {
		n--
	}
	return "'" + string(body[:n]) + "'"
}

// nearMiss returns v one edit away: a zero or a minus sign added in
// front, a zero added or the last byte dropped at the end, or a comma
// inserted. On number text these are the operands an integer encoding of
// the text must not confuse with v ("1.50" and "1.5", "007" and "07",
// "-0" and "0", "1,234" and "1234").
func nearMiss(r *rand.Rand, v string) string {
	switch r.IntN(5) {
	case 0:
		return "0" + v
	case 1:
		return "-" + v
	case 2:
		return v + "0"
	case 3:
		if v != "" && v[len(v)-1] < 0x80 {
			return v[:len(v)-1]
		}
		return v
	}
	i := r.IntN(len(v) + 1)
	for i > 0 && i < len(v) && v[i] >= 0x80 && v[i] < 0xc0 {
		i-- // not inside a rune
	}
	return v[:i] + "," + v[i:]
}

// comparable reports whether filters compare values of type t and
// aggregates take their min and max: every type but, below
// WideDecimalSeeds, decimals of precision above 18.
func (g *qgen) comparable(t arrow.DataType) bool {
	if d, ok := t.(*arrow.Decimal128Type); ok {
		return d.Precision <= 18 || g.t.Seed >= WideDecimalSeeds
	}
	return true
}

func isFloat(t arrow.DataType) bool { return t.ID() == arrow.FLOAT32 || t.ID() == arrow.FLOAT64 }

// literal draws a literal for column c in both syntaxes: mostly a value of
// the column, sometimes a boundary or a value from nowhere.
func (g *qgen) literal(c leafCol) (string, string) {
	r := g.r
	row := -1
	if n := c.vals.Len(); n > 0 && r.IntN(4) != 0 {
		row = r.IntN(n)
		if c.vals.IsNull(row) {
			row = -1
		}
	}
	switch a := c.vals.(type) {
	case *array.Boolean:
		v := r.IntN(2) == 0
		if row >= 0 {
			v = a.Value(row)
		}
		s := strings.ToUpper(strconv.FormatBool(v))
		return s, s
	case *array.Int8, *array.Int16, *array.Int32, *array.Int64, *array.Uint8, *array.Uint16, *array.Uint32, *array.Uint64:
		s := g.intLiteral(a, row)
		return s, exactSQL(s)
	case *array.Float32:
		v := float64(g.floatValue(row, func(i int) float64 { return float64(a.Value(i)) }))
		s := strconv.FormatFloat(float64(float32(v)), 'g', -1, 32)
		return plainNumber(s), floatSQL(s, "FLOAT")
	case *array.Float64:
		v := g.floatValue(row, func(i int) float64 { return a.Value(i) })
		s := strconv.FormatFloat(v, 'g', -1, 64)
		return plainNumber(s), floatSQL(s, "DOUBLE")
	case *array.String:
		v := randomWord(r)
		if row >= 0 && !strings.ContainsRune(a.Value(row), 0) {
			v = a.Value(row)
			if g.t.Seed >= TextSeeds && r.IntN(3) == 0 {
				v = nearMiss(r, v)
			}
		}
		s := "'" + strings.ReplaceAll(v, "'", "''") + "'"
		return s, s
	case *array.Binary:
		v := []byte(randomWord(r))
		if row >= 0 && !strings.ContainsAny(string(a.Value(row)), "\x00") {
			v = a.Value(row)
		}
		return "'" + strings.ReplaceAll(string(v), "'", "''") + "'", "from_hex('" + hex.EncodeToString(v) + "')"
	case *array.Date32:
		d := int64(r.IntN(40000) - 10000)
		if row >= 0 {
			d = int64(a.Value(row)) + int64(r.IntN(3)-1)
		}
		s := "DATE '" + time.Unix(d*86400, 0).UTC().Format("2006-01-02") + "'"
		return s, s
	case *array.Timestamp:
		return g.timestampLiteral(a, row)
	case *array.Time32:
		v := int64(-1)
		if row >= 0 {
			v = int64(a.Value(row))
		}
		return g.timeLiteral(v, a.DataType().(*arrow.Time32Type).Unit)
	case *array.Time64:
		v := int64(-1)
		if row >= 0 {
			v = int64(a.Value(row))
		}
		return g.timeLiteral(v, a.DataType().(*arrow.Time64Type).Unit)
	case *array.Decimal128:
		return g.decimalLiteral(a, row)
	}
	panic(fmt.Sprintf("difftest: no literal for %s", c.vals.DataType()))
}

// timeLiteral is a time of day near v (a random one when v < 0) in unit u,
// as Strata's 'HH:MM:SS.ffffff' and SQL's TIME literal; sometimes one
// unit off, or with a fraction finer than the unit.
func (g *qgen) timeLiteral(v int64, u arrow.TimeUnit) (string, string) {
	r := g.r
	per := map[arrow.TimeUnit]int64{arrow.Second: 1, arrow.Millisecond: 1e3, arrow.Microsecond: 1e6, arrow.Nanosecond: 1e9}[u]
	us := r.Int64N(86400e6)
	if v >= 0 {
		us = v * (1e6 / per)
		switch r.IntN(4) {
		case 0:
			us += 1e6 / per
		case 1:
			us -= 1e6 / per
		case 2:
			us += int64(r.IntN(3)) - 1 // a microsecond off: between two milliseconds
		}
		us = min(max(us, 0), 86400e6-1)
	}
	text := time.UnixMicro(us).UTC().Format("15:04:05.000000")
	return "'" + text + "'", "TIME '" + text + "'"
}

// plainNumber rewrites Go's float text ("1e+06", "+Inf") as a number the
// filter syntax and SQL both read.
func plainNumber(s string) string {
	switch s {
	case "+Inf", "Inf":
		return "1e308"
	case "-Inf":
		return "-1e308"
	case "NaN":
		return "0"
	}
	return strings.Replace(s, "e+", "e", 1)
}

// floatSQL writes a float literal for DuckDB as a string cast to typ:
// DuckDB reads a bare 0.36377566817174484 as a DECIMAL and converts it to
// DOUBLE one unit in the last place off, where a string is parsed to the
// nearest double, as Strata parses the filter's literal.
func floatSQL(s, typ string) string { return "'" + plainNumber(s) + "'::" + typ }

func (g *qgen) floatValue(row int, at func(int) float64) float64 {
	r := g.r
	if row >= 0 {
		v := at(row)
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			return v
		}
	}
	return []float64{0, 1, -1, 0.5, 100.25, -1e6, 3.4e38, 1e-300}[r.IntN(8)]
}

func (g *qgen) intLiteral(a arrow.Array, row int) string {
	r := g.r
	if row >= 0 {
		v := a.ValueStr(row)
		switch r.IntN(6) {
		case 0:
			return v + ".5" // between two integers
		case 1:
			b, _ := new(big.Int).SetString(v, 10)
			return b.Add(b, big.NewInt(int64(r.IntN(3)-1))).String()
		}
		return v
	}
	return []string{"0", "-1", "1", "127", "-128", "255", "32767", "65535", "2147483647", "-2147483648",
		"4294967295", "9223372036854775807", "-9223372036854775808", "18446744073709551615",
		"18446744073709551616", "-100000000000000000000", "1e30", "2.5"}[r.IntN(18)]
}

// exactSQL writes an integer column's literal so that DuckDB compares
// exactly: it reads 1e30 as a DOUBLE and compares a UBIGINT with a decimal
// literal in DOUBLE too when another operand is a DOUBLE, where Strata
// compares the exact values (x BETWEEN 14947328451444461543.5 AND 1e30
// held for x = 14947328451444461543 in DuckDB).
func exactSQL(lit string) string {
	if mant, exp, ok := strings.Cut(lit, "e"); ok {
		n, _ := strconv.Atoi(exp)
		return mant + strings.Repeat("0", n)
	}
	if strings.Contains(lit, ".") {
		return lit + "::DECIMAL(38,1)"
	}
	return lit
}

var tsUnits = map[arrow.TimeUnit]struct {
	digits int
	sql    string
}{arrow.Second: {0, "TIMESTAMP"}, arrow.Millisecond: {3, "TIMESTAMP"}, arrow.Microsecond: {6, "TIMESTAMP"}, arrow.Nanosecond: {9, "TIMESTAMP_NS"}}

func (g *qgen) timestampLiteral(a *array.Timestamp, row int) (string, string) {
	tt := a.DataType().(*arrow.TimestampType)
	var in instant
	if row >= 0 {
		in = tsInstant(a.Value(row), tt.Unit)
	} else {
		in = instant{sec: 1_600_000_000 + int64(g.r.IntN(1_000_000)), nsec: 0}
	}
	u := tsUnits[tt.Unit]
	text := time.Unix(in.sec, in.nsec).UTC().Format("2006-01-02 15:04:05")
	if u.digits > 0 {
		text += "." + fmt.Sprintf("%09d", in.nsec)[:u.digits]
	}
	sqlType := u.sql
	sqlText := text
	if tt.TimeZone != "" {
		sqlType, sqlText = "TIMESTAMPTZ", text+"+00"
	}
	return "TIMESTAMP '" + text + "'", sqlType + " '" + sqlText + "'"
}

func (g *qgen) decimalLiteral(a *array.Decimal128, row int) (string, string) {
	dt := a.DataType().(*arrow.Decimal128Type)
	var v *big.Int
	if row >= 0 {
		v = a.Value(row).BigInt()
	} else {
		v = big.NewInt(int64(g.r.IntN(20000) - 10000))
	}
	scale := int(dt.Scale)
	// (Not past 38 digits: DuckDB has no decimal type to read such a
	// literal exactly.)
	if g.r.IntN(4) == 0 && dt.Precision < 38 {
		// one more digit than the column keeps
		v = new(big.Int).Add(new(big.Int).Mul(v, big.NewInt(10)), big.NewInt(int64(g.r.IntN(19)-9)))
		scale++
	}
	s := decimalText(v, scale)
	return s, s
}

// decimalText renders an unscaled value with scale digits after the point.
func decimalText(v *big.Int, scale int) string {
	digits := new(big.Int).Abs(v).String()
	if scale > 0 {
		if len(digits) <= scale {
			digits = strings.Repeat("0", scale-len(digits)+1) + digits
		}
		digits = digits[:len(digits)-scale] + "." + digits[len(digits)-scale:]
	}
	if v.Sign() < 0 {
		return "-" + digits
	}
	return digits
}

func randomWord(r *rand.Rand) string {
	b := make([]rune, r.IntN(5))
	for i := range b {
		b[i] = []rune("abcdefghäé€")[r.IntN(11)]
	}
	return string(b)
}

// aggs draws one to four aggregates over top-level primitive columns
// (from NestedAggSeeds on, over every primitive field outside lists and
// maps).
func (g *qgen) aggs() []Agg {
	if g.t.Seed >= NestedAggSeeds {
		return g.leafAggs()
	}
	r := g.r
	var cols []int
	for i, f := range g.t.Rec.Schema().Fields() {
		if sortable(f.Type) || f.Type.ID() == arrow.DECIMAL128 {
			cols = append(cols, i)
		}
	}
	n := 1 + r.IntN(4)
	out := make([]Agg, 0, n)
	for range n {
		if len(cols) == 0 || r.IntN(6) == 0 {
			out = append(out, Agg{Fn: "count", Col: -1})
			continue
		}
		c := cols[r.IntN(len(cols))]
		fns := []string{"count", "min", "max"}
		if !g.comparable(g.t.Rec.Schema().Field(c).Type) {
			fns = fns[:1] // min/max of wide decimals below WideDecimalSeeds
		}
		if g.summable(g.t.Rec.Schema().Field(c).Type) {
			fns = append(fns, "sum", "sum")
		}
		out = append(out, Agg{Fn: fns[r.IntN(len(fns))], Col: c})
	}
	return out
}

// leafAggs draws one to four aggregates over primitive fields reached
// through structs only, top-level columns included.
func (g *qgen) leafAggs() []Agg {
	r := g.r
	var cols []leafCol
	for _, c := range g.leaves {
		if sortable(c.f.Type) || c.f.Type.ID() == arrow.DECIMAL128 {
			cols = append(cols, c)
		}
	}
	n := 1 + r.IntN(4)
	out := make([]Agg, 0, n)
	for range n {
		if len(cols) == 0 || r.IntN(6) == 0 {
			out = append(out, Agg{Fn: "count", Col: -1})
			continue
		}
		c := cols[r.IntN(len(cols))]
		fns := []string{"count", "min", "max"}
		if !g.comparable(c.f.Type) {
			fns = fns[:1]
		}
		if g.summable(c.f.Type) {
			fns = append(fns, "sum", "sum")
			if g.t.Seed >= AvgSeeds && !isFloat(c.f.Type) {
				fns = append(fns, "avg", "avg")
			}
		}
		out = append(out, Agg{Fn: fns[r.IntN(len(fns))], Col: -1, Path: c.path})
	}
	return out
}

// summable reports whether aggregates draw sum (and avg) of type t:
// numbers, decimals of up to 18 digits, and from WideDecimalSeeds on
// decimals of up to 28, whose sums over any table here stay within 38
// digits. Sums of wider decimals can pass 38 digits, which Strata reports
// as ErrOverflow and DuckDB in its own way; read's TestWideDecimalAggregates
// checks those against math/big.
func (g *qgen) summable(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64,
		arrow.FLOAT32, arrow.FLOAT64:
		return true
	case arrow.DECIMAL128:
		p := t.(*arrow.Decimal128Type).Precision
		return p <= 18 || p <= 28 && g.t.Seed >= WideDecimalSeeds
	}
	return false
}
