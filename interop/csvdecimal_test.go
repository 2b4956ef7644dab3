package interop

import (
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// decimalTestRecord is a table of decimal(38,2), decimal(38,38) and
// decimal(20,4) columns: each column's widest values (so that the text
// has its precision's digits), negatives, zero, small values a float64
// would hold, and nulls.
func decimalTestRecord(t *testing.T, rows int) arrow.Record {
	t.Helper()
	types := []*arrow.Decimal128Type{{Precision: 38, Scale: 2}, {Precision: 38, Scale: 38}, {Precision: 20, Scale: 4}}
	fields := make([]arrow.Field, len(types))
	for i, dt := range types {
		fields[i] = arrow.Field{Name: fmt.Sprintf("d%d_%d", dt.Precision, dt.Scale), Type: dt, Nullable: true}
	}
	sch := arrow.NewSchema(fields, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	defer b.Release()
	rng := rand.New(rand.NewPCG(7, 38))
	for k, dt := range types {
		maxv := new(big.Int).Sub(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(dt.Precision)), nil), big.NewInt(1))
		fixed := []*big.Int{maxv, new(big.Int).Neg(maxv), big.NewInt(0), big.NewInt(1), big.NewInt(-150), big.NewInt(123456)}
		db := b.Field(k).(*array.Decimal128Builder)
		for i := range rows {
			switch {
			case i%11 == 7:
				db.AppendNull()
			case i < len(fixed):
				db.Append(decimal128.FromBigInt(fixed[i]))
			default:
				// random digits, of any length up to the precision
				digits := make([]byte, 1+rng.IntN(int(dt.Precision)))
				for j := range digits {
					digits[j] = byte('0' + rng.IntN(10))
				}
				v, _ := new(big.Int).SetString(string(digits), 10)
				if rng.IntN(2) == 0 {
					v.Neg(v)
				}
				db.Append(decimal128.FromBigInt(v))
			}
		}
	}
	return b.NewRecord()
}

// firstColumn reads path and returns its first column's type and
// values as text: decimals exactly at their scale (DecimalText), floats
// in their shortest form, nulls as ∅.
func firstColumn(t *testing.T, path string, ro ReadOptions) (arrow.DataType, []string, error) {
	t.Helper()
	r, err := Open(path, ro)
	if err != nil {
		return nil, nil, err
	}
	defer r.Close()
	var out []string
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return r.Schema().Field(0).Type, out, nil
		}
		if err != nil {
			return r.Schema().Field(0).Type, out, err
		}
		col := rec.Column(0)
		for i := range col.Len() {
			if col.IsNull(i) {
				out = append(out, "∅")
				continue
			}
			if s, ok := DecimalText(col, i); ok {
				out = append(out, s)
				continue
			}
			switch a := col.(type) {
			case *array.Float64:
				out = append(out, strconv.FormatFloat(a.Value(i), 'g', -1, 64))
			case *array.String:
				out = append(out, a.Value(i))
			default:
				out = append(out, col.ValueStr(i))
			}
		}
		rec.Release()
	}
}

// decimalStrings is every value of a decimal128 column as its exact text
// at the column's scale, "null" for nulls.
func decimalStrings(a arrow.Array) []string {
	d := a.(*array.Decimal128)
	scale := d.DataType().(*arrow.Decimal128Type).Scale
	out := make([]string, d.Len())
	for i := range out {
		if d.IsNull(i) {
			out[i] = "null"
			continue
		}
		out[i] = d.Value(i).ToString(scale)
	}
	return out
}

// readAllRecords reads every batch of path, returning the schema and
// each column's values concatenated (decimal128 columns compared as
// arrow's decimal values, by decimalNums).
func readAllRecords(t *testing.T, path string, ro ReadOptions) (*arrow.Schema, [][]decimal128.Num, [][]bool, error) {
	t.Helper()
	r, err := Open(path, ro)
	if err != nil {
		return nil, nil, nil, err
	}
	defer r.Close()
	sch := r.Schema()
	vals := make([][]decimal128.Num, sch.NumFields())
	valid := make([][]bool, sch.NumFields())
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return sch, vals, valid, nil
		}
		if err != nil {
			return sch, nil, nil, err
		}
		for c, col := range rec.Columns() {
			d, ok := col.(*array.Decimal128)
			if !ok {
				continue
			}
			for i := range d.Len() {
				vals[c] = append(vals[c], d.Value(i))
				valid[c] = append(valid[c], d.IsValid(i))
			}
		}
		rec.Release()
	}
}

