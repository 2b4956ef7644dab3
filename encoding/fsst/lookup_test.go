package fsst_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"strata/encoding"
	"strata/encoding/all"
	"strata/encoding/encodingtest"
)

// codeLengths returns the code lengths a node's child holds.
func codeLengths(t *testing.T, p parts) []uint32 {
	t.Helper()
	_, n := binary.Uvarint(p.child)
	d, err := encoding.Open(p.child[n:], all.Options())
	if err != nil {
		t.Fatal(err)
	}
	r := d.(encoding.Reader[uint32])
	out := make([]uint32, r.Len())
	if err := r.Read(out); err != nil {
		t.Fatal(err)
	}
	return out
}

// withLengths returns node with its code lengths child rewritten as kind.
func withLengths(t *testing.T, node []byte, lens []uint32, kind encoding.Kind) []byte {
	t.Helper()
	p := split(t, node)
	p.child = encodingtest.Child(t, lens, encodingtest.T(kind))
	return p.join()
}

func gather(t *testing.T, node []byte, rows []int32) (encoding.Bytes, error) {
	t.Helper()
	d, err := encoding.Open(node, all.Options())
	if err != nil {
		return encoding.Bytes{}, err
	}
	var out encoding.Bytes
	err = d.(encoding.BinaryGatherer).GatherBinary(rows, &out)
	return out, err
}

// TestLookupLengthKinds checks lookups of a few rows (which sum the code
// lengths in place when their child can) against the values, on fresh
// decoders and on one decoder looked up many times (which builds the
// offsets once the sums cost more), for every code lengths child.
func TestLookupLengthKinds(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for name, vals := range special() {
		if vals.Len() < 2 {
			continue
		}
		base := encode(t, vals)
		lens := codeLengths(t, split(t, base))
		for _, kind := range []encoding.Kind{encoding.KindFixedBitWidth, encoding.KindBlockFOR, encoding.KindTrivial} {
			node := withLengths(t, base, lens, kind)
			if err := encodingtest.Exercise(node, all.Options()); err != nil {
				t.Fatalf("%s %v: %v", name, kind, err)
			}
			n := vals.Len()
			for _, k := range []int{1, 2, 3, 16, 17} {
				rows := randRows(r, n, k)
				got, err := gather(t, node, rows)
				if err != nil {
					t.Fatalf("%s %v rows %v: %v", name, kind, rows, err)
				}
				for i, row := range rows {
					if !bytes.Equal(got.Value(i), vals.Value(int(row))) {
						t.Fatalf("%s %v row %d: %q, want %q", name, kind, row, got.Value(i), vals.Value(int(row)))
					}
				}
			}
			d, err := encoding.Open(node, all.Options())
			if err != nil {
				t.Fatal(err)
			}
			g := d.(encoding.BinaryGatherer)
			for i := 0; i < 40; i++ {
				row := int32(r.IntN(n))
				var got encoding.Bytes
				if err := g.GatherBinary([]int32{row}, &got); err != nil {
					t.Fatalf("%s %v lookup %d of row %d: %v", name, kind, i, row, err)
				}
				if !bytes.Equal(got.Value(0), vals.Value(int(row))) {
					t.Fatalf("%s %v lookup %d of row %d: %q, want %q", name, kind, i, row, got.Value(0), vals.Value(int(row)))
				}
			}
		}
	}
}

// randRows returns k distinct rows below n (fewer when n is smaller),
// increasing.
func randRows(r *rand.Rand, n, k int) []int32 {
	k = min(k, n)
	seen := map[int32]bool{}
	var rows []int32
	for len(rows) < k {
		row := int32(r.IntN(n))
		if !seen[row] {
			seen[row] = true
			rows = append(rows, row)
		}
	}
	slices.Sort(rows)
	return rows
}

// TestLookupCorruptLengths: code lengths that do not add up to the code
// bytes are refused by a lookup of any row, with the lengths summed in
// place or not, before any value is returned.
func TestLookupCorruptLengths(t *testing.T) {
	vals := bytesOf("abcabcabc", "xyz\xff", "", "abcxyzabc", "\xff\xff", "cab", "furiously", "quickly")
	base := encode(t, vals)
	lens := codeLengths(t, split(t, base))
	for _, kind := range []encoding.Kind{encoding.KindFixedBitWidth, encoding.KindBlockFOR, encoding.KindTrivial} {
		for i := range lens {
			for _, delta := range []int{-1, 1, 1000} {
				if delta < 0 && lens[i] == 0 {
					continue
				}
				bad := slices.Clone(lens)
				bad[i] = uint32(int(bad[i]) + delta)
				node := withLengths(t, base, bad, kind)
				for row := range vals.Len() {
					_, err := gather(t, node, []int32{int32(row)})
					if !errors.Is(err, encoding.ErrCorrupt) {
						t.Fatalf("%v: length %d %+d, lookup of row %d: got %v, want ErrCorrupt", kind, i, delta, row, err)
					}
				}
				encodingtest.WantCorrupt(t, fmt.Sprintf("%v: length %d %+d", kind, i, delta), node)
			}
		}
	}
}

// TestLookupDanglingEscape: a value ending with a dangling escape is
// refused by a lookup of it; a lookup of another value returns that value,
// which is whole, and a full read still refuses the node.
func TestLookupDanglingEscape(t *testing.T) {
	var table [8]byte
	table[0] = 1 // one symbol "a"
	codes := []byte{0, 0, 0xff, 'b', 0, 0, 0xff, 0xff, 0xff, 0}
	lens := []uint32{2, 3, 2, 2, 1} // "aa", "ba", "a" + dangling escape, escape pair (0xff), "a"
	for _, kind := range []encoding.Kind{encoding.KindFixedBitWidth, encoding.KindBlockFOR, encoding.KindTrivial} {
		body := append(table[:], 'a')
		body = binary.AppendUvarint(body, 7)
		body = append(body, encodingtest.Child(t, lens, encodingtest.T(kind))...)
		body = append(body, codes...)
		node := encodingtest.Node(kFSST, encoding.Binary, len(lens), body)
		want := []string{"aa", "ba", "", "\xff", "a"}
		for row := range lens {
			got, err := gather(t, node, []int32{int32(row)})
			if row == 2 {
				if !errors.Is(err, encoding.ErrCorrupt) {
					t.Fatalf("%v: lookup of the dangling value: got %v, want ErrCorrupt", kind, err)
				}
				continue
			}
			if kind == encoding.KindTrivial {
				// no sums in place: the lookup checks every value first
				if !errors.Is(err, encoding.ErrCorrupt) {
					t.Fatalf("%v: lookup of row %d: got %v, want ErrCorrupt", kind, row, err)
				}
				continue
			}
			if err != nil || string(got.Value(0)) != want[row] {
				t.Fatalf("%v: lookup of row %d: %q, %v; want %q", kind, row, got.Value(0), err, want[row])
			}
		}
		encodingtest.WantCorrupt(t, fmt.Sprintf("%v: dangling escape", kind), node)
	}
}
