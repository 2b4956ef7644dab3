package strata_test

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata"
)

// timeSchema has a time of day in every unit and durations, nullable and
// not.
var timeSchema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64},
	{Name: "t_s", Type: arrow.FixedWidthTypes.Time32s},
	{Name: "t_ms", Type: arrow.FixedWidthTypes.Time32ms, Nullable: true},
	{Name: "t_us", Type: arrow.FixedWidthTypes.Time64us, Nullable: true},
	{Name: "t_ns", Type: arrow.FixedWidthTypes.Time64ns},
	{Name: "d_ms", Type: arrow.FixedWidthTypes.Duration_ms, Nullable: true},
	{Name: "d_ns", Type: arrow.FixedWidthTypes.Duration_ns},
}, nil)

// timeRows is the reference table: per row, the time of day in
// nanoseconds (-1 for null) and the duration in nanoseconds (d_ms: whole
// milliseconds, -1<<62 for null).
type timeRows struct {
	tod, dur []int64
}

const timeNull = -1 << 62

func timeFile(t *testing.T) (*strata.File, arrow.RecordBatch, timeRows) {
	t.Helper()
	r := rand.New(rand.NewPCG(7, 11))
	b := array.NewRecordBuilder(memory.DefaultAllocator, timeSchema)
	defer b.Release()
	const n = 20000
	var ref timeRows
	for i := range n {
		// Sorted for the first half (chunks prune on statistics),
		// random after.
		tod := int64(i) * int64(86400*time.Second/n)
		if i >= n/2 {
			tod = r.Int64N(int64(24 * time.Hour))
		}
		tod = tod / 1e6 * 1e6 // whole milliseconds, so every unit holds it
		dur := (r.Int64N(7800) - 600) * int64(time.Second)
		dur += r.Int64N(1000) * int64(time.Millisecond)
		switch i % 50 {
		case 1:
			dur = 0
		case 2:
			dur = int64(time.Second)
		}
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		b.Field(1).(*array.Time32Builder).Append(arrow.Time32(tod / 1e9))
		null := i%13 == 0
		if null {
			b.Field(2).AppendNull()
			b.Field(3).AppendNull()
			ref.tod = append(ref.tod, -1)
		} else {
			b.Field(2).(*array.Time32Builder).Append(arrow.Time32(tod / 1e6))
			b.Field(3).(*array.Time64Builder).Append(arrow.Time64(tod / 1e3))
			ref.tod = append(ref.tod, tod)
		}
		b.Field(4).(*array.Time64Builder).Append(arrow.Time64(tod + int64(i%1000)))
		if i%7 == 0 {
			b.Field(5).AppendNull()
			ref.dur = append(ref.dur, timeNull)
		} else {
			b.Field(5).(*array.DurationBuilder).Append(arrow.Duration(dur / 1e6))
			ref.dur = append(ref.dur, dur)
		}
		b.Field(6).(*array.DurationBuilder).Append(arrow.Duration(dur + int64(i)))
	}
	rec := b.NewRecordBatch()
	t.Cleanup(rec.Release)
	f := roundTrip(t, strata.WriteOptions{ChunkValues: 2048}, rec)
	return f, rec, ref
}

