package interop

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// ipcUnionFile writes an IPC file of one union column, sparse or dense,
// of 20 rows, each the string "abc" of member s (type code 1).
func ipcUnionFile(t *testing.T, mode arrow.UnionMode) []byte {
	t.Helper()
	ut := arrow.UnionOf(mode, []arrow.Field{
		{Name: "i", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
	}, []arrow.UnionTypeCode{0, 1})
	sch := arrow.NewSchema([]arrow.Field{{Name: "u", Type: ut, Nullable: true}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	defer b.Release()
	ub := b.Field(0).(array.UnionBuilder)
	for i := range 20 {
		ub.Append(1)
		if mode == arrow.SparseMode {
			ub.Child(0).(*array.Int32Builder).Append(int32(i))
		}
		ub.Child(1).(*array.StringBuilder).Append("abc")
	}
	rec := b.NewRecord()
	defer rec.Release()
	return ipcBytes(t, false, []arrow.Record{rec})
}

// int32s is the little-endian bytes of vs.
func int32s(vs ...int32) []byte {
	out := make([]byte, 4*len(vs))
	for i, v := range vs {
		binary.LittleEndian.PutUint32(out[4*i:], uint32(v))
	}
	return out
}

// TestIPCCorruptUnion checks that a corrupt union column of an IPC file
// is refused with an error naming it: string offsets of a member running
// backwards or past its data, a type code naming no member, a dense
// union's offset past its member. Before, validateBatch checked no union,
// and the conversion to the union's struct stand-in panicked outside any
// recover (slice bounds out of range in array.String.Value), ending the
// process.
func TestIPCCorruptUnion(t *testing.T) {
	for _, mode := range []arrow.UnionMode{arrow.SparseMode, arrow.DenseMode} {
		good := ipcUnionFile(t, mode)
		if n, err := readIPC(good, "t.arrow"); err != nil || n != 20 {
			t.Fatalf("%v: the file as written: %d rows, %v", mode, n, err)
		}
		strOffs := bytes.Index(good, int32s(0, 3, 6, 9))
		codes := bytes.Index(good, bytes.Repeat([]byte{1}, 20))
		if strOffs < 0 || codes < 0 {
			t.Fatalf("%v: string offsets at %d, type codes at %d", mode, strOffs, codes)
		}
		type edit struct {
			name string
			at   int
			b    []byte
			want string
		}
		edits := []edit{
			{"member offsets descending", strOffs + 4*5, int32s(1), "offsets descend"},
			{"member offset past its data", strOffs + 4*5, int32s(1 << 30), "offsets descend"},
			{"type code of no member", codes + 3, []byte{7}, "names no member"},
			{"negative type code", codes + 3, []byte{0x80}, "names no member"},
		}
		if mode == arrow.DenseMode {
			offs := bytes.Index(good, int32s(0, 1, 2, 3, 4, 5))
			if offs < 0 {
				t.Fatal("dense: no union offsets")
			}
			edits = append(edits,
				edit{"offset past its member", offs + 4*7, int32s(20), "outside member"},
				edit{"negative offset", offs + 4*7, int32s(-2), "outside member"})
		}
		for _, e := range edits {
			bad := bytes.Clone(good)
			copy(bad[e.at:], e.b)
			n, err := readIPC(bad, "t.arrow")
			if err == nil || !strings.Contains(err.Error(), e.want) || !strings.Contains(err.Error(), "column u") {
				t.Errorf("%v, %s: %d rows, %v; want an error on column u saying %q", mode, e.name, n, err, e.want)
			}
		}
	}
}
