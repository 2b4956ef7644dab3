package node_test

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"

	"strata/encoding"
	"strata/encoding/all"
	"strata/specreader/node"
)

// FieldText (kind 26) nodes, from FORMAT.md "FieldText (kind 26)" alone:
// the chapter's worked example byte by byte, hand-built nodes with known
// text, each rule the chapter calls corrupt or unsupported, and the Go
// writer and reader as black boxes (gaps/fieldtext.md).

// fd is a field in a skeleton: 0xFF 0x01.
const fd = "\xff\x01"

// fdNode is a FieldText node of rows rows: F = len(modes), the modes,
// then each child framed, in the order given (skeletons, ids, then for
// each slot its values and, in mode 1, its widths).
func fdNode(rows int, modes []byte, kids ...[]byte) []byte {
	return fdNodeF(rows, byte(len(modes)), modes, kids...)
}

// fdNodeF is fdNode with F given apart from the modes.
func fdNodeF(rows int, f byte, modes []byte, kids ...[]byte) []byte {
	body := append([]byte{f}, modes...)
	for _, k := range kids {
		body = append(body, ftChildNode(k)...)
	}
	return ftNode(26, 12, rows, body)
}

// fdIDs is a Trivial uint32 ids child.
func fdIDs(ids ...uint32) []byte { return ftTrivialUint32(ids...) }

// fdU64Const is a Constant uint64 node of rows rows holding v.
func fdU64Const(rows int, v uint64) []byte {
	b := make([]byte, 8)
	for k := range b {
		b[k] = byte(v >> (8 * k))
	}
	return ftNode(1, 9, rows, b)
}

// fdU32Const is a Constant uint32 node of rows rows holding v.
func fdU32Const(rows int, v uint32) []byte {
	return ftNode(1, 8, rows, []byte{byte(v), byte(v >> 8), byte(v >> 16), byte(v >> 24)})
}

// fdBinConst is a Constant binary node of rows rows holding s.
func fdBinConst(rows int, s string) []byte {
	return ftNode(1, 12, rows, ftUvarint(nil, uint64(len(s))), []byte(s))
}

// fdDecodeBoth decodes b with both readers.
var fdDecoders = map[string]func([]byte) (node.Values, error){
	"second reader": func(b []byte) (node.Values, error) { return node.Decode(b, nil) },
	"Go reader":     func(b []byte) (node.Values, error) { return goDecode(b, nil) },
}

// fdExample is the chapter's worked example, as listed.
const fdExample = `
1a 0c 00 03
01
01
26
   02 0c 00 02 0e
   03 08 00 02 01 09 00 00 00 0a
      00 00 00 02
   47 45 54 20 2f 75 2f ff 01
   74 6f 6f 6b 20 ff 01 20 6d 73
0e 03 08 00 03 01
   00 00 00 00 01 00 00 00 04
19 03 09 00 03 0a
   05 00 00 00 00 00 00 00
   00 04 00 00 00 00 00 00
   02 ec 0f 00
07 02 06 00 03 01 04 02`

// TestFieldTextExample walks the chapter's worked example byte by byte:
// each line of the listing decodes to what its comment says, the whole
// node decodes to the three values in both readers, and the Go writer,
// forced to the listing's tree, writes exactly these bytes.
func TestFieldTextExample(t *testing.T) {
	b := ftHex(t, fdExample)
	want := []string{"GET /u/7", "GET /u/1024", "took 05 ms"}

	// 1a 0c 00 03: prefix: FieldText, binary, 3 rows.
	h, err := node.ParseHeader(b)
	if err != nil || h.Kind != 26 || h.Type != node.Binary || h.Flags != 0 || h.Rows != 3 {
		t.Fatalf("prefix: %+v %v", h, err)
	}
	body := h.Body
	// 01: F = 1. 01: slot 0 in mode 1 (widths).
	if body[0] != 1 || body[1] != 1 {
		t.Fatalf("F %d, mode %d", body[0], body[1])
	}
	rest := body[2:]
	child := func(what string, size int) []byte {
		t.Helper()
		c, r, err := node.Child(rest, what)
		if err != nil || len(c) != size {
			t.Fatalf("%s: %d bytes (%v), the listing says %d", what, len(c), err, size)
		}
		rest = r
		return c
	}
	// 26: skeletons (38 bytes): Trivial binary, 2 rows.
	skel := child("skeletons", 38)
	sh, err := node.ParseHeader(skel)
	if err != nil || sh.Kind != 2 || sh.Type != node.Binary || sh.Rows != 2 {
		t.Fatalf("skeletons prefix: %+v %v", sh, err)
	}
	// 0e …: lengths (14 bytes): FixedBitWidth uint32, 2 rows, w 1, base 9,
	// max 10, packed [0 1]: lengths 9 and 10.
	lens, data, err := node.Child(sh.Body, "lengths")
	if err != nil || len(lens) != 14 {
		t.Fatalf("lengths: %d bytes (%v)", len(lens), err)
	}
	lh, _ := node.ParseHeader(lens)
	if lh.Kind != 3 || lh.Type != node.Uint32 || lh.Rows != 2 || lh.Body[0] != 1 {
		t.Errorf("lengths prefix: %+v", lh)
	}
	if v, err := node.Decode(lens, nil); err != nil || fmt.Sprint(v.Uint) != "[9 10]" {
		t.Errorf("lengths: %v %v", v.Uint, err)
	}
	// "GET /u/" and a field; "took ", a field, " ms".
	if string(data) != "GET /u/"+fd+"took "+fd+" ms" {
		t.Errorf("skeleton bytes %q", data)
	}
	if v, err := node.Decode(skel, nil); err != nil || fmt.Sprintf("%q", ftStrings(v)) != fmt.Sprintf("%q", []string{"GET /u/" + fd, "took " + fd + " ms"}) {
		t.Errorf("skeletons: %q %v", ftStrings(v), err)
	}
	// 0e …: ids (14 bytes): FixedBitWidth uint32, 3 rows, w 1, base 0,
	// max 1, packed [0 0 1].
	ids := child("ids", 14)
	if v, err := node.Decode(ids, nil); err != nil || v.Type != node.Uint32 || fmt.Sprint(v.Uint) != "[0 0 1]" {
		t.Errorf("ids: %v %v %v", v.Type, v.Uint, err)
	}
	// 19 …: values 0 (25 bytes): FixedBitWidth uint64, 3 rows, w 10, base
	// 5, max 1024, packed [2 1019 0]: 7, 1024, 5.
	vals := child("values 0", 25)
	if vh, _ := node.ParseHeader(vals); vh.Body[0] != 10 {
		t.Errorf("values width %d", vh.Body[0])
	}
	if v, err := node.Decode(vals, nil); err != nil || v.Type != node.Uint64 || fmt.Sprint(v.Uint) != "[7 1024 5]" {
		t.Errorf("values 0: %v %v %v", v.Type, v.Uint, err)
	}
	// 07 …: widths 0 (7 bytes): Trivial uint8, 3 rows, [1 4 2].
	widths := child("widths 0", 7)
	if v, err := node.Decode(widths, nil); err != nil || v.Type != node.Uint8 || fmt.Sprint(v.Uint) != "[1 4 2]" {
		t.Errorf("widths 0: %v %v %v", v.Type, v.Uint, err)
	}
	if len(rest) != 0 {
		t.Errorf("%d bytes after the last child", len(rest))
	}

	// Value 2 is "took ", then 5 in 2 digits ("05"), then " ms".
	for name, dec := range fdDecoders {
		v, err := dec(b)
		if err != nil {
			t.Errorf("%s: %v", name, err)
		} else if fmt.Sprint(ftStrings(v)) != fmt.Sprint(want) {
			t.Errorf("%s: %q, want %q", name, ftStrings(v), want)
		}
	}

	q := *all.Policy()
	q.Zstd = false
	fbw := func() *encoding.Tree { return &encoding.Tree{Kind: encoding.KindFixedBitWidth} }
	q.Force = &encoding.Tree{Kind: encoding.KindFieldText, Children: []*encoding.Tree{
		{Kind: encoding.KindTrivial, Children: []*encoding.Tree{fbw()}}, fbw(), fbw(), {Kind: encoding.KindTrivial}}}
	enc, _, err := q.EncodeWith(nil, ftBytes(3, func(i int) []byte { return []byte(want[i]) }), encoding.KindFieldText)
	if err != nil || !bytes.Equal(enc, b) {
		t.Errorf("the writer: %x (%v), the listing %x", enc, err, b)
	}
}

