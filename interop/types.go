package interop

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"math"
	"math/big"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal256"
	"github.com/apache/arrow-go/v18/arrow/extensions"
	"github.com/apache/arrow-go/v18/arrow/float16"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/apache/arrow-go/v18/parquet/schema"

	"strata/encoding"
)

// Faithful types. Strata stores a few Arrow types as a lossless stand-in
// (StorableType: extension types as their storage, float16 as float32,
// fixed_size_binary as binary, decimal256 as decimal128). So that export
// gives back the types import read, import keeps the source's Arrow schema
// in the file's metadata under SchemaKey whenever a stand-in was used, and
// export (RestoreSchema, RestoreRecord) converts the columns back.
//
// Parquet logical types that arrow-go reads as plain binary are mapped
// first: JSON becomes the canonical arrow.json extension type (a string),
// so it comes back as JSON; GEOMETRY and GEOGRAPHY read as WKBType (see
// geo.go), which writes the same annotation back. ENUM, BSON and INTERVAL
// have no Arrow type that arrow-go writes back with the same logical type:
// importing them fails with an error naming the column, rather than
// losing the type.

// SchemaKey is the file metadata key holding the source's Arrow schema
// (an IPC schema message, base64) when import stored a stand-in type.
const SchemaKey = "strata.arrow.schema"

// SourceMetadata returns the metadata import should store with the file
// written from r: the source's Arrow schema when any column is stored as a
// stand-in type or the source carries file metadata of its own (Parquet's
// key-value pairs: GeoParquet's "geo", pandas' schema, the PROJJSON a
// GEOMETRY column's CRS names, ...), nothing otherwise.
func SourceMetadata(r RecordReader) (map[string]string, error) {
	src := r.Schema()
	if c, ok := r.(*coercingReader); ok {
		src = c.RecordReader.Schema()
	}
	if kv := parquetKeys(r); len(kv) > 0 {
		// arrow-go leaves a Parquet file's pairs out of the Arrow schema
		md := src.Metadata()
		for i, k := range md.Keys() {
			kv[k] = md.Values()[i]
		}
		merged := arrow.MetadataFrom(kv)
		src = arrow.NewSchema(src.Fields(), &merged)
	}
	changed := len(sourceKeys(src)) > 0
	for _, f := range src.Fields() {
		changed = changed || !arrow.TypeEqual(storedType(f.Type), f.Type)
	}
	if !changed {
		return nil, nil
	}
	s, err := encodeSchema(src)
	if err != nil {
		return nil, err
	}
	return map[string]string{SchemaKey: s}, nil
}

// parquetKeys returns the key-value metadata of the Parquet file r reads,
// if it reads one.
func parquetKeys(r RecordReader) map[string]string {
	for {
		switch x := r.(type) {
		case *coercingReader:
			r = x.RecordReader
		case *retypingReader:
			r = x.RecordReader
		case *parquetReader:
			kv := x.pf.MetaData().KeyValueMetadata()
			out := make(map[string]string, kv.Len())
			for i, k := range kv.Keys() {
				out[k] = kv.Values()[i]
			}
			return out
		default:
			return nil
		}
	}
}

// sourceKeys returns the file metadata of a source schema that export
// writes back: every pair but the Arrow schema a Parquet writer stores
// (export's writer stores its own).
func sourceKeys(sch *arrow.Schema) map[string]string {
	md := sch.Metadata()
	out := map[string]string{}
	for i, k := range md.Keys() {
		if k != "ARROW:schema" {
			out[k] = md.Values()[i]
		}
	}
	return out
}

func encodeSchema(sch *arrow.Schema) (string, error) {
	var buf bytes.Buffer
	w := ipc.NewWriter(&buf, ipc.WithSchema(sch))
	if err := w.Close(); err != nil {
		return "", fmt.Errorf("interop: encoding the source schema: %w", err)
	}
	return base64.StdEncoding.EncodeToString(buf.Bytes()), nil
}

