// Package encodingtest is the shared round-trip, cursor, predicate, gather,
// golden and fuzz harness every encoding package tests itself with. Results
// are always checked value by value against a plain slice.
package encodingtest

import (
	"bytes"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"strata/encoding"
)

var update = flag.Bool("update", false, "rewrite golden files")

// Lengths are the sequence lengths every encoding is tested at.
var Lengths = []int{0, 1, 7, 8, 9, 1023, 1024, 1025, 70000}

// Shape names a data shape.
type Shape string

// Data shapes.
const (
	ShapeConstant       Shape = "constant"
	ShapeMainlyConstant Shape = "mainly-constant"
	ShapeSorted         Shape = "sorted"
	ShapeSortedRepeats  Shape = "sorted-repeats"
	ShapeLowCard        Shape = "low-cardinality"
	ShapeRandom         Shape = "random"
	ShapeExtremes       Shape = "extremes"    // min/max integers, NaN/±0/±Inf
	ShapeSmallRandom    Shape = "small-range" // random in a narrow range
	ShapeOutliers       Shape = "outliers"    // narrow range with rare huge values
)

// Shapes lists every shape.
var Shapes = []Shape{ShapeConstant, ShapeMainlyConstant, ShapeSorted, ShapeSortedRepeats,
	ShapeLowCard, ShapeRandom, ShapeExtremes, ShapeSmallRandom, ShapeOutliers}

// Gen returns n values of type T in the given shape, deterministic for seed.
func Gen[T encoding.Fixed](shape Shape, n int, seed uint64) []T {
	r := rand.New(rand.NewPCG(seed, uint64(n)))
	out := make([]T, n)
	typ := encoding.TypeFor[T]()
	extremes := extremeValues[T]()
	rnd := func() T { return fromBits[T](r.Uint64()) }
	small := func(k uint64) T { return fromSmall[T](r.Uint64N(k)) }
	switch shape {
	case ShapeConstant:
		c := rnd()
		for i := range out {
			out[i] = c
		}
	case ShapeMainlyConstant:
		c := small(100)
		for i := range out {
			out[i] = c
			if r.IntN(20) == 0 {
				out[i] = rnd()
			}
		}
	case ShapeSorted:
		v := uint64(0)
		for i := range out {
			v += r.Uint64N(5)
			out[i] = fromSmall[T](v)
		}
		if typ != encoding.Bool {
			slices.SortFunc(out, cmpT[T])
		}
	case ShapeSortedRepeats:
		v := uint64(0)
		for i := range out {
			if r.IntN(4) == 0 {
				v += r.Uint64N(30)
			}
			out[i] = fromSmall[T](v)
		}
		if typ != encoding.Bool {
			slices.SortFunc(out, cmpT[T])
		}
	case ShapeLowCard:
		alpha := make([]T, 1+r.IntN(12))
		for i := range alpha {
			alpha[i] = rnd()
		}
		for i := range out {
			out[i] = alpha[r.IntN(len(alpha))]
		}
	case ShapeRandom:
		for i := range out {
			out[i] = rnd()
		}
	case ShapeExtremes:
		for i := range out {
			out[i] = extremes[r.IntN(len(extremes))]
		}
	case ShapeSmallRandom:
		base := r.Uint64N(1000)
		for i := range out {
			out[i] = fromSmall[T](base + r.Uint64N(64))
		}
	case ShapeOutliers:
		for i := range out {
			out[i] = small(16)
			if r.IntN(200) == 0 {
				out[i] = rnd()
			}
		}
	}
	return out
}

func cmpT[T encoding.Fixed](a, b T) int {
	switch x := any(a).(type) {
	case bool:
		y := any(b).(bool)
		if x == y {
			return 0
		}
		if !x {
			return -1
		}
		return 1
	}
	return cmpNum(a, b)
}

func cmpNum[T encoding.Fixed](a, b T) int {
	switch x := any(a).(type) {
	case int8:
		return cmpOrd(x, any(b).(int8))
	case int16:
		return cmpOrd(x, any(b).(int16))
	case int32:
		return cmpOrd(x, any(b).(int32))
	case int64:
		return cmpOrd(x, any(b).(int64))
	case uint8:
		return cmpOrd(x, any(b).(uint8))
	case uint16:
		return cmpOrd(x, any(b).(uint16))
	case uint32:
		return cmpOrd(x, any(b).(uint32))
	case uint64:
		return cmpOrd(x, any(b).(uint64))
	case float32:
		return cmpOrd(x, any(b).(float32))
	case float64:
		return cmpOrd(x, any(b).(float64))
	}
	return 0
}

