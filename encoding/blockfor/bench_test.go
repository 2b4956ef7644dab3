package blockfor_test

import (
	"math/rand/v2"
	"testing"

	"strata/encoding"
	"strata/encoding/all"
	"strata/encoding/encodingtest"
)

const benchN = 1 << 20

func benchNode[T encoding.Integer](b *testing.B, vals []T) (encoding.Reader[T], float64) {
	p := forcedPolicy(all.Registry())
	node, _, err := p.Encode(nil, vals)
	if err != nil {
		b.Fatal(err)
	}
	r, err := encoding.OpenTyped[T](node, 0, all.Options())
	if err != nil {
		b.Fatal(err)
	}
	return r, float64(8*len(node)) / float64(len(vals))
}

func benchRead[T encoding.Integer](b *testing.B, vals []T) {
	r, bpv := benchNode(b, vals)
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

func benchMemcpy[T encoding.Integer](b *testing.B) {
	src := make([]T, benchN)
	dst := make([]T, benchN)
	b.SetBytes(int64(benchN * encoding.TypeFor[T]().Size()))
	for b.Loop() {
		copy(dst, src)
	}
}

// Outliers: 4-bit values with 1 in 200 random 64-bit exceptions.
func BenchmarkReadInt64Outliers(b *testing.B) {
	benchRead(b, encodingtest.Gen[int64](encodingtest.ShapeOutliers, benchN, 1))
}
func BenchmarkReadInt64SmallRange(b *testing.B) {
	benchRead(b, encodingtest.Gen[int64](encodingtest.ShapeSmallRandom, benchN, 1))
}
func BenchmarkReadInt32SmallRange(b *testing.B) {
	benchRead(b, encodingtest.Gen[int32](encodingtest.ShapeSmallRandom, benchN, 1))
}
func BenchmarkReadUint16Sorted(b *testing.B) {
	benchRead(b, encodingtest.Gen[uint16](encodingtest.ShapeSorted, benchN, 1))
}
func BenchmarkMemcpyInt64(b *testing.B)  { benchMemcpy[int64](b) }
func BenchmarkMemcpyInt32(b *testing.B)  { benchMemcpy[int32](b) }
func BenchmarkMemcpyUint16(b *testing.B) { benchMemcpy[uint16](b) }

// BenchmarkGather reads 1% of the rows at random positions.
func BenchmarkGatherInt64Outliers(b *testing.B) {
	vals := encodingtest.Gen[int64](encodingtest.ShapeOutliers, benchN, 1)
	r, bpv := benchNode(b, vals)
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

// BenchmarkFilterSorted filters a sorted column with a 0.1% range: almost
// every block is pruned from its header.
func BenchmarkFilterSortedSelective(b *testing.B) {
	vals := make([]int64, benchN)
	for i := range vals {
		vals[i] = int64(i) * 7
	}
	r, bpv := benchNode(b, vals)
	f := r.(encoding.Filterer[int64])
	p := &encoding.Pred[int64]{Op: encoding.OpBetween, A: 7 * 500_000, B: 7 * 501_000}
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

// BenchmarkSkipSum moves over runs of 1 to 127 rows of 2-bit values with
// about 1 in 14 exceptions (the differences of a random walk, as Delta
// holds them), adding each run up by SumRanges then skipping it and, for
// comparison, by reading it and adding the values: what a Delta parent
// does to skip into a block.
func BenchmarkSkipSum(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	vals := make([]int64, benchN)
	for i := range vals {
		vals[i] = int64(r.IntN(4)) - 1
		if r.IntN(14) == 0 {
			vals[i] = int64(r.IntN(200)) - 100
		}
	}
	runs := make([]int, 4096)
	for i := range runs {
		runs[i] = 1 + r.IntN(127)
	}
	for _, mode := range []string{"sum", "read"} {
		b.Run(mode, func(b *testing.B) {
			rd, _ := benchNode(b, vals)
			s, ok := rd.(encoding.RangeSummer)
			if !ok {
				b.Fatal("BlockFOR is no RangeSummer")
			}
			var end [1]int32
			var sum [1]uint64
			buf := make([]int64, 128)
			var total uint64
			rows := 0
			for b.Loop() {
				rd.Reset()
				for i := 0; rd.Pos()+128 <= len(vals); i++ {
					n := runs[i%len(runs)]
					if mode == "sum" {
						end[0] = int32(rd.Pos() + n)
						if err := s.SumRanges(rd.Pos(), end[:], sum[:]); err != nil {
							b.Fatal(err)
						}
						if err := rd.Skip(n); err != nil {
							b.Fatal(err)
						}
						total += sum[0]
					} else {
						if err := rd.Read(buf[:n]); err != nil {
							b.Fatal(err)
						}
						for _, v := range buf[:n] {
							total += uint64(v)
						}
					}
					rows += n
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(rows), "ns/row")
		})
	}
}

// benchEncode times BlockFOR's encoder alone (the block plans and the
// packing) on 64 Ki values, the size of a default chunk.
func benchEncode(b *testing.B, vals []uint32) {
	p := forcedPolicy(all.Registry())
	p.Zstd = false
	b.SetBytes(int64(4 * len(vals)))
	for b.Loop() {
		if _, _, err := p.Encode(nil, vals); err != nil {
			b.Fatal(err)
		}
	}
}

// EncodeSpread: 16-bit values spread evenly over their range (random
// keys, hashes): no narrower width can pay, which the plan proves from
// its counts of the range's parts without a search.
func BenchmarkEncodeSpread(b *testing.B) {
	rng := rand.New(rand.NewPCG(11, 12))
	vals := make([]uint32, 1<<16)
	for i := range vals {
		vals[i] = rng.Uint32N(1 << 16)
	}
	benchEncode(b, vals)
}

// EncodeSkewed: 11-bit ids, small ones far more frequent (dictionary ids
// of a skewed column): the plan searches widths with exceptions.
func BenchmarkEncodeSkewed(b *testing.B) {
	rng := rand.New(rand.NewPCG(13, 14))
	vals := make([]uint32, 1<<16)
	for i := range vals {
		vals[i] = uint32(rng.ExpFloat64()*150) % 2048
	}
	benchEncode(b, vals)
}
