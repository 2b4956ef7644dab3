package fsst_test

import (
	"io"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"

	"strata/encoding"
	"strata/encoding/all"
	"strata/encoding/encodingtest"
	"strata/tpch"
)

// comments returns l_comment of TPC-H lineitem at sf in chunks of 8192
// values, as the writer cuts them.
func comments(t testing.TB, sf float64) []encoding.Bytes {
	g := tpch.NewLineitem(sf, 1, 8192)
	var out []encoding.Bytes
	for {
		rec, err := g.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		col := rec.Column(int(rec.Schema().FieldIndices("l_comment")[0])).(*array.String)
		var b encoding.Bytes
		for i := 0; i < col.Len(); i++ {
			b.Append([]byte(col.Value(i)))
		}
		out = append(out, b)
		rec.Release()
	}
	return out
}

// TestLineitemComment reports l_comment sizes at SF 0.1 as Trivial+zstd and
// as FSST, 8192 values per chunk (go test -run LineitemComment -v).
func TestLineitemComment(t *testing.T) {
	if testing.Short() {
		t.Skip("generates SF 0.1")
	}
	chunks := comments(t, 0.1)
	raw := 0
	for _, c := range chunks {
		raw += len(c.Data)
	}
	var nodes [][]byte
	size := func(k encoding.Kind, zstd bool) (int, time.Duration) {
		p := all.Policy()
		p.Zstd = zstd
		p.Force = &encoding.Tree{Kind: k, Zstd: zstd, Children: []*encoding.Tree{{Kind: encoding.KindFixedBitWidth}}}
		total := 0
		nodes = nodes[:0]
		start := time.Now()
		for _, c := range chunks {
			node, tree, err := p.Encode(nil, c)
			if err != nil {
				t.Fatal(err)
			}
			if tree.Kind != k {
				t.Fatalf("encoded as %v", tree)
			}
			total += len(node)
			nodes = append(nodes, node)
		}
		return total, time.Since(start)
	}
	tz, tzt := size(encoding.KindTrivial, true)
	fs, fst := size(encoding.KindFSST, false)
	for i, node := range nodes {
		r, err := encoding.OpenBinary(node, 0, all.Options())
		if err != nil {
			t.Fatal(err)
		}
		encodingtest.CheckBinaryReader(t, r, chunks[i], uint64(i))
	}
	t.Logf("l_comment SF 0.1: %d values, %d raw bytes in %d chunks", func() int {
		n := 0
		for _, c := range chunks {
			n += c.Len()
		}
		return n
	}(), raw, len(chunks))
	t.Logf("Trivial+zstd: %d bytes (%.2fx), encode %v (%.0f MB/s)", tz, float64(raw)/float64(tz), tzt, float64(raw)/tzt.Seconds()/1e6)
	t.Logf("FSST:         %d bytes (%.2fx), encode %v (%.0f MB/s); FSST/zstd = %.3f", fs, float64(raw)/float64(fs), fst, float64(raw)/fst.Seconds()/1e6, float64(fs)/float64(tz))
}

func BenchmarkEncodeComment(b *testing.B) {
	chunks := comments(b, 0.02)
	p := all.Policy()
	p.Force = &encoding.Tree{Kind: encoding.KindFSST, Children: []*encoding.Tree{{Kind: encoding.KindFixedBitWidth}}}
	raw := 0
	for _, c := range chunks {
		raw += len(c.Data)
	}
	b.SetBytes(int64(raw))
	for b.Loop() {
		for _, c := range chunks {
			if _, _, err := p.Encode(nil, c); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkFilterComment filters 8192 l_comment values with = (compared on
// the codes, stopping at the first difference), with IN of the same single
// value (decoded, then tested) and with a 3-byte PREFIX.
func BenchmarkFilterComment(b *testing.B) {
	c := comments(b, 0.01)[0]
	p := all.Policy()
	p.Force = &encoding.Tree{Kind: encoding.KindFSST}
	node, _, err := p.Encode(nil, c)
	if err != nil {
		b.Fatal(err)
	}
	r, err := encoding.OpenBinary(node, 0, all.Options())
	if err != nil {
		b.Fatal(err)
	}
	v := c.Value(100)
	n := c.Len()
	for _, pr := range []struct {
		name string
		p    *encoding.BytesPred
	}{
		{"eq", &encoding.BytesPred{Op: encoding.OpEq, A: v}},
		{"in-decoded", &encoding.BytesPred{Op: encoding.OpIn, Set: [][]byte{v}}},
		{"prefix", &encoding.BytesPred{Op: encoding.OpPrefix, A: v[:3]}},
	} {
		b.Run(pr.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.Data)))
			sel := encoding.NewBitmap(n, true)
			for b.Loop() {
				for i := range sel {
					sel[i] = ^uint64(0)
				}
				r.Reset()
				if err := r.(encoding.BinaryFilterer).FilterBinary(pr.p, n, sel); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
