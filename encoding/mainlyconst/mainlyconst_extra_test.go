package mainlyconst_test

import (
	"bytes"
	"math"
	"testing"

	"strata/encoding"
	"strata/encoding/all"
	"strata/encoding/encodingtest"
	. "strata/encoding/internal/cascade/cascadetest"
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
		{"int32-fbw-trivial", []int32{9, 9, 9, -4, 9, 9, 9, 9, 100, 9}, T(kMC, T(kFBW), T(kTriv))},
		{"float64-fbw-trivial", []float64{0.5, 0.5, math.Copysign(0, -1), 0.5, 0.5, 0.5}, T(kMC, T(kFBW), T(kTriv))},
		{"binary-fbw-trivial", bytesOf("ok", "ok", "ok", "fail", "ok", ""), T(kMC, T(kFBW), T(kTriv, T(kFBW)))},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			node, tree, err := GoldenPolicy(mainlyconst.Codec, c.tree).Encode(nil, c.vals)
			if err != nil {
				t.Fatal(err)
			}
			if tree.String() != c.tree.String() {
				t.Fatalf("tree %v, want %v", tree, c.tree)
			}
			encodingtest.Golden(t, c.name, node)
			switch v := c.vals.(type) {
			case encoding.Bytes:
				r, err := encoding.OpenBinary(node, 0, all.Options())
				if err != nil {
					t.Fatal(err)
				}
				encodingtest.CheckBinaryReader(t, r, v, 1)
			case []int32:
				checkTyped(t, node, v)
			case []float64:
				checkTyped(t, node, v)
			}
		})
	}
}

func checkTyped[T encoding.Fixed](t *testing.T, node []byte, want []T) {
	r, err := encoding.OpenTyped[T](node, 0, all.Options())
	if err != nil {
		t.Fatal(err)
	}
	encodingtest.CheckReader(t, r, want, 1)
	encodingtest.CheckCapabilities(t, r, want, 1)
}

func TestExceptions(t *testing.T) {
	vals := []int64{3, 3, 8, 3, 3, 3, -1, 3}
	node, _, err := GoldenPolicy(mainlyconst.Codec, T(kMC)).Encode(nil, vals)
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
	node, _, err = GoldenPolicy(mainlyconst.Codec, T(kMC)).Encode(nil, bv)
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
	pos := func(v ...uint32) []byte { return Child(t, v, T(kTriv)) }
	vals := func(v ...int32) []byte { return Child(t, v, T(kTriv)) }
	common := []byte{1, 0, 0, 0}
	cases := map[string][]byte{
		"unsorted positions": Node(kMC, encoding.Int32, 5, common, pos(3, 1), vals(1, 2)),
		"equal positions":    Node(kMC, encoding.Int32, 5, common, pos(1, 1), vals(1, 2)),
		"position beyond":    Node(kMC, encoding.Int32, 5, common, pos(1, 5), vals(1, 2)),
		"values count":       Node(kMC, encoding.Int32, 5, common, pos(1, 2), vals(1)),
		"short common":       Node(kMC, encoding.Int32, 5, []byte{1, 0}),
		"binary common len":  Node(kMC, encoding.Binary, 5, []byte{9, 'a'}),
		"trailing":           Node(kMC, encoding.Int32, 5, common, pos(1), vals(1), []byte{0}),
		"more exceptions":    Node(kMC, encoding.Int32, 1, common, pos(0, 1), vals(1, 2)),
		"bool common":        Node(kMC, encoding.Bool, 3, []byte{2}, pos(), Child(t, []bool{}, T(kTriv))),
	}
	for name, node := range cases {
		WantCorrupt(t, name, node)
	}
}

func FuzzDecode(f *testing.F) {
	p := all.Policy()
	p.Force = T(kMC)
	for _, s := range Seeds(p,
		encodingtest.Gen[int32](encodingtest.ShapeMainlyConstant, 500, 1),
		encodingtest.Gen[float64](encodingtest.ShapeMainlyConstant, 300, 2),
		encodingtest.Gen[uint8](encodingtest.ShapeMainlyConstant, 100, 4),
		encodingtest.GenBytes(encodingtest.ShapeMainlyConstant, 200, 5),
	) {
		f.Add(s)
	}
	opts := FuzzOptions(all.Registry())
	f.Fuzz(func(t *testing.T, node []byte) {
		_ = Exercise(node, opts)
	})
}

func BenchmarkRead(b *testing.B) {
	const n = 1 << 16
	vals := encodingtest.Gen[int64](encodingtest.ShapeMainlyConstant, n, 1)
	p := all.Policy()
	p.Force = T(kMC)
	node, tree, err := p.Encode(nil, vals)
	if err != nil {
		b.Fatal(err)
	}
	r, err := encoding.OpenTyped[int64](node, 0, all.Options())
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("tree %v, %d bytes", tree, len(node))
	dst := make([]int64, n)
	b.Run("read", func(b *testing.B) {
		b.SetBytes(8 * n)
		for b.Loop() {
			r.Reset()
			if err := r.Read(dst); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("memcpy", func(b *testing.B) {
		b.SetBytes(8 * n)
		for b.Loop() {
			copy(dst, vals)
		}
	})
	b.Run("filter-ne-common", func(b *testing.B) {
		b.SetBytes(8 * n)
		sel := encoding.NewBitmap(n, true)
		pr := &encoding.Pred[int64]{Op: encoding.OpNe, A: vals[0]}
		f := r.(encoding.Filterer[int64])
		for b.Loop() {
			r.Reset()
			sel.SetAll(n)
			if err := f.Filter(pr, n, sel); err != nil {
				b.Fatal(err)
			}
		}
	})
}
