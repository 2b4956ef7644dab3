package stats

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"strata/encoding"
)

func TestValueCompare(t *testing.T) {
	cases := []struct {
		a, b Value
		want int
	}{
		{Of[int32](-1), Of[int64](3), -1},
		{Of[int64](-1), Of[uint64](math.MaxUint64), -1},
		{Of[uint64](math.MaxUint64), Of[int64](-1), 1},
		{Of[uint8](200), Of[int8](100), 1},
		{Of(math.Copysign(0, -1)), Of(0.0), 0},
		{Of(math.NaN()), Of(math.Inf(1)), 1},
		{Of(math.NaN()), Of(math.NaN()), 0},
		{Of[float32](1.5), Of[int32](2), -1},
		{Bytes([]byte("ab")), Bytes([]byte("abc")), -1},
		{Bytes(nil), Bytes([]byte{}), 0},
		{Of(false), Of(true), -1},
	}
	for _, c := range cases {
		if got := c.a.Compare(c.b); got != c.want {
			t.Errorf("%v cmp %v = %d, want %d", c.a, c.b, got, c.want)
		}
		if got := c.b.Compare(c.a); got != -c.want {
			t.Errorf("%v cmp %v = %d, want %d", c.b, c.a, got, -c.want)
		}
	}
	if Of[int16](-7).Hash() != Of[int64](-7).Hash() || Of[uint8](7).Hash() != Of[int32](7).Hash() {
		t.Error("integer widths must hash alike")
	}
	if Of(math.Copysign(0, -1)).Hash() != Of[float32](0).Hash() {
		t.Error("-0.0 and 0.0 must hash alike")
	}
}

// naive computes statistics value by value, the slow obvious way.
func naive(vals []Value, valid []bool, typ encoding.Type) ColumnStats {
	s := ColumnStats{Type: typ, Rows: int64(len(vals))}
	for i, v := range vals {
		if valid != nil && !valid[i] {
			s.Nulls++
			continue
		}
		if v.IsNaN() {
			s.NaNs++
			continue
		}
		if !s.HasMinMax {
			s.Min, s.Max, s.HasMinMax = v, v, true
			continue
		}
		if v.Compare(s.Min) < 0 {
			s.Min = v
		}
		if v.Compare(s.Max) > 0 {
			s.Max = v
		}
	}
	return s
}

func randValid(r *rand.Rand, n int) []bool {
	switch r.IntN(4) {
	case 0:
		return nil
	case 1:
		return make([]bool, n) // all null
	}
	v := make([]bool, n)
	for i := range v {
		v[i] = r.IntN(3) != 0
	}
	return v
}

func TestFromValues(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for iter := 0; iter < 300; iter++ {
		n := r.IntN(40)
		valid := randValid(r, n)
		var vals any
		vs := make([]Value, n)
		switch iter % 7 {
		case 0:
			x := make([]int8, n)
			for i := range x {
				x[i] = int8(r.Uint32())
				vs[i] = Of(x[i])
			}
			vals = x
		case 1:
			x := make([]int64, n)
			for i := range x {
				x[i] = int64(r.Uint64())
				vs[i] = Of(x[i])
			}
			vals = x
		case 2:
			x := make([]uint32, n)
			for i := range x {
				x[i] = r.Uint32()
				vs[i] = Of(x[i])
			}
			vals = x
		case 3:
			x := make([]float64, n)
			sp := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1)}
			for i := range x {
				if r.IntN(3) == 0 {
					x[i] = sp[r.IntN(len(sp))]
				} else {
					x[i] = r.NormFloat64()
				}
				vs[i] = Of(x[i])
			}
			vals = x
		case 4:
			x := make([]float32, n)
			for i := range x {
				if r.IntN(4) == 0 {
					x[i] = float32(math.NaN())
				} else {
					x[i] = float32(r.NormFloat64())
				}
				vs[i] = Of(x[i])
			}
			vals = x
		case 5:
			x := make([]bool, n)
			for i := range x {
				x[i] = r.IntN(2) == 0
				vs[i] = Of(x[i])
			}
			vals = x
		case 6:
			var b encoding.Bytes
			for i := 0; i < n; i++ {
				v := make([]byte, r.IntN(8))
				for j := range v {
					v[j] = "ab\xff"[r.IntN(3)]
				}
				b.Append(v)
				vs[i] = Bytes(v)
			}
			vals = b
		}
		got := FromValues(vals, valid)
		want := naive(vs, valid, encoding.TypeOf(vals))
		checkSame(t, got, want)
		// Round trip through the serialized form.
		enc := got.AppendBinary(nil)
		var dec ColumnStats
		if err := dec.UnmarshalBinary(enc); err != nil {
			t.Fatalf("unmarshal: %v", err)
		}
		checkSame(t, dec, got)
		// Merge of two halves equals stats of the whole.
		h := n / 2
		var a, b ColumnStats
		var va, vb []bool
		if valid != nil {
			va, vb = valid[:h], valid[h:]
		}
		a = FromValues(sliceAny(vals, 0, h), va)
		b = FromValues(sliceAny(vals, h, n), vb)
		var m ColumnStats
		if err := m.Merge(a); err != nil {
			t.Fatal(err)
		}
		if err := m.Merge(b); err != nil {
			t.Fatal(err)
		}
		checkSame(t, m, want)
	}
}

