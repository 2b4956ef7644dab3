package read_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata/encoding"
	"strata/filter"
	"strata/format"
	"strata/iox"
	"strata/read"
	"strata/stats"
	"strata/write"
)

// testSchema covers flat columns of every filterable kind, nulls, NaN and a
// nested struct sub-field and a list payload.
func testSchema() *arrow.Schema {
	return arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int32},
		{Name: "grp", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "price", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "tag", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "day", Type: arrow.FixedWidthTypes.Date32},
		{Name: "flag", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
		{Name: "u", Type: arrow.PrimitiveTypes.Uint16},
		{Name: "s", Type: arrow.StructOf(
			arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
			arrow.Field{Name: "b", Type: arrow.BinaryTypes.String, Nullable: true}), Nullable: true},
		{Name: "l", Type: arrow.ListOf(arrow.PrimitiveTypes.Int64), Nullable: true},
	}, nil)
}

var tags = []string{"AIR", "MAIL", "RAIL", "SHIP", "TRUCK", "", "REG AIR"}

func makeBatch(r *rand.Rand, sch *arrow.Schema, start, n int) arrow.Record {
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	defer b.Release()
	for i := 0; i < n; i++ {
		row := start + i
		b.Field(0).(*array.Int32Builder).Append(int32(row * 3))
		if r.IntN(10) == 0 {
			b.Field(1).AppendNull()
		} else {
			b.Field(1).(*array.Int64Builder).Append(int64(row/100) - 20)
		}
		switch r.IntN(20) {
		case 0:
			b.Field(2).AppendNull()
		case 1:
			b.Field(2).(*array.Float64Builder).Append(math.NaN())
		default:
			b.Field(2).(*array.Float64Builder).Append(float64(r.IntN(10000)) / 100)
		}
		if r.IntN(8) == 0 {
			b.Field(3).AppendNull()
		} else {
			b.Field(3).(*array.StringBuilder).Append(tags[r.IntN(len(tags))])
		}
		b.Field(4).(*array.Date32Builder).Append(arrow.Date32(9000 + r.IntN(2000)))
		if r.IntN(5) == 0 {
			b.Field(5).AppendNull()
		} else {
			b.Field(5).(*array.BooleanBuilder).Append(r.IntN(3) == 0)
		}
		b.Field(6).(*array.Uint16Builder).Append(uint16(r.IntN(70000)))
		sb := b.Field(7).(*array.StructBuilder)
		if r.IntN(10) == 0 {
			sb.AppendNull()
		} else {
			sb.Append(true)
			if r.IntN(6) == 0 {
				sb.FieldBuilder(0).AppendNull()
			} else {
				sb.FieldBuilder(0).(*array.Int32Builder).Append(int32(r.IntN(50)))
			}
			sb.FieldBuilder(1).(*array.StringBuilder).Append(fmt.Sprintf("k%d", r.IntN(30)))
		}
		lb := b.Field(8).(*array.ListBuilder)
		if r.IntN(7) == 0 {
			lb.AppendNull()
		} else {
			lb.Append(true)
			for k := r.IntN(4); k > 0; k-- {
				lb.ValueBuilder().(*array.Int64Builder).Append(r.Int64N(1000))
			}
		}
	}
	return b.NewRecord()
}

// writeFile writes rows rows in batches and returns the file bytes and the
// batches written.
func writeFile(t testing.TB, seed uint64, rows int, opts write.Options) ([]byte, []arrow.Record) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 1))
	sch := testSchema()
	var buf bytes.Buffer
	fw := format.NewWriter(&buf, format.WriterOptions{GroupSize: 2})
	w, err := write.New(fw, sch, opts)
	if err != nil {
		t.Fatal(err)
	}
	var recs []arrow.Record
	for done := 0; done < rows; {
		n := min(rows-done, 1+r.IntN(3000))
		rec := makeBatch(r, sch, done, n)
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
		recs = append(recs, rec)
		done += n
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), recs
}

func concat(t testing.TB, recs []arrow.Record) arrow.Record {
	t.Helper()
	if len(recs) == 0 {
		return array.NewRecord(testSchema(), nil, 0)
	}
	tbl := array.NewTableFromRecords(recs[0].Schema(), recs)
	defer tbl.Release()
	cols := make([]arrow.Array, tbl.NumCols())
	for i := range cols {
		a, err := array.Concatenate(tbl.Column(i).Data().Chunks(), memory.DefaultAllocator)
		if err != nil {
			t.Fatal(err)
		}
		cols[i] = a
	}
	return array.NewRecord(recs[0].Schema(), cols, tbl.NumRows())
}

