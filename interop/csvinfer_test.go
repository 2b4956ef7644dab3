package interop_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"strata/interop"
)

// TestCSVInferenceMerge checks InferredCSV on the serial and the parallel
// CSV reader, and that merging two files' inferences gives the types one
// file holding both samples is inferred with.
func TestCSVInferenceMerge(t *testing.T) {
	dir := t.TempDir()
	a := "i,f,b,t,e\n1,1,1,2024-01-02T03:04:05,\n2,2,0,2024-01-02T03:04:06,\n"
	b := "i,f,b,t,e\n3,2.5,true,2024-01-02T03:04:05Z,x\n"
	write := func(name, body string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	pa, pb := write("a.csv", a), write("b.csv", b)
	both := write("both.csv", a+b[len("i,f,b,t,e\n"):])
	for _, parallel := range []bool{false, true} {
		inf := func(path string) (interop.CSVInference, *arrow.Schema) {
			t.Helper()
			r, err := interop.Open(path, interop.ReadOptions{Parallel: parallel})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			in, ok := interop.InferredCSV(r)
			if !ok {
				t.Fatalf("%s: no inference", path)
			}
			if !in.Schema().Equal(r.Schema()) {
				t.Fatalf("%s: inference gives %v, the reader reads %v", path, in.Schema(), r.Schema())
			}
			return in, r.Schema()
		}
		ia, _ := inf(pa)
		ib, _ := inf(pb)
		_, want := inf(both)
		m, err := ia.Merge(ib)
		if err != nil {
			t.Fatal(err)
		}
		if !m.Schema().Equal(want) {
			t.Errorf("parallel %v: merged %v, want %v", parallel, m.Schema(), want)
		}
		// a file read under a given schema has none
		r, err := interop.Open(pa, interop.ReadOptions{Parallel: parallel, CSVSchema: want})
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := interop.InferredCSV(r); ok {
			t.Error("inference reported for a given schema")
		}
		r.Close()
	}
	// files of other columns do not merge
	infer := func(path string) interop.CSVInference {
		t.Helper()
		r, err := interop.Open(path, interop.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		in, _ := interop.InferredCSV(r)
		return in
	}
	if _, err := infer(pa).Merge(infer(write("c.csv", "i,f\n1,2\n"))); err == nil {
		t.Error("merged files of 5 and 2 columns")
	}
	if _, err := infer(pa).Merge(infer(write("d.csv", "i,f,b,t,x\n1,2,3,4,5\n"))); err == nil {
		t.Error("merged files of other column names")
	}
}
