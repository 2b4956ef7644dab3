// Package difftest checks Strata against DuckDB: it generates random tables,
// writes each as a Strata file and as a Parquet file, runs random queries
// (projections, filters, offset/limit, Take, aggregates) through Strata and
// through DuckDB on the Parquet file, and compares the answers value by
// value. It is a module of its own so that the library stays free of cgo.
//
// Every case is a pair (table seed, query index) and is fully determined by
// it, so a failure is reproduced by its pair alone; failures found are kept
// in testdata/regressions.txt and run in every CI run.
package difftest

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"strata"
	"strata/encoding"
	"strata/internal/randtable"
)

// flatMapKey marks the map columns the table stores as FlatMap.
const flatMapKey = "difftest.flatmap"

// WriteSeeds is the first seed whose tables are written the way a
// streaming writer receives rows: in batches of random sizes, with the
// stripe sometimes ended by hand (Writer.Flush) between them, on one to
// three goroutines (more than one encodes each stripe in the background
// while the next batches are shredded). The batches and StripeBytes then
// make files of many stripes. Seeds below it write the whole table with
// one Write on one goroutine, one stripe, so the kept regressions still
// name the same files.
const WriteSeeds = 3_000_000

// Table is one generated table, written as Strata and as Parquet.
type Table struct {
	Seed uint64
	Rec  arrow.RecordBatch // every row, in file order
	Opts strata.WriteOptions
	// Batches are the row counts of the Writes, in order, and Flushes
	// says which of them Writer.Flush follows (nil: one Write of Rec).
	Batches []int
	Flushes []bool
	Order   string // "generated", "sorted by cN" or "clustered by cN"
	// Replayed: the file was written replaying the layouts a write of
	// the first half of its rows chose (ModeSeeds).
	Replayed bool
	Strata   string // file paths
	Parquet  string
	// read says how the Strata file is opened (ReadSeeds).
	read readPlan
	// flat holds the leaves on the values of FlatMap keys, built on first
	// use (flatLeaves, FlatMapFilterSeeds); flatArrs are their values.
	flat     []leafCol
	flatArrs []arrow.Array
	flatDone bool
}

// Describe says how the table was made, for failure reports.
func (t *Table) Describe() string {
	d := fmt.Sprintf("seed %d: %d rows, schema %s, order %s, chunk values %d, stripe bytes %d, stripe group %d, flatmap %v",
		t.Seed, t.Rec.NumRows(), t.Rec.Schema(), t.Order, t.Opts.ChunkValues, t.Opts.StripeBytes, t.Opts.StripeGroup, t.Opts.FlatMap)
	if t.Batches != nil {
		d += fmt.Sprintf(", parallel %d, batches %v, flushed after %v", t.Opts.Parallel, t.Batches, t.Flushes)
	}
	if t.Seed >= ModeSeeds {
		d += fmt.Sprintf(", optimize %v, no zstd %v, layouts replayed %v", t.Opts.Optimize, t.Opts.NoZstd, t.Replayed)
	}
	if t.Seed >= ReadSeeds {
		d += ", read " + t.read.String()
	}
	return d
}

// rowCounts straddle the chunk sizes below (and their multiples), so rows
// fall on both sides of every chunk and stripe boundary.
var rowCounts = []int{0, 1, 2, 15, 16, 17, 63, 64, 65, 99, 100, 101, 255, 256, 257, 1000, 1023, 1024, 1025, 2047, 2049, 4096}

// TimeSeeds is the first seed whose tables also draw times of day (in
// milliseconds and microseconds, the units DuckDB's TIME holds exactly);
// seeds below it keep the tables they always had, so the kept regressions
// still name the same cases.
const TimeSeeds = 2_000_000

// TextSeeds is the first seed whose string columns are about half of them
// numbers kept as text (randtable.Options.NumberText: digit strings,
// plain and grouped integers, decimal fractions), which the writer stores
// as integers (DigitText, NumText), and whose queries also compare them
// with operands one edit away from a value ("1.50" beside "1.5", "007"
// beside "07"). Seeds below it keep their tables and queries.
const TextSeeds = 20_000_000

// HexSeeds is the first seed whose string columns that are not numbers
// kept as text are a third of them hex text of one template a column
// (randtable.Options.HexText: UUIDs, MAC addresses, ISO times, hex ids,
// digests, code points of varying widths), which the writer stores as
// integers or packed bytes (HexText). Seeds below it keep their tables and queries.
const HexSeeds = 24_000_000

