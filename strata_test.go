package strata_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata"
	"strata/internal/facade"
	"strata/internal/randtable"
	"strata/iox"
	"strata/shred"
)

var (
	mem = memory.NewGoAllocator()
	// cmpFlat compares tables read back from Strata: FlatMap entries come
	// back in the schema's key order, so they compare as sets.
	cmpFlat = randtable.Compare{Unordered: randtable.MetadataFlag(shred.FlatMapMetadataKey)}
)

// table is what a test wrote: the schema, the batches and their
// concatenation.
type table struct {
	sch   *arrow.Schema
	recs  []arrow.RecordBatch
	all   arrow.RecordBatch
	flats []string // FlatMap option
}

func (tb *table) rows() int64 { return tb.all.NumRows() }

// genTable draws nbatch batches of a schema from g, cutting some of them
// out of larger records so the writer sees arrays with offsets.
func genTable(t testing.TB, g *randtable.Gen, sch *arrow.Schema, rows, nbatch int) *table {
	t.Helper()
	r := g.Rand()
	tb := &table{sch: sch}
	cuts := []int{0, rows}
	for range nbatch - 1 {
		cuts = append(cuts, r.IntN(rows+1))
	}
	slices.Sort(cuts)
	for i := 1; i < len(cuts); i++ {
		n := cuts[i] - cuts[i-1]
		if r.IntN(3) == 0 {
			pad := 1 + r.IntN(5)
			big := g.Record(mem, sch, n+2*pad)
			tb.recs = append(tb.recs, big.NewSlice(int64(pad), int64(pad+n)))
			big.Release()
		} else {
			tb.recs = append(tb.recs, g.Record(mem, sch, n))
		}
	}
	all, err := randtable.Concat(mem, sch, tb.recs)
	if err != nil {
		t.Fatal(err)
	}
	tb.all = all
	return tb
}

