package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// typesSchema holds every type class the real data sets have (timestamps,
// dates, binary, nested structs and lists) and the ones they might
// (float32, decimals of every storage width, maps, other time units).
var typesSchema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64},
	{Name: "f32", Type: arrow.PrimitiveTypes.Float32, Nullable: true},
	{Name: "u16", Type: arrow.PrimitiveTypes.Uint16, Nullable: true},
	{Name: "ts_s", Type: &arrow.TimestampType{Unit: arrow.Second}, Nullable: true},
	{Name: "ts_ms", Type: &arrow.TimestampType{Unit: arrow.Millisecond}, Nullable: true},
	{Name: "ts_us", Type: &arrow.TimestampType{Unit: arrow.Microsecond}, Nullable: true},
	{Name: "ts_ns", Type: &arrow.TimestampType{Unit: arrow.Nanosecond}},
	{Name: "ts_utc", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, Nullable: true},
	{Name: "dec4", Type: &arrow.Decimal128Type{Precision: 4, Scale: 2}, Nullable: true},
	{Name: "dec9", Type: &arrow.Decimal128Type{Precision: 9, Scale: 3}},
	{Name: "dec18", Type: &arrow.Decimal128Type{Precision: 18, Scale: 4}, Nullable: true},
	{Name: "dec30", Type: &arrow.Decimal128Type{Precision: 30, Scale: 5}, Nullable: true},
	{Name: "blob", Type: arrow.BinaryTypes.Binary, Nullable: true},
	{Name: "props", Type: arrow.StructOf(
		arrow.Field{Name: "mag", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		arrow.Field{Name: "place", Type: arrow.BinaryTypes.String, Nullable: true},
		arrow.Field{Name: "inner", Type: arrow.StructOf(
			arrow.Field{Name: "n", Type: arrow.PrimitiveTypes.Int32, Nullable: true}), Nullable: true},
	), Nullable: true},
	{Name: "coords", Type: arrow.ListOf(arrow.PrimitiveTypes.Float64), Nullable: true},
	{Name: "tags", Type: arrow.ListOf(arrow.StructOf(
		arrow.Field{Name: "k", Type: arrow.BinaryTypes.String, Nullable: true},
		arrow.Field{Name: "v", Type: arrow.PrimitiveTypes.Int64, Nullable: true})), Nullable: true},
	{Name: "attrs", Type: arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int32), Nullable: true},
}, nil)

