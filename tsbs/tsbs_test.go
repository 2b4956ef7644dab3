package tsbs

import (
	"math"
	"strings"
	"testing"
	"time"
)

// TestTooManyHosts: a count of hosts past MaxHosts is refused before the
// generator allocates a slot per host.
func TestTooManyHosts(t *testing.T) {
	for _, n := range []int{MaxHosts + 1, math.MaxInt} {
		for _, tm := range []bool{false, true} {
			if _, err := New(Options{Hosts: n, TimeMajor: tm}); err == nil || !strings.Contains(err.Error(), "at most") {
				t.Errorf("%d hosts, time-major %v: %v, want an error", n, tm, err)
			}
		}
	}
	if g, err := New(Options{Hosts: 3, Duration: time.Minute}); err != nil || g.Rows() != 18 {
		t.Fatalf("3 hosts for a minute: %v, %v", g, err)
	}
}
