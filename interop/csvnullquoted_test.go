package interop

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestCSVNullWordsCSVQuotes: encoding/csv quotes some fields on its own,
// those beginning with a space and the field \. among them. A string
// equal to such a null word must be quoted once, not wrapped in a second
// pair of quotes (which made a field no CSV reader parses), and read back
// as the string; a first word of that kind, the one nulls are written
// as, cannot be written bare and is refused.
func TestCSVNullWordsCSVQuotes(t *testing.T) {
	mem := memory.DefaultAllocator
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "n", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(mem, sch)
	defer b.Release()
	b.Field(0).(*array.StringBuilder).AppendValues([]string{" x y", `\.`, "NA", "", "\u00a0z"}, []bool{true, true, true, false, true})
	b.Field(1).(*array.Int64Builder).AppendValues([]int64{1, 2, 3, 4, 5}, nil)
	rec := b.NewRecord()
	defer rec.Release()
	words := []string{"NA", " x y", `\.`, "\u00a0z"}
	var out bytes.Buffer
	w, err := NewCSVWriterNulls(&out, sch, ',', words)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	want := "s,n\n\" x y\",1\n\"\\.\",2\n\"NA\",3\nNA,4\n\"\u00a0z\",5\n"
	if out.String() != want {
		t.Errorf("wrote\n%q\nwant\n%q", out.String(), want)
	}
	_, rows, err := readCSVText(t, "t.csv", out.String(), ReadOptions{CSVNulls: words})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fmt.Sprintf("%q", rows), `[[" x y" "1"] ["\\." "2"] ["NA" "3"] ["∅" "4"] ["\u00a0z" "5"]]`; got != want {
		t.Errorf("read back\n%s\nwant\n%s", got, want)
	}

	for _, first := range []string{" NA", "\tNA", `\.`, "\u00a0"} {
		_, err := NewCSVWriterNulls(&bytes.Buffer{}, sch, ',', []string{first, "NA"})
		if err == nil || !strings.Contains(err.Error(), "first null word") {
			t.Errorf("first null word %q: %v, want it refused", first, err)
		}
	}
}
