package stats

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"strata/encoding"
)

func TestBloomNoFalseNegativesAndFPP(t *testing.T) {
	for _, tc := range []struct {
		ndv int
		fpp float64
	}{{1, 0.01}, {1000, 0.01}, {50000, 0.01}, {20000, 0.001}, {20000, 0.05}} {
		f := NewBloom(tc.ndv, tc.fpp)
		r := rand.New(rand.NewPCG(uint64(tc.ndv), 7))
		ins := make([]int64, tc.ndv)
		seen := make(map[int64]bool, tc.ndv)
		for i := range ins {
			ins[i] = int64(r.Uint64())
			seen[ins[i]] = true
		}
		f.InsertValues(ins, nil)
		for _, v := range ins {
			if !f.MayContain(HashInt(v)) {
				t.Fatalf("false negative for %d", v)
			}
		}
		probes, fp := 200000, 0
		for i := 0; i < probes; i++ {
			v := int64(r.Uint64())
			if seen[v] {
				continue
			}
			if f.MayContain(HashInt(v)) {
				fp++
			}
		}
		rate := float64(fp) / float64(probes)
		bits := float64(f.SizeBytes()*8) / float64(tc.ndv)
		t.Logf("ndv=%d target=%.3f measured=%.4f bytes=%d bits/value=%.1f", tc.ndv, tc.fpp, rate, f.SizeBytes(), bits)
		if tc.ndv >= 1000 && (rate > tc.fpp*1.3 || rate < tc.fpp*0.5) {
			t.Errorf("ndv=%d: measured FPP %.4f far from target %.3f", tc.ndv, rate, tc.fpp)
		}
	}
}

func TestBloomValueKinds(t *testing.T) {
	f := NewBloom(100, 0.01)
	f.InsertValues([]int16{-3, 7}, nil)
	f.InsertValues([]uint8{200}, []bool{true})
	f.InsertValues([]float32{1.5, float32(math.Copysign(0, -1))}, nil)
	f.InsertValues([]bool{true}, nil)
	var b encoding.Bytes
	b.Append([]byte("hello"))
	b.Append([]byte("skipped"))
	f.InsertValues(&b, []bool{true, false})
	for _, v := range []Value{Of[int64](-3), Of[int32](7), Of[uint64](200), Of[int64](200), Of(1.5), Of(0.0), Bytes([]byte("hello")), Of(true), Of[int64](1)} {
		if !f.MayContain(v.Hash()) {
			t.Errorf("%v missing", v)
		}
	}
}

func TestBloomSizing(t *testing.T) {
	if n := BloomBlocks(0, 0.01); n != 1 {
		t.Fatalf("empty filter blocks %d", n)
	}
	if n := BloomBlocks(math.MaxInt, 0.01); n*bloomBlockBytes != MaxBloomBytes {
		t.Fatalf("huge filter not capped: %d blocks", n)
	}
	if BloomBlocks(1000, math.NaN()) < BloomBlocks(1000, 0.01) {
		t.Fatal("NaN fpp must mean the strictest rate")
	}
}

func TestBloomMarshal(t *testing.T) {
	f := NewBloom(500, 0.01)
	for i := 0; i < 500; i++ {
		f.Insert(HashInt(int64(i)))
	}
	enc, _ := f.MarshalBinary()
	var g Bloom
	if err := g.UnmarshalBinary(enc); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 500; i++ {
		if !g.MayContain(HashInt(int64(i))) {
			t.Fatalf("lost %d", i)
		}
	}
	if string(g.AppendBinary(nil)) != string(enc) {
		t.Fatal("re-marshal differs")
	}
	for i := 0; i < len(enc); i += 7 {
		if _, _, err := DecodeBloom(enc[:i]); err == nil {
			t.Fatalf("prefix %d decoded", i)
		}
	}
	for _, bad := range [][]byte{{2, 1}, {1, 0}, {1, 0xff, 0xff, 0xff, 0xff, 0x0f}, {1, 0x80}} {
		if _, _, err := DecodeBloom(bad); err == nil {
			t.Fatalf("%x decoded", bad)
		}
	}
}

func FuzzBloom(f *testing.F) {
	b := NewBloom(10, 0.01)
	b.Insert(HashInt(3))
	f.Add(b.AppendBinary(nil))
	f.Add([]byte{1, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		g, n, err := DecodeBloom(data)
		if err != nil {
			if !errors.Is(err, encoding.ErrCorrupt) && !errors.Is(err, encoding.ErrUnsupported) && !errors.Is(err, encoding.ErrLimit) {
				t.Fatalf("unwrapped error %v", err)
			}
			return
		}
		// The block count may be a non-minimal uvarint (readers accept
		// those, docs/FORMAT.md); the filter written again is minimal and
		// must decode to the same blocks.
		again := g.AppendBinary(nil)
		h, m, err := DecodeBloom(again)
		if err != nil || m != len(again) || !slices.Equal(h.blocks, g.blocks) {
			t.Fatalf("round trip differs: %v", err)
		}
		if n == len(again) && string(again) != string(data[:n]) {
			t.Fatal("a minimal filter written again differs") // same count, same length: same bytes
		}
		g.MayContain(HashBytes(data))
	})
}

func BenchmarkBloomInsert(b *testing.B) {
	vals := make([]int64, 1<<16)
	for i := range vals {
		vals[i] = int64(i) * 7919
	}
	f := NewBloom(len(vals), 0.01)
	b.SetBytes(int64(len(vals) * 8))
	for b.Loop() {
		f.InsertValues(vals, nil)
	}
}

func BenchmarkBloomProbe(b *testing.B) {
	f := NewBloom(1<<16, 0.01)
	for i := 0; i < 1<<16; i++ {
		f.Insert(HashInt(int64(i)))
	}
	b.ResetTimer()
	n := 0
	for i := 0; b.Loop(); i++ {
		if f.MayContain(HashInt(int64(i))) {
			n++
		}
	}
	_ = n
}
