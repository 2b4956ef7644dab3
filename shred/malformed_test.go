package shred_test

import (
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"strata/shred"
)

// Arrays whose offsets point past their values (a malformed Arrow IPC
// batch, a caller's hand-built array) are an error naming the column, not
// a panic, and the streams are as they were: the next good batch shreds.
func TestMalformedArrays(t *testing.T) {
	mem := memory.DefaultAllocator
	vb := array.NewInt32Builder(mem)
	vb.AppendValues([]int32{1, 2}, nil)
	vals := vb.NewArray()
	vb.Release()
	defer vals.Release()
	lt := arrow.ListOf(arrow.PrimitiveTypes.Int32)
	badList := array.MakeFromData(array.NewData(lt, 2,
		[]*memory.Buffer{nil, memory.NewBufferBytes(arrow.Int32Traits.CastToBytes([]int32{0, 1, 100}))},
		[]arrow.ArrayData{vals.Data()}, 0, 0))
	defer badList.Release()
	// (arrow-go checks a string array's offsets when it makes one; not a
	// list's)
	st := arrow.StructOf(arrow.Field{Name: "l", Type: lt, Nullable: true})
	badStruct := array.MakeFromData(array.NewData(st, 2, []*memory.Buffer{nil}, []arrow.ArrayData{badList.Data()}, 0, 0))
	defer badStruct.Release()
	for _, bad := range []arrow.Array{badList, badStruct} {
		sch := arrow.NewSchema([]arrow.Field{{Name: "c", Type: bad.DataType(), Nullable: true}}, nil)
		s, err := shred.SchemaFromArrow(sch)
		if err != nil {
			t.Fatal(err)
		}
		sh := shred.NewShredder(s)
		rec := array.NewRecord(sch, []arrow.Array{bad}, 2)
		err = sh.Append(rec)
		rec.Release()
		if err == nil || !strings.Contains(err.Error(), `column "c"`) || !strings.Contains(err.Error(), "malformed") {
			t.Fatalf("%s: %v", bad.DataType(), err)
		}
		good, _, err := array.FromJSON(mem, bad.DataType(), strings.NewReader(map[arrow.Type]string{arrow.LIST: `[[7], null, []]`, arrow.STRUCT: `[{"l": [7]}, null, {"l": []}]`}[bad.DataType().ID()]))
		if err != nil {
			t.Fatal(err)
		}
		rec = array.NewRecord(sch, []arrow.Array{good}, 3)
		good.Release()
		if err := sh.Append(rec); err != nil {
			t.Fatalf("%s: the good batch after a bad one: %v", bad.DataType(), err)
		}
		rec.Release()
		for _, st := range sh.Streams() {
			if st.Len != 3 && st.Len != 1 {
				t.Errorf("%s: stream %d holds %d values after the rollback", bad.DataType(), st.ID, st.Len)
			}
		}
	}
}
