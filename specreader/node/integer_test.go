package node_test

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"strata/encoding"
	"strata/encoding/all"
	"strata/encoding/nullable"
	"strata/specreader/node"
)

// The tests in this file hold the integer and composite decoders to the Go
// writer: sequences of many shapes are encoded by Strata's own encoder (a
// black-box oracle) with each kind forced at the root, or selected freely,
// and the second reader must return every value bit for bit.

// myKinds are the kinds this file verifies.
var myKinds = []encoding.Kind{
	encoding.KindConstant, encoding.KindTrivial, encoding.KindFixedBitWidth,
	encoding.KindBlockFOR, encoding.KindVarint, encoding.KindDelta, encoding.KindRLE,
	encoding.KindDictionary, encoding.KindMainlyConstant, encoding.KindSparseBool,
	encoding.KindNullable, encoding.KindDeltaOfDelta, encoding.KindLagDelta, encoding.KindScaled,
}

// testLengths are the sequence lengths every shape is tried at.
var testLengths = []int{0, 1, 2, 3, 101, 102, 127, 128, 129, 201, 1000, 5000, 70000}

// shortMode trims the lengths under -short.
func lengthsFor(t *testing.T) []int {
	if testing.Short() {
		return []int{0, 1, 2, 3, 127, 129, 1000}
	}
	return testLengths
}

// intType describes one integer type for the generators.
type intType struct {
	name   string
	bits   uint
	signed bool
	node   node.Type
}

var intTypes = []intType{
	{"int8", 8, true, node.Int8}, {"int16", 16, true, node.Int16}, {"int32", 32, true, node.Int32}, {"int64", 64, true, node.Int64},
	{"uint8", 8, false, node.Uint8}, {"uint16", 16, false, node.Uint16}, {"uint32", 32, false, node.Uint32}, {"uint64", 64, false, node.Uint64},
}

func (it intType) min() uint64 {
	if it.signed {
		return uint64(int64(-1) << (it.bits - 1))
	}
	return 0
}

func (it intType) max() uint64 {
	if it.signed {
		return uint64(1)<<(it.bits-1) - 1
	}
	if it.bits == 64 {
		return math.MaxUint64
	}
	return uint64(1)<<it.bits - 1
}

// intShape generates n raw 64-bit values; they are truncated to the type.
type intShape struct {
	name string
	gen  func(it intType, n int, rng *rand.Rand) []uint64
}

func fill(n int, f func(i int) uint64) []uint64 {
	out := make([]uint64, n)
	for i := range out {
		out[i] = f(i)
	}
	return out
}

