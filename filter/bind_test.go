package filter

import (
	"math"
	"strings"
	"testing"

	"strata/encoding"
	"strata/stats"
)

var testSchema = map[string]ColumnInfo{
	"i8":         {Type: encoding.Int8},
	"i32":        {Type: encoding.Int32},
	"i64":        {Type: encoding.Int64},
	"u8":         {Type: encoding.Uint8},
	"u64":        {Type: encoding.Uint64},
	"f32":        {Type: encoding.Float32},
	"f64":        {Type: encoding.Float64},
	"b":          {Type: encoding.Bool},
	"s":          {Type: encoding.Binary, Logical: LogicalString},
	"l_shipdate": {Type: encoding.Int32, Logical: LogicalDate},
	"price":      {Type: encoding.Int64, Logical: LogicalDecimal, Scale: 2},
	"ts_ms":      {Type: encoding.Int64, Logical: LogicalTimestamp, Unit: Milli},
	"ts_s":       {Type: encoding.Int64, Logical: LogicalTimestamp, Unit: Second},
	"a.b.c":      {Type: encoding.Int16, ID: 7},
	"tod_s":      {Type: encoding.Int32, Logical: LogicalTime, Unit: Second},
	"tod_ns":     {Type: encoding.Int64, Logical: LogicalTime, Unit: Nano},
	"dur_ms":     {Type: encoding.Int64, Logical: LogicalDuration, Unit: Milli},
}

func lookup(p string) (ColumnInfo, bool) { c, ok := testSchema[p]; return c, ok }

var fuzzCols = []ColumnInfo{
	{Type: encoding.Int8}, {Type: encoding.Uint32}, {Type: encoding.Float32}, {Type: encoding.Bool},
	{Type: encoding.Binary}, {Type: encoding.Int32, Logical: LogicalDate},
	{Type: encoding.Int64, Logical: LogicalDecimal, Scale: 3}, {Type: encoding.Int64, Logical: LogicalTimestamp, Unit: Nano},
}

func fuzzLookup(p string) (ColumnInfo, bool) {
	if len(p) == 0 || p[0] == 'z' {
		return ColumnInfo{}, false
	}
	return fuzzCols[int(p[len(p)-1])%len(fuzzCols)], true
}

func mustBind(t *testing.T, where string) Expr {
	t.Helper()
	e, err := Parse(where)
	if err != nil {
		t.Fatalf("Parse(%q): %v", where, err)
	}
	b, err := Bind(e, lookup)
	if err != nil {
		t.Fatalf("Bind(%q): %v", where, err)
	}
	return b
}

func leafOf(t *testing.T, where string) *Leaf {
	t.Helper()
	l, ok := mustBind(t, where).(*Leaf)
	if !ok {
		t.Fatalf("%q did not bind to a leaf: %v", where, mustBind(t, where))
	}
	return l
}

