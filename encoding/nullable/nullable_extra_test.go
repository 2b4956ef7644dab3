package nullable_test

import (
	"errors"
	"testing"

	"strata/encoding"
	"strata/encoding/all"
	"strata/encoding/encodingtest"
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
		tree := encodingtest.T(kNull, encodingtest.T(kTriv), encodingtest.T(kTriv))
		node, got, err := nullable.Encode(encodingtest.GoldenPolicy(nil, tree), nil, []int32{1000, 1003, 1000, 1003}, []bool{true, false, true, true, true})
		if err != nil {
			t.Fatal(err)
		}
		if got.String() != tree.String() {
			t.Fatalf("tree %v", got)
		}
		encodingtest.Golden(t, "int32-trivial-trivial", node)
		encodingtest.CheckNode(t, node, opts, []int32{1000, 1003, 1000, 1003}, []bool{true, false, true, true, true})
	})
	t.Run("binary-sparsebool-trivial", func(t *testing.T) {
		tree := encodingtest.T(kNull, encodingtest.T(kSB, encodingtest.T(kFBW)), encodingtest.T(kTriv, encodingtest.T(kFBW)))
		var vals encoding.Bytes
		valid := make([]bool, 12)
		for i := range valid {
			valid[i] = i != 5
			if valid[i] {
				vals.Append([]byte("xyz"[:i%4]))
			}
		}
		node, got, err := nullable.Encode(encodingtest.GoldenPolicy(nil, tree), nil, vals, valid)
		if err != nil {
			t.Fatal(err)
		}
		if got.String() != tree.String() {
			t.Fatalf("tree %v", got)
		}
		encodingtest.Golden(t, "binary-sparsebool-trivial", node)
		encodingtest.CheckNode(t, node, opts, vals, valid)
	})
}

func TestHostile(t *testing.T) {
	valid := func(v ...bool) []byte { return encodingtest.Child(t, v, encodingtest.T(kTriv)) }
	vals := func(v ...int32) []byte { return encodingtest.Child(t, v, encodingtest.T(kTriv)) }
	cases := map[string][]byte{
		"too few values": encodingtest.Node(kNull, encoding.Int32, 3, valid(true, true, true), vals(1, 2)),
		"validity rows":  encodingtest.Node(kNull, encoding.Int32, 3, valid(true, true), vals(1, 2)),
		"more values":    encodingtest.Node(kNull, encoding.Int32, 1, valid(true), vals(1, 2)),
		"trailing":       encodingtest.Node(kNull, encoding.Int32, 1, valid(true), vals(1), []byte{0}),
		"type mismatch":  encodingtest.Node(kNull, encoding.Int64, 1, valid(true), vals(1)),
		"validity type":  encodingtest.Node(kNull, encoding.Int32, 1, vals(1), vals(1)),
		"missing values": encodingtest.Node(kNull, encoding.Int32, 1, valid(true)),
	}
	for name, node := range cases {
		encodingtest.WantCorrupt(t, name, node)
	}
	// Fewer present rows than values: Gather's rank check catches it, and
	// so do a sequential read and a skip once the validity is exhausted
	// (the values child holds exactly the present rows).
	node := encodingtest.Node(kNull, encoding.Int32, 2, valid(true, false), vals(1, 2))
	encodingtest.WantCorrupt(t, "fewer present rows", node)
	open := func() encoding.Reader[int32] {
		r, err := encoding.OpenTyped[int32](node, 0, all.Options())
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	if err := open().(encoding.Gatherer[int32]).Gather([]int32{0}, make([]int32, 1)); !errors.Is(err, encoding.ErrCorrupt) {
		t.Fatalf("Gather: %v, want corrupt", err)
	}
	if err := encoding.ReadNullable(open(), make([]int32, 2), make([]bool, 2)); !errors.Is(err, encoding.ErrCorrupt) {
		t.Fatalf("ReadNullable: %v, want corrupt", err)
	}
	if err := open().Read(make([]int32, 2)); !errors.Is(err, encoding.ErrCorrupt) {
		t.Fatalf("Read: %v, want corrupt", err)
	}
	if err := open().Skip(2); !errors.Is(err, encoding.ErrCorrupt) {
		t.Fatalf("Skip: %v, want corrupt", err)
	}
}

func BenchmarkRead(b *testing.B) {
	const n = 1 << 16
	valid := encodingtest.Validity(encodingtest.RandomNulls, n, 1)
	vals := encodingtest.Gen[int64](encodingtest.ShapeRandom, n, 1)[:countValid(valid)]
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

func TestEncodeErrors(t *testing.T) {
	p := all.Policy()
	if _, _, err := nullable.Encode(p, nil, []int32{1, 2}, []bool{true, false}); err == nil {
		t.Fatal("count mismatch accepted")
	}
	if _, _, err := nullable.Encode(p, nil, []string{"x"}, []bool{true}); err == nil {
		t.Fatal("bad type accepted")
	}
}

func countValid(valid []bool) int {
	n := 0
	for _, v := range valid {
		if v {
			n++
		}
	}
	return n
}
