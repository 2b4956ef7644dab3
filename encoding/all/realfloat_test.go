package all_test

import (
	"encoding/binary"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"

	"strata/encoding"
	"strata/encoding/all"
	"strata/encoding/encodingtest"
)

// realChunk is the number of values per chunk the real-data float tests
// and benchmarks encode: 8 Ki, the writer's fixed chunk size when these
// figures were first taken. The writer now closes chunks at a byte target
// (up to write.DefaultChunkValues = 64 Ki values), so float columns of a
// few bytes a value come in chunks of 16-64 Ki values; -realchunk 65536
// measures that layout:
//
//	go test ./encoding/all -run '^$' -bench RealFloatDecode -args -realchunk 65536
var realChunk = flag.Int("realchunk", 8<<10, "values per chunk in the real-data float tests")

// floatColumn is one float leaf column of a real data set: its present
// values, in order, and the bytes of its Parquet column chunks.
type floatColumn struct {
	set, name    string
	f64          []float64
	f32          []float32
	parquetBytes int64
}

// realFloatDir returns the real data sets' directory (findReal), or skips.
func realFloatDir(t testing.TB) string {
	dir := findReal()
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("real data sets not found (../shared/data/real beside the repository): %v", err)
	}
	return dir
}

// realFloatColumns reads every float and double leaf column of every
// Parquet file of the real data sets with arrow-go's column readers.
func realFloatColumns(t testing.TB) []floatColumn {
	dir := realFloatDir(t)
	paths, _ := filepath.Glob(filepath.Join(dir, "*.parquet"))
	slices.Sort(paths)
	var out []floatColumn
	for _, path := range paths {
		pf, err := file.OpenParquetFile(path, false)
		if err != nil {
			t.Fatal(err)
		}
		md := pf.MetaData()
		sc := md.Schema
		for c := 0; c < sc.NumColumns(); c++ {
			col := sc.Column(c)
			pt := col.PhysicalType()
			if pt != parquet.Types.Double && pt != parquet.Types.Float {
				continue
			}
			fc := floatColumn{set: strings.TrimSuffix(filepath.Base(path), ".parquet"), name: col.Path()}
			for rg := 0; rg < pf.NumRowGroups(); rg++ {
				cc, err := md.RowGroup(rg).ColumnChunk(c)
				if err != nil {
					t.Fatal(err)
				}
				fc.parquetBytes += cc.TotalCompressedSize()
				cr, err := pf.RowGroup(rg).Column(c)
				if err != nil {
					t.Fatal(err)
				}
				def := make([]int16, 4096)
				rep := make([]int16, 4096)
				switch r := cr.(type) {
				case *file.Float64ColumnChunkReader:
					buf := make([]float64, 4096)
					for r.HasNext() {
						_, k, err := r.ReadBatch(4096, buf, def, rep)
						if err != nil {
							t.Fatal(err)
						}
						fc.f64 = append(fc.f64, buf[:k]...)
					}
				case *file.Float32ColumnChunkReader:
					buf := make([]float32, 4096)
					for r.HasNext() {
						_, k, err := r.ReadBatch(4096, buf, def, rep)
						if err != nil {
							t.Fatal(err)
						}
						fc.f32 = append(fc.f32, buf[:k]...)
					}
				}
			}
			out = append(out, fc)
		}
		pf.Close()
	}
	return out
}

// encodeChunks encodes vals in writer-sized chunks with p and returns the
// nodes and the distinct trees.
func encodeChunks[T float32 | float64](t testing.TB, p *encoding.Policy, vals []T) ([][]byte, []string) {
	var nodes [][]byte
	var trees []string
	chunkValues := *realChunk
	for i := 0; i < len(vals); i += chunkValues {
		node, tree, err := p.Encode(nil, vals[i:min(len(vals), i+chunkValues)])
		if err != nil {
			t.Fatal(err)
		}
		nodes = append(nodes, node)
		if s := tree.String(); !slices.Contains(trees, s) {
			trees = append(trees, s)
		}
	}
	return nodes, trees
}

func size(nodes [][]byte) int {
	s := 0
	for _, n := range nodes {
		s += len(n)
	}
	return s
}

