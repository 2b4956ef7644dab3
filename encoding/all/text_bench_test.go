package all_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"strata/encoding"
	"strata/encoding/all"
)

// realDir is where the real data sets live, relative to an ancestor of
// this package (../shared/data/real next to the repository).
const realDir = "shared/data/real"

// findReal walks up from the package directory looking for realDir.
func findReal() string {
	dir, err := os.Getwd()
	if err != nil {
		return realDir
	}
	for {
		p := filepath.Join(dir, realDir)
		if _, err := os.Stat(p); err == nil {
			return p
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return realDir
		}
		dir = parent
	}
}

// realText returns up to n non-null values of a text column of a real data
// set, skipping the benchmark when the data is not there.
func realText(b *testing.B, set, column string, n int) encoding.Bytes {
	b.Helper()
	path := filepath.Join(findReal(), set+".parquet")
	if _, err := os.Stat(path); err != nil {
		b.Skipf("no %s: %v", path, err)
	}
	pf, err := file.OpenParquetFile(path, false)
	if err != nil {
		b.Fatal(err)
	}
	defer pf.Close()
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		b.Fatal(err)
	}
	tbl, err := fr.ReadTable(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	defer tbl.Release()
	idx := tbl.Schema().FieldIndices(column)
	if len(idx) == 0 {
		b.Fatalf("%s has no column %q", set, column)
	}
	var out encoding.Bytes
	out.Offsets = append(out.Offsets, 0)
	for _, ch := range tbl.Column(idx[0]).Data().Chunks() {
		s := ch.(*array.String)
		for i := 0; i < s.Len() && out.Len() < n; i++ {
			if s.IsValid(i) {
				out.Append([]byte(s.Value(i)))
			}
		}
	}
	return out
}

// BenchmarkDecodeRealText decodes real text columns (up to 64 Ki values
// each) as FrontCoding or DigitText, FSST and Trivial+zstd in the same run;
// each op opens the node and reads every value into a reused buffer, and
// size/raw reports the node's bytes over the raw value bytes:
//
//	go test -run '^$' -bench DecodeRealText ./encoding/all
func BenchmarkDecodeRealText(b *testing.B) {
	for _, col := range []struct{ set, column string }{
		{"words", "word"}, {"unicode", "name"}, {"unicode", "code"},
		{"zipcodes", "zip_code"}, {"species", "county_id"}, {"oui", "Organization Name"},
	} {
		vals := realText(b, col.set, col.column, 1<<16)
		n := vals.Len()
		for _, k := range []encoding.Kind{encoding.KindFrontCoding, encoding.KindDigitText, encoding.KindFSST, encoding.KindTrivial} {
			cd := all.Registry().Codec(k)
			if !cd.Encoder.Fit(encoding.ComputeStats(vals)) {
				continue
			}
			p := all.Policy()
			p.Force = &encoding.Tree{Kind: k, Zstd: k == encoding.KindTrivial}
			node, tree, err := p.Encode(nil, vals)
			if err != nil {
				b.Fatal(err)
			}
			opts := all.Options()
			b.Run(col.set+"."+col.column+"/"+tree.String(), func(b *testing.B) {
				b.ReportMetric(float64(len(node))/float64(len(vals.Data)), "size/raw")
				b.SetBytes(int64(len(vals.Data)))
				var out encoding.Bytes
				out.Data = make([]byte, 0, len(vals.Data)+64)
				out.Offsets = make([]int32, 0, n+1)
				for b.Loop() {
					r, err := encoding.OpenBinary(node, 0, opts)
					if err != nil {
						b.Fatal(err)
					}
					out.Reset()
					out.Data = append(out.Data, 0) // a non-empty buffer: Trivial copies instead of aliasing
					if err := r.ReadBinary(&out, n); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
