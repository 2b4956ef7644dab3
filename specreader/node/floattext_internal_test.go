package node

import (
	"math"
	"testing"

	"strata/encoding"
	"strata/encoding/all"
)

// TestDictOrderOracle checks ftDictCompare, the alphabet order that
// SharedDictionary verifies, against the alphabets the Go writer's
// Dictionary (kind 8) produces for floats with -0, +0, infinities and NaN
// payloads of both signs, and for integers at their extremes: FORMAT.md
// says both kinds use one order, so every oracle alphabet must be strictly
// increasing under it.
func TestDictOrderOracle(t *testing.T) {
	nan := func(b uint64) float64 { return math.Float64frombits(b) }
	f64 := []float64{1, -1, math.Copysign(0, -1), 0, math.Inf(1), math.Inf(-1), nan(0x7ff8000000000001), nan(0xfff8000000000000), nan(0x7ff0000000000001), nan(0xfff0000000000002), 2.5, -2.5}
	f32 := make([]float32, 0, len(f64))
	for _, f := range f64 {
		f32 = append(f32, float32(f))
	}
	f32 = append(f32, math.Float32frombits(0x7fc00001), math.Float32frombits(0xff800001))
	var f64s []float64
	var f32s []float32
	for i := range 400 {
		f64s = append(f64s, f64[i%len(f64)])
		f32s = append(f32s, f32[i%len(f32)])
	}
	var i64s []int64
	var u64s []uint64
	for i := range 400 {
		i64s = append(i64s, []int64{math.MinInt64, -1, 0, 1, math.MaxInt64}[i%5])
		u64s = append(u64s, []uint64{0, 1, 1 << 63, math.MaxUint64}[i%4])
	}
	p := all.Policy()
	for _, vals := range []any{f64s, f32s, i64s, u64s} {
		enc, tree, err := p.EncodeWith(nil, vals, encoding.KindDictionary)
		if err != nil || tree.Kind != encoding.KindDictionary {
			t.Fatalf("%T: oracle %v %v", vals, tree, err)
		}
		h, err := ParseHeader(enc)
		if err != nil {
			t.Fatal(err)
		}
		alpha, _, err := ftChild(h.Body, h.Type, -1, nil, "alphabet")
		if err != nil {
			t.Fatal(err)
		}
		for i := 1; i < alpha.Len; i++ {
			if ftDictCompare(&alpha, i-1, i) >= 0 {
				t.Errorf("%T: oracle alphabet entry %d (%#x) not above entry %d (%#x)", vals, i, alpha.Bits(i), i-1, alpha.Bits(i-1))
			}
		}
		if alpha.Len < 4 {
			t.Errorf("%T: alphabet of %d entries", vals, alpha.Len)
		}
	}
}

// TestDictOrderRules checks the order on pairs FORMAT.md spells out.
func TestDictOrderRules(t *testing.T) {
	v := Make(Float64, 2)
	less := func(a, b uint64) bool {
		v.F64[0], v.F64[1] = math.Float64frombits(a), math.Float64frombits(b)
		return ftDictCompare(&v, 0, 1) < 0
	}
	negZero, posZero := uint64(1)<<63, uint64(0)
	posNaN, negNaN := uint64(0x7ff8000000000000), uint64(0xfff8000000000000)
	inf := math.Float64bits(math.Inf(1))
	for _, c := range []struct {
		a, b uint64
		want bool
	}{
		{negZero, posZero, true}, {posZero, negZero, false},
		{inf, posNaN, true}, {posNaN, negNaN, true}, {negNaN, posNaN, false},
		{posNaN, posNaN | 1, true}, {math.Float64bits(-1), negZero, true},
	} {
		if got := less(c.a, c.b); got != c.want {
			t.Errorf("%#x < %#x: %v, want %v", c.a, c.b, got, c.want)
		}
	}
}
