package strata_test

import (
	"bytes"
	"errors"
	"io"
	"math"
	"math/big"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata"
	"strata/iox"
)

var builderSchema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64},
	{Name: "i32", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
	{Name: "u16", Type: arrow.PrimitiveTypes.Uint16},
	{Name: "f64", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "b", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
	{Name: "d", Type: arrow.FixedWidthTypes.Date32},
	{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond}, Nullable: true},
	{Name: "dec", Type: &arrow.Decimal128Type{Precision: 9, Scale: 2}, Nullable: true},
}, nil)

func builderFile(t *testing.T) *strata.File {
	t.Helper()
	b := array.NewRecordBuilder(memory.DefaultAllocator, builderSchema)
	defer b.Release()
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	words := []string{"apple", "apricot", "banana", "avocado", "cherry", ""}
	for i := range 3000 {
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		if i%7 == 0 {
			b.Field(1).AppendNull()
		} else {
			b.Field(1).(*array.Int32Builder).Append(int32(i%200 - 100))
		}
		b.Field(2).(*array.Uint16Builder).Append(uint16(i * 37 % 65536))
		if i%11 == 0 {
			b.Field(3).AppendNull()
		} else {
			b.Field(3).(*array.Float64Builder).Append(float64(i%100) / 8)
		}
		if i%13 == 0 {
			b.Field(4).AppendNull()
		} else {
			b.Field(4).(*array.StringBuilder).Append(words[i%len(words)])
		}
		if i%5 == 0 {
			b.Field(5).AppendNull()
		} else {
			b.Field(5).(*array.BooleanBuilder).Append(i%3 == 0)
		}
		b.Field(6).(*array.Date32Builder).Append(arrow.Date32FromTime(base.AddDate(0, 0, i%90)))
		if i%17 == 0 {
			b.Field(7).AppendNull()
		} else {
			b.Field(7).(*array.TimestampBuilder).Append(arrow.Timestamp(base.Add(time.Duration(i)*time.Hour + time.Duration(i%1000)*time.Microsecond).UnixMicro()))
		}
		if i%19 == 0 {
			b.Field(8).AppendNull()
		} else {
			b.Field(8).(*array.Decimal128Builder).Append(decimal128.FromI64(int64(i%500*7 - 1000)))
		}
	}
	rec := b.NewRecord()
	defer rec.Release()
	path := filepath.Join(t.TempDir(), "b.strata")
	// Six batches, so the small stripes cut the file into several.
	w, err := strata.Create(path, builderSchema, &strata.WriteOptions{StripeBytes: 32 << 10, ChunkValues: 500})
	if err != nil {
		t.Fatal(err)
	}
	for lo := int64(0); lo < rec.NumRows(); lo += 500 {
		part := rec.NewSlice(lo, lo+500)
		err := w.Write(part)
		part.Release()
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := strata.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func ids(t *testing.T, f *strata.File, opts strata.ScanOptions) []int64 {
	t.Helper()
	opts.Columns = []string{"id"}
	sc, err := f.Scan(opts)
	if err != nil {
		t.Fatalf("scan %q %v: %v", opts.Where, opts.Filter, err)
	}
	defer sc.Close()
	var out []int64
	for {
		rec, err := sc.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, rec.Column(0).(*array.Int64).Int64Values()...)
		rec.Release()
	}
}

// TestFilterBuilder: filters built in Go select exactly the rows of the
// WHERE strings they stand for, for every literal kind; bad values are
// errors naming the column.
func TestFilterBuilder(t *testing.T) {
	f := builderFile(t)
	day := func(d int) time.Time { return time.Date(2024, 1, d, 0, 0, 0, 0, time.UTC) }
	for _, c := range []struct {
		f     strata.Filter
		where string
	}{
		{strata.Col("i32").Eq(5), "i32 = 5"},
		{strata.Col("i32").Ne(int8(5)), "i32 != 5"},
		{strata.Col("i32").Lt(int64(-50)), "i32 < -50"},
		{strata.Col("i32").Le(2.5), "i32 <= 2.5"},
		{strata.Col("u16").Gt(uint64(60000)), "u16 > 60000"},
		{strata.Col("u16").Ge(uint16(100)), "u16 >= 100"},
		{strata.Col("f64").Between(float32(1.5), 3.25), "f64 BETWEEN 1.5 AND 3.25"},
		{strata.Col("f64").In(0.0, 12.375, 7), "f64 IN (0, 12.375, 7)"},
		{strata.Col("s").Eq("banana"), "s = 'banana'"},
		{strata.Col("s").Prefix("ap"), "s LIKE 'ap%'"},
		{strata.Col("s").In([]byte("cherry"), ""), "s IN ('cherry', '')"},
		{strata.Col("s").IsNull(), "s IS NULL"},
		{strata.Col("b").Eq(true), "b = TRUE"},
		{strata.Col("b").IsNotNull(), "b IS NOT NULL"},
		{strata.Col("d").Between(day(10), day(20)), "d BETWEEN DATE '2024-01-10' AND DATE '2024-01-20'"},
		{strata.Col("d").Lt(day(5).Add(12 * time.Hour)), "d < TIMESTAMP '2024-01-05 12:00:00'"},
		{strata.Col("ts").Ge(day(30).Add(90*time.Minute + 250*time.Microsecond)), "ts >= TIMESTAMP '2024-01-30 01:30:00.00025'"},
		{strata.Col("ts").Lt(time.Date(2024, 1, 10, 3, 0, 0, 0, time.FixedZone("x", 3600))), "ts < TIMESTAMP '2024-01-10 02:00:00'"},
		{strata.Col("dec").Ge(strata.Decimal("12.34")), "dec >= 12.34"},
		{strata.Col("dec").Lt(big.NewRat(-1, 8)), "dec < -0.125"},
		{strata.Col("dec").In(big.NewInt(0), strata.Decimal("-9.93")), "dec IN (0, -9.93)"},
		{strata.And(strata.Col("i32").Gt(0), strata.Or(strata.Col("s").Prefix("a"), strata.Col("b").Eq(false))), "i32 > 0 AND (s LIKE 'a%' OR b = FALSE)"},
		{strata.Not(strata.Col("i32").Between(-10, 10)), "NOT (i32 BETWEEN -10 AND 10)"},
		{strata.And(strata.Filter{}, strata.Col("id").Lt(10)), "id < 10"},
	} {
		got := ids(t, f, strata.ScanOptions{Filter: c.f})
		want := ids(t, f, strata.ScanOptions{Where: c.where})
		if len(want) == 0 || len(want) == 3000 {
			t.Errorf("%s selects %d rows: not a useful case", c.where, len(want))
		}
		if len(got) != len(want) {
			t.Fatalf("%s (built %s): %d rows, WHERE gives %d", c.where, c.f, len(got), len(want))
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("%s: row %d differs", c.where, i)
			}
		}
		// Where and Filter together: rows pass both.
		both := ids(t, f, strata.ScanOptions{Where: "id < 1500", Filter: c.f})
		n := 0
		for _, id := range want {
			if id < 1500 {
				n++
			}
		}
		if len(both) != n {
			t.Fatalf("%s with a WHERE: %d rows, want %d", c.where, len(both), n)
		}
		for _, id := range both {
			if id >= 1500 {
				t.Fatalf("%s with a WHERE: row %d passes only the filter", c.where, id)
			}
		}
	}
	for _, bad := range []struct {
		f    strata.Filter
		want string
	}{
		{strata.Col("f64").Lt(math.NaN()), "filter on f64: NaN is not a filter literal (filters compare finite numbers only)"},
		{strata.Col("f64").Eq(math.Inf(1)), "filter on f64: +Inf is not a filter literal (filters compare finite numbers only)"},
		{strata.Col("i32").Eq(struct{}{}), "not a filter literal"},
		{strata.Col("s").Prefix("a%"), "wildcard"},
		{strata.Col("s").In(), "at least one"},
		{strata.Col("dec").Eq(strata.Decimal("1e5")), "decimal"},
		{strata.Col("dec").Eq(big.NewRat(1, 3)), "exact decimal"},
		{strata.Col("d").Eq(time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)), "year"},
		{strata.And(strata.Col("i32").Eq(1), strata.Col("s").In()), "at least one"},
		{strata.Col("s").Eq(5), "s is a string"},
		{strata.Col("nope").Eq(1), "unknown column"},
	} {
		_, err := f.Scan(strata.ScanOptions{Filter: bad.f})
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%v: error %v, want one containing %q", bad.f, err, bad.want)
		}
		if _, _, err := f.Aggregate(strata.AggregateOptions{Aggs: []strata.Agg{strata.CountAll()}, Filter: bad.f}); err == nil {
			t.Errorf("%v: aggregate accepted it", bad.f)
		}
	}
	if !strata.And().IsZero() || strata.Not(strata.Filter{}).String() != "" {
		t.Error("empty combinations should filter nothing")
	}
	if err := strata.Col("x").Eq(math.NaN()).Err(); err == nil || errors.Unwrap(err) == nil && !strings.Contains(err.Error(), "x") {
		t.Errorf("Err: %v", err)
	}
}