func decodeSchema(s string) (*arrow.Schema, error) {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("interop: %s: %v: %w", SchemaKey, err, encoding.ErrCorrupt)
	}
	r, err := ipc.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("interop: %s: %v: %w", SchemaKey, err, encoding.ErrCorrupt)
	}
	defer r.Release()
	return r.Schema(), nil
}

// storedType is the type Strata returns for a column imported as t: the
// stand-in of StorableType, with large strings, binaries and lists as
// their 32-bit-offset forms and dictionaries as their values.
func storedType(t arrow.DataType) arrow.DataType {
	t, _ = StorableType(t)
	switch t := t.(type) {
	case *arrow.DictionaryType:
		return storedType(t.ValueType)
	case *arrow.StructType:
		fs := t.Fields()
		for i := range fs {
			fs[i].Type = storedType(fs[i].Type)
		}
		return arrow.StructOf(fs...)
	case *arrow.MapType:
		kf, vf := t.KeyField(), t.ItemField()
		kf.Type, vf.Type = storedType(kf.Type), storedType(vf.Type)
		m := arrow.MapOfFields(kf, vf)
		m.KeysSorted = t.KeysSorted
		return m
	case arrow.ListLikeType: // list, large list, fixed-size list, list views
		ef := t.ElemField()
		ef.Type = storedType(ef.Type)
		return arrow.ListOfField(ef)
	}
	switch t.ID() {
	case arrow.LARGE_STRING:
		return arrow.BinaryTypes.String
	case arrow.LARGE_BINARY:
		return arrow.BinaryTypes.Binary
	}
	return t
}

// RestoreSchema returns the schema export should write for batches of
// schema stored read from a file with metadata meta: each column's source
// type where import kept one (matched by name, and only when it is the
// stand-in of what is stored), the stored type otherwise, and the source's
// file metadata (sourceKeys; stored's own keys win). It reports whether the
// schema differs from stored.
func RestoreSchema(meta map[string]string, stored *arrow.Schema) (*arrow.Schema, bool, error) {
	enc, ok := meta[SchemaKey]
	if !ok {
		return stored, false, nil
	}
	src, err := decodeSchema(enc)
	if err != nil {
		return nil, false, err
	}
	fields := stored.Fields()
	changed := false
	for i, f := range fields {
		idx := src.FieldIndices(f.Name)
		if len(idx) != 1 {
			continue
		}
		sf := src.Field(idx[0])
		if !arrow.TypeEqual(storedType(sf.Type), storedType(f.Type)) || arrow.TypeEqual(sf.Type, f.Type) {
			continue
		}
		fields[i].Type = sf.Type
		changed = true
	}
	keys := sourceKeys(src)
	if !changed && len(keys) == 0 {
		return stored, false, nil
	}
	md := stored.Metadata()
	for i, k := range md.Keys() {
		keys[k] = md.Values()[i]
	}
	merged := arrow.MetadataFrom(keys)
	return arrow.NewSchema(fields, &merged), true, nil
}

// RestoreRecord converts a batch read from Strata to sch (from
// RestoreSchema).
func RestoreRecord(mem memory.Allocator, rec arrow.Record, sch *arrow.Schema) (arrow.Record, error) {
	return convertRecord(mem, rec, sch, restoreData)
}