func cmpOrd[T int8 | int16 | int32 | int64 | uint8 | uint16 | uint32 | uint64 | float32 | float64](a, b T) int {
	if a < b {
		return -1
	}
	if a > b {
		return 1
	}
	return 0
}

// fromBits makes a T from random bits (floats may be any bit pattern).
func fromBits[T encoding.Fixed](u uint64) T {
	var z T
	switch any(z).(type) {
	case bool:
		return any(u&1 == 1).(T)
	case int8:
		return any(int8(u)).(T)
	case int16:
		return any(int16(u)).(T)
	case int32:
		return any(int32(u)).(T)
	case int64:
		return any(int64(u)).(T)
	case uint8:
		return any(uint8(u)).(T)
	case uint16:
		return any(uint16(u)).(T)
	case uint32:
		return any(uint32(u)).(T)
	case uint64:
		return any(u).(T)
	case float32:
		return any(float32(int64(u>>20)) / 1024).(T)
	case float64:
		return any(float64(int64(u>>11)) / 4096).(T)
	}
	return z
}

// fromSmall makes a T from a small non-negative number (bools alternate).
func fromSmall[T encoding.Fixed](u uint64) T {
	var z T
	switch any(z).(type) {
	case bool:
		return any(u&1 == 1).(T)
	case int8:
		return any(int8(u)).(T)
	case int16:
		return any(int16(u)).(T)
	case int32:
		return any(int32(u)).(T)
	case int64:
		return any(int64(u)).(T)
	case uint8:
		return any(uint8(u)).(T)
	case uint16:
		return any(uint16(u)).(T)
	case uint32:
		return any(uint32(u)).(T)
	case uint64:
		return any(u).(T)
	case float32:
		return any(float32(u)).(T)
	case float64:
		return any(float64(u)).(T)
	}
	return z
}

func extremeValues[T encoding.Fixed]() []T {
	var z T
	var out []any
	switch any(z).(type) {
	case bool:
		out = []any{true, false}
	case int8:
		out = []any{int8(math.MinInt8), int8(math.MaxInt8), int8(0), int8(-1)}
	case int16:
		out = []any{int16(math.MinInt16), int16(math.MaxInt16), int16(0), int16(-1)}
	case int32:
		out = []any{int32(math.MinInt32), int32(math.MaxInt32), int32(0), int32(-1)}
	case int64:
		out = []any{int64(math.MinInt64), int64(math.MaxInt64), int64(0), int64(-1)}
	case uint8:
		out = []any{uint8(0), uint8(math.MaxUint8), uint8(1)}
	case uint16:
		out = []any{uint16(0), uint16(math.MaxUint16), uint16(1)}
	case uint32:
		out = []any{uint32(0), uint32(math.MaxUint32), uint32(1)}
	case uint64:
		out = []any{uint64(0), uint64(math.MaxUint64), uint64(1)}
	case float32:
		out = []any{float32(math.NaN()), math.Float32frombits(0x7fc00001), float32(math.Copysign(0, -1)), float32(0),
			float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.MaxFloat32), float32(math.SmallestNonzeroFloat32)}
	case float64:
		out = []any{math.NaN(), math.Float64frombits(0x7ff8000000000123), math.Copysign(0, -1), 0.0,
			math.Inf(1), math.Inf(-1), math.MaxFloat64, math.SmallestNonzeroFloat64}
	}
	res := make([]T, len(out))
	for i, v := range out {
		res[i] = v.(T)
	}
	return res
}

