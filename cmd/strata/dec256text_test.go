package main

import (
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal256"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestDecimal256TextCommands: a decimal256(50,2) imported from Arrow is
// stored as its decimal text; strata cat prints its values, strata agg
// refuses min, max, sum and avg of it naming the column and type (min
// gave -0.01, the least text, where the least number is -999...99.99),
// strata scan --where refuses comparisons that order it (e50_2 > 5 was
// refused with a hint to quote 5, and '5' then compared as text), and
// answers = and IN by number.
func TestDecimal256TextCommands(t *testing.T) {
	dir := t.TempDir()
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "e50_2", Type: &arrow.Decimal256Type{Precision: 50, Scale: 2}, Nullable: true},
	}, nil)
	minV, _ := new(big.Int).SetString("-"+strings.Repeat("9", 50), 10)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	defer b.Release()
	for i, v := range []*big.Int{minV, big.NewInt(-1), big.NewInt(500), big.NewInt(1234), big.NewInt(60000)} {
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		b.Field(1).(*array.Decimal256Builder).Append(decimal256.FromBigInt(v))
	}
	rec := b.NewRecord()
	defer rec.Release()
	src := filepath.Join(dir, "e.arrow")
	out, err := os.Create(src)
	if err != nil {
		t.Fatal(err)
	}
	w, err := ipc.NewFileWriter(out, ipc.WithSchema(sch))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	out.Close()
	path := filepath.Join(dir, "e.strata")
	if _, stderr, err := capture(t, "import", "--quiet", src, path); err != nil {
		t.Fatalf("import: %v\n%s", err, stderr)
	}
	minText := "-" + strings.Repeat("9", 48) + ".99"
	got, stderr, err := capture(t, "cat", path, "--columns", "e50_2", "--format", "csv")
	if err != nil {
		t.Fatalf("cat: %v\n%s", err, stderr)
	}
	if want := "e50_2\n" + minText + "\n-0.01\n5.00\n12.34\n600.00\n"; got != want {
		t.Fatalf("cat printed %q, want %q", got, want)
	}

	for _, fn := range []string{"min", "max", "sum", "avg"} {
		got, _, err := capture(t, "agg", path, fn+"(e50_2)")
		want := fn + " of decimal256(50,2) column e50_2: aggregates of decimals wider than 38 digits are not supported"
		if err == nil || !strings.Contains(err.Error(), want) || exitCode(err) != exitFailed {
			t.Errorf("agg %s(e50_2) printed %q, error %v (exit %d); want %q", fn, got, err, exitCode(err), want)
		}
	}
	got, stderr, err = capture(t, "agg", path, "count(e50_2)", "--where", "e50_2 IN (5, 12.340, 7)")
	if err != nil || got != "count(e50_2) = 2\n" {
		t.Errorf("agg count(e50_2) where IN: %q, %v\n%s", got, err, stderr)
	}

	for _, where := range []string{"e50_2 > 5", "e50_2 > '5'", "e50_2 BETWEEN -1 AND 1"} {
		got, _, err := capture(t, "scan", path, "--columns", "id", "--where", where)
		if err == nil || !strings.Contains(err.Error(), "e50_2 is a decimal256(50,2)") || exitCode(err) != exitUsage {
			t.Errorf("scan --where %q printed %q, error %v (exit %d); want a refusal naming decimal256(50,2)", where, got, err, exitCode(err))
		}
	}
	for where, want := range map[string]string{
		"e50_2 = 5":              "id\n2\n",
		"e50_2 = '600'":          "id\n4\n",
		"e50_2 = " + minText:     "id\n0\n",
		"e50_2 IN (-0.010, 6e2)": "id\n1\n4\n",
		"e50_2 != 12.34":         "id\n0\n1\n2\n4\n",
	} {
		got, stderr, err := capture(t, "scan", path, "--columns", "id", "--where", where, "--format", "csv")
		if err != nil || got != want {
			t.Errorf("scan --where %q printed %q, %v, want %q\n%s", where, got, err, want, stderr)
		}
	}
}
