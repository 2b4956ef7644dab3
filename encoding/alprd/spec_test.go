package alprd_test

import (
	"testing"

	"strata/encoding"
	"strata/encoding/all"
	"strata/encoding/encodingtest"
)

// TestSpecExample checks the worked example of docs/FORMAT.md.
func TestSpecExample(t *testing.T) {
	p := all.Policy()
	p.Zstd = false
	p.Force = &encoding.Tree{Kind: encoding.KindALPRD}
	vals := []float32{0.1, 0.2, 0.3, 0.1, 5}
	node, _, err := p.Encode(nil, vals)
	if err != nil {
		t.Fatal(err)
	}
	want := []byte{0x0e, 0x0a, 0x00, 0x05, 0x01, 0xcd, 0xcc, 0xcc, 0x3d, 0x00, 0x00, 0xa0, 0x40, 0x10, 0x04, 0xcc, 0x3d, 0x4c, 0x3e, 0x99, 0x3e, 0xa0, 0x40, 0x24, 0x03, 0xcd, 0xcc, 0xcd, 0xcc, 0x9a, 0x99, 0xcd, 0xcc, 0x00, 0x00, 0x00}
	if string(node) != string(want) {
		t.Fatalf("node % x, want % x", node, want)
	}
	encodingtest.RoundTrip(t, p, all.Options(), vals)
}