// TestFilterBuilderGrown: a filter grown a condition at a time in a loop
// (f = And(f, c), f = Or(f, c), f = Not(f)) selects the rows a plain Go
// loop over the ids does, however many conditions it has: And and Or
// splice their own kind and Not of a Not is its argument, where they used
// to nest one level a call and a filter of 200 conditions was refused as
// "nested deeper than 200".
func TestFilterBuilderGrown(t *testing.T) {
	f := builderFile(t)
	const rows = 3000
	check := func(name string, flt strata.Filter, keep func(id int64) bool) {
		t.Helper()
		var want []int64
		for id := int64(0); id < rows; id++ {
			if keep(id) {
				want = append(want, id)
			}
		}
		got := ids(t, f, strata.ScanOptions{Filter: flt})
		if !slices.Equal(got, want) {
			t.Errorf("%s: %d rows, want %d (first %v, want %v)", name, len(got), len(want), got[:min(5, len(got))], want[:min(5, len(want))])
		}
		vals, _, err := f.Aggregate(strata.AggregateOptions{Aggs: []strata.Agg{strata.CountAll()}, Filter: flt})
		if err != nil || vals[0].I != int64(len(want)) {
			t.Errorf("%s: count(*) %v %v, want %d", name, vals, err, len(want))
		}
	}
	var and, or strata.Filter
	for i := range 1000 {
		and = strata.And(and, strata.Col("id").Ne(3*i))
		or = strata.Or(or, strata.Col("id").Eq(2*i))
	}
	check("And of 1000", and, func(id int64) bool { return id >= 3000 || id%3 != 0 })
	check("Or of 1000", or, func(id int64) bool { return id < 2000 && id%2 == 0 })
	mixed := strata.Col("id").Lt(2500)
	for i := range 500 {
		mixed = strata.And(strata.Or(mixed, strata.Filter{}), strata.Col("id").Ne(i))
	}
	check("And grown through a one-filter Or, 500 times", mixed, func(id int64) bool { return id >= 500 && id < 2500 })
	neg := strata.Col("id").Lt(100)
	for range 1001 {
		neg = strata.Not(neg)
	}
	check("1001 Nots", neg, func(id int64) bool { return id >= 100 })
	if s := strata.Not(strata.Not(strata.Col("id").Lt(100))).String(); s != "id < 100" {
		t.Errorf("Not(Not(id < 100)) = %s", s)
	}
	if s := strata.And(strata.And(strata.Col("id").Lt(9), strata.Col("id").Gt(1)), strata.Or(strata.Col("id").Eq(3), strata.Col("id").Eq(4))).String(); s != "id < 9 AND id > 1 AND (id = 3 OR id = 4)" {
		t.Errorf("nested And and Or render as %s", s)
	}
}

