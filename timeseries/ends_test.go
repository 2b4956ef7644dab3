package timeseries

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata/iox"
)

// TestAggregateEndsFromUnitRows aggregates bars (first, last with count,
// min, max) over buckets that each cover whole units, so the units are
// folded from their statistics. In an index of version 2 the statistics
// hold each unit's first and last value, and every unit is folded from
// them. In a version 1 file first and last come from each unit's first
// and last rows: series "b" has a null in the first row of its second
// unit and series "c" one in the last row of its first unit, so those
// units must be decoded and folded whole (a value inside the unit is the
// first or last), while nulls inside a unit ("a") and a unit with no
// value at all ("c"'s last) keep the statistics path. Every figure is
// checked against a fold of the rows by hand, with and without
// statistics.
func TestAggregateEndsFromUnitRows(t *testing.T) {
	for _, version := range []int{1, 2} {
		t.Run(fmt.Sprintf("index%d", version), func(t *testing.T) { testAggregateEnds(t, version) })
	}
}

func testAggregateEnds(t *testing.T, version int) {
	const unit, units = 100, 4
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "s", Type: arrow.BinaryTypes.String},
		{Name: "t", Type: arrow.PrimitiveTypes.Int64},
		{Name: "v", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "n", Type: arrow.PrimitiveTypes.Int32},
	}, nil)
	nullAt := map[string]func(i int) bool{
		"a": func(i int) bool { return i%unit == 37 || i%unit == 38 },
		"b": func(i int) bool { return i == unit },
		"c": func(i int) bool { return i == unit-1 || i >= (units-1)*unit },
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	defer b.Release()
	type row struct {
		series string
		t      int64
		v      float64
		null   bool
		n      int32
	}
	var rows []row
	for si, s := range []string{"a", "b", "c"} {
		for i := 0; i < unit*units; i++ {
			r := row{series: s, t: int64(i) * 10, v: math.Sin(float64(si*1000+i)) * 100, null: nullAt[s](i), n: int32(si*7 + i%13)}
			rows = append(rows, r)
			b.Field(0).(*array.StringBuilder).Append(r.series)
			b.Field(1).(*array.Int64Builder).Append(r.t)
			if r.null {
				b.Field(2).AppendNull()
			} else {
				b.Field(2).(*array.Float64Builder).Append(r.v)
			}
			b.Field(3).(*array.Int32Builder).Append(r.n)
		}
	}
	rec := b.NewRecord()
	defer rec.Release()
	data := writeFile(t, []arrow.Record{rec}, Model{Keys: []string{"s"}, Time: "t"}, &WriterOptions{Sorted: true, ChunkRows: unit, indexVersion: version})
	f, err := OpenSource(ctx, iox.Bytes(data), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()

	const every = unit * 10 // one unit a bucket
	type key struct {
		series string
		bucket int64
	}
	want := map[key][2]acc{}
	var order []key
	for _, r := range rows {
		k := key{r.series, bucketOf(r.t, every)}
		a, ok := want[k]
		if !ok {
			order = append(order, k)
		}
		if !r.null {
			a[0].add(r.v, r.t)
		}
		a[1].add(float64(r.n), r.t)
		want[k] = a
	}
	for _, noStats := range []bool{false, true} {
		got, st, err := f.Aggregate(ctx, AggOptions{Every: every, Columns: []string{"v", "n"}, Funcs: []string{"first", "last", "count", "min", "max"}, NoStats: noStats, Threads: 2})
		if err != nil {
			t.Fatal(err)
		}
		// 12 units; in version 1, b's second and c's first are folded
		// from their rows
		wantStats := 3 * units
		if version == 1 {
			wantStats -= 2
		}
		if noStats {
			wantStats = 0
		}
		if st.UnitsFromStats != wantStats {
			t.Errorf("noStats %v: %d units from statistics, want %d", noStats, st.UnitsFromStats, wantStats)
		}
		if int(got.NumRows()) != len(order) {
			t.Fatalf("noStats %v: %d buckets, want %d", noStats, got.NumRows(), len(order))
		}
		col := func(name string) arrow.Array { return got.Column(got.Schema().FieldIndices(name)[0]) }
		for i, k := range order {
			if s := col("s").(*array.String).Value(i); s != k.series {
				t.Fatalf("noStats %v row %d: series %s, want %s", noStats, i, s, k.series)
			}
			for j, c := range []string{"v", "n"} {
				w := want[k][j]
				if n := col("count(" + c + ")").(*array.Int64).Value(i); n != w.count {
					t.Fatalf("noStats %v %v: count(%s) = %d, want %d", noStats, k, c, n, w.count)
				}
				for _, fn := range []string{"first", "last", "min", "max"} {
					a := col(fn + "(" + c + ")").(*array.Float64)
					if w.count == 0 {
						if !a.IsNull(i) {
							t.Fatalf("noStats %v %v: %s(%s) of no value = %v, want null", noStats, k, fn, c, a.Value(i))
						}
						continue
					}
					exp := map[string]float64{"first": w.first, "last": w.last, "min": w.min, "max": w.max}[fn]
					if a.IsNull(i) || a.Value(i) != exp {
						t.Fatalf("noStats %v %v: %s(%s) = %v, want %v", noStats, k, fn, c, a.Value(i), exp)
					}
				}
			}
		}
		got.Release()
	}
}

// TestAggregateEndsConcurrentColumnOrders runs bars concurrently on one
// File with the columns named in opposite orders, over units whose
// decoders the cache holds. Reading first and last from a unit's rows (an
// index of version 1) must not hold one column's decoders while it waits
// for another's: two reads that take them in opposite orders would wait
// for each other forever.
func TestAggregateEndsConcurrentColumnOrders(t *testing.T) {
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "s", Type: arrow.BinaryTypes.String},
		{Name: "t", Type: arrow.PrimitiveTypes.Int64},
		{Name: "x", Type: arrow.PrimitiveTypes.Float64},
		{Name: "y", Type: arrow.PrimitiveTypes.Int64},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	defer b.Release()
	for s := 0; s < 20; s++ {
		for i := 0; i < 400; i++ {
			b.Field(0).(*array.StringBuilder).Append(fmt.Sprintf("s%02d", s))
			b.Field(1).(*array.Int64Builder).Append(int64(i))
			b.Field(2).(*array.Float64Builder).Append(float64(i))
			b.Field(3).(*array.Int64Builder).Append(int64(-i))
		}
	}
	rec := b.NewRecord()
	defer rec.Release()
	data := writeFile(t, []arrow.Record{rec}, Model{Keys: []string{"s"}, Time: "t"}, &WriterOptions{Sorted: true, ChunkRows: 10, indexVersion: 1})
	f, err := OpenSource(ctx, iox.Bytes(data), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	agg := func(cols []string) error {
		r, st, err := f.Aggregate(ctx, AggOptions{Every: 10, Columns: cols, Funcs: []string{"first", "last"}, Threads: 4})
		if err != nil {
			return err
		}
		defer r.Release()
		if st.UnitsFromStats != 20*400/10 {
			return fmt.Errorf("%d units from statistics, want %d", st.UnitsFromStats, 20*400/10)
		}
		return nil
	}
	if err := agg([]string{"x", "y"}); err != nil { // the decoders are cached
		t.Fatal(err)
	}
	errs := make(chan error, 4)
	for g := 0; g < cap(errs); g++ {
		cols := []string{"x", "y"}
		if g%2 == 1 {
			cols = []string{"y", "x"}
		}
		go func() {
			for k := 0; k < 20; k++ {
				if err := agg(cols); err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	timeout := time.After(time.Minute)
	for g := 0; g < cap(errs); g++ {
		select {
		case err := <-errs:
			if err != nil {
				t.Fatal(err)
			}
		case <-timeout:
			t.Fatal("concurrent bars with the columns in opposite orders did not finish in a minute (deadlock)")
		}
	}
}

// TestAggregateColumnTwice names one column twice (as strata ts agg
// --columns x,x does) on several threads: each column of a unit is
// decoded once, and both result columns equal the aggregate of the column
// named once. Two decode jobs used to share the column's reader and its
// decoders, which crashed the process (unlock of an unlocked mutex) or
// hung it.
func TestAggregateColumnTwice(t *testing.T) {
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "s", Type: arrow.BinaryTypes.String},
		{Name: "t", Type: arrow.PrimitiveTypes.Int64},
		{Name: "x", Type: arrow.PrimitiveTypes.Float64},
		{Name: "y", Type: arrow.PrimitiveTypes.Int64},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	defer b.Release()
	for s := 0; s < 10; s++ {
		for i := 0; i < 1000; i++ {
			b.Field(0).(*array.StringBuilder).Append(fmt.Sprintf("s%02d", s))
			b.Field(1).(*array.Int64Builder).Append(int64(i))
			b.Field(2).(*array.Float64Builder).Append(float64(i*s) / 7)
			b.Field(3).(*array.Int64Builder).Append(int64(i - s))
		}
	}
	rec := b.NewRecord()
	defer rec.Release()
	data := writeFile(t, []arrow.Record{rec}, Model{Keys: []string{"s"}, Time: "t"}, &WriterOptions{Sorted: true, ChunkRows: 100})
	f, err := OpenSource(ctx, iox.Bytes(data), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	funcs := []string{"count", "sum", "first", "last"}
	for _, every := range []int64{30, 100} { // units decoded; units from statistics
		for _, noStats := range []bool{false, true} {
			once, _, err := f.Aggregate(ctx, AggOptions{Every: every, Columns: []string{"x", "y"}, Funcs: funcs, NoStats: noStats, Threads: 4})
			if err != nil {
				t.Fatal(err)
			}
			for k := 0; k < 10; k++ {
				twice, _, err := f.Aggregate(ctx, AggOptions{Every: every, Columns: []string{"x", "y", "x"}, Funcs: funcs, NoStats: noStats, Threads: 4})
				if err != nil {
					t.Fatal(err)
				}
				if twice.NumCols() != once.NumCols()+int64(len(funcs)) || twice.NumRows() != once.NumRows() {
					t.Fatalf("every %d, noStats %v: %d columns, %d rows, want %d, %d", every, noStats, twice.NumCols(), twice.NumRows(), once.NumCols()+int64(len(funcs)), once.NumRows())
				}
				for i := 0; i < int(once.NumCols()); i++ {
					if !array.Equal(twice.Column(i), once.Column(i)) {
						t.Fatalf("every %d, noStats %v: %s differs from x and y named once", every, noStats, twice.ColumnName(i))
					}
				}
				x := len(once.Schema().Fields()) - 2*len(funcs) // x's first result column
				for i := 0; i < len(funcs); i++ {
					if c := int(once.NumCols()) + i; !array.Equal(twice.Column(c), once.Column(x+i)) {
						t.Fatalf("every %d, noStats %v: %s named again differs from its first", every, noStats, twice.ColumnName(c))
					}
				}
				twice.Release()
			}
			once.Release()
		}
	}
}
