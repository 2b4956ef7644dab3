package randtable

import (
	"math"
	"regexp"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

func TestDeterministic(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	for seed := range uint64(30) {
		a, b := New(seed, Options{MaxDepth: 3, FlatMapKey: "flat"}), New(seed, Options{MaxDepth: 3, FlatMapKey: "flat"})
		sa, sb := a.Schema(4), b.Schema(4)
		if !sa.Equal(sb) {
			t.Fatalf("seed %d: schemas differ", seed)
		}
		ra, rb := a.Record(mem, sa, 50), b.Record(mem, sb, 50)
		if err := (Compare{}).Records(ra, rb); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if !array.RecordApproxEqual(ra, rb, array.WithNaNsEqual(true)) {
			t.Fatalf("seed %d: records differ", seed)
		}
		ra.Release()
		rb.Release()
	}
}

func floats(mem memory.Allocator, v ...float64) arrow.Array {
	b := array.NewFloat64Builder(mem)
	defer b.Release()
	for _, x := range v {
		if x == 42 {
			b.AppendNull()
		} else {
			b.Append(x)
		}
	}
	return b.NewArray()
}

func TestCompareLeaves(t *testing.T) {
	mem := memory.NewGoAllocator()
	f := arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Float64, Nullable: true}
	base := floats(mem, math.NaN(), 0, 42, 1)
	for _, c := range []struct {
		other arrow.Array
		equal bool
	}{
		{floats(mem, math.Float64frombits(0x7ff8000000000001), 0, 42, 1), true}, // any NaN
		{floats(mem, math.NaN(), math.Copysign(0, -1), 42, 1), false},           // -0 is not +0
		{floats(mem, math.NaN(), 0, 0, 1), false},                               // null vs value
		{floats(mem, math.NaN(), 0, 42, 2), false},
	} {
		if err := (Compare{}).Arrays(f, base, c.other); (err == nil) != c.equal {
			t.Errorf("%v vs %v: %v", base, c.other, err)
		}
	}
}

func TestCompareMaps(t *testing.T) {
	mem := memory.NewGoAllocator()
	mt := arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int32)
	mk := func(keys ...string) arrow.Array {
		b := array.NewMapBuilderWithType(mem, mt)
		defer b.Release()
		b.Append(true)
		for i, k := range keys {
			b.KeyBuilder().(*array.StringBuilder).Append(k)
			b.ItemBuilder().(*array.Int32Builder).Append(int32(k[0]) + int32(i*0))
		}
		return b.NewArray()
	}
	f := arrow.Field{Name: "m", Type: mt}
	a, b := mk("a", "b"), mk("b", "a")
	if err := (Compare{}).Arrays(f, a, b); err == nil {
		t.Error("ordered compare accepted reordered entries")
	}
	flat := Compare{Unordered: func(arrow.Field) bool { return true }}
	if err := flat.Arrays(f, a, b); err != nil {
		t.Errorf("unordered compare: %v", err)
	}
	if err := flat.Arrays(f, a, mk("a", "c")); err == nil {
		t.Error("unordered compare accepted another key")
	}
}

// TestNumberText checks that NumberText draws every form of number text
// over many string columns, each value of a column in its form but for
// strays, and that a seed's schema is the same with and without it.
func TestNumberText(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	forms := map[string]*regexp.Regexp{
		"digits":   regexp.MustCompile(`^[0-9]+$`),
		"plain":    regexp.MustCompile(`^-?(0|[1-9][0-9]*)$`),
		"grouped":  regexp.MustCompile(`^-?[1-9][0-9]{0,2}(,[0-9]{3})+$`),
		"decimals": regexp.MustCompile(`^-?(0|[1-9][0-9]*)\.[0-9]+$`),
	}
	seen := map[string]int{}
	leaves := []arrow.DataType{arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64}
	for seed := range uint64(40) {
		g := New(seed, Options{Leaves: leaves, NumberText: true})
		sch := g.Schema(6)
		rec := g.Record(mem, sch, 200)
		// the same seed without the option: the same schema
		h := New(seed, Options{Leaves: leaves})
		hsch := h.Schema(6)
		if !sch.Equal(hsch) {
			t.Fatalf("seed %d: NumberText changed the schema", seed)
		}
		for _, c := range rec.Columns() {
			a, ok := c.(*array.String)
			if !ok {
				continue
			}
			for i := 0; i < a.Len(); i++ {
				if a.IsNull(i) {
					continue
				}
				for name, re := range forms {
					if re.MatchString(a.Value(i)) {
						seen[name]++
					}
				}
			}
		}
		rec.Release()
	}
	for name := range forms {
		if seen[name] < 100 {
			t.Errorf("%s: %d values", name, seen[name])
		}
	}
}

