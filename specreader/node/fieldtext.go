package node

import (
	"fmt"
	"strconv"
)

// FieldText (kind 26, FORMAT.md "Text encodings"): text with decimal
// numbers inside it. Each value is a skeleton (the text with every number
// cut out, a field 0xFF 0x01 where each was) from an alphabet, chosen by
// an id a row, and the numbers, held by slot: slot m holds the m-th number
// of every row whose skeleton has more than m fields, in row order,
// printed in its fewest digits (mode 0) or in the width a uint8 child
// gives (mode 1, leading zeros kept).

const kindFieldText = 26

// FieldText limits and escapes (FORMAT.md, "FieldText (kind 26)").
const (
	fieldTextMaxSlots  = 16   // F is 1 to 16
	fieldTextMaxWidth  = 20   // a mode-1 width is at most 20 digits
	fieldTextEscape    = 0xff // the escape byte of a skeleton
	fieldTextLiteralFF = 0x00 // 0xFF 0x00: one literal 0xFF byte
	fieldTextField     = 0x01 // 0xFF 0x01: a field
)

func init() { register(kindFieldText, decodeFieldText) }

// ftSkeleton is one alphabet entry, unescaped: its k+1 literal pieces
// around its k fields, and the bytes the pieces hold together.
type ftSkeleton struct {
	pieces [][]byte
	bytes  int
}

// fields is the skeleton's field count k.
func (s *ftSkeleton) fields() int { return len(s.pieces) - 1 }

// ftParseSkeleton splits skeleton b into its literal pieces, resolving the
// escapes: 0xFF 0x01 is a field, 0xFF 0x00 a literal 0xFF; 0xFF followed
// by any other byte, or ending the skeleton, is corrupt.
func ftParseSkeleton(b []byte) (ftSkeleton, error) {
	var s ftSkeleton
	var piece []byte
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c != fieldTextEscape {
			piece = append(piece, c)
			continue
		}
		if i+1 == len(b) {
			return ftSkeleton{}, fmt.Errorf("escape 0xff ends the skeleton: %w", ErrCorrupt)
		}
		i++
		switch b[i] {
		case fieldTextLiteralFF:
			piece = append(piece, fieldTextEscape)
		case fieldTextField:
			s.pieces = append(s.pieces, piece)
			s.bytes += len(piece)
			piece = nil
		default:
			return ftSkeleton{}, fmt.Errorf("escape 0xff %#02x: %w", b[i], ErrCorrupt)
		}
	}
	s.pieces = append(s.pieces, piece)
	s.bytes += len(piece)
	return s, nil
}

// ftChildRows reads the row count a child declares in its prefix (kind,
// type, flags, rows), without decoding it, so that counts fixed by the
// parent are checked before anything sized by them is allocated. A prefix
// too short to hold the count is left to the child's decode to report.
func ftChildRows(body []byte, what string) (int, bool) {
	child, _, err := Child(body, what)
	if err != nil || len(child) < 4 {
		return 0, false
	}
	rows, _, err := Uvarint(child[3:])
	if err != nil || rows > MaxRows {
		return 0, false
	}
	return int(rows), true
}