func TestBindDomains(t *testing.T) {
	cases := []struct {
		where string
		op    Op
		a, b  stats.Value
	}{
		{"l_shipdate <= DATE '1998-09-02'", OpLe, stats.Int(encoding.Int32, 10471), stats.Value{}},
		{"l_shipdate <= '1998-09-02'", OpLe, stats.Int(encoding.Int32, 10471), stats.Value{}},
		{"l_shipdate < TIMESTAMP '1998-09-02 12:00'", OpLt, stats.Int(encoding.Int32, 10472), stats.Value{}},
		{"l_shipdate > TIMESTAMP '1998-09-02 12:00'", OpGt, stats.Int(encoding.Int32, 10471), stats.Value{}},
		{"price BETWEEN 0.05 AND 0.07", OpBetween, stats.Int(encoding.Int64, 5), stats.Int(encoding.Int64, 7)},
		{"price <= 0.055", OpLe, stats.Int(encoding.Int64, 5), stats.Value{}},
		{"price < 0.055", OpLt, stats.Int(encoding.Int64, 6), stats.Value{}},
		{"price > -0.055", OpGt, stats.Int(encoding.Int64, -6), stats.Value{}},
		{"price = 1e2", OpEq, stats.Int(encoding.Int64, 10000), stats.Value{}},
		{"ts_ms >= TIMESTAMP '1970-01-01 00:00:01.5'", OpGe, stats.Int(encoding.Int64, 1500), stats.Value{}},
		{"ts_s >= TIMESTAMP '1970-01-01 00:00:01.5'", OpGe, stats.Int(encoding.Int64, 2), stats.Value{}},
		{"ts_s < DATE '1970-01-02'", OpLt, stats.Int(encoding.Int64, 86400), stats.Value{}},
		{"i32 < 2.5", OpLt, stats.Int(encoding.Int32, 3), stats.Value{}},
		{"i32 >= -2.5", OpGe, stats.Int(encoding.Int32, -2), stats.Value{}},
		{"i32 < 5e9", OpAll, stats.Value{}, stats.Value{}},
		{"i32 > 5e9", OpNone, stats.Value{}, stats.Value{}},
		{"i32 = 5e9", OpNone, stats.Value{}, stats.Value{}},
		{"i32 != 5e9", OpAll, stats.Value{}, stats.Value{}},
		{"i32 = 2.5", OpNone, stats.Value{}, stats.Value{}},
		{"i32 < -2147483648", OpNone, stats.Value{}, stats.Value{}},
		{"i32 <= -2147483648", OpLe, stats.Int(encoding.Int32, math.MinInt32), stats.Value{}},
		{"i32 >= -2147483648", OpAll, stats.Value{}, stats.Value{}},
		{"i32 BETWEEN -1e20 AND 1e20", OpAll, stats.Value{}, stats.Value{}},
		{"i32 BETWEEN -1e20 AND 5", OpBetween, stats.Int(encoding.Int32, math.MinInt32), stats.Int(encoding.Int32, 5)},
		{"i32 BETWEEN 2.1 AND 2.9", OpNone, stats.Value{}, stats.Value{}},
		{"u8 > -1", OpAll, stats.Value{}, stats.Value{}},
		{"u8 < 0", OpNone, stats.Value{}, stats.Value{}},
		{"u64 = 18446744073709551615", OpEq, stats.Uint(encoding.Uint64, math.MaxUint64), stats.Value{}},
		{"i64 = 9223372036854775808", OpNone, stats.Value{}, stats.Value{}},
		{"f32 = 0.1", OpEq, stats.Float(encoding.Float32, float64(float32(0.1))), stats.Value{}},
		{"f64 < 1e400", OpLt, stats.Float(encoding.Float64, math.Inf(1)), stats.Value{}},
		{"b", OpEq, stats.Bool(true), stats.Value{}},
		{"b != FALSE", OpNe, stats.Bool(false), stats.Value{}},
		{"s >= 'abc'", OpGe, stats.Bytes([]byte("abc")), stats.Value{}},
		{"s LIKE 'ab%'", OpPrefix, stats.Bytes([]byte("ab")), stats.Value{}},
		{"a.b.c = 3", OpEq, stats.Int(encoding.Int16, 3), stats.Value{}},
		// times of day and durations: text in the column's terms, numbers in its unit
		{"tod_s > '00:00:01.5'", OpGt, stats.Int(encoding.Int32, 1), stats.Value{}},
		{"tod_s >= '00:00:01.5'", OpGe, stats.Int(encoding.Int32, 2), stats.Value{}},
		{"tod_s = '00:00:01.5'", OpNone, stats.Value{}, stats.Value{}},
		{"tod_s BETWEEN '12:00' AND '13:00:00'", OpBetween, stats.Int(encoding.Int32, 43200), stats.Int(encoding.Int32, 46800)},
		{"tod_s < '1h30m'", OpLt, stats.Int(encoding.Int32, 5400), stats.Value{}},
		{"tod_s < 90", OpLt, stats.Int(encoding.Int32, 90), stats.Value{}},
		{"tod_ns = '23:59:59.999999999'", OpEq, stats.Int(encoding.Int64, 86399999999999), stats.Value{}},
		{"dur_ms > '-1.5s'", OpGt, stats.Int(encoding.Int64, -1500), stats.Value{}},
		{"dur_ms <= '1us'", OpLe, stats.Int(encoding.Int64, 0), stats.Value{}},
		{"dur_ms IN ('1h', 5)", OpIn, stats.Value{}, stats.Value{}},
	}
	for _, c := range cases {
		l := leafOf(t, c.where)
		if l.Op != c.op {
			t.Errorf("%q: op %v, want %v", c.where, l.Op, c.op)
			continue
		}
		if c.a.Valid() && (!l.A.Equal(c.a) || l.A.Type != c.a.Type) {
			t.Errorf("%q: A = %v (%v), want %v (%v)", c.where, l.A, l.A.Type, c.a, c.a.Type)
		}
		if c.b.Valid() && !l.B.Equal(c.b) {
			t.Errorf("%q: B = %v, want %v", c.where, l.B, c.b)
		}
	}
	if l := leafOf(t, "a.b.c = 3"); l.Col.ID != 7 {
		t.Errorf("ID not carried: %d", l.Col.ID)
	}
	l := leafOf(t, "i32 IN (3, 1, 2.5, 5e9, 3, -1)")
	if l.Op != OpIn || len(l.Set) != 3 || l.Set[0].Int() != -1 || l.Set[2].Int() != 3 {
		t.Errorf("IN set %v", l.Set)
	}
	if l := leafOf(t, "i32 IN (2.5, 5e9)"); l.Op != OpNone {
		t.Errorf("IN with nothing representable: %v", l.Op)
	}
}

