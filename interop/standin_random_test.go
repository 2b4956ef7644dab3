package interop_test

import (
	"fmt"
	"math/big"
	"math/rand"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal256"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata/interop"
)

// standInColumn makes a random column of n rows of one of the types
// import stores as a stand-in, nulls at rate p.
type standInColumn func(r *rand.Rand, n int, p float64) arrow.Array

func randomStandIns() map[string]standInColumn {
	mem := memory.DefaultAllocator
	null := func(r *rand.Rand, p float64) bool { return r.Float64() < p }
	return map[string]standInColumn{
		"fixed_size_list": func(r *rand.Rand, n int, p float64) arrow.Array {
			k := 1 + r.Intn(4)
			b := array.NewFixedSizeListBuilder(mem, int32(k), arrow.PrimitiveTypes.Int64)
			defer b.Release()
			vb := b.ValueBuilder().(*array.Int64Builder)
			for i := 0; i < n; i++ {
				if null(r, p) {
					b.AppendNull()
					continue
				}
				b.Append(true)
				for j := 0; j < k; j++ {
					if null(r, p) {
						vb.AppendNull()
					} else {
						vb.Append(r.Int63n(1000) - 500)
					}
				}
			}
			return b.NewArray()
		},
		"list_view": func(r *rand.Rand, n int, p float64) arrow.Array {
			b := array.NewListViewBuilder(mem, arrow.BinaryTypes.String)
			defer b.Release()
			vb := b.ValueBuilder().(*array.StringBuilder)
			for i := 0; i < n; i++ {
				if null(r, p) {
					b.AppendNull()
					continue
				}
				k := r.Intn(4)
				b.AppendWithSize(true, k)
				for j := 0; j < k; j++ {
					vb.Append(fmt.Sprint(r.Intn(50)))
				}
			}
			return b.NewArray()
		},
		"dictionary": func(r *rand.Rand, n int, p float64) arrow.Array {
			dt := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int16, ValueType: arrow.PrimitiveTypes.Float64}
			b := array.NewDictionaryBuilder(mem, dt).(*array.Float64DictionaryBuilder)
			defer b.Release()
			for i := 0; i < n; i++ {
				if null(r, p) {
					b.AppendNull()
				} else {
					if err := b.Append(float64(r.Intn(9)) / 4); err != nil {
						panic(err)
					}
				}
			}
			return b.NewArray()
		},
		"run_end_encoded": func(r *rand.Rand, n int, p float64) arrow.Array {
			eb := array.NewInt32Builder(mem)
			defer eb.Release()
			vb := array.NewStringBuilder(mem)
			defer vb.Release()
			for at := 0; at < n; {
				at += 1 + r.Intn(20)
				eb.Append(int32(min(at, n)))
				if null(r, p) {
					vb.AppendNull()
				} else {
					vb.Append(fmt.Sprint("v", r.Intn(5)))
				}
			}
			ea, va := eb.NewArray(), vb.NewArray()
			defer ea.Release()
			defer va.Release()
			return array.NewRunEndEncodedArray(ea, va, n, 0)
		},
		"union": func(r *rand.Rand, n int, p float64) arrow.Array {
			tb := array.NewInt8Builder(mem)
			defer tb.Release()
			ib := array.NewInt32Builder(mem)
			defer ib.Release()
			sb := array.NewStringBuilder(mem)
			defer sb.Release()
			for i := 0; i < n; i++ {
				tb.Append(int8(2 * r.Intn(2)))
				for _, b := range []array.Builder{ib, sb} {
					if null(r, p) {
						b.AppendNull()
					} else if x, ok := b.(*array.Int32Builder); ok {
						x.Append(r.Int31())
					} else {
						b.(*array.StringBuilder).Append(fmt.Sprint(r.Intn(99)))
					}
				}
			}
			ta, ia, sa := tb.NewArray(), ib.NewArray(), sb.NewArray()
			defer ta.Release()
			defer ia.Release()
			defer sa.Release()
			u, err := array.NewSparseUnionFromArraysWithFieldCodes(ta, []arrow.Array{ia, sa}, []string{"n", "s"}, []arrow.UnionTypeCode{0, 2})
			if err != nil {
				panic(err)
			}
			return u
		},
		"interval": func(r *rand.Rand, n int, p float64) arrow.Array {
			b := array.NewMonthDayNanoIntervalBuilder(mem)
			defer b.Release()
			for i := 0; i < n; i++ {
				if null(r, p) {
					b.AppendNull()
				} else {
					b.Append(arrow.MonthDayNanoInterval{Months: r.Int31n(100) - 50, Days: r.Int31n(60), Nanoseconds: r.Int63()})
				}
			}
			return b.NewArray()
		},
		"decimal256": func(r *rand.Rand, n int, p float64) arrow.Array {
			dt := &arrow.Decimal256Type{Precision: 60, Scale: int32(r.Intn(30))}
			b := array.NewDecimal256Builder(mem, dt)
			defer b.Release()
			for i := 0; i < n; i++ {
				if null(r, p) {
					b.AppendNull()
					continue
				}
				v := new(big.Int).Rand(r, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(1+r.Intn(60))), nil))
				if r.Intn(2) == 0 {
					v.Neg(v)
				}
				b.Append(decimal256.FromBigInt(v))
			}
			return b.NewArray()
		},
	}
}