func sliceAny(vals any, i, j int) any {
	switch v := vals.(type) {
	case []int8:
		return v[i:j]
	case []int64:
		return v[i:j]
	case []uint32:
		return v[i:j]
	case []float64:
		return v[i:j]
	case []float32:
		return v[i:j]
	case []bool:
		return v[i:j]
	case encoding.Bytes:
		if v.Len() == 0 {
			return encoding.Bytes{}
		}
		return v.Slice(i, j)
	}
	panic("type")
}

func checkSame(t *testing.T, got, want ColumnStats) {
	t.Helper()
	if got.Type != want.Type || got.Rows != want.Rows || got.Nulls != want.Nulls || got.NaNs != want.NaNs ||
		got.HasMinMax != want.HasMinMax || got.MinTruncated != want.MinTruncated || got.MaxTruncated != want.MaxTruncated {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	if got.HasMinMax && (!got.Min.Equal(want.Min) || !got.Max.Equal(want.Max) || got.Min.Type != want.Min.Type) {
		t.Fatalf("bounds got [%v %v], want [%v %v]", got.Min, got.Max, want.Min, want.Max)
	}
}

func TestFloatZeroBounds(t *testing.T) {
	s := FromValues([]float64{0, 0}, nil)
	if !math.Signbit(s.Min.Float()) || math.Signbit(s.Max.Float()) {
		t.Fatalf("zero bounds %v %v: want -0, +0", s.Min.Float(), s.Max.Float())
	}
	s = FromValues([]float64{math.NaN(), math.NaN()}, []bool{true, false})
	if s.HasMinMax || s.NaNs != 1 || s.Nulls != 1 || s.Ordered() != 0 {
		t.Fatalf("all-NaN stats %+v", s)
	}
}

func TestBinaryTruncation(t *testing.T) {
	long := func(c byte, n int) []byte { return bytes.Repeat([]byte{c}, n) }
	var b encoding.Bytes
	b.Append(append(long('a', 70), 'z'))
	b.Append(append(long('m', 64), 0xff, 0xff))
	s := FromValues(b, nil)
	if !s.HasMinMax || !s.MinTruncated || !s.MaxTruncated {
		t.Fatalf("want truncated bounds: %+v", s)
	}
	if len(s.Min.Bytes()) != MaxBinaryBound || len(s.Max.Bytes()) > MaxBinaryBound {
		t.Fatalf("bounds too long: %d %d", len(s.Min.Bytes()), len(s.Max.Bytes()))
	}
	for i := 0; i < b.Len(); i++ {
		v := Bytes(b.Value(i))
		if v.Compare(s.Min) < 0 || v.Compare(s.Max) > 0 {
			t.Fatalf("value %q outside [%q, %q]", v.Bytes(), s.Min.Bytes(), s.Max.Bytes())
		}
	}
	// A max whose kept prefix ends in 0xff bytes increments an earlier byte.
	b.Reset()
	b.Append(append(append(long('q', 60), long(0xff, 10)...), 1))
	s = FromValues(b, nil)
	if want := append(long('q', 59), 'r'); !bytes.Equal(s.Max.Bytes(), want) {
		t.Fatalf("max %q, want %q", s.Max.Bytes(), want)
	}
	// No byte to increment: bounds dropped rather than wrong.
	b.Reset()
	b.Append(long(0xff, 100))
	s = FromValues(b, nil)
	if s.HasMinMax || s.Ordered() != 1 {
		t.Fatalf("all-0xff max: %+v", s)
	}
	// Unknown bounds stay unknown through a merge.
	o := FromValues(encoding.Bytes{Offsets: []int32{0, 1}, Data: []byte("a")}, nil)
	if err := o.Merge(s); err != nil || o.HasMinMax || o.Rows != 2 {
		t.Fatalf("merge with unknown bounds: %+v %v", o, err)
	}
}

func TestMergeTypeMismatch(t *testing.T) {
	a := FromValues([]int32{1}, nil)
	if err := a.Merge(FromValues([]int64{1}, nil)); err == nil {
		t.Fatal("merging int64 into int32 succeeded")
	}
	var z ColumnStats
	if err := z.Merge(a); err != nil || z.Type != encoding.Int32 || !z.HasMinMax {
		t.Fatalf("merge into zero: %+v %v", z, err)
	}
	if err := z.Merge(ColumnStats{}); err != nil {
		t.Fatal(err)
	}
}

func TestDecodeCorrupt(t *testing.T) {
	var b encoding.Bytes
	b.Append([]byte("hello"))
	b.Append([]byte("world"))
	seeds := [][]byte{
		ptr(FromValues([]int32{-5, 9}, []bool{true, false})).AppendBinary(nil),
		ptr(FromValues([]float32{1, float32(math.NaN())}, nil)).AppendBinary(nil),
		ptr(FromValues(b, nil)).AppendBinary(nil),
	}
	for _, s := range seeds {
		for i := 0; i < len(s); i++ {
			if _, _, err := DecodeColumnStats(s[:i]); err == nil {
				t.Errorf("prefix %d of %x decoded", i, s)
			} else if !errors.Is(err, encoding.ErrCorrupt) && !errors.Is(err, encoding.ErrUnsupported) {
				t.Errorf("unwrapped error %v", err)
			}
		}
	}
	bad := [][]byte{
		{0x01, byte(encoding.Int32), 1, 0, 0, 20, 10},       // min > max (zigzag 10, 5)
		{0x00, byte(encoding.Int32), 1, 2, 0},               // nulls > rows
		{0x00, byte(encoding.Int32), 2, 0, 1},               // NaNs on ints
		{0x01, byte(encoding.Int8), 1, 0, 0, 0x80, 0x02, 0}, // 128 out of int8
		{0x01, byte(encoding.Float64), 1, 0, 0, 0, 0, 0, 0, 0, 0, 0xf8, 0x7f, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f},
		{0x01, byte(encoding.Binary), 1, 0, 0, 0xff, 0xff, 0xff, 0xff, 0x0f},
		{0x01, byte(encoding.Int32), 1, 1, 0, 0, 0}, // min/max but no values
		{0x80, byte(encoding.Int32), 0, 0, 0},
		{0x00, 99, 0, 0, 0},
	}
	for _, s := range bad {
		if _, _, err := DecodeColumnStats(s); err == nil {
			t.Errorf("%x decoded", s)
		}
	}
}

func ptr[T any](v T) *T { return &v }

func FuzzColumnStats(f *testing.F) {
	var b encoding.Bytes
	b.Append(bytes.Repeat([]byte("x"), 80))
	b.Append([]byte("abc"))
	for _, s := range []ColumnStats{
		FromValues([]int32{-5, 9}, []bool{true, false}),
		FromValues([]uint64{math.MaxUint64, 3}, nil),
		FromValues([]float32{1, float32(math.NaN())}, nil),
		FromValues([]float64{-1, 2}, nil),
		FromValues([]bool{true}, nil),
		FromValues(b, nil),
		{},
	} {
		f.Add(s.AppendBinary(nil))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, n, err := DecodeColumnStats(data)
		if err != nil {
			if !errors.Is(err, encoding.ErrCorrupt) && !errors.Is(err, encoding.ErrUnsupported) {
				t.Fatalf("unwrapped error %v", err)
			}
			return
		}
		again := s.AppendBinary(nil)
		s2, n2, err := DecodeColumnStats(again)
		if err != nil || n2 != len(again) {
			t.Fatalf("re-decode: %v", err)
		}
		if !reflect.DeepEqual(s.AppendBinary(nil), s2.AppendBinary(nil)) {
			t.Fatalf("round trip differs")
		}
		_ = n
	})
}

