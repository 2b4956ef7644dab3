package node

import "fmt"

// ALP-RD (kind 14, FORMAT.md "Float encodings"): each value's bits split at
// a cut rw; the right parts bit-packed as they are, the left parts as
// indexes into a dictionary of at most 8, with exceptions for left parts
// outside it.

const kindALPRD = 14

func init() { register(kindALPRD, decodeALPRD) }

// decodeALPRD decodes `bounds | rw | dn | dict | indexes | rights | E |
// positions | lefts`, each stream on a byte boundary, ending exactly at the
// end of the body.
func decodeALPRD(h Header, r Resolver) (Values, error) {
	if err := ftFloatType(h.Type); err != nil {
		return Values{}, err
	}
	n := h.Rows
	w := 8 * h.Type.Width()
	_, rest, err := ftParseBounds(h.Body, h.Type)
	if err != nil {
		return Values{}, fmt.Errorf("alp-rd: %w", err)
	}
	if len(rest) < 2 {
		return Values{}, fmt.Errorf("alp-rd: body ends before rw, dn: %w", ErrCorrupt)
	}
	rw, dn := int(rest[0]), int(rest[1])
	rest = rest[2:]
	lw := w - rw
	if lw < 1 || lw > 16 {
		return Values{}, fmt.Errorf("alp-rd: rw %d leaves a left width of %d: %w", rw, lw, ErrCorrupt)
	}
	if dn < 1 || dn > 8 {
		return Values{}, fmt.Errorf("alp-rd: %d dictionary entries: %w", dn, ErrCorrupt)
	}
	if len(rest) < 2*dn {
		return Values{}, fmt.Errorf("alp-rd: dictionary of %d entries, %d bytes left: %w", dn, len(rest), ErrCorrupt)
	}
	var dict [8]uint64
	for j := range dn {
		dict[j] = uint64(rest[2*j]) | uint64(rest[2*j+1])<<8
		if dict[j] >= 1<<lw {
			return Values{}, fmt.Errorf("alp-rd: dictionary entry %d = %#x over %d bits: %w", j, dict[j], lw, ErrCorrupt)
		}
	}
	rest = rest[2*dn:]
	iw := ftBitlen(uint64(dn - 1))
	// Both row streams are checked before either is unpacked.
	if need := ftStreamBytes(n, iw) + ftStreamBytes(n, rw); need > len(rest) {
		return Values{}, fmt.Errorf("alp-rd: %d rows need %d bytes of indexes and rights, %d left: %w", n, need, len(rest), ErrCorrupt)
	}
	idx, rest, err := ftUnpack(rest, n, iw, "alp-rd indexes")
	if err != nil {
		return Values{}, err
	}
	rights, rest, err := ftUnpack(rest, n, rw, "alp-rd rights")
	if err != nil {
		return Values{}, err
	}
	ne, rest, err := Count(rest, n, "alp-rd exceptions")
	if err != nil {
		return Values{}, err
	}
	pw := ftBitlen(uint64(max(n, 1) - 1))
	if need := ftStreamBytes(ne, pw) + ftStreamBytes(ne, lw); need != len(rest) {
		return Values{}, fmt.Errorf("alp-rd: %d exceptions take %d bytes, %d left: %w", ne, need, len(rest), ErrCorrupt)
	}
	pos, rest, err := ftUnpack(rest, ne, pw, "alp-rd positions")
	if err != nil {
		return Values{}, err
	}
	lefts, _, err := ftUnpack(rest, ne, lw, "alp-rd lefts")
	if err != nil {
		return Values{}, err
	}
	if err := ftCheckPositions(pos, n, "alp-rd exception"); err != nil {
		return Values{}, err
	}
	v := Make(h.Type, n)
	for i := range n {
		if idx[i] >= uint64(dn) {
			return Values{}, fmt.Errorf("alp-rd row %d: index %d of %d: %w", i, idx[i], dn, ErrCorrupt)
		}
		v.SetBits(i, dict[idx[i]]<<uint(rw)|rights[i])
	}
	for j, p := range pos {
		v.SetBits(int(p), lefts[j]<<uint(rw)|rights[p])
	}
	return v, nil
}