var intShapes = []intShape{
	{"zeros", func(it intType, n int, rng *rand.Rand) []uint64 { return make([]uint64, n) }},
	{"constant", func(it intType, n int, rng *rand.Rand) []uint64 {
		return fill(n, func(int) uint64 { return 0x5a5a5a5a5a5a5a5a })
	}},
	{"constmin", func(it intType, n int, rng *rand.Rand) []uint64 { return fill(n, func(int) uint64 { return it.min() }) }},
	{"constmax", func(it intType, n int, rng *rand.Rand) []uint64 { return fill(n, func(int) uint64 { return it.max() }) }},
	{"extremes", func(it intType, n int, rng *rand.Rand) []uint64 {
		return fill(n, func(i int) uint64 {
			switch rng.IntN(4) {
			case 0:
				return it.min()
			case 1:
				return it.max()
			case 2:
				return it.min() + uint64(rng.IntN(3))
			}
			return it.max() - uint64(rng.IntN(3))
		})
	}},
	{"random", func(it intType, n int, rng *rand.Rand) []uint64 {
		return fill(n, func(int) uint64 { return rng.Uint64() })
	}},
	{"small", func(it intType, n int, rng *rand.Rand) []uint64 {
		return fill(n, func(int) uint64 { return uint64(rng.IntN(100)) })
	}},
	{"smallsigned", func(it intType, n int, rng *rand.Rand) []uint64 {
		return fill(n, func(int) uint64 { return uint64(int64(rng.IntN(201) - 100)) })
	}},
	{"runs", func(it intType, n int, rng *rand.Rand) []uint64 {
		v, left := rng.Uint64(), 0
		return fill(n, func(int) uint64 {
			if left == 0 {
				v, left = rng.Uint64()%1000, 1+rng.IntN(300)
			}
			left--
			return v
		})
	}},
	{"fewdistinct", func(it intType, n int, rng *rand.Rand) []uint64 {
		alpha := []uint64{it.min(), it.max(), 7, 1 << 20, ^uint64(2)}
		return fill(n, func(int) uint64 { return alpha[rng.IntN(len(alpha))] })
	}},
	{"sorted", func(it intType, n int, rng *rand.Rand) []uint64 {
		x := it.min()
		return fill(n, func(int) uint64 { x += uint64(rng.IntN(5)); return x })
	}},
	{"descending", func(it intType, n int, rng *rand.Rand) []uint64 {
		x := it.max()
		return fill(n, func(int) uint64 { x -= uint64(rng.IntN(1000)); return x })
	}},
	{"ramp", func(it intType, n int, rng *rand.Rand) []uint64 {
		return fill(n, func(i int) uint64 { return uint64(i) })
	}},
	{"wrapramp", func(it intType, n int, rng *rand.Rand) []uint64 {
		return fill(n, func(i int) uint64 { return it.max() - 50 + uint64(i) })
	}},
	{"periodic24", func(it intType, n int, rng *rand.Rand) []uint64 {
		day := fill(24, func(int) uint64 { return uint64(rng.IntN(1000)) })
		return fill(n, func(i int) uint64 { return day[i%24] + uint64(i/24) })
	}},
	{"periodic7noise", func(it intType, n int, rng *rand.Rand) []uint64 {
		return fill(n, func(i int) uint64 { return uint64(i%7*1000) + uint64(rng.IntN(3)) })
	}},
	{"grid", func(it intType, n int, rng *rand.Rand) []uint64 {
		return fill(n, func(i int) uint64 { return uint64(int64(i%80)*25 - 1000) })
	}},
	{"step5000", func(it intType, n int, rng *rand.Rand) []uint64 {
		return fill(n, func(int) uint64 { return uint64(int64(rng.IntN(40)-5) * 5000) })
	}},
	{"step3", func(it intType, n int, rng *rand.Rand) []uint64 {
		return fill(n, func(int) uint64 { return 11 + 3*uint64(rng.IntN(30)) })
	}},
	{"stepbig", func(it intType, n int, rng *rand.Rand) []uint64 {
		return fill(n, func(int) uint64 { return it.min() + (it.max()/3)*uint64(rng.IntN(4)) })
	}},
	{"timestamps", func(it intType, n int, rng *rand.Rand) []uint64 {
		x := uint64(1_700_000_000_000_000)
		return fill(n, func(i int) uint64 { x += 1_000_000; return x })
	}},
	{"timestampsjitter", func(it intType, n int, rng *rand.Rand) []uint64 {
		x := uint64(1_700_000_000_000)
		return fill(n, func(i int) uint64 {
			x += 1000
			if rng.IntN(10) == 0 {
				return x + uint64(rng.IntN(7)) - 3
			}
			if rng.IntN(500) == 0 {
				x += 100000
			}
			return x
		})
	}},
	{"seconds", func(it intType, n int, rng *rand.Rand) []uint64 {
		x := uint64(1_600_000_000)
		return fill(n, func(i int) uint64 { x += 60; return x })
	}},
	{"mostlyconst", func(it intType, n int, rng *rand.Rand) []uint64 {
		return fill(n, func(int) uint64 {
			if rng.IntN(50) == 0 {
				return rng.Uint64()
			}
			return 42
		})
	}},
	{"outliers", func(it intType, n int, rng *rand.Rand) []uint64 {
		return fill(n, func(int) uint64 {
			if rng.IntN(20) == 0 {
				return it.max() - uint64(rng.IntN(10))
			}
			return uint64(rng.IntN(16))
		})
	}},
	{"negoutliers", func(it intType, n int, rng *rand.Rand) []uint64 {
		return fill(n, func(int) uint64 {
			if rng.IntN(20) == 0 {
				return it.min() + uint64(rng.IntN(10))
			}
			return 1000 + uint64(rng.IntN(16))
		})
	}},
}

// typed converts raw values to a []T of the integer type (truncating).
func typed(it intType, raw []uint64) any {
	switch it.name {
	case "int8":
		return conv(raw, func(x uint64) int8 { return int8(x) })
	case "int16":
		return conv(raw, func(x uint64) int16 { return int16(x) })
	case "int32":
		return conv(raw, func(x uint64) int32 { return int32(x) })
	case "int64":
		return conv(raw, func(x uint64) int64 { return int64(x) })
	case "uint8":
		return conv(raw, func(x uint64) uint8 { return uint8(x) })
	case "uint16":
		return conv(raw, func(x uint64) uint16 { return uint16(x) })
	case "uint32":
		return conv(raw, func(x uint64) uint32 { return uint32(x) })
	}
	return conv(raw, func(x uint64) uint64 { return x })
}

func conv[T any](raw []uint64, f func(uint64) T) []T {
	out := make([]T, len(raw))
	for i, x := range raw {
		out[i] = f(x)
	}
	return out
}

