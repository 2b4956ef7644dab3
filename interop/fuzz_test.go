package interop_test

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"strata/interop"
)

// FuzzCSV feeds arbitrary text to CSV import (schema inference, then the
// read): every outcome is an error or records that match the inferred
// schema, never a panic.
//
//	go test -run='^$' -fuzz=FuzzCSV -fuzztime=60s ./interop
func FuzzCSV(f *testing.F) {
	f.Add([]byte(sampleCSV))
	f.Add([]byte("t,mixed\n08:30,10:00\n23:59:59,tomorrow\n,\n00:00:00.125,11:00\n"))
	f.Add([]byte("a\n1\n2.5\ntrue\n2024-01-01\n"))
	f.Add([]byte("\"x,y\",z\n\"1\n2\",3\n"))
	f.Add([]byte("\xef\xbb\xbfa,b\n1,2\n"))
	f.Add([]byte("\xef\xbb"))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "in.csv")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := interop.Open(path, interop.ReadOptions{BatchRows: 3})
		if err != nil {
			return
		}
		defer r.Close()
		sch := r.Schema()
		for {
			rec, err := r.Next()
			if err != nil {
				return
			}
			if !rec.Schema().Equal(sch) {
				t.Fatalf("record schema %s, reader's %s", rec.Schema(), sch)
			}
			for i, c := range rec.Columns() {
				if int64(c.Len()) != rec.NumRows() {
					t.Fatalf("column %d has %d values for %d rows", i, c.Len(), rec.NumRows())
				}
			}
			rec.Release()
		}
	})
}

// FuzzCSVDialect reads arbitrary text with the separator sniffed and the
// dialect options the first byte chooses (decimal commas, stray quotes,
// NA as null, no header) on both readers: every read ends in batches or
// an error, never a panic, and the batches are consistent.
func FuzzCSVDialect(f *testing.F) {
	f.Add([]byte("\x00a;b;c\n1;2,5;x\n3;NA;y\n"))
	f.Add([]byte("\x03a|b\n1|12\" x\n2|\"q\"\"\n"))
	f.Add([]byte("\x0fx\tNA\n1,5\t\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		opt := data[0]
		ro := interop.ReadOptions{BatchRows: 3, CSVDecimalComma: opt&1 != 0, CSVLazyQuotes: opt&2 != 0,
			CSVNoHeader: opt&4 != 0, Parallel: opt&8 != 0}
		if opt&16 != 0 {
			ro.CSVNulls = []string{"NA", `\N`}
		}
		path := filepath.Join(t.TempDir(), "in.csv")
		if err := os.WriteFile(path, data[1:], 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := interop.Open(path, ro)
		if err != nil {
			return
		}
		defer r.Close()
		sch := r.Schema()
		for {
			rec, err := r.Next()
			if err != nil {
				return
			}
			if !rec.Schema().Equal(sch) {
				t.Fatalf("record schema %s, reader's %s", rec.Schema(), sch)
			}
			for i, c := range rec.Columns() {
				if int64(c.Len()) != rec.NumRows() {
					t.Fatalf("column %d has %d values for %d rows", i, c.Len(), rec.NumRows())
				}
			}
			rec.Release()
		}
	})
}

// FuzzCSVParallel feeds arbitrary text to the serial and the parallel CSV
// readers: when the serial reader reads the whole file, the parallel one
// must return the same batches, value by value; when it fails, the
// parallel one must fail too (its pieces may end elsewhere in text that is
// not CSV, so the batches before the error may differ).
//
//	go test -run='^$' -fuzz=FuzzCSVParallel -fuzztime=60s ./interop
func FuzzCSVParallel(f *testing.F) {
	f.Add([]byte(sampleCSV))
	f.Add([]byte("a,b\n1,\"x\ny\"\n\n2,\"say \"\"hi\"\"\"\r\n3,z"))
	f.Add([]byte("\"x,y\",z\n\"1\n2\",3\n"))
	f.Add([]byte("d,t\n2024-02-29,08:30\n2023-02-29,09:00\n"))
	f.Add([]byte("\xef\xbb\xbfa,b\n1,\"x\ny\"\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "in.csv")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		read := func(parallel bool) ([]arrow.Record, error) {
			r, err := interop.Open(path, interop.ReadOptions{BatchRows: 2, Parallel: parallel, Threads: 2})
			if err != nil {
				return nil, err
			}
			defer r.Close()
			var out []arrow.Record
			for {
				rec, err := r.Next()
				if err == io.EOF {
					return out, nil
				}
				if err != nil {
					return out, err
				}
				out = append(out, rec)
			}
		}
		want, werr := read(false)
		defer release(want)
		got, gerr := read(true)
		defer release(got)
		if werr != nil {
			if gerr == nil {
				t.Fatalf("the serial reader failed (%v), the parallel one read %d batches", werr, len(got))
			}
			return
		}
		if gerr != nil {
			t.Fatalf("the parallel reader failed: %v", gerr)
		}
		if len(got) != len(want) {
			t.Fatalf("%d batches, serial %d", len(got), len(want))
		}
		for i := range got {
			// (NaN is a value CSV can hold, and equal to itself here)
			if !array.RecordApproxEqual(got[i], want[i], array.WithNaNsEqual(true), array.WithAbsTolerance(0)) {
				t.Fatalf("batch %d differs:\n%v\nserial:\n%v", i, got[i], want[i])
			}
		}
	})
}
