package chimp_test

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
	p.Force = &encoding.Tree{Kind: encoding.KindChimp}
	vals := []float32{1, 1.5, 1.5, 1.75, 1}
	node, _, err := p.Encode(nil, vals)
	if err != nil {
		t.Fatal(err)
	}
	want := []byte{0x14, 0x0a, 0x00, 0x05, 0x01, 0x00, 0x00, 0x80, 0x3f, 0x00, 0x00, 0xe0, 0x3f, 0x80, 0x08, 0x0d, 0x00, 0x00, 0x80, 0x3f, 0x01, 0x22, 0x44, 0x20, 0x41, 0x86, 0x34, 0xc8, 0x30}
	if string(node) != string(want) {
		t.Fatalf("node % x, want % x", node, want)
	}
	encodingtest.RoundTrip(t, p, all.Options(), vals)
}
