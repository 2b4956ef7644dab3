package read_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata/encoding"
	"strata/format"
	"strata/iox"
	"strata/meta"
	"strata/read"
	"strata/stats"
	"strata/write"
)

// A file of a stripe a row: opening it must cost a small multiple of its
// metadata's bytes, not a decoded map of statistics a stripe (about
// 1,340 bytes a stripe of these four columns, 1,690 with a bloom filter,
// before the stripe statistics and bloom index were kept encoded; about
// 125 and 145 after).

const (
	manyRows = 16000
	// manyStripeHeap bounds the live heap an open may keep per stripe.
	manyStripeHeap = 400
)

func manySchema() *arrow.Schema {
	return arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "s", Type: arrow.BinaryTypes.String},
		{Name: "n", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "l", Type: arrow.ListOf(arrow.PrimitiveTypes.Int32)},
	}, nil)
}

// Row i of the many-stripe file: id a permutation of the rows (unsorted,
// so that no cluster index prunes and stripe statistics must), s sorted,
// n null every third row, l of i%4 items.
func manyID(i int) int64  { return int64(i) * 48271 % manyRows }
func manyS(i int) string  { return fmt.Sprintf("s%07d", i) }
func manyN(i int) int32   { return int32(i % 1000) }
func manyNull(i int) bool { return i%3 == 0 }
func manyL(i int) []int32 {
	l := make([]int32, i%4)
	for k := range l {
		l[k] = int32(i + k)
	}
	return l
}

