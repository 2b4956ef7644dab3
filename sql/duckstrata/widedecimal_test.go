package duckstrata_test

import (
	"context"
	"fmt"
	"math/big"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata"
	"strata/sql/duckstrata"
)

// wideNumbers are unscaled values for the wide decimal columns: zero and
// its neighbours, values equal in their low 64 bits and different in the
// high ones (so a comparison of the low words alone, or of bytes, orders
// them wrongly), the 64-bit edges, and the extremes of 38 digits.
func wideNumbers() []*big.Int {
	two64 := new(big.Int).Lsh(big.NewInt(1), 64)
	max38 := new(big.Int).Sub(new(big.Int).Exp(big.NewInt(10), big.NewInt(38), nil), big.NewInt(1))
	var out []*big.Int
	for _, v := range []int64{0, 1, -1, 100, 101, -100, -101, 12345, 1 << 62, -(1 << 62)} {
		out = append(out, big.NewInt(v))
	}
	for _, hi := range []int64{1, -1, 2, -2, 1 << 40} {
		v := new(big.Int).Mul(big.NewInt(hi), two64)
		out = append(out, v.Add(v, big.NewInt(12345)))
	}
	edges := []*big.Int{
		new(big.Int).Sub(two64, big.NewInt(1)), two64, new(big.Int).Neg(two64),
		new(big.Int).Lsh(big.NewInt(1), 63), new(big.Int).Neg(new(big.Int).Lsh(big.NewInt(1), 63)),
	}
	out = append(out, edges...)
	return append(out, max38, new(big.Int).Neg(max38))
}

// wideCols are the columns' DECIMAL(precision, scale).
var wideCols = []struct {
	name        string
	prec, scale int32
}{{"w38", 38, 2}, {"w20", 20, 4}, {"w30", 30, 0}}

// fitDigits reduces v to at most prec digits, keeping its sign and low
// digits, so that every column holds legal values of its precision.
func fitDigits(v *big.Int, prec int32) *big.Int {
	lim := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(prec)), nil)
	r := new(big.Int).Rem(v, lim) // truncated: keeps v's sign
	return r
}

// decText writes an unscaled value with scale digits after the point.
func decText(v *big.Int, scale int32) string {
	d := new(big.Int).Abs(v).String()
	if scale > 0 {
		if len(d) <= int(scale) {
			d = strings.Repeat("0", int(scale)-len(d)+1) + d
		}
		d = d[:len(d)-int(scale)] + "." + d[len(d)-int(scale):]
	}
	if v.Sign() < 0 {
		return "-" + d
	}
	return d
}

func toDec128(v *big.Int) decimal128.Num {
	u := new(big.Int).Set(v)
	if u.Sign() < 0 {
		u.Add(u, new(big.Int).Lsh(big.NewInt(1), 128))
	}
	lo := new(big.Int).And(u, new(big.Int).SetUint64(^uint64(0))).Uint64()
	hi := new(big.Int).Rsh(u, 64).Uint64()
	return decimal128.New(int64(hi), lo)
}

