package specreader

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"strata/specreader/node"
)

// TestGolden reads every golden file of testdata/golden and compares it,
// value by value, with its Arrow sibling (or, with none, decodes it whole).
func TestGolden(t *testing.T) {
	dir := filepath.Join("..", "testdata", "golden")
	paths, err := filepath.Glob(filepath.Join(dir, "*.strata"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no golden files in %s (%v)", dir, err)
	}
	for _, p := range paths {
		name := strings.TrimSuffix(filepath.Base(p), ".strata")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			f, err := Open(data)
			if err != nil {
				t.Fatalf("open: %v", err)
			}
			if err := f.VerifyFileChecksum(); err != nil {
				t.Errorf("file checksum: %v", err)
			}
			cols, err := f.ReadAll()
			addKinds(f.Kinds)
			if err != nil {
				t.Fatalf("read: %v", err)
			}
			rep, err := f.VerifyStats()
			if err != nil {
				t.Errorf("stats: %v", err)
			}
			t.Logf("stats checked: %+v", rep)
			sib := strings.TrimSuffix(p, ".strata") + ".arrow"
			if _, err := os.Stat(sib); err != nil {
				t.Logf("no Arrow sibling: decoded %d columns without comparison", len(cols))
				return
			}
			sch, recs := readArrow(t, sib)
			compareTable(t, name, cols, sch, recs)
			rows := 0
			if len(cols) > 0 {
				rows = len(cols[0].Values)
			}
			t.Logf("%d stripes, %d groups, %d columns, %d rows", len(f.Stripes), len(f.Groups), len(cols), rows)
		})
	}
}

// TestGoldenFieldText checks that the FieldText golden file exercises
// what its kind's chapter describes, so that TestGolden's value-by-value
// comparison of it covers kind 26: FieldText nodes at chunk roots, as a
// Nullable root's values and as a SharedDictionary definition's alphabet
// (where the writer put the place names holding 0xFF bytes), slots in
// both modes, several slots, and the 0xFF 0x00 escape in a skeleton.
func TestGoldenFieldText(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "testdata", "golden", "fieldtext.strata"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := Open(data)
	if err != nil {
		t.Fatal(err)
	}
	var roots, inNullable, inAlphabet, mode0, mode1, multi, escaped int
	look := func(payload []byte) {
		h, err := node.ParseHeader(payload)
		if err != nil || h.Kind != 26 || len(h.Body) < 1 || len(h.Body) < 1+int(h.Body[0]) {
			return
		}
		nf := int(h.Body[0])
		if nf > 1 {
			multi++
		}
		for _, m := range h.Body[1 : 1+nf] {
			if m == 0 {
				mode0++
			} else {
				mode1++
			}
		}
		skel, _, err := node.Child(h.Body[1+nf:], "skeletons")
		if err != nil {
			t.Errorf("skeletons: %v", err)
			return
		}
		v, err := node.Decode(skel, nil)
		if err != nil {
			t.Errorf("skeletons: %v", err)
			return
		}
		for _, s := range v.Bin {
			if bytes.Contains(s, []byte{0xff, 0x00}) {
				escaped++
				break
			}
		}
	}
	for s := range f.Stripes {
		n, err := f.StreamCount(s)
		if err != nil {
			t.Fatal(err)
		}
		for id := range n {
			ps, _, err := f.ChunkPayloads(s, id)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range ps {
				h, err := node.ParseHeader(p)
				if err != nil {
					t.Fatal(err)
				}
				switch h.Kind {
				case 26:
					roots++
					look(p)
				case 17: // SharedDictionary: a definition's alphabet
					if h.Rows == 0 && len(h.Body) > 0 && h.Body[0] == 0 {
						alpha, _, err := node.Child(h.Body[1:], "alphabet")
						if err != nil {
							t.Fatal(err)
						}
						if len(alpha) > 0 && alpha[0] == 26 {
							inAlphabet++
							look(alpha)
						}
					}
				case kindNullable:
					_, rest, err := node.Child(h.Body, "validity")
					if err != nil {
						t.Fatal(err)
					}
					values, _, err := node.Child(rest, "values")
					if err != nil {
						t.Fatal(err)
					}
					if len(values) > 0 && values[0] == 26 {
						inNullable++
						look(values)
					}
				}
			}
		}
	}
	t.Logf("FieldText: %d roots, %d Nullable values, %d shared alphabets; slots in mode 0 %d, mode 1 %d; %d nodes of several slots; %d with an escaped 0xFF", roots, inNullable, inAlphabet, mode0, mode1, multi, escaped)
	if roots == 0 || inNullable == 0 || mode0 == 0 || mode1 == 0 || multi == 0 || escaped == 0 {
		t.Errorf("fieldtext.strata does not exercise all of FieldText")
	}
}
