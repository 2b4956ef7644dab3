package write_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata/format"
	"strata/iox"
	"strata/read"
	"strata/write"
)

// sizeTable has a 1-bit column, a low-cardinality text column, a wide
// random integer column and a long text column, whose bytes per value span
// three orders of magnitude.
func sizeTable(t *testing.T, rows int) arrow.Record {
	mem := memory.NewGoAllocator()
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "flag", Type: arrow.FixedWidthTypes.Boolean},
		{Name: "mode", Type: arrow.BinaryTypes.String},
		{Name: "wide", Type: arrow.PrimitiveTypes.Int64},
		{Name: "text", Type: arrow.BinaryTypes.String},
	}, nil)
	b := array.NewRecordBuilder(mem, sch)
	defer b.Release()
	x := uint64(88172645463325252)
	next := func() uint64 { x ^= x << 13; x ^= x >> 7; x ^= x << 17; return x }
	modes := []string{"AIR", "MAIL", "RAIL", "SHIP", "TRUCK"}
	for i := 0; i < rows; i++ {
		b.Field(0).(*array.BooleanBuilder).Append(next()%3 == 0)
		b.Field(1).(*array.StringBuilder).Append(modes[next()%5])
		b.Field(2).(*array.Int64Builder).Append(int64(next()))
		s := make([]byte, 40+next()%40)
		for j := range s {
			s[j] = 'a' + byte(next()%26)
		}
		b.Field(3).(*array.StringBuilder).Append(string(s))
	}
	return b.NewRecord()
}

// TestChunkSizes checks byte-sized chunks: a chunk holds at most
// ChunkValues rows, its bytes stay near the target unless the row ceiling
// or floor binds, chunk boundaries of every pair of columns nest, and the
// file reads back value by value.
func TestChunkSizes(t *testing.T) {
	const rows = 150000
	rec := sizeTable(t, rows)
	defer rec.Release()
	for _, o := range []write.Options{
		{},
		{ChunkTarget: 16 << 10, ChunkValues: 32 << 10},
		{ChunkTarget: -1, ChunkValues: 5000},
	} {
		t.Run(fmt.Sprintf("target %d values %d", o.ChunkTarget, o.ChunkValues), func(t *testing.T) {
			var buf bytes.Buffer
			w, err := write.New(format.NewWriter(&buf, format.WriterOptions{}), rec.Schema(), o)
			if err != nil {
				t.Fatal(err)
			}
			if err := w.Write(rec); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			f, err := read.Open(context.Background(), iox.Bytes(buf.Bytes()), read.Options{})
			if err != nil {
				t.Fatal(err)
			}
			ceil, target := o.ChunkValues, o.ChunkTarget
			if ceil == 0 {
				ceil = write.DefaultChunkValues
			}
			if target == 0 {
				target = write.DefaultChunkTarget
			}
			ff := f.Container()
			streams, err := ff.Streams(context.Background(), 0)
			if err != nil {
				t.Fatal(err)
			}
			var bounds []map[int64]bool
			for id, s := range streams {
				b := map[int64]bool{}
				for ci, c := range s.Chunks {
					if c.Rows == 0 {
						continue // a shared dictionary's definition
					}
					if c.Rows > int64(ceil) {
						t.Errorf("stream %d chunk %d: %d rows, ceiling %d", id, ci, c.Rows, ceil)
					}
					last := ci == len(s.Chunks)-1
					switch {
					case target < 0:
						// the text column is also cut at ChunkBytes of raw values
						if !last && id != 3 && c.Rows != int64(ceil) {
							t.Errorf("stream %d chunk %d: %d rows with a fixed count of %d", id, ci, c.Rows, ceil)
						}
					case c.Size > 3*int64(target) && c.Rows > int64(ceil>>6):
						t.Errorf("stream %d chunk %d: %d bytes for %d rows, target %d", id, ci, c.Size, c.Rows, target)
					case !last && c.Size < int64(target)/8 && c.Rows < int64(ceil):
						t.Errorf("stream %d chunk %d: %d bytes for %d rows, below an eighth of the target %d", id, ci, c.Size, c.Rows, target)
					}
					b[c.FirstRow+c.Rows] = true
				}
				bounds = append(bounds, b)
			}
			if target > 0 {
				// the boundaries of the column with fewer chunks are
				// boundaries of every column with more
				for i := range bounds {
					for j := range bounds {
						if len(bounds[i]) > len(bounds[j]) {
							continue
						}
						for e := range bounds[i] {
							if !bounds[j][e] {
								t.Errorf("chunk end %d of stream %d is not one of stream %d", e, i, j)
							}
						}
					}
				}
				if n := len(streams[0].Chunks); n > (rows+ceil-1)/ceil {
					t.Errorf("the bool column has %d chunks of at most %d rows", n, ceil)
				}
			}
			sc, err := f.Scan(read.ScanOptions{})
			if err != nil {
				t.Fatal(err)
			}
			at := int64(0)
			for {
				got, err := sc.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				want := rec.NewSlice(at, at+got.NumRows())
				for c := 0; c < int(want.NumCols()); c++ {
					if !array.Equal(want.Column(c), got.Column(c)) {
						t.Fatalf("rows [%d,%d) column %d differ", at, at+got.NumRows(), c)
					}
				}
				at += got.NumRows()
				want.Release()
				got.Release()
			}
			if at != rows {
				t.Fatalf("read %d rows, want %d", at, rows)
			}
		})
	}
}

