package all_test

import (
	"fmt"
	"io"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"

	"strata/encoding"
	"strata/encoding/all"
	"strata/encoding/encodingtest"
	"strata/tpch"
)

// BenchmarkDecode measures Read throughput of every encoding on data it
// suits, 64 Ki values per op, beside a memcpy of the same output size in the
// same run (the memcpy sub-benchmark of each case):
//
//	go test -run '^$' -bench Decode ./encoding/all
func BenchmarkDecode(b *testing.B) {
	const n = 1 << 16
	type tc struct {
		name  string
		kind  encoding.Kind
		shape encodingtest.Shape
	}
	cases := []tc{
		{"Constant", encoding.KindConstant, encodingtest.ShapeConstant},
		{"Trivial", encoding.KindTrivial, encodingtest.ShapeRandom},
		{"FixedBitWidth", encoding.KindFixedBitWidth, encodingtest.ShapeSmallRandom},
		{"BlockFOR", encoding.KindBlockFOR, encodingtest.ShapeOutliers},
		{"Varint", encoding.KindVarint, encodingtest.ShapeSmallRandom},
		{"Delta", encoding.KindDelta, encodingtest.ShapeSorted},
		{"RLE", encoding.KindRLE, encodingtest.ShapeSortedRepeats},
		{"Dictionary", encoding.KindDictionary, encodingtest.ShapeLowCard},
		{"MainlyConstant", encoding.KindMainlyConstant, encodingtest.ShapeMainlyConstant},
	}
	for _, c := range cases {
		vals := encodingtest.Gen[int64](c.shape, n, 1)
		p := all.Policy()
		p.Force = &encoding.Tree{Kind: c.kind}
		node, tree, err := p.Encode(nil, vals)
		if err != nil {
			b.Fatal(err)
		}
		r, err := encoding.OpenTyped[int64](node, 0, all.Options())
		if err != nil {
			b.Fatal(err)
		}
		dst := make([]int64, n)
		b.Run(fmt.Sprintf("%s/int64", c.name), func(b *testing.B) {
			b.ReportMetric(float64(len(node))*8/n, "bits/value")
			b.Logf("tree %v", tree)
			b.SetBytes(8 * n)
			for b.Loop() {
				r.Reset()
				if err := r.Read(dst); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("%s/memcpy", c.name), func(b *testing.B) {
			b.SetBytes(8 * n)
			for b.Loop() {
				copy(dst, vals)
			}
		})
	}
	// FixedBitWidth unpack of int64 at widths 1–32.
	for _, w := range []int{1, 2, 4, 7, 8, 12, 16, 20, 24, 32} {
		vals := make([]int64, n)
		for i := range vals {
			vals[i] = int64(uint64(i) * 2654435761 & (1<<w - 1))
		}
		vals[0], vals[1] = 0, 1<<w-1
		p := all.Policy()
		p.Force = &encoding.Tree{Kind: encoding.KindFixedBitWidth}
		p.Zstd = false
		node, _, err := p.Encode(nil, vals)
		if err != nil {
			b.Fatal(err)
		}
		r, err := encoding.OpenTyped[int64](node, 0, all.Options())
		if err != nil {
			b.Fatal(err)
		}
		dst := make([]int64, n)
		b.Run(fmt.Sprintf("FixedBitWidth-w%d/int64", w), func(b *testing.B) {
			b.SetBytes(8 * n)
			for b.Loop() {
				r.Reset()
				if err := r.Read(dst); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("memcpy-512KiB", func(b *testing.B) {
		src, dst := make([]int64, n), make([]int64, n)
		b.SetBytes(8 * n)
		for b.Loop() {
			copy(dst, src)
		}
	})
	// Binary: dictionary strings and plain strings.
	for _, c := range []struct {
		name  string
		kind  encoding.Kind
		shape encodingtest.Shape
	}{{"Dictionary", encoding.KindDictionary, encodingtest.ShapeLowCard}, {"Trivial", encoding.KindTrivial, encodingtest.ShapeRandom}} {
		vals := encodingtest.GenBytes(c.shape, n, 1)
		p := all.Policy()
		p.Force = &encoding.Tree{Kind: c.kind}
		p.Zstd = false
		node, _, err := p.Encode(nil, vals)
		if err != nil {
			b.Fatal(err)
		}
		r, err := encoding.OpenBinary(node, 0, all.Options())
		if err != nil {
			b.Fatal(err)
		}
		size := int64(len(vals.Data) + 4*n)
		b.Run(c.name+"/binary", func(b *testing.B) {
			b.SetBytes(size)
			var out encoding.Bytes
			for b.Loop() {
				r.Reset()
				out.Reset()
				if err := r.ReadBinary(&out, n); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(c.name+"/binary-memcpy", func(b *testing.B) {
			b.SetBytes(size)
			out := encoding.Bytes{Offsets: make([]int32, n+1), Data: make([]byte, len(vals.Data))}
			for b.Loop() {
				copy(out.Offsets, vals.Offsets)
				copy(out.Data, vals.Data)
			}
		})
	}
}

// lineitemComments returns the first n values of TPC-H l_comment.
func lineitemComments(b *testing.B, n int) encoding.Bytes {
	g := tpch.NewLineitem(0.1, 1, n)
	rec, err := g.Next()
	if err != nil && err != io.EOF {
		b.Fatal(err)
	}
	defer rec.Release()
	col := rec.Column(rec.Schema().FieldIndices("l_comment")[0]).(*array.String)
	var out encoding.Bytes
	for i := 0; i < col.Len(); i++ {
		out.Append([]byte(col.Value(i)))
	}
	return out
}

// BenchmarkDecodeText decodes text (TPC-H l_comment, and random words) as
// FSST and as Trivial+zstd, each op opening the node (which inflates the
// zstd body, or reads FSST's code lengths) and reading every value into a
// reused buffer. Throughput is of decoded value bytes:
//
//	go test -run '^$' -bench DecodeText ./encoding/all
func BenchmarkDecodeText(b *testing.B) {
	for _, text := range []struct {
		name string
		vals func() encoding.Bytes
	}{
		{"l_comment-8192", func() encoding.Bytes { return lineitemComments(b, 8192) }},
		{"l_comment-65536", func() encoding.Bytes { return lineitemComments(b, 1<<16) }},
		{"words-65536", func() encoding.Bytes { return encodingtest.GenBytes(encodingtest.ShapeRandom, 1<<16, 1) }},
	} {
		vals := text.vals()
		n := vals.Len()
		for _, k := range []struct {
			name string
			tree *encoding.Tree
		}{
			{"FSST", &encoding.Tree{Kind: encoding.KindFSST}},
			{"Trivial+zstd", &encoding.Tree{Kind: encoding.KindTrivial, Zstd: true}},
		} {
			p := all.Policy()
			p.Force = k.tree
			node, tree, err := p.Encode(nil, vals)
			if err != nil {
				b.Fatal(err)
			}
			if tree.Kind != k.tree.Kind {
				// (zstd may still decline a body it cannot shrink by 2 %)
				b.Fatalf("encoded as %v, want %v", tree, k.tree)
			}
			opts := all.Options()
			b.Run(text.name+"/"+k.name, func(b *testing.B) {
				b.ReportMetric(float64(len(node))/float64(len(vals.Data)), "size/raw")
				b.Logf("tree %v, %d bytes for %d raw", tree, len(node), len(vals.Data))
				b.SetBytes(int64(len(vals.Data)))
				var out encoding.Bytes
				out.Data = make([]byte, 0, len(vals.Data)+64)
				out.Offsets = make([]int32, 0, n+1)
				for b.Loop() {
					r, err := encoding.OpenBinary(node, 0, opts)
					if err != nil {
						b.Fatal(err)
					}
					out.Reset()
					out.Data = append(out.Data, 0) // a non-empty buffer: Trivial copies instead of aliasing
					if err := r.ReadBinary(&out, n); err != nil {
						b.Fatal(err)
					}
				}
			})
			if k.name != "FSST" {
				continue
			}
			// FSST opened once: the decode kernel without the open (code
			// lengths, offsets), as a cached decoder reads.
			b.Run(text.name+"/FSST-read", func(b *testing.B) {
				r, err := encoding.OpenBinary(node, 0, opts)
				if err != nil {
					b.Fatal(err)
				}
				b.SetBytes(int64(len(vals.Data)))
				var out encoding.Bytes
				out.Data = make([]byte, 0, len(vals.Data)+64)
				out.Offsets = make([]int32, 0, n+1)
				for b.Loop() {
					r.Reset()
					out.Reset()
					if err := r.ReadBinary(&out, n); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