// policies are the ways a float column is compared: the default policy,
// Trivial+zstd (the pre-ALP default) and each float encoding forced.
func policies() []struct {
	name string
	p    *encoding.Policy
} {
	force := func(k encoding.Kind, z bool) *encoding.Policy {
		p := all.Policy()
		p.Force = &encoding.Tree{Kind: k, Zstd: z}
		return p
	}
	return []struct {
		name string
		p    *encoding.Policy
	}{
		{"default", all.Policy()},
		{"trivial+zstd", force(encoding.KindTrivial, true)},
		{"alp", force(encoding.KindALP, false)},
		{"alprd", force(encoding.KindALPRD, false)},
		{"chimp", force(encoding.KindChimp, false)},
	}
}

// TestRealFloatSizes prints, per float column of the real data sets, the
// Parquet column-chunk bytes beside Strata's under each policy and zstd of
// the raw values, checks every node decodes value by value, and checks the
// targets: the default at most 0.8x Parquet on the float columns ALP is
// for, and below raw zstd on decimal columns.
//
//	go test ./encoding/all -run RealFloatSizes -v
func TestRealFloatSizes(t *testing.T) {
	cols := realFloatColumns(t)
	t.Logf("%-16s %-26s %8s %9s %9s %9s %9s %9s %9s %9s  %s", "set", "column", "values", "parquet", "default", "trv+zstd", "alp", "alprd", "chimp", "rawzstd", "default tree")
	for _, c := range cols {
		var line []string
		var trees []string
		var sizes []int
		for _, pc := range policies() {
			var nodes [][]byte
			var tr []string
			if c.f64 != nil {
				nodes, tr = encodeChunks(t, pc.p, c.f64)
				checkNodes(t, nodes, c.f64)
			} else {
				nodes, tr = encodeChunks(t, pc.p, c.f32)
				checkNodes(t, nodes, c.f32)
			}
			if pc.name == "default" {
				trees = tr
			}
			sizes = append(sizes, size(nodes))
			line = append(line, fmt.Sprint(size(nodes)))
		}
		var raw []byte
		n := len(c.f64) + len(c.f32)
		for _, v := range c.f64 {
			raw = encodingAppend64(raw, v)
		}
		for _, v := range c.f32 {
			raw = encodingAppend32(raw, v)
		}
		rawz := len(encoding.ZstdAppend(nil, raw))
		t.Logf("%-16s %-26s %8d %9d %9s %9s %9s %9s %9s %9d  %v", c.set, c.name, n, c.parquetBytes,
			line[0], line[1], line[2], line[3], line[4], rawz, trees)
		t.Logf("%-16s %-26s %8s %9s %9.2f x parquet, %.2f x raw zstd, %.2f x trivial+zstd", "", "", "", "",
			float64(sizes[0])/float64(c.parquetBytes), float64(sizes[0])/float64(rawz), float64(sizes[0])/float64(sizes[1]))
	}
}

func encodingAppend64(dst []byte, v float64) []byte {
	return binary.LittleEndian.AppendUint64(dst, math.Float64bits(v))
}

func encodingAppend32(dst []byte, v float32) []byte {
	return binary.LittleEndian.AppendUint32(dst, math.Float32bits(v))
}

// checkNodes decodes nodes and compares them bit for bit with vals.
func checkNodes[T float32 | float64](t testing.TB, nodes [][]byte, vals []T) {
	t.Helper()
	chunkValues := *realChunk
	for i, node := range nodes {
		want := vals[i*chunkValues : min(len(vals), (i+1)*chunkValues)]
		r, err := encoding.OpenTyped[T](node, 0, all.Options())
		if err != nil {
			t.Fatal(err)
		}
		got := make([]T, len(want))
		if err := r.Read(got); err != nil {
			t.Fatal(err)
		}
		for j := range want {
			if !encodingtest.Same(got[j], want[j]) {
				t.Fatalf("chunk %d value %d = %v, want %v", i, j, got[j], want[j])
			}
		}
	}
}