func scanAll(t testing.TB, f *read.File, opts read.ScanOptions) (arrow.Record, read.ScanStats) {
	t.Helper()
	sc, err := f.Scan(opts)
	if err != nil {
		t.Fatalf("scan %+v: %v", opts, err)
	}
	var recs []arrow.Record
	for {
		rec, err := sc.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("scan %q: %v", opts.Where, err)
		}
		recs = append(recs, rec)
	}
	if len(recs) == 0 {
		return nil, sc.Stats()
	}
	all := concat(t, recs)
	for _, r := range recs {
		r.Release()
	}
	return all, sc.Stats()
}

func TestRoundTrip(t *testing.T) {
	sizes := []int{0, 1, 777, 20000}
	if raceEnabled {
		sizes = []int{0, 1, 777, 5000}
	}
	for _, rows := range sizes {
		data, recs := writeFile(t, uint64(rows), rows, write.Options{StripeBytes: 64 << 10, ChunkValues: 1000})
		f, err := read.Open(context.Background(), iox.Bytes(data), read.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if f.NumRows() != int64(rows) {
			t.Fatalf("NumRows = %d, want %d", f.NumRows(), rows)
		}
		got, _ := scanAll(t, f, read.ScanOptions{})
		if rows == 0 {
			if got != nil && got.NumRows() != 0 {
				t.Fatalf("empty file returned %d rows", got.NumRows())
			}
			continue
		}
		want := concat(t, recs)
		for c := 0; c < int(want.NumCols()); c++ {
			if !array.ApproxEqual(want.Column(c), got.Column(c), array.WithNaNsEqual(true)) {
				t.Fatalf("rows %d: column %s differs", rows, want.ColumnName(c))
			}
		}
		// offset/limit windows, over nested (stripe batches) and flat
		// (chunk batches) projections
		for wi, w := range [][2]int64{{0, 5}, {int64(rows / 3), 100}, {int64(rows) - 1, 10}, {int64(rows), 1},
			{0, 5}, {int64(rows / 3), 2500}, {int64(rows) - 1, 10}, {int64(rows / 7), 0}} {
			cols := []string{"id", "tag", "l"}
			if wi >= 4 {
				cols = []string{"id", "tag", "u"}
			}
			if w[1] == 0 {
				w[1] = int64(rows)
			}
			got, _ := scanAll(t, f, read.ScanOptions{Offset: w[0], Limit: w[1], Columns: cols})
			wantN := max(0, min(w[1], int64(rows)-w[0]))
			if got == nil {
				if wantN != 0 {
					t.Fatalf("window %v: no rows, want %d", w, wantN)
				}
				continue
			}
			if got.NumRows() != wantN {
				t.Fatalf("window %v: %d rows, want %d", w, got.NumRows(), wantN)
			}
			ws := want.NewSlice(w[0], w[0]+wantN)
			for c, name := range cols {
				idx := want.Schema().FieldIndices(name)[0]
				if !array.Equal(ws.Column(idx), got.Column(c)) {
					t.Fatalf("window %v column %s differs", w, name)
				}
			}
		}
	}
}

// value converts an Arrow cell to the filter's Value domain.
func value(a arrow.Array, i int) (stats.Value, bool) {
	if a.IsNull(i) {
		return stats.Value{}, true
	}
	switch v := a.(type) {
	case *array.Int32:
		return stats.Of(v.Value(i)), false
	case *array.Int64:
		return stats.Of(v.Value(i)), false
	case *array.Uint16:
		return stats.Of(v.Value(i)), false
	case *array.Float64:
		return stats.Of(v.Value(i)), false
	case *array.String:
		return stats.Bytes([]byte(v.Value(i))), false
	case *array.Date32:
		return stats.Of(int32(v.Value(i))), false
	case *array.Boolean:
		return stats.Bool(v.Value(i)), false
	}
	panic(fmt.Sprintf("value of %T", a))
}

func column(rec arrow.Record, path string) arrow.Array {
	switch path {
	case "s.a", "s.b":
		st := rec.Column(rec.Schema().FieldIndices("s")[0]).(*array.Struct)
		if path == "s.a" {
			return st.Field(0)
		}
		return st.Field(1)
	}
	return rec.Column(rec.Schema().FieldIndices(path)[0])
}

func lookupInfo(path string) (filter.ColumnInfo, bool) {
	switch path {
	case "id", "s.a":
		return filter.ColumnInfo{Type: encoding.Int32}, true
	case "grp":
		return filter.ColumnInfo{Type: encoding.Int64}, true
	case "price":
		return filter.ColumnInfo{Type: encoding.Float64}, true
	case "tag", "s.b":
		return filter.ColumnInfo{Type: encoding.Binary, Logical: filter.LogicalString}, true
	case "day":
		return filter.ColumnInfo{Type: encoding.Int32, Logical: filter.LogicalDate}, true
	case "flag":
		return filter.ColumnInfo{Type: encoding.Bool}, true
	case "u":
		return filter.ColumnInfo{Type: encoding.Uint16}, true
	}
	return filter.ColumnInfo{}, false
}

func randomWhere(r *rand.Rand) string {
	leaf := func() string {
		switch r.IntN(14) {
		case 0:
			return fmt.Sprintf("id BETWEEN %d AND %d", r.IntN(60000), r.IntN(60000))
		case 1:
			return fmt.Sprintf("grp = %d", r.IntN(230)-20)
		case 2:
			return fmt.Sprintf("grp IN (%d, %d, %d)", r.IntN(230)-20, r.IntN(230)-20, r.IntN(230)-20)
		case 3:
			return fmt.Sprintf("price < %d.5", r.IntN(100))
		case 4:
			return fmt.Sprintf("tag = '%s'", tags[r.IntN(len(tags))])
		case 5:
			return "tag LIKE 'R%'"
		case 6:
			return fmt.Sprintf("day >= DATE '19%02d-0%d-15'", 94+r.IntN(6), 1+r.IntN(9))
		case 7:
			return []string{"flag", "flag = FALSE", "flag IS NULL"}[r.IntN(3)]
		case 8:
			return fmt.Sprintf("u > %d", r.IntN(70000))
		case 9:
			return fmt.Sprintf("s.a <= %d", r.IntN(50))
		case 10:
			return fmt.Sprintf("s.b IN ('k%d', 'k%d')", r.IntN(30), r.IntN(30))
		case 11:
			return []string{"grp IS NULL", "price IS NOT NULL", "tag IS NULL"}[r.IntN(3)]
		case 12:
			return fmt.Sprintf("price != %d", r.IntN(100))
		}
		return fmt.Sprintf("id < %d", r.IntN(70000))
	}
	var expr func(d int) string
	expr = func(d int) string {
		if d > 1 || r.IntN(3) == 0 {
			return leaf()
		}
		switch r.IntN(3) {
		case 0:
			return "(" + expr(d+1) + " AND " + expr(d+1) + ")"
		case 1:
			return "(" + expr(d+1) + " OR " + expr(d+1) + ")"
		}
		return "NOT (" + expr(d+1) + ")"
	}
	return expr(0)
}

// TestFilteredScan checks every filtered scan, take and aggregate against a
// full read followed by a plain row-by-row filter.
func TestFilteredScan(t *testing.T) {
	const rows = 30000
	data, recs := writeFile(t, 42, rows, write.Options{StripeBytes: 256 << 10, ChunkValues: 2048})
	all := concat(t, recs)
	f, err := read.Open(context.Background(), iox.Bytes(data), read.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(9, 9))
	trials := 150
	if raceEnabled || testing.Short() {
		trials = 20
	}
	for trial := 0; trial < trials; trial++ {
		where := randomWhere(r)
		e, err := filter.Parse(where)
		if err == nil {
			e, err = filter.Bind(e, lookupInfo)
		}
		if err != nil {
			t.Fatalf("%s: %v", where, err)
		}
		var want []int
		for i := 0; i < rows; i++ {
			if filter.EvalRow(e, func(p string) (stats.Value, bool) { return value(column(all, p), i) }) {
				want = append(want, i)
			}
		}
		cols := []string{"id", "tag", "s", "l", "price"}
		got, st := scanAll(t, f, read.ScanOptions{Where: where, Columns: cols})
		n := 0
		if got != nil {
			n = int(got.NumRows())
		}
		if n != len(want) {
			t.Fatalf("%s: %d rows, want %d (%s)", where, n, len(want), st.String())
		}
		if n == 0 {
			continue
		}
		for c, name := range cols {
			src := column(all, name)
			var parts []arrow.Array
			for _, i := range want {
				parts = append(parts, array.NewSlice(src, int64(i), int64(i)+1))
			}
			exp, _ := array.Concatenate(parts, memory.DefaultAllocator)
			if !array.ApproxEqual(exp, got.Column(c), array.WithNaNsEqual(true)) {
				t.Fatalf("%s: column %s differs", where, name)
			}
		}
		// Aggregates over the same filter.
		aggs, _, err := f.Aggregate("count(*), sum(grp), min(id), max(u), count(price)", where)
		if err != nil {
			t.Fatalf("%s: aggregate: %v", where, err)
		}
		var sum int64
		var cntPrice int64
		minID, maxU := int64(math.MaxInt64), int64(-1)
		grp := column(all, "grp").(*array.Int64)
		for _, i := range want {
			if grp.IsValid(i) {
				sum += grp.Value(i)
			}
			if column(all, "price").IsValid(i) {
				cntPrice++
			}
			minID = min(minID, int64(column(all, "id").(*array.Int32).Value(i)))
			maxU = max(maxU, int64(column(all, "u").(*array.Uint16).Value(i)))
		}
		if aggs[0].I != int64(len(want)) || aggs[2].I != minID || aggs[3].I != maxU || aggs[4].I != cntPrice {
			t.Fatalf("%s: aggregates %v, want count %d min %d max %d count(price) %d", where, aggs, len(want), minID, maxU, cntPrice)
		}
		if !aggs[1].Null && aggs[1].I != sum {
			t.Fatalf("%s: sum(grp) = %v, want %d", where, aggs[1], sum)
		}
	}
}

func TestTake(t *testing.T) {
	const rows = 12000
	data, recs := writeFile(t, 5, rows, write.Options{StripeBytes: 128 << 10, ChunkValues: 1500})
	all := concat(t, recs)
	f, err := read.Open(context.Background(), iox.Bytes(data), read.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(3, 3))
	for trial := 0; trial < 20; trial++ {
		req := make([]int64, 1+r.IntN(50))
		for i := range req {
			req[i] = r.Int64N(rows)
		}
		if trial == 0 {
			req = []int64{0, rows - 1, 0}
		}
		got, err := f.Take(req, nil)
		if err != nil {
			t.Fatal(err)
		}
		for c := 0; c < int(all.NumCols()); c++ {
			var parts []arrow.Array
			for _, i := range req {
				parts = append(parts, array.NewSlice(all.Column(c), i, i+1))
			}
			exp, _ := array.Concatenate(parts, memory.DefaultAllocator)
			if !array.ApproxEqual(exp, got.Column(c), array.WithNaNsEqual(true)) {
				t.Fatalf("take %v: column %s differs:\n%v\n%v", req, all.ColumnName(c), exp, got.Column(c))
			}
		}
	}
	if _, err := f.Take([]int64{rows}, nil); err == nil {
		t.Fatal("Take past the end returned no error")
	}
}

// TestPooledBatches releases every batch of repeated flat scans, so buffers
// are reused, and checks each scan against the first: a buffer handed back
// to the pool while still referenced would show up as changed values.
func TestPooledBatches(t *testing.T) {
	data, _ := writeFile(t, 11, 20000, write.Options{StripeBytes: 64 << 10, ChunkValues: 1000})
	f, err := read.Open(context.Background(), iox.Bytes(data), read.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cols := []string{"id", "grp", "price", "tag", "day", "flag", "u"}
	want, _ := scanAll(t, f, read.ScanOptions{Columns: cols})
	defer want.Release()
	for round := 0; round < 3; round++ {
		sc, err := f.Scan(read.ScanOptions{Columns: cols})
		if err != nil {
			t.Fatal(err)
		}
		at := int64(0)
		for {
			rec, err := sc.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			exp := want.NewSlice(at, at+rec.NumRows())
			for c := range cols {
				if !array.ApproxEqual(exp.Column(c), rec.Column(c), array.WithNaNsEqual(true)) {
					t.Fatalf("round %d, rows %d+: column %s differs", round, at, cols[c])
				}
			}
			at += rec.NumRows()
			exp.Release()
			rec.Release()
		}
		if at != want.NumRows() {
			t.Fatalf("round %d: %d rows, want %d", round, at, want.NumRows())
		}
		// Every buffer of a released batch is back in the pool: none leaks.
		if n := read.LiveBuffers(f); n != 0 {
			t.Fatalf("round %d: %d pooled buffers still handed out after every batch was released", round, n)
		}
	}
}

// TestBlocksPrunedCounted checks that blocks settled from encoding headers
// inside a chunk (Delta or BlockFOR bounds on a sorted column, a dictionary
// alphabet without a match) are reported in the scan statistics.
func TestBlocksPrunedCounted(t *testing.T) {
	data, _ := writeFile(t, 21, 20000, write.Options{ChunkValues: 20000})
	f, err := read.Open(context.Background(), iox.Bytes(data), read.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, st := scanAll(t, f, read.ScanOptions{Where: "id BETWEEN 30000 AND 30030", Columns: []string{"id"}})
	if got == nil || got.NumRows() != 11 {
		t.Fatalf("rows = %v, want 11 (%s)", got, st.String())
	}
	if st.BlocksPruned == 0 {
		t.Fatalf("no encoding blocks settled from headers: %s", st.String())
	}
}

// objectShaped is an in-memory source that states an object store's read
// shape: holes up to a megabyte are read through, so one read holds many
// chunks.
type objectShaped struct{ iox.Source }

func (objectShaped) Hints() iox.Hints { return iox.Hints{Gap: 1 << 20, MaxRead: 16 << 20, InFlight: 4} }

// TestTakeObjectShapedOpensOnce looks rows of the primitive columns up
// through reads much larger than their chunks, with the decoder cache on:
// each chunk is opened (and its body inflated) once, not once over the
// large read and again over the copy the cache keeps, and the values match
// the written ones, cold and then warm from the cache. (Nested columns
// read their stripe and cache nothing; other tests cover them.)
func TestTakeObjectShapedOpensOnce(t *testing.T) {
	const rows = 400000
	data, recs := writeFile(t, 11, rows, write.Options{StripeBytes: 16 << 20, ChunkValues: 1000})
	all := concat(t, recs)
	defer all.Release()
	f, err := read.Open(context.Background(), objectShaped{iox.Bytes(data)}, read.Options{DecoderCacheBytes: 64 << 20, Parallelism: 1})
	if err != nil {
		t.Fatal(err)
	}
	prim := []string{"id", "grp", "price", "tag", "day", "flag", "u"}
	r := rand.New(rand.NewPCG(8, 8))
	for trial := 0; trial < 6; trial++ {
		req := make([]int64, 1+r.IntN(20))
		for i := range req {
			req[i] = r.Int64N(rows)
		}
		for pass, what := range []string{"cold", "warm"} {
			if pass == 0 {
				f.DropCaches()
			}
			fetches, opens, stop := read.ChunkEvents()
			got, st, err := f.TakeContext(context.Background(), req, read.TakeOptions{Columns: prim})
			stop()
			if err != nil {
				t.Fatal(err)
			}
			if pass == 0 && st.BytesRead < 1<<20 {
				t.Fatalf("cold take %v read %d bytes: the reads are not larger than a megabyte, the case is not exercised", req, st.BytesRead)
			}
			if pass == 1 && len(*opens) != 0 {
				t.Fatalf("warm take %v opened %d chunks, want all from the cache", req, len(*opens))
			}
			checkOnce(t, fmt.Sprint(what, " take ", req), *fetches, *opens, 1)
			for c := range prim {
				var parts []arrow.Array
				for _, i := range req {
					parts = append(parts, array.NewSlice(all.Column(c), i, i+1))
				}
				exp, _ := array.Concatenate(parts, memory.DefaultAllocator)
				if !array.ApproxEqual(exp, got.Column(c), array.WithNaNsEqual(true)) {
					t.Fatalf("%s take %v: column %s differs:\n%v\n%v", what, req, all.ColumnName(c), exp, got.Column(c))
				}
				exp.Release()
			}
			got.Release()
		}
	}
}
