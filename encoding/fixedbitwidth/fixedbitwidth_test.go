package fixedbitwidth_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"strata/encoding"
	"strata/encoding/all"
	"strata/encoding/encodingtest"
)

func policy() *encoding.Policy {
	p := all.Policy()
	p.Zstd = false
	p.Force = &encoding.Tree{Kind: encoding.KindFixedBitWidth}
	return p
}

func encode(t testing.TB, vals any) []byte {
	t.Helper()
	node, _, err := policy().Encode(nil, vals)
	if err != nil {
		t.Fatal(err)
	}
	if encoding.Kind(node[0]) != encoding.KindFixedBitWidth {
		t.Fatalf("encoded as %v", encoding.Kind(node[0]))
	}
	return node
}

// TestEveryWidth encodes int64 and uint64 data needing each width 0..64,
// around several bases, and checks every read path.
func TestEveryWidth(t *testing.T) {
	opts := all.Options()
	r := rand.New(rand.NewPCG(1, 1))
	for w := 0; w <= 64; w++ {
		n := 200 + r.IntN(200)
		m := ^uint64(0) >> (64 - w)
		if w == 0 {
			m = 0
		}
		for _, base := range []uint64{0, 1 << 63, uint64(math.MaxUint64) - m, 12345} {
			u := make([]uint64, n)
			s := make([]int64, n)
			for i := range u {
				off := r.Uint64() & m
				switch i {
				case 0:
					off = 0
				case 1:
					off = m
				}
				u[i] = base + off
				s[i] = int64(base+off) - int64(m/2) // may wrap; stays within width w around its min
			}
			t.Run(fmt.Sprintf("w=%d/base=%#x", w, base), func(t *testing.T) {
				node := encode(t, u)
				h, err := encoding.ParseHeader(node, 0, nil)
				if err != nil {
					t.Fatal(err)
				}
				if got := int(h.Body[0]); got != w {
					t.Fatalf("uint64 width %d, want %d", got, w)
				}
				r, err := encoding.OpenTyped[uint64](node, 0, opts)
				if err != nil {
					t.Fatal(err)
				}
				encodingtest.CheckReader(t, r, u, uint64(w))
				node = encode(t, s)
				rs, err := encoding.OpenTyped[int64](node, 0, opts)
				if err != nil {
					t.Fatal(err)
				}
				encodingtest.CheckReader(t, rs, s, uint64(w))
			})
		}
	}
}

// TestFilterOutside checks predicates whose constants lie below, inside and
// above the stored range, for signed and unsigned types.
func TestFilterOutside(t *testing.T) {
	filterOutside(t, []int8{-5, -3, 0, 4, -5, 2}, []int8{math.MinInt8, -6, -5, -4, 0, 4, 5, math.MaxInt8})
	filterOutside(t, []uint8{10, 12, 13, 10, 20}, []uint8{0, 9, 10, 11, 20, 21, 255})
	filterOutside(t, []int64{math.MinInt64, math.MaxInt64, 0, -1}, []int64{math.MinInt64, -2, -1, 0, 1, math.MaxInt64})
	filterOutside(t, []uint64{1 << 63, 1<<63 + 7, 1<<63 + 3}, []uint64{0, 1 << 62, 1 << 63, 1<<63 + 3, 1<<63 + 8, math.MaxUint64})
	filterOutside(t, []int32{7, 7, 7}, []int32{math.MinInt32, 6, 7, 8, math.MaxInt32})
	filterOutside(t, []uint16{0, 65535, 3}, []uint16{0, 1, 65534, 65535})
}

