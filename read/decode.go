package read

import (
	"strata/encoding"
)

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
