package interop

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata/encoding"
)

// StorableType returns the Arrow type Strata stores for t when t itself is
// one Strata does not accept but has a lossless stand-in, and whether the
// two differ. The mapping keeps every value exactly:
//
//   - extension types → their storage type (the extension's name is dropped)
//   - float16 → float32
//   - fixed_size_binary[n] → binary
//   - decimal256 with precision <= 38 → decimal128 of the same precision and scale
//   - intervals → their fields: month_interval → int32 (months),
//     day_time_interval → struct<days int32, milliseconds int32>,
//     month_day_nano_interval → struct<months int32, days int32,
//     nanoseconds int64>
//   - run-end encoded of fixed-width, boolean, string or binary values →
//     the values, one a row (Strata's RLE finds the runs again)
//   - sparse and dense unions of fixed-width, boolean, string or binary
//     members → struct<type_code int8, one nullable field per member>, the
//     member of each row set and the others null
//   - decimal256 with precision > 38 → its exact decimal text ("-12.3400":
//     every digit of the scale), which Strata's text encodings store as the
//     integers they are where that pays
//   - a dictionary of fixed-width or boolean values (a pandas categorical
//     of numbers or dates) → its values' storable type (Strata's own
//     selection finds the dictionary again where it pays); dictionaries
//     of strings and binaries are stored as they are
//   - struct, the lists (list views and fixed-size lists included) and map
//     → the same shape with storable children
//
// (A fixed_size_list or a list view is accepted as is: the writer stores
// it as a list, and storedType says so, so that export can give the type
// back.)
//
// Every other type is returned unchanged; if Strata does not accept it,
// the writer reports it.
func StorableType(t arrow.DataType) (arrow.DataType, bool) {
	switch t := t.(type) {
	case arrow.ExtensionType:
		s, _ := StorableType(t.StorageType())
		return s, true
	case *arrow.Float16Type:
		return arrow.PrimitiveTypes.Float32, true
	case *arrow.FixedSizeBinaryType:
		return arrow.BinaryTypes.Binary, true
	case *arrow.MonthIntervalType:
		return arrow.PrimitiveTypes.Int32, true
	case *arrow.DayTimeIntervalType:
		return dayTimeFields, true
	case *arrow.MonthDayNanoIntervalType:
		return monthDayNanoFields, true
	case arrow.UnionType:
		if st, ok := unionFields(t); ok {
			return st, true
		}
	case *arrow.RunEndEncodedType:
		if v, _ := StorableType(t.Encoded()); gatherable(v) || isBinaryLike(v) {
			return v, true
		}
	case *arrow.DictionaryType:
		if v, _ := StorableType(t.ValueType); gatherable(v) {
			return v, true
		}
	case *arrow.Decimal256Type:
		if t.Precision <= 38 {
			return &arrow.Decimal128Type{Precision: t.Precision, Scale: t.Scale}, true
		}
		return arrow.BinaryTypes.String, true
	case *arrow.StructType:
		fields, changed := storableFields(t.Fields())
		if changed {
			return arrow.StructOf(fields...), true
		}
	case *arrow.ListType:
		if ef, changed := storableField(t.ElemField()); changed {
			return arrow.ListOfField(ef), true
		}
	case *arrow.LargeListType:
		if ef, changed := storableField(t.ElemField()); changed {
			return arrow.LargeListOfField(ef), true
		}
	case *arrow.FixedSizeListType:
		if ef, changed := storableField(t.ElemField()); changed {
			return arrow.FixedSizeListOfField(t.Len(), ef), true
		}
	case *arrow.ListViewType:
		if ef, changed := storableField(t.ElemField()); changed {
			return arrow.ListViewOfField(ef), true
		}
	case *arrow.LargeListViewType:
		if ef, changed := storableField(t.ElemField()); changed {
			return arrow.LargeListViewOfField(ef), true
		}
	case *arrow.MapType:
		kf, kc := storableField(t.KeyField())
		vf, vc := storableField(t.ItemField())
		if kc || vc {
			m := arrow.MapOfFields(kf, vf)
			m.KeysSorted = t.KeysSorted
			return m, true
		}
	}
	return t, false
}

func storableField(f arrow.Field) (arrow.Field, bool) {
	t, changed := StorableType(f.Type)
	f.Type = t
	return f, changed
}

