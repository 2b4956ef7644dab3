package main

import (
	"encoding/binary"
	"fmt"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
)

// This file maps Arrow types onto parquet-go's schema and values, shreds
// nested Arrow columns into repetition and definition levels (Dremel) for
// parquet-go's column writers, and describes every leaf of a file parquet-go
// wrote so that its pages can be checksummed like Arrow arrays (nested.go).

// pqShape is an Arrow column as parquet-go leaf columns.
type pqShape struct {
	kind     byte // 'l' leaf, 's' struct, 'L' list or map
	optional bool
	rep      int // 'L': repetition level of its elements
	kids     []*pqShape
	leaf     int   // 'l': index into pqWriteCols
	tsMul    int64 // 'l': timestamp[s] is stored as milliseconds (×1000)
	first    int   // leaves under this node: [first, end)
	end      int
}

// pqLeafPlan is one leaf column of the schema being built.
type pqLeafPlan struct {
	path  []string
	name  string // checksum name (nested.go)
	tsMul int64
	col   int // parquet-go column index, once the schema exists
	vals  []parquet.Value
}

// pqLeafNode maps a flat Arrow type to a parquet-go leaf node. tsMul is 1000
// for timestamp[s], which Parquet cannot store (its units are ms, us and ns):
// the values are written as milliseconds (the same instants).
func pqLeafNode(t arrow.DataType) (n parquet.Node, tsMul int64, err error) {
	switch t := t.(type) {
	case *arrow.Int8Type:
		return parquet.Int(8), 0, nil
	case *arrow.Int16Type:
		return parquet.Int(16), 0, nil
	case *arrow.Int32Type:
		return parquet.Int(32), 0, nil
	case *arrow.Int64Type:
		return parquet.Int(64), 0, nil
	case *arrow.Uint8Type:
		return parquet.Uint(8), 0, nil
	case *arrow.Uint16Type:
		return parquet.Uint(16), 0, nil
	case *arrow.Uint32Type:
		return parquet.Uint(32), 0, nil
	case *arrow.Uint64Type:
		return parquet.Uint(64), 0, nil
	case *arrow.Float32Type:
		return parquet.Leaf(parquet.FloatType), 0, nil
	case *arrow.Float64Type:
		return parquet.Leaf(parquet.DoubleType), 0, nil
	case *arrow.BooleanType:
		return parquet.Leaf(parquet.BooleanType), 0, nil
	case *arrow.Date32Type:
		return parquet.Date(), 0, nil
	case *arrow.StringType, *arrow.LargeStringType:
		return parquet.String(), 0, nil
	case *arrow.BinaryType, *arrow.LargeBinaryType:
		return parquet.Leaf(parquet.ByteArrayType), 0, nil
	case *arrow.TimestampType:
		utc := t.TimeZone != ""
		switch t.Unit {
		case arrow.Second:
			return parquet.TimestampAdjusted(parquet.Millisecond, utc), 1000, nil
		case arrow.Millisecond:
			return parquet.TimestampAdjusted(parquet.Millisecond, utc), 0, nil
		case arrow.Microsecond:
			return parquet.TimestampAdjusted(parquet.Microsecond, utc), 0, nil
		case arrow.Nanosecond:
			return parquet.TimestampAdjusted(parquet.Nanosecond, utc), 0, nil
		}
	case *arrow.Decimal128Type:
		p, s := int(t.Precision), int(t.Scale)
		switch {
		case p <= 9:
			return parquet.Decimal(s, p, parquet.Int32Type), 0, nil
		case p <= 18:
			return parquet.Decimal(s, p, parquet.Int64Type), 0, nil
		default:
			return parquet.Decimal(s, p, parquet.FixedLenByteArrayType(16)), 0, nil
		}
	}
	return nil, 0, fmt.Errorf("parquet-go: Arrow type %s is not mapped by the harness: %w", t, errUnsupported)
}

