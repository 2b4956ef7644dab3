package main

import (
	"errors"
	"math/big"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata/read"
)

// TestWideDecimalCommands: strata scan --where compares a decimal(38,2) by
// value (negatives below zero, whatever their bytes), strata agg gives its
// min, max, sum and avg as decimals, and a sum beyond 38 digits fails
// naming the aggregate and the limit.
func TestWideDecimalCommands(t *testing.T) {
	path := filepath.Join(t.TempDir(), "wide.strata")
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "d", Type: &arrow.Decimal128Type{Precision: 38, Scale: 2}, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	defer b.Release()
	big38 := func(s string) decimal128.Num {
		v, ok := new(big.Int).SetString(s, 10)
		if !ok {
			t.Fatal(s)
		}
		return decimal128.FromBigInt(v)
	}
	vals := []decimal128.Num{
		decimal128.FromI64(-100),                        // -1.00
		decimal128.FromI64(1),                           // 0.01
		big38("12345678901234567890123456789012345678"), // 123456789012345678901234567890123456.78
		big38("-9999999999999999999999999999999999999"), // -99999999999999999999999999999999999.99
		{},
		decimal128.FromI64(25600), // 256.00
	}
	for i, v := range vals {
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		if i == 4 {
			b.Field(1).AppendNull()
		} else {
			b.Field(1).(*array.Decimal128Builder).Append(v)
		}
	}
	rec := b.NewRecord()
	defer rec.Release()
	writeStrata(t, path, rec)

	for where, want := range map[string]string{
		"d > 0":                    "id\n1\n2\n5\n",
		"d < 0":                    "id\n0\n3\n",
		"d BETWEEN -1 AND 256":     "id\n0\n1\n5\n",
		"d IN (-1, 0.01, 256.001)": "id\n0\n1\n",
		"NOT (d >= 0.005)":         "id\n0\n3\n",
		"d > 1e38 OR d IS NULL":    "id\n4\n",
		"d = -99999999999999999999999999999999999.99": "id\n3\n",
	} {
		got, stderr, err := capture(t, "scan", path, "--columns", "id", "--where", where, "--format", "csv")
		if err != nil {
			t.Fatalf("scan --where %q: %v\n%s", where, err, stderr)
		}
		if got != want {
			t.Errorf("scan --where %q printed %q, want %q", where, got, want)
		}
	}

	got, stderr, err := capture(t, "agg", path, "min(d), max(d), count(d)", "--where", "id != 2", "--format", "csv")
	if err != nil {
		t.Fatalf("agg: %v\n%s", err, stderr)
	}
	if want := "min(d),max(d),count(d)\n-99999999999999999999999999999999999.99,256.00,4\n"; got != want {
		t.Errorf("agg printed %q, want %q", got, want)
	}
	got, stderr, err = capture(t, "agg", path, "sum(d), max(d)", "--where", "d > -2")
	if err != nil {
		t.Fatalf("agg: %v\n%s", err, stderr)
	}
	if want := "sum(d) = 123456789012345678901234567890123711.79\nmax(d) = 123456789012345678901234567890123456.78\n"; got != want {
		t.Errorf("agg printed %q, want %q", got, want)
	}

	// Two values of 38 digits, same sign: 39 digits.
	more := filepath.Join(t.TempDir(), "more.strata")
	b.Field(0).(*array.Int64Builder).AppendValues([]int64{0, 1}, nil)
	b.Field(1).(*array.Decimal128Builder).AppendValues([]decimal128.Num{big38("99999999999999999999999999999999999999"), big38("99999999999999999999999999999999999999")}, nil)
	rec2 := b.NewRecord()
	defer rec2.Release()
	writeStrata(t, more, rec2)
	_, _, err = capture(t, "agg", more, "sum(d)")
	if !errors.Is(err, read.ErrOverflow) || !strings.Contains(err.Error(), "sum(d)") || !strings.Contains(err.Error(), "38 digits") ||
		exitCode(err) != exitFailed {
		t.Errorf("agg sum past 38 digits: %v (exit %d), want an overflow naming sum(d)", err, exitCode(err))
	}
}
