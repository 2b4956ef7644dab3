package main

import (
	"fmt"
	"strings"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/duckdb/duckdb-go/v2/mapping"
)

// This file maps Arrow types onto DuckDB's, fills DuckDB vectors from Arrow
// arrays (flat and nested) and checksums DuckDB result vectors (nested.go
// gives the rules for nested columns).

// duckColType maps an Arrow type to DuckDB: its SQL spelling and a logical
// type the caller destroys.
func duckColType(t arrow.DataType) (string, mapping.LogicalType, error) {
	flat := func(sql string, id mapping.Type) (string, mapping.LogicalType, error) {
		return sql, mapping.CreateLogicalType(id), nil
	}
	switch t := t.(type) {
	case *arrow.BooleanType:
		return flat("BOOLEAN", mapping.TypeBoolean)
	case *arrow.Int8Type:
		return flat("TINYINT", mapping.TypeTinyInt)
	case *arrow.Int16Type:
		return flat("SMALLINT", mapping.TypeSmallInt)
	case *arrow.Int32Type:
		return flat("INTEGER", mapping.TypeInteger)
	case *arrow.Int64Type:
		return flat("BIGINT", mapping.TypeBigInt)
	case *arrow.Uint8Type:
		return flat("UTINYINT", mapping.TypeUTinyInt)
	case *arrow.Uint16Type:
		return flat("USMALLINT", mapping.TypeUSmallInt)
	case *arrow.Uint32Type:
		return flat("UINTEGER", mapping.TypeUInteger)
	case *arrow.Uint64Type:
		return flat("UBIGINT", mapping.TypeUBigInt)
	case *arrow.Float32Type:
		return flat("FLOAT", mapping.TypeFloat)
	case *arrow.Float64Type:
		return flat("DOUBLE", mapping.TypeDouble)
	case *arrow.Date32Type:
		return flat("DATE", mapping.TypeDate)
	case *arrow.StringType, *arrow.LargeStringType:
		return flat("VARCHAR", mapping.TypeVarchar)
	case *arrow.BinaryType, *arrow.LargeBinaryType:
		return flat("BLOB", mapping.TypeBlob)
	case *arrow.TimestampType:
		if t.TimeZone != "" {
			if t.Unit != arrow.Microsecond {
				return "", mapping.LogicalType{}, fmt.Errorf("duckdb: %s: DuckDB's TIMESTAMP WITH TIME ZONE holds microseconds only: %w", t, errUnsupported)
			}
			return flat("TIMESTAMPTZ", mapping.TypeTimestampTZ)
		}
		switch t.Unit {
		case arrow.Second:
			return flat("TIMESTAMP_S", mapping.TypeTimestampS)
		case arrow.Millisecond:
			return flat("TIMESTAMP_MS", mapping.TypeTimestampMS)
		case arrow.Microsecond:
			return flat("TIMESTAMP", mapping.TypeTimestamp)
		case arrow.Nanosecond:
			return flat("TIMESTAMP_NS", mapping.TypeTimestampNS)
		}
	case *arrow.Decimal128Type:
		return fmt.Sprintf("DECIMAL(%d,%d)", t.Precision, t.Scale),
			mapping.CreateDecimalType(uint8(t.Precision), uint8(t.Scale)), nil
	case *arrow.StructType:
		var sqls, names []string
		var kids []mapping.LogicalType
		defer func() {
			for i := range kids {
				mapping.DestroyLogicalType(&kids[i])
			}
		}()
		for _, f := range t.Fields() {
			s, lt, err := duckColType(f.Type)
			if err != nil {
				return "", mapping.LogicalType{}, err
			}
			kids = append(kids, lt)
			names = append(names, f.Name)
			sqls = append(sqls, quoteIdent(f.Name)+" "+s)
		}
		return "STRUCT(" + strings.Join(sqls, ", ") + ")", mapping.CreateStructType(kids, names), nil
	case *arrow.MapType:
		ks, kt, err := duckColType(t.KeyType())
		if err != nil {
			return "", mapping.LogicalType{}, err
		}
		defer mapping.DestroyLogicalType(&kt)
		vs, vt, err := duckColType(t.ItemType())
		if err != nil {
			return "", mapping.LogicalType{}, err
		}
		defer mapping.DestroyLogicalType(&vt)
		return "MAP(" + ks + ", " + vs + ")", mapping.CreateMapType(kt, vt), nil
	case *arrow.ListType, *arrow.LargeListType:
		es, et, err := duckColType(t.(arrow.ListLikeType).Elem())
		if err != nil {
			return "", mapping.LogicalType{}, err
		}
		defer mapping.DestroyLogicalType(&et)
		return es + "[]", mapping.CreateListType(et), nil
	}
	return "", mapping.LogicalType{}, fmt.Errorf("duckdb: Arrow type %s is not mapped by the harness: %w", t, errUnsupported)
}

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// loadDuck creates table src and appends every record through data chunks.
func loadDuck(d *duckDB, src *Source) error {
	fields := src.Schema.Fields()
	var cols []string
	var lts []mapping.LogicalType
	defer func() {
		for i := range lts {
			mapping.DestroyLogicalType(&lts[i])
		}
	}()
	for _, f := range fields {
		name, lt, err := duckColType(f.Type)
		if err != nil {
			return fmt.Errorf("column %s: %w", f.Name, err)
		}
		lts = append(lts, lt)
		null := " NOT NULL"
		if f.Nullable {
			null = ""
		}
		cols = append(cols, quoteIdent(f.Name)+" "+name+null)
	}
	if err := d.exec("CREATE TABLE src (" + strings.Join(cols, ", ") + ")"); err != nil {
		return err
	}
	var app mapping.Appender
	if mapping.AppenderCreate(d.conn, "", "src", &app) == mapping.StateError {
		err := fmt.Errorf("duckdb: appender: %s", mapping.AppenderError(app))
		mapping.AppenderDestroy(&app)
		return err
	}
	defer mapping.AppenderDestroy(&app)
	chunk := mapping.CreateDataChunk(lts)
	defer mapping.DestroyDataChunk(&chunk)
	cap := int(mapping.VectorSize())
	for _, rec := range src.Records {
		total := int(rec.NumRows())
		for off := 0; off < total; off += cap {
			n := min(cap, total-off)
			mapping.DataChunkReset(chunk)
			for c := range fields {
				vec := mapping.DataChunkGetVector(chunk, mapping.IdxT(c))
				if err := fillDuck(vec, rec.Column(c), off, n, 0); err != nil {
					return fmt.Errorf("column %s: %w", fields[c].Name, err)
				}
			}
			mapping.DataChunkSetSize(chunk, mapping.IdxT(n))
			if mapping.AppendDataChunk(app, chunk) == mapping.StateError {
				return fmt.Errorf("duckdb: append: %s", mapping.AppenderError(app))
			}
		}
	}
	if mapping.AppenderFlush(app) == mapping.StateError {
		return fmt.Errorf("duckdb: flush: %s", mapping.AppenderError(app))
	}
	return nil
}

