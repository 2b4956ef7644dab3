package node

import (
	"bytes"
	"fmt"
)

// FrontCoding (kind 15, FORMAT.md "Text encodings"): each binary value as
// the length of the prefix it shares with the value before it and the
// suffix that follows, with a restart (prefix 0) every K rows.

const kindFrontCoding = 15

func init() { register(kindFrontCoding, decodeFrontCoding) }

// decodeFrontCoding decodes `K | flags | prefixes | suffix lengths |
// suffix bytes`.
func decodeFrontCoding(h Header, r Resolver) (Values, error) {
	if err := ftBinaryType(h.Type, "FrontCoding"); err != nil {
		return Values{}, err
	}
	n := h.Rows
	k, rest, err := Count(h.Body, 65536, "front coding K")
	if err != nil {
		return Values{}, err
	}
	if k < 1 {
		return Values{}, fmt.Errorf("front coding K 0: %w", ErrCorrupt)
	}
	flags, rest, err := ftByte(rest, "front coding flags")
	if err != nil {
		return Values{}, err
	}
	if flags&^1 != 0 {
		return Values{}, fmt.Errorf("front coding flags %#x: %w", flags, ErrUnsupported)
	}
	sorted := flags&1 != 0
	pre, rest, err := ftChild(rest, Uint32, n, r, "front coding prefixes")
	if err != nil {
		return Values{}, err
	}
	suf, rest, err := ftChild(rest, Uint32, n, r, "front coding suffix lengths")
	if err != nil {
		return Values{}, err
	}
	// Check the lengths before decoding the suffix bytes: Σ s_i is the
	// third child's row count, and the decoded size Σ (p_i + s_i) is
	// bounded by the decode limit before anything is allocated for it.
	var sumS, total uint64
	var prevLen uint64
	for i := range n {
		p, s := pre.Uint[i], suf.Uint[i]
		if i%k == 0 {
			if p != 0 {
				return Values{}, fmt.Errorf("front coding restart row %d has prefix %d: %w", i, p, ErrCorrupt)
			}
		} else if p > prevLen {
			return Values{}, fmt.Errorf("front coding row %d: prefix %d of a %d-byte previous value: %w", i, p, prevLen, ErrCorrupt)
		}
		prevLen = p + s
		sumS += s
		total += prevLen
		if total > MaxRawLen {
			return Values{}, fmt.Errorf("front coding values exceed %d bytes: %w", MaxRawLen, ErrCorrupt)
		}
	}
	if sumS > MaxRows {
		return Values{}, fmt.Errorf("front coding suffix bytes %d over %d: %w", sumS, MaxRows, ErrCorrupt)
	}
	sb, rest, err := ftChild(rest, Uint8, int(sumS), r, "front coding suffix bytes")
	if err != nil {
		return Values{}, err
	}
	if err := ftNoTrailing(rest, "front coding suffix bytes"); err != nil {
		return Values{}, err
	}
	buf := make([]byte, 0, total)
	v := Make(Binary, n)
	off := 0
	var prev []byte
	for i := range n {
		start := len(buf)
		buf = append(buf, prev[:pre.Uint[i]]...)
		s := int(suf.Uint[i])
		for _, c := range sb.Uint[off : off+s] {
			buf = append(buf, byte(c))
		}
		off += s
		prev = buf[start:len(buf):len(buf)]
		v.Bin[i] = prev
		if sorted && i%k == 0 && i > 0 && bytes.Compare(v.Bin[i-k], prev) > 0 {
			return Values{}, fmt.Errorf("front coding sorted, but restart row %d is below row %d: %w", i, i-k, ErrCorrupt)
		}
	}
	return v, nil
}
