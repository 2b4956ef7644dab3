package interop_test

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestIntervals: the three Arrow interval types (DuckDB's INTERVAL is a
// month_day_nano one), top level, in a struct and in a list, import as
// their fields and export as the intervals they were.
func TestIntervals(t *testing.T) {
	mem := memory.DefaultAllocator
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "m", Type: arrow.FixedWidthTypes.MonthInterval, Nullable: true},
		{Name: "dt", Type: arrow.FixedWidthTypes.DayTimeInterval, Nullable: true},
		{Name: "mdn", Type: arrow.FixedWidthTypes.MonthDayNanoInterval, Nullable: true},
		{Name: "st", Type: arrow.StructOf(arrow.Field{Name: "every", Type: arrow.FixedWidthTypes.MonthDayNanoInterval, Nullable: true}), Nullable: true},
		{Name: "l", Type: arrow.ListOf(arrow.FixedWidthTypes.DayTimeInterval), Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(mem, sch)
	defer b.Release()
	for i := 0; i < 250; i++ {
		null := i%11 == 7
		app := func(k int, f func()) {
			if null {
				b.Field(k).AppendNull()
			} else {
				f()
			}
		}
		app(0, func() { b.Field(0).(*array.MonthIntervalBuilder).Append(arrow.MonthInterval(i%25 - 12)) })
		app(1, func() {
			b.Field(1).(*array.DayTimeIntervalBuilder).Append(arrow.DayTimeInterval{Days: int32(i % 31), Milliseconds: int32(-i * 1000)})
		})
		mdn := arrow.MonthDayNanoInterval{Months: int32(i % 13), Days: int32(-i % 5), Nanoseconds: int64(i) * 86_400_000_000_007}
		app(2, func() { b.Field(2).(*array.MonthDayNanoIntervalBuilder).Append(mdn) })
		app(3, func() {
			sb := b.Field(3).(*array.StructBuilder)
			sb.Append(true)
			if i%4 == 0 {
				sb.FieldBuilder(0).AppendNull()
			} else {
				sb.FieldBuilder(0).(*array.MonthDayNanoIntervalBuilder).Append(mdn)
			}
		})
		app(4, func() {
			lb := b.Field(4).(*array.ListBuilder)
			lb.Append(true)
			for j := 0; j < i%3; j++ {
				lb.ValueBuilder().(*array.DayTimeIntervalBuilder).Append(arrow.DayTimeInterval{Days: int32(j), Milliseconds: int32(i)})
			}
		})
	}
	rec := b.NewRecord()
	defer rec.Release()
	roundTripStandIn(t, rec, 90, nil, "out.arrow")
}
