package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/mattn/go-runewidth"
)

// TestInspectColumnNames inspects columns named with a tab, a newline,
// accents and wide characters: each name is one line, a name with control
// characters a quoted Go string literal as in a table (tableText), and the type after it starts in the same terminal
// column on every line (a raw tab or newline broke the table, and names
// were padded by bytes, not by the columns they take).
func TestInspectColumnNames(t *testing.T) {
	path := filepath.Join(t.TempDir(), "names.strata")
	names := []string{"plain", "t\tab", "two\nlines", "ünïcödé", "日本語"}
	fields := make([]arrow.Field, len(names))
	for i, n := range names {
		fields[i] = arrow.Field{Name: n, Type: arrow.PrimitiveTypes.Int64}
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema(fields, nil))
	defer b.Release()
	for i := range names {
		b.Field(i).(*array.Int64Builder).Append(int64(i))
	}
	rec := b.NewRecord()
	defer rec.Release()
	writeStrata(t, path, rec)
	out, stderr, err := capture(t, "inspect", path)
	if err != nil {
		t.Fatalf("inspect: %v\n%s", err, stderr)
	}
	want := map[string]bool{"plain": true, `"t\tab"`: true, `"two\nlines"`: true, "ünïcödé": true, "日本語": true}
	for _, line := range strings.Split(out, "\n") {
		at := strings.Index(line, "int64")
		if at < 0 {
			continue
		}
		name := strings.TrimRight(line[:at], " ")
		if !want[name] {
			t.Errorf("line %q: name %q is not one of the escaped names", line, name)
		}
		delete(want, name)
		if w := runewidth.StringWidth(line[:at]); w != 25 {
			t.Errorf("line %q: type at terminal column %d, want 25", line, w)
		}
	}
	if len(want) > 0 {
		t.Errorf("names not printed %v in\n%s", want, out)
	}
}