// pqBuild returns the parquet-go node and the shape of an Arrow type. path is
// the Parquet path of the node, name its checksum name, rep the repetition
// level of its slots.
func pqBuild(t arrow.DataType, nullable bool, path []string, name string, rep int, leaves *[]*pqLeafPlan) (parquet.Node, *pqShape, error) {
	sh := &pqShape{optional: nullable, first: len(*leaves)}
	var node parquet.Node
	switch t := t.(type) {
	case *arrow.StructType:
		sh.kind = 's'
		g := parquet.Group{}
		for _, f := range t.Fields() {
			n, k, err := pqBuild(f.Type, f.Nullable, append(path[:len(path):len(path)], f.Name), name+"."+f.Name, rep, leaves)
			if err != nil {
				return nil, nil, err
			}
			g[f.Name] = n
			sh.kids = append(sh.kids, k)
		}
		node = g
	case *arrow.MapType:
		sh.kind, sh.rep = 'L', rep+1
		kv := append(path[:len(path):len(path)], "key_value")
		kn, ks, err := pqBuild(t.KeyType(), false, append(kv[:len(kv):len(kv)], "key"), name+"[]."+t.KeyField().Name, rep+1, leaves)
		if err != nil {
			return nil, nil, err
		}
		vn, vs, err := pqBuild(t.ItemType(), t.ItemField().Nullable, append(kv[:len(kv):len(kv)], "value"), name+"[]."+t.ItemField().Name, rep+1, leaves)
		if err != nil {
			return nil, nil, err
		}
		sh.kids = []*pqShape{{kind: 's', kids: []*pqShape{ks, vs}, first: ks.first, end: vs.end}}
		node = parquet.Map(kn, vn)
	case *arrow.ListType, *arrow.LargeListType:
		ll := t.(arrow.ListLikeType)
		sh.kind, sh.rep = 'L', rep+1
		ef := ll.ElemField()
		en, es, err := pqBuild(ef.Type, ef.Nullable, append(path[:len(path):len(path)], "list", "element"), name+"[]", rep+1, leaves)
		if err != nil {
			return nil, nil, err
		}
		sh.kids = []*pqShape{es}
		node = parquet.List(en)
	default:
		n, mul, err := pqLeafNode(t)
		if err != nil {
			return nil, nil, err
		}
		sh.kind, sh.leaf, sh.tsMul = 'l', len(*leaves), mul
		*leaves = append(*leaves, &pqLeafPlan{path: path, name: name, tsMul: mul})
		node = n
	}
	if nullable {
		node = parquet.Optional(node)
	}
	sh.end = len(*leaves)
	return node, sh, nil
}

