package filter

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"strata/encoding"
	"strata/stats"
)

// column is one randomly generated column of a chunk.
type column struct {
	name  string
	info  ColumnInfo
	vals  any
	valid []bool
}

func valueAt(vals any, i int) stats.Value {
	switch v := vals.(type) {
	case []bool:
		return stats.Of(v[i])
	case []int8:
		return stats.Of(v[i])
	case []int32:
		return stats.Of(v[i])
	case []int64:
		return stats.Of(v[i])
	case []uint16:
		return stats.Of(v[i])
	case []float32:
		return stats.Of(v[i])
	case []float64:
		return stats.Of(v[i])
	case *encoding.Bytes:
		return stats.Bytes(v.Value(i))
	}
	panic("type")
}

func sliceCol(vals any, i, j int) any {
	switch v := vals.(type) {
	case []bool:
		return v[i:j]
	case []int8:
		return v[i:j]
	case []int32:
		return v[i:j]
	case []int64:
		return v[i:j]
	case []uint16:
		return v[i:j]
	case []float32:
		return v[i:j]
	case []float64:
		return v[i:j]
	case *encoding.Bytes:
		s := v.Slice(i, j)
		return &s
	}
	panic("type")
}

const baseDay = 10000 // 1997-05-19

var dayMs = int64(86400000)

// gen builds a chunk of n rows. Values cluster so that predicates hit, miss
// and cover chunks.
func gen(r *rand.Rand, n int) []column {
	valid := func() []bool {
		switch r.IntN(5) {
		case 0:
			return make([]bool, n)
		case 1, 2:
			return nil
		}
		v := make([]bool, n)
		for i := range v {
			v[i] = r.IntN(4) != 0
		}
		return v
	}
	// pick draws a value index: constant, few distinct or spread.
	shape := func() func() int {
		c := r.IntN(41) - 20
		switch r.IntN(3) {
		case 0:
			return func() int { return c }
		case 1:
			return func() int { return c + r.IntN(3) }
		}
		w := 1 + r.IntN(20)
		return func() int { return c + r.IntN(2*w+1) - w }
	}
	var cols []column
	{
		p, v := shape(), make([]int32, n)
		for i := range v {
			v[i] = int32(p())
			if r.IntN(50) == 0 {
				v[i] = []int32{math.MinInt32, math.MaxInt32}[r.IntN(2)]
			}
		}
		cols = append(cols, column{"i32", ColumnInfo{Type: encoding.Int32}, v, valid()})
	}
	{
		p, v := shape(), make([]int8, n)
		for i := range v {
			v[i] = int8(p() * 6)
		}
		cols = append(cols, column{"i8", ColumnInfo{Type: encoding.Int8}, v, valid()})
	}
	{
		p, v := shape(), make([]uint16, n)
		for i := range v {
			v[i] = uint16(p() + 20)
		}
		cols = append(cols, column{"u16", ColumnInfo{Type: encoding.Uint16}, v, valid()})
	}
	{
		p, v := shape(), make([]int64, n)
		for i := range v {
			v[i] = int64(p()) * 25
		}
		cols = append(cols, column{"price", ColumnInfo{Type: encoding.Int64, Logical: LogicalDecimal, Scale: 2}, v, valid()})
	}
	{
		p, v := shape(), make([]int32, n)
		for i := range v {
			v[i] = int32(baseDay + p())
		}
		cols = append(cols, column{"d", ColumnInfo{Type: encoding.Int32, Logical: LogicalDate}, v, valid()})
	}
	{
		p, v := shape(), make([]int64, n)
		for i := range v {
			v[i] = baseDay*dayMs + int64(p())*dayMs/4 + int64(r.IntN(3))
		}
		cols = append(cols, column{"ts", ColumnInfo{Type: encoding.Int64, Logical: LogicalTimestamp, Unit: Milli}, v, valid()})
	}
	special := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1)}
	{
		p, v := shape(), make([]float64, n)
		nanRate := r.IntN(3)
		for i := range v {
			v[i] = float64(p()) / 4
			if nanRate > 0 && r.IntN(8/nanRate) == 0 {
				v[i] = special[r.IntN(len(special))]
			}
		}
		cols = append(cols, column{"f64", ColumnInfo{Type: encoding.Float64}, v, valid()})
	}
	{
		p, v := shape(), make([]float32, n)
		for i := range v {
			v[i] = float32(p()) / 10
			if r.IntN(10) == 0 {
				v[i] = float32(special[r.IntN(len(special))])
			}
		}
		cols = append(cols, column{"f32", ColumnInfo{Type: encoding.Float32}, v, valid()})
	}
	{
		v := make([]bool, n)
		k := r.IntN(3)
		for i := range v {
			v[i] = k == 1 || k == 2 && r.IntN(2) == 0
		}
		cols = append(cols, column{"b", ColumnInfo{Type: encoding.Bool}, v, valid()})
	}
	{
		var v encoding.Bytes
		alpha := []string{"a", "b", "c"}[:1+r.IntN(3)]
		long := r.IntN(4) == 0
		for i := 0; i < n; i++ {
			var sb strings.Builder
			if long {
				sb.WriteString(strings.Repeat("b", 62))
				if r.IntN(2) == 0 {
					sb.WriteString("\xff\xff\xff")
				}
			}
			for k := r.IntN(4); k > 0; k-- {
				sb.WriteString(alpha[r.IntN(len(alpha))])
			}
			v.Append([]byte(sb.String()))
		}
		if n == 0 {
			v.Offsets = []int32{0}
		}
		cols = append(cols, column{"s", ColumnInfo{Type: encoding.Binary, Logical: LogicalString}, &v, valid()})
	}
	return cols
}

