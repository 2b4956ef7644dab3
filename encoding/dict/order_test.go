package dict

import (
	"bytes"
	"math"
	"math/rand"
	"slices"
	"testing"

	"strata/encoding"
)

// The key-based orders must equal sorting by compare (the reference).
func checkOrderNum[T encoding.Number](t *testing.T, name string, uniq []T) {
	t.Helper()
	want := make([]uint32, len(uniq))
	for i := range want {
		want[i] = uint32(i)
	}
	slices.SortFunc(want, func(a, b uint32) int { return compare(uniq[a], uniq[b]) })
	if got := orderNum(uniq); !slices.Equal(got, want) {
		t.Fatalf("%s: orderNum %v, want %v", name, got, want)
	}
}

func TestOrderNum(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	nan2 := math.Float64frombits(0x7ff8000000000001)
	negNaN := math.Float64frombits(0xfff8000000000000)
	floats := []float64{0, math.Copysign(0, -1), 1, -1, math.Inf(1), math.Inf(-1), math.NaN(), nan2, negNaN,
		math.SmallestNonzeroFloat64, -math.SmallestNonzeroFloat64, math.MaxFloat64, -math.MaxFloat64}
	for i := 0; i < 500; i++ {
		floats = append(floats, rng.NormFloat64()*1e6, math.Float64frombits(rng.Uint64()))
	}
	floats = uniqBits(floats)
	checkOrderNum(t, "float64", floats)
	var f32 []float32
	seen := map[uint32]bool{}
	for _, f := range floats {
		x := float32(f)
		if !seen[math.Float32bits(x)] {
			seen[math.Float32bits(x)] = true
			f32 = append(f32, x)
		}
	}
	f32 = append(f32, math.Float32frombits(0xffc00001))
	checkOrderNum(t, "float32", f32)
	var i8 []int8
	for v := -128; v < 128; v += 3 {
		i8 = append(i8, int8(v))
	}
	rng.Shuffle(len(i8), func(a, b int) { i8[a], i8[b] = i8[b], i8[a] })
	checkOrderNum(t, "int8", i8)
	i64 := []int64{math.MinInt64, math.MaxInt64, 0, -1, 1}
	u64 := []uint64{math.MaxUint64, 0, 1, 1 << 63}
	for i := 0; i < 300; i++ {
		i64 = append(i64, int64(rng.Uint64()))
		u64 = append(u64, rng.Uint64())
	}
	checkOrderNum(t, "int64", i64)
	checkOrderNum(t, "uint64", u64)
}

func uniqBits(v []float64) []float64 {
	seen := map[uint64]bool{}
	var out []float64
	for _, f := range v {
		if b := math.Float64bits(f); !seen[b] {
			seen[b] = true
			out = append(out, f)
		}
	}
	return out
}

func TestOrderBinary(t *testing.T) {
	rng := rand.New(rand.NewSource(4))
	vals := []string{"", "\x00", "\x00\x00", "a", "a\x00", "abcdefgh", "abcdefgh\x00", "abcdefghi", "abcdefg", "\xff\xff\xff\xff\xff\xff\xff\xff\xff"}
	seen := map[string]bool{}
	for _, v := range vals {
		seen[v] = true
	}
	for len(vals) < 600 {
		b := make([]byte, rng.Intn(14))
		for j := range b {
			b[j] = "ab\x00\xff"[rng.Intn(4)]
		}
		if !seen[string(b)] {
			seen[string(b)] = true
			vals = append(vals, string(b))
		}
	}
	uniq := encoding.Bytes{Offsets: []int32{0}}
	for _, v := range vals {
		uniq.Append([]byte(v))
	}
	want := make([]uint32, len(vals))
	for i := range want {
		want[i] = uint32(i)
	}
	slices.SortFunc(want, func(a, b uint32) int { return bytes.Compare([]byte(vals[a]), []byte(vals[b])) })
	if got := orderBinary(&uniq); !slices.Equal(got, want) {
		t.Fatalf("orderBinary differs from bytes.Compare order")
	}
}