// fdTwoSlots is the two-slot example gaps/fieldtext.md proposes for the
// chapter: slot 0 in mode 0, slot 1 in mode 1, a skeleton without fields,
// a literal 0xFF, every child Trivial.
const fdTwoSlots = `
1a 0c 00 04
02 00 01
21
   02 0c 00 03
   10 02 08 00 03 06 00 00 00 02 00 00 00 04 00 00 00
   76 ff 01 2e ff 01 2d 2d ff 00 ff 01
14 02 08 00 04 00 00 00 00 01 00 00 00 02 00 00 00 00 00 00 00
1c 02 09 00 03 01 00 00 00 00 00 00 00 0c 00 00 00 00 00 00 00
   0a 00 00 00 00 00 00 00
14 02 09 00 02 02 00 00 00 00 00 00 00 05 00 00 00 00 00 00 00
06 02 06 00 02 02 01`

// TestFieldTextTwoSlotsExample decodes the proposed two-slot example in
// both readers and checks that the Go writer, every child forced to
// Trivial, writes it byte for byte.
func TestFieldTextTwoSlotsExample(t *testing.T) {
	b := ftHex(t, fdTwoSlots)
	want := []string{"v1.02", "--", "\xff12", "v10.5"}
	for name, dec := range fdDecoders {
		v, err := dec(b)
		if err != nil {
			t.Errorf("%s: %v", name, err)
		} else if fmt.Sprintf("%q", ftStrings(v)) != fmt.Sprintf("%q", want) {
			t.Errorf("%s: %q, want %q", name, ftStrings(v), want)
		}
	}
	q := *all.Policy()
	q.Zstd = false
	q.Force = fdTrivialTree()
	enc, _, err := q.EncodeWith(nil, ftBytes(len(want), func(i int) []byte { return []byte(want[i]) }), encoding.KindFieldText)
	if err != nil || !bytes.Equal(enc, b) {
		t.Errorf("the writer: % x (%v),\nthe example % x", enc, err, b)
	}
}

// fdTrivialTree forces FieldText with every child Trivial (the lengths of
// a Trivial binary child too): 2 + 2·16 children cover the most slots.
func fdTrivialTree() *encoding.Tree {
	kids := make([]*encoding.Tree, 2+2*16)
	for i := range kids {
		kids[i] = &encoding.Tree{Kind: encoding.KindTrivial}
	}
	kids[0].Children = []*encoding.Tree{{Kind: encoding.KindTrivial}}
	return &encoding.Tree{Kind: encoding.KindFieldText, Children: kids}
}

// fdValid are hand-built valid nodes and the text each decodes to.
func fdValid() []struct {
	name string
	node []byte
	want []string
} {
	maxU := uint64(math.MaxUint64)
	sixteen := strings.Repeat(fd+",", 15) + fd
	var sixteenKids [][]byte
	sixteenKids = append(sixteenKids, ftTrivialBinary(sixteen), fdIDs(0, 0))
	var sixteenModes []byte
	for j := range 16 {
		if j%2 == 0 {
			sixteenModes = append(sixteenModes, 0)
			sixteenKids = append(sixteenKids, hxU64(uint64(j), uint64(100+j)))
		} else {
			sixteenModes = append(sixteenModes, 1)
			sixteenKids = append(sixteenKids, hxU64(uint64(j), 0), hxU8(3, 1))
		}
	}
	var sixteenWant [2]string
	for r := range 2 {
		var parts []string
		for j := range 16 {
			switch {
			case j%2 == 0 && r == 0:
				parts = append(parts, fmt.Sprint(j))
			case j%2 == 0:
				parts = append(parts, fmt.Sprint(100+j))
			case r == 0:
				parts = append(parts, fmt.Sprintf("%03d", j))
			default:
				parts = append(parts, "0")
			}
		}
		sixteenWant[r] = strings.Join(parts, ",")
	}
	return []struct {
		name string
		node []byte
		want []string
	}{
		{"example", fdNode(3, []byte{1}, ftTrivialBinary("GET /u/"+fd, "took "+fd+" ms"), fdIDs(0, 0, 1), hxU64(7, 1024, 5), hxU8(1, 4, 2)),
			[]string{"GET /u/7", "GET /u/1024", "took 05 ms"}},
		{"mode 0", fdNode(3, []byte{0}, ftTrivialBinary("id="+fd), fdIDs(0, 0, 0), hxU64(0, 42, 1234567)),
			[]string{"id=0", "id=42", "id=1234567"}},
		{"two slots, a skeleton without fields", fdNode(4, []byte{0, 1},
			ftTrivialBinary("v"+fd+"."+fd, "n/a", fd+"-"+fd), fdIDs(0, 1, 2, 0),
			hxU64(1, 7, 10), hxU64(2, 10, 5), hxU8(2, 3, 1)),
			[]string{"v1.02", "n/a", "7-010", "v10.5"}},
		{"slots read in row order", fdNode(4, []byte{0, 0},
			ftTrivialBinary(fd+" "+fd, fd), fdIDs(1, 0, 1, 0),
			hxU64(1, 2, 4, 5), hxU64(3, 6)),
			[]string{"1", "2 3", "4", "5 6"}},
		{"literal 0xff", fdNode(2, []byte{0}, ftTrivialBinary("\xff\x00"+fd+"\xff\x00\xff\x00"), fdIDs(0, 0), hxU64(42, 7)),
			[]string{"\xff42\xff\xff", "\xff7\xff\xff"}},
		{"0xff 0x00 0xff 0x01: a literal 0xff then a field", fdNode(1, []byte{0}, ftTrivialBinary("\xff\x00\xff\x01"), fdIDs(0), hxU64(1)),
			[]string{"\xff1"}},
		{"other bytes", fdNode(1, []byte{0}, ftTrivialBinary("\x00\x01\xfe"+fd+"\x80"), fdIDs(0), hxU64(9)),
			[]string{"\x00\x01\xfe9\x80"}},
		{"adjacent fields", fdNode(2, []byte{0, 1}, ftTrivialBinary(fd+fd), fdIDs(0, 0), hxU64(1, 20), hxU64(2, 3), hxU8(2, 1)),
			[]string{"102", "203"}},
		{"digits in a piece", fdNode(2, []byte{0}, ftTrivialBinary("0"+fd+"9"), fdIDs(0, 0), hxU64(7, 0)),
			[]string{"079", "009"}},
		{"field alone", fdNode(2, []byte{0}, ftTrivialBinary(fd), fdIDs(0, 0), hxU64(0, 5)),
			[]string{"0", "5"}},
		{"empty skeleton beside one with a field", fdNode(3, []byte{0}, ftTrivialBinary("", "#"+fd), fdIDs(0, 1, 0), hxU64(3)),
			[]string{"", "#3", ""}},
		{"two equal skeletons", fdNode(2, []byte{0}, ftTrivialBinary("a"+fd, "a"+fd), fdIDs(1, 0), hxU64(1, 2)),
			[]string{"a1", "a2"}},
		{"an unused skeleton holds F fields", fdNode(2, []byte{0, 0}, ftTrivialBinary(fd+"-"+fd, "x"+fd), fdIDs(1, 1), hxU64(4, 5), hxU64()),
			[]string{"x4", "x5"}},
		{"mode 1 with fewest digits", fdNode(2, []byte{1}, ftTrivialBinary("n"+fd), fdIDs(0, 0), hxU64(12, 0), hxU8(2, 1)),
			[]string{"n12", "n0"}},
		{"uint64 max, mode 0", fdNode(1, []byte{0}, ftTrivialBinary("<"+fd+">"), fdIDs(0), hxU64(maxU)),
			[]string{"<18446744073709551615>"}},
		{"uint64 max, width 20", fdNode(1, []byte{1}, ftTrivialBinary(fd), fdIDs(0), hxU64(maxU), hxU8(20)),
			[]string{"18446744073709551615"}},
		{"zero in 20 digits", fdNode(1, []byte{1}, ftTrivialBinary(fd), fdIDs(0), hxU64(0), hxU8(20)),
			[]string{strings.Repeat("0", 20)}},
		{"10^19 in mode 0 (20 digits)", fdNode(1, []byte{0}, ftTrivialBinary(fd), fdIDs(0), hxU64(1e19)),
			[]string{"10000000000000000000"}},
		{"16 slots", fdNode(2, sixteenModes, sixteenKids...), sixteenWant[:]},
		{"no rows", fdNode(0, []byte{0}, ftTrivialBinary(), fdIDs(), hxU64()), nil},
		{"no rows, mode 1", fdNode(0, []byte{1, 0}, ftTrivialBinary(), fdIDs(), hxU64(), hxU8(), hxU64()), nil},
		{"constant children", fdNode(3, []byte{1}, fdBinConst(1, "#"+fd), fdU32Const(3, 0), fdU64Const(3, 7), ftNode(1, 6, 3, []byte{3})),
			[]string{"#007", "#007", "#007"}},
		{"A = rows", fdNode(2, []byte{0}, ftTrivialBinary("a"+fd, "b"+fd), fdIDs(1, 0), hxU64(1, 2)),
			[]string{"b1", "a2"}},
	}
}

