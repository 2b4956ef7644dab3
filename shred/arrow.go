// Package shred converts between Arrow record batches and Strata's typed
// streams: SchemaFromArrow/ToArrow map Arrow schemas to and from
// schema.Schema, a Shredder splits record batches into per-stream value
// buffers (nulls, lengths, values, in-map) for the writer, and Assemble
// rebuilds Arrow arrays from decoded streams for the reader, sharing the
// stream buffers where the layouts agree.
package shred

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"strata/encoding"
	"strata/schema"
)

// FlatMapMetadataKey marks an Arrow map field to be stored as a FlatMap when
// its metadata has this key with value "true". ToArrow sets it on FlatMap
// fields so a schema survives a round trip through Arrow.
const FlatMapMetadataKey = "strata.flatmap"

// FromArrowOptions tune SchemaFromArrowWith.
type FromArrowOptions struct {
	// FlatMap lists dotted paths (as schema.Find understands them) of Arrow
	// map fields to store as FlatMap, in addition to fields whose metadata
	// carries FlatMapMetadataKey.
	FlatMap []string
}

// SchemaFromArrow converts an Arrow schema to a Strata schema.
func SchemaFromArrow(as *arrow.Schema) (*schema.Schema, error) {
	return SchemaFromArrowWith(as, FromArrowOptions{})
}

// SchemaFromArrowWith converts an Arrow schema to a Strata schema.
//
// Accepted Arrow types: bool, int8..uint64, float32/64, string and
// large_string and string_view (String), binary, large_binary and
// binary_view (Binary), dictionary of any of those (its value type), date32,
// timestamp, time32 and time64 (Time), duration, null (Null, always
// nullable), decimal32/64/128 (precision <= 38), struct, list and large_list
// (List), map (Map, or FlatMap with string or integer keys).
func SchemaFromArrowWith(as *arrow.Schema, opt FromArrowOptions) (*schema.Schema, error) {
	flat := make(map[string]bool, len(opt.FlatMap))
	for _, p := range opt.FlatMap {
		flat[p] = true
	}
	used := make(map[string]bool)
	root := schema.NewStruct("", false)
	for _, f := range as.Fields() {
		n, err := nodeFromField(f, f.Name, flat, used)
		if err != nil {
			return nil, err
		}
		root.Children = append(root.Children, n)
	}
	for _, p := range opt.FlatMap {
		if !used[p] {
			return nil, fmt.Errorf("shred: FlatMap option %q names no map field", p)
		}
	}
	return schema.New(root)
}

func nodeFromField(f arrow.Field, path string, flat, used map[string]bool) (*schema.Node, error) {
	n, err := nodeFromType(f.Type, f.Name, f.Nullable, path, flat, used, isFlatMapField(f))
	if err != nil {
		return nil, fmt.Errorf("shred: field %q: %w", path, err)
	}
	return n, nil
}

func isFlatMapField(f arrow.Field) bool {
	if i := f.Metadata.FindKey(FlatMapMetadataKey); i >= 0 {
		return strings.EqualFold(f.Metadata.Values()[i], "true")
	}
	return false
}

var leafKinds = map[arrow.Type]schema.Kind{
	arrow.BOOL: schema.Bool, arrow.INT8: schema.Int8, arrow.INT16: schema.Int16,
	arrow.INT32: schema.Int32, arrow.INT64: schema.Int64, arrow.UINT8: schema.Uint8,
	arrow.UINT16: schema.Uint16, arrow.UINT32: schema.Uint32, arrow.UINT64: schema.Uint64,
	arrow.FLOAT32: schema.Float32, arrow.FLOAT64: schema.Float64,
	arrow.STRING: schema.String, arrow.LARGE_STRING: schema.String, arrow.STRING_VIEW: schema.String,
	arrow.BINARY: schema.Binary, arrow.LARGE_BINARY: schema.Binary, arrow.BINARY_VIEW: schema.Binary,
	arrow.DATE32: schema.Date,
}

