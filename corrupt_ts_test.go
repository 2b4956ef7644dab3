package strata_test

import (
	"bytes"
	"io"
	"testing"
	"time"

	"strata/timeseries"
	"strata/tsbs"
)

// timeseriesFile is a small time-series table: its time column is the only
// place the writer uses DeltaOfDelta, and it carries the series index
// sections.
func timeseriesFile(t *testing.T) []byte {
	g, err := tsbs.New(tsbs.Options{Hosts: 3, Duration: 30 * time.Minute, BatchRows: 1000})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w, err := timeseries.NewWriter(&buf, g.Schema(), timeseries.Model{Keys: tsbs.Tags, Time: tsbs.TimeColumn},
		&timeseries.WriterOptions{Sorted: true, ChunkRows: 60, PageBytes: 256})
	if err != nil {
		t.Fatal(err)
	}
	for {
		rec, err := g.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
		rec.Release()
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
