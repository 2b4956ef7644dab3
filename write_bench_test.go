package strata_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata"
	"strata/encoding/all"
	"strata/interop"
	"strata/iox"
)

// Write cost on small tables, one encoding goroutine. A file of a few
// thousand rows pays every per-stream cost of the writer (encoding
// selection, trial encodes, statistics, zstd frames) once per column, so
// these benchmarks show fixed costs that the large-table benchmarks hide.
//
//	go test -run '^$' -bench 'WriteSmall|WriteReal' -benchtime 20x .
//
// BenchmarkWriteReal also writes the real data sets and lineitem when
// ../shared/data/ lies beside the repository (it skips otherwise).

// smallTable builds a table of rows rows with the column shapes of typical
// small real sets: a sorted id, a low-cardinality category, free text,
// decimal-like floats, a small-range integer and a nullable text column.
func smallTable(rows int) (*arrow.Schema, arrow.Record) {
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "category", Type: arrow.BinaryTypes.String},
		{Name: "name", Type: arrow.BinaryTypes.String},
		{Name: "price", Type: arrow.PrimitiveTypes.Float64},
		{Name: "qty", Type: arrow.PrimitiveTypes.Int32},
		{Name: "note", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	rng := rand.New(rand.NewSource(1))
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	defer b.Release()
	cats := []string{"books", "garden", "toys", "music", "tools", "food", "sports"}
	words := []string{"red", "small", "river", "stone", "quick", "north", "lamp", "paper", "violet", "seven"}
	for i := 0; i < rows; i++ {
		b.Field(0).(*array.Int64Builder).Append(int64(1000 + i))
		b.Field(1).(*array.StringBuilder).Append(cats[rng.Intn(len(cats))])
		b.Field(2).(*array.StringBuilder).Append(fmt.Sprintf("%s %s %d", words[rng.Intn(len(words))], words[rng.Intn(len(words))], rng.Intn(1000)))
		b.Field(3).(*array.Float64Builder).Append(float64(rng.Intn(100000)) / 100)
		b.Field(4).(*array.Int32Builder).Append(int32(rng.Intn(50)))
		if rng.Intn(4) == 0 {
			b.Field(5).(*array.StringBuilder).AppendNull()
		} else {
			b.Field(5).(*array.StringBuilder).Append(words[rng.Intn(len(words))])
		}
	}
	return sch, b.NewRecord()
}

// writeAll writes recs to io.Discard with one encoding goroutine.
func writeAll(b *testing.B, sch *arrow.Schema, recs []arrow.Record, opts strata.WriteOptions) {
	writeTo(b, io.Discard, sch, recs, opts)
}

// writeTo writes recs to dst with one encoding goroutine.
func writeTo(b *testing.B, dst io.Writer, sch *arrow.Schema, recs []arrow.Record, opts strata.WriteOptions) {
	opts.Parallel = 1
	for _, rec := range recs {
		opts.RowsHint += rec.NumRows() // as an importer knows them from a footer
	}
	w, err := strata.NewWriter(dst, sch, &opts)
	if err != nil {
		b.Fatal(err)
	}
	for _, rec := range recs {
		if err := w.Write(rec); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
}

// cpuTime is the CPU time the process has used, user and system; on a
// shared machine it moves less with the load than wall time does.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU adds the process CPU time per operation since start.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N)/1e6, "cpu-ms/op")
}

func BenchmarkWriteSmall(b *testing.B) {
	for _, rows := range []int{1000, 5000, 40000} {
		sch, rec := smallTable(rows)
		b.Run(fmt.Sprintf("rows=%d", rows), func(b *testing.B) {
			b.ReportAllocs()
			start := cpuTime()
			for i := 0; i < b.N; i++ {
				writeAll(b, sch, []arrow.Record{rec}, strata.WriteOptions{})
			}
			reportCPU(b, start)
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(rows), "ns/row")
		})
		rec.Release()
	}
}

// findShared returns ../shared/data beside the repository (looked up from
// the working directory upwards), or "" when it is not there.
func findShared() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		p := filepath.Join(dir, "shared", "data")
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			return p
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// readTable reads a Parquet file into record batches.
func readTable(b *testing.B, path string) (*arrow.Schema, []arrow.Record) {
	r, err := interop.Open(path, interop.ReadOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	var recs []arrow.Record
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			b.Fatal(err)
		}
		recs = append(recs, rec)
	}
	return r.Schema(), recs
}