// FieldSeeds is the first seed whose string columns that are neither
// numbers nor hex kept as text are a third of them text with numbers
// inside it, one template a column (randtable.Options.FieldText: request
// lines, JSON, dates written out, place names with distances, log lines,
// versions, order numbers; some values empty, without numbers, with runs
// of more than 19 digits or more than 16 numbers), which the writer stores
// as a skeleton and integer columns (FieldText). Its tables also draw
// strings about half the time. Seeds below it keep their tables and
// queries.
const FieldSeeds = 25_000_000

// RelatedSeeds is the first seed whose tables also hold what independent
// random values never show (randtable.Options.Related): columns that
// follow an earlier column by a small difference, which the writer may
// store relative to it (Correlated), integers on a common step (Scaled)
// or repeating with a period (LagDelta), and floats that walk.
const RelatedSeeds = 21_000_000

// ModeSeeds is the first seed whose tables are also written in every
// optimization mode (balanced, size, speed), some without zstd, and a
// third of them replaying the layouts that a write of the first half of
// their rows chose (WriteOptions.Layouts, strata import --layout-from),
// as the files of one table written day after day do: every chunk then
// starts from a tree chosen on other data.
const ModeSeeds = 22_000_000

// NewTable generates the table of a seed and writes both files into dir.
func NewTable(seed uint64, dir string) (*Table, error) {
	var leaves []arrow.DataType
	if seed >= TimeSeeds {
		leaves = slices.Concat(randtable.Leaves, []arrow.DataType{arrow.FixedWidthTypes.Time32ms, arrow.FixedWidthTypes.Time64us})
	}
	if seed >= TextSeeds {
		// strings drawn about a fifth of the time, so that number text
		// is in most tables
		for range 6 {
			leaves = append(leaves, arrow.BinaryTypes.String)
		}
	}
	if seed >= RelatedSeeds {
		// more columns that can lead and follow
		leaves = append(leaves, arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64, arrow.FixedWidthTypes.Date32)
	}
	if seed >= FieldSeeds {
		// strings drawn about half the time, so that text with
		// numbers is in many tables
		for range 20 {
			leaves = append(leaves, arrow.BinaryTypes.String)
		}
	}
	if seed >= WideDecimalSeeds {
		// decimals above 18 digits (16-byte binary in Strata), which
		// these tables' filters and aggregates compare
		for range 4 {
			leaves = append(leaves, &arrow.Decimal128Type{Precision: 38, Scale: 10},
				&arrow.Decimal128Type{Precision: 19, Scale: 4}, &arrow.Decimal128Type{Precision: 28, Scale: 2})
		}
	}
	g := randtable.New(seed, randtable.Options{
		MaxDepth:    int(seed % 3),
		FlatMapKey:  flatMapKey,
		SQLSafe:     true,
		LongStrings: true,
		Leaves:      leaves,
		NumberText:  seed >= TextSeeds,
		Related:     seed >= RelatedSeeds,
		HexText:     seed >= HexSeeds,
		FieldText:   seed >= FieldSeeds,
	})
	r := g.Rand()
	sch := g.Schema(1 + r.IntN(6))
	rows := rowCounts[r.IntN(len(rowCounts))]
	if r.IntN(4) == 0 {
		rows = r.IntN(3000)
	}
	if seed >= RelatedSeeds && r.IntN(2) == 0 {
		// stripes long enough for the writer to look for columns to
		// store relative to others (1,024 rows and more)
		rows = 1024 + r.IntN(3072)
	}
	mem := memory.DefaultAllocator
	var parts []arrow.RecordBatch
	for done := 0; done < rows || len(parts) == 0; {
		n := min(rows-done, 1+r.IntN(1500))
		parts = append(parts, g.Record(mem, sch, n))
		done += n
	}
	rec, err := randtable.Concat(mem, sch, parts)
	for _, p := range parts {
		p.Release()
	}
	if err != nil {
		return nil, err
	}
	t := &Table{Seed: seed, Order: "generated"}
	if rec, t.Order, err = reorder(r, rec); err != nil {
		return nil, err
	}
	t.Rec = rec
	t.Opts = strata.WriteOptions{
		ChunkValues: []int{16, 64, 100, 1000, 0}[r.IntN(5)],
		StripeBytes: []int{1 << 10, 4 << 10, 32 << 10, 0}[r.IntN(4)],
		StripeGroup: []int{1, 2, 0}[r.IntN(3)],
		Parallel:    1,
	}
	for _, f := range sch.Fields() {
		if i := f.Metadata.FindKey(flatMapKey); i >= 0 && f.Metadata.Values()[i] == "true" {
			t.Opts.FlatMap = append(t.Opts.FlatMap, f.Name)
		}
	}
	// a long table of RelatedSeeds written as one stripe half the time,
	// where the writer looks for related columns
	long := seed >= RelatedSeeds && rows >= 1024 && r.IntN(2) == 0
	if long {
		t.Opts.StripeBytes = 0
	}
	if seed >= WriteSeeds && !long {
		t.batches(rand.New(rand.NewPCG(seed, batchStream)))
	}
	if seed >= ModeSeeds {
		t.Opts.Optimize = []encoding.Optimize{encoding.OptimizeBalanced, encoding.OptimizeSize, encoding.OptimizeSpeed}[r.IntN(3)]
		t.Opts.NoZstd = r.IntN(8) == 0
		t.Replayed = r.IntN(3) == 0
	}
	if seed >= ReadSeeds {
		t.read = newReadPlan(seed)
	}
	t.Strata = filepath.Join(dir, fmt.Sprintf("t%d.strata", seed))
	t.Parquet = filepath.Join(dir, fmt.Sprintf("t%d.parquet", seed))
	if err := t.write(); err != nil {
		t.Release()
		return nil, err
	}
	return t, nil
}

