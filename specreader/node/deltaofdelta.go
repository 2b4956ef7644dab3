package node

import "fmt"

// DeltaOfDelta (kind 19, FORMAT.md "DeltaOfDelta"): a leaf of blocks of bs
// rows holding second-order differences bit-packed per block. Each block
// is either the single tag byte 0x80 (regular: it continues the previous
// block's interval exactly) or an explicit block
//
//	tag (= w) | first: varint | d1: varint (L ≥ 2) | dmin: varint (L ≥ 3) |
//	lo: uvarint (L ≥ 2) | hi: varint (L ≥ 2) | payload (L ≥ 3)
//
// where the payload is L − 2 values dd_i − dmin at w bits. All arithmetic
// is on widened values, wrapping modulo 2^64.

func init() { register(19, decodeDeltaOfDelta) }

// dodRegular is the tag of a regular block.
const dodRegular = 0x80

// decodeDeltaOfDelta decodes a DeltaOfDelta node block by block, carrying
// the prediction from header fields only, and checks each value against
// its block's exact bounds.
func decodeDeltaOfDelta(h Header, _ Resolver) (Values, error) {
	t, n := h.Type, h.Rows
	// (every block has at least its tag)
	bs, nb, b, err := readBlocks(h, 1)
	if err != nil {
		return Values{}, err
	}
	v := Make(t, n)
	var prevFirst, prevD1 uint64 // d1_{−1} = 0
	prevLen := 0
	for blk := 0; blk < nb; blk++ {
		row0, L := blk*bs, blockLen(blk, bs, n)
		pred := prevFirst + uint64(prevLen)*prevD1
		if len(b) == 0 {
			return Values{}, fmt.Errorf("block %d: body ends before its tag: %w", blk, ErrCorrupt)
		}
		tag := b[0]
		b = b[1:]
		var first, d1, lo, hiAdj uint64
		var minB, maxB uint64
		if tag == dodRegular {
			if blk == 0 {
				return Values{}, fmt.Errorf("block 0 is regular: %w", ErrCorrupt)
			}
			first, d1 = pred, prevD1
			end := first + uint64(L-1)*d1
			if !isWide(t, first) || !isWide(t, end) {
				return Values{}, fmt.Errorf("regular block %d runs %#x..%#x outside %v: %w", blk, first, end, t, ErrCorrupt)
			}
			minB, maxB = first, end
			if lessWide(t, end, first) {
				minB, maxB = end, first
			}
			x := first
			for i := 0; i < L; i++ {
				if err := dodStore(&v, t, row0+i, x, minB, maxB, blk); err != nil {
					return Values{}, err
				}
				x += d1
			}
		} else {
			w := int(tag)
			if w > maxPackedWidth {
				return Values{}, fmt.Errorf("block %d: tag %#x: %w", blk, tag, ErrCorrupt)
			}
			if w > 0 && L < 3 {
				return Values{}, fmt.Errorf("block %d of %d rows with width %d: %w", blk, L, w, ErrCorrupt)
			}
			var f uint64
			if f, b, err = readVarint(b, fmt.Sprintf("block %d first", blk)); err != nil {
				return Values{}, err
			}
			if blk == 0 {
				first = f
			} else {
				first = pred + f
			}
			if !isWide(t, first) {
				return Values{}, fmt.Errorf("block %d first %#x is not a %v: %w", blk, first, t, ErrCorrupt)
			}
			d1 = prevD1
			var dmin uint64
			if L >= 2 {
				var d uint64
				if d, b, err = readVarint(b, fmt.Sprintf("block %d d1", blk)); err != nil {
					return Values{}, err
				}
				if blk == 0 {
					d1 = d
				} else {
					d1 = prevD1 + d
				}
			}
			if L >= 3 {
				if dmin, b, err = readVarint(b, fmt.Sprintf("block %d dmin", blk)); err != nil {
					return Values{}, err
				}
			}
			minB, maxB = first, first
			if L >= 2 {
				if lo, b, err = readUvarint(b, fmt.Sprintf("block %d lo", blk)); err != nil {
					return Values{}, err
				}
				if hiAdj, b, err = readVarint(b, fmt.Sprintf("block %d hi", blk)); err != nil {
					return Values{}, err
				}
				minB = first - lo
				maxB = first + uint64(L-1)*d1 + hiAdj
			}
			if !isWide(t, minB) || !isWide(t, maxB) {
				return Values{}, fmt.Errorf("block %d bounds %#x, %#x are not %v values: %w", blk, minB, maxB, t, ErrCorrupt)
			}
			if lessWide(t, first, minB) || lessWide(t, maxB, first) {
				return Values{}, fmt.Errorf("block %d bounds [%#x, %#x] exclude its first value %#x: %w", blk, minB, maxB, first, ErrCorrupt)
			}
			var payload []byte
			if L >= 3 {
				size, _ := packedLen(L-2, w) // w ≤ 64, L ≤ 65536: no error
				if len(b) < size {
					return Values{}, fmt.Errorf("block %d payload of %d bytes, %d left: %w", blk, size, len(b), ErrCorrupt)
				}
				payload, b = b[:size], b[size:]
			}
			x, delta := first, d1
			if err := dodStore(&v, t, row0, x, minB, maxB, blk); err != nil {
				return Values{}, err
			}
			for i := 1; i < L; i++ {
				if i >= 2 {
					var dd uint64
					if w > 0 {
						dd = bitsAt(payload, w, i-2)
					}
					delta += dmin + dd
				}
				x += delta
				if err := dodStore(&v, t, row0+i, x, minB, maxB, blk); err != nil {
					return Values{}, err
				}
			}
		}
		prevFirst, prevD1, prevLen = first, d1, L
	}
	if err := noTrailing(b, "the last block"); err != nil {
		return Values{}, err
	}
	return v, nil
}

// dodStore stores decoded value x at row i after checking it lies within
// its block's exact bounds [lo, hi] (which also makes it a value of t).
func dodStore(v *Values, t Type, i int, x, lo, hi uint64, blk int) error {
	if lessWide(t, x, lo) || lessWide(t, hi, x) {
		return fmt.Errorf("block %d row %d: value %#x outside the block bounds [%#x, %#x]: %w", blk, i, x, lo, hi, ErrCorrupt)
	}
	setWide(v, i, x)
	return nil
}
