package interop

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestCSVNullWordsWrittenText: a value is checked against the null words
// in the text CSV writes for it, not in another. A timestamp is written
// 1970-01-01 00:00:00Z (ValueStr has a T); one equal to a null word must
// be refused, as a number is, rather than written bare and read back as
// null. A binary value is written in base64: one whose base64 is a null
// word, standard (null) or the caller's, is quoted, as a string is, and
// reads back as that text rather than as null.
func TestCSVNullWordsWrittenText(t *testing.T) {
	mem := memory.DefaultAllocator
	for _, zone := range []string{"UTC", ""} {
		sch := arrow.NewSchema([]arrow.Field{{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Second, TimeZone: zone}, Nullable: true}}, nil)
		b := array.NewRecordBuilder(mem, sch)
		b.Field(0).(*array.TimestampBuilder).AppendValues([]arrow.Timestamp{86400, 0}, nil)
		rec := b.NewRecord()
		b.Release()
		word := "1970-01-01 00:00:00"
		if zone != "" {
			word += "Z"
		}
		w, err := NewCSVWriterNulls(&bytes.Buffer{}, sch, ',', []string{"NA", word})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write(rec); err == nil || !strings.Contains(err.Error(), "is a null word") {
			t.Errorf("zone %q: a timestamp written %s with that null word: %v, want it refused", zone, word, err)
		}
		rec.Release()
	}

	nullBytes, err := base64.StdEncoding.DecodeString("null")
	if err != nil {
		t.Fatal(err)
	}
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "b", Type: arrow.BinaryTypes.Binary, Nullable: true},
		{Name: "n", Type: arrow.PrimitiveTypes.Int64},
	}, nil)
	b := array.NewRecordBuilder(mem, sch)
	defer b.Release()
	b.Field(0).(*array.BinaryBuilder).AppendValues([][]byte{[]byte("NA"), nullBytes, nil, []byte("x")}, []bool{true, true, false, true})
	b.Field(1).(*array.Int64Builder).AppendValues([]int64{1, 2, 3, 4}, nil)
	rec := b.NewRecord()
	defer rec.Release()
	var out bytes.Buffer
	w, err := NewCSVWriterNulls(&out, sch, ',', []string{"NA", "TkE="})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if want := "b,n\n\"TkE=\",1\n\"null\",2\nNA,3\neA==,4\n"; out.String() != want {
		t.Errorf("wrote\n%q\nwant\n%q", out.String(), want)
	}
	_, rows, err := readCSVText(t, "b.csv", out.String(), ReadOptions{CSVNulls: []string{"NA", "TkE="}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fmt.Sprintf("%q", rows), `[["TkE=" "1"] ["null" "2"] ["∅" "3"] ["eA==" "4"]]`; got != want {
		t.Errorf("read back\n%s\nwant\n%s", got, want)
	}
}
