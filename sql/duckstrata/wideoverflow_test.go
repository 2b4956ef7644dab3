package duckstrata_test

import (
	"context"
	"math/big"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata/sql/duckstrata"
)

// TestWidePushdownConstantOverflow checks constants too large for the type
// DuckDB compares a wide decimal column with them in: DuckDB compares
// DECIMAL(p,s) with a constant in DECIMAL(38, max(s, the constant's
// scale)) once the digits of both exceed 38, and casting a constant of
// more integer digits than that type holds fails, but only for rows that
// reach the comparison. A pushed filter dropping every row first would turn
// that error into an empty (or wrong) result, so such constants must stay
// with DuckDB, which then fails as it fails without pushdown; constants of
// exactly 38 digits in that type are pushed and give DuckDB's rows. IN and
// BETWEEN compare in one type for all their constants, so one constant's
// scale decides whether another fits.
func TestWidePushdownConstantOverflow(t *testing.T) {
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "w20", Type: &arrow.Decimal128Type{Precision: 20, Scale: 4}, Nullable: true},
		{Name: "w38", Type: &arrow.Decimal128Type{Precision: 38, Scale: 2}, Nullable: true},
		{Name: "w30", Type: &arrow.Decimal128Type{Precision: 30, Scale: 0}, Nullable: true},
	}, nil)
	big10 := func(n int64) *big.Int { return new(big.Int).Exp(big.NewInt(10), big.NewInt(n), nil) }
	// unscaled values: w20 0.0049, 1, -5, its largest; w38 holding the
	// 36-digit integer of the boundary case and a 37-digit one; w30 10^29
	w20 := []*big.Int{big.NewInt(49), big.NewInt(10000), big.NewInt(-50000), new(big.Int).Sub(big10(20), big.NewInt(1))}
	d36, _ := new(big.Int).SetString("123456789012345678901234567890123456", 10)
	d37, _ := new(big.Int).SetString("1234567890123456789012345678901234567", 10)
	w38 := []*big.Int{big.NewInt(49), new(big.Int).Mul(d36, big.NewInt(100)), d37, big.NewInt(-7)}
	w30 := []*big.Int{big.NewInt(1), big10(29), big.NewInt(-3), big.NewInt(0)}
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	defer b.Release()
	for i := range w20 {
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		b.Field(1).(*array.Decimal128Builder).Append(toDec128(w20[i]))
		b.Field(2).(*array.Decimal128Builder).Append(toDec128(w38[i]))
		b.Field(3).(*array.Decimal128Builder).Append(toDec128(w30[i]))
	}
	b.Field(0).(*array.Int64Builder).Append(int64(len(w20)))
	for k := 1; k < 4; k++ {
		b.Field(k).AppendNull()
	}
	rec := b.NewRecord()
	defer rec.Release()
	p := writeRecord(t, filepath.Join(t.TempDir(), "wideover.strata"), rec)
	_, conn := openDB(t)
	ctx := context.Background()

	const (
		i34 = "1234567890123456789012345678901234"     // 34 digits: 34+4 = 38
		i35 = "12345678901234567890123456789012345"    // 35
		i36 = "123456789012345678901234567890123456"   // 36: 36+2 = 38
		i37 = "1234567890123456789012345678901234567"  // 37
		i38 = "12345678901234567890123456789012345678" // 38
	)
	// want: "push" (pushed, DuckDB's rows), "fail" (DuckDB fails with and
	// without pushdown, nothing pushed) or "keep" (not pushed, DuckDB's rows)
	cases := []struct{ where, want string }{
		// the constant's integer digits + max(column scale, its scale) > 38
		{"w20 = " + i36, "fail"},
		{"w20 > " + i36, "fail"},
		{"w20 = " + i35, "fail"},
		{"w20 < -" + i35, "fail"},
		{i36 + " <= w20", "fail"},
		{"w38 = " + i37, "fail"},
		{"w38 >= " + i38, "fail"},
		{"w20 IN (0.0049, " + i36 + ")", "fail"},
		{"w20 NOT IN (0.0049, " + i36 + ")", "fail"},
		{"w20 = 0.0049 OR w20 = " + i36, "fail"},
		{"w20 BETWEEN 0.0049 AND " + i36, "fail"},
		{"w20 = " + i35 + ".1", "fail"},          // 35 + 4
		{"w20 = " + i34 + ".1", "push"},          // 34 + 4 = 38
		{"w20 = " + i34[:33] + ".12345", "push"}, // 33 + 5 = 38
		{"w20 = " + i34 + ".12345", "keep"},      // 39 digits: a DOUBLE
		{"w38 = " + i36[:35] + ".125", "fail"},   // w38's values do not fit scale 3
		{"w20 = " + i34 + "::HUGEINT", "push"},   // 34 + 4
		{"w20 = " + i35 + "::HUGEINT", "fail"},   // 35 + 4
		{"w20 = " + i34 + " + 1", "push"},        // folded: 34 digits
		{"w20 = " + i34 + " * 10", "fail"},       // folded: 35 digits
		// one type for the whole IN list or BETWEEN: 0.001 makes it scale 3,
		// in which a 36-digit integer does not fit, though each alone does
		{"w30 IN (0.001, " + i36 + ")", "fail"},
		{"w30 IN (" + i36 + ", 1, 0.001)", "fail"},
		{"w30 NOT IN (0.001, " + i36 + ")", "fail"},
		{"w30 IN (0.001, " + i35 + ")", "push"},
		{"w30 BETWEEN 0.001 AND " + i36, "fail"},
		{"w30 BETWEEN -" + i36 + " AND 0.001", "fail"},
		{"w30 BETWEEN 0.001 AND " + i35, "push"},
		{"w30 = 0.001 OR w30 = " + i36, "push"}, // separate comparisons
		// the boundary: exactly 38 digits in the comparison type
		{"w20 = " + i34, "push"},
		{"w20 < " + i34, "push"},
		{"w20 >= -" + i34, "push"},
		{"w20 IN (0.0049, " + i34 + ")", "push"},
		{"w20 = 0.0049 OR w20 = " + i34, "push"},
		{"w20 BETWEEN 0.0049 AND " + i34, "push"},
		{"w38 = " + i36, "push"},
		{"w38 > -" + i36, "push"},
		{"w38 IN (-0.07, " + i36 + ")", "push"},
		{"w30 = " + i38, "push"},
		{"w30 < " + i38, "push"},
		{"w30 IN (1, " + i38 + ")", "push"},
	}
	for _, c := range cases {
		q := "SELECT id, w20, w38, w30 FROM " + quoted(p) + " WHERE " + c.where + " ORDER BY id"
		want, wantErr := tryRows(conn, q)
		rq, pu, err := duckstrata.Pushdown(ctx, conn, q, duckstrata.WithPushAll())
		if err != nil {
			t.Fatalf("%s: %v", c.where, err)
		}
		got, gotErr := tryRows(conn, rq)
		filter := ""
		if len(pu) == 1 {
			filter = pu[0].Filter
		}
		if (wantErr == nil) != (gotErr == nil) {
			t.Errorf("%s\n=> %s\nerror %v, rows %v; without pushdown error %v, rows %v", c.where, rq, gotErr, got, wantErr, want)
			continue
		}
		if (c.want == "fail") != (wantErr != nil) {
			t.Errorf("%s: DuckDB without pushdown: error %v, the case wants %s", c.where, wantErr, c.want)
			continue
		}
		if wantErr == nil {
			sameRows(t, c.where+"\n=> "+rq, got, want)
		}
		if (c.want == "push") != (filter != "") {
			t.Errorf("%s: pushed %q, the case wants %s", c.where, filter, c.want)
		}
	}
}
