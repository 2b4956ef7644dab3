package interop

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
)

// hexExact are hexadecimal floats a float64 holds exactly, with the float
// each is; hexRounded are ones a float64 rounds (more significant bits
// than 53, or below the least subnormal), with the float it rounds them
// to.
var (
	hexExact = map[string]float64{
		"0x1.8p1": 3, "-0x1p-1074": -5e-324, "0x1.fffffffffffffp1023": math.MaxFloat64,
		"0x1p-1022": 0x1p-1022, "0X1.0P+0": 1, "0x_1p0": 1, "0x1_0p-4": 1, "0x.8p1": 1,
		"0x1.p0": 1, "-0x0p0": math.Copysign(0, -1), "0x0.000p99": 0, "0x1.5555555555555p-2": 0x1.5555555555555p-2,
		"+0x3.ap-3": 0.453125, "0x0.0000000000001p-1022": 5e-324, "0x1p1_0": 1024,
		"0x0000000000000000000001.000000000000000000000p0": 1,
	}
	hexRounded = map[string]float64{
		"0x1.fffffffffffff8p0": 2, "0x1.00000000000001p0": 1, "0x1.00000000000008p0": 1,
		"-0x1.00000000000018p0": -0x1.0000000000002p0, "0x1p-1075": 0, "0x1.8p-1074": 1e-323,
		"0x1.0000000000000000000000000001p0": 1, "0x3.fffffffffffffcp-2": 1,
	}
)

// TestFloatExactHex: floatExact holds a hexadecimal float when its
// float64 is its value exactly and not when a float64 rounds it; before,
// every hexadecimal float counted as held, and 0x1.fffffffffffff8p0 was
// stored as 2.
func TestFloatExactHex(t *testing.T) {
	for v := range hexExact {
		if !floatExact(v) {
			t.Errorf("floatExact(%q) = false, want true", v)
		}
	}
	for v := range hexRounded {
		if floatExact(v) {
			t.Errorf("floatExact(%q) = true, want false", v)
		}
	}
	// an exponent past float64's range either way, and one past a
	// billion (taken as a billion)
	for _, v := range []string{"0x1p1024", "-0x1p99999999999", "0x1p-99999999999"} {
		if floatExact(v) {
			t.Errorf("floatExact(%q) = true, want false", v)
		}
	}
	if !floatExact("0x0p-99999999999") {
		t.Errorf("floatExact(0x0p-99999999999) = false, want true")
	}
}

// TestCSVHexFloats reads CSV columns of hexadecimal floats as decimal
// text is read. Every record inferred: a column of hexadecimal floats a
// float64 holds is float64, each value the float its text is (bit for
// bit, -0 too); one a float64 would round keeps the column text, every
// value as written. Types from a sample (the first two records, or a
// schema given as sampled from several files, CSVSchemaSampled): each
// exact one reads as its float, and each rounded one fails the read
// naming its line and column, with the hint to infer from every record.
// A type given (not sampled) takes any float, as for decimal text. Before,
// a float64 column took every hexadecimal float and stored the rounded
// ones as their float (0x1.fffffffffffff8p0 as 2) in every case. Serial
// and parallel reads.
func TestCSVHexFloats(t *testing.T) {
	var exact []string
	for v := range hexExact {
		exact = append(exact, v)
	}
	slices.Sort(exact)
	sameFloats := func(what string, got []string, vals []string, want map[string]float64) {
		t.Helper()
		if len(got) != len(vals) {
			t.Fatalf("%s: %d values, want %d", what, len(got), len(vals))
		}
		for i, v := range vals {
			w, ok := want[v]
			if !ok {
				w, _ = strconv.ParseFloat(v, 64)
			}
			g, err := strconv.ParseFloat(got[i], 64)
			if err != nil || math.Float64bits(g) != math.Float64bits(w) {
				t.Errorf("%s: row %d, %s, read as %s, want %v", what, i, v, got[i], w)
			}
		}
	}
	floatSchema := arrow.NewSchema([]arrow.Field{{Name: "a", Type: arrow.PrimitiveTypes.Float64, Nullable: true}, {Name: "b", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	file := func(vals []string) string {
		return writeTemp(t, "a,b\n"+strings.Join(vals, ",x\n")+",x\n")
	}
	for _, par := range []bool{false, true} {
		base := ReadOptions{Parallel: par, Threads: 2, BatchRows: 3}

		// every record inferred
		ro := base
		ro.CSVInferRows = -1
		typ, got, err := firstColumn(t, file(exact), ro)
		if err != nil || typ.ID() != arrow.FLOAT64 {
			t.Fatalf("exact, inferred from every record, parallel %v: %v, %v", par, typ, err)
		}
		sameFloats(fmt.Sprintf("exact, inferred from every record, parallel %v", par), got, exact, hexExact)
		for v := range hexRounded {
			vals := append([]string{"1.5"}, exact...)
			vals = append(vals, v)
			typ, got, err := firstColumn(t, file(vals), ro)
			if err != nil || typ.ID() != arrow.STRING || fmt.Sprint(got) != fmt.Sprint(vals) {
				t.Errorf("%s, inferred from every record, parallel %v: %v %q, %v; want text, every value as written", v, par, typ, got, err)
			}
		}

		// types from a sample
		sampled := []ReadOptions{base, base}
		sampled[0].CSVInferRows = 2
		sampled[1].CSVSchema, sampled[1].CSVSchemaSampled = floatSchema, true
		for k, ro := range sampled {
			what := fmt.Sprintf("sampled (%d), parallel %v", k, par)
			vals := append([]string{"1.5", "2.25"}, exact...)
			typ, got, err := firstColumn(t, file(vals), ro)
			if err != nil || typ.ID() != arrow.FLOAT64 {
				t.Fatalf("exact, %s: %v, %v", what, typ, err)
			}
			sameFloats("exact, "+what, got, vals, hexExact)
			for v := range hexRounded {
				vals := []string{"1.5", "2.25", "0x1.8p1", v, "3"}
				_, got, err := firstColumn(t, file(vals), ro)
				want := fmt.Sprintf(`line 5, column "a": %q does not parse as float64`, v)
				if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "would round") || !strings.Contains(err.Error(), "--infer-rows -1") {
					t.Errorf("%s, %s: rows %q, error %v; want an error naming %s", v, what, got, err, want)
				}
			}
		}

		// a type given takes any float, as decimal text
		ro = base
		ro.CSVSchema = floatSchema
		var rounded []string
		for v := range hexRounded {
			rounded = append(rounded, v)
		}
		slices.Sort(rounded)
		vals := append(append([]string{}, exact...), rounded...)
		typ, got, err = firstColumn(t, file(vals), ro)
		if err != nil || typ.ID() != arrow.FLOAT64 {
			t.Fatalf("given, parallel %v: %v, %v", par, typ, err)
		}
		both := map[string]float64{}
		for v, f := range hexExact {
			both[v] = f
		}
		for v, f := range hexRounded {
			both[v] = f
		}
		sameFloats(fmt.Sprintf("given, parallel %v", par), got, vals, both)
	}
}
