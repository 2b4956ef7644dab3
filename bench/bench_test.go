package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// runHarness runs the harness in-process and returns the parsed JSON report.
// It fails the test if the harness exits non-zero (which it does on any
// cross-check mismatch).
func runHarness(t *testing.T, args ...string) map[string]any {
	t.Helper()
	dir := t.TempDir()
	jsonPath := filepath.Join(dir, "out.json")
	svgPath := filepath.Join(dir, "out.svg")
	args = append(args, "--json", jsonPath, "--svg", svgPath, "--dir", filepath.Join(dir, "files"))
	var stdout, stderr bytes.Buffer
	if code := run(args, &stdout, &stderr); code != 0 {
		t.Fatalf("bench %v exited %d\nstderr:\n%s\nstdout:\n%s", args, code, stderr.String(), stdout.String())
	}
	if strings.Contains(stderr.String(), "MISMATCH") || !strings.Contains(stderr.String(), "all results agree") {
		t.Fatalf("cross-check did not pass:\n%s", stderr.String())
	}
	var rep map[string]any
	readReport(t, jsonPath, &rep)
	svg, err := os.ReadFile(svgPath)
	if err != nil || !bytes.HasPrefix(svg, []byte("<svg")) || !bytes.HasSuffix(bytes.TrimSpace(svg), []byte("</svg>")) {
		t.Fatalf("SVG missing or malformed (%v)", err)
	}
	t.Logf("%s", stdout.String())
	return rep
}

func results(t *testing.T, rep map[string]any) []map[string]any {
	t.Helper()
	for _, k := range []string{"dataset", "rows", "results"} {
		if _, ok := rep[k]; !ok {
			t.Fatalf("JSON report lacks %q", k)
		}
	}
	var out []map[string]any
	for _, r := range rep["results"].([]any) {
		m := r.(map[string]any)
		for _, k := range []string{"system", "variant", "bytes", "write_ms", "scan_ms", "q_range_ms", "q_month_ms", "q_agg_ms", "take_us"} {
			if _, ok := m[k]; !ok {
				t.Fatalf("result %v lacks key %q (must be present, null if not measured)", m["system"], k)
			}
		}
		if errs, ok := m["errors"]; ok {
			t.Errorf("%s/%s reported errors: %v", m["system"], m["variant"], errs)
		}
		out = append(out, m)
	}
	return out
}

// measuredOrNull checks the peers (which run everything) measured every
// figure; Strata's figures may be null only when a facade method is missing.
func checkFigures(t *testing.T, rs []map[string]any, keys []string, wantNull []string) {
	t.Helper()
	for _, r := range rs {
		name := r["system"].(string) + "/" + r["variant"].(string)
		if r["system"] == "strata" {
			continue
		}
		for _, k := range keys {
			if v, ok := r[k].(float64); !ok || v < 0 {
				t.Errorf("%s: %s = %v, want a number", name, k, r[k])
			}
		}
		for _, k := range wantNull {
			if r[k] != nil {
				t.Errorf("%s: %s = %v, want null", name, k, r[k])
			}
		}
	}
}

// TestEndToEndLineitem runs every system on a tiny generated lineitem; the
// harness's cross-checks (row counts and per-column checksums of every
// query, aggregate values) must all agree.
func TestEndToEndLineitem(t *testing.T) {
	rep := runHarness(t, "--tiny")
	if rep["rows"].(float64) < 1000 {
		t.Fatalf("tiny dataset has %v rows", rep["rows"])
	}
	rs := results(t, rep)
	if len(rs) != len(defaultSystems(config{threads: 1})) {
		t.Fatalf("%d results, want one per system", len(rs))
	}
	checkFigures(t, rs, []string{"bytes", "write_ms", "scan_ms", "q_range_ms", "q_month_ms", "q_agg_ms", "take_us"}, nil)
}

// TestEndToEndOtherSchema feeds a non-lineitem Parquet file with nulls and
// several types: scan and take must agree across systems, and the lineitem
// queries must be null.
func TestEndToEndOtherSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "other.parquet")
	writeOtherParquet(t, path, 3000)
	rep := runHarness(t, "--parquet", path, "--runs", "1", "--take", "20",
		"--systems", "arrow-go,parquet-go,duckdb,strata")
	rs := results(t, rep)
	checkFigures(t, rs, []string{"bytes", "write_ms", "scan_ms", "take_us"}, []string{"q_range_ms", "q_month_ms", "q_agg_ms"})
}

func writeOtherParquet(t *testing.T, path string, n int) {
	t.Helper()
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "small", Type: arrow.PrimitiveTypes.Int16, Nullable: true},
		{Name: "x", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "flag", Type: arrow.FixedWidthTypes.Boolean},
		{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "day", Type: arrow.FixedWidthTypes.Date32},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	defer b.Release()
	for i := range n {
		b.Field(0).(*array.Int64Builder).Append(int64(i) * 7919)
		if i%5 == 0 {
			b.Field(1).AppendNull()
		} else {
			b.Field(1).(*array.Int16Builder).Append(int16(i % 300))
		}
		if i%7 == 0 {
			b.Field(2).AppendNull()
		} else {
			b.Field(2).(*array.Float64Builder).Append(float64(i) / 3)
		}
		b.Field(3).(*array.BooleanBuilder).Append(i%3 == 0)
		if i%11 == 0 {
			b.Field(4).AppendNull()
		} else {
			b.Field(4).(*array.StringBuilder).Append(strings.Repeat("ab", i%9) + "-value")
		}
		b.Field(5).(*array.Date32Builder).Append(arrow.Date32(9000 + i%400))
	}
	rec := b.NewRecord()
	defer rec.Release()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := pqarrow.NewFileWriter(sch, f, parquet.NewWriterProperties(), pqarrow.DefaultWriterProps())
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// readReport decodes the JSON report at path into rep and returns its
// bytes, for failure messages.
func readReport(t *testing.T, path string, rep any) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, rep); err != nil {
		t.Fatalf("JSON report is malformed: %v\n%s", err, b)
	}
	return b
}
