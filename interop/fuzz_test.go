package interop_test

import (
	"os"
	"path/filepath"
	"testing"

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
