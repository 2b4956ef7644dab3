package interop

import (
	"context"
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/apache/arrow-go/v18/parquet/schema"
	"github.com/apache/thrift/lib/go/thrift"
)

// A MAP whose key field is OPTIONAL breaks the Parquet format's rule that
// map keys are required, yet Presto, Athena and Hive write such files and
// arrow-rs reads them; arrow-go refuses the whole file ("MAP keys must be
// required"). interop reads them as follows.
//
// Marking the key REQUIRED in the footer would not do: the definition
// levels stored in the key column's pages count the key's own level. In
//
//	optional group m (MAP) {
//	  repeated group key_value {
//	    optional binary key;
//	    optional binary value;
//	  }
//	}
//
// the key leaf's levels are 0 (m null), 1 (m empty), 2 (entry with a
// null key) and 3 (key present). Required, its maximum would be 2, so a
// present key stored as 3 would be out of range, and for a required m the
// level bit width itself would shrink from 2 to 1 and misread every page.
//
// Annotated as a LIST instead, the same group is, by the format's
// backward-compatibility rule for a repeated group of several fields, a
// list of key_value structs: the same leaves with the same levels, which
// arrow-go reads. openParquetFile therefore rewrites the footer so (the
// map group LIST, its repeated group MAP_KEY_VALUE, which keeps the mark
// of a map), parquetLogicalTypes gives such a list the map type it holds,
// and the batches are retyped without copying (the Arrow layouts of a
// list of structs and of a map are the same), after restoreData checked
// that no key is null: a map key cannot be null, and a file with one is
// refused (ErrNullMapKey).
//
// Only a key of a primitive type is handled; a map with an optional group
// key stays refused by arrow-go.

// ErrNullMapKey reports a map entry whose key is null, which a Parquet
// schema with an optional map key allows but a map cannot hold.
var ErrNullMapKey = errors.New("map key is null")

// relabelKind says which annotations rewriteFooter gives a schema element
// in place of its own (converted type and logical type).
type relabelKind uint8

const (
	relabelList     relabelKind = iota + 1 // LIST
	relabelKeyValue                        // converted type MAP_KEY_VALUE, no logical type
)

// Parquet ConvertedType and LogicalType values (parquet.thrift).
const (
	convertedMapKeyValue = 2 // ConvertedType.MAP_KEY_VALUE
	convertedList        = 3 // ConvertedType.LIST
	logicalTypeList      = 3 // LogicalType.LIST: ListType (an empty struct)
)

// writeAnnotation writes the fields of a schema element that relabel
// kind k gives it.
func writeAnnotation(ctx context.Context, out *thrift.TCompactProtocol, k relabelKind) error {
	converted := int32(convertedMapKeyValue)
	if k == relabelList {
		converted = convertedList
	}
	if err := out.WriteFieldBegin(ctx, "", thrift.I32, schemaElementConvertedType); err != nil {
		return err
	}
	if err := out.WriteI32(ctx, converted); err != nil {
		return err
	}
	if err := out.WriteFieldEnd(ctx); err != nil {
		return err
	}
	if k != relabelList {
		return nil
	}
	// logicalType: LogicalType{LIST: ListType{}}
	if err := out.WriteFieldBegin(ctx, "", thrift.STRUCT, schemaElementLogicalType); err != nil {
		return err
	}
	if err := out.WriteStructBegin(ctx, ""); err != nil {
		return err
	}
	if err := out.WriteFieldBegin(ctx, "", thrift.STRUCT, logicalTypeList); err != nil {
		return err
	}
	if err := out.WriteStructBegin(ctx, ""); err != nil {
		return err
	}
	for range 2 { // ListType, then LogicalType
		if err := out.WriteFieldStop(ctx); err != nil {
			return err
		}
		if err := out.WriteStructEnd(ctx); err != nil {
			return err
		}
		if err := out.WriteFieldEnd(ctx); err != nil {
			return err
		}
	}
	return nil
}

