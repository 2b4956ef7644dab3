package cascade_test

import (
	"errors"
	"testing"

	"strata/encoding"
	"strata/encoding/all"
	"strata/encoding/encodingtest"
	"strata/encoding/internal/cascade"
)

// TestSpans compares Spans with ReadOffsets over lengths children that sum
// ranges, and checks that one that cannot is left to ReadOffsets and that
// lengths past the limit are refused.
func TestSpans(t *testing.T) {
	lens := make([]uint32, 3000)
	for i := range lens {
		lens[i] = uint32(i*7%23) + uint32(i%500/499*100000) // an outlier now and then
	}
	open := func(kind encoding.Kind) encoding.Reader[uint32] {
		tree := encodingtest.T(kind)
		node, _, err := encodingtest.GoldenPolicy(nil, tree).EncodeSequence(nil, lens, 1, encoding.KindInvalid, tree)
		if err != nil {
			t.Fatal(err)
		}
		d, err := encoding.Open(node, all.Options())
		if err != nil {
			t.Fatal(err)
		}
		return d.(encoding.Reader[uint32])
	}
	var total int
	for _, l := range lens {
		total += int(l)
	}
	want, err := cascade.ReadOffsets(open(encoding.KindTrivial), len(lens), total, nil, "lengths")
	if err != nil {
		t.Fatal(err)
	}
	rows := []int32{0, 1, 2, 498, 499, 500, 1777, 2999}
	for _, kind := range []encoding.Kind{encoding.KindFixedBitWidth, encoding.KindBlockFOR} {
		r := open(kind)
		var ends []int32
		var sums []uint64
		spans := make([]int32, 2*len(rows))
		for _, withTotal := range []bool{true, false} {
			sum, ok, err := cascade.Spans(r, len(lens), rows, total, withTotal, &ends, &sums, spans, "lengths")
			if !ok || err != nil {
				t.Fatalf("%v: ok %v, %v", kind, ok, err)
			}
			if withTotal && sum != uint64(total) {
				t.Fatalf("%v: total %d, want %d", kind, sum, total)
			}
			for k, row := range rows {
				if spans[2*k] != want[row] || spans[2*k+1] != want[row+1] {
					t.Fatalf("%v row %d: [%d, %d), want [%d, %d)", kind, row, spans[2*k], spans[2*k+1], want[row], want[row+1])
				}
			}
		}
		if _, _, err := cascade.Spans(r, len(lens), rows, total-1, true, &ends, &sums, spans, "lengths"); !errors.Is(err, encoding.ErrCorrupt) {
			t.Fatalf("%v: limit below the total: %v, want ErrCorrupt", kind, err)
		}
		if _, _, err := cascade.Spans(r, len(lens), []int32{5, 5}, total, true, &ends, &sums, spans, "lengths"); !errors.Is(err, encoding.ErrCorrupt) {
			t.Fatalf("%v: repeated row: %v, want ErrCorrupt", kind, err)
		}
		if r.Pos() != 0 {
			t.Fatalf("%v: cursor moved to %d", kind, r.Pos())
		}
	}
	if _, ok, _ := cascade.Spans(open(encoding.KindTrivial), len(lens), rows, total, true, new([]int32), new([]uint64), make([]int32, 2*len(rows)), "lengths"); ok {
		t.Fatal("Trivial lengths summed in place")
	}
}