// GenBytes returns n binary values in the given shape.
func GenBytes(shape Shape, n int, seed uint64) encoding.Bytes {
	r := rand.New(rand.NewPCG(seed, uint64(n)+7))
	word := func(l int) []byte {
		b := make([]byte, l)
		for i := range b {
			b[i] = byte('a' + r.IntN(26))
		}
		return b
	}
	var out encoding.Bytes
	out.Offsets = append(out.Offsets, 0)
	switch shape {
	case ShapeConstant:
		w := word(r.IntN(20))
		for i := 0; i < n; i++ {
			out.Append(w)
		}
	case ShapeMainlyConstant:
		w := word(5)
		for i := 0; i < n; i++ {
			if r.IntN(20) == 0 {
				out.Append(word(r.IntN(30)))
			} else {
				out.Append(w)
			}
		}
	case ShapeSorted, ShapeSortedRepeats:
		vals := make([]string, n)
		for i := range vals {
			vals[i] = string(word(1 + r.IntN(6)))
		}
		slices.Sort(vals)
		for _, v := range vals {
			out.Append([]byte(v))
		}
	case ShapeLowCard:
		alpha := make([][]byte, 1+r.IntN(12))
		for i := range alpha {
			alpha[i] = word(r.IntN(12))
		}
		for i := 0; i < n; i++ {
			out.Append(alpha[r.IntN(len(alpha))])
		}
	case ShapeExtremes:
		for i := 0; i < n; i++ {
			switch r.IntN(4) {
			case 0:
				out.Append(nil)
			case 1:
				out.Append([]byte{0, 0xff, 0})
			case 2:
				out.Append(bytes.Repeat([]byte{0xff}, r.IntN(300)))
			default:
				out.Append(word(1))
			}
		}
	default:
		for i := 0; i < n; i++ {
			out.Append(word(r.IntN(40)))
		}
	}
	return out
}

// Same reports whether two values are identical, bit for bit for floats.
func Same[T encoding.Fixed](a, b T) bool {
	switch x := any(a).(type) {
	case float32:
		return math.Float32bits(x) == math.Float32bits(any(b).(float32))
	case float64:
		return math.Float64bits(x) == math.Float64bits(any(b).(float64))
	}
	return a == b
}

// CheckReader reads all of r in random Skip/Read steps, then again after
// Reset, comparing value by value with want.
func CheckReader[T encoding.Fixed](t testing.TB, r encoding.Reader[T], want []T, seed uint64) {
	t.Helper()
	if r.Len() != len(want) {
		t.Fatalf("Len = %d, want %d", r.Len(), len(want))
	}
	rng := rand.New(rand.NewPCG(seed, 99))
	for pass := 0; pass < 2; pass++ {
		r.Reset()
		if r.Pos() != 0 {
			t.Fatalf("Pos after Reset = %d", r.Pos())
		}
		// first pass: one full read; second: random interleaving
		if pass == 0 {
			got := make([]T, len(want))
			if err := r.Read(got); err != nil {
				t.Fatalf("Read all: %v", err)
			}
			for i := range want {
				if !Same(got[i], want[i]) {
					t.Fatalf("value %d = %v, want %v", i, got[i], want[i])
				}
			}
			continue
		}
		pos := 0
		for pos < len(want) {
			n := 1 + rng.IntN(min(len(want)-pos, []int{1, 7, 64, 1000, 5000}[rng.IntN(5)]))
			if rng.IntN(3) == 0 {
				if err := r.Skip(n); err != nil {
					t.Fatalf("Skip(%d) at %d: %v", n, pos, err)
				}
			} else {
				got := make([]T, n)
				if err := r.Read(got); err != nil {
					t.Fatalf("Read(%d) at %d: %v", n, pos, err)
				}
				for i := range got {
					if !Same(got[i], want[pos+i]) {
						t.Fatalf("value %d = %v, want %v (read of %d at %d)", pos+i, got[i], want[pos+i], n, pos)
					}
				}
			}
			pos += n
			if r.Pos() != pos {
				t.Fatalf("Pos = %d, want %d", r.Pos(), pos)
			}
		}
	}
	if len(want) > 0 {
		if err := r.Read(make([]T, 1)); err == nil {
			t.Fatalf("Read past end returned no error")
		}
	}
	r.Reset()
}

// CheckCapabilities checks the optional capabilities r offers (Bounds,
// Gather, Filter) against naive loops over want.
func CheckCapabilities[T encoding.Fixed](t testing.TB, r encoding.Reader[T], want []T, seed uint64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	if ds, ok := r.(encoding.DecodeSpanner); ok && len(want) > 0 {
		for k := 0; k < 20; k++ {
			from := rng.IntN(len(want))
			to := from + 1 + rng.IntN(len(want)-from)
			lo, hi := ds.DecodeSpan(from, to)
			if lo < 0 || lo > from || hi < to || hi > len(want) {
				t.Fatalf("DecodeSpan(%d, %d) = [%d, %d) of %d rows", from, to, lo, hi, len(want))
			}
		}
	}
	if g, ok := r.(encoding.Gatherer[T]); ok && len(want) > 0 {
		var rows []int32
		for i := 0; i < len(want); i += 1 + rng.IntN(50) {
			rows = append(rows, int32(i))
		}
		got := make([]T, len(rows))
		if err := g.Gather(rows, got); err != nil {
			t.Fatalf("Gather: %v", err)
		}
		for i, row := range rows {
			if !Same(got[i], want[row]) {
				t.Fatalf("Gather row %d = %v, want %v", row, got[i], want[row])
			}
		}
	}
	checkNumberCaps(t, r, want, rng)
}

