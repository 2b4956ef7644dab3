package interop

import (
	"bytes"
	"math"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestJSONNonFiniteFloats checks that JSON output writes NaN and the
// infinities, which JSON has no numbers for, as null, at the top level and
// inside a list, instead of failing part way through a file.
func TestJSONNonFiniteFloats(t *testing.T) {
	mem := memory.DefaultAllocator
	fb := array.NewFloat64Builder(mem)
	fb.AppendValues([]float64{1.5, math.NaN(), math.Inf(1), math.Inf(-1)}, nil)
	f := fb.NewArray()
	defer f.Release()
	lb := array.NewListBuilder(mem, arrow.PrimitiveTypes.Float32)
	vb := lb.ValueBuilder().(*array.Float32Builder)
	for range 4 {
		lb.Append(true)
		vb.AppendValues([]float32{float32(math.NaN()), 2}, nil)
	}
	l := lb.NewArray()
	defer l.Release()
	sch := arrow.NewSchema([]arrow.Field{{Name: "f", Type: f.DataType()}, {Name: "l", Type: l.DataType()}}, nil)
	rec := array.NewRecord(sch, []arrow.Array{f, l}, 4)
	defer rec.Release()
	var buf bytes.Buffer
	if err := WriteJSONRows(&buf, rec); err != nil {
		t.Fatal(err)
	}
	want := `{"f":1.5,"l":[null,2]}
{"f":null,"l":[null,2]}
{"f":null,"l":[null,2]}
{"f":null,"l":[null,2]}
`
	if buf.String() != want {
		t.Errorf("wrote\n%s\nwant\n%s", buf.String(), want)
	}
}
