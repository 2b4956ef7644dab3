package varint_test

import (
	"errors"
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
	p.Force = &encoding.Tree{Kind: encoding.KindVarint}
	return p
}

func encode(t testing.TB, vals any) []byte {
	t.Helper()
	node, _, err := policy().Encode(nil, vals)
	if err != nil {
		t.Fatal(err)
	}
	return node
}

func goldenInputs() map[string]any {
	return map[string]any{
		"int8":   []int8{0, -1, 1, -64, 63, -65, math.MinInt8, math.MaxInt8},
		"int64":  []int64{math.MinInt64, math.MaxInt64, 0, -300},
		"uint16": []uint16{0, 127, 128, 16383, 16384, 65535},
		"uint64": []uint64{math.MaxUint64, 1},
	}
}

func TestGolden(t *testing.T) {
	for name, vals := range goldenInputs() {
		node := encode(t, vals)
		encodingtest.Golden(t, "varint-"+name, node)
		if err := encodingtest.Exercise(node, all.Options()); err != nil {
			t.Fatalf("%s: decode: %v", name, err)
		}
	}
}

func TestHostile(t *testing.T) {
	opts := all.Options()
	hdr := func(typ encoding.Type, rows int) []byte {
		return encoding.AppendHeader(nil, encoding.KindVarint, typ, rows)
	}
	cases := map[string][]byte{
		"rows > bytes":   append(hdr(encoding.Int64, 1<<28), 1, 2, 3),
		"unterminated":   append(hdr(encoding.Uint32, 1), 0x80, 0x80),
		"count mismatch": append(hdr(encoding.Uint32, 1), 1, 2),
		"float":          append(hdr(encoding.Float64, 1), 1),
	}
	for name, node := range cases {
		if _, err := encoding.Open(node, opts); err == nil || !(errors.Is(err, encoding.ErrCorrupt) || errors.Is(err, encoding.ErrUnsupported)) {
			t.Errorf("%s: got %v, want ErrCorrupt", name, err)
		}
	}
	reads := map[string][]byte{
		"uint8 300":    append(hdr(encoding.Uint8, 2), 1, 0xac, 0x02),
		"int16 wide":   append(hdr(encoding.Int16, 1), 0xff, 0xff, 0x04),
		"overlong u64": append(hdr(encoding.Uint64, 1), 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01),
	}
	for name, node := range reads {
		if err := encodingtest.Exercise(node, opts); !errors.Is(err, encoding.ErrCorrupt) {
			t.Errorf("%s: got %v, want ErrCorrupt", name, err)
		}
	}
}

func BenchmarkRead(b *testing.B) {
	const n = 64 * 1024
	vals := encodingtest.Gen[int64](encodingtest.ShapeSmallRandom, n, 1)
	d, err := encoding.OpenTyped[int64](encode(b, vals), 0, all.Options())
	if err != nil {
		b.Fatal(err)
	}
	dst := make([]int64, n)
	b.SetBytes(n * 8)
	for b.Loop() {
		d.Reset()
		if err := d.Read(dst); err != nil {
			b.Fatal(err)
		}
	}
}

// TestLongSkips checks skips long enough to use the checkpoints, from every
// kind of position, against the values read in order.
func TestLongSkips(t *testing.T) {
	p, opts := policy(), all.Options()
	for _, n := range []int{1023, 1024, 1025, 4096, 5000} {
		vals := make([]int64, n)
		for i := range vals {
			// one- to five-byte values, so checkpoints fall at uneven offsets
			vals[i] = int64(uint64(i)*2654435761%(1<<uint(7*(1+i%5)))) - 1<<20
		}
		node, _, err := p.Encode(nil, vals)
		if err != nil {
			t.Fatal(err)
		}
		d, err := encoding.OpenTyped[int64](node, 0, opts)
		if err != nil {
			t.Fatal(err)
		}
		for _, start := range []int{0, 1, 255, 256, 257, 700, n - 1025} {
			for _, skip := range []int{1024, 1025, 1279, 1280, 2048, n - start - 1, n - start} {
				if start < 0 || skip < 0 || start+skip > n {
					continue
				}
				d.Reset()
				if err := d.Skip(start); err != nil {
					t.Fatal(err)
				}
				if err := d.Skip(skip); err != nil {
					t.Fatalf("n %d: skip %d from %d: %v", n, skip, start, err)
				}
				if start+skip == n {
					continue
				}
				got := make([]int64, 1)
				if err := d.Read(got); err != nil {
					t.Fatal(err)
				}
				if got[0] != vals[start+skip] {
					t.Fatalf("n %d: after skipping %d from %d got %d, want %d", n, skip, start, got[0], vals[start+skip])
				}
			}
		}
	}
}

// BenchmarkReadShort reads values of one and two bytes, three in four of
// them one byte: the differences of dates within and between orders
// (TPC-H l_shipdate after Delta), the shape where Varint is chosen.
func BenchmarkReadShort(b *testing.B) {
	const n = 64 * 1024
	vals := make([]int32, n)
	r := rand.New(rand.NewPCG(3, 4))
	for i := range vals {
		if r.IntN(4) == 0 {
			vals[i] = int32(r.IntN(5000)) - 2500
		} else {
			vals[i] = int32(r.IntN(120)) - 60
		}
	}
	d, err := encoding.OpenTyped[int32](encode(b, vals), 0, all.Options())
	if err != nil {
		b.Fatal(err)
	}
	dst := make([]int32, n)
	b.SetBytes(n * 4)
	for b.Loop() {
		d.Reset()
		if err := d.Read(dst); err != nil {
			b.Fatal(err)
		}
	}
}