func TestBindErrors(t *testing.T) {
	cases := []struct{ where, frag string }{
		{"l_shipdate = 'abc'", "l_shipdate is a date; cannot compare with 'abc'"},
		{"l_shipdate = 5", "l_shipdate is a date; cannot compare with 5"},
		{"price = 'x'", "price is a decimal with scale 2; cannot compare with 'x'"},
		{"i32 = 'x'", "i32 is an int32; cannot compare with 'x'"},
		{"i32 = DATE '2000-01-01'", "i32 is an int32; cannot compare with DATE '2000-01-01'"},
		{"s = 5", "s is a string; cannot compare with 5"},
		{"f64 = TRUE", "f64 is a float64; cannot compare with TRUE"},
		{"b = 1", "b is a bool; cannot compare with 1"},
		{"i32 LIKE 'a%'", "LIKE needs a string column; i32 is an int32"},
		{"nope = 1", "unknown column nope"},
		{"ts_ms > 'yesterday'", "ts_ms is a timestamp; cannot compare with 'yesterday'"},
		{"tod_s > '25:00:00'", "tod_s is a time of day; cannot compare with '25:00:00' (write times of day as 'HH:MM:SS[.fffffffff]')"},
		{"tod_s > '12:00+01:00'", "tod_s is a time of day"},
		{"tod_s = DATE '2000-01-01'", "tod_s is a time of day"},
		{"dur_ms > '5 minutes'", "dur_ms is a duration; cannot compare with '5 minutes' (write durations"},
	}
	for _, c := range cases {
		e, err := Parse(c.where)
		if err != nil {
			t.Fatalf("Parse(%q): %v", c.where, err)
		}
		_, err = Bind(e, lookup)
		if err == nil || !strings.Contains(err.Error(), c.frag) {
			t.Errorf("Bind(%q) = %v, want %q", c.where, err, c.frag)
		}
	}
	for _, text := range []string{"1/2", "0x10", "1e999999", "--1", ".", "1e", "inf", "1.2.3"} {
		l := &Leaf{Path: "i32", Op: OpEq, Lits: []Literal{{Kind: LitNumber, Text: text}}}
		if _, err := Bind(l, lookup); err == nil {
			t.Errorf("hand-built number %q accepted", text)
		}
	}
	bad := func(p string) (ColumnInfo, bool) {
		return ColumnInfo{Type: encoding.Float64, Logical: LogicalDate}, true
	}
	if _, err := Bind(&Leaf{Path: "x", Op: OpIsNull}, bad); err == nil {
		t.Error("date stored as float64 accepted")
	}
}

func TestPredOutOfRange(t *testing.T) {
	// int32col < 5e9 must be all-true, not wrapped.
	p, ok := leafOf(t, "i32 < 5e9").Pred().(*encoding.Pred[int32])
	if !ok {
		t.Fatalf("pred type %T", leafOf(t, "i32 < 5e9").Pred())
	}
	for _, v := range []int32{math.MinInt32, -1, 0, math.MaxInt32} {
		if !p.Match(v) {
			t.Errorf("int32 < 5e9 rejects %d", v)
		}
	}
	p = leafOf(t, "i32 = 5e9").Pred().(*encoding.Pred[int32])
	for _, v := range []int32{math.MinInt32, 705032704, math.MaxInt32} {
		if p.Match(v) {
			t.Errorf("int32 = 5e9 accepts %d", v)
		}
	}
	if _, ok := leafOf(t, "f32 < 1").Pred().(*encoding.Pred[float32]); !ok {
		t.Error("float32 pred type")
	}
	if bp, ok := leafOf(t, "s IN ('b', 'a', 'b')").Pred().(*encoding.BytesPred); !ok || len(bp.Set) != 2 || string(bp.Set[0]) != "a" {
		t.Errorf("bytes IN pred %+v", bp)
	}
	if leafOf(t, "s IS NULL").Pred() != nil || leafOf(t, "b").Pred() != nil {
		t.Error("IS NULL / bool leaves must have no encoding predicate")
	}
	if p := leafOf(t, "u64 > 5").Pred().(*encoding.Pred[uint64]); p.Op != encoding.OpGt || p.A != 5 {
		t.Errorf("u64 pred %+v", p)
	}
}

