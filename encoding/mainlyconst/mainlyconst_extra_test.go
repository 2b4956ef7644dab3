package mainlyconst_test

import (
	"bytes"
	"math"
	"testing"

	"strata/encoding"
	"strata/encoding/all"
	"strata/encoding/encodingtest"
	"strata/encoding/mainlyconst"
)

const (
	kMC   = encoding.KindMainlyConstant
	kTriv = encoding.KindTrivial
	kFBW  = encoding.KindFixedBitWidth
)

func bytesOf(vs ...string) encoding.Bytes {
	var b encoding.Bytes
	for _, v := range vs {
		b.Append([]byte(v))
	}
	return b
}

func TestGolden(t *testing.T) {
	cases := []struct {
		name string
		vals any
		tree *encoding.Tree
	}{
		{"int32-fbw-trivial", []int32{9, 9, 9, -4, 9, 9, 9, 9, 100, 9}, encodingtest.T(kMC, encodingtest.T(kFBW), encodingtest.T(kTriv))},
		{"float64-fbw-trivial", []float64{0.5, 0.5, math.Copysign(0, -1), 0.5, 0.5, 0.5}, encodingtest.T(kMC, encodingtest.T(kFBW), encodingtest.T(kTriv))},
		{"binary-fbw-trivial", bytesOf("ok", "ok", "ok", "fail", "ok", ""), encodingtest.T(kMC, encodingtest.T(kFBW), encodingtest.T(kTriv, encodingtest.T(kFBW)))},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			node, tree, err := encodingtest.GoldenPolicy(mainlyconst.Codec, c.tree).Encode(nil, c.vals)
			if err != nil {
				t.Fatal(err)
			}
			if tree.String() != c.tree.String() {
				t.Fatalf("tree %v, want %v", tree, c.tree)
			}
			encodingtest.Golden(t, c.name, node)
			encodingtest.CheckNode(t, node, all.Options(), c.vals, nil)
		})
	}
}

func TestExceptions(t *testing.T) {
	vals := []int64{3, 3, 8, 3, 3, 3, -1, 3}
	node, _, err := encodingtest.GoldenPolicy(mainlyconst.Codec, encodingtest.T(kMC)).Encode(nil, vals)
	if err != nil {
		t.Fatal(err)
	}
	r, err := encoding.OpenTyped[int64](node, 0, all.Options())
	if err != nil {
		t.Fatal(err)
	}
	e := r.(mainlyconst.Exceptions[int64])
	at, ex := e.Exceptions()
	if e.Common() != 3 || len(at) != 2 || at[0] != 2 || at[1] != 6 || ex[0] != 8 || ex[1] != -1 {
		t.Fatalf("common %d, exceptions %v %v", e.Common(), at, ex)
	}
	bv := bytesOf("a", "a", "b")
	node, _, err = encodingtest.GoldenPolicy(mainlyconst.Codec, encodingtest.T(kMC)).Encode(nil, bv)
	if err != nil {
		t.Fatal(err)
	}
	br, err := encoding.OpenBinary(node, 0, all.Options())
	if err != nil {
		t.Fatal(err)
	}
	be := br.(mainlyconst.BinaryExceptions)
	bat, bex := be.BinaryExceptions()
	if !bytes.Equal(be.BinaryCommon(), []byte("a")) || len(bat) != 1 || bat[0] != 2 || !bytes.Equal(bex.Value(0), []byte("b")) {
		t.Fatalf("binary exceptions %q %v", be.BinaryCommon(), bat)
	}
}

func TestHostile(t *testing.T) {
	pos := func(v ...uint32) []byte { return encodingtest.Child(t, v, encodingtest.T(kTriv)) }
	vals := func(v ...int32) []byte { return encodingtest.Child(t, v, encodingtest.T(kTriv)) }
	common := []byte{1, 0, 0, 0}
	cases := map[string][]byte{
		"unsorted positions": encodingtest.Node(kMC, encoding.Int32, 5, common, pos(3, 1), vals(1, 2)),
		"equal positions":    encodingtest.Node(kMC, encoding.Int32, 5, common, pos(1, 1), vals(1, 2)),
		"position beyond":    encodingtest.Node(kMC, encoding.Int32, 5, common, pos(1, 5), vals(1, 2)),
		"values count":       encodingtest.Node(kMC, encoding.Int32, 5, common, pos(1, 2), vals(1)),
		"short common":       encodingtest.Node(kMC, encoding.Int32, 5, []byte{1, 0}),
		"binary common len":  encodingtest.Node(kMC, encoding.Binary, 5, []byte{9, 'a'}),
		"trailing":           encodingtest.Node(kMC, encoding.Int32, 5, common, pos(1), vals(1), []byte{0}),
		"more exceptions":    encodingtest.Node(kMC, encoding.Int32, 1, common, pos(0, 1), vals(1, 2)),
		"bool common":        encodingtest.Node(kMC, encoding.Bool, 3, []byte{2}, pos(), encodingtest.Child(t, []bool{}, encodingtest.T(kTriv))),
	}
	for name, node := range cases {
		encodingtest.WantCorrupt(t, name, node)
	}
}

func BenchmarkRead(b *testing.B) {
	const n = 1 << 16
	vals := encodingtest.Gen[int64](encodingtest.ShapeMainlyConstant, n, 1)
	r := encodingtest.OpenForced(b, kMC, vals)
	encodingtest.BenchRead(b, "read", r, vals)
	encodingtest.BenchFilter(b, "filter-ne-common", r, &encoding.Pred[int64]{Op: encoding.OpNe, A: vals[0]})
}
