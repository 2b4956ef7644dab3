package interop_test

import (
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// TestHadoopLZ4Files reads parquet-testing's LZ4 files (Hadoop framing,
// bare block) and compares every value with the files of the same rows
// compressed LZ4_RAW, which arrow-go decodes itself: a reference the codec
// under test plays no part in.
func TestHadoopLZ4Files(t *testing.T) {
	dir := filepath.Join(parquetTesting(t), "data")
	for _, c := range []struct{ lz4, raw string }{
		{"hadoop_lz4_compressed.parquet", "lz4_raw_compressed.parquet"},
		{"non_hadoop_lz4_compressed.parquet", "lz4_raw_compressed.parquet"},
		{"hadoop_lz4_compressed_larger.parquet", "lz4_raw_compressed_larger.parquet"},
	} {
		got, gotSch, err := readWithArrowGo(filepath.Join(dir, c.lz4))
		if err != nil {
			t.Fatalf("%s: %v", c.lz4, err)
		}
		want, _, err := readWithArrowGo(filepath.Join(dir, c.raw))
		if err != nil {
			t.Fatalf("%s: %v", c.raw, err)
		}
		rows := 0
		for _, r := range want {
			rows += int(r.NumRows())
		}
		if rows == 0 {
			t.Fatalf("%s: no rows to compare", c.raw)
		}
		// the files' schemas differ in field ids and nullability only:
		// the values are compared under the LZ4 file's schema
		for i, r := range want {
			want[i] = array.NewRecord(gotSch, r.Columns(), r.NumRows())
			r.Release()
		}
		if err := compareTables(want, gotSch, got, gotSch); err != nil {
			t.Errorf("%s against %s: %v", c.lz4, c.raw, err)
		}
		release(got)
		release(want)
	}
}

// TestEmptyCompressedPage reads parquet-testing's file whose one data page
// (v2, snappy) holds no compressed bytes: one row, a null float.
func TestEmptyCompressedPage(t *testing.T) {
	path := filepath.Join(parquetTesting(t), "data", "datapage_v2_empty_datapage.snappy.parquet")
	recs, sch, err := readWithArrowGo(path)
	if err != nil {
		t.Fatal(err)
	}
	defer release(recs)
	if sch.NumFields() != 1 || sch.Field(0).Type.ID() != arrow.FLOAT32 {
		t.Fatalf("schema %s, want one float column", sch)
	}
	rows, nulls := 0, 0
	for _, r := range recs {
		rows += int(r.NumRows())
		nulls += r.Column(0).NullN()
	}
	if rows != 1 || nulls != 1 {
		t.Fatalf("%d rows, %d null, want 1 row, null", rows, nulls)
	}
}
