package main

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata"
)

// writeStrata writes rec to a Strata file at path.
func writeStrata(t *testing.T, path string, rec arrow.Record) {
	t.Helper()
	w, err := strata.Create(path, rec.Schema(), nil)
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

// aggTypesTable writes a file of three rows whose every column holds its
// least value in row 0 and its greatest in row 2 (the float column's is
// NaN, which orders above every number), the text columns an empty value
// and "0" among them.
func aggTypesTable(t *testing.T, path string) {
	t.Helper()
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "bin", Type: arrow.BinaryTypes.Binary, Nullable: true},
		{Name: "b", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
		{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond}, Nullable: true},
		{Name: "tz", Type: &arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "UTC"}, Nullable: true},
		{Name: "d", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
		{Name: "dec", Type: &arrow.Decimal128Type{Precision: 9, Scale: 2}, Nullable: true},
		{Name: "tm", Type: arrow.FixedWidthTypes.Time32ms, Nullable: true},
		{Name: "dur", Type: arrow.FixedWidthTypes.Duration_s, Nullable: true},
		{Name: "u", Type: arrow.PrimitiveTypes.Uint32, Nullable: true},
		{Name: "i8", Type: arrow.PrimitiveTypes.Int8, Nullable: true},
		{Name: "f", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "n", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	defer b.Release()
	b.Field(0).(*array.StringBuilder).AppendValues([]string{"", "0", "b"}, nil)
	b.Field(1).(*array.BinaryBuilder).AppendValues([][]byte{{}, []byte("0"), []byte("x")}, nil)
	b.Field(2).(*array.BooleanBuilder).AppendValues([]bool{false, false, true}, nil)
	h := int64(3600 * 1e6)
	b.Field(3).(*array.TimestampBuilder).AppendValues([]arrow.Timestamp{arrow.Timestamp(473352 * h), arrow.Timestamp(473353 * h), arrow.Timestamp(473354 * h)}, nil)
	b.Field(4).(*array.TimestampBuilder).AppendValues([]arrow.Timestamp{1704103200000, 1704103200500, 1704106800000}, nil)
	b.Field(5).(*array.Date32Builder).AppendValues([]arrow.Date32{19723, 19724, 19800}, nil)
	b.Field(6).(*array.Decimal128Builder).AppendValues([]decimal128.Num{decimal128.FromI64(-250), decimal128.FromI64(5), decimal128.FromI64(1999)}, nil)
	b.Field(7).(*array.Time32Builder).AppendValues([]arrow.Time32{0, 1000, 45296789}, nil)
	b.Field(8).(*array.DurationBuilder).AppendValues([]arrow.Duration{-5, 60, 5400}, nil)
	b.Field(9).(*array.Uint32Builder).AppendValues([]uint32{0, 7, math.MaxUint32}, nil)
	b.Field(10).(*array.Int8Builder).AppendValues([]int8{-128, 0, 127}, nil)
	b.Field(11).(*array.Float64Builder).AppendValues([]float64{-1.5, 2, math.NaN()}, nil)
	b.Field(12).AppendNulls(3)
	rec := b.NewRecord()
	defer rec.Release()
	writeStrata(t, path, rec)
}

// TestAggPrintsAsCat aggregates every type of column: each min and max
// prints, in every output format, as cat prints the row holding it (an
// empty string is not 0, a bool is true or false, an instant without a
// zone is written without one), and a few results are checked as text.
func TestAggPrintsAsCat(t *testing.T) {
	path := filepath.Join(t.TempDir(), "types.strata")
	aggTypesTable(t, path)
	// value returns the one value a command printed in a format
	value := func(format, out string) string {
		t.Helper()
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		switch format {
		case "":
			_, v, ok := strings.Cut(lines[0], " = ")
			if !ok || len(lines) != 1 {
				t.Fatalf("agg printed %q", out)
			}
			return v
		case "table":
			if len(lines) != 3 {
				t.Fatalf("%q: want a header, a rule and a row", out)
			}
			return lines[2]
		case "csv":
			if len(lines) != 2 {
				t.Fatalf("%q: want a header and a row", out)
			}
			return lines[1]
		}
		// {"name":value}
		if len(lines) != 1 || !strings.HasPrefix(lines[0], "{") || !strings.HasSuffix(lines[0], "}") {
			t.Fatalf("%q: want one JSON object", out)
		}
		_, v, _ := strings.Cut(lines[0][1:len(lines[0])-1], `":`)
		return v
	}
	for _, col := range []string{"s", "bin", "b", "ts", "tz", "d", "dec", "tm", "dur", "u", "i8", "f", "n"} {
		for fn, row := range map[string]string{"min": "0", "max": "2"} {
			for _, format := range []string{"", "table", "csv", "json"} {
				agg := fn + "(" + col + ")"
				args := []string{path, agg}
				catFormat := format
				if format == "" {
					catFormat = "table"
				} else {
					args = append(args, "--format", format)
				}
				got, stderr, err := capture(t, "agg", args...)
				if err != nil {
					t.Fatalf("agg %s --format %q: %v\n%s", agg, format, err, stderr)
				}
				want, stderr, err := capture(t, "cat", path, "--columns", col, "--offset", row, "--limit", "1", "--format", catFormat)
				if err != nil {
					t.Fatalf("cat %s: %v\n%s", col, err, stderr)
				}
				if g, w := value(format, got), value(catFormat, want); g != w {
					t.Errorf("agg %s --format %q printed %q, cat prints %q", agg, format, g, w)
				}
			}
		}
	}
	for _, c := range []struct {
		aggs   string
		format string
		want   string
	}{
		{"min(s), max(s)", "", "min(s) = \nmax(s) = b\n"},
		{"min(s), max(s)", "json", `{"min(s)":"","max(s)":"b"}` + "\n"},
		{"min(s), max(s)", "csv", "min(s),max(s)\n\"\",b\n"}, // an empty string, not null
		{"min(b), max(b)", "", "min(b) = false\nmax(b) = true\n"},
		{"min(b), max(b)", "json", `{"min(b)":false,"max(b)":true}` + "\n"},
		{"min(ts)", "csv", "min(ts)\n2024-01-01 00:00:00\n"},
		{"min(n), count(n), count(*)", "json", `{"min(n)":null,"count(n)":0,"count(*)":3}` + "\n"},
		{"sum(dec), avg(dec), sum(dur), sum(u)", "", "sum(dec) = 17.54\navg(dec) = 5.846666666666667\nsum(dur) = 1h30m55s\nsum(u) = 4294967302\n"},
		{"max(f), min(f), sum(f)", "json", `{"max(f)":null,"min(f)":-1.5,"sum(f)":null}` + "\n"},
		{"max(f)", "", "max(f) = NaN\n"},
	} {
		args := []string{path, c.aggs}
		if c.format != "" {
			args = append(args, "--format", c.format)
		}
		got, stderr, err := capture(t, "agg", args...)
		if err != nil {
			t.Fatalf("agg %q: %v\n%s", c.aggs, err, stderr)
		}
		if got != c.want {
			t.Errorf("agg %q --format %q:\n%q\nwant\n%q", c.aggs, c.format, got, c.want)
		}
	}
}

// TestAggQuotedPathType checks that an aggregate of a struct field prints
// as its own type beside a top-level column of the same dotted name: the
// value of max("a"."b") is the string field's, not an integer read from
// the column "a.b", and the two results are named apart.
func TestAggQuotedPathType(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "amb.jsonl")
	if err := os.WriteFile(src, []byte("{\"a\":{\"b\":\"x\"},\"a.b\":2}\n{\"a\":{\"b\":\"y\"},\"a.b\":6}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "amb.strata")
	if _, stderr, err := capture(t, "import", "--quiet", src, out); err != nil {
		t.Fatalf("import: %v\n%s", err, stderr)
	}
	got, stderr, err := capture(t, "agg", out, `max("a"."b"), max("a.b"), sum("a.b")`)
	if err != nil {
		t.Fatalf("agg: %v\n%s", err, stderr)
	}
	// (each result is named so that it can be written back: the field
	// quoted part by part, the column "a.b" as one name)
	if want := "max(\"a\".\"b\") = y\nmax(\"a.b\") = 6\nsum(\"a.b\") = 8\n"; got != want {
		t.Errorf("agg printed\n%s\nwant\n%s", got, want)
	}
}
