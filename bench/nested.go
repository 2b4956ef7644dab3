package main

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// Checksums of nested columns (structs, lists, maps) are kept per leaf, so that
// a reader of Arrow arrays, one of Parquet pages (repetition and definition
// levels) and one of DuckDB vectors can all compute them:
//
//   - leaf names: a struct field is parent.field, a list's element parent[],
//     a map's key and value parent[].key and parent[].value;
//   - each leaf gets one term per leaf slot in Parquet's sense: a value, or
//     nullHash where the value or any ancestor is null, or emptyHash where the
//     nearest list or map ancestor is present but empty;
//   - a value under a list is mixed with its position in the innermost list,
//     so that elements moved between positions change the sum.
//
// Flat columns keep their plain per-value hashes (check.go).

// emptyHash is the term of a leaf whose nearest list ancestor is empty.
const emptyHash = 0x3c6ef372fe94f82b

// mixPos mixes a value hash with its position in the innermost list.
func mixPos(h uint64, pos int64) uint64 {
	return hashInt(int64(h ^ uint64(pos+1)*0x9e3779b97f4a7c15))
}

// hashDecimal hashes a decimal's unscaled value given as 128-bit two's
// complement (low 64 bits, high 64 bits); narrower storage is sign-extended
// by the caller, so every width of the same value hashes the same.
func hashDecimal(lo uint64, hi int64) uint64 { return hashInt(int64(lo)) + 31*hashInt(hi) }

// hashTS hashes a timestamp of perSec ticks a second as the instant it
// denotes (whole seconds and nanoseconds), so that one stored in seconds and
// read back in microseconds (as DuckDB's Parquet reader does) hashes alike.
func hashTS(v, perSec int64) uint64 {
	sec := v / perSec
	if v%perSec < 0 {
		sec--
	}
	nanos := (v - sec*perSec) * (1e9 / perSec)
	return 31*hashInt(sec) + hashInt(nanos) ^ 0x7f4a7c15
}

// arrowPerSec is the number of ticks a second of an Arrow time unit.
func arrowPerSec(u arrow.TimeUnit) int64 {
	return [...]int64{1, 1e3, 1e6, 1e9}[u]
}

// isNested tells whether t is checksummed per leaf.
func isNested(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.STRUCT, arrow.LIST, arrow.LARGE_LIST, arrow.MAP:
		return true
	}
	return false
}

// anode is the shape of an Arrow column for nested checksums.
type anode struct {
	kind       byte // 'l' leaf, 's' struct, 'L' list or map
	leaf       int  // leaf index (leaves)
	kids       []*anode
	first, end int // leaf indices under this node
}

// buildANode returns the shape of type t named name and appends its leaf
// names to names.
func buildANode(t arrow.DataType, name string, names *[]string) (*anode, error) {
	n := &anode{first: len(*names)}
	switch t := t.(type) {
	case *arrow.StructType:
		n.kind = 's'
		for _, f := range t.Fields() {
			k, err := buildANode(f.Type, name+"."+f.Name, names)
			if err != nil {
				return nil, err
			}
			n.kids = append(n.kids, k)
		}
	case *arrow.MapType:
		n.kind = 'L'
		k, err := buildANode(t.Elem(), name+"[]", names)
		if err != nil {
			return nil, err
		}
		n.kids = []*anode{k}
	case arrow.ListLikeType:
		if t.ID() == arrow.FIXED_SIZE_LIST {
			return nil, fmt.Errorf("fixed-size lists are not implemented in the harness: %w", errUnsupported)
		}
		n.kind = 'L'
		k, err := buildANode(t.Elem(), name+"[]", names)
		if err != nil {
			return nil, err
		}
		n.kids = []*anode{k}
	default:
		n.kind = 'l'
		n.leaf = len(*names)
		*names = append(*names, name)
	}
	n.end = len(*names)
	return n, nil
}

// walk adds the terms of slot i of a (shaped n) to acc.
func (n *anode) walk(a arrow.Array, i int, pos int64, inList bool, acc []uint64) error {
	if a.IsNull(i) {
		for l := n.first; l < n.end; l++ {
			acc[l] += nullHash
		}
		return nil
	}
	switch n.kind {
	case 's':
		st := a.(*array.Struct)
		for k, c := range n.kids {
			if err := c.walk(st.Field(k), i, pos, inList, acc); err != nil {
				return err
			}
		}
	case 'L':
		ll := a.(array.ListLike)
		s, e := ll.ValueOffsets(i)
		if s == e {
			for l := n.first; l < n.end; l++ {
				acc[l] += emptyHash
			}
			return nil
		}
		vals := ll.ListValues()
		for j := s; j < e; j++ {
			if err := n.kids[0].walk(vals, int(j), j-s, true, acc); err != nil {
				return err
			}
		}
	default:
		h, err := hashAt(a, i)
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

// addNested folds a nested column named name into c.Cols, one entry per leaf.
func (c *Checksum) addNested(a arrow.Array, name string, sel []bool) error {
	var names []string
	n, err := buildANode(a.DataType(), name, &names)
	if err != nil {
		return err
	}
	acc := make([]uint64, len(names))
	for i := 0; i < a.Len(); i++ {
		if sel != nil && !sel[i] {
			continue
		}
		if err := n.walk(a, i, 0, false, acc); err != nil {
			return err
		}
	}
	for l, nm := range names {
		c.Cols[nm] += acc[l]
	}
	return nil
}

// hashAt hashes the (valid) value at i of a flat Arrow array.
func hashAt(a arrow.Array, i int) (uint64, error) {
	switch a := a.(type) {
	case *array.Boolean:
		return hashInt(b2i(a.Value(i))), nil
	case *array.Int8:
		return hashInt(int64(a.Value(i))), nil
	case *array.Int16:
		return hashInt(int64(a.Value(i))), nil
	case *array.Int32:
		return hashInt(int64(a.Value(i))), nil
	case *array.Int64:
		return hashInt(a.Value(i)), nil
	case *array.Uint8:
		return hashInt(int64(a.Value(i))), nil
	case *array.Uint16:
		return hashInt(int64(a.Value(i))), nil
	case *array.Uint32:
		return hashInt(int64(a.Value(i))), nil
	case *array.Uint64:
		return hashInt(int64(a.Value(i))), nil
	case *array.Float32:
		return hashFloat(float64(a.Value(i))), nil
	case *array.Float64:
		return hashFloat(a.Value(i)), nil
	case *array.Date32:
		return hashInt(int64(a.Value(i))), nil
	case *array.Timestamp:
		return hashTS(int64(a.Value(i)), arrowPerSec(a.DataType().(*arrow.TimestampType).Unit)), nil
	case *array.Decimal128:
		v := a.Value(i)
		return hashDecimal(v.LowBits(), v.HighBits()), nil
	case *array.String:
		return hashBytes([]byte(a.Value(i))), nil
	case *array.LargeString:
		return hashBytes([]byte(a.Value(i))), nil
	case *array.Binary:
		return hashBytes(a.Value(i)), nil
	case *array.LargeBinary:
		return hashBytes(a.Value(i)), nil
	}
	return 0, fmt.Errorf("unsupported Arrow type %s: %w", a.DataType(), errUnsupported)
}
