package interop

import (
	"fmt"
	"strings"
	"testing"
)

// TestCSVValueErrorLine checks that a value past the inference sample
// that does not parse as its column's type is an error naming its line
// and column, on the serial reader as on the parallel one: with and
// without a header, after a byte order mark, a record spanning lines and
// CRLF line breaks, for a number and a date (which the readers parse
// apart).
func TestCSVValueErrorLine(t *testing.T) {
	for _, c := range []struct {
		name, head, bad string
		header          bool
		wantCol         string
	}{
		{"int", "n,d,s\n", "x1,2024-01-01,z", true, `column "n": "x1" does not parse as int64`},
		{"date", "n,d,s\n", "1,2024-02-30,z", true, `column "d": "2024-02-30" does not parse as date32`},
		{"no header", "", "x1,2024-01-01,z", false, `column "f0": "x1" does not parse as int64`},
		{"bom", "\xef\xbb\xbfn,d,s\n", "x1,2024-01-01,z", true, `column "n": "x1" does not parse as int64`},
		{"quoted", "n,d,s\n", "1,\"2024-01-01\r\n\",z", true, `column "d": "2024-01-01\r\n" does not parse as date32`},
	} {
		var b strings.Builder
		b.WriteString(c.head)
		line := strings.Count(c.head, "\n") + 1
		for i := range 30 {
			// a record of two lines, CRLF inside and after
			fmt.Fprintf(&b, "%d,2024-01-%02d,\"two\r\nlines\"\r\n", i, 1+i%28)
			line += 2
		}
		b.WriteString(c.bad + "\n3,2024-01-01,z\n")
		for _, parallel := range []bool{false, true} {
			ro := ReadOptions{CSVInferRows: 10, BatchRows: 7, CSVNoHeader: !c.header, Parallel: parallel, Threads: 2}
			_, _, err := readCSVText(t, "bad.csv", b.String(), ro)
			want := fmt.Sprintf("line %d, %s", line, c.wantCol)
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s, parallel %v: error %v, want one naming %s", c.name, parallel, err, want)
			}
		}
	}
}

// TestCSVLoneCRLineBreaks checks that a file whose lines break at a lone
// \r (classic Mac OS) is an error, not a table of one header line of
// run-together names and no rows, while a \r inside quotes, in a later
// line or ending the file reads as before, value by value.
func TestCSVLoneCRLineBreaks(t *testing.T) {
	for _, parallel := range []bool{false, true} {
		ro := ReadOptions{Parallel: parallel, Threads: 2}
		for _, text := range []string{"a,b\r1,2\r3,4\r", "a\rb", "\"a\",b\r1,2\r"} {
			names, rows, err := readCSVText(t, "mac.csv", text, ro)
			if err == nil || !strings.Contains(err.Error(), `line 1 breaks at a lone \r`) {
				t.Errorf("parallel %v, %q: columns %q, rows %q, error %v; want the lone \\r refused", parallel, text, names, rows, err)
			}
		}
		for _, c := range []struct {
			text  string
			names []string
			rows  [][]string
		}{
			{"a,\"x\ry\"\r\n1,2\r\n", []string{"a", "x\ry"}, [][]string{{"1", "2"}}},
			{"a,b\r\n1,x\ry\n", []string{"a", "b"}, [][]string{{"1", "x\ry"}}},
			{"a,b\r", []string{"a", "b"}, nil},
			{"a,b\n1,2\r", []string{"a", "b"}, [][]string{{"1", "2"}}},
		} {
			names, rows, err := readCSVText(t, "ok.csv", c.text, ro)
			if err != nil {
				t.Fatalf("parallel %v, %q: %v", parallel, c.text, err)
			}
			if fmt.Sprintf("%q", names) != fmt.Sprintf("%q", c.names) || fmt.Sprintf("%q", rows) != fmt.Sprintf("%q", c.rows) {
				t.Errorf("parallel %v, %q: columns %q, rows %q; want %q, %q", parallel, c.text, names, rows, c.names, c.rows)
			}
		}
	}
}