// expected builds the Values the reader must return for vals.
func expected(vals any) node.Values {
	switch s := vals.(type) {
	case []bool:
		return node.Values{Type: node.Bool, Len: len(s), Bool: s}
	case []int8:
		return node.Values{Type: node.Int8, Len: len(s), Int: conv64(s, func(x int8) int64 { return int64(x) })}
	case []int16:
		return node.Values{Type: node.Int16, Len: len(s), Int: conv64(s, func(x int16) int64 { return int64(x) })}
	case []int32:
		return node.Values{Type: node.Int32, Len: len(s), Int: conv64(s, func(x int32) int64 { return int64(x) })}
	case []int64:
		return node.Values{Type: node.Int64, Len: len(s), Int: s}
	case []uint8:
		return node.Values{Type: node.Uint8, Len: len(s), Uint: conv64(s, func(x uint8) uint64 { return uint64(x) })}
	case []uint16:
		return node.Values{Type: node.Uint16, Len: len(s), Uint: conv64(s, func(x uint16) uint64 { return uint64(x) })}
	case []uint32:
		return node.Values{Type: node.Uint32, Len: len(s), Uint: conv64(s, func(x uint32) uint64 { return uint64(x) })}
	case []uint64:
		return node.Values{Type: node.Uint64, Len: len(s), Uint: s}
	case []float32:
		return node.Values{Type: node.Float32, Len: len(s), F32: s}
	case []float64:
		return node.Values{Type: node.Float64, Len: len(s), F64: s}
	case encoding.Bytes:
		n := len(s.Offsets) - 1
		v := node.Values{Type: node.Binary, Len: n, Bin: make([][]byte, n)}
		for i := 0; i < n; i++ {
			v.Bin[i] = s.Data[s.Offsets[i]:s.Offsets[i+1]]
		}
		return v
	}
	panic(fmt.Sprintf("expected: unhandled %T", vals))
}

func conv64[S any, T any](s []S, f func(S) T) []T {
	out := make([]T, len(s))
	for i, x := range s {
		out[i] = f(x)
	}
	return out
}

// sameValues reports the first difference between got and want, comparing
// floats by bit pattern and, when want has Valid, validity too.
func sameValues(got, want node.Values) error {
	if got.Type != want.Type || got.Len != want.Len {
		return fmt.Errorf("got %d %v values, want %d %v", got.Len, got.Type, want.Len, want.Type)
	}
	if want.Valid != nil {
		if len(got.Valid) != want.Len {
			return fmt.Errorf("validity of %d rows, want %d", len(got.Valid), want.Len)
		}
	}
	for i := 0; i < want.Len; i++ {
		if want.Valid != nil {
			if got.Valid[i] != want.Valid[i] {
				return fmt.Errorf("row %d: valid %v, want %v", i, got.Valid[i], want.Valid[i])
			}
		}
		if want.Type == node.Binary {
			if !bytes.Equal(got.Bin[i], want.Bin[i]) {
				return fmt.Errorf("row %d: %q, want %q", i, got.Bin[i], want.Bin[i])
			}
			continue
		}
		if got.Bits(i) != want.Bits(i) {
			return fmt.Errorf("row %d: bits %#x, want %#x", i, got.Bits(i), want.Bits(i))
		}
		// Signed values must be sign-extended, unsigned zero-extended.
		if want.Type.Signed() && got.Int[i] != want.Int[i] || want.Type.Unsigned() && got.Uint[i] != want.Uint[i] {
			return fmt.Errorf("row %d: widened value differs", i)
		}
	}
	return nil
}

// reached counts, per kind, how often it was decoded at the root (forced)
// and anywhere in a tree.
type reached struct {
	root, any map[encoding.Kind]int
	trees     map[string]int
}

func newReached() *reached {
	return &reached{root: map[encoding.Kind]int{}, any: map[encoding.Kind]int{}, trees: map[string]int{}}
}

func (r *reached) add(tree *encoding.Tree) {
	r.root[tree.Kind]++
	r.trees[tree.String()]++
	var walk func(t *encoding.Tree)
	walk = func(t *encoding.Tree) {
		if t == nil {
			return
		}
		r.any[t.Kind]++
		for _, c := range t.Children {
			walk(c)
		}
	}
	walk(tree)
}

// roundTrip decodes node n and compares it with vals; it reports failures
// with the tree for context.
func roundTrip(t *testing.T, what string, n []byte, tree *encoding.Tree, want node.Values) bool {
	t.Helper()
	got, err := node.Decode(n, nil)
	if err != nil {
		t.Errorf("%s: tree %v: decode: %v", what, tree, err)
		return false
	}
	if err := sameValues(got, want); err != nil {
		t.Errorf("%s: tree %v: %v", what, tree, err)
		return false
	}
	return true
}