// TestWidePushdown checks that comparisons, BETWEEN and IN on decimals of
// 19 to 38 digits are pushed into the scan and give, value by value, the
// rows DuckDB gives for the same query without pushdown: negatives, values
// differing only in their high 64 bits, the extremes, nulls, integer and
// decimal constants, constants folded from expressions, and constants with
// more fractional digits than the column (pushed where DuckDB compares
// them exactly and without error, else left to DuckDB, and then failing
// as they fail without pushdown). Where the whole WHERE clause was pushed,
// the scan alone, without DuckDB's filter, must return those rows too, so
// a filter that keeps too much is not hidden by DuckDB applying the clause
// again.
func TestWidePushdown(t *testing.T) {
	fields := []arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}}
	for _, c := range wideCols {
		fields = append(fields, arrow.Field{Name: c.name, Type: &arrow.Decimal128Type{Precision: c.prec, Scale: c.scale}, Nullable: true})
	}
	sch := arrow.NewSchema(fields, nil)
	nums := wideNumbers()
	r := rand.New(rand.NewPCG(7, 19))
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	defer b.Release()
	const rows = 4000
	for i := range rows {
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		for k, c := range wideCols {
			if r.IntN(9) == 0 {
				b.Field(1 + k).AppendNull()
				continue
			}
			v := nums[r.IntN(len(nums))]
			if r.IntN(3) == 0 {
				v = big.NewInt(r.Int64N(2001) - 1000)
			}
			b.Field(1 + k).(*array.Decimal128Builder).Append(toDec128(fitDigits(v, c.prec)))
		}
	}
	rec := b.NewRecord()
	defer rec.Release()
	p := writeRecordWith(t, filepath.Join(t.TempDir(), "wide.strata"), rec, &strata.WriteOptions{StripeBytes: 16 << 10})
	_, conn := openDB(t)
	ctx := context.Background()
	if got := rowsOf(t, conn, "SELECT typeof(w38), typeof(w20), typeof(w30) FROM "+quoted(p)+" LIMIT 1"); got[0][0] != "DECIMAL(38,2)" || got[0][2] != "DECIMAL(30,0)" {
		t.Fatalf("types %v", got)
	}

	// Constants for each column: its stored values' text (a few), values
	// one unit beside them, integers, and texts with more fractional
	// digits than the column.
	lits := map[string][]string{}
	for _, c := range wideCols {
		var ls []string
		for _, v := range nums {
			v = fitDigits(v, c.prec)
			ls = append(ls, decText(v, c.scale), decText(new(big.Int).Add(v, big.NewInt(1)), c.scale))
		}
		ls = append(ls, "0", "-1", "7", "184467440737095516160", "-3.5", "1.005", "-1.00005", "0.123456789012345678901",
			"1.5 + 1", "CAST('12.5' AS DECIMAL(38,2))", "12345::HUGEINT")
		lits[c.name] = ls
	}
	var wheres []string
	for _, c := range wideCols {
		ls := lits[c.name]
		pick := func() string { return ls[r.IntN(len(ls))] }
		for _, op := range []string{"=", "<>", "<", "<=", ">", ">="} {
			for range 12 {
				wheres = append(wheres, fmt.Sprintf("%s %s %s", c.name, op, pick()), fmt.Sprintf("%s %s %s", pick(), op, c.name))
			}
		}
		for range 12 {
			wheres = append(wheres,
				fmt.Sprintf("%s BETWEEN %s AND %s", c.name, pick(), pick()),
				fmt.Sprintf("%s NOT BETWEEN %s AND %s", c.name, pick(), pick()),
				fmt.Sprintf("%s IN (%s, %s, %s)", c.name, pick(), pick(), pick()),
				fmt.Sprintf("%s NOT IN (%s, %s)", c.name, pick(), pick()),
				fmt.Sprintf("(%s < %s OR %s IS NULL) AND id %% 3 = 0", c.name, pick(), c.name))
		}
		wheres = append(wheres, c.name+" IS NULL", c.name+" IS NOT NULL")
	}
	// Each literal shape on every column at least once, and the overflow
	// case: DuckDB casts DECIMAL(38,2) to DECIMAL(38,3) to compare it with
	// 1.005, which fails on values of 37 or 38 digits.
	for _, c := range wideCols {
		for _, l := range lits[c.name] {
			wheres = append(wheres, fmt.Sprintf("%s <= %s", c.name, l))
		}
	}

	pushedOps := map[string]int{}
	pushed, failed := 0, 0
	for i, where := range wheres {
		q := "SELECT id, w38, w20, w30 FROM " + quoted(p) + " WHERE " + where + " ORDER BY id"
		want, wantErr := tryRows(conn, q)
		rq, pu, err := duckstrata.Pushdown(ctx, conn, q, duckstrata.WithPushAll())
		if err != nil {
			t.Fatalf("case %d: %s: %v", i, q, err)
		}
		got, gotErr := tryRows(conn, rq)
		if (wantErr == nil) != (gotErr == nil) {
			t.Fatalf("case %d: %s\n=> %s\nerror %v, without pushdown %v", i, where, rq, gotErr, wantErr)
		}
		if wantErr != nil {
			failed++
			if len(pu) == 1 && pu[0].Filter != "" && strings.Contains(wantErr.Error(), "out of range") {
				t.Errorf("case %d: %s: pushed %s, where DuckDB fails at run time: %v", i, where, pu[0].Filter, wantErr)
			}
			continue
		}
		sameRows(t, fmt.Sprintf("case %d: %s\n=> %s", i, where, rq), got, want)
		if len(pu) != 1 || pu[0].Filter == "" {
			continue
		}
		pushed++
		f := pu[0].Filter
		for _, c := range wideCols {
			for _, op := range []string{" = ", " != ", " < ", " <= ", " > ", " >= ", " BETWEEN ", " IN ("} {
				if strings.Contains(f, c.name+op) {
					pushedOps[c.name+op]++
				}
			}
		}
		if pu[0].Kept == 0 {
			// Strata alone: the scan's filter without DuckDB's.
			alone := rowsOf(t, conn, "SELECT id, w38, w20, w30 FROM "+duckstrata.FunctionName+"("+quoted(p)+", filter := "+quoted(f)+") ORDER BY id")
			sameRows(t, fmt.Sprintf("case %d: %s: the scan alone with %s", i, where, f), alone, want)
		}
	}
	t.Logf("%d cases, %d pushed, %d failing alike with and without pushdown; pushed operators %v", len(wheres), pushed, failed, pushedOps)
	for _, c := range wideCols {
		for _, op := range []string{" = ", " != ", " < ", " <= ", " > ", " >= ", " BETWEEN ", " IN ("} {
			if pushedOps[c.name+op] == 0 {
				t.Errorf("no case pushed %s%s", c.name, op)
			}
		}
	}

	// What is and is not pushed, named: more fractional digits than the
	// scale are pushed where DuckDB's comparison type holds every value of
	// the column, else kept.
	for where, want := range map[string]string{
		"w20 < 1.00005":                   "w20 < 1.00005",
		"w20 = 0.123456789012345678901":   "w20 = 0.123456789012345678901",
		"w30 IN (1, -2.5, 3)":             "w30 IN (1, -2.5, 3)",
		"w38 BETWEEN -1.5 AND 2":          "w38 BETWEEN -1.5 AND 2",
		"w38 < 1.005":                     "",
		"w30 = 0.123456789":               "",
		"w38 = 1.5 AND w20 >= -0.0000001": "w38 = 1.5 AND w20 >= -0.0000001",
	} {
		q := "SELECT id FROM " + quoted(p) + " WHERE " + where
		_, pu, err := duckstrata.Pushdown(ctx, conn, q, duckstrata.WithPushAll())
		if err != nil {
			t.Fatal(err)
		}
		if len(pu) != 1 || pu[0].Filter != want {
			t.Errorf("%s: pushed %+v, want filter %q", where, pu, want)
		}
	}
}