// Release frees the table's record and removes its files.
func (t *Table) Release() {
	t.Rec.Release()
	for _, a := range t.flatArrs {
		a.Release()
	}
	os.Remove(t.Strata)
	os.Remove(t.Parquet)
}

// batchStream is the second word of the generator that draws a table's
// batches, apart from the table's own so that its rows and options stay
// those of its seed.
const batchStream = 0x6261746368

// batches draws the Writes of a table of WriteSeeds: batch sizes from one
// row to about a third of the table, a Flush after one batch in four, and
// one to three goroutines.
func (t *Table) batches(r *rand.Rand) {
	t.Opts.Parallel = 1 + r.IntN(3)
	rows := int(t.Rec.NumRows())
	t.Batches, t.Flushes = []int{}, []bool{}
	for done := 0; done < rows; {
		n := min(rows-done, 1+r.IntN(max(rows/3, 1)))
		if r.IntN(4) == 0 {
			n = min(rows-done, 1+r.IntN(16))
		}
		t.Batches = append(t.Batches, n)
		t.Flushes = append(t.Flushes, r.IntN(4) == 0)
		done += n
	}
}

func (t *Table) write() error {
	if t.Replayed {
		if err := t.replayLayouts(); err != nil {
			return err
		}
	}
	w, err := strata.Create(t.Strata, t.Rec.Schema(), &t.Opts)
	if err != nil {
		return err
	}
	if err := t.writeRows(w); err != nil {
		w.Abort()
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	return writeParquet(t.Parquet, t.Rec, parquet.WithMaxRowGroupLength(1000))
}

// writeParquet writes rec as the Parquet file DuckDB reads, with opts and
// no statistics: arrow-go writes bounds for all-null timestamp columns that
// DuckDB cannot convert, and the statistics are not under test.
func writeParquet(path string, rec arrow.RecordBatch, opts ...parquet.WriterProperty) error {
	var buf bytes.Buffer
	pw, err := pqarrow.NewFileWriter(rec.Schema(), &buf, parquet.NewWriterProperties(append(opts, parquet.WithStats(false))...), pqarrow.DefaultWriterProps())
	if err != nil {
		return err
	}
	if err := pw.Write(rec); err != nil {
		return err
	}
	if err := pw.Close(); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

// replayLayouts writes the first half of the table's rows to a file of
// their own and sets the layouts it chose as the table's Opts.Layouts.
func (t *Table) replayLayouts() error {
	pre := t.Strata + ".pre"
	defer os.Remove(pre)
	opts := t.Opts
	opts.Layouts = nil
	w, err := strata.Create(pre, t.Rec.Schema(), &opts)
	if err != nil {
		return err
	}
	half := t.Rec.NewSlice(0, t.Rec.NumRows()/2)
	defer half.Release()
	if err := w.Write(half); err != nil {
		w.Abort()
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	f, err := strata.Open(pre)
	if err != nil {
		return err
	}
	defer f.Close()
	if t.Opts.Layouts, err = f.Layouts(); err != nil {
		return fmt.Errorf("layouts of the first half: %w", err)
	}
	return nil
}

// writeRows writes the table's rows through w, in its batches.
func (t *Table) writeRows(w *strata.Writer) error {
	if t.Batches == nil {
		return w.Write(t.Rec)
	}
	at := int64(0)
	for i, n := range t.Batches {
		part := t.Rec.NewSlice(at, at+int64(n))
		err := w.Write(part)
		part.Release()
		if err != nil {
			return err
		}
		if t.Flushes[i] {
			if err := w.Flush(); err != nil {
				return err
			}
		}
		at += int64(n)
	}
	return nil
}

// reorder sorts the rows by a primitive top-level column (ascending, nulls
// first), clusters them (sorted, then shuffled within windows of 50 rows),
// or keeps the generated order.
func reorder(r *rand.Rand, rec arrow.RecordBatch) (arrow.RecordBatch, string, error) {
	var keys []int
	for i, f := range rec.Schema().Fields() {
		if sortable(f.Type) {
			keys = append(keys, i)
		}
	}
	mode := r.IntN(3)
	if mode == 0 || len(keys) == 0 || rec.NumRows() < 2 {
		return rec, "generated", nil
	}
	k := keys[r.IntN(len(keys))]
	col := rec.Column(k)
	perm := make([]int, rec.NumRows())
	for i := range perm {
		perm[i] = i
	}
	slices.SortStableFunc(perm, func(a, b int) int { return compareCell(col, a, b) })
	order := "sorted by " + rec.Schema().Field(k).Name
	if mode == 2 {
		for lo := 0; lo < len(perm); lo += 50 {
			w := perm[lo:min(lo+50, len(perm))]
			r.Shuffle(len(w), func(i, j int) { w[i], w[j] = w[j], w[i] })
		}
		order = "clustered by " + rec.Schema().Field(k).Name
	}
	out, err := takeRows(rec, perm)
	rec.Release()
	return out, order, err
}

func sortable(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.BOOL, arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.UINT8, arrow.UINT16, arrow.UINT32,
		arrow.UINT64, arrow.FLOAT32, arrow.FLOAT64, arrow.STRING, arrow.BINARY, arrow.DATE32, arrow.TIMESTAMP,
		arrow.TIME32, arrow.TIME64:
		return true
	}
	return false
}

// compareCell orders two cells of a primitive column: nulls first, NaN last.
func compareCell(a arrow.Array, i, j int) int {
	switch ni, nj := a.IsNull(i), a.IsNull(j); {
	case ni && nj:
		return 0
	case ni:
		return -1
	case nj:
		return 1
	}
	switch c := a.(type) {
	case *array.Boolean:
		return cmpBool(c.Value(i), c.Value(j))
	case *array.Int8:
		return cmpNum(c.Value(i), c.Value(j))
	case *array.Int16:
		return cmpNum(c.Value(i), c.Value(j))
	case *array.Int32:
		return cmpNum(c.Value(i), c.Value(j))
	case *array.Int64:
		return cmpNum(c.Value(i), c.Value(j))
	case *array.Uint8:
		return cmpNum(c.Value(i), c.Value(j))
	case *array.Uint16:
		return cmpNum(c.Value(i), c.Value(j))
	case *array.Uint32:
		return cmpNum(c.Value(i), c.Value(j))
	case *array.Uint64:
		return cmpNum(c.Value(i), c.Value(j))
	case *array.Float32:
		return cmpFloat(float64(c.Value(i)), float64(c.Value(j)))
	case *array.Float64:
		return cmpFloat(c.Value(i), c.Value(j))
	case *array.String:
		return strings.Compare(c.Value(i), c.Value(j))
	case *array.Binary:
		return bytes.Compare(c.Value(i), c.Value(j))
	case *array.Date32:
		return cmpNum(c.Value(i), c.Value(j))
	case *array.Timestamp:
		return cmpNum(c.Value(i), c.Value(j))
	case *array.Time32:
		return cmpNum(c.Value(i), c.Value(j))
	case *array.Time64:
		return cmpNum(c.Value(i), c.Value(j))
	}
	return 0
}

func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	}
	return 1
}