// TestTimeKinds writes times of day and durations of every unit and reads
// them back value by value (roundTrip), filtered (WHERE text and Go filters, against a
// loop over the reference), summarized (statistics, aggregates) and taken.
func TestTimeKinds(t *testing.T) {
	f, rec, ref := timeFile(t)
	if !f.Schema().Equal(timeSchema) {
		t.Fatalf("schema:\n%s\nwant\n%s", f.Schema(), timeSchema)
	}

	tsec := rec.Column(1).(*array.Time32) // never null, unlike t_ms
	want := func(keep func(i int) bool) []int64 {
		var out []int64
		for i := range ref.tod {
			if keep(i) {
				out = append(out, int64(i))
			}
		}
		return out
	}
	h := func(x float64) int64 { return int64(x * float64(time.Hour)) }
	cases := []struct {
		name string
		opts strata.ScanOptions
		keep func(i int) bool
	}{
		{"time text range", strata.ScanOptions{Where: "t_ms >= '06:00:00' AND t_ms < '06:30:00.5'"},
			func(i int) bool { return ref.tod[i] >= h(6) && ref.tod[i] < h(6.5)+5e8 }},
		{"time in its unit", strata.ScanOptions{Where: "t_us > 79200000000"},
			func(i int) bool { return ref.tod[i] > h(22) }},
		{"time from a Go duration", strata.ScanOptions{Filter: strata.Col("t_s").Between(90*time.Minute, 2*time.Hour)},
			func(i int) bool {
				sec := int64(tsec.Value(i)) * 1e9
				return sec >= int64(90*time.Minute) && sec <= int64(2*time.Hour)
			}},
		{"time is null", strata.ScanOptions{Where: "t_ms IS NULL"},
			func(i int) bool { return ref.tod[i] < 0 }},
		{"duration text", strata.ScanOptions{Where: "d_ms > '1h' OR d_ms < '-5m'"},
			func(i int) bool {
				return ref.dur[i] != timeNull && (ref.dur[i] > int64(time.Hour) || ref.dur[i] < -int64(5*time.Minute))
			}},
		{"duration in its unit", strata.ScanOptions{Filter: strata.Col("d_ms").In(int64(0), int64(1000))},
			func(i int) bool { return ref.dur[i] == 0 || ref.dur[i] == int64(time.Second) }},
	}
	for _, c := range cases {
		got := ids(t, f, c.opts)
		exp := want(c.keep)
		if !slices.Equal(got, exp) {
			t.Errorf("%s: %d rows, want %d", c.name, len(got), len(exp))
		}
		if len(exp) == 0 {
			t.Errorf("%s: the reference selects no row; the case tests nothing", c.name)
		}
	}
	for _, bad := range []string{"t_ms > '25:00:00'", "t_ms > 'noon'", "d_ms > '5 minutes'", "t_ms > TRUE"} {
		if _, err := f.Scan(strata.ScanOptions{Where: bad}); err == nil {
			t.Errorf("%s: accepted", bad)
		}
	}

	// Statistics and aggregates in the column's terms.
	lo, hi := int64(1<<62), int64(-1)
	for _, v := range ref.tod {
		if v >= 0 {
			lo, hi = min(lo, v), max(hi, v)
		}
	}
	st, ok := f.ColumnStats("t_ms")
	if !ok || !st.HasMinMax || st.Min != time.Duration(lo) || st.Max != time.Duration(hi) || st.Nulls != int64(len(ref.tod)+12)/13 {
		t.Errorf("t_ms statistics %+v; want min %v max %v", st, time.Duration(lo), time.Duration(hi))
	}
	aggs, _, err := f.Aggregate(strata.AggregateOptions{Exprs: "min(t_ms), max(t_us), sum(d_ms), count(d_ms)"})
	if err != nil {
		t.Fatal(err)
	}
	var sum, cnt int64
	for _, d := range ref.dur {
		if d != timeNull {
			sum, cnt = sum+d/1e6, cnt+1
		}
	}
	if aggs[0].I != lo/1e6 || aggs[0].Text != clock(lo, 3) || aggs[1].I != hi/1e3 || aggs[1].Text != clock(hi, 6) ||
		aggs[2].I != sum || aggs[2].Text != (time.Duration(sum)*time.Millisecond).String() || aggs[3].I != cnt {
		t.Errorf("aggregates %+v; want min %s, max %s, sum %d ms, count %d", aggs, clock(lo, 3), clock(hi, 6), sum, cnt)
	}
	if _, _, err := f.Aggregate(strata.AggregateOptions{Exprs: "sum(t_ms)"}); err == nil {
		t.Error("a sum of times of day was accepted")
	}

	// Take returns the same values as the scan.
	rows := []int64{0, 13, 4999, 12345, 19999}
	got, err := f.Take(rows, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer got.Release()
	for k, row := range rows {
		for c := range rec.NumCols() {
			a, b := got.Column(int(c)), rec.Column(int(c))
			if a.IsNull(k) != b.IsNull(int(row)) || !a.IsNull(k) && a.ValueStr(k) != b.ValueStr(int(row)) {
				t.Errorf("take row %d column %s: %s, want %s", row, rec.ColumnName(int(c)), a.ValueStr(k), b.ValueStr(int(row)))
			}
		}
	}
}

// clock renders nanoseconds since midnight as HH:MM:SS with a fraction of
// digits places when it is not zero.
func clock(ns int64, digits int) string {
	s := time.Unix(0, ns).UTC().Format("15:04:05")
	frac := ns % 1e9
	for range 9 - digits {
		frac /= 10
	}
	if frac != 0 {
		s += "." + time.Unix(0, 0).Add(time.Duration(ns % 1e9)).UTC().Format(".000000000")[1:1+digits]
	}
	return s
}

// TestNullType writes columns of Arrow's null type (pandas writes all-None
// columns so), top-level, in a list and in a struct, and reads them back:
// every slot null in scans, takes, filters, statistics and aggregates.
func TestNullType(t *testing.T) {
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "n", Type: arrow.Null, Nullable: true},
		{Name: "l", Type: arrow.ListOf(arrow.Null), Nullable: true},
		{Name: "s", Type: arrow.StructOf(arrow.Field{Name: "x", Type: arrow.Null, Nullable: true}), Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	defer b.Release()
	const n = 5000
	for i := range n {
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		b.Field(1).AppendNull()
		lb := b.Field(2).(*array.ListBuilder)
		if i%4 == 3 {
			lb.AppendNull()
		} else {
			lb.Append(true)
			lb.ValueBuilder().(*array.NullBuilder).AppendEmptyValues(i % 3)
		}
		sb := b.Field(3).(*array.StructBuilder)
		sb.Append(i%5 != 0)
		sb.FieldBuilder(0).AppendNull()
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	f := roundTrip(t, strata.WriteOptions{ChunkValues: 1024}, rec)
	if !f.Schema().Equal(sch) {
		t.Fatalf("schema:\n%s\nwant\n%s", f.Schema(), sch)
	}
	every := make([]int64, n)
	for i := range every {
		every[i] = int64(i)
	}
	if got := ids(t, f, strata.ScanOptions{Where: "n IS NULL AND s.x IS NULL"}); !slices.Equal(got, every) {
		t.Errorf("IS NULL: %d rows, want %d", len(got), n)
	}
	if got := ids(t, f, strata.ScanOptions{Where: "n IS NOT NULL OR s.x IS NOT NULL"}); len(got) != 0 {
		t.Errorf("IS NOT NULL: %d rows", len(got))
	}
	st, ok := f.ColumnStats("n")
	if !ok || st.Rows != n || st.Nulls != n || st.HasMinMax {
		t.Errorf("statistics %+v", st)
	}
	aggs, _, err := f.Aggregate(strata.AggregateOptions{Exprs: "count(n), count(*), min(n)"})
	if err != nil {
		t.Fatal(err)
	}
	if aggs[0].I != 0 || aggs[1].I != n || !aggs[2].Null {
		t.Errorf("aggregates %+v", aggs)
	}
	got, err := f.Take([]int64{0, 7, 5}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer got.Release()
	for c, name := range []string{"n", "l", "s"} {
		a := got.Column(c + 1)
		if a.DataType().ID() != rec.Column(c+1).DataType().ID() || a.Len() != 3 {
			t.Errorf("take %s: %s of %d", name, a.DataType(), a.Len())
		}
	}
	if l := got.Column(2).(*array.List); l.String() != "[[] (null) [(null) (null)]]" {
		t.Errorf("take l: %s", l)
	}
}