func copyFixed[T any](data unsafe.Pointer, dst int, vals []T) {
	copy(unsafe.Slice((*T)(data), dst+len(vals))[dst:], vals)
}

// duckListEntry is DuckDB's duckdb_list_entry.
type duckListEntry struct{ offset, length uint64 }

// fillDuck writes rows off..off+n of a into vec at rows dst..dst+n.
func fillDuck(vec mapping.Vector, a arrow.Array, off, n, dst int) error {
	if a.NullN() > 0 {
		mapping.VectorEnsureValidityWritable(vec)
		mask := mapping.VectorGetValidity(vec)
		for i := range n {
			mapping.ValiditySetRowValidity(mask, mapping.IdxT(dst+i), a.IsValid(off+i))
		}
	}
	data := mapping.VectorGetData(vec)
	switch a := a.(type) {
	case *array.Boolean:
		b := unsafe.Slice((*uint8)(data), dst+n)[dst:]
		for i := range n {
			b[i] = uint8(b2i(a.Value(off + i)))
		}
	case *array.Int8:
		copyFixed(data, dst, a.Int8Values()[off:off+n])
	case *array.Int16:
		copyFixed(data, dst, a.Int16Values()[off:off+n])
	case *array.Int32:
		copyFixed(data, dst, a.Int32Values()[off:off+n])
	case *array.Int64:
		copyFixed(data, dst, a.Int64Values()[off:off+n])
	case *array.Uint8:
		copyFixed(data, dst, a.Uint8Values()[off:off+n])
	case *array.Uint16:
		copyFixed(data, dst, a.Uint16Values()[off:off+n])
	case *array.Uint32:
		copyFixed(data, dst, a.Uint32Values()[off:off+n])
	case *array.Uint64:
		copyFixed(data, dst, a.Uint64Values()[off:off+n])
	case *array.Float32:
		copyFixed(data, dst, a.Float32Values()[off:off+n])
	case *array.Float64:
		copyFixed(data, dst, a.Float64Values()[off:off+n])
	case *array.Date32:
		copyFixed(data, dst, a.Date32Values()[off:off+n])
	case *array.Timestamp:
		copyFixed(data, dst, a.TimestampValues()[off:off+n])
	case *array.Decimal128:
		p := a.DataType().(*arrow.Decimal128Type).Precision
		for i := range n {
			v := a.Value(off + i)
			switch j := dst + i; {
			case p <= 4:
				*(*int16)(unsafe.Add(data, 2*j)) = int16(v.LowBits())
			case p <= 9:
				*(*int32)(unsafe.Add(data, 4*j)) = int32(v.LowBits())
			case p <= 18:
				*(*int64)(unsafe.Add(data, 8*j)) = int64(v.LowBits())
			default:
				*(*uint64)(unsafe.Add(data, 16*j)) = v.LowBits()
				*(*int64)(unsafe.Add(data, 16*j+8)) = v.HighBits()
			}
		}
	case *array.String:
		for i := range n {
			if a.IsValid(off + i) {
				mapping.VectorAssignStringElementLen(vec, mapping.IdxT(dst+i), bytesOf(a.Value(off+i)))
			}
		}
	case *array.LargeString:
		for i := range n {
			if a.IsValid(off + i) {
				mapping.VectorAssignStringElementLen(vec, mapping.IdxT(dst+i), bytesOf(a.Value(off+i)))
			}
		}
	case *array.Binary:
		for i := range n {
			if a.IsValid(off + i) {
				mapping.VectorAssignStringElementLen(vec, mapping.IdxT(dst+i), a.Value(off+i))
			}
		}
	case *array.LargeBinary:
		for i := range n {
			if a.IsValid(off + i) {
				mapping.VectorAssignStringElementLen(vec, mapping.IdxT(dst+i), a.Value(off+i))
			}
		}
	case *array.Struct:
		for k := range a.NumField() {
			if err := fillDuck(mapping.StructVectorGetChild(vec, mapping.IdxT(k)), a.Field(k), off, n, dst); err != nil {
				return err
			}
		}
	case array.ListLike: // lists and maps
		if a.DataType().ID() == arrow.FIXED_SIZE_LIST {
			return fmt.Errorf("duckdb: fixed-size lists are not implemented in the harness: %w", errUnsupported)
		}
		if n == 0 {
			return nil
		}
		first, _ := a.ValueOffsets(off)
		_, last := a.ValueOffsets(off + n - 1)
		cur := int(mapping.ListVectorGetSize(vec))
		total := int(last - first)
		if mapping.ListVectorReserve(vec, mapping.IdxT(cur+total)) == mapping.StateError {
			return fmt.Errorf("duckdb: list reserve %d", cur+total)
		}
		entries := unsafe.Slice((*duckListEntry)(data), dst+n)[dst:]
		for i := range n {
			s, e := a.ValueOffsets(off + i)
			entries[i] = duckListEntry{uint64(cur) + uint64(s-first), uint64(e - s)}
		}
		if err := fillDuck(mapping.ListVectorGetChild(vec), a.ListValues(), int(first), total, cur); err != nil {
			return err
		}
		if mapping.ListVectorSetSize(vec, mapping.IdxT(cur+total)) == mapping.StateError {
			return fmt.Errorf("duckdb: list size %d", cur+total)
		}
	default:
		return fmt.Errorf("duckdb: unsupported array %s: %w", a.DataType(), errUnsupported)
	}
	return nil
}