// policies returns the oracle policies tried: the default, one with small
// blocks (it offers DeltaOfDelta and sets odd block sizes), and ones
// optimizing for size and for speed without zstd.
func policies() map[string]*encoding.Policy {
	def := all.Policy()
	blocks := encoding.DefaultPolicy(all.RegistryWithBlocks(100))
	size := *blocks
	size.Optimize = encoding.OptimizeSize
	speed := *def
	speed.Optimize = encoding.OptimizeSpeed
	speed.Zstd = false
	return map[string]*encoding.Policy{"default": def, "blocks100": blocks, "size": &size, "speed": &speed}
}

// tryKinds encodes vals with every kind of myKinds forced at the root
// under each policy, and with full selection, and checks each decode.
func tryKinds(t *testing.T, label string, vals any, want node.Values, pols map[string]*encoding.Policy, seen *reached) {
	t.Helper()
	names := make([]string, 0, len(pols))
	for name := range pols {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, pname := range names {
		p := pols[pname]
		for _, k := range myKinds {
			if k == encoding.KindNullable {
				continue
			}
			n, tree, err := p.EncodeWith(nil, vals, k)
			if err != nil {
				continue // the encoder refuses this data for this kind
			}
			if tree.Kind != k {
				t.Errorf("%s/%s: forced %v, got tree %v", label, pname, k, tree)
				continue
			}
			seen.add(tree)
			roundTrip(t, fmt.Sprintf("%s/%s/forced %v", label, pname, k), n, tree, want)
		}
		n, tree, err := p.Encode(nil, vals)
		if err != nil {
			t.Errorf("%s/%s: encode: %v", label, pname, err)
			continue
		}
		seen.add(tree)
		roundTrip(t, fmt.Sprintf("%s/%s/selected", label, pname), n, tree, want)
	}
}

func TestIntegerKinds(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	pols := policies()
	seen := newReached()
	for _, it := range intTypes {
		for _, sh := range intShapes {
			for _, n := range lengthsFor(t) {
				if n == 70000 && sh.name != "random" && sh.name != "timestampsjitter" && sh.name != "runs" && sh.name != "periodic24" && sh.name != "step5000" {
					continue
				}
				vals := typed(it, sh.gen(it, n, rng))
				tryKinds(t, fmt.Sprintf("%s/%s/%d", it.name, sh.name, n), vals, expected(vals), pols, seen)
			}
		}
	}
	report(t, seen)
}

// report logs which of the file's kinds were exercised, at the root and
// anywhere in a tree, and fails when one was never at the root.
func report(t *testing.T, seen *reached) {
	t.Helper()
	var b strings.Builder
	for _, k := range myKinds {
		fmt.Fprintf(&b, "  %-15v root %6d  anywhere %6d\n", k, seen.root[k], seen.any[k])
	}
	t.Logf("kinds reached:\n%s", b.String())
	if testing.Verbose() {
		var trees []string
		for s, c := range seen.trees {
			trees = append(trees, fmt.Sprintf("%6d %s", c, s))
		}
		sort.Strings(trees)
		t.Logf("%d distinct trees:\n%s", len(trees), strings.Join(trees, "\n"))
	}
}

// floatShapes generates float64 values (float32 tests narrow them).
var floatShapes = map[string]func(n int, rng *rand.Rand) []float64{
	"zeros":    func(n int, rng *rand.Rand) []float64 { return make([]float64, n) },
	"constant": func(n int, rng *rand.Rand) []float64 { return fillF(n, func(int) float64 { return 3.25 }) },
	"random": func(n int, rng *rand.Rand) []float64 {
		return fillF(n, func(int) float64 { return rng.NormFloat64() * 1e6 })
	},
	"fewspecial": func(n int, rng *rand.Rand) []float64 {
		alpha := []float64{math.Copysign(0, -1), 0, math.Inf(1), math.Inf(-1), math.NaN(), math.Float64frombits(0x7ff8000000000123), math.Float64frombits(0xfff8000000000001), -1.5, 1e300, math.SmallestNonzeroFloat64}
		return fillF(n, func(int) float64 { return alpha[rng.IntN(len(alpha))] })
	},
	"runs": func(n int, rng *rand.Rand) []float64 {
		v, left := 0.0, 0
		return fillF(n, func(int) float64 {
			if left == 0 {
				v, left = float64(rng.IntN(50))/4, 1+rng.IntN(200)
			}
			left--
			return v
		})
	},
	"mostlyconst": func(n int, rng *rand.Rand) []float64 {
		return fillF(n, func(int) float64 {
			if rng.IntN(40) == 0 {
				return rng.Float64()
			}
			return -2.5
		})
	},
	"prices": func(n int, rng *rand.Rand) []float64 {
		return fillF(n, func(int) float64 { return float64(rng.IntN(100000)) / 100 })
	},
}

func fillF(n int, f func(int) float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = f(i)
	}
	return out
}

