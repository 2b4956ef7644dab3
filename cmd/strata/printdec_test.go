package main

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/decimal256"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestPrinterDecimals prints decimals in every format: each value with
// its scale's digits, as a Parquet reader shows it (1.00, 0.0000100000),
// where the table printed 1 and 1e-05 and JSON the strings "1" and
// "1e-05"; JSON writes them as numbers.
func TestPrinterDecimals(t *testing.T) {
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "d", Type: &arrow.Decimal128Type{Precision: 4, Scale: 2}, Nullable: true},
		{Name: "w", Type: &arrow.Decimal128Type{Precision: 38, Scale: 10}, Nullable: true},
		{Name: "h", Type: &arrow.Decimal256Type{Precision: 60, Scale: 3}, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	defer b.Release()
	b.Field(0).(*array.Decimal128Builder).AppendValues([]decimal128.Num{decimal128.FromI64(100), decimal128.FromI64(-5), {}}, []bool{true, true, false})
	big, err := decimal128.FromString("12345678901234567890123456.7890123456", 38, 10)
	if err != nil {
		t.Fatal(err)
	}
	b.Field(1).(*array.Decimal128Builder).AppendValues([]decimal128.Num{decimal128.FromI64(100000), big, decimal128.FromI64(0)}, nil)
	b.Field(2).(*array.Decimal256Builder).AppendValues([]decimal256.Num{decimal256.FromI64(1500), decimal256.FromI64(-1), decimal256.FromI64(0)}, nil)
	rec := b.NewRecord()
	defer rec.Release()
	for format, want := range map[string]string{
		"table": "d      w                                      h\n" +
			"-----  -------------------------------------  ------\n" +
			"1.00   0.0000100000                           1.500\n" +
			"-0.05  12345678901234567890123456.7890123456  -0.001\n" +
			"NULL   0.0000000000                           0.000\n",
		"csv": "d,w,h\n1.00,0.0000100000,1.500\n-0.05,12345678901234567890123456.7890123456,-0.001\n,0.0000000000,0.000\n",
		"json": `{"d":1.00,"w":0.0000100000,"h":1.500}` + "\n" +
			`{"d":-0.05,"w":12345678901234567890123456.7890123456,"h":-0.001}` + "\n" +
			`{"d":null,"w":0.0000000000,"h":0.000}` + "\n",
	} {
		if out := printAll(t, format, rec); out != want {
			t.Errorf("%s: got\n%s\nwant\n%s", format, out, want)
		}
	}
}