func nodeFromType(t arrow.DataType, name string, nullable bool, path string, flat, used map[string]bool, flatMeta bool) (*schema.Node, error) {
	if k, ok := leafKinds[t.ID()]; ok {
		return schema.NewLeaf(name, k, nullable), nil
	}
	switch t := t.(type) {
	case *arrow.NullType:
		// Every value is null whatever the field says (pandas writes
		// all-None columns with this type).
		return schema.NewLeaf(name, schema.Null, true), nil
	case *arrow.DictionaryType:
		k, ok := leafKinds[t.ValueType.ID()]
		if !ok || (k != schema.String && k != schema.Binary) {
			return nil, encoding.Unsupportedf("dictionary of %s", t.ValueType)
		}
		return schema.NewLeaf(name, k, nullable), nil
	case *arrow.TimestampType:
		return schema.NewTimestamp(name, schema.TimeUnit(t.Unit), t.TimeZone, nullable), nil
	case *arrow.Time32Type:
		return schema.NewTime(name, schema.TimeUnit(t.Unit), nullable), nil
	case *arrow.Time64Type:
		return schema.NewTime(name, schema.TimeUnit(t.Unit), nullable), nil
	case *arrow.DurationType:
		return schema.NewDuration(name, schema.TimeUnit(t.Unit), nullable), nil
	case *arrow.Decimal32Type:
		return schema.NewDecimal(name, int(t.Precision), int(t.Scale), nullable), nil
	case *arrow.Decimal64Type:
		return schema.NewDecimal(name, int(t.Precision), int(t.Scale), nullable), nil
	case *arrow.Decimal128Type:
		return schema.NewDecimal(name, int(t.Precision), int(t.Scale), nullable), nil
	case *arrow.StructType:
		n := schema.NewStruct(name, nullable)
		for _, f := range t.Fields() {
			c, err := nodeFromField(f, path+"."+f.Name, flat, used)
			if err != nil {
				return nil, err
			}
			n.Children = append(n.Children, c)
		}
		return n, nil
	case *arrow.ListType:
		return listNode(t.ElemField(), name, nullable, path, flat, used)
	case *arrow.LargeListType:
		return listNode(t.ElemField(), name, nullable, path, flat, used)
	case *arrow.ListViewType:
		// Stored as a list: each slot's view, in slot order (views that
		// overlap or run out of order store their values once per slot).
		return listNode(t.ElemField(), name, nullable, path, flat, used)
	case *arrow.LargeListViewType:
		return listNode(t.ElemField(), name, nullable, path, flat, used)
	case *arrow.FixedSizeListType:
		// Stored as a list: its lengths, all equal, cost a Constant node a
		// chunk. A null slot keeps its n child values in Arrow; the list
		// stores it as an empty entry.
		return listNode(t.ElemField(), name, nullable, path, flat, used)
	case *arrow.MapType:
		kf, vf := t.KeyField(), t.ItemField()
		if flatMeta || flat[path] {
			used[path] = true
			kn, err := nodeFromType(kf.Type, "key", false, path+".key", flat, used, false)
			if err != nil {
				return nil, err
			}
			if !kn.Kind.IsLeaf() || (kn.Kind != schema.String && !kn.Kind.IsInteger()) {
				return nil, encoding.Unsupportedf("flatmap key type %s", kf.Type)
			}
			vn, err := nodeFromField(vf, path+".value", flat, used)
			if err != nil {
				return nil, err
			}
			vn.Name = ""
			return schema.NewFlatMap(name, nullable, kn.Kind, vn), nil
		}
		kn, err := nodeFromField(kf, path+".key", flat, used)
		if err != nil {
			return nil, err
		}
		kn.Nullable = false
		vn, err := nodeFromField(vf, path+".value", flat, used)
		if err != nil {
			return nil, err
		}
		return schema.NewMap(name, nullable, kn, vn), nil
	}
	return nil, encoding.Unsupportedf("arrow type %s", t)
}

func listNode(ef arrow.Field, name string, nullable bool, path string, flat, used map[string]bool) (*schema.Node, error) {
	e, err := nodeFromField(ef, path+"."+ef.Name, flat, used)
	if err != nil {
		return nil, err
	}
	return schema.NewList(name, nullable, e), nil
}

