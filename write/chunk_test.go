package write

import (
	"math/rand/v2"
	"testing"

	"strata/encoding"
	"strata/encoding/all"
	"strata/encoding/nullable"
)

// TestReplayAndDrift checks capture/replay: chunks replay the captured tree
// and decode to their values; when the data changes shape the encoder
// selects again instead of keeping a layout that no longer fits.
func TestReplayAndDrift(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	enc := &chunkEncoder{policy: all.Policy(), nullable: nullable.Encode}
	var trees []string
	for c := 0; c < 30; c++ {
		vals := make([]int64, 4096)
		for i := range vals {
			if c < 20 {
				vals[i] = int64(r.IntN(5)) * 1000003 // five distinct wide values: a dictionary
			} else {
				vals[i] = r.Int64() // random: nothing but plain or wide FOR fits
			}
		}
		node, err := enc.encode(nil, vals, nil)
		if err != nil {
			t.Fatal(err)
		}
		rd, err := encoding.OpenTyped[int64](node, 0, all.Options())
		if err != nil {
			t.Fatal(err)
		}
		got := make([]int64, len(vals))
		if err := rd.Read(got); err != nil {
			t.Fatal(err)
		}
		for i := range vals {
			if got[i] != vals[i] {
				t.Fatalf("chunk %d value %d: %d, want %d", c, i, got[i], vals[i])
			}
		}
		tree, err := encoding.Capture(node, all.Options())
		if err != nil {
			t.Fatal(err)
		}
		trees = append(trees, tree.String())
	}
	if trees[0] != trees[19] {
		t.Errorf("replayed chunks changed layout without drift: %s then %s", trees[0], trees[19])
	}
	if trees[25] == trees[0] {
		t.Errorf("random chunks kept the dictionary layout %s", trees[25])
	}
}

// TestNullChunks checks chunks with nulls go through the Nullable encoding
// and read back with their validity.
func TestNullChunks(t *testing.T) {
	enc := &chunkEncoder{policy: all.Policy(), nullable: nullable.Encode}
	vals := []int32{1, 0, 3, 0, 5, 6, 0, 8}
	valid := []bool{true, false, true, false, true, true, false, true}
	node, err := enc.encode(nil, vals, valid)
	if err != nil {
		t.Fatal(err)
	}
	rd, err := encoding.OpenTyped[int32](node, 0, all.Options())
	if err != nil {
		t.Fatal(err)
	}
	if rd.Kind() != encoding.KindNullable {
		t.Fatalf("root kind %v, want Nullable", rd.Kind())
	}
	got, gotValid := make([]int32, len(vals)), make([]bool, len(vals))
	if err := encoding.ReadNullable(rd, got, gotValid); err != nil {
		t.Fatal(err)
	}
	for i := range vals {
		if gotValid[i] != valid[i] || (valid[i] && got[i] != vals[i]) {
			t.Fatalf("row %d: %d/%v, want %d/%v", i, got[i], gotValid[i], vals[i], valid[i])
		}
	}
}
