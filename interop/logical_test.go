package interop_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/extensions"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"strata/encoding"
	"strata/interop"
)

// logicalCase is one column type arrow-go may write to Parquet, with
// values (arrow-go's JSON form, nulls included).
type logicalCase struct {
	name string
	typ  arrow.DataType
	vals string
}

func logicalCases() []logicalCase {
	uuid := extensions.NewUUIDType()
	json, _ := extensions.NewJSONType(arrow.BinaryTypes.String)
	ts := func(u arrow.TimeUnit, tz string) arrow.DataType { return &arrow.TimestampType{Unit: u, TimeZone: tz} }
	cases := []logicalCase{
		{"bool", arrow.FixedWidthTypes.Boolean, `[true, null, false]`},
		{"int8", arrow.PrimitiveTypes.Int8, `[-128, null, 127]`},
		{"int16", arrow.PrimitiveTypes.Int16, `[-32768, null, 32767]`},
		{"int32", arrow.PrimitiveTypes.Int32, `[-2147483648, null, 2147483647]`},
		{"int64", arrow.PrimitiveTypes.Int64, `[-9223372036854775808, null, 9223372036854775807]`},
		{"uint8", arrow.PrimitiveTypes.Uint8, `[0, null, 255]`},
		{"uint16", arrow.PrimitiveTypes.Uint16, `[0, null, 65535]`},
		{"uint32", arrow.PrimitiveTypes.Uint32, `[0, null, 4294967295]`},
		{"uint64", arrow.PrimitiveTypes.Uint64, `[0, null, 18446744073709551615]`},
		{"float16", arrow.FixedWidthTypes.Float16, `[1.5, null, -0.25]`},
		{"float32", arrow.PrimitiveTypes.Float32, `[1.5, null, -1e30]`},
		{"float64", arrow.PrimitiveTypes.Float64, `[1.5, null, -1e300]`},
		{"string", arrow.BinaryTypes.String, `["a", null, "€𝄞"]`},
		{"large_string", arrow.BinaryTypes.LargeString, `["a", null, ""]`},
		{"binary", arrow.BinaryTypes.Binary, `["AAE=", null, ""]`},
		{"large_binary", arrow.BinaryTypes.LargeBinary, `["AAE=", null, ""]`},
		{"fixed_size_binary", &arrow.FixedSizeBinaryType{ByteWidth: 3}, `["AAEC", null, "////"]`},
		{"date32", arrow.FixedWidthTypes.Date32, `["2020-01-02", null, "1969-12-31"]`},
		{"date64", arrow.FixedWidthTypes.Date64, `["2020-01-02", null, "1969-12-31"]`},
		{"time32_s", arrow.FixedWidthTypes.Time32s, `["12:34:56", null, "00:00:00"]`},
		{"time32_ms", arrow.FixedWidthTypes.Time32ms, `["12:34:56.789", null, "00:00:00"]`},
		{"time64_us", arrow.FixedWidthTypes.Time64us, `["12:34:56.789012", null, "00:00:00"]`},
		{"time64_ns", arrow.FixedWidthTypes.Time64ns, `["12:34:56.789012345", null, "00:00:00"]`},
		{"json", json, `["{\"a\":1}", null, "[1,2]"]`},
		{"uuid", uuid, `["f1c8d5b8-8c07-4d3f-9a55-2cf1e2c7a5b1", null, "00000000-0000-0000-0000-000000000000"]`},
		{"dictionary", &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}, `["x", null, "y"]`},
		{"list", arrow.ListOf(arrow.PrimitiveTypes.Int32), `[[1, null], null, []]`},
		{"large_list", arrow.LargeListOf(arrow.PrimitiveTypes.Int32), `[[1, null], null, []]`},
		{"fixed_size_list", arrow.FixedSizeListOf(2, arrow.PrimitiveTypes.Int32), `[[1, null], null, [3, 4]]`},
		{"fixed_size_list_no_null_slot", arrow.FixedSizeListOf(2, arrow.PrimitiveTypes.Int32), `[[1, null], [5, 6], [3, 4]]`},
		{"struct", arrow.StructOf(arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int32, Nullable: true}), `[{"a": 1}, null, {"a": null}]`},
		{"map", arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64), `[[{"key": "k", "value": 1}], null, []]`},
		{"null", arrow.Null, `[null, null, null]`},
		{"duration", &arrow.DurationType{Unit: arrow.Millisecond}, `[1, null, -1]`},
		{"interval_month_day_nano", arrow.FixedWidthTypes.MonthDayNanoInterval, `[{"months": 1, "days": 2, "nanoseconds": 3}, null, {"months": 0, "days": 0, "nanoseconds": 0}]`},
	}
	for _, u := range []arrow.TimeUnit{arrow.Second, arrow.Millisecond, arrow.Microsecond, arrow.Nanosecond} {
		for _, tz := range []string{"", "UTC", "America/New_York", "+05:30"} {
			cases = append(cases, logicalCase{"timestamp_" + u.String() + "_" + tz, ts(u, tz), `[1577934245, null, -315619200]`})
		}
	}
	for _, ps := range [][2]int32{{1, 0}, {9, 2}, {10, 0}, {18, 18}, {19, 4}, {28, 10}, {38, 0}, {38, 38}} {
		cases = append(cases, logicalCase{"decimal128_" + (&arrow.Decimal128Type{Precision: ps[0], Scale: ps[1]}).String(),
			&arrow.Decimal128Type{Precision: ps[0], Scale: ps[1]}, `["0", null, "-` + strings.Repeat("0", int(ps[0]-ps[1])) + dot(ps[1]) + `"]`})
	}
	for _, ps := range [][2]int32{{20, 2}, {38, 5}, {39, 0}, {76, 10}} {
		cases = append(cases, logicalCase{"decimal256_" + (&arrow.Decimal256Type{Precision: ps[0], Scale: ps[1]}).String(),
			&arrow.Decimal256Type{Precision: ps[0], Scale: ps[1]}, `["1", null, "-2"]`})
	}
	return cases
}

