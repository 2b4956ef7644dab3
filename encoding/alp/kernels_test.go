package alp

import (
	"encoding/binary"
	"math"
	"math/big"
	"math/rand"
	"syscall"
	"testing"

	"strata/encoding/internal/floatx"
)

// kernelDigits returns n digits of one of several shapes: small decimals,
// values near the encoder's limit 2^51, and the whole int64 range (which a
// corrupt node may hold).
func kernelDigits(rng *rand.Rand, shape, n int) []int64 {
	s := make([]int64, n)
	for i := range s {
		switch shape {
		case 0:
			s[i] = rng.Int63n(1<<20) - 1<<19
		case 1:
			s[i] = rng.Int63n(1<<52) - 1<<51
		case 2:
			s[i] = int64(rng.Uint64()) >> uint(rng.Intn(64))
		default:
			s[i] = int64(rng.Uint64())
		}
	}
	if n > 3 {
		s[0], s[1], s[2], s[3] = math.MinInt64, math.MaxInt64, 0, -1
	}
	return s
}

// checkKernels runs the dispatched kernels (assembly when available) and
// the Go references on src, in place as the decoder does, and compares
// every result and every returned sum bit for bit.
func checkKernels(t *testing.T, src []int64, e, f, k int) {
	t.Helper()
	a, b, pk := pow10[f], pow10[e], pow10[k]
	base := int64(0)
	if len(src) > 0 {
		base = src[len(src)/2] >> 3
	}
	// inPlace returns a float buffer holding src's bits, and its int view.
	inPlace := func() ([]float64, []int64) {
		v := make([]float64, len(src))
		iv := floatx.View[int64](v)
		copy(iv, src)
		return v, iv
	}
	same := func(name string, got, want []float64, gs, ws int64) {
		t.Helper()
		for i := range want {
			if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
				t.Fatalf("%s e=%d f=%d k=%d row %d (digit %d): %v, want %v", name, e, f, k, i, src[i], got[i], want[i])
			}
		}
		if gs != ws {
			t.Fatalf("%s e=%d f=%d k=%d: last sum %d, want %d", name, e, f, k, gs, ws)
		}
	}
	w, wi := inPlace()
	g, gi := inPlace()
	digitsF64Go(w, wi, a, b)
	digitsF64(g, gi, e, f)
	same("digitsF64", g, w, 0, 0)
	w, wi = inPlace()
	g, gi = inPlace()
	same("sumF64", g, w, sumF64(g, gi, base, e, f), sumF64Go(w, wi, base, a, b))
	if e > maxExp[float32]() {
		return
	}
	w, wi = inPlace()
	g, gi = inPlace()
	digitsNarrowGo(w, wi, a, b, pk)
	digitsNarrow(g, gi, e, f, k)
	same("digitsNarrow", g, w, 0, 0)
	w, wi = inPlace()
	g, gi = inPlace()
	same("sumNarrow", g, w, sumNarrow(g, gi, base, e, f, k), sumNarrowGo(w, wi, base, a, b, pk))

	in32 := func() ([]float32, []int32) {
		v := make([]float32, len(src))
		iv := floatx.View[int32](v)
		for i, d := range src {
			iv[i] = int32(d)
		}
		return v, iv
	}
	same32 := func(name string, got, want []float32, gs, ws int32) {
		t.Helper()
		for i := range want {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Fatalf("%s e=%d f=%d row %d (digit %d): %v, want %v", name, e, f, i, int32(src[i]), got[i], want[i])
			}
		}
		if gs != ws {
			t.Fatalf("%s e=%d f=%d: last sum %d, want %d", name, e, f, gs, ws)
		}
	}
	w32, wi32 := in32()
	g32, gi32 := in32()
	digitsF32Go(w32, wi32, a, b)
	digitsF32(g32, gi32, e, f)
	same32("digitsF32", g32, w32, 0, 0)
	w32, wi32 = in32()
	g32, gi32 = in32()
	same32("sumF32", g32, w32, sumF32(g32, gi32, int32(base), e, f), sumF32Go(w32, wi32, int32(base), a, b))
}

// TestKernelsMatchReference compares the assembly kernels with their Go
// twins over every (e, f) pair, every narrow decimal count and digits of
// every magnitude, at lengths that leave tails of 0-3 values.
func TestKernelsMatchReference(t *testing.T) {
	if !useAsm {
		t.Log("no assembly kernels here: the Go forms are compared with themselves")
	}
	rng := rand.New(rand.NewSource(1))
	for e := 0; e <= maxExp[float64](); e++ {
		for f := 0; f <= e; f++ {
			for shape := 0; shape < 4; shape++ {
				n := 1021 + rng.Intn(8)
				checkKernels(t, kernelDigits(rng, shape, n), e, f, rng.Intn(19))
			}
		}
	}
	for k := 0; k <= 18; k++ {
		checkKernels(t, kernelDigits(rng, k%4, 4099), 7, 1, k)
	}
}

