package strata_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"strata"
	"strata/format"
	"strata/internal/randtable"
	"strata/iox"
	"strata/shred"
)

// fuzzSeeds are small real files: flat and nested, FlatMap, zstd on and
// off, one and several stripes. They are built once per process.
var fuzzSeeds = sync.OnceValue(func() [][]byte {
	var out [][]byte
	add := func(tb *table, opts strata.WriteOptions) {
		var buf bytes.Buffer
		opts.FlatMap = tb.flats
		w, err := strata.NewWriter(&buf, tb.sch, &opts)
		if err != nil {
			panic(err)
		}
		for _, r := range tb.recs {
			if err := w.Write(r); err != nil {
				panic(err)
			}
		}
		if err := w.Close(); err != nil {
			panic(err)
		}
		out = append(out, buf.Bytes())
	}
	// flat: every leaf type, two stripes
	g := randtable.New(1, randtable.Options{})
	leaves := arrow.NewSchema(shapesSchema().Fields()[7:], nil)
	add(&table{sch: leaves, recs: []arrow.RecordBatch{g.Record(mem, leaves, 20), g.Record(mem, leaves, 10)}},
		strata.WriteOptions{StripeBytes: 1})
	flat := arrow.NewSchema(shapesSchema().Fields()[8:14], nil)
	add(&table{sch: flat, recs: []arrow.RecordBatch{g.Record(mem, flat, 40)}}, strata.WriteOptions{NoZstd: true, ChunkValues: 16})
	// nested shapes, FlatMap by option
	sf := shapesSchema().Fields()
	nested := arrow.NewSchema(sf[:7], nil)
	add(&table{sch: nested, flats: []string{"fm"}, recs: []arrow.RecordBatch{g.Record(mem, nested, 12)}}, strata.WriteOptions{})
	// shared dictionaries and Correlated columns, two stripes
	lsch, lrecs := goldenLayout()
	add(&table{sch: lsch, recs: []arrow.RecordBatch{lrecs[0].NewSlice(0, 1200), lrecs[1].NewSlice(0, 1100)}},
		strata.WriteOptions{StripeBytes: 64 << 10, ChunkValues: 256, ChunkTarget: 256})
	// FSST chunks sharing one symbol table per stripe (SharedFSST), two stripes
	ssch, srecs := goldenSharedFSST()
	add(&table{sch: ssch, recs: srecs[:2]}, strata.WriteOptions{NoZstd: true, ChunkValues: 128, StripeBytes: 16 << 10})
	// times of day, durations and a null-type column
	tg := randtable.New(9, randtable.Options{})
	trec := tg.Record(mem, timeSchema, 40)
	nulls := array.NewNull(40)
	tsch := arrow.NewSchema(append(timeSchema.Fields(), arrow.Field{Name: "none", Type: arrow.Null, Nullable: true}), nil)
	add(&table{sch: tsch, recs: []arrow.RecordBatch{array.NewRecordBatch(tsch, append(trec.Columns(), nulls), 40)}},
		strata.WriteOptions{ChunkValues: 16})
	// random nested with FlatMap metadata, several stripes and groups
	for seed := range uint64(3) {
		g := randtable.New(100+seed, randtable.Options{MaxDepth: 2, FlatMapKey: shred.FlatMapMetadataKey})
		sch := g.Schema(3)
		add(&table{sch: sch, recs: []arrow.RecordBatch{g.Record(mem, sch, 8), g.Record(mem, sch, 8), g.Record(mem, sch, 3)}},
			strata.WriteOptions{StripeBytes: 1, StripeGroup: 2, ChunkValues: 5, NoZstd: seed == 1})
	}
	return out
})

// exercise opens data and reads it every way, returning the first error.
// Work is bounded by the data: a file cannot claim more rows than its
// metadata describes.
func exercise(data []byte) error {
	f, err := strata.OpenSource(iox.Bytes(data))
	if err != nil {
		return err
	}
	defer f.Close()
	if err := readValid(f, nil, []int64{f.NumRows() - 1, 0, f.NumRows() / 2}); err != nil {
		return err
	}
	if _, err := f.Inspect(); err != nil {
		return err
	}
	if _, err := f.Layouts(); err != nil {
		return err
	}
	if _, _, err := f.Aggregate(strata.AggregateOptions{Exprs: "count(*)"}); err != nil {
		return err
	}
	// fields inside structs: projected alone (a pruned column, only their
	// streams read), and averaged
	paths := structFieldPaths(f.Schema())
	if len(paths) > 0 {
		if err := readValid(f, paths, []int64{f.NumRows() - 1, 0}); err != nil {
			return err
		}
		_, _, _ = f.Aggregate(strata.AggregateOptions{Exprs: "avg(" + paths[0] + ")"}) // refused unless numeric
	}
	return nil
}

// readValid scans columns of f (nil: all) and takes rows (when the file
// has any), checking every batch is a valid Arrow record.
func readValid(f *strata.File, columns []string, rows []int64) error {
	sc, err := f.Scan(strata.ScanOptions{Columns: columns})
	if err != nil {
		return err
	}
	defer sc.Close()
	for {
		rec, err := sc.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		err = validate(rec)
		rec.Release()
		if err != nil {
			return err
		}
	}
	if f.NumRows() == 0 {
		return nil
	}
	rec, err := f.Take(rows, columns)
	if err != nil {
		return err
	}
	defer rec.Release()
	return validate(rec)
}