// ToArrow returns the Arrow schema of s. Lists come back as list (32-bit
// offsets), strings as string, decimals as decimal128, FlatMaps as
// map<key, value> fields carrying FlatMapMetadataKey.
func ToArrow(s *schema.Schema) *arrow.Schema {
	fields := make([]arrow.Field, len(s.Root.Children))
	for i, c := range s.Root.Children {
		fields[i] = Field(c)
	}
	return arrow.NewSchema(fields, nil)
}

// Field returns the Arrow field of node n.
func Field(n *schema.Node) arrow.Field { return fieldOf(n, nil) }

// DataType returns the Arrow type of node n.
func DataType(n *schema.Node) arrow.DataType { return typeOf(n, nil) }

// keepSet selects the nodes an assembly or type includes; nil keeps all.
type keepSet map[*schema.Node]bool

func (k keepSet) has(n *schema.Node) bool { return k == nil || k[n] }

func fieldOf(n *schema.Node, keep keepSet) arrow.Field {
	f := arrow.Field{Name: n.Name, Type: typeOf(n, keep), Nullable: n.Nullable}
	if n.Kind == schema.FlatMap {
		f.Metadata = arrow.NewMetadata([]string{FlatMapMetadataKey}, []string{"true"})
	}
	return f
}

var leafTypes = map[schema.Kind]arrow.DataType{
	schema.Bool: arrow.FixedWidthTypes.Boolean, schema.Int8: arrow.PrimitiveTypes.Int8,
	schema.Int16: arrow.PrimitiveTypes.Int16, schema.Int32: arrow.PrimitiveTypes.Int32,
	schema.Int64: arrow.PrimitiveTypes.Int64, schema.Uint8: arrow.PrimitiveTypes.Uint8,
	schema.Uint16: arrow.PrimitiveTypes.Uint16, schema.Uint32: arrow.PrimitiveTypes.Uint32,
	schema.Uint64: arrow.PrimitiveTypes.Uint64, schema.Float32: arrow.PrimitiveTypes.Float32,
	schema.Float64: arrow.PrimitiveTypes.Float64, schema.String: arrow.BinaryTypes.String,
	schema.Binary: arrow.BinaryTypes.Binary, schema.Date: arrow.FixedWidthTypes.Date32,
}

func typeOf(n *schema.Node, keep keepSet) arrow.DataType {
	if t, ok := leafTypes[n.Kind]; ok {
		return t
	}
	switch n.Kind {
	case schema.Timestamp:
		return &arrow.TimestampType{Unit: arrow.TimeUnit(n.Unit), TimeZone: n.TimeZone}
	case schema.Time:
		if n.Unit <= schema.Millisecond {
			return &arrow.Time32Type{Unit: arrow.TimeUnit(n.Unit)}
		}
		return &arrow.Time64Type{Unit: arrow.TimeUnit(n.Unit)}
	case schema.Duration:
		return &arrow.DurationType{Unit: arrow.TimeUnit(n.Unit)}
	case schema.Null:
		return arrow.Null
	case schema.Decimal:
		return &arrow.Decimal128Type{Precision: int32(n.Precision), Scale: int32(n.Scale)}
	case schema.Struct:
		fields := make([]arrow.Field, 0, len(n.Children))
		for _, c := range n.Children {
			if keep.has(c) {
				fields = append(fields, fieldOf(c, keep))
			}
		}
		return arrow.StructOf(fields...)
	case schema.List:
		return arrow.ListOfField(fieldOf(n.Children[0], keep))
	case schema.Map:
		kf := fieldOf(n.Children[0], keep)
		kf.Nullable = false
		return arrow.MapOfFields(kf, fieldOf(n.Children[1], keep))
	case schema.FlatMap:
		kf := arrow.Field{Name: "key", Type: leafTypes[n.KeyKind]}
		// A projection keeps a subset of keys; the value type is that of
		// the kept keys (pruned alike) or the full template.
		vf := fieldOf(n.Value, nil)
		for _, c := range n.Children {
			if keep != nil && keep[c] {
				vf = fieldOf(c, keep)
				break
			}
		}
		vf.Name = "value"
		return arrow.MapOfFields(kf, vf)
	}
	panic(fmt.Sprintf("shred: no arrow type for kind %s", n.Kind))
}
