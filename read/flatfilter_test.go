package read_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata/format"
	"strata/iox"
	"strata/read"
	"strata/shred"
	"strata/write"
)

// The FlatMap filter tests write a table of FlatMap columns, one per value
// type, whose keys are present in some rows and absent in others, in maps
// that are sometimes null, with null values; the key "late" appears only
// from row flatLateRow on (stripes before have none of its streams), the
// key "early" only before flatEarlyRow. Every query's rows are compared
// with a row-by-row evaluation of the same condition over the Go values.

const (
	flatRows     = 3000
	flatStripe   = 600
	flatLateRow  = 1900
	flatEarlyRow = 500
)

// flatCell is the value of a key present in a map: null, or v.
type flatCell struct {
	null bool
	v    any // int64, float64, string, bool, int32 (date), int64 (µs), flatPair, int32
}

// flatPair is a struct value: x (nullable) and y.
type flatPair struct {
	x     int32
	xNull bool
	y     string
}

// flatMapRow is one row of a FlatMap column: nil for a null map.
type flatMapRow map[string]flatCell

type flatTable struct {
	g     []int64 // ordinary nullable column (gNull)
	gNull []bool
	sNull []bool // struct s holding the FlatMap m
	maps  map[string][]flatMapRow
}

// flatCols lists the FlatMap columns and the Arrow types of their values.
var flatCols = []struct {
	name string
	key  arrow.DataType
	val  arrow.DataType
}{
	{"fi", arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64},
	{"ff", arrow.BinaryTypes.String, arrow.PrimitiveTypes.Float64},
	{"fs", arrow.BinaryTypes.String, arrow.BinaryTypes.String},
	{"fb", arrow.BinaryTypes.String, arrow.FixedWidthTypes.Boolean},
	{"fd", arrow.BinaryTypes.String, arrow.FixedWidthTypes.Date32},
	{"ft", arrow.BinaryTypes.String, &arrow.TimestampType{Unit: arrow.Microsecond}},
	{"fv", arrow.BinaryTypes.String, arrow.StructOf(
		arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		arrow.Field{Name: "y", Type: arrow.BinaryTypes.String})},
	{"fk", arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int32},
}

var flatFruit = []string{"", "apple", "banana", "cherry", "date"}

var flatTS0 = time.Date(2021, 1, 1, 0, 0, 0, 0, time.UTC).UnixMicro()

func flatSchema() *arrow.Schema {
	flag := arrow.NewMetadata([]string{shred.FlatMapMetadataKey}, []string{"true"})
	fields := []arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int32},
		{Name: "g", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	}
	for _, c := range flatCols {
		fields = append(fields, arrow.Field{Name: c.name, Type: arrow.MapOf(c.key, c.val), Nullable: true})
	}
	fields = append(fields, arrow.Field{Name: "s", Nullable: true, Type: arrow.StructOf(arrow.Field{
		Name: "m", Type: arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int32), Nullable: true, Metadata: flag})})
	return arrow.NewSchema(fields, nil)
}

// flatValue draws the value of key of column col in row row.
func flatValue(r *rand.Rand, col, key string, row int) flatCell {
	if r.IntN(7) == 0 {
		return flatCell{null: true}
	}
	switch col {
	case "fi":
		if key == "a" {
			return flatCell{v: int64(row/10 + r.IntN(5))} // clustered: statistics settle stripes
		}
		return flatCell{v: int64(r.IntN(21) - 10)}
	case "ff":
		return flatCell{v: []float64{-1.5, 0, 0.25, 0.5, 2, math.NaN(), math.Inf(1)}[r.IntN(7)]}
	case "fs":
		return flatCell{v: flatFruit[r.IntN(len(flatFruit))]}
	case "fb":
		return flatCell{v: r.IntN(2) == 0}
	case "fd":
		return flatCell{v: int32(18000 + r.IntN(400))}
	case "ft":
		return flatCell{v: flatTS0 + r.Int64N(20*24)*3600e6}
	case "fv":
		return flatCell{v: flatPair{x: int32(r.IntN(10)), xNull: r.IntN(5) == 0, y: flatFruit[r.IntN(len(flatFruit))]}}
	}
	return flatCell{v: int32(r.IntN(100))} // fk, s.m
}

