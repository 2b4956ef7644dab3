package strata_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestEncodingLayering holds the line between the encodings and the layers
// above them: outside encoding/, code imports package encoding (contracts,
// views) and encoding/all (the registry), never a concrete encoding, so a
// new encoding needs no edit outside its own package and encoding/all.
// The writer builds Nullable nodes around a column's present values, which
// selection never chooses, and is the one exception.
func TestEncodingLayering(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, "./...").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	allowed := map[string]bool{
		"strata/encoding/all":       true,
		"strata/encoding/calibrate": true, // measures every registered codec through the registry
	}
	exceptions := map[string]string{
		"strata/write": "strata/encoding/nullable",
	}
	checked := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		pkg := f[0]
		if pkg == "strata/encoding" || strings.HasPrefix(pkg, "strata/encoding/") {
			continue
		}
		checked++
		for _, imp := range f[1:] {
			if !strings.HasPrefix(imp, "strata/encoding/") || allowed[imp] || exceptions[pkg] == imp {
				continue
			}
			t.Errorf("%s imports the concrete encoding %s; use the interfaces of package encoding", pkg, imp)
		}
	}
	if checked == 0 {
		t.Fatal("go list found no packages outside encoding/")
	}
}
