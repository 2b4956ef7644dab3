package digittext_test

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"strata/encoding"
	"strata/encoding/all"
	"strata/encoding/digittext"
	"strata/encoding/encodingtest"
)

// The shared suite (suite_test.go) checks DigitText on every shape it
// stores (digit strings: zero-padded decimals and numbers of mixed widths),
// with and without nulls. The tests here cover what is particular to it:
// the two modes of the shape child on the forms each is for, filters with
// operands at other widths and just outside the digits (filters compare
// integers and widths), Fit, selection, golden bytes and hand-made corrupt
// nodes.

const kDT = encoding.KindDigitText

func bytesOf(vs ...string) encoding.Bytes {
	var b encoding.Bytes
	b.Offsets = append(b.Offsets, 0)
	for _, v := range vs {
		b.Append([]byte(v))
	}
	return b
}

// digitShapes returns n digit strings in each form the modes are chosen
// on: fixed-width codes with leading zeros (zip codes), sorted and random;
// numbers without leading zeros; mixed widths with leading zeros; few
// distinct values; empties; 19-digit extremes; all equal.
func digitShapes(n int, seed uint64) map[string][]string {
	r := rand.New(rand.NewPCG(seed, uint64(n)))
	pad := func(v uint64, w int) string { return fmt.Sprintf("%0*d", w, v) }
	out := map[string][]string{}
	zips := make([]string, n)
	for i := range zips {
		zips[i] = pad(r.Uint64N(100000), 5)
	}
	out["fixed-random"] = zips
	sz := slices.Clone(zips)
	slices.Sort(sz)
	out["fixed-sorted"] = sz
	nums := make([]string, n)
	for i := range nums {
		nums[i] = strconv.FormatUint(r.Uint64N(1<<uint(1+r.IntN(40))), 10)
	}
	out["plain-numbers"] = nums
	mixed := make([]string, n)
	for i := range mixed {
		mixed[i] = pad(r.Uint64N(1000), r.IntN(8))
	}
	out["mixed-widths"] = mixed
	few := make([]string, n)
	alpha := []string{"53000", "53073", "30105", "00123", "16021"}
	for i := range few {
		few[i] = alpha[r.IntN(len(alpha))]
	}
	out["few-distinct"] = few
	emp := make([]string, n)
	for i := range emp {
		if r.IntN(3) > 0 {
			emp[i] = pad(r.Uint64N(100), 2)
		}
	}
	out["empties"] = emp
	ext := make([]string, n)
	for i := range ext {
		ext[i] = []string{"9999999999999999999", "0000000000000000000", "0", "00", "1234567890123456789", "1"}[r.IntN(6)]
	}
	out["extremes"] = ext
	out["all-equal"] = slices.Repeat([]string{"007"}, n)
	return out
}

// TestShapes runs the suite's checks on each form, and the filters with
// operands around the digits.
func TestShapes(t *testing.T) {
	for _, n := range []int{1, 9, 1025, 5000} {
		for name, vals := range digitShapes(n, 1) {
			t.Run(fmt.Sprintf("%s/%d", name, n), func(t *testing.T) {
				encodingtest.CheckBinaryForm(t, digittext.Codec, bytesOf(vals...), 5, operands)
			})
		}
	}
}

// operands returns predicate operands near the values: present values, the
// same number at another width, prefixes, non-digits around '0' and '9',
// longer and shorter strings, the empty string.
func operands(vals encoding.Bytes, rng *rand.Rand) [][]byte {
	n := vals.Len()
	pick := func() []byte { return bytes.Clone(vals.Value(rng.IntN(n))) }
	out := [][]byte{nil, []byte("/"), []byte(":"), []byte("0"), []byte("9"), []byte("99999999999999999999")}
	for i := 0; i < 6; i++ {
		v := pick()
		out = append(out, v, append(bytes.Clone(v), '0'), append(bytes.Clone(v), ':'), append([]byte("0"), v...))
		if len(v) > 1 {
			out = append(out, v[:len(v)-1], append(bytes.Clone(v[:len(v)-1]), '/'))
		}
	}
	return out
}