// dnode is the shape of a DuckDB result column for checksums.
type dnode struct {
	t          mapping.Type
	dec        mapping.Type // DECIMAL: the storage type
	kids       []*dnode
	leaf       int
	first, end int
}

// buildDNode describes logical type lt named name, appending leaf names.
func buildDNode(lt mapping.LogicalType, name string, names *[]string) *dnode {
	n := &dnode{t: mapping.GetTypeId(lt), first: len(*names)}
	switch n.t {
	case mapping.TypeStruct:
		for k := range int(mapping.StructTypeChildCount(lt)) {
			ct := mapping.StructTypeChildType(lt, mapping.IdxT(k))
			n.kids = append(n.kids, buildDNode(ct, name+"."+mapping.StructTypeChildName(lt, mapping.IdxT(k)), names))
			mapping.DestroyLogicalType(&ct)
		}
	case mapping.TypeList:
		ct := mapping.ListTypeChildType(lt)
		n.kids = []*dnode{buildDNode(ct, name+"[]", names)}
		mapping.DestroyLogicalType(&ct)
	case mapping.TypeMap:
		kt, vt := mapping.MapTypeKeyType(lt), mapping.MapTypeValueType(lt)
		entry := &dnode{t: mapping.TypeStruct, first: len(*names)}
		entry.kids = []*dnode{buildDNode(kt, name+"[].key", names), buildDNode(vt, name+"[].value", names)}
		entry.end = len(*names)
		n.kids = []*dnode{entry}
		mapping.DestroyLogicalType(&kt)
		mapping.DestroyLogicalType(&vt)
	default:
		if n.t == mapping.TypeDecimal {
			n.dec = mapping.DecimalInternalType(lt)
		}
		n.leaf = len(*names)
		*names = append(*names, name)
	}
	n.end = len(*names)
	return n
}