func TestFloatKinds(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	pols := policies()
	seen := newReached()
	for name, gen := range floatShapes {
		for _, n := range lengthsFor(t) {
			if n == 70000 && name != "random" && name != "fewspecial" {
				continue
			}
			f64 := gen(n, rng)
			tryKinds(t, fmt.Sprintf("float64/%s/%d", name, n), f64, expected(f64), pols, seen)
			f32 := make([]float32, n)
			for i, x := range f64 {
				if math.IsNaN(x) {
					f32[i] = math.Float32frombits(0x7fc00000 | uint32(math.Float64bits(x)&0xff) | uint32(math.Float64bits(x)>>32)&0x80000000)
					continue
				}
				f32[i] = float32(x)
			}
			tryKinds(t, fmt.Sprintf("float32/%s/%d", name, n), f32, expected(f32), pols, seen)
		}
	}
	report(t, seen)
}

var boolShapes = map[string]func(n int, rng *rand.Rand) []bool{
	"false":   func(n int, rng *rand.Rand) []bool { return make([]bool, n) },
	"true":    func(n int, rng *rand.Rand) []bool { return fillB(n, func(int) bool { return true }) },
	"random":  func(n int, rng *rand.Rand) []bool { return fillB(n, func(int) bool { return rng.IntN(2) == 0 }) },
	"sparseT": func(n int, rng *rand.Rand) []bool { return fillB(n, func(int) bool { return rng.IntN(100) == 0 }) },
	"sparseF": func(n int, rng *rand.Rand) []bool { return fillB(n, func(int) bool { return rng.IntN(100) != 0 }) },
	"runs": func(n int, rng *rand.Rand) []bool {
		v, left := false, 0
		return fillB(n, func(int) bool {
			if left == 0 {
				v, left = !v, 1+rng.IntN(500)
			}
			left--
			return v
		})
	},
	"alternate": func(n int, rng *rand.Rand) []bool { return fillB(n, func(i int) bool { return i%2 == 0 }) },
	"tie":       func(n int, rng *rand.Rand) []bool { return fillB(n, func(i int) bool { return i < n/2 }) },
}

func fillB(n int, f func(int) bool) []bool {
	out := make([]bool, n)
	for i := range out {
		out[i] = f(i)
	}
	return out
}

func TestBoolKinds(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	pols := policies()
	seen := newReached()
	for name, gen := range boolShapes {
		for _, n := range lengthsFor(t) {
			vals := gen(n, rng)
			tryKinds(t, fmt.Sprintf("bool/%s/%d", name, n), vals, expected(vals), pols, seen)
		}
	}
	report(t, seen)
}

// binaryOf builds encoding.Bytes from strings.
func binaryOf(ss []string) encoding.Bytes {
	b := encoding.Bytes{Offsets: []int32{0}}
	for _, s := range ss {
		b.Data = append(b.Data, s...)
		b.Offsets = append(b.Offsets, int32(len(b.Data)))
	}
	return b
}

var binaryShapes = map[string]func(n int, rng *rand.Rand) []string{
	"empty":    func(n int, rng *rand.Rand) []string { return make([]string, n) },
	"constant": func(n int, rng *rand.Rand) []string { return fillS(n, func(int) string { return "constant value" }) },
	"fewdistinct": func(n int, rng *rand.Rand) []string {
		alpha := []string{"", "a", "ab", "b", "\x00", "\xff\xfe", "zebra"}
		return fillS(n, func(int) string { return alpha[rng.IntN(len(alpha))] })
	},
	"random": func(n int, rng *rand.Rand) []string {
		return fillS(n, func(int) string {
			b := make([]byte, rng.IntN(20))
			for i := range b {
				b[i] = byte(rng.IntN(256))
			}
			return string(b)
		})
	},
	"runs": func(n int, rng *rand.Rand) []string {
		v, left := "", 0
		return fillS(n, func(int) string {
			if left == 0 {
				v, left = fmt.Sprintf("run-%d", rng.IntN(30)), 1+rng.IntN(100)
			}
			left--
			return v
		})
	},
	"mostlyconst": func(n int, rng *rand.Rand) []string {
		return fillS(n, func(i int) string {
			if rng.IntN(30) == 0 {
				return fmt.Sprintf("exception %d", i)
			}
			return "usual"
		})
	},
	"words": func(n int, rng *rand.Rand) []string {
		return fillS(n, func(i int) string { return fmt.Sprintf("user-%05d@example.com", rng.IntN(3000)) })
	},
}

func fillS(n int, f func(int) string) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = f(i)
	}
	return out
}

func TestBinaryKinds(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	pols := policies()
	seen := newReached()
	for name, gen := range binaryShapes {
		for _, n := range lengthsFor(t) {
			if n == 70000 && name != "random" && name != "words" {
				continue
			}
			vals := binaryOf(gen(n, rng))
			tryKinds(t, fmt.Sprintf("binary/%s/%d", name, n), vals, expected(vals), pols, seen)
		}
	}
	report(t, seen)
}