func TestNormalize(t *testing.T) {
	cases := []struct{ in, want string }{
		{"NOT (i32 < 5 AND s = 'a')", "i32 >= 5 OR s != 'a'"},
		{"NOT (i32 IS NULL OR i64 > 3)", "i32 IS NOT NULL AND i64 <= 3"},
		{"NOT NOT i32 = 1", "i32 = 1"},
		{"NOT f64 < 1", "NOT f64 < 1"},
		{"NOT f64 IS NULL", "f64 IS NOT NULL"},
		{"i32 NOT BETWEEN 1 AND 5", "i32 < 1 OR i32 > 5"},
		{"s NOT IN ('a')", "NOT s IN ('a')"},
		{"TRUE AND i32 = 1", "i32 = 1"},
		{"FALSE AND i32 = 1", "FALSE"},
		{"NOT (FALSE OR i32 = 1) OR TRUE", "TRUE"},
		{"(i32 = 1 AND (i64 = 2 AND i8 = 3))", "i32 = 1 AND i64 = 2 AND i8 = 3"},
	}
	for _, c := range cases {
		if got := mustBind(t, c.in).String(); got != c.want {
			t.Errorf("Bind(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestColumns(t *testing.T) {
	e, _ := Parse("a = 1 AND (b.c > 2 OR a < 0) AND NOT d IS NULL")
	if got := strings.Join(Columns(e), ","); got != "a,b.c,d" {
		t.Errorf("Columns = %s", got)
	}
}

// TestBindErrorHints: a quoted literal on a numeric column gets the hint
// to write it unquoted only when unquoted it is a number literal of the
// syntax; a decimal stored as 16-byte binary is named as the decimal it
// is, not as binary.
func TestBindErrorHints(t *testing.T) {
	look := func(p string) (ColumnInfo, bool) {
		if p == "dec" {
			return ColumnInfo{Type: encoding.Binary, Logical: LogicalWideDecimal, Precision: 38, Scale: 10}, true
		}
		return lookup(p)
	}
	const hint = "numbers are written without quotes"
	for _, c := range []struct {
		where, frag string
		hint        bool
	}{
		{"i32 = '12'", "(numbers are written without quotes: 12)", true},
		{"i32 = '-3'", "(numbers are written without quotes: -3)", true},
		{"f64 = '1.5e3'", "(numbers are written without quotes: 1.5e3)", true},
		{"f64 = '.5'", "(numbers are written without quotes: .5)", true},
		{"i32 = 'x'", "i32 is an int32; cannot compare with 'x'", false},
		{"i32 = '1 2'", "cannot compare with '1 2'", false},
		{"i32 = '1e999'", "cannot compare with '1e999'", false},
		{"f64 = 'NaN'", "f64 is a float64; cannot compare with 'NaN' (filters have no NaN literal", false},
		{"f32 = 'nan'", "no NaN literal", false},
		{"f64 = 'Infinity'", "cannot compare with 'Infinity'", false},
		{"i64 IN (1, 'two')", "cannot compare with 'two'", false},
		{"dec = '1.5'", "dec is a decimal(38,10); cannot compare with '1.5' (numbers are written without quotes: 1.5)", true},
		{"dec BETWEEN 1 AND DATE '2020-01-01'", "dec is a decimal(38,10); cannot compare with DATE", false},
		{"dec LIKE '1%'", "LIKE needs a string column; dec is a decimal(38,10)", false},
	} {
		e, err := Parse(c.where)
		if err != nil {
			t.Fatalf("Parse(%q): %v", c.where, err)
		}
		_, err = Bind(e, look)
		if err == nil || !strings.Contains(err.Error(), c.frag) || strings.Contains(err.Error(), hint) != c.hint ||
			strings.Contains(err.Error(), "binary") {
			t.Errorf("Bind(%q) = %v, want %q, hint %v", c.where, err, c.frag, c.hint)
		}
	}
	for _, where := range []string{"dec IS NULL", "NOT dec IS NOT NULL", "dec > 0", "dec BETWEEN 1 AND 2.5"} {
		e, err := Parse(where)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Bind(e, look); err != nil {
			t.Errorf("Bind(%q): %v", where, err)
		}
	}
}
