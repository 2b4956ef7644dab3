package interop

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
)

// readCSVText writes text to a file named name, reads it with ro and
// returns the column names and every value printed (null as "∅"), row by
// row.
func readCSVText(t *testing.T, name, text string, ro ReadOptions) ([]string, [][]string, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Open(path, ro)
	if err != nil {
		return nil, nil, err
	}
	defer r.Close()
	var names []string
	for _, f := range r.Schema().Fields() {
		names = append(names, f.Name)
	}
	var rows [][]string
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, nil, err
		}
		for i := range int(rec.NumRows()) {
			var row []string
			for c := range int(rec.NumCols()) {
				col := rec.Column(c)
				if col.IsNull(i) {
					row = append(row, "∅")
					continue
				}
				row = append(row, col.(interface{ ValueStr(int) string }).ValueStr(i))
			}
			rows = append(rows, row)
		}
		rec.Release()
	}
	return names, rows, nil
}

// TestCSVSniffSeparator checks the separator sniffed from a CSV file's
// first records against the one it was written with, on the serial and
// the parallel reader: semicolons, tabs and bars in a .csv file, and the
// cases where a comma must stay the separator (one column, text holding
// other candidates, a sample cut inside a quoted field).
func TestCSVSniffSeparator(t *testing.T) {
	long := strings.Repeat("x\n", sniffBytes/2) // line breaks inside quotes
	cases := []struct {
		name, text string
		want       [][]string
	}{
		{"semicolon", "a;b;c\n1;2,5;x\n3;4,0;y\n", [][]string{{"1", "2,5", "x"}, {"3", "4,0", "y"}}},
		{"tab", "a\tb\n1\tp,q\n2\tr\n", [][]string{{"1", "p,q"}, {"2", "r"}}},
		{"bar", "a|b\n1|x;y\n2|z\n", [][]string{{"1", "x;y"}, {"2", "z"}}},
		{"comma", "a,b\n1,\"x;y;z\"\n2,\"u;v;w\"\n", [][]string{{"1", "x;y;z"}, {"2", "u;v;w"}}},
		// semicolons split every record alike, but a comma parses: it wins
		{"comma first", "a;x,b;y\n1;p,2;q\n3;r,4;s\n", [][]string{{"1;p", "2;q"}, {"3;r", "4;s"}}},
		{"one column", "a\nx;y\nu;v\n", [][]string{{"x;y"}, {"u;v"}}},
		{"header only", "a;b;c\n", nil},
		// the 64 KiB sample ends inside a quoted field of the third record
		{"cut in quotes", "a;b\n1;2\n3;\"" + long + "\"\n5;6\n", [][]string{{"1", "2"}, {"3", long}, {"5", "6"}}},
	}
	for _, c := range cases {
		for _, par := range []bool{false, true} {
			_, rows, err := readCSVText(t, "t.csv", c.text, ReadOptions{Parallel: par})
			if err != nil {
				t.Errorf("%s, parallel %v: %v", c.name, par, err)
				continue
			}
			if fmt.Sprint(rows) != fmt.Sprint(c.want) {
				t.Errorf("%s, parallel %v: read %q, want %q", c.name, par, rows, c.want)
			}
		}
	}
}

// TestCSVDialectOptions checks ReadOptions.CSVComma (given, and refused
// when it cannot separate fields) and ReadOptions.CSVNulls, which must
// make a column of numbers with "NA" in it numeric.
func TestCSVDialectOptions(t *testing.T) {
	names, rows, err := readCSVText(t, "t.txt.csv", "a:b\n1:x,y\n", ReadOptions{CSVComma: ':'})
	if err != nil || fmt.Sprint(names) != "[a b]" || fmt.Sprint(rows) != "[[1 x,y]]" {
		t.Errorf("CSVComma ':': %v %q %v", names, rows, err)
	}
	for _, bad := range []rune{'"', '\n', '\r', 0xFFFD} {
		if _, _, err := readCSVText(t, "t.csv", "a,b\n1,2\n", ReadOptions{CSVComma: bad}); err == nil {
			t.Errorf("CSVComma %q accepted", bad)
		}
	}
	text := "n,s\n1,a\nNA,\\N\n-2.5,c\n"
	for _, par := range []bool{false, true} {
		r, err := func() (RecordReader, error) {
			path := filepath.Join(t.TempDir(), "n.csv")
			if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			return Open(path, ReadOptions{Parallel: par, CSVNulls: []string{"NA", `\N`}})
		}()
		if err != nil {
			t.Fatal(err)
		}
		rec, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		n, ok := rec.Column(0).(*array.Float64)
		if !ok {
			t.Fatalf("parallel %v: column n is %v, want float64", par, rec.Column(0).DataType())
		}
		s := rec.Column(1).(*array.String)
		if n.Value(0) != 1 || !n.IsNull(1) || n.Value(2) != -2.5 || s.Value(0) != "a" || !s.IsNull(1) || s.Value(2) != "c" {
			t.Errorf("parallel %v: read %v %v", par, n, s)
		}
		rec.Release()
		r.Close()
	}
	// without the option "NA" is text and the column a string one
	_, rows, err = readCSVText(t, "n.csv", text, ReadOptions{})
	if err != nil || rows[1][0] != "NA" || rows[1][1] != `\N` {
		t.Errorf("default nulls: %q %v", rows, err)
	}
}

// TestCSVDecimalComma checks ReadOptions.CSVDecimalComma: numbers with a
// decimal comma infer and read as float64 on both readers, a value that
// also holds a point stays text, and a later value that does not parse
// fails naming itself.
func TestCSVDecimalComma(t *testing.T) {
	text := "a;b;c\n1;2,5;1.234,5\n3;-4;7\n5;1e3;0,5\n"
	for _, par := range []bool{false, true} {
		names, rows, err := readCSVText(t, "d.csv", text, ReadOptions{Parallel: par, CSVDecimalComma: true})
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(names) != "[a b c]" || fmt.Sprint(rows) != "[[1 2.5 1.234,5] [3 -4 7] [5 1000 0,5]]" {
			t.Errorf("parallel %v: %v %q", par, names, rows)
		}
		path := filepath.Join(t.TempDir(), "d.csv")
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := Open(path, ReadOptions{Parallel: par, CSVDecimalComma: true})
		if err != nil {
			t.Fatal(err)
		}
		if typ := r.Schema().Field(1).Type.String(); typ != "float64" {
			t.Errorf("parallel %v: b is %s", par, typ)
		}
		r.Close()
	}
	// without the option the column is text
	if _, rows, err := readCSVText(t, "d.csv", text, ReadOptions{}); err != nil || rows[0][1] != "2,5" {
		t.Errorf("no decimal comma: %q %v", rows, err)
	}
	// a value past the inferred sample that is no number
	bad := "x\n1,5\n2,5\n3,5x\n"
	for _, par := range []bool{false, true} {
		_, _, err := readCSVText(t, "bad.csv", bad, ReadOptions{Parallel: par, CSVDecimalComma: true, CSVInferRows: 2, CSVComma: ';'})
		if err == nil || !strings.Contains(err.Error(), "3,5x") {
			t.Errorf("parallel %v: %v", par, err)
		}
	}
}
