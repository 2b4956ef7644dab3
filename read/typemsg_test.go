package read_test

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"strata/filter"
	"strata/interop"
	"strata/read"
)

// TestTypeErrorsNameTypes: refusals name the column's type, not its
// storage or its name in place of the type. A decimal(38,10) imported from
// Parquet (a fixed-size binary there, 16-byte binary in Strata) is a
// decimal(38,10) in filters and aggregates, not "binary";
// sum and avg of a date or a timestamp name the type and the column.
func TestTypeErrorsNameTypes(t *testing.T) {
	mem := memory.DefaultAllocator
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "dec", Type: &arrow.Decimal128Type{Precision: 38, Scale: 10}, Nullable: true},
		{Name: "day", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
		{Name: "when", Type: &arrow.TimestampType{Unit: arrow.Microsecond}, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(mem, sch)
	defer b.Release()
	for i := range 3 {
		b.Field(0).(*array.Decimal128Builder).Append(decimal128.FromI64(int64(i) * 15_000_000_000))
		b.Field(1).(*array.Date32Builder).Append(arrow.Date32(18000 + i))
		b.Field(2).(*array.TimestampBuilder).Append(arrow.Timestamp(1_600_000_000_000_000 + int64(i)))
		b.Field(3).(*array.StringBuilder).Append("x")
	}
	rec := b.NewRecord()
	defer rec.Release()

	// The Parquet file, and the Strata file imported from it.
	pq := filepath.Join(t.TempDir(), "dec.parquet")
	out, err := os.Create(pq)
	if err != nil {
		t.Fatal(err)
	}
	tbl := array.NewTableFromRecords(sch, []arrow.Record{rec})
	defer tbl.Release()
	// WriteTable closes out.
	if err := pqarrow.WriteTable(tbl, out, 1024, parquet.NewWriterProperties(), pqarrow.DefaultWriterProps()); err != nil {
		t.Fatal(err)
	}
	rr, err := interop.Open(pq, interop.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Close()
	if dt, ok := rr.Schema().Field(0).Type.(*arrow.Decimal128Type); !ok || dt.Precision != 38 || dt.Scale != 10 {
		t.Fatalf("dec imported as %v", rr.Schema().Field(0).Type)
	}
	imported, err := rr.Next()
	if err != nil {
		t.Fatal(err)
	}
	defer imported.Release()
	if _, err := rr.Next(); err != io.EOF {
		t.Fatalf("a second batch: %v", err)
	}
	f := aggFile(t, imported)

	scanErr := func(where string) error {
		sc, err := f.Scan(read.ScanOptions{Where: where})
		if err != nil {
			return err
		}
		defer sc.Close()
		for {
			r, err := sc.Next()
			if err != nil {
				if err == io.EOF {
					return nil
				}
				return err
			}
			r.Release()
		}
	}
	for _, where := range []string{"dec = '1.5'", "dec LIKE '1%'"} {
		err := scanErr(where)
		if err == nil || !strings.Contains(err.Error(), "dec is a decimal(38,10)") || strings.Contains(err.Error(), "binary") {
			t.Errorf("--where %q: %v, want a refusal naming decimal(38,10)", where, err)
		}
	}
	for _, where := range []string{"dec IS NOT NULL", "dec > 0", "dec = 1.5", "dec BETWEEN 0 AND 2"} {
		if err := scanErr(where); err != nil {
			t.Errorf("%s: %v", where, err)
		}
	}

	for _, c := range []struct{ agg, frag string }{
		{"sum(day)", "cannot sum date32 values (column day)"},
		{"avg(day)", "cannot average date32 values (column day)"},
		{"sum(when)", "cannot sum timestamp[us] values (column when)"},
		{"avg(when)", "cannot average timestamp[us] values (column when)"},
		{"sum(s)", "cannot sum utf8 values (column s)"},
	} {
		_, _, err := f.AggregateContext(context.Background(), c.agg, read.AggregateOptions{})
		if err == nil || !strings.Contains(err.Error(), c.frag) || strings.Contains(err.Error(), "binary") {
			t.Errorf("%s: %v, want %q", c.agg, err, c.frag)
		}
	}
	// The decimal(38,10) holds 0, 1.5 and 3.
	if a, _, err := f.Aggregate("count(dec), min(dec), max(dec), sum(dec)", "dec > 0"); err != nil || a[0].I != 2 ||
		a[1].Text != "1.5000000000" || a[2].Text != "3.0000000000" || a[3].Text != "4.5000000000" {
		t.Errorf("count, min, max, sum of dec > 0 = %v, %v", a, err)
	}
}

// TestFilterOnNestedColumn: a filter naming a struct, list or map column
// (which filters cannot compare) says what the column is, and for a
// struct names its fields, instead of calling an existing column unknown.
// A name the file lacks is still ErrUnknownColumn.
func TestFilterOnNestedColumn(t *testing.T) {
	st := arrow.StructOf(arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Int32, Nullable: true})
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "st", Type: st, Nullable: true},
		{Name: "l", Type: arrow.ListOf(arrow.PrimitiveTypes.Int64), Nullable: true},
		{Name: "m", Type: arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64), Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	defer b.Release()
	b.Field(0).(*array.StructBuilder).Append(true)
	b.Field(0).(*array.StructBuilder).FieldBuilder(0).(*array.Int32Builder).Append(1)
	b.Field(1).(*array.ListBuilder).Append(true)
	b.Field(1).(*array.ListBuilder).ValueBuilder().(*array.Int64Builder).Append(2)
	b.Field(2).(*array.MapBuilder).AppendNull()
	rec := b.NewRecord()
	defer rec.Release()
	f := aggFile(t, rec)
	for _, c := range []struct{ where, want string }{
		{"st IS NULL", `st is a struct<x:int32?>: filters compare primitive columns, fields of structs and the values of FlatMap keys (did you mean "st.x"?)`},
		{"st.x = 1 OR st = 1", `at column 13: st is a struct<x:int32?>`},
		{"l IS NOT NULL", `l is a list<int64?>: filters compare primitive columns, fields of structs and the values of FlatMap keys (values inside lists and maps cannot be filtered yet)`},
		{"m IS NULL", `m is a map<string,int64?>`},
	} {
		_, err := f.Scan(read.ScanOptions{Where: c.where})
		var be *filter.BindError
		if err == nil || !strings.Contains(err.Error(), c.want) || errors.Is(err, read.ErrUnknownColumn) || !errors.As(err, &be) {
			t.Errorf("%q: %v, want a filter error holding %q", c.where, err, c.want)
		}
		if _, _, err2 := f.Aggregate("count(*)", c.where); err2 == nil || err == nil || err2.Error() != err.Error() {
			t.Errorf("%q: aggregate: %v, want the scan's error", c.where, err2)
		}
	}
	if _, err := f.Scan(read.ScanOptions{Where: "st.y = 1"}); !errors.Is(err, read.ErrUnknownColumn) {
		t.Errorf("a missing field: %v, want ErrUnknownColumn", err)
	}
}
