package read_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"strata/encoding"
	"strata/encoding/all"
	"strata/format"
	"strata/iox"
	"strata/read"
	"strata/shred"
)

// hostileSchema has three int32 columns, a uint16 column, a string column
// and a list of int32: streams 0 (a), 1 (b), 2 (c), 3 (u), 4 (s), then the
// list's lengths (5) and values (6).
func hostileSchema(t *testing.T) []byte {
	as := arrow.NewSchema([]arrow.Field{
		{Name: "a", Type: arrow.PrimitiveTypes.Int32},
		{Name: "b", Type: arrow.PrimitiveTypes.Int32},
		{Name: "c", Type: arrow.PrimitiveTypes.Int32},
		{Name: "u", Type: arrow.PrimitiveTypes.Uint16},
		{Name: "s", Type: arrow.BinaryTypes.String},
		{Name: "l", Type: arrow.ListOf(arrow.PrimitiveTypes.Int32)},
	}, nil)
	sch, err := shred.SchemaFromArrow(as)
	if err != nil {
		t.Fatal(err)
	}
	return sch.Marshal()
}

// plainNode encodes vals with the default policy.
func plainNode(t *testing.T, vals any) []byte {
	node, _, err := all.Policy().Encode(nil, vals)
	if err != nil {
		t.Fatal(err)
	}
	return node
}

func correlatedNode(t *testing.T, ref int, diff []int32) []byte {
	n := encoding.AppendHeader(nil, encoding.KindCorrelated, encoding.Int32, len(diff))
	n = binary.AppendUvarint(n, uint64(ref))
	return encoding.AppendChild(n, plainNode(t, diff))
}

func sharedRef(t *testing.T, chunk int, ids []uint32) []byte {
	n := encoding.AppendHeader(nil, encoding.KindSharedDictionary, encoding.Binary, len(ids))
	n = append(n, 1)
	n = binary.AppendUvarint(n, uint64(chunk))
	return encoding.AppendChild(n, plainNode(t, ids))
}

func sharedDef(t *testing.T, typ encoding.Type, alphabet any, rows int) []byte {
	n := encoding.AppendHeader(nil, encoding.KindSharedDictionary, typ, rows)
	n = append(n, 0)
	return encoding.AppendChild(n, plainNode(t, alphabet))
}

func strs(ss ...string) *encoding.Bytes {
	b := &encoding.Bytes{Offsets: []int32{0}}
	for _, s := range ss {
		b.Append([]byte(s))
	}
	return b
}

