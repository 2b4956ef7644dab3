package interop

import (
	"math"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestSameAsPrevious checks the run boundaries export gives run-end
// encoded columns: equal values and nulls join a run, -0 and 0 do not
// (a run keeps one value's bits), identical NaNs do.
func TestSameAsPrevious(t *testing.T) {
	mem := memory.NewGoAllocator()
	fb := array.NewFloat64Builder(mem)
	defer fb.Release()
	nan := math.NaN()
	fb.AppendValues([]float64{1, 1, 0, math.Copysign(0, -1), nan, nan, 2, 2}, []bool{true, true, true, true, true, true, false, false})
	f := fb.NewArray()
	defer f.Release()
	sb := array.NewStringBuilder(mem)
	defer sb.Release()
	sb.AppendValues([]string{"a", "a", "b", "", ""}, []bool{true, true, true, false, true})
	s := sb.NewArray()
	defer s.Release()
	bb := array.NewBooleanBuilder(mem)
	defer bb.Release()
	bb.AppendValues([]bool{true, true, false}, nil)
	b := bb.NewArray()
	defer b.Release()
	lb := array.NewListBuilder(mem, arrow.PrimitiveTypes.Int32)
	defer lb.Release()
	for _, v := range [][]int32{{1}, {1}, {2}} {
		lb.Append(true)
		lb.ValueBuilder().(*array.Int32Builder).AppendValues(v, nil)
	}
	l := lb.NewArray()
	defer l.Release()
	fs := array.NewSlice(f, 2, 6)
	defer fs.Release()
	empty := array.MakeFromData(array.NewData(arrow.PrimitiveTypes.Float64, 0, []*memory.Buffer{nil, nil}, nil, 0, 0))
	defer empty.Release()
	_ = sameAsPrevious(empty) // an empty column without a values buffer
	for _, c := range []struct {
		a    arrow.Array
		want []bool // same as the previous row, from row 1
	}{
		{f, []bool{true, false, false, false, true, false, true}},
		{s, []bool{true, false, false, false}},
		{b, []bool{true, false}},
		{l, []bool{true, false}},
		{fs, []bool{false, false, true}},
	} {
		same := sameAsPrevious(c.a)
		for i, w := range c.want {
			if got := same(i + 1); got != w {
				t.Errorf("%s row %d: same %v, want %v", c.a.DataType(), i+1, got, w)
			}
		}
	}
}
