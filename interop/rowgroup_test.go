package interop_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"

	"strata/interop"
)

// TestParquetRowGroupLimits checks that an export ends its Parquet row
// groups at the row limit and near the byte limit (after the record that
// crosses it), so that the writer never holds a whole table, and that
// the rows come back value by value across the groups.
func TestParquetRowGroupLimits(t *testing.T) {
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	var recs []arrow.Record
	for b := range 20 {
		bld := array.NewRecordBuilder(memory.DefaultAllocator, sch)
		for i := b * 1000; i < (b+1)*1000; i++ {
			bld.Field(0).(*array.Int64Builder).Append(int64(i) * 7919 % 100003)
			if i%11 == 0 {
				bld.Field(1).AppendNull()
			} else {
				x := uint64(i+1) * 0x9E3779B97F4A7C15
				x ^= x >> 29
				x *= 0xBF58476D1CE4E5B9
				bld.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("%d:%x", i, x^x>>32))
			}
		}
		recs = append(recs, bld.NewRecord())
		bld.Release()
	}
	defer release(recs)
	// a group may pass the limit by the record that crosses it and by the
	// pages pending when it ends (a sixteenth of the limit per column)
	const slack = 1000*70 + 2*(64<<10)/16
	for _, c := range []struct {
		name        string
		opts        interop.WriteOptions
		rowsAtMost  int64
		bytesAtMost int64
		groupsAtLst int
	}{
		{"rows", interop.WriteOptions{ParquetRowGroupRows: 3000}, 3000, 1 << 40, 7},
		{"bytes", interop.WriteOptions{ParquetRowGroupBytes: 64 << 10}, 1 << 40, 64<<10 + slack, 4},
		{"defaults", interop.WriteOptions{}, 20000, 1 << 40, 1},
	} {
		path := filepath.Join(t.TempDir(), c.name+".parquet")
		if err := exportWith(path, sch, recs, c.opts); err != nil {
			t.Fatal(err)
		}
		pf, err := file.OpenParquetFile(path, false)
		if err != nil {
			t.Fatal(err)
		}
		md := pf.MetaData()
		if md.NumRowGroups() < c.groupsAtLst {
			t.Errorf("%s: %d row groups, want at least %d", c.name, md.NumRowGroups(), c.groupsAtLst)
		}
		for g := range md.NumRowGroups() {
			rg := md.RowGroup(g)
			if rg.NumRows() > c.rowsAtMost || rg.TotalCompressedSize() > c.bytesAtMost {
				t.Errorf("%s: row group %d has %d rows and %d bytes, limits %d and %d", c.name, g, rg.NumRows(), rg.TotalCompressedSize(), c.rowsAtMost, c.bytesAtMost)
			}
		}
		pf.Close()
		got, gotSch := readAll(t, path, interop.ReadOptions{})
		if err := compareTables(recs, sch, got, gotSch); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
		release(got)
		os.Remove(path)
	}
}
