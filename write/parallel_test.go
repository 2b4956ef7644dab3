package write

import (
	"math"
	"testing"
)

// TestEncodersBound: a stripe starts at most one encoding goroutine per
// stream whatever Options.Parallel says (Parallel 10⁸ started that many
// goroutines per stripe and ran out of memory), and at least one.
func TestEncodersBound(t *testing.T) {
	for _, c := range []struct{ parallel, streams, want int }{
		{1, 10, 1}, {4, 10, 4}, {10, 10, 10}, {11, 10, 10},
		{100_000_000, 21, 21}, {math.MaxInt, 3, 3}, {8, 0, 1},
	} {
		if got := encoders(c.parallel, c.streams); got != c.want {
			t.Errorf("encoders(%d, %d) = %d, want %d", c.parallel, c.streams, got, c.want)
		}
	}
}
