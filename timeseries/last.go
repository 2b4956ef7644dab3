package timeseries

import (
	"context"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata/read"
)

// Last returns the latest point of every series the selector picks, from
// the series directory alone — no data chunk is read. Each row holds the
// series' keys, its last time, and for each measurement (all when columns
// is empty) its latest non-null value (null when the series has none).
func (f *File) Last(ctx context.Context, sel Selector, columns []string) (arrow.Record, Stats, error) {
	var st Stats
	if err := f.open("Last"); err != nil {
		return nil, st, err
	}
	es, err := f.selectEntries(ctx, sel, &st)
	if err != nil {
		return nil, st, err
	}
	st.SeriesMatched = len(es)
	var meas []int // indexes into f.t.measures
	if len(columns) == 0 {
		for j := range f.t.measures {
			meas = append(meas, j)
		}
	} else {
		for _, n := range columns {
			is := f.t.sch.FieldIndices(n)
			if len(is) == 0 {
				return nil, st, fmt.Errorf("timeseries: %w %q", read.ErrUnknownColumn, n)
			}
			j := -1
			for k, c := range f.t.measures {
				if c == is[0] {
					j = k
				}
			}
			if j < 0 {
				return nil, st, fmt.Errorf("timeseries: %q is not a measurement: %w", n, read.ErrInvalidArgument)
			}
			meas = append(meas, j)
		}
	}
	var fields []arrow.Field
	for _, k := range f.t.keys {
		fields = append(fields, f.t.sch.Field(k))
	}
	fields = append(fields, f.t.sch.Field(f.t.time))
	for _, j := range meas {
		fl := f.t.sch.Field(f.t.measures[j])
		fl.Nullable = true
		fields = append(fields, fl)
	}
	sch := arrow.NewSchema(fields, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	defer b.Release()
	for _, e := range es {
		for i := range f.t.keys {
			if err := appendKeyValue(b.Field(i), f.t.keyKinds[i], e.key[i], f.t.render(i, e.key[i])); err != nil {
				return nil, st, err
			}
		}
		appendInt(b.Field(len(f.t.keys)), e.tmax)
		for k, j := range meas {
			if err := appendLastValue(b.Field(len(f.t.keys)+1+k), e.last[j]); err != nil {
				return nil, st, err
			}
		}
	}
	rec := b.NewRecord()
	st.RowsReturned = rec.NumRows()
	return rec, st, nil
}

// appendInt appends an int64 to a builder of any integer-backed type.
func appendInt(b array.Builder, v int64) {
	switch bb := b.(type) {
	case *array.Int8Builder:
		bb.Append(int8(v))
	case *array.Int16Builder:
		bb.Append(int16(v))
	case *array.Int32Builder:
		bb.Append(int32(v))
	case *array.Int64Builder:
		bb.Append(v)
	case *array.TimestampBuilder:
		bb.Append(arrow.Timestamp(v))
	case *array.Date32Builder:
		bb.Append(arrow.Date32(v))
	case *array.Date64Builder:
		bb.Append(arrow.Date64(v))
	case *array.Time32Builder:
		bb.Append(arrow.Time32(v))
	case *array.Time64Builder:
		bb.Append(arrow.Time64(v))
	case *array.DurationBuilder:
		bb.Append(arrow.Duration(v))
	default:
		b.AppendNull()
	}
}

// appendLastValue appends a stored last value to a builder of its column.
func appendLastValue(b array.Builder, v lastValue) error {
	if !v.ok {
		b.AppendNull()
		return nil
	}
	switch bb := b.(type) {
	case *array.Uint8Builder:
		bb.Append(uint8(v.num))
	case *array.Uint16Builder:
		bb.Append(uint16(v.num))
	case *array.Uint32Builder:
		bb.Append(uint32(v.num))
	case *array.Uint64Builder:
		bb.Append(v.num)
	case *array.Float32Builder:
		bb.Append(float32(math.Float64frombits(v.num)))
	case *array.Float64Builder:
		bb.Append(math.Float64frombits(v.num))
	case *array.BooleanBuilder:
		bb.Append(v.num != 0)
	case *array.StringBuilder:
		bb.Append(string(v.b))
	case *array.BinaryBuilder:
		bb.Append(v.b)
	default:
		appendInt(b, int64(v.num))
	}
	return nil
}
