package interop

import (
	"bytes"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// csvNullWordsText is how export with the null word NA (WriteOptions
// CSVNulls) writes csvNullTable: a null as NA, a string NA quoted beside
// the standard null words, an empty string "".
const csvNullWordsText = "n,s,t\n" +
	"1,\"\",NA\n" +
	"NA,NA,\"\"\n" +
	"3,\"NULL\",\"\"\n" +
	"4,\"null\",\"NA\"\n" +
	"5,x,\"q\"\"r\"\n" +
	"6,\"a\nb\",\"\"\n" +
	"7,NA,NA\n"

// TestCSVExportNullWords checks that export given a null word of its
// reader writes nulls as that word and quotes a string equal to it, with
// the serial and the parallel sink, so that import given the same word
// reads back the table it was: an empty string, a null, the word as a
// string and "NULL" each what it was.
func TestCSVExportNullWords(t *testing.T) {
	sch, rec := csvNullTable(t)
	defer rec.Release()
	for _, threads := range []int{1, 3} {
		path := filepath.Join(t.TempDir(), "t.csv")
		s, err := Create(path, sch, WriteOptions{Threads: threads, CSVNulls: []string{"NA"}})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Write(rec); err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		text := mustRead(t, path)
		if text != csvNullWordsText {
			t.Fatalf("threads %d: export wrote\n%q\nwant\n%q", threads, text, csvNullWordsText)
		}
		for _, ro := range []ReadOptions{{CSVNulls: []string{"NA"}}, {CSVNulls: []string{"NA"}, Parallel: true, BatchRows: 2}} {
			_, rows, err := readCSVText(t, "t.csv", text, ro)
			if err != nil {
				t.Fatal(err)
			}
			if got := fmt.Sprintf("%q", rows); got != csvNullRows {
				t.Errorf("threads %d, %+v: read back\n%s\nwant\n%s", threads, ro, got, csvNullRows)
			}
		}
	}
}

// TestCSVWriterNullWords checks NewCSVWriterNulls, which strata cat
// --format csv --null writes with: several words (the first writes
// nulls, each is quoted as a string), a table of one column, a word the
// text of a value of another type (refused: it would read back as null
// quoted or not), and words CSV cannot hold bare (refused).
func TestCSVWriterNullWords(t *testing.T) {
	mem := memory.DefaultAllocator
	one := arrow.NewSchema([]arrow.Field{{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	sb := array.NewStringBuilder(mem)
	defer sb.Release()
	sb.AppendValues([]string{`\N`, "", "", "-", "NULL", "NA"}, []bool{true, false, true, true, true, true})
	col := sb.NewArray()
	defer col.Release()
	rec := array.NewRecord(one, []arrow.Array{col}, int64(col.Len()))
	defer rec.Release()
	var b bytes.Buffer
	w, err := NewCSVWriterNulls(&b, one, ',', []string{`\N`, "-"})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if want := "s\n\"\\N\"\n\\N\n\"\"\n\"-\"\n\"NULL\"\nNA\n"; b.String() != want {
		t.Errorf("wrote\n%q\nwant\n%q", b.String(), want)
	}
	_, rows, err := readCSVText(t, "t.csv", b.String(), ReadOptions{CSVNulls: []string{`\N`, "-"}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fmt.Sprintf("%q", rows), `[["\\N"] ["∅"] [""] ["-"] ["NULL"] ["NA"]]`; got != want {
		t.Errorf("read back\n%s\nwant\n%s", got, want)
	}

	// a float NaN with the word NaN: no quoting keeps it a number
	fsch := arrow.NewSchema([]arrow.Field{{Name: "f", Type: arrow.PrimitiveTypes.Float64, Nullable: true}, {Name: "s", Type: arrow.BinaryTypes.String}}, nil)
	fb := array.NewRecordBuilder(mem, fsch)
	defer fb.Release()
	fb.Field(0).(*array.Float64Builder).AppendValues([]float64{1, math.NaN()}, nil)
	fb.Field(1).(*array.StringBuilder).AppendValues([]string{"a", "b"}, nil)
	frec := fb.NewRecord()
	defer frec.Release()
	w, err = NewCSVWriterNulls(&bytes.Buffer{}, fsch, ',', []string{"NaN"})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(frec); err == nil || !strings.Contains(err.Error(), `column "f": value NaN is a null word`) {
		t.Errorf("a NaN with the null word NaN: %v", err)
	}
	s, err := Create(filepath.Join(t.TempDir(), "f.csv"), fsch, WriteOptions{Threads: 2, CSVNulls: []string{"NaN"}})
	if err != nil {
		t.Fatal(err)
	}
	err = s.Write(frec)
	if cerr := s.Close(); err == nil {
		err = cerr
	}
	if err == nil || !strings.Contains(err.Error(), "is a null word") {
		t.Errorf("export of a NaN with the null word NaN: %v", err)
	}

	for _, word := range []string{"a,b", `"x"`, "a\nb"} {
		if _, err := NewCSVWriterNulls(&bytes.Buffer{}, one, ',', []string{word}); err == nil {
			t.Errorf("null word %q accepted", word)
		}
		if _, err := Create(filepath.Join(t.TempDir(), "w.csv"), one, WriteOptions{CSVNulls: []string{word}}); err == nil {
			t.Errorf("export: null word %q accepted", word)
		}
	}
}
