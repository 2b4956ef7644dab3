package node_test

import (
	"errors"
	"testing"

	"strata/encoding"
	"strata/encoding/all"
	"strata/specreader/node"
)

// TestHeader parses nodes the Go writer made: kind, type and rows as
// written, a zstd body inflated, and truncated prefixes refused.
func TestHeader(t *testing.T) {
	vals := make([]int64, 5000)
	for i := range vals {
		vals[i] = int64(i % 7)
	}
	p := all.Policy()
	n, _, err := p.EncodeWith(nil, vals, encoding.KindTrivial)
	if err != nil {
		t.Fatal(err)
	}
	h, err := node.ParseHeader(n)
	if err != nil {
		t.Fatal(err)
	}
	if h.Kind != uint8(encoding.KindTrivial) || h.Type != node.Int64 || h.Rows != len(vals) || len(h.Body) != 8*len(vals) {
		t.Fatalf("header %d %v %d rows, body %d bytes (flags %#x)", h.Kind, h.Type, h.Rows, len(h.Body), h.Flags)
	}
	for cut := 0; cut < 4; cut++ {
		if _, err := node.ParseHeader(n[:cut]); !errors.Is(err, node.ErrCorrupt) {
			t.Errorf("prefix of %d bytes: %v, want corrupt", cut, err)
		}
	}
}