// TestGoldenLayout pins the documented byte layout (docs/FORMAT.md, "Column statistics" and "Bloom filters").
func TestGoldenLayout(t *testing.T) {
	s := FromValues([]int32{-5, 0, 9}, []bool{true, false, true})
	if got, want := fmt.Sprintf("% x", s.AppendBinary(nil)), "01 04 03 01 00 09 12"; got != want {
		t.Fatalf("int32 stats % s, want %s", got, want)
	}
	var b encoding.Bytes
	b.Append([]byte("ab"))
	s = FromValues(b, nil)
	if got, want := fmt.Sprintf("% x", s.AppendBinary(nil)), "01 0c 01 00 00 02 61 62 02 61 62"; got != want {
		t.Fatalf("binary stats %s, want %s", got, want)
	}
	f := NewBloom(1, 0.01)
	f.Insert(HashInt(1))
	enc := f.AppendBinary(nil)
	if len(enc) != 2+32 || enc[0] != 1 || enc[1] != 1 {
		t.Fatalf("bloom header % x", enc[:2])
	}
	ones := 0
	for _, c := range enc[2:] {
		for ; c != 0; c &= c - 1 {
			ones++
		}
	}
	if ones != 8 {
		t.Fatalf("one insert set %d bits, want 8", ones)
	}
}

func BenchmarkFromValuesInt64(b *testing.B) {
	vals := make([]int64, 1<<16)
	for i := range vals {
		vals[i] = int64(i*7919) % 100003
	}
	b.SetBytes(int64(len(vals) * 8))
	for b.Loop() {
		_ = FromValues(vals, nil)
	}
}

func BenchmarkMemcpyInt64(b *testing.B) {
	vals := make([]int64, 1<<16)
	dst := make([]int64, len(vals))
	b.SetBytes(int64(len(vals) * 8))
	for b.Loop() {
		copy(dst, vals)
	}
}