// restoreData converts d (a stored type) to its source type to.
func restoreData(mem memory.Allocator, d arrow.ArrayData, to arrow.DataType) (arrow.ArrayData, error) {
	from := d.DataType()
	if arrow.TypeEqual(from, to) {
		d.Retain()
		return d, nil
	}
	if ext, ok := to.(arrow.ExtensionType); ok {
		st, err := restoreData(mem, d, ext.StorageType())
		if err != nil {
			return nil, err
		}
		defer st.Release()
		return array.NewData(ext, st.Len(), st.Buffers(), st.Children(), st.NullN(), st.Offset()), nil
	}
	if dt, ok := to.(*arrow.DictionaryType); ok {
		vals, err := restoreData(mem, d, dt.ValueType)
		if err != nil {
			return nil, err
		}
		defer vals.Release()
		if gatherable(dt.ValueType) {
			return encodeDictionary(mem, vals, dt)
		}
		va := array.MakeFromData(vals)
		defer va.Release()
		b := array.NewDictionaryBuilder(mem, dt)
		defer b.Release()
		if err := b.AppendArray(va); err != nil {
			return nil, err
		}
		a := b.NewArray()
		defer a.Release()
		a.Data().Retain()
		return a.Data(), nil
	}
	if ft, ok := to.(*arrow.FixedSizeListType); ok && from.ID() == arrow.LIST {
		return restoreFixedList(mem, d, ft)
	}
	if from.ID() == arrow.LIST && (to.ID() == arrow.LIST_VIEW || to.ID() == arrow.LARGE_LIST_VIEW) {
		return restoreListView(mem, d, to)
	}
	if rt, ok := to.(*arrow.RunEndEncodedType); ok {
		vals, err := restoreData(mem, d, rt.Encoded())
		if err != nil {
			return nil, err
		}
		defer vals.Release()
		if !gatherable(rt.Encoded()) && !isBinaryLike(rt.Encoded()) {
			return nil, fmt.Errorf("cannot restore run-end encoded %s: %w", rt.Encoded(), encoding.ErrUnsupported)
		}
		return encodeRuns(mem, vals, rt)
	}
	if ut, ok := to.(arrow.UnionType); ok && from.ID() == arrow.STRUCT {
		return restoreUnion(mem, d, ut)
	}
	if from.ID() == arrow.STRUCT && (to.ID() == arrow.INTERVAL_DAY_TIME || to.ID() == arrow.INTERVAL_MONTH_DAY_NANO) {
		return restoreInterval(mem, d, to)
	}
	if from.ID() == arrow.LIST && to.ID() == arrow.MAP {
		if err := checkMapKeys(d); err != nil { // (mapkeys.go)
			return nil, err
		}
	}
	switch from.ID() {
	case arrow.STRUCT, arrow.LIST, arrow.LARGE_LIST, arrow.MAP:
		out, err := convertChildren(mem, d, to, restoreData)
		if err != nil {
			return nil, err
		}
		defer releaseAll(out)
		bufs := d.Buffers()
		if from.ID() == arrow.LIST && to.ID() == arrow.LARGE_LIST {
			// 32-bit offsets to 64-bit ones
			n := d.Offset() + d.Len() + 1
			offs := arrow.Int32Traits.CastFromBytes(bufs[1].Bytes())[:n]
			wide := memory.NewResizableBuffer(mem)
			wide.Resize(arrow.Int64Traits.BytesRequired(n))
			w := arrow.Int64Traits.CastFromBytes(wide.Bytes())
			for i, o := range offs {
				w[i] = int64(o)
			}
			defer wide.Release()
			bufs = []*memory.Buffer{bufs[0], wide}
		}
		return array.NewData(to, d.Len(), bufs, out, d.NullN(), d.Offset()), nil
	}
	return convertLeaf(mem, d, to, restoreLeaf)
}

