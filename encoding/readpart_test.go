package encoding_test

import (
	"errors"
	"testing"

	"strata/encoding"
	"strata/encoding/all"
	"strata/encoding/nullable"
)

// TestReadPart reads nodes with and without nulls into every kind of
// buffer ReadPart fills, at an offset, and checks values and validity
// against the input row by row, and that a buffer of another type is
// refused as corrupt.
func TestReadPart(t *testing.T) {
	p := encoding.DefaultPolicy(all.Registry())
	vals := []int32{5, 0, 7, 0, 9, 11}
	isValid := []bool{true, false, true, false, true, true}
	nodeNulls, _, err := nullable.Encode(p, nil, []int32{5, 7, 9, 11}, isValid)
	if err != nil {
		t.Fatal(err)
	}
	nodePlain, _, err := p.Encode(nil, vals)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name     string
		node     []byte
		valid    []bool
		nullable bool
	}{
		{"nulls", nodeNulls, isValid, true},
		{"plain", nodePlain, []bool{true, true, true, true, true, true}, false},
	} {
		d, err := encoding.Open(c.node, all.Options())
		if err != nil {
			t.Fatal(err)
		}
		const at = 2
		buf := make([]int32, at+len(vals))
		valid := make([]bool, at+len(vals))
		if err := encoding.ReadPart(d, buf, at, len(vals), valid, true); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for i := range vals {
			if valid[at+i] != c.valid[i] || (c.valid[i] && buf[at+i] != vals[i]) {
				t.Fatalf("%s row %d: %d valid %v, want %d valid %v", c.name, i, buf[at+i], valid[at+i], vals[i], c.valid[i])
			}
		}
		// without validity nulls read as zero values
		d.Reset()
		plain := make([]int32, len(vals))
		if err := encoding.ReadPart(d, plain, 0, len(vals), nil, c.nullable); err != nil {
			t.Fatalf("%s without validity: %v", c.name, err)
		}
		for i, v := range vals {
			if plain[i] != v {
				t.Fatalf("%s without validity row %d: %d, want %d", c.name, i, plain[i], v)
			}
		}
		d.Reset()
		if err := encoding.ReadPart(d, make([]int64, len(vals)), 0, len(vals), nil, false); !errors.Is(err, encoding.ErrCorrupt) {
			t.Fatalf("%s: int32 node read into []int64: %v, want ErrCorrupt", c.name, err)
		}
	}
	strs := [][]byte{[]byte("a"), nil, []byte("ccc")}
	var b encoding.Bytes
	b.Append(strs[0])
	b.Append(strs[2])
	node, _, err := nullable.Encode(p, nil, &b, []bool{true, false, true})
	if err != nil {
		t.Fatal(err)
	}
	d, err := encoding.Open(node, all.Options())
	if err != nil {
		t.Fatal(err)
	}
	var out encoding.Bytes
	valid := make([]bool, 3)
	if err := encoding.ReadPart(d, &out, 0, 3, valid, true); err != nil {
		t.Fatal(err)
	}
	for i, s := range strs {
		if string(out.Value(i)) != string(s) || valid[i] != (s != nil) {
			t.Fatalf("binary row %d: %q valid %v, want %q", i, out.Value(i), valid[i], s)
		}
	}
}