// BenchmarkRealFloatDecode decodes every float column of the real data
// sets as the default policy writes it and as Trivial+zstd, in the same
// run, reporting ns per value:
//
//	go test ./encoding/all -run '^$' -bench RealFloatDecode
func BenchmarkRealFloatDecode(b *testing.B) {
	cols := realFloatColumns(b)
	for _, c := range cols {
		for _, pc := range policies() {
			if pc.name == "chimp" && c.f64 == nil && c.f32 == nil {
				continue
			}
			name := fmt.Sprintf("%s/%s/%s", c.set, c.name, pc.name)
			if c.f64 != nil {
				benchDecode(b, name, pc.p, c.f64)
			} else {
				benchDecode(b, name, pc.p, c.f32)
			}
		}
	}
}

func benchDecode[T float32 | float64](b *testing.B, name string, p *encoding.Policy, vals []T) {
	nodes, _ := encodeChunks(b, p, vals)
	chunkValues := *realChunk
	dst := make([]T, chunkValues)
	b.Run(name, func(b *testing.B) {
		cpu0 := cpuTime()
		for b.Loop() {
			for i, node := range nodes {
				r, err := encoding.OpenTyped[T](node, 0, all.Options())
				if err != nil {
					b.Fatal(err)
				}
				k := min(chunkValues, len(vals)-i*chunkValues)
				if err := r.Read(dst[:k]); err != nil {
					b.Fatal(err)
				}
			}
		}
		// On a shared machine wall time includes waiting for a core; the
		// process CPU time (GOMAXPROCS=1 keeps it to this goroutine and
		// the GC) is the steadier figure for ratios.
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(vals)), "ns/value")
		b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N)/float64(len(vals)), "cpu-ns/value")
		b.ReportMetric(float64(size(nodes))*8/float64(len(vals)), "bits/value")
	})
}

// cpuTime returns the user and system CPU time of the process in ns.
func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// BenchmarkFloatSeries decodes generated float series (a full-precision
// random walk, sensor readings with one decimal, prices with two) under
// every float policy in the same run:
//
//	go test ./encoding/all -run '^$' -bench FloatSeries
func BenchmarkFloatSeries(b *testing.B) {
	for _, shape := range []encodingtest.FloatShape{encodingtest.FloatWalk, encodingtest.FloatSensor, encodingtest.FloatPrices} {
		vals := encodingtest.GenFloat[float64](shape, 1<<16, 1)
		for _, pc := range policies() {
			benchDecode(b, fmt.Sprintf("%s/%s", shape, pc.name), pc.p, vals)
		}
	}
}

// TestFloatSelection checks the default policy on float shapes against
// Trivial+zstd (the default before the float encodings): never more than
// a few percent larger, and a float encoding at the root of decimals.
func TestFloatSelection(t *testing.T) {
	widened := encodingtest.GenFloat[float32](encodingtest.FloatWalk, 8192, 2)
	shapes := map[string][]float64{"widened-float32": make([]float64, len(widened))}
	for i, v := range widened {
		shapes["widened-float32"][i] = float64(v)
	}
	for _, s := range encodingtest.FloatShapes {
		shapes[string(s)] = encodingtest.GenFloat[float64](s, 8192, 2)
	}
	triv := all.Policy()
	triv.Force = &encoding.Tree{Kind: encoding.KindTrivial, Zstd: true}
	for name, vals := range shapes {
		node, tree, err := all.Policy().Encode(nil, vals)
		if err != nil {
			t.Fatal(err)
		}
		tz, _, err := triv.Encode(nil, vals)
		if err != nil {
			t.Fatal(err)
		}
		checkNodes(t, [][]byte{node}, vals)
		ch := all.Policy()
		ch.Force = &encoding.Tree{Kind: encoding.KindChimp}
		cn, _, err := ch.Encode(nil, vals)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%-16s default %6d (%v), trivial+zstd %6d, chimp %6d", name, len(node), tree, len(tz), len(cn))
		if float64(len(node)) > 1.05*float64(len(tz)) {
			t.Errorf("%s: default %v takes %d bytes, Trivial+zstd %d", name, tree, len(node), len(tz))
		}
		switch encodingtest.FloatShape(name) {
		case encodingtest.FloatPrices, encodingtest.FloatCoords, encodingtest.FloatSensor, encodingtest.FloatPrinted32:
			if !strings.Contains(tree.String(), "ALP(") {
				t.Errorf("%s: default %v, want ALP in it", name, tree)
			}
		}
	}
}
