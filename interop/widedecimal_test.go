package interop_test

import (
	"errors"
	"math/big"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal256"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata/encoding"
	"strata/interop"
)

// TestWideDecimalText: decimal256 columns of more than 38 digits import as
// their exact decimal text and export as the same decimal256 values,
// extremes of precision and scale included.
func TestWideDecimalText(t *testing.T) {
	mem := memory.DefaultAllocator
	types := []*arrow.Decimal256Type{{Precision: 76, Scale: 10}, {Precision: 39, Scale: 0}, {Precision: 76, Scale: 76}, {Precision: 50, Scale: 49}}
	fields := make([]arrow.Field, len(types))
	for i, dt := range types {
		fields[i] = arrow.Field{Name: dt.String(), Type: dt, Nullable: true}
	}
	sch := arrow.NewSchema(fields, nil)
	b := array.NewRecordBuilder(mem, sch)
	defer b.Release()
	for k, dt := range types {
		max := new(big.Int).Sub(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(dt.Precision)), nil), big.NewInt(1))
		vals := []*big.Int{max, new(big.Int).Neg(max), big.NewInt(0), big.NewInt(1), big.NewInt(-500), big.NewInt(123456789)}
		for i := 0; i < 200; i++ {
			db := b.Field(k).(*array.Decimal256Builder)
			if i%13 == 5 {
				db.AppendNull()
				continue
			}
			v := vals[i%len(vals)]
			if i >= len(vals) {
				v = new(big.Int).Mul(big.NewInt(int64(i*i-977)), new(big.Int).Exp(big.NewInt(7), big.NewInt(int64(i%80)), nil))
				if v.CmpAbs(max) > 0 {
					v.Rem(v, max)
				}
			}
			db.Append(decimal256.FromBigInt(v))
		}
	}
	rec := b.NewRecord()
	defer rec.Release()
	roundTripStandIn(t, rec, 70, func(got []arrow.Record) {
		// the text itself, independent of arrow-go's formatting
		s := got[0].Column(2).(*array.String)
		if v := s.Value(3); v != "0."+strings.Repeat("0", 75)+"1" {
			t.Errorf("1 at scale 76 stored as %q", v)
		}
		if v := s.Value(4); v != "-0."+strings.Repeat("0", 73)+"500" {
			t.Errorf("-500 at scale 76 stored as %q", v)
		}
	}, "out.parquet")
}

// Text that is not a decimal of the column's scale, exactly, is corrupt.
func TestRestoreWideDecimalCorrupt(t *testing.T) {
	mem := memory.DefaultAllocator
	dt := &arrow.Decimal256Type{Precision: 40, Scale: 2}
	to := arrow.NewSchema([]arrow.Field{{Name: "d", Type: dt, Nullable: true}}, nil)
	stored := arrow.NewSchema([]arrow.Field{{Name: "d", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	for _, bad := range []string{"1.2", "1.234", "12", "abc", "1e5", "--1.00", ".50", "1..0", "", "-", "1,00", "+1.00",
		"1" + strings.Repeat("0", 80) + ".00", strings.Repeat("9", 39) + ".00"} {
		sb := array.NewStringBuilder(mem)
		sb.Append(bad)
		col := sb.NewArray()
		sb.Release()
		rec := array.NewRecord(stored, []arrow.Array{col}, 1)
		col.Release()
		out, err := interop.RestoreRecord(mem, rec, to)
		rec.Release()
		if err == nil {
			out.Release()
			t.Errorf("%q restored as %s", bad, dt)
			continue
		}
		if !errors.Is(err, encoding.ErrCorrupt) {
			t.Errorf("%q: %v, want ErrCorrupt", bad, err)
		}
	}
	sb := array.NewStringBuilder(mem)
	sb.AppendValues([]string{"-0.05", "0.00", "123.45"}, nil)
	col := sb.NewArray()
	sb.Release()
	rec := array.NewRecord(stored, []arrow.Array{col}, 3)
	col.Release()
	defer rec.Release()
	out, err := interop.RestoreRecord(mem, rec, to)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Release()
	d := out.Column(0).(*array.Decimal256)
	for i, want := range []int64{-5, 0, 12345} {
		if d.Value(i) != decimal256.FromI64(want) {
			t.Errorf("value %d: %v, want %d", i, d.Value(i).BigInt(), want)
		}
	}
}