func storableFields(in []arrow.Field) ([]arrow.Field, bool) {
	out := make([]arrow.Field, len(in))
	changed := false
	for i, f := range in {
		var c bool
		out[i], c = storableField(f)
		changed = changed || c
	}
	return out, changed
}

// StorableSchema returns s with every field mapped by StorableType, and
// whether anything changed.
func StorableSchema(s *arrow.Schema) (*arrow.Schema, bool) {
	fields, changed := storableFields(s.Fields())
	if !changed {
		return s, false
	}
	md := s.Metadata()
	return arrow.NewSchema(fields, &md), true
}

// coercingReader converts every batch of an inner reader to the storable
// schema.
type coercingReader struct {
	RecordReader
	sch *arrow.Schema
	mem memory.Allocator
}

// coerce wraps r so its batches use StorableSchema(r.Schema()); r is
// returned as is when no field needs converting.
func coerce(r RecordReader, mem memory.Allocator) RecordReader {
	sch, changed := StorableSchema(r.Schema())
	if !changed {
		return r
	}
	return &coercingReader{RecordReader: r, sch: sch, mem: mem}
}

func (c *coercingReader) Schema() *arrow.Schema { return c.sch }

func (c *coercingReader) Next() (out arrow.Record, err error) {
	rec, err := c.RecordReader.Next()
	if err != nil {
		return nil, err
	}
	defer rec.Release()
	// The readers check what they return (ipcvalidate.go for Arrow IPC),
	// but a batch that still fools a conversion must fail the import,
	// not end the process.
	defer func() {
		if p := recover(); p != nil {
			out, err = nil, fmt.Errorf("interop: converting a batch to storable types: malformed data: %v", p)
		}
	}()
	return CoerceRecord(c.mem, rec, c.sch)
}

// CoerceRecord converts rec to sch, which must be StorableSchema of
// rec's schema. Columns whose type is unchanged are shared, not copied.
func CoerceRecord(mem memory.Allocator, rec arrow.Record, sch *arrow.Schema) (arrow.Record, error) {
	return convertRecord(mem, rec, sch, coerceData)
}

// dataConv converts one column's data to type to, returning a new reference.
type dataConv func(mem memory.Allocator, d arrow.ArrayData, to arrow.DataType) (arrow.ArrayData, error)

// convertRecord applies conv to every column of rec, giving a batch of
// schema sch. It is the one walk behind CoerceRecord (import) and
// RestoreRecord (export).
func convertRecord(mem memory.Allocator, rec arrow.Record, sch *arrow.Schema, conv dataConv) (arrow.Record, error) {
	if sch.NumFields() != int(rec.NumCols()) {
		return nil, fmt.Errorf("interop: convert: schema has %d fields, batch %d columns", sch.NumFields(), rec.NumCols())
	}
	cols := make([]arrow.Array, rec.NumCols())
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	for i, col := range rec.Columns() {
		d, err := conv(mem, col.Data(), sch.Field(i).Type)
		if err != nil {
			return nil, fmt.Errorf("interop: column %q: %w", sch.Field(i).Name, err)
		}
		cols[i] = array.MakeFromData(d)
		d.Release()
	}
	return array.NewRecord(sch, cols, rec.NumRows()), nil
}

// convertChildren applies conv to each child of nested data d, whose
// converted type is to. On error nothing is left retained.
func convertChildren(mem memory.Allocator, d arrow.ArrayData, to arrow.DataType, conv dataConv) ([]arrow.ArrayData, error) {
	kids := d.Children()
	targets, err := childTypes(to, len(kids))
	if err != nil {
		return nil, err
	}
	out := make([]arrow.ArrayData, len(kids))
	for i, k := range kids {
		if out[i], err = conv(mem, k, targets[i]); err != nil {
			releaseAll(out[:i])
			return nil, err
		}
	}
	return out, nil
}

func releaseAll(ds []arrow.ArrayData) {
	for _, d := range ds {
		d.Release()
	}
}

