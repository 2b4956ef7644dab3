package strata_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"runtime"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"strata"
	"strata/encoding"
	"strata/format"
	"strata/iox"
)

// Bounded memory on hostile files: files that declare far more than they
// hold (a chunk of 2^27 rows in 10 bytes, a dictionary of 2^26 entries,
// the same at the row limit, encoding trees nested 60 deep, two million
// stripes) are opened, scanned, taken from and aggregated with
// OpenOptions.MaxMemory set; what each of these reads allocates
// (runtime.MemStats.TotalAlloc, all goroutines) stays under the limit,
// and each either answers or fails with an error wrapping ErrLimit or
// ErrCorrupt.

const hostileLimit = 64 << 20

// schemaSection returns the schema section Strata writes for sch.
func schemaSection(t *testing.T, sch *arrow.Schema) []byte {
	t.Helper()
	b := array.NewRecordBuilder(mem, sch)
	defer b.Release()
	for _, f := range b.Fields() {
		f.AppendEmptyValue()
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	var buf bytes.Buffer
	w, err := strata.NewWriter(&buf, sch, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	ff, err := format.Open(context.Background(), iox.Bytes(buf.Bytes()), format.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s, ok, err := ff.Section(context.Background(), "schema")
	if err != nil || !ok {
		t.Fatalf("schema section: %v %v", ok, err)
	}
	return s
}

// craft writes a container with the schema of sch whose stripes hold the
// given chunk payloads (one chunk of stream 0 per stripe, rows rows each).
func craft(t *testing.T, sch *arrow.Schema, rows int, payloads ...[]byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	fw := format.NewWriter(&buf, format.WriterOptions{})
	if err := fw.AddSection("schema", schemaSection(t, sch)); err != nil {
		t.Fatal(err)
	}
	for _, p := range payloads {
		if err := fw.WriteChunk(0, p, rows, nil); err != nil {
			t.Fatal(err)
		}
		if err := fw.FinishStripe(rows); err != nil {
			t.Fatal(err)
		}
	}
	if err := fw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// constantNode is a Constant node of rows copies of an 8-byte value.
func constantNode(typ encoding.Type, rows int) []byte {
	n := encoding.AppendHeader(nil, encoding.KindConstant, typ, rows)
	return binary.LittleEndian.AppendUint64(n, 0)[:len(n)+typ.Size()]
}

// dictNode is a Dictionary node of rows rows whose alphabet declares
// alpha entries (a Constant node: tiny, and not even sorted).
func dictNode(alphabet []byte, rows int) []byte {
	n := encoding.AppendHeader(nil, encoding.KindDictionary, encoding.Int64, rows)
	n = encoding.AppendChild(n, alphabet)
	return encoding.AppendChild(n, constantNode(encoding.Uint32, rows))
}

func hostileFiles(t *testing.T) map[string][]byte {
	i64 := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64, Nullable: false}}, nil)
	files := map[string][]byte{}
	files["huge declared rows"] = craft(t, i64, 1<<27, constantNode(encoding.Int64, 1<<27))
	files["giant dictionary"] = craft(t, i64, 1<<26, dictNode(constantNode(encoding.Int64, 1<<26), 1<<26))
	// Within the row limit (MaxMemory/32 rows): an alphabet of as many
	// entries, decoded into half the limit and then refused as unsorted.
	rows := hostileLimit / 32
	files["dictionary at the row limit"] = craft(t, i64, rows, dictNode(constantNode(encoding.Int64, rows), rows))
	files["constant at the row limit"] = craft(t, i64, rows, constantNode(encoding.Int64, rows))
	files["alphabet over its rows"] = craft(t, i64, 1000, dictNode(constantNode(encoding.Int64, 1<<26), 1000))
	deep := constantNode(encoding.Int64, 1)
	for range 60 {
		deep = dictNode(deep, 1)
	}
	files["deep encoding tree"] = craft(t, i64, 1, deep)
	// Two million empty stripes: a few MB of directory, a few KB stored.
	var buf bytes.Buffer
	fw := format.NewWriter(&buf, format.WriterOptions{GroupSize: 1 << 21})
	if err := fw.AddSection("schema", schemaSection(t, i64)); err != nil {
		t.Fatal(err)
	}
	for range 2 << 20 {
		if err := fw.FinishStripe(0); err != nil {
			t.Fatal(err)
		}
	}
	if err := fw.Close(); err != nil {
		t.Fatal(err)
	}
	files["two million stripes"] = buf.Bytes()
	return files
}

// allocated runs fn and returns what it allocated (all goroutines).
func allocated(fn func()) uint64 {
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// readHostile opens data with the memory limit and reads it every way
// (open, full scan, Take, filtered aggregates), returning the first error
// and the most any one of these reads allocated.
func readHostile(data []byte) (error, uint64) {
	var f *strata.File
	var first error
	keep := func(err error) {
		if first == nil && err != nil {
			first = err
		}
	}
	peak := allocated(func() {
		var err error
		f, err = strata.OpenSourceWith(iox.Bytes(data), strata.OpenOptions{MaxMemory: hostileLimit})
		keep(err)
	})
	if f == nil {
		return first, peak
	}
	defer f.Close()
	peak = max(peak, allocated(func() {
		sc, err := f.Scan(strata.ScanOptions{})
		if err != nil {
			keep(err)
			return
		}
		for {
			rec, err := sc.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				keep(err)
				break
			}
			rec.Release()
		}
	}))
	if n := f.NumRows(); n > 0 {
		peak = max(peak, allocated(func() {
			rec, err := f.Take([]int64{0, n / 2, n - 1}, nil)
			if err == nil {
				rec.Release()
			}
			keep(err)
		}))
	}
	peak = max(peak, allocated(func() {
		_, _, err := f.Aggregate(strata.AggregateOptions{Exprs: "count(*), min(x), max(x), sum(x)", Where: "x > 5"})
		keep(err)
	}))
	return first, peak
}

func TestHostileFilesBoundedMemory(t *testing.T) {
	if raceEnabled {
		t.Skip("single-goroutine sweep; runs without -race")
	}
	for name, data := range hostileFiles(t) {
		err, alloc := readHostile(data)
		t.Logf("%-28s %5d bytes: at most %5.1f MiB per read (limit %d MiB): %v", name, len(data), float64(alloc)/(1<<20), hostileLimit>>20, err)
		if alloc > hostileLimit {
			t.Errorf("%s: a read allocated %d bytes, over the %d limit", name, alloc, hostileLimit)
		}
		if err != nil && !errors.Is(err, encoding.ErrLimit) && !errors.Is(err, encoding.ErrCorrupt) {
			t.Errorf("%s: error without a kind: %v", name, err)
		}
	}
}

// Without a limit the defaults still refuse a chunk that declares more
// than 2 GiB: the limit only tightens them.
func TestHostileDefaultLimits(t *testing.T) {
	i64 := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64}}, nil)
	data := craft(t, i64, math.MaxInt32, constantNode(encoding.Int64, math.MaxInt32))
	f, err := strata.OpenSource(iox.Bytes(data))
	if err != nil {
		if !errors.Is(err, encoding.ErrLimit) && !errors.Is(err, encoding.ErrCorrupt) {
			t.Fatal(err)
		}
		return
	}
	defer f.Close()
	sc, err := f.Scan(strata.ScanOptions{})
	if err == nil {
		_, err = sc.Next()
	}
	if !errors.Is(err, encoding.ErrLimit) {
		t.Fatalf("scan of 2^31 declared rows: %v, want ErrLimit", err)
	}
}
