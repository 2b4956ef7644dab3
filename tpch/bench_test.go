package tpch

import (
	"errors"
	"io"
	"testing"
)

// BenchmarkGenerate measures generation alone; rows/s is the figure of merit.
func BenchmarkGenerate(b *testing.B) {
	const sf = 0.05
	var rows int64
	b.ReportAllocs()
	for b.Loop() {
		g := NewLineitem(sf, 1, 0)
		for {
			rec, err := g.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			rows += rec.NumRows()
			rec.Release()
		}
	}
	b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkComments isolates the text grammar (about a third of the bytes).
func BenchmarkComments(b *testing.B) {
	var t textStream
	r := rng{s: 1}
	n := 0
	for b.Loop() {
		t.reset()
		for range 4 {
			n += len(t.comment(&r, int(r.intn(commentGap)), int(r.between(commentMin, commentMax))))
		}
	}
	b.ReportMetric(float64(b.N*4)/b.Elapsed().Seconds(), "comments/s")
}

func BenchmarkWriteParquet(b *testing.B) {
	benchWrite(b, func(w io.Writer, g *Generator) (int64, error) { return WriteParquet(w, g, ParquetOptions{}) })
}

func BenchmarkWriteCSV(b *testing.B) {
	benchWrite(b, func(w io.Writer, g *Generator) (int64, error) { return WriteCSV(w, g) })
}

type countWriter struct{ n int64 }

func (c *countWriter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

func benchWrite(b *testing.B, write func(io.Writer, *Generator) (int64, error)) {
	const sf = 0.02
	var rows, bytes int64
	for b.Loop() {
		var cw countWriter
		n, err := write(&cw, NewLineitem(sf, 1, 0))
		if err != nil {
			b.Fatal(err)
		}
		rows += n
		bytes += cw.n
	}
	b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(float64(bytes)/float64(b.N), "bytes/op")
}