// structFieldPaths returns up to three dotted paths of fields reached
// through structs from the top-level columns of sch.
func structFieldPaths(sch *arrow.Schema) []string {
	var out []string
	var walk func(prefix string, t arrow.DataType)
	walk = func(prefix string, t arrow.DataType) {
		st, ok := t.(*arrow.StructType)
		if !ok {
			return
		}
		for _, f := range st.Fields() {
			if len(out) == 3 {
				return
			}
			out = append(out, prefix+"."+f.Name)
			walk(prefix+"."+f.Name, f.Type)
		}
	}
	for _, f := range sch.Fields() {
		walk(f.Name, f.Type)
	}
	return out
}

// validate checks that what the reader returned is well-formed Arrow: a
// reader must never hand out arrays whose offsets or lengths lie.
func validate(rec arrow.RecordBatch) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("malformed record returned: %v", r)
		}
	}()
	for i, c := range rec.Columns() {
		if int64(c.Len()) != rec.NumRows() {
			return fmt.Errorf("column %d has %d values for %d rows", i, c.Len(), rec.NumRows())
		}
		for j := range min(c.Len(), 1<<16) {
			_ = c.ValueStr(j) // touches offsets and values
		}
	}
	return nil
}

// watchdog crashes the process when one input takes longer than
// fuzzTimeout: the fuzzer has no time limit of its own, and a crash makes
// it record the input. It returns the function that disarms it.
func watchdog(data []byte) func() {
	t := time.AfterFunc(fuzzTimeout, func() {
		panic(fmt.Sprintf("reading a %d-byte input took more than %v", len(data), fuzzTimeout))
	})
	return func() { t.Stop() }
}

// fuzzTimeout is generous: the machine may be busy with other work.
const fuzzTimeout = 20 * time.Second

// FuzzOpenRead feeds arbitrary bytes to the reader: every outcome must be
// an error or a well-formed result, never a panic, a hang or an unbounded
// allocation. Checksums reject most mutations early; FuzzRepacked reaches
// past them.
//
//	go test -run='^$' -fuzz=FuzzOpenRead -fuzztime=60s .
func FuzzOpenRead(f *testing.F) {
	for _, s := range fuzzSeeds() {
		f.Add(s)
	}
	f.Add([]byte("STRA"))
	f.Fuzz(func(t *testing.T, data []byte) {
		defer watchdog(data)()
		exercise(data)
	})
}

// repack rewrites a Strata file through the container writer after patch
// has changed the decoded chunk payloads and sections, so the result has
// valid framing and checksums and the damage reaches the decoders, the
// schema and statistics parsers and the assembler.
func repack(src []byte, patch func(blob int, b []byte) []byte) ([]byte, error) {
	in, err := format.Open(context.Background(), iox.Bytes(src), format.ReaderOptions{})
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	w := format.NewWriter(&buf, format.WriterOptions{GroupSize: 2})
	blob := 0
	for s := range in.NumStripes() {
		streams, err := in.Streams(context.Background(), s)
		if err != nil {
			return nil, err
		}
		for id, st := range streams {
			for c, ch := range st.Chunks {
				p, err := in.ReadChunk(context.Background(), s, id, c)
				if err != nil {
					return nil, err
				}
				if err := w.WriteChunk(id, patch(blob, bytes.Clone(p)), int(ch.Rows), ch.Stats); err != nil {
					return nil, err
				}
				blob++
			}
		}
		if err := w.FinishStripe(int(in.Stripe(s).Rows)); err != nil {
			return nil, err
		}
	}
	for _, sec := range in.Sections() {
		b, _, err := in.Section(context.Background(), sec.Name)
		if err != nil {
			return nil, err
		}
		if err := w.AddSection(sec.Name, patch(blob, bytes.Clone(b))); err != nil {
			return nil, err
		}
		blob++
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// FuzzRepacked overwrites bytes at one position of one chunk payload or
// metadata section of a seed file and re-frames the file with valid
// checksums before reading it.
//
//	go test -run='^$' -fuzz=FuzzRepacked -fuzztime=60s .
func FuzzRepacked(f *testing.F) {
	for i := range fuzzSeeds() {
		f.Add(uint8(i), uint16(0), uint16(0), []byte{})
		f.Add(uint8(i), uint16(3), uint16(1), []byte{0xff})
		f.Add(uint8(i), uint16(40), uint16(9), []byte{0, 0, 0, 0x80})
	}
	f.Fuzz(func(t *testing.T, seed uint8, blob, at uint16, patch []byte) {
		seeds := fuzzSeeds()
		src := seeds[int(seed)%len(seeds)]
		data, err := repack(src, func(i int, b []byte) []byte {
			if i != int(blob) {
				return b
			}
			pos := int(at)
			if len(b) > 0 {
				pos %= len(b) + 1
			} else {
				pos = 0
			}
			end := pos + len(patch)
			if end > len(b) {
				b = append(b, make([]byte, end-len(b))...)
			}
			copy(b[pos:], patch)
			if len(patch) == 0 { // an empty patch truncates
				b = b[:pos]
			}
			return b
		})
		if err != nil {
			t.Fatalf("repacking a seed failed: %v", err)
		}
		defer watchdog(data)()
		exercise(data)
	})
}

// TestSeedsRead checks that the fuzz seeds themselves read without error,
// so the fuzzers start from files that reach every reader path.
func TestSeedsRead(t *testing.T) {
	var bugs []string
	for i, s := range fuzzSeeds() {
		same, err := repack(s, func(_ int, b []byte) []byte { return b })
		if err != nil {
			t.Fatal(err)
		}
		for _, data := range [][]byte{s, same} {
			if err := exercise(data); err != nil {
				if bug := knownBug(err); bug != "" {
					bugs = append(bugs, fmt.Sprintf("seed %d: known bug (see %s): %v", i, bug, err))
					continue
				}
				t.Fatalf("seed %d: %v", i, err)
			}
		}
	}
	if len(bugs) > 0 {
		t.Skip(strings.Join(bugs, "\n"))
	}
}