// TestKernelsExhaustive runs every digit of magnitude below 2^16 through
// every pair in one piece, as the decoder's kernels see them (2^20 took
// 20 s here, too long for every run of the suite).
func TestKernelsExhaustive(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	src := make([]int64, 1<<17)
	for i := range src {
		src[i] = int64(i) - 1<<16
	}
	for e := 0; e <= maxExp[float64](); e++ {
		for f := 0; f <= e; f++ {
			checkKernels(t, src, e, f, (e+f)%10)
		}
	}
}

// FuzzKernels compares the kernels with their twins on arbitrary digits
// and pairs.
func FuzzKernels(f *testing.F) {
	f.Add(uint8(3), uint8(1), uint8(6), []byte("\x01\x00\x00\x00\x00\x00\x00\x80\xff\xff\xff\xff\xff\xff\xff\x7f"))
	f.Fuzz(func(t *testing.T, e, fc, k uint8, data []byte) {
		ee := int(e) % (maxExp[float64]() + 1)
		ff := int(fc) % (ee + 1)
		src := make([]int64, len(data)/8)
		for i := range src {
			src[i] = int64(binary.LittleEndian.Uint64(data[8*i:]))
		}
		checkKernels(t, src, ee, ff, int(k)%19)
	})
}

// TestReferenceIsDecodeDigit ties the Go kernels to the format: each must
// give, value by value, what decodeDigit (the formula the encoder checks
// its digits against) gives.
func TestReferenceIsDecodeDigit(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	for e := 0; e <= maxExp[float64](); e++ {
		for f := 0; f <= e; f++ {
			src := kernelDigits(rng, (e+f)%4, 257)
			k := uint8(rng.Intn(19))
			c := combo{e: uint8(e), f: uint8(f)}
			a, b := pow10[f], pow10[e]
			got := make([]float64, len(src))
			digitsF64Go(got, src, a, b)
			for i, d := range src {
				if w := decodeDigit[float64](d, c); math.Float64bits(got[i]) != math.Float64bits(w) {
					t.Fatalf("digitsF64Go e=%d f=%d digit %d: %v, want %v", e, f, d, got[i], w)
				}
			}
			if e > maxExp[float32]() {
				continue
			}
			nc := combo{e: uint8(e), f: uint8(f), narrow: true, k: k}
			digitsNarrowGo(got, src, a, b, pow10[k])
			for i, d := range src {
				if w := decodeDigit[float64](d, nc); math.Float64bits(got[i]) != math.Float64bits(w) {
					t.Fatalf("digitsNarrowGo e=%d f=%d k=%d digit %d: %v, want %v", e, f, k, d, got[i], w)
				}
			}
			s32 := make([]int32, len(src))
			for i, d := range src {
				s32[i] = int32(d)
			}
			g32 := make([]float32, len(src))
			digitsF32Go(g32, s32, a, b)
			for i, d := range s32 {
				if w := decodeDigit[float32](int64(d), c); math.Float32bits(g32[i]) != math.Float32bits(w) {
					t.Fatalf("digitsF32Go e=%d f=%d digit %d: %v, want %v", e, f, d, g32[i], w)
				}
			}
		}
	}
}

// TestKernelsNearMidpoints runs digits whose quotients lie as close as
// integers allow to a midpoint between two doubles, where a quotient not
// correctly rounded would show: for random binades and odd 54-bit
// significands M, the digits nearest M × 2^(k-53) × 10^(e-f).
func TestKernelsNearMidpoints(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	one := func(x *big.Float) *big.Float { return x.SetPrec(512) }
	for e := 1; e <= maxExp[float64](); e++ {
		for f := 0; f <= e; f++ {
			var src []int64
			for len(src) < 400 {
				// Quotients from 2^-20 up to what keeps the digit an int64.
				k := rng.Intn(63-int(math.Ceil(float64(e-f)*math.Log2(10)))+20) - 20
				m := uint64(1)<<53 | rng.Uint64()&(1<<53-1)
				m = m<<1 | 1
				mid := one(new(big.Float)).SetMantExp(one(new(big.Float)).SetUint64(m), k-53)
				d := one(new(big.Float)).Mul(mid, one(new(big.Float)).SetFloat64(pow10[e-f]))
				i, _ := d.Int64()
				for delta := int64(-1); delta <= 1; delta++ {
					src = append(src, i+delta, -(i + delta))
				}
			}
			checkKernels(t, src, e, f, rng.Intn(13))
		}
	}
}