// literal returns random literal text for a column.
func literal(r *rand.Rand, name string) string {
	c := r.IntN(41) - 20
	switch name {
	case "i32":
		return []string{fmt.Sprint(c), fmt.Sprint(c), fmt.Sprint(c), "5e9", "-5e9", fmt.Sprintf("%d.5", c), "2147483647", "-2147483648"}[r.IntN(8)]
	case "i8":
		return []string{fmt.Sprint(c * 6), fmt.Sprint(c * 7), "127", "-128", "200", "-1e3"}[r.IntN(6)]
	case "u16":
		return []string{fmt.Sprint(c + 20), fmt.Sprint(c), "-1", "0", "65536", "1e10"}[r.IntN(6)]
	case "price":
		return fmt.Sprintf("%.3f", float64(c*25+r.IntN(3)-1)/100+float64(r.IntN(2))*0.005)
	case "d":
		t := time.Unix((baseDay+int64(c))*86400, 0).UTC()
		if r.IntN(4) == 0 {
			return "TIMESTAMP '" + t.Add(time.Duration(r.IntN(24))*time.Hour).Format("2006-01-02 15:04:05") + "'"
		}
		if r.IntN(4) == 0 {
			return "'" + t.Format("2006-01-02") + "'"
		}
		return "DATE '" + t.Format("2006-01-02") + "'"
	case "ts":
		t := time.UnixMilli(baseDay*dayMs + int64(c)*dayMs/4 + int64(r.IntN(3))).UTC()
		if r.IntN(3) == 0 {
			t = t.Add(time.Duration(r.IntN(2000)) * time.Microsecond)
		}
		if r.IntN(5) == 0 {
			return "DATE '" + t.Format("2006-01-02") + "'"
		}
		return "TIMESTAMP '" + t.Format("2006-01-02 15:04:05.999999") + "'"
	case "f64":
		return []string{fmt.Sprint(float64(c) / 4), fmt.Sprint(float64(c) / 3), "0", "-0", "1e400", "-1e400"}[r.IntN(6)]
	case "f32":
		return []string{fmt.Sprint(float64(c) / 10), "0.1", "-0", "1e39", "3.4028235e38"}[r.IntN(5)]
	case "b":
		return []string{"TRUE", "FALSE"}[r.IntN(2)]
	case "s":
		var sb strings.Builder
		if r.IntN(4) == 0 {
			sb.WriteString(strings.Repeat("b", 62-r.IntN(2)))
			if r.IntN(2) == 0 {
				sb.WriteString("\xff")
			}
		}
		for k := r.IntN(3); k > 0; k-- {
			sb.WriteByte("abcd"[r.IntN(4)])
		}
		return quote(sb.String())
	}
	panic(name)
}