// compact returns the values of vals at rows where valid is true (same
// slice type), and the expected Values with nulls as zero values.
func compact(vals any, valid []bool) (any, node.Values) {
	want := expected(vals)
	keep := func(i int) bool { return valid[i] }
	var out any
	switch s := vals.(type) {
	case encoding.Bytes:
		var ss []string
		for i := 0; i < len(s.Offsets)-1; i++ {
			if keep(i) {
				ss = append(ss, string(s.Data[s.Offsets[i]:s.Offsets[i+1]]))
			}
		}
		out = binaryOf(ss)
	case []bool:
		out = filter(s, keep)
	case []int8:
		out = filter(s, keep)
	case []int16:
		out = filter(s, keep)
	case []int32:
		out = filter(s, keep)
	case []int64:
		out = filter(s, keep)
	case []uint8:
		out = filter(s, keep)
	case []uint16:
		out = filter(s, keep)
	case []uint32:
		out = filter(s, keep)
	case []uint64:
		out = filter(s, keep)
	case []float32:
		out = filter(s, keep)
	case []float64:
		out = filter(s, keep)
	}
	// Null rows read as zero values.
	z := node.Make(want.Type, want.Len)
	for i := 0; i < want.Len; i++ {
		if valid[i] {
			if want.Type == node.Binary {
				z.Bin[i] = want.Bin[i]
			} else {
				z.SetBits(i, want.Bits(i))
			}
		}
	}
	z.Valid = valid
	return out, z
}

func filter[T any](s []T, keep func(int) bool) []T {
	out := []T{}
	for i, x := range s {
		if keep(i) {
			out = append(out, x)
		}
	}
	return out
}

func TestNullable(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	pols := policies()
	seen := newReached()
	validShapes := map[string]func(n int) []bool{
		"allvalid": func(n int) []bool { return fillB(n, func(int) bool { return true }) },
		"allnull":  func(n int) []bool { return make([]bool, n) },
		"half":     func(n int) []bool { return fillB(n, func(int) bool { return rng.IntN(2) == 0 }) },
		"fewnulls": func(n int) []bool { return fillB(n, func(int) bool { return rng.IntN(50) != 0 }) },
		"nullruns": func(n int) []bool { return fillB(n, func(i int) bool { return i/37%3 != 0 }) },
	}
	var inputs []struct {
		name string
		vals any
	}
	for _, n := range []int{0, 1, 2, 129, 1000, 5000} {
		for _, it := range intTypes {
			for _, sh := range []string{"random", "runs", "sorted", "mostlyconst", "extremes"} {
				for _, s := range intShapes {
					if s.name == sh {
						inputs = append(inputs, struct {
							name string
							vals any
						}{fmt.Sprintf("%s/%s/%d", it.name, sh, n), typed(it, s.gen(it, n, rng))})
					}
				}
			}
		}
		f := floatShapes["fewspecial"](n, rng)
		inputs = append(inputs, struct {
			name string
			vals any
		}{fmt.Sprintf("float64/%d", n), f})
		f32 := make([]float32, n)
		for i := range f32 {
			f32[i] = float32(rng.NormFloat64())
		}
		inputs = append(inputs, struct {
			name string
			vals any
		}{fmt.Sprintf("float32/%d", n), f32})
		inputs = append(inputs, struct {
			name string
			vals any
		}{fmt.Sprintf("bool/%d", n), boolShapes["random"](n, rng)})
		inputs = append(inputs, struct {
			name string
			vals any
		}{fmt.Sprintf("binary/%d", n), binaryOf(binaryShapes["words"](n, rng))})
	}
	forced := []*encoding.Tree{
		nil,
		{Kind: encoding.KindNullable, Children: []*encoding.Tree{{Kind: encoding.KindRLE}, {Kind: encoding.KindTrivial}}},
		{Kind: encoding.KindNullable, Children: []*encoding.Tree{{Kind: encoding.KindSparseBool}, {Kind: encoding.KindDictionary}}},
		{Kind: encoding.KindNullable, Children: []*encoding.Tree{{Kind: encoding.KindTrivial}, {Kind: encoding.KindDelta}}},
	}
	for _, in := range inputs {
		for vname, vgen := range validShapes {
			n := expected(in.vals).Len
			valid := vgen(n)
			compacted, want := compact(in.vals, valid)
			for pname, p := range pols {
				for fi, f := range forced {
					q := *p
					q.Force = f
					enc, tree, err := nullable.Encode(&q, nil, compacted, valid)
					if err != nil {
						t.Errorf("%s/%s/%s: nullable.Encode: %v", in.name, vname, pname, err)
						continue
					}
					if tree.Kind != encoding.KindNullable {
						t.Errorf("%s: tree %v is not Nullable", in.name, tree)
					}
					seen.add(tree)
					roundTrip(t, fmt.Sprintf("%s/%s/%s/force%d", in.name, vname, pname, fi), enc, tree, want)
				}
			}
		}
	}
	report(t, seen)
}

