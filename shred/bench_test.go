package shred

import (
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

func benchRecord(b *testing.B) (arrow.RecordBatch, int) {
	as := arrow.NewSchema([]arrow.Field{
		{Name: "i", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "l", Type: arrow.ListOf(arrow.PrimitiveTypes.Int32), Nullable: true},
	}, nil)
	rec := randRecord(rand.New(rand.NewPCG(1, 1)), memory.DefaultAllocator, as, 1<<16)
	size := 0
	for _, c := range rec.Columns() {
		for _, buf := range c.Data().Buffers() {
			if buf != nil {
				size += buf.Len()
			}
		}
	}
	return rec, size
}

// BenchmarkShred measures Append; BenchmarkMemcpy copies the same number of bytes.
func BenchmarkShred(b *testing.B) {
	rec, size := benchRecord(b)
	defer rec.Release()
	s, err := SchemaFromArrow(rec.Schema())
	if err != nil {
		b.Fatal(err)
	}
	sh := NewShredder(s)
	b.SetBytes(int64(size))
	for b.Loop() {
		sh.Reset()
		if err := sh.Append(rec); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAssemble(b *testing.B) {
	rec, size := benchRecord(b)
	defer rec.Release()
	s, _ := SchemaFromArrow(rec.Schema())
	sh := NewShredder(s)
	if err := sh.Append(rec); err != nil {
		b.Fatal(err)
	}
	m := streamMap(sh.Streams())
	b.SetBytes(int64(size))
	for b.Loop() {
		for c := range s.NumColumns() {
			a, err := Assemble(s, c, m, memory.DefaultAllocator)
			if err != nil {
				b.Fatal(err)
			}
			a.Release()
		}
	}
}

func BenchmarkMemcpy(b *testing.B) {
	rec, size := benchRecord(b)
	rec.Release()
	src, dst := make([]byte, size), make([]byte, size)
	b.SetBytes(int64(size))
	for b.Loop() {
		copy(dst, src)
	}
}
