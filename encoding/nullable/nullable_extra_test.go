package nullable_test

import (
	"testing"

	"strata/encoding"
	"strata/encoding/all"
	"strata/encoding/encodingtest"
	. "strata/encoding/internal/cascade/cascadetest"
	"strata/encoding/nullable"
)

const (
	kNull = encoding.KindNullable
	kTriv = encoding.KindTrivial
	kFBW  = encoding.KindFixedBitWidth
	kSB   = encoding.KindSparseBool
)

func TestGolden(t *testing.T) {
	opts := all.Options()
	t.Run("int32-trivial-trivial", func(t *testing.T) {
		tree := T(kNull, T(kTriv), T(kTriv))
		node, got, err := nullable.Encode(GoldenPolicy(nil, tree), nil, []int32{1000, 1003, 1000, 1003}, []bool{true, false, true, true, true})
		if err != nil {
			t.Fatal(err)
		}
		if got.String() != tree.String() {
			t.Fatalf("tree %v", got)
		}
		encodingtest.Golden(t, "int32-trivial-trivial", node)
		r, err := encoding.OpenTyped[int32](node, 0, opts)
		if err != nil {
			t.Fatal(err)
		}
		encodingtest.CheckReader(t, r, []int32{1000, 0, 1003, 1000, 1003}, 1)
	})
	t.Run("binary-sparsebool-trivial", func(t *testing.T) {
		tree := T(kNull, T(kSB, T(kFBW)), T(kTriv, T(kFBW)))
		var vals encoding.Bytes
		valid := make([]bool, 12)
		for i := range valid {
			valid[i] = i != 5
			if valid[i] {
				vals.Append([]byte("xyz"[:i%4]))
			}
		}
		node, got, err := nullable.Encode(GoldenPolicy(nil, tree), nil, vals, valid)
		if err != nil {
			t.Fatal(err)
		}
		if got.String() != tree.String() {
			t.Fatalf("tree %v", got)
		}
		encodingtest.Golden(t, "binary-sparsebool-trivial", node)
	})
}

func TestHostile(t *testing.T) {
	valid := func(v ...bool) []byte { return Child(t, v, T(kTriv)) }
	vals := func(v ...int32) []byte { return Child(t, v, T(kTriv)) }
	cases := map[string][]byte{
		"too few values": Node(kNull, encoding.Int32, 3, valid(true, true, true), vals(1, 2)),
		"validity rows":  Node(kNull, encoding.Int32, 3, valid(true, true), vals(1, 2)),
		"more values":    Node(kNull, encoding.Int32, 1, valid(true), vals(1, 2)),
		"trailing":       Node(kNull, encoding.Int32, 1, valid(true), vals(1), []byte{0}),
		"type mismatch":  Node(kNull, encoding.Int64, 1, valid(true), vals(1)),
		"validity type":  Node(kNull, encoding.Int32, 1, vals(1), vals(1)),
		"missing values": Node(kNull, encoding.Int32, 1, valid(true)),
	}
	for name, node := range cases {
		WantCorrupt(t, name, node)
	}
	// Fewer present rows than values is caught by Gather's rank check.
	node := Node(kNull, encoding.Int32, 2, valid(true, false), vals(1, 2))
	r, err := encoding.OpenTyped[int32](node, 0, all.Options())
	if err != nil {
		t.Fatal(err)
	}
	if err := r.(encoding.Gatherer[int32]).Gather([]int32{0}, make([]int32, 1)); err == nil {
		t.Fatal("Gather accepted a values child longer than the present rows")
	}
}

func FuzzDecode(f *testing.F) {
	p := all.Policy()
	for _, pat := range patterns {
		valid := validity(pat, 300, 1)
		c := count(valid)
		for _, vals := range []any{
			encodingtest.Gen[int32](encodingtest.ShapeLowCard, c, 1),
			encodingtest.Gen[float64](encodingtest.ShapeExtremes, c, 2),
			encodingtest.GenBytes(encodingtest.ShapeRandom, c, 3),
		} {
			node, _, err := nullable.Encode(p, nil, vals, valid)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(node)
		}
	}
	opts := FuzzOptions(all.Registry())
	f.Fuzz(func(t *testing.T, node []byte) {
		_ = Exercise(node, opts)
		if d, err := encoding.Open(node, opts); err == nil && d.Len() <= 1<<16 {
			n := d.Len()
			switch r := d.(type) {
			case encoding.NullableReader[int32]:
				_ = r.ReadNullable(make([]int32, n), make([]bool, n))
			case encoding.NullableBinaryReader:
				var b encoding.Bytes
				_ = r.ReadBinaryNullable(&b, make([]bool, n), n)
			}
		}
	})
}

func BenchmarkRead(b *testing.B) {
	const n = 1 << 16
	valid := validity("random", n, 1)
	vals := encodingtest.Gen[int64](encodingtest.ShapeRandom, count(valid), 1)
	node, tree, err := nullable.Encode(all.Policy(), nil, vals, valid)
	if err != nil {
		b.Fatal(err)
	}
	r, err := encoding.OpenTyped[int64](node, 0, all.Options())
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("tree %v, %d bytes", tree, len(node))
	dst := make([]int64, n)
	vdst := make([]bool, n)
	b.Run("read-nullable", func(b *testing.B) {
		b.SetBytes(9 * n)
		for b.Loop() {
			r.Reset()
			if err := encoding.ReadNullable(r, dst, vdst); err != nil {
				b.Fatal(err)
			}
		}
	})
	want := make([]int64, n)
	b.Run("memcpy", func(b *testing.B) {
		b.SetBytes(9 * n)
		for b.Loop() {
			copy(dst, want)
			copy(vdst, valid)
		}
	})
}