// restoreFixedList converts stored list data d back to the
// fixed_size_list ft it was imported as. Every valid entry must hold
// exactly ft.Len() values (anything else is a corrupt file, or not the
// column the schema kept); a null entry, stored empty, gets ft.Len() null
// values, which Arrow requires under a null slot and leaves unspecified.
func restoreFixedList(mem memory.Allocator, d arrow.ArrayData, ft *arrow.FixedSizeListType) (arrow.ArrayData, error) {
	kids, err := convertChildren(mem, d, arrow.ListOfField(ft.ElemField()), restoreData)
	if err != nil {
		return nil, err
	}
	defer releaseAll(kids)
	values := array.MakeFromData(kids[0])
	defer values.Release()
	size := int64(ft.Len())
	n, off := d.Len(), d.Offset()
	offs, err := listOffsets(d)
	if err != nil {
		return nil, err
	}
	var valid []byte
	if b := d.Buffers()[0]; b != nil && d.NullN() > 0 {
		valid = b.Bytes()
	}
	// The child as pieces: runs of stored values, and null runs for null
	// entries.
	var pieces []arrow.Array
	defer func() {
		for _, p := range pieces {
			p.Release()
		}
	}()
	runLo, runHi := int64(offs[0]), int64(offs[0])
	flush := func() {
		if runHi > runLo {
			pieces = append(pieces, array.NewSlice(values, runLo, runHi))
		}
	}
	nulls := 0
	for i := 0; i < n; i++ {
		lo, hi := int64(offs[i]), int64(offs[i+1])
		if lo < 0 || hi < lo || hi > int64(values.Len()) {
			return nil, fmt.Errorf("list entry %d spans values %d to %d of %d: %w", i, lo, hi, values.Len(), encoding.ErrCorrupt)
		}
		isNull := valid != nil && !bitutil.BitIsSet(valid, off+i)
		if isNull && hi == lo {
			flush()
			runLo, runHi = hi, hi
			nulls++
			continue
		}
		if hi-lo != size {
			return nil, fmt.Errorf("list entry %d holds %d values, %s needs %d: %w", i, hi-lo, ft, size, encoding.ErrCorrupt)
		}
		if nulls > 0 {
			pieces = append(pieces, array.MakeArrayOfNull(mem, ft.Elem(), nulls*int(size)))
			nulls = 0
		}
		if lo != runHi {
			flush()
			runLo = lo
		}
		runHi = hi
	}
	flush()
	if nulls > 0 {
		pieces = append(pieces, array.MakeArrayOfNull(mem, ft.Elem(), nulls*int(size)))
	}
	var child arrow.Array
	switch len(pieces) {
	case 0:
		child = array.MakeArrayOfNull(mem, ft.Elem(), 0)
	case 1:
		child = pieces[0]
		child.Retain()
	default:
		if child, err = array.Concatenate(pieces, mem); err != nil {
			return nil, err
		}
	}
	defer child.Release()
	var validity *memory.Buffer
	if valid != nil {
		validity = memory.NewResizableBuffer(mem)
		validity.Resize(int(bitutil.BytesForBits(int64(n))))
		bitutil.CopyBitmap(valid, off, n, validity.Bytes(), 0)
		defer validity.Release()
	}
	return array.NewData(ft, n, []*memory.Buffer{validity}, []arrow.ArrayData{child.Data()}, d.NullN(), 0), nil
}

// listOffsets returns the n+1 offsets of the rows of list data d.
func listOffsets(d arrow.ArrayData) ([]int32, error) {
	n, off := d.Len(), d.Offset()
	bufs := d.Buffers()
	if len(bufs) < 2 || bufs[1] == nil || bufs[1].Len() < arrow.Int32Traits.BytesRequired(off+n+1) {
		return nil, fmt.Errorf("list data without its offsets: %w", encoding.ErrCorrupt)
	}
	return arrow.Int32Traits.CastFromBytes(bufs[1].Bytes())[off : off+n+1], nil
}

