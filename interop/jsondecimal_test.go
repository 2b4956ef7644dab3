package interop

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
)

// TestJSONDecimalRoundTrip: decimal(38,2), decimal(38,38) and
// decimal(20,4) columns exported to JSON lines with interop's writer
// (numbers written with their scale's digits) and imported again come
// back as the same types with the same values, compared as arrow's
// decimal128 values (they were float64, or JSON text); serial and
// parallel reads, inference from the first records only and from all.
func TestJSONDecimalRoundTrip(t *testing.T) {
	rec := decimalTestRecord(t, 3000)
	defer rec.Release()
	path := filepath.Join(t.TempDir(), "dec.jsonl")
	writeTable(t, path, rec)
	checkDecimalsRead(t, path, rec, []ReadOptions{{}, {Parallel: true, Threads: 2, BatchRows: 500}, {BatchRows: 333, JSONInferRows: 10}, {JSONInferRows: -1}})
}

// TestJSONDecimalInference: JSON numbers infer as CSV values do: plain
// decimals one of which has more digits than a float64 holds are
// decimal128 (precision and scale from the most digits seen), ordinary
// floats (shortest forms, %.17g, exponents) stay float64, and numbers
// a float64 would round that cannot be a decimal of at most 38 digits
// (an exponent, more digits) are a JSON column of their text (read as
// text), never float64; an integer a float64 rounds is held by a decimal
// column.
func TestJSONDecimalInference(t *testing.T) {
	cases := []struct {
		vals []string
		want string
	}{
		{[]string{"999999999999999999999999999999999999.99", "1.00", "-5.10"}, "decimal(38, 2)"},
		{[]string{"0.99999999999999999999999999999999999999", "0.5", "null"}, "decimal(38, 38)"},
		{[]string{"1", "3.14159265358979323846"}, "decimal(21, 20)"},
		{[]string{"0.12345678901234567890", "12345678901234567"}, "decimal(37, 20)"},
		{[]string{"21.5", "0.30000000000000004", "1e-05", "6.02e23", "0.10000000000000001", "1.000000000000000056e-01", "1.10", "7"}, "float64"},
		{[]string{"1.2345678901234567890123456789012345678901"}, "utf8"},
		{[]string{"0.12345678901234567890", "1e5"}, "utf8"},
		{[]string{"1.23456789012345678901e5"}, "utf8"},
		{[]string{"1e-400"}, "utf8"},
		{[]string{"1.5", "12345678901234567"}, "utf8"},
	}
	for _, c := range cases {
		var text string
		for _, v := range c.vals {
			text += `{"a":` + v + `,"b":"x"}` + "\n"
		}
		for _, par := range []bool{false, true} {
			path := filepath.Join(t.TempDir(), "d.jsonl")
			if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			typ, got, err := firstColumn(t, path, ReadOptions{Parallel: par, Threads: 2})
			if err != nil {
				t.Errorf("%q, parallel %v: %v", c.vals, par, err)
				continue
			}
			if typ.String() != c.want {
				t.Errorf("%q, parallel %v: %s, want %s", c.vals, par, typ, c.want)
				continue
			}
			if _, ok := typ.(*arrow.Decimal128Type); ok {
				for i, v := range c.vals {
					if v != "null" && !sameDecimal(got[i], v) {
						t.Errorf("%q: record %d is %s", c.vals, i+1, got[i])
					}
				}
			}
		}
	}
}

// TestJSONDecimalLaterRows: a number past the inference sample is neither
// rounded nor truncated: in a decimal128 column one with more digits after
// the point than the scale, or before it than the precision leaves, fails
// the read naming the record and the key; in a float64 column one a
// float64 would round fails the same way; one with trailing zeros past
// the scale reads exactly.
func TestJSONDecimalLaterRows(t *testing.T) {
	head := "{\"a\":0.12345678901234567890}\n{\"a\":1.5}\n"
	cases := []struct {
		name, text, err string
		want            []string
	}{
		{name: "fits", text: head + "{\"a\":3}\n{\"a\":-0.1000000000000000000000}\n{\"a\":null}\n", want: []string{"0.12345678901234567890", "1.50000000000000000000", "3.00000000000000000000", "-0.10000000000000000000", "∅"}},
		{name: "more fraction", text: head + "{\"a\":2.5}\n{\"a\":0.123456789012345678901}\n", err: `record 4, key "a": 0.123456789012345678901 is not a decimal(21, 20) value`},
		{name: "more integer", text: head + "{\"a\":12.5}\n", err: `record 3, key "a": 12.5 is not a decimal(21, 20) value`},
		{name: "not a number", text: head + "{\"a\":\"1.5\"}\n", err: `record 3, key "a": a string is not a number`},
		{name: "float", text: "{\"a\":1.5}\n{\"a\":2.25}\n{\"a\":999999999999999999999999999999999999.99}\n", err: `record 3, key "a": 999999999999999999999999999999999999.99 is a number a float64 would round`},
		{name: "float underflow", text: "{\"a\":1.5}\n{\"a\":2.25}\n{\"a\":1e-400}\n", err: `record 3, key "a": 1e-400 is a number a float64 would round`},
		{name: "float repr", text: "{\"a\":1.5}\n{\"a\":2.25}\n{\"a\":0.30000000000000004}\n{\"a\":1e300}\n", want: []string{"1.5", "2.25", "0.30000000000000004", "1e+300"}},
	}
	for _, c := range cases {
		for _, par := range []bool{false, true} {
			path := filepath.Join(t.TempDir(), "late.jsonl")
			if err := os.WriteFile(path, []byte(c.text), 0o644); err != nil {
				t.Fatal(err)
			}
			_, got, err := firstColumn(t, path, ReadOptions{Parallel: par, Threads: 2, BatchRows: 1, JSONInferRows: 2})
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Errorf("%s, parallel %v: values %q, error %v; want an error naming %s", c.name, par, got, err, c.err)
				}
				continue
			}
			if err != nil {
				t.Errorf("%s, parallel %v: %v", c.name, par, err)
				continue
			}
			if strings.Join(got, " ") != strings.Join(c.want, " ") {
				t.Errorf("%s, parallel %v: %q, want %q", c.name, par, got, c.want)
			}
		}
	}
}
