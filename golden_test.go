package strata_test

// Golden files pin the file format. testdata/golden holds, per case, a
// Strata file (<name>.strata) and the Arrow IPC file of the record batches
// it was written from (<name>.arrow):
//
//   - TestGoldenRead reads every .strata file and compares it value by value
//     with its .arrow file. It must keep passing forever: a reader that can
//     no longer read an old file is a format break.
//   - TestGoldenBytes writes each .arrow input again with the case's options
//     and requires the exact bytes of the .strata file, so any change of
//     the written bytes (encoding choice, layout, metadata) is noticed.
//
// When the format or the encoder's choices change on purpose, regenerate the
// .strata files (the .arrow inputs are kept; missing ones are generated) and
// commit them with the change:
//
//	go test -run 'TestGolden' -update .
//
// Old .strata files worth reading forever should then be kept under a new
// name (e.g. <name>-v1.0.strata) with their .arrow file rather than
// overwritten, so TestGoldenRead keeps checking them.

import (
	"bytes"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"

	"strata"
	"strata/internal/randtable"
	"strata/iox"
)

var update = flag.Bool("update", false, "rewrite the golden .strata files (and create missing .arrow inputs)")

const goldenDir = "testdata/golden"

// goldenCase is one golden file: its writer options and, for creating a
// missing .arrow input, its generator.
type goldenCase struct {
	name string
	opts strata.WriteOptions
	gen  func() (*arrow.Schema, []arrow.RecordBatch)
}

var goldenCases = []goldenCase{
	{"lineitem", strata.WriteOptions{StripeBytes: 24 << 10, StripeGroup: 2, ChunkValues: 256}, lineitemLike},
	{"nested", strata.WriteOptions{StripeBytes: 8 << 10, StripeGroup: 2, ChunkValues: 100}, goldenNested},
	{"types", strata.WriteOptions{ChunkValues: 64}, goldenTypes},
	{"flatmap", strata.WriteOptions{StripeBytes: 4 << 10, FlatMap: []string{"attrs", "counts"}}, goldenFlatMap},
	{"nozstd", strata.WriteOptions{NoZstd: true, StripeBytes: 8 << 10, ChunkValues: 128}, goldenNested},
	// byte-sized chunks, stripe-scoped shared dictionaries (kind 17) and
	// Correlated columns (kind 18)
	{"layout", strata.WriteOptions{ChunkValues: 1024, ChunkTarget: 1 << 10, StripeBytes: 96 << 10}, goldenLayout},
	// FSST chunks that share one symbol table per stripe (kind 21)
	{"sharedfsst", strata.WriteOptions{NoZstd: true, ChunkValues: 128, StripeBytes: 32 << 10}, goldenSharedFSST},
	// hex text in both forms and cases, with separators and nulls (kind 25)
	{"hextext", strata.WriteOptions{ChunkValues: 512}, goldenHexText},
	// text with numbers inside it: both slot modes, 0xff bytes, nulls (kind 26)
	{"fieldtext", strata.WriteOptions{ChunkValues: 512}, goldenFieldText},
}

// goldenFieldText returns 2000 rows of text with numbers inside it:
// request paths holding ids (some null), JSON events, dates written out,
// log lines with zero-padded times (slots with widths) and place names
// with distances and 0xff bytes, beside a row number.
func goldenFieldText() (*arrow.Schema, []arrow.RecordBatch) {
	str := arrow.BinaryTypes.String
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int32},
		{Name: "path", Type: str, Nullable: true}, {Name: "event", Type: str},
		{Name: "day", Type: str}, {Name: "log", Type: str}, {Name: "place", Type: arrow.BinaryTypes.Binary},
	}, nil)
	r := rand.New(rand.NewPCG(26, 26))
	res := []string{"users", "orders", "items"}
	acts := []string{"click", "view", "buy"}
	months := []string{"Jan", "Feb", "Mar", "Apr", "May", "Jun"}
	towns := []string{"Ridgecrest, CA", "Hilo, Hawaii", "Tokyo, Japan"}
	var recs []arrow.RecordBatch
	id := int32(0)
	for range 4 {
		b := array.NewRecordBuilder(mem, sch)
		for range 500 {
			b.Field(0).(*array.Int32Builder).Append(id)
			if r.IntN(10) == 0 {
				b.Field(1).AppendNull()
			} else {
				b.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("/api/v%d/%s/%d", 1+r.IntN(3), res[r.IntN(3)], r.IntN(100000)))
			}
			b.Field(2).(*array.StringBuilder).Append(fmt.Sprintf(`{"user":%d,"action":"%s","value":%d}`, r.IntN(50000), acts[r.IntN(3)], r.IntN(1000)))
			b.Field(3).(*array.StringBuilder).Append(fmt.Sprintf("%s %02d %d", months[r.IntN(6)], 1+r.IntN(28), 1990+r.IntN(30)))
			ms := int(id)*1500 + r.IntN(1000)
			b.Field(4).(*array.StringBuilder).Append(fmt.Sprintf("2024-05-01 %02d:%02d:%02d.%03d [worker-%d] took %d ms",
				ms/3600000, ms/60000%60, ms/1000%60, ms%1000, r.IntN(8), r.IntN(500)))
			b.Field(5).(*array.BinaryBuilder).Append(fmt.Appendf(nil, "%dkm \xff of %s", 1+r.IntN(300), towns[r.IntN(3)]))
			id++
		}
		recs = append(recs, b.NewRecordBatch())
		b.Release()
	}
	return sch, recs
}

