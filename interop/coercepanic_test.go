package interop

import (
	"io"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// oneBatch is a RecordReader of one batch.
type oneBatch struct {
	rec  arrow.Record
	done bool
}

func (o *oneBatch) Schema() *arrow.Schema { return o.rec.Schema() }
func (o *oneBatch) Close() error          { return nil }
func (o *oneBatch) Next() (arrow.Record, error) {
	if o.done {
		return nil, io.EOF
	}
	o.done = true
	o.rec.Retain()
	return o.rec, nil
}

// TestCoercePanicIsError: a batch no reader checked (a hand-built sparse
// union whose string member's offsets descend) made the conversion to
// storable types panic where nothing recovered it, ending the process;
// the import now fails with an error.
func TestCoercePanicIsError(t *testing.T) {
	ut := arrow.UnionOf(arrow.SparseMode, []arrow.Field{
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
	}, []arrow.UnionTypeCode{0})
	mem := memory.DefaultAllocator
	offsets := memory.NewBufferBytes(int32s(0, 3, 1))
	sd := array.NewData(arrow.BinaryTypes.String, 2, []*memory.Buffer{nil, offsets, memory.NewBufferBytes([]byte("abc"))}, nil, 0, 0)
	defer sd.Release()
	codes := memory.NewBufferBytes([]byte{0, 0})
	d := array.NewData(ut, 2, []*memory.Buffer{nil, codes}, []arrow.ArrayData{sd}, 0, 0)
	u := array.MakeFromData(d)
	d.Release()
	defer u.Release()
	sch := arrow.NewSchema([]arrow.Field{{Name: "u", Type: ut, Nullable: true}}, nil)
	rec := array.NewRecord(sch, []arrow.Array{u}, 2)
	defer rec.Release()
	r := coerce(&oneBatch{rec: rec}, mem)
	out, err := r.Next()
	if err == nil {
		out.Release()
		t.Fatal("a union member with descending offsets converted without an error")
	}
	if !strings.Contains(err.Error(), "malformed") {
		t.Errorf("error %v, want one saying the data is malformed", err)
	}
}