// writeTable writes a table to a new file in dir through Create, Write and
// Close and returns its path.
func writeTable(t testing.TB, dir string, tb *table, opts strata.WriteOptions) string {
	t.Helper()
	path := filepath.Join(dir, "t.strata")
	opts.FlatMap = tb.flats
	w, err := strata.Create(path, tb.sch, &opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range tb.recs {
		if err := w.Write(rec); err != nil {
			w.Abort()
			t.Fatalf("write: %v", err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	return path
}

// writeBytes writes a table into memory through NewWriter.
func writeBytes(t testing.TB, tb *table, opts strata.WriteOptions) []byte {
	t.Helper()
	var buf bytes.Buffer
	opts.FlatMap = tb.flats
	w, err := strata.NewWriter(&buf, tb.sch, &opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range tb.recs {
		if err := w.Write(rec); err != nil {
			t.Fatalf("write: %v", err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	return buf.Bytes()
}

// scan reads a whole scan into one record; sch is the expected schema of
// the result when the scan returns no batch.
func scan(f *strata.File, opts strata.ScanOptions) (arrow.RecordBatch, error) {
	sc, err := f.Scan(opts)
	if err != nil {
		return nil, err
	}
	defer sc.Close()
	var recs []arrow.RecordBatch
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	for {
		rec, err := sc.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		recs = append(recs, rec)
	}
	sch, err := projected(f.Schema(), opts.Columns)
	if err != nil {
		return nil, err
	}
	for _, r := range recs {
		if !r.Schema().Equal(sch) {
			return nil, fmt.Errorf("batch schema %s, want %s", r.Schema(), sch)
		}
	}
	return randtable.Concat(mem, sch, recs)
}

// projected returns the schema a projection of cols should have.
func projected(sch *arrow.Schema, cols []string) (*arrow.Schema, error) {
	if len(cols) == 0 {
		return sch, nil
	}
	fs := make([]arrow.Field, len(cols))
	for i, c := range cols {
		idx := sch.FieldIndices(c)
		if len(idx) == 0 {
			return nil, fmt.Errorf("no column %q", c)
		}
		fs[i] = sch.Field(idx[0])
	}
	return arrow.NewSchema(fs, nil), nil
}

// project returns the columns of rec named by cols (all when empty) and the
// rows [lo, hi).
func project(rec arrow.RecordBatch, cols []string, lo, hi int64) arrow.RecordBatch {
	if len(cols) == 0 {
		return rec.NewSlice(lo, hi)
	}
	fs := make([]arrow.Field, len(cols))
	arrs := make([]arrow.Array, len(cols))
	for i, c := range cols {
		idx := rec.Schema().FieldIndices(c)[0]
		fs[i] = rec.Schema().Field(idx)
		arrs[i] = array.NewSlice(rec.Column(idx), lo, hi)
	}
	out := array.NewRecordBatch(arrow.NewSchema(fs, nil), arrs, hi-lo)
	for _, a := range arrs {
		a.Release()
	}
	return out
}

// checkSchema checks that the file reports the schema that was written
// (FlatMap fields gain their metadata flag).
func checkSchema(t testing.TB, got, want *arrow.Schema) {
	t.Helper()
	if got.NumFields() != want.NumFields() {
		t.Fatalf("schema %s, want %s", got, want)
	}
	for i, w := range want.Fields() {
		g := got.Field(i)
		if g.Name != w.Name || g.Nullable != w.Nullable || !arrow.TypeEqual(g.Type, w.Type) {
			t.Fatalf("field %d: %s, want %s", i, g, w)
		}
	}
}

// checkFile runs every read path over a file and compares with the table:
// a full scan, projections, offset/limit windows, null filters and Take.
func checkFile(t *testing.T, f *strata.File, tb *table, r *rand.Rand) {
	t.Helper()
	n := tb.rows()
	if f.NumRows() != n {
		t.Fatalf("NumRows %d, want %d", f.NumRows(), n)
	}
	checkSchema(t, f.Schema(), tb.sch)
	got, err := scan(f, strata.ScanOptions{})
	must(t, err, "scan")
	if err := cmpFlat.Records(tb.all, got); err != nil {
		t.Fatalf("scan: %v", err)
	}
	got.Release()

	names := make([]string, tb.sch.NumFields())
	for i, fl := range tb.sch.Fields() {
		names[i] = fl.Name
	}
	for trial := range 3 {
		cols := randomColumns(r, names)
		var lo, lim int64
		switch trial {
		case 0:
			lo, lim = 0, 0
		case 1:
			lo, lim = r.Int64N(n+2), 1+r.Int64N(n+2)
		default:
			lo, lim = max(0, n-1-r.Int64N(3)), r.Int64N(4)
		}
		hi := n
		if lim > 0 {
			hi = min(n, lo+lim)
		}
		got, err := scan(f, strata.ScanOptions{Columns: cols, Offset: lo, Limit: lim})
		must(t, err, "scan %v [%d,+%d)", cols, lo, lim)
		want := project(tb.all, cols, min(lo, n), max(min(lo, n), hi))
		if err := cmpFlat.Records(want, got); err != nil {
			t.Fatalf("scan %v offset %d limit %d: %v", cols, lo, lim, err)
		}
		want.Release()
		got.Release()
	}

	checkNullFilters(t, f, tb, r)

	for trial := range 3 {
		var rows []int64
		if n > 0 {
			for range []int{0, 1, 3, 20}[trial+r.IntN(2)] {
				rows = append(rows, r.Int64N(n))
			}
			if trial == 0 {
				rows = append(rows, n-1, 0, n-1)
			}
		}
		cols := randomColumns(r, names)
		got, err := f.Take(rows, cols)
		must(t, err, "take %v of %v", rows, cols)
		checkTake(t, tb.all, rows, cols, got)
		got.Release()
	}
	if _, err := f.Take([]int64{n}, nil); err == nil {
		t.Fatalf("Take(%d) past the end succeeded", n)
	}
	if _, err := f.Take([]int64{-1}, nil); err == nil {
		t.Fatal("Take(-1) succeeded")
	}
}

// randomColumns returns nil (all) or a random non-empty selection of names
// in random order.
func randomColumns(r *rand.Rand, names []string) []string {
	if r.IntN(3) == 0 {
		return nil
	}
	p := r.Perm(len(names))[:1+r.IntN(len(names))]
	cols := make([]string, len(p))
	for i, k := range p {
		cols[i] = names[k]
	}
	return cols
}

func checkTake(t *testing.T, all arrow.RecordBatch, rows []int64, cols []string, got arrow.RecordBatch) {
	t.Helper()
	want := project(all, cols, 0, all.NumRows())
	defer want.Release()
	if got.NumRows() != int64(len(rows)) || got.NumCols() != want.NumCols() {
		t.Fatalf("take %v of %v: %d rows × %d columns", rows, cols, got.NumRows(), got.NumCols())
	}
	for c := range int(want.NumCols()) {
		f := got.Schema().Field(c)
		if f.Name != want.ColumnName(c) {
			t.Fatalf("take: column %d is %q, want %q", c, f.Name, want.ColumnName(c))
		}
		for k, row := range rows {
			if err := cmpFlat.Value(f, want.Column(c), int(row), got.Column(c), k); err != nil {
				t.Fatalf("take %v: column %s, row %d: %v", rows, f.Name, row, err)
			}
		}
	}
}

// filterPath is a leaf reachable through structs only, with the nullness
// of each row (null when the leaf or any ancestor is null).
type filterPath struct {
	path  string
	nulls []bool
}

func filterPaths(rec arrow.RecordBatch) []filterPath {
	var out []filterPath
	var walk func(path string, a arrow.Array, parent []bool)
	walk = func(path string, a arrow.Array, parent []bool) {
		nulls := make([]bool, a.Len())
		for i := range nulls {
			nulls[i] = parent[i] || a.IsNull(i)
		}
		switch a := a.(type) {
		case *array.Struct:
			st := a.DataType().(*arrow.StructType)
			for k := range a.NumField() {
				walk(path+"."+st.Field(k).Name, a.Field(k), nulls)
			}
		case *array.List, *array.Map:
		default:
			out = append(out, filterPath{path, nulls})
		}
	}
	for i, f := range rec.Schema().Fields() {
		walk(f.Name, rec.Column(i), make([]bool, rec.NumRows()))
	}
	return out
}

// checkNullFilters runs IS NULL / IS NOT NULL scans on leaves outside
// lists and maps and compares with the rows the table says match. This
// exercises late materialization of every column kind with a row
// selection.
func checkNullFilters(t *testing.T, f *strata.File, tb *table, r *rand.Rand) {
	t.Helper()
	paths := filterPaths(tb.all)
	if len(paths) == 0 {
		return
	}
	for range 2 {
		p := paths[r.IntN(len(paths))]
		isNull := r.IntN(2) == 0
		where := p.path + " IS NOT NULL"
		if isNull {
			where = p.path + " IS NULL"
		}
		var want []int64
		for i, null := range p.nulls {
			if null == isNull {
				want = append(want, int64(i))
			}
		}
		got, err := scan(f, strata.ScanOptions{Where: where})
		must(t, err, "scan where %s", where)
		if got.NumRows() != int64(len(want)) {
			t.Fatalf("scan where %s: %d rows, want %d", where, got.NumRows(), len(want))
		}
		checkTake(t, tb.all, want, nil, got)
		got.Release()
	}
}

// writeOptions picks writer options from a seed: tiny stripes and stripe
// groups, small chunks, zstd on and off.
func writeOptions(r *rand.Rand, rows int) strata.WriteOptions {
	o := strata.WriteOptions{
		StripeBytes: []int{0, 1, 2 << 10, 16 << 10}[r.IntN(4)],
		StripeGroup: []int{0, 1, 2, 3}[r.IntN(4)],
		ChunkValues: []int{0, 7, 100, 1000}[r.IntN(4)],
		NoZstd:      r.IntN(2) == 0,
		Parallel:    1 + r.IntN(2),
		StripeRows:  []int64{0, 0, 0, 1, 37, 500}[r.IntN(6)],
	}
	if rows <= 50 && r.IntN(2) == 0 {
		o.ChunkValues = 1
	}
	return o
}

func optString(o strata.WriteOptions) string {
	return fmt.Sprintf("stripe %dB %d rows group %d chunk %d nozstd %v bloom %v", o.StripeBytes, o.StripeRows, o.StripeGroup, o.ChunkValues, o.NoZstd, o.Bloom)
}

// TestRandomSchemas writes random nested tables with random options through
// the file API and reads them back every way the reader offers.
func TestRandomSchemas(t *testing.T) {
	seeds := 150
	if testing.Short() {
		seeds = 15
	}
	for seed := range uint64(seeds) {
		g := randtable.New(seed, randtable.Options{MaxDepth: 3, FlatMapKey: shred.FlatMapMetadataKey,
			Leaves: slices.Concat(randtable.Leaves, randtable.TimeLeaves)})
		r := g.Rand()
		sch := g.Schema(1 + r.IntN(5))
		rows := []int{0, 1, 2, 9, 120, 700, 2500}[seed%7]
		nbatch := 1 + r.IntN(8)
		if rows == 0 {
			nbatch = r.IntN(3)
		}
		opts := writeOptions(r, rows)
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			tb := genTable(t, g, sch, rows, max(nbatch, 1))
			if nbatch == 0 {
				tb.recs = nil
			}
			if r.IntN(2) == 0 {
				for _, p := range filterPaths(tb.all) {
					opts.Bloom = append(opts.Bloom, p.path)
				}
			}
			path := writeTable(t, t.TempDir(), tb, opts)
			f, err := strata.Open(path)
			if err != nil {
				t.Fatalf("open (%s)\nschema %s: %v", optString(opts), sch, err)
			}
			defer f.Close()
			t.Logf("%d rows, %d batches, %d stripes, %d groups; %s\n%s", rows, len(tb.recs),
				facade.ReadFile(f).Container().NumStripes(), facade.ReadFile(f).Container().NumGroups(), optString(opts), sch)
			if opts.StripeBytes == 1 && rows > 0 && facade.ReadFile(f).Container().NumStripes() < nonEmpty(tb.recs) {
				t.Fatalf("%d stripes for %d non-empty batches with StripeBytes 1", facade.ReadFile(f).Container().NumStripes(), nonEmpty(tb.recs))
			}
			checkFile(t, f, tb, r)
		})
	}
}

func nonEmpty(recs []arrow.RecordBatch) int {
	n := 0
	for _, r := range recs {
		if r.NumRows() > 0 {
			n++
		}
	}
	return n
}

// shapesSchema holds every nesting shape the format must handle and every
// leaf type at the top level.
func shapesSchema() *arrow.Schema {
	str := arrow.BinaryTypes.String
	i64 := arrow.PrimitiveTypes.Int64
	fields := []arrow.Field{
		{Name: "s", Nullable: true, Type: arrow.StructOf(
			arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
			arrow.Field{Name: "b", Type: str},
			arrow.Field{Name: "l", Nullable: true, Type: arrow.ListOfField(arrow.Field{Name: "item", Nullable: true, Type: arrow.StructOf(
				arrow.Field{Name: "x", Type: i64, Nullable: true},
				arrow.Field{Name: "y", Type: arrow.ListOfField(arrow.Field{Name: "item", Type: str, Nullable: true}), Nullable: true},
			)})},
		)},
		{Name: "ll", Nullable: true, Type: arrow.ListOfField(arrow.Field{Name: "item", Nullable: true,
			Type: arrow.ListOfField(arrow.Field{Name: "item", Type: arrow.PrimitiveTypes.Float64, Nullable: true})})},
		{Name: "ms", Nullable: true, Type: arrow.MapOfFields(arrow.Field{Name: "key", Type: str},
			arrow.Field{Name: "value", Nullable: true, Type: arrow.StructOf(
				arrow.Field{Name: "p", Type: &arrow.Decimal128Type{Precision: 30, Scale: 4}, Nullable: true},
				arrow.Field{Name: "q", Type: &arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "UTC"}},
			)})},
		{Name: "ml", Type: arrow.MapOfFields(arrow.Field{Name: "key", Type: arrow.PrimitiveTypes.Int32},
			arrow.Field{Name: "value", Nullable: true, Type: arrow.ListOf(arrow.BinaryTypes.Binary)})},
		{Name: "lm", Nullable: true, Type: arrow.ListOfField(arrow.Field{Name: "item", Nullable: true,
			Type: arrow.MapOfFields(arrow.Field{Name: "key", Type: i64}, arrow.Field{Name: "value", Type: arrow.FixedWidthTypes.Boolean, Nullable: true})})},
		{Name: "fm", Nullable: true, Type: arrow.MapOfFields(arrow.Field{Name: "key", Type: str},
			arrow.Field{Name: "value", Type: arrow.PrimitiveTypes.Float32, Nullable: true})},
		{Name: "sf", Type: arrow.StructOf(arrow.Field{Name: "m", Nullable: true,
			Metadata: arrow.NewMetadata([]string{shred.FlatMapMetadataKey}, []string{"true"}),
			Type: arrow.MapOfFields(arrow.Field{Name: "key", Type: i64},
				arrow.Field{Name: "value", Nullable: true, Type: arrow.ListOf(arrow.PrimitiveTypes.Uint16)})})},
	}
	for i, lt := range randtable.Leaves {
		fields = append(fields, arrow.Field{Name: fmt.Sprintf("leaf%d", i), Type: lt, Nullable: i%3 != 0})
	}
	return arrow.NewSchema(fields, nil)
}

// TestNestedShapes writes a fixed schema with every nesting shape and leaf
// type, with and without zstd, in many small stripes and chunks.
func TestNestedShapes(t *testing.T) {
	for _, noZstd := range []bool{false, true} {
		t.Run(fmt.Sprintf("nozstd=%v", noZstd), func(t *testing.T) {
			g := randtable.New(7, randtable.Options{})
			tb := genTable(t, g, shapesSchema(), 3000, 6)
			tb.flats = []string{"fm"}
			opts := strata.WriteOptions{StripeBytes: 24 << 10, StripeGroup: 2, ChunkValues: 300, NoZstd: noZstd}
			path := writeTable(t, t.TempDir(), tb, opts)
			f, err := strata.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if facade.ReadFile(f).Container().NumStripes() < 3 || facade.ReadFile(f).Container().NumGroups() < 2 {
				t.Fatalf("%d stripes in %d groups; the test wants several of each", facade.ReadFile(f).Container().NumStripes(), facade.ReadFile(f).Container().NumGroups())
			}
			checkFile(t, f, tb, g.Rand())
		})
	}
}

// TestFlatMapOption writes plain map columns as FlatMaps through the
// writer option: the keys change across batches and stripes, some rows are
// null or empty, and the maps read back with the same entries.
func TestFlatMapOption(t *testing.T) {
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "m", Nullable: true, Type: arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64)},
		{Name: "n", Type: arrow.MapOfFields(arrow.Field{Name: "key", Type: arrow.PrimitiveTypes.Uint32},
			arrow.Field{Name: "value", Nullable: true, Type: arrow.StructOf(
				arrow.Field{Name: "a", Type: arrow.BinaryTypes.String, Nullable: true},
				arrow.Field{Name: "b", Type: arrow.ListOf(arrow.PrimitiveTypes.Int8), Nullable: true})})},
	}, nil)
	r := rand.New(rand.NewPCG(11, 12))
	tb := &table{sch: sch, flats: []string{"m", "n"}}
	id := int64(0)
	for batch := range 6 {
		b := array.NewRecordBuilder(mem, sch)
		for range 200 + r.IntN(300) {
			b.Field(0).(*array.Int64Builder).Append(id)
			id++
			mb := b.Field(1).(*array.MapBuilder)
			switch r.IntN(6) {
			case 0:
				mb.AppendNull()
			case 1:
				mb.Append(true) // empty
			default:
				mb.Append(true)
				// later batches discover new keys
				for _, k := range r.Perm(3 + 2*batch)[:r.IntN(4)] {
					mb.KeyBuilder().(*array.StringBuilder).Append(fmt.Sprintf("k%02d", k))
					mb.ItemBuilder().(*array.Int64Builder).Append(r.Int64N(1000) - 500)
				}
			}
			nb := b.Field(2).(*array.MapBuilder)
			nb.Append(true)
			for _, k := range r.Perm(5)[:r.IntN(3)] {
				nb.KeyBuilder().(*array.Uint32Builder).Append(uint32(k) * 1000)
				vb := nb.ItemBuilder().(*array.StructBuilder)
				if r.IntN(5) == 0 {
					vb.AppendNull()
					continue
				}
				vb.Append(true)
				vb.FieldBuilder(0).(*array.StringBuilder).Append(strings.Repeat("x", r.IntN(4)))
				lb := vb.FieldBuilder(1).(*array.ListBuilder)
				lb.Append(true)
				for range r.IntN(3) {
					lb.ValueBuilder().(*array.Int8Builder).Append(int8(r.IntN(256) - 128))
				}
			}
		}
		tb.recs = append(tb.recs, b.NewRecordBatch())
		b.Release()
	}
	all, err := randtable.Concat(mem, sch, tb.recs)
	if err != nil {
		t.Fatal(err)
	}
	tb.all = all
	for _, opts := range []strata.WriteOptions{
		{StripeBytes: 4 << 10, StripeGroup: 2, ChunkValues: 64},
		{NoZstd: true},
	} {
		path := writeTable(t, t.TempDir(), tb, opts)
		f, err := strata.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"m", "n"} {
			fl, _ := f.Schema().FieldsByName(name)
			if len(fl) != 1 || !randtable.MetadataFlag(shred.FlatMapMetadataKey)(fl[0]) {
				t.Fatalf("field %s is not read back as a FlatMap: %v", name, fl)
			}
		}
		checkFile(t, f, tb, r)
		f.Close()
	}
}