// restoreListView converts stored list data d to list view type to: each
// slot's view is its list entry (offsets as stored, sizes their
// differences), the values converted as they are. The views start at
// offset 0 (arrow-go's IPC writer cannot write list views at another).
func restoreListView(mem memory.Allocator, d arrow.ArrayData, to arrow.DataType) (arrow.ArrayData, error) {
	kids, err := convertChildren(mem, d, to, restoreData)
	if err != nil {
		return nil, err
	}
	defer releaseAll(kids)
	off, n := d.Offset(), d.Len()
	offs, err := listOffsets(d)
	if err != nil {
		return nil, err
	}
	bufs := d.Buffers()
	large := to.ID() == arrow.LARGE_LIST_VIEW
	width := 4
	if large {
		width = 8
	}
	starts, sizes := zeroBuffer(mem, n*width), zeroBuffer(mem, n*width)
	defer starts.Release()
	defer sizes.Release()
	for i := 0; i < n; i++ {
		lo, hi := offs[i], offs[i+1]
		if hi < lo {
			return nil, fmt.Errorf("list entry %d ends before it starts: %w", i, encoding.ErrCorrupt)
		}
		if large {
			arrow.Int64Traits.CastFromBytes(starts.Bytes())[i] = int64(lo)
			arrow.Int64Traits.CastFromBytes(sizes.Bytes())[i] = int64(hi - lo)
		} else {
			arrow.Int32Traits.CastFromBytes(starts.Bytes())[i] = lo
			arrow.Int32Traits.CastFromBytes(sizes.Bytes())[i] = hi - lo
		}
	}
	var valid *memory.Buffer
	if bufs[0] != nil && d.NullN() > 0 {
		valid = zeroBuffer(mem, int(bitutil.BytesForBits(int64(n))))
		defer valid.Release()
		bitutil.CopyBitmap(bufs[0].Bytes(), off, n, valid.Bytes(), 0)
	}
	return array.NewData(to, n, []*memory.Buffer{valid, starts, sizes}, kids, d.NullN(), 0), nil
}

// restoreUnion converts the struct stand-in d of a union back to union
// type ut: the type codes from its first field, each row's value from its
// member's field (a sparse union keeps the fields whole; a dense one
// gathers each member's rows). A type code the union does not have is
// corruption.
func restoreUnion(mem memory.Allocator, d arrow.ArrayData, ut arrow.UnionType) (arrow.ArrayData, error) {
	want, ok := unionFields(ut)
	if !ok || !arrow.TypeEqual(storedType(want), storedType(d.DataType())) {
		return nil, fmt.Errorf("cannot restore %s as %s", d.DataType(), ut)
	}
	// The union starts at offset 0 (arrow-go's IPC writer cannot write
	// a union batch that is a slice of another); the struct's fields come
	// sliced to its rows.
	st, ok := array.MakeFromData(d).(*array.Struct)
	if !ok {
		return nil, fmt.Errorf("cannot restore %s as %s", d.DataType(), ut)
	}
	defer st.Release()
	n := st.Len()
	codes, ok := st.Field(0).(*array.Int8)
	if !ok {
		return nil, fmt.Errorf("union type codes stored as %s: %w", st.Field(0).DataType(), encoding.ErrCorrupt)
	}
	ids := ut.ChildIDs()
	members := ut.Fields()
	child := make([]int, n)
	for i := 0; i < n; i++ {
		c := codes.Value(i)
		if codes.IsNull(i) || c < 0 || int(c) >= len(ids) || ids[c] < 0 || ids[c] >= len(members) {
			return nil, fmt.Errorf("row %d has type code %d, not one of %s: %w", i, c, ut, encoding.ErrCorrupt)
		}
		child[i] = ids[c]
	}
	typeIDs := memory.NewBufferBytes(append([]byte(nil), arrow.Int8Traits.CastToBytes(codes.Int8Values())...))
	kids := make([]arrow.Array, len(members))
	defer func() {
		for _, k := range kids {
			if k != nil {
				k.Release()
			}
		}
	}()
	dense := ut.Mode() == arrow.DenseMode
	var offsets []int32
	if dense {
		offsets = make([]int32, n)
	}
	for k, f := range members {
		md, err := restoreData(mem, st.Field(k+1).Data(), f.Type)
		if err != nil {
			return nil, fmt.Errorf("union member %q: %w", f.Name, err)
		}
		ma := array.MakeFromData(md)
		md.Release()
		// the member's values in order (a sparse member: every row; a
		// dense one: its own rows), -1 for a null
		var rows []int
		for i, c := range child {
			if dense && c != k {
				continue
			}
			if dense {
				offsets[i] = int32(len(rows))
			}
			if c == k && ma.IsValid(i) {
				rows = append(rows, i)
			} else {
				rows = append(rows, -1)
			}
		}
		gd := gatherValues(mem, ma, rows)
		ma.Release()
		kids[k] = array.MakeFromData(gd)
		gd.Release()
	}
	var u arrow.Array
	if !dense {
		u = array.NewSparseUnion(ut.(*arrow.SparseUnionType), n, kids, typeIDs, 0)
	} else {
		ob := memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(offsets))
		u = array.NewDenseUnion(ut.(*arrow.DenseUnionType), n, kids, typeIDs, ob, 0)
	}
	u.Data().Retain()
	defer u.Release()
	return u.Data(), nil
}

