package interop_test

import (
	"fmt"
	"io"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"strata/interop"
)

// csvText returns a CSV file of n records that exercises the record
// boundaries a parallel reader must find: quoted fields holding commas,
// escaped quotes and newlines (LF and CRLF), empty lines between records,
// CRLF line endings, nulls, dates and times of day, and no newline after
// the last record.
func csvText(n int, header bool, comma string) string {
	r := rand.New(rand.NewPCG(7, uint64(n)))
	var b strings.Builder
	if header {
		b.WriteString(strings.Join([]string{"id", "x", "note", "day", "at"}, comma) + "\n")
	}
	for i := range n {
		note := fmt.Sprintf("plain %d", i)
		switch r.IntN(6) {
		case 0:
			note = fmt.Sprintf("\"has %s a separator\"", comma)
		case 1:
			note = "\"line one\nline two\""
		case 2:
			note = "\"crlf\r\ninside, and \"\"quotes\"\"\""
		case 3:
			note = "" // null
		}
		x := fmt.Sprintf("%.3f", r.Float64()*100)
		if r.IntN(9) == 0 {
			x = "NULL"
		}
		fmt.Fprintf(&b, "%d%s%s%s%s%s2024-%02d-%02d%s%02d:%02d:%02d", i, comma, x, comma, note, comma, 1+i%12, 1+i%28, comma, i%24, i%60, (i*7)%60)
		if i == n-1 {
			break // no newline after the last record
		}
		switch r.IntN(8) {
		case 0:
			b.WriteString("\r\n")
		case 1:
			b.WriteString("\n\n") // an empty line follows
		default:
			b.WriteString("\n")
		}
	}
	return b.String()
}

// readBatches reads every batch of a CSV file.
func readBatches(t *testing.T, path string, ro interop.ReadOptions) ([]arrow.Record, *arrow.Schema, error) {
	t.Helper()
	r, err := interop.Open(path, ro)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var out []arrow.Record
	for {
		rec, err := r.Next()
		if err == io.EOF {
			return out, r.Schema(), nil
		}
		if err != nil {
			return out, r.Schema(), err
		}
		out = append(out, rec)
	}
}

// TestCSVParallelSameBatches checks that reading a CSV file on several
// goroutines gives the batches the serial reader gives, batch by batch
// and value by value, with and without a header, comma- and
// tab-separated, for batches smaller and larger than the file.
func TestCSVParallelSameBatches(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name   string
		n      int
		header bool
		comma  string
	}{
		{"header.csv", 1000, true, ","},
		{"bare.csv", 700, false, ","},
		{"tabs.tsv", 500, true, "\t"},
		{"one.csv", 1, true, ","},
	} {
		path := filepath.Join(dir, c.name)
		writeFile(t, path, csvText(c.n, c.header, c.comma))
		for k, batch := range []int{1, 7, 64, 5000} {
			ro := interop.ReadOptions{BatchRows: batch, CSVNoHeader: !c.header, CSVInferRows: 2000}
			want, wantSch, err := readBatches(t, path, ro)
			if err != nil {
				t.Fatalf("%s, batches of %d, serial: %v", c.name, batch, err)
			}
			ro.Parallel, ro.Threads = true, []int{1, 2, 3, 0}[k] // 0: GOMAXPROCS
			got, gotSch, err := readBatches(t, path, ro)
			if err != nil {
				t.Fatalf("%s, batches of %d, parallel: %v", c.name, batch, err)
			}
			if !wantSch.Equal(gotSch) {
				t.Fatalf("%s: schema %s, serial %s", c.name, gotSch, wantSch)
			}
			rows := 0
			for _, r := range want {
				rows += int(r.NumRows())
			}
			if rows != c.n {
				t.Fatalf("%s: the serial reader read %d records of %d", c.name, rows, c.n)
			}
			if len(got) != len(want) {
				t.Errorf("%s, batches of %d: %d batches, serial %d", c.name, batch, len(got), len(want))
			}
			for i := range min(len(got), len(want)) {
				if !array.RecordEqual(got[i], want[i]) {
					t.Errorf("%s, batches of %d: batch %d differs (%d rows, serial %d)", c.name, batch, i, got[i].NumRows(), want[i].NumRows())
				}
			}
			release(want)
			release(got)
		}
	}
}

