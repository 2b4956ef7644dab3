package rle_test

import (
	"testing"

	"strata/encoding"
	"strata/encoding/all"
	"strata/encoding/encodingtest"
)

// TestReadBinaryGrowsGeometrically reads an RLE binary node a value at a
// time into one buffer, as a reader appends the values of a stream's
// one-value chunks: the buffer must grow geometrically. Grown by exactly
// the values of each call, it was copied whole every time, quadratic in
// the calls (about 2 GB for these 20,000 values of 8 bytes).
func TestReadBinaryGrowsGeometrically(t *testing.T) {
	const n = 20000
	var vals encoding.Bytes
	for i := range n {
		vals.Append([]byte{'r', 'u', 'n', 's', 'o', 'f', '8', byte('a' + i/1000%26)})
	}
	p := all.Policy()
	p.Zstd = false
	p.Force = encodingtest.T(kRLE, encodingtest.T(kFBW), encodingtest.T(kTriv, encodingtest.T(kFBW)))
	node, _, err := p.Encode(nil, vals)
	if err != nil {
		t.Fatal(err)
	}
	if encoding.Kind(node[0]) != kRLE {
		t.Fatalf("node of kind %v, want RLE", encoding.Kind(node[0]))
	}
	encodingtest.CheckBinaryOneAtATime(t, node, &vals, 16<<20)
}
