package interop_test

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/schema"

	"strata/interop"
)

// ownTest names the parquet-testing files that arrow-go cannot read by
// itself but interop can: TestParquetTesting, whose reference is
// arrow-go's reading, leaves them to the test named, which checks the
// values against another reading of the file.
var ownTest = map[string]string{
	"data/unknown-logical-type.parquet": "TestParquetUnknownLogicalType",
	"data/int96_from_spark.parquet":     "TestParquetInt96Spark",
	"data/incorrect_map_schema.parquet": "TestParquetIncorrectMapSchema",
}

// columnValues returns the values of column i of recs as text (nulls as
// "<null>"), a batch after another.
func columnValues(recs []arrow.Record, i int) []string {
	var out []string
	for _, r := range recs {
		c := r.Column(i)
		for j := 0; j < c.Len(); j++ {
			if c.IsNull(j) {
				out = append(out, "<null>")
				continue
			}
			switch a := c.(type) {
			case *array.Binary:
				out = append(out, string(a.Value(j)))
			case *array.String:
				out = append(out, a.Value(j))
			default:
				out = append(out, c.ValueStr(j))
			}
		}
	}
	return out
}

func sameStrings(got, want []string) error {
	if len(got) != len(want) {
		return fmt.Errorf("%d values %q, want %d %q", len(got), got, len(want), want)
	}
	for i := range got {
		if got[i] != want[i] {
			return fmt.Errorf("value %d: %q, want %q", i, got[i], want[i])
		}
	}
	return nil
}

// TestParquetUnknownLogicalType imports unknown-logical-type.parquet,
// whose second column, a BYTE_ARRAY, carries a logical type of an id no
// Parquet version defines (pyarrow's test of an old reader meeting a
// newer type, arrow GH-41764). The Parquet format asks such a reader to
// read the physical type, and interop does: the column arrives as binary
// with the bytes the writer stored, and export writes it back as a plain
// BYTE_ARRAY that arrow-go reads to the same values. arrow-go itself
// panics on the footer, so the reference is the text stored in the file
// (both columns' pages are dictionary encoded and the strings appear
// verbatim in it).
func TestParquetUnknownLogicalType(t *testing.T) {
	src := filepath.Join(parquetTesting(t), "data", "unknown-logical-type.parquet")
	if _, _, err := readWithArrowGo(src); err == nil {
		t.Log("arrow-go now reads the file itself: ownTest and this test may go")
	}
	dir := t.TempDir()
	st := filepath.Join(dir, "t.strata")
	got, sch := importScanned(t, src, st, testRead)
	wantTypes := []arrow.DataType{arrow.BinaryTypes.String, arrow.BinaryTypes.Binary}
	want := [][]string{
		{"known string 1", "known string 2", "known string 3"},
		{"unknown string 1", "unknown string 2", "unknown string 3"},
	}
	if sch.NumFields() != 2 || sch.Field(0).Name != "column with known type" || sch.Field(1).Name != "column with unknown type" {
		t.Fatalf("schema %s", sch)
	}
	for i := range want {
		if !arrow.TypeEqual(sch.Field(i).Type, wantTypes[i]) {
			t.Errorf("column %d: type %s, want %s", i, sch.Field(i).Type, wantTypes[i])
		}
		if err := sameStrings(columnValues(got, i), want[i]); err != nil {
			t.Errorf("import, column %q: %v", sch.Field(i).Name, err)
		}
	}

	// Strata -> Parquet, read back by arrow-go alone
	pq := filepath.Join(dir, "t.parquet")
	if err := exportFile(pq, sch, got); err != nil {
		t.Fatal(err)
	}
	back, backSch, err := readWithArrowGo(pq)
	if err != nil {
		t.Fatal(err)
	}
	defer release(back)
	for i := range want {
		if !arrow.TypeEqual(backSch.Field(i).Type, wantTypes[i]) {
			t.Errorf("export, column %d: type %s, want %s", i, backSch.Field(i).Type, wantTypes[i])
		}
		if err := sameStrings(columnValues(back, i), want[i]); err != nil {
			t.Errorf("export, column %q: %v", backSch.Field(i).Name, err)
		}
	}
	pf, err := file.OpenParquetFile(pq, false)
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	if lt := pf.MetaData().Schema.Column(1).LogicalType(); !lt.Equals(schema.NoLogicalType{}) {
		t.Errorf("export: the column of unknown type has logical type %s, want none", lt)
	}
}

// TestParquetPageLimit imports large_string_map.brotli.parquet, whose
// 4 KB hold two pages that each decompress to 1 GiB (a map of one string
// of 2^30 bytes per row, as its README says). interop keeps arrow-go's
// limit of 256 MiB a page, which a page cut at the writers' usual 1 MiB
// never nears: the error must name the page's size, the limit and how to
// raise it. A file of 10 KB pages shows that ParquetMaxPageBytes sets the
// limit both ways.
func TestParquetPageLimit(t *testing.T) {
	src := filepath.Join(parquetTesting(t), "data", "large_string_map.brotli.parquet")
	err := importFile(src, filepath.Join(t.TempDir(), "t.strata"), testRead)
	if !errors.Is(err, interop.ErrPageLimit) {
		t.Fatalf("import: %v, want ErrPageLimit", err)
	}
	for _, s := range []string{"large_string_map.brotli.parquet", "uncompressed page size 1073741828", "limit 268435456", "ParquetMaxPageBytes", "--max-page-bytes"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q lacks %q", err, s)
		}
	}

	b := array.NewStringBuilder(memory.DefaultAllocator)
	for i := range 100 {
		b.Append(fmt.Sprintf("%03d%s", i, strings.Repeat("x", 97)))
	}
	col := b.NewArray()
	defer col.Release()
	sch := arrow.NewSchema([]arrow.Field{{Name: "s", Type: arrow.BinaryTypes.String}}, nil)
	rec := array.NewRecord(sch, []arrow.Array{col}, int64(col.Len()))
	defer rec.Release()
	pq := filepath.Join(t.TempDir(), "pages.parquet")
	if err := exportWith(pq, sch, []arrow.Record{rec}, interop.WriteOptions{ParquetNoDictionary: true}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		limit int64
		fails bool
	}{{4 << 10, true}, {1 << 20, false}, {0, false}} {
		err := drainWith(pq, interop.ReadOptions{ParquetMaxPageBytes: c.limit})
		if c.fails != errors.Is(err, interop.ErrPageLimit) || (!c.fails && err != nil) {
			t.Errorf("ParquetMaxPageBytes %d: %v", c.limit, err)
		}
	}
}

// drainWith reads every batch of src with opts.
func drainWith(src string, opts interop.ReadOptions) error {
	r, err := interop.Open(src, opts)
	if err != nil {
		return err
	}
	defer r.Close()
	recs, err := drain(r.Next)
	release(recs)
	return err
}
