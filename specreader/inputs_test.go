package specreader

import (
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestOracleArrowInputs writes the non-canonical Arrow input types Schema
// §5 accepts (large/view strings and binaries, dictionaries, large lists,
// decimal32/64, every time and duration unit) and compares the values read.
func TestOracleArrowInputs(t *testing.T) {
	const n = 3000
	mem := memory.NewGoAllocator()
	type col struct {
		f   arrow.Field
		arr arrow.Array
	}
	var cols []col
	addCol := func(name string, b array.Builder, fill func(i int)) {
		for i := 0; i < n; i++ {
			if i%9 == 4 {
				b.AppendNull()
				continue
			}
			fill(i)
		}
		a := b.NewArray()
		cols = append(cols, col{arrow.Field{Name: name, Type: a.DataType(), Nullable: true}, a})
	}
	ls := array.NewLargeStringBuilder(mem)
	addCol("large_string", ls, func(i int) { ls.Append(fmt.Sprintf("v%d", i%37)) })
	sv := array.NewStringViewBuilder(mem)
	addCol("string_view", sv, func(i int) { sv.Append(fmt.Sprintf("a fairly long view string %d", i%101)) })
	lb := array.NewBinaryBuilder(mem, arrow.BinaryTypes.LargeBinary)
	addCol("large_binary", lb, func(i int) { lb.Append([]byte{byte(i), byte(i >> 8)}) })
	bv := array.NewBinaryViewBuilder(mem)
	addCol("binary_view", bv, func(i int) { bv.Append([]byte(fmt.Sprint(i * i))) })
	db := array.NewDictionaryBuilder(mem, &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int16, ValueType: arrow.BinaryTypes.String}).(*array.BinaryDictionaryBuilder)
	addCol("dict_string", db, func(i int) { _ = db.AppendString([]string{"red", "green", "blue"}[i%3]) })
	ll := array.NewLargeListBuilder(mem, arrow.PrimitiveTypes.Int64)
	addCol("large_list", ll, func(i int) {
		ll.Append(true)
		for j := 0; j < i%4; j++ {
			ll.ValueBuilder().(*array.Int64Builder).Append(int64(i * j))
		}
	})
	d32 := array.NewDecimal32Builder(mem, &arrow.Decimal32Type{Precision: 9, Scale: 3})
	addCol("decimal32", d32, func(i int) { d32.Append(decimal.Decimal32(int32(i*7919%1000000 - 500000))) })
	d64 := array.NewDecimal64Builder(mem, &arrow.Decimal64Type{Precision: 18, Scale: -2})
	addCol("decimal64", d64, func(i int) { d64.Append(decimal.Decimal64(int64(i) * 123456789)) })
	t32s := array.NewTime32Builder(mem, &arrow.Time32Type{Unit: arrow.Second})
	addCol("time32_s", t32s, func(i int) { t32s.Append(arrow.Time32(i * 17 % 86400)) })
	t64ns := array.NewTime64Builder(mem, &arrow.Time64Type{Unit: arrow.Nanosecond})
	addCol("time64_ns", t64ns, func(i int) { t64ns.Append(arrow.Time64(int64(i) * 28_800_000_123 % 86_400_000_000_000)) })
	for _, u := range []arrow.TimeUnit{arrow.Second, arrow.Microsecond, arrow.Nanosecond} {
		b := array.NewDurationBuilder(mem, &arrow.DurationType{Unit: u})
		addCol("duration_"+u.String(), b, func(i int) { b.Append(arrow.Duration(int64(i) * 1_000_003)) })
		tb := array.NewTimestampBuilder(mem, &arrow.TimestampType{Unit: u})
		addCol("ts_"+u.String(), tb, func(i int) { tb.Append(arrow.Timestamp(int64(i)*1_000_003 - 1_500_000)) })
	}
	fields := make([]arrow.Field, len(cols))
	arrs := make([]arrow.Array, len(cols))
	for i, c := range cols {
		fields[i], arrs[i] = c.f, c.arr
	}
	sch := arrow.NewSchema(fields, nil)
	rec := array.NewRecord(sch, arrs, n)
	f, err := Open(writeStrata(t, sch, []arrow.Record{rec}, nil))
	if err != nil {
		t.Fatal(err)
	}
	got, err := f.ReadAll()
	addKinds(f.Kinds)
	if err != nil {
		t.Fatal(err)
	}
	compareTable(t, "inputs", got, sch, []arrow.Record{rec})
	for _, c := range got {
		t.Logf("%s: kind %d unit %d precision %d scale %d", c.Name, c.Node.Kind, c.Node.Unit, c.Node.Precision, c.Node.Scale)
	}
}