// TestEmptyFile covers files without rows: no Write at all, and zero-row
// batches only.
func TestEmptyFile(t *testing.T) {
	g := randtable.New(3, randtable.Options{MaxDepth: 2, FlatMapKey: shred.FlatMapMetadataKey})
	sch := shapesSchema()
	for _, nbatch := range []int{0, 1, 3} {
		tb := &table{sch: sch, flats: []string{"fm"}}
		for range nbatch {
			tb.recs = append(tb.recs, g.Record(mem, sch, 0))
		}
		all, err := randtable.Concat(mem, sch, nil)
		if err != nil {
			t.Fatal(err)
		}
		tb.all = all
		path := writeTable(t, t.TempDir(), tb, strata.WriteOptions{})
		f, err := strata.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		checkFile(t, f, tb, g.Rand())
		if _, err := f.Inspect(); err != nil {
			t.Fatal(err)
		}
		if agg, _, err := f.Aggregate(strata.AggregateOptions{Exprs: "count(*)"}); err != nil || agg[0].Int() != 0 {
			t.Fatalf("count(*) of an empty file: %v, %v", agg, err)
		}
		f.Close()
	}
}

// TestConcurrentReads scans and takes from one open file from many
// goroutines at once (run it with -race).
func TestConcurrentReads(t *testing.T) {
	g := randtable.New(21, randtable.Options{})
	tb := genTable(t, g, shapesSchema(), 1500, 4)
	tb.flats = []string{"fm"}
	path := writeTable(t, t.TempDir(), tb, strata.WriteOptions{StripeBytes: 16 << 10, StripeGroup: 2, ChunkValues: 200})
	f, err := strata.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := tb.rows()
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(w), 99))
			for range 4 {
				cols := []string{"s", "ms", "ml", "fm", "leaf3", "leaf11", "leaf20"}[r.IntN(7):][:1]
				switch r.IntN(3) {
				case 0:
					lo := r.Int64N(n)
					got, err := scan(f, strata.ScanOptions{Columns: cols, Offset: lo, Limit: 300})
					if err != nil {
						errs <- err
						return
					}
					want := project(tb.all, cols, lo, min(n, lo+300))
					if err := cmpFlat.Records(want, got); err != nil {
						errs <- fmt.Errorf("scan %v from %d: %w", cols, lo, err)
					}
				case 1:
					where := "leaf3 IS NOT NULL"
					got, err := scan(f, strata.ScanOptions{Columns: cols, Where: where})
					if err != nil {
						errs <- err
						return
					}
					var rows []int64
					for i := range n {
						if tb.all.Column(tb.sch.FieldIndices("leaf3")[0]).IsValid(int(i)) {
							rows = append(rows, i)
						}
					}
					if err := takeEqual(tb.all, rows, cols, got); err != nil {
						errs <- fmt.Errorf("scan where %s: %w", where, err)
					}
				default:
					rows := []int64{r.Int64N(n), r.Int64N(n), r.Int64N(n), 0, n - 1}
					got, err := f.Take(rows, cols)
					if err != nil {
						errs <- err
						return
					}
					if err := takeEqual(tb.all, rows, cols, got); err != nil {
						errs <- fmt.Errorf("take %v: %w", rows, err)
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// takeEqual is checkTake for goroutines: it returns the first difference.
func takeEqual(all arrow.RecordBatch, rows []int64, cols []string, got arrow.RecordBatch) error {
	want := project(all, cols, 0, all.NumRows())
	defer want.Release()
	if got.NumRows() != int64(len(rows)) || got.NumCols() != want.NumCols() {
		return fmt.Errorf("%d rows × %d columns, want %d × %d", got.NumRows(), got.NumCols(), len(rows), want.NumCols())
	}
	for c := range int(want.NumCols()) {
		for k, row := range rows {
			if err := cmpFlat.Value(got.Schema().Field(c), want.Column(c), int(row), got.Column(c), k); err != nil {
				return fmt.Errorf("column %s, row %d: %w", got.Schema().Field(c).Name, row, err)
			}
		}
	}
	return nil
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

// TestCrashSafety checks that only a successful Close puts a file under
// the target name: Abort, a never-closed writer and a failed write leave
// nothing there (and an existing file untouched).
func TestCrashSafety(t *testing.T) {
	g := randtable.New(5, randtable.Options{MaxDepth: 2})
	sch := g.Schema(3)
	rec := g.Record(mem, sch, 500)
	defer rec.Release()

	t.Run("abort", func(t *testing.T) {
		dir := t.TempDir()
		path := filepath.Join(dir, "a.strata")
		w, err := strata.Create(path, sch, &strata.WriteOptions{StripeBytes: 1})
		if err != nil {
			t.Fatal(err)
		}
		for range 3 {
			if err := w.Write(rec); err != nil {
				t.Fatal(err)
			}
		}
		w.Abort()
		if names := dirNames(t, dir); len(names) != 0 {
			t.Fatalf("after Abort the directory holds %v", names)
		}
		w.Abort() // twice is harmless
	})
	t.Run("never closed", func(t *testing.T) {
		dir := t.TempDir()
		path := filepath.Join(dir, "n.strata")
		w, err := strata.Create(path, sch, &strata.WriteOptions{StripeBytes: 1})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Abort()
		for range 3 {
			if err := w.Write(rec); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("an unclosed writer left %s: %v", path, err)
		}
		if _, err := strata.Open(path); err == nil {
			t.Fatal("opened a file whose writer never closed")
		}
	})
	t.Run("failed write", func(t *testing.T) {
		dir := t.TempDir()
		path := filepath.Join(dir, "f.strata")
		w, err := strata.Create(path, sch, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
		other := randtable.New(6, randtable.Options{}).Schema(2)
		bad := randtable.New(6, randtable.Options{}).Record(mem, other, 3)
		defer bad.Release()
		if err := w.Write(bad); err == nil {
			t.Fatal("a record of another schema was accepted")
		}
		if err := w.Close(); err == nil {
			t.Fatal("Close after a failed Write succeeded")
		}
		if names := dirNames(t, dir); len(names) != 0 {
			t.Fatalf("after a failed Close the directory holds %v", names)
		}
	})
	t.Run("existing file kept", func(t *testing.T) {
		dir := t.TempDir()
		path := filepath.Join(dir, "e.strata")
		if err := os.WriteFile(path, []byte("previous"), 0o644); err != nil {
			t.Fatal(err)
		}
		w, err := strata.Create(path, sch, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
		w.Abort()
		if b, err := os.ReadFile(path); err != nil || string(b) != "previous" {
			t.Fatalf("Abort changed the existing file: %q, %v", b, err)
		}
		if names := dirNames(t, dir); len(names) != 1 {
			t.Fatalf("after Abort the directory holds %v", names)
		}
	})
}

// readEverything opens data and reads it every way; it returns the first
// error, or the full scan when everything succeeded.
func readEverything(data []byte) (arrow.RecordBatch, error) {
	f, err := strata.OpenSource(iox.Bytes(data))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	got, err := scan(f, strata.ScanOptions{})
	if err != nil {
		return nil, err
	}
	if n := f.NumRows(); n > 0 {
		t, err := f.Take([]int64{0, n / 2, n - 1}, nil)
		if err != nil {
			got.Release()
			return nil, err
		}
		t.Release()
	}
	if _, err := f.Inspect(); err != nil {
		got.Release()
		return nil, err
	}
	if _, _, err := f.Aggregate(strata.AggregateOptions{Exprs: "count(*)"}); err != nil {
		got.Release()
		return nil, err
	}
	return got, nil
}

// damageTable is a small nested file with several stripes and groups.
func damageTable(t testing.TB) (*table, []byte) {
	g := randtable.New(8, randtable.Options{MaxDepth: 2, FlatMapKey: shred.FlatMapMetadataKey})
	sch := arrow.NewSchema(append(g.Schema(4).Fields(), shapesSchema().Fields()[:3]...), nil)
	tb := genTable(t, g, sch, 400, 4)
	data := writeBytes(t, tb, strata.WriteOptions{StripeBytes: 1, StripeGroup: 2, ChunkValues: 50})
	return tb, data
}

// TestTruncated cuts a file at many positions: every prefix must fail to
// open or to read with an error, never panic.
func TestTruncated(t *testing.T) {
	_, data := damageTable(t)
	step := max(1, len(data)/300)
	var cuts []int
	for n := 0; n < len(data); n += step {
		cuts = append(cuts, n)
	}
	for n := max(0, len(data)-200); n < len(data); n++ {
		cuts = append(cuts, n)
	}
	for _, n := range cuts {
		got, err := readEverything(data[:n])
		if err == nil {
			got.Release()
			t.Fatalf("a file cut to %d of %d bytes read without error", n, len(data))
		}
	}
	// The same through the file system.
	dir := t.TempDir()
	for _, n := range []int{0, 3, len(data) / 2, len(data) - 1} {
		path := filepath.Join(dir, fmt.Sprint(n))
		if err := os.WriteFile(path, data[:n], 0o644); err != nil {
			t.Fatal(err)
		}
		if f, err := strata.Open(path); err == nil {
			f.Close()
			t.Fatalf("opened a file cut to %d bytes", n)
		}
	}
}

// TestCorrupted flips bytes all over a file: reading must fail with an
// error or return exactly the original data (a flip in bytes no reader
// looks at, such as the whole-file checksum), never panic or return wrong
// values.
func TestCorrupted(t *testing.T) {
	tb, data := damageTable(t)
	r := rand.New(rand.NewPCG(1, 2))
	silent := 0
	for trial := range 600 {
		bad := bytes.Clone(data)
		pos := r.IntN(len(bad))
		if trial < 200 { // the tail: footer and postscript
			pos = len(bad) - 1 - r.IntN(min(len(bad), 400))
		}
		bad[pos] ^= byte(1 + r.IntN(255))
		got, err := readEverything(bad)
		if err != nil {
			continue
		}
		if err := cmpFlat.Records(tb.all, got); err != nil {
			t.Fatalf("flipped byte %d of %d: read without error but wrong: %v", pos, len(data), err)
		}
		got.Release()
		silent++
	}
	t.Logf("%d of 600 flips read back the original data", silent)
}

// ---- Minimal reproductions of bugs the random tests found (all fixed
// since), kept as regression tests. An open bug's test fails until it is fixed; the random
// tests skip (never silently) cases that hit an open bug listed in knownBugs
// so they keep hunting for new ones.

// knownBugs maps an error substring to the test reproducing the open bug
// it reveals. Remove an entry when its bug is fixed.
var knownBugs = map[string]string{}

// knownBug returns the test reproducing the bug err reveals, or "".
func knownBug(err error) string {
	for s, name := range knownBugs {
		if strings.Contains(err.Error(), s) {
			return name
		}
	}
	return ""
}

// must fails the test on err, or skips it when err is a known bug.
func must(t testing.TB, err error, format string, args ...any) {
	t.Helper()
	if err == nil {
		return
	}
	msg := fmt.Sprintf(format, args...)
	if bug := knownBug(err); bug != "" {
		t.Skipf("known bug (see %s): %s: %v", bug, msg, err)
	}
	t.Fatalf("%s: %v", msg, err)
}

// build makes a record of one column from a builder callback.
func build(name string, dt arrow.DataType, nullable bool, meta arrow.Metadata, fill func(b array.Builder)) arrow.RecordBatch {
	sch := arrow.NewSchema([]arrow.Field{{Name: name, Type: dt, Nullable: nullable, Metadata: meta}}, nil)
	b := array.NewBuilder(mem, dt)
	defer b.Release()
	fill(b)
	a := b.NewArray()
	defer a.Release()
	return array.NewRecordBatch(sch, []arrow.Array{a}, int64(a.Len()))
}

// openWritten writes recs with opts into memory and opens the file.
func openWritten(t testing.TB, opts strata.WriteOptions, recs ...arrow.RecordBatch) *strata.File {
	t.Helper()
	tb := &table{sch: recs[0].Schema(), recs: recs, flats: opts.FlatMap}
	f, err := strata.OpenSource(iox.Bytes(writeBytes(t, tb, opts)))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// roundTrip writes recs and checks a full scan returns them.
func roundTrip(t *testing.T, opts strata.WriteOptions, recs ...arrow.RecordBatch) *strata.File {
	t.Helper()
	tb := &table{sch: recs[0].Schema(), recs: recs, flats: opts.FlatMap}
	all, err := randtable.Concat(mem, tb.sch, recs)
	if err != nil {
		t.Fatal(err)
	}
	tb.all = all
	f := openWritten(t, opts, recs...)
	got, err := scan(f, strata.ScanOptions{})
	if err != nil {
		t.Fatalf("scan: %v", err)
	}
	if err := cmpFlat.Records(tb.all, got); err != nil {
		t.Fatalf("scan: %v", err)
	}
	return f
}

// A null in a decimal column of precision > 18 (16-byte values) reads back
// as a 0-byte value that shred's assembler rejects.
func TestBugWideDecimalNulls(t *testing.T) {
	rec := build("d", &arrow.Decimal128Type{Precision: 38, Scale: 10}, true, arrow.Metadata{}, func(b array.Builder) {
		b.(*array.Decimal128Builder).Append(decimal128.FromI64(1))
		b.AppendNull()
	})
	roundTrip(t, strata.WriteOptions{}, rec)
}

// IS NULL on a decimal of precision > 18 fails to bind although the test
// needs no value comparison.
func TestBugWideDecimalIsNull(t *testing.T) {
	rec := build("d", &arrow.Decimal128Type{Precision: 38, Scale: 10}, false, arrow.Metadata{}, func(b array.Builder) {
		b.(*array.Decimal128Builder).Append(decimal128.FromI64(1))
	})
	f := roundTrip(t, strata.WriteOptions{}, rec)
	got, err := scan(f, strata.ScanOptions{Where: "d IS NULL"})
	if err != nil {
		t.Fatal(err)
	}
	if got.NumRows() != 0 {
		t.Fatalf("%d rows, want 0", got.NumRows())
	}
}

// A stripe of a non-nullable FlatMap column where no row has any key
// cannot be assembled: the reader does not pass the stripe's row count.
func TestBugFlatMapNoKeysInStripe(t *testing.T) {
	rec := build("m", arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int32), false, arrow.Metadata{}, func(b array.Builder) {
		b.(*array.MapBuilder).Append(true)
		b.(*array.MapBuilder).Append(true)
	})
	roundTrip(t, strata.WriteOptions{FlatMap: []string{"m"}}, rec)
}

// A FlatMap key first seen in a later stripe makes the earlier stripes
// unreadable: the reader hands the assembler an empty in-map stream for the
// key instead of leaving it out (shred treats a missing stream as "key
// absent in this stripe").
func TestBugFlatMapKeyAbsentFromStripe(t *testing.T) {
	mk := func(key string) arrow.RecordBatch {
		return build("m", arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int32), false, arrow.Metadata{}, func(b array.Builder) {
			mb := b.(*array.MapBuilder)
			mb.Append(true)
			mb.KeyBuilder().(*array.StringBuilder).Append(key)
			mb.ItemBuilder().(*array.Int32Builder).Append(1)
		})
	}
	roundTrip(t, strata.WriteOptions{FlatMap: []string{"m"}, StripeBytes: 1}, mk("a"), mk("b"))
}

// A filter on a non-nullable field of a nullable struct ignores the
// struct's nulls: s.a IS NOT NULL matches rows where s is null.
func TestBugStructChildFilter(t *testing.T) {
	st := arrow.StructOf(arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int32})
	rec := build("s", st, true, arrow.Metadata{}, func(b array.Builder) {
		sb := b.(*array.StructBuilder)
		sb.AppendNull()
		sb.Append(true)
		sb.FieldBuilder(0).(*array.Int32Builder).Append(5)
	})
	f := roundTrip(t, strata.WriteOptions{}, rec)
	for where, want := range map[string]int64{"s.a IS NOT NULL": 1, "s.a IS NULL": 1, "s.a = 0": 0, "s.a = 5": 1} {
		got, err := scan(f, strata.ScanOptions{Where: where})
		if err != nil {
			t.Fatal(err)
		}
		if got.NumRows() != want {
			t.Errorf("%s: %d rows, want %d", where, got.NumRows(), want)
		}
	}
}

// TestWriterFlush ends stripes by hand: each Flush after rows ends one
// stripe (a Flush with nothing pending ends none), on one goroutine and
// with the background stripe of Parallel > 1, and every read path sees the
// rows in order across the stripes.
func TestWriterFlush(t *testing.T) {
	for _, par := range []int{1, 3} {
		g := randtable.New(7, randtable.Options{MaxDepth: 2})
		sch := g.Schema(4)
		tb := genTable(t, g, sch, 900, 9)
		var buf bytes.Buffer
		w, err := strata.NewWriter(&buf, sch, &strata.WriteOptions{Parallel: par})
		if err != nil {
			t.Fatal(err)
		}
		must(t, w.Flush(), "flush before any row")
		want, pending := 0, int64(0)
		for i, rec := range tb.recs {
			must(t, w.Write(rec), "write")
			pending += rec.NumRows()
			if i%3 == 2 {
				must(t, w.Flush(), "flush")
				must(t, w.Flush(), "second flush")
				if pending > 0 {
					want++
				}
				pending = 0
			}
		}
		must(t, w.Close(), "close")
		f, err := strata.OpenSource(iox.Bytes(buf.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		if f.NumStripes() != want {
			t.Fatalf("parallel %d: %d stripes, want %d (one per Flush after rows)", par, f.NumStripes(), want)
		}
		checkFile(t, f, tb, rand.New(rand.NewPCG(7, 1)))
		f.Close()
	}
}
