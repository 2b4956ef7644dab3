package tsbs

import (
	"strings"
	"testing"
	"time"
)

// TestTooManyHosts: a count of hosts past MaxHosts is refused before the
// generator allocates a slot per host.
func TestTooManyHosts(t *testing.T) {
	for _, tm := range []bool{false, true} {
		if _, err := New(Options{Hosts: 1 << 40, TimeMajor: tm}); err == nil || !strings.Contains(err.Error(), "at most") {
			t.Errorf("time-major %v: %v, want an error", tm, err)
		}
	}
	if g, err := New(Options{Hosts: 3, Duration: time.Minute}); err != nil || g.Rows() != 18 {
		t.Fatalf("3 hosts for a minute: %v, %v", g, err)
	}
}