// TestModes checks that the shape child costs nothing on the two common
// forms: fixed widths and numbers without leading zeros, where DigitText is
// the smallest encoding (the default policy may prefer Trivial+zstd, which
// is a little larger on random digits and decodes faster).
func TestModes(t *testing.T) {
	p := all.Policy()
	p.Optimize = encoding.OptimizeSize
	for name, vals := range digitShapes(8192, 3) {
		if name != "fixed-random" && name != "plain-numbers" {
			continue
		}
		_, tree, err := p.Encode(nil, bytesOf(vals...))
		if err != nil {
			t.Fatal(err)
		}
		if tree.Kind != kDT || tree.Children[1].Kind != encoding.KindConstant {
			t.Errorf("%s: chose %v, want DigitText with a Constant shape", name, tree)
		}
	}
}

func TestFit(t *testing.T) {
	for _, vals := range [][]string{{"12", "1a"}, {"12", "-3"}, {"1.5"}, {"12345678901234567890"}, {" 1"}} {
		st := encoding.ComputeStats(bytesOf(vals...))
		if digittext.Codec.Encoder.Fit(st) {
			t.Errorf("Fit(%q) = true", vals)
		}
	}
	st := encoding.ComputeStats(bytesOf("0012", "", "9999999999999999999"))
	if !digittext.Codec.Encoder.Fit(st) {
		t.Errorf("Fit of digits = false")
	}
}

func TestGolden(t *testing.T) {
	for name, c := range map[string]struct {
		vals  []string
		shape encoding.Kind
		tree  string
	}{
		"digittext-widths": {[]string{"00501", "00544", "10001", "99950"}, encoding.KindConstant, "DigitText(FixedBitWidth, Constant)"},
		"digittext-zeros":  {[]string{"7", "42", "007", "1000"}, encoding.KindFixedBitWidth, "DigitText(FixedBitWidth, FixedBitWidth)"},
	} {
		vals := bytesOf(c.vals...)
		node, tree, err := encodingtest.GoldenPolicy(digittext.Codec, encodingtest.T(kDT,
			encodingtest.T(encoding.KindFixedBitWidth), encodingtest.T(c.shape))).Encode(nil, vals)
		if err != nil {
			t.Fatal(err)
		}
		if tree.String() != c.tree {
			t.Fatalf("%s: tree %v", name, tree)
		}
		encodingtest.Golden(t, name, node)
		r, err := encoding.OpenBinary(node, 0, all.Options())
		if err != nil {
			t.Fatal(err)
		}
		encodingtest.CheckBinaryReader(t, r, vals, 1)
	}
}

// TestCorrupt hand-builds nodes that break each rule of the format.
func TestCorrupt(t *testing.T) {
	u64 := func(v ...uint64) []byte { return encodingtest.Child(t, v, encodingtest.T(encoding.KindTrivial)) }
	u8 := func(v ...uint8) []byte { return encodingtest.Child(t, v, encodingtest.T(encoding.KindTrivial)) }
	node := func(rows int, mode byte, parts ...[]byte) []byte {
		return encodingtest.Node(kDT, encoding.Binary, rows, append([][]byte{{mode}}, parts...)...)
	}
	if err := encodingtest.Exercise(node(2, 0, u64(5, 17), u8(3, 2)), all.Options()); err != nil {
		t.Fatalf("good node: %v", err)
	}
	cases := map[string][]byte{
		"value wider than width": node(2, 0, u64(5, 170), u8(3, 2)),
		// a constant width takes the decoder's fast path
		"value wider than constant width": node(3, 0, u64(5, 17, 1000),
			encodingtest.Child(t, []uint8{3, 3, 3}, encodingtest.T(encoding.KindConstant))),
		"value of 20 digits": node(2, 1, u64(5, 1e19), u8(0, 0)),
		"width beyond 19":    node(2, 0, u64(5, 17), u8(3, 20)),
		"zeros beyond 19":    node(2, 1, u64(5, 17), u8(3, 18)),
		"rows":               node(2, 0, u64(5), u8(3, 2)),
		"trailing":           append(node(2, 0, u64(5, 17), u8(3, 2)), 1),
		"missing shape":      node(2, 0, u64(5, 17)),
		"shape type":         node(2, 0, u64(5, 17), u64(3, 2)),
		"no mode":            encodingtest.Node(kDT, encoding.Binary, 0),
	}
	for name, n := range cases {
		encodingtest.WantCorrupt(t, name, n)
	}
	if err := encodingtest.Exercise(node(2, 7, u64(5, 17), u8(3, 2)), all.Options()); !errors.Is(err, encoding.ErrUnsupported) {
		t.Fatalf("unknown mode: %v", err)
	}
}