// TestSumKernelsShifted runs the sum kernels as Delta's ReadDiffs hands
// them differences: src in the same memory as dst, a few values after it.
func TestSumKernelsShifted(t *testing.T) {
	rng := rand.New(rand.NewSource(4))
	for _, sh := range []int{1, 2, 3, 4, 7, 100} {
		for _, n := range []int{1, 3, 4, 5, 64, 1023} {
			e, f, k := 1+rng.Intn(9), 0, rng.Intn(13)
			f = rng.Intn(e + 1)
			src := kernelDigits(rng, rng.Intn(3), n)
			base := int64(rng.Intn(1000))
			// run lays src out sh values after the start of a buffer and
			// returns the floats written at its start and the last sum.
			run := func(sum func(dst []float64, src []int64) int64) ([]float64, int64) {
				buf := make([]float64, n+sh)
				copy(floatx.View[int64](buf)[sh:], src)
				last := sum(buf[:n], floatx.View[int64](buf)[sh:])
				return buf[:n], last
			}
			cases := []struct {
				name     string
				got, ref func(dst []float64, src []int64) int64
			}{
				{"sumF64",
					func(d []float64, s []int64) int64 { return sumF64(d, s, base, e, f) },
					func(d []float64, s []int64) int64 { return sumF64Go(d, s, base, pow10[f], pow10[e]) }},
				{"sumNarrow",
					func(d []float64, s []int64) int64 { return sumNarrow(d, s, base, e, f, k) },
					func(d []float64, s []int64) int64 {
						return sumNarrowGo(d, s, base, pow10[f], pow10[e], pow10[k])
					}},
			}
			for _, c := range cases {
				g, gs := run(c.got)
				w, ws := run(c.ref)
				for i := range w {
					if math.Float64bits(g[i]) != math.Float64bits(w[i]) {
						t.Fatalf("%s shift %d n %d row %d: %v, want %v", c.name, sh, n, i, g[i], w[i])
					}
				}
				if gs != ws {
					t.Fatalf("%s shift %d n %d: last sum %d, want %d", c.name, sh, n, gs, ws)
				}
			}
			src32 := make([]int32, n)
			for i, d := range src {
				src32[i] = int32(d)
			}
			run32 := func(sum func(dst []float32, src []int32) int32) ([]float32, int32) {
				buf := make([]float32, n+sh)
				copy(floatx.View[int32](buf)[sh:], src32)
				last := sum(buf[:n], floatx.View[int32](buf)[sh:])
				return buf[:n], last
			}
			e32 := min(e, maxExp[float32]())
			f32 := min(f, e32)
			g, gs := run32(func(d []float32, s []int32) int32 { return sumF32(d, s, int32(base), e32, f32) })
			w, ws := run32(func(d []float32, s []int32) int32 { return sumF32Go(d, s, int32(base), pow10[f32], pow10[e32]) })
			for i := range w {
				if math.Float32bits(g[i]) != math.Float32bits(w[i]) {
					t.Fatalf("sumF32 shift %d n %d row %d: %v, want %v", sh, n, i, g[i], w[i])
				}
			}
			if gs != ws {
				t.Fatalf("sumF32 shift %d n %d: last sum %d, want %d", sh, n, gs, ws)
			}
		}
	}
}

// BenchmarkKernels converts 1024 digits of four decimals (10^-4) with
// each kernel, the assembly form beside the Go one, in ns a value (wall
// and process CPU time; on a shared machine the CPU time, with
// GOMAXPROCS=1, is the steadier). The sum kernels may overwrite their
// differences, so those are copied in before each call (the copy is
// included, about 0.2 ns a value here):
//
//	GOMAXPROCS=1 go test ./encoding/alp -run '^$' -bench Kernels
func BenchmarkKernels(b *testing.B) {
	src := make([]int64, 1024)
	diffs := make([]int64, 1024)
	for i := range src {
		src[i] = int64(145521997 + i*37)
		diffs[i] = int64(i%7 - 3)
	}
	work := make([]int64, len(diffs))
	dst := make([]float64, len(src))
	kernels := []struct {
		name string
		run  func()
	}{
		{"digits", func() { digitsF64(dst, src, 4, 0) }},
		{"sum", func() { copy(work, diffs); sumF64(dst, work, 145521997, 4, 0) }},
		{"narrow", func() { digitsNarrow(dst, src, 4, 0, 6) }},
		{"sumnarrow", func() { copy(work, diffs); sumNarrow(dst, work, 145521997, 4, 0, 6) }},
	}
	for _, asm := range []bool{true, false} {
		if asm && !hasAssembly {
			continue
		}
		for _, k := range kernels {
			name := k.name + "/go"
			if asm {
				name = k.name + "/asm"
			}
			b.Run(name, func(b *testing.B) {
				was := useAsm
				useAsm = asm
				defer func() { useAsm = was }()
				cpu0 := cpuTime()
				for b.Loop() {
					k.run()
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(src)), "ns/value")
				b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N)/float64(len(src)), "cpu-ns/value")
			})
		}
	}
}

// cpuTime returns the user and system CPU time of the process in ns.
func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
