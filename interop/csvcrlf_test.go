package interop

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// csvQuote writes v as a quoted CSV field.
func csvQuote(v string) string {
	return `"` + strings.ReplaceAll(v, `"`, `""`) + `"`
}

// readStrings reads the CSV file at path with ro and returns the values
// of column col, which must be text, in file order (null as "∅").
func readStrings(t *testing.T, path string, ro ReadOptions, col int) ([]string, error) {
	t.Helper()
	r, err := Open(path, ro)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var out []string
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		a, ok := rec.Column(col).(*array.String)
		if !ok {
			rec.Release()
			return nil, fmt.Errorf("column %d is %s, not text", col, rec.Column(col).DataType())
		}
		for i := range a.Len() {
			if a.IsNull(i) {
				out = append(out, "∅")
			} else {
				out = append(out, a.Value(i))
			}
		}
		rec.Release()
	}
}

// sameStrings reports the first value of got that is not want's.
func sameStrings(t *testing.T, what string, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("%s: value %d is %q, want %q", what, i, clipQ(got[i]), clipQ(want[i]))
		}
	}
}

// clipQ is s, cut for an error message when it is long.
func clipQ(s string) string {
	if len(s) > 80 {
		return s[:40] + fmt.Sprintf("...(%d bytes)...", len(s)) + s[len(s)-40:]
	}
	return s
}

// crlfValues are text values whose line breaks must survive CSV as they
// are: \r\n, a lone \r, \r\r\n, a quote before a line break, a line break
// first and last, and (long) breaks past the readers' buffers.
func crlfValues() []string {
	return []string{
		"a\r\nb", "c\rd", "e\nf", "\r\n", "x\r\r\ny", "q\"\r\n", "\"\r\n\"", "\r\n\r\n", "end\r", "\rstart",
		"tab\t\r\n,comma", "plain",
		strings.Repeat("long ", 20000) + "\r\n" + strings.Repeat("z", 70000) + "\r\n",
		strings.Repeat("y", 1<<20+10) + "\r\n\r\nafter",
	}
}

// TestCSVQuotedCRLF checks that a line break inside a quoted field keeps
// its bytes, \r\n included (RFC 4180: line breaks in quotes are data),
// on the serial and the parallel reader, with LF and CRLF record
// separators, several separators (one of them two bytes of UTF-8), lazy
// quotes and batches of one record and more; encoding/csv, which the
// readers parse with, reads a \r\n in quotes as \n.
func TestCSVQuotedCRLF(t *testing.T) {
	values := crlfValues()
	for _, comma := range []string{",", ";", "\t", "§"} {
		for _, sep := range []string{"\n", "\r\n"} {
			var b strings.Builder
			b.WriteString("id" + comma + "note" + comma + "after" + sep)
			for i, v := range values {
				fmt.Fprintf(&b, "%d%s%s%s%s%s", i, comma, csvQuote(v), comma, csvQuote(fmt.Sprintf("r%d\r\n", i)), sep)
			}
			path := filepath.Join(t.TempDir(), "crlf.csv")
			if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			var after []string
			for i := range values {
				after = append(after, fmt.Sprintf("r%d\r\n", i))
			}
			for _, ro := range []ReadOptions{
				{BatchRows: 1},
				{BatchRows: 3, Parallel: true, Threads: 2},
				{BatchRows: 1, Parallel: true, Threads: 3},
				{BatchRows: 5, CSVLazyQuotes: true},
			} {
				ro.CSVComma = []rune(comma)[0]
				what := fmt.Sprintf("separator %q, records ending %q, batches of %d, parallel %v, lazy quotes %v",
					comma, sep, ro.BatchRows, ro.Parallel, ro.CSVLazyQuotes)
				got, err := readStrings(t, path, ro, 1)
				if err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				sameStrings(t, what+", column note", got, values)
				got, err = readStrings(t, path, ro, 2)
				if err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				sameStrings(t, what+", column after", got, after)
			}
		}
	}
}