func checkNumberCaps[T encoding.Fixed](t testing.TB, r any, want []T, rng *rand.Rand) {
	switch w := any(want).(type) {
	case []int8:
		numberCaps(t, r, w, rng)
	case []int16:
		numberCaps(t, r, w, rng)
	case []int32:
		numberCaps(t, r, w, rng)
	case []int64:
		numberCaps(t, r, w, rng)
	case []uint8:
		numberCaps(t, r, w, rng)
	case []uint16:
		numberCaps(t, r, w, rng)
	case []uint32:
		numberCaps(t, r, w, rng)
	case []uint64:
		numberCaps(t, r, w, rng)
	case []float32:
		numberCaps(t, r, w, rng)
	case []float64:
		numberCaps(t, r, w, rng)
	}
}

func numberCaps[T encoding.Number](t testing.TB, r any, want []T, rng *rand.Rand) {
	t.Helper()
	if b, ok := r.(encoding.Bounder[T]); ok {
		if mn, mx, ok := b.Bounds(); ok {
			for i, v := range want {
				if v != v {
					continue
				}
				if v < mn || v > mx {
					t.Fatalf("value %d = %v outside Bounds [%v, %v]", i, v, mn, mx)
				}
			}
		}
	}
	f, ok := r.(encoding.Filterer[T])
	if !ok || len(want) == 0 {
		return
	}
	dec := r.(encoding.Reader[T])
	pick := func() T { return want[rng.IntN(len(want))] }
	for trial := 0; trial < 12; trial++ {
		p := &encoding.Pred[T]{Op: encoding.Op(1 + rng.IntN(int(encoding.OpIn)))}
		p.A, p.B = pick(), pick()
		if p.B < p.A {
			p.A, p.B = p.B, p.A
		}
		if p.Op == encoding.OpIn {
			for k := 0; k < 1+rng.IntN(5); k++ {
				p.Set = append(p.Set, pick())
			}
			slices.Sort(p.Set)
			p.Set = slices.Compact(p.Set)
		}
		// Filter from a random start over a random span, with a sparse
		// incoming selection half of the time.
		start := rng.IntN(len(want))
		n := 1 + rng.IntN(len(want)-start)
		sel := encoding.NewBitmap(n, true)
		if trial%2 == 1 {
			for i := 0; i < n; i++ {
				if rng.IntN(3) == 0 {
					sel.Clear(i)
				}
			}
		}
		in := slices.Clone(sel)
		dec.Reset()
		if err := dec.Skip(start); err != nil {
			t.Fatalf("Skip: %v", err)
		}
		if err := f.Filter(p, n, sel); err != nil {
			t.Fatalf("Filter %v: %v", p.Op, err)
		}
		if dec.Pos() != start+n {
			t.Fatalf("Pos after Filter = %d, want %d", dec.Pos(), start+n)
		}
		for i := 0; i < n; i++ {
			exp := in.Get(i) && p.Match(want[start+i])
			if sel.Get(i) != exp {
				t.Fatalf("Filter %v %v/%v at row %d (value %v): got %v want %v", p.Op, p.A, p.B, start+i, want[start+i], sel.Get(i), exp)
			}
		}
	}
	dec.Reset()
}

// RoundTrip encodes vals with policy, checks the node decodes to vals through
// every path, and returns the node.
func RoundTrip[T encoding.Fixed](t testing.TB, p *encoding.Policy, opts *encoding.Options, vals []T) []byte {
	t.Helper()
	node, tree, err := p.Encode(nil, vals)
	if err != nil {
		t.Fatalf("Encode: %v", err)
	}
	r, err := encoding.OpenTyped[T](node, 0, opts)
	if err != nil {
		t.Fatalf("Open %v: %v", tree, err)
	}
	CheckReader(t, r, vals, uint64(len(vals)))
	CheckCapabilities(t, r, vals, uint64(len(vals)))
	return node
}