// goldenHexText returns 2000 rows of hex text: lowercase UUIDs (some
// null), uppercase MAC addresses of one vendor, 40-digit digests (the
// bytes form), ISO 8601 times (digits between separators) and uppercase
// ids of 5 digits (an odd count), and Unicode code points of 4 to 6
// digits (the widths form), beside a row number.
func goldenHexText() (*arrow.Schema, []arrow.RecordBatch) {
	str := arrow.BinaryTypes.String
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int32},
		{Name: "uuid", Type: str, Nullable: true}, {Name: "mac", Type: str},
		{Name: "digest", Type: str}, {Name: "time", Type: str}, {Name: "code", Type: str},
		{Name: "point", Type: str},
	}, nil)
	r := rand.New(rand.NewPCG(25, 25))
	var recs []arrow.RecordBatch
	id := int32(0)
	for range 4 {
		b := array.NewRecordBuilder(mem, sch)
		for range 500 {
			b.Field(0).(*array.Int32Builder).Append(id)
			if r.IntN(10) == 0 {
				b.Field(1).AppendNull()
			} else {
				b.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("%08x-%04x-4%03x-%04x-%012x", r.Uint32(),
					r.IntN(1<<16), r.IntN(1<<12), 0x8000|r.IntN(1<<14), r.Uint64N(1<<48)))
			}
			b.Field(2).(*array.StringBuilder).Append(fmt.Sprintf("00:1B:21:%02X:%02X:%02X", r.IntN(256), r.IntN(256), r.IntN(256)))
			b.Field(3).(*array.StringBuilder).Append(fmt.Sprintf("%016x%016x%08x", r.Uint64(), r.Uint64(), r.Uint32()))
			sec := int(id)*61 + r.IntN(60)
			b.Field(4).(*array.StringBuilder).Append(fmt.Sprintf("2024-03-%02dT%02d:%02d:%02dZ", 1+sec/86400, sec/3600%24, sec/60%60, sec%60))
			b.Field(5).(*array.StringBuilder).Append(fmt.Sprintf("%05X", r.IntN(1<<20)))
			b.Field(6).(*array.StringBuilder).Append(fmt.Sprintf("%04X", int(id)*37+r.IntN(37)))
			id++
		}
		recs = append(recs, b.NewRecordBatch())
		b.Release()
	}
	return sch, recs
}

// goldenSharedFSST returns 1200 rows of comment-like text (FSST in every
// chunk, so the chunks of a stripe share one table) and a row number.
func goldenSharedFSST() (*arrow.Schema, []arrow.RecordBatch) {
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int32},
		{Name: "comment", Type: arrow.BinaryTypes.String},
	}, nil)
	r := rand.New(rand.NewPCG(21, 21))
	words := strings.Fields("carefully final deposits sleep quickly regular packages haggle blithely ironic accounts " +
		"furiously express requests nag slyly pending theodolites among the special foxes")
	var recs []arrow.RecordBatch
	id := int32(0)
	for range 3 {
		b := array.NewRecordBuilder(mem, sch)
		for range 400 {
			b.Field(0).(*array.Int32Builder).Append(id)
			id++
			n := 3 + r.IntN(6)
			var sb strings.Builder
			for k := range n {
				if k > 0 {
					sb.WriteByte(' ')
				}
				sb.WriteString(words[r.IntN(len(words))])
			}
			b.Field(1).(*array.StringBuilder).Append(sb.String())
		}
		recs = append(recs, b.NewRecordBatch())
		b.Release()
	}
	return sch, recs
}

