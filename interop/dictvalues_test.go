package interop_test

import (
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata/interop"
)

// numericDictSample is a batch of dictionaries of numbers, dates and
// decimals (pandas categoricals of anything but
// text), nulls among the indices and among the dictionary values, one
// inside a struct and one inside a list.
func numericDictSample(t *testing.T, n int) arrow.Record {
	mem := memory.DefaultAllocator
	dict := func(idx, val arrow.DataType) arrow.DataType {
		return &arrow.DictionaryType{IndexType: idx, ValueType: val}
	}
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "i64", Type: dict(arrow.PrimitiveTypes.Int8, arrow.PrimitiveTypes.Int64), Nullable: true},
		{Name: "f64", Type: dict(arrow.PrimitiveTypes.Uint16, arrow.PrimitiveTypes.Float64), Nullable: true},
		{Name: "day", Type: dict(arrow.PrimitiveTypes.Int32, arrow.FixedWidthTypes.Date32), Nullable: true},
		{Name: "dec", Type: dict(arrow.PrimitiveTypes.Int16, &arrow.Decimal128Type{Precision: 12, Scale: 2}), Nullable: true},
		{Name: "st", Type: arrow.StructOf(arrow.Field{Name: "k", Type: dict(arrow.PrimitiveTypes.Int8, arrow.PrimitiveTypes.Int32), Nullable: true}), Nullable: true},
		{Name: "l", Type: arrow.ListOf(dict(arrow.PrimitiveTypes.Int8, arrow.PrimitiveTypes.Uint32)), Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(mem, sch)
	defer b.Release()
	for i := 0; i < n; i++ {
		null := i%9 == 4
		app := func(k int, f func()) {
			if null {
				b.Field(k).AppendNull()
			} else {
				f()
			}
		}
		app(0, func() { must(t, b.Field(0).(*array.Int64DictionaryBuilder).Append(int64(i%5)*1_000_000_007)) })
		app(1, func() { must(t, b.Field(1).(*array.Float64DictionaryBuilder).Append(float64(i%7)/3)) })
		app(2, func() { must(t, b.Field(2).(*array.Date32DictionaryBuilder).Append(arrow.Date32(19000+i%4))) })
		app(3, func() {
			must(t, b.Field(3).(*array.Decimal128DictionaryBuilder).Append(decimal128.FromI64(int64(i%3)*12345-5)))
		})
		app(4, func() {
			sb := b.Field(4).(*array.StructBuilder)
			sb.Append(true)
			must(t, sb.FieldBuilder(0).(*array.Int32DictionaryBuilder).Append(int32(-i%3)))
		})
		app(5, func() {
			lb := b.Field(5).(*array.ListBuilder)
			lb.Append(true)
			for j := 0; j < i%3; j++ {
				must(t, lb.ValueBuilder().(*array.Uint32DictionaryBuilder).Append(uint32(j*7)))
			}
		})
	}
	return b.NewRecord()
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// dictWith returns a dictionary array of the given indices (nil: null)
// over values, of type dt.
func dictWith(t *testing.T, dt *arrow.DictionaryType, values string, idx []int) arrow.Array {
	mem := memory.DefaultAllocator
	vals, _, err := array.FromJSON(mem, dt.ValueType, strings.NewReader(values))
	must(t, err)
	defer vals.Release()
	ib := array.NewInt8Builder(mem)
	defer ib.Release()
	for _, k := range idx {
		if k < 0 {
			ib.AppendNull()
		} else {
			ib.Append(int8(k))
		}
	}
	ia := ib.NewArray()
	defer ia.Release()
	return array.NewDictionaryArray(dt, ia, vals)
}

// TestNumericDictionaries: dictionaries of values other than text (which
// arrow-go's dictionary builders cannot all make, and pandas writes for
// categoricals of numbers and dates) import as their values, read back as
// those values, and export as the dictionaries they were.
func TestNumericDictionaries(t *testing.T) {
	rec := numericDictSample(t, 300)
	defer rec.Release()
	// Dictionaries arrow-go's builders cannot make (of booleans; of
	// float16, whose builder panics), null values and null indices in both.
	bt := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: arrow.FixedWidthTypes.Boolean}
	ht := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: arrow.FixedWidthTypes.Float16}
	idx := make([]int, rec.NumRows())
	for i := range idx {
		idx[i] = i % 3
		if i%9 == 4 {
			idx[i] = -1
		}
	}
	flag := dictWith(t, bt, `[true, null, false]`, idx)
	defer flag.Release()
	half := dictWith(t, ht, `[0.25, -1.5, null]`, idx)
	defer half.Release()
	sch := arrow.NewSchema(append(rec.Schema().Fields(),
		arrow.Field{Name: "flag", Type: bt, Nullable: true}, arrow.Field{Name: "half", Type: ht, Nullable: true}), nil)
	rec = array.NewRecord(sch, append(rec.Columns(), flag, half), rec.NumRows())
	defer rec.Release()

	roundTripStandIn(t, rec, 100, nil, "out.arrow")
}

// Restoring more distinct values than the dictionary's index type can
// name (batches of a source whose dictionaries differed, read back as
// one) is an error, not a wrapped index.
func TestRestoreDictionaryIndexOverflow(t *testing.T) {
	mem := memory.DefaultAllocator
	b := array.NewInt64Builder(mem)
	defer b.Release()
	for i := 0; i < 300; i++ {
		b.Append(int64(i))
	}
	col := b.NewArray()
	defer col.Release()
	stored := arrow.NewSchema([]arrow.Field{{Name: "v", Type: arrow.PrimitiveTypes.Int64}}, nil)
	rec := array.NewRecord(stored, []arrow.Array{col}, 300)
	defer rec.Release()
	for _, c := range []struct {
		idx arrow.DataType
		ok  bool
	}{{arrow.PrimitiveTypes.Int8, false}, {arrow.PrimitiveTypes.Uint8, false}, {arrow.PrimitiveTypes.Int16, true}} {
		to := arrow.NewSchema([]arrow.Field{{Name: "v", Type: &arrow.DictionaryType{IndexType: c.idx, ValueType: arrow.PrimitiveTypes.Int64}}}, nil)
		out, err := interop.RestoreRecord(mem, rec, to)
		if (err == nil) != c.ok {
			t.Fatalf("index %s: err %v", c.idx, err)
		}
		if err != nil {
			if !strings.Contains(err.Error(), "do not fit dictionary indices") {
				t.Errorf("index %s: %v", c.idx, err)
			}
			continue
		}
		d := out.Column(0).(*array.Dictionary)
		if d.Dictionary().Len() != 300 || d.GetValueIndex(299) != 299 || d.Dictionary().(*array.Int64).Value(d.GetValueIndex(123)) != 123 {
			t.Errorf("index %s: restored %v", c.idx, d)
		}
		out.Release()
	}
}