// typesRecord builds n rows of typesSchema with nulls, empty lists and null
// structs spread over them.
func typesRecord(n int) arrow.Record {
	b := array.NewRecordBuilder(memory.DefaultAllocator, typesSchema)
	defer b.Release()
	base := time.Date(2001, 3, 4, 5, 6, 7, 0, time.UTC)
	for i := range n {
		null := func(k int) bool { return i%k == k-1 }
		b.Field(0).(*array.Int64Builder).Append(int64(i) * 7919)
		if null(5) {
			b.Field(1).AppendNull()
		} else {
			b.Field(1).(*array.Float32Builder).Append(float32(i) / 7)
		}
		if null(6) {
			b.Field(2).AppendNull()
		} else {
			b.Field(2).(*array.Uint16Builder).Append(uint16(60000 + i%5000))
		}
		ts := base.Add(time.Duration(i) * 1234567891 * time.Nanosecond)
		for k, v := range []int64{ts.Unix(), ts.UnixMilli(), ts.UnixMicro(), ts.UnixNano(), ts.UnixMicro()} {
			if k != 3 && null(7+k) {
				b.Field(3 + k).AppendNull()
			} else {
				b.Field(3 + k).(*array.TimestampBuilder).Append(arrow.Timestamp(v))
			}
		}
		for k, v := range []int64{int64(i%9999) - 5000, int64(i) * 12345, -int64(i) * 987654321012, int64(i) * 31} {
			db := b.Field(8 + k).(*array.Decimal128Builder)
			if k != 1 && null(4+k) {
				db.AppendNull()
				continue
			}
			d := decimal128.FromI64(v)
			if k == 3 { // beyond 64 bits
				d = d.Mul(decimal128.FromU64(1 << 62)).Sub(decimal128.FromI64(int64(i)))
			}
			db.Append(d)
		}
		if null(9) {
			b.Field(12).AppendNull()
		} else {
			b.Field(12).(*array.BinaryBuilder).Append([]byte{0, byte(i), 0xff, byte(i >> 8)})
		}
		sb := b.Field(13).(*array.StructBuilder)
		if null(11) {
			sb.AppendNull()
		} else {
			sb.Append(true)
			if null(4) {
				sb.FieldBuilder(0).AppendNull()
			} else {
				sb.FieldBuilder(0).(*array.Float64Builder).Append(float64(i%70) / 10)
			}
			sb.FieldBuilder(1).(*array.StringBuilder).Append(fmt.Sprintf("%d km N of town %d", i%13, i%17))
			ib := sb.FieldBuilder(2).(*array.StructBuilder)
			if null(3) {
				ib.AppendNull()
			} else {
				ib.Append(true)
				ib.FieldBuilder(0).(*array.Int32Builder).Append(int32(i))
			}
		}
		lb := b.Field(14).(*array.ListBuilder)
		switch {
		case null(10):
			lb.AppendNull()
		case null(7):
			lb.Append(true) // empty
		default:
			lb.Append(true)
			vb := lb.ValueBuilder().(*array.Float64Builder)
			for k := range 1 + i%3 {
				vb.Append(float64(i) + float64(k)/4)
			}
		}
		tb := b.Field(15).(*array.ListBuilder)
		if null(8) {
			tb.AppendNull()
		} else {
			tb.Append(true)
			eb := tb.ValueBuilder().(*array.StructBuilder)
			for k := range i % 4 {
				eb.Append(true)
				eb.FieldBuilder(0).(*array.StringBuilder).Append(fmt.Sprintf("tag%d", (i+k)%6))
				if k == 1 {
					eb.FieldBuilder(1).AppendNull()
				} else {
					eb.FieldBuilder(1).(*array.Int64Builder).Append(int64(i * k))
				}
			}
		}
		mb := b.Field(16).(*array.MapBuilder)
		if null(12) {
			mb.AppendNull()
		} else {
			mb.Append(true)
			for k := range i % 3 {
				mb.KeyBuilder().(*array.StringBuilder).Append(fmt.Sprintf("key%d", k))
				mb.ItemBuilder().(*array.Int32Builder).Append(int32(i - k))
			}
		}
	}
	return b.NewRecord()
}

