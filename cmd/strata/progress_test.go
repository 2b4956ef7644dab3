package main

import (
	"bytes"
	"flag"
	"strings"
	"testing"
	"time"
)

func TestProgressLines(t *testing.T) {
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	pf := addProgressFlags(fs)
	if err := fs.Parse([]string{"--progress"}); err != nil {
		t.Fatal(err)
	}
	p := newProgress("import", "rows", 1000, pf)
	var buf bytes.Buffer
	p.w, p.tty, p.lines, p.interval = &buf, false, true, 0
	p.start = time.Now().Add(-2 * time.Second)
	p.update(500)
	p.finish(1000)
	out := buf.String()
	for _, want := range []string{"import: ", " 50.0% 500/1000 rows", "rows/s", "left", "import: 1000 rows in"} {
		if !strings.Contains(out, want) {
			t.Errorf("output %q lacks %q", out, want)
		}
	}
}

func TestProgressQuietAndUnknownTotal(t *testing.T) {
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	pf := addProgressFlags(fs)
	if err := fs.Parse([]string{"--quiet", "--progress"}); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	p := newProgress("export", "rows", 10, pf)
	p.w = &buf
	p.update(5)
	p.finish(10)
	p.summary("wrote x\n")
	if buf.Len() != 0 {
		t.Errorf("--quiet printed %q", buf.String())
	}
	q := &progress{label: "gen", unit: "bytes", start: time.Now().Add(-time.Second)}
	if got := q.line(25000, time.Now()); !strings.HasPrefix(got, "gen: 25.0k bytes") || strings.Contains(got, "%") {
		t.Errorf("unknown total rendered as %q", got)
	}
}
