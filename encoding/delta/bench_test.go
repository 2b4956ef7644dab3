package delta_test

import (
	"math/rand/v2"
	"testing"

	"strata/encoding"
	"strata/encoding/all"
)

const benchN = 1 << 20

func benchNode[T encoding.Integer](b *testing.B, vals []T, child encoding.Kind) (encoding.Reader[T], float64) {
	p := forcedPolicy(all.Registry())
	if child != encoding.KindInvalid {
		p.Force.Children = []*encoding.Tree{{Kind: child}}
	}
	node, tree, err := p.Encode(nil, vals)
	if err != nil {
		b.Fatal(err)
	}
	r, err := encoding.OpenTyped[T](node, 0, all.Options())
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("tree %v", tree)
	return r, float64(8*len(node)) / float64(len(vals))
}

func benchRead[T encoding.Integer](b *testing.B, vals []T, child encoding.Kind) {
	r, bpv := benchNode(b, vals, child)
	dst := make([]T, len(vals))
	b.SetBytes(int64(len(vals) * encoding.TypeFor[T]().Size()))
	b.ResetTimer()
	for b.Loop() {
		r.Reset()
		if err := r.Read(dst); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(bpv, "bits/value")
}

// runValues returns the distinct sorted keys of an l_orderkey-like column:
// 8 of every 32 keys are used, so the differences are 1 or 25.
func runValues(n int) []int64 {
	out := make([]int64, 0, n)
	for key := int64(1); len(out) < n; key++ {
		if (key-1)%32 < 8 {
			out = append(out, key)
		}
	}
	return out
}

// timestamps returns sorted values with jittered steps.
func timestamps(n int) []int64 {
	r := rand.New(rand.NewPCG(3, 4))
	out := make([]int64, n)
	v := int64(1_700_000_000_000)
	for i := range out {
		v += 1000 + int64(r.IntN(16))
		out[i] = v
	}
	return out
}

func BenchmarkReadOrderKeyRuns(b *testing.B) {
	benchRead(b, runValues(benchN), encoding.KindInvalid)
}
func BenchmarkReadTimestampsSelected(b *testing.B) {
	benchRead(b, timestamps(benchN), encoding.KindInvalid)
}
func BenchmarkReadTimestampsFixedBitWidth(b *testing.B) {
	benchRead(b, timestamps(benchN), encoding.KindFixedBitWidth)
}
func BenchmarkReadTimestampsTrivial(b *testing.B) {
	benchRead(b, timestamps(benchN), encoding.KindTrivial)
}
func BenchmarkReadInt32Timestamps(b *testing.B) {
	ts := timestamps(benchN)
	v := make([]int32, len(ts))
	for i, x := range ts {
		v[i] = int32(x - ts[0])
	}
	benchRead(b, v, encoding.KindInvalid)
}

func BenchmarkMemcpyInt64(b *testing.B) {
	src := make([]int64, benchN)
	dst := make([]int64, benchN)
	b.SetBytes(8 * benchN)
	for b.Loop() {
		copy(dst, src)
	}
}

func BenchmarkMemcpyInt32(b *testing.B) {
	src := make([]int32, benchN)
	dst := make([]int32, benchN)
	b.SetBytes(4 * benchN)
	for b.Loop() {
		copy(dst, src)
	}
}

// BenchmarkFilterSelective filters timestamps with a 0.1% range: almost
// every block is pruned from its header and skipped in the child.
func BenchmarkFilterSelective(b *testing.B) {
	vals := timestamps(benchN)
	r, bpv := benchNode(b, vals, encoding.KindInvalid)
	f := r.(encoding.Filterer[int64])
	p := &encoding.Pred[int64]{Op: encoding.OpBetween, A: vals[500_000], B: vals[501_000]}
	sel := encoding.NewBitmap(benchN, true)
	b.SetBytes(8 * benchN)
	b.ResetTimer()
	for b.Loop() {
		sel.SetAll(benchN)
		r.Reset()
		if err := f.Filter(p, benchN, sel); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(bpv, "bits/value")
}

// BenchmarkGather reads 1% of the rows at random positions.
func BenchmarkGather(b *testing.B) {
	vals := timestamps(benchN)
	r, bpv := benchNode(b, vals, encoding.KindInvalid)
	g := r.(encoding.Gatherer[int64])
	rng := rand.New(rand.NewPCG(1, 1))
	var rows []int32
	for i := 0; i < benchN; i += 1 + rng.IntN(200) {
		rows = append(rows, int32(i))
	}
	dst := make([]int64, len(rows))
	b.SetBytes(int64(8 * len(rows)))
	b.ResetTimer()
	for b.Loop() {
		if err := g.Gather(rows, dst); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(bpv, "bits/value")
}
