package interop

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestCSVNullWordsTypedText: quoting keeps a string equal to a null word
// from reading back as null only in a column import reads as text; in a
// column it reads as numbers, times or dates a null word is null quoted
// or not. A time of day, which CSV output writes as text, and a string
// that reads as a number are such values: one equal to a null word that
// reads as a value must be refused, as a number equal to one is, not
// quoted and lost (a time 12:00:00 with the word 12:00:00 read back as
// null). A string equal to a word that reads as no value is quoted as
// before.
func TestCSVNullWordsTypedText(t *testing.T) {
	mem := memory.DefaultAllocator
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "t", Type: arrow.FixedWidthTypes.Time64us, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(mem, sch)
	defer b.Release()
	b.Field(0).(*array.Time64Builder).AppendValues([]arrow.Time64{43200e6, 3600e6}, nil)
	b.Field(1).(*array.StringBuilder).AppendValues([]string{"1", "NA"}, nil)
	rec := b.NewRecord()
	defer rec.Release()

	for _, c := range []struct {
		words []string
		col   string // the column refused, "" for none
	}{
		{[]string{"NA", "12:00:00"}, "t"},
		{[]string{"NA", "1"}, "s"},
		{[]string{"NA"}, ""},
	} {
		// export (WriteOptions.CSVNulls) and strata cat (CSVRecord, then
		// NewCSVWriterNulls)
		path := filepath.Join(t.TempDir(), "t.csv")
		s, err := Create(path, sch, WriteOptions{Threads: 1, CSVNulls: c.words})
		if err != nil {
			t.Fatal(err)
		}
		err = s.Write(rec)
		if cerr := s.Close(); err == nil {
			err = cerr
		}
		out, cerr := CSVRecord(rec, nil)
		if cerr != nil {
			t.Fatal(cerr)
		}
		w, werr := NewCSVWriterNulls(&bytes.Buffer{}, out.Schema(), ',', c.words)
		if werr == nil {
			werr = w.Write(out)
		}
		out.Release()
		for _, e := range []error{err, werr} {
			switch {
			case c.col == "" && e != nil:
				t.Errorf("words %q: %v", c.words, e)
			case c.col != "" && (e == nil || !strings.Contains(e.Error(), `column "`+c.col+`"`)):
				t.Errorf("words %q: %v, want column %s refused", c.words, e, c.col)
			}
		}
	}
}
