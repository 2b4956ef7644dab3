package timeseries

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata/iox"
)

// TestReadWindowsPieces reads windows that overlap, repeat, come in any
// order, cross unit boundaries and touch both ends of their series, from
// columns with nulls, strings and integers, one record per window and
// stacked, on one and two threads, and checks every value against the
// rows written.
func TestReadWindowsPieces(t *testing.T) {
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "dev", Type: arrow.BinaryTypes.String},
		{Name: "ts", Type: arrow.PrimitiveTypes.Int64},
		{Name: "v", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "n", Type: arrow.PrimitiveTypes.Int64},
		{Name: "note", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	type row struct {
		ts    int64
		v     float64
		vnull bool
		n     int64
		note  string
		nnull bool
	}
	rng := rand.New(rand.NewPCG(5, 6))
	devs := []string{"a", "b", "c"}
	lens := []int{2500, 700, 1800}
	ref := map[string][]row{}
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	for d, dev := range devs {
		ts := int64(0)
		for i := 0; i < lens[d]; i++ {
			ts += 1 + rng.Int64N(20)
			r := row{ts: ts, v: float64(rng.IntN(1000)) / 8, vnull: rng.IntN(7) == 0, n: rng.Int64N(1 << 40), note: fmt.Sprint("x", rng.IntN(50)), nnull: rng.IntN(9) == 0}
			ref[dev] = append(ref[dev], r)
			b.Field(0).(*array.StringBuilder).Append(dev)
			b.Field(1).(*array.Int64Builder).Append(r.ts)
			if r.vnull {
				b.Field(2).AppendNull()
			} else {
				b.Field(2).(*array.Float64Builder).Append(r.v)
			}
			b.Field(3).(*array.Int64Builder).Append(r.n)
			if r.nnull {
				b.Field(4).AppendNull()
			} else {
				b.Field(4).(*array.StringBuilder).Append(r.note)
			}
		}
	}
	rec := b.NewRecord()
	defer rec.Release()
	data := writeFile(t, []arrow.Record{rec}, Model{Keys: []string{"dev"}, Time: "ts"}, &WriterOptions{ChunkRows: 300, MinChunkRows: 64})
	f, err := OpenSource(ctx, iox.Bytes(data), nil)
	if err != nil {
		t.Fatal(err)
	}
	const L = 120
	var ws []Window
	for d := range devs {
		n := int64(lens[d])
		ws = append(ws, Window{d, 0}, Window{d, n - L}, Window{d, 290}, Window{d, 250}, Window{d, 250}, Window{d, 299}, Window{d, 300}, Window{d, 10})
		for range 40 {
			ws = append(ws, Window{d, rng.Int64N(n - L + 1)})
		}
	}
	rng.Shuffle(len(ws), func(i, j int) { ws[i], ws[j] = ws[j], ws[i] })
	cols := []string{"note", "v", "dev", "ts", "n", "v"}
	check := func(rec arrow.Record, off int, w Window) {
		t.Helper()
		dev := devs[w.Series]
		for i := 0; i < L; i++ {
			want := ref[dev][w.Start+int64(i)]
			at := off + i
			if got := rec.Column(2).(*array.String).Value(at); got != dev {
				t.Fatalf("window %+v row %d: series %q", w, i, got)
			}
			if got := rec.Column(3).(*array.Int64).Value(at); got != want.ts {
				t.Fatalf("window %+v row %d: ts %d, want %d", w, i, got, want.ts)
			}
			if got := rec.Column(4).(*array.Int64).Value(at); got != want.n {
				t.Fatalf("window %+v row %d: n %d, want %d", w, i, got, want.n)
			}
			for _, c := range []int{1, 5} {
				v := rec.Column(c).(*array.Float64)
				if v.IsNull(at) != want.vnull || (!want.vnull && v.Value(at) != want.v) {
					t.Fatalf("window %+v row %d: v null %v %v, want null %v %v", w, i, v.IsNull(at), v.Value(at), want.vnull, want.v)
				}
			}
			s := rec.Column(0).(*array.String)
			if s.IsNull(at) != want.nnull || (!want.nnull && s.Value(at) != want.note) {
				t.Fatalf("window %+v row %d: note %q (null %v), want %q (null %v)", w, i, s.Value(at), s.IsNull(at), want.note, want.nnull)
			}
		}
	}
	for _, threads := range []int{1, 2} {
		o := SampleOptions{Length: L, Columns: cols, Threads: threads}
		recs, st, err := f.ReadWindows(ctx, ws, o)
		if err != nil {
			t.Fatal(err)
		}
		if len(recs) != len(ws) {
			t.Fatalf("%d records for %d windows", len(recs), len(ws))
		}
		for i, r := range recs {
			if r.NumRows() != L {
				t.Fatalf("window %d: %d rows", i, r.NumRows())
			}
			check(r, 0, ws[i])
			r.Release()
		}
		if st.ValuesReturned != int64(len(ws)*L*4) || st.RowsReturned != int64(len(ws)*L) {
			t.Fatalf("returned %d values, %d rows", st.ValuesReturned, st.RowsReturned)
		}
		if st.ValuesDecoded <= 0 || st.ValuesDecoded > 4*int64(lens[0]+lens[1]+lens[2]) {
			t.Fatalf("decoded %d values", st.ValuesDecoded)
		}
		o.Stacked = true
		stacked, _, err := f.ReadWindows(ctx, ws, o)
		if err != nil {
			t.Fatal(err)
		}
		if len(stacked) != 1 || stacked[0].NumRows() != int64(len(ws)*L) || stacked[0].Schema().Field(0).Name != "window" {
			t.Fatalf("stacked: %d records", len(stacked))
		}
		s := stacked[0]
		body := array.NewRecord(arrowSchemaTail(s), s.Columns()[1:], s.NumRows())
		for i, w := range ws {
			for k := 0; k < L; k++ {
				if s.Column(0).(*array.Int32).Value(i*L+k) != int32(i) {
					t.Fatalf("window column wrong at %d", i*L+k)
				}
			}
			check(body, i*L, w)
		}
		body.Release()
		s.Release()
	}
	// Value buffers of non-nullable columns return to the file's pool when
	// the records are released and are reused unzeroed: windows read after
	// others were released must not show any of their values.
	for round := range 3 {
		ws2 := make([]Window, len(ws))
		for i := range ws2 {
			d := rng.IntN(len(devs))
			ws2[i] = Window{d, rng.Int64N(int64(lens[d]) - L + 1)}
		}
		recs, _, err := f.ReadWindows(ctx, ws2, SampleOptions{Length: L, Columns: cols, Stacked: round == 1})
		if err != nil {
			t.Fatal(err)
		}
		if round == 1 {
			s := recs[0]
			body := array.NewRecord(arrowSchemaTail(s), s.Columns()[1:], s.NumRows())
			for i, w := range ws2 {
				check(body, i*L, w)
			}
			body.Release()
		} else {
			for i, r := range recs {
				check(r, 0, ws2[i])
			}
		}
		for _, r := range recs {
			r.Release()
		}
	}
	// no windows: no record, or stacked one of no rows
	if recs, _, err := f.ReadWindows(ctx, nil, SampleOptions{Length: L}); err != nil || len(recs) != 0 {
		t.Fatalf("no windows: %d records, %v", len(recs), err)
	}
	if recs, _, err := f.ReadWindows(ctx, nil, SampleOptions{Length: L, Stacked: true}); err != nil || len(recs) != 1 || recs[0].NumRows() != 0 {
		t.Fatalf("no windows, stacked: %d records, %v", len(recs), err)
	} else {
		recs[0].Release()
	}
	// windows out of their series
	for _, w := range []Window{{0, -1}, {1, int64(lens[1]) - L + 1}, {3, 0}, {-1, 0}} {
		if _, _, err := f.ReadWindows(ctx, []Window{w}, SampleOptions{Length: L}); err == nil {
			t.Fatalf("window %+v read", w)
		}
	}
}
