package read_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
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
	lineitemData = map[string][]byte{}
)

// lineitem returns TPC-H lineitem at SF 0.05 written as Strata in memory
// with the given chunk size (0: the default).
func lineitem(b *testing.B, chunkValues ...int) []byte {
	var o write.Options
	if len(chunkValues) > 0 {
		// a fixed count of values per chunk
		o.ChunkValues, o.ChunkTarget = chunkValues[0], -1
	}
	return lineitemWith(b, o)
}

// lineitemWith is lineitem written with the given options.
func lineitemWith(b *testing.B, o write.Options) []byte {
	lineitemMu.Lock()
	defer lineitemMu.Unlock()
	key := fmt.Sprintf("%d/%d", o.ChunkValues, o.ChunkTarget)
	if d, ok := lineitemData[key]; ok {
		return d
	}
	{
		var buf bytes.Buffer
		fw := format.NewWriter(&buf, format.WriterOptions{})
		w, err := write.New(fw, tpch.Schema(), o)
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
		lineitemData[key] = buf.Bytes()
	}
	return lineitemData[key]
}

func benchScan(b *testing.B, opts read.ScanOptions, chunkValues ...int) {
	benchScanData(b, opts, lineitem(b, chunkValues...))
}

func benchScanData(b *testing.B, opts read.ScanOptions, data []byte) {
	f, err := read.Open(context.Background(), iox.Bytes(data), read.Options{Parallelism: benchThreads})
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

// benchThreads is the parallelism of the benchmarks below: one goroutine,
// so their figures compare with earlier rounds; BenchmarkScanAllThreads
// varies it.
const benchThreads = 1

func BenchmarkScanAll(b *testing.B) { benchScan(b, read.ScanOptions{}) }

// BenchmarkScanAllThreads is a full scan on 1, 2 and all cores.
func BenchmarkScanAllThreads(b *testing.B) {
	for _, p := range []int{1, 2, runtime.GOMAXPROCS(0)} {
		b.Run(fmt.Sprint(p), func(b *testing.B) { benchScan(b, read.ScanOptions{Parallelism: p}) })
	}
}

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

func BenchmarkTake(b *testing.B) { benchTake(b, lineitem(b)) }

func benchTake(b *testing.B, data []byte) {
	f, err := read.Open(context.Background(), iox.Bytes(data), read.Options{Parallelism: benchThreads})
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
	f, err := read.Open(context.Background(), src, read.Options{Parallelism: benchThreads})
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

func BenchmarkAggMonth(b *testing.B) { benchAggMonth(b, lineitem(b)) }

func benchAggMonth(b *testing.B, data []byte) {
	f, err := read.Open(context.Background(), iox.Bytes(data), read.Options{Parallelism: benchThreads})
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

// BenchmarkChunkLayout compares, in one run, the reads of lineitem written
// with 8 Ki values per chunk (the layout before byte-sized chunks) and with
// byte-sized chunks at several targets.
func BenchmarkChunkLayout(b *testing.B) {
	layouts := []struct {
		name string
		o    write.Options
	}{
		{"8Ki-values", write.Options{ChunkValues: 8 << 10, ChunkTarget: -1}},
		{"default", write.Options{}},
		{"32KiB", write.Options{ChunkTarget: 32 << 10}},
		{"128KiB", write.Options{ChunkTarget: 128 << 10}},
	}
	month := read.ScanOptions{Columns: []string{"l_orderkey", "l_extendedprice"},
		Where: "l_shipdate BETWEEN DATE '1995-01-01' AND DATE '1995-01-31'"}
	for _, l := range layouts {
		b.Run("scan/"+l.name, func(b *testing.B) { benchScanData(b, read.ScanOptions{}, lineitemWith(b, l.o)) })
		b.Run("month/"+l.name, func(b *testing.B) { benchScanData(b, month, lineitemWith(b, l.o)) })
		b.Run("agg/"+l.name, func(b *testing.B) { benchAggMonth(b, lineitemWith(b, l.o)) })
		b.Run("take/"+l.name, func(b *testing.B) { benchTake(b, lineitemWith(b, l.o)) })
	}
}
