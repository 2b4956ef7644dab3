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

// TestCSVInferenceKeepsText checks inference on values whose text a type
// would change: single letters that strconv.ParseBool reads as booleans
// (F, T, f, t), integers past int64, which as floats would be rounded
// along with every other value of the column, and integers a float64
// would round beside floats. They stay text; true and false in the
// spellings the reader parses are booleans.
func TestCSVInferenceKeepsText(t *testing.T) {
	cases := []struct{ text, want string }{
		{"s\nF\nF\nT\n", "utf8"},
		{"s\nf\nt\n", "utf8"},
		{"s\ntrue\nFALSE\nTrue\n", "bool"},
		{"s\ntrue\n0\n1\n", "bool"},
		{"s\n1\n0\n", "int64"},
		{"a\n9223372036854775807\n9223372036854775808\n", "utf8"},
		{"a\n-9223372036854775809\n", "utf8"},
		{"a\n9223372036854775807\n1.5\n", "utf8"}, // a float64 would round it
		{"a\n9007199254740992\n1.5\n", "float64"}, // 2^53: a float64 holds it
		{"a\n1e400\n", "utf8"},                    // not a float64 either
	}
	for _, c := range cases {
		for _, par := range []bool{false, true} {
			path := filepath.Join(t.TempDir(), "k.csv")
			if err := os.WriteFile(path, []byte(c.text), 0o644); err != nil {
				t.Fatal(err)
			}
			r, err := Open(path, ReadOptions{Parallel: par})
			if err != nil {
				t.Fatal(err)
			}
			if got := r.Schema().Field(0).Type.String(); got != c.want {
				t.Errorf("%q, parallel %v: %s, want %s", c.text, par, got, c.want)
			}
			r.Close()
		}
	}
	_, rows, err := readCSVText(t, "big.csv", "a\n9223372036854775807\n9223372036854775808\n", ReadOptions{})
	if err != nil || fmt.Sprint(rows) != "[[9223372036854775807] [9223372036854775808]]" {
		t.Errorf("big integers: %q %v", rows, err)
	}
}

// TestCSVLazyQuotes checks ReadOptions.CSVLazyQuotes: a quote inside an
// unquoted field is refused by default and read as text with the option.
func TestCSVLazyQuotes(t *testing.T) {
	text := "item,size\npizza,12\" large\n\"quoted \"x\" y\",2\n"
	if _, _, err := readCSVText(t, "q.csv", text, ReadOptions{}); err == nil {
		t.Error("a bare quote accepted without CSVLazyQuotes")
	}
	for _, par := range []bool{false, true} {
		_, rows, err := readCSVText(t, "q.csv", text, ReadOptions{Parallel: par, CSVLazyQuotes: true})
		if err != nil || fmt.Sprint(rows) != `[[pizza 12" large] [quoted "x" y 2]]` {
			t.Errorf("parallel %v: %q %v", par, rows, err)
		}
	}
}

// TestCSVExportEdges writes tables CSV could lose rows or names of, with
// the serial and the parallel sink: a table of no rows keeps its header,
// and in a table of one column an empty string is written "" and a null
// NULL (an empty line would be skipped when read), so every row comes
// back as it was.
func TestCSVExportEdges(t *testing.T) {
	mem := memory.DefaultAllocator
	sch := arrow.NewSchema([]arrow.Field{{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	b := array.NewStringBuilder(mem)
	b.AppendValues([]string{"", "x", "", "a\n\nb", ""}, []bool{true, true, false, true, true})
	col := b.NewArray()
	defer col.Release()
	rec := array.NewRecord(sch, []arrow.Array{col}, int64(col.Len()))
	defer rec.Release()
	two := arrow.NewSchema([]arrow.Field{{Name: "a", Type: arrow.PrimitiveTypes.Int64}, {Name: "b", Type: arrow.BinaryTypes.String}}, nil)
	for _, threads := range []int{1, 4} {
		dir := t.TempDir()
		path := filepath.Join(dir, "one.csv")
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
		_, rows, err := readCSVText(t, "one.csv", mustRead(t, path), ReadOptions{})
		// an empty string reads back as an empty string, a null as null
		if err != nil || fmt.Sprintf("%q", rows) != `[[""] ["x"] ["∅"] ["a\n\nb"] [""]]` {
			t.Errorf("threads %d: one column read back as %q, %v", threads, rows, err)
		}
		path = filepath.Join(dir, "none.csv")
		if s, err = Create(path, two, WriteOptions{Threads: threads}); err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if got := mustRead(t, path); got != "a,b\n" {
			t.Errorf("threads %d: a table of no rows wrote %q", threads, got)
		}
	}
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