// goldenLayout returns 6000 rows whose columns exercise the stripe-level
// layouts: low-cardinality text and integers, cut into several chunks per
// stripe, share one alphabet per stripe (one with nulls); a receipt date
// lies 1..30 days after a ship date and an end time after a
// start time (0..15 seconds), so both are stored relative to their earlier column.
func goldenLayout() (*arrow.Schema, []arrow.RecordBatch) {
	i64, i32, str, date := arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int32, arrow.BinaryTypes.String, arrow.FixedWidthTypes.Date32
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "ship", Type: date}, {Name: "receipt", Type: date},
		{Name: "start", Type: i64}, {Name: "end", Type: i64},
		{Name: "mode", Type: str}, {Name: "county", Type: str, Nullable: true},
		{Name: "code", Type: i32},
	}, nil)
	r := rand.New(rand.NewPCG(2024, 17))
	counties := make([]string, 300)
	for i := range counties {
		counties[i] = fmt.Sprintf("County %03d of %s", i, []string{"Alabama", "Ohio", "Utah", "Maine"}[i%4])
	}
	var recs []arrow.RecordBatch
	t := int64(1_700_000_000)
	for range 3 {
		b := array.NewRecordBuilder(mem, sch)
		for range 2000 {
			ship := arrow.Date32(8036 + r.IntN(2500))
			b.Field(0).(*array.Date32Builder).Append(ship)
			b.Field(1).(*array.Date32Builder).Append(ship + 1 + arrow.Date32(r.IntN(30)))
			t += int64(r.IntN(1000))
			b.Field(2).(*array.Int64Builder).Append(t)
			b.Field(3).(*array.Int64Builder).Append(t + int64(r.IntN(16)))
			b.Field(4).(*array.StringBuilder).Append([]string{"REG AIR", "AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB"}[r.IntN(7)])
			if r.IntN(10) == 0 {
				b.Field(5).AppendNull()
			} else {
				b.Field(5).(*array.StringBuilder).Append(counties[r.IntN(len(counties))])
			}
			b.Field(6).(*array.Int32Builder).Append(int32(1000 * r.IntN(200)))
		}
		recs = append(recs, b.NewRecordBatch())
		b.Release()
	}
	return sch, recs
}

// lineitemLike returns 600 rows shaped like TPC-H lineitem: sorted keys,
// cents as int64, dates, low-cardinality flags and free text.
func lineitemLike() (*arrow.Schema, []arrow.RecordBatch) {
	i64, i32, str, date := arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int32, arrow.BinaryTypes.String, arrow.FixedWidthTypes.Date32
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "l_orderkey", Type: i64}, {Name: "l_partkey", Type: i64}, {Name: "l_suppkey", Type: i64},
		{Name: "l_linenumber", Type: i32}, {Name: "l_quantity", Type: i64}, {Name: "l_extendedprice", Type: i64},
		{Name: "l_discount", Type: i64}, {Name: "l_tax", Type: i64},
		{Name: "l_returnflag", Type: str}, {Name: "l_linestatus", Type: str},
		{Name: "l_shipdate", Type: date}, {Name: "l_commitdate", Type: date}, {Name: "l_receiptdate", Type: date},
		{Name: "l_shipinstruct", Type: str}, {Name: "l_shipmode", Type: str}, {Name: "l_comment", Type: str},
	}, nil)
	r := rand.New(rand.NewPCG(1992, 1998))
	words := strings.Fields("carefully final deposits sleep quickly regular packages haggle blithely ironic accounts")
	var recs []arrow.RecordBatch
	order, line := int64(1), 0
	for range 3 {
		b := array.NewRecordBuilder(mem, sch)
		for range 200 {
			line++
			if line > 1+r.IntN(7) {
				order += 1 + int64(r.IntN(3))
				line = 1
			}
			qty := int64(1+r.IntN(50)) * 100
			price := int64(90000 + r.IntN(110000))
			ship := arrow.Date32(8036 + r.IntN(2500))
			b.Field(0).(*array.Int64Builder).Append(order)
			b.Field(1).(*array.Int64Builder).Append(1 + r.Int64N(200000))
			b.Field(2).(*array.Int64Builder).Append(1 + r.Int64N(10000))
			b.Field(3).(*array.Int32Builder).Append(int32(line))
			b.Field(4).(*array.Int64Builder).Append(qty)
			b.Field(5).(*array.Int64Builder).Append(qty * price / 100)
			b.Field(6).(*array.Int64Builder).Append(int64(r.IntN(11)))
			b.Field(7).(*array.Int64Builder).Append(int64(r.IntN(9)))
			b.Field(8).(*array.StringBuilder).Append([]string{"A", "N", "R"}[r.IntN(3)])
			b.Field(9).(*array.StringBuilder).Append([]string{"F", "O"}[r.IntN(2)])
			b.Field(10).(*array.Date32Builder).Append(ship)
			b.Field(11).(*array.Date32Builder).Append(ship + arrow.Date32(r.IntN(60)) - 30)
			b.Field(12).(*array.Date32Builder).Append(ship + 1 + arrow.Date32(r.IntN(30)))
			b.Field(13).(*array.StringBuilder).Append([]string{"DELIVER IN PERSON", "COLLECT COD", "NONE", "TAKE BACK RETURN"}[r.IntN(4)])
			b.Field(14).(*array.StringBuilder).Append([]string{"REG AIR", "AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB"}[r.IntN(7)])
			n := 2 + r.IntN(5)
			c := make([]string, n)
			for i := range c {
				c[i] = words[r.IntN(len(words))]
			}
			b.Field(15).(*array.StringBuilder).Append(strings.Join(c, " "))
		}
		recs = append(recs, b.NewRecordBatch())
		b.Release()
	}
	return sch, recs
}