// dvec is a view of one DuckDB vector (and its children) of one chunk.
type dvec struct {
	data unsafe.Pointer
	mask []uint64 // nil: all valid
	kids []*dvec
}

func viewDuck(vec mapping.Vector, n *dnode, size int) *dvec {
	v := &dvec{data: mapping.VectorGetData(vec)}
	if m := (*uint64)(mapping.VectorGetValidity(vec)); m != nil {
		v.mask = unsafe.Slice(m, (size+63)/64)
	}
	switch n.t {
	case mapping.TypeStruct:
		for k, c := range n.kids {
			v.kids = append(v.kids, viewDuck(mapping.StructVectorGetChild(vec, mapping.IdxT(k)), c, size))
		}
	case mapping.TypeList, mapping.TypeMap:
		v.kids = []*dvec{viewDuck(mapping.ListVectorGetChild(vec), n.kids[0], int(mapping.ListVectorGetSize(vec)))}
	}
	return v
}

func (v *dvec) valid(i int) bool { return v.mask == nil || v.mask[i/64]>>(uint(i)%64)&1 != 0 }

// walk adds the terms of row i of v (shaped n) to acc.
func (n *dnode) walk(v *dvec, i int, pos int64, inList bool, acc []uint64) error {
	if !v.valid(i) {
		for l := n.first; l < n.end; l++ {
			acc[l] += nullHash
		}
		return nil
	}
	switch n.t {
	case mapping.TypeStruct:
		for k, c := range n.kids {
			if err := c.walk(v.kids[k], i, pos, inList, acc); err != nil {
				return err
			}
		}
	case mapping.TypeList, mapping.TypeMap:
		e := (*duckListEntry)(unsafe.Add(v.data, 16*i))
		if e.length == 0 {
			for l := n.first; l < n.end; l++ {
				acc[l] += emptyHash
			}
			return nil
		}
		for j := range e.length {
			if err := n.kids[0].walk(v.kids[0], int(e.offset+j), int64(j), true, acc); err != nil {
				return err
			}
		}
	default:
		h, err := hashDuckValue(n, v.data, i)
		if err != nil {
			return err
		}
		if inList {
			h = mixPos(h, pos)
		}
		acc[n.leaf] += h
	}
	return nil
}