// convertLeaf converts leaf data d with leaf. It works on the whole buffer
// range [0, offset+len) and slices the result back, so that a validity
// bitmap shared with a parent keeps lining up.
func convertLeaf(mem memory.Allocator, d arrow.ArrayData, to arrow.DataType,
	leaf func(memory.Allocator, arrow.Array, arrow.DataType) (arrow.Array, error)) (arrow.ArrayData, error) {
	n := d.Offset() + d.Len()
	full := array.NewData(d.DataType(), n, d.Buffers(), nil, -1, 0)
	defer full.Release()
	src := array.MakeFromData(full)
	defer src.Release()
	conv, err := leaf(mem, src, to)
	if err != nil {
		return nil, err
	}
	defer conv.Release()
	return array.NewSliceData(conv.Data(), int64(d.Offset()), int64(n)), nil
}

// coerceData returns d converted to type to (a new reference). It works on
// the unsliced layout so that a parent's offset still applies to the
// converted children.
func coerceData(mem memory.Allocator, d arrow.ArrayData, to arrow.DataType) (arrow.ArrayData, error) {
	from := d.DataType()
	if arrow.TypeEqual(from, to) {
		d.Retain()
		return d, nil
	}
	if ext, ok := from.(arrow.ExtensionType); ok {
		st := array.NewData(ext.StorageType(), d.Len(), d.Buffers(), d.Children(), d.NullN(), d.Offset())
		defer st.Release()
		return coerceData(mem, st, to)
	}
	if dt, ok := from.(*arrow.DictionaryType); ok && to.ID() != arrow.DICTIONARY {
		return decodeDictionary(mem, d, dt, to)
	}
	if from.ID() == arrow.RUN_END_ENCODED && to.ID() != arrow.RUN_END_ENCODED {
		return decodeRuns(mem, d, to)
	}
	if ut, ok := from.(arrow.UnionType); ok && to.ID() == arrow.STRUCT {
		return decodeUnion(mem, d, ut, to)
	}
	switch from.ID() {
	case arrow.STRUCT, arrow.LIST, arrow.LARGE_LIST, arrow.FIXED_SIZE_LIST, arrow.LIST_VIEW, arrow.LARGE_LIST_VIEW, arrow.MAP:
		out, err := convertChildren(mem, d, to, coerceData)
		if err != nil {
			return nil, err
		}
		defer releaseAll(out)
		return array.NewData(to, d.Len(), d.Buffers(), out, d.NullN(), d.Offset()), nil
	}
	return convertLeaf(mem, d, to, coerceLeaf)
}

// The struct stand-ins of intervals (StorableType).
var (
	dayTimeFields = arrow.StructOf(
		arrow.Field{Name: "days", Type: arrow.PrimitiveTypes.Int32},
		arrow.Field{Name: "milliseconds", Type: arrow.PrimitiveTypes.Int32})
	monthDayNanoFields = arrow.StructOf(
		arrow.Field{Name: "months", Type: arrow.PrimitiveTypes.Int32},
		arrow.Field{Name: "days", Type: arrow.PrimitiveTypes.Int32},
		arrow.Field{Name: "nanoseconds", Type: arrow.PrimitiveTypes.Int64})
)

// intervalFields returns the fields of interval array a (unsliced) as
// the struct of StorableType, or as int32 for months.
func intervalFields(mem memory.Allocator, a arrow.Array) (arrow.Array, bool) {
	var cols []func(i int, b array.Builder)
	var to arrow.DataType
	switch a := a.(type) {
	case *array.MonthInterval:
		v := a.MonthIntervalValues()
		b := array.NewInt32Builder(mem)
		defer b.Release()
		for i := range v {
			if a.IsNull(i) {
				b.AppendNull()
			} else {
				b.Append(int32(v[i]))
			}
		}
		return b.NewArray(), true
	case *array.DayTimeInterval:
		v := a.DayTimeIntervalValues()
		to = dayTimeFields
		cols = []func(int, array.Builder){
			func(i int, b array.Builder) { b.(*array.Int32Builder).Append(v[i].Days) },
			func(i int, b array.Builder) { b.(*array.Int32Builder).Append(v[i].Milliseconds) },
		}
	case *array.MonthDayNanoInterval:
		v := a.MonthDayNanoIntervalValues()
		to = monthDayNanoFields
		cols = []func(int, array.Builder){
			func(i int, b array.Builder) { b.(*array.Int32Builder).Append(v[i].Months) },
			func(i int, b array.Builder) { b.(*array.Int32Builder).Append(v[i].Days) },
			func(i int, b array.Builder) { b.(*array.Int64Builder).Append(v[i].Nanoseconds) },
		}
	default:
		return nil, false
	}
	sb := array.NewStructBuilder(mem, to.(*arrow.StructType))
	defer sb.Release()
	for i := 0; i < a.Len(); i++ {
		if a.IsNull(i) {
			sb.AppendNull() // (and a null in each field, under the null slot)
			continue
		}
		sb.Append(true)
		for k, col := range cols {
			col(i, sb.FieldBuilder(k))
		}
	}
	return sb.NewArray(), true
}

