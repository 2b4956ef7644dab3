package encodingtest

import (
	"bytes"
	"errors"
	"flag"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"

	"strata/encoding"
	"strata/encoding/all"
)

// Helpers for the tests an encoding writes beside the suite: golden bytes,
// hand-made hostile nodes, forced layouts, and checks of values it builds
// itself.

var update = flag.Bool("update", false, "rewrite golden files")

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

type alwaysFit struct{ encoding.Encoder }

func (alwaysFit) Fit(*encoding.Stats) bool { return true }

// AlwaysFit returns a copy of c whose Fit accepts any sequence, so a forced
// tree places c at any node (not only the root, as Policy.EncodeWith does).
// Use it only with encoders that can store any sequence of their types.
func AlwaysFit(c *encoding.Codec) *encoding.Codec {
	cc := *c
	if cc.Encoder != nil {
		cc.Encoder = alwaysFit{c.Encoder}
	}
	return &cc
}

// GoldenPolicy returns a policy over Registry(AlwaysFit(c)) (the full
// registry when c is nil) replaying force, with zstd off: golden bytes must
// not depend on the compressor's version.
func GoldenPolicy(c *encoding.Codec, force *encoding.Tree) *encoding.Policy {
	reg := all.Registry()
	if c != nil {
		reg = Registry(AlwaysFit(c))
	}
	p := encoding.DefaultPolicy(reg)
	p.Zstd = false
	p.Force = force
	return p
}

// T is shorthand for a forced tree node.
func T(k encoding.Kind, children ...*encoding.Tree) *encoding.Tree {
	return &encoding.Tree{Kind: k, Children: children}
}

// Child encodes vals forced to tree (zstd off) and returns it as a
// length-prefixed child, for assembling hand-made (hostile) nodes.
func Child(t testing.TB, vals any, tree *encoding.Tree) []byte {
	t.Helper()
	node, got, err := GoldenPolicy(nil, tree).EncodeSequence(nil, vals, 1, encoding.KindInvalid, tree)
	if err != nil {
		t.Fatalf("child: %v", err)
	}
	if got.Kind != tree.Kind {
		t.Fatalf("child encoded as %v, want %v", got, tree)
	}
	return encoding.AppendChild(nil, node)
}

// Node assembles a node prefix and body parts.
func Node(k encoding.Kind, typ encoding.Type, rows int, parts ...[]byte) []byte {
	n := encoding.AppendHeader(nil, k, typ, rows)
	for _, p := range parts {
		n = append(n, p...)
	}
	return n
}

// WantCorrupt checks that opening or fully decoding node fails with an
// error wrapping ErrCorrupt.
func WantCorrupt(t testing.TB, name string, node []byte) {
	t.Helper()
	err := Exercise(node, all.Options())
	if err == nil {
		t.Fatalf("%s: decoded without error", name)
	}
	if !errors.Is(err, encoding.ErrCorrupt) {
		t.Fatalf("%s: error %v does not wrap ErrCorrupt", name, err)
	}
}

// RoundTrip encodes vals (a []T or Bytes) with p, checks the node through
// every read path against vals, and returns it.
func RoundTrip(t testing.TB, p *encoding.Policy, opts *encoding.Options, vals any) []byte {
	t.Helper()
	node, tree, err := p.Encode(nil, vals)
	if err != nil {
		t.Fatalf("Encode: %v", err)
	}
	if err := checkNode(newChecker(uint64(encoding.LenOf(vals)), false), node, opts, vals, nil); err != nil {
		t.Fatalf("%v: %v", tree, err)
	}
	return node
}

// CheckNode checks every read path of node against vals (a []T or Bytes)
// spread over the valid rows of valid (nil: no nulls).
func CheckNode(t testing.TB, node []byte, opts *encoding.Options, vals any, valid []bool) {
	t.Helper()
	if err := checkNode(newChecker(uint64(len(node)), false), node, opts, vals, valid); err != nil {
		t.Fatal(err)
	}
}

// CheckReader checks every read path of r against want.
func CheckReader[T encoding.Fixed](t testing.TB, r encoding.Reader[T], want []T, seed uint64) {
	t.Helper()
	if err := checkFixed(newChecker(seed, false), r, want, nil); err != nil {
		t.Fatal(err)
	}
}

// CheckBinaryReader checks every read path of r against want.
func CheckBinaryReader(t testing.TB, r encoding.BinaryReader, want encoding.Bytes, seed uint64) {
	t.Helper()
	if err := checkBinary(newChecker(seed, false), r, &want, nil); err != nil {
		t.Fatal(err)
	}
}