// TestStandInsRandom: random columns of every stand-in type, alone and
// in a struct, random lengths and null rates, through import, a Strata
// file and export (roundTripStandIn); and, for the types import converts,
// random slices through CoerceRecord and RestoreRecord in memory.
func TestStandInsRandom(t *testing.T) {
	gens := randomStandIns()
	names := []string{"fixed_size_list", "list_view", "dictionary", "run_end_encoded", "union", "interval", "decimal256"}
	for seed := int64(0); seed < 24; seed++ {
		r := rand.New(rand.NewSource(seed))
		n := r.Intn(300)
		p := []float64{0, 0.1, 0.5, 1}[r.Intn(4)]
		var fields []arrow.Field
		var cols []arrow.Array
		for _, name := range names {
			c := gens[name](r, n, p)
			if r.Intn(3) == 0 {
				st := arrow.StructOf(arrow.Field{Name: "x", Type: c.DataType(), Nullable: true})
				sd := array.NewData(st, n, []*memory.Buffer{nil}, []arrow.ArrayData{c.Data()}, 0, 0)
				c.Release()
				c = array.MakeFromData(sd)
				sd.Release()
			}
			fields = append(fields, arrow.Field{Name: name, Type: c.DataType(), Nullable: true})
			cols = append(cols, c)
		}
		sch := arrow.NewSchema(fields, nil)
		rec := array.NewRecord(sch, cols, int64(n))
		for _, c := range cols {
			c.Release()
		}
		t.Run(fmt.Sprintf("seed%d_rows%d_nulls%v", seed, n, p), func(t *testing.T) {
			roundTripStandIn(t, rec, 0, nil, "out.arrow")
			if n < 2 {
				return
			}
			lo := int64(r.Intn(n))
			hi := lo + int64(r.Intn(n-int(lo))) + 1
			part := rec.NewSlice(lo, hi)
			defer part.Release()
			ssch, _ := interop.StorableSchema(sch)
			stored, err := interop.CoerceRecord(memory.DefaultAllocator, part, ssch)
			if err != nil {
				t.Fatalf("coerce rows %d..%d: %v", lo, hi, err)
			}
			defer stored.Release()
			// (fixed-size lists and list views pass through unconverted:
			// compare values in canonical form, not types)
			for i, f := range sch.Fields() {
				cw, err1 := canonColumn([]arrow.Record{part}, i, f.Type)
				cg, err2 := canonColumn([]arrow.Record{stored}, i, ssch.Field(i).Type)
				if err1 != nil || err2 != nil {
					t.Fatal(err1, err2)
				}
				if err := sameValues(cw, cg); err != nil {
					t.Errorf("coerced rows %d..%d, column %q: %v", lo, hi, f.Name, err)
				}
				cw.Release()
				cg.Release()
			}
			back, err := interop.RestoreRecord(memory.DefaultAllocator, stored, sch)
			if err != nil {
				t.Fatalf("restore rows %d..%d: %v", lo, hi, err)
			}
			defer back.Release()
			sameColumns(t, fmt.Sprintf("rows %d..%d restored", lo, hi), []arrow.Record{part}, sch, []arrow.Record{back}, sch)
		})
		rec.Release()
	}
}
