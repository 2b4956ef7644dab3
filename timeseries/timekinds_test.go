package timeseries

import (
	"io"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata/iox"
)

// TestTimeMeasurements: a time-series table whose measurements are a time
// of day and a duration writes, reads back value by value per series, and
// aggregates the duration (an integer measurement). A measurement of
// Arrow's null type is refused by the model, naming it.
func TestTimeMeasurements(t *testing.T) {
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "host", Type: arrow.BinaryTypes.String},
		{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond}},
		{Name: "opened", Type: arrow.FixedWidthTypes.Time32s, Nullable: true},
		{Name: "uptime", Type: arrow.FixedWidthTypes.Duration_ms},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	defer b.Release()
	const perHost = 1000
	hosts := []string{"a", "b", "c"}
	for _, h := range hosts {
		for i := range perHost {
			b.Field(0).(*array.StringBuilder).Append(h)
			b.Field(1).(*array.TimestampBuilder).Append(arrow.Timestamp(int64(i) * 10e6))
			if i%9 == 0 {
				b.Field(2).AppendNull()
			} else {
				b.Field(2).(*array.Time32Builder).Append(arrow.Time32(i * 37 % 86400))
			}
			b.Field(3).(*array.DurationBuilder).Append(arrow.Duration(int64(i) * 1000))
		}
	}
	rec := b.NewRecord()
	defer rec.Release()
	data := writeFile(t, []arrow.Record{rec}, Model{Keys: []string{"host"}, Time: "ts"}, &WriterOptions{Sorted: true, ChunkRows: 256})
	f, err := OpenSource(ctx, iox.Bytes(data), nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, h := range hosts {
		q, err := f.Query(ctx, QueryOptions{Series: Selector{"host": h}, Columns: []string{"ts", "opened", "uptime"}})
		if err != nil {
			t.Fatal(err)
		}
		row := 0
		for {
			got, err := q.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			for i := range int(got.NumRows()) {
				src := k*perHost + row
				for c, name := range []string{"ts", "opened", "uptime"} {
					want := rec.Column(sch.FieldIndices(name)[0])
					a := got.Column(c)
					if a.IsNull(i) != want.IsNull(src) || !a.IsNull(i) && a.ValueStr(i) != want.ValueStr(src) {
						t.Fatalf("host %s row %d %s: %s, want %s", h, row, name, a.ValueStr(i), want.ValueStr(src))
					}
				}
				row++
			}
			got.Release()
		}
		if row != perHost {
			t.Fatalf("host %s: %d rows, want %d", h, row, perHost)
		}
	}
	withNull := arrow.NewSchema(append(sch.Fields(), arrow.Field{Name: "none", Type: arrow.Null, Nullable: true}), nil)
	if _, err := NewWriter(io.Discard, withNull, Model{Keys: []string{"host"}, Time: "ts"}, nil); err == nil || !strings.Contains(err.Error(), `"none"`) {
		t.Errorf("a null-type measurement: %v", err)
	}
	agg, _, err := f.Aggregate(ctx, AggOptions{Columns: []string{"uptime"}, Funcs: []string{"count", "max", "sum"}, Keys: []string{"host"}})
	if err != nil {
		t.Fatal(err)
	}
	defer agg.Release()
	if agg.NumRows() != 3 {
		t.Fatalf("%d rows", agg.NumRows())
	}
	col := func(name string) arrow.Array { return agg.Column(agg.Schema().FieldIndices(name)[0]) }
	for i := range 3 {
		if c, m, s := col("count(uptime)").(*array.Int64).Value(i), col("max(uptime)").(*array.Float64).Value(i), col("sum(uptime)").(*array.Float64).Value(i); c != perHost || m != 999000 || s != 499500000 {
			t.Errorf("row %d: count %d max %v sum %v", i, c, m, s)
		}
	}
}
