package constant_test

import (
	"testing"

	"strata/encoding"
	"strata/encoding/encodingtest"
)

// TestReadBinaryGrowsGeometrically reads a constant binary node a value
// at a time into one buffer, as a reader appends the values of a stream's
// one-value chunks (a file written with ChunkValues 1): the buffer must
// grow geometrically. Grown by exactly the values of each call, it was
// copied whole every time: 20,000 values of 8 bytes allocated about 2 GB,
// where the values and their offsets take 240 kB.
func TestReadBinaryGrowsGeometrically(t *testing.T) {
	const n = 20000
	want := bytesOf("eightbyt", n)
	node, _, err := policy().Encode(nil, want)
	if err != nil {
		t.Fatal(err)
	}
	if encoding.Kind(node[0]) != encoding.KindConstant {
		t.Fatalf("node of kind %v, want Constant", encoding.Kind(node[0]))
	}
	encodingtest.CheckBinaryOneAtATime(t, node, &want, 16<<20)
}
