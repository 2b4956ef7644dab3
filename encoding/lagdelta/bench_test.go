package lagdelta_test

import (
	"testing"

	"strata/encoding"
	"strata/encoding/all"
)

// BenchmarkRead decodes 64 Ki int64 of period 24 stored as
// LagDelta(Trivial, Trivial), beside the same values as Delta(Trivial), in
// the same run: the decoders' own loops, children plain.
//
//	go test -run '^$' -bench Read ./encoding/lagdelta
func BenchmarkRead(b *testing.B) {
	vals := periodic[int64](1<<16, 24, 1)
	for _, k := range []struct {
		name string
		tree *encoding.Tree
	}{
		{"LagDelta", &encoding.Tree{Kind: encoding.KindLagDelta, Children: []*encoding.Tree{{Kind: encoding.KindTrivial}, {Kind: encoding.KindTrivial}}}},
		{"Delta", &encoding.Tree{Kind: encoding.KindDelta, Children: []*encoding.Tree{{Kind: encoding.KindTrivial}}}},
		{"Trivial", &encoding.Tree{Kind: encoding.KindTrivial}},
	} {
		p := all.Policy()
		p.Zstd = false
		p.Force = k.tree
		node, _, err := p.Encode(nil, vals)
		if err != nil {
			b.Fatal(err)
		}
		r, err := encoding.OpenTyped[int64](node, 0, all.Options())
		if err != nil {
			b.Fatal(err)
		}
		dst := make([]int64, len(vals))
		b.Run(k.name, func(b *testing.B) {
			b.SetBytes(int64(8 * len(vals)))
			for b.Loop() {
				r.Reset()
				if err := r.Read(dst); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
