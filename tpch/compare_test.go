package tpch

import (
	"context"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// referenceFile is the shared SF 0.1 lineitem made by another
// specification-following generator, relative to an ancestor of the package.
const referenceFile = "shared/data/lineitem-sf0.1.parquet"

// findReference walks up from the package directory looking for
// ../shared/data/lineitem-sf0.1.parquet next to the repository.
func findReference(t *testing.T) string {
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		p := filepath.Join(dir, referenceFile)
		if _, err := os.Stat(p); err == nil {
			return p
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

func referenceStats(t *testing.T, path string) *tableStats {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	pf, err := file.NewParquetReader(f)
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	defer pf.Close()
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: 64 << 10}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	sch, err := fr.Schema()
	if err != nil {
		t.Fatal(err)
	}
	// Same names, types and nullability (the reader adds field-id metadata).
	if len(sch.Fields()) != len(Schema().Fields()) {
		t.Fatalf("reference has %d columns, we have %d", len(sch.Fields()), len(Schema().Fields()))
	}
	for i, f := range sch.Fields() {
		want := Schema().Field(i)
		if f.Name != want.Name || !arrow.TypeEqual(f.Type, want.Type) || f.Nullable != want.Nullable {
			t.Errorf("column %d: reference %s %s nullable=%v, ours %s %s nullable=%v",
				i, f.Name, f.Type, f.Nullable, want.Name, want.Type, want.Nullable)
		}
	}
	rr, err := fr.GetRecordReader(context.Background(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	st := newTableStats(Schema())
	for {
		rec, err := rr.Read()
		if errors.Is(err, io.EOF) || (err == nil && rec == nil) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		st.add(rec)
	}
	st.finish()
	return st
}

func generatedStats(t testing.TB, sf float64, seed uint64) *tableStats {
	g := NewLineitem(sf, seed, 0)
	st := newTableStats(Schema())
	for {
		rec, err := g.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		st.add(rec)
		rec.Release()
	}
	st.finish()
	return st
}

// TestCompareReference generates SF 0.1 and compares it with the shared
// reference file column by column: row count within 0.5%; distinct counts
// within 3%; min and max within 3% of the reference column's range (for
// strings: their lengths).
func TestCompareReference(t *testing.T) {
	path := findReference(t)
	if path == "" {
		t.Skipf("reference file %s not found above the package directory; comparison skipped", referenceFile)
	}
	if testing.Short() {
		t.Skip("-short: reference comparison skipped")
	}
	// Read the reference while generating ours: two cores, half the time.
	var ours *tableStats
	done := make(chan struct{})
	go func() {
		defer close(done)
		ours = generatedStats(t, 0.1, 1)
	}()
	ref := referenceStats(t, path)
	<-done
	if t.Failed() {
		return
	}

	if d := math.Abs(float64(ours.rows-ref.rows)) / float64(ref.rows); d > 0.005 {
		t.Errorf("rows: ours %d, reference %d (%.2f%% off)", ours.rows, ref.rows, 100*d)
	}
	t.Logf("rows: ours %d, reference %d", ours.rows, ref.rows)
	t.Logf("%-16s %9s %9s %10s %10s %10s %10s", "column", "distinct", "ref", "min", "ref", "max", "ref")
	for i, o := range ours.cols {
		r := ref.cols[i]
		t.Logf("%-16s %9d %9d %10d %10d %10d %10d", o.name, o.distinct, r.distinct, o.min, r.min, o.max, r.max)
		if d := math.Abs(float64(o.distinct-r.distinct)) / float64(r.distinct); d > 0.03 {
			t.Errorf("%s: distinct ours %d, reference %d (%.2f%% off)", o.name, o.distinct, r.distinct, 100*d)
		}
		span := float64(r.max - r.min)
		tol := max(0.03*span, 0)
		if math.Abs(float64(o.min-r.min)) > tol {
			t.Errorf("%s: min ours %d, reference %d (tolerance %.1f)", o.name, o.min, r.min, tol)
		}
		if math.Abs(float64(o.max-r.max)) > tol {
			t.Errorf("%s: max ours %d, reference %d (tolerance %.1f)", o.name, o.max, r.max, tol)
		}
		if o.isString && o.max-o.min <= 20 && o.distinct < 10 && (o.smin != r.smin || o.smax != r.smax) {
			t.Errorf("%s: values [%q, %q], reference [%q, %q]", o.name, o.smin, o.smax, r.smin, r.smax)
		}
		if o.isString && i == colComment {
			ol := float64(o.leadSpace) / float64(o.rows)
			rl := float64(r.leadSpace) / float64(r.rows)
			t.Logf("l_comment starting with a space: ours %.2f%%, reference %.2f%%", 100*ol, 100*rl)
			if math.Abs(ol-rl) > 0.01 {
				t.Errorf("l_comment: %.2f%% start with a space, reference %.2f%%", 100*ol, 100*rl)
			}
		}
	}
}