// TestChunkBytesPastInt32: a ChunkBytes beyond the int32 range of binary
// offsets (a caller's "no byte limit", 1<<31 or more) cuts text chunks as
// a large limit does, not at one value each (the limit used to wrap to a
// negative number, making every text chunk a single value and the file
// many times larger), and the file reads back value by value.
func TestChunkBytesPastInt32(t *testing.T) {
	const rows = 20000
	rec := sizeTable(t, rows)
	defer rec.Release()
	textChunks := func(o write.Options) int {
		t.Helper()
		var buf bytes.Buffer
		w, err := write.New(format.NewWriter(&buf, format.WriterOptions{}), rec.Schema(), o)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		f, err := read.Open(context.Background(), iox.Bytes(buf.Bytes()), read.Options{})
		if err != nil {
			t.Fatal(err)
		}
		streams, err := f.Container().Streams(context.Background(), 0)
		if err != nil {
			t.Fatal(err)
		}
		sc, err := f.Scan(read.ScanOptions{Columns: []string{"text"}})
		if err != nil {
			t.Fatal(err)
		}
		defer sc.Close()
		want := rec.Column(3).(*array.String)
		at := 0
		for {
			got, err := sc.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			col := got.Column(0).(*array.String)
			for i := 0; i < col.Len(); i++ {
				if col.Value(i) != want.Value(at+i) {
					t.Fatalf("%+v: row %d: %q, want %q", o, at+i, col.Value(i), want.Value(at+i))
				}
			}
			at += col.Len()
			got.Release()
		}
		if at != rows {
			t.Fatalf("%+v: read %d rows, want %d", o, at, rows)
		}
		return len(streams[3].Chunks)
	}
	for _, target := range []int{0, -1} {
		large := textChunks(write.Options{ChunkTarget: target, ChunkBytes: 1 << 30})
		// (2 GiB and past 4 GiB where int has 64 bits; shifted at run
		// time, as constants they would not compile where it has 32)
		cbs := []int{int(^uint(0) >> 1)}
		if one := 1; strconv.IntSize == 64 {
			cbs = append(cbs, one<<31, one<<32+5)
		}
		for _, cb := range cbs {
			if n := textChunks(write.Options{ChunkTarget: target, ChunkBytes: cb}); n != large {
				t.Errorf("ChunkTarget %d, ChunkBytes %d: %d text chunks, %d with ChunkBytes 1<<30", target, cb, n, large)
			}
		}
	}
}
