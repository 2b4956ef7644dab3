package main

import (
	"os"
	"path/filepath"
	"strings"
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

// TestJSONOutputAsExport prints tables imported from JSON with cat, scan
// and take --format json: the same lines as the JSON-lines export, a key
// of mixed types (stored as JSON text) written as JSON values, not as
// strings of their text, at the top level and as list elements. NaN and
// the infinities, which JSON cannot write, are null in every command's
// JSON output, agg's included.
func TestJSONOutputAsExport(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ name, in, where string }{
		{"mixed.json", `[{"a":1},{"a":2.5},{"a":"x"},{"a":null},{"a":{"b":[1,"y"]}}]`, "a IS NOT NULL OR a IS NULL"},
		{"list.jsonl", `{"a":[1,"x",null,{"b":2},[3]],"n":1}` + "\n" + `{"a":null,"n":2}` + "\n", "n > 0"},
	} {
		src := filepath.Join(dir, c.name)
		if err := os.WriteFile(src, []byte(c.in), 0o644); err != nil {
			t.Fatal(err)
		}
		st := filepath.Join(dir, c.name+".strata")
		out := filepath.Join(dir, c.name+".out.jsonl")
		if _, stderr, err := capture(t, "import", "--quiet", src, st); err != nil {
			t.Fatalf("import: %v\n%s", err, stderr)
		}
		if _, stderr, err := capture(t, "export", "--quiet", st, out); err != nil {
			t.Fatalf("export: %v\n%s", err, stderr)
		}
		export, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(export), `"1"`) || strings.Contains(string(export), `\"`) {
			t.Fatalf("export wrote JSON values as strings:\n%s", export)
		}
		for _, args := range [][]string{
			{"cat", st},
			{"scan", st, "--where", c.where},
			{"take", st, "0", "1"},
		} {
			got, stderr, err := capture(t, args[0], append(args[1:], "--format", "json")...)
			if err != nil {
				t.Fatalf("%v: %v\n%s", args, err, stderr)
			}
			want := string(export)
			if args[0] == "take" {
				want = strings.Join(strings.SplitAfter(want, "\n")[:2], "")
			}
			if got != want {
				t.Errorf("%v --format json:\n%s\nwant, as export writes:\n%s", args, got, want)
			}
		}
	}

	src := filepath.Join(dir, "n.csv")
	if err := os.WriteFile(src, []byte("f\n1e308\nNaN\ninf\n-inf\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	st := filepath.Join(dir, "n.strata")
	if _, stderr, err := capture(t, "import", "--quiet", src, st); err != nil {
		t.Fatalf("import: %v\n%s", err, stderr)
	}
	const want = "{\"f\":1e+308}\n{\"f\":null}\n{\"f\":null}\n{\"f\":null}\n"
	for _, args := range [][]string{
		{"cat", st},
		{"scan", st, "--where", "f IS NOT NULL"},
		{"take", st, "0", "1", "2", "3"},
	} {
		got, stderr, err := capture(t, args[0], append(args[1:], "--format", "json")...)
		if err != nil || got != want {
			t.Errorf("%v --format json: %v\n%s\nwant\n%s%s", args, err, got, want, stderr)
		}
	}
	got, stderr, err := capture(t, "agg", st, "min(f), max(f)", "--format", "json")
	if w := "{\"min(f)\":null,\"max(f)\":null}\n"; err != nil || got != w {
		t.Errorf("agg --format json: %v\n%s\nwant\n%s%s", err, got, w, stderr)
	}
}
