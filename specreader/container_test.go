package specreader

import (
	"bytes"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestWorkedExample parses the 61-byte file of FORMAT.md §9 byte for byte.
func TestWorkedExample(t *testing.T) {
	dump := `53 54 52 41 02 00 00 00  00 68 b5 b2 ea aa bb 01
01 01 03 0b 00 01 03 00  0b 01 01 0f 06 00 0b 84
0b 43 00 0e 00 00 00 00  01 dc f5 17 6b 01 00 00
00 a7 27 da 4d cd e3 b2  8d 53 54 52 41`
	data, err := hex.DecodeString(strings.Join(strings.Fields(dump), ""))
	if err != nil || len(data) != 61 {
		t.Fatalf("example: %d bytes, %v", len(data), err)
	}
	f, err := OpenContainer(data)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.VerifyFileChecksum(); err != nil {
		t.Error(err)
	}
	if len(f.Stripes) != 1 || f.Stripes[0] != (Stripe{Rows: 3, Offset: 4, Size: 11}) {
		t.Errorf("stripes %+v", f.Stripes)
	}
	if len(f.Groups) != 1 || f.Groups[0].Ref != (BlobRef{Offset: 15, Size: 6, Checksum: 0x430B840B}) {
		t.Errorf("groups %+v", f.Groups)
	}
	if len(f.Sections) != 0 {
		t.Errorf("sections %+v", f.Sections)
	}
	if n, err := f.StreamCount(0); n != 1 || err != nil {
		t.Errorf("stream count %d, %v", n, err)
	}
	ps, rows, err := f.ChunkPayloads(0, 0)
	if err != nil || len(ps) != 1 || !bytes.Equal(ps[0], []byte{0xAA, 0xBB}) || rows[0] != 3 {
		t.Errorf("chunks %x %v %v", ps, rows, err)
	}
	if ps, _, err := f.ChunkPayloads(0, 1); ps != nil || err != nil {
		t.Errorf("absent stream 1: %x %v", ps, err)
	}
	if _, err := Open(data); !errors.Is(err, ErrCorrupt) {
		t.Errorf("Open without a schema section: %v", err)
	}
	// Every single-byte change but those of the minor version and of the
	// file checksum is caught on open or read.
	for i := range data {
		if i >= 61-14 && i < 61-4 {
			continue
		}
		bad := append([]byte{}, data...)
		bad[i] ^= 0x10
		f, err := OpenContainer(bad)
		if err == nil {
			_, _, err = f.ChunkPayloads(0, 0)
		}
		if err == nil {
			t.Errorf("byte %d changed: no error", i)
		}
	}
}

// TestUnknownCompressionByMinor: FORMAT.md, Conventions. An unknown
// compression id of a chunk (byte 8 of the worked example) or of the footer
// (byte 39) is corrupt in a minor-0 file, where no writer could have written
// it, and unsupported in a file of a newer minor.
func TestUnknownCompressionByMinor(t *testing.T) {
	dump := `53 54 52 41 02 00 00 00  00 68 b5 b2 ea aa bb 01
01 01 03 0b 00 01 03 00  0b 01 01 0f 06 00 0b 84
0b 43 00 0e 00 00 00 00  01 dc f5 17 6b 01 00 00
00 a7 27 da 4d cd e3 b2  8d 53 54 52 41`
	data, err := hex.DecodeString(strings.Join(strings.Fields(dump), ""))
	if err != nil {
		t.Fatal(err)
	}
	for _, at := range []int{8, 39} {
		for minor, want := range []error{ErrCorrupt, ErrUnsupported} {
			bad := append([]byte{}, data...)
			bad[at] = 2
			bad[len(bad)-14] = byte(minor)
			f, err := OpenContainer(bad)
			if err == nil {
				_, _, err = f.ChunkPayloads(0, 0)
			}
			if !errors.Is(err, want) {
				t.Errorf("byte %d = 2, minor %d: %v, want %v", at, minor, err, want)
			}
		}
	}
}

// TestFormatGolden opens the container golden files (format/testdata) and
// reads every chunk of every stream; their payloads are opaque.
func TestFormatGolden(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join("..", "format", "testdata", "*.strata"))
	if len(paths) == 0 {
		t.Fatal("no format golden files")
	}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		f, err := OpenContainer(data)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if err := f.VerifyFileChecksum(); err != nil {
			t.Errorf("%s: %v", p, err)
		}
		chunks := 0
		for s := range f.Stripes {
			n, err := f.StreamCount(s)
			if err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			for j := 0; j < n; j++ {
				ps, _, err := f.ChunkPayloads(s, j)
				if err != nil {
					t.Fatalf("%s: %v", p, err)
				}
				chunks += len(ps)
			}
		}
		var names []string
		for _, s := range f.Sections {
			b, ok, err := f.Section(s.Name)
			if err != nil || !ok {
				t.Errorf("%s section %q: %v", p, s.Name, err)
			}
			names = append(names, s.Name+"("+strconv.Itoa(len(b))+")")
		}
		t.Logf("%s: v%d.%d, %d stripes, %d groups, %d chunks, sections %v", filepath.Base(p), f.Major, f.Minor, len(f.Stripes), len(f.Groups), chunks, names)
	}
}

