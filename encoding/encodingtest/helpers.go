package encodingtest

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
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