// findOptionalKeyMaps returns the schema elements (by position in the
// footer's depth-first list, the root 0) to relabel for every map that
// arrow-go refuses because its primitive key is optional: the map group
// as a LIST, its repeated group as MAP_KEY_VALUE. It returns nil if
// there is none. The walk keeps its own stack, so a deep schema costs
// memory in proportion to the schema, not stack.
func findOptionalKeyMaps(s *schema.Schema) map[int]relabelKind {
	var relabel map[int]relabelKind
	stack := []schema.Node{s.Root()}
	for element := 0; len(stack) > 0; element++ {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		g, ok := n.(*schema.GroupNode)
		if !ok {
			continue
		}
		for i := g.NumFields() - 1; i >= 0; i-- {
			stack = append(stack, g.Field(i))
		}
		if optionalKeyMap(g) {
			if relabel == nil {
				relabel = map[int]relabelKind{}
			}
			relabel[element] = relabelList
			relabel[element+1] = relabelKeyValue // the first child comes next
		}
	}
	return relabel
}

// optionalKeyMap tells whether g is a MAP as arrow-go sees one (logical
// or converted type) that it refuses only because its key is optional:
// one repeated group of a primitive key, optional, and a value.
func optionalKeyMap(g *schema.GroupNode) bool {
	if !g.LogicalType().Equals(schema.MapLogicalType{}) || g.NumFields() != 1 || g.RepetitionType() == parquet.Repetitions.Repeated {
		return false
	}
	kv, ok := g.Field(0).(*schema.GroupNode)
	if !ok || kv.RepetitionType() != parquet.Repetitions.Repeated || kv.NumFields() != 2 {
		return false
	}
	key, ok := kv.Field(0).(*schema.PrimitiveNode)
	return ok && key.RepetitionType() == parquet.Repetitions.Optional
}

// optionalKeyMapType returns the map type to read sf as, if sf is the
// list that rewriteFooter made of a map with an optional key (a LIST
// group whose repeated group, annotated MAP_KEY_VALUE, holds an optional
// primitive key and a value); kids are the types parquetLogicalTypes
// chose for sf's children. A file written in that form is read as a map
// too, which is what its MAP_KEY_VALUE annotation says it is.
func optionalKeyMapType(sf pqarrow.SchemaField, kids []arrow.DataType, s *schema.Schema) (arrow.DataType, bool) {
	if sf.Field == nil || sf.Field.Type.ID() != arrow.LIST || len(sf.Children) != 1 || len(kids) != 1 {
		return nil, false
	}
	kv := sf.Children[0]
	st, ok := kids[0].(*arrow.StructType)
	if !ok || st.NumFields() != 2 || len(kv.Children) != 2 || len(kv.Children[0].Children) != 0 {
		return nil, false
	}
	col := kv.Children[0].ColIndex
	if col < 0 || col >= s.NumColumns() {
		return nil, false
	}
	key := s.Column(col).SchemaNode()
	kvNode, ok := key.Parent().(*schema.GroupNode)
	if !ok || kvNode.NumFields() != 2 || kvNode.Field(0) != key || key.RepetitionType() != parquet.Repetitions.Optional ||
		kvNode.RepetitionType() != parquet.Repetitions.Repeated || !kvNode.LogicalType().Equals(schema.MapLogicalType{}) {
		return nil, false
	}
	list, ok := kvNode.Parent().(*schema.GroupNode)
	if !ok || list.NumFields() != 1 || !list.LogicalType().Equals(schema.NewListLogicalType()) {
		return nil, false
	}
	kf, vf := st.Field(0), st.Field(1)
	kf.Nullable = false // restoreData refuses a null key
	return arrow.MapOfFields(kf, vf), true
}

// checkMapKeys returns an error wrapping ErrNullMapKey if an entry of the
// list of key/value structs d, to be read as a map, has a null key.
func checkMapKeys(d arrow.ArrayData) error {
	if len(d.Children()) != 1 || len(d.Children()[0].Children()) < 1 {
		return fmt.Errorf("a list of %d children read as a map", len(d.Children()))
	}
	if d.Children()[0].Children()[0].NullN() == 0 {
		return nil // (the common case: no null at all)
	}
	l := array.NewListData(d)
	defer l.Release()
	entries, ok := l.ListValues().(*array.Struct)
	if !ok {
		return fmt.Errorf("a list of %s read as a map", l.ListValues().DataType())
	}
	keys := entries.Field(0)
	for i := 0; i < l.Len(); i++ {
		if l.IsNull(i) {
			continue
		}
		start, end := l.ValueOffsets(i)
		for j := start; j < end; j++ {
			if keys.IsNull(int(j)) {
				return fmt.Errorf("row %d of the batch, entry %d: %w (the file's schema marks the key optional, which the Parquet format does not allow)", i, j-start, ErrNullMapKey)
			}
		}
	}
	return nil
}
