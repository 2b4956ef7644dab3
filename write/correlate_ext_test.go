package write_test

import (
	"context"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata/encoding"
	"strata/format"
	"strata/iox"
	"strata/read"
	"strata/write"
)

// TestCorrelatedWithOutliers: a column that follows another by a few
// units but for one value in a thousand is still stored relative to it,
// and reads back exactly.
func TestCorrelatedWithOutliers(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	sch := arrow.NewSchema([]arrow.Field{{Name: "ship", Type: arrow.PrimitiveTypes.Int64}, {Name: "receipt", Type: arrow.PrimitiveTypes.Int64}}, nil)
	ba, bb := array.NewInt64Builder(memory.DefaultAllocator), array.NewInt64Builder(memory.DefaultAllocator)
	const n = 20000
	want := make([]int64, n)
	for i := range n {
		v := r.Int64N(1 << 36)
		d := v + 1 + r.Int64N(30)
		if r.IntN(1000) == 0 {
			d = r.Int64N(1 << 36) // follows nothing
		}
		ba.Append(v)
		bb.Append(d)
		want[i] = d
	}
	rec := array.NewRecordBatch(sch, []arrow.Array{ba.NewArray(), bb.NewArray()}, n)
	defer rec.Release()
	file := writeFile(t, sch, []arrow.Record{rec}, write.Options{Parallel: 1})
	f, err := format.Open(context.Background(), iox.Bytes(file), format.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	streams, err := f.Streams(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	for c := range streams[1].Chunks {
		p, err := f.ReadChunk(context.Background(), 0, 1, c)
		if err != nil {
			t.Fatal(err)
		}
		if k := encoding.Kind(p[0]); k != encoding.KindCorrelated {
			t.Errorf("chunk %d of receipt is %v, not Correlated", c, k)
		}
	}
	rf, err := read.Open(context.Background(), iox.Bytes(file), read.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sc, err := rf.Scan(read.ScanOptions{Columns: []string{"receipt"}})
	if err != nil {
		t.Fatal(err)
	}
	row := 0
	for {
		rec, err := sc.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		col := rec.Column(0).(*array.Int64)
		for i := 0; i < col.Len(); i, row = i+1, row+1 {
			if col.Value(i) != want[row] {
				t.Fatalf("row %d: %d, want %d", row, col.Value(i), want[row])
			}
		}
		rec.Release()
	}
	if row != n {
		t.Fatalf("%d rows read back", row)
	}
}
