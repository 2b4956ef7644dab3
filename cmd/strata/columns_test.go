package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestSplitColumns splits --columns lists: at the commas outside double
// quotes, a doubled quote inside them one quote, spaces around names
// dropped and kept inside quotes.
func TestSplitColumns(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
		bad  bool
	}{
		{in: "", want: nil},
		{in: "a,b", want: []string{"a", "b"}},
		{in: " a , b ,", want: []string{"a", "b"}},
		{in: "s.a,t", want: []string{"s.a", "t"}},
		{in: `"a,b"`, want: []string{"a,b"}},
		{in: `"a,b",c`, want: []string{"a,b", "c"}},
		{in: ` "a,b" , c`, want: []string{"a,b", "c"}},
		{in: `"say ""hi"""`, want: []string{`say "hi"`}},
		{in: `" padded "`, want: []string{" padded "}},
		{in: `s."x,y"`, want: []string{"s.x,y"}},
		{in: `""`, want: []string{""}},
		{in: `"a,b".c`, want: []string{"a,b.c"}},
		{in: `s."x,y".z,"a"  ,b`, want: []string{"s.x,y.z", "a", "b"}},
		{in: `"a,b`, bad: true},
		{in: `"a`, bad: true},
		{in: `"a"b`, bad: true},
		{in: `x,"a"b,c`, bad: true},
		{in: `"a" b`, bad: true},
		{in: `"a" .b`, bad: true},
		{in: `"a"""b`, bad: true}, // a" then b
	} {
		got, err := splitColumns(c.in)
		if c.bad {
			if err == nil {
				t.Errorf("%q: %q, want an error", c.in, got)
			}
			continue
		}
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("%q: %q (%v), want %q", c.in, got, err, c.want)
		}
	}
	// text after a closing quote was read as part of the name ("a"b as
	// ab); the error names the item it follows
	for in, item := range map[string]string{`"a"b`: `"a"b`, `x, "a,b"c ,d`: `"a,b"c`, `"a" b`: `"a" b`, `s."t"u.v`: `s."t"u.v`} {
		_, err := splitColumns(in)
		if err == nil || !strings.HasPrefix(err.Error(), item+": text after the closing quote") {
			t.Errorf("%q: %v, want an error naming %s", in, err, item)
		}
	}
}

// TestColumnsQuoted selects columns whose names hold a comma or a quote
// with --columns in every command that takes it, as filters and aggregates
// name them: in double quotes.
func TestColumnsQuoted(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "q.csv")
	if err := os.WriteFile(src, []byte("\"a,b\",c,\"say \"\"hi\"\"\"\n1,2,3\n4,5,6\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	st := filepath.Join(dir, "q.strata")
	if _, stderr, err := capture(t, "import", "--quiet", src, st); err != nil {
		t.Fatalf("import: %v\n%s", err, stderr)
	}
	const want = "\"say \"\"hi\"\"\",\"a,b\"\n3,1\n6,4\n"
	cols := `"say ""hi""", "a,b"`
	for _, args := range [][]string{
		{"cat", st},
		{"scan", st, "--where", `"a,b" > 0`},
		{"take", st, "0", "1"},
	} {
		got, stderr, err := capture(t, args[0], append(args[1:], "--columns", cols, "--format", "csv")...)
		if err != nil || got != want {
			t.Errorf("%v --columns %s: %v\n%s\nwant\n%s%s", args, cols, err, got, want, stderr)
		}
	}
	out := filepath.Join(dir, "out.csv")
	if _, stderr, err := capture(t, "export", "--quiet", st, out, "--columns", cols); err != nil {
		t.Fatalf("export: %v\n%s", err, stderr)
	}
	if got, err := os.ReadFile(out); err != nil || string(got) != want {
		t.Errorf("export --columns %s: %v\n%s\nwant\n%s", cols, err, got, want)
	}
	if _, _, err := capture(t, "cat", st, "--columns", `"a,b`); err == nil || exitCode(err) != exitUsage {
		t.Errorf("an unclosed quote: %v (exit %d), want exit %d", err, exitCode(err), exitUsage)
	}
}
