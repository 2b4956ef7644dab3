package interop

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/extensions"
)

// columnText reads column 0 of a table and returns its type and each
// value as text: an int64 or a float64 printed exactly, a string or a
// JSON column's text as it is.
func columnText(t *testing.T, path string, ro ReadOptions) (arrow.DataType, []string, error) {
	t.Helper()
	r, err := Open(path, ro)
	if err != nil {
		return nil, nil, err
	}
	defer r.Close()
	var out []string
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return r.Schema().Field(0).Type, out, nil
		}
		if err != nil {
			return nil, nil, err
		}
		col := rec.Column(0)
		if ext, ok := col.(array.ExtensionArray); ok {
			if _, ok := ext.DataType().(*extensions.JSONType); ok {
				col = ext.Storage()
			}
		}
		for i := range col.Len() {
			switch a := col.(type) {
			case *array.Int64:
				out = append(out, fmt.Sprint(a.Value(i)))
			case *array.Float64:
				// an integral value with all its digits
				v := a.Value(i)
				if v == math.Trunc(v) {
					out = append(out, strconv.FormatFloat(v, 'f', 0, 64))
				} else {
					out = append(out, strconv.FormatFloat(v, 'g', -1, 64))
				}
			case *array.String:
				out = append(out, a.Value(i))
			default:
				t.Fatalf("column of %s", col.DataType())
			}
		}
		rec.Release()
	}
}

// TestWideIntegersNotRounded checks that an integer float64 cannot hold
// (past 2^53) beside floats keeps its digits: in CSV the column is text,
// in JSON a JSON column of each number's text (read as text), and in JSON a record past
// the sample holding one in a float64 column is an error naming it, not a
// rounded value. An integer float64 holds (2^60) leaves the column float.
func TestWideIntegersNotRounded(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	for _, parallel := range []bool{false, true} {
		ro := ReadOptions{Parallel: parallel, Threads: 2, BatchRows: 2}
		for _, c := range []struct {
			name, text string
			kind       arrow.Type
			want       []string
		}{
			{"wide.csv", "a\n1.5\n12345678901234567\n-9007199254740993\n", arrow.STRING, []string{"1.5", "12345678901234567", "-9007199254740993"}},
			{"fits.csv", "a\n1.5\n1152921504606846976\n", arrow.FLOAT64, []string{"1.5", "1152921504606846976"}},
			{"ints.csv", "a\n1\n12345678901234567\n", arrow.INT64, []string{"1", "12345678901234567"}},
			{"wide.jsonl", "{\"a\":1.5}\n{\"a\":12345678901234567}\n{\"a\":-9007199254740993}\n", arrow.STRING, []string{"1.5", "12345678901234567", "-9007199254740993"}},
			{"wide2.jsonl", "{\"a\":12345678901234567}\n{\"a\":2}\n{\"a\":0.5}\n", arrow.STRING, []string{"12345678901234567", "2", "0.5"}},
			{"fits.jsonl", "{\"a\":1.5}\n{\"a\":1152921504606846976}\n", arrow.FLOAT64, []string{"1.5", "1152921504606846976"}},
			{"ints.jsonl", "{\"a\":1}\n{\"a\":12345678901234567}\n", arrow.INT64, []string{"1", "12345678901234567"}},
		} {
			typ, got, err := columnText(t, write(c.name, c.text), ro)
			if err != nil {
				t.Fatalf("%s, parallel %v: %v", c.name, parallel, err)
			}
			if typ.ID() != c.kind {
				t.Errorf("%s, parallel %v: column of %s, want %s", c.name, parallel, typ, c.kind)
			}
			if strings.Join(got, " ") != strings.Join(c.want, " ") {
				t.Errorf("%s, parallel %v: values %q, want %q", c.name, parallel, got, c.want)
			}
		}
		// past the sample: an error, not 12345678901234568
		ro.JSONInferRows = 2
		path := write("late.jsonl", "{\"a\":1.5}\n{\"a\":2.5}\n{\"a\":3}\n{\"a\":12345678901234567}\n")
		_, got, err := columnText(t, path, ro)
		if err == nil || !strings.Contains(err.Error(), `record 4, key "a": 12345678901234567 is an integer a float64 would round`) {
			t.Errorf("parallel %v: a wide integer past the sample in a float column: values %q, error %v", parallel, got, err)
		}
	}
}
