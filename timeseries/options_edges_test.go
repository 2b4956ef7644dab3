package timeseries

import (
	"errors"
	"math"
	"strings"
	"testing"

	"strata/read"
)

// TestBloomFPPNaN: a NaN BloomFPP is refused when the writer starts,
// naming the option, where it sized the series-path filter for 1e-6
// without a word; infinities and rates out of (0, 1) take their
// documented meaning and write a file whose rows read back.
func TestBloomFPPNaN(t *testing.T) {
	_, err := NewWriter(&strings.Builder{}, pointSchema, pointModel, &WriterOptions{BloomFPP: math.NaN()})
	if !errors.Is(err, read.ErrInvalidArgument) || !strings.Contains(err.Error(), "BloomFPP is NaN") {
		t.Errorf("BloomFPP NaN: %v, want an invalid argument naming it", err)
	}
	var pts []point
	for k := range 3 {
		for i := range 50 {
			pts = append(pts, point{k: string(rune('a' + k)), t: int64(i), v: float64(k*100 + i)})
		}
	}
	for _, fpp := range []float64{math.Inf(1), math.Inf(-1), 1e-300, 0.9, 2} {
		f := pointFile(t, pts, &WriterOptions{BloomFPP: fpp})
		samePoints(t, "BloomFPP", queryPoints(t, f, QueryOptions{}), pts)
		f.Close()
	}
}
