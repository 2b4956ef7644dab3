package encodingtest

import (
	"testing"

	"strata/encoding"
	"strata/encoding/all"
)

// Helpers for the benchmarks an encoding writes beside its tests: the
// same measurement in every package, so that numbers from two encodings
// compare.

// BenchBinaryDecode times decoding binary values vals (a Bytes or *Bytes)
// stored with each of kinds at the root (all.Policy().EncodeWith), to
// weigh an encoding's decode time and size against the alternatives on
// the same text. Each kind is one sub-benchmark, named prefix followed by
// the tree it was encoded as, that opens the node and reads every value
// (ReadBinary into a reused Bytes) and reports "ns/value" and the node's
// bytes a value, "B/value".
func BenchBinaryDecode(b *testing.B, prefix string, vals any, kinds ...encoding.Kind) {
	b.Helper()
	n := encoding.LenOf(vals)
	for _, k := range kinds {
		node, tree, err := all.Policy().EncodeWith(nil, vals, k)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(prefix+tree.String(), func(b *testing.B) {
			var dst encoding.Bytes
			for i := 0; i < b.N; i++ {
				r, err := encoding.OpenBinary(node, 0, all.Options())
				if err != nil {
					b.Fatal(err)
				}
				dst.Offsets, dst.Data = dst.Offsets[:0], dst.Data[:0]
				if err := r.ReadBinary(&dst, n); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/value")
			b.ReportMetric(float64(len(node))/float64(n), "B/value")
		})
	}
}

// OpenForced encodes vals with the default policy (all.Policy) forcing
// kind k at the root, logs the tree and its size, and opens the node: the
// reader a benchmark of one encoding's read paths (BenchRead, BenchFilter)
// times.
func OpenForced[V encoding.Fixed](b *testing.B, k encoding.Kind, vals []V) encoding.Reader[V] {
	b.Helper()
	p := all.Policy()
	p.Force = T(k)
	node, tree, err := p.Encode(nil, vals)
	if err != nil {
		b.Fatal(err)
	}
	r, err := encoding.OpenTyped[V](node, 0, all.Options())
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("tree %v, %d bytes", tree, len(node))
	return r
}

// BenchRead times full reads of r, which holds vals, against copying
// vals, the ceiling a decoder is measured by: sub-benchmark name reads
// all of r (after a Reset) into a slice as long as vals, and "memcpy"
// copies vals into the same slice. Both count the bytes of the values
// (SetBytes), so their MB/s compare.
func BenchRead[V encoding.Fixed](b *testing.B, name string, r encoding.Reader[V], vals []V) {
	b.Helper()
	size := int64(len(vals) * encoding.TypeFor[V]().Size())
	dst := make([]V, len(vals))
	b.Run(name, func(b *testing.B) {
		b.SetBytes(size)
		for b.Loop() {
			r.Reset()
			if err := r.Read(dst); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("memcpy", func(b *testing.B) {
		b.SetBytes(size)
		for b.Loop() {
			copy(dst, vals)
		}
	})
}

// BenchFilter times Filter with p over every row of r (after a Reset,
// from a full selection) as sub-benchmark name, counting the bytes of the
// values (SetBytes) so its MB/s compares with BenchRead's.
func BenchFilter[V encoding.Number](b *testing.B, name string, r encoding.Reader[V], p *encoding.Pred[V]) {
	b.Helper()
	n := r.Len()
	b.Run(name, func(b *testing.B) {
		b.SetBytes(int64(n * encoding.TypeFor[V]().Size()))
		sel := encoding.NewBitmap(n, true)
		f := r.(encoding.Filterer[V])
		for b.Loop() {
			r.Reset()
			sel.SetAll(n)
			if err := f.Filter(p, n, sel); err != nil {
				b.Fatal(err)
			}
		}
	})
}