// goldenNested holds the nesting shapes of shapesSchema (structs of lists
// of structs, lists of lists, maps of lists, lists of maps) with nulls at
// every level.
func goldenNested() (*arrow.Schema, []arrow.RecordBatch) {
	fs := shapesSchema().Fields()
	sch := arrow.NewSchema([]arrow.Field{fs[0], fs[1], fs[3], fs[4]}, nil)
	g := randtable.New(2024, randtable.Options{})
	return sch, []arrow.RecordBatch{g.Record(mem, sch, 150), g.Record(mem, sch, 150)}
}

// goldenTypes has one column per leaf type (floats with NaN, ±0, ±Inf).
func goldenTypes() (*arrow.Schema, []arrow.RecordBatch) {
	var fields []arrow.Field
	for i, lt := range randtable.Leaves {
		fields = append(fields, arrow.Field{Name: fmt.Sprintf("t%02d", i), Type: lt, Nullable: i%4 != 0})
	}
	sch := arrow.NewSchema(fields, nil)
	g := randtable.New(77, randtable.Options{})
	return sch, []arrow.RecordBatch{g.Record(mem, sch, 200), floatSpecials(sch)}
}

// floatSpecials is a batch whose float columns hold NaN, ±Inf, ±0 and a
// denormal, and whose other columns are null or empty values.
func floatSpecials(sch *arrow.Schema) arrow.RecordBatch {
	b := array.NewRecordBuilder(mem, sch)
	defer b.Release()
	specials := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1), 1e-310}
	for i, f := range sch.Fields() {
		for _, v := range specials {
			switch fb := b.Field(i).(type) {
			case *array.Float32Builder:
				fb.Append(float32(v))
			case *array.Float64Builder:
				fb.Append(v)
			default:
				if f.Nullable {
					fb.AppendNull()
				} else {
					fb.AppendEmptyValue()
				}
			}
		}
	}
	return b.NewRecordBatch()
}

// goldenFlatMap has two map columns stored as FlatMaps through the writer
// option, with null and empty maps; every key appears in the first stripe.
func goldenFlatMap() (*arrow.Schema, []arrow.RecordBatch) {
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int32},
		{Name: "attrs", Nullable: true, Type: arrow.MapOf(arrow.BinaryTypes.String, arrow.BinaryTypes.String)},
		{Name: "counts", Type: arrow.MapOfFields(arrow.Field{Name: "key", Type: arrow.PrimitiveTypes.Int64},
			arrow.Field{Name: "value", Type: arrow.PrimitiveTypes.Float64, Nullable: true})},
	}, nil)
	r := rand.New(rand.NewPCG(5, 5))
	var recs []arrow.RecordBatch
	id := int32(0)
	for batch := range 3 {
		b := array.NewRecordBuilder(mem, sch)
		for row := range 150 {
			b.Field(0).(*array.Int32Builder).Append(id)
			id++
			ab := b.Field(1).(*array.MapBuilder)
			switch {
			case batch == 0 && row == 0: // all keys in the first stripe
				ab.Append(true)
				for k := range 5 {
					ab.KeyBuilder().(*array.StringBuilder).Append(fmt.Sprintf("attr%d", k))
					ab.ItemBuilder().(*array.StringBuilder).Append("first")
				}
			case r.IntN(7) == 0:
				ab.AppendNull()
			default:
				ab.Append(true)
				for _, k := range r.Perm(5)[:r.IntN(4)] {
					ab.KeyBuilder().(*array.StringBuilder).Append(fmt.Sprintf("attr%d", k))
					ab.ItemBuilder().(*array.StringBuilder).Append([]string{"red", "green", "blue", ""}[r.IntN(4)])
				}
			}
			cb := b.Field(2).(*array.MapBuilder)
			cb.Append(true)
			keys := r.Perm(3)[:r.IntN(3)]
			if batch == 0 && row == 0 {
				keys = []int{2, 0, 1}
			}
			for _, k := range keys {
				cb.KeyBuilder().(*array.Int64Builder).Append(int64(k) * 1000)
				if r.IntN(6) == 0 {
					cb.ItemBuilder().AppendNull()
				} else {
					cb.ItemBuilder().(*array.Float64Builder).Append(float64(r.IntN(400)) / 4)
				}
			}
		}
		recs = append(recs, b.NewRecordBatch())
		b.Release()
	}
	return sch, recs
}

