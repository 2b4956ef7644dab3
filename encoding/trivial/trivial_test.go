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

// TestEqualLengthBinary: values of one length (a Constant lengths child)
// are addressed without offsets until a read needs them; every read path of
// a fresh decoder returns the values, and lengths that disagree with the
// data are refused at open.
func TestEqualLengthBinary(t *testing.T) {
	p := all.Policy()
	p.Zstd = false
	p.Force = &encoding.Tree{Kind: encoding.KindTrivial, Children: []*encoding.Tree{{Kind: encoding.KindConstant}}}
	for _, width := range []int{0, 1, 3} {
		var src encoding.Bytes
		var want []string
		for i := range 1000 {
			v := string("ANRX"[i*7%4:][:min(width, 1)]) + string(make([]byte, max(width-1, 0)))
			if width > 1 {
				v = string(rune('a'+i%26)) + string(rune('a'+i/26%26)) + string(rune('0'+i%10))
			}
			src.Append([]byte(v))
			want = append(want, v)
		}
		node, tree, err := p.Encode(nil, src)
		if err != nil {
			t.Fatal(err)
		}
		if tree.Children[0].Kind != encoding.KindConstant {
			t.Fatalf("width %d: lengths %v, want Constant", width, tree.Children[0].Kind)
		}
		open := func() encoding.Decoder {
			d, err := encoding.Open(node, all.Options())
			if err != nil {
				t.Fatalf("width %d: %v", width, err)
			}
			return d
		}
		// Gather on a fresh decoder (no offsets built).
		rows := []int32{0, 1, 17, 500, 998, 999}
		var got encoding.Bytes
		if err := open().(encoding.BinaryGatherer).GatherBinary(rows, &got); err != nil {
			t.Fatal(err)
		}
		for i, r := range rows {
			if string(got.Value(i)) != want[r] {
				t.Fatalf("width %d: gather row %d = %q, want %q", width, r, got.Value(i), want[r])
			}
		}
		if err := open().(encoding.BinaryGatherer).GatherBinary([]int32{1000}, &got); !errors.Is(err, encoding.ErrCorrupt) {
			t.Fatalf("width %d: gather past the end: %v", width, err)
		}
		// Reads in pieces after a skip, then a gather on the same decoder.
		d := open()
		if err := d.Skip(10); err != nil {
			t.Fatal(err)
		}
		var all2 encoding.Bytes
		for _, n := range []int{1, 300, 689} {
			if err := d.(encoding.BinaryReader).ReadBinary(&all2, n); err != nil {
				t.Fatal(err)
			}
		}
		for i := range 990 {
			if string(all2.Value(i)) != want[10+i] {
				t.Fatalf("width %d: read row %d = %q, want %q", width, 10+i, all2.Value(i), want[10+i])
			}
		}
		// Filter on a fresh decoder.
		pred := &encoding.BytesPred{Op: encoding.OpEq, A: []byte(want[3])}
		sel := encoding.NewBitmap(1000, true)
		if err := open().(encoding.BinaryFilterer).FilterBinary(pred, 1000, sel); err != nil {
			t.Fatal(err)
		}
		for i, v := range want {
			if sel.Get(i) != (v == want[3]) {
				t.Fatalf("width %d: filter row %d (%q) = %v", width, i, v, sel.Get(i))
			}
		}
	}
	// Lengths promising more or fewer bytes than the data holds.
	var src encoding.Bytes
	for range 10 {
		src.Append([]byte("ab"))
	}
	node, _, err := p.Encode(nil, src)
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range [][]byte{node[:len(node)-1], append(append([]byte(nil), node...), 'x')} {
		if _, err := encoding.Open(bad, all.Options()); !errors.Is(err, encoding.ErrCorrupt) {
			t.Fatalf("equal lengths, %d-byte node: got %v, want ErrCorrupt", len(bad), err)
		}
	}
}
