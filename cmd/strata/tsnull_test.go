package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestTSNullWords: the ts read commands take --null as cat, scan and
// export do: with --format csv a null is written as the first word and a
// string equal to a word quoted; with another format it is refused
// before the file is read.
func TestTSNullWords(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.strata")
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "k", Type: arrow.BinaryTypes.String},
		{Name: "t", Type: arrow.PrimitiveTypes.Int64},
		{Name: "v", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	defer b.Release()
	b.Field(0).(*array.StringBuilder).AppendValues([]string{"a", "a", "b"}, nil)
	b.Field(1).(*array.Int64Builder).AppendValues([]int64{1, 2, 3}, nil)
	b.Field(2).(*array.Int64Builder).AppendValues([]int64{1, 0, 3}, []bool{true, false, true})
	b.Field(3).(*array.StringBuilder).AppendValues([]string{"NA", "", "x"}, []bool{true, false, true})
	rec := b.NewRecord()
	defer rec.Release()
	writeTSRecord(t, path, rec)

	out, stderr, err := capture(t, "ts", "query", path, "--format", "csv", "--null", "NA")
	if want := "k,t,v,s\na,1,1,\"NA\"\na,2,NA,NA\nb,3,3,x\n"; err != nil || out != want {
		t.Errorf("ts query --format csv --null NA wrote %q, %v, want %q\n%s", out, err, want, stderr)
	}
	out, stderr, err = capture(t, "ts", "query", path, "--format", "csv")
	if want := "k,t,v,s\na,1,1,NA\na,2,,\nb,3,3,x\n"; err != nil || out != want {
		t.Errorf("ts query --format csv wrote %q, %v, want %q\n%s", out, err, want, stderr)
	}
	// (last takes each column's last non-null value of the series)
	out, stderr, err = capture(t, "ts", "last", path, "--series", "k=a", "--format", "csv", "--null", "NA")
	if want := "k,t,v,s\na,2,1,\"NA\"\n"; err != nil || out != want {
		t.Errorf("ts last --format csv --null NA wrote %q, %v, want %q\n%s", out, err, want, stderr)
	}
	for _, cmd := range [][]string{{"query"}, {"last"}, {"agg", "--every", "10"}, {"paths", "--paths", "a.v"}} {
		args := append(append([]string{cmd[0], path}, cmd[1:]...), "--null", "NA")
		if _, stderr, err := capture(t, "ts", args...); err == nil || !strings.Contains(stderr+err.Error(), "CSV output only") {
			t.Errorf("ts %v --null NA with table output: %v, want a refusal\n%s", cmd, err, stderr)
		}
	}
}
