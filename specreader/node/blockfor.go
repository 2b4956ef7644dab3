package node

import "fmt"

// BlockFOR (kind 4, FORMAT.md "BlockFOR"): frame of reference per block of
// bs rows with patched exceptions. The body is `bs: uvarint`, a header per
// block (min, spread, baseOff, w, nexc), then the data of every block
// (slots at w bits, exception positions at bitlen(len_b − 1) bits,
// exception offsets from min at bitlen(spread) bits, each section starting
// on a byte boundary), ending exactly at the end of the body.

func init() { register(4, decodeBlockFOR) }

// maxBlockSize bounds bs for the block encodings (1 ≤ bs ≤ 65536).
const maxBlockSize = 65536

// forHeader is one parsed BlockFOR block header.
type forHeader struct {
	min, max uint64 // widened block bounds
	baseOff  uint64
	w        int
	nexc     int
}

// readBlocks checks that a block kind's node holds integers, reads its
// block size bs and returns it with the block count ⌈rows/bs⌉, once the
// body holds at least minHeader bytes per block (the smallest header of
// the kind), so the header table is never allocated from a hostile count.
func readBlocks(h Header, minHeader int) (bs, nb int, rest []byte, err error) {
	if err := needInteger(h); err != nil {
		return 0, 0, nil, err
	}
	u, rest, err := readUvarint(h.Body, "block size")
	if err != nil {
		return 0, 0, nil, err
	}
	if u < 1 || u > maxBlockSize {
		return 0, 0, nil, fmt.Errorf("block size %d outside [1, %d]: %w", u, maxBlockSize, ErrCorrupt)
	}
	bs = int(u)
	nb = (h.Rows + bs - 1) / bs
	if nb > len(rest)/minHeader {
		return 0, 0, nil, fmt.Errorf("%d blocks, %d header bytes left: %w", nb, len(rest), ErrCorrupt)
	}
	return bs, nb, rest, nil
}

// blockLen is the row count of block b of nb blocks of bs rows over n rows.
func blockLen(b, bs, n int) int {
	return min(n, (b+1)*bs) - b*bs
}

// decodeBlockFOR decodes a BlockFOR node: it parses and checks every block
// header first (bounds, widths, exception counts), then decodes each
// block's slots and patches its exceptions.
func decodeBlockFOR(h Header, _ Resolver) (Values, error) {
	t, n := h.Type, h.Rows
	// (a header takes at least 5 bytes (four one-byte varints and w))
	bs, nb, b, err := readBlocks(h, 5)
	if err != nil {
		return Values{}, err
	}
	hdrs := make([]forHeader, nb)
	var prevMin uint64
	for blk := range hdrs {
		hd := &hdrs[blk]
		L := blockLen(blk, bs, n)
		if blk == 0 {
			hd.min, b, err = readTvarint(t, b, "block 0 min")
		} else {
			var d uint64
			d, b, err = readVarint(b, fmt.Sprintf("block %d min delta", blk))
			hd.min = prevMin + d
			if err == nil && !isWide(t, hd.min) {
				err = fmt.Errorf("block %d min %#x is not a %v: %w", blk, hd.min, t, ErrCorrupt)
			}
		}
		if err != nil {
			return Values{}, err
		}
		prevMin = hd.min
		spread, rest, err := readUvarint(b, fmt.Sprintf("block %d spread", blk))
		if err != nil {
			return Values{}, err
		}
		// max = min + spread must be a T not below min: spread ≤ maxT − min.
		if spread > maxWide(t)-hd.min {
			return Values{}, fmt.Errorf("block %d: min %#x + spread %d leaves %v: %w", blk, hd.min, spread, t, ErrCorrupt)
		}
		hd.max = hd.min + spread
		if hd.baseOff, rest, err = readUvarint(rest, fmt.Sprintf("block %d baseOff", blk)); err != nil {
			return Values{}, err
		}
		if hd.baseOff > spread {
			return Values{}, fmt.Errorf("block %d: baseOff %d above spread %d: %w", blk, hd.baseOff, spread, ErrCorrupt)
		}
		if len(rest) < 1 {
			return Values{}, fmt.Errorf("block %d: header ends before its width: %w", blk, ErrCorrupt)
		}
		hd.w = int(rest[0])
		if hd.w > bitLen(spread) {
			return Values{}, fmt.Errorf("block %d: width %d above bitlen(spread %d): %w", blk, hd.w, spread, ErrCorrupt)
		}
		if hd.nexc, rest, err = Count(rest[1:], L, fmt.Sprintf("block %d exception count", blk)); err != nil {
			return Values{}, err
		}
		b = rest
	}
	v := Make(t, n)
	for blk := range hdrs {
		hd := &hdrs[blk]
		L := blockLen(blk, bs, n)
		row0 := blk * bs
		spread := hd.max - hd.min
		pw, ew := bitLen(uint64(L-1)), bitLen(spread)
		slotBytes, _ := packedLen(L, hd.w) // widths ≤ 64, counts ≤ 65536: no error
		posBytes, _ := packedLen(hd.nexc, pw)
		excBytes, _ := packedLen(hd.nexc, ew)
		if need := slotBytes + posBytes + excBytes; len(b) < need {
			return Values{}, fmt.Errorf("block %d data needs %d bytes, %d left: %w", blk, need, len(b), ErrCorrupt)
		}
		slots, pos, exc := b[:slotBytes], b[slotBytes:slotBytes+posBytes], b[slotBytes+posBytes:slotBytes+posBytes+excBytes]
		b = b[slotBytes+posBytes+excBytes:]
		base := hd.min + hd.baseOff
		for i := 0; i < L; i++ {
			var s uint64
			if hd.w > 0 {
				s = bitsAt(slots, hd.w, i)
			}
			setWide(&v, row0+i, narrow(t, base+s))
		}
		prev := -1
		for j := 0; j < hd.nexc; j++ {
			var p, e uint64
			if pw > 0 {
				p = bitsAt(pos, pw, j)
			}
			if ew > 0 {
				e = bitsAt(exc, ew, j)
			}
			if int(p) <= prev || p >= uint64(L) {
				return Values{}, fmt.Errorf("block %d exception %d at position %d (previous %d, block of %d rows): %w", blk, j, p, prev, L, ErrCorrupt)
			}
			prev = int(p)
			if e > spread {
				return Values{}, fmt.Errorf("block %d exception %d: offset %d above spread %d: %w", blk, j, e, spread, ErrCorrupt)
			}
			setWide(&v, row0+int(p), hd.min+e)
		}
		// The header's bounds are exact; a value outside them is corrupt.
		for i := 0; i < L; i++ {
			x := wide(&v, row0+i)
			if lessWide(t, x, hd.min) || lessWide(t, hd.max, x) {
				return Values{}, fmt.Errorf("block %d row %d: value %#x outside the block bounds [%#x, %#x]: %w", blk, i, x, hd.min, hd.max, ErrCorrupt)
			}
		}
	}
	if err := noTrailing(b, "the last block"); err != nil {
		return Values{}, err
	}
	return v, nil
}