// restoreInterval converts the struct stand-in d of an interval back to
// interval type to. Like the other conversions it works on the unsliced
// range and slices the result back.
func restoreInterval(mem memory.Allocator, d arrow.ArrayData, to arrow.DataType) (arrow.ArrayData, error) {
	want, _ := StorableType(to)
	if !arrow.TypeEqual(d.DataType(), want) {
		return nil, fmt.Errorf("cannot restore %s as %s", d.DataType(), to)
	}
	n := d.Offset() + d.Len()
	full := array.NewData(d.DataType(), n, d.Buffers(), d.Children(), -1, 0)
	defer full.Release()
	st := array.NewStructData(full)
	defer st.Release()
	i32 := func(k int) *array.Int32 { return st.Field(k).(*array.Int32) }
	var out arrow.Array
	if to.ID() == arrow.INTERVAL_DAY_TIME {
		days, ms := i32(0), i32(1)
		b := array.NewDayTimeIntervalBuilder(mem)
		defer b.Release()
		for i := 0; i < n; i++ {
			if st.IsNull(i) {
				b.AppendNull()
			} else {
				b.Append(arrow.DayTimeInterval{Days: days.Value(i), Milliseconds: ms.Value(i)})
			}
		}
		out = b.NewArray()
	} else {
		months, days, nanos := i32(0), i32(1), st.Field(2).(*array.Int64)
		b := array.NewMonthDayNanoIntervalBuilder(mem)
		defer b.Release()
		for i := 0; i < n; i++ {
			if st.IsNull(i) {
				b.AppendNull()
			} else {
				b.Append(arrow.MonthDayNanoInterval{Months: months.Value(i), Days: days.Value(i), Nanoseconds: nanos.Value(i)})
			}
		}
		out = b.NewArray()
	}
	defer out.Release()
	return array.NewSliceData(out.Data(), int64(d.Offset()), int64(n)), nil
}

