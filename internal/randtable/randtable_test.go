package randtable

import (
	"math"
	"regexp"
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