// flatKeys returns the keys a map of column col may hold in row row, and
// how likely each is.
func flatKeys(col string, row int) (keys []string, odds []int) {
	if col == "fk" {
		return []string{"7", "42", "-3"}, []int{2, 4, 3}
	}
	keys, odds = []string{"a", "b"}, []int{1, 5} // a in most rows, b in a fifth
	if row >= flatLateRow {
		keys, odds = append(keys, "late"), append(odds, 2)
	}
	if row < flatEarlyRow {
		keys, odds = append(keys, "early"), append(odds, 3)
	}
	return keys, odds
}

// makeFlatTable draws the Go values of the table.
func makeFlatTable(seed uint64) *flatTable {
	r := rand.New(rand.NewPCG(seed, 3))
	t := &flatTable{maps: map[string][]flatMapRow{}}
	names := []string{"s.m"}
	for _, c := range flatCols {
		names = append(names, c.name)
	}
	for row := 0; row < flatRows; row++ {
		t.g = append(t.g, int64(r.IntN(100)))
		t.gNull = append(t.gNull, r.IntN(6) == 0)
		t.sNull = append(t.sNull, r.IntN(9) == 0)
		for _, name := range names {
			if r.IntN(10) == 0 || name == "s.m" && t.sNull[row] {
				t.maps[name] = append(t.maps[name], nil)
				continue
			}
			m := flatMapRow{}
			keys, odds := flatKeys(name, row)
			for k, key := range keys {
				if r.IntN(odds[k]) == 0 {
					m[key] = flatValue(r, name, key, row)
				}
			}
			t.maps[name] = append(t.maps[name], m)
		}
	}
	return t
}

// appendFlatCell appends a value to the builder of a map's items.
func appendFlatCell(b array.Builder, c flatCell) {
	if c.null {
		b.AppendNull()
		return
	}
	switch b := b.(type) {
	case *array.Int64Builder:
		b.Append(c.v.(int64))
	case *array.Float64Builder:
		b.Append(c.v.(float64))
	case *array.StringBuilder:
		b.Append(c.v.(string))
	case *array.BooleanBuilder:
		b.Append(c.v.(bool))
	case *array.Date32Builder:
		b.Append(arrow.Date32(c.v.(int32)))
	case *array.TimestampBuilder:
		b.Append(arrow.Timestamp(c.v.(int64)))
	case *array.Int32Builder:
		b.Append(c.v.(int32))
	case *array.StructBuilder:
		p := c.v.(flatPair)
		b.Append(true)
		if p.xNull {
			b.FieldBuilder(0).AppendNull()
		} else {
			b.FieldBuilder(0).(*array.Int32Builder).Append(p.x)
		}
		b.FieldBuilder(1).(*array.StringBuilder).Append(p.y)
	default:
		panic(fmt.Sprintf("item builder %T", b))
	}
}

// appendFlatRow appends a map (keys in a random order: a FlatMap keeps none).
func appendFlatRow(r *rand.Rand, mb *array.MapBuilder, m flatMapRow) {
	if m == nil {
		mb.AppendNull()
		return
	}
	mb.Append(true)
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	r.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
	for _, k := range keys {
		switch kb := mb.KeyBuilder().(type) {
		case *array.StringBuilder:
			kb.Append(k)
		case *array.Int32Builder:
			var v int32
			fmt.Sscan(k, &v)
			kb.Append(v)
		}
		appendFlatCell(mb.ItemBuilder(), m[k])
	}
}