// TestSchemaExample parses schema/testdata/golden/example.bin and checks
// the stream table of FORMAT.md, Schema §4.
func TestSchemaExample(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "schema", "testdata", "golden", "example.bin"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := ParseSchema(b)
	if err != nil {
		t.Fatal(err)
	}
	if s.Streams != 15 {
		t.Fatalf("%d streams", s.Streams)
	}
	// id → (path, role) from the table in §4.
	want := map[int]string{0: "id values", 1: "user nulls", 2: "user.name values", 3: "user.tags nulls", 4: "user.tags lengths",
		5: "user.tags.element values", 6: "attrs lengths", 7: "attrs.key values", 8: "attrs.value values", 9: "feat nulls",
		10: "feat.a inmap", 11: "feat.a values", 12: "ts values", 13: "feat.zz inmap", 14: "feat.zz values"}
	got := map[int]string{}
	var walk func(n *Node, path string)
	walk = func(n *Node, path string) {
		for role, id := range map[string]int{"inmap": n.InMap, "nulls": n.Nulls, "lengths": n.Lengths, "values": n.Values} {
			if id >= 0 {
				got[id] = path + " " + role
			}
		}
		join := func(c *Node) string {
			if path == "" {
				return c.Name
			}
			return path + "." + c.Name
		}
		for _, c := range n.Fields {
			walk(c, join(c))
		}
		for _, c := range []*Node{n.Elem, n.Key, n.Val} {
			if c != nil {
				walk(c, join(c))
			}
		}
		for _, c := range n.Keys {
			walk(c, join(c))
		}
	}
	walk(s.Root, "")
	for id, w := range want {
		if got[id] != w {
			t.Errorf("stream %d: %q, want %q", id, got[id], w)
		}
	}
	if s.Types[8] != 12 || s.Types[11] != 10 || s.Types[12] != 5 || s.Types[4] != 8 {
		t.Errorf("types %v", s.Types)
	}
	ts := s.Root.Fields[4]
	if ts.Kind != KTimestamp || ts.Unit != 2 || ts.TimeZone != "UTC" || !ts.Nullable {
		t.Errorf("ts %+v", ts)
	}
	dec := s.Root.Fields[2].Val
	if dec.Precision != 30 || dec.Scale != 2 {
		t.Errorf("decimal %+v", dec)
	}
	// time_kinds.bin: parse whole.
	b2, err := os.ReadFile(filepath.Join("..", "schema", "testdata", "golden", "time_kinds.bin"))
	if err == nil {
		s2, err := ParseSchema(b2)
		if err != nil {
			t.Fatalf("time_kinds.bin: %v", err)
		}
		for _, c := range s2.Root.Fields {
			t.Logf("time_kinds: %q kind %d unit %d nullable %v values %d type %v", c.Name, c.Kind, c.Unit, c.Nullable, c.Values, typeOf(s2, c.Values))
		}
	}
	// Every truncation of the example is rejected, without a panic.
	for i := 0; i < len(b); i++ {
		if _, err := ParseSchema(b[:i]); err == nil {
			t.Errorf("truncated to %d bytes: no error", i)
		}
	}
}

func typeOf(s *Schema, id int) any {
	if id < 0 {
		return "-"
	}
	return s.Types[id]
}

// TestTimeseriesGolden reads the time-series golden files whole (they have
// no expected data besides themselves).
func TestTimeseriesGolden(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join("..", "timeseries", "testdata", "golden", "*.strata"))
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		f, err := Open(data)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		cols, err := f.ReadAll()
		addKinds(f.Kinds)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		rep, err := f.VerifyStats()
		if err != nil {
			t.Errorf("%s stats: %v", p, err)
		}
		t.Logf("stats checked: %+v", rep)
		var names []string
		for _, s := range f.Sections {
			names = append(names, s.Name)
		}
		t.Logf("%s: %d columns, %d rows, sections %v, roots:%s", filepath.Base(p), len(cols), len(cols[0].Values), names, formatTally(f.Kinds.Root))
	}
}

// TestCorruptGolden changes every byte of a small golden file in turn: the
// reader must never panic, and every change outside the minor version and
// the file checksum must fail Open or ReadAll (every other byte is under a
// checksum or compared).
func TestCorruptGolden(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "testdata", "golden", "nested.strata"))
	if err != nil {
		t.Fatal(err)
	}
	n := len(data)
	for i := 0; i < n; i++ {
		if i >= n-14 && i < n-4 {
			continue
		}
		bad := append([]byte{}, data...)
		bad[i] ^= 0x04
		f, err := Open(bad)
		if err == nil {
			_, err = f.ReadAll()
		}
		if err == nil {
			t.Errorf("byte %d of %d changed: no error", i, n)
		}
	}
	for i := 0; i < n; i++ {
		f, err := Open(data[:i])
		if err == nil {
			_, err = f.ReadAll()
		}
		if err == nil {
			t.Errorf("truncated to %d bytes: no error", i)
		}
	}
}