// TestCSVQuotedCRLFHeader checks that a column name holding \r\n in
// quotes keeps it.
func TestCSVQuotedCRLFHeader(t *testing.T) {
	for _, parallel := range []bool{false, true} {
		names, rows, err := readCSVText(t, "h.csv", "\"a\r\nb\",c\r\n1,2\r\n", ReadOptions{Parallel: parallel})
		if err != nil {
			t.Fatal(err)
		}
		if len(names) != 2 || names[0] != "a\r\nb" || names[1] != "c" {
			t.Fatalf("parallel %v: names %q, want [\"a\\r\\nb\" \"c\"]", parallel, names)
		}
		if len(rows) != 1 || rows[0][0] != "1" || rows[0][1] != "2" {
			t.Fatalf("parallel %v: rows %q", parallel, rows)
		}
	}
}

// TestCSVExportCRLFRoundTrip exports text holding \r\n and lone \r to CSV
// and reads it back, serial and parallel on both sides, in a table of
// two columns and of one (whose writer quotes empty records): every value
// comes back with its bytes.
func TestCSVExportCRLFRoundTrip(t *testing.T) {
	values := crlfValues()
	mem := memory.DefaultAllocator
	for _, ncols := range []int{1, 2} {
		fields := []arrow.Field{{Name: "note", Type: arrow.BinaryTypes.String, Nullable: true}}
		if ncols == 2 {
			fields = append(fields, arrow.Field{Name: "n", Type: arrow.PrimitiveTypes.Int64, Nullable: true})
		}
		sch := arrow.NewSchema(fields, nil)
		sb := array.NewStringBuilder(mem)
		ib := array.NewInt64Builder(mem)
		for i, v := range values {
			sb.Append(v)
			ib.Append(int64(i))
		}
		cols := []arrow.Array{sb.NewArray()}
		if ncols == 2 {
			cols = append(cols, ib.NewArray())
		}
		rec := array.NewRecord(sch, cols, int64(len(values)))
		for _, c := range cols {
			c.Release()
		}
		sb.Release()
		ib.Release()
		for _, threads := range []int{1, 3} {
			path := filepath.Join(t.TempDir(), "out.csv")
			s, err := Create(path, sch, WriteOptions{Threads: threads})
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Write(rec); err != nil {
				t.Fatal(err)
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			for _, parallel := range []bool{false, true} {
				what := fmt.Sprintf("%d columns, written on %d goroutines, read parallel %v", ncols, threads, parallel)
				got, err := readStrings(t, path, ReadOptions{Parallel: parallel, Threads: 2, BatchRows: 4}, 0)
				if err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				sameStrings(t, what, got, values)
			}
		}
		rec.Release()
	}
}

// FuzzCSVQuotedText writes arbitrary text, cut into fields at its NUL
// bytes, as quoted CSV fields of one record and reads it back on the
// serial and the parallel reader: every field must come back with its
// bytes (line breaks, quotes and separators in it included).
//
//	go test -run='^$' -fuzz=FuzzCSVQuotedText -fuzztime=30s ./interop
func FuzzCSVQuotedText(f *testing.F) {
	f.Add("a\r\nb\x00c\rd\x00\"\r\n\"")
	f.Add("\r\r\n\x00x\"\"\r\n,\x00\n\r")
	f.Fuzz(func(t *testing.T, text string) {
		fields := strings.Split(text, "\x00")
		var head, rec []string
		want := make([]string, len(fields))
		for i, v := range fields {
			head = append(head, fmt.Sprintf("c%d", i))
			rec = append(rec, csvQuote("t"+v)) // "t": never null, never a number
			want[i] = "t" + v
		}
		data := strings.Join(head, ",") + "\r\n" + strings.Join(rec, ",") + "\r\n"
		path := filepath.Join(t.TempDir(), "q.csv")
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, parallel := range []bool{false, true} {
			for i := range want {
				got, err := readStrings(t, path, ReadOptions{Parallel: parallel, Threads: 2, CSVComma: ','}, i)
				if err != nil {
					t.Fatalf("parallel %v: %v", parallel, err)
				}
				sameStrings(t, fmt.Sprintf("parallel %v, column %d", parallel, i), got, want[i:i+1])
			}
		}
	})
}