// writeTypesParquet writes typesRecord(n) with arrow-go.
func writeTypesParquet(t *testing.T, path string, n int) {
	t.Helper()
	rec := typesRecord(n)
	defer rec.Release()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := pqarrow.NewFileWriter(typesSchema, f, parquet.NewWriterProperties(),
		pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestRealModeAllTypes runs --real over a file of every type class: every
// system must write and read it (nothing unsupported), and every scan and
// lookup checksum must agree.
func TestRealModeAllTypes(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "types.parquet")
	writeTypesParquet(t, path, 1000)
	src, err := readParquetSource(path)
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range src.Schema.Fields() {
		want := typesSchema.Field(i).Type
		if f.Name == "ts_s" { // Parquet has no seconds unit
			want = &arrow.TimestampType{Unit: arrow.Millisecond}
		}
		if !arrow.TypeEqual(f.Type, want) {
			t.Errorf("column %s read back as %s, want %s", f.Name, f.Type, typesSchema.Field(i).Type)
		}
	}
	jsonPath := filepath.Join(dir, "out.json")
	var stdout, stderr bytes.Buffer
	// every system, the opt-in ones too (strata/layout replays the
	// layouts of a file of the table's first half)
	var keys []string
	for _, s := range allSystems(config{threads: 1}) {
		keys = append(keys, key(s))
	}
	args := []string{"--real", path, "--runs", "1", "--min-runs", "1", "--take", "40", "--json", jsonPath,
		"--systems", strings.Join(keys, ",")}
	if code := run(args, &stdout, &stderr); code != 0 {
		t.Fatalf("bench %v exited %d\nstderr:\n%s\nstdout:\n%s", args, code, stderr.String(), stdout.String())
	}
	if !strings.Contains(stderr.String(), "all results agree") {
		t.Fatalf("cross-check did not run:\n%s", stderr.String())
	}
	var rep struct {
		Sets []struct {
			Rows    int64 `json:"rows"`
			Results []struct {
				System, Variant, Unsupported string
				Bytes                        *int64
				WriteMs                      *float64 `json:"write_ms"`
				ScanMs                       *float64 `json:"scan_ms"`
				TakeUs                       *float64 `json:"take_us"`
				Errors                       []string
			} `json:"results"`
		} `json:"sets"`
	}
	b := readReport(t, jsonPath, &rep)
	if len(rep.Sets) != 1 || rep.Sets[0].Rows != 1000 {
		t.Fatalf("report: %s", b)
	}
	if got, want := len(rep.Sets[0].Results), len(allSystems(config{threads: 1})); got != want {
		t.Fatalf("%d results, want %d", got, want)
	}
	for _, r := range rep.Sets[0].Results {
		if r.Unsupported != "" || len(r.Errors) > 0 || r.Bytes == nil || r.WriteMs == nil || r.ScanMs == nil || r.TakeUs == nil {
			t.Errorf("%s/%s not fully measured: unsupported %q, errors %v", r.System, r.Variant, r.Unsupported, r.Errors)
		}
	}
	t.Logf("%s", stdout.String())
}

// TestRealModeInMemoryTypes feeds the records straight from memory, so the
// types a Parquet file cannot carry unchanged (timestamp[s], read back from
// Parquet as milliseconds) reach every system too.
func TestRealModeInMemoryTypes(t *testing.T) {
	rec := typesRecord(1000)
	src := &Source{Name: "types-memory", Schema: typesSchema, Records: []arrow.Record{rec}, Rows: rec.NumRows()}
	load := func() (*Source, error) { rec.Retain(); return src, nil }
	var stdout, stderr bytes.Buffer
	cfg := realConfig{runs: 1, minRuns: 1, take: 30, threads: 1, seed: 1}
	if code := runRealSources(&stdout, &stderr, cfg, []sourceLoader{load}); code != 0 {
		t.Fatalf("exited %d\nstderr:\n%s\nstdout:\n%s", code, stderr.String(), stdout.String())
	}
	if !strings.Contains(stderr.String(), "12 comparisons, all results agree") {
		t.Fatalf("want 12 agreeing comparisons (scan and take of 7 systems):\n%s", stderr.String())
	}
	rec.Release()
}

// TestChecksumNested checks that the per-leaf checksum of nested columns
// tells apart moved elements, moved list boundaries and null from empty
// lists, and does not depend on how rows are cut into batches.
func TestChecksumNested(t *testing.T) {
	typ := arrow.ListOf(arrow.PrimitiveTypes.Int64)
	sch := arrow.NewSchema([]arrow.Field{{Name: "l", Type: typ, Nullable: true}}, nil)
	mk := func(rows ...[]int64) arrow.Record {
		b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
		defer b.Release()
		lb := b.Field(0).(*array.ListBuilder)
		for _, r := range rows {
			if r == nil {
				lb.AppendNull()
				continue
			}
			lb.Append(true)
			for _, v := range r {
				lb.ValueBuilder().(*array.Int64Builder).Append(v)
			}
		}
		return b.NewRecord()
	}
	sum := func(recs ...arrow.Record) *Checksum {
		c := newChecksum()
		for _, r := range recs {
			if err := c.AddRecord(r, nil); err != nil {
				t.Fatal(err)
			}
			r.Release()
		}
		return c
	}
	variants := map[string]*Checksum{
		"base":          sum(mk([]int64{1, 2}, []int64{3}, []int64{})),
		"swapped":       sum(mk([]int64{2, 1}, []int64{3}, []int64{})),
		"moved bound":   sum(mk([]int64{1}, []int64{2, 3}, []int64{})),
		"null not []":   sum(mk([]int64{1, 2}, []int64{3}, nil)),
		"value changed": sum(mk([]int64{1, 2}, []int64{4}, []int64{})),
	}
	for a, ca := range variants {
		for b, cb := range variants {
			if a < b && ca.Diff(cb) == "" {
				t.Errorf("%s and %s have the same checksum", a, b)
			}
		}
	}
	split := sum(mk([]int64{1, 2}), mk([]int64{3}, []int64{}))
	if d := split.Diff(variants["base"]); d != "" {
		t.Errorf("batch boundaries change the checksum: %s", d)
	}
	if _, ok := variants["base"].Cols["l[]"]; !ok {
		t.Errorf("leaf name: got %v, want l[]", variants["base"].Cols)
	}
}
