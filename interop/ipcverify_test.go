package interop

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// ipcSample writes a small table (an int64, a string with nulls and a
// struct holding a list) as an Arrow IPC file (stream false) or stream,
// with the given writer options (compression).
func ipcSample(t testing.TB, stream bool, opts ...ipc.Option) []byte {
	t.Helper()
	mem := memory.DefaultAllocator
	inner := arrow.StructOf(arrow.Field{Name: "xs", Type: arrow.ListOf(arrow.PrimitiveTypes.Int32), Nullable: true})
	md := arrow.NewMetadata([]string{"origin"}, []string{"test"})
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "s", Type: inner, Nullable: true},
	}, &md)
	b := array.NewRecordBuilder(mem, sch)
	defer b.Release()
	for i := range 50 {
		b.Field(0).(*array.Int64Builder).Append(int64(i * 7))
		if i%5 == 0 {
			b.Field(1).AppendNull()
		} else {
			b.Field(1).(*array.StringBuilder).Append(strings.Repeat("ab", i%4) + "x")
		}
		sb := b.Field(2).(*array.StructBuilder)
		sb.Append(true)
		lb := sb.FieldBuilder(0).(*array.ListBuilder)
		lb.Append(true)
		for j := range i % 3 {
			lb.ValueBuilder().(*array.Int32Builder).Append(int32(i + j))
		}
	}
	rec := b.NewRecord()
	defer rec.Release()
	return ipcBytes(t, stream, []arrow.Record{rec, rec}, opts...)
}

// ipcBytes writes recs (of one schema) as an Arrow IPC file, or stream,
// with the given writer options.
func ipcBytes(t testing.TB, stream bool, recs []arrow.Record, opts ...ipc.Option) []byte {
	t.Helper()
	var buf bytes.Buffer
	opts = append(opts, ipc.WithSchema(recs[0].Schema()))
	var w interface {
		Write(arrow.Record) error
		Close() error
	}
	if stream {
		w = ipc.NewWriter(&buf, opts...)
	} else {
		fw, err := ipc.NewFileWriter(&buf, opts...)
		if err != nil {
			t.Fatal(err)
		}
		w = fw
	}
	for _, rec := range recs {
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// ipcFirstBuffers returns, for the first record batch of IPC file b,
// where its body starts and its buffers' (offset, length) pairs.
func ipcFirstBuffers(t *testing.T, b []byte) (bodyAt int, bufs [][2]int) {
	t.Helper()
	n := int(binary.LittleEndian.Uint32(b[len(b)-10:]))
	footer := b[len(b)-10-n : len(b)-10]
	f, err := fbRoot(footer)
	if err != nil {
		t.Fatal(err)
	}
	bstart, nb, err := f.vector(3, 24)
	if err != nil || nb != 2 {
		t.Fatalf("record batches: %d, %v", nb, err)
	}
	off := int(binary.LittleEndian.Uint64(footer[bstart:]))
	metaLen := int(binary.LittleEndian.Uint32(footer[bstart+8:]))
	meta := b[off+8 : off+metaLen]
	m, err := fbRoot(meta)
	if err != nil {
		t.Fatal(err)
	}
	rb, _, err := m.table(2)
	if err != nil {
		t.Fatal(err)
	}
	start, k, err := rb.vector(2, 16)
	if err != nil {
		t.Fatal(err)
	}
	for j := range k {
		p := start + 16*j
		bufs = append(bufs, [2]int{int(binary.LittleEndian.Uint64(meta[p:])), int(binary.LittleEndian.Uint64(meta[p+8:]))})
	}
	return off + metaLen, bufs
}

// readIPC imports b whole (name's extension tells file or stream) and
// returns the rows read and the first error.
func readIPC(b []byte, name string) (int64, error) {
	r, err := OpenReaderAt(name, bytes.NewReader(b), int64(len(b)), nil, ReadOptions{})
	if err != nil {
		return 0, err
	}
	defer r.Close()
	var rows int64
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return rows, nil
		}
		if err != nil {
			return rows, err
		}
		rows += rec.NumRows()
		rec.Release()
	}
}

// ipcFooterSchema returns the footer of an IPC file and its schema table.
func ipcFooterSchema(t *testing.T, b []byte) (footerAt int, schema fbTable) {
	t.Helper()
	n := int(binary.LittleEndian.Uint32(b[len(b)-10:]))
	footerAt = len(b) - 10 - n
	f, err := fbRoot(b[footerAt : len(b)-10])
	if err != nil {
		t.Fatal(err)
	}
	s, ok, err := f.table(1)
	if err != nil || !ok {
		t.Fatalf("no schema in the footer: %v", err)
	}
	return footerAt, s
}

// ipcStreamSchema returns where the first message of an IPC stream (its
// schema) starts and the schema table.
func ipcStreamSchema(t *testing.T, b []byte) (metaAt int, schema fbTable) {
	t.Helper()
	metaAt = 8 // continuation marker and length
	n := int(binary.LittleEndian.Uint32(b[4:]))
	m, err := fbRoot(b[metaAt : metaAt+n])
	if err != nil {
		t.Fatal(err)
	}
	s, ok, err := m.table(2)
	if err != nil || !ok {
		t.Fatalf("no schema in the first message: %v", err)
	}
	return metaAt, s
}

