package constant_test

import (
	"runtime"
	"testing"

	"strata/encoding"
	"strata/encoding/all"
)

// TestReadBinaryGrowsGeometrically reads a constant binary node a value
// at a time into one buffer, as a reader appends the values of a stream's
// one-value chunks (a file written with ChunkValues 1): the buffer must
// grow geometrically. Grown by exactly the values of each call, it was
// copied whole every time: 20,000 values of 8 bytes allocated about 2 GB,
// where the values and their offsets take 240 kB.
func TestReadBinaryGrowsGeometrically(t *testing.T) {
	const n = 20000
	node, _, err := policy().Encode(nil, bytesOf("eightbyt", n))
	if err != nil {
		t.Fatal(err)
	}
	if encoding.Kind(node[0]) != encoding.KindConstant {
		t.Fatalf("node of kind %v, want Constant", encoding.Kind(node[0]))
	}
	d, err := encoding.Open(node, all.Options())
	if err != nil {
		t.Fatal(err)
	}
	r := d.(encoding.BinaryReader)
	var dst encoding.Bytes
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range n {
		if err := r.ReadBinary(&dst, 1); err != nil {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 16<<20 {
		t.Errorf("%d one-value reads allocated %d bytes, want under 16 MiB", n, got)
	}
	if dst.Len() != n {
		t.Fatalf("%d values read, want %d", dst.Len(), n)
	}
	for i := range n {
		if string(dst.Value(i)) != "eightbyt" {
			t.Fatalf("value %d is %q", i, dst.Value(i))
		}
	}
}
