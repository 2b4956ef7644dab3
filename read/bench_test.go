package read_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"strata/format"
	"strata/iox"
	"strata/read"
	"strata/tpch"
	"strata/write"
)

var (
	lineitemMu   sync.Mutex
	lineitemData = map[int][]byte{}
)

// lineitem returns TPC-H lineitem at SF 0.05 written as Strata in memory
// with the given chunk size (0: the default).
func lineitem(b *testing.B, chunkValues ...int) []byte {
	lineitemMu.Lock()
	defer lineitemMu.Unlock()
	cv := 0
	if len(chunkValues) > 0 {
		cv = chunkValues[0]
	}
	if d, ok := lineitemData[cv]; ok {
		return d
	}
	{
		var buf bytes.Buffer
		fw := format.NewWriter(&buf, format.WriterOptions{})
		w, err := write.New(fw, tpch.Schema(), write.Options{ChunkValues: cv})
		if err != nil {
			b.Fatal(err)
		}
		g := tpch.NewLineitem(0.05, 1, 64<<10)
		for {
			rec, err := g.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			if err := w.Write(rec); err != nil {
				b.Fatal(err)
			}
			rec.Release()
		}
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
		lineitemData[cv] = buf.Bytes()
	}
	return lineitemData[cv]
}

func benchScan(b *testing.B, opts read.ScanOptions, chunkValues ...int) {
	data := lineitem(b, chunkValues...)
	f, err := read.Open(context.Background(), iox.Bytes(data), read.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	rows := int64(0)
	for i := 0; i < b.N; i++ {
		sc, err := f.Scan(opts)
		if err != nil {
			b.Fatal(err)
		}
		for {
			rec, err := sc.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			rows += rec.NumRows()
			rec.Release()
		}
	}
	b.ReportMetric(float64(rows)/float64(b.N), "rows/op")
}

func BenchmarkScanAll(b *testing.B) { benchScan(b, read.ScanOptions{}) }

// BenchmarkScanAllChunks shows what the chunk size costs a full scan.
func BenchmarkScanAllChunks(b *testing.B) {
	for _, cv := range []int{4096, 8192, 16384, 65536} {
		b.Run(fmt.Sprint(cv), func(b *testing.B) { benchScan(b, read.ScanOptions{}, cv) })
	}
}

func BenchmarkScanMonth(b *testing.B) {
	benchScan(b, read.ScanOptions{Columns: []string{"l_orderkey", "l_extendedprice"},
		Where: "l_shipdate BETWEEN DATE '1995-01-01' AND DATE '1995-01-31'"})
}

func BenchmarkTake(b *testing.B) {
	data := lineitem(b)
	f, err := read.Open(context.Background(), iox.Bytes(data), read.Options{})
	if err != nil {
		b.Fatal(err)
	}
	n := f.NumRows()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rec, err := f.Take([]int64{int64(i*7919) % n}, nil)
		if err != nil {
			b.Fatal(err)
		}
		rec.Release()
	}
}

func BenchmarkWrite(b *testing.B) {
	g := tpch.NewLineitem(0.05, 1, 64<<10)
	var recs []arrow.Record
	for {
		rec, err := g.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			b.Fatal(err)
		}
		recs = append(recs, rec)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var buf bytes.Buffer
		w, err := write.New(format.NewWriter(&buf, format.WriterOptions{}), tpch.Schema(), write.Options{Parallel: 1})
		if err != nil {
			b.Fatal(err)
		}
		for _, r := range recs {
			if err := w.Write(r); err != nil {
				b.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(buf.Len()), "bytes")
	}
}

// BenchmarkScanAllFile is BenchmarkScanAll through a file on disk.
func BenchmarkScanAllFile(b *testing.B) {
	data := lineitem(b)
	path := b.TempDir() + "/lineitem.strata"
	if err := os.WriteFile(path, data, 0o644); err != nil {
		b.Fatal(err)
	}
	src, err := iox.OpenFile(path)
	if err != nil {
		b.Fatal(err)
	}
	defer src.Close()
	f, err := read.Open(context.Background(), src, read.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		sc, err := f.Scan(read.ScanOptions{})
		if err != nil {
			b.Fatal(err)
		}
		for {
			rec, err := sc.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			rec.Release()
		}
	}
}

func BenchmarkAggMonth(b *testing.B) {
	data := lineitem(b)
	f, err := read.Open(context.Background(), iox.Bytes(data), read.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, _, err := f.Aggregate("count(*), sum(l_quantity)", "l_shipdate BETWEEN DATE '1995-01-01' AND DATE '1995-01-31'"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkScanColumn scans one lineitem column at a time, to show where a
// full scan spends its time.
func BenchmarkScanColumn(b *testing.B) {
	for _, c := range tpch.Schema().Fields() {
		b.Run(c.Name, func(b *testing.B) { benchScan(b, read.ScanOptions{Columns: []string{c.Name}}) })
	}
}