// TestWhereCannotReachAroundFilter: a WHERE string given with a Filter is
// an expression of its own. Text that is none, such as "TRUE) OR (TRUE"
// (a caller's user input beside the caller's own Filter), used to close
// the parentheses it was wrapped in, so every row passed whatever the
// Filter said; it is now the syntax error it is alone, for scans and
// aggregates. Valid text still combines with the Filter: rows pass both.
func TestWhereCannotReachAroundFilter(t *testing.T) {
	f := builderFile(t)
	only := strata.Col("id").Lt(10)
	for _, w := range []string{"TRUE) OR (TRUE", "id < 0) OR (id >= 0", "id > 5) OR (id IN (1, 2)"} {
		_, alone := f.Scan(strata.ScanOptions{Where: w})
		if alone == nil {
			t.Fatalf("%q alone: no error", w)
		}
		if sc, err := f.Scan(strata.ScanOptions{Where: w, Filter: only}); err == nil || err.Error() != alone.Error() {
			if err == nil {
				sc.Close()
			}
			t.Errorf("%q with a Filter: %v, want the error it gives alone: %v", w, err, alone)
		}
		if vals, _, err := f.Aggregate(strata.AggregateOptions{Aggs: []strata.Agg{strata.CountAll()}, Where: w, Filter: only}); err == nil {
			t.Errorf("%q with a Filter: aggregate gave %v, want an error", w, vals)
		}
	}
	got := ids(t, f, strata.ScanOptions{Where: "id > 5 OR id > 2000", Filter: only})
	if want := []int64{6, 7, 8, 9}; !slices.Equal(got, want) {
		t.Errorf("valid WHERE with a Filter: %v, want %v", got, want)
	}
}