// TestHexText checks that Options.HexText makes columns of every
// template, each value of a hex column fitting its template but for strays.
func TestHexText(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	var res []*regexp.Regexp
	for _, tm := range hexTemplates {
		if tm == "" {
			res = append(res, regexp.MustCompile(`^[0-9A-F]{1,6}$`))
			continue
		}
		p := regexp.QuoteMeta(tm)
		p = strings.NewReplacer("x", "[0-9a-f]", "X", "[0-9A-F]", "d", "[0-9]").Replace(p)
		res = append(res, regexp.MustCompile("^"+p+"$"))
	}
	seen := make([]int, len(hexTemplates))
	leaves := []arrow.DataType{arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64}
	for seed := range uint64(80) {
		g := New(seed, Options{Leaves: leaves, NumberText: true, HexText: true})
		sch := g.Schema(6)
		rec := g.Record(mem, sch, 200)
		for _, c := range rec.Columns() {
			a, ok := c.(*array.String)
			if !ok {
				continue
			}
			for i := 0; i < a.Len(); i++ {
				if a.IsNull(i) {
					continue
				}
				for k, re := range res {
					if re.MatchString(a.Value(i)) {
						seen[k]++
					}
				}
			}
		}
		rec.Release()
	}
	for k, n := range seen {
		if n < 100 {
			t.Errorf("template %q: %d values", hexTemplates[k], n)
		}
	}
}

// TestFieldText checks that Options.FieldText makes columns of every
// template and values at each edge (empty, without numbers, a run of more
// than 19 digits, more than 16 numbers), and leaves the schema as it is.
func TestFieldText(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	const more = `( \[[0-9]+(,[0-9]+){16,23}\])?$`
	res := []*regexp.Regexp{
		regexp.MustCompile(`^(GET|POST|PUT|DELETE) /api/v[1-3]/(users|orders|items)/[0-9]+ HTTP/1\.1` + more),
		regexp.MustCompile(`^\{"id":[0-9]+,"v":"[0-9]+\.[0-9]+\.[0-9]+","ok":(true|false)\}` + more),
		regexp.MustCompile(`^(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [0-3][0-9] [0-9]{4}` + more),
		regexp.MustCompile(`^[1-9][0-9]*km [NSEW]+ of [A-Za-z]+, [A-Za-z]+` + more),
		regexp.MustCompile(`^2[0-9]{3}-[01][0-9]-[0-3][0-9] [0-2][0-9]:[0-5][0-9]:[0-5][0-9]\.[0-9]{3} \[worker-[0-9]+\] took [0-9]+ ms` + more),
		regexp.MustCompile(`^v[0-9]+\.[0-9]+\.[0-9]+(-rc\.[0-9])?` + more),
		regexp.MustCompile(`^order #[0-9]+` + more),
		regexp.MustCompile(`^([0-9]+\.){3}[0-9]+:[0-9]+` + more),
	}
	if len(res) != len(fieldTemplates) {
		t.Fatalf("%d patterns for %d templates", len(res), len(fieldTemplates))
	}
	edges := map[string]*regexp.Regexp{
		"empty":        regexp.MustCompile(`^$`),
		"long run":     regexp.MustCompile(`[0-9]{20}`),
		"many numbers": regexp.MustCompile(`\[[0-9]+(,[0-9]+){16,23}\]$`),
	}
	var plain []string
	for _, p := range fieldPlain {
		plain = append(plain, regexp.QuoteMeta(p))
	}
	edges["no numbers"] = regexp.MustCompile(`^(` + strings.Join(plain, "|") + `)$`)
	seen := make([]int, len(fieldTemplates))
	seenEdge := map[string]int{}
	leaves := []arrow.DataType{arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64}
	for seed := range uint64(160) {
		opts := Options{Leaves: leaves, NumberText: true, HexText: true}
		h := New(seed, opts)
		opts.FieldText = true
		g := New(seed, opts)
		sch := g.Schema(6)
		if !sch.Equal(h.Schema(6)) {
			t.Fatalf("seed %d: FieldText changed the schema", seed)
		}
		rec := g.Record(mem, sch, 200)
		for _, c := range rec.Columns() {
			a, ok := c.(*array.String)
			if !ok {
				continue
			}
			for i := 0; i < a.Len(); i++ {
				if a.IsNull(i) {
					continue
				}
				for k, re := range res {
					if re.MatchString(a.Value(i)) {
						seen[k]++
					}
				}
				for name, re := range edges {
					if re.MatchString(a.Value(i)) {
						seenEdge[name]++
					}
				}
			}
		}
		rec.Release()
	}
	for k, n := range seen {
		if n < 100 {
			t.Errorf("template %q: %d values", fieldTemplates[k], n)
		}
	}
	for name := range edges {
		if seenEdge[name] < 10 {
			t.Errorf("%s: %d values", name, seenEdge[name])
		}
	}
	t.Logf("templates %v, edges %v", seen, seenEdge)
}

