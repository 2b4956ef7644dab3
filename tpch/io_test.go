package tpch

import (
	"bytes"
	"context"
	"errors"
	"io"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/csv"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

func readCSV(t *testing.T, r io.Reader) []row {
	t.Helper()
	cr := csv.NewReader(r, Schema(), csv.WithHeader(true), csv.WithChunk(777))
	defer cr.Release()
	var out []row
	for cr.Next() {
		out = append(out, rowsOf(cr.RecordBatch())...)
	}
	if err := cr.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func readParquet(t *testing.T, data []byte) (rows []row, rowGroups int, codec string) {
	t.Helper()
	pf, err := file.NewParquetReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	rowGroups = pf.NumRowGroups()
	cc, err := pf.MetaData().RowGroup(0).ColumnChunk(0)
	if err != nil {
		t.Fatal(err)
	}
	codec = cc.Compression().String()
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: 1000}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	rr, err := fr.GetRecordReader(context.Background(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	for {
		rec, err := rr.Read()
		if errors.Is(err, io.EOF) || (err == nil && rec == nil) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, rowsOf(rec)...)
	}
	return rows, rowGroups, codec
}