// restoreLeaf converts a stored leaf array (unsliced) back to type to.
func restoreLeaf(mem memory.Allocator, src arrow.Array, to arrow.DataType) (arrow.Array, error) {
	switch a := src.(type) {
	case *array.Float32:
		if to.ID() != arrow.FLOAT16 {
			break
		}
		b := array.NewFloat16Builder(mem)
		defer b.Release()
		for i, v := range a.Float32Values() {
			if a.IsNull(i) {
				b.AppendNull()
			} else {
				b.Append(float16.New(v))
			}
		}
		return b.NewArray(), nil
	case *array.Int32:
		if to.ID() != arrow.INTERVAL_MONTHS {
			break
		}
		b := array.NewMonthIntervalBuilder(mem)
		defer b.Release()
		for i, v := range a.Int32Values() {
			if a.IsNull(i) {
				b.AppendNull()
			} else {
				b.Append(arrow.MonthInterval(v))
			}
		}
		return b.NewArray(), nil
	case *array.String:
		if dt, ok := to.(*arrow.Decimal256Type); ok {
			b := array.NewDecimal256Builder(mem, dt)
			defer b.Release()
			limit := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(dt.Precision)), nil)
			for i := 0; i < a.Len(); i++ {
				if a.IsNull(i) {
					b.AppendNull()
					continue
				}
				v, ok := parseDecimalText(a.Value(i), dt.Scale)
				if !ok || v.CmpAbs(limit) >= 0 {
					return nil, fmt.Errorf("value %d %q is not a %s: %w", i, a.Value(i), dt, encoding.ErrCorrupt)
				}
				b.Append(decimal256.FromBigInt(v))
			}
			return b.NewArray(), nil
		}
		if to.ID() == arrow.LARGE_STRING {
			b := array.NewLargeStringBuilder(mem)
			defer b.Release()
			for i := 0; i < a.Len(); i++ {
				if a.IsNull(i) {
					b.AppendNull()
				} else {
					b.Append(a.Value(i))
				}
			}
			return b.NewArray(), nil
		}
	case *array.Binary:
		if to.ID() == arrow.STRING { // same layout: a change of type
			return array.MakeFromData(array.NewData(to, a.Len(), a.Data().Buffers(), nil, a.NullN(), 0)), nil
		}
		if to.ID() == arrow.LARGE_BINARY {
			b := array.NewBinaryBuilder(mem, arrow.BinaryTypes.LargeBinary)
			defer b.Release()
			for i := 0; i < a.Len(); i++ {
				if a.IsNull(i) {
					b.AppendNull()
				} else {
					b.Append(a.Value(i))
				}
			}
			return b.NewArray(), nil
		}
		ft, ok := to.(*arrow.FixedSizeBinaryType)
		if !ok {
			break
		}
		b := array.NewFixedSizeBinaryBuilder(mem, ft)
		defer b.Release()
		for i := 0; i < a.Len(); i++ {
			switch {
			case a.IsNull(i):
				b.AppendNull()
			case len(a.Value(i)) != ft.ByteWidth:
				return nil, fmt.Errorf("value %d has %d bytes, %s needs %d: %w", i, len(a.Value(i)), ft, ft.ByteWidth, encoding.ErrCorrupt)
			default:
				b.Append(a.Value(i))
			}
		}
		return b.NewArray(), nil
	case *array.Decimal128:
		dt, ok := to.(*arrow.Decimal256Type)
		if !ok {
			break
		}
		b := array.NewDecimal256Builder(mem, dt)
		defer b.Release()
		for i := 0; i < a.Len(); i++ {
			if a.IsNull(i) {
				b.AppendNull()
				continue
			}
			v := a.Value(i)
			ext := uint64(0)
			if v.HighBits() < 0 {
				ext = math.MaxUint64
			}
			b.Append(decimal256.New(ext, ext, uint64(v.HighBits()), v.LowBits()))
		}
		return b.NewArray(), nil
	}
	return nil, fmt.Errorf("cannot restore %s as %s", src.DataType(), to)
}

// logicalName is the name of a Parquet logical type without its
// parameters (GEOMETRY, not its CRS).
func logicalName(lt schema.LogicalType) string {
	switch lt.(type) {
	case schema.EnumLogicalType:
		return "ENUM"
	case schema.BSONLogicalType:
		return "BSON"
	case schema.IntervalLogicalType:
		return "INTERVAL"
	case schema.GeometryLogicalType:
		return "GEOMETRY"
	case schema.GeographyLogicalType:
		return "GEOGRAPHY"
	}
	return lt.String()
}