// hostileFile writes one stripe of 4 rows whose streams hold the given
// chunks (by stream id; a missing stream gets a plain chunk).
func hostileFile(t *testing.T, chunks map[int][][]byte) []byte {
	var buf bytes.Buffer
	fw := format.NewWriter(&buf, format.WriterOptions{})
	plain := map[int][]byte{
		0: plainNode(t, []int32{10, 20, 30, 40}),
		1: plainNode(t, []int32{11, 21, 31, 41}),
		2: plainNode(t, []int32{12, 22, 32, 42}),
		3: plainNode(t, []uint16{1, 2, 3, 4}),
		4: plainNode(t, strs("x", "y", "x", "z")),
		5: plainNode(t, []uint32{1, 0, 2, 1}),
		6: plainNode(t, []int32{7, 8, 9, 10}),
	}
	for id := 0; id < 7; id++ {
		cs, ok := chunks[id]
		if !ok {
			cs = [][]byte{plain[id]}
		}
		for _, c := range cs {
			rows := 0
			if len(c) > 3 {
				r, _ := binary.Uvarint(c[3:])
				rows = int(r)
			}
			if err := fw.WriteChunk(id, c, rows, nil); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := fw.FinishStripe(4); err != nil {
		t.Fatal(err)
	}
	if err := fw.AddSection("schema", hostileSchema(t)); err != nil {
		t.Fatal(err)
	}
	if err := fw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// readAllColumns scans every column, then takes every row, then filters
// and aggregates column a, returning the first error.
func readAllColumns(data []byte) error {
	f, err := read.Open(context.Background(), iox.Bytes(data), read.Options{})
	if err != nil {
		return err
	}
	for _, cols := range [][]string{nil, {"a"}, {"s"}, {"u"}, {"l"}} {
		sc, err := f.Scan(read.ScanOptions{Columns: cols})
		if err != nil {
			return err
		}
		for {
			rec, err := sc.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				return err
			}
			rec.Release()
		}
	}
	rec, err := f.Take([]int64{0, 3}, nil)
	if err != nil {
		return err
	}
	rec.Release()
	if _, _, err := f.Aggregate("sum(a), min(s)", "a > 0"); err != nil {
		return err
	}
	return nil
}

// TestResolveValid checks that a hand-built file like the hostile cases'
// reads correctly: a Correlated column and a shared dictionary.
func TestResolveValid(t *testing.T) {
	data := hostileFile(t, map[int][][]byte{
		0: {correlatedNode(t, 1, []int32{-1, -1, -1, -1})},
		4: {sharedDef(t, encoding.Binary, strs("x", "y", "z"), 0), sharedRef(t, 0, []uint32{0, 1, 0, 2})},
	})
	f, err := read.Open(context.Background(), iox.Bytes(data), read.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := f.Take([]int64{0, 1, 2, 3}, []string{"a", "s"})
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Release()
	a := rec.Column(0).(interface{ Value(int) int32 })
	s := rec.Column(1).(interface{ Value(int) string })
	for i, want := range []int32{10, 20, 30, 40} {
		if a.Value(i) != want {
			t.Errorf("a[%d] = %d, want %d", i, a.Value(i), want)
		}
	}
	for i, want := range []string{"x", "y", "x", "z"} {
		if s.Value(i) != want {
			t.Errorf("s[%d] = %q, want %q", i, s.Value(i), want)
		}
	}
	if err := readAllColumns(data); err != nil {
		t.Fatal(err)
	}
}

// TestResolveHostile checks that chunks referring to a missing, oversized
// or wrong shared dictionary or reference column, or to references that
// chain or cycle, fail with a clear error and no panic.
func TestResolveHostile(t *testing.T) {
	def := sharedDef(t, encoding.Binary, strs("x", "y", "z"), 0)
	for _, c := range []struct {
		name   string
		chunks map[int][][]byte
		want   string
	}{
		{"shared chunk missing", map[int][][]byte{4: {def, sharedRef(t, 5, []uint32{0, 1, 0, 2})}}, "refers to chunk 5 of 2"},
		{"shared refers to itself", map[int][][]byte{4: {def, sharedRef(t, 1, []uint32{0, 1, 0, 2})}}, "refers to itself"},
		{"shared refers to a chunk with rows", map[int][][]byte{4: {sharedRef(t, 1, []uint32{0, 1}), sharedRef(t, 0, []uint32{0, 1})}}, "not a shared definition"},
		{"shared id beyond the alphabet", map[int][][]byte{4: {def, sharedRef(t, 0, []uint32{0, 1, 7, 2})}}, "beyond alphabet"},
		{"shared definition of another type", map[int][][]byte{4: {sharedDef(t, encoding.Int32, []int32{1, 2}, 0), sharedRef(t, 0, []uint32{0, 1, 0, 1})}}, "holds int32"},
		{"shared definition unsorted", map[int][][]byte{4: {sharedDef(t, encoding.Binary, strs("y", "x"), 0), sharedRef(t, 0, []uint32{0, 1, 0, 1})}}, "not strictly increasing"},
		{"shared definition with rows", map[int][][]byte{4: {sharedDef(t, encoding.Binary, strs("x", "y"), 2), sharedRef(t, 0, []uint32{0, 1, 0, 1})}}, "declares 2 rows"},
		{"shared definition oversized", map[int][][]byte{4: {oversizedDef(), sharedRef(t, 0, []uint32{0, 1, 0, 1})}}, "limit"},
		{"reference stream missing", map[int][][]byte{0: {correlatedNode(t, 99, []int32{1, 2, 3, 4})}}, "not a stream with one entry per row"},
		{"reference to itself", map[int][][]byte{0: {correlatedNode(t, 0, []int32{1, 2, 3, 4})}}, "refer to itself"},
		{"reference of another type", map[int][][]byte{0: {correlatedNode(t, 3, []int32{1, 2, 3, 4})}}, "holds uint16"},
		{"reference inside a list", map[int][][]byte{0: {correlatedNode(t, 6, []int32{1, 2, 3, 4})}}, "one entry per row"},
		{"references chain", map[int][][]byte{
			0: {correlatedNode(t, 1, []int32{1, 2, 3, 4})},
			1: {correlatedNode(t, 2, []int32{1, 2, 3, 4})},
		}, "references do not chain"},
		{"references cycle", map[int][][]byte{
			0: {correlatedNode(t, 1, []int32{1, 2, 3, 4})},
			1: {correlatedNode(t, 0, []int32{1, 2, 3, 4})},
		}, "references do not chain"},
		{"correlated below the root", map[int][][]byte{0: {nested(t)}}, "chunk's root"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := readAllColumns(hostileFile(t, c.chunks))
			if err == nil {
				t.Fatal("read succeeded")
			}
			t.Log(err)
			if !errors.Is(err, encoding.ErrCorrupt) && !errors.Is(err, encoding.ErrLimit) && !errors.Is(err, encoding.ErrUnsupported) {
				t.Errorf("error %v wraps no sentinel", err)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q does not say %q", err, c.want)
			}
		})
	}
}

// oversizedDef is a definition whose alphabet declares 2^30 rows.
func oversizedDef() []byte {
	al := encoding.AppendHeader(nil, encoding.KindTrivial, encoding.Binary, 1<<30)
	n := encoding.AppendHeader(nil, encoding.KindSharedDictionary, encoding.Binary, 0)
	n = append(n, 0)
	return encoding.AppendChild(n, al)
}

// nested is an RLE chunk whose values child is a Correlated node.
func nested(t *testing.T) []byte {
	n := encoding.AppendHeader(nil, encoding.KindRLE, encoding.Int32, 4)
	n = encoding.AppendChild(n, plainNode(t, []uint32{4}))
	return encoding.AppendChild(n, correlatedNode(t, 1, []int32{5}))
}

// TestNoResolver checks that nodes referring outside themselves, opened
// without a file reader's resolver, report it instead of misreading.
func TestNoResolver(t *testing.T) {
	for _, node := range [][]byte{correlatedNode(t, 1, []int32{1, 2}), sharedRef(t, 0, []uint32{0, 1})} {
		_, err := encoding.Open(node, all.Options())
		if !errors.Is(err, encoding.ErrUnsupported) || !strings.Contains(err.Error(), "resolve") {
			t.Errorf("open without a resolver: %v", err)
		}
	}
}
