package main

import (
	"math"
	"math/big"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata"
	"strata/schema"
)

// aggRecord returns the results of an aggregate as one row, a column per
// aggregate named as it, each of the type its values are of, so that they
// print as cat prints that type: min and max of the column's type (an
// empty string stays empty, a bool is true or false, an instant without a
// zone has none); count an int64; avg a float64; sum a float64 for floats,
// an int64 for integers (a decimal of 38 digits past the int64 range), or
// the column's decimal or duration type. The aggregated columns are looked
// up in schemas, the first that has one naming its type; a value whose type
// is not found keeps the text strata.AggValue.String gives it.
func aggRecord(vals []strata.AggValue, schemas []*arrow.Schema) arrow.Record {
	fields := make([]arrow.Field, len(vals))
	cols := make([]arrow.Array, len(vals))
	for k, v := range vals {
		t := aggType(v, schemas)
		var b array.Builder
		if t != nil {
			b = array.NewBuilder(memory.DefaultAllocator, t)
		}
		if t == nil || !appendAgg(b, v) {
			if b != nil {
				b.Release()
			}
			t = arrow.BinaryTypes.String
			b = array.NewBuilder(memory.DefaultAllocator, t)
			if v.Null {
				b.AppendNull()
			} else {
				b.(*array.StringBuilder).Append(aggText(v, aggType(v, schemas)))
			}
		}
		fields[k] = arrow.Field{Name: v.Name, Type: t, Nullable: true}
		cols[k] = b.NewArray()
		b.Release()
	}
	rec := array.NewRecord(arrow.NewSchema(fields, nil), cols, 1)
	releaseArrays(cols)
	return rec
}

// aggText is the text of a value no builder of its type t can hold (t may
// be nil): a duration sum past the int64 range is its count of the
// column's unit with the unit written after it ("12345678901234567890s"),
// as schema.FormatDuration writes a duration past time.Duration's range,
// so that it does not read as a bare number; other values are as
// AggValue.String gives them.
func aggText(v strata.AggValue, t arrow.DataType) string {
	if d, ok := t.(*arrow.DurationType); ok && v.Wide {
		return v.Big().String() + schema.TimeUnit(d.Unit).String()
	}
	return v.String()
}

// aggType is the type of an aggregate's value (see aggRecord), its
// column found by its path (AggValue.Column) or else by name; nil when it
// is not known, and the value then prints as AggValue.String gives it.
func aggType(v strata.AggValue, schemas []*arrow.Schema) arrow.DataType {
	// v.Name is fn(column): the column as a filter writes it where Column
	// is set, else as the expression named it
	open := strings.IndexByte(v.Name, '(')
	if open < 0 || !strings.HasSuffix(v.Name, ")") {
		return nil
	}
	fn, arg := strings.ToLower(v.Name[:open]), v.Name[open+1:len(v.Name)-1]
	switch fn {
	case "count":
		return arrow.PrimitiveTypes.Int64
	case "avg":
		return arrow.PrimitiveTypes.Float64
	}
	var t arrow.DataType
	for _, sch := range schemas {
		if v.Column != nil {
			t = pathType(sch, v.Column)
		} else {
			t = fieldType(sch, arg)
		}
		if t != nil {
			break
		}
	}
	if t == nil {
		return nil
	}
	if fn != "sum" {
		return t // min, max
	}
	switch t := t.(type) {
	case *arrow.Float32Type, *arrow.Float64Type:
		return arrow.PrimitiveTypes.Float64
	case *arrow.Decimal128Type:
		return &arrow.Decimal128Type{Precision: 38, Scale: t.Scale}
	case *arrow.DurationType:
		return t
	}
	if arrow.IsInteger(t.ID()) {
		if v.Wide {
			return &arrow.Decimal128Type{Precision: 38}
		}
		return arrow.PrimitiveTypes.Int64
	}
	return nil
}

// pathType is the type of the field at path in sch: a top-level column,
// then fields of structs; nil when there is none.
func pathType(sch *arrow.Schema, path []string) arrow.DataType {
	fields := sch.Fields()
	var t arrow.DataType
	for _, name := range path {
		i := slices.IndexFunc(fields, func(f arrow.Field) bool { return f.Name == name })
		if i < 0 {
			return nil
		}
		t = fields[i].Type
		if st, ok := t.(*arrow.StructType); ok {
			fields = st.Fields()
		} else {
			fields = nil
		}
	}
	return t
}

// appendAgg appends v to b, reporting false when b's type cannot hold it.
func appendAgg(b array.Builder, v strata.AggValue) bool {
	if v.Null {
		b.AppendNull()
		return true
	}
	if v.Wide {
		d, ok := b.(*array.Decimal128Builder)
		if ok {
			d.Append(decimalNum(v.Big()))
		}
		return ok
	}
	switch b := b.(type) {
	case *array.Float32Builder:
		if v.Float {
			b.Append(float32(v.F))
		}
		return v.Float
	case *array.Float64Builder:
		if v.Float {
			b.Append(v.F)
		} else {
			b.Append(float64(v.I))
		}
		return true
	}
	if v.Float {
		// (a float only for a float column, or avg)
		return false
	}
	switch b := b.(type) {
	case *array.BooleanBuilder:
		b.Append(v.I != 0)
	case *array.Int8Builder:
		b.Append(int8(v.I))
	case *array.Int16Builder:
		b.Append(int16(v.I))
	case *array.Int32Builder:
		b.Append(int32(v.I))
	case *array.Int64Builder:
		b.Append(v.I)
	case *array.Uint8Builder:
		b.Append(uint8(v.I))
	case *array.Uint16Builder:
		b.Append(uint16(v.I))
	case *array.Uint32Builder:
		b.Append(uint32(v.I))
	case *array.Uint64Builder:
		b.Append(uint64(v.I))
	case *array.StringBuilder:
		b.Append(v.Text) // the value itself, "" included
	case *array.BinaryBuilder:
		b.Append([]byte(v.Text))
	case *array.Date32Builder:
		b.Append(arrow.Date32(v.I))
	case *array.TimestampBuilder:
		b.Append(arrow.Timestamp(v.I))
	case *array.Time32Builder:
		b.Append(arrow.Time32(v.I))
	case *array.Time64Builder:
		b.Append(arrow.Time64(v.I))
	case *array.DurationBuilder:
		b.Append(arrow.Duration(v.I))
	case *array.Decimal128Builder:
		b.Append(decimal128.FromI64(v.I))
	default:
		return false
	}
	return true
}

// decimalNum returns x, an integer of at most 128 bits in two's
// complement, as a decimal128.Num. decimal128.FromBigInt refuses -2^127,
// which the min of a wide decimal may be: its 16 bytes can hold any
// 128-bit integer, whatever its type's 38 digits allow.
func decimalNum(x *big.Int) decimal128.Num {
	mask := new(big.Int).SetUint64(math.MaxUint64)
	lo := new(big.Int).And(x, mask).Uint64() // And and Rsh act on two's complement
	hi := new(big.Int).Rsh(x, 64).Int64()
	return decimal128.New(hi, lo)
}