// TestForcedTrees forces whole trees, so that the composite kinds appear
// with each of the leaf kinds as children (and block kinds below Delta and
// Scaled), then checks every decode.
func TestForcedTrees(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	pols := policies()
	seen := newReached()
	leaf := []encoding.Kind{encoding.KindTrivial, encoding.KindFixedBitWidth, encoding.KindVarint, encoding.KindBlockFOR,
		encoding.KindDelta, encoding.KindDeltaOfDelta, encoding.KindRLE, encoding.KindConstant, encoding.KindDictionary,
		encoding.KindMainlyConstant, encoding.KindScaled, encoding.KindLagDelta}
	parents := []encoding.Kind{encoding.KindRLE, encoding.KindDictionary, encoding.KindMainlyConstant, encoding.KindDelta,
		encoding.KindLagDelta, encoding.KindScaled, encoding.KindTrivial, encoding.KindSparseBool}
	var inputs []any
	for _, n := range []int{2, 3, 129, 1000} {
		for _, it := range intTypes {
			for _, s := range intShapes {
				switch s.name {
				case "runs", "periodic24", "step5000", "mostlyconst", "timestampsjitter", "extremes", "fewdistinct":
					inputs = append(inputs, typed(it, s.gen(it, n, rng)))
				}
			}
		}
		inputs = append(inputs, binaryOf(binaryShapes["words"](n, rng)), binaryOf(binaryShapes["random"](n, rng)), boolShapes["sparseT"](n, rng))
	}
	for _, vals := range inputs {
		want := expected(vals)
		for _, pk := range parents {
			for i, c0 := range leaf {
				// Each leaf as either child, paired with two others: the
				// whole cross product takes minutes for little more.
				for _, c1 := range []encoding.Kind{leaf[i], leaf[(i+5)%len(leaf)], leaf[(i+7)%len(leaf)]} {
					for pname, p := range pols {
						if pname != "default" && pname != "blocks100" {
							continue
						}
						q := *p
						q.Force = &encoding.Tree{Kind: pk, Children: []*encoding.Tree{{Kind: c0}, {Kind: c1}}}
						enc, tree, err := q.Encode(nil, vals)
						if err != nil {
							continue
						}
						seen.add(tree)
						roundTrip(t, fmt.Sprintf("%v/%d/%s/%v(%v,%v)", want.Type, want.Len, pname, pk, c0, c1), enc, tree, want)
					}
				}
			}
		}
	}
	report(t, seen)
}

