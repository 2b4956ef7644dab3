package encoding

import (
	"math"
	"strconv"
	"testing"
)

// DecimalDigits agrees with the printed length at every power of ten and its
// neighbours, at every power of two and its neighbours, and up to 2^64-1.
func TestNumDigits(t *testing.T) {
	var vs []uint64
	for p := uint64(1); ; p *= 10 {
		vs = append(vs, p-1, p, p+1)
		if p > math.MaxUint64/10 {
			break
		}
	}
	for b := 0; b < 64; b++ {
		p := uint64(1) << b
		vs = append(vs, p-1, p, p+1)
	}
	vs = append(vs, 0, math.MaxUint64, math.MaxUint64-1)
	for _, v := range vs {
		if got, want := DecimalDigits(v), len(strconv.FormatUint(v, 10)); got != want {
			t.Errorf("DecimalDigits(%d) = %d, want %d", v, got, want)
		}
	}
}