// gatherable reports whether decodeDictionary can gather values of type
// t: whole bytes of a fixed width, or booleans. Dictionaries of strings
// and binaries are not converted (the writer stores them as they are).
func gatherable(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.BOOL:
		return true
	case arrow.STRING, arrow.LARGE_STRING, arrow.STRING_VIEW, arrow.BINARY, arrow.LARGE_BINARY, arrow.BINARY_VIEW,
		arrow.DICTIONARY, arrow.EXTENSION:
		return false
	}
	fw, ok := t.(arrow.FixedWidthDataType)
	return ok && fw.BitWidth() > 0 && fw.BitWidth()%8 == 0 && len(t.Layout().Buffers) == 2
}

// decodeDictionary returns dictionary data d as plain values of type to
// (its values' storable type), null where the index or the value it
// names is null. Like the other conversions it works on the unsliced
// range and slices the result back.
func decodeDictionary(mem memory.Allocator, d arrow.ArrayData, dt *arrow.DictionaryType, to arrow.DataType) (arrow.ArrayData, error) {
	dict, ok := d.Dictionary().(*array.Data)
	if !ok || dict == nil {
		return nil, fmt.Errorf("dictionary array without its values")
	}
	vd, err := coerceData(mem, dict, to)
	if err != nil {
		return nil, fmt.Errorf("dictionary values: %w", err)
	}
	defer vd.Release()
	vals := array.MakeFromData(vd)
	defer vals.Release()
	n := d.Offset() + d.Len()
	full := array.NewDataWithDictionary(dt, n, d.Buffers(), -1, 0, dict)
	defer full.Release()
	idx := array.NewDictionaryData(full)
	defer idx.Release()
	src := make([]int, n)
	for i := range src {
		src[i] = -1
		if idx.IsValid(i) {
			k := idx.GetValueIndex(i)
			if k < 0 || k >= vals.Len() {
				return nil, fmt.Errorf("dictionary index %d at %d outside its %d values", k, i, vals.Len())
			}
			if vals.IsValid(k) {
				src[i] = k
			}
		}
	}
	out := gatherValues(mem, vals, src)
	defer out.Release()
	return array.NewSliceData(out, int64(d.Offset()), int64(n)), nil
}

// unionTag names the field of a union's struct stand-in that holds each
// row's type code.
const unionTag = "type_code"

// unionFields returns the struct stand-in of union type t, if its members
// can be gathered and none is named unionTag.
func unionFields(t arrow.UnionType) (*arrow.StructType, bool) {
	fields := []arrow.Field{{Name: unionTag, Type: arrow.PrimitiveTypes.Int8}}
	for _, f := range t.Fields() {
		v, _ := StorableType(f.Type)
		if f.Name == unionTag || !(gatherable(v) || isBinaryLike(v)) {
			return nil, false
		}
		fields = append(fields, arrow.Field{Name: f.Name, Type: v, Nullable: true})
	}
	return arrow.StructOf(fields...), true
}