// TestFieldTextHandBuilt decodes the valid hand-built nodes.
func TestFieldTextHandBuilt(t *testing.T) {
	for _, c := range fdValid() {
		v, err := node.Decode(c.node, nil)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if v.Type != node.Binary || v.Len != len(c.want) {
			t.Errorf("%s: %d %v values, want %d binary", c.name, v.Len, v.Type, len(c.want))
			continue
		}
		if got := ftStrings(v); fmt.Sprintf("%q", got) != fmt.Sprintf("%q", c.want) {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
}

// TestFieldTextZstdBody decodes a FieldText node whose body is a zstd
// frame (FORMAT.md: the flag may be set on a node of any kind).
func TestFieldTextZstdBody(t *testing.T) {
	plain := ftHex(t, fdExample)
	h, err := node.ParseHeader(plain)
	if err != nil {
		t.Fatal(err)
	}
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	frame := enc.EncodeAll(h.Body, nil)
	b := ftUvarint([]byte{26, 12, 1}, 3)
	b = ftUvarint(b, uint64(len(h.Body)))
	b = append(b, frame...)
	for name, dec := range fdDecoders {
		v, err := dec(b)
		if err != nil {
			t.Errorf("%s: %v", name, err)
		} else if got := fmt.Sprint(ftStrings(v)); got != "[GET /u/7 GET /u/1024 took 05 ms]" {
			t.Errorf("%s: %s", name, got)
		}
	}
}

// fdRejects are hand-built FieldText nodes that break a rule of the
// chapter, with the error class each must get.
func fdRejects() map[string]struct {
	node []byte
	want error
} {
	type c = struct {
		node []byte
		want error
	}
	corrupt, unsupported := node.ErrCorrupt, node.ErrUnsupported
	sk := func(s ...string) []byte { return ftTrivialBinary(s...) }
	one := func(kids ...[]byte) []byte { return fdNode(2, []byte{0}, kids...) }
	m := map[string]c{
		// F and the modes.
		"F 0":                {fdNodeF(1, 0, nil, sk("a"), fdIDs(0)), corrupt},
		"F 0, no rows":       {fdNodeF(0, 0, nil, sk(), fdIDs()), corrupt},
		"F 17":               {fdNode(1, make([]byte, 17), append([][]byte{sk(strings.Repeat(fd, 17)), fdIDs(0)}, fdRepeat(17, hxU64(1))...)...), corrupt},
		"F 255":              {fdNodeF(0, 255, make([]byte, 255), sk(), fdIDs()), corrupt},
		"empty body":         {ftNode(26, 12, 0), corrupt},
		"modes cut short":    {ftNode(26, 12, 0, []byte{3, 0, 0}), corrupt},
		"no skeletons":       {ftNode(26, 12, 0, []byte{1, 0}), corrupt},
		"mode 2":             {fdNode(1, []byte{2}, sk(fd), fdIDs(0), hxU64(1)), unsupported},
		"mode 255, slot 1":   {fdNode(1, []byte{0, 255}, sk(fd+fd), fdIDs(0), hxU64(1), hxU64(1)), unsupported},
		"mode 2, no rows":    {fdNode(0, []byte{2}, sk(), fdIDs(), hxU64()), unsupported},
		"int64 type":         {ftNode(26, 5, 1, []byte{1, 0}, ftChildNode(sk(fd)), ftChildNode(fdIDs(0)), ftChildNode(hxU64(1))), unsupported},
		"uint64 type":        {ftNode(26, 9, 0, []byte{1, 0}, ftChildNode(sk()), ftChildNode(fdIDs()), ftChildNode(hxU64())), unsupported},
		"child unknown kind": {fdNode(1, []byte{0}, sk(fd), fdIDs(0), ftNode(99, 9, 1, make([]byte, 8))), unsupported},

		// Skeleton escapes.
		"escape 0xff 0x02":             {one(sk("a\xff\x02"+fd), fdIDs(0, 0), hxU64(1, 2)), corrupt},
		"escape 0xff 0xff":             {one(sk("\xff\xff"+fd), fdIDs(0, 0), hxU64(1, 2)), corrupt},
		"escape 0xff 0x30":             {one(sk(fd+"\xff0"), fdIDs(0, 0), hxU64(1, 2)), corrupt},
		"0xff ends the skeleton":       {one(sk(fd+"\xff"), fdIDs(0, 0), hxU64(1, 2)), corrupt},
		"0xff alone":                   {one(sk(fd, "\xff"), fdIDs(0, 0), hxU64(1, 2)), corrupt},
		"0xff 0x00 0xff ends":          {one(sk(fd+"\xff\x00\xff"), fdIDs(0, 0), hxU64(1, 2)), corrupt},
		"bad escape, unused, A ≤ rows": {one(sk(fd, "\xff\x07"), fdIDs(0, 0), hxU64(1, 2)), corrupt},

		// Fields against F.
		"skeleton with F + 1 fields":        {one(sk(fd+fd), fdIDs(0, 0), hxU64(1, 2)), corrupt},
		"unused skeleton with F + 1 fields": {one(sk(fd, fd+fd), fdIDs(0, 0), hxU64(1, 2)), corrupt},
		"17 fields, F 16": {fdNode(1, make([]byte, 16), append([][]byte{sk(strings.Repeat(fd, 17)), fdIDs(0)},
			fdRepeat(16, hxU64(1))...)...), corrupt},
		"most fields below F":          {fdNode(2, []byte{0, 0}, sk("a"+fd), fdIDs(0, 0), hxU64(1, 2), hxU64()), corrupt},
		"no fields at all":             {fdNode(2, []byte{0}, sk("a", "b"), fdIDs(0, 1), hxU64()), corrupt},
		"most fields below F, 16":      {fdNode(1, make([]byte, 16), append([][]byte{sk(strings.Repeat(fd, 15)), fdIDs(0)}, fdRepeat(16, hxU64(1))...)...), corrupt},
		"most fields below F, no rows": {fdNode(0, []byte{0, 0}, sk(), fdIDs(), hxU64(), hxU64()), nil}, // A = 0: no rule (kept out below)

		// The alphabet and the ids.
		"A 0 with rows":          {one(sk(), fdIDs(0, 0), hxU64(1, 2)), corrupt},
		"A above rows":           {one(sk(fd, fd, fd), fdIDs(0, 0), hxU64(1, 2)), corrupt},
		"A 1 with no rows":       {fdNode(0, []byte{0}, sk(fd), fdIDs(), hxU64()), corrupt},
		"id = A":                 {one(sk(fd), fdIDs(0, 1), hxU64(1, 2)), corrupt},
		"id ≥ A":                 {one(sk(fd, "x"+fd), fdIDs(0, 7), hxU64(1, 2)), corrupt},
		"id max uint32":          {one(sk(fd), fdIDs(0, math.MaxUint32), hxU64(1, 2)), corrupt},
		"ids fewer rows":         {one(sk(fd), fdIDs(0), hxU64(1, 2)), corrupt},
		"ids more rows":          {one(sk(fd), fdIDs(0, 0, 0), hxU64(1, 2)), corrupt},
		"ids uint64":             {one(sk(fd), hxU64(0, 0), hxU64(1, 2)), corrupt},
		"ids uint8":              {one(sk(fd), hxU8(0, 0), hxU64(1, 2)), corrupt},
		"ids int32":              {one(sk(fd), ftNode(2, 4, 2, make([]byte, 8)), hxU64(1, 2)), corrupt},
		"skeletons uint8":        {one(hxU8('a', 'b'), fdIDs(0, 0), hxU64(1, 2)), corrupt},
		"skeletons uint32":       {one(ftTrivialUint32(1), fdIDs(0, 0), hxU64(1, 2)), corrupt},
		"no ids child":           {ftNode(26, 12, 2, []byte{1, 0}, ftChildNode(sk(fd))), corrupt},
		"skeletons past the end": {ftNode(26, 12, 2, []byte{1, 0, 90}, sk(fd)), corrupt},

		// Slots.
		"no values child":           {ftNode(26, 12, 2, []byte{1, 0}, ftChildNode(sk(fd)), ftChildNode(fdIDs(0, 0))), corrupt},
		"no values child, slot 1":   {ftNode(26, 12, 1, []byte{2, 0, 0}, ftChildNode(sk(fd+fd)), ftChildNode(fdIDs(0)), ftChildNode(hxU64(1))), corrupt},
		"no widths child":           {ftNode(26, 12, 1, []byte{1, 1}, ftChildNode(sk(fd)), ftChildNode(fdIDs(0)), ftChildNode(hxU64(1))), corrupt},
		"values past the end":       {ftNode(26, 12, 1, []byte{1, 0}, ftChildNode(sk(fd)), ftChildNode(fdIDs(0)), []byte{40}, hxU64(1)), corrupt},
		"slot too short":            {one(sk(fd), fdIDs(0, 0), hxU64(1)), corrupt},
		"slot too short, none":      {one(sk(fd), fdIDs(0, 0), hxU64()), corrupt},
		"slot too long":             {fdNode(3, []byte{0}, sk(fd, "-"), fdIDs(0, 1, 0), hxU64(1, 2, 3)), corrupt},
		"slot too long, R_0 > rows": {one(sk(fd), fdIDs(0, 0), hxU64(1, 2, 3)), corrupt},
		"slot 1 too short":          {fdNode(2, []byte{0, 0}, sk(fd+fd, fd), fdIDs(0, 0), hxU64(1, 2), hxU64(3)), corrupt},
		"slot 1 too long":           {fdNode(2, []byte{0, 0}, sk(fd+fd, fd), fdIDs(0, 1), hxU64(1, 2), hxU64(3, 4)), corrupt},
		"R_1 > R_0":                 {fdNode(3, []byte{0, 0}, sk(fd+fd, fd, "-"), fdIDs(0, 2, 1), hxU64(1), hxU64(2, 3)), corrupt},
		"values uint32":             {one(sk(fd), fdIDs(0, 0), ftTrivialUint32(1, 2)), corrupt},
		"values int64":              {one(sk(fd), fdIDs(0, 0), ftNode(2, 5, 2, make([]byte, 16))), corrupt},
		"values binary":             {one(sk(fd), fdIDs(0, 0), ftTrivialBinary("1", "2")), corrupt},
		"values uint8":              {one(sk(fd), fdIDs(0, 0), hxU8(1, 2)), corrupt},

		// Widths.
		"width below digits":        {fdNode(2, []byte{1}, sk(fd), fdIDs(0, 0), hxU64(5, 100), hxU8(1, 2)), corrupt},
		"width 0 for 0":             {fdNode(1, []byte{1}, sk(fd), fdIDs(0), hxU64(0), hxU8(0)), corrupt},
		"width 19 for uint64 max":   {fdNode(1, []byte{1}, sk(fd), fdIDs(0), hxU64(math.MaxUint64), hxU8(19)), corrupt},
		"width 21":                  {fdNode(1, []byte{1}, sk(fd), fdIDs(0), hxU64(7), hxU8(21)), corrupt},
		"width 255":                 {fdNode(1, []byte{1}, sk(fd), fdIDs(0), hxU64(7), hxU8(255)), corrupt},
		"widths fewer rows":         {fdNode(2, []byte{1}, sk(fd), fdIDs(0, 0), hxU64(1, 2), hxU8(1)), corrupt},
		"widths more rows":          {fdNode(2, []byte{1}, sk(fd), fdIDs(0, 0), hxU64(1, 2), hxU8(1, 1, 1)), corrupt},
		"widths uint64":             {fdNode(1, []byte{1}, sk(fd), fdIDs(0), hxU64(1), hxU64(1)), corrupt},
		"widths uint32":             {fdNode(1, []byte{1}, sk(fd), fdIDs(0), hxU64(1), ftTrivialUint32(1)), corrupt},
		"widths int8":               {fdNode(1, []byte{1}, sk(fd), fdIDs(0), hxU64(1), ftNode(2, 2, 1, []byte{1})), corrupt},
		"values and widths swapped": {fdNode(1, []byte{1}, sk(fd), fdIDs(0), hxU8(1), hxU64(1)), corrupt},
		"widths on the wrong slot":  {fdNode(1, []byte{0, 1}, sk(fd+fd), fdIDs(0), hxU64(1), hxU8(1), hxU64(2)), corrupt},
		"widths after all values":   {fdNode(1, []byte{1, 1}, sk(fd+fd), fdIDs(0), hxU64(1), hxU64(2), hxU8(1), hxU8(1)), corrupt},

		// Trailing bytes.
		"trailing byte":               {append(one(sk(fd), fdIDs(0, 0), hxU64(1, 2)), 0), corrupt},
		"trailing bytes after widths": {append(fdNode(1, []byte{1}, sk(fd), fdIDs(0), hxU64(1), hxU8(1)), 1, 2, 3), corrupt},
		"trailing widths in mode 0":   {fdNode(1, []byte{0}, sk(fd), fdIDs(0), hxU64(1), hxU8(1)), corrupt},
		"trailing values child":       {one(sk(fd), fdIDs(0, 0), hxU64(1, 2), hxU64(3)), corrupt},
		"trailing byte, no rows":      {append(fdNode(0, []byte{0}, sk(), fdIDs(), hxU64()), 0), corrupt},
	}
	delete(m, "most fields below F, no rows")
	return m
}

// fdRepeat returns k copies of b.
func fdRepeat(k int, b []byte) [][]byte {
	out := make([][]byte, k)
	for i := range out {
		out[i] = b
	}
	return out
}

// TestFieldTextRejects checks that each hand-built violation gets its
// error class, never a panic.
func TestFieldTextRejects(t *testing.T) {
	for name, c := range fdRejects() {
		_, err := node.Decode(c.node, nil)
		if !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", name, err, c.want)
		}
		if c.want == node.ErrCorrupt && errors.Is(err, node.ErrUnsupported) {
			t.Errorf("%s: %v is unsupported as well", name, err)
		}
	}
}

// TestFieldTextLimit declares more output than the decode limit allows
// from a few bytes: one long skeleton and Constant children of
// node.MaxRows rows. The node must be refused before anything sized by it
// is allocated (quickly, without the memory).
func TestFieldTextLimit(t *testing.T) {
	long := strings.Repeat("x", 100) + fd
	rows := node.MaxRows
	for name, b := range map[string][]byte{
		"one long skeleton": fdNode(rows, []byte{0}, ftTrivialBinary(long), fdU32Const(rows, 0), fdU64Const(rows, 7)),
		"mode 1, width 20":  fdNode(rows, []byte{1}, ftTrivialBinary(long), fdU32Const(rows, 0), fdU64Const(rows, 7), ftNode(1, 6, rows, []byte{20})),
	} {
		start := time.Now()
		_, err := node.Decode(b, nil)
		if err == nil {
			t.Errorf("%s: %d rows of %d bytes decode", name, rows, len(long))
			continue
		}
		if !errors.Is(err, node.ErrCorrupt) || !strings.Contains(err.Error(), "exceed") {
			t.Errorf("%s: %v, want the decode limit", name, err)
		}
		if d := time.Since(start); d > time.Second {
			t.Errorf("%s: refused after %v: allocated first?", name, d)
		}
	}
	// The bound counts what the rows print, not the alphabet: 1.25 · 2^20
	// rows of a 1,000-byte skeleton (over 1 GiB) are refused, 2^10 decode.
	// The Go reader (black box, MaxBytes 1,024) refuses 65 rows of a
	// 16-byte value and takes 64, in the values' bytes too.
	skel := strings.Repeat("y", 999) + fd
	for _, c := range []struct {
		rows int
		ok   bool
	}{{1 << 10, true}, {1<<20 + 1<<18, false}} {
		b := fdNode(c.rows, []byte{0}, ftTrivialBinary(skel), fdU32Const(c.rows, 0), fdU64Const(c.rows, 7))
		_, err := node.Decode(b, nil)
		if (err == nil) != c.ok {
			t.Errorf("%d rows of %d bytes: %v", c.rows, len(skel)-1, err)
		}
	}
	for _, c := range []struct {
		rows int
		ok   bool
	}{{64, true}, {65, false}} {
		b := fdNode(c.rows, []byte{1}, ftTrivialBinary("abcdefghijklmn"+fd), fdU32Const(c.rows, 0), fdU64Const(c.rows, 7), ftNode(1, 6, c.rows, []byte{2}))
		opts := *all.Options()
		opts.MaxBytes = 1024
		d, err := encoding.Open(b, &opts)
		if err == nil {
			var buf any
			if buf, err = encoding.NewValues(d.Type(), d.Len()); err == nil {
				err = encoding.ReadPart(d, buf, 0, d.Len(), nil, false)
			}
		}
		if (err == nil) != c.ok || err != nil && !errors.Is(err, encoding.ErrLimit) {
			t.Errorf("Go reader, MaxBytes 1,024, %d values of 16 bytes: %v", c.rows, err)
		}
	}
}

// TestFieldTextMutations flips, sets, cuts and inserts bytes of valid
// hand-built nodes: decoding must never panic and must fail as corrupt or
// unsupported or hold the header's count of values.
func TestFieldTextMutations(t *testing.T) {
	var seeds [][]byte
	for _, c := range fdValid() {
		seeds = append(seeds, c.node)
	}
	seeds = append(seeds, ftHex(t, fdExample), ftHex(t, fdTwoSlots))
	r := rand.New(rand.NewPCG(26, 26))
	iters := 100000
	if testing.Short() {
		iters = 10000
	}
	decoded := 0
	for range iters {
		b := bytes.Clone(seeds[r.IntN(len(seeds))])
		for range 1 + r.IntN(3) {
			if len(b) == 0 {
				break
			}
			i := r.IntN(len(b))
			switch r.IntN(5) {
			case 0:
				b[i] ^= 1 << r.IntN(8)
			case 1:
				b[i] = byte(r.IntN(256))
			case 2:
				b = b[:i]
			case 3:
				b = append(b[:i], append([]byte{byte(r.IntN(256))}, b[i:]...)...)
			case 4:
				b = append(b[:i], b[i+1:]...)
			}
		}
		h, herr := node.ParseHeader(b)
		if herr == nil && h.Rows > 1<<12 {
			continue // a mutated row count may legally ask for much memory
		}
		v, err := node.Decode(b, nil)
		if err != nil {
			if !errors.Is(err, node.ErrCorrupt) && !errors.Is(err, node.ErrUnsupported) {
				t.Fatalf("%x: %v is neither corrupt nor unsupported", b, err)
			}
			continue
		}
		decoded++
		if herr != nil || v.Len != h.Rows || v.Type != h.Type {
			t.Fatalf("%x: decoded %d %v values (%v)", b, v.Len, v.Type, herr)
		}
	}
	t.Logf("%d mutations, %d decoded", iters, decoded)
}

// The oracle: Strata's own encoder (a black box) writes FieldText nodes
// for the data sets below, forced at the root with the children it
// selects, with every child Trivial and under each policy; the second
// reader decodes them, every value must come back byte for byte, and the
// header must be what the chapter says writers write.

// fdShapes generates text with numbers inside it, n rows each.
func fdShapes(n int) []ftShape {
	r := ftRand(uint64(n) + 26)
	s := func(f func(i int) string) encoding.Bytes {
		return ftBytes(n, func(i int) []byte { return []byte(f(i)) })
	}
	res := []string{"users", "orders", "items"}
	months := []string{"Jan", "Feb", "Mar", "Apr", "May", "Jun"}
	towns := []string{"Ridgecrest, CA", "Hilo, Hawaii", "Tokyo, Japan"}
	return []ftShape{
		{"paths", s(func(int) string {
			return fmt.Sprintf("/api/v%d/%s/%d", 1+r.IntN(3), res[r.IntN(3)], r.IntN(100000))
		})},
		{"json", s(func(int) string {
			return fmt.Sprintf(`{"user":%d,"action":"%s","value":%d}`, r.IntN(50000), ftWords[r.IntN(len(ftWords))], r.IntN(1000))
		})},
		{"dates", s(func(int) string { return fmt.Sprintf("%s %02d %d", months[r.IntN(6)], 1+r.IntN(28), 1990+r.IntN(30)) })},
		{"logs", s(func(i int) string {
			ms := i*1500 + r.IntN(1000)
			return fmt.Sprintf("2024-05-01 %02d:%02d:%02d.%03d [worker-%d] took %d ms", ms/3600000%24, ms/60000%60, ms/1000%60, ms%1000, r.IntN(8), r.IntN(500))
		})},
		{"places", s(func(int) string { return fmt.Sprintf("%dkm \xff of %s", 1+r.IntN(300), towns[r.IntN(3)]) })},
		{"escapes", s(func(i int) string {
			return []string{"\xff\x01 7", "\xff\x00\xff1", "\xff", "a\xff\x02 12 \xff"}[i%4] + fmt.Sprint(i)
		})},
		{"versions", s(func(int) string { return fmt.Sprintf("v%d.%d.%d", r.IntN(5), r.IntN(20), r.IntN(100)) })},
		{"ips", s(func(int) string {
			return fmt.Sprintf("%d.%d.%d.%d", r.IntN(256), r.IntN(256), r.IntN(256), r.IntN(256))
		})},
		{"many", s(func(i int) string {
			var b strings.Builder
			for k := range 14 + i%8 {
				fmt.Fprintf(&b, "%d ", r.IntN(1000)+k)
			}
			return b.String()
		})},
		{"longruns", s(func(i int) string {
			return fmt.Sprintf("a%d b%020d c%d d%d%d", r.IntN(100), r.Uint64()%1e19, r.IntN(10), r.Uint64()%1e19, r.IntN(1e6))
		})},
		{"bignums", s(func(i int) string {
			return []string{"9999999999999999999", "0000000000000000001", "n=1234567890123456789", "0"}[i%4] + " x"
		})},
		{"zeros", s(func(i int) string {
			return []string{"0", "00", "000x", "id-007", "7", "a0b", "0.0"}[i%7]
		})},
		{"mixed", s(func(i int) string {
			switch i % 5 {
			case 0:
				return ""
			case 1:
				return "no number"
			case 2:
				return fmt.Sprintf("%d apples and %d pears", r.IntN(20), r.IntN(20))
			}
			return fmt.Sprintf("item %d", r.IntN(1000))
		})},
		{"manyskeletons", s(func(int) string {
			return fmt.Sprintf("%s-%d-%s", ftWords[r.IntN(len(ftWords))], r.IntN(100), ftWords[r.IntN(len(ftWords))])
		})},
		{"unicode", s(func(int) string { return fmt.Sprintf("Straße %d, %05d München", 1+r.IntN(200), r.IntN(100000)) })},
		{"digitsonly", s(func(int) string { return fmt.Sprint(r.IntN(1e6)) })},
	}
}

// fdCommonShapes are the FieldText shapes the float and text tests share
// (every kind of that part forced on them, selection, truncation,
// mutations, fuzz seeds): a subset of fdShapes, to keep those tests quick.
func fdCommonShapes(n int) []ftShape {
	var out []ftShape
	for _, sh := range fdShapes(n) {
		switch sh.name {
		case "paths", "logs", "escapes", "longruns", "mixed":
			sh.name = "field/" + sh.name
			out = append(out, sh)
		}
	}
	return out
}

func fdIsDigit(c byte) bool { return c >= '0' && c <= '9' }

// fdExpect is what FORMAT.md says a writer puts in a FieldText node for
// vals: every maximal run of 1 to 19 ASCII digits cut out as a field, the
// first 16 of a value (longer runs, and runs past the sixteenth, kept as
// text); 0xFF escaped; skeletons in the order of their first row, only
// used ones; F the most fields; a slot in mode 1 when one of its numbers
// has a leading zero and more than one digit. ok is false when no value
// holds a number (the writer then has no FieldText node).
func fdExpect(vals encoding.Bytes) (modes []byte, alphabet []string, ok bool) {
	seen := map[string]bool{}
	for i := range len(vals.Offsets) - 1 {
		x := vals.Value(i)
		var skel []byte
		fields := 0
		for p := 0; p < len(x); {
			if !fdIsDigit(x[p]) {
				if x[p] == 0xff {
					skel = append(skel, 0xff, 0)
				} else {
					skel = append(skel, x[p])
				}
				p++
				continue
			}
			q := p
			for q < len(x) && fdIsDigit(x[q]) {
				q++
			}
			run := x[p:q]
			if len(run) <= 19 && fields < 16 {
				skel = append(skel, fd...)
				for len(modes) <= fields {
					modes = append(modes, 0)
				}
				if len(run) > 1 && run[0] == '0' {
					modes[fields] = 1
				}
				fields++
			} else {
				skel = append(skel, run...)
			}
			p = q
		}
		if !seen[string(skel)] {
			seen[string(skel)] = true
			alphabet = append(alphabet, string(skel))
		}
	}
	return modes, alphabet, len(modes) > 0
}

// fdHeader reads the modes and the alphabet of a FieldText node.
func fdHeader(t testing.TB, enc []byte) (modes []byte, alphabet []string) {
	t.Helper()
	h, err := node.ParseHeader(enc)
	if err != nil || h.Kind != 26 || len(h.Body) < 1 || len(h.Body) < 1+int(h.Body[0]) {
		t.Fatalf("not a FieldText node: %x (%v)", enc, err)
	}
	f := int(h.Body[0])
	modes = h.Body[1 : 1+f]
	skel, _, err := node.Child(h.Body[1+f:], "skeletons")
	if err != nil {
		t.Fatal(err)
	}
	v, err := node.Decode(skel, nil)
	if err != nil {
		t.Fatal(err)
	}
	return modes, ftStrings(v)
}

// TestFieldTextOracle forces FieldText at the root of every shape and
// length under every policy, decodes the node, compares every value, and
// checks the header against what the chapter says writers write.
func TestFieldTextOracle(t *testing.T) {
	exercised, refused, mode1 := map[string]int{}, map[string]int{}, map[string]int{}
	for _, n := range ftLengths {
		for pname, p := range ftPolicies() {
			if testing.Short() && pname != "balanced" {
				continue
			}
			if n == 70000 && pname != "balanced" && pname != "size" {
				continue // as TestFloatTextOracle: the largest length under two policies
			}
			for _, sh := range fdShapes(n) {
				vals := sh.vals.(encoding.Bytes)
				wantModes, wantAlpha, ok := fdExpect(vals)
				enc, tree, err := p.EncodeWith(nil, vals, encoding.KindFieldText)
				if err != nil {
					refused[sh.name]++
					if ok {
						t.Errorf("%s n=%d %s: values with numbers, the writer refuses FieldText: %v", sh.name, n, pname, err)
					}
					continue
				}
				if !ok {
					t.Errorf("%s n=%d %s: no value holds a number, the writer wrote %v", sh.name, n, pname, tree)
				}
				if tree.Kind != encoding.KindFieldText {
					t.Errorf("%s n=%d %s: forced FieldText, tree %v", sh.name, n, pname, tree)
					continue
				}
				exercised[sh.name]++
				got, err := node.Decode(enc, nil)
				if err != nil {
					t.Errorf("%s n=%d %s tree %v: %v", sh.name, n, pname, tree, err)
					continue
				}
				if err := ftCompare(got, vals); err != nil {
					t.Errorf("%s n=%d %s tree %v: %v", sh.name, n, pname, tree, err)
				}
				modes, alpha := fdHeader(t, enc)
				if !bytes.Equal(modes, wantModes) {
					t.Errorf("%s n=%d %s: modes %v, FORMAT.md says %v", sh.name, n, pname, modes, wantModes)
				}
				if fmt.Sprintf("%q", alpha) != fmt.Sprintf("%q", wantAlpha) {
					t.Errorf("%s n=%d %s: skeletons %q, FORMAT.md says %q", sh.name, n, pname, alpha, wantAlpha)
				}
				if bytes.IndexByte(modes, 1) >= 0 {
					mode1[sh.name]++
				}
			}
		}
	}
	for _, sh := range fdShapes(1) {
		if exercised[sh.name] == 0 {
			t.Errorf("shape %s was never encoded as FieldText", sh.name)
		}
	}
	for _, name := range []string{"dates", "logs", "zeros", "bignums", "unicode"} {
		if mode1[name] == 0 {
			t.Errorf("shape %s never had a slot in mode 1", name)
		}
	}
	t.Logf("FieldText roots decoded per shape: %v; refused: %v; with a mode-1 slot: %v", exercised, refused, mode1)
}

// TestFieldTextOracleTrivialChildren forces FieldText with every child
// Trivial, zstd off, so the kind is tested apart from the other kinds'
// decoders.
func TestFieldTextOracleTrivialChildren(t *testing.T) {
	q := *all.Policy()
	q.Zstd = false
	q.Force = fdTrivialTree()
	seen := 0
	for _, n := range []int{1, 2, 1000, 5000} {
		for _, sh := range fdShapes(n) {
			enc, tree, err := q.EncodeWith(nil, sh.vals, encoding.KindFieldText)
			if err != nil {
				continue
			}
			for _, c := range tree.Children {
				if c.Kind != encoding.KindTrivial {
					t.Errorf("%s n=%d: forced FieldText(Trivial…), tree %v", sh.name, n, tree)
					break
				}
			}
			seen++
			got, err := node.Decode(enc, nil)
			if err != nil {
				t.Errorf("%s n=%d: %v", sh.name, n, err)
				continue
			}
			if err := ftCompare(got, sh.vals); err != nil {
				t.Errorf("%s n=%d: %v", sh.name, n, err)
			}
		}
	}
	if seen == 0 {
		t.Errorf("no FieldText(Trivial…) node written")
	}
}

// TestFieldTextWriterRefuses: a FieldText node holds at least one field
// (F ≥ 1, and the most fields of a skeleton is F), so the writer, even
// forced, has no node for values without a number, nor for none at all.
func TestFieldTextWriterRefuses(t *testing.T) {
	p := all.Policy()
	for name, vals := range map[string][]string{
		"no rows":     {},
		"no number":   {"abc", "def"},
		"empty":       {"", ""},
		"a long run":  {"x 12345678901234567890"},
		"0xff 0x01":   {"\xff\x01"},
		"non-ASCII 7": {"٧"},
	} {
		b := ftBytes(len(vals), func(i int) []byte { return []byte(vals[i]) })
		if e, tree, err := p.EncodeWith(nil, b, encoding.KindFieldText); err == nil {
			t.Errorf("%s: the writer wrote %v: %x", name, tree, e)
		}
	}
}

// TestFieldTextGoReader asks Strata's own decoder (black box) about the
// hand-built nodes: it must decode the valid ones to the same values and
// give each rejected one the same error class as the second reader; the
// questions the chapter leaves open are logged with both verdicts.
func TestFieldTextGoReader(t *testing.T) {
	for _, c := range fdValid() {
		mine, err := node.Decode(c.node, nil)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		gov, err := goDecode(c.node, nil)
		if err != nil {
			t.Errorf("%s: the Go reader rejects what the second reader accepts: %v", c.name, err)
			continue
		}
		if err := ftSame(mine, gov); err != nil {
			t.Errorf("%s: the readers differ: %v", c.name, err)
		}
	}
	for name, c := range fdRejects() {
		_, err := goDecode(c.node, nil)
		goWant := encoding.ErrCorrupt
		if c.want == node.ErrUnsupported {
			goWant = encoding.ErrUnsupported
		}
		if !errors.Is(err, goWant) {
			t.Errorf("%s: the Go reader: %v, want %v", name, err, goWant)
		}
	}
	sk := ftTrivialBinary
	nullSkel := ftNode(11, 12, 3, ftChildNode(ftNode(2, 1, 3, []byte{0x5})), ftChildNode(sk("a"+fd, "b"+fd)))
	nullIDs := ftNode(11, 8, 2, ftChildNode(ftNode(2, 1, 2, []byte{0x2})), ftChildNode(fdIDs(1)))
	nullVals := ftNode(11, 9, 2, ftChildNode(ftNode(2, 1, 2, []byte{0x1})), ftChildNode(hxU64(5)))
	nullWidths := ftNode(11, 6, 2, ftChildNode(ftNode(2, 1, 2, []byte{0x1})), ftChildNode(hxU8(2)))
	questions := map[string][]byte{
		"mode 2, body ends":                                ftNode(26, 12, 0, []byte{1, 2}),
		"F 0, mode byte 9":                                 ftNode(26, 12, 0, []byte{0, 9}),
		"nullable skeletons":                               fdNode(3, []byte{0}, nullSkel, fdIDs(0, 1, 2), hxU64(1, 2)),
		"nullable ids":                                     fdNode(2, []byte{0}, sk("a"+fd, "b"+fd), nullIDs, hxU64(1, 2)),
		"nullable values":                                  fdNode(2, []byte{0}, sk("a"+fd), fdIDs(0, 0), nullVals),
		"nullable widths (null width 0)":                   fdNode(2, []byte{1}, sk("a"+fd), fdIDs(0, 0), hxU64(5, 0), nullWidths),
		"nullable widths, v 0 of width 0":                  fdNode(2, []byte{1}, sk("a"+fd), fdIDs(0, 0), hxU64(5, 6), nullWidths),
		"zero rows, skeleton child 0 rows of another type": fdNode(0, []byte{0}, hxU8(), fdIDs(), hxU64()),
		"zero rows, mode 1, no widths child":               fdNode(0, []byte{1}, sk(), fdIDs(), hxU64()),
		"zero rows, most fields below F":                   fdNode(0, []byte{0, 0}, sk(), fdIDs(), hxU64(), hxU64()),
		"ids as a Constant, R_0 from it":                   fdNode(3, []byte{0}, sk("#"+fd), fdU32Const(3, 0), fdU64Const(3, 9)),
		"skeletons as a Constant, A 1":                     fdNode(2, []byte{0}, fdBinConst(1, "#"+fd), fdIDs(0, 0), hxU64(1, 2)),
		"skeletons as a Constant of 2 rows, A 2":           fdNode(2, []byte{0}, fdBinConst(2, "#"+fd), fdIDs(1, 0), hxU64(1, 2)),
	}
	verdict := func(err error) string {
		switch {
		case err == nil:
			return "accepts"
		case errors.Is(err, encoding.ErrUnsupported) || errors.Is(err, node.ErrUnsupported):
			return "unsupported"
		case errors.Is(err, encoding.ErrLimit):
			return "limit"
		}
		return "corrupt"
	}
	for name, b := range questions {
		mine, errMine := node.Decode(b, nil)
		gov, errGo := goDecode(b, nil)
		t.Logf("%-50s Go reader %-11s second reader %-11s | %v | %v", name, verdict(errGo), verdict(errMine), errGo, errMine)
		if verdict(errMine) != verdict(errGo) {
			t.Errorf("%s: the readers disagree: Go %v, second %v", name, errGo, errMine)
		} else if errMine == nil {
			if err := ftSame(mine, gov); err != nil {
				t.Errorf("%s: values differ: %v", name, err)
			}
		}
	}
}

// TestFieldTextGoReaderPartial reads the first rows of nodes whose slots
// hold the wrong count with the Go reader (black box): the chapter checks
// R_0 ≤ rows and R_j ≤ R_(j−1) when the node is opened and the exact
// count only "when the rows are read" (gaps/fieldtext.md 2), so a read of
// the first rows may succeed where a whole read fails. The second reader
// decodes whole and rejects them all.
func TestFieldTextGoReaderPartial(t *testing.T) {
	sk := ftTrivialBinary
	cases := map[string][]byte{
		"slot too long":    fdNode(3, []byte{0}, sk(fd, "-"), fdIDs(0, 1, 0), hxU64(1, 2, 3)),
		"slot too short":   fdNode(3, []byte{0}, sk(fd, "-"), fdIDs(0, 1, 0), hxU64(1)),
		"slot 1 too long":  fdNode(2, []byte{0, 0}, sk(fd+fd, fd), fdIDs(0, 1), hxU64(1, 2), hxU64(3, 4)),
		"slot 1 too short": fdNode(2, []byte{0, 0}, sk(fd, fd+fd), fdIDs(0, 1), hxU64(1, 2), hxU64()),
	}
	for name, b := range cases {
		if _, err := node.Decode(b, nil); !errors.Is(err, node.ErrCorrupt) {
			t.Errorf("%s: second reader %v", name, err)
		}
		_, errWhole := goDecode(b, nil)
		d, err := encoding.Open(b, all.Options())
		partial := "open fails"
		if err == nil {
			buf, _ := encoding.NewValues(d.Type(), 1)
			if err := encoding.ReadPart(d, buf, 0, 1, nil, false); err != nil {
				partial = "first row fails: " + err.Error()
			} else {
				partial = "first row reads"
			}
		} else {
			partial += ": " + err.Error()
		}
		t.Logf("%-16s Go reader whole: %v; %s", name, errWhole, partial)
		if errWhole == nil {
			t.Errorf("%s: the Go reader reads the whole node", name)
		}
	}
}

// TestFieldTextGoFilter holds the Go reader's predicates on FieldText
// (black box, encoding.BinaryFilterer) to the values this reader decodes,
// on the hand-built nodes, which hold what the chapter allows but the
// writer never makes (digits in pieces, adjacent fields, mode-1 slots of
// fewest digits, equal and unused skeletons, 20-digit numbers, 0xFF
// bytes), and on writer-made nodes. FORMAT.md says predicates are settled
// "relying only on the layout above", so every row must get the verdict
// BytesPred.Match gives on its decoded text.
func TestFieldTextGoFilter(t *testing.T) {
	var nodes [][]byte
	for _, c := range fdValid() {
		nodes = append(nodes, c.node)
	}
	nodes = append(nodes, ftHex(t, fdExample), ftHex(t, fdTwoSlots))
	p := all.Policy()
	for _, sh := range fdShapes(40) {
		if enc, _, err := p.EncodeWith(nil, sh.vals, encoding.KindFieldText); err == nil {
			nodes = append(nodes, enc)
		}
	}
	checked, filtered := 0, 0
	for ni, b := range nodes {
		v, err := node.Decode(b, nil)
		if err != nil || v.Len == 0 {
			continue
		}
		ops := fdOperands(v.Bin)
		var preds []encoding.BytesPred
		for _, a := range ops {
			for _, op := range []encoding.Op{encoding.OpEq, encoding.OpNe, encoding.OpLt, encoding.OpLe, encoding.OpGt, encoding.OpGe, encoding.OpPrefix} {
				preds = append(preds, encoding.BytesPred{Op: op, A: a})
			}
		}
		for k := 0; k+1 < len(ops); k += 3 {
			lo, hi := ops[k], ops[k+1]
			if bytes.Compare(lo, hi) > 0 {
				lo, hi = hi, lo
			}
			preds = append(preds, encoding.BytesPred{Op: encoding.OpBetween, A: lo, B: hi})
			set := [][]byte{lo, hi}
			if bytes.Equal(lo, hi) {
				set = set[:1]
			}
			preds = append(preds, encoding.BytesPred{Op: encoding.OpIn, Set: set})
		}
		for pi := range preds {
			pred := &preds[pi]
			d, err := encoding.Open(b, all.Options())
			if err != nil {
				t.Fatalf("node %d: the Go reader: %v", ni, err)
			}
			f, ok := d.(encoding.BinaryFilterer)
			if !ok {
				t.Fatalf("node %d: the Go reader's FieldText decoder has no FilterBinary", ni)
			}
			sel := encoding.NewBitmap(v.Len, true)
			if err := f.FilterBinary(pred, v.Len, sel); err != nil {
				t.Errorf("node %d %v %q: %v", ni, pred.Op, pred.A, err)
				continue
			}
			for i := range v.Len {
				checked++
				if want := pred.Match(v.Bin[i]); sel.Get(i) != want {
					t.Errorf("node %d row %d %q: %v %q %q %q: the Go reader says %v", ni, i, v.Bin[i], pred.Op, pred.A, pred.B, pred.Set, sel.Get(i))
				} else if !want {
					filtered++
				}
			}
		}
	}
	t.Logf("%d row verdicts checked, %d rows filtered out", checked, filtered)
}

// fdOperands are predicate operands around the values vals: each value,
// its prefixes, each with a byte changed, a digit added or removed, a
// zero put before its numbers, and a few fixed texts.
func fdOperands(vals [][]byte) [][]byte {
	seen := map[string]bool{}
	var out [][]byte
	add := func(b []byte) {
		if !seen[string(b)] {
			seen[string(b)] = true
			out = append(out, bytes.Clone(b))
		}
	}
	for _, s := range []string{"", "0", "00", "1", "9", "\xff", "a", "~", "v1", "GET /u/", "GET /u/9", "took 5 ms"} {
		add([]byte(s))
	}
	for i, v := range vals {
		if i > 12 {
			break
		}
		add(v)
		for k := 0; k <= len(v) && k < 24; k++ {
			add(v[:k])
		}
		for k := range min(len(v), 24) {
			w := bytes.Clone(v)
			w[k]++
			add(w)
			w[k] -= 2
			add(w)
			if fdIsDigit(v[k]) {
				add(append(append(bytes.Clone(v[:k]), '0'), v[k:]...))
				add(append(bytes.Clone(v[:k]), v[k+1:]...))
				add(append(append(bytes.Clone(v[:k+1]), '7'), v[k+1:]...))
			}
		}
		add(append(bytes.Clone(v), '0'))
	}
	return out
}
