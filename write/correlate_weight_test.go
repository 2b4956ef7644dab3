package write

import (
	"testing"

	"strata/encoding"
)

// A column stored relative to another is charged, per value, the weighted
// decode time of its reference's rows, which follows the optimization goal
// as selection does, unless the writer sets a share of the reference's
// bytes (positive) or no charge (negative).
func TestCorrelationRefCharge(t *testing.T) {
	r := &corrCand{sample: make([]int32, 100), size: 150, time: 110} // 1.5 bytes and 1.1 ns per value
	for _, c := range []struct {
		weight float64
		opt    encoding.Optimize
		want   float64
	}{
		{0, encoding.OptimizeBalanced, 1.1 / 16},
		{0, encoding.OptimizeSize, 0},
		{0, encoding.OptimizeSpeed, 1.1},
		{0.5, encoding.OptimizeSpeed, 0.75},
		{0.25, encoding.OptimizeSize, 0.375},
		{-1, encoding.OptimizeBalanced, 0},
	} {
		got := refCharge(c.weight, c.opt.Weight(), r)
		if d := got - c.want; d > 1e-12 || d < -1e-12 {
			t.Errorf("weight %v, %v: charge %v, want %v", c.weight, c.opt, got, c.want)
		}
	}
}
