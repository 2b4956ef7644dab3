package node_test

import (
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"testing"

	"strata/encoding"
	"strata/encoding/all"
	"strata/encoding/nullable"
	"strata/specreader/node"
)

// fuzzSeeds returns small oracle nodes of every kind of this file: each
// kind forced at the root over a few shapes and types, plus Nullable nodes
// and a few forced composite trees.
func fuzzSeeds(tb testing.TB) [][]byte {
	tb.Helper()
	rng := rand.New(rand.NewPCG(13, 14))
	p := encoding.DefaultPolicy(all.RegistryWithBlocks(16))
	var seeds [][]byte
	add := func(vals any) {
		for _, k := range myKinds {
			if n, _, err := p.EncodeWith(nil, vals, k); err == nil {
				seeds = append(seeds, n)
			}
		}
	}
	for _, n := range []int{0, 1, 3, 40} {
		for _, it := range []intType{intTypes[0], intTypes[3], intTypes[6], intTypes[7]} {
			for _, s := range intShapes {
				switch s.name {
				case "runs", "periodic24", "step5000", "mostlyconst", "timestampsjitter", "extremes", "outliers":
					add(typed(it, s.gen(it, n, rng)))
				}
			}
		}
		add(boolShapes["sparseT"](n, rng))
		add(floatShapes["fewspecial"](n, rng))
		add(binaryOf(binaryShapes["fewdistinct"](n, rng)))
		valid := fillB(n, func(i int) bool { return i%3 != 0 })
		vals, _ := compact(typed(intTypes[2], intShapes[5].gen(intTypes[2], n, rng)), valid)
		if enc, _, err := nullable.Encode(p, nil, vals, valid); err == nil {
			seeds = append(seeds, enc)
		}
	}
	return seeds
}

// fuzzMaxRows bounds the rows of a fuzzed root node: a valid node of 2^28
// rows fits in a few bytes (Constant), and decoding it whole would only
// measure the allocator. Every child's rows are bounded by its parent's.
const fuzzMaxRows = 1 << 16

// FuzzDecode feeds arbitrary bytes to node.Decode: it must never panic,
// must wrap ErrCorrupt or ErrUnsupported when it fails, and must return
// exactly the declared rows of the declared type when it succeeds.
func FuzzDecode(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) >= 4 {
			if rows, n := binary.Uvarint(b[3:]); n > 0 && rows > fuzzMaxRows {
				t.Skip()
			}
		}
		v, err := node.Decode(b, nil)
		if err != nil {
			if !errors.Is(err, node.ErrCorrupt) && !errors.Is(err, node.ErrUnsupported) {
				t.Fatalf("error %v wraps neither ErrCorrupt nor ErrUnsupported", err)
			}
			return
		}
		h, err := node.ParseHeader(b)
		if err != nil {
			t.Fatalf("decoded a node whose header does not parse: %v", err)
		}
		if v.Len != h.Rows || v.Type != h.Type {
			t.Fatalf("decoded %d %v values, header says %d %v", v.Len, v.Type, h.Rows, h.Type)
		}
		lens := []int{len(v.Bool), len(v.Int), len(v.Uint), len(v.F32), len(v.F64), len(v.Bin)}
		total := 0
		for _, l := range lens {
			total += l
		}
		if total != v.Len && v.Len != 0 {
			t.Fatalf("value slices hold %v for %d rows", lens, v.Len)
		}
		if v.Valid != nil && len(v.Valid) != v.Len {
			t.Fatalf("validity of %d rows for %d", len(v.Valid), v.Len)
		}
		// A signed value must be sign-extended, an unsigned one zero-extended.
		for i := 0; i < v.Len; i++ {
			if v.Type.Signed() && node.SignExtend(uint64(v.Int[i]), v.Type) != v.Int[i] {
				t.Fatalf("row %d: %d is not a %v", i, v.Int[i], v.Type)
			}
			if v.Type.Unsigned() && v.Uint[i]&^node.Mask(v.Type) != 0 {
				t.Fatalf("row %d: %d is not a %v", i, v.Uint[i], v.Type)
			}
		}
	})
}