func filterOutside[T encoding.Integer](t *testing.T, vals, consts []T) {
	t.Helper()
	node := encode(t, vals)
	r, err := encoding.OpenTyped[T](node, 0, all.Options())
	if err != nil {
		t.Fatal(err)
	}
	f := r.(encoding.Filterer[T])
	for op := encoding.OpEq; op <= encoding.OpIn; op++ {
		for _, a := range consts {
			for _, b := range consts {
				p := &encoding.Pred[T]{Op: op, A: a, B: b}
				if op == encoding.OpIn {
					p.Set = []T{min(a, b), max(a, b)}
					if a == b {
						p.Set = p.Set[:1]
					}
				}
				r.Reset()
				sel := encoding.NewBitmap(len(vals), true)
				if err := f.Filter(p, len(vals), sel); err != nil {
					t.Fatal(err)
				}
				for i, v := range vals {
					if sel.Get(i) != p.Match(v) {
						t.Fatalf("%T %v %v/%v: row %d (%v) got %v", v, op, a, b, i, v, sel.Get(i))
					}
				}
			}
		}
	}
}

func goldenInputs() map[string]any {
	return map[string]any{
		"bool":   []bool{true, false, true, true, false, false, false, false, true, true},
		"int8":   []int8{-128, 0, 127, -1},
		"int32":  []int32{100, 101, 105, 100, 115},
		"int64":  []int64{math.MinInt64, math.MaxInt64, 0},
		"uint16": []uint16{7, 7, 7},
		"uint64": []uint64{1 << 40, 1<<40 + 3, 1<<40 + 1000},
	}
}

func TestGolden(t *testing.T) {
	for name, vals := range goldenInputs() {
		node := encode(t, vals)
		encodingtest.Golden(t, "fixedbitwidth-"+name, node)
		if err := encodingtest.Exercise(node, all.Options()); err != nil {
			t.Fatalf("%s: decode: %v", name, err)
		}
	}
}

func TestHostile(t *testing.T) {
	opts := all.Options()
	cases := map[string][]byte{
		"short header": append(encoding.AppendHeader(nil, encoding.KindFixedBitWidth, encoding.Int64, 3), 5, 0, 0),
		"width > type": append(encoding.AppendHeader(nil, encoding.KindFixedBitWidth, encoding.Int8, 1), 9, 0, 0, 0, 0),
		"max < base":   append(encoding.AppendHeader(nil, encoding.KindFixedBitWidth, encoding.Int8, 1), 1, 5, 4, 0),
		"bool max 2":   append(encoding.AppendHeader(nil, encoding.KindFixedBitWidth, encoding.Bool, 1), 1, 0, 2, 0),
		"2^28 rows":    append(encoding.AppendHeader(nil, encoding.KindFixedBitWidth, encoding.Int64, 1<<28), 64, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 1, 2),
		"stream long":  append(encoding.AppendHeader(nil, encoding.KindFixedBitWidth, encoding.Uint8, 8), 1, 0, 1, 0xff, 0),
	}
	for name, node := range cases {
		if _, err := encoding.Open(node, opts); !errors.Is(err, encoding.ErrCorrupt) {
			t.Errorf("%s: got %v, want ErrCorrupt", name, err)
		}
	}
	r, err := encoding.OpenTyped[int32](encode(t, []int32{1, 2, 3}), 0, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Read(make([]int32, 4)); err == nil {
		t.Fatal("Read past end: no error")
	}
	if err := r.(encoding.Gatherer[int32]).Gather([]int32{1, 1}, make([]int32, 2)); err == nil {
		t.Fatal("Gather with repeated row: no error")
	}
}

func BenchmarkRead(b *testing.B) {
	const n = 64 * 1024
	for _, w := range []int{1, 4, 8, 12, 17, 24, 32} {
		vals := make([]int64, n)
		r := rand.New(rand.NewPCG(1, 2))
		for i := range vals {
			vals[i] = 1000 + int64(r.Uint64()&(1<<w-1))
		}
		node := encode(b, vals)
		d, err := encoding.OpenTyped[int64](node, 0, all.Options())
		if err != nil {
			b.Fatal(err)
		}
		dst := make([]int64, n)
		b.Run(fmt.Sprintf("int64/w=%d", w), func(b *testing.B) {
			b.SetBytes(n * 8)
			for b.Loop() {
				d.Reset()
				if err := d.Read(dst); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	src := make([]int64, n)
	dst := make([]int64, n)
	b.Run("memcpy-int64", func(b *testing.B) {
		b.SetBytes(n * 8)
		for b.Loop() {
			copy(dst, src)
		}
	})
}
