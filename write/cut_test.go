package write_test

import (
	"bytes"
	"context"
	"io"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata/encoding"
	"strata/encoding/all"
	"strata/encoding/dod"
	"strata/format"
	"strata/iox"
	"strata/read"
	"strata/write"
)

// TestCutForceFlush checks the three contracts the time-series layer
// builds on: Cut ends chunks of every row-aligned stream at the rows
// given, Force puts a kind default selection does not offer on one
// column, and Flush ends a stripe whose layout OnStripe reports exactly as
// the reader later finds it.
func TestCutForceFlush(t *testing.T) {
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "ts", Type: arrow.PrimitiveTypes.Int64},
		{Name: "v", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "tag", Type: arrow.BinaryTypes.String},
	}, nil)
	batch := func(from, n int) arrow.Record {
		b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
		defer b.Release()
		for i := from; i < from+n; i++ {
			b.Field(0).(*array.Int64Builder).Append(int64(i) * 10)
			if i%7 == 3 {
				b.Field(1).AppendNull()
			} else {
				b.Field(1).(*array.Float64Builder).Append(float64(i % 13))
			}
			b.Field(2).(*array.StringBuilder).Append("host")
		}
		return b.NewRecord()
	}
	var layouts [][]format.StreamInfo
	var buf bytes.Buffer
	fw := format.NewWriter(&buf, format.WriterOptions{OnStripe: func(i int, _ format.StripeInfo, s []format.StreamInfo) {
		if i != len(layouts) {
			t.Errorf("OnStripe for stripe %d after %d", i, len(layouts))
		}
		layouts = append(layouts, s)
	}})
	reg := encoding.NewRegistry(replace(all.Registry().Codecs(), dod.Codec)...)
	p := encoding.DefaultPolicy(reg)
	w, err := write.New(fw, sch, write.Options{ChunkValues: 100, ChunkTarget: -1, Policy: p,
		Force: map[string]*encoding.Tree{"ts": {Kind: encoding.KindDeltaOfDelta}, "v": {Kind: encoding.KindTrivial}}})
	if err != nil {
		t.Fatal(err)
	}
	// stripe 0: rows 0..29 | 30..249 (cut, then ChunkValues) ; stripe 1: 250..259 | 260..299
	for _, step := range []struct{ from, n int }{{0, 30}, {30, 220}} {
		rec := batch(step.from, step.n)
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
		rec.Release()
		w.Cut()
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	for _, step := range []struct{ from, n int }{{250, 10}, {260, 40}} {
		rec := batch(step.from, step.n)
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
		rec.Release()
		w.Cut()
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	want := [][]int64{{30, 100, 100, 20}, {10, 40}}
	if len(layouts) != 2 {
		t.Fatalf("%d stripes reported, want 2", len(layouts))
	}
	f, err := format.Open(context.Background(), iox.Bytes(buf.Bytes()), format.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for s, rows := range want {
		streams, err := f.Streams(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		if len(streams) != len(layouts[s]) {
			t.Fatalf("stripe %d: %d streams, OnStripe said %d", s, len(streams), len(layouts[s]))
		}
		for id, st := range streams {
			got := layouts[s][id]
			if got.Offset != st.Offset || got.Size != st.Size || got.Rows != st.Rows || len(got.Chunks) != len(st.Chunks) {
				t.Fatalf("stripe %d stream %d: OnStripe %+v, reader %+v", s, id, got, st)
			}
			for c := range st.Chunks {
				a, b := got.Chunks[c], st.Chunks[c]
				if a.Offset != b.Offset || a.Size != b.Size || a.Rows != b.Rows || a.FirstRow != b.FirstRow {
					t.Fatalf("stripe %d stream %d chunk %d: OnStripe %+v, reader %+v", s, id, c, a, b)
				}
			}
			if len(st.Chunks) != len(rows) {
				t.Fatalf("stripe %d stream %d: %d chunks, want %d", s, id, len(st.Chunks), len(rows))
			}
			for c, r := range rows {
				if st.Chunks[c].Rows != r {
					t.Fatalf("stripe %d stream %d chunk %d: %d rows, want %d", s, id, c, st.Chunks[c].Rows, r)
				}
			}
		}
		// the time column (stream 0) is DeltaOfDelta in every chunk
		for c := range streams[0].Chunks {
			p, err := f.ReadChunk(context.Background(), s, 0, c)
			if err != nil {
				t.Fatal(err)
			}
			if encoding.Kind(p[0]) != encoding.KindDeltaOfDelta {
				t.Fatalf("stripe %d chunk %d of ts is %v", s, c, encoding.Kind(p[0]))
			}
		}
	}
	// every value reads back
	rf, err := read.Open(context.Background(), iox.Bytes(buf.Bytes()), read.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sc, err := rf.Scan(read.ScanOptions{})
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
		ts, v := rec.Column(0).(*array.Int64), rec.Column(1).(*array.Float64)
		for i := 0; i < int(rec.NumRows()); i, row = i+1, row+1 {
			if ts.Value(i) != int64(row)*10 || v.IsNull(i) != (row%7 == 3) || (!v.IsNull(i) && v.Value(i) != float64(row%13)) {
				t.Fatalf("row %d: ts %d, v %v (null %v)", row, ts.Value(i), v.Value(i), v.IsNull(i))
			}
		}
		rec.Release()
	}
	if row != 300 {
		t.Fatalf("%d rows read back", row)
	}
	if _, err := write.New(format.NewWriter(&bytes.Buffer{}, format.WriterOptions{}), sch,
		write.Options{Force: map[string]*encoding.Tree{"nope": {Kind: encoding.KindTrivial}}}); err == nil {
		t.Fatal("Force on a missing column accepted")
	}
}

// TestForceYield checks that a forced encoding yields to selection where
// it costs more than ForceYield bytes per value, and only there.
func TestForceYield(t *testing.T) {
	sch := arrow.NewSchema([]arrow.Field{{Name: "ts", Type: arrow.PrimitiveTypes.Int64}}, nil)
	for _, regular := range []bool{true, false} {
		b := array.NewInt64Builder(memory.DefaultAllocator)
		for i := 0; i < 5000; i++ {
			if regular {
				b.Append(int64(i) * 10_000)
			} else {
				b.Append(int64(i/50) * 60_000_000) // runs of equal minutes
			}
		}
		arr := b.NewArray()
		rec := array.NewRecord(sch, []arrow.Array{arr}, 5000)
		var buf bytes.Buffer
		fw := format.NewWriter(&buf, format.WriterOptions{})
		w, err := write.New(fw, sch, write.Options{Policy: encoding.DefaultPolicy(encoding.NewRegistry(replace(all.Registry().Codecs(), dod.Codec)...)),
			Force: map[string]*encoding.Tree{"ts": {Kind: encoding.KindDeltaOfDelta}}, ForceYield: 0.5})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		f, err := format.Open(context.Background(), iox.Bytes(buf.Bytes()), format.ReaderOptions{})
		if err != nil {
			t.Fatal(err)
		}
		p, err := f.ReadChunk(context.Background(), 0, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		if isDoD := encoding.Kind(p[0]) == encoding.KindDeltaOfDelta; isDoD != regular {
			t.Fatalf("regular %v: chunk encoded as %v", regular, encoding.Kind(p[0]))
		}
	}
}

func replace(cs []*encoding.Codec, c *encoding.Codec) []*encoding.Codec {
	out := make([]*encoding.Codec, len(cs))
	for i, x := range cs {
		if x.Kind == c.Kind {
			x = c
		}
		out[i] = x
	}
	return out
}