// RoundTripBytes is RoundTrip for binary values.
func RoundTripBytes(t testing.TB, p *encoding.Policy, opts *encoding.Options, vals encoding.Bytes) []byte {
	t.Helper()
	node, tree, err := p.Encode(nil, vals)
	if err != nil {
		t.Fatalf("Encode: %v", err)
	}
	r, err := encoding.OpenBinary(node, 0, opts)
	if err != nil {
		t.Fatalf("Open %v: %v", tree, err)
	}
	CheckBinaryReader(t, r, vals, uint64(vals.Len()))
	return node
}

// CheckBinaryReader is CheckReader for binary values, and also checks the
// binary capabilities.
func CheckBinaryReader(t testing.TB, r encoding.BinaryReader, want encoding.Bytes, seed uint64) {
	t.Helper()
	n := want.Len()
	if r.Len() != n {
		t.Fatalf("Len = %d, want %d", r.Len(), n)
	}
	rng := rand.New(rand.NewPCG(seed, 5))
	for pass := 0; pass < 2; pass++ {
		r.Reset()
		pos := 0
		for pos < n {
			k := n - pos
			if pass == 1 {
				k = 1 + rng.IntN(min(n-pos, []int{1, 7, 64, 1000}[rng.IntN(4)]))
			}
			if pass == 1 && rng.IntN(3) == 0 {
				if err := r.Skip(k); err != nil {
					t.Fatalf("Skip(%d) at %d: %v", k, pos, err)
				}
			} else {
				var got encoding.Bytes
				if err := r.ReadBinary(&got, k); err != nil {
					t.Fatalf("ReadBinary(%d) at %d: %v", k, pos, err)
				}
				if got.Len() != k {
					t.Fatalf("ReadBinary(%d) appended %d", k, got.Len())
				}
				for i := 0; i < k; i++ {
					if !bytes.Equal(got.Value(i), want.Value(pos+i)) {
						t.Fatalf("value %d = %q, want %q", pos+i, got.Value(i), want.Value(pos+i))
					}
				}
			}
			pos += k
			if r.Pos() != pos {
				t.Fatalf("Pos = %d, want %d", r.Pos(), pos)
			}
		}
	}
	if b, ok := r.(encoding.BinaryBounder); ok {
		if mn, mx, ok := b.BinaryBounds(); ok {
			for i := 0; i < n; i++ {
				v := want.Value(i)
				if bytes.Compare(v, mn) < 0 || bytes.Compare(v, mx) > 0 {
					t.Fatalf("value %d = %q outside bounds [%q, %q]", i, v, mn, mx)
				}
			}
		}
	}
	if g, ok := r.(encoding.BinaryGatherer); ok && n > 0 {
		var rows []int32
		for i := 0; i < n; i += 1 + rng.IntN(50) {
			rows = append(rows, int32(i))
		}
		var got encoding.Bytes
		if err := g.GatherBinary(rows, &got); err != nil {
			t.Fatalf("GatherBinary: %v", err)
		}
		for i, row := range rows {
			if !bytes.Equal(got.Value(i), want.Value(int(row))) {
				t.Fatalf("GatherBinary row %d = %q, want %q", row, got.Value(i), want.Value(int(row)))
			}
		}
	}
	if f, ok := r.(encoding.BinaryFilterer); ok && n > 0 {
		for trial := 0; trial < 10; trial++ {
			p := &encoding.BytesPred{Op: encoding.Op(1 + rng.IntN(int(encoding.OpPrefix)))}
			p.A = want.Value(rng.IntN(n))
			p.B = want.Value(rng.IntN(n))
			if bytes.Compare(p.B, p.A) < 0 {
				p.A, p.B = p.B, p.A
			}
			if p.Op == encoding.OpIn {
				p.Set = [][]byte{p.A, p.B}
				if bytes.Equal(p.A, p.B) {
					p.Set = p.Set[:1]
				}
			}
			if p.Op == encoding.OpPrefix && len(p.A) > 2 {
				p.A = p.A[:2]
			}
			start := rng.IntN(n)
			k := 1 + rng.IntN(n-start)
			sel := encoding.NewBitmap(k, true)
			r.Reset()
			if err := r.Skip(start); err != nil {
				t.Fatalf("Skip: %v", err)
			}
			if err := f.FilterBinary(p, k, sel); err != nil {
				t.Fatalf("FilterBinary: %v", err)
			}
			for i := 0; i < k; i++ {
				if sel.Get(i) != p.Match(want.Value(start+i)) {
					t.Fatalf("FilterBinary %v %q at row %d (%q): got %v", p.Op, p.A, start+i, want.Value(start+i), sel.Get(i))
				}
			}
		}
	}
	r.Reset()
}