func dot(scale int32) string {
	if scale == 0 {
		return ""
	}
	return "." + strings.Repeat("1", int(scale))
}

// TestLogicalTypes writes one Parquet file per column type arrow-go can
// write (with and without arrow-go's stored Arrow schema), then imports,
// exports and reads it back: the values, the Arrow types and the Parquet
// logical types come back exactly, or import fails with an error naming
// the column.
func TestLogicalTypes(t *testing.T) {
	mem := memory.DefaultAllocator
	exact, refused, unwritable := 0, 0, 0
	for _, c := range logicalCases() {
		for _, store := range []bool{false, true} {
			name := c.name
			if store {
				name += "+arrow_schema"
			}
			col := "col_" + c.name
			arr, _, err := array.FromJSON(mem, c.typ, strings.NewReader(c.vals))
			if err != nil {
				t.Fatalf("%s: values: %v", name, err)
			}
			sch := arrow.NewSchema([]arrow.Field{{Name: col, Type: c.typ, Nullable: true}}, nil)
			rec := array.NewRecord(sch, []arrow.Array{arr}, int64(arr.Len()))
			arr.Release()
			dir := t.TempDir()
			src := filepath.Join(dir, "src.parquet")
			props := pqarrow.DefaultWriterProps()
			if store {
				props = pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema())
			}
			werr := writeParquet(src, rec, props)
			rec.Release()
			if werr != nil {
				unwritable++
				t.Logf("%-40s arrow-go does not write it: %v", name, werr)
				continue
			}
			stage, err := roundTrip(src, dir)
			switch {
			case err == nil:
				exact++
				t.Logf("%-40s exact round trip", name)
			case stage == "arrow-go read":
				unwritable++
				t.Logf("%-40s arrow-go does not read back what it wrote: %v", name, err)
			case stage == "import" && strings.Contains(err.Error(), col):
				refused++
				t.Logf("%-40s refused: %v", name, err)
			default:
				t.Errorf("%s: %s: %v", name, stage, err)
			}
		}
	}
	t.Logf("%d exact, %d refused naming the column, %d not written by arrow-go", exact, refused, unwritable)
}

func writeParquet(path string, rec arrow.Record, props pqarrow.ArrowWriterProperties) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = errors.New("arrow-go panicked")
		}
	}()
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w, err := pqarrow.NewFileWriter(rec.Schema(), f, parquet.NewWriterProperties(), props)
	if err != nil {
		f.Close()
		return err
	}
	if err := w.Write(rec); err != nil {
		w.Close()
		return err
	}
	return w.Close()
}

// A schema whose field count differs from the batch's columns is an error
// on import and on export, not an index out of range.
func TestConvertRecordFieldCount(t *testing.T) {
	mem := memory.NewGoAllocator()
	b := array.NewInt64Builder(mem)
	b.AppendValues([]int64{1, 2, 3}, nil)
	col := b.NewArray()
	defer col.Release()
	one := arrow.NewSchema([]arrow.Field{{Name: "a", Type: arrow.PrimitiveTypes.Int64}}, nil)
	rec := array.NewRecord(one, []arrow.Array{col}, 3)
	defer rec.Release()
	two := arrow.NewSchema([]arrow.Field{
		{Name: "a", Type: arrow.PrimitiveTypes.Int64},
		{Name: "b", Type: arrow.PrimitiveTypes.Int64},
	}, nil)
	if _, err := interop.CoerceRecord(mem, rec, two); err == nil || !strings.Contains(err.Error(), "2 fields, batch 1 columns") {
		t.Fatalf("CoerceRecord: %v", err)
	}
	if _, err := interop.RestoreRecord(mem, rec, two); err == nil || !strings.Contains(err.Error(), "2 fields, batch 1 columns") {
		t.Fatalf("RestoreRecord: %v", err)
	}
	out, err := interop.RestoreRecord(mem, rec, one)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Release()
	if got := out.Column(0).(*array.Int64).Int64Values(); len(got) != 3 || got[0] != 1 || got[2] != 3 {
		t.Fatalf("RestoreRecord of an unchanged schema: %v", got)
	}
}

// A duration column, which arrow-go writes to no Parquet type, is refused
// before any byte is written, naming the column (nested ones by path); CSV
// and Arrow take it.
func TestExportDuration(t *testing.T) {
	dur := arrow.FixedWidthTypes.Duration_ms
	for _, c := range []struct {
		f    arrow.Field
		path string
	}{
		{arrow.Field{Name: "d", Type: dur, Nullable: true}, `"d"`},
		{arrow.Field{Name: "s", Type: arrow.StructOf(arrow.Field{Name: "x", Type: arrow.ListOf(dur)})}, `"s.x.item"`},
	} {
		sch := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int32}, c.f}, nil)
		dir := t.TempDir()
		p := filepath.Join(dir, "out.parquet")
		_, err := interop.Create(p, sch, interop.WriteOptions{})
		if err == nil || !strings.Contains(err.Error(), c.path) || !errors.Is(err, encoding.ErrUnsupported) {
			t.Errorf("%s: %v", c.path, err)
		}
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s: a refused export left %s (%v)", c.path, p, err)
		}
		for _, ext := range []string{".csv", ".arrow"} {
			s, err := interop.Create(filepath.Join(dir, "out"+ext), sch, interop.WriteOptions{})
			if err != nil {
				t.Fatalf("%s%s: %v", c.path, ext, err)
			}
			s.Close()
		}
	}
}