// CheckBinaryFilters runs each of preds through r's FilterBinary over a
// random span with a sparse incoming selection every other time, and
// checks the selection row by row against BytesPred.Match on want, the
// cursor after the span and the value after it. The suite draws its own
// operands; an encoding adds the ones its filters treat specially.
func CheckBinaryFilters(t testing.TB, r encoding.BinaryReader, want encoding.Bytes, preds []*encoding.BytesPred, seed uint64) {
	t.Helper()
	if _, ok := r.(encoding.BinaryFilterer); !ok {
		t.Fatalf("%T is not a BinaryFilterer", r)
	}
	if err := filterBinaryPreds(newChecker(seed, false), r, &want, nil, preds); err != nil {
		t.Fatal(err)
	}
}

// BytesPreds returns predicates for CheckBinaryFilters over the operands
// an encoding's filters treat specially, which operands(vals, rng) lists:
// every operator (Eq, Ne, Lt, Le, Gt, Ge, Prefix) with each operand,
// Between of it and another operand in both bound orders (a reversed
// range matches nothing), and In of a set of it and up to two others. On
// more than 2000 values an eighth of them, chosen at random, are kept.
// The operands and the choices come from one generator seeded by seed and
// the length of vals, so a failing case repeats.
func BytesPreds(vals encoding.Bytes, seed uint64, operands func(encoding.Bytes, *rand.Rand) [][]byte) []*encoding.BytesPred {
	rng := rand.New(rand.NewPCG(seed, uint64(vals.Len())))
	ops := operands(vals, rng)
	var out []*encoding.BytesPred
	for _, a := range ops {
		b := ops[rng.IntN(len(ops))]
		if bytes.Compare(a, b) > 0 {
			a, b = b, a
		}
		for _, op := range []encoding.Op{encoding.OpEq, encoding.OpNe, encoding.OpLt, encoding.OpLe, encoding.OpGt, encoding.OpGe, encoding.OpPrefix} {
			out = append(out, &encoding.BytesPred{Op: op, A: a})
		}
		set := [][]byte{a, b, ops[rng.IntN(len(ops))]}
		slices.SortFunc(set, bytes.Compare)
		set = slices.CompactFunc(set, bytes.Equal)
		out = append(out, &encoding.BytesPred{Op: encoding.OpBetween, A: a, B: b},
			&encoding.BytesPred{Op: encoding.OpBetween, A: b, B: a}, &encoding.BytesPred{Op: encoding.OpIn, Set: set})
	}
	if vals.Len() > 2000 {
		rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
		out = out[:len(out)/8]
	}
	return out
}

// CheckBinaryForm checks a text encoding on one form of the values it is
// for: the suite's checks (Check with c), then vals encoded with c at the
// root by the default policy (all.Policy().EncodeWith; the root must stay
// c, so the form must be one c's Fit accepts) and FilterBinary on that
// node, row by row against BytesPred.Match, over BytesPreds(vals, seed,
// operands) (CheckBinaryFilters with the same seed): the operands an
// encoding's filters settle without decoding are the ones most likely to
// be wrong.
func CheckBinaryForm(t *testing.T, c *encoding.Codec, vals encoding.Bytes, seed uint64, operands func(encoding.Bytes, *rand.Rand) [][]byte) {
	t.Helper()
	Check(t, c, vals)
	node, tree, err := all.Policy().EncodeWith(nil, vals, c.Kind)
	if err != nil {
		t.Fatal(err)
	}
	if tree.Kind != c.Kind {
		t.Fatalf("encoded as %v", tree)
	}
	r, err := encoding.OpenBinary(node, 0, all.Options())
	if err != nil {
		t.Fatal(err)
	}
	CheckBinaryFilters(t, r, vals, BytesPreds(vals, seed, operands), seed)
}

// Corrupt feeds node cut short at many lengths, and with each bit of its
// bytes 3 to flips flipped (the header's kind and type left alone), to
// exercise (ExerciseInts, or Exercise with the encoding's options): every
// cut must be refused with an error wrapping a sentinel, and every flip
// must decode or be refused so. Neither may panic.
func Corrupt(t *testing.T, node []byte, flips int, exercise func([]byte) error) {
	t.Helper()
	for cut := 0; cut < len(node); cut += 1 + cut/16 {
		err := exercise(node[:cut])
		if err == nil {
			t.Fatalf("truncated node of %d/%d bytes decoded without error", cut, len(node))
		}
		if !IsSentinel(err) {
			t.Fatalf("cut %d/%d: error %v wraps no sentinel", cut, len(node), err)
		}
	}
	c := make([]byte, len(node))
	for i := 3; i < min(len(node), flips); i++ {
		for bit := 0; bit < 8; bit++ {
			copy(c, node)
			c[i] ^= 1 << bit
			if err := exercise(c); !IsRefusal(err) {
				t.Fatalf("byte %d bit %d flipped: error %v wraps no sentinel", i, bit, err)
			}
		}
	}
}