// TestCSVParallelErrors checks that a malformed record in the middle of
// a file is an error naming where its piece starts, after the batches
// before it, and that closing a reader early stops its goroutines (the
// race detector and the test's end check it).
func TestCSVParallelErrors(t *testing.T) {
	dir := t.TempDir()
	text := csvText(300, true, ",")
	lines := strings.Split(text, "\n")
	// a record with one field too many, well after the first batches
	for i := 200; i < len(lines); i++ {
		if strings.Count(lines[i], "\"") == 0 && strings.HasPrefix(lines[i], "2") {
			lines[i] += ",extra"
			break
		}
	}
	path := filepath.Join(dir, "bad.csv")
	writeFile(t, path, strings.Join(lines, "\n"))
	ro := interop.ReadOptions{BatchRows: 16, CSVInferRows: 50, Parallel: true}
	got, _, err := readBatches(t, path, ro)
	defer release(got)
	if err == nil || !strings.Contains(err.Error(), "from line") {
		t.Fatalf("malformed record: %v", err)
	}
	if len(got) < 5 {
		t.Errorf("%d batches before the error, want the batches before the bad record", len(got))
	}

	good := filepath.Join(dir, "good.csv")
	writeFile(t, good, csvText(2000, true, ","))
	r, err := interop.Open(good, interop.ReadOptions{BatchRows: 10, Parallel: true})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := r.Next()
	if err != nil {
		t.Fatal(err)
	}
	rec.Release()
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestCSVInferredTypeErrors: a value past the records types were inferred
// from that does not parse as its column's type fails the read with its
// line and column named and the way out given; inferring from every record
// reads it as text; given types get no hint.
func TestCSVInferredTypeErrors(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("id,x,day\n")
	for i := range 3000 {
		fmt.Fprintf(&b, "%d,%d.5,2024-01-%02d\n", i, i, 1+i%28)
	}
	b.WriteString("3000,oops,2024-02-01\n") // line 3002
	b.WriteString("3001,7.5,2024-02-02\n")
	path := filepath.Join(dir, "late.csv")
	writeFile(t, path, b.String())
	for _, par := range []bool{true, false} {
		got, _, err := readBatches(t, path, interop.ReadOptions{BatchRows: 256, Parallel: par})
		release(got)
		if err == nil || !strings.Contains(err.Error(), "inferred from the first 1000 records") || !strings.Contains(err.Error(), "CSVInferRows = -1") {
			t.Fatalf("parallel %v: %v, want the inference hint", par, err)
		}
		if par && !strings.Contains(err.Error(), `line 3002, column "x": "oops" does not parse as float64`) {
			t.Errorf("parallel: %v, want the line and column", err)
		}
	}
	got, sch, err := readBatches(t, path, interop.ReadOptions{BatchRows: 256, Parallel: true, CSVInferRows: -1})
	defer release(got)
	if err != nil {
		t.Fatalf("every record sampled: %v", err)
	}
	if sch.Field(1).Type.ID() != arrow.STRING || sch.Field(0).Type.ID() != arrow.INT64 || sch.Field(2).Type.ID() != arrow.DATE32 {
		t.Errorf("schema %s, want x as text, id and day typed", sch)
	}
	n := 0
	for _, r := range got {
		n += int(r.NumRows())
	}
	if n != 3002 {
		t.Errorf("%d rows, want 3002", n)
	}
	// given types: the error names the place but gives no inference hint
	given := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}, {Name: "x", Type: arrow.PrimitiveTypes.Float64},
		{Name: "day", Type: arrow.BinaryTypes.String}}, nil)
	got2, _, err := readBatches(t, path, interop.ReadOptions{BatchRows: 256, Parallel: true, CSVSchema: given})
	release(got2)
	if err == nil || strings.Contains(err.Error(), "inferred") || !strings.Contains(err.Error(), "line 3002") {
		t.Errorf("given schema: %v", err)
	}
}

// TestCSVHeaderNames: a header that repeats a name or leaves one empty
// imports, the names made unique (a, a_2) and the empty one f<i>, serial
// and parallel alike.
func TestCSVHeaderNames(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.csv")
	writeFile(t, path, "a,a,,b,a_2\n1,2,3,4,5\n6,7,8,9,10\n")
	for _, par := range []bool{false, true} {
		got, sch, err := readBatches(t, path, interop.ReadOptions{Parallel: par})
		if err != nil {
			t.Fatalf("parallel %v: %v", par, err)
		}
		var names []string
		for _, f := range sch.Fields() {
			names = append(names, f.Name)
		}
		if strings.Join(names, ",") != "a,a_3,f2,b,a_2" {
			t.Errorf("parallel %v: names %v", par, names)
		}
		if len(got) != 1 || got[0].NumRows() != 2 || got[0].Column(1).(*array.Int64).Value(1) != 7 {
			t.Errorf("parallel %v: got %v", par, got)
		}
		release(got)
	}
}