// hashDuckValue hashes the valid value at row i of a flat vector.
func hashDuckValue(n *dnode, data unsafe.Pointer, i int) (uint64, error) {
	switch n.t {
	case mapping.TypeBoolean:
		return hashInt(int64(*(*uint8)(unsafe.Add(data, i)))), nil
	case mapping.TypeTinyInt:
		return hashInt(int64(*(*int8)(unsafe.Add(data, i)))), nil
	case mapping.TypeSmallInt:
		return hashInt(int64(*(*int16)(unsafe.Add(data, 2*i)))), nil
	case mapping.TypeInteger, mapping.TypeDate:
		return hashInt(int64(*(*int32)(unsafe.Add(data, 4*i)))), nil
	case mapping.TypeBigInt:
		return hashInt(*(*int64)(unsafe.Add(data, 8*i))), nil
	case mapping.TypeTimestamp, mapping.TypeTimestampTZ:
		return hashTS(*(*int64)(unsafe.Add(data, 8*i)), 1e6), nil
	case mapping.TypeTimestampMS:
		return hashTS(*(*int64)(unsafe.Add(data, 8*i)), 1e3), nil
	case mapping.TypeTimestampNS:
		return hashTS(*(*int64)(unsafe.Add(data, 8*i)), 1e9), nil
	case mapping.TypeTimestampS:
		return hashTS(*(*int64)(unsafe.Add(data, 8*i)), 1), nil
	case mapping.TypeUTinyInt:
		return hashInt(int64(*(*uint8)(unsafe.Add(data, i)))), nil
	case mapping.TypeUSmallInt:
		return hashInt(int64(*(*uint16)(unsafe.Add(data, 2*i)))), nil
	case mapping.TypeUInteger:
		return hashInt(int64(*(*uint32)(unsafe.Add(data, 4*i)))), nil
	case mapping.TypeUBigInt:
		return hashInt(int64(*(*uint64)(unsafe.Add(data, 8*i)))), nil
	case mapping.TypeFloat:
		return hashFloat(float64(*(*float32)(unsafe.Add(data, 4*i)))), nil
	case mapping.TypeDouble:
		return hashFloat(*(*float64)(unsafe.Add(data, 8*i))), nil
	case mapping.TypeVarchar, mapping.TypeBlob:
		return hashBytes(duckString(unsafe.Add(data, 16*i))), nil
	case mapping.TypeDecimal:
		var x int64
		switch n.dec {
		case mapping.TypeSmallInt:
			x = int64(*(*int16)(unsafe.Add(data, 2*i)))
		case mapping.TypeInteger:
			x = int64(*(*int32)(unsafe.Add(data, 4*i)))
		case mapping.TypeBigInt:
			x = *(*int64)(unsafe.Add(data, 8*i))
		default: // HUGEINT: lower uint64, upper int64
			return hashDecimal(*(*uint64)(unsafe.Add(data, 16*i)), *(*int64)(unsafe.Add(data, 16*i+8))), nil
		}
		return hashDecimal(uint64(x), x>>63), nil
	}
	return 0, fmt.Errorf("duckdb type %d: %w", n.t, errUnsupported)
}

// consume walks every chunk of a materialized result, counting rows and, when
// out.Sum is set, hashing each value in place.
func consume(res *mapping.Result, out *Out) error {
	ncol := int(mapping.ColumnCount(res))
	names := make([]string, ncol)
	nodes := make([]*dnode, ncol)
	var leafNames [][]string
	for i := range ncol {
		names[i] = mapping.ColumnName(res, mapping.IdxT(i))
		lt := mapping.ColumnLogicalType(res, mapping.IdxT(i))
		var ln []string
		nodes[i] = buildDNode(lt, names[i], &ln)
		mapping.DestroyLogicalType(&lt)
		leafNames = append(leafNames, ln)
	}
	for {
		chunk := mapping.FetchChunk(*res)
		if chunk.Ptr == nil {
			break
		}
		n := int(mapping.DataChunkGetSize(chunk))
		if n == 0 {
			mapping.DestroyDataChunk(&chunk)
			break
		}
		out.Rows += int64(n)
		if out.Sum != nil {
			out.Sum.Rows += int64(n)
			for c := range ncol {
				v := viewDuck(mapping.DataChunkGetVector(chunk, mapping.IdxT(c)), nodes[c], n)
				acc := make([]uint64, len(leafNames[c]))
				for i := range n {
					if err := nodes[c].walk(v, i, 0, false, acc); err != nil {
						mapping.DestroyDataChunk(&chunk)
						return fmt.Errorf("column %s: %w", names[c], err)
					}
				}
				for l, nm := range leafNames[c] {
					out.Sum.Cols[nm] += acc[l]
				}
			}
		}
		mapping.DestroyDataChunk(&chunk)
	}
	return nil
}

// duckString reads a duckdb_string_t (16 bytes: uint32 length, then either the
// bytes inline when length <= 12, or a 4-byte prefix and a pointer).
func duckString(p unsafe.Pointer) []byte {
	n := *(*uint32)(p)
	if n <= 12 {
		return unsafe.Slice((*byte)(unsafe.Add(p, 4)), n)
	}
	ptr := *(*unsafe.Pointer)(unsafe.Add(p, 8))
	return unsafe.Slice((*byte)(ptr), n)
}
