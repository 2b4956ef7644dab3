package read

import (
	"strata/encoding"
)

// newBuf allocates a buffer for n entries of type t.
func newBuf(t encoding.Type, n int) (any, error) {
	switch t {
	case encoding.Bool:
		return make([]bool, n), nil
	case encoding.Int8:
		return make([]int8, n), nil
	case encoding.Int16:
		return make([]int16, n), nil
	case encoding.Int32:
		return make([]int32, n), nil
	case encoding.Int64:
		return make([]int64, n), nil
	case encoding.Uint8:
		return make([]uint8, n), nil
	case encoding.Uint16:
		return make([]uint16, n), nil
	case encoding.Uint32:
		return make([]uint32, n), nil
	case encoding.Uint64:
		return make([]uint64, n), nil
	case encoding.Float32:
		return make([]float32, n), nil
	case encoding.Float64:
		return make([]float64, n), nil
	case encoding.Binary:
		b := &encoding.Bytes{Offsets: make([]int32, 1, n+1)}
		return b, nil
	}
	return nil, encoding.Unsupportedf("stream type %v", t)
}

// decodeInto decodes all values of node into buf at [at, at+rows), filling
// valid[at:at+rows] when the node may hold nulls. It reports whether the node
// had a validity (Nullable) layer.
func decodeInto(node []byte, opts *encoding.Options, buf any, at, rows int, valid []bool) (bool, error) {
	d, err := encoding.Open(node, opts)
	if err != nil {
		return false, err
	}
	if d.Len() != rows {
		return false, encoding.Corruptf("chunk declares %d rows, node holds %d", rows, d.Len())
	}
	nullable := d.Kind() == encoding.KindNullable
	return nullable, encoding.ReadPart(d, buf, at, rows, valid, nullable)
}