var colNames = []string{"i32", "i8", "u16", "price", "d", "ts", "f64", "f32", "b", "s"}

func randLeaf(r *rand.Rand) string {
	col := colNames[r.IntN(len(colNames))]
	lit := func() string { return literal(r, col) }
	switch k := r.IntN(14); {
	case k < 6:
		return col + " " + []string{"=", "!=", "<", "<=", ">", ">="}[k] + " " + lit()
	case k == 6:
		return col + " BETWEEN " + lit() + " AND " + lit()
	case k == 7:
		return col + " NOT BETWEEN " + lit() + " AND " + lit()
	case k == 8 || k == 9:
		parts := []string{lit()}
		for j := r.IntN(4); j > 0; j-- {
			parts = append(parts, lit())
		}
		not := ""
		if k == 9 {
			not = "NOT "
		}
		return col + " " + not + "IN (" + strings.Join(parts, ", ") + ")"
	case k == 10:
		return col + " IS NULL"
	case k == 11:
		return col + " IS NOT NULL"
	default:
		if col != "s" {
			return lit() + " < " + col
		}
		l := lit()
		l = l[:len(l)-1] + "%'"
		if k == 13 {
			return "s NOT LIKE " + l
		}
		return "s LIKE " + l
	}
}

func randWhere(r *rand.Rand, depth int) string {
	if depth == 0 || r.IntN(3) == 0 {
		return randLeaf(r)
	}
	switch r.IntN(4) {
	case 0:
		return "NOT (" + randWhere(r, depth-1) + ")"
	case 1:
		return "(" + randWhere(r, depth-1) + " OR " + randWhere(r, depth-1) + ")"
	}
	return "(" + randWhere(r, depth-1) + " AND " + randWhere(r, depth-1) + ")"
}

// oracle evaluates a bound leaf on an integer-domain value by exact
// rational comparison with its original literals, independently of the
// rounding and clamping Bind performs.
func oracle(t *testing.T, l *Leaf, v stats.Value) (bool, bool) {
	if l.Col.Type.IsFloat() || l.Col.Type == encoding.Binary || len(l.Lits) == 0 {
		return false, false
	}
	var x *big.Rat
	switch {
	case l.Col.Type == encoding.Bool:
		x = new(big.Rat)
		if v.Bool() {
			x.SetInt64(1)
		}
	case l.Col.Type.IsSigned():
		x = new(big.Rat).SetInt64(v.Int())
	default:
		x = new(big.Rat).SetInt(new(big.Int).SetUint64(v.Uint()))
	}
	lits := make([]*big.Rat, len(l.Lits))
	for i, lit := range l.Lits {
		r, err := l.rat(lit)
		if err != nil {
			t.Fatalf("oracle rat: %v", err)
		}
		lits[i] = r
	}
	c := x.Cmp(lits[0])
	op := l.Op
	switch op {
	case OpAll, OpNone:
		return false, false // the original operator is gone; covered by row checks
	case OpEq:
		return c == 0, true
	case OpNe:
		return c != 0, true
	case OpLt:
		return c < 0, true
	case OpLe:
		return c <= 0, true
	case OpGt:
		return c > 0, true
	case OpGe:
		return c >= 0, true
	case OpBetween:
		return c >= 0 && x.Cmp(lits[1]) <= 0, true
	case OpIn:
		for _, r := range lits {
			if x.Cmp(r) == 0 {
				return true, true
			}
		}
		return false, true
	}
	return false, false
}