// TestRelated checks what Options.Related adds: followers whose values
// are their leader's plus a small difference (all but a few), and leaves
// on a common step, with a period, or walking.
func TestRelated(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	leaves := []arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int32, arrow.FixedWidthTypes.Date32, arrow.PrimitiveTypes.Float64}
	followers, stepped, walks := 0, 0, 0
	for seed := range uint64(60) {
		g := New(seed, Options{Leaves: leaves, Related: true})
		sch := g.Schema(5)
		rec := g.Record(mem, sch, 500)
		for i, f := range sch.Fields() {
			if k := f.Metadata.FindKey(FollowsKey); k >= 0 {
				followers++
				lead := rec.Column(sch.FieldIndices(f.Metadata.Values()[k])[0])
				far := 0
				for r := 0; r < int(rec.NumRows()); r++ {
					if rec.Column(i).IsNull(r) {
						t.Fatalf("seed %d: follower %s has a null", seed, f.Name)
					}
					d := leaderValue(rec.Column(i), r) - leaderValue(lead, r)
					if f.Type.ID() != arrow.INT64 {
						d = int64(int32(d)) // 32-bit values wrap
					}
					if d < -10 || d > 60 {
						far++
					}
				}
				if far > 5 {
					t.Errorf("seed %d: follower %s: %d of 500 values far from the leader", seed, f.Name, far)
				}
				continue
			}
			switch a := rec.Column(i).(type) {
			case *array.Int64:
				for _, step := range []int64{3, 25, 1000, 86400} {
					ok := a.Len()-a.NullN() > 10
					for r := 0; r < a.Len() && ok; r++ {
						ok = a.IsNull(r) || (a.Value(r)-1_000_000_007)%step == 0
					}
					if ok {
						stepped++
						break
					}
				}
			case *array.Float64:
				small := 0
				for r := 1; r < a.Len(); r++ {
					if a.IsValid(r) && a.IsValid(r-1) && math.Abs(a.Value(r)-a.Value(r-1)) < 2000 && a.Value(r) != a.Value(r-1) {
						small++
					}
				}
				if small > 100 {
					walks++
				}
			}
		}
		rec.Release()
	}
	if followers < 10 || stepped < 3 || walks < 3 {
		t.Errorf("followers %d, stepped int64 leaves %d, walks %d", followers, stepped, walks)
	}
}