// writeMany writes manyRows rows of a stripe each (StripeBytes 1).
func writeMany(t testing.TB, opts write.Options) []byte {
	t.Helper()
	sch := manySchema()
	var buf bytes.Buffer
	opts.StripeBytes = 1
	w, err := write.New(format.NewWriter(&buf, format.WriterOptions{}), sch, opts)
	if err != nil {
		t.Fatal(err)
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	defer b.Release()
	for done := 0; done < manyRows; done += 1000 {
		for i := done; i < done+1000; i++ {
			b.Field(0).(*array.Int64Builder).Append(manyID(i))
			b.Field(1).(*array.StringBuilder).Append(manyS(i))
			if manyNull(i) {
				b.Field(2).AppendNull()
			} else {
				b.Field(2).(*array.Int32Builder).Append(manyN(i))
			}
			lb := b.Field(3).(*array.ListBuilder)
			lb.Append(true)
			for _, v := range manyL(i) {
				lb.ValueBuilder().(*array.Int32Builder).Append(v)
			}
		}
		rec := b.NewRecordBatch()
		err := w.Write(rec)
		rec.Release()
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// checkManyRows checks rec value by value against rows want of the file.
func checkManyRows(t *testing.T, what string, rec arrow.Record, want []int) {
	t.Helper()
	if rec == nil {
		if len(want) != 0 {
			t.Fatalf("%s: no rows, want %d", what, len(want))
		}
		return
	}
	if int(rec.NumRows()) != len(want) {
		t.Fatalf("%s: %d rows, want %d", what, rec.NumRows(), len(want))
	}
	id := rec.Column(0).(*array.Int64)
	s := rec.Column(1).(*array.String)
	n := rec.Column(2).(*array.Int32)
	l := rec.Column(3).(*array.List)
	items := l.ListValues().(*array.Int32)
	for j, i := range want {
		if id.Value(j) != manyID(i) || s.Value(j) != manyS(i) {
			t.Fatalf("%s: row %d (file row %d): id %d s %q, want %d %q", what, j, i, id.Value(j), s.Value(j), manyID(i), manyS(i))
		}
		if n.IsNull(j) != manyNull(i) || (!manyNull(i) && n.Value(j) != manyN(i)) {
			t.Fatalf("%s: row %d (file row %d): n %v, want null %v or %d", what, j, i, n.ValueStr(j), manyNull(i), manyN(i))
		}
		lo, hi := l.ValueOffsets(j)
		wl := manyL(i)
		if l.IsNull(j) || int(hi-lo) != len(wl) {
			t.Fatalf("%s: row %d (file row %d): l %s, want %v", what, j, i, l.ValueStr(j), wl)
		}
		for k, v := range wl {
			if items.Value(int(lo)+k) != v {
				t.Fatalf("%s: row %d (file row %d): l %s, want %v", what, j, i, l.ValueStr(j), wl)
			}
		}
	}
}

// liveHeap returns the heap in use after collecting garbage.
func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestOpenManyStripesHeap: opening a file of a stripe a row, with and
// without a bloom filter a stripe, keeps under manyStripeHeap bytes of
// live heap a stripe, and a metadata cache counts within a factor of two
// of what it keeps (it counted a quarter before); its scans, a filtered
// scan that stripe statistics prune to one stripe and a Take answer value
// by value.
func TestOpenManyStripesHeap(t *testing.T) {
	for _, bloom := range []bool{false, true} {
		t.Run(fmt.Sprintf("bloom=%v", bloom), func(t *testing.T) {
			var opts write.Options
			if bloom {
				opts.Bloom = []string{"id"}
			}
			data := writeMany(t, opts)
			before := liveHeap()
			f, err := read.Open(context.Background(), iox.Bytes(data), read.Options{NoMetaCache: true})
			if err != nil {
				t.Fatal(err)
			}
			after := liveHeap()
			stripes := f.Container().NumStripes()
			if stripes < manyRows/2 {
				t.Fatalf("%d stripes for %d rows: want about a stripe a row", stripes, manyRows)
			}
			var live int64
			if after > before {
				live = int64(after - before)
			}
			t.Logf("%d stripes: open keeps %d bytes (%d a stripe)", stripes, live, live/int64(stripes))
			if live > int64(stripes)*manyStripeHeap {
				t.Errorf("open keeps %d bytes of heap for %d stripes (%d a stripe), want at most %d a stripe",
					live, stripes, live/int64(stripes), manyStripeHeap)
			}

			// The metadata cache counts about what the open keeps.
			mc := read.NewMetaCache(1 << 30)
			before = liveHeap()
			g, err := read.Open(context.Background(), &countingSource{data: data, id: "many"}, read.Options{MetaCache: mc})
			if err != nil {
				t.Fatal(err)
			}
			after = liveHeap()
			live = 0
			if after > before {
				live = int64(after - before)
			}
			t.Logf("the metadata cache counts %d bytes for an open that keeps %d", mc.Bytes(), live)
			if n := mc.Bytes(); n < live/2 || n > 2*live {
				t.Errorf("the metadata cache counts %d bytes for an open that keeps %d", n, live)
			}
			runtime.KeepAlive(g)

			all := make([]int, manyRows)
			for i := range all {
				all[i] = i
			}
			got, _ := scanAll(t, f, read.ScanOptions{})
			checkManyRows(t, "scan", got, all)
			got.Release()

			// The writer puts the first batch in one stripe, whose bounds
			// span all ids; the later stripes hold a row each. A row of
			// the first stripe: statistics prune every other stripe.
			first := f.Container().Stripe(0).Rows
			where := fmt.Sprintf("id = %d", manyID(500))
			got, st := scanAll(t, f, read.ScanOptions{Where: where})
			checkManyRows(t, where, got, []int{500})
			got.Release()
			if st.StripesPrunedStats != stripes-1 || st.RowsScanned != first {
				t.Fatalf("%s: %s; want all stripes but the first pruned by statistics", where, st.String())
			}
			// A row of a later stripe: statistics prune all stripes but
			// its own and the first, which the bloom filter prunes when
			// the file has filters.
			const row = 12345
			where = fmt.Sprintf("id = %d", manyID(row))
			got, st = scanAll(t, f, read.ScanOptions{Where: where})
			checkManyRows(t, where, got, []int{row})
			got.Release()
			want := first + 1
			if bloom {
				want = 1
			}
			if st.StripesPrunedStats != stripes-2 || st.RowsScanned != want {
				t.Fatalf("%s: %s; want all stripes but two pruned by statistics, %d rows scanned", where, st.String(), want)
			}

			rows := []int{0, 1, row, manyRows - 1}
			take := make([]int64, len(rows))
			for k, r := range rows {
				take[k] = int64(r)
			}
			rec, err := f.Take(take, nil)
			if err != nil {
				t.Fatal(err)
			}
			checkManyRows(t, "take", rec, rows)
			rec.Release()
			runtime.KeepAlive(f)
		})
	}
}

// withSection returns data rewritten with the section name replaced by
// b, framing and checksums valid, so that the damage reaches the reader.
func withSection(t *testing.T, data []byte, name string, b []byte) []byte {
	t.Helper()
	ctx := context.Background()
	in, err := format.Open(ctx, iox.Bytes(data), format.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w := format.NewWriter(&buf, format.WriterOptions{})
	for s := range in.NumStripes() {
		streams, err := in.Streams(ctx, s)
		if err != nil {
			t.Fatal(err)
		}
		for id, st := range streams {
			for c, ch := range st.Chunks {
				p, err := in.ReadChunk(ctx, s, id, c)
				if err != nil {
					t.Fatal(err)
				}
				if err := w.WriteChunk(id, p, int(ch.Rows), ch.Stats); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := w.FinishStripe(int(in.Stripe(s).Rows)); err != nil {
			t.Fatal(err)
		}
	}
	for _, sec := range in.Sections() {
		sb, _, err := in.Section(ctx, sec.Name)
		if err != nil {
			t.Fatal(err)
		}
		if sec.Name == name {
			sb = b
		}
		if err := w.AddSection(sec.Name, sb); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestDamagedStripeStats: the stripe statistics are decoded when a query
// asks for them, so a blob that does not decode in a well-framed section
// fails the queries that need it — a filtered scan, an aggregate, Inspect,
// StripeStats — with an error naming the stripe and stream, never a panic
// or rows pruned on garbage; queries that need no statistics still read.
// A section whose framing is damaged fails Open.
func TestDamagedStripeStats(t *testing.T) {
	ctx := context.Background()
	data, recs := writeFile(t, 91, 3000, write.Options{StripeBytes: 16 << 10})
	all := concat(t, recs)
	defer all.Release()
	ff, err := format.Open(ctx, iox.Bytes(data), format.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ff.NumStripes() < 3 {
		t.Fatalf("%d stripes, want at least 3", ff.NumStripes())
	}
	sec, _, err := ff.Section(ctx, "stats.stripe")
	if err != nil {
		t.Fatal(err)
	}
	ss, err := meta.UnmarshalStripeStats(sec)
	if err != nil {
		t.Fatal(err)
	}
	f, err := read.Open(ctx, iox.Bytes(data), read.Options{NoMetaCache: true})
	if err != nil {
		t.Fatal(err)
	}
	const bad = 1
	stream := f.StrataSchema().ColumnStreams(0)[0] // id, int64
	cs, ok := ss[bad].Columns[stream]
	if !ok || !cs.HasMinMax {
		t.Fatalf("stripe %d has no bounds of stream %d", bad, stream)
	}
	// Bounds out of order: well framed, refused when decoded.
	cs.Min, cs.Max = stats.Int(encoding.Int64, cs.Max.Int()+1), stats.Int(encoding.Int64, cs.Min.Int())
	ss[bad].Columns[stream] = cs
	damaged := withSection(t, data, "stats.stripe", meta.MarshalStripeStats(ss))

	g, err := read.Open(ctx, iox.Bytes(damaged), read.Options{NoMetaCache: true})
	if err != nil {
		t.Fatalf("open of a well-framed section: %v", err)
	}
	named := func(what string, err error) {
		t.Helper()
		want := fmt.Sprintf("stripe %d stats, stream %d", bad, stream)
		if !errors.Is(err, encoding.ErrCorrupt) || !strings.Contains(err.Error(), want) {
			t.Fatalf("%s: %v; want ErrCorrupt naming %q", what, err, want)
		}
	}
	sc, err := g.Scan(read.ScanOptions{Where: "id >= 0"})
	if err != nil {
		t.Fatal(err)
	}
	for err == nil {
		var rec arrow.Record
		if rec, err = sc.Next(); rec != nil {
			rec.Release()
		}
	}
	named("filtered scan", err)
	_, _, err = g.Aggregate("count(*)", "id >= 0")
	named("aggregate", err)
	_, err = g.Inspect()
	named("inspect", err)
	_, err = g.StripeStats(bad)
	named("StripeStats", err)
	if s, err := g.StripeStats(0); err != nil || s == nil || len(s.Columns) == 0 {
		t.Fatalf("an intact stripe's statistics: %v, %v", s, err)
	}
	got, _ := scanAll(t, g, read.ScanOptions{})
	if got == nil || got.NumRows() != all.NumRows() {
		t.Fatalf("an unfiltered scan of the damaged file: %v rows, want %d", got, all.NumRows())
	}
	for c := range all.Columns() {
		if !array.ApproxEqual(all.Column(c), got.Column(c), array.WithNaNsEqual(true)) {
			t.Fatalf("an unfiltered scan of the damaged file: column %d differs from the rows written", c)
		}
	}
	got.Release()

	// Framing cut short: Open refuses the file.
	cut := withSection(t, data, "stats.stripe", sec[:len(sec)-2])
	if _, err := read.Open(ctx, iox.Bytes(cut), read.Options{NoMetaCache: true}); !errors.Is(err, encoding.ErrCorrupt) || !strings.Contains(err.Error(), "stripe stats") {
		t.Fatalf("open of a cut section: %v", err)
	}
}

// TestStripeStatsSweep flips each byte of the stripe statistics section
// of a small file in turn (checksums made valid again): every open, query
// and Inspect of the result answers or fails with an error of the
// reader's kinds, never panics. Statistics that still decode but lie are
// trusted, as they always were; this checks the lazy decoding's paths.
func TestStripeStatsSweep(t *testing.T) {
	ctx := context.Background()
	data, _ := writeFile(t, 92, 1500, write.Options{StripeBytes: 8 << 10, Bloom: []string{"u"}})
	ff, err := format.Open(ctx, iox.Bytes(data), format.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sec, _, err := ff.Section(ctx, "stats.stripe")
	if err != nil {
		t.Fatal(err)
	}
	step := 1
	if testing.Short() || raceEnabled {
		step = 7
	}
	var refused, failed, answered int
	kinds := func(what string, pos int, err error) {
		t.Helper()
		if err != nil {
			failed++
		}
		if err != nil && !errors.Is(err, encoding.ErrCorrupt) && !errors.Is(err, encoding.ErrUnsupported) && !errors.Is(err, encoding.ErrLimit) {
			t.Fatalf("byte %d flipped: %s: %v is not an error of the reader's kinds", pos, what, err)
		}
	}
	for pos := 0; pos < len(sec); pos += step {
		b := bytes.Clone(sec)
		b[pos] ^= 0xff
		f, err := read.Open(ctx, iox.Bytes(withSection(t, data, "stats.stripe", b)), read.Options{NoMetaCache: true, Parallelism: 1})
		kinds("open", pos, err)
		if err != nil {
			refused++
			continue
		}
		answered++
		for _, where := range []string{"id >= 700", "u = 3", "tag = 'AIR' or grp < 0"} {
			sc, err := f.Scan(read.ScanOptions{Where: where})
			for err == nil {
				var rec arrow.Record
				if rec, err = sc.Next(); rec != nil {
					rec.Release()
				}
			}
			if err != io.EOF {
				kinds(where, pos, err)
			}
			_, _, err = f.Aggregate("count(*), min(id)", where)
			kinds("aggregate where "+where, pos, err)
		}
		_, err = f.Inspect()
		kinds("inspect", pos, err)
	}
	t.Logf("%d-byte section: %d flips refused at open, %d opened; %d of their queries failed", len(sec), refused, answered, failed-refused)
}