func TestPruneNeverWrong(t *testing.T) {
	r := rand.New(rand.NewPCG(42, 1))
	var outcomes [3]int
	bloomSkips, oracleChecks := 0, 0
	iters := 1500
	if testing.Short() {
		iters = 300
	}
	for iter := 0; iter < iters; iter++ {
		n := r.IntN(30)
		cols := gen(r, n)
		byName := map[string]*column{}
		for i := range cols {
			byName[cols[i].name] = &cols[i]
		}
		look := func(p string) (ColumnInfo, bool) {
			c, ok := byName[p]
			if !ok {
				return ColumnInfo{}, false
			}
			return c.info, true
		}
		// Three ways to get statistics: direct, serialized, merged halves.
		h := r.IntN(n + 1)
		st := make([]map[string]stats.ColumnStats, 3)
		blooms := map[string]*stats.Bloom{}
		for k := range st {
			st[k] = map[string]stats.ColumnStats{}
		}
		for _, c := range cols {
			s := stats.FromValues(c.vals, c.valid)
			st[0][c.name] = s
			var d stats.ColumnStats
			if err := d.UnmarshalBinary(s.AppendBinary(nil)); err != nil {
				t.Fatalf("stats round trip: %v", err)
			}
			st[1][c.name] = d
			var va, vb []bool
			if c.valid != nil {
				va, vb = c.valid[:h], c.valid[h:]
			}
			m := stats.FromValues(sliceCol(c.vals, 0, h), va)
			if err := m.Merge(stats.FromValues(sliceCol(c.vals, h, n), vb)); err != nil {
				t.Fatal(err)
			}
			st[2][c.name] = m
			f := stats.NewBloom(n, 0.01)
			f.InsertValues(c.vals, c.valid)
			blooms[c.name] = f
		}
		for q := 0; q < 10; q++ {
			where := randWhere(r, 3)
			e, err := Parse(where)
			if err != nil {
				t.Fatalf("Parse(%q): %v", where, err)
			}
			b, err := Bind(e, look)
			if err != nil {
				t.Fatalf("Bind(%q): %v", where, err)
			}
			// Binding must not change the meaning: evaluate the unnormalized
			// tree too.
			raw, err := bind(e, func(l *Leaf) (ColumnInfo, bool) { return look(l.Path) })
			if err != nil {
				t.Fatal(err)
			}
			matches := 0
			for i := 0; i < n; i++ {
				get := func(p string) (stats.Value, bool) {
					c := byName[p]
					if c.valid != nil && !c.valid[i] {
						return stats.Value{}, true
					}
					return valueAt(c.vals, i), false
				}
				got := EvalRow(b, get)
				if got != EvalRow(raw, get) {
					t.Fatalf("%q: normalized %q disagrees on row %d", where, b, i)
				}
				if got {
					matches++
				}
				Walk(raw, func(l *Leaf) {
					v, null := get(l.Path)
					if null {
						return
					}
					if want, ok := oracle(t, l, v); ok {
						oracleChecks++
						if l.Match(v) != want {
							t.Fatalf("leaf %q bound as %v %v/%v/%v: Match(%v) = %v, oracle %v", l, l.Op, l.A, l.B, l.Set, v, !want, want)
						}
					}
				})
			}
			for k := range st {
				tri := Prune(b, func(p string) (stats.ColumnStats, bool) { s, ok := st[k][p]; return s, ok })
				if k == 0 {
					outcomes[tri]++
				}
				if tri == None && matches != 0 || tri == All && matches != n {
					t.Fatalf("%q (bound %q) stats#%d: Prune = %v but %d of %d rows match\nstats: %+v", where, b, k, tri, matches, n, statsDump(st[k], b))
				}
				// The raw (NOT not pushed down) tree prunes soundly too.
				tri = Prune(raw, func(p string) (stats.ColumnStats, bool) { s, ok := st[k][p]; return s, ok })
				if tri == None && matches != 0 || tri == All && matches != n {
					t.Fatalf("%q raw stats#%d: Prune = %v but %d of %d rows match", where, k, tri, matches, n)
				}
			}
			if !MayContain(b, func(p string) (*stats.Bloom, bool) { f, ok := blooms[p]; return f, ok }) {
				bloomSkips++
				if matches != 0 {
					t.Fatalf("%q: MayContain false but %d rows match", where, matches)
				}
			}
		}
	}
	t.Logf("prune outcomes none=%d some=%d all=%d; bloom skips=%d; oracle checks=%d", outcomes[None], outcomes[Some], outcomes[All], bloomSkips, oracleChecks)
	if outcomes[None] < iters/2 || outcomes[All] < iters/10 || bloomSkips == 0 {
		t.Errorf("random test too weak: %v, bloom skips %d", outcomes, bloomSkips)
	}
}