// Golden compares node with testdata/golden/<name>.bin, rewriting it with -update.
func Golden(t testing.TB, name string, node []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name+".bin")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, node, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("golden %s: %v (run go test -update to create it)", name, err)
	}
	if !bytes.Equal(node, want) {
		t.Fatalf("golden %s: encoding changed (%d bytes, golden %d); if intended, run go test -update and document the format change", name, len(node), len(want))
	}
}

// Decode exercises every read path of an arbitrary node: it must return an
// error or values, never panic. Used by fuzz targets.
func Decode(node []byte, opts *encoding.Options) error {
	d, err := encoding.Open(node, opts)
	if err != nil {
		return err
	}
	n := d.Len()
	const budget = 1 << 20
	if n > budget {
		n = budget
	}
	switch r := d.(type) {
	case encoding.BinaryReader:
		var b encoding.Bytes
		if err := r.ReadBinary(&b, n); err != nil {
			return err
		}
		if err := WellFormed(&b, n); err != nil {
			return err
		}
		r.Reset()
		if n > 2 {
			if err := r.Skip(n / 2); err != nil {
				return err
			}
			b.Reset()
			b.Data = append(b.Data, "x"...) // appending after existing bytes
			if err := r.ReadBinary(&b, 1); err != nil {
				return err
			}
			return WellFormed(&b, 1)
		}
		return nil
	}
	return decodeFixed(d, n)
}

// WellFormed checks the BinaryReader contract on b after reading n values
// into it: n values, offsets that never decrease, all within b.Data. Its
// error is not ErrCorrupt, so fuzz targets report a violation as a failure.
func WellFormed(b *encoding.Bytes, n int) error {
	if b.Len() != n {
		return fmt.Errorf("decoded %d binary values, want %d", b.Len(), n)
	}
	if n == 0 {
		return nil
	}
	prev := b.Offsets[0]
	if prev < 0 {
		return fmt.Errorf("first offset %d is negative", prev)
	}
	for i, o := range b.Offsets[1:] {
		if o < prev {
			return fmt.Errorf("offset %d decreases: %d after %d", i+1, o, prev)
		}
		prev = o
	}
	if int(prev) > len(b.Data) {
		return fmt.Errorf("last offset %d beyond %d data bytes", prev, len(b.Data))
	}
	return nil
}

func decodeFixed(d encoding.Decoder, n int) error {
	switch d.Type() {
	case encoding.Bool:
		return readSome[bool](d, n)
	case encoding.Int8:
		return readSome[int8](d, n)
	case encoding.Int16:
		return readSome[int16](d, n)
	case encoding.Int32:
		return readSome[int32](d, n)
	case encoding.Int64:
		return readSome[int64](d, n)
	case encoding.Uint8:
		return readSome[uint8](d, n)
	case encoding.Uint16:
		return readSome[uint16](d, n)
	case encoding.Uint32:
		return readSome[uint32](d, n)
	case encoding.Uint64:
		return readSome[uint64](d, n)
	case encoding.Float32:
		return readSome[float32](d, n)
	case encoding.Float64:
		return readSome[float64](d, n)
	}
	return fmt.Errorf("decoder of type %v is not a typed reader", d.Type())
}

func readSome[T encoding.Fixed](d encoding.Decoder, n int) error {
	r, ok := d.(encoding.Reader[T])
	if !ok {
		return fmt.Errorf("%v decoder of type %v does not implement Reader", d.Kind(), d.Type())
	}
	buf := make([]T, n)
	if err := r.Read(buf); err != nil {
		return err
	}
	r.Reset()
	if n > 2 {
		if err := r.Skip(n / 2); err != nil {
			return err
		}
		if err := r.Read(buf[:1]); err != nil {
			return err
		}
		if g, ok := d.(encoding.Gatherer[T]); ok {
			if err := g.Gather([]int32{0, int32(n / 2), int32(n - 1)}, buf[:3]); err != nil {
				return err
			}
		}
	}
	return nil
}