// TestDocExamples decodes the byte examples of FORMAT.md.
func TestDocExamples(t *testing.T) {
	le64 := func(x uint64) []byte {
		b := make([]byte, 8)
		for i := range b {
			b[i] = byte(x >> (8 * i))
		}
		return b
	}
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	trivInt64 := func(xs ...int64) []byte {
		b := []byte{2, byte(node.Int64), 0, byte(len(xs))}
		for _, x := range xs {
			b = append(b, le64(uint64(x))...)
		}
		return b
	}
	// The composite examples, with Trivial children.
	rleLens := []byte{2, byte(node.Uint32), 0, 3, 3, 0, 0, 0, 2, 0, 0, 0, 5, 0, 0, 0}
	rleVals := []byte{2, byte(node.Int32), 0, 3, 5, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 7, 0, 0, 0}
	mcPos := []byte{2, byte(node.Uint32), 0, 2, 3, 0, 0, 0, 8, 0, 0, 0}
	mcVals := []byte{2, byte(node.Int32), 0, 2, 0xfc, 0xff, 0xff, 0xff, 100, 0, 0, 0}
	dictAlpha := trivInt64(-5, 7, 30)
	dictIDs := []byte{2, byte(node.Uint32), 0, 7, 2, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0}
	cases := []struct {
		name string
		node []byte
		want []int64
	}{
		{"FixedBitWidth", cat([]byte{3, byte(node.Int32), 0, 5}, []byte{0x04, 0x64, 0, 0, 0, 0x73, 0, 0, 0, 0x10, 0x05, 0x0f}), []int64{100, 101, 105, 100, 115}},
		{"BlockFOR", cat([]byte{4, byte(node.Int16), 0, 8}, []byte{0x08, 0x03, 0x86, 0x07, 0x05, 0x02, 0x02, 0x18, 0x83, 0x33, 0x86, 0x03, 0x00}), []int64{3, 5, 4, 900, 6, 3, -2, 5}},
		{"Delta", cat([]byte{6, byte(node.Int32), 0, 6, 0x04, 0x14, 0x00, 0x07, 0x14, 0x02, 0x00, 0x02, 36}, trivInt64(1, 2, 0, 1)), []int64{10, 11, 13, 13, 20, 21}},
		{"DeltaOfDelta", []byte{0x13, 0x05, 0x00, 0x0c, 0x04, 0x00, 0xc8, 0x01, 0x14, 0x00, 0x00, 0x00, 0x80, 0x03, 0x00, 0x02, 0x05, 0x00, 0x05, 0x30},
			[]int64{100, 110, 120, 130, 140, 150, 160, 170, 180, 191, 199, 210}},
		{"LagDelta", cat([]byte{0x16, 0x04, 0x00, 0x06, 0x02, 0x0c, 0x02, 0x04, 0x00, 0x02, 5, 0, 0, 0, 9, 0, 0, 0, 0x24}, trivInt64(1, 1, 1, 1)), []int64{5, 9, 6, 10, 7, 11}},
		{"Scaled", cat([]byte{0x18, 0x04, 0x00, 0x04}, le64(uint64(0xffffffffffffec78)), []byte{0x88, 0x27, 24, 0x03, 0x09, 0x00, 0x04, 0x05}, le64(0), le64(22), []byte{0xc0, 0x04, 0x0b}),
			[]int64{-5000, 25000, 0, 105000}},
		{"RLE", cat([]byte{7, byte(node.Int32), 0, 10, byte(len(rleLens))}, rleLens, []byte{byte(len(rleVals))}, rleVals),
			[]int64{5, 5, 5, -1, -1, 7, 7, 7, 7, 7}},
		{"MainlyConstant", cat([]byte{9, byte(node.Int32), 0, 10, 9, 0, 0, 0, byte(len(mcPos))}, mcPos, []byte{byte(len(mcVals))}, mcVals),
			[]int64{9, 9, 9, -4, 9, 9, 9, 9, 100, 9}},
		{"Dictionary", cat([]byte{8, byte(node.Int64), 0, 7, byte(len(dictAlpha))}, dictAlpha, []byte{byte(len(dictIDs))}, dictIDs),
			[]int64{30, -5, 30, 30, 7, -5, 30}},
	}
	for _, c := range cases {
		got, err := node.Decode(c.node, nil)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if fmt.Sprint(got.Int) != fmt.Sprint(c.want) {
			t.Errorf("%s: got %v, want %v", c.name, got.Int, c.want)
		}
	}
}

// TestCorruptRejected checks that truncations and single-byte changes of
// oracle nodes never panic and that truncations are always rejected.
func TestCorruptRejected(t *testing.T) {
	for _, seed := range fuzzSeeds(t) {
		for cut := 0; cut < len(seed); cut++ {
			_, err := node.Decode(seed[:cut], nil)
			if err == nil {
				// A prefix can be a valid node only by accident: a shorter
				// body must change something the checks see.
				t.Errorf("prefix %d of %x decodes", cut, seed)
			} else if !errors.Is(err, node.ErrCorrupt) && !errors.Is(err, node.ErrUnsupported) {
				t.Errorf("prefix %d of %x: error %v wraps neither ErrCorrupt nor ErrUnsupported", cut, seed, err)
			}
		}
		for i := range seed {
			m := bytes.Clone(seed)
			m[i] ^= 0x41
			_, _ = node.Decode(m, nil)
		}
	}
}

// TestBlockSizes forces the block kinds under block sizes from 1 to 65536,
// so that blocks of one, two and three rows, short last blocks and regular
// DeltaOfDelta blocks after short ones all occur.
func TestBlockSizes(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	seen := newReached()
	blockKinds := []encoding.Kind{encoding.KindBlockFOR, encoding.KindDelta, encoding.KindDeltaOfDelta}
	for _, bs := range []int{1, 2, 3, 7, 64, 65536} {
		p := encoding.DefaultPolicy(all.RegistryWithBlocks(bs))
		for _, it := range intTypes {
			for _, sh := range intShapes {
				switch sh.name {
				case "random", "extremes", "sorted", "timestamps", "timestampsjitter", "wrapramp", "descending", "outliers", "negoutliers":
				default:
					continue
				}
				for _, n := range []int{0, 1, 2, 3, 4, 8, 9, 10, 15, 100, 1000, 5000} {
					vals := typed(it, sh.gen(it, n, rng))
					want := expected(vals)
					for _, k := range blockKinds {
						enc, tree, err := p.EncodeWith(nil, vals, k)
						if err != nil {
							continue
						}
						if tree.Kind != k {
							t.Errorf("forced %v, got %v", k, tree)
							continue
						}
						seen.add(tree)
						roundTrip(t, fmt.Sprintf("bs%d/%s/%s/%d/%v", bs, it.name, sh.name, n, k), enc, tree, want)
					}
				}
			}
		}
	}
	report(t, seen)
}
