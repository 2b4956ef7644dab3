package node

import (
	"fmt"
	"math"
)

// Delta (kind 6, FORMAT.md "Delta"): blocks of bs rows, each a first value
// in a header followed by the differences of its rows, all blocks'
// differences forming one int64 child of n − nb rows:
//
//	bs: uvarint | header[nb] (first, dmin: varint, dspan: uvarint) |
//	last: varint (if nb > 0) | deltas: uvarint len | node
//
// first is a typed varint for block 0 and a varint of the wrapping
// difference from the previous block's first value after it; last is a
// varint of (value of row n − 1) − first_{nb−1}.

func init() { register(6, decodeDelta) }

// deltaHeader is one parsed Delta block header.
type deltaHeader struct {
	first      uint64 // widened first value
	dmin, dmax int64  // bounds of the block's differences
}

// decodeDelta decodes a Delta node: block headers, last, then the int64
// differences child, whose row count is checked before it is decoded.
func decodeDelta(h Header, r Resolver) (Values, error) {
	t, n := h.Type, h.Rows
	// (a header takes at least 3 bytes (last and the child's length follow))
	bs, nb, b, err := readBlocks(h, 3)
	if err != nil {
		return Values{}, err
	}
	hdrs := make([]deltaHeader, nb)
	for blk := range hdrs {
		hd := &hdrs[blk]
		if blk == 0 {
			hd.first, b, err = readTvarint(t, b, "block 0 first")
		} else {
			var d uint64
			d, b, err = readVarint(b, fmt.Sprintf("block %d first delta", blk))
			hd.first = hdrs[blk-1].first + d
			if err == nil && !isWide(t, hd.first) {
				err = fmt.Errorf("block %d first %#x is not a %v: %w", blk, hd.first, t, ErrCorrupt)
			}
		}
		if err != nil {
			return Values{}, err
		}
		var dmin, dspan uint64
		if dmin, b, err = readVarint(b, fmt.Sprintf("block %d dmin", blk)); err != nil {
			return Values{}, err
		}
		if dspan, b, err = readUvarint(b, fmt.Sprintf("block %d dspan", blk)); err != nil {
			return Values{}, err
		}
		hd.dmin = int64(dmin)
		if dspan > uint64(math.MaxInt64)-uint64(hd.dmin) {
			return Values{}, fmt.Errorf("block %d: dmin %d + dspan %d exceeds int64: %w", blk, hd.dmin, dspan, ErrCorrupt)
		}
		hd.dmax = int64(dmin + dspan)
	}
	var last uint64
	if nb > 0 {
		var d uint64
		if d, b, err = readVarint(b, "last"); err != nil {
			return Values{}, err
		}
		last = hdrs[nb-1].first + d
		if !isWide(t, last) {
			return Values{}, fmt.Errorf("last value %#x is not a %v: %w", last, t, ErrCorrupt)
		}
	}
	deltas, b, err := readChild(b, Int64, n-nb, n-nb, r, "deltas child")
	if err != nil {
		return Values{}, err
	}
	if err := noTrailing(b, "the deltas child"); err != nil {
		return Values{}, err
	}
	v := Make(t, n)
	k := 0 // next child row
	for blk := range hdrs {
		hd := &hdrs[blk]
		row0, L := blk*bs, blockLen(blk, bs, n)
		x := hd.first
		setWide(&v, row0, x)
		for i := 1; i < L; i++ {
			d := deltas.Int[k]
			k++
			if d < hd.dmin || d > hd.dmax {
				return Values{}, fmt.Errorf("block %d row %d: difference %d outside [%d, %d]: %w", blk, i, d, hd.dmin, hd.dmax, ErrCorrupt)
			}
			x = narrow(t, x+uint64(d))
			setWide(&v, row0+i, x)
		}
		// The bounds also cover the step into the next block.
		if blk+1 < nb {
			d := int64(hdrs[blk+1].first - x)
			if d < hd.dmin || d > hd.dmax {
				return Values{}, fmt.Errorf("block %d: difference %d into block %d outside [%d, %d]: %w", blk, d, blk+1, hd.dmin, hd.dmax, ErrCorrupt)
			}
		}
	}
	if nb > 0 && wide(&v, n-1) != last {
		return Values{}, fmt.Errorf("last row decodes to %#x, header says %#x: %w", wide(&v, n-1), last, ErrCorrupt)
	}
	return v, nil
}
