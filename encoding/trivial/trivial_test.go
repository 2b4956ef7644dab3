package trivial_test

import (
	"errors"
	"math"
	"testing"

	"strata/encoding"
	"strata/encoding/all"
	"strata/encoding/encodingtest"
)

func bytesOf(vs ...string) encoding.Bytes {
	var b encoding.Bytes
	for _, v := range vs {
		b.Append([]byte(v))
	}
	return b
}

// goldenInputs are small fixed inputs per type class. Binary forces its
// lengths child to FixedBitWidth so the bytes do not depend on selection.
func goldenInputs() map[string]any {
	return map[string]any{
		"bool":    []bool{true, false, true, true, false, false, false, false, true, true},
		"int8":    []int8{-128, 0, 127, -1},
		"int32":   []int32{1, -2, 3, math.MaxInt32, math.MinInt32},
		"uint64":  []uint64{0, 1, math.MaxUint64, 1 << 40},
		"float32": []float32{1.5, float32(math.Copysign(0, -1)), float32(math.Inf(1)), math.Float32frombits(0x7fc00001)},
		"float64": []float64{math.Pi, math.Copysign(0, -1), math.NaN(), -1e300},
		"binary":  bytesOf("a", "", "bc", "strata"),
	}
}

func goldenPolicy() *encoding.Policy {
	p := all.Policy()
	p.Zstd = false
	p.Force = &encoding.Tree{Kind: encoding.KindTrivial, Children: []*encoding.Tree{{Kind: encoding.KindFixedBitWidth}}}
	return p
}

func TestGolden(t *testing.T) {
	for name, vals := range goldenInputs() {
		node, _, err := goldenPolicy().Encode(nil, vals)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		encodingtest.Golden(t, "trivial-"+name, node)
		if err := encodingtest.Exercise(node, all.Options()); err != nil {
			t.Fatalf("%s: decode: %v", name, err)
		}
	}
}

func TestHostile(t *testing.T) {
	opts := all.Options()
	// int64 declaring 2^28 rows with a 10-byte body
	node := encoding.AppendHeader(nil, encoding.KindTrivial, encoding.Int64, 1<<28)
	node = append(node, make([]byte, 10)...)
	if _, err := encoding.Open(node, opts); !errors.Is(err, encoding.ErrCorrupt) {
		t.Fatalf("int64 rows=2^28: got %v, want ErrCorrupt", err)
	}
	// bool body one byte short
	node = encoding.AppendHeader(nil, encoding.KindTrivial, encoding.Bool, 17)
	node = append(node, 0, 0)
	if _, err := encoding.Open(node, opts); !errors.Is(err, encoding.ErrCorrupt) {
		t.Fatalf("bool short body: got %v, want ErrCorrupt", err)
	}
	// binary lengths summing past the data
	good, _, err := goldenPolicy().Encode(nil, bytesOf("abc", "de"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := encoding.Open(good[:len(good)-1], opts); !errors.Is(err, encoding.ErrCorrupt) {
		t.Fatalf("binary truncated data: got %v, want ErrCorrupt", err)
	}
	if _, err := encoding.Open(append(good, 'x'), opts); !errors.Is(err, encoding.ErrCorrupt) {
		t.Fatalf("binary extra data: got %v, want ErrCorrupt", err)
	}
	// read past the end
	node, _, _ = goldenPolicy().Encode(nil, []int32{1, 2, 3})
	r, err := encoding.OpenTyped[int32](node, 0, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Skip(4); err == nil {
		t.Fatal("Skip past end: no error")
	}
	if err := r.(encoding.Gatherer[int32]).Gather([]int32{3}, make([]int32, 1)); err == nil {
		t.Fatal("Gather past end: no error")
	}
}

// TestReadBinarySharedThenAppend: a read that shares the decoder's bytes,
// followed by reads that append, keeps every value where its offsets say
// (the shared data once ran past the last value read, and the next value
// then started after the chunk's remaining bytes).
func TestReadBinarySharedThenAppend(t *testing.T) {
	vals := [][]byte{[]byte("alpha"), []byte("be"), []byte("gamma-delta"), []byte(""), []byte("epsilon")}
	var src encoding.Bytes
	for _, v := range vals {
		src.Append(v)
	}
	node, _, err := goldenPolicy().Encode(nil, src)
	if err != nil {
		t.Fatal(err)
	}
	for first := 0; first < len(vals); first++ {
		d, err := encoding.Open(node, all.Options())
		if err != nil {
			t.Fatal(err)
		}
		r := d.(encoding.BinaryReader)
		var dst encoding.Bytes
		if err := d.Skip(first); err != nil {
			t.Fatal(err)
		}
		if err := r.ReadBinary(&dst, 1); err != nil {
			t.Fatal(err)
		}
		d2, _ := encoding.Open(node, all.Options())
		if err := d2.(encoding.BinaryReader).ReadBinary(&dst, 2); err != nil {
			t.Fatal(err)
		}
		want := [][]byte{vals[first], vals[0], vals[1]}
		for i, w := range want {
			if got := dst.Value(i); string(got) != string(w) {
				t.Fatalf("first %d: value %d = %q, want %q", first, i, got, w)
			}
		}
	}
}