// ExerciseInts runs Exercise and then the integer paths it leaves out:
// block bounds, a Gather of the first, middle and last rows, and Filter
// after a one-row Skip (a window that starts off a word boundary), for
// decoders that offer them.
func ExerciseInts(node []byte) error {
	if err := Exercise(node, all.Options()); err != nil {
		return err
	}
	d, err := encoding.Open(node, all.Options())
	if err != nil {
		return err
	}
	switch d.Type() {
	case encoding.Int8:
		return intPaths[int8](d)
	case encoding.Int16:
		return intPaths[int16](d)
	case encoding.Int32:
		return intPaths[int32](d)
	case encoding.Int64:
		return intPaths[int64](d)
	case encoding.Uint8:
		return intPaths[uint8](d)
	case encoding.Uint16:
		return intPaths[uint16](d)
	case encoding.Uint32:
		return intPaths[uint32](d)
	case encoding.Uint64:
		return intPaths[uint64](d)
	}
	return nil
}

func intPaths[T encoding.Integer](d encoding.Decoder) error {
	n := min(d.Len(), 1<<20)
	if n == 0 {
		return nil
	}
	if bb, ok := d.(encoding.BlockBounder[T]); ok {
		for b := 0; b < bb.Blocks(); b++ {
			bb.BlockBounds(b)
		}
	}
	if g, ok := d.(encoding.Gatherer[T]); ok {
		rows := []int32{0, int32(n / 2), int32(n - 1)}
		if n < 3 {
			rows = rows[:1]
		}
		if err := g.Gather(rows, make([]T, len(rows))); err != nil {
			return err
		}
	}
	f, ok := d.(encoding.Filterer[T])
	if !ok {
		return nil
	}
	var lo, hi T
	if b, ok := d.(encoding.Bounder[T]); ok {
		lo, hi, _ = b.Bounds()
	}
	for _, p := range []*encoding.Pred[T]{
		{Op: encoding.OpBetween, A: lo, B: lo + (hi-lo)/2},
		{Op: encoding.OpNe, A: hi},
	} {
		d.Reset()
		if err := d.Skip(1); err != nil {
			return err
		}
		if err := f.Filter(p, n-1, encoding.NewBitmap(n, true)); err != nil {
			return err
		}
	}
	return nil
}

// CheckGolden decodes testdata/golden/<name>.bin and compares it value by
// value with want (a []float64 or []float32), the data it was written
// from: a reader change that misreads old nodes then fails even when the
// writer still agrees with itself.
func CheckGolden(t testing.TB, name string, want any) {
	t.Helper()
	node := ReadGolden(t, name)
	switch w := want.(type) {
	case []float64:
		checkGolden(t, node, w)
	case []float32:
		checkGolden(t, node, w)
	default:
		t.Fatalf("golden %s: values of type %T", name, want)
	}
}

func checkGolden[T float32 | float64](t testing.TB, node []byte, want []T) {
	t.Helper()
	r, err := encoding.OpenTyped[T](node, 0, all.Options())
	if err != nil {
		t.Fatal(err)
	}
	CheckReader(t, r, want, 1)
}

// CheckBinaryOneAtATime opens node and reads its binary values one per
// call into one buffer, as a reader appends the values of a stream's
// one-value chunks (a file written with ChunkValues 1): the values must be
// want's, and the reads must allocate under maxAlloc bytes in all. A
// buffer grown by exactly each call's values is copied whole every time,
// quadratic in the calls.
func CheckBinaryOneAtATime(t testing.TB, node []byte, want *encoding.Bytes, maxAlloc uint64) {
	t.Helper()
	d, err := encoding.Open(node, all.Options())
	if err != nil {
		t.Fatal(err)
	}
	r, ok := d.(encoding.BinaryReader)
	if !ok {
		t.Fatalf("%v node reads no binary values", d.Kind())
	}
	n := want.Len()
	var dst encoding.Bytes
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range n {
		if err := r.ReadBinary(&dst, 1); err != nil {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > maxAlloc {
		t.Errorf("%d one-value reads allocated %d bytes, want under %d", n, got, maxAlloc)
	}
	if dst.Len() != n {
		t.Fatalf("%d values read, want %d", dst.Len(), n)
	}
	for i := range n {
		if !bytes.Equal(dst.Value(i), want.Value(i)) {
			t.Fatalf("value %d is %q, want %q", i, dst.Value(i), want.Value(i))
		}
	}
}
