package node_test

import (
	"errors"
	"testing"

	"strata/specreader/node"
)

// TestRejects holds the decoders to the document's "a reader rejects"
// rules, one hand-made node per rule.
func TestRejects(t *testing.T) {
	i32 := byte(node.Int32)
	u8 := byte(node.Uint8)
	// trivU32 is a Trivial uint32 child (with its length prefix).
	trivU32 := func(xs ...uint32) []byte {
		b := []byte{2, byte(node.Uint32), 0, byte(len(xs))}
		for _, x := range xs {
			b = append(b, byte(x), byte(x>>8), byte(x>>16), byte(x>>24))
		}
		return append([]byte{byte(len(b))}, b...)
	}
	trivI32 := func(xs ...int32) []byte {
		b := []byte{2, byte(node.Int32), 0, byte(len(xs))}
		for _, x := range xs {
			b = append(b, byte(x), byte(x>>8), byte(x>>16), byte(x>>24))
		}
		return append([]byte{byte(len(b))}, b...)
	}
	cat := func(parts ...[]byte) []byte {
		var b []byte
		for _, p := range parts {
			b = append(b, p...)
		}
		return b
	}
	cases := []struct {
		name string
		node []byte
	}{
		{"constant 0 rows", []byte{1, i32, 0, 0, 1, 0, 0, 0}},
		{"constant short", []byte{1, i32, 0, 2, 1, 0, 0}},
		{"constant long", []byte{1, i32, 0, 2, 1, 0, 0, 0, 0}},
		{"constant bool 2", []byte{1, 1, 0, 2, 2}},
		{"constant binary len", []byte{1, 12, 0, 2, 3, 'a', 'b'}},
		{"trivial short", []byte{2, i32, 0, 2, 1, 0, 0, 0}},
		{"trivial bool long", []byte{2, 1, 0, 8, 1, 0}},
		{"trivial binary sum", cat([]byte{2, 12, 0, 2}, trivU32(1, 2), []byte{'a', 'b'})},
		{"trivial binary lengths type", cat([]byte{2, 12, 0, 2}, trivI32(1, 2), []byte{'a', 'b', 'c'})},
		{"fbw width", []byte{3, u8, 0, 1, 9, 0, 1, 0xff, 0xff}},
		{"fbw max below base", []byte{3, i32, 0, 1, 0, 5, 0, 0, 0, 4, 0, 0, 0}},
		{"fbw signed order", []byte{3, byte(node.Int8), 0, 1, 0, 0, 0xff}},
		{"fbw bool max", []byte{3, 1, 0, 1, 1, 0, 2, 0}},
		{"fbw offset above max", []byte{3, u8, 0, 1, 4, 0, 3, 0x0f}},
		{"fbw stream long", []byte{3, u8, 0, 1, 1, 0, 1, 1, 0}},
		{"fbw float", []byte{3, byte(node.Float32), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}},
		{"varint too few", []byte{5, i32, 0, 2, 1}},
		{"varint too many", []byte{5, i32, 0, 1, 1, 1}},
		{"varint dangling", []byte{5, i32, 0, 1, 1, 0x80}},
		{"varint too wide", []byte{5, u8, 0, 1, 0x80, 0x02}},
		{"varint zigzag too wide", []byte{5, byte(node.Int8), 0, 1, 0x80, 0x02}},
		{"varint overflow", []byte{5, byte(node.Uint64), 0, 1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02}},
		{"varint float", []byte{5, byte(node.Float64), 0, 0}},
		{"blockfor bs 0", []byte{4, i32, 0, 0, 0}},
		{"blockfor bs big", []byte{4, i32, 0, 0, 0x81, 0x80, 0x04}},
		{"blockfor min not a T", []byte{4, u8, 0, 1, 1, 0x80, 0x02, 0, 0, 0, 0}},
		{"blockfor spread leaves T", []byte{4, u8, 0, 1, 1, 0xff, 0x01, 1, 0, 0, 0, 0}},
		{"blockfor baseOff", []byte{4, u8, 0, 1, 1, 0, 1, 2, 0, 0}},
		{"blockfor width", []byte{4, u8, 0, 1, 1, 0, 1, 0, 2, 0, 0}},
		{"blockfor nexc", []byte{4, u8, 0, 1, 1, 0, 1, 0, 1, 2, 0}},
		{"blockfor trailing", []byte{4, u8, 0, 1, 1, 0, 1, 0, 1, 0, 0, 0}},
		{"blockfor value above max", []byte{4, u8, 0, 1, 1, 0, 2, 0, 2, 0, 0x03}},
		{"blockfor too many blocks", []byte{4, u8, 0, 9, 1, 0, 0, 0, 0, 0}},
		{"blockfor positions order", []byte{4, u8, 0, 2, 2, 0, 3, 0, 0, 2, 0x01, 0x03}},
		{"delta dspan", []byte{6, i32, 0, 1, 1, 0, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 0, 4, 2, 5, 0, 0}},
		{"delta first not a T", []byte{6, u8, 0, 1, 1, 0x80, 0x02, 0, 0, 0, 4, 2, 5, 0, 0}},
		{"delta child rows", []byte{6, u8, 0, 1, 1, 1, 0, 0, 0, 12, 2, 5, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0}},
		{"delta last", []byte{6, u8, 0, 1, 1, 1, 0, 0, 2, 4, 2, 5, 0, 0}},
		{"delta difference bound", []byte{6, u8, 0, 2, 2, 1, 0, 0, 2, 12, 2, 5, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0}},
		{"dod regular block 0", []byte{0x13, u8, 0, 1, 1, 0x80}},
		{"dod tag", []byte{0x13, u8, 0, 1, 1, 65, 0}},
		{"dod width on short block", []byte{0x13, u8, 0, 2, 2, 1, 0, 0, 0, 0}},
		{"dod first not a T", []byte{0x13, u8, 0, 1, 1, 0, 0x80, 0x04}},
		{"dod min above first", []byte{0x13, i32, 0, 2, 2, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0}},
		{"dod max below first", []byte{0x13, i32, 0, 2, 2, 0, 0, 0, 0, 1}},
		{"dod payload short", []byte{0x13, u8, 0, 3, 3, 8, 0, 0, 0, 0, 0}},
		{"dod trailing", []byte{0x13, u8, 0, 1, 1, 0, 0, 0}},
		{"dod value outside bounds", []byte{0x13, u8, 0, 2, 2, 0, 0, 2, 0, 1}},
		{"dod blocks past body", []byte{0x13, u8, 0, 5, 1, 0, 0}},
		{"rle zero length", cat([]byte{7, i32, 0, 1}, trivU32(0, 1), trivI32(1, 2))},
		{"rle sum", cat([]byte{7, i32, 0, 3}, trivU32(1, 1), trivI32(1, 2))},
		{"rle values rows", cat([]byte{7, i32, 0, 2}, trivU32(1, 1), trivI32(1))},
		{"rle no runs", cat([]byte{7, i32, 0, 2}, trivU32(), trivI32())},
		{"rle trailing", cat([]byte{7, i32, 0, 2}, trivU32(2), trivI32(1), []byte{0})},
		{"rle zstd flag", cat([]byte{7, i32, 1, 2, 0}, trivU32(2), trivI32(1))},
		{"dict order", cat([]byte{8, i32, 0, 2}, trivI32(2, 1), trivU32(0, 1))},
		{"dict duplicate", cat([]byte{8, i32, 0, 2}, trivI32(1, 1), trivU32(0, 1))},
		{"dict id", cat([]byte{8, i32, 0, 2}, trivI32(1, 2), trivU32(0, 2))},
		{"dict bool", cat([]byte{8, 1, 0, 0}, []byte{4, 2, 1, 0, 0}, trivU32())},
		{"dict empty alphabet", cat([]byte{8, i32, 0, 1}, trivI32(), trivU32(0))},
		{"mc positions order", cat([]byte{9, i32, 0, 3, 0, 0, 0, 0}, trivU32(1, 1), trivI32(5, 6))},
		{"mc position range", cat([]byte{9, i32, 0, 3, 0, 0, 0, 0}, trivU32(3), trivI32(5))},
		{"mc values rows", cat([]byte{9, i32, 0, 3, 0, 0, 0, 0}, trivU32(1), trivI32(5, 6))},
		{"sparse byte", cat([]byte{10, 1, 0, 3, 2}, trivU32(1))},
		{"sparse type", cat([]byte{10, i32, 0, 3, 1}, trivU32(1))},
		{"sparse trailing", cat([]byte{10, 1, 0, 3, 1}, trivU32(1), []byte{0})},
		{"nullable values rows", cat([]byte{11, i32, 0, 2, 5, 1, 1, 0, 2, 1}, trivI32(1))},
		{"nullable validity type", cat([]byte{11, i32, 0, 1}, trivI32(1), trivI32(1))},
		{"lag 0", cat([]byte{22, i32, 0, 2, 0}, trivI32(), trivI32(1, 2))},
		{"lag rows", cat([]byte{22, i32, 0, 2, 2}, trivI32(1, 2), trivI32())},
		{"lag diff type", cat([]byte{22, i32, 0, 2, 1}, trivI32(1), trivI32(2))},
		{"scaled step", []byte{24, i32, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 4, 2, 9, 0, 0}},
		{"scaled base", []byte{24, u8, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 2, 4, 2, 9, 0, 0}},
		{"scaled child type", []byte{24, i32, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 4, 2, 5, 0, 0}},
	}
	for _, c := range cases {
		_, err := node.Decode(c.node, nil)
		if err == nil {
			t.Errorf("%s: % x accepted", c.name, c.node)
			continue
		}
		if !errors.Is(err, node.ErrCorrupt) && !errors.Is(err, node.ErrUnsupported) {
			t.Errorf("%s: %v wraps neither ErrCorrupt nor ErrUnsupported", c.name, err)
		}
		if goErr := goReaderDecode(c.node); goErr == nil {
			t.Logf("%s: rejected here (%v), accepted by the Go reader", c.name, err)
		} else if testing.Verbose() {
			t.Logf("%s: %v (Go reader: %v)", c.name, err, goErr)
		}
	}
}