// decodeFieldText decodes `F | mode: F bytes | skeletons: binary, A rows |
// ids: uint32, rows rows | for each slot j: values j: uint64, R_j rows
// [| widths j: uint8, R_j rows, mode 1 only]`.
func decodeFieldText(h Header, r Resolver) (Values, error) {
	if err := ftBinaryType(h.Type, "FieldText"); err != nil {
		return Values{}, err
	}
	n := h.Rows
	f, rest, err := ftByte(h.Body, "field text F")
	if err != nil {
		return Values{}, err
	}
	if f < 1 || f > fieldTextMaxSlots {
		return Values{}, fmt.Errorf("field text F %d, want 1 to %d: %w", f, fieldTextMaxSlots, ErrCorrupt)
	}
	nf := int(f)
	if len(rest) < nf {
		return Values{}, fmt.Errorf("field text modes: %d bytes needed, %d left: %w", nf, len(rest), ErrCorrupt)
	}
	modes, rest := rest[:nf], rest[nf:]
	for j, m := range modes {
		if m > 1 {
			return Values{}, fmt.Errorf("field text slot %d mode %d: %w", j, m, ErrUnsupported)
		}
	}

	// The alphabet: 1 ≤ A ≤ rows (A = 0 when rows = 0), checked on the
	// count the child declares before it is decoded.
	if a, ok := ftChildRows(rest, "field text skeletons"); ok {
		if err := ftCheckAlphabet(a, n); err != nil {
			return Values{}, err
		}
	}
	skel, rest, err := ftChild(rest, Binary, -1, r, "field text skeletons")
	if err != nil {
		return Values{}, err
	}
	a := skel.Len
	if err := ftCheckAlphabet(a, n); err != nil {
		return Values{}, err
	}
	alphabet := make([]ftSkeleton, a)
	most := 0    // the most fields any skeleton has
	minRow := -1 // the fewest bytes a row can decode to
	for i := range a {
		s, err := ftParseSkeleton(skel.Bin[i])
		if err != nil {
			return Values{}, fmt.Errorf("field text skeleton %d: %w", i, err)
		}
		k := s.fields()
		if k > nf {
			return Values{}, fmt.Errorf("field text skeleton %d has %d fields, F is %d: %w", i, k, nf, ErrCorrupt)
		}
		most = max(most, k)
		if m := s.bytes + k; minRow < 0 || m < minRow { // a number is at least one digit
			minRow = m
		}
		alphabet[i] = s
	}
	if a > 0 && most != nf {
		return Values{}, fmt.Errorf("field text skeletons have at most %d fields, F is %d: %w", most, nf, ErrCorrupt)
	}
	// Every row decodes to at least minRow bytes: refuse before the ids
	// child (a Constant declaring many rows) when even that is too much.
	if a > 0 && uint64(n)*uint64(minRow) > MaxRawLen {
		return Values{}, fmt.Errorf("field text: %d values of at least %d bytes exceed %d: %w", n, minRow, MaxRawLen, ErrCorrupt)
	}

	ids, rest, err := ftChild(rest, Uint32, n, r, "field text ids")
	if err != nil {
		return Values{}, err
	}
	// R_j, the rows whose skeleton has more than j fields, and the bytes
	// the rows' pieces hold.
	var uses [fieldTextMaxSlots]int
	total := uint64(0)
	for i := range n {
		id := ids.Uint[i]
		if id >= uint64(a) {
			return Values{}, fmt.Errorf("field text row %d: id %d, alphabet of %d: %w", i, id, a, ErrCorrupt)
		}
		s := &alphabet[id]
		for j := range s.fields() {
			uses[j]++
		}
		total += uint64(s.bytes)
	}

	type slot struct {
		vals   []uint64
		widths []uint64 // mode 1 only
	}
	slots := make([]slot, nf)
	prev := n // R_(j−1); R_0 ≤ rows
	for j := range nf {
		what := fmt.Sprintf("field text values %d", j)
		if rj, ok := ftChildRows(rest, what); ok {
			if rj > prev {
				return Values{}, fmt.Errorf("field text slot %d holds %d values, more than %d: %w", j, rj, prev, ErrCorrupt)
			}
			prev = rj
		}
		// The rows use exactly uses[j] numbers of slot j.
		vals, more, err := ftChild(rest, Uint64, uses[j], r, what)
		if err != nil {
			return Values{}, err
		}
		rest = more
		slots[j].vals = vals.Uint
		if modes[j] == 0 {
			for _, v := range vals.Uint {
				total += uint64(ftDigits(v))
			}
			continue
		}
		what = fmt.Sprintf("field text widths %d", j)
		widths, more, err := ftChild(rest, Uint8, uses[j], r, what)
		if err != nil {
			return Values{}, err
		}
		rest = more
		for t, w := range widths.Uint {
			v := vals.Uint[t]
			if w > fieldTextMaxWidth || w < uint64(ftDigits(v)) {
				return Values{}, fmt.Errorf("field text slot %d number %d: %d in %d digits: %w", j, t, v, w, ErrCorrupt)
			}
			total += w
		}
		slots[j].widths = widths.Uint
	}
	if err := ftNoTrailing(rest, "field text slots"); err != nil {
		return Values{}, err
	}
	if total > MaxRawLen {
		return Values{}, fmt.Errorf("field text values of %d bytes exceed %d: %w", total, MaxRawLen, ErrCorrupt)
	}

	buf := make([]byte, 0, total)
	var next [fieldTextMaxSlots]int // the next unread number of each slot
	v := Make(Binary, n)
	for i := range n {
		s := &alphabet[ids.Uint[i]]
		start := len(buf)
		buf = append(buf, s.pieces[0]...)
		for m := range s.fields() {
			sl := &slots[m]
			x := sl.vals[next[m]]
			if sl.widths != nil {
				for range int(sl.widths[next[m]]) - ftDigits(x) {
					buf = append(buf, '0')
				}
			}
			next[m]++
			buf = strconv.AppendUint(buf, x, 10)
			buf = append(buf, s.pieces[m+1]...)
		}
		v.Bin[i] = buf[start:len(buf):len(buf)]
	}
	return v, nil
}

// ftCheckAlphabet checks a FieldText alphabet's size a against the node's
// rows n: 1 ≤ A ≤ rows when rows > 0, A = 0 when rows = 0.
func ftCheckAlphabet(a, n int) error {
	if n == 0 && a != 0 || n > 0 && (a < 1 || a > n) {
		return fmt.Errorf("field text alphabet of %d skeletons for %d rows: %w", a, n, ErrCorrupt)
	}
	return nil
}