// bytesOf returns the bytes of s without copying (parquet-go copies values
// into its own buffers).
func bytesOf(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

// pqValueAt converts the valid value at i of a flat Arrow array.
func pqValueAt(a arrow.Array, i int, tsMul int64) (parquet.Value, error) {
	switch a := a.(type) {
	case *array.Int8:
		return parquet.Int32Value(int32(a.Value(i))), nil
	case *array.Int16:
		return parquet.Int32Value(int32(a.Value(i))), nil
	case *array.Int32:
		return parquet.Int32Value(a.Value(i)), nil
	case *array.Int64:
		return parquet.Int64Value(a.Value(i)), nil
	case *array.Uint8:
		return parquet.Int32Value(int32(a.Value(i))), nil
	case *array.Uint16:
		return parquet.Int32Value(int32(a.Value(i))), nil
	case *array.Uint32:
		return parquet.Int32Value(int32(a.Value(i))), nil
	case *array.Uint64:
		return parquet.Int64Value(int64(a.Value(i))), nil
	case *array.Float32:
		return parquet.FloatValue(a.Value(i)), nil
	case *array.Float64:
		return parquet.DoubleValue(a.Value(i)), nil
	case *array.Boolean:
		return parquet.BooleanValue(a.Value(i)), nil
	case *array.Date32:
		return parquet.Int32Value(int32(a.Value(i))), nil
	case *array.Timestamp:
		v := int64(a.Value(i))
		if tsMul > 0 {
			v *= tsMul
		}
		return parquet.Int64Value(v), nil
	case *array.Decimal128:
		v := a.Value(i)
		switch p := a.DataType().(*arrow.Decimal128Type).Precision; {
		case p <= 9:
			return parquet.Int32Value(int32(v.LowBits())), nil
		case p <= 18:
			return parquet.Int64Value(int64(v.LowBits())), nil
		default:
			b := make([]byte, 16)
			binary.BigEndian.PutUint64(b, uint64(v.HighBits()))
			binary.BigEndian.PutUint64(b[8:], v.LowBits())
			return parquet.FixedLenByteArrayValue(b), nil
		}
	case *array.String:
		return parquet.ByteArrayValue(bytesOf(a.Value(i))), nil
	case *array.LargeString:
		return parquet.ByteArrayValue(bytesOf(a.Value(i))), nil
	case *array.Binary:
		return parquet.ByteArrayValue(a.Value(i)), nil
	case *array.LargeBinary:
		return parquet.ByteArrayValue(a.Value(i)), nil
	}
	return parquet.Value{}, fmt.Errorf("parquet-go: unsupported array %s: %w", a.DataType(), errUnsupported)
}

// shred appends the level-annotated values of slot i of a (shaped sh) to the
// leaf columns: rep and def are the levels of the slot's parent.
func (sh *pqShape) shred(a arrow.Array, i, rep, def int, cols []*pqLeafPlan) error {
	if sh.optional {
		if a.IsNull(i) {
			sh.nulls(rep, def, cols)
			return nil
		}
		def++
	}
	switch sh.kind {
	case 's':
		st := a.(*array.Struct)
		for k, c := range sh.kids {
			if err := c.shred(st.Field(k), i, rep, def, cols); err != nil {
				return err
			}
		}
	case 'L':
		ll := a.(array.ListLike)
		s, e := ll.ValueOffsets(i)
		if s == e {
			sh.nulls(rep, def, cols)
			return nil
		}
		vals := ll.ListValues()
		for j := s; j < e; j++ {
			r := rep
			if j > s {
				r = sh.rep
			}
			// def+1: the repeated group has an entry.
			if err := sh.kids[0].shred(vals, int(j), r, def+1, cols); err != nil {
				return err
			}
		}
	default:
		v, err := pqValueAt(a, i, sh.tsMul)
		if err != nil {
			return err
		}
		c := cols[sh.leaf]
		c.vals = append(c.vals, v.Level(rep, def, c.col))
	}
	return nil
}

// nulls gives every leaf under sh one null at the given levels.
func (sh *pqShape) nulls(rep, def int, cols []*pqLeafPlan) {
	for l := sh.first; l < sh.end; l++ {
		c := cols[l]
		c.vals = append(c.vals, parquet.NullValue().Level(rep, def, c.col))
	}
}

// pqLeaf describes one leaf column of a file for checksums.
type pqLeaf struct {
	name     string
	maxDef   int
	maxRep   int
	empty    uint64 // bit d set: definition level d means an empty list or map
	unsigned bool
	decimal  bool
	perSec   int64 // timestamps: ticks a second
}

// plain tells that the leaf's values hash as their physical values.
func (l *pqLeaf) plain() bool { return !l.unsigned && !l.decimal && l.perSec == 0 }

// pqLeaves describes the leaf columns of a parquet-go schema in column order.
func pqLeaves(sch *parquet.Schema) ([]pqLeaf, error) {
	out := make([]pqLeaf, len(sch.Columns()))
	seen := 0
	var walk func(n parquet.Node, path []string, name string, def, rep int, empty uint64) error
	walk = func(n parquet.Node, path []string, name string, def, rep int, empty uint64) error {
		if n.Optional() {
			def++
		}
		if n.Repeated() {
			def++
			rep++
			empty |= 1 << (def - 1)
		}
		if n.Leaf() {
			lc, ok := sch.Lookup(path...)
			if !ok {
				return fmt.Errorf("parquet-go: no column %v", path)
			}
			l := pqLeaf{name: name, maxDef: def, maxRep: rep, empty: empty}
			if lt := n.Type().LogicalType(); lt != nil {
				switch v := lt.Value.(type) {
				case *format.IntType:
					l.unsigned = !v.IsSigned
				case *format.DecimalType:
					l.decimal = true
				case *format.TimestampType:
					switch v.Unit.Value.(type) {
					case *format.MilliSeconds:
						l.perSec = 1e3
					case *format.MicroSeconds:
						l.perSec = 1e6
					case *format.NanoSeconds:
						l.perSec = 1e9
					}
				}
			}
			out[lc.ColumnIndex] = l
			seen++
			return nil
		}
		sub := func(f parquet.Field, nm string, d, r int, e uint64) error {
			return walk(f, append(path[:len(path):len(path)], f.Name()), nm, d, r, e)
		}
		lt := n.Type().LogicalType()
		switch {
		case lt != nil && (isPQList(lt) || isPQMap(lt)) && len(n.Fields()) == 1:
			g := n.Fields()[0] // the repeated group
			d, r, e := def, rep, empty
			if g.Repeated() {
				d, r = d+1, r+1
				e |= 1 << (d - 1)
			}
			gp := append(path[:len(path):len(path)], g.Name())
			if g.Leaf() {
				return fmt.Errorf("parquet-go: two-level list %v is not produced by the harness", gp)
			}
			for _, f := range g.Fields() {
				nm := name + "[]"
				if isPQMap(lt) {
					nm += "." + f.Name()
				}
				if err := walk(f, append(gp[:len(gp):len(gp)], f.Name()), nm, d, r, e); err != nil {
					return err
				}
			}
			return nil
		default:
			for _, f := range n.Fields() {
				nm := f.Name()
				if name != "" {
					nm = name + "." + f.Name()
				}
				if err := sub(f, nm, def, rep, empty); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := walk(sch, nil, "", 0, 0, 0); err != nil {
		return nil, err
	}
	if seen != len(out) {
		return nil, fmt.Errorf("parquet-go: described %d of %d columns", seen, len(out))
	}
	return out, nil
}

func isPQList(lt *format.LogicalType) bool { _, ok := lt.Value.(*format.ListType); return ok }
func isPQMap(lt *format.LogicalType) bool  { _, ok := lt.Value.(*format.MapType); return ok }

// hashPQValue hashes one non-null value of leaf l.
func hashPQValue(v parquet.Value, l *pqLeaf) uint64 {
	switch {
	case l.decimal:
		switch v.Kind() {
		case parquet.Int32:
			x := int64(v.Int32())
			return hashDecimal(uint64(x), x>>63)
		case parquet.Int64:
			x := v.Int64()
			return hashDecimal(uint64(x), x>>63)
		default: // big-endian two's complement, up to 16 bytes
			b := v.ByteArray()
			var buf [16]byte
			if len(b) > 0 && b[0]&0x80 != 0 {
				for i := range buf {
					buf[i] = 0xff
				}
			}
			copy(buf[16-min(len(b), 16):], b[max(len(b)-16, 0):])
			return hashDecimal(binary.BigEndian.Uint64(buf[8:]), int64(binary.BigEndian.Uint64(buf[:8])))
		}
	case l.perSec > 0 && v.Kind() == parquet.Int64:
		return hashTS(v.Int64(), l.perSec)
	}
	return hashValue(v, l.unsigned)
}