func statsDump(st map[string]stats.ColumnStats, e Expr) string {
	var sb strings.Builder
	for _, c := range Columns(e) {
		s := st[c]
		fmt.Fprintf(&sb, "%s: rows=%d nulls=%d nans=%d minmax=%v [%v, %v] trunc=%v/%v\n", c, s.Rows, s.Nulls, s.NaNs, s.HasMinMax, s.Min, s.Max, s.MinTruncated, s.MaxTruncated)
	}
	return sb.String()
}

func TestPruneCases(t *testing.T) {
	sOf := func(m map[string]stats.ColumnStats) func(string) (stats.ColumnStats, bool) {
		return func(p string) (stats.ColumnStats, bool) { s, ok := m[p]; return s, ok }
	}
	allNull := stats.FromValues([]int32{0, 0}, []bool{false, false})
	some := stats.FromValues([]int32{1, 5}, nil)
	withNull := stats.FromValues([]int32{1, 5}, []bool{true, false})
	nans := stats.FromValues([]float64{math.NaN(), math.NaN()}, nil)
	cases := []struct {
		where string
		st    stats.ColumnStats
		want  Tri
	}{
		{"i32 IS NULL", allNull, All},
		{"i32 IS NOT NULL", allNull, None},
		{"i32 = 1", allNull, None},
		{"NOT i32 = 1", allNull, None},
		{"i32 > 0", some, All},
		{"i32 > 0", withNull, Some},
		{"NOT i32 > 0", some, None},
		{"i32 > 5", some, None},
		{"i32 < 5e9", some, All},
		{"i32 = 5e9", some, None},
		{"i32 BETWEEN 1 AND 5 AND i32 IS NOT NULL", some, All},
		{"i32 = 3 OR i32 != 3", some, Some},
		{"f64 != 1", nans, All},
		{"f64 < 1", nans, None},
		{"NOT f64 < 1", nans, All},
		{"TRUE", some, All},
	}
	for _, c := range cases {
		b := mustBind(t, c.where)
		col := Columns(b)
		m := map[string]stats.ColumnStats{}
		for _, p := range col {
			m[p] = c.st
		}
		if got := Prune(b, sOf(m)); got != c.want {
			t.Errorf("Prune(%q) = %v, want %v", c.where, got, c.want)
		}
	}
	// Missing statistics: unknown.
	if got := Prune(mustBind(t, "i32 = 1"), sOf(nil)); got != Some {
		t.Errorf("no stats: %v", got)
	}
}

func TestMayContainBloom(t *testing.T) {
	f := stats.NewBloom(10, 0.01)
	f.InsertValues([]int32{1, 2, 3}, nil)
	bo := func(string) (*stats.Bloom, bool) { return f, true }
	for where, want := range map[string]bool{
		"i32 = 2":                true,
		"i32 = 1000":             false,
		"i32 IN (1000, 2)":       true,
		"i32 IN (1000, 2000)":    false,
		"i32 = 1000 OR i32 = 3":  true,
		"i32 = 1000 AND i32 > 0": false,
		"NOT i32 = 1000":         true,
		"i32 > 1000":             true,
		"i32 = 5e9":              false,
	} {
		if got := MayContain(mustBind(t, where), bo); got != want {
			t.Errorf("MayContain(%q) = %v, want %v", where, got, want)
		}
	}
}