// TestWidePushdownStruct is TestWidePushdown for wide decimal fields
// inside struct columns: s.amount DECIMAL(38,2) and s.inner.d
// DECIMAL(30,0) in a nullable struct s whose null rows still hold values
// in the fields' arrays beneath them (as a writer other than Arrow's
// builders may leave them), and t.w DECIMAL(20,4) in a struct of no nulls
// of its own. Each query gives, value by value, the rows DuckDB gives
// without pushdown, and where the whole clause was pushed the scan alone
// gives them too, so a filter reading a field's value under a null
// struct is seen.
func TestWidePushdownStruct(t *testing.T) {
	type wf struct {
		path        string
		prec, scale int32
	}
	wfs := []wf{{"s.amount", 38, 2}, {"s.inner.d", 30, 0}, {"t.w", 20, 4}}
	dec := func(f wf) arrow.DataType { return &arrow.Decimal128Type{Precision: f.prec, Scale: f.scale} }
	nums := wideNumbers()
	r := rand.New(rand.NewPCG(11, 38))
	const rows = 3000
	mem := memory.DefaultAllocator
	// the fields' arrays, each with nulls of its own
	kids := make([]arrow.Array, len(wfs))
	for k, f := range wfs {
		db := array.NewDecimal128Builder(mem, dec(f).(*arrow.Decimal128Type))
		for range rows {
			if r.IntN(9) == 0 {
				db.AppendNull()
				continue
			}
			v := nums[r.IntN(len(nums))]
			if r.IntN(3) == 0 {
				v = big.NewInt(r.Int64N(2001) - 1000)
			}
			db.Append(toDec128(fitDigits(v, f.prec)))
		}
		kids[k] = db.NewArray()
		db.Release()
		defer kids[k].Release()
	}
	nullsOf := func(mod int) (*memory.Buffer, int) {
		buf := memory.NewResizableBuffer(mem)
		buf.Resize(int(bitutil.BytesForBits(rows)))
		n := 0
		for i := range rows {
			ok := i%mod != 1
			bitutil.SetBitTo(buf.Bytes(), i, ok)
			if !ok {
				n++
			}
		}
		return buf, n
	}
	innerValid, innerNulls := nullsOf(13)
	defer innerValid.Release()
	inner, err := array.NewStructArrayWithNulls([]arrow.Array{kids[1]}, []string{"d"}, innerValid, innerNulls, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer inner.Release()
	sValid, sNulls := nullsOf(5)
	defer sValid.Release()
	sArr, err := array.NewStructArrayWithNulls([]arrow.Array{kids[0], inner}, []string{"amount", "inner"}, sValid, sNulls, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer sArr.Release()
	tArr, err := array.NewStructArray([]arrow.Array{kids[2]}, []string{"w"})
	if err != nil {
		t.Fatal(err)
	}
	defer tArr.Release()
	ib := array.NewInt64Builder(mem)
	for i := range rows {
		ib.Append(int64(i))
	}
	ids := ib.NewArray()
	ib.Release()
	defer ids.Release()
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "s", Type: sArr.DataType(), Nullable: true},
		{Name: "t", Type: tArr.DataType()},
	}, nil)
	rec := array.NewRecord(sch, []arrow.Array{ids, sArr, tArr}, rows)
	defer rec.Release()
	p := writeRecordWith(t, filepath.Join(t.TempDir(), "widestruct.strata"), rec, &strata.WriteOptions{StripeBytes: 16 << 10})
	_, conn := openDB(t)
	ctx := context.Background()
	if got := rowsOf(t, conn, "SELECT typeof(s.amount), typeof(s.inner.d), typeof(t.w) FROM "+quoted(p)+" LIMIT 1"); got[0][0] != "DECIMAL(38,2)" || got[0][1] != "DECIMAL(30,0)" || got[0][2] != "DECIMAL(20,4)" {
		t.Fatalf("types %v", got)
	}

	var wheres []string
	for _, f := range wfs {
		var ls []string
		for _, v := range nums {
			v = fitDigits(v, f.prec)
			ls = append(ls, decText(v, f.scale), decText(new(big.Int).Add(v, big.NewInt(1)), f.scale))
		}
		ls = append(ls, "0", "-1", "-3.5", "1.5 + 1")
		pick := func() string { return ls[r.IntN(len(ls))] }
		for _, op := range []string{"=", "<>", "<", "<=", ">", ">="} {
			wheres = append(wheres, fmt.Sprintf("%s %s %s", f.path, op, pick()), fmt.Sprintf("%s %s %s", pick(), op, f.path))
		}
		wheres = append(wheres,
			fmt.Sprintf("%s BETWEEN %s AND %s", f.path, pick(), pick()),
			fmt.Sprintf("%s NOT BETWEEN %s AND %s", f.path, pick(), pick()),
			fmt.Sprintf("%s IN (%s, %s, %s)", f.path, pick(), pick(), pick()),
			fmt.Sprintf("%s NOT IN (%s, %s)", f.path, pick(), pick()),
			fmt.Sprintf("%s <= 1.005", f.path),
			fmt.Sprintf("%s IS NULL", f.path),
			fmt.Sprintf("%s IS NOT NULL AND id %% 2 = 0", f.path))
	}
	wheres = append(wheres, "s.amount >= 0 AND s.inner.d < 0", "(s.amount < 0 OR s.amount IS NULL) AND t.w <> 0")

	pushed, failed := 0, 0
	const cols = "id, s.amount, s.inner.d, t.w, s IS NULL, s.inner IS NULL"
	for i, where := range wheres {
		q := "SELECT " + cols + " FROM " + quoted(p) + " WHERE " + where + " ORDER BY id"
		want, wantErr := tryRows(conn, q)
		rq, pu, err := duckstrata.Pushdown(ctx, conn, q, duckstrata.WithPushAll())
		if err != nil {
			t.Fatalf("case %d: %s: %v", i, q, err)
		}
		got, gotErr := tryRows(conn, rq)
		if (wantErr == nil) != (gotErr == nil) {
			t.Errorf("case %d: %s\n=> %s\nerror %v, without pushdown %v", i, where, rq, gotErr, wantErr)
			continue
		}
		if wantErr != nil {
			failed++
			if len(pu) == 1 && pu[0].Filter != "" && strings.Contains(wantErr.Error(), "out of range") {
				t.Errorf("case %d: %s: pushed %s, where DuckDB fails at run time: %v", i, where, pu[0].Filter, wantErr)
			}
			continue
		}
		sameRows(t, fmt.Sprintf("case %d: %s\n=> %s", i, where, rq), got, want)
		if len(pu) != 1 || pu[0].Filter == "" {
			continue
		}
		pushed++
		if pu[0].Kept == 0 {
			alone, err := tryRows(conn, "SELECT "+cols+" FROM "+duckstrata.FunctionName+"("+quoted(p)+", filter := "+quoted(pu[0].Filter)+") ORDER BY id")
			if err != nil {
				t.Errorf("case %d: %s: the scan alone with %s: %v", i, where, pu[0].Filter, err)
				continue
			}
			sameRows(t, fmt.Sprintf("case %d: %s: the scan alone with %s", i, where, pu[0].Filter), alone, want)
		}
	}
	t.Logf("%d cases, %d pushed, %d failing alike with and without pushdown", len(wheres), pushed, failed)
	if pushed == 0 {
		t.Errorf("no comparison on a wide decimal field was pushed")
	}
	// Named as on top-level columns: a field's precision and scale decide
	// which constants with more fractional digits are pushed.
	for where, want := range map[string]string{
		"s.amount BETWEEN -1.5 AND 2":        "s.amount BETWEEN -1.5 AND 2",
		"s.amount < 1.005":                   "",
		"s.inner.d IN (1, -2.5, 3)":          "s.inner.d IN (1, -2.5, 3)",
		"s.inner.d = 0.123456789":            "",
		"t.w < 1.00005":                      "t.w < 1.00005",
		"s.amount = 1.5 AND t.w >= -0.00001": "s.amount = 1.5 AND t.w >= -0.00001",
	} {
		_, pu, err := duckstrata.Pushdown(ctx, conn, "SELECT id FROM "+quoted(p)+" WHERE "+where, duckstrata.WithPushAll())
		if err != nil {
			t.Fatal(err)
		}
		if len(pu) != 1 || pu[0].Filter != want {
			t.Errorf("%s: pushed %+v, want filter %q", where, pu, want)
		}
	}
}
