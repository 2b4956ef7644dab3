package specreader_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestIndependent holds the second reader to its premise: its packages
// import nothing of the Strata module (only the format document stands
// between them and the Go reader), whatever their tests use as an oracle.
func TestIndependent(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "./...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, p := range strings.Fields(string(out)) {
		if (p == "strata" || strings.HasPrefix(p, "strata/")) && p != "strata/specreader" && !strings.HasPrefix(p, "strata/specreader/") {
			t.Errorf("the second reader depends on %s", p)
		}
	}
}