// writeFlatTable writes the table in batches of uneven sizes, in stripes
// of flatStripe rows and chunks of few values.
func writeFlatTable(t *testing.T, tb *flatTable, opts write.Options) []byte {
	t.Helper()
	sch := flatSchema()
	var buf bytes.Buffer
	w, err := write.New(format.NewWriter(&buf, format.WriterOptions{GroupSize: 2}), sch, opts)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(5, 5))
	for lo := 0; lo < flatRows; {
		hi := min(flatRows, lo+100+r.IntN(300))
		b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
		for row := lo; row < hi; row++ {
			b.Field(0).(*array.Int32Builder).Append(int32(row))
			if tb.gNull[row] {
				b.Field(1).AppendNull()
			} else {
				b.Field(1).(*array.Int64Builder).Append(tb.g[row])
			}
			for k, c := range flatCols {
				appendFlatRow(r, b.Field(2+k).(*array.MapBuilder), tb.maps[c.name][row])
			}
			sb := b.Field(2 + len(flatCols)).(*array.StructBuilder)
			if tb.sNull[row] {
				sb.AppendNull()
			} else {
				sb.Append(true)
				appendFlatRow(r, sb.FieldBuilder(0).(*array.MapBuilder), tb.maps["s.m"][row])
			}
		}
		rec := b.NewRecord()
		b.Release()
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
		rec.Release()
		lo = hi
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// tri is a value of SQL's three-valued logic.
type tri int8

const (
	triFalse tri = iota
	triNull
	triTrue
)

func triOf(b bool) tri {
	if b {
		return triTrue
	}
	return triFalse
}

// flatCond is a filter and its reference evaluation on a row.
type flatCond struct {
	where string
	eval  func(row int) tri
}

// flatLeaves returns leaf conditions on FlatMap keys and ordinary columns.
func flatLeaves(tb *flatTable) []flatCond {
	// cell returns the value of col.key in row, ok false when it is NULL
	// there (no map, no key, a null value).
	cell := func(col, key string, row int) (any, bool) {
		m := tb.maps[col][row]
		c, ok := m[key]
		if m == nil || !ok || c.null {
			return nil, false
		}
		return c.v, true
	}
	cmp := func(where, col, key string, pred func(v any) bool) flatCond {
		return flatCond{where, func(row int) tri {
			v, ok := cell(col, key, row)
			if !ok {
				return triNull
			}
			return triOf(pred(v))
		}}
	}
	isNull := func(col, key string, want bool) flatCond {
		op := "IS NULL"
		if !want {
			op = "IS NOT NULL"
		}
		return flatCond{fmt.Sprintf("%s.%s %s", col, key, op), func(row int) tri {
			_, ok := cell(col, key, row)
			return triOf(ok != want)
		}}
	}
	day := func(y int, m time.Month, d int) int32 {
		return int32(time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Unix() / 86400)
	}
	field := func(where, key string, pred func(p flatPair) tri) flatCond {
		return flatCond{where, func(row int) tri {
			v, ok := cell("fv", key, row)
			if !ok {
				return triNull
			}
			return pred(v.(flatPair))
		}}
	}
	out := []flatCond{
		cmp("fi.a > 120", "fi", "a", func(v any) bool { return v.(int64) > 120 }),
		cmp("fi.a < 0", "fi", "a", func(v any) bool { return v.(int64) < 0 }),
		cmp("fi.a BETWEEN 40 AND 90", "fi", "a", func(v any) bool { return v.(int64) >= 40 && v.(int64) <= 90 }),
		cmp("fi.b = 3", "fi", "b", func(v any) bool { return v.(int64) == 3 }),
		cmp("fi.b != 3", "fi", "b", func(v any) bool { return v.(int64) != 3 }),
		cmp("fi.b IN (1, -4, 9)", "fi", "b", func(v any) bool { x := v.(int64); return x == 1 || x == -4 || x == 9 }),
		cmp("fi.late >= 2", "fi", "late", func(v any) bool { return v.(int64) >= 2 }),
		cmp("fi.early <= -2", "fi", "early", func(v any) bool { return v.(int64) <= -2 }),
		isNull("fi", "a", true), isNull("fi", "late", true), isNull("fi", "early", false), isNull("fi", "b", false),
		cmp("ff.a > 0.3", "ff", "a", func(v any) bool { return v.(float64) > 0.3 }),
		cmp("ff.a != 0.5", "ff", "a", func(v any) bool { return v.(float64) != 0.5 }),
		cmp("ff.late <= 0.25", "ff", "late", func(v any) bool { return v.(float64) <= 0.25 }),
		isNull("ff", "b", true),
		cmp("fs.a = 'banana'", "fs", "a", func(v any) bool { return v.(string) == "banana" }),
		cmp("fs.a = ''", "fs", "a", func(v any) bool { return v.(string) == "" }),
		cmp("fs.a = 'apricot'", "fs", "a", func(v any) bool { return v.(string) == "apricot" }),
		cmp("fs.a IN ('apricot', 'blueberry')", "fs", "a", func(v any) bool { return v.(string) == "apricot" || v.(string) == "blueberry" }),
		cmp("fs.b > 'b'", "fs", "b", func(v any) bool { return v.(string) > "b" }),
		cmp("fs.late LIKE 'c%'", "fs", "late", func(v any) bool { return strings.HasPrefix(v.(string), "c") }),
		cmp("fs.late IN ('apple', 'date')", "fs", "late", func(v any) bool { return v.(string) == "apple" || v.(string) == "date" }),
		cmp("fb.a = TRUE", "fb", "a", func(v any) bool { return v.(bool) }),
		cmp("fb.early = FALSE", "fb", "early", func(v any) bool { return !v.(bool) }),
		cmp("fd.a >= DATE '2019-06-01'", "fd", "a", func(v any) bool { return v.(int32) >= day(2019, 6, 1) }),
		cmp("fd.b < DATE '2019-04-01'", "fd", "b", func(v any) bool { return v.(int32) < day(2019, 4, 1) }),
		cmp("ft.a < TIMESTAMP '2021-01-10 00:00:00'", "ft", "a", func(v any) bool {
			return v.(int64) < time.Date(2021, 1, 10, 0, 0, 0, 0, time.UTC).UnixMicro()
		}),
		cmp("ft.late >= TIMESTAMP '2021-01-15 12:00:00'", "ft", "late", func(v any) bool {
			return v.(int64) >= time.Date(2021, 1, 15, 12, 0, 0, 0, time.UTC).UnixMicro()
		}),
		field("fv.a.x > 4", "a", func(p flatPair) tri {
			if p.xNull {
				return triNull
			}
			return triOf(p.x > 4)
		}),
		{"fv.b.x IS NULL", func(row int) tri { v, ok := cell("fv", "b", row); return triOf(!ok || v.(flatPair).xNull) }},
		field("fv.late.y = 'cherry'", "late", func(p flatPair) tri { return triOf(p.y == "cherry") }),
		{"fv.a.y IS NULL", func(row int) tri { _, ok := cell("fv", "a", row); return triOf(!ok) }},
		cmp(`fk."7" > 50`, "fk", "7", func(v any) bool { return v.(int32) > 50 }),
		{`fk."-3" IS NULL`, func(row int) tri { _, ok := cell("fk", "-3", row); return triOf(!ok) }},
		cmp(`s.m.a < 30`, "s.m", "a", func(v any) bool { return v.(int32) < 30 }),
		isNull("s.m", "b", true),
		{"g > 60", func(row int) tri {
			if tb.gNull[row] {
				return triNull
			}
			return triOf(tb.g[row] > 60)
		}},
		{"g IS NULL", func(row int) tri { return triOf(tb.gNull[row]) }},
		{"id < 1200", func(row int) tri { return triOf(row < 1200) }},
	}
	return out
}

// randomFlatCond combines leaves with AND, OR and NOT, two levels deep.
func randomFlatCond(r *rand.Rand, leaves []flatCond, depth int) flatCond {
	if depth > 1 || r.IntN(3) == 0 {
		return leaves[r.IntN(len(leaves))]
	}
	a, b := randomFlatCond(r, leaves, depth+1), randomFlatCond(r, leaves, depth+1)
	switch r.IntN(3) {
	case 0:
		return flatCond{"(" + a.where + " AND " + b.where + ")", func(row int) tri { return min(a.eval(row), b.eval(row)) }}
	case 1:
		return flatCond{"(" + a.where + " OR " + b.where + ")", func(row int) tri { return max(a.eval(row), b.eval(row)) }}
	}
	return flatCond{"NOT (" + a.where + ")", func(row int) tri { return 2 - a.eval(row) }}
}

// checkFlatMapRow compares row i of a read FlatMap column of int64 values
// with the Go map, entries unordered.
func checkFlatMapRow(t *testing.T, where string, a *array.Map, i int, want flatMapRow) {
	t.Helper()
	if a.IsNull(i) != (want == nil) {
		t.Fatalf("%s: row %d: map null %v, want %v", where, i, a.IsNull(i), want == nil)
	}
	lo, hi := a.ValueOffsets(i)
	if int(hi-lo) != len(want) {
		t.Fatalf("%s: row %d: %d entries, want %d", where, i, hi-lo, len(want))
	}
	keys := a.Keys().(*array.String)
	items := a.Items().(*array.Int64)
	for j := int(lo); j < int(hi); j++ {
		c, ok := want[keys.Value(j)]
		if !ok || c.null != items.IsNull(j) || !c.null && c.v.(int64) != items.Value(j) {
			t.Fatalf("%s: row %d: entry %q differs", where, i, keys.Value(j))
		}
	}
}

// TestFlatMapFilter checks filters on FlatMap keys — alone, combined with
// each other and with ordinary columns — in scans (projecting the FlatMap
// itself), counts and aggregates, against the reference evaluation.
func TestFlatMapFilter(t *testing.T) {
	tb := makeFlatTable(11)
	var flats []string
	for _, c := range flatCols {
		flats = append(flats, c.name)
	}
	data := writeFlatTable(t, tb, write.Options{FlatMap: flats, StripeRows: flatStripe, ChunkValues: 40,
		Bloom: []string{"fs.a", "fi.b"}})
	// Without a decoder cache every query opens what it uses: checkOnce
	// then sees each query's chunks fetched and opened once, in at most
	// two fetch calls a stripe (the filter's, the payload's).
	f, err := read.Open(context.Background(), iox.Bytes(data), read.Options{DecoderCacheBytes: -1})
	if err != nil {
		t.Fatal(err)
	}
	if f.Container().NumStripes() < 4 {
		t.Fatalf("%d stripes, want several", f.Container().NumStripes())
	}
	leaves := flatLeaves(tb)
	conds := append([]flatCond(nil), leaves...)
	for _, l := range leaves {
		conds = append(conds, flatCond{"NOT (" + l.where + ")", func(row int) tri { return 2 - l.eval(row) }})
	}
	r := rand.New(rand.NewPCG(17, 2))
	trials := 150
	if raceEnabled || testing.Short() {
		trials = 30
	}
	for range trials {
		conds = append(conds, randomFlatCond(r, leaves, 0))
	}
	var pruned, bloomed int
	for i, c := range conds {
		var want []int
		var sum int64
		for row := 0; row < flatRows; row++ {
			if c.eval(row) == triTrue {
				want = append(want, row)
				if !tb.gNull[row] {
					sum += tb.g[row]
				}
			}
		}
		fetches, opens, stop := read.ChunkEvents()
		// every other scan evaluates chunks and stripes on three goroutines
		got, st := scanAll(t, f, read.ScanOptions{Where: c.where, Columns: []string{"id", "fi", "g"}, Parallelism: 1 + 2*(i%2)})
		stop()
		checkOnce(t, c.where, *fetches, *opens, 2)
		pruned += st.StripesPrunedStats
		bloomed += st.StripesPrunedBloom
		n := 0
		if got != nil {
			n = int(got.NumRows())
		}
		if n != len(want) {
			t.Fatalf("%s: %d rows, want %d (%s)", c.where, n, len(want), st.String())
		}
		if n > 0 {
			ids := got.Column(0).(*array.Int32)
			fi := got.Column(1).(*array.Map)
			for i, row := range want {
				if int(ids.Value(i)) != row {
					t.Fatalf("%s: row %d is id %d, want %d", c.where, i, ids.Value(i), row)
				}
				checkFlatMapRow(t, c.where, fi, i, tb.maps["fi"][row])
			}
			got.Release()
		}
		fetches, opens, stop = read.ChunkEvents()
		aggs, _, err := f.Aggregate("count(*), sum(g)", c.where)
		stop()
		checkOnce(t, "agg "+c.where, *fetches, *opens, 2)
		if err != nil {
			t.Fatalf("%s: aggregate: %v", c.where, err)
		}
		if aggs[0].I != int64(len(want)) {
			t.Fatalf("%s: count(*) = %d, want %d", c.where, aggs[0].I, len(want))
		}
		if !aggs[1].Null && aggs[1].I != sum || aggs[1].Null && sum != 0 {
			t.Fatalf("%s: sum(g) = %v, want %d", c.where, aggs[1], sum)
		}
	}
	// fi.a grows with the row: its statistics rule stripes out, and the
	// bloom filters of fs.a and fi.b rule out stripes without the value.
	if pruned == 0 || bloomed == 0 {
		t.Errorf("%d stripes pruned by statistics, %d by bloom filters: want some of each", pruned, bloomed)
	}
	t.Logf("%d filters; %d stripes pruned by statistics, %d by bloom filters", len(conds), pruned, bloomed)
}

// TestFlatMapFilterPrunes checks the statistics verdicts on FlatMap keys:
// a comparison no value satisfies skips every stripe, and IS NULL skips
// none of the stripes holding rows without the key.
func TestFlatMapFilterPrunes(t *testing.T) {
	tb := makeFlatTable(4)
	data := writeFlatTable(t, tb, write.Options{FlatMap: []string{"fi"}, StripeRows: flatStripe, ChunkValues: 40})
	f, err := read.Open(context.Background(), iox.Bytes(data), read.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		where  string
		rows   int64
		pruned int
	}{
		{"fi.a < 0", 0, -1},         // every stripe (or the file)
		{"fi.late > -100", -1, 3},   // the stripes without the key
		{"fi.early IS NULL", -1, 0}, // every stripe has rows without it
		{"fi.late IS NOT NULL", -1, 3},
	} {
		aggs, st, err := f.Aggregate("count(*)", c.where)
		if err != nil {
			t.Fatalf("%s: %v", c.where, err)
		}
		if c.rows >= 0 && aggs[0].I != c.rows {
			t.Errorf("%s: %d rows, want %d", c.where, aggs[0].I, c.rows)
		}
		if c.pruned >= 0 && st.StripesPrunedStats != c.pruned {
			t.Errorf("%s: %d stripes pruned, want %d (%s)", c.where, st.StripesPrunedStats, c.pruned, st.String())
		}
		if c.pruned < 0 && st.RowsScanned != 0 {
			t.Errorf("%s: scanned %d rows, want none", c.where, st.RowsScanned)
		}
	}
}

// TestFlatMapFilterRefusals checks what still cannot be filtered: a key
// the schema does not know is an unknown column, the FlatMap itself is
// named as such, and values inside lists and maps stay refused.
func TestFlatMapFilterRefusals(t *testing.T) {
	tb := makeFlatTable(2)
	data := writeFlatTable(t, tb, write.Options{FlatMap: []string{"fi"}, StripeRows: flatStripe})
	f, err := read.Open(context.Background(), iox.Bytes(data), read.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.Scan(read.ScanOptions{Where: "fi.nokey = 1"})
	if !errors.Is(err, read.ErrUnknownColumn) {
		t.Errorf("unknown key: %v, want ErrUnknownColumn", err)
	}
	_, err = f.Scan(read.ScanOptions{Where: "fi = 1"})
	if err == nil || !strings.Contains(err.Error(), "name a key: fi.<key>") {
		t.Errorf("filter on the FlatMap itself: %v", err)
	}
	// ff is an ordinary map here: its values stay refused.
	_, err = f.Scan(read.ScanOptions{Where: "ff.value > 1"})
	if err == nil || !strings.Contains(err.Error(), "cannot be filtered yet") {
		t.Errorf("filter inside a map: %v", err)
	}
}

// twoKeyFiles writes, with open, two files of columns id and a FlatMap m
// of int64 values whose keys differ: file 0 holds rows 0..9 with key a
// only; file 1 rows 10..19 with a, and b = 10·id in the even rows; row
// 15's map is null.
func twoKeyFiles(t *testing.T, open func(*testing.T, arrow.Record) *read.File) []*read.File {
	t.Helper()
	flag := arrow.NewMetadata([]string{shred.FlatMapMetadataKey}, []string{"true"})
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int32},
		{Name: "m", Type: arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64), Nullable: true, Metadata: flag},
	}, nil)
	part := func(lo, hi int) *read.File {
		b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
		defer b.Release()
		for id := lo; id < hi; id++ {
			b.Field(0).(*array.Int32Builder).Append(int32(id))
			mb := b.Field(1).(*array.MapBuilder)
			if id == 15 {
				mb.AppendNull()
				continue
			}
			mb.Append(true)
			mb.KeyBuilder().(*array.StringBuilder).Append("a")
			mb.ItemBuilder().(*array.Int64Builder).Append(int64(id))
			if id >= 10 && id%2 == 0 {
				mb.KeyBuilder().(*array.StringBuilder).Append("b")
				mb.ItemBuilder().(*array.Int64Builder).Append(int64(10 * id))
			}
		}
		rec := b.NewRecord()
		defer rec.Release()
		return open(t, rec)
	}
	return []*read.File{part(0, 10), part(10, 20)}
}