// decodeUnion returns union data d as its struct stand-in to: each row's
// type code, and the value of its member (null in the others). Like the
// other conversions it works on the unsliced range and slices the result
// back.
func decodeUnion(mem memory.Allocator, d arrow.ArrayData, ut arrow.UnionType, to arrow.DataType) (arrow.ArrayData, error) {
	n := d.Offset() + d.Len()
	full := array.NewData(ut, n, d.Buffers(), d.Children(), -1, 0)
	defer full.Release()
	u, ok := array.MakeFromData(full).(array.Union)
	if !ok {
		return nil, fmt.Errorf("%s data is not a union", ut)
	}
	defer u.Release()
	dense, _ := u.(*array.DenseUnion)
	codes := make([]int8, n)
	members := ut.Fields()
	srcs := make([][]int, len(members))
	for k := range srcs {
		srcs[k] = make([]int, n)
		for i := range srcs[k] {
			srcs[k][i] = -1
		}
	}
	for i := 0; i < n; i++ {
		codes[i] = int8(u.TypeCode(i))
		k := u.ChildID(i)
		if k < 0 || k >= len(members) {
			return nil, fmt.Errorf("row %d has type code %d, not one of %s", i, codes[i], ut)
		}
		at := i
		if dense != nil {
			at = int(dense.ValueOffset(i))
		}
		srcs[k][i] = at
	}
	cb := array.NewInt8Builder(mem)
	defer cb.Release()
	cb.AppendValues(codes, nil)
	ca := cb.NewArray()
	defer ca.Release()
	kids := []arrow.ArrayData{ca.Data()}
	defer func() {
		for _, k := range kids[1:] {
			k.Release()
		}
	}()
	st := to.(*arrow.StructType)
	for k := range members {
		md, err := coerceData(mem, u.Field(k).Data(), st.Field(k+1).Type)
		if err != nil {
			return nil, fmt.Errorf("union member %q: %w", members[k].Name, err)
		}
		ma := array.MakeFromData(md)
		md.Release()
		for i, at := range srcs[k] {
			if at >= ma.Len() {
				ma.Release()
				return nil, fmt.Errorf("row %d names value %d of member %q, which has %d", i, at, members[k].Name, ma.Len())
			}
			if at >= 0 && ma.IsNull(at) {
				srcs[k][i] = -1
			}
		}
		kids = append(kids, gatherValues(mem, ma, srcs[k]))
		ma.Release()
	}
	out := array.NewData(to, n, []*memory.Buffer{nil}, kids, 0, 0)
	defer out.Release()
	return array.NewSliceData(out, int64(d.Offset()), int64(n)), nil
}

// isBinaryLike reports whether t is string or binary (32-bit offsets),
// which gatherValues also takes.
func isBinaryLike(t arrow.DataType) bool {
	return t.ID() == arrow.STRING || t.ID() == arrow.BINARY
}

// decodeRuns returns run-end encoded data d as its values, one a row, of
// type to (the values' storable type). Like the other conversions it works
// on the unsliced range and slices the result back.
func decodeRuns(mem memory.Allocator, d arrow.ArrayData, to arrow.DataType) (arrow.ArrayData, error) {
	kids := d.Children()
	if len(kids) != 2 {
		return nil, fmt.Errorf("run-end encoded array with %d children", len(kids))
	}
	vd, err := coerceData(mem, kids[1], to)
	if err != nil {
		return nil, fmt.Errorf("run values: %w", err)
	}
	defer vd.Release()
	vals := array.MakeFromData(vd)
	defer vals.Release()
	ends := array.MakeFromData(kids[0])
	defer ends.Release()
	// the run ends, read once (checked: no nulls, increasing)
	runEnds := make([]int64, ends.Len())
	for k := range runEnds {
		switch e := ends.(type) {
		case *array.Int16:
			runEnds[k] = int64(e.Value(k))
		case *array.Int32:
			runEnds[k] = int64(e.Value(k))
		case *array.Int64:
			runEnds[k] = e.Value(k)
		default:
			return nil, fmt.Errorf("run ends of type %s", ends.DataType())
		}
		if ends.IsNull(k) || (k > 0 && runEnds[k] <= runEnds[k-1]) || runEnds[k] <= 0 {
			return nil, fmt.Errorf("run ends not increasing at run %d: %w", k, encoding.ErrCorrupt)
		}
	}
	n := d.Offset() + d.Len()
	src := make([]int, n)
	k := 0
	for i := range src {
		for k < len(runEnds) && runEnds[k] <= int64(i) {
			k++
		}
		if k >= len(runEnds) || k >= vals.Len() {
			return nil, fmt.Errorf("row %d past the last run: %w", i, encoding.ErrCorrupt)
		}
		src[i] = k
		if vals.IsNull(k) {
			src[i] = -1
		}
	}
	out := gatherValues(mem, vals, src)
	defer out.Release()
	return array.NewSliceData(out, int64(d.Offset()), int64(n)), nil
}

