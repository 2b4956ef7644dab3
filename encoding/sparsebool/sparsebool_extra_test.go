package sparsebool_test

import (
	"testing"

	"strata/encoding"
	"strata/encoding/all"
	"strata/encoding/encodingtest"
	"strata/encoding/sparsebool"
)

const (
	kSB   = encoding.KindSparseBool
	kTriv = encoding.KindTrivial
	kFBW  = encoding.KindFixedBitWidth
)

func TestGolden(t *testing.T) {
	cases := []struct {
		name string
		vals []bool
	}{
		{"sparse-true-fbw", []bool{false, false, true, false, false, false, false, false, false, true}},
		{"sparse-false-fbw", []bool{true, true, true, true, false, true, true, true, true, true, true}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tree := encodingtest.T(kSB, encodingtest.T(kFBW))
			node, got, err := encodingtest.GoldenPolicy(sparsebool.Codec, tree).Encode(nil, c.vals)
			if err != nil {
				t.Fatal(err)
			}
			if got.String() != tree.String() {
				t.Fatalf("tree %v", got)
			}
			encodingtest.Golden(t, c.name, node)
			r, err := encoding.OpenTyped[bool](node, 0, all.Options())
			if err != nil {
				t.Fatal(err)
			}
			encodingtest.CheckReader(t, r, c.vals, 1)
		})
	}
}

func TestSparse(t *testing.T) {
	vals := encodingtest.Gen[bool](encodingtest.ShapeMainlyConstant, 5000, 1)
	node, _, err := encodingtest.GoldenPolicy(sparsebool.Codec, encodingtest.T(kSB)).Encode(nil, vals)
	if err != nil {
		t.Fatal(err)
	}
	r, err := encoding.OpenTyped[bool](node, 0, all.Options())
	if err != nil {
		t.Fatal(err)
	}
	s := r.(sparsebool.Sparse)
	v, at := s.SparseRows()
	for _, p := range at {
		if vals[p] != v {
			t.Fatalf("row %d is %v", p, vals[p])
		}
	}
	for _, span := range []int{0, 1, 700, 4299} {
		want := 0
		for _, b := range vals[r.Pos() : r.Pos()+span] {
			if b {
				want++
			}
		}
		got, err := s.CountTrue(span)
		if err != nil || got != want {
			t.Fatalf("CountTrue(%d) = %d, %v; want %d", span, got, err, want)
		}
	}
	if _, err := s.CountTrue(1); err == nil {
		t.Fatal("CountTrue past the end succeeded")
	}
}

func TestHostile(t *testing.T) {
	pos := func(v ...uint32) []byte { return encodingtest.Child(t, v, encodingtest.T(kTriv)) }
	cases := map[string][]byte{
		"unsorted":   encodingtest.Node(kSB, encoding.Bool, 5, []byte{1}, pos(3, 1)),
		"duplicate":  encodingtest.Node(kSB, encoding.Bool, 5, []byte{1}, pos(1, 1)),
		"beyond":     encodingtest.Node(kSB, encoding.Bool, 5, []byte{1}, pos(5)),
		"bad value":  encodingtest.Node(kSB, encoding.Bool, 5, []byte{2}, pos(1)),
		"empty body": encodingtest.Node(kSB, encoding.Bool, 5),
		"trailing":   encodingtest.Node(kSB, encoding.Bool, 5, []byte{0}, pos(1), []byte{0}),
		"too many":   encodingtest.Node(kSB, encoding.Bool, 1, []byte{0}, pos(0, 1)),
		"int type":   encodingtest.Node(kSB, encoding.Int32, 5, []byte{0}, pos(1)),
	}
	for name, node := range cases {
		encodingtest.WantCorrupt(t, name, node)
	}
}

func BenchmarkRead(b *testing.B) {
	const n = 1 << 16
	vals := encodingtest.Gen[bool](encodingtest.ShapeMainlyConstant, n, 1)
	r := encodingtest.OpenForced(b, kSB, vals)
	encodingtest.BenchRead(b, "read", r, vals)
}
