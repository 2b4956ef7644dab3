package fsst_test

import (
	"fmt"
	"strings"
	"testing"

	"strata/encoding"
	"strata/encoding/all"
	"strata/encoding/encodingtest"
	"strata/encoding/nullable"
)

// review58Text returns n values of text FSST stores.
func review58Text(n int) encoding.Bytes {
	var vals encoding.Bytes
	for i := 0; i < n; i++ {
		vals.Append([]byte(fmt.Sprintf("%s row %d of the lookups", strings.Repeat("quickly ", i%4), i)))
	}
	return vals
}

// TestReview58GatherNoRowsAfterLookup: a gather of no rows is legal (a
// Nullable parent gathers the values of no row when every row it looks
// up is null). Once a lookup of a few rows had summed the code lengths in
// place (bf291ca), gatherFew counted the rows of the next lookup by its
// last row, rows[len(rows)-1], and a gather of none panicked.
func TestReview58GatherNoRowsAfterLookup(t *testing.T) {
	vals := review58Text(500)
	base := encode(t, vals)
	for _, kind := range []encoding.Kind{encoding.KindFixedBitWidth, encoding.KindBlockFOR, encoding.KindTrivial} {
		node := withLengths(t, base, codeLengths(t, split(t, base)), kind)
		d, err := encoding.Open(node, all.Options())
		if err != nil {
			t.Fatal(err)
		}
		g := d.(encoding.BinaryGatherer)
		for i, rows := range [][]int32{{7}, {}, {3, 9}, nil, {499}} {
			var out encoding.Bytes
			if err := g.GatherBinary(rows, &out); err != nil {
				t.Fatalf("%v: gather %d of %v: %v", kind, i, rows, err)
			}
			if out.Len() != len(rows) {
				t.Fatalf("%v: gather %d of %v returned %d values", kind, i, rows, out.Len())
			}
			for k, r := range rows {
				if string(out.Value(k)) != string(vals.Value(int(r))) {
					t.Fatalf("%v: row %d: %q, want %q", kind, r, out.Value(k), vals.Value(int(r)))
				}
			}
		}
	}
}

// TestReview58NullableLookupOfNulls: the same through a Nullable node
// whose values are FSST: a lookup of a present row, then of null rows
// only.
func TestReview58NullableLookupOfNulls(t *testing.T) {
	const n = 600
	text := review58Text(n)
	var vals encoding.Bytes
	valid := make([]bool, n)
	for i := range valid {
		if valid[i] = i%3 != 1; valid[i] {
			vals.Append(text.Value(i))
		}
	}
	p := all.Policy()
	p.Zstd = false
	p.Force = encodingtest.T(encoding.KindNullable, encodingtest.T(encoding.KindTrivial),
		encodingtest.T(encoding.KindFSST, encodingtest.T(encoding.KindFixedBitWidth)))
	node, tree, err := nullable.Encode(p, nil, vals, valid)
	if err != nil {
		t.Fatal(err)
	}
	if tree.Children[1].Kind != encoding.KindFSST {
		t.Fatalf("values stored as %v, want FSST", tree)
	}
	d, err := encoding.Open(node, all.Options())
	if err != nil {
		t.Fatal(err)
	}
	g := d.(encoding.BinaryGatherer)
	for _, rows := range [][]int32{{3}, {1}, {4, 7}, {1, 4, 10}} {
		var out encoding.Bytes
		if err := g.GatherBinary(rows, &out); err != nil {
			t.Fatalf("gather %v: %v", rows, err)
		}
		for k, r := range rows {
			want := ""
			if valid[r] {
				want = string(text.Value(int(r)))
			}
			if string(out.Value(k)) != want {
				t.Fatalf("row %d: %q, want %q", r, out.Value(k), want)
			}
		}
	}
}
