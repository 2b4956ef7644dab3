package alp_test

import (
	"fmt"
	"testing"

	"strata/encoding"
	"strata/encoding/alp"
	"strata/encoding/encodingtest"
)

// TestWithoutAssembly runs the decoder through the pure-Go kernels (as on
// other architectures, on amd64 without AVX2 or with the purego tag) on a
// machine that has the assembly ones: the encoding suite and the round
// trips must pass, and every node must decode to the same bits both ways.
func TestWithoutAssembly(t *testing.T) {
	was := alp.SetAssembly(false)
	t.Cleanup(func() { alp.SetAssembly(was) })
	t.Run("suite", func(t *testing.T) { encodingtest.Run(t, alp.Codec) })
	t.Run("roundtrip", TestRoundTrip)
	t.Run("smallvectors", TestSmallVectors)
	alp.SetAssembly(was)
	kinds := []encoding.Kind{encoding.KindDelta, encoding.KindBlockFOR, encoding.KindFixedBitWidth}
	for _, vs := range []int{64, 1024} {
		r := encodingtest.Registry(alp.NewCodec(vs))
		opts := &encoding.Options{Registry: r}
		for _, kid := range kinds {
			p := encoding.DefaultPolicy(r)
			p.Zstd = false
			p.Force = &encoding.Tree{Kind: encoding.KindALP, Children: []*encoding.Tree{{Kind: kid}}}
			if kid == encoding.KindDelta {
				p.Force.Children[0].Children = []*encoding.Tree{{Kind: encoding.KindBlockFOR}}
			}
			for _, shape := range encodingtest.FloatShapes {
				name := fmt.Sprintf("vs%d/%v/%s", vs, kid, shape)
				sameBothWays(t, name+"/f64", p, opts, encodingtest.GenFloat[float64](shape, 5000, 3))
				sameBothWays(t, name+"/f32", p, opts, encodingtest.GenFloat[float32](shape, 5000, 3))
			}
		}
	}
}

// sameBothWays encodes vals with p and reads the node in uneven batches
// with and without the assembly kernels: both must give vals back, bit for
// bit.
func sameBothWays[T float32 | float64](t *testing.T, name string, p *encoding.Policy, opts *encoding.Options, vals []T) {
	t.Helper()
	node, tree, err := p.Encode(nil, vals)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	read := func(asm bool) []T {
		was := alp.SetAssembly(asm)
		defer alp.SetAssembly(was)
		r, err := encoding.OpenTyped[T](node, 0, opts)
		if err != nil {
			t.Fatalf("%s (%v): %v", name, tree, err)
		}
		out := make([]T, len(vals))
		for pos, k := 0, 1; pos < len(out); k = k*3 + 1 {
			m := min(k%2000+1, len(out)-pos)
			if err := r.Read(out[pos : pos+m]); err != nil {
				t.Fatalf("%s (%v): read %d at %d: %v", name, tree, m, pos, err)
			}
			pos += m
		}
		return out
	}
	fast, slow := read(true), read(false)
	for i, v := range vals {
		if !encodingtest.Same(fast[i], v) || !encodingtest.Same(slow[i], v) {
			t.Fatalf("%s (%v): row %d = %v (assembly) / %v (Go), want %v", name, tree, i, fast[i], slow[i], v)
		}
	}
}
