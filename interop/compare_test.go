package interop_test

import (
	"fmt"
	"io"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// The canonical mapping: the Arrow type Strata returns for each Arrow type
// it imports. The expected side of every comparison is converted to it
// with canonArray, value by value through builders, independently of the
// conversion code under test; the compared side is never loosened.
//
//	extension<S>                            → canon(S)
//	float16                                 → float32
//	month_interval                          → int32
//	day_time_interval                       → struct<days, milliseconds>
//	month_day_nano_interval                 → struct<months, days, nanoseconds>
//	string, large_string, string_view       → string
//	binary, large_binary, binary_view,
//	  fixed_size_binary[n]                  → binary
//	dictionary<K, V>, run_end_encoded<E, V> → canon(V)
//	sparse or dense union<F...>             → struct<type_code int8, canon(F)...>
//	decimal32/64/128/256(p <= 38, s)        → decimal128(p, s)
//	decimal256(p > 38, s)                   → string (every digit of s)
//	list<E>, large_list<E>, list_view<E>,
//	  large_list_view<E>,
//	  fixed_size_list<E, n>                 → list<canon(E)>
//	struct<F...>                            → struct<canon(F)...>
//	map<K, V> (keys_sorted dropped)         → map<canon(K), canon(V)>
//	anything else                           → itself
func canonType(t arrow.DataType) arrow.DataType {
	switch t := t.(type) {
	case arrow.ExtensionType:
		return canonType(t.StorageType())
	case *arrow.Float16Type:
		return arrow.PrimitiveTypes.Float32
	case *arrow.MonthIntervalType:
		return arrow.PrimitiveTypes.Int32
	case *arrow.DayTimeIntervalType:
		return arrow.StructOf(arrow.Field{Name: "days", Type: arrow.PrimitiveTypes.Int32},
			arrow.Field{Name: "milliseconds", Type: arrow.PrimitiveTypes.Int32})
	case *arrow.MonthDayNanoIntervalType:
		return arrow.StructOf(arrow.Field{Name: "months", Type: arrow.PrimitiveTypes.Int32},
			arrow.Field{Name: "days", Type: arrow.PrimitiveTypes.Int32},
			arrow.Field{Name: "nanoseconds", Type: arrow.PrimitiveTypes.Int64})
	case *arrow.LargeStringType, *arrow.StringViewType:
		return arrow.BinaryTypes.String
	case *arrow.LargeBinaryType, *arrow.BinaryViewType, *arrow.FixedSizeBinaryType:
		return arrow.BinaryTypes.Binary
	case *arrow.DictionaryType:
		return canonType(t.ValueType)
	case *arrow.RunEndEncodedType:
		return canonType(t.Encoded())
	case arrow.UnionType:
		fs := []arrow.Field{{Name: "type_code", Type: arrow.PrimitiveTypes.Int8}}
		for _, f := range t.Fields() {
			fs = append(fs, arrow.Field{Name: f.Name, Type: canonType(f.Type), Nullable: true})
		}
		return arrow.StructOf(fs...)
	case arrow.DecimalType:
		if t.GetPrecision() > 38 {
			return arrow.BinaryTypes.String
		}
		return &arrow.Decimal128Type{Precision: t.GetPrecision(), Scale: t.GetScale()}
	case *arrow.ListType:
		return arrow.ListOfField(canonField(t.ElemField()))
	case *arrow.LargeListType:
		return arrow.ListOfField(canonField(t.ElemField()))
	case *arrow.FixedSizeListType:
		return arrow.ListOfField(canonField(t.ElemField()))
	case *arrow.ListViewType:
		return arrow.ListOfField(canonField(t.ElemField()))
	case *arrow.LargeListViewType:
		return arrow.ListOfField(canonField(t.ElemField()))
	case *arrow.MapType:
		return arrow.MapOfFields(canonField(t.KeyField()), canonField(t.ItemField()))
	case *arrow.StructType:
		fs := make([]arrow.Field, t.NumFields())
		for i, f := range t.Fields() {
			fs[i] = canonField(f)
		}
		return arrow.StructOf(fs...)
	}
	return t
}

func canonField(f arrow.Field) arrow.Field {
	return arrow.Field{Name: f.Name, Type: canonType(f.Type), Nullable: f.Nullable}
}

// canonArray converts a to canonType(a.DataType()).
func canonArray(a arrow.Array) (arrow.Array, error) {
	b := array.NewBuilder(memory.DefaultAllocator, canonType(a.DataType()))
	defer b.Release()
	for i := 0; i < a.Len(); i++ {
		if err := appendValue(b, a, i); err != nil {
			return nil, err
		}
	}
	return b.NewArray(), nil
}

func appendValue(b array.Builder, a arrow.Array, i int) error {
	if ext, ok := a.(array.ExtensionArray); ok {
		// The storage's validity, not the extension's: arrow-go's variant
		// array reports a stored variant null as IsNull.
		return appendValue(b, ext.Storage(), i)
	}
	if a.IsNull(i) || a.DataType().ID() == arrow.NULL { // arrow-go's null arrays report IsValid
		b.AppendNull()
		return nil
	}
	switch a := a.(type) {
	case *array.Dictionary:
		return appendValue(b, a.Dictionary(), a.GetValueIndex(i))
	case array.Union:
		sb := b.(*array.StructBuilder)
		sb.Append(true)
		sb.FieldBuilder(0).(*array.Int8Builder).Append(int8(a.TypeCode(i)))
		k, at := a.ChildID(i), i
		if d, ok := a.(*array.DenseUnion); ok {
			at = int(d.ValueOffset(i))
		}
		for m := 0; m < a.NumFields(); m++ {
			if m != k {
				sb.FieldBuilder(m + 1).AppendNull()
			} else if err := appendValue(sb.FieldBuilder(m+1), a.Field(m), at); err != nil {
				return err
			}
		}
		return nil
	case *array.RunEndEncoded:
		// the first run ending past the row (logical offset included)
		at := int64(a.Data().Offset() + i)
		ends := a.RunEndsArr()
		for k := 0; k < ends.Len(); k++ {
			var e int64
			switch x := ends.(type) {
			case *array.Int16:
				e = int64(x.Value(k))
			case *array.Int32:
				e = int64(x.Value(k))
			case *array.Int64:
				e = x.Value(k)
			}
			if e > at {
				return appendValue(b, a.Values(), k)
			}
		}
		return fmt.Errorf("row %d past the last run", i)
	case *array.Boolean:
		b.(*array.BooleanBuilder).Append(a.Value(i))
	case *array.Int8:
		b.(*array.Int8Builder).Append(a.Value(i))
	case *array.Int16:
		b.(*array.Int16Builder).Append(a.Value(i))
	case *array.Int32:
		b.(*array.Int32Builder).Append(a.Value(i))
	case *array.Int64:
		b.(*array.Int64Builder).Append(a.Value(i))
	case *array.Uint8:
		b.(*array.Uint8Builder).Append(a.Value(i))
	case *array.Uint16:
		b.(*array.Uint16Builder).Append(a.Value(i))
	case *array.Uint32:
		b.(*array.Uint32Builder).Append(a.Value(i))
	case *array.Uint64:
		b.(*array.Uint64Builder).Append(a.Value(i))
	case *array.Float16:
		b.(*array.Float32Builder).Append(a.Value(i).Float32())
	case *array.MonthInterval:
		b.(*array.Int32Builder).Append(int32(a.Value(i)))
	case *array.DayTimeInterval:
		sb := b.(*array.StructBuilder)
		sb.Append(true)
		sb.FieldBuilder(0).(*array.Int32Builder).Append(a.Value(i).Days)
		sb.FieldBuilder(1).(*array.Int32Builder).Append(a.Value(i).Milliseconds)
	case *array.MonthDayNanoInterval:
		sb := b.(*array.StructBuilder)
		sb.Append(true)
		sb.FieldBuilder(0).(*array.Int32Builder).Append(a.Value(i).Months)
		sb.FieldBuilder(1).(*array.Int32Builder).Append(a.Value(i).Days)
		sb.FieldBuilder(2).(*array.Int64Builder).Append(a.Value(i).Nanoseconds)
	case *array.Float32:
		b.(*array.Float32Builder).Append(a.Value(i))
	case *array.Float64:
		b.(*array.Float64Builder).Append(a.Value(i))
	case *array.String:
		b.(*array.StringBuilder).Append(a.Value(i))
	case *array.LargeString:
		b.(*array.StringBuilder).Append(a.Value(i))
	case *array.StringView:
		b.(*array.StringBuilder).Append(a.Value(i))
	case *array.Binary:
		b.(*array.BinaryBuilder).Append(a.Value(i))
	case *array.LargeBinary:
		b.(*array.BinaryBuilder).Append(a.Value(i))
	case *array.BinaryView:
		b.(*array.BinaryBuilder).Append(a.Value(i))
	case *array.FixedSizeBinary:
		b.(*array.BinaryBuilder).Append(a.Value(i))
	case *array.Date32:
		b.(*array.Date32Builder).Append(a.Value(i))
	case *array.Timestamp:
		b.(*array.TimestampBuilder).Append(a.Value(i))
	case *array.Time32:
		b.(*array.Time32Builder).Append(a.Value(i))
	case *array.Time64:
		b.(*array.Time64Builder).Append(a.Value(i))
	case *array.Duration:
		b.(*array.DurationBuilder).Append(a.Value(i))
	case *array.Decimal32:
		b.(*array.Decimal128Builder).Append(decimal128.FromI64(int64(a.Value(i))))
	case *array.Decimal64:
		b.(*array.Decimal128Builder).Append(decimal128.FromI64(int64(a.Value(i))))
	case *array.Decimal128:
		b.(*array.Decimal128Builder).Append(a.Value(i))
	case *array.Decimal256:
		if sb, ok := b.(*array.StringBuilder); ok {
			sb.Append(a.Value(i).ToString(a.DataType().(*arrow.Decimal256Type).Scale))
			return nil
		}
		v := a.Value(i).BigInt()
		if v.BitLen() > 127 {
			return fmt.Errorf("decimal256 %s does not fit decimal128", v)
		}
		b.(*array.Decimal128Builder).Append(decimal128.FromBigInt(v))
	case *array.Struct:
		sb := b.(*array.StructBuilder)
		sb.Append(true)
		for k := 0; k < a.NumField(); k++ {
			if err := appendValue(sb.FieldBuilder(k), a.Field(k), i); err != nil {
				return err
			}
		}
	case *array.Map:
		mb := b.(*array.MapBuilder)
		mb.Append(true)
		lo, hi := a.ValueOffsets(i)
		for j := int(lo); j < int(hi); j++ {
			if err := appendValue(mb.KeyBuilder(), a.Keys(), j); err != nil {
				return err
			}
			if err := appendValue(mb.ItemBuilder(), a.Items(), j); err != nil {
				return err
			}
		}
	case *array.List, *array.LargeList, *array.FixedSizeList, *array.ListView, *array.LargeListView:
		l := a.(array.ListLike)
		lb := b.(*array.ListBuilder)
		lb.Append(true)
		lo, hi := l.ValueOffsets(i)
		for j := int(lo); j < int(hi); j++ {
			if err := appendValue(lb.ValueBuilder(), l.ListValues(), j); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("no canonical form for %s", a.DataType())
	}
	return nil
}

// orderedView reinterprets maps as lists of key/value structs (the same
// layout) so that ApproxEqual compares map entries in order; arrow-go's
// map equality ignores entry order.
func orderedView(d arrow.ArrayData) arrow.ArrayData {
	kids := d.Children()
	nk := make([]arrow.ArrayData, len(kids))
	for i, k := range kids {
		nk[i] = orderedView(k)
		defer nk[i].Release()
	}
	return array.NewData(orderedType(d.DataType()), d.Len(), d.Buffers(), nk, d.NullN(), d.Offset())
}

func orderedType(t arrow.DataType) arrow.DataType {
	switch t := t.(type) {
	case *arrow.MapType:
		return arrow.ListOfField(arrow.Field{Name: "entries", Type: orderedType(t.Elem())})
	case *arrow.ListType:
		f := t.ElemField()
		f.Type = orderedType(f.Type)
		return arrow.ListOfField(f)
	case *arrow.StructType:
		fs := make([]arrow.Field, t.NumFields())
		for i, f := range t.Fields() {
			f.Type = orderedType(f.Type)
			fs[i] = f
		}
		return arrow.StructOf(fs...)
	}
	return t
}

// exact compares floats exactly (NaN equal to NaN), everything else by
// value, maps in entry order.
var exact = []array.EqualOption{array.WithNaNsEqual(true), array.WithAbsTolerance(0)}

// sameValues reports the first difference between want and got, which
// must have the same type.
func sameValues(want, got arrow.Array) error {
	if !arrow.TypeEqual(want.DataType(), got.DataType()) {
		return fmt.Errorf("type %s, want %s", got.DataType(), want.DataType())
	}
	if want.Len() != got.Len() {
		return fmt.Errorf("%d rows, want %d", got.Len(), want.Len())
	}
	wd, gd := orderedView(want.Data()), orderedView(got.Data())
	defer wd.Release()
	defer gd.Release()
	w, g := array.MakeFromData(wd), array.MakeFromData(gd)
	defer w.Release()
	defer g.Release()
	if array.ApproxEqual(w, g, exact...) {
		return nil
	}
	for i := 0; i < w.Len(); i++ {
		if !array.SliceApproxEqual(w, int64(i), int64(i+1), g, int64(i), int64(i+1), exact...) {
			ws, gs := array.NewSlice(w, int64(i), int64(i+1)), array.NewSlice(g, int64(i), int64(i+1))
			defer ws.Release()
			defer gs.Release()
			return fmt.Errorf("row %d: got %v, want %v", i, clip(gs), clip(ws))
		}
	}
	return fmt.Errorf("arrays differ (no single row found)")
}

func clip(a arrow.Array) string {
	s := fmt.Sprint(a)
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

// concatColumn joins the chunks of one column of a list of batches.
func concatColumn(recs []arrow.Record, col int, dt arrow.DataType) (arrow.Array, error) {
	if len(recs) == 0 {
		return array.MakeArrayOfNull(memory.DefaultAllocator, dt, 0), nil
	}
	if len(recs) == 1 { // (arrow-go concatenates no unions)
		c := recs[0].Column(col)
		c.Retain()
		return c, nil
	}
	parts := make([]arrow.Array, len(recs))
	for i, r := range recs {
		parts[i] = r.Column(col)
	}
	return array.Concatenate(parts, memory.DefaultAllocator)
}

// drain reads every batch of a reader-like source.
func drain(next func() (arrow.Record, error)) ([]arrow.Record, error) {
	var out []arrow.Record
	for {
		rec, err := next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			release(out)
			return nil, err
		}
		out = append(out, rec)
	}
}

func release(recs []arrow.Record) {
	for _, r := range recs {
		r.Release()
	}
}

// compareTables checks got (batches with Strata's schema) against want
// (batches as arrow-go read the original), column by column after
// canonicalising want.
func compareTables(want []arrow.Record, wantSchema *arrow.Schema, got []arrow.Record, gotSchema *arrow.Schema) error {
	if wantSchema.NumFields() != gotSchema.NumFields() {
		return fmt.Errorf("%d columns, want %d", gotSchema.NumFields(), wantSchema.NumFields())
	}
	var errs []string
	for i, wf := range wantSchema.Fields() {
		gf := gotSchema.Field(i)
		cf := canonField(wf)
		if gf.Name != cf.Name || gf.Nullable != cf.Nullable || !arrow.TypeEqual(gf.Type, cf.Type) {
			errs = append(errs, fmt.Sprintf("field %d: got %s, want %s", i, gf, cf))
			continue
		}
		w, err := concatColumn(want, i, wf.Type)
		if err != nil {
			return err
		}
		cw, err := canonArray(w)
		w.Release()
		if err != nil {
			return fmt.Errorf("column %q: %w", wf.Name, err)
		}
		g, err := concatColumn(got, i, gf.Type)
		if err != nil {
			cw.Release()
			return err
		}
		if err := sameValues(cw, g); err != nil {
			errs = append(errs, fmt.Sprintf("column %q: %v", wf.Name, err))
		}
		cw.Release()
		g.Release()
	}
	if errs != nil {
		return fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return nil
}