// encodeRuns returns plain values d (its unsliced view) as run-end
// encoded data of type rt: one run for each stretch of equal values, or
// of nulls.
func encodeRuns(mem memory.Allocator, d arrow.ArrayData, rt *arrow.RunEndEncodedType) (arrow.ArrayData, error) {
	vals := array.MakeFromData(d)
	defer vals.Release()
	n := vals.Len()
	var starts []int
	var ends []int64
	same := sameAsPrevious(vals)
	for i := 0; i < n; i++ {
		if i == 0 || !same(i) {
			starts = append(starts, i)
			ends = append(ends, int64(i))
		}
		ends[len(ends)-1] = int64(i + 1)
	}
	limit := int64(math.MaxInt64)
	switch rt.RunEnds().ID() {
	case arrow.INT16:
		limit = math.MaxInt16
	case arrow.INT32:
		limit = math.MaxInt32
	}
	if int64(n) > limit {
		return nil, fmt.Errorf("%d rows do not fit run ends of %s", n, rt.RunEnds())
	}
	eb := array.NewBuilder(mem, rt.RunEnds())
	defer eb.Release()
	for _, e := range ends {
		switch b := eb.(type) {
		case *array.Int16Builder:
			b.Append(int16(e))
		case *array.Int32Builder:
			b.Append(int32(e))
		case *array.Int64Builder:
			b.Append(e)
		}
	}
	ea := eb.NewArray()
	defer ea.Release()
	for i, k := range starts {
		if vals.IsNull(k) {
			starts[i] = -1
		}
	}
	vd := gatherValues(mem, vals, starts)
	defer vd.Release()
	return array.NewData(rt, n, []*memory.Buffer{nil}, []arrow.ArrayData{ea.Data(), vd}, 0, 0), nil
}

// gatherValues returns an array of vals' type (gatherable or binary-like)
// whose value i is vals' value src[i], or null where src[i] < 0.
// sameAsPrevious returns whether row i of vals holds what row i-1 holds:
// both null, or the same value (fixed-width values bit for bit, so -0
// and 0 stay apart). The types gatherValues takes are compared in place;
// others through arrow-go's SliceEqual, which builds two slices a call.
func sameAsPrevious(vals arrow.Array) func(i int) bool {
	nulls := func(i int) (both, one bool) {
		a, b := vals.IsNull(i-1), vals.IsNull(i)
		return a && b, a != b
	}
	var eq func(i int) bool
	switch a := vals.(type) {
	case *array.String:
		eq = func(i int) bool { return a.Value(i-1) == a.Value(i) }
	case *array.Binary:
		eq = func(i int) bool { return bytes.Equal(a.Value(i-1), a.Value(i)) }
	case *array.Boolean:
		eq = func(i int) bool { return a.Value(i-1) == a.Value(i) }
	default:
		var buf []byte
		w := 0
		if gatherable(vals.DataType()) {
			w = vals.DataType().(arrow.FixedWidthDataType).BitWidth() / 8
			d := vals.Data()
			if b := d.Buffers()[1]; b != nil && b.Len() >= (d.Offset()+d.Len())*w {
				buf = b.Bytes()[d.Offset()*w:]
			}
		}
		if buf == nil {
			return func(i int) bool {
				return array.SliceEqual(vals, int64(i-1), int64(i), vals, int64(i), int64(i+1))
			}
		}
		eq = func(i int) bool { return bytes.Equal(buf[(i-1)*w:i*w], buf[i*w:(i+1)*w]) }
	}
	return func(i int) bool {
		both, one := nulls(i)
		return both || !one && eq(i)
	}
}