func cmpNum[T int8 | int16 | int32 | int64 | uint8 | uint16 | uint32 | uint64 | arrow.Date32 | arrow.Timestamp | arrow.Time32 | arrow.Time64](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func cmpFloat(a, b float64) int {
	an, bn := math.IsNaN(a), math.IsNaN(b)
	switch {
	case an && bn:
		return 0
	case an:
		return 1
	case bn:
		return -1
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// takeRows returns the rows of rec in the order perm gives.
func takeRows(rec arrow.RecordBatch, perm []int) (arrow.RecordBatch, error) {
	mem := memory.DefaultAllocator
	cols := make([]arrow.Array, rec.NumCols())
	for c := range cols {
		parts := make([]arrow.Array, 0, len(perm))
		for _, i := range perm {
			parts = append(parts, array.NewSlice(rec.Column(c), int64(i), int64(i)+1))
		}
		a, err := array.Concatenate(parts, mem)
		for _, p := range parts {
			p.Release()
		}
		if err != nil {
			for _, x := range cols[:c] {
				x.Release()
			}
			return nil, err
		}
		cols[c] = a
	}
	out := array.NewRecordBatch(rec.Schema(), cols, int64(len(perm)))
	for _, c := range cols {
		c.Release()
	}
	return out, nil
}