// readIPC reads the record batches of an Arrow IPC file.
func readIPC(t testing.TB, path string) (*arrow.Schema, []arrow.RecordBatch) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r, err := ipc.NewFileReader(bytes.NewReader(data), ipc.WithAllocator(mem))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	defer r.Close()
	var recs []arrow.RecordBatch
	for i := range r.NumRecords() {
		rec, err := r.RecordBatchAt(i)
		if err != nil {
			t.Fatalf("%s: batch %d: %v", path, i, err)
		}
		recs = append(recs, rec)
	}
	return r.Schema(), recs
}

func writeIPC(t testing.TB, path string, sch *arrow.Schema, recs []arrow.RecordBatch) {
	t.Helper()
	var buf bytes.Buffer
	w, err := ipc.NewFileWriter(&buf, ipc.WithSchema(sch), ipc.WithAllocator(mem))
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range recs {
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// goldenInput returns the case's input batches, creating the .arrow file
// under -update when it is missing.
func goldenInput(t *testing.T, c goldenCase) *table {
	t.Helper()
	path := filepath.Join(goldenDir, c.name+".arrow")
	if _, err := os.Stat(path); err != nil && *update {
		if err := os.MkdirAll(goldenDir, 0o755); err != nil {
			t.Fatal(err)
		}
		sch, recs := c.gen()
		writeIPC(t, path, sch, recs)
	}
	sch, recs := readIPC(t, path)
	all, err := randtable.Concat(mem, sch, recs)
	if err != nil {
		t.Fatal(err)
	}
	return &table{sch: sch, recs: recs, all: all, flats: c.opts.FlatMap}
}

// TestGoldenBytes rewrites every golden input and requires the golden
// bytes. A failure means the written format changed: if that is intended,
// regenerate with -update (see the top of this file).
func TestGoldenBytes(t *testing.T) {
	for _, c := range goldenCases {
		t.Run(c.name, func(t *testing.T) {
			tb := goldenInput(t, c)
			got := writeBytes(t, tb, c.opts)
			path := filepath.Join(goldenDir, c.name+".strata")
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (create it with -update)", err)
			}
			if !bytes.Equal(got, want) {
				i := 0
				for i < min(len(got), len(want)) && got[i] == want[i] {
					i++
				}
				t.Fatalf("writing %s.arrow gives %d bytes differing from %s (%d bytes) at offset %d; if the format change is intended, regenerate with -update",
					c.name, len(got), path, len(want), i)
			}
			// The bytes do not depend on the writer's parallelism.
			opts := c.opts
			opts.Parallel = 1
			if again := writeBytes(t, tb, opts); !bytes.Equal(again, want) {
				t.Fatal("writing with Parallel 1 gives other bytes")
			}
		})
	}
}

// TestGoldenRead reads every golden file, including ones kept from older
// format versions, and compares it value by value with its input.
func TestGoldenRead(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(goldenDir, "*.strata"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < len(goldenCases) {
		t.Fatalf("%d golden files, want at least %d (create them with -update)", len(files), len(goldenCases))
	}
	for _, path := range files {
		name := strings.TrimSuffix(filepath.Base(path), ".strata")
		t.Run(name, func(t *testing.T) {
			sch, recs := readIPC(t, strings.TrimSuffix(path, ".strata")+".arrow")
			all, err := randtable.Concat(mem, sch, recs)
			if err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			f, err := strata.OpenSource(iox.Bytes(data))
			if err != nil {
				t.Fatal(err)
			}
			checkSchema(t, f.Schema(), sch)
			got, err := scan(f, strata.ScanOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if err := cmpFlat.Records(all, got); err != nil {
				t.Fatal(err)
			}
			n := all.NumRows()
			rows := []int64{n - 1, 0, n / 3, n / 2, n / 3}
			tk, err := f.Take(rows, nil)
			if err != nil {
				t.Fatal(err)
			}
			checkTake(t, all, rows, nil, tk)
		})
	}
}
