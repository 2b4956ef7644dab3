package strata_test

import (
	"errors"
	"io"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal256"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata"
	"strata/encoding"
	"strata/interop"
)

// writeDecimal256 writes rec to an Arrow IPC file and stores it as import
// does (interop.Open's stand-in types, the source schema in the file's
// metadata), returning the Strata file.
func writeDecimal256(t *testing.T, rec arrow.Record) *strata.File {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join(dir, "src.arrow")
	out, err := os.Create(src)
	if err != nil {
		t.Fatal(err)
	}
	w, err := ipc.NewFileWriter(out, ipc.WithSchema(rec.Schema()))
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
	r, err := interop.Open(src, interop.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	md, err := interop.SourceMetadata(r)
	if err != nil || md == nil {
		t.Fatalf("source metadata %v, %v", md, err)
	}
	path := filepath.Join(dir, "dec256.strata")
	sw, err := strata.Create(path, r.Schema(), &strata.WriteOptions{Metadata: md})
	if err != nil {
		t.Fatal(err)
	}
	for {
		b, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := sw.Write(b); err != nil {
			t.Fatal(err)
		}
	}
	if err := sw.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := strata.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// TestDecimal256Text: a decimal256 of precision above 38 is stored as its
// decimal text, which orders as text ("-0.01" below "-999...99.99",
// "12.34" below "5.00"). Numeric questions on it are answered exactly or
// refused naming the column and its type, never in text order: min, max,
// sum and avg are refused through the aggregate API (count is not
// numeric); <, <=, >, >=, BETWEEN and LIKE are refused in WHERE strings
// and from the filter builders; =, != and IN compare numbers, a literal
// written with or without quotes and in any form (5, 5.0, '5', 5e0)
// meeting the value 5.00, and one finer than the scale meeting none. A
// field of a struct is treated alike.
func TestDecimal256Text(t *testing.T) {
	d50 := &arrow.Decimal256Type{Precision: 50, Scale: 2}
	d40 := &arrow.Decimal256Type{Precision: 40, Scale: 0}
	st := arrow.StructOf(arrow.Field{Name: "e", Type: d40, Nullable: true})
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "e50_2", Type: d50, Nullable: true},
		{Name: "s", Type: st, Nullable: true},
	}, nil)
	minText := "-" + strings.Repeat("9", 48) + ".99"
	minV, _ := new(big.Int).SetString("-"+strings.Repeat("9", 50), 10)
	vals := []*big.Int{minV, big.NewInt(-1), big.NewInt(500), big.NewInt(1234), nil, big.NewInt(0), big.NewInt(-500)}
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	defer b.Release()
	sb := b.Field(2).(*array.StructBuilder)
	for i, v := range vals {
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		sb.Append(true)
		if v == nil {
			b.Field(1).AppendNull()
			sb.FieldBuilder(0).AppendNull()
			continue
		}
		b.Field(1).(*array.Decimal256Builder).Append(decimal256.FromBigInt(v))
		sb.FieldBuilder(0).(*array.Decimal256Builder).Append(decimal256.FromBigInt(new(big.Int).Mul(v, big.NewInt(10))))
	}
	rec := b.NewRecord()
	defer rec.Release()
	f := writeDecimal256(t, rec)
	if typ := f.Schema().Field(1).Type; typ.ID() != arrow.STRING {
		t.Fatalf("e50_2 stored as %s; the test expects decimal text", typ)
	}

	// The values read back as their text.
	sc, err := f.Scan(strata.ScanOptions{Columns: []string{"e50_2"}, Where: "id = 0"})
	if err != nil {
		t.Fatal(err)
	}
	r, err := sc.Next()
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Column(0).(*array.String).Value(0); got != minText {
		t.Fatalf("stored %q, want %q", got, minText)
	}
	r.Release()
	sc.Close()

	// Aggregates: refused naming the function, the type and the column.
	for _, agg := range []struct{ expr, fn, typ, col string }{
		{"min(e50_2)", "min", "decimal256(50,2)", "e50_2"},
		{"max(e50_2)", "max", "decimal256(50,2)", "e50_2"},
		{"sum(e50_2)", "sum", "decimal256(50,2)", "e50_2"},
		{"avg(e50_2)", "avg", "decimal256(50,2)", "e50_2"},
		{"min(s.e)", "min", "decimal256(40,0)", "s.e"},
		{"count(*), avg(s.e)", "avg", "decimal256(40,0)", "s.e"},
	} {
		v, _, err := f.Aggregate(strata.AggregateOptions{Exprs: agg.expr})
		want := agg.fn + " of " + agg.typ + " column " + agg.col + ": aggregates of decimals wider than 38 digits are not supported"
		if err == nil || !strings.Contains(err.Error(), want) || !errors.Is(err, encoding.ErrUnsupported) {
			t.Errorf("%s = %v, error %v; want an error saying %q", agg.expr, v, err, want)
		}
	}
	if _, _, err := f.Aggregate(strata.AggregateOptions{Aggs: []strata.Agg{strata.Min("e50_2")}}); err == nil || !strings.Contains(err.Error(), "decimal256(50,2)") {
		t.Errorf("Min(e50_2) built: error %v", err)
	}
	v, _, err := f.Aggregate(strata.AggregateOptions{Exprs: "count(e50_2), count(s.e)", Where: "e50_2 != 5"})
	if err != nil || v[0].Int() != 5 || v[1].Int() != 5 {
		t.Errorf("count(e50_2), count(s.e) where e50_2 != 5 = %v, %v; want 5, 5", v, err)
	}

	// Filters that order: refused.
	for _, where := range []string{"e50_2 > 5", "e50_2 <= '5'", "e50_2 < -1", "e50_2 >= 0", "e50_2 BETWEEN 0 AND 10",
		"e50_2 LIKE '5%'", "id = 1 OR NOT (e50_2 > 5)", "s.e > 5"} {
		_, err := f.Scan(strata.ScanOptions{Where: where})
		if err == nil || !strings.Contains(err.Error(), "decimal256(") || !strings.Contains(err.Error(), "not supported on decimals wider than 38 digits") {
			t.Errorf("where %s: error %v, want a refusal naming the decimal256 type", where, err)
		}
	}
	for _, fl := range []strata.Filter{strata.Col("e50_2").Gt(5), strata.Col("e50_2").Between(strata.Decimal("0"), strata.Decimal("10")), strata.Col("e50_2").Prefix("5")} {
		_, err := f.Scan(strata.ScanOptions{Filter: fl})
		if err == nil || !strings.Contains(err.Error(), "decimal256(50,2)") {
			t.Errorf("filter %v: error %v, want a refusal naming decimal256(50,2)", fl, err)
		}
	}

	// Equality and IN: numeric.
	for where, want := range map[string][]int64{
		"e50_2 = 5":                       {2},
		"e50_2 = 5.0":                     {2},
		"e50_2 = 5.000000":                {2},
		"e50_2 = '5'":                     {2},
		"e50_2 = '5.00'":                  {2},
		"e50_2 = 5e0":                     {2},
		"e50_2 = 0.5e1":                   {2},
		"e50_2 = 500e-2":                  {2},
		"e50_2 = 5.001":                   nil,
		"e50_2 = 5.001e3":                 nil,
		"e50_2 = -5":                      {6},
		"e50_2 = -0.01":                   {1},
		"e50_2 = -.01":                    {1},
		"e50_2 = 0":                       {5},
		"e50_2 = -0":                      {5},
		"e50_2 = 0e99":                    {5},
		"e50_2 = 1e300":                   nil,
		"e50_2 = 1e-300":                  nil,
		"e50_2 = " + minText:              {0},
		"e50_2 = " + minText + "0":        {0},
		"e50_2 != 5":                      {0, 1, 3, 5, 6},
		"e50_2 IN (-0.01, 12.34, 7, 5.5)": {1, 3},
		"NOT e50_2 IN (-0.01, 12.34)":     {0, 2, 5, 6},
		"e50_2 IS NULL":                   {4},
		"s.e = 5000":                      {2},
		"s.e = 5e3":                       {2},
		"s.e IN (-5000, 123.4, 12340.0)":  {3, 6},
		"s.e = 123.45":                    nil,
	} {
		got := ids(t, f, strata.ScanOptions{Where: where})
		if !slices.Equal(got, want) {
			t.Errorf("where %s: ids %v, want %v", where, got, want)
		}
	}
	if got := ids(t, f, strata.ScanOptions{Filter: strata.Col("e50_2").In(5, strata.Decimal("12.340"), -1)}); !slices.Equal(got, []int64{2, 3}) {
		t.Errorf("In(5, 12.340, -1): ids %v, want [2 3]", got)
	}
	for _, where := range []string{"e50_2 = 'five'", "e50_2 = TRUE", "e50_2 = DATE '2024-01-01'", "e50_2 = '1/2'"} {
		if _, err := f.Scan(strata.ScanOptions{Where: where}); err == nil || !strings.Contains(err.Error(), "decimal256(50,2)") {
			t.Errorf("where %s: error %v, want a refusal naming decimal256(50,2)", where, err)
		}
	}
}