// realTables returns the real data sets and lineitem SF 0.1 beside the
// repository, by name; the benchmark is skipped without them.
func realTables(b *testing.B) (names, paths []string) {
	root := findShared()
	if root == "" {
		b.Skip("no ../shared/data beside the repository")
	}
	files, _ := filepath.Glob(filepath.Join(root, "real", "*.parquet"))
	files = append(files, filepath.Join(root, "lineitem-sf0.1.parquet"))
	for _, path := range files {
		if _, err := os.Stat(path); err != nil {
			continue
		}
		name := filepath.Base(path)
		names = append(names, name[:len(name)-len(filepath.Ext(name))])
		paths = append(paths, path)
	}
	return names, paths
}

func BenchmarkWriteReal(b *testing.B) {
	names, paths := realTables(b)
	for i, name := range names {
		path := paths[i]
		b.Run(name, func(b *testing.B) {
			sch, recs := readTable(b, path)
			defer func() {
				for _, r := range recs {
					r.Release()
				}
			}()
			b.ResetTimer()
			start := cpuTime()
			for i := 0; i < b.N; i++ {
				writeAll(b, sch, recs, strata.WriteOptions{})
			}
			reportCPU(b, start)
		})
	}
}

// splitRecords returns the records of recs holding rows [lo, hi).
func splitRecords(recs []arrow.Record, lo, hi int64) []arrow.Record {
	var out []arrow.Record
	var at int64
	for _, r := range recs {
		n := r.NumRows()
		a, z := max(lo, at), min(hi, at+n)
		if a < z {
			out = append(out, r.NewSlice(a-at, z-at))
		}
		at += n
	}
	return out
}

// BenchmarkWriteRealLayout writes the second half of each real table
// twice: fresh, and replaying the layouts captured from a file of its
// first half (WriteOptions.Layouts), the way a table written as a file a
// day or an hour would be. It reports the bytes of both.
func BenchmarkWriteRealLayout(b *testing.B) {
	names, paths := realTables(b)
	for i, name := range names {
		sch, recs := readTable(b, paths[i])
		var rows int64
		for _, r := range recs {
			rows += r.NumRows()
		}
		first, second := splitRecords(recs, 0, rows/2), splitRecords(recs, rows/2, rows)
		var buf bytes.Buffer
		writeTo(b, &buf, sch, first, strata.WriteOptions{})
		f, err := strata.OpenSource(iox.Bytes(buf.Bytes()))
		if err != nil {
			b.Fatal(err)
		}
		layouts, err := f.Layouts()
		f.Close()
		if err != nil {
			b.Fatal(err)
		}
		for _, mode := range []string{"fresh", "layout"} {
			opts := strata.WriteOptions{}
			if mode == "layout" {
				opts.Layouts = layouts
			}
			b.Run(name+"/"+mode, func(b *testing.B) {
				var out countWriter
				writeTo(b, &out, sch, second, opts)
				b.ResetTimer()
				start := cpuTime()
				for i := 0; i < b.N; i++ {
					writeAll(b, sch, second, opts)
				}
				reportCPU(b, start)
				b.ReportMetric(float64(out), "bytes")
			})
		}
		for _, r := range append(first, second...) {
			r.Release()
		}
		for _, r := range recs {
			r.Release()
		}
	}
}

// countWriter counts the bytes written to it.
type countWriter int64

func (c *countWriter) Write(p []byte) (int, error) {
	*c += countWriter(len(p))
	return len(p), nil
}

// BenchmarkWriteRealFinalists writes each real data set with the default
// selection and with selection that encodes no finalist whole (each
// stream's candidates weighed on their sampled trials alone, the winner
// then encoded once), and reports the file's bytes beside the time: what
// the whole encodes of the finalists cost a small set's write, and what
// they buy (docs/benchmarks.md, issue 9's write target).
func BenchmarkWriteRealFinalists(b *testing.B) {
	names, paths := realTables(b)
	for i, name := range names {
		sch, recs := readTable(b, paths[i])
		for _, finalists := range []int{3, 0} {
			b.Run(fmt.Sprintf("%s/finalists=%d", name, finalists), func(b *testing.B) {
				p := all.Policy()
				p.Finalists = finalists
				var buf bytes.Buffer
				writeTo(b, &buf, sch, recs, strata.WriteOptions{Policy: p})
				b.ResetTimer()
				start := cpuTime()
				for i := 0; i < b.N; i++ {
					writeAll(b, sch, recs, strata.WriteOptions{Policy: p})
				}
				reportCPU(b, start)
				b.ReportMetric(float64(buf.Len()), "bytes")
			})
		}
		for _, r := range recs {
			r.Release()
		}
	}
}