func gatherValues(mem memory.Allocator, vals arrow.Array, src []int) arrow.ArrayData {
	if isBinaryLike(vals.DataType()) {
		b := array.NewBinaryBuilder(mem, arrow.BinaryTypes.Binary)
		defer b.Release()
		str, _ := vals.(*array.String)
		bin, _ := vals.(*array.Binary)
		for _, k := range src {
			switch {
			case k < 0:
				b.AppendNull()
			case str != nil:
				b.AppendString(str.Value(k))
			default:
				b.Append(bin.Value(k))
			}
		}
		a := b.NewArray()
		defer a.Release()
		return array.NewData(vals.DataType(), a.Len(), a.Data().Buffers(), nil, a.NullN(), 0)
	}
	n := len(src)
	valid := zeroBuffer(mem, int(bitutil.BytesForBits(int64(n))))
	defer valid.Release()
	vb := valid.Bytes()
	var data *memory.Buffer
	var set func(i, k int)
	if b, ok := vals.(*array.Boolean); ok {
		data = zeroBuffer(mem, int(bitutil.BytesForBits(int64(n))))
		db := data.Bytes()
		set = func(i, k int) { bitutil.SetBitTo(db, i, b.Value(k)) }
	} else {
		w := vals.DataType().(arrow.FixedWidthDataType).BitWidth() / 8
		data = zeroBuffer(mem, n*w)
		db := data.Bytes()
		var sb []byte // (an empty array may have no values buffer)
		if vd := vals.Data(); vd.Buffers()[1] != nil {
			sb = vd.Buffers()[1].Bytes()[vd.Offset()*w:]
		}
		set = func(i, k int) { copy(db[i*w:(i+1)*w], sb[k*w:(k+1)*w]) }
	}
	defer data.Release()
	nulls := 0
	for i, k := range src {
		if k < 0 {
			nulls++
			continue
		}
		bitutil.SetBit(vb, i)
		set(i, k)
	}
	return array.NewData(vals.DataType(), n, []*memory.Buffer{valid, data}, nil, nulls, 0)
}

// zeroBuffer returns a buffer of n zero bytes.
func zeroBuffer(mem memory.Allocator, n int) *memory.Buffer {
	b := memory.NewResizableBuffer(mem)
	b.Resize(n)
	clear(b.Bytes())
	return b
}

// encodeDictionary returns plain values d (unsliced view, gatherable) as
// a dictionary of type dt: its distinct values in order of first
// appearance, and the indices. It stands in for arrow-go's dictionary
// builder, which has none for booleans and mishandles float16.
func encodeDictionary(mem memory.Allocator, d arrow.ArrayData, dt *arrow.DictionaryType) (arrow.ArrayData, error) {
	vals := array.MakeFromData(d)
	defer vals.Release()
	n := vals.Len()
	iw := dt.IndexType.(arrow.FixedWidthDataType).BitWidth() / 8
	limit := uint64(1)<<(8*iw) - 1
	if arrow.IsSignedInteger(dt.IndexType.ID()) {
		limit >>= 1
	}
	var key func(i int) string
	if b, ok := vals.(*array.Boolean); ok {
		key = func(i int) string {
			if b.Value(i) {
				return "1"
			}
			return "0"
		}
	} else {
		w := vals.DataType().(arrow.FixedWidthDataType).BitWidth() / 8
		sb := d.Buffers()[1].Bytes()[d.Offset()*w:]
		key = func(i int) string { return string(sb[i*w : (i+1)*w]) }
	}
	seen := map[string]int{}
	var first []int
	valid := zeroBuffer(mem, int(bitutil.BytesForBits(int64(n))))
	defer valid.Release()
	vb := valid.Bytes()
	idx := zeroBuffer(mem, n*iw)
	defer idx.Release()
	ib := idx.Bytes()
	var le [8]byte
	nulls := 0
	for i := 0; i < n; i++ {
		if vals.IsNull(i) {
			nulls++
			continue
		}
		kv := key(i)
		k, ok := seen[kv]
		if !ok {
			k = len(first)
			if uint64(k) > limit {
				return nil, fmt.Errorf("%d distinct values do not fit dictionary indices of %s", k+1, dt.IndexType)
			}
			seen[kv] = k
			first = append(first, i)
		}
		binary.LittleEndian.PutUint64(le[:], uint64(k))
		copy(ib[i*iw:(i+1)*iw], le[:iw])
		bitutil.SetBit(vb, i)
	}
	dict := gatherValues(mem, vals, first)
	defer dict.Release()
	return array.NewDataWithDictionary(dt, n, []*memory.Buffer{valid, idx}, nulls, 0, dict.(*array.Data)), nil
}

