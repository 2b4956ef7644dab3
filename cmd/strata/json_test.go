package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestJSONRoundTrip imports JSON lines and exports them again: the same
// text, row by row, including a key whose values disagree in type (kept as
// JSON text and written back as JSON, not as a quoted string), an integer
// past int64, nested objects in key order and missing keys as nulls.
func TestJSONRoundTrip(t *testing.T) {
	dir := t.TempDir()
	in := `{"id":1,"name":"a & b","tags":["p"],"geo":{"lat":1.5,"lon":2},"mixed":1,"big":1}
{"id":2,"name":null,"tags":[],"geo":{"lat":3,"lon":null},"mixed":{"k":[1,"x"]},"big":123456789012345678901234567890}
{"id":3,"name":"c","tags":null,"geo":null,"mixed":"two","big":null}
`
	src := filepath.Join(dir, "in.jsonl")
	if err := os.WriteFile(src, []byte(in), 0o644); err != nil {
		t.Fatal(err)
	}
	st := filepath.Join(dir, "t.strata")
	out := filepath.Join(dir, "out.jsonl")
	if err := run("import", []string{"--quiet", src, st}); err != nil {
		t.Fatal(err)
	}
	if err := run("export", []string{"--quiet", st, out}); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != in {
		t.Errorf("exported\n%s\nwant\n%s", got, in)
	}
}
