package interop_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/schema"
)

// ownTest names the parquet-testing files that arrow-go cannot read by
// itself but interop can: TestParquetTesting, whose reference is
// arrow-go's reading, leaves them to the test named, which checks the
// values against another reading of the file.
var ownTest = map[string]string{
	"data/unknown-logical-type.parquet": "TestParquetUnknownLogicalType",
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
	if err := importFile(src, st, testRead); err != nil {
		t.Fatal(err)
	}
	got, sch, err := scanRestored(st)
	if err != nil {
		t.Fatal(err)
	}
	defer release(got)
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
