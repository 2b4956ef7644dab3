package interop

import (
	"math"
	"strings"
	"testing"
)

// TestDecimalPartsLongExponent checks that an exponent of ten or more
// digits is read as past every decimal's and float's range on every
// platform: on a 32-bit int, exp*10 of a nine-digit exponent wrapped, so
// 1e4294967296 read as 1 and 1e5000000000 as 10^-1539607552.
func TestDecimalPartsLongExponent(t *testing.T) {
	for _, c := range []struct {
		v   string
		neg bool // the exponent's sign
	}{
		{v: "1e4294967296"},
		{v: "1e4294967297"},
		{v: "1e5000000000"},
		{v: "1e999999999"},
		{v: "1e9999999999"},
		{v: "1e99999999999999999999"},
		{v: "1e-4294967296", neg: true},
		{v: "1e-5000000000", neg: true},
		{v: "2.5e-99999999999999999999", neg: true},
	} {
		_, digits, exp, ok := decimalParts(nil, c.v)
		if !ok || len(digits) == 0 {
			t.Errorf("decimalParts(%q): digits %q, ok %v", c.v, digits, ok)
			continue
		}
		if !c.neg && exp < 999999999 || c.neg && exp > -999999999 {
			t.Errorf("decimalParts(%q): exponent %d, want past ±999999999", c.v, exp)
		}
		// what a 32-bit int holds, so the 64-bit run shows the wrap too
		if exp > math.MaxInt32 || exp < -math.MaxInt32 {
			t.Errorf("decimalParts(%q): exponent %d is past a 32-bit int", c.v, exp)
		}
		_, _, err := exactUnscaled(c.v, 38, 2)
		want := "more digits than"
		if c.neg {
			want = "rounded"
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("exactUnscaled(%q, 38, 2): %v; want an error of %s", c.v, err, want)
		}
	}
}