// parseDecimalText is the inverse of decimal256.Num.ToString: the
// unscaled integer of text written at scale, which must carry exactly the
// scale's digits ("-0.0500" for -500 at scale 4, "1200" for 12 at scale
// -2). (decimal256.FromString parses through a binary float and rounds.)
func parseDecimalText(s string, scale int32) (*big.Int, bool) {
	body := strings.TrimPrefix(s, "-")
	if scale > 0 {
		dot := len(body) - int(scale) - 1
		if dot < 1 || body[dot] != '.' {
			return nil, false
		}
		body = body[:dot] + body[dot+1:]
	} else if scale < 0 && body != "0" {
		zeros := strings.Repeat("0", int(-scale))
		if !strings.HasSuffix(body, zeros) || len(body) == len(zeros) {
			return nil, false
		}
		body = body[:len(body)-len(zeros)]
	}
	if body == "" || strings.TrimLeft(body, "0123456789") != "" {
		return nil, false
	}
	v, ok := new(big.Int).SetString(body, 10)
	if !ok {
		return nil, false
	}
	if strings.HasPrefix(s, "-") {
		v.Neg(v)
	}
	return v, true
}

// childTypes lists the types of the children of nested type t.
func childTypes(t arrow.DataType, n int) ([]arrow.DataType, error) {
	var out []arrow.DataType
	switch t := t.(type) {
	case *arrow.StructType:
		for _, f := range t.Fields() {
			out = append(out, f.Type)
		}
	case *arrow.MapType:
		out = []arrow.DataType{t.Elem()}
	case *arrow.ListType:
		out = []arrow.DataType{t.Elem()}
	case *arrow.LargeListType:
		out = []arrow.DataType{t.Elem()}
	case *arrow.FixedSizeListType:
		out = []arrow.DataType{t.Elem()}
	case *arrow.ListViewType:
		out = []arrow.DataType{t.Elem()}
	case *arrow.LargeListViewType:
		out = []arrow.DataType{t.Elem()}
	}
	if len(out) != n {
		return nil, fmt.Errorf("cannot convert a nested array with %d children to %s", n, t)
	}
	return out, nil
}

// coerceLeaf converts a leaf array (unsliced) to type to.
func coerceLeaf(mem memory.Allocator, src arrow.Array, to arrow.DataType) (arrow.Array, error) {
	if s, ok := StorableType(src.DataType()); ok && arrow.TypeEqual(s, to) {
		if out, ok := intervalFields(mem, src); ok {
			return out, nil
		}
	}
	switch a := src.(type) {
	case *array.Float16:
		if to.ID() != arrow.FLOAT32 {
			break
		}
		b := array.NewFloat32Builder(mem)
		defer b.Release()
		b.Reserve(a.Len())
		for i, v := range a.Values() {
			if a.IsNull(i) {
				b.AppendNull()
			} else {
				b.UnsafeAppend(v.Float32())
			}
		}
		return b.NewArray(), nil
	case *array.FixedSizeBinary:
		if to.ID() != arrow.BINARY {
			break
		}
		b := array.NewBinaryBuilder(mem, arrow.BinaryTypes.Binary)
		defer b.Release()
		w := a.DataType().(*arrow.FixedSizeBinaryType).ByteWidth
		b.Reserve(a.Len())
		b.ReserveData(a.Len() * w)
		for i := 0; i < a.Len(); i++ {
			if a.IsNull(i) {
				b.AppendNull()
			} else {
				b.Append(a.Value(i))
			}
		}
		return b.NewArray(), nil
	case *array.Decimal256:
		if to.ID() == arrow.STRING {
			scale := a.DataType().(*arrow.Decimal256Type).Scale
			return textColumn(a, func(_ arrow.Array, i int) (string, error) { return a.Value(i).ToString(scale), nil }, mem)
		}
		dt, ok := to.(*arrow.Decimal128Type)
		if !ok {
			break
		}
		b := array.NewDecimal128Builder(mem, dt)
		defer b.Release()
		b.Reserve(a.Len())
		for i := 0; i < a.Len(); i++ {
			if a.IsNull(i) {
				b.AppendNull()
				continue
			}
			v := a.Value(i).Array() // little-endian 64-bit words
			lo, hi := v[0], v[1]
			ext := uint64(0)
			if int64(hi) < 0 {
				ext = math.MaxUint64
			}
			if v[2] != ext || v[3] != ext {
				return nil, fmt.Errorf("decimal256 value at %d does not fit decimal128", i)
			}
			b.UnsafeAppend(decimal128.New(int64(hi), lo))
		}
		return b.NewArray(), nil
	}
	return nil, fmt.Errorf("cannot convert %s to %s", src.DataType(), to)
}