// writeTable writes rec to path with interop's writer for its extension.
func writeTable(t *testing.T, path string, rec arrow.Record) {
	t.Helper()
	s, err := Create(path, rec.Schema(), WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestCSVDecimalRoundTrip: decimal(38,2), decimal(38,38) and decimal(20,4)
// columns, written to Parquet, exported from it to CSV with interop's
// writer and imported again, come back as the same types with the same
// values, compared as arrow's decimal128 values (they were float64, 1e+36
// for 999999999999999999999999999999999999.99 and 1 for
// 0.99999999999999999999999999999999999999); serial and parallel reads,
// small batches, and inference from the first records only and from all.
func TestCSVDecimalRoundTrip(t *testing.T) {
	rec := decimalTestRecord(t, 3000)
	defer rec.Release()
	dir := t.TempDir()
	pq := filepath.Join(dir, "dec.parquet")
	writeTable(t, pq, rec)
	r, err := Open(pq, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	csvPath := filepath.Join(dir, "dec.csv")
	s, err := Create(csvPath, r.Schema(), WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Copy(s, r); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	r.Close()
	text, _ := os.ReadFile(csvPath)
	for _, v := range []string{"999999999999999999999999999999999999.99", "-0.99999999999999999999999999999999999999", "9999999999999999.9999", "0.00000000000000000000000000000000000001"} {
		if !strings.Contains(string(text), v+",") && !strings.Contains(string(text), v+"\n") {
			t.Fatalf("export lacks %s", v)
		}
	}
	checkDecimalsRead(t, csvPath, rec, []ReadOptions{{}, {Parallel: true, Threads: 2, BatchRows: 500}, {BatchRows: 333, CSVInferRows: 10}, {CSVInferRows: -1}})
}

// TestCSVOrdinaryFloatsStayFloat64: columns of ordinary floats infer
// float64 as before and read as strconv.ParseFloat reads them: sensor
// readings, Python's repr and Go's shortest forms of random floats
// (0.30000000000000004, 17 significant digits), the same in fixed
// notation, trailing zeros (1.10), exponents, the extremes of float64,
// NaN and infinities, integers a float64 holds (2^60 beside 1.5), and
// 15-digit decimals.
func TestCSVOrdinaryFloatsStayFloat64(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var repr, fixed []string
	for range 2000 {
		f := rng.NormFloat64() * math.Pow(10, float64(rng.IntN(30)-15))
		repr = append(repr, strconv.FormatFloat(f, 'g', -1, 64))
		fixed = append(fixed, strconv.FormatFloat(f, 'f', -1, 64))
	}
	cases := map[string][]string{
		"sensor":     {"21.5", "-3.25", "1013.25", "0.001", "99.99", "12.30", "1.10", "0"},
		"repr":       append([]string{"0.30000000000000004", "0.1", "2.220446049250313e-16", "1.7976931348623157e+308", "5e-324", "-0.0"}, repr...),
		"fixed":      fixed,
		"exponents":  {"6.02e23", "1E-5", "-2.5e+10", "1e308", "4.9406564584124654e-324"},
		"nonfinite":  {"1.5", "NaN", "Inf", "-Inf", "+Inf", "2.25"},
		"wideint":    {"1.5", "1152921504606846976"},
		"fifteen":    {"123456789.012345", "0.123456789012345", "-99999999999999.9"},
		"percent17g": {"0.10000000000000001", "0.29999999999999999", "3.1415926535897931", "1e+100", "-2.2250738585072014e-308"},
		"numpy":      {"1.000000000000000056e-01", "2.999999999999999889e-01", "-3.141592653589793116e+00", "0.000000000000000000e+00"},
		"subnormal":  {"2.2250738585072014e-308", "4.9406564584124654e-324", "5e-324"},
		"exactfloat": {"0.1000000000000000055511151231257827021181583404541015625"},
	}
	for name, vals := range cases {
		text := "a\n" + strings.Join(vals, "\n") + "\n"
		for _, par := range []bool{false, true} {
			path := filepath.Join(t.TempDir(), name+".csv")
			if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			typ, got, err := firstColumn(t, path, ReadOptions{Parallel: par, CSVInferRows: -1})
			if err != nil {
				t.Fatalf("%s, parallel %v: %v", name, par, err)
			}
			if typ.ID() != arrow.FLOAT64 {
				t.Errorf("%s, parallel %v: column of %s, want float64", name, par, typ)
				continue
			}
			for i, v := range vals {
				f, _ := strconv.ParseFloat(v, 64)
				if g, _ := strconv.ParseFloat(got[i], 64); g != f && !(math.IsNaN(f) && math.IsNaN(g)) {
					t.Errorf("%s, parallel %v: %s read as %s", name, par, v, got[i])
				}
			}
		}
	}
	// and beyond the sample, read as floats too
	path := filepath.Join(t.TempDir(), "late.csv")
	if err := os.WriteFile(path, []byte("a\n1.5\n2.5\n"+strings.Join(repr, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, par := range []bool{false, true} {
		if typ, _, err := firstColumn(t, path, ReadOptions{Parallel: par, CSVInferRows: 2, BatchRows: 100}); err != nil || typ.ID() != arrow.FLOAT64 {
			t.Errorf("repr floats past the sample, parallel %v: %v %v", par, typ, err)
		}
	}
}

// TestCSVDecimalInference: what makes a column decimal128, and of which
// precision and scale, and what keeps it text: a value with more digits
// than a float64 holds among plain decimals is decimal128 (precision the
// most integer digits plus the most fraction digits, scale the most
// fraction digits: trailing zeros count); past 38 digits, with an
// exponent, or beside an integer past int64 the column is text, never
// float64; an integer a float64 rounds beside floats stays text as
// before, but a decimal column holds it; with a decimal comma too.
func TestCSVDecimalInference(t *testing.T) {
	cases := []struct {
		vals []string
		want string
		ro   ReadOptions
	}{
		{vals: []string{"999999999999999999999999999999999999.99", "1.00", "-5.10"}, want: "decimal(38, 2)"},
		{vals: []string{"0.99999999999999999999999999999999999999", "0.5"}, want: "decimal(38, 38)"},
		{vals: []string{"-0.99999999999999999999999999999999999999"}, want: "decimal(38, 38)"},
		{vals: []string{"1.5", "3.14159265358979323846"}, want: "decimal(21, 20)"},
		{vals: []string{"12345678901234567.5", "2", "-7"}, want: "decimal(18, 1)"},
		{vals: []string{"1.1000000000000000000", "22"}, want: "float64"}, // the number 1.1, as its float is written
		{vals: []string{"0.1000000000000000001", "22"}, want: "decimal(21, 19)"},
		{vals: []string{"0.12345678901234567890", "12345678901234567"}, want: "decimal(37, 20)"},
		{vals: []string{"+1.00000000000000000001", "NULL", ""}, want: "decimal(21, 20)"},
		{vals: []string{"1.2345678901234567890123456789012345678901"}, want: "utf8"},      // 41 digits
		{vals: []string{"99999999999999999999999999999.5", "0.0000000001"}, want: "utf8"}, // 29 + 10 digits
		{vals: []string{"1.23456789012345678901e5"}, want: "utf8"},
		{vals: []string{"0.12345678901234567890", "1e5"}, want: "utf8"},
		{vals: []string{"1e-400"}, want: "utf8"}, // a float64 would make it 0
		{vals: []string{"0.12345678901234567890", "99999999999999999999"}, want: "utf8"},
		{vals: []string{"1.5", "12345678901234567"}, want: "utf8"},
		{vals: []string{"0.12345678901234567890", "007"}, want: "utf8"},
		{vals: []string{"0.12345678901234567890", "x"}, want: "utf8"},
		{vals: []string{"0,12345678901234567890", "2,5"}, want: "decimal(21, 20)", ro: ReadOptions{CSVDecimalComma: true, CSVComma: ';'}},
	}
	for _, c := range cases {
		text := "a;b\n"
		for _, v := range c.vals {
			text += v + ";x\n"
		}
		for _, par := range []bool{false, true} {
			ro := c.ro
			ro.Parallel = par
			ro.CSVComma = ';'
			got, rows, err := firstColumn(t, writeTemp(t, text), ro)
			if err != nil {
				t.Errorf("%q, parallel %v: %v", c.vals, par, err)
				continue
			}
			if got.String() != c.want {
				t.Errorf("%q, parallel %v: %s, want %s", c.vals, par, got, c.want)
				continue
			}
			if dt, ok := got.(*arrow.Decimal128Type); ok {
				// every value as it was written, as a number
				for i, v := range c.vals {
					if isCSVNull(v, csvNulls) {
						continue
					}
					v = decimalPoint(v)
					if !sameDecimal(rows[i], v) {
						t.Errorf("%q as %s: row %d is %s", c.vals, dt, i, rows[i])
					}
				}
			}
		}
	}
}

// sameDecimal reports whether a and b are the same number.
func sameDecimal(a, b string) bool {
	x, ok1 := new(big.Rat).SetString(a)
	y, ok2 := new(big.Rat).SetString(b)
	return ok1 && ok2 && x.Cmp(y) == 0
}

func writeTemp(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "t.csv")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestCSVDecimalLaterRows: a value past the inference sample is neither
// rounded nor truncated: in a decimal128 column one with more digits
// after the point than the scale (arrow-go's reader would round 1.235 to
// 1.24) or more before it than the precision leaves fails the read naming
// its line and column, as one with trailing zeros past the scale or fewer
// digits reads exactly; in a float64 column one a float64 would round
// fails the same way. A decimal type given (CSVSchema) is held as
// exactly. Serial and parallel reads.
func TestCSVDecimalLaterRows(t *testing.T) {
	head := "a,b\n0.12345678901234567890,x\n1.5,y\n"
	cases := []struct {
		name, text, err string
		ro              ReadOptions
		want            []string
	}{
		{name: "fits", text: head + "3,z\n-0.1000000000000000000000,z\n", want: []string{"0.12345678901234567890", "1.50000000000000000000", "3.00000000000000000000", "-0.10000000000000000000"}},
		{name: "more fraction", text: head + "2.5,z\n0.123456789012345678901,z\n", err: `line 5, column "a": "0.123456789012345678901" does not parse as decimal(21, 20)`},
		{name: "more integer", text: head + "2.5,z\n12.5,z\n", err: `line 5, column "a": "12.5" does not parse as decimal(21, 20)`},
		{name: "exponent", text: head + "1e-30,z\n", err: `line 4, column "a": "1e-30" does not parse`},
		{name: "float", text: "a,b\n1.5,x\n2.25,y\n3,z\n999999999999999999999999999999999999.99,z\n", err: `line 5, column "a": "999999999999999999999999999999999999.99" does not parse as float64`},
		{name: "float underflow", text: "a,b\n1.5,x\n2.25,y\n1e-400,z\n", err: `line 4, column "a": "1e-400" does not parse as float64`},
		{name: "float wide integer", text: "a,b\n1.5,x\n2.25,y\n12345678901234567,z\n", err: `line 4, column "a": "12345678901234567" does not parse as float64`},
		{name: "given", text: "a,b\n1.23,x\n1.235,y\n", ro: ReadOptions{CSVSchema: arrow.NewSchema([]arrow.Field{{Name: "a", Type: &arrow.Decimal128Type{Precision: 10, Scale: 2}, Nullable: true}, {Name: "b", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)},
			err: `line 3, column "a": "1.235" does not parse as decimal(10, 2)`},
		{name: "given fits", text: "a,b\n1.23,x\n-1.2,y\n1.2300,z\n12345678.9e0,z\n", ro: ReadOptions{CSVSchema: arrow.NewSchema([]arrow.Field{{Name: "a", Type: &arrow.Decimal128Type{Precision: 10, Scale: 2}, Nullable: true}, {Name: "b", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)},
			want: []string{"1.23", "-1.20", "1.23", "12345678.90"}},
	}
	for _, c := range cases {
		for _, par := range []bool{false, true} {
			ro := c.ro
			ro.Parallel, ro.Threads, ro.BatchRows = par, 2, 1
			if ro.CSVSchema == nil {
				ro.CSVInferRows = 2
			}
			_, got, err := firstColumn(t, writeTemp(t, c.text), ro)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Errorf("%s, parallel %v: rows %q, error %v; want an error naming %s", c.name, par, got, err, c.err)
				}
				continue
			}
			if err != nil {
				t.Errorf("%s, parallel %v: %v", c.name, par, err)
				continue
			}
			if fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Errorf("%s, parallel %v: %q, want %q", c.name, par, got, c.want)
			}
		}
	}
}

// TestCSVDecimalMerge: the inference of several files merged (strata
// import of many CSV files) keeps a column decimal when one file's sample
// needs it, with the most digits of all; a file of exponents makes it
// text.
func TestCSVDecimalMerge(t *testing.T) {
	infer := func(text string) CSVInference {
		r, err := Open(writeTemp(t, text), ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		inf, ok := InferredCSV(r)
		if !ok {
			t.Fatal("no inference")
		}
		return inf
	}
	a := infer("a\n0.12345678901234567890\n")
	b := infer("a\n123.5\n")
	c := infer("a\n1e5\n")
	m, err := a.Merge(b)
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Schema().Field(0).Type.String(); got != "decimal(23, 20)" {
		t.Errorf("merged: %s, want decimal(23, 20)", got)
	}
	if got := b.MergeByName(a).Schema().Field(0).Type.String(); got != "decimal(23, 20)" {
		t.Errorf("merged by name: %s, want decimal(23, 20)", got)
	}
	if got := b.MergeByName(c).Schema().Field(0).Type.String(); got != "float64" {
		t.Errorf("floats merged: %s, want float64", got)
	}
	m, _ = m.Merge(c)
	if got := m.Schema().Field(0).Type.String(); got != "utf8" {
		t.Errorf("merged with an exponent: %s, want utf8", got)
	}
}

// TestFloatExact checks floatExact and exactUnscaled on their edges.
func TestFloatExact(t *testing.T) {
	for v, want := range map[string]bool{
		"0.1": true, "1.10": true, "0.30000000000000004": true, "1e-05": true, "1e+36": true, "-0": true, "0.000": true,
		"123456789012345.6": true, "9007199254740992": true, "1152921504606846976": true, "NaN": true, "-Inf": true,
		"5e-324": true, "1.7976931348623157e308": true, "0x1.8p1": true,
		"999999999999999999999999999999999999.99": false, "0.99999999999999999999999999999999999999": false,
		"9007199254740993": false, "1e-400": false, "1e400": false, "0.1000000000000000000001": false, "3.14159265358979323846": false,
	} {
		if got := floatExact(v); got != want {
			t.Errorf("floatExact(%q) = %v, want %v", v, got, want)
		}
	}
	for _, c := range []struct {
		v          string
		prec, sc   int32
		want, fail string
	}{
		{v: "1.235", prec: 10, sc: 2, fail: "rounded"},
		{v: "1.230", prec: 10, sc: 2, want: "123"},
		{v: "-0.5", prec: 3, sc: 2, want: "-50"},
		{v: "0", prec: 1, sc: 0, want: "0"},
		{v: "123.45", prec: 4, sc: 2, fail: "more digits"},
		{v: "1e3", prec: 10, sc: 2, want: "100000"},
		{v: "1e999999999999", prec: 38, sc: 2, fail: "more digits"},
		{v: "500", prec: 5, sc: -2, want: "5"},
		{v: "550", prec: 5, sc: -2, fail: "rounded"},
		{v: "1.2.3", prec: 5, sc: 2, fail: "not a decimal"},
		{v: "", prec: 5, sc: 2, fail: "not a decimal"},
	} {
		d, neg, err := exactUnscaled(c.v, c.prec, c.sc)
		got := d
		if neg {
			got = "-" + d
		}
		if got == "" {
			got = "0"
		}
		switch {
		case c.fail != "" && (err == nil || !strings.Contains(err.Error(), c.fail)):
			t.Errorf("exactUnscaled(%q, %d, %d) = %s, %v; want an error of %s", c.v, c.prec, c.sc, got, err, c.fail)
		case c.fail == "" && (err != nil || got != c.want):
			t.Errorf("exactUnscaled(%q, %d, %d) = %s, %v; want %s", c.v, c.prec, c.sc, got, err, c.want)
		}
	}
}

// checkDecimalsRead reads path with each of ros and checks that every
// column comes back with rec's decimal128 type and values, nulls included.
func checkDecimalsRead(t *testing.T, path string, rec arrow.Record, ros []ReadOptions) {
	t.Helper()
	for _, ro := range ros {
		sch, vals, valid, err := readAllRecords(t, path, ro)
		if err != nil {
			t.Fatalf("%+v: %v", ro, err)
		}
		for c, f := range rec.Schema().Fields() {
			if !arrow.TypeEqual(sch.Field(c).Type, f.Type) {
				t.Errorf("%+v: column %s imported as %s", ro, f.Name, sch.Field(c).Type)
				continue
			}
			want := rec.Column(c).(*array.Decimal128)
			if len(vals[c]) != want.Len() {
				t.Fatalf("%+v: column %s: %d values, want %d", ro, f.Name, len(vals[c]), want.Len())
			}
			for i := range want.Len() {
				if valid[c][i] != want.IsValid(i) || want.IsValid(i) && vals[c][i] != want.Value(i) {
					t.Fatalf("%+v: column %s row %d: %v (valid %v), want %v", ro, f.Name, i, vals[c][i], valid[c][i], decimalStrings(want)[i])
				}
			}
		}
	}
}
