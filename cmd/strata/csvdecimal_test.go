package main

import (
	"math/big"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestCSVDecimalExportImport: a Strata table of decimal(38,2),
// decimal(38,38) and decimal(20,4) columns exported to CSV, imported again
// and printed with cat gives the same types (inspect) and the same text as
// the original table printed (it was float64: 1e+36 for
// 999999999999999999999999999999999999.99 and 1 for
// 0.99999999999999999999999999999999999999).
func TestCSVDecimalExportImport(t *testing.T) {
	dir := t.TempDir()
	types := []*arrow.Decimal128Type{{Precision: 38, Scale: 2}, {Precision: 38, Scale: 38}, {Precision: 20, Scale: 4}}
	fields := []arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}}
	for i, dt := range types {
		fields = append(fields, arrow.Field{Name: []string{"money", "frac", "mid"}[i], Type: dt, Nullable: true})
	}
	sch := arrow.NewSchema(fields, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	defer b.Release()
	for row := range 6 {
		b.Field(0).(*array.Int64Builder).Append(int64(row))
		for k, dt := range types {
			maxv := new(big.Int).Sub(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(dt.Precision)), nil), big.NewInt(1))
			db := b.Field(k + 1).(*array.Decimal128Builder)
			switch row {
			case 0:
				db.Append(decimal128.FromBigInt(maxv))
			case 1:
				db.Append(decimal128.FromBigInt(new(big.Int).Neg(maxv)))
			case 2:
				db.AppendNull()
			case 3:
				db.Append(decimal128.FromI64(0))
			case 4:
				db.Append(decimal128.FromI64(-1))
			default:
				db.Append(decimal128.FromI64(1234567))
			}
		}
	}
	rec := b.NewRecord()
	defer rec.Release()
	src := filepath.Join(dir, "dec.strata")
	writeStrata(t, src, rec)
	csvPath := filepath.Join(dir, "dec.csv")
	back := filepath.Join(dir, "back.strata")
	if _, stderr, err := capture(t, "export", "--quiet", src, csvPath); err != nil {
		t.Fatalf("export: %v\n%s", err, stderr)
	}
	if _, stderr, err := capture(t, "import", "--quiet", csvPath, back); err != nil {
		t.Fatalf("import: %v\n%s", err, stderr)
	}
	want, stderr, err := capture(t, "cat", src, "--format", "csv")
	if err != nil {
		t.Fatalf("cat: %v\n%s", err, stderr)
	}
	got, stderr, err := capture(t, "cat", back, "--format", "csv")
	if err != nil {
		t.Fatalf("cat: %v\n%s", err, stderr)
	}
	if got != want {
		t.Errorf("imported table prints\n%s\nwant\n%s", got, want)
	}
	for _, v := range []string{"999999999999999999999999999999999999.99", "-0.99999999999999999999999999999999999999", "9999999999999999.9999"} {
		if !strings.Contains(got, v) {
			t.Errorf("imported table lacks %s:\n%s", v, got)
		}
	}
	info, stderr, err := capture(t, "inspect", back)
	if err != nil {
		t.Fatalf("inspect: %v\n%s", err, stderr)
	}
	for _, ty := range []string{"decimal(38, 2)", "decimal(38, 38)", "decimal(20, 4)"} {
		if !strings.Contains(info, ty) {
			t.Errorf("inspect of the imported table lacks %s:\n%s", ty, info)
		}
	}
}