// TestFlatMapFilterUnion filters on a FlatMap key in files read as one
// table, by column name and one after another, where one file's maps never
// hold the key: its schema does not know it, and its rows are NULL for it,
// as for a column a file lacks. (Found by the differential tester on
// tables cut into files read by column name: such a file refused the
// filter as naming an unknown column, and so did the scan and aggregate of
// files of the same columns.) A key no file knows stays an unknown column.
func TestFlatMapFilterUnion(t *testing.T) {
	files := twoKeyFiles(t, aggFile)
	ctx := context.Background()
	ids := func(where string, byName bool) []int32 {
		t.Helper()
		s, err := read.ScanFiles(ctx, files, read.ScanOptions{Where: where, Columns: []string{"id"}}, byName)
		if err != nil {
			t.Fatalf("%s (by name %v): %v", where, byName, err)
		}
		defer s.Close()
		out := []int32{}
		for {
			rec, err := s.Next()
			if err == io.EOF {
				return out
			}
			if err != nil {
				t.Fatalf("%s (by name %v): %v", where, byName, err)
			}
			out = append(out, rec.Column(0).(*array.Int32).Int32Values()...)
			rec.Release()
		}
	}
	for _, c := range []struct {
		where string
		want  []int32
	}{
		{"m.b >= 140", []int32{14, 16, 18}},
		{"m.b IS NOT NULL", []int32{10, 12, 14, 16, 18}},
		{"m.b IS NULL", []int32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 13, 15, 17, 19}},
		{"NOT (m.b > 150)", []int32{10, 12, 14}},
		{"m.b = 120 OR id < 2", []int32{0, 1, 12}},
		{"m.a < 3 OR m.b = 180", []int32{0, 1, 2, 18}},
	} {
		// by name, and one after another (the files have the same
		// columns; only their keys differ)
		for _, byName := range []bool{true, false} {
			if got := ids(c.where, byName); !slices.Equal(got, c.want) {
				t.Errorf("%s (by name %v): rows %v, want %v", c.where, byName, got, c.want)
			}
			v, _, err := read.AggregateFiles(ctx, files, "count(*)", read.AggregateOptions{Where: c.where, UnionByName: byName})
			if err != nil {
				t.Fatalf("count(*) where %s (by name %v): %v", c.where, byName, err)
			}
			if v[0].I != int64(len(c.want)) {
				t.Errorf("count(*) where %s (by name %v): %d, want %d", c.where, byName, v[0].I, len(c.want))
			}
		}
	}
	for _, byName := range []bool{true, false} {
		if _, err := read.ScanFiles(ctx, files, read.ScanOptions{Where: "m.zz = 1"}, byName); byName && !errors.Is(err, read.ErrUnknownColumn) {
			t.Errorf("a key no file knows (by name): %v", err)
		}
		if _, _, err := read.AggregateFiles(ctx, files, "count(*)", read.AggregateOptions{Where: "m.zz = 1", UnionByName: byName}); !errors.Is(err, read.ErrUnknownColumn) {
			t.Errorf("count(*) on a key no file knows (by name %v): %v", byName, err)
		}
	}
}