// vectorLenAt returns where, in the whole file, the length of the vector
// field i of table t (inside the buffer starting at base) is stored.
func vectorLenAt(t *testing.T, tb fbTable, i, base int) int {
	t.Helper()
	p, ok, err := tb.ref(i)
	if err != nil || !ok {
		t.Fatalf("vector field %d absent: %v", i, err)
	}
	return base + p
}

// TestIPCHostileVectorLengths: a vector length in the schema (custom
// metadata, fields) set to two billion made arrow-go allocate tens of
// gigabytes for it, which ends the process with an out-of-memory error
// no recover catches. The import now refuses such metadata.
func TestIPCHostileVectorLengths(t *testing.T) {
	for _, stream := range []bool{false, true} {
		for _, field := range []int{1, 2} { // Schema.fields, Schema.custom_metadata
			good := ipcSample(t, stream)
			name := "t.arrow"
			var at int
			if stream {
				name = "t.arrows"
				base, s := ipcStreamSchema(t, good)
				at = vectorLenAt(t, s, field, base)
			} else {
				base, s := ipcFooterSchema(t, good)
				at = vectorLenAt(t, s, field, base)
			}
			if rows, err := readIPC(good, name); err != nil || rows != 100 {
				t.Fatalf("%s: intact sample: %d rows, %v", name, rows, err)
			}
			bad := bytes.Clone(good)
			binary.LittleEndian.PutUint32(bad[at:], 0x7ffffff0)
			_, err := readIPC(bad, name)
			if !errors.Is(err, errIPCMeta) {
				t.Errorf("%s, schema vector %d of 2^31 elements: %v, want a malformed-metadata error", name, field, err)
			}
		}
	}
}

// TestIPCFieldLoop: an offset that wraps around 2^32 can point a field's
// child back at the field, and arrow-go, following it, recursed until
// the stack overflowed (fatal). Such an offset is refused.
func TestIPCFieldLoop(t *testing.T) {
	good := ipcSample(t, false)
	base, s := ipcFooterSchema(t, good)
	// the third field (struct s) and its one child
	start, n, err := s.vector(1, 4)
	if err != nil || n != 3 {
		t.Fatalf("fields: %d, %v", n, err)
	}
	elem := start + 8
	fpos, _, err := fbFollow(s.b, elem)
	if err != nil {
		t.Fatal(err)
	}
	f, err := fbTableAt(s.b, fpos)
	if err != nil {
		t.Fatal(err)
	}
	cstart, cn, err := f.vector(5, 4)
	if err != nil || cn != 1 {
		t.Fatalf("children: %d, %v", cn, err)
	}
	bad := bytes.Clone(good)
	// the child's offset, wrapping, leads back to the struct field itself
	binary.LittleEndian.PutUint32(bad[base+cstart:], uint32(fpos-cstart))
	if _, err := readIPC(bad, "t.arrow"); !errors.Is(err, errIPCMeta) {
		t.Errorf("a field that is its own child: %v, want a malformed-metadata error", err)
	}
}

// TestIPCHostileCompressedLength: a compressed body buffer declares the
// length it inflates to, and arrow-go allocated whatever it said.
func TestIPCHostileCompressedLength(t *testing.T) {
	good := ipcSample(t, false, ipc.WithZstd())
	if rows, err := readIPC(good, "t.arrow"); err != nil || rows != 100 {
		t.Fatalf("intact sample: %d rows, %v", rows, err)
	}
	// the first record batch's first non-empty buffer
	bodyAt, bufs := ipcFirstBuffers(t, good)
	for j, buf := range bufs {
		if buf[1] == 0 {
			continue
		}
		for _, declared := range []int64{1 << 40, -7} {
			bad := bytes.Clone(good)
			binary.LittleEndian.PutUint64(bad[bodyAt+buf[0]:], uint64(declared))
			if _, err := readIPC(bad, "t.arrow"); !errors.Is(err, errIPCMeta) {
				t.Errorf("buffer %d declaring %d bytes: %v, want a malformed-metadata error", j, declared, err)
			}
		}
		return
	}
	t.Fatal("no compressed buffer found")
}

// TestIPCCorruptOffsets: string offsets that run past their data used to
// reach the writer, which failed with an encoder's index panic (or
// sized an allocation by the bogus offset); the batch is now refused
// naming the column.
func TestIPCCorruptOffsets(t *testing.T) {
	for _, v := range []struct {
		name  string
		index int // of the offset overwritten (50 values, 51 offsets)
		value uint32
		want  string
	}{{"descending", 20, 1, "offsets descend"}, {"past the data", 50, 1 << 30, "out of bounds"}} {
		good := ipcSample(t, false)
		// the offsets of column name are its record batch's third buffer
		// (validity, offsets, data of id come first: id has no nulls, so
		// its validity buffer is empty)
		bodyAt, bufs := ipcFirstBuffers(t, good)
		boff := bufs[3][0] // name's offsets
		bad := bytes.Clone(good)
		binary.LittleEndian.PutUint32(bad[bodyAt+boff+4*v.index:], v.value)
		_, err := readIPC(bad, "t.arrow")
		// (arrow-go refuses a last offset past the data itself)
		if err == nil || !strings.Contains(err.Error(), v.want) || strings.Contains(err.Error(), "panic") {
			t.Errorf("%s offset: %v, want an error saying %q", v.name, err, v.want)
		}
	}
}
