package timeseries

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata/iox"
)

// adversarialAggData builds series of several lengths (some shorter than
// MinChunkRows, packed several to a unit) whose times repeat, also across
// unit edges, with measurements that are null at unit edges, null for
// whole units, NaN, infinite, -0 and +0, integers beyond 2^53 and float32.
func adversarialAggData(seed uint64) arrow.Record {
	rng := rand.New(rand.NewPCG(seed, 17))
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "s", Type: arrow.BinaryTypes.String},
		{Name: "t", Type: arrow.PrimitiveTypes.Int64},
		{Name: "f", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "g", Type: arrow.PrimitiveTypes.Float32, Nullable: true},
		{Name: "i", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "u", Type: arrow.PrimitiveTypes.Uint64, Nullable: true},
		{Name: "z", Type: arrow.PrimitiveTypes.Float64},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	defer b.Release()
	float := func() (float64, bool) {
		switch k := rng.IntN(20); {
		case k < 4:
			return 0, false
		case k == 4:
			return math.NaN(), true
		case k == 5:
			return math.Copysign(0, -1), true
		case k == 6:
			return 0, true
		case k == 7:
			return math.Inf(1 - 2*rng.IntN(2)), true
		}
		return math.Round(rng.NormFloat64()*1000) / 8, true
	}
	lengths := []int{3, 250, 1, 40, 7, 120, 2, 64}
	for si, n := range lengths {
		tm := int64(rng.IntN(50)) - 25
		nullRun := rng.IntN(n + 1) // a run of nulls, a whole unit where long enough
		for r := 0; r < n; r++ {
			b.Field(0).(*array.StringBuilder).Append(fmt.Sprintf("s%d", si))
			b.Field(1).(*array.Int64Builder).Append(tm)
			if rng.IntN(3) > 0 {
				tm += int64(rng.IntN(4)) // repeats
			}
			if v, ok := float(); ok && (r < nullRun || r >= nullRun+20) {
				b.Field(2).(*array.Float64Builder).Append(v)
			} else {
				b.Field(2).AppendNull()
			}
			if v, ok := float(); ok {
				b.Field(3).(*array.Float32Builder).Append(float32(v))
			} else {
				b.Field(3).AppendNull()
			}
			if rng.IntN(5) == 0 {
				b.Field(4).AppendNull()
			} else {
				b.Field(4).(*array.Int64Builder).Append((1<<53+int64(rng.IntN(7)))*int64(1-2*rng.IntN(2)) + int64(rng.IntN(3)))
			}
			if rng.IntN(5) == 0 {
				b.Field(5).AppendNull()
			} else {
				b.Field(5).(*array.Uint64Builder).Append(math.MaxUint64 - uint64(rng.IntN(4000)))
			}
			z := 0.0
			if rng.IntN(2) == 0 {
				z = math.Copysign(0, -1)
			}
			b.Field(6).(*array.Float64Builder).Append(z)
		}
	}
	return b.NewRecord()
}

// sameFloat reports whether two results are the same: the same bits, or
// both NaN.
func sameFloat(a, b float64) bool {
	return math.Float64bits(a) == math.Float64bits(b) || a != a && b != b
}

// TestAggregateStatsEqualFold checks that bars answered from the index
// statistics (first and last included, index version 2) are those of the
// row-by-row fold (NoStats) on adversarial data, bit for bit, for buckets
// that hold whole units, cut units or hold several, time ranges that cut
// units, and several threads; and for version 1 files.
func TestAggregateStatsEqualFold(t *testing.T) {
	funcs := []string{"count", "min", "max", "sum", "avg", "first", "last"}
	for seed := uint64(1); seed <= 6; seed++ {
		rec := adversarialAggData(seed)
		for _, version := range []int{1, 2} {
			for _, wo := range []WriterOptions{{Sorted: true, ChunkRows: 16, MinChunkRows: 8}, {Sorted: true, ChunkRows: 5, MinChunkRows: 4, BlockSize: 2}} {
				wo.indexVersion = version
				data := writeFile(t, []arrow.Record{rec}, Model{Keys: []string{"s"}, Time: "t"}, &wo)
				f, err := OpenSource(ctx, iox.Bytes(data), nil)
				if err != nil {
					t.Fatal(err)
				}
				lo, hi := f.TimeRange()
				ranges := []*TimeRange{nil, {lo + 7, hi - 9}, {lo + (hi-lo)/3, lo + (hi-lo)/2}}
				for _, every := range []int64{0, 1, 3, 16, 100, 1 << 40} {
					for _, tr := range ranges {
						for _, threads := range []int{1, 3} {
							name := fmt.Sprintf("seed %d index%d chunk %d every %d range %v threads %d", seed, version, wo.ChunkRows, every, tr, threads)
							o := AggOptions{Every: every, Time: tr, Funcs: funcs, Threads: threads, Columns: []string{"f", "g", "i", "u", "z"}}
							got, st, err := f.Aggregate(ctx, o)
							if err != nil {
								t.Fatalf("%s: %v", name, err)
							}
							o.NoStats = true
							want, _, err := f.Aggregate(ctx, o)
							if err != nil {
								t.Fatalf("%s: %v", name, err)
							}
							if every == 1<<40 && tr == nil && st.UnitsFromStats == 0 {
								t.Errorf("%s: no unit folded from its statistics", name)
							}
							compareAggRecords(t, name, got, want)
							got.Release()
							want.Release()
						}
					}
				}
				f.Close()
			}
		}
		rec.Release()
	}
}

func compareAggRecords(t *testing.T, name string, got, want arrow.Record) {
	t.Helper()
	if got.NumRows() != want.NumRows() || got.NumCols() != want.NumCols() {
		t.Fatalf("%s: %dx%d, fold %dx%d", name, got.NumRows(), got.NumCols(), want.NumRows(), want.NumCols())
	}
	for c := 0; c < int(got.NumCols()); c++ {
		g, w := got.Column(c), want.Column(c)
		for i := 0; i < int(got.NumRows()); i++ {
			if g.IsNull(i) != w.IsNull(i) {
				t.Fatalf("%s: row %d %s null %v, fold null %v", name, i, got.ColumnName(c), g.IsNull(i), w.IsNull(i))
			}
			if g.IsNull(i) {
				continue
			}
			ok := true
			switch g := g.(type) {
			case *array.Float64:
				ok = sameFloat(g.Value(i), w.(*array.Float64).Value(i))
			default:
				ok = g.ValueStr(i) == w.ValueStr(i)
			}
			if !ok {
				t.Fatalf("%s: row %d (%s) %s = %s, fold %s", name, i, got.Column(0).ValueStr(i), got.ColumnName(c), g.ValueStr(i), w.ValueStr(i))
			}
		}
	}
}