// parquetLogicalTypes maps the Parquet logical types arrow-go reads as
// plain binary: JSON → arrow.json (a string), and refuses ENUM, BSON,
// INTERVAL, GEOMETRY and GEOGRAPHY, which it could not write back. It returns the schema batches
// should have, and whether it differs from fr's.
func parquetLogicalTypes(fr *pqarrow.FileReader, sch *arrow.Schema) (*arrow.Schema, bool, error) {
	colSchema := fr.ParquetReader().MetaData().Schema
	changed := false
	var walk func(sf pqarrow.SchemaField, path string) (arrow.DataType, error)
	walk = func(sf pqarrow.SchemaField, path string) (arrow.DataType, error) {
		t := sf.Field.Type
		if len(sf.Children) == 0 {
			if sf.ColIndex < 0 || sf.ColIndex >= colSchema.NumColumns() {
				return t, nil
			}
			switch lt := colSchema.Column(sf.ColIndex).LogicalType().(type) {
			case schema.JSONLogicalType:
				if t.ID() == arrow.BINARY {
					changed = true
					return extensions.NewJSONType(arrow.BinaryTypes.String)
				}
			case schema.GeometryLogicalType, schema.GeographyLogicalType:
				// read as an extension (WKBType, or one the process
				// registered) that writes the same annotation back
				if ext, ok := t.(pqarrow.ExtensionCustomParquetType); ok && ext.ParquetLogicalType().Equals(lt) {
					return t, nil
				}
				return nil, fmt.Errorf("column %q: Parquet logical type %s: read as %s, which does not write it back: %w",
					path, logicalName(lt), t, encoding.ErrUnsupported)
			case schema.EnumLogicalType, schema.BSONLogicalType, schema.IntervalLogicalType:
				// (the caller names the file; the type is named without
				// its parameters, which for GEOMETRY include a whole
				// coordinate reference system)
				return nil, fmt.Errorf("column %q: Parquet logical type %s: no Arrow type that arrow-go writes back as %s: %w",
					path, logicalName(lt), logicalName(lt), encoding.ErrUnsupported)
			}
			return t, nil
		}
		kids := make([]arrow.DataType, len(sf.Children))
		any := false
		for i, c := range sf.Children {
			k, err := walk(c, path+"."+c.Field.Name)
			if err != nil {
				return nil, err
			}
			kids[i] = k
			any = any || !arrow.TypeEqual(k, c.Field.Type)
		}
		if m, ok := optionalKeyMapType(sf, kids, colSchema); ok { // (mapkeys.go)
			changed = true
			return m, nil
		}
		if !any {
			return t, nil
		}
		switch t := t.(type) {
		case *arrow.StructType:
			fs := t.Fields()
			for i := range fs {
				fs[i].Type = kids[i]
			}
			return arrow.StructOf(fs...), nil
		case *arrow.ListType:
			ef := t.ElemField()
			ef.Type = kids[0]
			return arrow.ListOfField(ef), nil
		case *arrow.LargeListType:
			ef := t.ElemField()
			ef.Type = kids[0]
			return arrow.LargeListOfField(ef), nil
		case *arrow.MapType:
			kf, vf := t.KeyField(), t.ItemField()
			switch {
			case len(kids) == 2:
				kf.Type, vf.Type = kids[0], kids[1]
			case len(kids) == 1 && kids[0].ID() == arrow.STRUCT:
				kv := kids[0].(*arrow.StructType) // the key_value group
				kf.Type, vf.Type = kv.Field(0).Type, kv.Field(1).Type
			default:
				return nil, fmt.Errorf("interop: column %q: unexpected map layout: %w", path, encoding.ErrUnsupported)
			}
			m := arrow.MapOfFields(kf, vf)
			m.KeysSorted = t.KeysSorted
			return m, nil
		}
		return nil, fmt.Errorf("interop: column %q: cannot map logical types inside %s: %w", path, t, encoding.ErrUnsupported)
	}
	fields := sch.Fields()
	for i, sf := range fr.Manifest.Fields {
		if i >= len(fields) {
			break
		}
		t, err := walk(sf, sf.Field.Name)
		if err != nil {
			return nil, false, err
		}
		fields[i].Type = t
	}
	if !changed {
		return sch, false, nil
	}
	md := sch.Metadata()
	return arrow.NewSchema(fields, &md), true, nil
}

// retypingReader gives a reader's batches the types parquetLogicalTypes
// chose (same layouts, other types).
type retypingReader struct {
	RecordReader
	sch *arrow.Schema
	mem memory.Allocator
}

func (r *retypingReader) Schema() *arrow.Schema { return r.sch }

func (r *retypingReader) Next() (arrow.Record, error) {
	rec, err := r.RecordReader.Next()
	if err != nil {
		return nil, err
	}
	defer rec.Release()
	return RestoreRecord(r.mem, rec, r.sch)
}