// TestAggregateBuilders: aggregates built in Go equal the text ones, and
// ColumnStats gives each type's bounds as Go values.
func TestAggregateBuilders(t *testing.T) {
	f := builderFile(t)
	flt := strata.Col("s").Prefix("a")
	got, _, err := f.Aggregate(strata.AggregateOptions{
		Aggs: []strata.Agg{strata.CountAll(), strata.Count("i32"), strata.Sum("dec"), strata.Min("d"), strata.Max("ts"), strata.Sum("f64")}, Filter: flt})
	if err != nil {
		t.Fatal(err)
	}
	want, _, err := f.Aggregate(strata.AggregateOptions{Exprs: "count(*), count(i32), sum(dec), min(d), max(ts), sum(f64)", Where: "s LIKE 'a%'"})
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if got[i].Name != want[i].Name || got[i].String() != want[i].String() {
			t.Errorf("aggregate %d: %s = %s, text form %s = %s", i, got[i].Name, got[i], want[i].Name, want[i])
		}
	}
	if got[0].Int() == 0 || got[2].Big() == nil {
		t.Errorf("count %d, sum %v", got[0].Int(), got[2].Big())
	}
	st, ok := f.ColumnStats("ts")
	if !ok || st.Nulls == 0 || !st.HasMinMax {
		t.Fatalf("ts stats %+v", st)
	}
	if mn := st.Min.(time.Time); !mn.Equal(time.Date(2024, 1, 1, 1, 0, 0, 1000, time.UTC)) {
		t.Errorf("ts min %v", mn)
	}
	for col, want := range map[string][2]any{
		"i32": {int64(-100), int64(99)}, "u16": {uint64(0), uint64(65527)}, "s": {"", "cherry"},
		"d":   {time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2024, 3, 30, 0, 0, 0, 0, time.UTC)},
		"dec": {strata.Decimal("-10.00"), strata.Decimal("24.93")}, "b": {false, true}, "f64": {0.0, 12.375},
	} {
		st, ok := f.ColumnStats(col)
		if !ok {
			t.Errorf("%s: no stats", col)
			continue
		}
		if tm, ok := want[0].(time.Time); ok {
			if !st.Min.(time.Time).Equal(tm) || !st.Max.(time.Time).Equal(want[1].(time.Time)) {
				t.Errorf("%s: [%v, %v], want %v", col, st.Min, st.Max, want)
			}
			continue
		}
		if st.Min != want[0] || st.Max != want[1] {
			t.Errorf("%s: [%v (%T), %v], want %v", col, st.Min, st.Min, st.Max, want)
		}
	}
	if _, ok := f.ColumnStats("nope"); ok {
		t.Error("stats for a missing column")
	}
	// Splits through the facade cover the file.
	var rows int64
	for _, sp := range f.Splits(0) {
		sp := sp
		rows += int64(len(ids(t, f, strata.ScanOptions{Split: &sp})))
	}
	if rows != f.NumRows() || f.NumStripes() < 2 {
		t.Errorf("splits return %d of %d rows over %d stripes", rows, f.NumRows(), f.NumStripes())
	}
}

// TestColumnStatsWideDecimal: a decimal of more than 18 digits is stored as
// 16 bytes whose byte order is not its numeric order, so its file
// statistics bound nothing: ColumnStats reports no bounds for it (as its
// doc says), rather than byte strings ordered as bytes (where -0.01 was
// the max). A narrower decimal's bounds are Decimals.
func TestColumnStatsWideDecimal(t *testing.T) {
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "wide", Type: &arrow.Decimal128Type{Precision: 30, Scale: 2}, Nullable: true},
		{Name: "narrow", Type: &arrow.Decimal128Type{Precision: 10, Scale: 2}, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	defer b.Release()
	for _, v := range []int64{-1, 1, 300, -5} {
		b.Field(0).(*array.Decimal128Builder).Append(decimal128.FromI64(v))
		b.Field(1).(*array.Decimal128Builder).Append(decimal128.FromI64(v))
	}
	b.Field(0).AppendNull()
	b.Field(1).AppendNull()
	rec := b.NewRecord()
	defer rec.Release()
	var buf bytes.Buffer
	w, err := strata.NewWriter(&buf, sch, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := strata.OpenSource(iox.Bytes(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, ok := f.ColumnStats("wide")
	if !ok || st.Rows != 5 || st.Nulls != 1 {
		t.Fatalf("wide: %+v, %v", st, ok)
	}
	if st.HasMinMax || st.Min != nil || st.Max != nil || st.MinTruncated || st.MaxTruncated {
		t.Errorf("wide decimal: bounds %+v, want none", st)
	}
	st, ok = f.ColumnStats("narrow")
	if !ok || !st.HasMinMax || st.Min != strata.Decimal("-0.05") || st.Max != strata.Decimal("3.00") {
		t.Errorf("narrow decimal: %+v, want [-0.05, 3.00]", st)
	}
}
